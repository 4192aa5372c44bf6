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
