// Bad input: both sides must raise (messages are recorded and reported, not compared).
#include "vs_record.h"

VS_CASE("errors.shapes") {
  vs::Tensor a = vs::arange(6, vs::kFloat32).reshape({2, 3});
  r.raises("add_broadcast", [&] { a + vs::arange(4, vs::kFloat32); });
  r.raises("where_broadcast", [&] { vs::where(a > 0, a, vs::arange(2, vs::kFloat32)); });
  r.raises("view_numel", [&] { a.view({4}); });
  r.raises("view_noncontig", [&] { a.t().view({6}); });
  r.raises("reshape_two_minus1", [&] { a.reshape({-1, -1}); });
}

VS_CASE("errors.dims") {
  vs::Tensor a = vs::arange(6, vs::kFloat32).reshape({2, 3});
  r.raises("sum_dim", [&] { a.sum(2); });
  r.raises("transpose_dim", [&] { a.transpose(0, 2); });
  r.raises("permute_repeat", [&] { a.permute({0, 0}); });
  r.raises("permute_len", [&] { a.permute({0}); });
  r.raises("narrow_start", [&] { a.narrow(1, 2, 2); });
  r.raises("narrow_len", [&] { a.narrow(0, 0, -1); });
  r.raises("narrow_dim", [&] { a.narrow(3, 0, 1); });
}

VS_CASE("errors.dtypes") {
  vs::Tensor a = vs::arange(6, vs::kFloat32).reshape({2, 3});
  vs::Tensor i = vs::arange(6, vs::kInt64).reshape({2, 3});
  r.raises("inplace_int_from_float", [&] { i.add_(a); });
  r.raises("where_cond_float", [&] { vs::where(a, a, a); });
  r.raises("mean_int", [&] { i.mean(); });
  r.raises("bool_sub", [&] { (a > 0) - (a > 1); });
}

VS_CASE("errors.reductions") {
  vs::Tensor a = vs::arange(6, vs::kFloat32).reshape({2, 3});
  r.raises("sum_repeat_dim", [&] { a.sum(vs::IntArrayRef{1, 1}); });
  r.raises("var_dim", [&] { a.var(vs::IntArrayRef{5}); });
  r.raises("var_int", [&] { vs::arange(6, vs::kInt64).var(); });
  r.raises("mean_dim", [&] { a.mean(-3); });
}

VS_CASE("errors.edges") {
  vs::Tensor a = vs::arange(6, vs::kFloat32).reshape({2, 3});
  vs::Tensor i = vs::arange(6, vs::kInt64);
  r.raises("int_div_zero", [&] { (i / vs::zeros({6}, vs::kInt64)).sum(); });
  r.raises("expand_smaller", [&] { a.expand({3}); });
  r.raises("expand_mismatch", [&] { a.expand({2, 4}); });
  r.raises("stack_shapes", [&] { vs::stack({a, a.t()}, 0); });
  r.raises("cat_dims", [&] { vs::cat({a, i}, 0); });
  r.raises("topk_k", [&] { a.topk(4, 1); });
  r.raises("argmax_empty", [&] { vs::arange(0, vs::kFloat32).argmax(); });
  r.raises("select_index", [&] { a.select(1, 3); });
  r.raises("split_zero", [&] { a.split(0, 1); });
  r.raises("chunk_zero", [&] { a.chunk(0, 1); });
  r.raises("unfold_size", [&] { a.unfold(1, 4, 1); });
  r.raises("clamp_int_bool", [&] { (a > 1).clamp(0, 1).neg(); });
}

VS_CASE("errors.accepted_edges") {
  // Inputs LibTorch accepts: these must not raise in Ember either.
  vs::Tensor a = vs::arange(6, vs::kFloat32).reshape({2, 3});
  r.tensor("narrow_neg_start", a.narrow(1, -2, 2));
  r.tensor("squeeze_non1", a.squeeze(0));
  r.tensor("cat_legacy_empty", vs::cat({a, vs::arange(0, vs::kFloat32)}, 0));
  r.tensor("sum_empty_dims", a.sum(vs::IntArrayRef{}));
  r.tensor("mean_neg_dims", a.mean(vs::IntArrayRef{-1, -2}));
  r.tensor("slice_past_end", a.slice(1, 1, 100));
  r.tensor("select_neg", a.select(0, -1));
  r.tensor("transpose_same", a.transpose(1, 1));
}

VS_CASE("errors.pinned_memory") {
  // LibTorch 1.13 from Debian is CPU-only, and this run loads no GPU plugin: nothing is pinned, and
  // pinning raises (tests/gpu/test_pinned_memory.cpp covers a GPU plugin's pinned memory).
  vs::Tensor a = vs::arange(6, vs::kFloat32);
  r.scalar("is_pinned", a.is_pinned() ? 1.0 : 0.0);
  r.raises("pin_memory", [&] { a.pin_memory(); });
  r.raises("_pin_memory", [&] { vs::_pin_memory(a); });
  r.raises("empty_pinned", [&] { vs::empty({2}, vs::TensorOptions().pinned_memory(true)); });
}
