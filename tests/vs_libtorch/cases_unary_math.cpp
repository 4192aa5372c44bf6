// The pointwise-unary family against LibTorch 1.13: every op over float32/float64/int64/bool
// inputs (where LibTorch accepts them), contiguous and non-contiguous, values outside the domains,
// in-place and out=, and the inputs that raise.
#include <cmath>
#include <limits>
#include <string>

#include "vs_record.h"

namespace {
const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

// [-2.75, 3) in 24 steps of 0.25, as a transposed [4, 6] view (non-contiguous), in dtype dt.
vs::Tensor grid(vs::ScalarType dt) {
  return (vs::arange(24, vs::kFloat64) * 0.25 - 2.75).reshape({6, 4}).t().to(dt);
}
vs::Tensor ints() { return vs::arange(-4, 8, vs::kInt64).reshape({3, 4}).t(); }
vs::Tensor bools() { return vs::arange(-2, 4, vs::kInt64) > 0; }
vs::Tensor specials(vs::ScalarType dt) {
  return vs::tensor({kNan, kInf, -kInf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 1e30}, vs::kFloat64).to(dt);
}
}  // namespace

#define VS_UNARY_ALL(label, a)                \
  r.tensor(label "acos", (a).acos());         \
  r.tensor(label "acosh", (a).acosh());       \
  r.tensor(label "asin", (a).asin());         \
  r.tensor(label "asinh", (a).asinh());       \
  r.tensor(label "atan", (a).atan());         \
  r.tensor(label "atanh", (a).atanh());       \
  r.tensor(label "tan", (a).tan());           \
  r.tensor(label "sinh", (a).sinh());         \
  r.tensor(label "cosh", (a).cosh());         \
  r.tensor(label "expm1", (a).expm1());       \
  r.tensor(label "log2", (a).log2());         \
  r.tensor(label "log10", (a).log10());       \
  r.tensor(label "reciprocal", (a).reciprocal()); \
  r.tensor(label "erfinv", (a).erfinv());     \
  r.tensor(label "lgamma", (a).lgamma());     \
  r.tensor(label "digamma", (a).digamma());   \
  r.tensor(label "isnan", (a).isnan());       \
  r.tensor(label "isinf", (a).isinf());       \
  r.tensor(label "isfinite", (a).isfinite())

VS_CASE("unary_math.float32") {
  VS_UNARY_ALL("", grid(vs::kFloat32));
  vs::Tensor a = grid(vs::kFloat32);
  r.tensor("ceil", a.ceil());
  r.tensor("floor", a.floor());
  r.tensor("trunc", a.trunc());
  r.tensor("round", a.round());
  r.tensor("frac", a.frac());
  r.tensor("round_1", a.round(1));
  r.tensor("round_m1", (a * 37).round(-1));
  r.tensor("nan_to_num", a.log().nan_to_num());
}

VS_CASE("unary_math.float64") {
  VS_UNARY_ALL("", grid(vs::kFloat64));
  vs::Tensor a = grid(vs::kFloat64);
  r.tensor("ceil", a.ceil());
  r.tensor("floor", a.floor());
  r.tensor("trunc", a.trunc());
  r.tensor("round", a.round());
  r.tensor("frac", a.frac());
  r.tensor("round_2", (a / 3).round(2));
  r.tensor("round_m2", (a * 1234.5).round(-2));
}

VS_CASE("unary_math.specials") {
  for (auto dt : {vs::kFloat32, vs::kFloat64}) {
    const std::string p = dt == vs::kFloat32 ? "f32_" : "f64_";
    vs::Tensor s = specials(dt);
    r.tensor(p + "acos", s.acos());
    r.tensor(p + "acosh", s.acosh());
    r.tensor(p + "atanh", s.atanh());
    r.tensor(p + "tan", s.tan());
    r.tensor(p + "expm1", s.expm1());
    r.tensor(p + "log2", s.log2());
    r.tensor(p + "reciprocal", s.reciprocal());
    r.tensor(p + "erfinv", s.erfinv());
    r.tensor(p + "lgamma", s.lgamma());
    r.tensor(p + "digamma", s.digamma());
    r.tensor(p + "ceil", s.ceil());
    r.tensor(p + "round", s.round());
    r.tensor(p + "frac", s.frac());
    r.tensor(p + "isnan", s.isnan());
    r.tensor(p + "isinf", s.isinf());
    r.tensor(p + "isfinite", s.isfinite());
    r.tensor(p + "nan_to_num", s.nan_to_num());
    r.tensor(p + "nan_to_num_values", s.nan_to_num(1.5, 100.0, -100.0));
  }
  r.tensor("bf16_nan_to_num", specials(vs::kBFloat16).nan_to_num());
  r.tensor("f16_nan_to_num", specials(vs::kFloat16).nan_to_num());
  r.tensor("f16_nan_to_num_big", specials(vs::kFloat16).nan_to_num(1e10, 1e10, -1e10));
}

VS_CASE("unary_math.integers") {
  VS_UNARY_ALL("int_", ints());
  VS_UNARY_ALL("bool_", bools());
  vs::Tensor i = ints();
  r.tensor("int_ceil", i.ceil());
  r.tensor("int_floor", i.floor());
  r.tensor("int_trunc", i.trunc());
  r.tensor("int_round", i.round());
  r.tensor("int_bitwise_not", i.bitwise_not());
  r.tensor("int32_bitwise_not", i.to(vs::kInt32).bitwise_not());
  r.tensor("uint8_bitwise_not", i.abs().to(vs::kUInt8).bitwise_not());
  r.tensor("bool_bitwise_not", bools().bitwise_not());
  r.tensor("int_nan_to_num", i.nan_to_num());
  r.tensor("bool_nan_to_num", bools().nan_to_num());
}

VS_CASE("unary_math.inplace_out") {
  vs::Tensor a = grid(vs::kFloat32);
  vs::Tensor b = a.clone();
  r.tensor("acos_", b.acos_());
  vs::Tensor c = a.clone();
  r.tensor("floor_", c.floor_());
  vs::Tensor d = a.clone();
  r.tensor("round_2_", d.round_(2));
  vs::Tensor e = a.log();
  r.tensor("nan_to_num_", e.nan_to_num_(0.5));
  vs::Tensor o = vs::empty({0}, vs::kFloat64);
  r.tensor("asinh_out_f64", vs::asinh_out(o, a));
  vs::Tensor ol = vs::empty({0}, vs::kInt64);
  r.tensor("isnan_out_int64", vs::isnan_out(ol, a.log()));
  vs::Tensor of = vs::empty({0}, vs::kFloat32);
  r.tensor("acos_out_of_int", vs::acos_out(of, ints()));
  vs::Tensor i = ints();
  r.tensor("floor_int_", i.floor_());
}

VS_CASE("unary_math.errors") {
  vs::Tensor f = grid(vs::kFloat32);
  vs::Tensor i = ints();
  r.raises("acos_int_inplace", [&] { i.clone().acos_(); });
  r.raises("reciprocal_int_inplace", [&] { i.clone().reciprocal_(); });
  r.raises("frac_int", [&] { i.frac(); });
  r.raises("frac_bool", [&] { bools().frac(); });
  r.raises("round_decimals_int", [&] { i.round(1); });
  r.raises("floor_bool", [&] { bools().floor(); });
  r.raises("bitwise_not_float", [&] { f.bitwise_not(); });
  r.raises("acos_out_int", [&] {
    vs::Tensor o = vs::empty({0}, vs::kInt64);
    vs::acos_out(o, f);
  });
  r.raises("nan_to_num_out_dtype", [&] {
    vs::Tensor o = vs::empty({0}, vs::kFloat64);
    vs::nan_to_num_out(o, f);
  });
}
