// The out= and in-place variants of the pointwise, comparison, logical, bitwise and reduction ops
// against LibTorch 1.13: in place on a transposed view (the write must land in its base), out= of
// size 0 (resized), out= of the right size and another dtype, a transposed out= (written through
// its strides), integer inputs, and what LibTorch rejects (an integer out= or in-place self for a
// float result).
#include <string>
#include <vector>

#include "vs_record.h"

namespace {

// [-2.75, 3) in steps of 0.25, a contiguous [6, 4] base whose transpose is the operand.
vs::Tensor base(vs::ScalarType dt) { return (vs::arange(24, vs::kFloat64) * 0.25 - 2.75).reshape({6, 4}).to(dt); }
vs::Tensor grid(vs::ScalarType dt) { return base(dt).t(); }
// (0, 1) and [1.25, 7): inside the domains of asin/atanh/erfinv and acosh/log.
vs::Tensor unit(vs::ScalarType dt) { return (vs::arange(24, vs::kFloat64) / 25 + 0.02).reshape({6, 4}).t().to(dt); }
vs::Tensor big(vs::ScalarType dt) { return (vs::arange(24, vs::kFloat64) * 0.25 + 1.25).reshape({6, 4}).t().to(dt); }
// A [6] row that broadcasts against the [4, 6] operands; no zeros.
vs::Tensor row(vs::ScalarType dt) { return vs::tensor({-2.5, -1.0, 0.75, 1.5, 2.0, -0.5}, vs::kFloat64).to(dt); }
vs::Tensor ibase() { return vs::arange(-9, 15, vs::kInt64).reshape({6, 4}); }
vs::Tensor ints() { return ibase().t(); }
vs::Tensor irow() { return vs::tensor({-4, -3, 2, 5, 7, -1}, vs::kInt64); }

}  // namespace

// In place on base.t(), then out= resized from size 0, an out= of dtype odt from float32 (float64
// where the op computes in the out's dtype; the others want the input's) and a transposed float64
// out= of the right size; `in` makes the input (grid/unit/big).
// (The calls are spelled out per op: coverage.py reads the spellings.)
template <class In, class Ip, class Out>
void unary_variants(vs_test::Recorder& r, const std::string& op, In in, vs::ScalarType odt, Ip ip, Out out) {
  vs::Tensor b = in(vs::kFloat32).t().contiguous();
  vs::Tensor v = b.t();
  r.tensor(op + "_", ip(v));
  r.tensor(op + "_base", b);
  vs::Tensor o0 = vs::empty({0}, vs::kFloat32);
  r.tensor(op + "_out_resized", out(o0, in(vs::kFloat32)));
  r.result(op + "_out_sized", [&] {
    vs::Tensor o1 = vs::empty({4, 6}, odt);
    return out(o1, in(vs::kFloat32));
  });
  vs::Tensor ob = vs::zeros({6, 4}, vs::kFloat64), ot = ob.t();
  out(ot, in(vs::kFloat64));
  r.tensor(op + "_out_transposed_base", ob);
}

VS_CASE("variants.unary_float") {
  unary_variants(
      r, "abs", grid, vs::kFloat32, [](vs::Tensor t) { return t.abs_(); },
      [](vs::Tensor& o, const vs::Tensor& x) { return vs::abs_out(o, x); });
  unary_variants(
      r, "acosh", big, vs::kFloat64, [](vs::Tensor t) { return t.acosh_(); },
      [](vs::Tensor& o, const vs::Tensor& x) { return vs::acosh_out(o, x); });
  unary_variants(
      r, "asin", unit, vs::kFloat64, [](vs::Tensor t) { return t.asin_(); },
      [](vs::Tensor& o, const vs::Tensor& x) { return vs::asin_out(o, x); });
  unary_variants(
      r, "asinh", grid, vs::kFloat64, [](vs::Tensor t) { return t.asinh_(); },
      [](vs::Tensor& o, const vs::Tensor& x) { return vs::asinh_out(o, x); });
  unary_variants(
      r, "atan", grid, vs::kFloat64, [](vs::Tensor t) { return t.atan_(); },
      [](vs::Tensor& o, const vs::Tensor& x) { return vs::atan_out(o, x); });
  unary_variants(
      r, "atanh", unit, vs::kFloat64, [](vs::Tensor t) { return t.atanh_(); },
      [](vs::Tensor& o, const vs::Tensor& x) { return vs::atanh_out(o, x); });
  unary_variants(
      r, "ceil", grid, vs::kFloat32, [](vs::Tensor t) { return t.ceil_(); },
      [](vs::Tensor& o, const vs::Tensor& x) { return vs::ceil_out(o, x); });
  unary_variants(
      r, "conj_physical", grid, vs::kFloat32, [](vs::Tensor t) { return t.conj_physical_(); },
      [](vs::Tensor& o, const vs::Tensor& x) { return vs::conj_physical_out(o, x); });
  unary_variants(
      r, "cos", grid, vs::kFloat64, [](vs::Tensor t) { return t.cos_(); },
      [](vs::Tensor& o, const vs::Tensor& x) { return vs::cos_out(o, x); });
  unary_variants(
      r, "cosh", grid, vs::kFloat64, [](vs::Tensor t) { return t.cosh_(); },
      [](vs::Tensor& o, const vs::Tensor& x) { return vs::cosh_out(o, x); });
  unary_variants(
      r, "digamma", grid, vs::kFloat64, [](vs::Tensor t) { return t.digamma_(); },
      [](vs::Tensor& o, const vs::Tensor& x) { return vs::digamma_out(o, x); });
  unary_variants(
      r, "erf", grid, vs::kFloat64, [](vs::Tensor t) { return t.erf_(); },
      [](vs::Tensor& o, const vs::Tensor& x) { return vs::erf_out(o, x); });
  unary_variants(
      r, "erfinv", unit, vs::kFloat64, [](vs::Tensor t) { return t.erfinv_(); },
      [](vs::Tensor& o, const vs::Tensor& x) { return vs::erfinv_out(o, x); });
  unary_variants(
      r, "exp", grid, vs::kFloat64, [](vs::Tensor t) { return t.exp_(); },
      [](vs::Tensor& o, const vs::Tensor& x) { return vs::exp_out(o, x); });
  unary_variants(
      r, "expm1", grid, vs::kFloat64, [](vs::Tensor t) { return t.expm1_(); },
      [](vs::Tensor& o, const vs::Tensor& x) { return vs::expm1_out(o, x); });
  unary_variants(
      r, "floor", grid, vs::kFloat32, [](vs::Tensor t) { return t.floor_(); },
      [](vs::Tensor& o, const vs::Tensor& x) { return vs::floor_out(o, x); });
  unary_variants(
      r, "frac", grid, vs::kFloat32, [](vs::Tensor t) { return t.frac_(); },
      [](vs::Tensor& o, const vs::Tensor& x) { return vs::frac_out(o, x); });
  unary_variants(
      r, "lgamma", grid, vs::kFloat64, [](vs::Tensor t) { return t.lgamma_(); },
      [](vs::Tensor& o, const vs::Tensor& x) { return vs::lgamma_out(o, x); });
  unary_variants(
      r, "log", big, vs::kFloat64, [](vs::Tensor t) { return t.log_(); },
      [](vs::Tensor& o, const vs::Tensor& x) { return vs::log_out(o, x); });
  unary_variants(
      r, "log10", big, vs::kFloat64, [](vs::Tensor t) { return t.log10_(); },
      [](vs::Tensor& o, const vs::Tensor& x) { return vs::log10_out(o, x); });
  unary_variants(
      r, "log1p", unit, vs::kFloat64, [](vs::Tensor t) { return t.log1p_(); },
      [](vs::Tensor& o, const vs::Tensor& x) { return vs::log1p_out(o, x); });
  unary_variants(
      r, "log2", big, vs::kFloat64, [](vs::Tensor t) { return t.log2_(); },
      [](vs::Tensor& o, const vs::Tensor& x) { return vs::log2_out(o, x); });
  unary_variants(
      r, "neg", grid, vs::kFloat32, [](vs::Tensor t) { return t.neg_(); },
      [](vs::Tensor& o, const vs::Tensor& x) { return vs::neg_out(o, x); });
  unary_variants(
      r, "reciprocal", big, vs::kFloat64, [](vs::Tensor t) { return t.reciprocal_(); },
      [](vs::Tensor& o, const vs::Tensor& x) { return vs::reciprocal_out(o, x); });
  unary_variants(
      r, "round", grid, vs::kFloat32, [](vs::Tensor t) { return t.round_(); },
      [](vs::Tensor& o, const vs::Tensor& x) { return vs::round_out(o, x); });
  unary_variants(
      r, "rsqrt", big, vs::kFloat64, [](vs::Tensor t) { return t.rsqrt_(); },
      [](vs::Tensor& o, const vs::Tensor& x) { return vs::rsqrt_out(o, x); });
  unary_variants(
      r, "sigmoid", grid, vs::kFloat64, [](vs::Tensor t) { return t.sigmoid_(); },
      [](vs::Tensor& o, const vs::Tensor& x) { return vs::sigmoid_out(o, x); });
  unary_variants(
      r, "sign", grid, vs::kFloat32, [](vs::Tensor t) { return t.sign_(); },
      [](vs::Tensor& o, const vs::Tensor& x) { return vs::sign_out(o, x); });
  unary_variants(
      r, "sin", grid, vs::kFloat64, [](vs::Tensor t) { return t.sin_(); },
      [](vs::Tensor& o, const vs::Tensor& x) { return vs::sin_out(o, x); });
  unary_variants(
      r, "sinh", grid, vs::kFloat64, [](vs::Tensor t) { return t.sinh_(); },
      [](vs::Tensor& o, const vs::Tensor& x) { return vs::sinh_out(o, x); });
  unary_variants(
      r, "sqrt", big, vs::kFloat64, [](vs::Tensor t) { return t.sqrt_(); },
      [](vs::Tensor& o, const vs::Tensor& x) { return vs::sqrt_out(o, x); });
  unary_variants(
      r, "tan", unit, vs::kFloat64, [](vs::Tensor t) { return t.tan_(); },
      [](vs::Tensor& o, const vs::Tensor& x) { return vs::tan_out(o, x); });
  unary_variants(
      r, "tanh", grid, vs::kFloat64, [](vs::Tensor t) { return t.tanh_(); },
      [](vs::Tensor& o, const vs::Tensor& x) { return vs::tanh_out(o, x); });
  unary_variants(
      r, "trunc", grid, vs::kFloat32, [](vs::Tensor t) { return t.trunc_(); },
      [](vs::Tensor& o, const vs::Tensor& x) { return vs::trunc_out(o, x); });
}

VS_CASE("variants.unary_domains") {
  // Values outside the domains give NaN/inf through the out= path too.
  vs::Tensor o = vs::empty({0}, vs::kFloat64);
  r.tensor("log_out_signed", vs::log_out(o, grid(vs::kFloat64)));
  vs::Tensor o2 = vs::empty({0}, vs::kFloat32);
  r.tensor("sqrt_out_signed", vs::sqrt_out(o2, grid(vs::kFloat32)));
  vs::Tensor g = grid(vs::kFloat32).clone();
  r.tensor("acosh_signed_", g.acosh_());
  vs::Tensor o3 = vs::empty({0}, vs::kFloat32);
  r.tensor("reciprocal_out_zero", vs::reciprocal_out(o3, vs::tensor({0.0, -0.0, 2.0}, vs::kFloat32)));
  vs::Tensor o4 = vs::empty({0}, vs::kFloat32);
  r.tensor("rsqrt_out_zero", vs::rsqrt_out(o4, vs::tensor({0.0, -0.0, 4.0, -1.0}, vs::kFloat32)));
  vs::Tensor o5 = vs::empty({0}, vs::kFloat64);
  r.tensor("round_decimals_out", vs::round_out(o5, grid(vs::kFloat64) / 3, 2));
  vs::Tensor o6 = vs::empty({0}, vs::kFloat32);
  r.tensor("round_decimals_out_neg", vs::round_out(o6, grid(vs::kFloat32) * 123, -1));
  vs::Tensor o7 = vs::empty({0}, vs::kFloat32);
  r.tensor("angle_out", vs::angle_out(o7, grid(vs::kFloat32)));
  vs::Tensor o8 = vs::empty({0}, vs::kFloat32);
  r.tensor("angle_out_int", vs::angle_out(o8, ints()));
  vs::Tensor o9 = vs::empty({0}, vs::kBool);
  r.tensor("isinf_out", vs::isinf_out(o9, grid(vs::kFloat32).log().reciprocal()));
  vs::Tensor oi32 = vs::empty({0}, vs::kInt32);
  r.tensor("isinf_out_int32", vs::isinf_out(oi32, grid(vs::kFloat32).reciprocal()));
  vs::Tensor o10 = vs::empty({4, 6}, vs::kBool);
  r.tensor("isinf_out_sized", vs::isinf_out(o10, grid(vs::kFloat64).reciprocal()));
  vs::Tensor b = base(vs::kFloat32), v = b.t();
  vs::relu_(v);
  r.tensor("relu_base", b);
  vs::Tensor i = ints();
  r.tensor("relu_int_", i.clone().relu_());
}

VS_CASE("variants.unary_int") {
  // Integer in place where the result stays integral, out= float from integer input.
  vs::Tensor b = ibase(), v = b.t();
  v.abs_();
  r.tensor("abs_int_base", b);
  vs::Tensor b2 = ibase(), v2 = b2.t();
  v2.neg_();
  r.tensor("neg_int_base", b2);
  r.tensor("sign_int_", ints().clone().sign_());
  r.tensor("ceil_int_", ints().clone().ceil_());
  r.tensor("trunc_int_", ints().clone().trunc_());
  vs::Tensor bn = ibase(), vn = bn.t();
  vn.bitwise_not_();
  r.tensor("bitwise_not_base", bn);
  vs::Tensor o = vs::empty({0}, vs::kInt64);
  r.tensor("bitwise_not_out", vs::bitwise_not_out(o, ints()));
  vs::Tensor ob = vs::empty({0}, vs::kBool);
  r.tensor("bitwise_not_out_bool", vs::bitwise_not_out(ob, ints() > 0));
  vs::Tensor o32 = vs::empty({4, 6}, vs::kInt32);
  r.tensor("bitwise_not_out_int32", vs::bitwise_not_out(o32, ints().to(vs::kInt32)));
  vs::Tensor of = vs::empty({0}, vs::kFloat32);
  r.tensor("sin_out_from_int", vs::sin_out(of, ints()));
  vs::Tensor of2 = vs::empty({0}, vs::kFloat64);
  r.tensor("sqrt_out_from_int", vs::sqrt_out(of2, ints().abs()));
  vs::Tensor oi = vs::empty({0}, vs::kInt64);
  r.tensor("abs_out_int", vs::abs_out(oi, ints()));
  vs::Tensor oi2 = vs::empty({0}, vs::kInt64);
  r.tensor("floor_out_int", vs::floor_out(oi2, ints()));
  vs::Tensor oi3 = vs::empty({0}, vs::kInt64);
  r.tensor("sign_out_int", vs::sign_out(oi3, ints()));
  vs::Tensor oc = vs::empty({0}, vs::kInt64);
  r.tensor("conj_physical_out_int", vs::conj_physical_out(oc, ints()));
  r.tensor("conj_physical_int_", ints().clone().conj_physical_());
}

VS_CASE("variants.unary_errors") {
  vs::Tensor f = grid(vs::kFloat32);
  r.raises("sin_int_inplace", [&] { ints().clone().sin_(); });
  r.raises("exp_int_inplace", [&] { ints().clone().exp_(); });
  r.raises("log_int_inplace", [&] { ints().clone().log_(); });
  r.raises("sqrt_int_inplace", [&] { ints().clone().sqrt_(); });
  r.raises("sigmoid_int_inplace", [&] { ints().clone().sigmoid_(); });
  r.raises("erf_int_inplace", [&] { ints().clone().erf_(); });
  r.raises("tanh_bool_inplace", [&] { (ints() > 0).tanh_(); });
  r.raises("frac_int_inplace", [&] { ints().clone().frac_(); });
  r.raises("bitwise_not_float_inplace", [&] { f.clone().bitwise_not_(); });
  r.raises("bitwise_not_out_float", [&] {
    vs::Tensor o = vs::empty({0}, vs::kFloat32);
    vs::bitwise_not_out(o, f);
  });
  r.raises("sin_out_int", [&] {
    vs::Tensor o = vs::empty({0}, vs::kInt64);
    vs::sin_out(o, f);
  });
  r.raises("sqrt_out_int_from_int", [&] {
    vs::Tensor o = vs::empty({0}, vs::kInt64);
    vs::sqrt_out(o, ints());
  });
  r.raises("abs_out_float_to_int", [&] {
    vs::Tensor o = vs::empty({0}, vs::kInt64);
    vs::abs_out(o, f);
  });

  r.raises("sign_bool_out_float", [&] {
    vs::Tensor o = vs::empty({0}, vs::kBool);
    vs::sign_out(o, f);
  });
}

// Binary: in place on base.t() with a broadcast row, out= resized and out= float64, both Tensor
// and Scalar other.
template <class Other, class Ip, class Out>
void binary_variants(vs_test::Recorder& r, const std::string& op, const Other& other, Ip ip, Out out) {
  vs::Tensor b = base(vs::kFloat32), v = b.t();
  r.tensor(op + "_", ip(v, row(vs::kFloat32)));
  r.tensor(op + "_base", b);
  r.tensor(op + "_scalar_", ip(grid(vs::kFloat64).clone(), other));
  vs::Tensor o0 = vs::empty({0}, vs::kFloat32);
  r.tensor(op + "_out", out(o0, grid(vs::kFloat32), row(vs::kFloat32)));
  r.result(op + "_out_f64", [&] {
    vs::Tensor o1 = vs::empty({4, 6}, vs::kFloat64);
    return out(o1, grid(vs::kFloat32), row(vs::kFloat32));
  });
}

VS_CASE("variants.binary_float") {
  binary_variants(
      r, "atan2", vs::scalar_tensor(1.5, vs::kFloat64), [](vs::Tensor t, const auto& y) { return t.atan2_(y); },
      [](vs::Tensor& o, const vs::Tensor& x, const vs::Tensor& y) { return vs::atan2_out(o, x, y); });
  binary_variants(
      r, "div", 0.75, [](vs::Tensor t, const auto& y) { return t.div_(y); },
      [](vs::Tensor& o, const vs::Tensor& x, const vs::Tensor& y) { return vs::div_out(o, x, y); });
  binary_variants(
      r, "floor_divide", -0.75, [](vs::Tensor t, const auto& y) { return t.floor_divide_(y); },
      [](vs::Tensor& o, const vs::Tensor& x, const vs::Tensor& y) { return vs::floor_divide_out(o, x, y); });
  binary_variants(
      r, "fmod", 1.5, [](vs::Tensor t, const auto& y) { return t.fmod_(y); },
      [](vs::Tensor& o, const vs::Tensor& x, const vs::Tensor& y) { return vs::fmod_out(o, x, y); });
  binary_variants(
      r, "remainder", -1.5, [](vs::Tensor t, const auto& y) { return t.remainder_(y); },
      [](vs::Tensor& o, const vs::Tensor& x, const vs::Tensor& y) { return vs::remainder_out(o, x, y); });
  binary_variants(
      r, "mul", 2.5, [](vs::Tensor t, const auto& y) { return t.mul_(y); },
      [](vs::Tensor& o, const vs::Tensor& x, const vs::Tensor& y) { return vs::mul_out(o, x, y); });
  binary_variants(
      r, "sub", 2.5, [](vs::Tensor t, const auto& y) { return t.sub_(y); },
      [](vs::Tensor& o, const vs::Tensor& x, const vs::Tensor& y) { return vs::sub_out(o, x, y); });
  binary_variants(
      r, "pow", 2, [](vs::Tensor t, const auto& y) { return t.pow_(y); },
      [](vs::Tensor& o, const vs::Tensor& x, const vs::Tensor& y) { return vs::pow_out(o, x, y); });
  binary_variants(
      r, "clamp_min", 0.5, [](vs::Tensor t, const auto& y) { return t.clamp_min_(y); },
      [](vs::Tensor& o, const vs::Tensor& x, const vs::Tensor& y) { return vs::clamp_min_out(o, x, y); });
  binary_variants(
      r, "clamp_max", -0.5, [](vs::Tensor t, const auto& y) { return t.clamp_max_(y); },
      [](vs::Tensor& o, const vs::Tensor& x, const vs::Tensor& y) { return vs::clamp_max_out(o, x, y); });
}

VS_CASE("variants.binary_more") {
  vs::Tensor x = grid(vs::kFloat32), y = row(vs::kFloat32);
  r.tensor("sub_tensor", vs::sub(x, y));
  r.tensor("sub_alpha", vs::sub(x, y, 2.5));
  r.tensor("sub_scalar", vs::sub(x, 1.5));
  r.tensor("sub_scalar_alpha", vs::sub(x, 1.5, -2));
  r.tensor("sub_method", x.sub(y, 0.5));
  r.tensor("sub_int", vs::sub(ints(), irow(), 3));
  r.tensor("sub_int_float_scalar", vs::sub(ints(), 0.5));
  r.tensor("sub_int_", ints().clone().sub_(irow(), 2));
  vs::Tensor o = vs::empty({0}, vs::kFloat64);
  r.tensor("sub_out_alpha", vs::sub_out(o, x, y, 3));
  vs::Tensor b = base(vs::kFloat64), v = b.t();
  v.sub_(1.25, 2);
  r.tensor("sub_scalar_base", b);
  // div with rounding modes, out=.
  vs::Tensor d1 = vs::empty({0}, vs::kFloat32);
  r.tensor("div_out_floor", vs::div_out(d1, x, y, "floor"));
  vs::Tensor d2 = vs::empty({0}, vs::kFloat64);
  r.tensor("div_out_trunc", vs::div_out(d2, x, y, "trunc"));
  vs::Tensor d3 = vs::empty({0}, vs::kInt64);
  r.tensor("div_out_int_floor", vs::div_out(d3, ints(), irow(), "floor"));
  vs::Tensor d4 = vs::empty({0}, vs::kFloat32);
  r.tensor("div_out_int_true", vs::div_out(d4, ints(), irow()));
  vs::Tensor d5 = vs::empty({0}, vs::kFloat32);
  r.tensor("div_scalar_mode_out", vs::div_out(d5, x.contiguous(), vs::Scalar(0.75), "floor"));
  vs::Tensor d6 = vs::empty({4, 6}, vs::kInt64);
  r.tensor("div_scalar_mode_out_int", vs::div_out(d6, ints(), vs::Scalar(4), "trunc"));
  vs::Tensor fd = vs::empty({0}, vs::kInt64);
  r.tensor("floor_divide_out_int", vs::floor_divide_out(fd, ints(), irow()));
  r.tensor("floor_divide_int_", ints().clone().floor_divide_(irow()));
  r.tensor("floor_divide_int_scalar_", ints().clone().floor_divide_(-4));
  r.tensor("fmod_int_", ints().clone().fmod_(irow()));
  r.tensor("fmod_int_scalar_", ints().clone().fmod_(4));
  vs::Tensor rm = vs::empty({0}, vs::kInt64);
  r.tensor("remainder_out_int", vs::remainder_out(rm, ints(), irow()));
  vs::Tensor rm2 = vs::empty({0}, vs::kFloat32);
  r.tensor("remainder_out_scalar", vs::remainder_out(rm2, x, vs::Scalar(-1.5)));
  vs::Tensor rm3 = vs::empty({0}, vs::kFloat32);
  r.tensor("remainder_out_scalar_tensor", vs::remainder_out(rm3, vs::Scalar(2.5), y));
  vs::Tensor rm4 = vs::empty({0}, vs::kInt64);
  r.tensor("remainder_out_scalar_tensor_int", vs::remainder_out(rm4, vs::Scalar(7), irow()));
  // pow: every overload's out= and in place.
  vs::Tensor p1 = vs::empty({0}, vs::kFloat32);
  r.tensor("pow_out_tensor_tensor", vs::pow_out(p1, x.abs(), y));
  vs::Tensor p2b = vs::empty({0}, vs::kFloat32);
  r.tensor("pow_out_tensor_scalar", vs::pow_out(p2b, x, vs::Scalar(3)));
  vs::Tensor p3 = vs::empty({4, 6}, vs::kFloat32);
  r.tensor("pow_out_scalar_tensor", vs::pow_out(p3, vs::Scalar(2.5), x));
  vs::Tensor p4 = vs::empty({0}, vs::kInt64);
  r.tensor("pow_out_int", vs::pow_out(p4, ints(), vs::Scalar(2)));
  vs::Tensor p5 = vs::empty({0}, vs::kFloat32);
  r.tensor("pow_out_tensor_half", vs::pow_out(p5, x, vs::Scalar(0.5)));
  r.tensor("pow_int_", ints().clone().pow_(irow().abs()));
  r.tensor("pow_int_scalar_", ints().clone().pow_(3));
  vs::Tensor pb = base(vs::kFloat32), pv = pb.t();
  pv.pow_(vs::tensor({2.0, 3.0, 0.5, -1.0, 0.0, 1.0}, vs::kFloat32));
  r.tensor("pow_tensor_base", pb);
  // minimum/mul out= on integers and mixed.
  vs::Tensor mf = vs::empty({0}, vs::kFloat32);
  r.tensor("minimum_out", vs::minimum_out(mf, x, y));
  vs::Tensor mf2 = vs::empty({4, 6}, vs::kFloat64);
  r.tensor("minimum_out_f64_scalar_tensor", vs::minimum_out(mf2, x, vs::scalar_tensor(0.5, vs::kFloat64)));
  vs::Tensor mi = vs::empty({0}, vs::kInt64);
  r.tensor("minimum_out_int", vs::minimum_out(mi, ints(), irow()));
  vs::Tensor mu = vs::empty({0}, vs::kFloat32);
  r.tensor("mul_out_mixed", vs::mul_out(mu, ints(), y));
  vs::Tensor mb = vs::empty({0}, vs::kBool);
  r.tensor("mul_out_bool", vs::mul_out(mb, ints() > 0, irow() > 0));
  // clamp_min/clamp_max with tensor bounds: out= and in place.
  vs::Tensor c1 = vs::empty({0}, vs::kFloat32);
  r.tensor("clamp_min_tensor_out", vs::clamp_min_out(c1, x, y));
  vs::Tensor c2 = vs::empty({0}, vs::kFloat64);
  r.tensor("clamp_max_tensor_out", vs::clamp_max_out(c2, x, y));
  vs::Tensor c3 = vs::empty({0}, vs::kInt64);
  r.tensor("clamp_min_scalar_out_int", vs::clamp_min_out(c3, ints(), -2));
  vs::Tensor c4 = vs::empty({0}, vs::kInt64);
  r.tensor("clamp_max_scalar_out_int", vs::clamp_max_out(c4, ints(), 3));
  r.tensor("clamp_min_int_", ints().clone().clamp_min_(irow()));
  r.tensor("clamp_max_int_scalar_", ints().clone().clamp_max_(0));
}

VS_CASE("variants.binary_errors") {
  vs::Tensor x = grid(vs::kFloat32), y = row(vs::kFloat32);
  r.raises("sub_bool", [&] { vs::sub(ints() > 0, irow() > 0); });
  r.raises("sub_int_float_inplace", [&] { ints().clone().sub_(y); });
  r.raises("div_int_inplace", [&] { ints().clone().div_(irow()); });
  r.raises("atan2_out_int", [&] {
    vs::Tensor o = vs::empty({0}, vs::kInt64);
    vs::atan2_out(o, x, y);
  });
  r.raises("div_out_int_true", [&] {
    vs::Tensor o = vs::empty({0}, vs::kInt64);
    vs::div_out(o, ints(), irow());
  });
  r.raises("mul_out_float_to_int", [&] {
    vs::Tensor o = vs::empty({0}, vs::kInt64);
    vs::mul_out(o, x, y);
  });
  r.raises("pow_int_negative_exponent", [&] { ints().clone().pow_(-2); });
  r.raises("pow_out_int_float", [&] {
    vs::Tensor o = vs::empty({0}, vs::kInt64);
    vs::pow_out(o, ints(), vs::Scalar(0.5));
  });
  r.raises("floor_divide_int_zero_", [&] { ints().clone().floor_divide_(0); });
  r.raises("remainder_out_int_zero", [&] {
    vs::Tensor o = vs::empty({0}, vs::kInt64);
    vs::remainder_out(o, ints(), vs::zeros({6}, vs::kInt64));
  });
  r.raises("fmod_int_float_inplace", [&] { ints().clone().fmod_(y); });
  r.raises("clamp_min_int_float_inplace", [&] { ints().clone().clamp_min_(y); });
  r.raises("inplace_broadcast_self", [&] { row(vs::kFloat32).clone().mul_(x); });
  r.raises("minimum_out_shape", [&] {
    vs::Tensor o = vs::empty({0}, vs::kFloat32);
    vs::minimum_out(o, x, vs::zeros({5}));
  });
}

// Comparisons: Tensor and Scalar out= (bool, resized; and a float out=), and in place (the self
// dtype is kept: 1/0).
template <class Out, class Ip, class F>
void compare_variants(vs_test::Recorder& r, const std::string& op, Out out, Ip ip, F f) {
  vs::Tensor x = grid(vs::kFloat32), y = row(vs::kFloat32);
  vs::Tensor o0 = vs::empty({0}, vs::kBool);
  r.tensor(op + "_out", out(o0, x, y));
  vs::Tensor o1 = vs::empty({0}, vs::kBool);
  r.tensor(op + "_scalar_out", out(o1, x, 0.5));
  vs::Tensor o2 = vs::empty({4, 6}, vs::kFloat32);
  r.tensor(op + "_out_float", out(o2, ints(), irow()));
  vs::Tensor b = base(vs::kFloat32), v = b.t();
  r.tensor(op + "_", ip(v, y));
  r.tensor(op + "_base", b);
  r.tensor(op + "_scalar_int_", ip(ints().clone(), 2));
  r.tensor(op + "_tensor_int_", ip(ints().clone(), irow()));
  r.tensor(op + "_func_scalar", f(x, -1.0));
  r.tensor(op + "_func_tensor", f(ints(), irow()));
}

VS_CASE("variants.compare") {
  compare_variants(
      r, "eq", [](vs::Tensor& o, const vs::Tensor& x, const auto& y) { return vs::eq_out(o, x, y); },
      [](vs::Tensor t, const auto& y) { return t.eq_(y); },
      [](const vs::Tensor& x, const auto& y) { return vs::eq(x, y); });
  compare_variants(
      r, "ne", [](vs::Tensor& o, const vs::Tensor& x, const auto& y) { return vs::ne_out(o, x, y); },
      [](vs::Tensor t, const auto& y) { return t.ne_(y); },
      [](const vs::Tensor& x, const auto& y) { return vs::ne(x, y); });
  compare_variants(
      r, "lt", [](vs::Tensor& o, const vs::Tensor& x, const auto& y) { return vs::lt_out(o, x, y); },
      [](vs::Tensor t, const auto& y) { return t.lt_(y); },
      [](const vs::Tensor& x, const auto& y) { return vs::lt(x, y); });
  compare_variants(
      r, "le", [](vs::Tensor& o, const vs::Tensor& x, const auto& y) { return vs::le_out(o, x, y); },
      [](vs::Tensor t, const auto& y) { return t.le_(y); },
      [](const vs::Tensor& x, const auto& y) { return vs::le(x, y); });
  compare_variants(
      r, "gt", [](vs::Tensor& o, const vs::Tensor& x, const auto& y) { return vs::gt_out(o, x, y); },
      [](vs::Tensor t, const auto& y) { return t.gt_(y); },
      [](const vs::Tensor& x, const auto& y) { return vs::gt(x, y); });
  compare_variants(
      r, "ge", [](vs::Tensor& o, const vs::Tensor& x, const auto& y) { return vs::ge_out(o, x, y); },
      [](vs::Tensor t, const auto& y) { return t.ge_(y); },
      [](const vs::Tensor& x, const auto& y) { return vs::ge(x, y); });
  r.tensor("le_method_scalar", grid(vs::kFloat64).le(0.25));
  r.tensor("le_nan", vs::le(vs::tensor({0.0, 1.0, 2.0}), vs::tensor({0.0, 0.0 / 0.0, 3.0})));
  r.tensor("eq_bool_inplace", (ints() > 0).eq_(irow() > 0));
}

VS_CASE("variants.logical_bitwise") {
  vs::Tensor x = grid(vs::kFloat32), y = row(vs::kFloat32);
  vs::Tensor i = ints(), j = irow();
  r.tensor("logical_or", vs::logical_or(x, y));
  r.tensor("logical_xor", vs::logical_xor(x, y));
  r.tensor("logical_or_int", vs::logical_or(i, j));
  r.tensor("logical_xor_method", i.logical_xor(j > 0));
  vs::Tensor o1 = vs::empty({0}, vs::kBool);
  r.tensor("logical_and_out", vs::logical_and_out(o1, x, y));
  vs::Tensor o2 = vs::empty({0}, vs::kFloat32);
  r.tensor("logical_or_out_float", vs::logical_or_out(o2, x, y));
  vs::Tensor o3 = vs::empty({0}, vs::kInt64);
  r.tensor("logical_xor_out_int", vs::logical_xor_out(o3, i, j));
  vs::Tensor o4 = vs::empty({0}, vs::kBool);
  r.tensor("logical_not_out", vs::logical_not_out(o4, x));
  vs::Tensor o5 = vs::empty({4, 6}, vs::kFloat64);
  r.tensor("logical_not_out_f64", vs::logical_not_out(o5, i));
  vs::Tensor b = base(vs::kFloat32), v = b.t();
  v.logical_and_(y);
  r.tensor("logical_and_base", b);
  r.tensor("logical_or_int_", i.clone().logical_or_(j));
  r.tensor("logical_xor_float_", x.clone().logical_xor_(y));
  r.tensor("logical_not_int_", i.clone().logical_not_());
  r.tensor("logical_not_bool_", (i > 0).logical_not_());
  // Bitwise: in place (Tensor and Scalar) on a transposed view, out= (Tensor and Scalar).
  vs::Tensor ba = ibase(), va = ba.t();
  va.bitwise_and_(j);
  r.tensor("bitwise_and_base", ba);
  r.tensor("bitwise_and_scalar_", i.clone().bitwise_and_(6));
  r.tensor("bitwise_or_", i.clone().bitwise_or_(j));
  r.tensor("bitwise_or_scalar_", i.clone().bitwise_or_(3));
  r.tensor("bitwise_xor_", i.clone().bitwise_xor_(j));
  r.tensor("bitwise_xor_scalar_", i.clone().bitwise_xor_(-1));
  r.tensor("bitwise_xor_bool_", (i > 0).bitwise_xor_(j > 0));
  vs::Tensor bo1 = vs::empty({0}, vs::kInt64);
  r.tensor("bitwise_or_out", vs::bitwise_or_out(bo1, i, j));
  vs::Tensor bo2 = vs::empty({0}, vs::kInt64);
  r.tensor("bitwise_or_scalar_out", vs::bitwise_or_out(bo2, i, 12));
  vs::Tensor bo3 = vs::empty({0}, vs::kInt32);
  r.tensor("bitwise_xor_out_int32", vs::bitwise_xor_out(bo3, i.to(vs::kInt32), j.to(vs::kInt32)));
  vs::Tensor bo4 = vs::empty({0}, vs::kInt64);
  r.tensor("bitwise_xor_scalar_out", vs::bitwise_xor_out(bo4, i, 5));
  vs::Tensor bo5 = vs::empty({0}, vs::kBool);
  r.tensor("bitwise_or_out_bool", vs::bitwise_or_out(bo5, i > 0, j > 0));
  r.raises("bitwise_or_float_", [&] { x.clone().bitwise_or_(y); });
  r.raises("bitwise_xor_out_float", [&] {
    vs::Tensor o = vs::empty({0}, vs::kFloat32);
    vs::bitwise_xor_out(o, x, y);
  });
  r.raises("bitwise_and_int_bool_out", [&] {
    vs::Tensor o = vs::empty({0}, vs::kBool);
    vs::bitwise_and_out(o, i, j);
  });
  r.raises("bitwise_or_int_float_scalar_", [&] { i.clone().bitwise_or_(1.5); });
  r.raises("logical_and_broadcast_self_", [&] { (j > 0).logical_and_(i); });
}

VS_CASE("variants.addcmul_lerp") {
  vs::Tensor x = grid(vs::kFloat32), y = row(vs::kFloat32), z = unit(vs::kFloat32);
  r.tensor("addcmul", vs::addcmul(x, y, z));
  r.tensor("addcmul_value", vs::addcmul(x, y, z, -0.5));
  r.tensor("addcmul_int", vs::addcmul(ints(), irow(), ints(), 2));
  vs::Tensor o = vs::empty({0}, vs::kFloat32);
  r.tensor("addcmul_out", vs::addcmul_out(o, x, y, z, 2));
  vs::Tensor o64 = vs::empty({4, 6}, vs::kFloat64);
  r.tensor("addcmul_out_f64_inputs", vs::addcmul_out(o64, grid(vs::kFloat64), row(vs::kFloat64), unit(vs::kFloat64)));
  vs::Tensor b = base(vs::kFloat32), v = b.t();
  v.addcmul_(y, z, 3);
  r.tensor("addcmul_base", b);
  r.tensor("lerp_scalar", vs::lerp(x, z, 0.25));
  r.tensor("lerp_scalar_high", vs::lerp(x, y, 0.75));
  r.tensor("lerp_scalar_f64", vs::lerp(grid(vs::kFloat64), row(vs::kFloat64), -1.5));
  vs::Tensor lo = vs::empty({0}, vs::kFloat32);
  r.tensor("lerp_out", vs::lerp_out(lo, x, y, 0.3));
  vs::Tensor lb = base(vs::kFloat32), lv = lb.t();
  lv.lerp_(y, 0.6);
  r.tensor("lerp_base", lb);
  r.tensor("addcmul_int_float_value", vs::addcmul(ints(), irow(), ints(), 0.5));
  r.raises("addcmul_inplace_broadcast", [&] { row(vs::kFloat32).clone().addcmul_(x, z); });
  r.raises("lerp_int", [&] { vs::lerp(ints(), ints(), 0.5); });
  r.raises("lerp_dtype", [&] { vs::lerp(x, row(vs::kFloat64), 0.5); });
  r.raises("lerp_out_int", [&] {
    vs::Tensor o2 = vs::empty({0}, vs::kInt64);
    vs::lerp_out(o2, x, y, 0.5);
  });
}

VS_CASE("variants.reductions_out") {
  vs::Tensor x = grid(vs::kFloat32), i = ints();
  vs::Tensor o1 = vs::empty({0}, vs::kFloat32);
  r.tensor("amax_out", vs::amax_out(o1, x, {1}));
  vs::Tensor o2 = vs::empty({0}, vs::kInt64);
  r.tensor("amin_out_int_keepdim", vs::amin_out(o2, i, {0}, true));
  vs::Tensor o3 = vs::empty({0}, vs::kInt64);
  r.tensor("argmax_out", vs::argmax_out(o3, x, 1));
  vs::Tensor o4 = vs::empty({0}, vs::kInt64);
  r.tensor("argmin_out_keepdim", vs::argmin_out(o4, x, 0, true));
  vs::Tensor o4b = vs::empty({0}, vs::kInt64);
  r.tensor("argmax_out_flat", vs::argmax_out(o4b, x));
  vs::Tensor o5 = vs::empty({0}, vs::kFloat64);
  r.tensor("cumsum_out", vs::cumsum_out(o5, x, 1));
  vs::Tensor o6 = vs::empty({0}, vs::kInt64);
  r.tensor("cumsum_out_int", vs::cumsum_out(o6, i, 0));
  vs::Tensor o7 = vs::empty({0}, vs::kFloat32);
  r.tensor("cumprod_out", vs::cumprod_out(o7, x, 0));
  vs::Tensor o8 = vs::empty({0}, vs::kFloat32);
  r.tensor("logsumexp_out", vs::logsumexp_out(o8, x, {1}));
  vs::Tensor o9 = vs::empty({0}, vs::kFloat64);
  r.tensor("logsumexp_out_keepdim_f64", vs::logsumexp_out(o9, grid(vs::kFloat64) * 300, {0}, true));
  vs::Tensor o10 = vs::empty({0}, vs::kFloat32);
  r.tensor("mean_out", vs::mean_out(o10, x, {0}));
  vs::Tensor o11 = vs::empty({0}, vs::kFloat64);
  r.tensor("mean_out_dtype", vs::mean_out(o11, x, std::vector<int64_t>{0, 1}, true, vs::kFloat64));
  vs::Tensor o12 = vs::empty({0}, vs::kFloat32);
  r.tensor("prod_out", vs::prod_out(o12, x, 1));
  vs::Tensor o13 = vs::empty({0}, vs::kInt64);
  r.tensor("prod_out_int_keepdim", vs::prod_out(o13, i, 0, true));
  vs::Tensor o14 = vs::empty({0}, vs::kBool);
  r.tensor("all_out", vs::all_out(o14, x, {1}));
  vs::Tensor o15 = vs::empty({0}, vs::kBool);
  r.tensor("any_out_keepdim", vs::any_out(o15, i > 5, {0}, true));
  vs::Tensor o16 = vs::empty({0}, vs::kUInt8);
  r.tensor("all_out_uint8", vs::all_out(o16, i.to(vs::kUInt8), {0}));
  // max/min with dim into (values, indices) out=.
  vs::Tensor mv = vs::empty({0}, vs::kFloat32), mi = vs::empty({0}, vs::kInt64);
  vs::max_out(mv, mi, x, 1);
  r.tensor("max_dim_out_values", mv);
  r.tensor("max_dim_out_indices", mi);
  vs::Tensor nv = vs::empty({0}, vs::kInt64), ni = vs::empty({0}, vs::kInt64);
  vs::min_out(nv, ni, i, 0, true);
  r.tensor("min_dim_out_values", nv);
  r.tensor("min_dim_out_indices", ni);
  r.tensor("min", vs::min(x));
  r.tensor("min_int", vs::min(i));
  r.tensor("min_dim_values", std::get<0>(vs::min(x, 0)));
  r.tensor("min_dim_indices", std::get<1>(vs::min(x, 0)));
  r.tensor("min_dim_keepdim_indices", std::get<1>(x.min(1, true)));
  r.tensor("min_nan", vs::min(vs::tensor({1.0, 0.0 / 0.0, -3.0})));
  // norm(Scalar p) and norm(p, dim).
  r.tensor("norm", vs::norm(x));
  r.tensor("norm_p3", vs::norm(x, 3));
  r.tensor("norm_p1_method", x.norm(1));
  r.tensor("norm_inf", vs::norm(x, INFINITY));
  r.tensor("norm_dim", vs::norm(x, 2, {1}));
  r.tensor("norm_dim_keepdim", vs::norm(x, 1, {0}, true));
  r.tensor("norm_p0_dim", vs::norm(x, 0, {1}));
  // sort/topk into (values, indices) out=.
  vs::Tensor sv = vs::empty({0}, vs::kFloat32), si = vs::empty({0}, vs::kInt64);
  vs::sort_out(sv, si, x.contiguous(), 1, true);
  r.tensor("sort_out_values", sv);
  r.tensor("sort_out_indices", si);
  vs::Tensor sv2 = vs::empty({4, 6}, vs::kFloat32).t(), si2 = vs::empty({4, 6}, vs::kInt64).t();
  vs::sort_out(sv2, si2, x.t(), 0);
  r.tensor("sort_out_transposed_outs_values", sv2);
  r.tensor("sort_out_transposed_outs_indices", si2);
  vs::Tensor tv = vs::empty({0}, vs::kFloat32), ti = vs::empty({0}, vs::kInt64);
  vs::topk_out(tv, ti, x, 3, 1);
  r.tensor("topk_out_values", tv);
  r.tensor("topk_out_indices", ti);
  vs::Tensor tv2 = vs::empty({0}, vs::kInt64), ti2 = vs::empty({0}, vs::kInt64);
  vs::topk_out(tv2, ti2, i, 2, 0, false);
  r.tensor("topk_out_smallest_values", tv2);
  r.tensor("topk_out_smallest_indices", ti2);
  r.raises("argmax_out_float", [&] {
    vs::Tensor o = vs::empty({0}, vs::kFloat32);
    vs::argmax_out(o, x, 1);
  });
  r.raises("mean_out_int_input", [&] {
    vs::Tensor o = vs::empty({0}, vs::kInt64);
    vs::mean_out(o, i, {0});
  });
  r.raises("topk_out_k_too_big", [&] {
    vs::Tensor a = vs::empty({0}), b = vs::empty({0}, vs::kInt64);
    vs::topk_out(a, b, x, 9, 1);
  });
  r.raises("max_out_indices_dtype", [&] {
    vs::Tensor a = vs::empty({0}), b = vs::empty({0}, vs::kInt32);
    vs::max_out(a, b, x, 1);
  });
  r.raises("min_empty", [&] { vs::min(vs::empty({0})); });
  r.raises("amax_out_dtype", [&] {
    vs::Tensor o = vs::empty({0}, vs::kFloat64);
    vs::amax_out(o, x, {1});
  });
}

VS_CASE("variants.linear_index_out") {
  vs::Tensor a = (vs::arange(12, vs::kFloat32) * 0.5 - 2).reshape({4, 3}).t();  // [3, 4]
  vs::Tensor bm = (vs::arange(8, vs::kFloat32) - 3).reshape({4, 2});
  vs::Tensor vec = vs::tensor({1.0, -2.0, 0.5, 3.0}, vs::kFloat32);
  vs::Tensor o1 = vs::empty({0}, vs::kFloat32);
  r.tensor("mm_out", vs::mm_out(o1, a, bm));
  vs::Tensor o1t = vs::zeros({2, 3}, vs::kFloat32), o1v = o1t.t();
  vs::mm_out(o1v, a, bm);
  r.tensor("mm_out_transposed_base", o1t);
  vs::Tensor o2 = vs::empty({0}, vs::kFloat32);
  r.tensor("mv_out", vs::mv_out(o2, a, vec));
  vs::Tensor o3 = vs::empty({0}, vs::kFloat32);
  r.tensor("dot_out", vs::dot_out(o3, vec, vec.flip(0)));
  vs::Tensor o3i = vs::empty({0}, vs::kInt64);
  r.tensor("dot_out_int", vs::dot_out(o3i, irow(), irow()));
  vs::Tensor idx = vs::tensor({2, 0, 2}, vs::kInt64);
  vs::Tensor o4 = vs::empty({0}, vs::kFloat32);
  r.tensor("index_select_out", vs::index_select_out(o4, a, 1, idx));
  vs::Tensor o5 = vs::empty({0}, vs::kInt64);
  r.tensor("index_select_out_int", vs::index_select_out(o5, ints(), 0, idx));
  r.raises("mm_out_dtype", [&] {
    vs::Tensor o = vs::empty({0}, vs::kFloat64);
    vs::mm_out(o, a, bm);
  });
  r.raises("mv_out_shape", [&] {
    vs::Tensor o = vs::empty({0});
    vs::mv_out(o, a, vs::ones({3}));
  });
  r.raises("dot_out_shape", [&] {
    vs::Tensor o = vs::empty({0});
    vs::dot_out(o, vec, vs::ones({3}));
  });
  r.raises("index_select_out_oob", [&] {
    vs::Tensor o = vs::empty({0});
    vs::index_select_out(o, a, 1, vs::tensor({4}, vs::kInt64));
  });
}

VS_CASE("variants.scatter_index") {
  vs::Tensor self = vs::zeros({3, 5}, vs::kFloat32);
  vs::Tensor index = vs::tensor({0, 1, 2, 0, 4, 2}, vs::kInt64).reshape({2, 3});
  vs::Tensor src = (vs::arange(6, vs::kFloat32) + 1).reshape({2, 3});
  r.tensor("scatter_src_dim1", vs::scatter(self, 1, index, src));
  r.tensor("scatter_src_dim0", vs::scatter(self, 0, index.remainder(3), src));
  r.tensor("scatter_value", vs::scatter(self, 1, index, 7.5));
  r.tensor("scatter_method_f64", self.to(vs::kFloat64).scatter(1, index, src.to(vs::kFloat64)));
  vs::Tensor s1 = vs::ones({5, 3}), v1 = s1.t();
  v1.scatter_(1, index, src);
  r.tensor("scatter_src_base", s1);
  vs::Tensor s2 = vs::ones({3, 5}, vs::kInt64);
  r.tensor("scatter_value_int_", s2.scatter_(0, index.remainder(3), -4));
  r.tensor("scatter_add", vs::scatter_add(self, 1, vs::tensor({0, 0, 1, 4, 4, 4}, vs::kInt64).reshape({2, 3}), src));
  vs::Tensor s3 = vs::ones({5, 3}), v3 = s3.t();
  v3.scatter_add_(1, vs::tensor({3, 3, 3, 0, 1, 0}, vs::kInt64).reshape({2, 3}), src);
  r.tensor("scatter_add_base", s3);
  vs::Tensor s4 = vs::zeros({4}, vs::kInt64);
  r.tensor("scatter_add_int_",
           s4.scatter_add_(0, vs::tensor({1, 1, 3}, vs::kInt64), vs::tensor({5, 6, 7}, vs::kInt64)));
  // index_put (functional and in place, with accumulate), index_fill_, masked_fill_, masked_scatter_.
  vs::Tensor x = grid(vs::kFloat32);  // [4, 6], transposed
  vs::Tensor rows = vs::tensor({0, 2, 2}, vs::kInt64), cols = vs::tensor({1, 5, 5}, vs::kInt64);
  r.tensor("index_put", vs::index_put(x, vs::opt_tensors({rows, cols}), vs::tensor({10.0f, 20.0f, 30.0f})));
  r.tensor("index_put_accumulate",
           vs::index_put(x, vs::opt_tensors({rows, cols}), vs::tensor({10.0f, 20.0f, 30.0f}), true));
  r.tensor("index_put_row", vs::index_put(x, vs::opt_tensors({rows}), vs::tensor({-1.0f})));
  r.tensor("index_put_mask", vs::index_put(x, vs::opt_tensors({x > 1}), vs::tensor({0.0f})));
  r.tensor("index_put_none_first", vs::index_put(x, vs::opt_tensors({vs::none, cols}), vs::tensor({9.0f})));
  vs::Tensor b = base(vs::kFloat32), v = b.t();
  vs::index_put_(v, vs::opt_tensors({rows, cols}), vs::tensor({1.0f, 2.0f, 3.0f}), true);
  r.tensor("index_put_base", b);
  vs::Tensor ip = ints().clone();
  r.tensor("index_put_int_", vs::index_put_(ip, vs::opt_tensors({rows}), vs::tensor({7}, vs::kInt64)));
  vs::Tensor fb = base(vs::kFloat32), fv = fb.t();
  fv.index_fill_(1, vs::tensor({0, 3}, vs::kInt64), -8.5);
  r.tensor("index_fill_base", fb);
  r.tensor("index_fill_int_", ints().clone().index_fill_(0, vs::tensor({1}, vs::kInt64), 99));
  vs::Tensor mb = base(vs::kFloat32), mv = mb.t();
  mv.masked_fill_(mv < 0, 0.25);
  r.tensor("masked_fill_base", mb);
  r.tensor("masked_fill_broadcast_", grid(vs::kFloat64).clone().masked_fill_(row(vs::kFloat32) > 0, -1));
  vs::Tensor sb = base(vs::kFloat32);
  sb.masked_scatter_(sb > 0.5, vs::arange(24, vs::kFloat32) * 100);
  r.tensor("masked_scatter_", sb);
  r.tensor(
      "masked_scatter_broadcast_",
      base(vs::kFloat64).masked_scatter_(vs::tensor({true, false, true, true}), vs::arange(24, vs::kFloat64).neg()));
  r.raises("scatter_index_oob", [&] { vs::scatter(self, 1, vs::full({1, 1}, 5, vs::kInt64), src); });
  r.raises("scatter_index_dtype", [&] { vs::scatter(self, 1, index.to(vs::kInt32), src); });
  r.raises("scatter_src_dtype", [&] { vs::scatter(self, 1, index, src.to(vs::kFloat64)); });
  r.raises("scatter_add_inplace_dtype", [&] { vs::ones({3, 5}).scatter_add_(1, index, src.to(vs::kInt64)); });
  r.raises("index_put_shape", [&] { vs::index_put(x, vs::opt_tensors({rows, cols}), vs::tensor({1.0f, 2.0f})); });
  r.raises("index_put_oob",
           [&] { vs::index_put(x, vs::opt_tensors({vs::tensor({4}, vs::kInt64)}), vs::tensor({1.0f})); });
  r.raises("index_put_too_many", [&] { vs::index_put(x, vs::opt_tensors({rows, cols, rows}), vs::tensor({1.0f})); });
  r.raises("index_fill_oob", [&] { ints().clone().index_fill_(0, vs::tensor({6}, vs::kInt64), 1); });
  r.raises("masked_fill_mask_dtype", [&] { grid(vs::kFloat32).clone().masked_fill_(ints(), 1.0); });
  r.raises("masked_fill_broadcast_self", [&] { row(vs::kFloat32).clone().masked_fill_(grid(vs::kFloat32) > 0, 1.0); });
  r.raises("masked_scatter_source_small",
           [&] { grid(vs::kFloat32).clone().masked_scatter_(grid(vs::kFloat32) > -10, vs::zeros({3})); });
}

VS_CASE("variants.threshold_backward") {
  vs::Tensor g = grid(vs::kFloat32) + 3, x = grid(vs::kFloat32);
  r.tensor("threshold_backward", vs::threshold_backward(g, x, 0.5));
  r.tensor("threshold_backward_zero_f64", vs::threshold_backward(g.to(vs::kFloat64), x.to(vs::kFloat64), 0));
  r.tensor("threshold_backward_broadcast", vs::threshold_backward(g, row(vs::kFloat32), -1));
  vs::Tensor o = vs::empty({0}, vs::kFloat32);
  r.tensor("threshold_backward_out", vs::threshold_backward_out(o, g, x, -0.25));
  vs::Tensor o2 = vs::empty({0}, vs::kFloat64);
  r.tensor("threshold_backward_out_f64", vs::threshold_backward_out(o2, g, x, 1));
  r.raises("threshold_backward_shape", [&] { vs::threshold_backward(g, vs::zeros({5}), 0); });
}

// PyTorch 2.1 (pytorch/pytorch#100232) fixed masked_scatter_ on a non-contiguous self: LibTorch 1.13
// takes the source in self's memory order, Ember and PyTorch 2.x in row-major (logical) order.
VS_CASE("variants.masked_scatter_noncontiguous") {
  r.follows_pytorch2("masked_scatter_ on a non-contiguous self takes source elements in logical order");
  vs::Tensor sb = base(vs::kFloat32), sv = sb.t();
  sv.masked_scatter_(sv > 0.5, vs::arange(24, vs::kFloat32) * 100);
  r.tensor("masked_scatter_transposed_base", sb);
}

// sort lays a resized out= out like its input (strides [1, 4] for the transposed grid).
VS_CASE("variants.sort_out_resized_layout") {
  vs::Tensor x = grid(vs::kFloat32);
  vs::Tensor sv = vs::empty({0}, vs::kFloat32), si = vs::empty({0}, vs::kInt64);
  vs::sort_out(sv, si, x, 1, true);
  r.tensor("sort_out_values", sv);
  r.tensor("sort_out_indices", si);
}

// These compute in the input's dtype and refuse another out= dtype ("Found dtype Double but
// expected Float").
VS_CASE("variants.out_dtype_same_as_input") {
  vs::Tensor x = grid(vs::kFloat32);
#define VS_F64_OUT(op)                              \
  r.result(#op "_out_f64", [&] {                    \
    vs::Tensor o = vs::empty({4, 6}, vs::kFloat64); \
    return vs::op##_out(o, x);                      \
  })
  VS_F64_OUT(abs);
  VS_F64_OUT(ceil);
  VS_F64_OUT(floor);
  VS_F64_OUT(frac);
  VS_F64_OUT(neg);
  VS_F64_OUT(round);
  VS_F64_OUT(sign);
  VS_F64_OUT(trunc);
  VS_F64_OUT(conj_physical);
#undef VS_F64_OUT
  r.result("pow_out_tensor_scalar_f64", [&] {
    vs::Tensor o = vs::empty({0}, vs::kFloat64);
    return vs::pow_out(o, x, vs::Scalar(3));
  });
}

// div_out(Tensor, Scalar, mode) and pow_out(Scalar, Tensor): a size-0 out= is resized contiguous,
// not laid out like the (transposed) input.
VS_CASE("variants.scalar_overload_out_layout") {
  vs::Tensor x = grid(vs::kFloat32);
  vs::Tensor d = vs::empty({0}, vs::kFloat32);
  r.tensor("div_scalar_mode_out", vs::div_out(d, x, vs::Scalar(0.75), "floor"));
  vs::Tensor p = vs::empty({0}, vs::kFloat32);
  r.tensor("pow_out_scalar_tensor", vs::pow_out(p, vs::Scalar(2.5), x));
}

// out= tensors of the wrong non-empty size or shape (resized, as LibTorch), out= aliasing an input
// exactly (allowed) or partly (refused), and an out= that is an expanded view (refused).
VS_CASE("variants.out_resize_alias") {
  vs::Tensor x = grid(vs::kFloat32), y = row(vs::kFloat32);
  vs::Tensor o1 = vs::zeros({6, 4});  // same numel, other shape
  r.tensor("sin_out_other_shape", vs::sin_out(o1, x));
  vs::Tensor o2 = vs::zeros({30});  // more elements
  r.tensor("exp_out_bigger", vs::exp_out(o2, x));
  vs::Tensor o3 = vs::zeros({4, 6}).t().contiguous().t();  // right shape, transposed: kept
  r.tensor("mul_out_transposed_kept", vs::mul_out(o3, x, y));
  vs::Tensor o4 = vs::zeros({3}, vs::kInt64);
  r.tensor("eq_out_int_resized", vs::eq_out(o4, x, y));
  vs::Tensor o5 = vs::zeros({2, 2});
  r.tensor("amax_out_resized", vs::amax_out(o5, x, {0}));
  vs::Tensor o6 = vs::zeros({7});
  r.tensor("mm_out_resized", vs::mm_out(o6, x, x.t()));
  vs::Tensor a = base(vs::kFloat32).clone(), av = a.t();
  vs::sin_out(av, av);
  r.tensor("sin_out_self_alias_base", a);
  vs::Tensor b = base(vs::kFloat32).clone();
  vs::add_out(b, b, b, 2);
  r.tensor("add_out_self_alias", b);
  vs::Tensor c = base(vs::kFloat32).t().clone();
  vs::sub_out(c, c, y);
  r.tensor("sub_out_self_alias", c);
  r.raises("sin_out_partial_overlap", [&] {
    vs::Tensor s = vs::arange(10, vs::kFloat32);
    vs::Tensor o = s.narrow(0, 1, 9);
    vs::sin_out(o, s.narrow(0, 0, 9));
  });
  r.raises("add_out_partial_overlap", [&] {
    vs::Tensor s = vs::arange(10, vs::kFloat32);
    vs::Tensor o = s.narrow(0, 0, 8);
    vs::add_out(o, s.narrow(0, 2, 8), vs::ones({8}));
  });
  r.raises("abs_out_expanded", [&] {
    vs::Tensor o = vs::zeros({6}).expand({4, 6});
    vs::abs_out(o, x);
  });
  r.raises("mul_inplace_expanded_self", [&] { vs::zeros({6}).expand({4, 6}).mul_(x); });
  r.raises("clamp_min_out_overlap_other", [&] {
    vs::Tensor s = vs::arange(12, vs::kFloat32);
    vs::Tensor o = s.narrow(0, 0, 6);
    vs::clamp_min_out(o, s.narrow(0, 6, 6), s.narrow(0, 3, 6));
  });
}

// Type promotion and edge values through the in-place and out= forms: the self dtype kept in
// place, narrow integer wrap-around, Scalar values outside the self dtype's range, NaN and inf
// through the reductions' out=, negative indices and bool masks in index_put_.
VS_CASE("variants.promotion_edges") {
  vs::Tensor i = ints(), j = irow();
  r.result("int_eq_float_scalar_", [&] { return i.clone().eq_(2.5); });
  r.result("int_lt_float_tensor_", [&] { return i.clone().lt_(row(vs::kFloat32)); });
  r.result("uint8_sub_wraps_", [&] { return i.abs().to(vs::kUInt8).sub_(12); });
  r.result("int8_mul_wraps_", [&] { return (i * 9).to(vs::kInt8).mul_(7); });
  r.result("int32_mul_int64_", [&] { return i.to(vs::kInt32).mul_(j); });
  r.result("f32_add_f64_zero_dim_",
           [&] { return grid(vs::kFloat32).clone().add_(vs::scalar_tensor(1e-9, vs::kFloat64)); });
  r.result("bool_logical_and_float_", [&] { return (i > 0).logical_and_(row(vs::kFloat32)); });
  r.result("int8_bitwise_and_big_scalar_", [&] { return i.to(vs::kInt8).bitwise_and_(300); });
  r.result("uint8_bitwise_or_negative_scalar_", [&] { return i.abs().to(vs::kUInt8).bitwise_or_(-1); });
  r.result("bool_bitwise_xor_int_", [&] { return (i > 0).bitwise_xor_(j); });
  r.result("int_floor_divide_float_scalar_", [&] { return i.clone().floor_divide_(2.5); });
  r.result("float_floor_divide_neg_zero", [&] {
    vs::Tensor o = vs::empty({0});
    return vs::floor_divide_out(o, vs::tensor({-0.0f, 0.0f, -1.0f, 1.0f}), vs::tensor({3.0f, -3.0f, 1e30f, -1e30f}));
  });
  r.result("int_pow_zero_", [&] {
    return vs::tensor({0, 2, -3, 0}, vs::kInt64).pow_(vs::tensor({0, 0, 0, 3}, vs::kInt64));
  });
  r.result("float_remainder_neg_", [&] { return grid(vs::kFloat64).clone().remainder_(-0.75); });
  r.result("clamp_min_nan_scalar_", [&] { return grid(vs::kFloat32).clone().clamp_min_(0.0 / 0.0); });
  r.result("clamp_max_nan_input_", [&] { return vs::tensor({0.0f / 0.0f, 1.0f, -1.0f}).clamp_max_(0.5); });
  r.result("cumsum_out_int32_to_int64", [&] {
    vs::Tensor o = vs::empty({0}, vs::kInt64);
    return vs::cumsum_out(o, i.to(vs::kInt32), 1);
  });
  r.result("cumsum_out_int32_to_int32", [&] {
    vs::Tensor o = vs::empty({0}, vs::kInt32);
    return vs::cumsum_out(o, i.to(vs::kInt32), 1);
  });
  r.result("cumprod_out_bool", [&] {
    vs::Tensor o = vs::empty({0}, vs::kInt64);
    return vs::cumprod_out(o, i > -3, 0);
  });
  r.result("prod_out_int32_default", [&] {
    vs::Tensor o = vs::empty({0}, vs::kInt64);
    return vs::prod_out(o, i.to(vs::kInt32), 0);
  });
  r.result("mean_out_int_dtype", [&] {
    vs::Tensor o = vs::empty({0}, vs::kFloat64);
    return vs::mean_out(o, i, {1}, false, vs::kFloat64);
  });
  r.result("logsumexp_out_infs", [&] {
    vs::Tensor o = vs::empty({0});
    return vs::logsumexp_out(
        o, vs::tensor({-1.0f / 0.0f, -1.0f / 0.0f, 1.0f / 0.0f, 1.0f, 0.0f / 0.0f, 2.0f}).reshape({3, 2}), {1});
  });
  r.result("logsumexp_out_int", [&] {
    vs::Tensor o = vs::empty({0});
    return vs::logsumexp_out(o, i, {0});
  });
  r.result("amax_out_nan", [&] {
    vs::Tensor o = vs::empty({0});
    return vs::amax_out(o, vs::tensor({1.0f, 0.0f / 0.0f, 3.0f, 2.0f}).reshape({2, 2}), {1});
  });
  r.result("argmin_out_nan", [&] {
    vs::Tensor o = vs::empty({0}, vs::kInt64);
    return vs::argmin_out(o, vs::tensor({1.0f, 0.0f / 0.0f, 3.0f, -2.0f}), 0);
  });
  r.result("min_dim_nan_indices", [&] {
    return std::get<1>(vs::min(vs::tensor({1.0f, 0.0f / 0.0f, -3.0f, 0.0f / 0.0f}), 0));
  });
  r.result("min_bool", [&] { return vs::min(i > 0); });
  r.result("norm_int", [&] { return vs::norm(i); });
  r.result("norm_out_dtype_keepdim", [&] {
    return vs::norm(grid(vs::kFloat64), 2.5, std::vector<int64_t>{0, 1}, true);
  });
  r.result("index_put_negative_index_", [&] {
    vs::Tensor t = grid(vs::kFloat32).clone();
    return vs::index_put_(t, vs::opt_tensors({vs::tensor({-1, -4}, vs::kInt64)}), vs::tensor({5.0f}), true);
  });
  r.result("index_put_bool_mask_accumulate_", [&] {
    vs::Tensor t = vs::zeros({4});
    return vs::index_put_(t, vs::opt_tensors({vs::tensor({true, false, true, true})}), vs::tensor({1.0f, 2.0f, 3.0f}),
                          true);
  });
  r.result("index_put_int_values_into_float", [&] {
    return vs::index_put(grid(vs::kFloat32), vs::opt_tensors({vs::tensor({1}, vs::kInt64)}),
                         vs::tensor({3}, vs::kInt64));
  });
  r.result("index_fill_negative_dim_",
           [&] { return grid(vs::kFloat64).clone().index_fill_(-1, vs::tensor({-1}, vs::kInt64), 2); });
  r.result("masked_fill_int_with_float_", [&] { return i.clone().masked_fill_(i > 0, 2.5); });
  r.result("masked_fill_bool_", [&] { return (i > 0).masked_fill_(i < 3, true); });
  // A 0-dim tensor value: its dtype converts to self's; the functional form broadcasts self; the
  // value's gradient is the sum of the masked gradient.
  r.result("masked_fill_tensor_value",
           [&] { return vs::masked_fill(row(vs::kFloat32), grid(vs::kFloat32) > 0, vs::tensor(2.5, vs::kFloat64)); });
  r.result("masked_fill_int_with_tensor_", [&] { return i.clone().masked_fill_(i > 0, vs::tensor(-3.75)); });
  // LibTorch's other overloads that are other operators: narrow(Tensor start), split(int[]), the
  // binary max/min, the functional and Tensor-valued index_fill.
  r.result("narrow_tensor_start", [&] { return grid(vs::kFloat32).narrow(1, vs::scalar_tensor(2, vs::kInt64), 3); });
  r.result("narrow_tensor_negative_start",
           [&] { return vs::narrow(grid(vs::kFloat32), 0, vs::scalar_tensor(-2, vs::kInt64), 2); });
  r.result("split_sizes", [&] {
    return grid(vs::kFloat32).split(std::vector<int64_t>{1, 3}, 0)[1].split(std::vector<int64_t>{4, 2}, 1)[1];
  });
  r.result("max_other", [&] { return vs::max(grid(vs::kFloat32), row(vs::kFloat64)); });
  r.result("min_other_method", [&] { return grid(vs::kFloat64).min(row(vs::kFloat32)); });
  r.result("index_fill_functional", [&] {
    return grid(vs::kFloat32).index_fill(1, vs::tensor({0, 4}, vs::kInt64), -1.5);
  });
  r.result("index_fill_tensor_value_", [&] {
    return grid(vs::kFloat64).clone().index_fill_(0, vs::tensor({1}, vs::kInt64), vs::scalar_tensor(7, vs::kInt64));
  });
  {
    vs::Tensor v = vs::tensor(0.5, vs::kFloat64).requires_grad_(true);
    (vs::index_fill(grid(vs::kFloat64), 1, vs::tensor({0, 2, 2}, vs::kInt64), v) * grid(vs::kFloat64)).sum().backward();
    r.tensor("index_fill_tensor_value_grad", v.grad());
  }
  r.raises("masked_fill_1d_value",
           [&] { grid(vs::kFloat32).clone().masked_fill_(grid(vs::kFloat32) > 0, vs::ones({1})); });
  {
    vs::Tensor v = vs::tensor(0.5, vs::kFloat64).requires_grad_(true);
    vs::Tensor s = grid(vs::kFloat64).requires_grad_(true);
    (vs::masked_fill(s, grid(vs::kFloat64) > 0, v) * grid(vs::kFloat64)).sum().backward();
    r.tensor("masked_fill_tensor_value_grad", v.grad());
    r.tensor("masked_fill_tensor_self_grad", s.grad());
  }
  r.result("scatter_add_broadcast_index_", [&] {
    return vs::zeros({2, 3}).scatter_add_(1, vs::tensor({0, 0, 2, 1, 1, 1}, vs::kInt64).reshape({2, 3}),
                                          vs::ones({2, 4}));
  });
  r.result("scatter_negative_dim", [&] {
    return vs::scatter(vs::zeros({2, 3}), -1, vs::tensor({2, 0}, vs::kInt64).reshape({2, 1}), 9.0);
  });
  r.result("threshold_backward_int", [&] { return vs::threshold_backward(i, j, 0); });
  r.result("addcmul_out_int_value", [&] {
    vs::Tensor o = vs::empty({0}, vs::kInt64);
    return vs::addcmul_out(o, i, j, i, 3);
  });
  r.result("lerp_f64_tensor_scalar_weight_", [&] { return grid(vs::kFloat64).clone().lerp_(row(vs::kFloat64), 2.0); });
}

// Index and comparison corners: value dtypes index_put_ refuses, non-contiguous and 0-dim indices,
// negative out-of-range indices, comparisons across integer/float operands into out= of odd dtypes.
VS_CASE("variants.index_compare_corners") {
  vs::Tensor x = grid(vs::kFloat32), i = ints();
  r.result("index_put_f64_values_into_f32_", [&] {
    vs::Tensor t = x.clone();
    return vs::index_put_(t, vs::opt_tensors({vs::tensor({0, 1}, vs::kInt64)}),
                          vs::tensor({1.0, 2.0}, vs::kFloat64).unsqueeze(1));
  });
  r.result("index_put_0dim_index", [&] {
    return vs::index_put(x, vs::opt_tensors({vs::scalar_tensor(2, vs::kInt64)}), vs::scalar_tensor(-1.0f));
  });
  r.result("index_put_int32_index", [&] {
    return vs::index_put(x, vs::opt_tensors({vs::tensor({1, 3}, vs::kInt32)}), vs::tensor({7.0f}));
  });
  r.result("index_put_uint8_mask", [&] {
    return vs::index_put(x, vs::opt_tensors({vs::tensor({1, 0, 0, 1}, vs::kUInt8)}), vs::tensor({7.0f}));
  });
  r.result("index_put_negative_oob",
           [&] { return vs::index_put(x, vs::opt_tensors({vs::tensor({-5}, vs::kInt64)}), vs::tensor({7.0f})); });
  r.result("index_select_out_noncontig_index", [&] {
    vs::Tensor o = vs::empty({0});
    return vs::index_select_out(o, x, 1, vs::tensor({5, 0, 3, 1}, vs::kInt64).reshape({2, 2}).t().reshape({4}));
  });
  r.result("index_select_out_0dim_index", [&] {
    vs::Tensor o = vs::empty({0});
    return vs::index_select_out(o, x, 0, vs::scalar_tensor(3, vs::kInt64));
  });
  r.result("index_select_out_negative", [&] {
    vs::Tensor o = vs::empty({0});
    return vs::index_select_out(o, x, 0, vs::tensor({-1}, vs::kInt64));
  });
  r.result("scatter_negative_index", [&] {
    return vs::scatter(vs::zeros({2, 3}), 1, vs::tensor({-1, 0}, vs::kInt64).reshape({2, 1}), 1.0);
  });
  r.result("scatter_value_int_self_float_value", [&] {
    return vs::scatter(vs::zeros({2, 3}, vs::kInt64), 1, vs::tensor({2, 0}, vs::kInt64).reshape({2, 1}), 2.7);
  });
  r.result("index_fill_float_value_into_int_",
           [&] { return i.clone().index_fill_(1, vs::tensor({0}, vs::kInt64), 3.9); });
  r.result("index_fill_0dim_self_",
           [&] { return vs::scalar_tensor(1.0).index_fill_(0, vs::tensor({0}, vs::kInt64), 5); });
  r.result("eq_out_int_float_scalar_into_uint8", [&] {
    vs::Tensor o = vs::empty({0}, vs::kUInt8);
    return vs::eq_out(o, i, 2.0);
  });
  r.result("lt_out_int_tensor_float_tensor_into_f64", [&] {
    vs::Tensor o = vs::empty({0}, vs::kFloat64);
    return vs::lt_out(o, i, row(vs::kFloat32) * 2);
  });
  r.result("ge_bool_int_scalar", [&] { return vs::ge(i > 0, 1); });
  r.result("ne_uint8_negative_scalar", [&] { return vs::ne(i.abs().to(vs::kUInt8), -1); });
  r.result("gt_int64_large_float_scalar", [&] {
    return vs::gt(vs::tensor({static_cast<int64_t>(9007199254740993LL)}, vs::kInt64), 9007199254740992.0);
  });
  r.result("le_out_broadcast_scalar_tensor", [&] {
    vs::Tensor o = vs::empty({0}, vs::kBool);
    return vs::le_out(o, vs::scalar_tensor(0.5), x);
  });
  r.result("logical_and_out_uint8", [&] {
    vs::Tensor o = vs::empty({0}, vs::kUInt8);
    return vs::logical_and_out(o, i, x);
  });
}
