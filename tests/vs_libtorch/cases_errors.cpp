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
