// Matrix products, indexing and the nn operators (Ember: the cpu and nn plugins).
#include <string>

#include "vs_record.h"

namespace {
// Deterministic values in [-1, 1] without ties.
vs::Tensor data(vs::IntArrayRef shape, double phase = 0.0) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return (vs::arange(n, vs::kFloat32) * 0.7 + phase).sin().reshape(shape);
}
}  // namespace

VS_CASE("nn.matmul") {
  vs::Tensor a = data({3, 4}), b = data({4, 5}, 1);
  r.tensor("mm", a.mm(b));
  r.tensor("mm_t", b.t().mm(a.t()));
  r.tensor("bmm", data({2, 3, 4}).bmm(data({2, 4, 2}, 2)));
  r.tensor("matmul_vec", a.matmul(data({4}, 3)));
  r.tensor("matmul_bcast", data({2, 1, 3, 4}).matmul(data({5, 4, 2}, 1)));
  r.tensor("matmul_1d_1d", data({4}).matmul(data({4}, 1)));
  r.tensor("addmm", vs::addmm(data({5}), a, b, 0.5, 2));
  r.tensor("linear", vs::linear(a, data({2, 4}, 1), data({2}, 2)));
  r.tensor("mm_int", vs::arange(6, vs::kInt64).reshape({2, 3}).mm(vs::arange(6, vs::kInt64).reshape({3, 2})));
}

VS_CASE("nn.indexing") {
  vs::Tensor a = data({4, 5});
  vs::Tensor idx = vs::arange(3, vs::kInt64) * 2 - 1;  // -1, 1, 3
  r.tensor("index_select", a.index_select(1, idx.abs()));
  vs::Tensor g = vs::arange(8, vs::kInt64).reshape({4, 2}).clamp(0, 4);
  r.tensor("gather", a.gather(1, g));
  r.tensor("gather_t", a.t().gather(0, g.t()));
  r.tensor("masked_fill", a.masked_fill(a > 0.5, -2));
  r.tensor("masked_select", a.masked_select(a.t().t() > 0.5));
  r.tensor("index_tensor", a.index({idx.abs()}));
  r.tensor("embedding", vs::embedding(a, g.clamp(0, 3)));
  r.raises("embedding_oob", [&] { vs::embedding(a, g); });
  r.raises("index_select_oob", [&] { a.index_select(1, idx * 3); });
  r.raises("gather_oob", [&] { a.gather(1, g + 2); });
}

VS_CASE("nn.nonzero") {
  r.tensor("nonzero", (data({4, 5}) > 0.5).nonzero());
}

VS_CASE("nn.conv_pool") {
  vs::Tensor x = data({2, 3, 7, 6});
  vs::Tensor w = data({4, 3, 3, 3}, 1);
  r.tensor("conv2d", vs::conv2d(x, w, data({4}, 2)));
  r.tensor("conv2d_stride_pad", vs::conv2d(x, w, {}, 2, 1));
  r.tensor("conv2d_groups", vs::conv2d(data({1, 4, 5, 5}), data({4, 2, 3, 3}, 1), {}, 1, 1, 1, 2));
  r.tensor("conv2d_dilation", vs::conv2d(x, w, {}, 1, 2, 2));
  r.tensor("max_pool2d", vs::max_pool2d(x, 2));
  r.tensor("max_pool2d_ceil", vs::max_pool2d(x, 3, 2, 1, 1, true));
  r.tensor("avg_pool2d", vs::avg_pool2d(x, 3, 2, 1));
  r.tensor("avg_pool2d_nopad", vs::avg_pool2d(x, 3, 2, 1, true, false));
  r.tensor("adaptive_avg_pool2d", vs::adaptive_avg_pool2d(x, {3, 4}));
}

VS_CASE("nn.conv_channels_last") {
  vs::Tensor x = data({2, 7, 6, 3}).permute({0, 3, 1, 2});
  r.tensor("conv2d", vs::conv2d(x, data({4, 3, 3, 3}, 1)));
}

VS_CASE("nn.norm_loss") {
  vs::Tensor x = data({4, 6});
  r.tensor("layer_norm", vs::layer_norm(x, {6}, data({6}, 1), data({6}, 2)));
  vs::Tensor x4 = data({2, 3, 4, 4});
  r.tensor("batch_norm_train", vs::batch_norm(x4, data({3}, 1), data({3}, 2), {}, {}, true, 0.1, 1e-5, false));
  vs::Tensor target = vs::arange(4, vs::kInt64).clamp(0, 5);
  r.tensor("cross_entropy", vs::cross_entropy_loss(x, target));
  r.tensor("nll_loss", vs::nll_loss(x.log_softmax(1), target));
  r.tensor("mse_loss", vs::mse_loss(x, data({4, 6}, 1)));
  r.tensor("l1_loss_sum", vs::l1_loss(x, data({4, 6}, 1), 2));
  r.raises("cross_entropy_target", [&] { vs::cross_entropy_loss(x, target + 10); });
  r.raises("layer_norm_shape", [&] { vs::layer_norm(x, {5}); });
}
