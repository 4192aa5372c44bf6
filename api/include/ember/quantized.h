#pragma once
// The quantized:: operators of the quantized plugin. PyTorch's quantized::add, add_relu, mul,
// mul_relu: elementwise on per-tensor quantized tensors (qb broadcast to qa's shape), the result
// requantized to `scale` and `zero_point` in qa's dtype. They need the quantized plugin loaded;
// the quantized tensor itself (quantize_per_tensor, dequantize, ...) is in ember/ember.h.
#include "ember/dispatcher/Dispatcher.h"
#include "ember/dispatcher/Tensor.h"

namespace ember::quantized {

namespace detail {
// The operator's handle, looked up on first use (after the plugin has loaded).
template <class Sig, const char* Name>
const TypedOperatorHandle<Sig>& op() {
  static const TypedOperatorHandle<Sig> handle = Dispatcher::singleton().findSchemaOrThrow(Name, "").typed<Sig>();
  return handle;
}
using BinarySig = Tensor(const Tensor&, const Tensor&, double, int64_t);
inline constexpr char kAdd[] = "quantized::add";
inline constexpr char kAddRelu[] = "quantized::add_relu";
inline constexpr char kMul[] = "quantized::mul";
inline constexpr char kMulRelu[] = "quantized::mul_relu";
using LinearSig = Tensor(const Tensor&, const Tensor&, const std::optional<Tensor>&, double, int64_t);
inline constexpr char kLinear[] = "quantized::linear";
inline constexpr char kLinearRelu[] = "quantized::linear_relu";
using ConvSig = Tensor(const Tensor&, const Tensor&, const std::optional<Tensor>&, IntArrayRef, IntArrayRef,
                       IntArrayRef, int64_t, double, int64_t);
inline constexpr char kConv2d[] = "quantized::conv2d";
inline constexpr char kConv2dRelu[] = "quantized::conv2d_relu";
}  // namespace detail

inline Tensor add(const Tensor& qa, const Tensor& qb, double scale, int64_t zero_point) {
  return detail::op<detail::BinarySig, detail::kAdd>().call(qa, qb, scale, zero_point);
}
inline Tensor add_relu(const Tensor& qa, const Tensor& qb, double scale, int64_t zero_point) {
  return detail::op<detail::BinarySig, detail::kAddRelu>().call(qa, qb, scale, zero_point);
}
inline Tensor mul(const Tensor& qa, const Tensor& qb, double scale, int64_t zero_point) {
  return detail::op<detail::BinarySig, detail::kMul>().call(qa, qb, scale, zero_point);
}
inline Tensor mul_relu(const Tensor& qa, const Tensor& qb, double scale, int64_t zero_point) {
  return detail::op<detail::BinarySig, detail::kMulRelu>().call(qa, qb, scale, zero_point);
}

// int8 linear: X (quint8, per tensor) times W^T (qint8 (N, K), symmetric, per tensor or per
// channel) plus an optional float32 bias, requantized to (Y_scale, Y_zero_point) as quint8. W's
// packed form is cached (Note [Quantized linear] in plugins/quantized/linear.cpp).
inline Tensor linear(const Tensor& x, const Tensor& w, const std::optional<Tensor>& b, double y_scale,
                     int64_t y_zero_point) {
  return detail::op<detail::LinearSig, detail::kLinear>().call(x, w, b, y_scale, y_zero_point);
}
inline Tensor linear_relu(const Tensor& x, const Tensor& w, const std::optional<Tensor>& b, double y_scale,
                          int64_t y_zero_point) {
  return detail::op<detail::LinearSig, detail::kLinearRelu>().call(x, w, b, y_scale, y_zero_point);
}

// int8 conv2d: X (quint8 (N, C, H, W), per tensor) with W (qint8 (OC, C / groups, KH, KW),
// symmetric, per tensor or per channel along 0), an optional float32 bias; the result is quint8
// with (Y_scale, Y_zero_point), channels-last. Padding takes X's zero point (the value 0.0), as
// LibTorch. A channels-last X (any quantized conv's output) is read without a copy.
inline Tensor conv2d(const Tensor& x, const Tensor& w, const std::optional<Tensor>& b, IntArrayRef stride,
                     IntArrayRef padding, IntArrayRef dilation, int64_t groups, double y_scale, int64_t y_zero_point) {
  return detail::op<detail::ConvSig, detail::kConv2d>().call(x, w, b, stride, padding, dilation, groups, y_scale,
                                                             y_zero_point);
}
inline Tensor conv2d_relu(const Tensor& x, const Tensor& w, const std::optional<Tensor>& b, IntArrayRef stride,
                          IntArrayRef padding, IntArrayRef dilation, int64_t groups, double y_scale,
                          int64_t y_zero_point) {
  return detail::op<detail::ConvSig, detail::kConv2dRelu>().call(x, w, b, stride, padding, dilation, groups, y_scale,
                                                                 y_zero_point);
}

}  // namespace ember::quantized
