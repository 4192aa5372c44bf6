// Reductions with dims and keepdim, and the var overloads.
#include <string>

#include "vs_record.h"

namespace {
vs::Tensor x23() { return (vs::arange(6, vs::kFloat32).reshape({2, 3}) * 1.5 - 2); }
}  // namespace

VS_CASE("reduce.sum") {
  vs::Tensor x = x23();
  r.tensor("all", x.sum());
  r.tensor("dim0", x.sum(0));
  r.tensor("dim1_keep", x.sum(1, true));
  r.tensor("dims01", x.sum(vs::IntArrayRef{0, 1}));
  r.tensor("neg_dim", x.sum(-1));
  r.tensor("int", vs::arange(6, vs::kInt32).reshape({2, 3}).sum(1));
  r.tensor("bool", (x > 0).sum());
  r.tensor("dtype", x.sum(vs::kFloat64));
  r.tensor("noncontig", vs::arange(24, vs::kFloat32).reshape({2, 3, 4}).permute({2, 0, 1}).sum(vs::IntArrayRef{0, 2}));
}

VS_CASE("reduce.mean") {
  vs::Tensor x = x23();
  r.tensor("all", x.mean());
  r.tensor("dim0", x.mean(0));
  r.tensor("dim1_keep", x.mean(1, true));
  r.tensor("noncontig", x.t().mean(0));
  r.raises("int_input", [&] { vs::arange(6, vs::kInt64).mean(); });
}

VS_CASE("reduce.var") {
  vs::Tensor x = x23();
  r.tensor("all", x.var());
  r.tensor("all_biased", x.var(false));
  r.tensor("dim1", x.var(vs::IntArrayRef{1}));
  r.tensor("dim0_keep_biased", x.var(vs::IntArrayRef{0}, false, true));
  r.tensor("std_dim1", x.std(vs::IntArrayRef{1}));
}

VS_CASE("reduce.var_int_literal") {
  // LibTorch's hand-written var(int dim): x.var(1) reduces dim 1 (not var(bool unbiased)).
  vs::Tensor x = x23();
  r.tensor("var(1)", x.var(1));
}

VS_CASE("reduce.dtypes") {
  for (vs::ScalarType t : {vs::kFloat64, vs::kInt32, vs::kInt8, vs::kUInt8, vs::kBool, vs::kFloat16, vs::kBFloat16}) {
    std::string n = vs_test::vs_dtype_name(t);
    vs::Tensor a = (vs::arange(24, vs::kFloat32).reshape({2, 3, 4}) - 5).to(t);
    r.tensor(n + ".sum", a.sum());
    r.tensor(n + ".sum_dim", a.sum(vs::IntArrayRef{0, 2}, true));
    r.tensor(n + ".sum_t", a.transpose(0, 2).sum(1));
  }
  for (vs::ScalarType t : {vs::kFloat64, vs::kFloat16, vs::kBFloat16}) {
    std::string n = vs_test::vs_dtype_name(t);
    vs::Tensor a = (vs::arange(24, vs::kFloat32).reshape({2, 3, 4}) * 0.25 - 1).to(t);
    r.tensor(n + ".mean", a.mean(vs::IntArrayRef{1}));
    r.tensor(n + ".var", a.var(vs::IntArrayRef{2}, true, true));
    r.tensor(n + ".var_perm", a.permute({2, 0, 1}).var(vs::IntArrayRef{0}));
  }
}

VS_CASE("reduce.edge") {
  vs::Tensor e = vs::arange(0, vs::kFloat32).reshape({0, 3});
  r.tensor("sum_empty", e.sum(0));
  r.tensor("mean_empty", e.mean(0));
  vs::Tensor one = vs::arange(3, vs::kFloat32).reshape({3, 1});
  r.tensor("var_single", one.var(vs::IntArrayRef{1}));
  r.tensor("sum_0dim", vs::arange(1, vs::kFloat32).reshape({}).sum());
  r.tensor("sum_large", vs::arange(100000, vs::kFloat32).sum());
}

VS_CASE("reduce.result_dtypes") {
  vs::Tensor i32 = vs::arange(-3, 9, vs::kInt32).reshape({3, 4});
  vs::Tensor b = i32 > 2;
  r.tensor("bool.sum_dim", b.sum(1));
  r.tensor("int32.prod", i32.prod(1));
  r.tensor("int32.cumsum", i32.cumsum(0));
  r.tensor("bool.cumsum", b.cumsum(1));
  r.tensor("uint8.sum", vs::arange(200, 206, vs::kInt32).to(vs::kUInt8).sum());
  r.tensor("int32.mean_dtype", i32.mean(vs::IntArrayRef{1}, false, vs::kFloat64));
  r.tensor("bool.amax", b.amax(0));
  r.tensor("int32.argmax_keep", i32.argmax(1, true));
  r.tensor("float.sum_dtype_int", (i32.to(vs::kFloat32) * 0.5).sum(vs::kInt64));
}

VS_CASE("reduce.nan_inf") {
  vs::Tensor a = vs::arange(12, vs::kFloat32).reshape({3, 4}).log() - 1;  // -inf at 0
  vs::Tensor n = a.sqrt();                                                // NaN where a < 0
  r.tensor("sum_inf", a.sum(1));
  r.tensor("amax_nan", n.amax(1));
  r.tensor("max_nan", n.max());
  r.tensor("argmax_nan", n.argmax(1));
  auto [v, i] = n.sort(1);
  r.tensor("sort_nan.values", v);
  r.tensor("sort_nan.indices", i);
  r.tensor("topk_nan", std::get<0>(n.topk(2, 1)));
  r.tensor("softmax_ninf_row", (a * 0 + a.narrow(1, 0, 1)).softmax(1));
  r.tensor("logsumexp_ninf", (a * 0 + a.narrow(1, 0, 1)).logsumexp(1));
  r.tensor("clamp_nan", n.clamp(0, 1));
  r.tensor("relu_nan", n.relu());
  r.tensor("var_single_elem", a.narrow(1, 1, 1).var(vs::IntArrayRef{1}));
  r.raises("max_empty", [&] { vs::arange(0, vs::kFloat32).max(); });
  r.raises("amax_empty_dim", [&] { vs::arange(0, vs::kFloat32).reshape({0, 2}).amax(0); });
}
