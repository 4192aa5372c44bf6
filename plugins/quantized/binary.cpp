// The quantized:: operators (PyTorch's quantized::add, add_relu, mul, mul_relu and their scalar
// forms): the result is requantized to the given scale and zero point. They live in namespace
// `quantized`, not aten, so they are declared here rather than in schemas/ops.yaml (which
// declares aten's operators only); ember/quantized.h has their C++ functions.
#include <algorithm>

#include "QTensorImpl.h"
#include "ember/api/Operators.h"
#include "ember/core/Exception.h"
#include "ember/dispatcher/Library.h"
#include "ember/generated/Functions.h"
#include "ember/generated/QuantizedCPUFunctions.h"

namespace ember::qbackend {
namespace {

const PerTensorAffineQuantizer& per_tensor_input(const Tensor& t, const char* op, const char* arg) {
  EMBER_CHECK(t.defined(), "[quantized::{}] expected a defined quantized tensor for {}", op, arg);
  EMBER_CHECK_TYPE(t.is_quantized(), "[quantized::{}] expected a quantized tensor for {}, got a {} one", op, arg,
                   t.dtype());
  const QTensorImpl& q = qimpl(t, op);
  EMBER_CHECK_NOT_IMPLEMENTED(q.quantizer()->qscheme() == kPerTensorAffine,
                              "[quantized::{}] only per-tensor affine quantization is supported for {}, got {}", op,
                              arg, to_string(q.quantizer()->qscheme()));
  return static_cast<const PerTensorAffineQuantizer&>(*q.quantizer());
}

// f(dequantize(qa), dequantize(qb)) (b broadcast to qa's shape), requantized to (scale,
// zero_point) in qa's dtype; relu clamps the integers at the zero point.
template <class F>
Tensor binary(const char* op, const Tensor& qa, const Tensor& qb, double scale, int64_t zero_point, bool relu, F&& f) {
  per_tensor_input(qa, op, "qa");
  per_tensor_input(qb, op, "qb");
  EMBER_CHECK_TYPE(qa.dtype() == qb.dtype(), "[quantized::{}] both inputs must have the same dtype, got {} and {}", op,
                   qa.dtype(), qb.dtype());
  auto qz = make_per_tensor_quantizer(op, scale, zero_point, qa.dtype());
  Tensor y = f(ember::dequantize(qa), ember::dequantize(qb));
  EMBER_CHECK(y.sizes() == qa.sizes(), "[quantized::{}] qb of shape {} does not broadcast to qa's shape {}", op,
              qb.sizes(), qa.sizes());
  Tensor r = ember::quantize_per_tensor(y, scale, zero_point, qa.dtype());
  if (relu) quantizedcpu::relu_(r);  // r's zero point is zero_point
  return r;
}

Tensor add(const Tensor& qa, const Tensor& qb, double scale, int64_t zero_point) {
  return binary("add", qa, qb, scale, zero_point, false, [](const Tensor& a, const Tensor& b) { return a + b; });
}
Tensor add_relu(const Tensor& qa, const Tensor& qb, double scale, int64_t zero_point) {
  return binary("add_relu", qa, qb, scale, zero_point, true, [](const Tensor& a, const Tensor& b) { return a + b; });
}
// PyTorch's qmul works on the integers: c = (a - za) * (b - zb), then
// zero_point + nearbyint(c * multiplier), clamped (requantize_from_int).
Tensor mul_impl(const char* op, const Tensor& qa, const Tensor& qb, double scale, int64_t zero_point, bool relu) {
  const PerTensorAffineQuantizer& pa = per_tensor_input(qa, op, "qa");
  const PerTensorAffineQuantizer& pb = per_tensor_input(qb, op, "qb");
  EMBER_CHECK_TYPE(qa.dtype() == qb.dtype(), "[quantized::{}] both inputs must have the same dtype, got {} and {}", op,
                   qa.dtype(), qb.dtype());
  auto qz = make_per_tensor_quantizer(op, scale, zero_point, qa.dtype());
  const Tensor a = int_view(qa).to(kInt64) - pa.zero_point;
  const Tensor b = int_view(qb).to(kInt64) - pb.zero_point;
  const Tensor c = (a * b).contiguous();
  EMBER_CHECK(c.sizes() == qa.sizes(), "[quantized::{}] qb of shape {} does not broadcast to qa's shape {}", op,
              qb.sizes(), qa.sizes());
  // In float, as PyTorch: sa * sb * (1 / s).
  const float mult = static_cast<float>(pa.scale) * static_cast<float>(pb.scale) * (1.0f / static_cast<float>(scale));
  Tensor r = new_qtensor(qa.sizes(), qa.dtype(), qz);
  const int64_t* cp = c.data_ptr<int64_t>();
  auto run = [&](auto t) {
    using T = decltype(t);
    T* out = static_cast<T*>(r.data_ptr());
    for (int64_t i = 0; i < c.numel(); ++i) out[i] = quantize_val<T>(mult, zero_point, static_cast<float>(cp[i]));
  };
  if (qa.dtype() == kQUInt8)
    run(uint8_t{});
  else if (qa.dtype() == kQInt8)
    run(int8_t{});
  else
    run(int32_t{});
  if (relu) quantizedcpu::relu_(r);
  return r;
}

Tensor mul(const Tensor& qa, const Tensor& qb, double scale, int64_t zero_point) {
  return mul_impl("mul", qa, qb, scale, zero_point, false);
}
Tensor mul_relu(const Tensor& qa, const Tensor& qb, double scale, int64_t zero_point) {
  return mul_impl("mul_relu", qa, qb, scale, zero_point, true);
}

}  // namespace
}  // namespace ember::qbackend

EMBER_LIBRARY(quantized, m) {
  m.def("add(Tensor qa, Tensor qb, float scale, int zero_point) -> Tensor");
  m.def("add_relu(Tensor qa, Tensor qb, float scale, int zero_point) -> Tensor");
  m.def("mul(Tensor qa, Tensor qb, float scale, int zero_point) -> Tensor");
  m.def("mul_relu(Tensor qa, Tensor qb, float scale, int zero_point) -> Tensor");
}

EMBER_LIBRARY_IMPL(quantized, QuantizedCPU, m) {
  m.impl("add", ember::qbackend::add);
  m.impl("add_relu", ember::qbackend::add_relu);
  m.impl("mul", ember::qbackend::mul);
  m.impl("mul_relu", ember::qbackend::mul_relu);
}
