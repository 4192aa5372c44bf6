// The index-shape family's cpu kernels (scatter_reduce, index_add/index_copy, take, the view
// scatters, tril/triu, roll, randperm, repeat_interleave, one_hot, ...) against float64 loops
// over the inputs' elements and LibTorch 1.13's values, over dtypes and layouts.
#include <algorithm>
#include <cmath>

#include "OpTestUtil.h"

namespace ember::optest {
namespace {

// The element of t at a multi-index, read through its strides.
double at(const Tensor& t, const std::vector<int64_t>& idx) {
  int64_t off = 0;
  for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * t.stride(static_cast<int64_t>(d));
  return read_elem(static_cast<const char*>(t.data_ptr()) + off * static_cast<int64_t>(t.itemsize()), t.dtype());
}

Tensor longs(const std::vector<double>& v, std::vector<int64_t> shape = {}, ScalarType dt = kInt64) {
  if (shape.empty()) shape = {static_cast<int64_t>(v.size())};
  return from_values(shape, dt, v);
}

std::string what(ScalarType dt, Kind k, const std::string& more = "") {
  return fmt::format("{} {} {}", dt, kind_name(k), more);
}

// ---- scatter_reduce --------------------------------------------------------------------------------

// scatter_reduce along dim 1 of a 2-d self, in double: the identity where include_self is false,
// then each src element reduced in; mean divides (floor for integers) by the count (+1 with self).
std::vector<double> ref_scatter_reduce(const Tensor& self, const Tensor& index, const Tensor& src,
                                       const std::string& reduce, bool include_self) {
  const int64_t rows = self.size(0), cols = self.size(1);
  std::vector<double> out(static_cast<size_t>(rows * cols));
  std::vector<int64_t> count(out.size(), 0);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) out[i * cols + j] = at(self, {i, j});
  const bool is_bool = self.dtype() == kBool;
  for (int64_t i = 0; i < index.size(0); ++i)
    for (int64_t j = 0; j < index.size(1); ++j) {
      const auto k = static_cast<size_t>(i * cols + static_cast<int64_t>(at(index, {i, j})));
      if (!include_self && count[k] == 0) {
        out[k] = reduce == "prod" ? 1 : reduce == "amax" ? -INFINITY : reduce == "amin" ? INFINITY : 0;
      }
      ++count[k];
      const double v = at(src, {i, j});
      double& o = out[k];
      if (reduce == "sum" || reduce == "mean") o = is_bool ? double(o != 0 || v != 0) : o + v;
      if (reduce == "prod") o = is_bool ? double(o != 0 && v != 0) : o * v;
      if (reduce == "amax") o = std::isnan(v) ? v : (o < v ? v : o);
      if (reduce == "amin") o = std::isnan(v) ? v : (v < o ? v : o);
    }
  if (reduce == "mean")
    for (size_t k = 0; k < out.size(); ++k) {
      if (count[k] == 0) continue;
      out[k] /= static_cast<double>(count[k] + (include_self ? 1 : 0));
      if (!is_floating_type(self.dtype())) out[k] = std::floor(out[k]);
    }
  return out;
}

TEST(CpuIndexShape, ScatterReduceEveryReductionDtypeAndLayout) {
  const Tensor index = longs({0, 2, 2, 4, 1, 1, 1, 0, 3, 0, 4, 4}, {3, 4});
  for (ScalarType dt : {kFloat32, kFloat64, kInt32, kInt64, kBFloat16, kBool})
    for (Kind k : {Kind::Contiguous, Kind::Transposed, Kind::Sliced})
      for (const std::string red : {"sum", "prod", "mean", "amax", "amin"})
        for (bool include_self : {true, false}) {
          if (dt == kBool && red == "mean") continue;
          const Tensor self = make({3, 5}, dt, k, 1, true), src = make({3, 4}, dt, k, 2, true);
          const Tensor r = self.scatter_reduce(1, index, src, red, include_self);
          const std::string w = what(dt, k, red + (include_self ? "" : ", without self"));
          EXPECT_EQ(r.dtype(), dt) << w;
          EXPECT_TRUE(r.is_contiguous()) << w;
          std::vector<double> ref = ref_scatter_reduce(self, index, src, red, include_self);
          for (double& v : ref) v = as_dtype(v, dt);
          expect_values(r, ref, w);
          // In place and out= give the same values.
          Tensor inplace = self.clone();
          inplace.scatter_reduce_(1, index, src, red, include_self);
          expect_values(inplace, ref, w + " in place");
          Tensor out = empty({0}, dt);
          scatter_reduce_out(out, self, 1, index, src, red, include_self);
          expect_values(out, ref, w + " out=");
        }
}

TEST(CpuIndexShape, ScatterReduceMatchesLibTorch) {
  // LibTorch 1.13: integer means round down; NaN propagates through amax and amin.
  const Tensor self = longs({1, -7, 3, 5}, {1, 4}), index = longs({0, 0, 1, 3}, {1, 4});
  const Tensor src = longs({-2, -3, 4, 6}, {1, 4});
  expect_values(self.scatter_reduce(1, index, src, "mean"), {-2, -2, 3, 5}, "mean");
  expect_values(self.scatter_reduce(1, index, src, "mean", false), {-3, 4, 3, 6}, "mean without self");
  expect_values(self.scatter_reduce(1, index, src, "prod"), {6, -28, 3, 30}, "prod");
  expect_values(self.scatter_reduce(1, index, src, "amin", false), {-3, 4, 3, 6}, "amin without self");
  const Tensor f = from_values({1, 3}, kFloat32, {1, NAN, 3}), fs = from_values({1, 3}, kFloat32, {NAN, 2, 5});
  const Tensor fi = longs({0, 1, 1}, {1, 3});
  expect_values(f.scatter_reduce(1, fi, fs, "amax"), {NAN, NAN, 3}, "amax NaN");
  expect_values(f.scatter_reduce(1, fi, fs, "amin", false), {NAN, 2, 3}, "amin NaN without self");
  expect_values(from_values({2}, kFloat32, {1.5, 2}).scatter_reduce(0, longs({1, 1, 1}),
                                                                     from_values({3}, kFloat32, {1, 2, 4}), "mean", false),
                {1.5, 7.0 / 3}, "float mean");
}

TEST(CpuIndexShape, ScatterReduceErrors) {
  const Tensor x = make({3, 4}, kFloat32, Kind::Contiguous), i = longs({0, 1, 2}, {3, 1});
  EXPECT_ERROR(ValueError, x.scatter_reduce(1, i, x, "max"), "[scatter_reduce] reduce argument must be either sum");
  EXPECT_ERROR(IndexError, x.scatter_reduce(1, longs({0, 1, 9}, {3, 1}), x, "sum"),
               "[scatter_reduce] index 9 is out of bounds for dimension 1 with size 4");
  EXPECT_ERROR(NotImplementedError, x.to(kBool).scatter_reduce(1, i, x.to(kBool), "mean"), "dtype bool");
  Tensor e = x.expand({2, 3, 4}).select(0, 0).expand({3, 4});
  EXPECT_ERROR(ValueError, e.unsqueeze(0).expand({2, 3, 4}).scatter_reduce_(2, i.unsqueeze(0), x.unsqueeze(0), "sum"),
               "more than one element");
}

// ---- index_add, index_copy, take ---------------------------------------------------------------------

TEST(CpuIndexShape, IndexAddRepeatedIndicesAlphaDtypesAndLayouts) {
  for (ScalarType dt : {kFloat32, kFloat64, kInt64, kInt8, kFloat16, kBool})
    for (Kind k : {Kind::Contiguous, Kind::Transposed, Kind::Sliced})
      for (ScalarType it : {kInt64, kInt32})
        for (int64_t dim : {0, 1}) {
          const Tensor self = make({4, 5}, dt, k, 3);
          const Tensor index = longs({2, 0, 2}, {}, it);
          const Tensor source = dim == 0 ? make({3, 5}, dt, k, 4) : make({4, 3}, dt, k, 4);
          const double alpha = dt == kBool ? 1 : 2;
          const Tensor r = self.index_add(dim, index, source, alpha);
          std::vector<double> ref = values(self);
          for (int64_t a = 0; a < source.size(0); ++a)
            for (int64_t b = 0; b < source.size(1); ++b) {
              const int64_t row = dim == 0 ? static_cast<int64_t>(at(index, {a})) : a;
              const int64_t col = dim == 1 ? static_cast<int64_t>(at(index, {b})) : b;
              double& o = ref[static_cast<size_t>(row * 5 + col)];
              o = dt == kBool ? double(o != 0 || at(source, {a, b}) != 0) : as_dtype(o + alpha * at(source, {a, b}), dt);
            }
          const std::string w = what(dt, k, fmt::format("index {} dim {}", it, dim));
          EXPECT_TRUE(r.is_contiguous()) << w;
          expect_values(r, ref, w);
        }
  // A 0-dim self takes one index and a 0-dim source.
  expect_values(from_values({}, kFloat32, {1}).index_add(0, longs({0}), from_values({}, kFloat32, {2}), 3), {7},
                "0-d");
  const Tensor x = zeros({3, 4});
  EXPECT_ERROR(IndexError, x.index_add(1, longs({0, 9}), ones({3, 2})),
               "[index_add_] index 9 is out of bounds for dimension 1 with size 4");
  EXPECT_ERROR(IndexError, x.index_add(1, longs({0, -1}), ones({3, 2})), "[index_add_] index -1 is out of bounds");
  EXPECT_ERROR(ValueError, x.index_add(1, longs({0, 1}), ones({2, 2})), "expected shape [3, 2]", "got [2, 2]");
}

TEST(CpuIndexShape, IndexCopyTake) {
  for (ScalarType dt : {kFloat32, kInt16, kBool, kBFloat16})
    for (Kind k : {Kind::Contiguous, Kind::Transposed}) {
      const Tensor self = make({4, 3}, dt, k, 5), source = make({4, 2}, dt, k, 6);
      const Tensor r = self.index_copy(1, longs({2, 0}), source);
      std::vector<double> ref = values(self);
      for (int64_t a = 0; a < 4; ++a) {
        ref[a * 3 + 2] = at(source, {a, 0});
        ref[a * 3 + 0] = at(source, {a, 1});
      }
      expect_values(r, ref, what(dt, k, "index_copy"));
      // take reads self in row-major order whatever its strides; negative indices wrap.
      const Tensor t = ember::take(self, longs({11, -12, 4, -1}, {2, 2}));
      const std::vector<double> flat = values(self);
      expect_values(t, {flat[11], flat[0], flat[4], flat[11]}, what(dt, k, "take"));
      EXPECT_EQ(t.sizes(), IntArrayRef({2, 2}));
    }
  const Tensor x = zeros({3, 4});
  EXPECT_ERROR(IndexError, x.index_copy(1, longs({0, 4}), ones({3, 2})),
               "[index_copy_] index 4 is out of bounds for dimension 1 with size 4");
  EXPECT_ERROR(IndexError, ember::take(x, longs({0, 12})),
               "[take] out of range: tried to access index 12 on a tensor of 12 elements.");
  EXPECT_ERROR(IndexError, ember::take(x, longs({-13})), "tried to access index -13");
}

// ---- view scatters, masked_scatter, copy, fill -----------------------------------------------------

TEST(CpuIndexShape, ViewScattersWriteTheViewOfACopy) {
  for (ScalarType dt : {kFloat32, kInt32, kBool})
    for (Kind k : {Kind::Contiguous, Kind::Transposed, Kind::Sliced}) {
      const Tensor x = make({3, 4}, dt, k, 7);
      const std::vector<double> before = values(x);
      const Tensor row = make({4}, kFloat64, Kind::Contiguous, 8);
      Tensor r = select_scatter(x, row, 0, -1);
      std::vector<double> ref = before;
      for (int64_t j = 0; j < 4; ++j) ref[8 + j] = as_dtype(at(row, {j}), dt);
      expect_values(r, ref, what(dt, k, "select_scatter"));
      EXPECT_EQ(values(x), before) << "self unchanged";
      // slice_scatter: columns 1 and 3.
      const Tensor cols = make({3, 2}, dt, Kind::Contiguous, 9);
      r = slice_scatter(x, cols, 1, 1, std::nullopt, 2);
      ref = before;
      for (int64_t i = 0; i < 3; ++i) {
        ref[i * 4 + 1] = at(cols, {i, 0});
        ref[i * 4 + 3] = at(cols, {i, 1});
      }
      expect_values(r, ref, what(dt, k, "slice_scatter"));
      // diagonal_scatter, offset 1: (0, 1), (1, 2), (2, 3).
      const Tensor d = make({3}, dt, Kind::Contiguous, 10);
      r = diagonal_scatter(x, d, 1);
      ref = before;
      for (int64_t i = 0; i < 3; ++i) ref[i * 4 + i + 1] = at(d, {i});
      expect_values(r, ref, what(dt, k, "diagonal_scatter"));
      // The result keeps self's strides (LibTorch's clone with preserve_format).
      if (k == Kind::Transposed) {
        EXPECT_EQ(r.strides(), x.strides());
      }
    }
  EXPECT_ERROR(ValueError, select_scatter(zeros({3, 4}), zeros({3}), 0, 0),
               "[select_scatter] expected src to have a size equal to the slice of self. src size = [3], slice size = [4]");
}

TEST(CpuIndexShape, MaskedScatterCopyFill) {
  const Tensor self = from_values({3}, kFloat32, {1, 2, 3});
  const Tensor mask = from_values({2, 3}, kBool, {1, 0, 1, 0, 1, 0});
  const Tensor r = ember::masked_scatter(self, mask, from_values({4}, kFloat32, {10, 20, 30, 40}));
  EXPECT_EQ(r.sizes(), IntArrayRef({2, 3}));
  expect_values(r, {10, 2, 20, 1, 30, 3}, "masked_scatter broadcasts self");
  EXPECT_ERROR(ValueError, ember::masked_scatter(self, mask, from_values({2}, kFloat32, {1, 2})),
               "expected at least 3 elements");

  const Tensor c = ember::copy(make({2, 3}, kInt32, Kind::Transposed), from_values({3}, kFloat64, {1.5, 2.5, -1}));
  EXPECT_EQ(c.dtype(), kInt32);
  EXPECT_TRUE(c.is_contiguous());
  expect_values(c, {1, 2, -1, 1, 2, -1}, "copy broadcasts and converts");
  const Tensor t = make({2, 3}, kFloat32, Kind::Transposed);
  const Tensor f = ember::fill(t, 2.5);
  EXPECT_EQ(f.strides(), t.strides());
  expect_values(f, std::vector<double>(6, 2.5), "fill");
  expect_values(ember::fill(t, from_values({}, kFloat64, {-1})), std::vector<double>(6, -1), "fill with a tensor");
  Tensor u = zeros({2}, kInt64);
  u.fill_(from_values({}, kFloat32, {3.7}));
  expect_values(u, {3, 3}, "fill_ with a float value truncates");
  EXPECT_ERROR(ValueError, u.fill_(zeros({1})), "[fill_] fill_ only supports 0-dimension value tensor");
  EXPECT_EQ(_local_scalar_dense(from_values({1, 1}, kInt16, {-4})).toLong(), -4);
}

// ---- tril, triu, roll --------------------------------------------------------------------------------

TEST(CpuIndexShape, TrilTriuEveryDtypeLayoutAndDiagonal) {
  for (ScalarType dt : kDtypes)
    for (Kind k : {Kind::Contiguous, Kind::Transposed, Kind::Sliced})
      for (int64_t diag : {-4, -1, 0, 2, 6})
        for (bool lower : {true, false}) {
          const Tensor x = make({2, 3, 4}, dt, k, 11, true);
          std::vector<double> ref = values(x);
          for (int64_t b = 0; b < 2; ++b)
            for (int64_t i = 0; i < 3; ++i)
              for (int64_t j = 0; j < 4; ++j)
                if (lower ? j - i > diag : j - i < diag) ref[(b * 3 + i) * 4 + j] = 0;
          const std::string w = what(dt, k, fmt::format("{} {}", lower ? "tril" : "triu", diag));
          const Tensor r = lower ? x.tril(diag) : x.triu(diag);
          EXPECT_TRUE(r.is_contiguous()) << w;
          expect_values(r, ref, w);
          Tensor inplace = x.clone().transpose(1, 2).contiguous().transpose(1, 2);  // a non-contiguous self
          (lower ? inplace.tril_(diag) : inplace.triu_(diag));
          expect_values(inplace, ref, w + " in place");
          Tensor out = empty({1}, dt);
          (lower ? tril_out(out, x, diag) : triu_out(out, x, diag));
          expect_values(out, ref, w + " out=");
        }
  EXPECT_ERROR(ValueError, ember::tril(zeros({3})), "[tril] expected a tensor with at least 2 dimensions, but self is 1D");
}

TEST(CpuIndexShape, RollDimsAndFlattened) {
  for (ScalarType dt : {kFloat32, kInt64, kBool, kFloat16})
    for (Kind k : kKinds) {
      const Tensor x = make({3, 4}, dt, k, 12);
      const Tensor r = ember::roll(x, {1, -6}, {0, 1});
      std::vector<double> ref(12);
      for (int64_t i = 0; i < 3; ++i)
        for (int64_t j = 0; j < 4; ++j) ref[((i + 1) % 3) * 4 + ((j - 6) % 4 + 4) % 4] = at(x, {i, j});
      expect_values(r, ref, what(dt, k, "roll two dims"));
      const std::vector<double> flat = values(x);
      std::vector<double> rf(12);
      for (int64_t i = 0; i < 12; ++i) rf[(i + 5) % 12] = flat[i];
      expect_values(ember::roll(x, {5}), rf, what(dt, k, "roll flattened"));
      EXPECT_EQ(ember::roll(x, {5}).sizes(), x.sizes());
    }
  // LibTorch: roll(arange(6).reshape({2, 3}).t(), 1, 0) is [[2, 5], [0, 3], [1, 4]].
  expect_values(ember::roll(arange(6).reshape({2, 3}).t(), {1}, {0}), {2, 5, 0, 3, 1, 4}, "LibTorch's roll");
  EXPECT_ERROR(ValueError, ember::roll(zeros({2}), {1, 2}, {0}), "[roll] shifts and dimensions must align");
}

// ---- randperm -----------------------------------------------------------------------------------------

TEST(CpuIndexShape, RandpermIsASeededPermutation) {
  for (ScalarType dt : {kInt64, kInt32, kInt16, kUInt8, kFloat32, kFloat64, kFloat16, kBFloat16})
    for (int64_t n : {0, 1, 7, 200}) {
      if (dt == kUInt8 && n > 256) continue;
      manual_seed(3);
      const Tensor p = randperm(n, dt);
      EXPECT_EQ(p.dtype(), dt);
      std::vector<double> v = values(p);
      std::sort(v.begin(), v.end());
      for (int64_t i = 0; i < n; ++i) EXPECT_EQ(v[i], static_cast<double>(i)) << dt << " n " << n;
    }
  manual_seed(11);
  const Tensor a = randperm(1000);
  manual_seed(11);
  const Tensor b = randperm(1000);
  EXPECT_TRUE(a.equal(b));
  EXPECT_FALSE(a.equal(randperm(1000)));
  EXPECT_FALSE(a.equal(arange(1000)));
  expect_thread_invariant("randperm", [] {
    manual_seed(5);
    return randperm(5000);
  });
  Tensor out = empty({2}, kInt32);
  randperm_out(out, 9);
  EXPECT_EQ(out.sizes(), IntArrayRef({9}));
  EXPECT_ERROR(ValueError, randperm(-1), "[randperm] n must be non-negative, got -1");
  EXPECT_ERROR(ValueError, randperm(300, kInt8), "[randperm] n cannot be greater than 128 for dtype int8");
}

// ---- the composites ------------------------------------------------------------------------------------

TEST(CpuIndexShape, RepeatInterleave) {
  expect_values(repeat_interleave(longs({1, 0, 3})), {0, 2, 2, 2}, "repeats");
  EXPECT_EQ(repeat_interleave(longs({2, 1}, {}, kInt32)).dtype(), kInt32);
  const Tensor x = from_values({2, 2}, kFloat32, {1, 2, 3, 4});
  expect_values(x.repeat_interleave(2), {1, 1, 2, 2, 3, 3, 4, 4}, "int, flattened");
  expect_values(x.repeat_interleave(longs({1, 2}), 0), {1, 2, 3, 4, 3, 4}, "tensor, dim 0");
  expect_values(x.repeat_interleave(longs({2}), 1), {1, 1, 2, 2, 3, 3, 4, 4}, "one repeat for every element");
  expect_values(x.repeat_interleave(2, 1), {1, 1, 2, 2, 3, 3, 4, 4}, "int, dim 1");
  EXPECT_ERROR(ValueError, repeat_interleave(longs({1, -2})), "[repeat_interleave] repeats can not be negative");
  EXPECT_ERROR(ValueError, x.repeat_interleave(longs({1, 2, 3}), 0), "repeats must have the same size as input");
  EXPECT_ERROR(ValueError, x.repeat_interleave(2, 0, 5), "allocated size does not match required size");
}

TEST(CpuIndexShape, OneHotMeshgridMovedimDiagTrace) {
  const Tensor oh = nn::functional::one_hot(longs({0, 2}), 3);
  EXPECT_EQ(oh.dtype(), kInt64);
  expect_values(oh, {1, 0, 0, 0, 0, 1}, "one_hot");
  EXPECT_EQ(ember::one_hot(longs({1, 4})).sizes(), IntArrayRef({2, 5}));
  EXPECT_ERROR(ValueError, ember::one_hot(longs({1, -1})), "[one_hot] Class values must be non-negative.");
  EXPECT_ERROR(ValueError, ember::one_hot(longs({1, 3}), 3), "Class values must be smaller than num_classes.");
  EXPECT_ERROR(ValueError, ember::one_hot(zeros({0}, kInt64)), "Can not infer total number of classes");

  // LibTorch: meshgrid({arange(2), arange(3)}, "xy")[0] is [[0, 1], [0, 1], [0, 1]], strides [0, 1].
  const auto g = meshgrid({arange(2), arange(3)}, "xy");
  expect_values(g[0], {0, 1, 0, 1, 0, 1}, "meshgrid xy");
  EXPECT_EQ(g[0].strides(), IntArrayRef({0, 1}));
  EXPECT_EQ(g[1].strides(), IntArrayRef({1, 0}));
  EXPECT_EQ(meshgrid({arange(2), arange(3)})[0].sizes(), IntArrayRef({2, 3}));

  const Tensor m = ones({2, 3, 4, 5});
  EXPECT_EQ(movedim(m, {0, 1}, {2, 0}).sizes(), IntArrayRef({3, 4, 2, 5}));
  EXPECT_EQ(moveaxis(m, -1, 0).sizes(), IntArrayRef({5, 2, 3, 4}));
  EXPECT_EQ(storage_of(movedim(m, 0, 1)), storage_of(m));

  expect_values(diag(from_values({2}, kFloat32, {1, 2}), 1), {0, 1, 0, 0, 0, 2, 0, 0, 0}, "diag of a vector");
  expect_values(diag(arange(6).reshape({2, 3}), -1), {3}, "diag of a matrix");
  const Tensor de = diag_embed(from_values({2, 2}, kFloat32, {1, 2, 3, 4}));
  EXPECT_EQ(de.sizes(), IntArrayRef({2, 2, 2}));
  expect_values(de, {1, 0, 0, 2, 3, 0, 0, 4}, "diag_embed");
  const Tensor tr = trace(arange(9).reshape({3, 3}));
  EXPECT_EQ(tr.dtype(), kInt64);
  EXPECT_EQ(tr.item<int64_t>(), 12);
  expect_values(tile(from_values({2}, kFloat32, {1, 2}), {2, 2}), {1, 2, 1, 2, 1, 2, 1, 2}, "tile");
}

TEST(CpuIndexShape, ViewsShareStorage) {
  const Tensor x = arange(12).reshape({3, 4});
  const auto parts = x.split_with_sizes({1, 3}, 1);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[1].sizes(), IntArrayRef({3, 3}));
  EXPECT_EQ(storage_of(parts[1]), storage_of(x));
  expect_values(parts[1], {1, 2, 3, 5, 6, 7, 9, 10, 11}, "split_with_sizes");
  const Tensor s = ember::squeeze(x.reshape({1, 3, 1, 4}), {0, 2, 3});
  EXPECT_EQ(s.sizes(), IntArrayRef({3, 4}));
  EXPECT_EQ(storage_of(ember::alias(x)), storage_of(x));
  const auto u = x.unbind(1);
  ASSERT_EQ(u.size(), 4u);
  expect_values(u[2], {2, 6, 10}, "unbind");
  EXPECT_EQ(broadcast_to(from_values({3, 1}, kFloat32, {1, 2, 3}), {2, 3, 4}).strides(), IntArrayRef({0, 1, 0}));
  // any / all over several dims (None: every dim).
  const Tensor b = from_values({2, 3}, kFloat32, {0, 1, 0, 0, 0, 0});
  expect_values(b.any(IntArrayRef{1}), {1, 0}, "any.dims");
  expect_values(b.all(std::optional<IntArrayRef>(), true), {0}, "all.dims, None");
  EXPECT_EQ(b.any(IntArrayRef{0, 1}).dim(), 0);
}

}  // namespace
}  // namespace ember::optest
