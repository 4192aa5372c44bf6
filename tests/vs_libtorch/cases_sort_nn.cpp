// Order statistics, unique, searchsorted, vector products, einsum and the Core ATen nn kernels
// (softmax, batch/group norm, dropout, embeddings, distances); Ember: the cpu and nn plugins.
#include <cmath>
#include <limits>
#include <string>

#include "vs_record.h"

namespace {
// Deterministic values in [-1, 1] without ties.
vs::Tensor data(vs::IntArrayRef shape, double phase = 0.0, vs::ScalarType dt = vs::kFloat32) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return (vs::arange(n, vs::kFloat64) * 0.7 + phase).sin().reshape(shape).to(dt);
}
const double kInf = std::numeric_limits<double>::infinity();
}  // namespace

VS_CASE("sort_nn.order_statistics") {
  for (vs::ScalarType dt : {vs::kFloat32, vs::kFloat64, vs::kInt64, vs::kBFloat16}) {
    const std::string s = std::string("_") + (dt == vs::kFloat32   ? "f32"
                                              : dt == vs::kFloat64 ? "f64"
                                              : dt == vs::kInt64   ? "i64"
                                                                   : "bf16");
    vs::Tensor x = (data({4, 7}, 0.3) * 10).to(dt);
    vs::Tensor xt = (data({7, 4}, 0.3) * 10).to(dt).t();
    auto [kv, ki] = vs::kthvalue(x, 3, 1);
    r.tensor("kthvalue" + s, kv);
    r.tensor("kthvalue_idx" + s, ki);
    auto [kv2, ki2] = vs::kthvalue(xt, 2, 0, true);
    r.tensor("kthvalue_t" + s, kv2);
    r.tensor("kthvalue_t_idx" + s, ki2);
    r.tensor("median" + s, vs::median(x));
    auto [mv, mi] = vs::median(xt, 1);
    r.tensor("median_dim" + s, mv);
    r.tensor("median_dim_idx" + s, mi);
    auto [ov, oi] = vs::mode((x / 4).to(vs::kInt64).to(dt), 1);
    r.tensor("mode" + s, ov);
    r.tensor("mode_idx" + s, oi);
  }
  vs::Tensor n = vs::tensor({3., std::nan(""), 1., 2., 5., std::nan("")}, vs::kFloat64).reshape({2, 3});
  r.tensor("median_nan", vs::median(n));
  r.tensor("nanmedian", vs::nanmedian(n));
  auto [nv, ni] = vs::nanmedian(n, 1);
  r.tensor("nanmedian_dim", nv);
  r.tensor("nanmedian_dim_idx", ni);
  auto [mnv, mni] = vs::median(n, 1);
  r.tensor("median_dim_nan", mnv);
  r.tensor("median_dim_nan_idx", mni);
  r.raises("kthvalue_k", [&] { vs::kthvalue(data({2, 3}), 4, 1); });
  r.raises("median_empty_dim", [&] { vs::median(vs::zeros({0, 3}), 0); });
  r.raises("kthvalue_bool", [&] { vs::kthvalue(data({2, 3}) > 0, 1, 1); });
}

VS_CASE("sort_nn.unique") {
  vs::Tensor y = vs::tensor({3, 1, 2, 1, 3, 3, 0});
  auto [u, inv, cnt] = vs::_unique2(y, true, true, true);
  r.tensor("unique", u);
  r.tensor("unique_inverse", inv);
  r.tensor("unique_counts", cnt);
  auto [uf, invf, cntf] = vs::_unique2(y.to(vs::kFloat32).reshape({7, 1}), true, true, false);
  r.tensor("unique_f32", uf);
  r.tensor("unique_f32_inverse", invf);
  r.tensor("unique_f32_counts", cntf);
  auto [c, cinv, ccnt] = vs::unique_consecutive(y, true, true);
  r.tensor("consecutive", c);
  r.tensor("consecutive_inverse", cinv);
  r.tensor("consecutive_counts", ccnt);
  vs::Tensor m = vs::tensor({1, 2, 0, 5, 1, 2, 0, 5, 3, 3}).reshape({5, 2});
  auto [d, dinv, dcnt] = vs::unique_dim(m, 0);
  r.tensor("unique_dim", d);
  r.tensor("unique_dim_inverse", dinv);
  r.tensor("unique_dim_counts", dcnt);
  auto [d1, d1inv, d1cnt] = vs::unique_dim(m.t(), 1, true, true, true);
  r.tensor("unique_dim1", d1);
  r.tensor("unique_dim1_inverse", d1inv);
  auto [cd, cdinv, cdcnt] = vs::unique_consecutive(m, true, true, 0);
  r.tensor("consecutive_dim", cd);
  r.tensor("consecutive_dim_counts", cdcnt);
  r.raises("unique_dim_empty", [&] { vs::unique_dim(vs::zeros({0, 3}), 1); });
}

VS_CASE("sort_nn.searchsorted") {
  for (vs::ScalarType dt : {vs::kFloat32, vs::kFloat64, vs::kInt64, vs::kFloat16}) {
    const std::string s = std::string("_") + (dt == vs::kFloat32   ? "f32"
                                              : dt == vs::kFloat64 ? "f64"
                                              : dt == vs::kInt64   ? "i64"
                                                                   : "f16");
    vs::Tensor b = vs::tensor({1, 3, 5, 7, 9}).to(dt);
    vs::Tensor v = vs::tensor({0, 3, 6, 9, 10, 1}).to(dt).reshape({2, 3});
    r.tensor("left" + s, vs::searchsorted(b, v));
    r.tensor("right" + s, vs::searchsorted(b, v, false, true));
    r.tensor("side_right" + s, vs::searchsorted(b, v, false, false, "right"));
    r.tensor("int32" + s, vs::searchsorted(b, v.t(), true));
    r.tensor("scalar" + s, vs::searchsorted(b, 4));
    r.tensor("bucketize" + s, vs::bucketize(v, b));
    r.tensor("bucketize_right" + s, vs::bucketize(v, b, true, true));
    r.tensor("bucketize_scalar" + s, vs::bucketize(5, b));
  }
  r.tensor("batched", vs::searchsorted(vs::tensor({1., 2., 3., 4.}).reshape({2, 2}),
                                       vs::tensor({1.5, 0., 3.5, 9.}).reshape({2, 2})));
  r.tensor("sorter", vs::searchsorted(vs::tensor({5., 1., 9., 3., 7.}), vs::tensor({3., 6.}), false, false, {},
                                      vs::tensor({1, 3, 0, 4, 2})));
  r.tensor("mixed_dtypes", vs::searchsorted(vs::tensor({1., 3., 5.}), vs::tensor({2, 4})));
  r.raises("side_bad", [&] { vs::searchsorted(vs::tensor({1., 2.}), vs::tensor({1.}), false, false, "middle"); });
  r.raises("side_right_conflict", [&] {
    vs::searchsorted(vs::tensor({1., 2.}), vs::tensor({1.}), false, true, "left");
  });
  r.raises("leading_dims", [&] { vs::searchsorted(vs::zeros({2, 3}), vs::zeros({3, 1})); });
  r.raises("bucketize_2d", [&] { vs::bucketize(vs::zeros({3}), vs::zeros({2, 2})); });
}

VS_CASE("sort_nn.products") {
  for (vs::ScalarType dt : {vs::kFloat32, vs::kFloat64, vs::kInt64, vs::kInt32}) {
    const std::string s = std::string("_") + (dt == vs::kFloat32   ? "f32"
                                              : dt == vs::kFloat64 ? "f64"
                                              : dt == vs::kInt64   ? "i64"
                                                                   : "i32");
    vs::Tensor a = (data({3, 5}) * 5).to(dt), v = (data({5}, 1) * 5).to(dt);
    r.tensor("dot" + s, vs::dot(v, (data({5}, 2) * 5).to(dt)));
    r.tensor("dot_strided" + s, vs::dot(a.select(1, 2), a.select(1, 4)));
    r.tensor("mv" + s, vs::mv(a, v));
    r.tensor("mv_t" + s, vs::mv((data({5, 3}) * 5).to(dt).t(), (data({5}, 1) * 5).to(dt)));
    r.tensor("outer" + s, vs::outer(v, a.select(1, 0)));
  }
  r.tensor("outer_promote", vs::outer(vs::arange(3, vs::kInt32), data({2}, 0, vs::kFloat64)));
  r.raises("dot_len", [&] { vs::dot(data({3}), data({4})); });
  r.raises("dot_dtype", [&] { vs::dot(data({3}), data({3}, 0, vs::kFloat64)); });
  r.raises("mv_size", [&] { vs::mv(data({2, 3}), data({4})); });
  r.raises("outer_2d", [&] { vs::outer(data({3, 1}), data({2})); });
}

VS_CASE("sort_nn.einsum") {
  vs::Tensor a = data({2, 3}), b = data({3, 4}, 1), c = data({4, 2}, 2), sq = data({3, 3}, 3);
  r.tensor("mm", vs::einsum("ij,jk->ik", {a, b}));
  r.tensor("implicit", vs::einsum("ij,jk", {a, b}));
  r.tensor("transposed_out", vs::einsum("ij,jk->ki", {a, b}));
  r.tensor("chain", vs::einsum("ij,jk,kl->il", {a, b, c}));
  r.tensor("trace", vs::einsum("ii", {sq}));
  r.tensor("diag", vs::einsum("ii->i", {sq}));
  r.tensor("sum", vs::einsum("ij->", {a}));
  r.tensor("ellipsis", vs::einsum("...j,jk->...k", {data({5, 2, 3}), b}));
  r.tensor("ellipsis_last", vs::einsum("ab...,b->a...", {data({2, 3, 4, 5}), data({3}, 1)}));
  r.tensor("batched", vs::einsum("bij,bjk->bik", {data({2, 3, 4}), data({2, 4, 5}, 1)}));
  r.tensor("outer", vs::einsum("i,j->ij", {data({3}), data({2}, 1)}));
  r.tensor("upper", vs::einsum("bA,Ac", {a, b}));
  r.tensor("spaces", vs::einsum("i j , j k -> i k", {a, b}));
  r.tensor("int", vs::einsum("i,i->", {vs::arange(4, vs::kInt64), vs::arange(4, vs::kInt64)}));
  r.tensor("f64_transposed",
           vs::einsum("ij,jk->ik", {data({3, 2}, 0, vs::kFloat64).t(), data({3, 4}, 1, vs::kFloat64)}));
  r.raises("size", [&] { vs::einsum("ij,jk->ik", {a, data({4, 4})}); });
  r.raises("few_operands", [&] { vs::einsum("ij,jk->ik", {a}); });
  r.raises("unknown_out", [&] { vs::einsum("ij->k", {a}); });
  r.raises("repeated_out", [&] { vs::einsum("ij->ii", {a}); });
  r.raises("bad_char", [&] { vs::einsum("i1->i", {a}); });
  r.raises("rank", [&] { vs::einsum("ijk->i", {a}); });
}

// With nothing to contract, both multiply elementwise: the layout is the product's.
VS_CASE("sort_nn.einsum_broadcast_layout") {
  r.tensor("broadcast", vs::einsum("...,...", {data({2, 3}), data({3}, 1)}));
  r.tensor("outer", vs::einsum("i,j->ij", {data({3}), data({4}, 1)}));
  r.tensor("batch_scale", vs::einsum("bij,b->bij", {data({2, 3, 4}), data({2}, 1)}));
  r.tensor("outer_transposed_out", vs::einsum("i,j->ji", {data({3}), data({4}, 1)}));
}

static void softmax_of(vs_test::Recorder& r, vs::ScalarType dt) {
  const std::string s = std::string("_") + (dt == vs::kFloat32 ? "f32" : dt == vs::kFloat64 ? "f64" : "bf16");
  vs::Tensor x = data({3, 5}, 0, dt) * 3;
  r.tensor("softmax" + s, vs::_softmax(x, 1, false));
  r.tensor("softmax_dim0_t" + s, vs::_softmax(x.t(), 0, false));
  r.tensor("log_softmax" + s, vs::_log_softmax(x, -1, false));
  vs::Tensor y = vs::_softmax(x, 1, false), ly = vs::_log_softmax(x, 1, false), g = data({3, 5}, 1, dt);
  r.tensor("softmax_backward" + s, vs::_softmax_backward_data(g, y, 1, dt));
  r.tensor("log_softmax_backward" + s, vs::_log_softmax_backward_data(g, ly, 1, dt));
}

VS_CASE("sort_nn.softmax") {
  for (vs::ScalarType dt : {vs::kFloat32, vs::kFloat64}) softmax_of(r, dt);
  r.raises("int", [&] { vs::_softmax(vs::arange(6, vs::kInt64).reshape({2, 3}), 1, false); });
  r.raises("half_to_float", [&] { vs::_softmax(data({2, 3}), 1, true); });
  r.raises("float16", [&] { vs::_softmax(data({2, 3}).to(vs::kFloat16), 1, false); });
  r.raises("backward_shape", [&] { vs::_softmax_backward_data(data({2, 3}), data({3, 2}), 1, vs::kFloat32); });
}

// Ember computes bfloat16 in float and rounds once; LibTorch 1.13 rounds the backward's products to
// bfloat16 (softmax_backward's element 8 is a cancellation).
VS_CASE("sort_nn.softmax_bf16") {
  r.expect_diff("bfloat16 softmax backward: intermediates in float (LibTorch 1.13: in bfloat16)");
  softmax_of(r, vs::kBFloat16);
}

VS_CASE("sort_nn.norms") {
  vs::Tensor x = data({4, 3, 5});
  vs::Tensor rm = data({3}, 1), rv = data({3}, 2).abs() + 0.5;
  r.follows_pytorch2("_native_batch_norm_legit is PyTorch 2.x's; LibTorch runs native_batch_norm");
  auto [y, sm, si] = vs::bn_legit(x, data({3}, 3), data({3}, 4), rm, rv, true, 0.1, 1e-5);
  r.tensor("bn_train", y);
  r.tensor("bn_save_mean", sm);
  r.tensor("bn_save_invstd", si);
  r.tensor("bn_running_mean", rm);
  r.tensor("bn_running_var", rv);
  auto [ye, sme, sie] = vs::bn_legit(x, data({3}, 3), data({3}, 4), rm, rv, false, 0.1, 1e-5);
  r.tensor("bn_eval", ye);
  r.tensor("bn_eval_save", sme);
  for (vs::ScalarType dt : {vs::kFloat32, vs::kFloat64}) {
    const std::string s = dt == vs::kFloat32 ? "_f32" : "_f64";
    vs::Tensor g = data({2, 6, 4}, 0, dt);
    auto [o, m, rs] = vs::native_group_norm(g, data({6}, 1, dt), data({6}, 2, dt), 2, 6, 4, 3, 1e-5);
    r.tensor("group_norm" + s, o);
    r.tensor("group_norm_mean" + s, m);
    r.tensor("group_norm_rstd" + s, rs);
    auto [gi, gw, gb] = vs::native_group_norm_backward(data({2, 6, 4}, 3, dt), g, m, rs, data({6}, 1, dt), 2, 6, 4, 3,
                                                       {true, true, true});
    r.tensor("group_norm_grad_input" + s, gi);
    r.tensor("group_norm_grad_weight" + s, gw);
    r.tensor("group_norm_grad_bias" + s, gb);
    r.tensor("group_norm_fn" + s, vs::group_norm(data({2, 4, 3, 3}, 0, dt), 2, data({4}, 1, dt), data({4}, 2, dt)));
  }
  r.raises("group_norm_groups", [&] { vs::native_group_norm(data({2, 6, 4}), {}, {}, 2, 6, 4, 4, 1e-5); });
  r.raises("group_norm_weight", [&] { vs::native_group_norm(data({2, 6, 4}), data({5}), {}, 2, 6, 4, 3, 1e-5); });
}

VS_CASE("sort_nn.dropout_embedding") {
  // Random draws differ between the libraries: only the deterministic cases are compared.
  vs::Tensor x = data({3, 4});
  auto [e, em] = vs::native_dropout(x, 0.5, false);
  r.tensor("dropout_eval", e);
  r.tensor("dropout_eval_mask", em);
  auto [z, zm] = vs::native_dropout(x, 1.0, true);
  r.tensor("dropout_p1", z);
  r.tensor("dropout_p1_mask", zm);
  r.tensor("dropout_backward", vs::native_dropout_backward(x, x > 0, 2.0));
  r.raises("dropout_p", [&] { vs::native_dropout(x, 1.5, true); });
  vs::Tensor g = data({2, 3, 4}), idx = vs::tensor({0, 1, 0, 2, 2, 4}).reshape({2, 3});
  r.tensor("embedding_backward", vs::embedding_dense_backward(g, idx, 5, -1, false));
  r.tensor("embedding_backward_pad_scale", vs::embedding_dense_backward(g, idx, 5, 2, true));
  r.tensor("embedding_backward_int32", vs::embedding_dense_backward(g, idx.to(vs::kInt32), 6, 0, false));
  vs::Tensor w = data({5, 4}), bi = vs::tensor({0, 2, 1, 2, 4, 3}), off = vs::tensor({0, 2, 2, 5});
  for (int64_t mode : {0, 1, 2}) {
    const std::string s = "_mode" + std::to_string(mode);
    auto [o, o2b, bs, mi] = vs::_embedding_bag(w, bi, off, false, mode, false, {}, false, 2);
    r.tensor("bag" + s, o);
    r.tensor("bag_offset2bag" + s, o2b);
    r.tensor("bag_size" + s, bs);
    r.tensor("bag_max_indices" + s, mi);
    vs::Tensor gw = vs::_embedding_bag_backward(data({4, 4}, 1), bi, off, o2b, bs, mi, 5, false, mode, false, {}, 2);
    r.tensor("bag_backward" + s, gw);
  }
  vs::Tensor psw = data({6}, 3);
  auto [o, o2b, bs, mi] = vs::_embedding_bag(w, bi, off, false, 0, false, psw, false, -1);
  r.tensor("bag_weighted", o);
  r.tensor("bag_psw_backward", vs::_embedding_bag_per_sample_weights_backward(data({4, 4}, 1), w, bi, off, o2b, 0, -1));
  r.tensor("bag_last_offset",
           std::get<0>(vs::_embedding_bag(w, bi, vs::tensor({0, 2, 2, 5, 6}), false, 2, false, {}, true, -1)));
  r.tensor("embedding_bag_fn", std::get<0>(vs::embedding_bag(w, bi, off, false, 1, false, {}, false)));
}

VS_CASE("sort_nn.distances") {
  for (vs::ScalarType dt : {vs::kFloat32, vs::kFloat64}) {
    const std::string s = dt == vs::kFloat32 ? "_f32" : "_f64";
    vs::Tensor a = data({6, 3}, 0, dt), b = data({4, 3}, 1, dt), big = data({30, 3}, 2, dt);
    for (double p : {0.0, 1.0, 2.0, 3.5, kInf}) {
      const std::string ps = s + "_p" + std::to_string(static_cast<int>(std::isinf(p) ? 99 : p * 10));
      r.tensor("cdist" + ps, vs::cdist(a, b, p));
      r.tensor("cdist_t" + ps, vs::cdist(data({3, 6}, 0, dt).t(), b, p));
      r.tensor("pdist" + ps, vs::pdist(a, p));
      vs::Tensor d = vs::_cdist_forward(a, b, p, {});
      r.tensor("cdist_backward" + ps, vs::_cdist_backward(vs::ones_like(d), a, b, p, d));
      vs::Tensor pd = vs::_pdist_forward(a, p);
      r.tensor("pdist_backward" + ps, vs::_pdist_backward(vs::ones_like(pd), a, p, pd));
    }
    r.tensor("cdist_mm" + s, vs::cdist(big, b));
    r.tensor("cdist_mode1" + s, vs::cdist(a, b, 2, 1));
    r.tensor("cdist_batch" + s, vs::cdist(data({2, 3, 3}, 0, dt), b));
  }
  r.raises("cdist_cols", [&] { vs::cdist(data({3, 4}), data({5, 3})); });
  r.raises("cdist_p", [&] { vs::cdist(data({3, 4}), data({5, 4}), -1); });
  r.raises("cdist_int", [&] { vs::cdist(vs::ones({3, 4}, vs::kInt64), vs::ones({5, 4}, vs::kInt64)); });
  r.raises("pdist_3d", [&] { vs::pdist(data({2, 5, 3})); });
}
