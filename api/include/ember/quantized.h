#pragma once
// The quantized:: operators of the quantized plugin (PyTorch's quantized::add, add_relu, mul,
// mul_relu): elementwise on per-tensor quantized tensors (qb broadcast to qa's shape), the result
// requantized to `scale` and `zero_point` in qa's dtype. They need the quantized plugin loaded;
// the quantized tensor itself (quantize_per_tensor, dequantize, ...) is in ember/ember.h.
#include "ember/dispatcher/Dispatcher.h"
#include "ember/dispatcher/Tensor.h"

namespace ember::quantized {

namespace detail {
using BinarySig = Tensor(const Tensor&, const Tensor&, double, int64_t);
// The operator's handle, looked up on first use (after the plugin has loaded).
template <const char* Name>
const TypedOperatorHandle<BinarySig>& binary_op() {
  static const TypedOperatorHandle<BinarySig> op =
      Dispatcher::singleton().findSchemaOrThrow(Name, "").typed<BinarySig>();
  return op;
}
inline constexpr char kAdd[] = "quantized::add";
inline constexpr char kAddRelu[] = "quantized::add_relu";
inline constexpr char kMul[] = "quantized::mul";
inline constexpr char kMulRelu[] = "quantized::mul_relu";
}  // namespace detail

inline Tensor add(const Tensor& qa, const Tensor& qb, double scale, int64_t zero_point) {
  return detail::binary_op<detail::kAdd>().call(qa, qb, scale, zero_point);
}
inline Tensor add_relu(const Tensor& qa, const Tensor& qb, double scale, int64_t zero_point) {
  return detail::binary_op<detail::kAddRelu>().call(qa, qb, scale, zero_point);
}
inline Tensor mul(const Tensor& qa, const Tensor& qb, double scale, int64_t zero_point) {
  return detail::binary_op<detail::kMul>().call(qa, qb, scale, zero_point);
}
inline Tensor mul_relu(const Tensor& qa, const Tensor& qb, double scale, int64_t zero_point) {
  return detail::binary_op<detail::kMulRelu>().call(qa, qb, scale, zero_point);
}

}  // namespace ember::quantized
