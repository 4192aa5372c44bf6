// Unary math and activations, including values outside the domain (NaN) and non-contiguous input.
#include <string>

#include "vs_record.h"

namespace {
// [-2, 2) in 16 steps, viewed transposed (non-contiguous).
vs::Tensor x() { return (vs::arange(16, vs::kFloat32) * 0.25 - 2).reshape({4, 4}).t(); }
}  // namespace

VS_CASE("unary.math") {
  vs::Tensor a = x();
  r.tensor("neg", a.neg());
  r.tensor("abs", a.abs());
  r.tensor("sign", a.sign());
  r.tensor("exp", a.exp());
  r.tensor("log", a.log());
  r.tensor("log1p", a.log1p());
  r.tensor("sqrt", a.sqrt());
  r.tensor("rsqrt", a.rsqrt());
  r.tensor("sin", a.sin());
  r.tensor("cos", a.cos());
  r.tensor("tanh", a.tanh());
  r.tensor("sigmoid", a.sigmoid());
  r.tensor("erf", a.erf());
}

VS_CASE("unary.activations") {
  vs::Tensor a = x();
  r.tensor("relu", a.relu());
  r.tensor("gelu", vs::gelu(a));
  r.tensor("silu", vs::silu(a));
  r.tensor("leaky_relu", vs::leaky_relu(a, 0.1));
  r.tensor("elu", vs::elu(a));
  r.tensor("softmax1", a.softmax(1));
  r.tensor("log_softmax0", a.log_softmax(0));
}

VS_CASE("unary.pow_clamp") {
  vs::Tensor a = x();
  r.tensor("pow2", a.pow(2));
  r.tensor("pow_half", a.pow(0.5));
  r.tensor("pow_tensor", a.abs().pow(a));
  r.tensor("int_pow", vs::arange(-3, 4, vs::kInt64).pow(2));
  r.tensor("clamp", a.clamp(-1, 0.5));
  r.tensor("clamp_min", a.clamp(0));
  r.tensor("int_clamp", vs::arange(-3, 4, vs::kInt64).clamp(-1, 1));
}

VS_CASE("unary.int_inputs") {
  vs::Tensor i = vs::arange(-3, 5, vs::kInt64);
  r.tensor("abs", i.abs());
  r.tensor("neg", i.neg());
  r.tensor("sign", i.sign());
  r.tensor("exp", i.exp());
  r.tensor("sqrt", i.sqrt());
  r.tensor("sigmoid", i.sigmoid());
  r.tensor("bool_logical_not", (i > 0).logical_not());
  r.tensor("logical_and", vs::logical_and(i, i > 1));
}

VS_CASE("unary.compare") {
  vs::Tensor a = x();
  r.tensor("eq", a.eq(0));
  r.tensor("lt_tensor", a.lt(a.t()));
  r.tensor("ge_int_float", vs::arange(4, vs::kInt64).ge(vs::arange(4, vs::kFloat32) * 0.7));
  r.tensor("ne_bcast", a.ne(vs::arange(4, vs::kFloat32)));
}

VS_CASE("unary.dtypes") {
  for (vs::ScalarType t : {vs::kFloat64, vs::kBFloat16}) {
    std::string n = vs_test::vs_dtype_name(t);
    vs::Tensor a = x().to(t);
    r.tensor(n + ".exp", a.exp());
    r.tensor(n + ".log", a.log());
    r.tensor(n + ".tanh", a.tanh());
    r.tensor(n + ".sigmoid", a.sigmoid());
    if (t != vs::kBFloat16) r.tensor(n + ".gelu", vs::gelu(a));  // bfloat16: unary.bfloat16_gelu
    r.tensor(n + ".softmax", a.softmax(0));
    r.tensor(n + ".pow", a.pow(3));
  }
}

VS_CASE("unary.float16") {
  r.follows_pytorch2("float16 unary math on CPU (PyTorch 2.x); LibTorch 1.13 raises \"not implemented for 'Half'\"");
  vs::Tensor a = x().to(vs::kFloat16);
  r.result("exp", [&] { return a.exp(); });
  r.result("log", [&] { return a.log(); });
  r.result("tanh", [&] { return a.tanh(); });
  r.result("sigmoid", [&] { return a.sigmoid(); });
  r.result("gelu", [&] { return vs::gelu(a); });
  r.result("softmax", [&] { return a.softmax(0); });
  r.result("pow", [&] { return a.pow(3); });
}

VS_CASE("unary.bfloat16_gelu") {
  // At x = -2 the exact value is -0.0455003; Ember returns its correctly rounded bfloat16 (-0.0454102),
  // LibTorch 1.13 returns -0.046875, beyond bfloat16's tolerance. Not yet checked against PyTorch 2.x.
  r.expect_diff("bfloat16 gelu: Ember returns the correctly rounded value; LibTorch 1.13 is off by 6 ulp at x = -2");
  r.tensor("gelu", vs::gelu(x().to(vs::kBFloat16)));
}
