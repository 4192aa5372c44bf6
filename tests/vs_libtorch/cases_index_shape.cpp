// The index-shape family: scatter_reduce, the view scatters, masked_scatter, index_add/index_copy,
// take, split_with_sizes, copy/fill, randperm (sorted: the streams differ), tril/triu, roll, diag,
// diag_embed, trace, movedim, unbind, meshgrid, broadcast_to, tile, repeat_interleave, one_hot; over
// dtypes and non-contiguous inputs, and their errors. squeeze(dims) and any/all(dims) are PyTorch 2
// overloads that LibTorch 1.13 lacks (tests/ops covers them).
#include <string>
#include <vector>

#include "vs_record.h"

namespace {

vs::Tensor grid(vs::ScalarType dt) { return (vs::arange(20, vs::kFloat32).reshape({4, 5}) * 1.3).sin().mul(4).to(dt); }

const std::vector<vs::ScalarType>& dtypes() {
  static const std::vector<vs::ScalarType> d = {vs::kFloat32, vs::kFloat64, vs::kInt32, vs::kInt64};
  return d;
}

std::string dn(vs::ScalarType dt) {
  switch (dt) {
    case vs::kFloat32:
      return "f32";
    case vs::kFloat64:
      return "f64";
    case vs::kInt32:
      return "i32";
    default:
      return "i64";
  }
}

}  // namespace

VS_CASE("index_shape.scatter_reduce") {
  const vs::Tensor index = vs::tensor({0, 2, 2, 4, 1, 1, 1, 0, 3, 0, 4, 4}).reshape({3, 4});
  for (vs::ScalarType dt : dtypes())
    for (const char* red : {"sum", "prod", "mean", "amax", "amin"})
      for (bool inc : {true, false}) {
        const vs::Tensor self = grid(dt).narrow(0, 0, 3), src = grid(dt).t().narrow(0, 0, 3).narrow(1, 0, 4);
        r.tensor(dn(dt) + "." + red + (inc ? "" : ".noself"), self.scatter_reduce(1, index, src, red, inc));
      }
  // In place and out=.
  vs::Tensor y = grid(vs::kFloat64).narrow(0, 0, 3).clone(), out = vs::empty({0}, vs::kFloat64);
  r.tensor("out", vs::scatter_reduce_out(out, y, 1, index, y.narrow(1, 0, 4), "amin", false));
  y.scatter_reduce_(1, index, y.narrow(1, 1, 4).clone(), "prod");
  r.tensor("inplace", y);
  vs::Tensor x = grid(vs::kFloat32);
  r.raises("bad_reduce", [&] { x.scatter_reduce(0, vs::zeros({1, 5}, vs::kInt64), x, "max"); });
  r.raises("index_oob", [&] { x.scatter_reduce(0, vs::full({1, 5}, 9, vs::kInt64), x, "sum"); });
}

VS_CASE("index_shape.view_scatters") {
  for (vs::ScalarType dt : dtypes()) {
    const vs::Tensor x = grid(dt).t();  // [5, 4], transposed
    r.tensor(dn(dt) + ".select", vs::select_scatter(x, vs::ones({4}, vs::kFloat64), 0, -2));
    r.tensor(dn(dt) + ".slice", vs::slice_scatter(x, vs::zeros({5, 2}, dt), 1, 1, 4, 2));
    r.tensor(dn(dt) + ".diagonal", vs::diagonal_scatter(x, vs::ones({4}, dt), -1));
    r.tensor(dn(dt) + ".masked", vs::masked_scatter(x, x.gt(0), vs::arange(20, vs::kFloat32).to(dt)));
  }
  r.tensor("masked_broadcast",
           vs::masked_scatter(vs::zeros({4}), vs::ones({3, 4}, vs::kBool), vs::arange(12, vs::kFloat32)));
  vs::Tensor o1 = vs::empty({0}), o2 = vs::empty({7}), o3 = vs::empty({0});
  const vs::Tensor g = grid(vs::kFloat32);
  r.tensor("select_out", vs::select_scatter_out(o1, g, vs::ones({4}), 1, 2));
  r.tensor("slice_out", vs::slice_scatter_out(o2, g, vs::ones({2, 5}), 0, 1, 3));
  r.tensor("masked_out", vs::masked_scatter_out(o3, g, g.lt(0), vs::arange(20, vs::kFloat32)));
  vs::Tensor x = grid(vs::kFloat32);
  r.raises("select_shape", [&] { vs::select_scatter(x, vs::zeros({4}), 0, 1); });
  r.raises("slice_shape", [&] { vs::slice_scatter(x, vs::zeros({4, 3}), 1, 0, 5, 2); });
  r.raises("masked_source_small", [&] { vs::masked_scatter(x, x.gt(-10), vs::zeros({3})); });
}

VS_CASE("index_shape.index_add_copy_take") {
  const vs::Tensor idx = vs::tensor({3, 0, 3});
  for (vs::ScalarType dt : dtypes()) {
    const vs::Tensor x = grid(dt).t();  // [5, 4]
    r.tensor(dn(dt) + ".index_add0", x.index_add(0, idx, vs::ones({3, 4}, dt)));
    r.tensor(dn(dt) + ".index_add1_alpha", x.index_add(1, vs::tensor({1, 1}).to(vs::kInt32), x.narrow(1, 0, 2), 2));
    r.tensor(dn(dt) + ".index_copy", x.index_copy(1, vs::tensor({2, 0}), x.narrow(1, 2, 2)));
    r.tensor(dn(dt) + ".take", vs::take(x, vs::tensor({19, -20, 4, -1}).reshape({2, 2})));
  }
  vs::Tensor y = grid(vs::kFloat32), o1 = vs::empty({0}), o2 = vs::empty({0}), o3 = vs::empty({3});
  y.index_add_(0, vs::tensor({1, 1}), vs::ones({2, 5}), -1);
  y.index_copy_(1, vs::tensor({4}), vs::zeros({4, 1}));
  r.tensor("inplace", y);
  r.tensor("index_add_out", vs::index_add_out(o1, y, 1, vs::tensor({0}), vs::ones({4, 1})));
  r.tensor("index_copy_out", vs::index_copy_out(o2, y, 0, vs::tensor({3}), vs::ones({1, 5})));
  r.tensor("take_out", vs::take_out(o3, y.t(), vs::tensor({0, 7, -1})));
  vs::Tensor x = grid(vs::kFloat32);
  r.raises("index_add_oob", [&] { x.index_add(1, vs::tensor({0, 9}), vs::ones({4, 2})); });
  r.raises("index_add_size", [&] { x.index_add(1, vs::tensor({0, 1}), vs::ones({4, 3})); });
  r.raises("index_copy_int32", [&] { x.index_copy(1, vs::tensor({0, 1}).to(vs::kInt32), vs::ones({4, 2})); });
  r.raises("take_oob", [&] { vs::take(x, vs::tensor({20})); });
  r.raises("take_int32", [&] { vs::take(x, vs::tensor({2}).to(vs::kInt32)); });
}

VS_CASE("index_shape.copies_and_splits") {
  for (vs::ScalarType dt : dtypes()) {
    const vs::Tensor x = grid(dt).t();
    r.tensor(dn(dt) + ".copy", vs::copy(x, vs::arange(4, vs::kFloat64)));
    r.tensor(dn(dt) + ".fill", vs::fill(x, 2));
    r.tensor(dn(dt) + ".fill_t", vs::fill(x, vs::full({}, 3.5, vs::kFloat64)));
    r.tensor(dn(dt) + ".alias", vs::alias(x));
    const auto parts = x.split_with_sizes({1, 0, 3}, 1);
    for (size_t i = 0; i < parts.size(); ++i) r.tensor(dn(dt) + ".split" + std::to_string(i), parts[i]);
    const auto u = x.unbind(1);
    r.tensor(dn(dt) + ".unbind1", u[1]);
  }
  vs::Tensor o = vs::empty({0}, vs::kInt64), f = vs::zeros({2, 3});
  r.tensor("copy_out", vs::copy_out(o, vs::zeros({2, 3}, vs::kInt64), vs::arange(3, vs::kFloat32)));
  f.fill_(vs::full({}, 2.5, vs::kFloat64));
  r.tensor("fill_tensor_inplace", f);
  r.scalar("local_scalar_dense", vs::_local_scalar_dense(vs::full({1, 1}, -3, vs::kInt32)).toDouble());
  r.raises("split_sum", [&] { grid(vs::kFloat32).split_with_sizes({1, 2}, 1); });
  r.raises("fill_1d", [&] { vs::fill(grid(vs::kFloat32), vs::ones({2})); });
  r.raises("copy_shape", [&] { vs::copy(grid(vs::kFloat32), vs::ones({3})); });
}

VS_CASE("index_shape.randperm") {
  for (vs::ScalarType dt : {vs::kInt64, vs::kInt32, vs::kFloat32, vs::kFloat64}) {
    // The two libraries draw different streams: a sorted permutation is arange either way.
    r.tensor(dn(dt) + ".sorted", std::get<0>(vs::randperm(50, dt).sort()));
  }
  r.tensor("empty", vs::randperm(0));
  vs::Tensor o = vs::empty({3}, vs::kInt32);
  r.tensor("out_sorted", std::get<0>(vs::randperm_out(o, 9).sort()));
  r.raises("negative", [&] { vs::randperm(-1); });
  r.raises("half_too_many", [&] { vs::randperm(3000, vs::kFloat16); });
}

VS_CASE("index_shape.triangles_rolls_diagonals") {
  for (vs::ScalarType dt : dtypes()) {
    const vs::Tensor x = grid(dt).t();  // [5, 4], transposed
    for (int64_t k : {-2, 0, 1, 5}) {
      r.tensor(dn(dt) + ".tril" + std::to_string(k), x.tril(k));
      r.tensor(dn(dt) + ".triu" + std::to_string(k), x.triu(k));
    }
    vs::Tensor y = x.clone();
    y.tril_(-1);
    r.tensor(dn(dt) + ".tril_", y);
    r.tensor(dn(dt) + ".roll2", vs::roll(x, {1, -6}, {0, 1}));
    r.tensor(dn(dt) + ".roll_flat", vs::roll(x, {7}));
    r.tensor(dn(dt) + ".diag_vec", vs::diag(x.select(1, 0), 1));
    r.tensor(dn(dt) + ".diag_mat", vs::diag(x, -1));
    r.tensor(dn(dt) + ".diag_embed", vs::diag_embed(x, 1, 0, 2));
    r.tensor(dn(dt) + ".trace", vs::trace(x));
  }
  vs::Tensor o1 = vs::empty({0}), o2 = vs::empty({0}), y = grid(vs::kFloat32);
  r.tensor("tril_out", vs::tril_out(o1, y.t(), 1));
  r.tensor("triu_out", vs::triu_out(o2, y, -1));
  y.triu_(2);
  r.tensor("triu_", y);
  r.raises("tril_1d", [&] { vs::tril(vs::ones({3})); });
  r.raises("roll_align", [&] { vs::roll(vs::ones({3, 3}), {1, 2}, {0}); });
  r.raises("diag_3d", [&] { vs::diag(vs::ones({2, 2, 2})); });
  r.raises("trace_1d", [&] { vs::trace(vs::ones({3})); });
}

VS_CASE("index_shape.rearrangements") {
  const vs::Tensor x = vs::arange(120, vs::kFloat32).reshape({2, 3, 4, 5});
  r.tensor("movedim", vs::movedim(x, {0, 1}, {2, 0}));
  r.tensor("moveaxis", vs::moveaxis(x, -1, 0));
  const auto g =
      vs::meshgrid({vs::arange(2, vs::kFloat32), vs::arange(3, vs::kFloat32), vs::arange(4, vs::kFloat32)}, "xy");
  for (size_t i = 0; i < g.size(); ++i) r.tensor("meshgrid_xy" + std::to_string(i), g[i]);
  const auto h = vs::meshgrid({vs::arange(2, vs::kFloat32), vs::arange(3, vs::kFloat32)}, "ij");
  for (size_t i = 0; i < h.size(); ++i) r.tensor("meshgrid_ij" + std::to_string(i), h[i]);
  r.tensor("broadcast_to", vs::broadcast_to(vs::arange(3, vs::kFloat32).reshape({3, 1}), {2, 3, 4}));
  r.tensor("tile", vs::tile(vs::arange(6, vs::kFloat32).reshape({2, 3}).t(), {2}));
  r.tensor("tile_more", vs::tile(vs::arange(6, vs::kInt32).reshape({2, 3}), {2, 1, 2}));
  const vs::Tensor reps = vs::tensor({1, 0, 3});
  r.tensor("repeat_interleave", vs::repeat_interleave(reps));
  r.tensor("repeat_interleave_self", vs::repeat_interleave(x.select(0, 0).select(2, 0).t(), reps, 1));
  r.tensor("repeat_interleave_int", vs::repeat_interleave(x.select(0, 1), 2, 0));
  r.tensor("repeat_interleave_flat", vs::repeat_interleave(x.select(0, 1).select(0, 0).t(), 2));
  r.tensor("one_hot", vs::one_hot(vs::tensor({0, 3, 1})));
  r.tensor("one_hot_n", vs::one_hot(vs::tensor({0, 3, 1}).reshape({3, 1}), 6));
  r.raises("movedim_repeat", [&] { vs::movedim(x, {0, 0}, {1, 2}); });
  r.raises("meshgrid_indexing", [&] { vs::meshgrid({vs::arange(2, vs::kFloat32)}, "yx"); });
  r.raises("repeat_interleave_neg", [&] { vs::repeat_interleave(vs::tensor({1, -1})); });
  r.raises("one_hot_neg", [&] { vs::one_hot(vs::tensor({1, -1})); });
  r.raises("one_hot_float", [&] { vs::one_hot(vs::ones({2}), 3); });
  r.raises("unbind_0d", [&] { vs::unbind(vs::ones({})); });
}
