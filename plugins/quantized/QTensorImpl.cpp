// The quantized tensor, its factories (composites: they serve dense inputs) and the quantizer
// accessors. See Note [Quantized tensors] in QTensorImpl.h.
#include "QTensorImpl.h"

#include <algorithm>

#include "ember/core/Exception.h"
#include "ember/generated/Functions.h"
#include "ember/generated/QuantizedCPUFunctions.h"
#include "ember/generated/quantized/CompositeFunctions.h"

namespace ember::qbackend {

void QTensorImpl::shallow_copy_from(const IntrusivePtr<TensorImpl>& impl) {
  auto* src = dynamic_cast<const QTensorImpl*>(impl.get());
  EMBER_CHECK(src != nullptr, "[shallow_copy_from] expected a quantized tensor, got a {} one", impl->dtype());
  copy_tensor_metadata(*src, *this);
  quantizer_ = src->quantizer_;
}

QTensorImpl& qimpl(const Tensor& t, const char* op) {
  EMBER_CHECK(t.defined(), "[{}] expected a defined quantized tensor", op);
  auto* q = dynamic_cast<QTensorImpl*>(t.unsafeGetTensorImpl());
  EMBER_CHECK(q != nullptr, "[{}] expected a quantized tensor, got a {} one", op, t.dtype());
  return *q;
}

const PerTensorAffineQuantizer& per_tensor_quantizer(const Tensor& self, const char* op) {
  const QTensorImpl& q = qimpl(self, op);
  EMBER_CHECK_NOT_IMPLEMENTED(q.quantizer()->qscheme() == kPerTensorAffine, "[{}] quantized tensors of qscheme {}", op,
                              to_string(q.quantizer()->qscheme()));
  return static_cast<const PerTensorAffineQuantizer&>(*q.quantizer());
}

ScalarType underlying_type(ScalarType qtype) {
  switch (qtype) {
    case kQUInt8:
      return kUInt8;
    case kQInt8:
      return kInt8;
    case kQInt32:
      return kInt32;
    default:
      break;
  }
  EMBER_THROW(TypeError, "[quantized] expected a quantized dtype (QUInt8, QInt8, QInt32), got {}", qtype);
}

Tensor new_qtensor(IntArrayRef sizes, ScalarType qtype, QuantizerPtr q) {
  const int64_t n = checked_numel(sizes, "quantized");
  Storage s = make_storage(static_cast<size_t>(n) * element_size(qtype), Device(kCPU));
  return Tensor(make_intrusive<QTensorImpl>(std::move(s), qtype, sizes, std::move(q)));
}

Tensor int_view(const Tensor& q) {
  const TensorImpl& i = *q.unsafeGetTensorImpl();
  return Tensor(
      make_intrusive<TensorImpl>(i.storage(), underlying_type(i.dtype()), i.sizes(), i.strides(), i.storage_offset()));
}

namespace {

void check_quantized_dtype(const char* op, ScalarType dtype) {
  EMBER_CHECK_TYPE(is_quantized_type(dtype),
                   "[{}] expected a quantized dtype (QUInt8, QInt8, QInt32) for dtype, got {}", op, dtype);
}

void check_zero_point(const char* op, int64_t zp, ScalarType dtype) {
  int64_t lo = 0, hi = 0;
  switch (dtype) {
    case kQUInt8:
      lo = 0, hi = 255;
      break;
    case kQInt8:
      lo = -128, hi = 127;
      break;
    default:
      lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
  }
  EMBER_CHECK(zp >= lo && zp <= hi, "[{}] zero_point {} is out of range [{}, {}] of {}", op, zp, lo, hi, dtype);
}

void check_scale(const char* op, double scale) {
  EMBER_CHECK(std::isfinite(scale) && scale > 0 && std::isfinite(1.0f / static_cast<float>(scale)),
              "[{}] expected a positive finite scale, got {}", op, scale);
}

void check_float_input(const char* op, const Tensor& self) {
  EMBER_CHECK(self.defined(), "[{}] expected a defined tensor for self", op);
  EMBER_CHECK_TYPE(self.dtype() == kFloat32,
                   "[{}] expected a float32 tensor for self, got {} (quantize only works on float32)", op,
                   self.dtype());
  EMBER_CHECK_NOT_IMPLEMENTED(
      self.device().type() == kCPU,
      "[{}] quantized tensors on {} are not supported: the quantized kernels are the cpu's (QuantizedCPU)", op,
      self.device());
}

template <class T>
void quantize_loop(const float* x, T* q, int64_t n, double scale, int64_t zp) {
  const float inv = 1.0f / static_cast<float>(scale);
  for (int64_t i = 0; i < n; ++i) q[i] = quantize_val<T>(inv, zp, x[i]);
}

// The per-channel quantizer after LibTorch's checks (scales float, zero_points integral, one per
// index along axis), errors naming `op`.
std::shared_ptr<PerChannelAffineQuantizer> make_per_channel_quantizer(const char* op, IntArrayRef sizes,
                                                                      const Tensor& scales, const Tensor& zero_points,
                                                                      int64_t axis, ScalarType dtype) {
  check_quantized_dtype(op, dtype);
  EMBER_CHECK(scales.defined() && scales.dim() == 1, "[{}] expected a 1-D tensor for scales, got {} dims", op,
              scales.defined() ? scales.dim() : 0);
  EMBER_CHECK(zero_points.defined() && zero_points.dim() == 1,
              "[{}] expected a 1-D tensor for zero_points, got {} dims", op,
              zero_points.defined() ? zero_points.dim() : 0);
  EMBER_CHECK_TYPE(is_floating_type(scales.dtype()), "[{}] expected a floating tensor for scales, got {}", op,
                   scales.dtype());
  EMBER_CHECK_TYPE(is_integral_type(zero_points.dtype(), false) || is_floating_type(zero_points.dtype()),
                   "[{}] expected an integer tensor for zero_points, got {}", op, zero_points.dtype());
  EMBER_CHECK(scales.numel() == zero_points.numel(),
              "[{}] number of elements in scales ({}) and zero_points ({}) must match", op, scales.numel(),
              zero_points.numel());
  const auto nd = static_cast<int64_t>(sizes.size());
  EMBER_CHECK_INDEX(axis >= 0 && axis < nd, "[{}] channel axis {} is out of range [0, {})", op, axis, nd);
  EMBER_CHECK(scales.numel() == sizes[static_cast<size_t>(axis)],
              "[{}] expected {} scales (the size of axis {}), got {}", op, sizes[static_cast<size_t>(axis)], axis,
              scales.numel());
  auto q = std::make_shared<PerChannelAffineQuantizer>();
  q->dtype = dtype;
  q->scales = scales.to(kFloat64).contiguous().clone();
  q->zero_points = zero_points.to(kInt64).contiguous().clone();
  q->axis = axis;
  const double* s = q->scales.data_ptr<double>();
  const int64_t* z = q->zero_points.data_ptr<int64_t>();
  for (int64_t i = 0; i < scales.numel(); ++i) {
    check_scale(op, s[i]);
    check_zero_point(op, z[i], dtype);
  }
  return q;
}

// (outer, channels, inner) of `sizes` around axis.
struct ChannelSplit {
  int64_t outer = 1, channels = 1, inner = 1;
};
ChannelSplit split_at(IntArrayRef sizes, int64_t axis) {
  ChannelSplit r;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const auto d = static_cast<int64_t>(i);
    (d < axis ? r.outer : d == axis ? r.channels : r.inner) *= sizes[i];
  }
  return r;
}

}  // namespace

std::shared_ptr<PerTensorAffineQuantizer> make_per_tensor_quantizer(const char* op, double scale, int64_t zero_point,
                                                                    ScalarType dtype) {
  check_quantized_dtype(op, dtype);
  check_scale(op, scale);
  check_zero_point(op, zero_point, dtype);
  auto q = std::make_shared<PerTensorAffineQuantizer>();
  q->dtype = dtype;
  q->scale = scale;
  q->zero_point = zero_point;
  return q;
}

}  // namespace ember::qbackend

namespace ember::native {
using namespace ember::qbackend;

Tensor quantize_per_tensor(const Tensor& self, double scale, int64_t zero_point, ScalarType dtype) {
  const char* op = "quantize_per_tensor";
  check_float_input(op, self);
  auto qz = make_per_tensor_quantizer(op, scale, zero_point, dtype);
  const Tensor x = self.contiguous();
  Tensor r = new_qtensor(self.sizes(), dtype, qz);
  dispatch_int(dtype, [&](auto t) {
    using T = decltype(t);
    quantize_loop(x.data_ptr<float>(), static_cast<T*>(r.data_ptr()), x.numel(), scale, zero_point);
  });
  return r;
}

Tensor quantize_per_channel(const Tensor& self, const Tensor& scales, const Tensor& zero_points, int64_t axis,
                            ScalarType dtype) {
  const char* op = "quantize_per_channel";
  check_float_input(op, self);
  auto qz = make_per_channel_quantizer(op, self.sizes(), scales, zero_points, axis, dtype);
  const Tensor x = self.contiguous();
  Tensor r = new_qtensor(self.sizes(), dtype, qz);
  const ChannelSplit sp = split_at(self.sizes(), axis);
  const double* s = qz->scales.data_ptr<double>();
  const int64_t* z = qz->zero_points.data_ptr<int64_t>();
  dispatch_int(dtype, [&](auto t) {
    using T = decltype(t);
    const float* xp = x.data_ptr<float>();
    T* qp = static_cast<T*>(r.data_ptr());
    for (int64_t o = 0; o < sp.outer; ++o)
      for (int64_t c = 0; c < sp.channels; ++c) {
        const int64_t off = (o * sp.channels + c) * sp.inner;
        quantize_loop(xp + off, qp + off, sp.inner, s[c], z[c]);
      }
  });
  return r;
}

namespace {
// The checks both empty quantized factories share; errors name `op`.
void check_empty_quantized_args(const char* op, IntArrayRef size, std::optional<Layout> layout,
                                std::optional<Device> device, std::optional<bool> pin_memory) {
  EMBER_CHECK_NOT_IMPLEMENTED(layout.value_or(kStrided) == kStrided, "[{}] quantized tensors of layout {}", op,
                              *layout);
  EMBER_CHECK_NOT_IMPLEMENTED(
      device.value_or(Device(kCPU)).type() == kCPU,
      "[{}] quantized tensors on {} are not supported: the quantized kernels are the cpu's (QuantizedCPU)", op,
      *device);
  EMBER_CHECK(!pin_memory.value_or(false), "[{}] pin_memory is not supported for quantized tensors", op);
  for (int64_t s : size) EMBER_CHECK(s >= 0, "[{}] negative dimension {} in size {}", op, s, size);
}
}  // namespace

Tensor _empty_affine_quantized(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                               std::optional<Device> device, std::optional<bool> pin_memory, double scale,
                               int64_t zero_point) {
  const char* op = "_empty_affine_quantized";
  check_empty_quantized_args(op, size, layout, device, pin_memory);
  const ScalarType dt = dtype.value_or(kQUInt8);
  return new_qtensor(size, dt, make_per_tensor_quantizer(op, scale, zero_point, dt));
}

Tensor _empty_per_channel_affine_quantized(IntArrayRef size, const Tensor& scales, const Tensor& zero_points,
                                           int64_t axis, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                                           std::optional<Device> device, std::optional<bool> pin_memory) {
  const char* op = "_empty_per_channel_affine_quantized";
  check_empty_quantized_args(op, size, layout, device, pin_memory);
  const ScalarType dt = dtype.value_or(kQUInt8);
  return new_qtensor(size, dt, make_per_channel_quantizer(op, size, scales, zero_points, axis, dt));
}

namespace {
void check_int_repr_input(const char* op, const Tensor& self, ScalarType qtype) {
  EMBER_CHECK(self.defined(), "[{}] expected a defined tensor for self", op);
  EMBER_CHECK_TYPE(self.dtype() == underlying_type(qtype) || is_quantized_type(self.dtype()),
                   "[{}] expected an integer tensor of uint8, int8 or int32 for self, got {}", op, self.dtype());
  EMBER_CHECK_NOT_IMPLEMENTED(
      self.device().type() == kCPU,
      "[{}] quantized tensors on {} are not supported: the quantized kernels are the cpu's (QuantizedCPU)", op,
      self.device());
}
ScalarType qtype_of(const char* op, ScalarType t) {
  switch (t) {
    case kUInt8:
      return kQUInt8;
    case kInt8:
      return kQInt8;
    case kInt32:
      return kQInt32;
    default:
      break;
  }
  EMBER_THROW(TypeError, "[{}] expected a uint8, int8 or int32 tensor for self, got {}", op, t);
}
}  // namespace

Tensor _make_per_tensor_quantized_tensor(const Tensor& self, double scale, int64_t zero_point) {
  const char* op = "_make_per_tensor_quantized_tensor";
  EMBER_CHECK(self.defined(), "[{}] expected a defined tensor for self", op);
  const ScalarType qt = qtype_of(op, self.dtype());
  check_int_repr_input(op, self, qt);
  Tensor r = new_qtensor(self.sizes(), qt, make_per_tensor_quantizer(op, scale, zero_point, qt));
  int_view(r).copy_(self);
  return r;
}

Tensor _make_per_channel_quantized_tensor(const Tensor& self, const Tensor& scale, const Tensor& zero_point,
                                          int64_t axis) {
  const char* op = "_make_per_channel_quantized_tensor";
  EMBER_CHECK(self.defined(), "[{}] expected a defined tensor for self", op);
  const ScalarType qt = qtype_of(op, self.dtype());
  check_int_repr_input(op, self, qt);
  Tensor r = new_qtensor(self.sizes(), qt, make_per_channel_quantizer(op, self.sizes(), scale, zero_point, axis, qt));
  int_view(r).copy_(self);
  return r;
}

Tensor dequantize(const Tensor& self) {
  const char* op = "dequantize";
  EMBER_CHECK(self.defined(), "[{}] expected a defined tensor for self", op);
  if (!self.is_quantized()) return self.to(kFloat32);
  const QTensorImpl& qi = qimpl(self, op);
  const Tensor iv = int_view(self).contiguous();
  Tensor r = ember::empty(self.sizes(), TensorOptions(kFloat32));
  float* out = r.data_ptr<float>();
  const Quantizer& qz = *qi.quantizer();
  dispatch_int(self.dtype(), [&](auto t) {
    using T = decltype(t);
    const T* q = static_cast<const T*>(iv.data_ptr());
    if (qz.qscheme() == kPerTensorAffine) {
      const auto& p = static_cast<const PerTensorAffineQuantizer&>(qz);
      const auto s = static_cast<float>(p.scale);
      const auto z = static_cast<int32_t>(p.zero_point);
      for (int64_t i = 0; i < iv.numel(); ++i) out[i] = static_cast<float>(static_cast<int32_t>(q[i]) - z) * s;
    } else {
      const auto& p = static_cast<const PerChannelAffineQuantizer&>(qz);
      const ChannelSplit sp = split_at(self.sizes(), p.axis);
      const double* sc = p.scales.data_ptr<double>();
      const int64_t* zp = p.zero_points.data_ptr<int64_t>();
      for (int64_t o = 0; o < sp.outer; ++o)
        for (int64_t c = 0; c < sp.channels; ++c) {
          const int64_t off = (o * sp.channels + c) * sp.inner;
          const auto s = static_cast<float>(sc[c]);
          const auto z = static_cast<int32_t>(zp[c]);
          for (int64_t i = 0; i < sp.inner; ++i)
            out[off + i] = static_cast<float>(static_cast<int32_t>(q[off + i]) - z) * s;
        }
    }
  });
  return r;
}

}  // namespace ember::native

namespace ember::quantizedcpu {
using namespace ember::qbackend;

Tensor int_repr(const Tensor& self) { return int_view(self).clone(); }

namespace {
const PerTensorAffineQuantizer& per_tensor(const Tensor& self, const char* op) {
  const QTensorImpl& q = qimpl(self, op);
  EMBER_CHECK(q.quantizer()->qscheme() == kPerTensorAffine,
              "[{}] expected a per_tensor_affine quantized tensor, got a {} one", op,
              to_string(q.quantizer()->qscheme()));
  return static_cast<const PerTensorAffineQuantizer&>(*q.quantizer());
}
const PerChannelAffineQuantizer& per_channel(const Tensor& self, const char* op) {
  const QTensorImpl& q = qimpl(self, op);
  EMBER_CHECK(q.quantizer()->qscheme() == kPerChannelAffine,
              "[{}] expected a per_channel_affine quantized tensor, got a {} one", op,
              to_string(q.quantizer()->qscheme()));
  return static_cast<const PerChannelAffineQuantizer&>(*q.quantizer());
}
}  // namespace

double q_scale(const Tensor& self) { return per_tensor(self, "q_scale").scale; }
int64_t q_zero_point(const Tensor& self) { return per_tensor(self, "q_zero_point").zero_point; }
Tensor q_per_channel_scales(const Tensor& self) { return per_channel(self, "q_per_channel_scales").scales.clone(); }
Tensor q_per_channel_zero_points(const Tensor& self) {
  return per_channel(self, "q_per_channel_zero_points").zero_points.clone();
}
int64_t q_per_channel_axis(const Tensor& self) { return per_channel(self, "q_per_channel_axis").axis; }
QScheme qscheme(const Tensor& self) { return qimpl(self, "qscheme").quantizer()->qscheme(); }

}  // namespace ember::quantizedcpu
