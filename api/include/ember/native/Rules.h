#pragma once
// Result dtypes, argument checks and output shapes of operator families, shared by the cpu and
// meta plugins so that both give the same dtype and the same error (Note [Kernel metadata
// helpers] in Geometry.h). Each rule is the first half of a cpu kernel; the meta kernel is that
// half plus a TensorIter on kMeta (or an empty meta tensor of the rule's shape).
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <string>
#include <string_view>
#include <vector>

#include "ember/native/TensorHelpers.h"

namespace ember::native {

// ---- Scalar arguments -----------------------------------------------------------------------------

// c10's checked_convert: throws when `s` does not fit dtype t (fill_, masked_fill, full). Negative
// integers may wrap into uint8, as in c10. Bool, complex and other dtypes take any value.
inline void check_scalar_fits(const Scalar& s, ScalarType t, const char* op) {
  double lo = 0, hi = 0;
  bool integral = true;
  switch (t) {
    case kUInt8: hi = 255; break;
    case kInt8: lo = -128, hi = 127; break;
    case kInt16: lo = -32768, hi = 32767; break;
    case kInt32: lo = static_cast<double>(std::numeric_limits<int32_t>::lowest()), hi = std::numeric_limits<int32_t>::max(); break;
    case kInt64:
      lo = static_cast<double>(std::numeric_limits<int64_t>::lowest());
      hi = static_cast<double>(std::numeric_limits<int64_t>::max());
      break;
    case kFloat16: lo = -65504.0, hi = 65504.0, integral = false; break;
    case kBFloat16: lo = -3.3895313892515355e38, hi = 3.3895313892515355e38, integral = false; break;
    case kFloat32:
      lo = static_cast<double>(std::numeric_limits<float>::lowest());
      hi = static_cast<double>(std::numeric_limits<float>::max());
      integral = false;
      break;
    case kFloat64: lo = std::numeric_limits<double>::lowest(), hi = std::numeric_limits<double>::max(), integral = false; break;
    default: return;
  }
  bool overflow = false;
  if (s.isFloatingPoint() || s.isComplex()) {
    const double v = s.toDouble();
    if (std::isnan(v) || std::isinf(v)) overflow = integral;
    else overflow = v < lo || v > hi;
  } else if (s.isIntegral(false)) {
    const int64_t v = s.toLong();
    if (t == kUInt8) {
      overflow = v > 255 || v < -255;
    } else if (t == kInt64) {
      overflow = false;
    } else if (integral) {
      overflow = v < static_cast<int64_t>(lo) || v > static_cast<int64_t>(hi);
    } else {
      overflow = static_cast<double>(v) < lo || static_cast<double>(v) > hi;
    }
  }
  EMBER_CHECK(!overflow, "[{}] value {} cannot be converted to type {} without overflow", op, s.str(), t);
}

// ---- binary arithmetic (add, sub, mul, div) -----------------------------------------------------

enum class Arith : uint8_t { Add, Sub, Mul, Div };

// The dtype of a (non-complex) Scalar when it takes part as `other`.
inline ScalarType scalar_category(const Scalar& s) {
  return s.isBoolean() ? kBool : s.isIntegral(false) ? kInt64 : s.isFloatingPoint() ? kFloat64 : kComplex128;
}

// PyTorch's alpha_check.
inline void check_alpha(const char* name, ScalarType result, const Scalar& alpha) {
  EMBER_CHECK_TYPE(!alpha.isBoolean() || result == kBool,
                   "[{}] boolean alpha only supported for boolean results", name);
  EMBER_CHECK_TYPE(is_floating_type(result) || is_complex_type(result) || alpha.isIntegral(true),
                   "[{}] for integral input tensors, argument alpha must not be a floating point number",
                   name);
}

inline void check_sub(const char* name, ScalarType a, ScalarType b) {
  EMBER_CHECK_TYPE(a != kBool || b != kBool,
                   "[{}] subtraction, the `-` operator, with two bool tensors is not supported. Use "
                   "the `^` or `logical_xor()` operator instead.",
                   name);
  EMBER_CHECK_TYPE(a != kBool && b != kBool,
                   "[{}] subtraction, the `-` operator, with a bool tensor is not supported. If you "
                   "are trying to invert a mask, use the `~` or `logical_not()` operator instead.",
                   name);
}

// The result dtype of a op b (b a tensor `bt` or a Scalar `bs`), after PyTorch's checks.
inline ScalarType arith_result(const char* name, Arith kind, const Tensor& a, const Tensor* bt, const Scalar* bs,
                               const Scalar& alpha) {
  check_defined(name, a, "self");
  if (bt) check_defined(name, *bt, "other");
  const ScalarType common = bs ? result_type(a, *bs) : result_type(a, *bt);
  if (kind == Arith::Sub) check_sub(name, a.dtype(), bs ? scalar_category(*bs) : bt->dtype());
  if (kind == Arith::Add || kind == Arith::Sub) check_alpha(name, common, alpha);
  return kind == Arith::Div && is_integral_type(common, true) ? get_default_dtype() : common;
}

// An in-place or out= result must be castable to the written tensor.
inline void check_out_dtype(const char* name, bool out_arg, const Tensor& out, ScalarType result) {
  check_defined(name, out, out_arg ? "out" : "self");
  EMBER_CHECK_TYPE(can_cast(result, out.dtype()), "[{}] result type {} can't be cast to the desired output type {}",
                   name, result, out.dtype());
}

// ---- unary elementwise ----------------------------------------------------------------------------

// Note [Complex tensors]
// ~~~~~~~~~~~~~~~~~~~~~~
// complex64/complex128 are std::complex<float/double>, interleaved (real, imag) as in LibTorch,
// so view_as_real/view_as_complex, real and imag are views. Complex support is opt-in per
// kernel: the CPU's visit_dtype_c/visit_compute_c take complex, visit_dtype/visit_compute keep
// rejecting it with "[op] not implemented for dtype complex64", and a unary rule says what a
// complex input gives (rejected, same dtype, or its real dtype for abs and angle). What takes
// complex: copies and casts (complex -> real drops the imaginary part, as LibTorch 1.13 does
// after a warning), fill_, rand/randn (each part uniform / normal with variance 1/2), add sub mul
// div pow neg exp log sqrt sin cos tanh abs angle conj_physical, eq ne, sum mean, and the FFTs.
// There is no conjugate bit: conj returns a materialised conjugate (LibTorch a lazy view) and
// resolve_conj is the identity.
struct UnaryRule {
  enum Result : uint8_t { Same, Floating, Bool } result = Same;  // Floating: integers -> default dtype
  const char* bool_error = nullptr;  // bool inputs rejected with this message (after "[op] ")
  bool floating_only = false;        // non-floating inputs rejected
  enum Complex : uint8_t { Reject, Keep, ToReal } complex = Reject;  // what a complex input gives
  bool integral_only = false;        // floating inputs rejected (bitwise_not)
  // out= resized contiguous before the call (PyTorch's generated out= of a functional kernel:
  // isnan, isinf), not laid out as the input.
  bool out_contiguous = false;
};

// The real dtype of a complex one (float32 for complex64).
constexpr ScalarType complex_to_real(ScalarType t) {
  return t == kComplex64 ? kFloat32 : t == kComplex128 ? kFloat64 : t;
}

inline ScalarType unary_result(const char* name, const UnaryRule& r, const Tensor& self) {
  check_defined(name, self, "self");
  const ScalarType dt = self.dtype();
  if (is_complex_type(dt)) {
    EMBER_CHECK_NOT_IMPLEMENTED(r.complex != UnaryRule::Reject, "[{}] not implemented for dtype {} on the CPU", name,
                                dt);
    return r.complex == UnaryRule::ToReal ? complex_to_real(dt) : dt;
  }
  if (r.bool_error) EMBER_CHECK_TYPE(dt != kBool, "[{}] {}", name, r.bool_error);
  if (r.floating_only)
    EMBER_CHECK_TYPE(is_floating_type(dt), "[{}] expected a floating point tensor for argument 'self', got {}", name,
                     dt);
  if (r.integral_only)
    EMBER_CHECK_TYPE(is_integral_type(dt, true), "[{}] expected an integral or bool tensor for argument 'self', got {}",
                     name, dt);
  if (r.result == UnaryRule::Bool) return kBool;
  if (r.result == UnaryRule::Floating) return is_floating_type(dt) ? dt : get_default_dtype();
  return dt;
}

// The rule of each unary family.
namespace unary_rules {
inline constexpr UnaryRule same{};  // sign
inline constexpr UnaryRule neg{UnaryRule::Same,
                               "negation, the `-` operator, on a bool tensor is not supported. If you are trying "
                               "to invert a mask, use the `~` or `logical_not()` operator instead.",
                               false};
inline constexpr UnaryRule no_bool{UnaryRule::Same, "boolean inputs are not supported", false};  // abs, relu
inline constexpr UnaryRule to_floating{UnaryRule::Floating, nullptr, false};                     // exp, sin, ...
inline constexpr UnaryRule floating_only{UnaryRule::Floating, nullptr, true};                    // gelu, silu
inline constexpr UnaryRule to_bool{UnaryRule::Bool, nullptr, false};                             // logical_not
inline constexpr UnaryRule to_bool_autogen_out{UnaryRule::Bool, nullptr, false, UnaryRule::Reject, false, true};  // isnan
inline constexpr UnaryRule integral_only{UnaryRule::Same, nullptr, false, UnaryRule::Reject, true};  // bitwise_not
// The complex-taking forms (Note [Complex tensors]).
inline constexpr UnaryRule neg_c{neg.result, neg.bool_error, false, UnaryRule::Keep};
inline constexpr UnaryRule abs_c{UnaryRule::Same, no_bool.bool_error, false, UnaryRule::ToReal};
inline constexpr UnaryRule to_floating_c{UnaryRule::Floating, nullptr, false, UnaryRule::Keep};  // exp, log, sin, ...
inline constexpr UnaryRule angle{UnaryRule::Floating, nullptr, false, UnaryRule::ToReal};
inline constexpr UnaryRule conj_physical{UnaryRule::Same, nullptr, false, UnaryRule::Keep};
}  // namespace unary_rules

// True for approximate='tanh'; anything but 'none' or 'tanh' is an error.
inline bool gelu_tanh(const char* name, std::string_view approximate) {
  EMBER_CHECK(approximate == "none" || approximate == "tanh",
              "[{}] argument 'approximate' must be 'none' or 'tanh', got '{}'", name, approximate);
  return approximate == "tanh";
}

// ---- reductions -----------------------------------------------------------------------------------

// sum, prod and cumsum: integers and bool accumulate to int64 unless a dtype is given.
// complex_ok: sum takes complex (Note [Complex tensors]); prod and cumsum do not yet.
inline ScalarType sum_like_dtype(const char* op, const Tensor& self, std::optional<ScalarType> dtype,
                                 bool complex_ok = false) {
  const ScalarType out_dt = dtype ? *dtype : (is_integral_type(self.dtype(), true) ? kInt64 : self.dtype());
  if (complex_ok && is_complex_type(out_dt)) return out_dt;
  EMBER_CHECK_NOT_IMPLEMENTED(!is_complex_type(out_dt) && !is_complex_type(self.dtype()),
                              "[{}] not implemented for dtype {} on the CPU", op,
                              is_complex_type(out_dt) ? out_dt : self.dtype());
  return out_dt;
}

inline ScalarType mean_dtype(const Tensor& self, std::optional<ScalarType> dtype) {
  const ScalarType out_dt = dtype ? *dtype : self.dtype();
  EMBER_CHECK_TYPE(is_floating_type(out_dt) || is_complex_type(out_dt),
                   "[mean] could not infer output dtype. {} dtype must be either a floating point or "
                   "complex dtype. Got: {}",
                   dtype ? "Optional" : "Input", out_dt);
  return out_dt;
}

// softmax and log_softmax: floating results only (a dtype converts the input first).
inline ScalarType softmax_dtype(const char* op, const Tensor& self, std::optional<ScalarType> dtype) {
  const ScalarType out_dt = dtype ? *dtype : self.dtype();
  EMBER_CHECK_NOT_IMPLEMENTED(is_floating_type(out_dt), "[{}] not implemented for dtype {} on the CPU", op, out_dt);
  return out_dt;
}

// Integer and bool inputs give the default dtype (LibTorch 1.13).
inline ScalarType logsumexp_dtype(const Tensor& self) {
  const ScalarType out_dt = is_integral_type(self.dtype(), true) ? get_default_dtype() : self.dtype();
  EMBER_CHECK_NOT_IMPLEMENTED(is_floating_type(out_dt), "[logsumexp] not implemented for dtype {} on the CPU",
                              out_dt);
  return out_dt;
}

inline void check_var_dtype(const char* op, const Tensor& self) {
  EMBER_CHECK_TYPE(is_floating_type(self.dtype()),
                   "[{}] std and var only support floating point and complex dtypes, got {}", op, self.dtype());
}

// PyTorch's argmax/argmin have no bool kernel (max.dim and min.dim do).
inline void check_arg_extreme_dtype(const char* op, ScalarType dt) {
  EMBER_CHECK_NOT_IMPLEMENTED(dt != kBool, "[{}] not implemented for dtype {} on the CPU", op, dt);
}

// any and all: PyTorch 1.13 keeps uint8 for a uint8 input, else bool.
inline ScalarType any_all_dtype(const Tensor& self) { return self.dtype() == kUInt8 ? kUInt8 : kBool; }


// Which dimensions of `self` the list `dims` reduces (every one when the list is empty).
inline SmallVector<bool, 8> reduced_mask(const Tensor& self, IntArrayRef dims, const char* op) {
  const int64_t nd = self.dim();
  SmallVector<bool, 8> red(static_cast<size_t>(nd), dims.empty());
  bool zero_dim_seen = false;
  for (int64_t d : dims) {
    const int64_t w = maybe_wrap_dim(d, nd, op);
    bool& seen = nd == 0 ? zero_dim_seen : red[w];
    EMBER_CHECK(!seen, "[{}] dim {} appears multiple times in the list of dims", op, w);
    seen = true;
  }
  return red;
}

// `nonempty`: the reduction has no identity (max, argmax, ...), so a zero-size reduced dimension
// is an error, worded as PyTorch's.
inline void check_nonempty_reduction(const Tensor& self, IntArrayRef dims, const SmallVector<bool, 8>& red,
                                     const char* op) {
  if (dims.empty()) {
    EMBER_CHECK_INDEX(self.numel() != 0,
                      "[{}] cannot reduce over a zero-size dimension: expected reduction dim to be "
                      "specified for input.numel() == 0",
                      op);
  } else {
    for (int64_t d = 0; d < self.dim(); ++d)
      EMBER_CHECK_INDEX(!red[d] || self.size(d) != 0,
                        "[{}] cannot reduce over a zero-size dimension: expected reduction dim {} to "
                        "have non-zero size",
                        op, d);
  }
}

// The kept sizes of `self` (reduced ones as 1 with keepdim).
inline DimVector reduced_shape(const Tensor& self, const SmallVector<bool, 8>& red, bool keepdim) {
  DimVector out;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (!red[d]) out.push_back(self.size(d));
    else if (keepdim) out.push_back(1);
  }
  return out;
}

// ---- matrix products ------------------------------------------------------------------------------

// Both operands `dim`-D, of one dtype, with matching inner sizes (the device check is the caller's).
inline void check_matmul_pair(const char* op, const Tensor& a, const Tensor& b, int64_t dim, const char* an,
                              const char* bn) {
  EMBER_CHECK(a.dim() == dim && b.dim() == dim, "[{}] expected {} and {} to be {}-D, but got shapes {} and {}", op,
              an, bn, dim, a.sizes(), b.sizes());
  EMBER_CHECK_TYPE(a.dtype() == b.dtype(),
                   "[{}] expected {} and {} to have the same dtype, but got {} and {} (shapes {} and {})", op, an,
                   bn, a.dtype(), b.dtype(), a.sizes(), b.sizes());
  EMBER_CHECK(a.size(dim - 1) == b.size(dim - 2), "[{}] {} and {} shapes cannot be multiplied ({} and {})", op, an,
              bn, a.sizes(), b.sizes());
}

}  // namespace ember::native

// ---- pointwise ops with several operands or Scalar parameters -------------------------------------

namespace ember::native {

inline ScalarType pow_result(const char* name, const Tensor& self, const Tensor* et, const Scalar* es) {
  check_defined(name, self, "self");
  if (et) check_defined(name, *et, "exponent");
  const ScalarType result = es ? result_type(self, *es) : result_type(self, *et);
  EMBER_CHECK_NOT_IMPLEMENTED(result != kBool, "[{}] not implemented for dtype bool on the CPU", name);
  if (es && is_integral_type(result, false)) {
    EMBER_CHECK(!(es->isIntegral(false) && es->toLong() < 0),
                "[{}] integers to negative integer powers are not allowed", name);
  }
  return result;
}

// pow(Scalar base, Tensor exponent): the base is a wrapped number; bool results have no kernel.
inline ScalarType pow_scalar_base_result(const char* name, const Scalar& base, const Tensor& exponent) {
  check_defined(name, exponent, "exponent");
  const ScalarType result = result_type(exponent, base);
  EMBER_CHECK_NOT_IMPLEMENTED(result != kBool && !is_complex_type(result),
                              "[{}] not implemented for dtype {} on the CPU", name, result);
  return result;
}

inline ScalarType clamp_result(const char* name, const Tensor& self, const std::optional<Scalar>& min,
                               const std::optional<Scalar>& max) {
  check_defined(name, self, "self");
  EMBER_CHECK(min.has_value() || max.has_value(), "[{}] at least one of 'min' or 'max' must not be None", name);
  ResultType rt;
  rt.add(self);
  if (min) rt.add(*min);
  if (max) rt.add(*max);
  const ScalarType result = rt.result();
  EMBER_CHECK_NOT_IMPLEMENTED(result != kBool, "[{}] not implemented for dtype bool on the CPU", name);
  return result;
}

inline ScalarType where_result(const char* name, const Tensor& cond, const Tensor& self, const Tensor& other) {
  check_defined(name, cond, "condition");
  check_defined(name, self, "self");
  check_defined(name, other, "other");
  EMBER_CHECK_TYPE(cond.dtype() == kBool,
                   "[{}] expected argument 'condition' to be a bool tensor, but got a tensor with dtype {}", name,
                   cond.dtype());
  return result_type(self, other);
}

// threshold_backward: grad_output and self promoted; bool has no gradient.
inline ScalarType threshold_backward_result(const char* name, const Tensor& grad_output, const Tensor& self) {
  check_defined(name, grad_output, "grad_output");
  check_defined(name, self, "self");
  const ScalarType result = result_type(grad_output, self);
  EMBER_CHECK_TYPE(result != kBool, "[{}] expected numeric tensors for 'grad_output' and 'self', got bool", name);
  return result;
}

// masked_fill keeps self's dtype.
inline void check_masked_fill(const char* name, const Tensor& self, const Tensor& mask) {
  check_defined(name, self, "self");
  check_defined(name, mask, "mask");
  EMBER_CHECK_TYPE(mask.dtype() == kBool, "[{}] expected argument 'mask' to be a bool tensor, but got dtype {}", name,
                   mask.dtype());
}
// The functional masked_fill's result: self and mask broadcast, contiguous (LibTorch fills a
// contiguous clone of the expanded self).
inline DimVector masked_fill_shape(const char* name, const Tensor& self, const Tensor& mask) {
  check_masked_fill(name, self, mask);
  return broadcast_shapes(self.sizes(), mask.sizes(), name);
}

inline ScalarType lerp_result(const char* name, const Tensor& self, const Tensor& end) {
  check_defined(name, self, "self");
  check_defined(name, end, "end");
  EMBER_CHECK_TYPE(self.dtype() == end.dtype(), "[{}] expected dtype {} for argument 'end', but got dtype {}", name,
                   self.dtype(), end.dtype());
  const ScalarType result = self.dtype();
  EMBER_CHECK_TYPE(is_floating_type(result), "[{}] expected a floating point tensor for argument 'self', got {}", name,
                   result);
  return result;
}

inline ScalarType addcmul_result(const char* name, const Tensor& self, const Tensor& t1, const Tensor& t2) {
  check_defined(name, self, "self");
  check_defined(name, t1, "tensor1");
  check_defined(name, t2, "tensor2");
  ResultType rt;
  rt.add(self);
  rt.add(t1);
  rt.add(t2);
  const ScalarType result = rt.result();
  EMBER_CHECK_NOT_IMPLEMENTED(result != kBool, "[{}] not implemented for dtype bool on the CPU", name);
  return result;
}

// ---- binary math: atan2, maximum/minimum, fmod/remainder, div's rounding modes, bitwise ops ------

enum class BinaryMathRule : uint8_t {
  ToFloating,  // atan2: integers and bool give the default dtype
  Any,         // maximum, minimum
  NoBool,      // fmod, remainder, div trunc/floor, floor_divide
  Integral,    // bitwise_and/or/xor: integers and bool only
};

// The result dtype of f(a, b), each operand a tensor or a Scalar (a wrapped number), after the
// rule's checks.
inline ScalarType binary_math_result(const char* name, BinaryMathRule rule, const Tensor* at, const Scalar* as,
                                     const Tensor* bt, const Scalar* bs) {
  if (at) check_defined(name, *at, "self");
  if (bt) check_defined(name, *bt, "other");
  ResultType rt;
  if (at) rt.add(*at);
  if (as) rt.add(*as);
  if (bt) rt.add(*bt);
  if (bs) rt.add(*bs);
  const ScalarType common = rt.result();
  EMBER_CHECK_NOT_IMPLEMENTED(!is_complex_type(common), "[{}] not implemented for dtype {} on the CPU", name, common);
  switch (rule) {
    case BinaryMathRule::ToFloating:
      return is_integral_type(common, true) ? get_default_dtype() : common;
    case BinaryMathRule::Any:
      return common;
    case BinaryMathRule::NoBool:
      EMBER_CHECK_NOT_IMPLEMENTED(common != kBool, "[{}] not implemented for dtype bool on the CPU", name);
      return common;
    case BinaryMathRule::Integral:
      EMBER_CHECK_NOT_IMPLEMENTED(is_integral_type(common, true), "[{}] not implemented for dtype {} on the CPU", name,
                                  common);
      return common;
  }
  return common;
}

// div's rounding_mode: none (true division), "trunc" or "floor".
enum class DivMode : uint8_t { True, Trunc, Floor };
inline DivMode div_mode(const char* name, const std::optional<std::string_view>& mode) {
  if (!mode) return DivMode::True;
  if (*mode == "trunc") return DivMode::Trunc;
  if (*mode == "floor") return DivMode::Floor;
  EMBER_THROW(ValueError, "[{}] expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{}'", name,
              *mode);
}

// The result dtype of div(a, b, mode): true division as div's, else the promoted dtype.
inline ScalarType div_mode_result(const char* name, DivMode mode, const Tensor& a, const Tensor* bt, const Scalar* bs) {
  if (mode == DivMode::True) return arith_result(name, Arith::Div, a, bt, bs, 1);
  return binary_math_result(name, BinaryMathRule::NoBool, &a, nullptr, bt, bs);
}

// clamp.Tensor and clamp_min/clamp_max: self and the given bounds promoted; bool has no kernel.
inline ScalarType clamp_tensor_result(const char* name, const Tensor& self, const Tensor* min, const Tensor* max) {
  check_defined(name, self, "self");
  EMBER_CHECK((min && min->defined()) || (max && max->defined()),
              "[{}] at least one of 'min' or 'max' must not be None", name);
  ResultType rt;
  rt.add(self);
  if (min && min->defined()) rt.add(*min);
  if (max && max->defined()) rt.add(*max);
  const ScalarType result = rt.result();
  EMBER_CHECK_NOT_IMPLEMENTED(result != kBool && !is_complex_type(result),
                              "[{}] not implemented for dtype {} on the CPU", name, result);
  return result;
}

// The activations with Scalar parameters (leaky_relu, elu, softplus, hardswish, hardsigmoid,
// mish): floating tensors only. hardtanh is a clamp: integers too, but no bool, and no negative
// limit for uint8.
inline ScalarType activation_result(const char* name, const Tensor& self) {
  check_defined(name, self, "self");
  EMBER_CHECK_TYPE(is_floating_type(self.dtype()), "[{}] expected a floating point tensor for argument 'self', got {}",
                   name, self.dtype());
  return self.dtype();
}
inline ScalarType hardtanh_result(const char* name, const Tensor& self, const Scalar& min_val, const Scalar& max_val) {
  check_defined(name, self, "self");
  const ScalarType dt = self.dtype();
  EMBER_CHECK_TYPE(dt != kBool, "[{}] Bool inputs not supported for hardtanh", name);
  EMBER_CHECK_NOT_IMPLEMENTED(!is_complex_type(dt), "[{}] not implemented for dtype {} on the CPU", name, dt);
  EMBER_CHECK(dt != kUInt8 || (min_val.toDouble() >= 0 && max_val.toDouble() >= 0),
              "[{}] cannot do hardtanh on an unsigned type with negative limits", name);
  return dt;
}

// addmm's self: mat1's dtype, broadcastable to the product's shape.
inline void check_addmm_self(const Tensor& self, const Tensor& mat1, const Tensor& mat2) {
  EMBER_CHECK_TYPE(self.dtype() == mat1.dtype(),
                   "[addmm] expected self and mat1 to have the same dtype, but got {} and {}", self.dtype(),
                   mat1.dtype());
  const int64_t mn[2] = {mat1.size(0), mat2.size(1)};
  const IntArrayRef out_shape(mn, 2);
  const DimVector bs = broadcast_shapes(self.sizes(), out_shape, "addmm");
  EMBER_CHECK(IntArrayRef(bs.data(), bs.size()) == out_shape,
              "[addmm] self of shape {} cannot be broadcast to the product's shape {} (mat1 {}, mat2 {})",
              self.sizes(), out_shape, mat1.sizes(), mat2.sizes());
}

// The dtypes the matrix products support.
inline void check_matmul_dtype(const char* op, ScalarType dt) {
  EMBER_CHECK_NOT_IMPLEMENTED(is_floating_type(dt) || is_integral_type(dt, false),
                              "[{}] not implemented for dtype {} on the CPU", op, dt);
}

// ---- shapes ---------------------------------------------------------------------------------------

// Wraps every dim of `dims` into [0, ndim) and rejects repeats (PyTorch's dim_list_to_bitset).
inline DimVector wrap_dims(IntArrayRef dims, int64_t ndim, const char* op) {
  DimVector r;
  SmallVector<bool, 8> seen(static_cast<size_t>(std::max<int64_t>(ndim, 1)), false);
  for (int64_t d : dims) {
    const int64_t w = maybe_wrap_dim(d, ndim, op);
    EMBER_CHECK(!seen[w], "[{}] dim {} appears multiple times in the list of dims", op, w);
    seen[w] = true;
    r.push_back(w);
  }
  return r;
}

// PyTorch's legacy rule: a 1-d tensor of size 0 is skipped by cat whatever the other shapes.
inline bool cat_skips(const Tensor& t) { return t.dim() == 1 && t.size(0) == 0; }

struct CatShape {
  ScalarType dtype = ScalarType::Undefined;
  int64_t dim = 0;     // wrapped
  DimVector sizes;     // of the result
  bool all_skipped = false;  // every input is a skipped 1-d empty: the result is empty({0})
};

// cat's result; check_device(first, t) runs on every input.
template <class CheckDevice>
CatShape cat_shape(const std::vector<Tensor>& tensors, int64_t dim, CheckDevice&& check_device) {
  EMBER_CHECK(!tensors.empty(), "[cat] torch.cat(): expected a non-empty list of Tensors");
  ResultType rt;
  size_t valid = tensors.size();
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    EMBER_CHECK(t.defined(), "[cat] tensor at position {} is undefined", i);
    check_device(tensors[0], t);
    EMBER_CHECK(t.dim() > 0, "[cat] zero-dimensional tensor (at position {}) cannot be concatenated", i);
    rt.add(t);
    if (valid == tensors.size() && !cat_skips(t)) valid = i;
  }
  CatShape r;
  r.dtype = rt.result();
  if (valid == tensors.size()) {
    r.all_skipped = true;
    r.sizes = {0};
    return r;
  }
  const Tensor& first = tensors[valid];
  const int64_t d = maybe_wrap_dim(dim, first.dim(), "cat");
  DimVector sz(first.sizes());
  int64_t total = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (cat_skips(t)) continue;
    EMBER_CHECK(t.dim() == first.dim(),
                "[cat] Tensors must have same number of dimensions: got {} and {} (tensor number {} in the list "
                "has shape {}, tensor number {} has shape {})",
                first.dim(), t.dim(), valid, first.sizes(), i, t.sizes());
    for (int64_t k = 0; k < first.dim(); ++k)
      EMBER_CHECK(k == d || t.size(k) == first.size(k),
                  "[cat] Sizes of tensors must match except in dimension {}. Expected size {} but got size {} "
                  "for tensor number {} in the list (shapes {} and {})",
                  d, first.size(k), t.size(k), i, first.sizes(), t.sizes());
    total += t.size(d);
  }
  sz[d] = total;
  r.dim = d;
  r.sizes = sz;
  return r;
}

// ---- random fills ---------------------------------------------------------------------------------

inline void check_floating_fill(const char* op, ScalarType t) {
  EMBER_CHECK_T(TypeError, is_floating_type(t) || is_complex_type(t),
                "[{}] expects a floating point dtype (or complex), got {}", op, t);
}

inline void check_uniform(const Tensor& self, double from, double to) {
  check_floating_fill("uniform_", self.dtype());
  EMBER_CHECK(from <= to, "[uniform_] expects to return a [from, to) range, but found from={} > to={}", from, to);
  EMBER_CHECK(std::isfinite(to - from), "[uniform_] to - from must be finite, got from={} and to={}", from, to);
}

inline void check_normal(const Tensor& self, double std) {
  check_floating_fill("normal_", self.dtype());
  EMBER_CHECK(std >= 0.0, "[normal_] expects std >= 0.0, but found std {}", std);
}

inline void check_bernoulli(double p) {
  EMBER_CHECK(p >= 0 && p <= 1, "[bernoulli_] expects p to be in [0, 1], but got p={}", p);
}

// random_(from, to)'s exclusive end after its checks: `to`, or one past the largest integer the
// dtype holds exactly.
inline __int128 random_from_end(const Tensor& self, int64_t from, std::optional<int64_t> to) {
  __int128 lo = 0, hi = 0;  // the largest value + 1 (int64's does not fit in int64)
  auto exact = [&](int digits) {
    hi = (__int128{1} << digits) + 1;
    lo = -hi;
  };
  switch (self.dtype()) {
    case kBool: hi = 2; break;
    case kUInt8: hi = 256; break;
    case kInt8: lo = -128, hi = 128; break;
    case kInt16: lo = -32768, hi = 32768; break;
    case kInt32: lo = -(__int128{1} << 31), hi = __int128{1} << 31; break;
    case kInt64: lo = -(__int128{1} << 63), hi = __int128{1} << 63; break;
    case kFloat16: exact(11); break;
    case kBFloat16: exact(8); break;
    case kFloat32: exact(24); break;
    case kFloat64: exact(53); break;
    default: EMBER_THROW(NotImplementedError, "[random_] not implemented for dtype {} on the CPU", self.dtype());
  }
  const __int128 end = to ? static_cast<__int128>(*to) : hi;
  // (Without a `to`, end is the dtype's bound, above every in-bounds from.)
  EMBER_CHECK(!to || from < *to, "[random_] expects 'from' to be less than 'to', but got from={} >= to={}", from,
              to.value_or(0));
  EMBER_CHECK(from >= lo && from < hi, "[random_] from={} is out of bounds for {}", from, self.dtype());
  EMBER_CHECK(end - 1 < hi && end - 1 >= lo, "[random_] to - 1 = {} is out of bounds for {}",
              static_cast<int64_t>(end - 1), self.dtype());
  return end;
}

// ---- factories ------------------------------------------------------------------------------------

namespace detail {
template <class Acc>
Acc arange_scalar(const Scalar& s) {
  if constexpr (std::is_integral_v<Acc>) return s.isFloatingPoint() ? static_cast<Acc>(s.toDouble()) : s.toLong();
  else return static_cast<Acc>(s.toDouble());
}
template <class Acc>
int64_t arange_length(const Scalar& start, const Scalar& end, const Scalar& step, bool in_acc) {
  const Acc xs = arange_scalar<Acc>(start), xe = arange_scalar<Acc>(end), xstep = arange_scalar<Acc>(step);
  EMBER_CHECK(xstep != Acc(0), "[arange] step must be nonzero");
  EMBER_CHECK(std::isfinite(static_cast<double>(xs)) && std::isfinite(static_cast<double>(xe)),
              "[arange] unsupported range: {} -> {}", start.str(), end.str());
  EMBER_CHECK((xstep > 0 && xe >= xs) || (xstep < 0 && xe <= xs),
              "[arange] upper bound and lower bound inconsistent with step sign (start {}, end {}, step {})",
              start.str(), end.str(), step.str());
  double size_d;
  if (in_acc)
    size_d = std::ceil(static_cast<double>(xe - xs) / static_cast<double>(xstep));
  else
    size_d = std::ceil((end.toDouble() - start.toDouble()) / step.toDouble());
  EMBER_CHECK(size_d >= 0 && size_d <= static_cast<double>(std::numeric_limits<int64_t>::max()),
              "[arange] invalid size, possible overflow?");
  return static_cast<int64_t>(size_d);
}
}  // namespace detail

// arange's length after its checks, computed in LibTorch's accumulate type of dt: int64 for
// integers, float for float16 and bfloat16, double otherwise (the length itself in double from the
// Scalars, except for int64).
inline int64_t arange_length(const Scalar& start, const Scalar& end, const Scalar& step, ScalarType dt) {
  if (is_integral_type(dt, false)) return detail::arange_length<int64_t>(start, end, step, dt == kInt64);
  if (dt == kFloat16 || dt == kBFloat16) return detail::arange_length<float>(start, end, step, false);
  return detail::arange_length<double>(start, end, step, false);
}

inline void check_eye(int64_t n, int64_t m) {
  EMBER_CHECK(n >= 0, "[eye] n must be greater or equal to 0, got {}", n);
  EMBER_CHECK(m >= 0, "[eye] m must be greater or equal to 0, got {}", m);
}

}  // namespace ember::native

// ---- indexing (Note [CPU advanced indexing], plugins/cpu/indexing.cpp) ------------------------
// The metadata half of the indexing kernels. `dev` is the kernel's device: operands elsewhere are
// a device error. Index values (bounds) and bool masks (their nonzero count) are data: the cpu
// checks and expands them; a meta kernel cannot.

namespace ember::native {

inline bool is_mask_index(const Tensor& t) { return t.dtype() == kBool || t.dtype() == kUInt8; }

// A mask index starting at dim `at` of self: its sizes must be self's there.
inline void check_index_mask(const char* op, const Tensor& self, const Tensor& t, int64_t at) {
  EMBER_CHECK_INDEX(at + t.dim() <= self.dim(), "[{}] too many indices for tensor of dimension {}", op, self.dim());
  for (int64_t j = 0; j < t.dim(); ++j)
    EMBER_CHECK_INDEX(t.size(j) == self.size(at + j),
                      "[{}] the shape of the mask {} at index {} does not match the shape of the indexed "
                      "tensor {} at index {}",
                      op, t.sizes(), j, self.sizes(), at + j);
}

inline void check_long_index(const char* op, const Tensor& t) {
  EMBER_CHECK_INDEX(t.dtype() == kInt64, "[{}] tensors used as indices must be long, byte or bool tensors, got {}",
                    op, t.dtype());
}

// The result geometry of advanced indexing: restA + B + restB (Note [CPU advanced indexing]).
struct IndexGeometry {
  std::vector<int64_t> dims;  // the indexed dims of self, ascending
  DimVector bshape;           // the index tensors broadcast together (B)
  bool adjacent = false;      // the indexed dims are adjacent: restA stays in front of B
  DimVector shape;            // the result's sizes
};

// `idx`: the int64 index of each dim of self in order (masks already expanded), undefined where
// not indexed; padded with undefined entries to self.dim().
inline IndexGeometry index_geometry(const char* op, const Tensor& self, std::vector<Tensor>& idx) {
  EMBER_CHECK_INDEX(static_cast<int64_t>(idx.size()) <= self.dim(),
                    "[{}] too many indices for tensor of dimension {} (got {})", op, self.dim(), idx.size());
  idx.resize(static_cast<size_t>(self.dim()));
  IndexGeometry g;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (!idx[d].defined()) continue;
    IntArrayRef s = idx[d].sizes();
    if (!g.dims.empty()) {
      const size_t n = std::max(g.bshape.size(), s.size());
      DimVector r(n, 1);
      for (size_t i = 0; i < n; ++i) {
        const int64_t a = i < n - g.bshape.size() ? 1 : g.bshape[i - (n - g.bshape.size())];
        const int64_t b = i < n - s.size() ? 1 : s[i - (n - s.size())];
        if (a != b && a != 1 && b != 1) {
          std::vector<std::string> shapes;
          for (int64_t e : g.dims) shapes.push_back(fmt::format("{}", idx[e].sizes()));
          shapes.push_back(fmt::format("{}", s));
          EMBER_THROW(IndexError, "[{}] shape mismatch: indexing tensors could not be broadcast together with shapes {}",
                      op, fmt::join(shapes, ", "));
        }
        r[i] = a == 1 ? b : a;
      }
      g.bshape = r;
    } else {
      g.bshape = DimVector(s);
    }
    g.dims.push_back(d);
  }
  if (g.dims.empty()) {  // nothing indexed: self's shape
    g.shape = DimVector(self.sizes());
    return g;
  }
  g.adjacent = g.dims.back() - g.dims.front() + 1 == static_cast<int64_t>(g.dims.size());
  DimVector rest_b;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (idx[d].defined()) continue;
    (g.adjacent && d < g.dims.front() ? g.shape : rest_b).push_back(self.size(d));
  }
  for (int64_t s : g.bshape) g.shape.push_back(s);
  for (int64_t s : rest_b) g.shape.push_back(s);
  return g;
}

// The sizes of index_put_'s values used against the indexing result `shape`: PyTorch strips
// leading 1s of values until they broadcast ([1, 3] can be put into a [3] result).
inline IntArrayRef index_put_values_sizes(const Tensor& values, IntArrayRef shape) {
  auto fits = [&](IntArrayRef v) {
    if (v.size() > shape.size()) return false;
    for (size_t i = 0; i < v.size(); ++i)
      if (v[i] != 1 && v[i] != shape[shape.size() - v.size() + i]) return false;
    return true;
  };
  IntArrayRef vs = values.sizes();
  while (!fits(vs) && !vs.empty() && vs[0] == 1) vs = vs.slice(1);
  EMBER_CHECK(fits(vs),
              "[index_put_] shape mismatch: value tensor of shape {} cannot be broadcast to indexing result of "
              "shape {}",
              values.sizes(), shape);
  return vs;
}

inline void check_index_put(DeviceType dev, const Tensor& self, const Tensor& values) {
  check_same_device("index_put_", dev, self, values);
  EMBER_CHECK_TYPE(values.dtype() == self.dtype(),
                   "[index_put_] argument 'values': expected dtype {} (self's), got {}", self.dtype(), values.dtype());
}

// In-place writes into self need one memory location per element (PyTorch's assert_no_internal_overlap).
inline void check_writable(const char* op, const Tensor& self) {
  EMBER_CHECK(!has_internal_overlap(self),
              "[{}] unsupported operation: more than one element of self refers to a single memory location "
              "(an expanded tensor); clone() it first",
              op);
}

// An out= argument written element by element, after its resize (PyTorch's assert_no_internal_overlap).
inline void check_out_writable(const char* op, const Tensor& out) {
  EMBER_CHECK(!has_internal_overlap(out),
              "[{}] unsupported operation: more than one element of the written-to tensor refers to a single memory "
              "location. Please clone() the tensor before performing the operation.",
              op);
}

// mm.out's checks of a defined out on the right device, in LibTorch's order: its dtype, the
// dtype's support, its resize to the product's shape, then no expanded out.
inline void prepare_mm_out(const Tensor& self, const Tensor& mat2, Tensor& out) {
  EMBER_CHECK_TYPE(out.dtype() == self.dtype(), "[mm] expected out to have dtype {}, but got {}", self.dtype(),
                   out.dtype());
  check_matmul_dtype("mm", self.dtype());
  resize_output(out, {self.size(0), mat2.size(1)}, "mm");
  check_out_writable("mm", out);
}

// index_select's and embedding's index may be int64 or int32.
inline void check_int_index(const char* op, const Tensor& index, const char* arg) {
  EMBER_CHECK_TYPE(index.dtype() == kInt64 || index.dtype() == kInt32,
                   "[{}] argument '{}': expected dtype int64 or int32, got {}", op, arg, index.dtype());
}

// index_select's checks; returns the wrapped dim.
inline int64_t check_index_select(DeviceType dev, const Tensor& self, int64_t dim, const Tensor& index,
                                  const Tensor& out) {
  check_same_device("index_select", dev, self, index);
  check_same_device("index_select", dev, self, out);
  EMBER_CHECK(index.dim() <= 1, "[index_select] argument 'index': expected a 1-d or 0-d tensor, got {} dims",
              index.dim());
  EMBER_CHECK_TYPE(out.dtype() == self.dtype(), "[index_select] argument 'out': expected dtype {} (self's), got {}",
                   self.dtype(), out.dtype());
  dim = maybe_wrap_dim(dim, self.dim(), "index_select");
  check_int_index("index_select", index, "index");
  // a 0-dim self takes one index, 0 or -1 (PyTorch)
  if (self.dim() == 0)
    EMBER_CHECK_INDEX(index.numel() == 1, "[index_select] index for a 0-dim self must have one element, got {}",
                      index.numel());
  return dim;
}

inline void check_embedding(DeviceType dev, const Tensor& weight, const Tensor& indices) {
  check_same_device("embedding", dev, weight, indices);
  EMBER_CHECK(weight.dim() == 2, "[embedding] argument 'weight': expected a 2-d tensor, got {} dims", weight.dim());
  check_int_index("embedding", indices, "indices");
}

// index_fill_'s checks; returns the wrapped dim.
inline int64_t check_index_fill(DeviceType dev, const Tensor& self, int64_t dim, const Tensor& index) {
  check_same_device("index_fill_", dev, self, index);
  EMBER_CHECK(index.dim() <= 1, "[index_fill_] argument 'index': expected a 1-d or 0-d tensor, got {} dims",
              index.dim());
  EMBER_CHECK_TYPE(index.dtype() == kInt64, "[index_fill_] argument 'index': expected dtype int64, got {}",
                   index.dtype());
  check_writable("index_fill_", self);
  return maybe_wrap_dim(dim, self.dim(), "index_fill_");
}

// 0-dim tensors act as 1-element 1-d ones in gather/scatter (PyTorch's ensure_nonempty_*).
inline DimVector sizes1(const Tensor& t) { return t.dim() == 0 ? DimVector{1} : DimVector(t.sizes()); }

// Shape checks shared by gather and scatter (PyTorch's gather_shape_check / scatter_shape_check);
// `dim` is wrapped.
inline void check_gather_scatter(DeviceType dev, const char* op, const Tensor& self, int64_t dim, const Tensor& index,
                                 const Tensor* src) {
  check_same_device(op, dev, self, index);
  EMBER_CHECK_TYPE(index.dtype() == kInt64, "[{}] argument 'index': expected dtype int64, got {}", op,
                   index.dtype());
  const DimVector ss = sizes1(self), is = sizes1(index);
  EMBER_CHECK(ss.size() == is.size(),
              "[{}] argument 'index': expected the same number of dimensions as self ({}), got {}", op, self.dim(),
              index.dim());
  if (src) {
    check_same_device(op, dev, self, *src);
    EMBER_CHECK_TYPE(src->dtype() == self.dtype(), "[{}] argument 'src': expected dtype {} (self's), got {}", op,
                     self.dtype(), src->dtype());
    EMBER_CHECK(sizes1(*src).size() == is.size(),
                "[{}] argument 'src': expected the same number of dimensions as index ({}), got {}", op,
                index.dim(), src->dim());
  }
  if (index.numel() == 0) return;
  for (size_t d = 0; d < is.size(); ++d) {
    EMBER_CHECK(static_cast<int64_t>(d) == dim || is[d] <= ss[d],
                "[{}] argument 'index': size {} does not fit self {} at dimension {}: index {} must be no larger "
                "than self apart from dimension {}",
                op, is[d], self.sizes(), d, index.sizes(), dim);
    if (src)
      EMBER_CHECK(is[d] <= sizes1(*src)[d],
                  "[{}] argument 'index': size {} does not fit src {} at dimension {}: index {} must be no larger "
                  "than src",
                  op, is[d], src->sizes(), d, index.sizes());
  }
}

// masked_select's checks; returns the broadcast shape of self and mask.
inline DimVector check_masked_select(DeviceType dev, const Tensor& self, const Tensor& mask) {
  check_same_device("masked_select", dev, self, mask);
  EMBER_CHECK_TYPE(is_mask_index(mask), "[masked_select] argument 'mask': expected dtype bool or uint8, got {}",
                   mask.dtype());
  return broadcast_shapes(self.sizes(), mask.sizes(), "masked_select");
}

// masked_scatter_'s checks (not the source's size: it depends on the mask's values).
inline void check_masked_scatter(DeviceType dev, const Tensor& self, const Tensor& mask, const Tensor& source) {
  check_same_device("masked_scatter_", dev, self, mask);
  check_same_device("masked_scatter_", dev, self, source);
  EMBER_CHECK_TYPE(is_mask_index(mask), "[masked_scatter_] argument 'mask': expected dtype bool or uint8, got {}",
                   mask.dtype());
  EMBER_CHECK_TYPE(source.dtype() == self.dtype(),
                   "[masked_scatter_] argument 'source': expected dtype {} (self's), got {}", self.dtype(),
                   source.dtype());
  check_writable("masked_scatter_", self);
  const DimVector shape = broadcast_shapes(self.sizes(), mask.sizes(), "masked_scatter_");
  EMBER_CHECK(IntArrayRef(shape) == self.sizes(),
              "[masked_scatter_] argument 'mask': shape {} does not broadcast to self's shape {}", mask.sizes(),
              self.sizes());
}

}  // namespace ember::native

// ---- sort, topk, norms and reduction out= arguments (plugins/cpu/sort.cpp, reduction.cpp) --------

namespace ember::native {

// sort/argsort/topk along one dim: the wrapped dim, k (the dim's size for a sort) and the
// result's sizes (self's, with k along dim; a 0-dim self keeps its shape).
struct SortShape {
  int64_t dim = 0;
  int64_t k = 0;
  DimVector sizes;
};

inline SortShape sort_shape(const char* op, const Tensor& self, int64_t dim, std::optional<int64_t> k) {
  SortShape s;
  s.dim = maybe_wrap_dim(dim, self.dim(), op);
  const int64_t len = self.dim() > 0 ? self.size(s.dim) : 1;
  s.k = k.value_or(len);
  EMBER_CHECK_INDEX(s.k >= 0 && s.k <= len,
                    "[{}] argument 'k': selected index k out of range (expected 0 <= k <= {}, the size of dim "
                    "{}, got {})",
                    op, len, s.dim, s.k);
  s.sizes = DimVector(self.sizes());
  if (self.dim() > 0) s.sizes[s.dim] = s.k;
  return s;
}

// sort and argsort lay their results out as self (dense strides in self's order: LibTorch's
// sort.stable meta), for a functional result and an out= they resize alike; topk's results, and
// those of a sort of at most one dimension, are contiguous. Empty strides: contiguous.
inline DimVector sort_strides(const Tensor& self, std::optional<int64_t> k) {
  if (k || self.dim() <= 1) return {};
  return infer_dense_strides(self.sizes(), self.strides());
}
// An out= of sort: resized (when its sizes differ) to `sizes` with sort_strides' layout.
inline void resize_sort_out(Tensor& out, IntArrayRef sizes, const DimVector& strides, const char* op) {
  if (out.sizes() == sizes) return;
  resize_output(out, sizes, op);
  if (!strides.empty()) out.unsafeGetTensorImpl()->set_sizes_and_strides(sizes, strides);
}

// norm and linalg_vector_norm: floating inputs only; the result dtype.
inline ScalarType norm_dtype(const char* op, const Tensor& self, std::optional<ScalarType> dtype) {
  EMBER_CHECK_TYPE(is_floating_type(self.dtype()),
                   "[{}] input dtype should be either floating point or complex, got {}", op, self.dtype());
  if (dtype)
    EMBER_CHECK_TYPE(is_floating_type(*dtype), "[{}] argument 'dtype': expected a floating point dtype, got {}",
                     op, *dtype);
  return dtype.value_or(self.dtype());
}

inline double norm_order(const Scalar& p, const char* op) {
  EMBER_CHECK_TYPE(!p.isComplex(), "[{}] argument 'p': expected a real number, got a complex one", op);
  return p.toDouble();
}

// An out= argument `name` must have dtype `expected` (after the caller's device check).
inline void check_out_dtype(const char* op, const Tensor& out, ScalarType expected, const char* name = "out") {
  EMBER_CHECK_TYPE(out.dtype() == expected,
                   "[{}] argument '{}': expected the out tensor to have dtype {}, but got {} instead", op, name,
                   expected, out.dtype());
}

// Without a dtype, sum, mean, prod, cumsum and cumprod compute in out's dtype (PyTorch's
// infer_dtype_from_optional); with one, out must have it.
inline ScalarType reduction_out_dtype(const char* op, const Tensor& out, std::optional<ScalarType> dtype) {
  check_defined(op, out, "out");
  return dtype.value_or(out.dtype());
}

inline void check_logsumexp_out(const Tensor& out) {
  check_defined("logsumexp", out, "out");
  EMBER_CHECK_TYPE(is_floating_type(out.dtype()),
                   "[logsumexp] expected a floating point type for the out tensor, but got {}", out.dtype());
}

// ---- item, equal, allclose: their argument errors come before any value is read ------------------

inline void check_item(const Tensor& self) {
  check_defined("item", self, "self");
  EMBER_CHECK(self.numel() == 1, "[item] a Tensor with {} elements cannot be converted to Scalar", self.numel());
}

// Two dtypes compare in their promoted dtype, as LibTorch 1.13's equal (float32 0.1 != float64 0.1).
inline ScalarType equal_dtype(DeviceType dev, const Tensor& self, const Tensor& other) {
  check_defined("equal", self, "self");
  check_defined("equal", other, "other");
  check_same_device("equal", dev, self, other);
  return promote_types(self.dtype(), other.dtype());
}

inline void check_allclose(DeviceType dev, const Tensor& self, const Tensor& other, double rtol, double atol) {
  check_defined("allclose", self, "self");
  check_defined("allclose", other, "other");
  check_same_device("allclose", dev, self, other);
  EMBER_CHECK_TYPE(self.dtype() == other.dtype(), "[allclose] dtype {} did not match {}", self.dtype(), other.dtype());
  EMBER_CHECK(rtol >= 0, "[allclose] rtol must be greater than or equal to zero, but got {}", rtol);
  EMBER_CHECK(atol >= 0, "[allclose] atol must be greater than or equal to zero, but got {}", atol);
}

}  // namespace ember::native
