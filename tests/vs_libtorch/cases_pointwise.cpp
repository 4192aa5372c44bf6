// Pointwise operators: broadcasting, type promotion, rounding modes, where.
#include <string>

#include "vs_record.h"

namespace {
vs::Tensor f32(int64_t n) { return vs::arange(n, vs::kFloat32); }
}  // namespace

VS_CASE("pointwise.add_broadcast") {
  vs::Tensor a = f32(6).reshape({2, 3});
  vs::Tensor b = f32(3).reshape({1, 3}) * 10;
  r.tensor("a+b", a + b);
  r.tensor("add_alpha", vs::add(a, f32(2).reshape({2, 1}), 2.5));
  r.tensor("col+row", f32(3).reshape({3, 1}) + f32(4));
}

VS_CASE("pointwise.add_promotion") {
  vs::Tensor i = vs::arange(6, vs::kInt64).reshape({2, 3});
  vs::Tensor i32 = vs::arange(3, vs::kInt32);
  vs::Tensor f = f32(3);
  vs::Tensor d = vs::arange(3, vs::kFloat64);
  vs::Tensor bl = vs::arange(3, vs::kInt64) > 0;
  r.tensor("int64+float32", i + f);
  r.tensor("int32+int64", i32 + i);
  r.tensor("float32+float64", f + d);
  r.tensor("bool+bool", bl + bl);
  r.tensor("bool+int32", bl + i32);
  r.tensor("int64+2.5", i + 2.5);
  r.tensor("int32+int64_scalar", i32 + 7);
  r.tensor("float32+float64_0dim", f + vs::arange(1, vs::kFloat64).reshape({}));
  r.tensor("int32+float64_0dim", i32 + (vs::arange(1, vs::kFloat64).reshape({}) + 0.5));
}

VS_CASE("pointwise.mul") {
  vs::Tensor a = f32(6).reshape({2, 3}) - 2;
  r.tensor("mul", a * a);
  r.tensor("mul_scalar", a * 0.5);
  r.tensor("int_mul_float", vs::arange(4, vs::kInt32) * 1.5);
  r.tensor("bool_mul", (a > 0) * (a < 3));
}

VS_CASE("pointwise.div") {
  vs::Tensor a = f32(6).reshape({2, 3}) - 3;
  vs::Tensor b = vs::arange(1, 4, vs::kFloat32) * 2 - 3;
  r.tensor("div", a / b);
  r.tensor("div_by_zero", a / (b * 0));
  r.tensor("int_div", vs::arange(6, vs::kInt64) / 4);
  r.tensor("int_div_int", vs::arange(-3, 3, vs::kInt64) / vs::arange(1, 7, vs::kInt64));
}

VS_CASE("pointwise.div_rounding_mode") {
  VS_EMBER_MISSING("div.Tensor_mode (rounding_mode)");
#ifdef VS_LIBTORCH
  vs::Tensor a = vs::arange(-7, 8, 3, vs::kFloat32);
  vs::Tensor b = vs::full({5}, 2.0, vs::kFloat32);
  r.tensor("floor", vs::div(a, b, "floor"));
  r.tensor("trunc", vs::div(a, b, "trunc"));
  r.tensor("int_floor", vs::div(a.to(vs::kInt64), b.to(vs::kInt64), "floor"));
#endif
}

VS_CASE("pointwise.floor") {
  VS_EMBER_MISSING("floor");
#ifdef VS_LIBTORCH
  r.tensor("floor", vs::floor(vs::arange(-6, 6, vs::kFloat32) / 4));
#endif
}

VS_CASE("pointwise.remainder") {
  VS_EMBER_MISSING("remainder");
#ifdef VS_LIBTORCH
  r.tensor("remainder", vs::arange(-7, 8, vs::kFloat32).remainder(3));
  r.tensor("int_remainder", vs::arange(-7, 8, vs::kInt64).remainder(-3));
#endif
}

VS_CASE("pointwise.where") {
  vs::Tensor x = f32(6).reshape({2, 3}) - 2;
  r.tensor("where", vs::where(x > 0, x, x * -1));
  r.tensor("where_broadcast", vs::where(x > 0, f32(3), vs::arange(2, vs::kFloat32).reshape({2, 1})));
  r.tensor("where_promote", vs::where(x > 0, vs::arange(6, vs::kInt64).reshape({2, 3}), x));
}

VS_CASE("pointwise.noncontiguous") {
  vs::Tensor a = f32(12).reshape({3, 4}).t();
  vs::Tensor b = f32(12).reshape({4, 3}).narrow(1, 0, 3);
  r.tensor("t+contig", a + b);
  r.tensor("t*t", a * a);
  r.tensor("sliced_div", f32(24).reshape({4, 6}).narrow(1, 1, 3) / (a + 1));
  r.tensor("permuted", f32(24).reshape({2, 3, 4}).permute({2, 0, 1}) * 2);
}

VS_CASE("pointwise.dtypes") {
  for (vs::ScalarType t : {vs::kFloat64, vs::kInt32, vs::kInt16, vs::kInt8, vs::kUInt8, vs::kFloat16, vs::kBFloat16}) {
    std::string n = vs_test::vs_dtype_name(t);
    vs::Tensor a = vs::arange(12, t).reshape({3, 4});
    vs::Tensor b = vs::arange(4, t) + 1;
    r.tensor(n + ".add", a + b);
    r.tensor(n + ".mul", a * b);
    r.tensor(n + ".div", a / b);
    r.tensor(n + ".add_t", a.t() + vs::arange(3, t));
    r.tensor(n + ".where", vs::where(a > 5, a, b));
  }
}

VS_CASE("pointwise.inplace") {
  vs::Tensor a = vs::arange(12, vs::kFloat32).reshape({3, 4});
  vs::Tensor v = a.t();
  v.add_(vs::arange(3, vs::kFloat32), 2);
  r.tensor("add_on_t", a);
  a.narrow(1, 1, 2).mul_(vs::arange(2, vs::kFloat32) - 1);
  r.tensor("mul_on_narrow", a);
  vs::Tensor i = vs::arange(6, vs::kInt64);
  i.add_(3);
  r.tensor("int_add_scalar", i);
  i.mul_(vs::arange(6, vs::kInt32));
  r.tensor("int64_mul_int32", i);
}

VS_CASE("pointwise.promotion_edges") {
  vs::Tensor u8 = vs::arange(250, 256, vs::kInt32).to(vs::kUInt8);
  vs::Tensor i8 = vs::arange(-3, 3, vs::kInt8);
  r.tensor("uint8+int8", u8 + i8);
  r.tensor("uint8_wrap", u8 + u8);
  r.tensor("uint8*int_scalar", u8 * 2);
  r.tensor("uint8-int8_0dim", u8 - vs::arange(1, vs::kInt8).reshape({}));
  r.tensor("float16+float32_0dim", vs::arange(4, vs::kFloat16) + vs::arange(1, vs::kFloat32).reshape({}).add(0.1));
  r.tensor("bfloat16+float16", vs::arange(4, vs::kBFloat16) + vs::arange(4, vs::kFloat16));
  r.tensor("bool+float_scalar", (vs::arange(4, vs::kInt64) > 1) + 0.5);
  r.tensor("bool*bool", (vs::arange(4, vs::kInt64) > 1) * (vs::arange(4, vs::kInt64) < 3));
  r.tensor("int_div_int_scalar", vs::arange(-4, 4, vs::kInt32) / 3);
}

VS_CASE("pointwise.output_layout") {
  vs::Tensor a = vs::arange(12, vs::kFloat32).reshape({3, 4});
  r.tensor("t+t", a.t() + a.t());
  r.tensor("t+contig", a.t() + a.t().contiguous());
  r.tensor("contig+t", a.t().contiguous() + a.t());
  r.tensor("permuted3d", vs::arange(24, vs::kFloat32).reshape({2, 3, 4}).permute({1, 2, 0}).exp());
  r.tensor("expanded", vs::arange(3, vs::kFloat32).reshape({3, 1}).expand({3, 4}) * 2);
  r.tensor("where_t", vs::where(a.t() > 4, a.t(), vs::arange(3, vs::kFloat32)));
}
