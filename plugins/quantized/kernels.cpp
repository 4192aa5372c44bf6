// QuantizedCPU kernels of existing operators: copy_, relu, cat, on the integers (the pools are in
// pool.cpp).
#include <algorithm>

#include "QTensorImpl.h"
#include "ember/core/Exception.h"
#include "ember/generated/Functions.h"
#include "ember/generated/QuantizedCPUFunctions.h"

namespace ember::quantizedcpu {
using namespace ember::qbackend;

namespace {

bool same_qparams(const Quantizer& a, const Quantizer& b) {
  if (a.qscheme() != b.qscheme() || a.dtype != b.dtype) return false;
  if (a.qscheme() == kPerTensorAffine) {
    const auto& x = static_cast<const PerTensorAffineQuantizer&>(a);
    const auto& y = static_cast<const PerTensorAffineQuantizer&>(b);
    return x.scale == y.scale && x.zero_point == y.zero_point;
  }
  const auto& x = static_cast<const PerChannelAffineQuantizer&>(a);
  const auto& y = static_cast<const PerChannelAffineQuantizer&>(b);
  return x.axis == y.axis && ember::equal(x.scales, y.scales) && ember::equal(x.zero_points, y.zero_points);
}

// max(q, zero_point) over the integers of a dense (contiguous or channels-last) `r` (relu keeps
// the quantizer).
template <class T>
void relu_dense(T* __restrict__ p, int64_t n, T z) {
  for (int64_t i = 0; i < n; ++i) p[i] = std::max(p[i], z);
}
void relu_ints(Tensor& r, int64_t zp) {
  dispatch_int(r.dtype(), [&](auto t) {
    using T = decltype(t);
    relu_dense(static_cast<T*>(r.data_ptr()), r.numel(), static_cast<T>(zp));
  });
}

}  // namespace

Tensor& copy_(Tensor& self, const Tensor& src, bool non_blocking) {
  (void)non_blocking;
  const char* op = "copy_";
  EMBER_CHECK(src.defined(), "[{}] expected a defined tensor for src", op);
  EMBER_CHECK_TYPE(self.is_quantized(),
                   "[{}] copying from a quantized tensor to a non-quantized one is not allowed; use dequantize() to "
                   "get a float tensor from a quantized one",
                   op);
  QTensorImpl& qi = qimpl(self, op);
  if (src.is_quantized()) {
    const QTensorImpl& si = qimpl(src, op);
    EMBER_CHECK(si.quantizer()->qscheme() == qi.quantizer()->qscheme(),
                "[{}] quantized copy needs the same qscheme: self is {}, src is {}", op,
                to_string(qi.quantizer()->qscheme()), to_string(si.quantizer()->qscheme()));
    EMBER_CHECK_TYPE(src.dtype() == self.dtype(), "[{}] quantized copy needs the same dtype: self is {}, src is {}", op,
                     self.dtype(), src.dtype());
    int_view(self).copy_(int_view(src));  // checks the shapes before anything changes
    qi.set_quantizer(si.quantizer());
    return self;
  }
  EMBER_CHECK_TYPE(src.dtype() == kFloat32, "[{}] quantized copy needs a float32 src, got {}", op, src.dtype());
  const PerTensorAffineQuantizer& p = per_tensor_quantizer(self, op);
  const Tensor q = ember::quantize_per_tensor(src, p.scale, p.zero_point, self.dtype());
  int_view(self).copy_(int_view(q));
  return self;
}

Tensor relu(const Tensor& self) {
  const QTensorImpl& qi = qimpl(self, "relu");
  const PerTensorAffineQuantizer& p = per_tensor_quantizer(self, "relu");
  // Keeps a channels-last input's layout, as LibTorch's empty_like does.
  const bool cl = is_channels_last(self) && !self.is_contiguous();
  Tensor r = cl ? new_qtensor({self.size(0), self.size(2), self.size(3), self.size(1)}, self.dtype(), qi.quantizer())
                      .permute({0, 3, 1, 2})
                : new_qtensor(self.sizes(), self.dtype(), qi.quantizer());
  int_view(r).copy_(int_view(self));
  relu_ints(r, p.zero_point);
  return r;
}

Tensor& relu_(Tensor& self) {
  const PerTensorAffineQuantizer& p = per_tensor_quantizer(self, "relu_");
  if (self.is_contiguous() || is_channels_last(self)) {
    relu_ints(self, p.zero_point);
  } else {
    Tensor r = quantizedcpu::relu(self);
    int_view(self).copy_(int_view(r));
  }
  return self;
}

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  const char* op = "cat";
  EMBER_CHECK(!tensors.empty(), "[{}] expected a non-empty list of tensors", op);
  const QTensorImpl& first = qimpl(tensors[0], op);
  std::vector<Tensor> ints;
  ints.reserve(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    const QTensorImpl& qi = qimpl(tensors[i], op);
    EMBER_CHECK(same_qparams(*first.quantizer(), *qi.quantizer()),
                "[{}] all inputs should share the same quantization parameters; tensor {} differs from tensor 0", op,
                i);
    ints.push_back(int_view(tensors[i]));
  }
  const Tensor r = ember::cat(ints, dim);
  Tensor q = new_qtensor(r.sizes(), tensors[0].dtype(), first.quantizer());
  int_view(q).copy_(r);
  return q;
}

}  // namespace ember::quantizedcpu
