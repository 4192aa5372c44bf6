// Host half of the cuda plugin's pointwise families with Scalar parameters or more operands: pow,
// clamp, atan2, fmod/remainder, div's rounding modes and floor_divide, the activations with
// Scalar parameters, lerp, addcmul, nan_to_num and round(decimals). Each runs its family's
// metadata step (shared with cpu and meta), then one launch of kernels/binary.cu; the values are
// ember/native/PointwiseMath.h's, the cpu's own.
#include <cmath>

#include "CUDAPlugin.h"
#include EMBER_GPU_FUNCTIONS_H
#include "ember/generated/Functions.h"
#include "ember/native/ElementwiseMeta.h"

namespace ember::EMBER_GPU_NS {
namespace {

void launch_binary_kind(const char* name, gpu::Binary kind, ScalarType cdt, const native::TensorIter& it,
                        gpu::Value alpha = {}) {
  check_launch(gpu::launch_binary(kind, to_dt(cdt), kernel_iter(it), alpha, stream()), name, cdt);
}

void launch_pointwise_kind(const char* name, gpu::Pointwise kind, ScalarType cdt, const native::TensorIter& it,
                           const gpu::Value (&p)[3]) {
  check_launch(gpu::launch_pointwise(kind, to_dt(cdt), kernel_iter(it), p, stream()), name, cdt);
}

gpu::Value float_value(double v) {
  gpu::Value r;
  r.f = v;
  return r;
}

// What an absent clamp bound stands for: the compute type's extreme (an infinity when floating).
gpu::Value extreme(ScalarType cdt, bool high) {
  gpu::Value v;
  v.f = high ? HUGE_VAL : -HUGE_VAL;
  switch (cdt) {
    case kUInt8:
      v.i = high ? 255 : 0;
      break;
    case kInt8:
      v.i = high ? 127 : -128;
      break;
    case kInt16:
      v.i = high ? 32767 : -32768;
      break;
    case kInt32:
      v.i = high ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int32_t>::min();
      break;
    default:
      v.i = high ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  }
  return v;
}

// An integer divisor holding a zero raises, as the cpu's (LibTorch's ZeroDivisionError): one
// reduction and a sync, because a kernel cannot raise. Before anything is written.
void check_divisor(const char* name, ScalarType cdt, const Tensor* at, const Tensor* bt, const Scalar* bs) {
  if (!is_integral_type(cdt, false) || (at && at->numel() == 0) || (bt && bt->numel() == 0)) return;
  const bool zero = bs ? bs->toDouble() == 0 : ember::eq(*bt, Scalar(int64_t{0})).any().item<bool>();
  EMBER_CHECK(!zero, "[{}] ZeroDivisionError", name);
}

// out = K(a, b), each operand a tensor (`at`, `bt`) or a Scalar (`as`, `bs`), for the `result`
// dtype of the family's rule.
void binary_math(const char* name, gpu::Binary kind, ScalarType result, Tensor& out, OutKind ok, const Tensor* at,
                 const Scalar* as, const Tensor* bt, const Scalar* bs) {
  OptionalDeviceGuard guard(device_of(at ? *at : *bt));
  Tensor ha, hb;
  at = device_operand(at, ha);
  bt = device_operand(bt, hb);
  const ScalarType cdt = compute_dtype(result);
  if (kind == gpu::Binary::Fmod || kind == gpu::Binary::Remainder || kind == gpu::Binary::DivTrunc ||
      kind == gpu::Binary::DivFloor)
    check_divisor(name, cdt, at, bt, bs);
  const Tensor a = as ? scalar_tensor(*as, cdt) : Tensor();
  const Tensor b = bs ? scalar_tensor(*bs, cdt) : Tensor();
  TensorIter it(name);
  native::binary_meta(it, name, result, as ? a : *at, bs ? &b : bt, out, ok);
  launch_binary_kind(name, kind, cdt, it);
}

void div_mode_impl(const char* name, const std::optional<std::string_view>& mode, Tensor& out, OutKind ok,
                   const Tensor& self, const Tensor* bt, const Scalar* bs) {
  const native::DivMode m = native::div_mode(name, mode);
  const ScalarType result = native::div_mode_result(name, m, self, bt, bs);
  // div.Scalar_mode.out is a generated out= in LibTorch: the result is resized contiguous.
  if (bs && ok == OutKind::Out) native::resize_out_contiguous(name, out, result, self);
  const gpu::Binary kind = m == native::DivMode::True    ? gpu::Binary::Div
                           : m == native::DivMode::Trunc ? gpu::Binary::DivTrunc
                                                         : gpu::Binary::DivFloor;
  binary_math(name, kind, result, out, ok, &self, nullptr, bt, bs);
}

// out = K(self; p) over self alone, for the `result` dtype of the family's rule: the family's
// metadata step (binary_meta with no second operand), then one launch.
void self_pointwise(const char* name, gpu::Pointwise kind, ScalarType result, Tensor& out, OutKind ok,
                    const Tensor& self, const gpu::Value (&p)[3]) {
  OptionalDeviceGuard guard(device_of(self));
  TensorIter it(name);
  native::binary_meta(it, name, result, self, nullptr, out, ok);
  launch_pointwise_kind(name, kind, compute_dtype(result), it, p);
}

// out = K(self; p) for the activations that take floating tensors only.
void activation(const char* name, gpu::Pointwise kind, Tensor& out, OutKind ok, const Tensor& self,
                const gpu::Value (&p)[3]) {
  self_pointwise(name, kind, native::activation_result(name, self), out, ok, self, p);
}

void clamp_tensor_impl(const char* name, Tensor& out, OutKind ok, const Tensor& self, const Tensor* min,
                       const Tensor* max) {
  OptionalDeviceGuard guard(device_of(self));
  Tensor hmin, hmax;
  if (min && !min->defined()) min = nullptr;
  if (max && !max->defined()) max = nullptr;
  min = device_operand(min, hmin);
  max = device_operand(max, hmax);
  const ScalarType result = native::clamp_tensor_result(name, self, min, max);
  const ScalarType cdt = compute_dtype(result);
  TensorIter it(name);
  native::clamp_tensor_meta(it, name, result, self, min, max, out, ok);
  if (min && max)
    launch_pointwise_kind(name, gpu::Pointwise::ClampBoth, cdt, it, {});
  else
    launch_binary_kind(name, min ? gpu::Binary::ClampMin : gpu::Binary::ClampMax, cdt, it);
}

// clamp_min/clamp_max with a Scalar bound: clamp's dtype rule; the other bound at the extreme.
void clamp_scalar_impl(const char* name, bool is_min, Tensor& out, OutKind ok, const Tensor& self,
                       const Scalar& bound) {
  const ScalarType result = is_min ? native::clamp_result(name, self, bound, std::nullopt)
                                   : native::clamp_result(name, self, std::nullopt, bound);
  const ScalarType cdt = compute_dtype(result);
  const gpu::Value b = to_value(bound, cdt);
  if (is_min)
    self_pointwise(name, gpu::Pointwise::Hardtanh, result, out, ok, self, {b, extreme(cdt, true), {}});
  else
    self_pointwise(name, gpu::Pointwise::Hardtanh, result, out, ok, self, {extreme(cdt, false), b, {}});
}

}  // namespace

// ---- pow ----------------------------------------------------------------------------------------

void pow_tensor_tensor_out(const Tensor& self, const Tensor& exponent, Tensor& out, OutKind kind) {
  const char* name = EMBER_VARIANT_NAME("pow", kind);
  const ScalarType result = native::pow_result(name, self, &exponent, nullptr);
  binary_math(name, gpu::Binary::Pow, result, out, kind, &self, nullptr, &exponent, nullptr);
}

void pow_tensor_scalar_out(const Tensor& self, const Scalar& exponent, Tensor& out, OutKind kind) {
  const char* name = EMBER_VARIANT_NAME("pow", kind);
  const ScalarType result = native::pow_result(name, self, nullptr, &exponent);
  if (kind == OutKind::Out) {
    native::check_defined(name, out, "out");
    native::check_same_dtype_out(name, kind, out, result);  // LibTorch's pow.Tensor_Scalar is a unary op on self
  }
  self_pointwise(name, gpu::Pointwise::PowScalar, result, out, kind, self,
                 {to_value(exponent, compute_dtype(result)), {}, {}});
}

void pow_scalar_out(const Scalar& self, const Tensor& exponent, Tensor& out, OutKind kind) {
  const char* name = "pow";
  OptionalDeviceGuard guard(device_of(exponent));
  const ScalarType result = native::pow_scalar_base_result(name, self, exponent);
  const ScalarType cdt = compute_dtype(result);
  const Tensor base = scalar_tensor(self, cdt);
  TensorIter it(name);
  native::pow_scalar_meta(it, result, base, exponent, out, kind);
  launch_binary_kind(name, gpu::Binary::Pow, cdt, it);
}

// ---- clamp --------------------------------------------------------------------------------------

void clamp_out(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max, Tensor& out,
               OutKind kind) {
  const char* name = EMBER_VARIANT_NAME("clamp", kind);
  const ScalarType result = native::clamp_result(name, self, min, max);
  const ScalarType cdt = compute_dtype(result);
  self_pointwise(name, gpu::Pointwise::Clamp, result, out, kind, self,
                 {min ? to_value(*min, cdt) : extreme(cdt, false), max ? to_value(*max, cdt) : extreme(cdt, true), {}});
}

void clamp_tensor_out(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max,
                      Tensor& out, OutKind kind) {
  clamp_tensor_impl(EMBER_VARIANT_NAME("clamp", kind), out, kind, self, min ? &*min : nullptr, max ? &*max : nullptr);
}
void clamp_min_tensor_out(const Tensor& self, const Tensor& min, Tensor& out, OutKind kind) {
  clamp_tensor_impl(EMBER_VARIANT_NAME("clamp_min", kind), out, kind, self, &min, nullptr);
}
void clamp_max_tensor_out(const Tensor& self, const Tensor& max, Tensor& out, OutKind kind) {
  clamp_tensor_impl(EMBER_VARIANT_NAME("clamp_max", kind), out, kind, self, nullptr, &max);
}
void clamp_min_out(const Tensor& self, const Scalar& min, Tensor& out, OutKind kind) {
  clamp_scalar_impl(EMBER_VARIANT_NAME("clamp_min", kind), true, out, kind, self, min);
}
void clamp_max_out(const Tensor& self, const Scalar& max, Tensor& out, OutKind kind) {
  clamp_scalar_impl(EMBER_VARIANT_NAME("clamp_max", kind), false, out, kind, self, max);
}

// ---- atan2, fmod, remainder, div's rounding modes -------------------------------------------------

void atan2_out(const Tensor& self, const Tensor& other, Tensor& out, OutKind kind) {
  const char* name = EMBER_VARIANT_NAME("atan2", kind);
  const ScalarType r =
      native::binary_math_result(name, native::BinaryMathRule::ToFloating, &self, nullptr, &other, nullptr);
  binary_math(name, gpu::Binary::Atan2, r, out, kind, &self, nullptr, &other, nullptr);
}

#define EMBER_GPU_DEFINE_TT(fn, op, Kind)                                                                  \
  void fn(const Tensor& self, const Tensor& other, Tensor& out, OutKind kind) {                            \
    const char* name = EMBER_VARIANT_NAME(op, kind);                                                       \
    const ScalarType r =                                                                                   \
        native::binary_math_result(name, native::BinaryMathRule::NoBool, &self, nullptr, &other, nullptr); \
    binary_math(name, gpu::Binary::Kind, r, out, kind, &self, nullptr, &other, nullptr);                   \
  }
#define EMBER_GPU_DEFINE_TS(fn, op, Kind)                                                                  \
  void fn(const Tensor& self, const Scalar& other, Tensor& out, OutKind kind) {                            \
    const char* name = EMBER_VARIANT_NAME(op, kind);                                                       \
    const ScalarType r =                                                                                   \
        native::binary_math_result(name, native::BinaryMathRule::NoBool, &self, nullptr, nullptr, &other); \
    binary_math(name, gpu::Binary::Kind, r, out, kind, &self, nullptr, nullptr, &other);                   \
  }
EMBER_GPU_DEFINE_TT(fmod_tensor_out, "fmod", Fmod)
EMBER_GPU_DEFINE_TS(fmod_scalar_out, "fmod", Fmod)
EMBER_GPU_DEFINE_TT(remainder_tensor_out, "remainder", Remainder)
EMBER_GPU_DEFINE_TS(remainder_scalar_out, "remainder", Remainder)
EMBER_GPU_DEFINE_TT(floor_divide_out, "floor_divide", DivFloor)
#undef EMBER_GPU_DEFINE_TT
#undef EMBER_GPU_DEFINE_TS

void remainder_scalar_tensor_out(const Scalar& self, const Tensor& other, Tensor& out, OutKind kind) {
  const char* name = "remainder";
  const ScalarType r =
      native::binary_math_result(name, native::BinaryMathRule::NoBool, nullptr, &self, &other, nullptr);
  binary_math(name, gpu::Binary::Remainder, r, out, kind, nullptr, &self, &other, nullptr);
}

void div_out_mode(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode, Tensor& out,
                  OutKind kind) {
  div_mode_impl(EMBER_VARIANT_NAME("div", kind), rounding_mode, out, kind, self, &other, nullptr);
}
void div_scalar_mode_out(const Tensor& self, const Scalar& other, std::optional<std::string_view> rounding_mode,
                         Tensor& out, OutKind kind) {
  div_mode_impl(EMBER_VARIANT_NAME("div", kind), rounding_mode, out, kind, self, nullptr, &other);
}

// ---- activations with Scalar parameters -----------------------------------------------------------

void hardtanh_out(const Tensor& self, const Scalar& min_val, const Scalar& max_val, Tensor& out, OutKind kind) {
  const char* name = EMBER_VARIANT_NAME("hardtanh", kind);
  const ScalarType result = native::hardtanh_result(name, self, min_val, max_val);
  const ScalarType cdt = compute_dtype(result);
  self_pointwise(name, gpu::Pointwise::Hardtanh, result, out, kind, self,
                 {to_value(min_val, cdt), to_value(max_val, cdt), {}});
}

void leaky_relu_out(const Tensor& self, const Scalar& negative_slope, Tensor& out, OutKind kind) {
  activation(EMBER_VARIANT_NAME("leaky_relu", kind), gpu::Pointwise::LeakyRelu, out, kind, self,
             {float_value(negative_slope.to<double>()), {}, {}});
}

void elu_out(const Tensor& self, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale, Tensor& out,
             OutKind kind) {
  activation(EMBER_VARIANT_NAME("elu", kind), gpu::Pointwise::Elu, out, kind, self,
             {float_value(alpha.to<double>()), float_value(scale.to<double>()), float_value(input_scale.to<double>())});
}

void softplus_out(const Tensor& self, const Scalar& beta, const Scalar& threshold, Tensor& out, OutKind kind) {
  activation("softplus", gpu::Pointwise::Softplus, out, kind, self,
             {float_value(beta.to<double>()), float_value(threshold.to<double>()), {}});
}

void hardswish_out(const Tensor& self, Tensor& out, OutKind kind) {
  activation(EMBER_VARIANT_NAME("hardswish", kind), gpu::Pointwise::Hardswish, out, kind, self, {});
}
void hardsigmoid_out(const Tensor& self, Tensor& out, OutKind kind) {
  activation(EMBER_VARIANT_NAME("hardsigmoid", kind), gpu::Pointwise::Hardsigmoid, out, kind, self, {});
}
void mish_out(const Tensor& self, Tensor& out, OutKind kind) {
  activation(EMBER_VARIANT_NAME("mish", kind), gpu::Pointwise::Mish, out, kind, self, {});
}

// ---- lerp, addcmul, nan_to_num, round(decimals) ---------------------------------------------------

void lerp_out(const Tensor& self, const Tensor& end, const Scalar& weight, Tensor& out, OutKind kind) {
  const char* name = EMBER_VARIANT_NAME("lerp", kind);
  OptionalDeviceGuard guard(device_of(self));
  TensorIter it(name);
  const ScalarType cdt = compute_dtype(native::lerp_meta(it, name, self, end, out, kind));
  launch_binary_kind(name, gpu::Binary::Lerp, cdt, it, to_value(weight, cdt));
}

void addcmul_out(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value, Tensor& out,
                 OutKind kind) {
  const char* name = EMBER_VARIANT_NAME("addcmul", kind);
  OptionalDeviceGuard guard(device_of(self));
  TensorIter it(name);
  const ScalarType cdt = compute_dtype(native::addcmul_meta(it, name, self, tensor1, tensor2, out, kind));
  launch_pointwise_kind(name, gpu::Pointwise::Addcmul, cdt, it, {to_value(value, cdt), {}, {}});
}

void nan_to_num_out(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                    std::optional<double> neginf, Tensor& out, OutKind kind) {
  const char* name = EMBER_VARIANT_NAME("nan_to_num", kind);
  OptionalDeviceGuard guard(device_of(self));
  TensorIter it(name);
  const ScalarType result = native::nan_to_num_meta(it, name, self, out, kind);
  const std::array<double, 3> v = native::nan_to_num_values(result, nan, posinf, neginf);
  launch_pointwise_kind(name, gpu::Pointwise::NanToNum, compute_dtype(result), it,
                        {float_value(v[0]), float_value(v[1]), float_value(v[2])});
}

void round_decimals_out(const Tensor& self, int64_t decimals, Tensor& out, OutKind kind) {
  const char* name = EMBER_VARIANT_NAME("round", kind);
  OptionalDeviceGuard guard(device_of(self));
  TensorIter it(name);
  const ScalarType result = native::unary_meta(it, name, native::unary_rules::floating_only, self, out, kind);
  const bool neg = decimals < 0;
  const double ten_pow = std::pow(10.0, static_cast<double>(neg ? -decimals : decimals));
  launch_pointwise_kind(name, gpu::Pointwise::RoundDecimals, compute_dtype(result), it,
                        {float_value(ten_pow), float_value(neg ? 1.0 : 0.0), {}});
}

// angle (integers read in the floating result dtype; complex values through their real views);
// conj_physical of a real
// tensor is a copy, of a complex one a copy with the imaginary parts negated (through the real
// views: the kernels have no complex types).
void angle_out(const Tensor& self, Tensor& out, OutKind kind) {
  const char* name = EMBER_VARIANT_NAME("angle", kind);
  OptionalDeviceGuard guard(device_of(self));
  TensorIter it(name);
  const ScalarType result = native::unary_meta(it, name, native::unary_rules::angle, self, out, kind);
  if (is_complex_type(self.dtype())) {  // atan2(imag, real), std::arg's value
    const Tensor parts = ember::view_as_real(self);
    EMBER_GPU_NS::copy_(out, ember::atan2(parts.select(-1, 1), parts.select(-1, 0)), false);
    return;
  }
  launch_pointwise_kind(name, gpu::Pointwise::Angle, compute_dtype(result), it, {});
}

void conj_physical_out(const Tensor& self, Tensor& out, OutKind kind) {
  const char* name = EMBER_VARIANT_NAME("conj_physical", kind);
  OptionalDeviceGuard guard(device_of(self));
  TensorIter it(name);
  native::unary_meta(it, name, native::unary_rules::conj_physical, self, out, kind);
  if (!out.is_same(self)) EMBER_GPU_NS::copy_(out, self, false);
  if (is_complex_type(out.dtype())) {
    Tensor imag = ember::view_as_real(out).select(-1, 1);
    ember::neg_(imag);
  }
}

}  // namespace ember::EMBER_GPU_NS
