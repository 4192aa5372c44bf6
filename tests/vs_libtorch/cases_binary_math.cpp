// The pointwise-binary family against LibTorch 1.13: atan2, maximum/minimum, fmod/remainder, div's
// rounding modes, floor_divide, bitwise ops, pow with a Scalar base, clamp with tensor bounds,
// clamp_min/clamp_max and the activations; over dtypes, broadcasting, non-contiguous operands,
// Scalar operands, in-place and out=, and the inputs that raise.
#include <cmath>
#include <limits>
#include <string>

#include "vs_record.h"

namespace {
const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

// [-2.75, 3) as a transposed [4, 6] view, and a [6] row that broadcasts against it.
vs::Tensor a(vs::ScalarType dt) { return (vs::arange(24, vs::kFloat64) * 0.25 - 2.75).reshape({6, 4}).t().to(dt); }
vs::Tensor b(vs::ScalarType dt) {
  return vs::tensor({-2.5, -1.0, 0.75, 1.5, 2.0, -0.5}, vs::kFloat64).to(dt);
}
// Integers with both signs and no zero divisor.
vs::Tensor ia() { return vs::arange(-9, 15, vs::kInt64).reshape({6, 4}).t(); }
vs::Tensor ib() { return vs::tensor({-4, -3, 2, 5, 7, -1}, vs::kInt64); }
vs::Tensor specials() { return vs::tensor({kNan, kInf, -kInf, 0.0, -0.0, 5.0, -5.0, 1.0}, vs::kFloat64); }
vs::Tensor specials2() { return vs::tensor({2.0, 2.0, 3.0, -3.0, 3.0, kInf, kInf, 0.0}, vs::kFloat64); }
}  // namespace

VS_CASE("binary_math.float") {
  for (auto dt : {vs::kFloat32, vs::kFloat64}) {
    const std::string p = dt == vs::kFloat32 ? "f32_" : "f64_";
    vs::Tensor x = a(dt), y = b(dt);
    r.tensor(p + "atan2", vs::atan2(x, y));
    r.tensor(p + "maximum", vs::maximum(x, y));
    r.tensor(p + "minimum", vs::minimum(x, y));
    r.tensor(p + "fmod", vs::fmod(x, y));
    r.tensor(p + "fmod_scalar", vs::fmod(x, 1.5));
    r.tensor(p + "remainder", vs::remainder(x, y));
    r.tensor(p + "remainder_scalar", vs::remainder(x, -1.5));
    r.tensor(p + "remainder_scalar_tensor", vs::remainder(2.5, y));
    r.tensor(p + "div_trunc", vs::div(x, y, "trunc"));
    r.tensor(p + "div_floor", vs::div(x, y, "floor"));
    r.tensor(p + "div_none", vs::div(x, y, vs::none));
    r.tensor(p + "div_floor_scalar", vs::div(x, 0.75, "floor"));
    r.tensor(p + "floor_divide", vs::floor_divide(x, y));
    r.tensor(p + "floor_divide_scalar", vs::floor_divide(x, -2));
    r.tensor(p + "pow_scalar_base", vs::pow(2.5, x));
    r.tensor(p + "clamp_tensor", vs::clamp(x, y - 1, y + 1));
    r.tensor(p + "clamp_min_tensor", vs::clamp_min(x, y));
    r.tensor(p + "clamp_max_tensor", vs::clamp_max(x, y));
    r.tensor(p + "clamp_min", vs::clamp_min(x, 0.5));
    r.tensor(p + "clamp_max", vs::clamp_max(x, -0.5));
    r.tensor(p + "hardtanh", vs::hardtanh(x));
    r.tensor(p + "hardtanh_limits", vs::hardtanh(x, -0.5, 2.0));
    r.tensor(p + "leaky_relu", vs::leaky_relu(x, 0.2));
    r.tensor(p + "elu", vs::elu(x, 0.5, 1.5, 2.0));
    r.tensor(p + "softplus", vs::softplus(x, 2, 1));
    r.tensor(p + "hardswish", vs::hardswish(x));
    r.tensor(p + "hardsigmoid", vs::hardsigmoid(x));
    r.tensor(p + "mish", vs::mish(x));
  }
}

VS_CASE("binary_math.specials") {
  vs::Tensor s = specials(), t = specials2();
  r.tensor("atan2", vs::atan2(s, t));
  r.tensor("maximum", vs::maximum(s, t));
  r.tensor("minimum", vs::minimum(t, s));
  r.tensor("fmod", vs::fmod(s, t));
  r.tensor("remainder", vs::remainder(s, t));
  r.tensor("div_floor", vs::div(s, t, "floor"));
  r.tensor("div_trunc", vs::div(s, t, "trunc"));
  r.tensor("div_floor_signed_zeros", vs::div(vs::tensor({-0.0, 0.0, 5.0, -5.0, -1.0, 1.0}, vs::kFloat64),
                                             vs::tensor({3.0, -3.0, kInf, kInf, kInf, -kInf}, vs::kFloat64), "floor"));
  r.tensor("clamp_nan_bound", vs::clamp(s, vs::full({}, kNan, vs::kFloat64), vs::none));
  r.tensor("clamp_max_nan", vs::clamp_max(s, kNan));
  r.tensor("hardtanh", vs::hardtanh(s));
  r.tensor("softplus", vs::softplus(s));
  r.tensor("mish", vs::mish(s));
}

VS_CASE("binary_math.integers") {
  vs::Tensor x = ia(), y = ib();
  r.tensor("maximum", vs::maximum(x, y));
  r.tensor("minimum", vs::minimum(x, y));
  r.tensor("atan2", vs::atan2(x, y));
  r.tensor("fmod", vs::fmod(x, y));
  r.tensor("fmod_scalar", vs::fmod(x, 4));
  r.tensor("fmod_float_scalar", vs::fmod(x, 2.5));
  r.tensor("remainder", vs::remainder(x, y));
  r.tensor("remainder_scalar", vs::remainder(x, -4));
  r.tensor("remainder_scalar_tensor", vs::remainder(7, y));
  r.tensor("div_trunc", vs::div(x, y, "trunc"));
  r.tensor("div_floor", vs::div(x, y, "floor"));
  r.tensor("div_floor_scalar", vs::div(x, 4, "floor"));
  r.tensor("div_none", vs::div(x, y, vs::none));
  r.tensor("floor_divide", vs::floor_divide(x, y));
  r.tensor("int32_uint8_fmod", vs::fmod(x.to(vs::kInt32), y.abs().to(vs::kUInt8)));
  r.tensor("bitwise_and", vs::bitwise_and(x, y));
  r.tensor("bitwise_or", vs::bitwise_or(x, y));
  r.tensor("bitwise_xor", vs::bitwise_xor(x, y));
  r.tensor("bitwise_and_scalar", vs::bitwise_and(x, 6));
  r.tensor("bitwise_or_scalar_tensor", vs::bitwise_or(3, x));
  r.tensor("bitwise_xor_bool", vs::bitwise_xor(x > 0, y > 0));
  r.tensor("bitwise_xor_bool_scalar", vs::bitwise_xor(x > 0, true));
  r.tensor("bitwise_and_int32_uint8", vs::bitwise_and(x.to(vs::kInt32), y.to(vs::kUInt8)));
  r.tensor("pow_scalar_base", vs::pow(2, x.abs()));
  r.tensor("pow_scalar_base_neg", vs::pow(-2, x));
  r.tensor("pow_bool_exponent", vs::pow(3, x > 0));
  r.tensor("clamp_tensor", vs::clamp(x, y, vs::none));
  r.tensor("clamp_float_bound", vs::clamp(x, vs::tensor({0.5}), vs::none));
  r.tensor("clamp_min_float_scalar", vs::clamp_min(x, 0.5));
  r.tensor("clamp_max_int", vs::clamp_max(x, 2));
  r.tensor("hardtanh_int", vs::hardtanh(x, -2, 3));
}

VS_CASE("binary_math.inplace_out") {
  vs::Tensor x = a(vs::kFloat32), y = b(vs::kFloat32);
  vs::Tensor c1 = x.clone();
  r.tensor("atan2_", c1.atan2_(y));
  vs::Tensor c2 = x.clone();
  r.tensor("remainder_", c2.remainder_(y));
  vs::Tensor c3 = x.clone();
  r.tensor("div_floor_", c3.div_(y, "floor"));
  vs::Tensor c4 = ia();
  r.tensor("int_div_floor_", c4.div_(3, "floor"));
  vs::Tensor c5 = x.clone();
  r.tensor("clamp_tensor_", c5.clamp_(y, vs::none));
  vs::Tensor c6 = x.clone();
  r.tensor("leaky_relu_", vs::leaky_relu_(c6, 0.3));
  vs::Tensor c7 = x.clone();
  r.tensor("elu_", vs::elu_(c7));
  vs::Tensor c8 = x.clone();
  r.tensor("hardswish_", vs::hardswish_(c8));
  vs::Tensor o = vs::empty({0}, vs::kFloat64);
  r.tensor("maximum_out_f64", vs::maximum_out(o, x, y));
  vs::Tensor o2 = vs::empty({2}, vs::kFloat32);
  r.tensor("fmod_out_resized", vs::fmod_out(o2, x, y));
  vs::Tensor o3 = vs::empty({0}, vs::kInt64);
  r.tensor("bitwise_and_out", vs::bitwise_and_out(o3, ia(), ib()));
}

VS_CASE("binary_math.errors") {
  vs::Tensor x = a(vs::kFloat32), y = b(vs::kFloat32), i = ia(), j = ib();
  vs::Tensor zero = vs::tensor({0, 1, 2, 3, 4, 5}, vs::kInt64);
  r.raises("fmod_int_zero", [&] { vs::fmod(i, zero); });
  r.raises("remainder_int_zero_scalar", [&] { vs::remainder(i, 0); });
  r.raises("div_floor_int_zero", [&] { vs::div(i, zero, "floor"); });
  r.raises("div_trunc_int_zero", [&] { vs::div(i, 0, "trunc"); });
  r.raises("div_unknown_mode", [&] { vs::div(x, y, "round"); });
  r.raises("fmod_bool", [&] { vs::fmod(i > 0, j > 0); });
  r.raises("remainder_bool", [&] { vs::remainder(i > 0, j > 0); });
  r.raises("div_floor_bool", [&] { vs::div(i > 0, j > 0, "floor"); });
  r.raises("bitwise_and_float", [&] { vs::bitwise_and(x, y); });
  r.raises("bitwise_or_float_scalar", [&] { vs::bitwise_or(i, 1.5); });
  r.raises("pow_bool_base_bool", [&] { vs::pow(true, i > 0); });
  r.raises("clamp_no_bounds", [&] { vs::clamp(x, vs::Tensor(), vs::Tensor()); });
  r.raises("clamp_bool", [&] { vs::clamp(i > 0, j > 0, j > 0); });
  r.raises("hardtanh_bool", [&] { vs::hardtanh(i > 0); });
  r.raises("hardtanh_uint8_negative", [&] { vs::hardtanh(i.abs().to(vs::kUInt8), -2, 3); });
  r.raises("leaky_relu_int", [&] { vs::leaky_relu(i); });
  r.raises("elu_int", [&] { vs::elu(i); });
  r.raises("softplus_int", [&] { vs::softplus(i); });
  r.raises("mish_int", [&] { vs::mish(i); });
  r.raises("atan2_int_inplace", [&] { i.clone().atan2_(j); });
  r.raises("maximum_broadcast", [&] { vs::maximum(x, vs::arange(5, vs::kFloat32)); });
  r.raises("maximum_out_int", [&] {
    vs::Tensor o = vs::empty({0}, vs::kInt64);
    vs::maximum_out(o, x, y);
  });
}
