// sort, argsort and topk against a naive reference (std::stable_sort of the indices with NaN
// above every number): every dtype, contiguous and non-contiguous inputs, every dim, values ==
// input[indices] read straight from memory, stability on ties, NaN placement, the heap and the
// nth_element selection paths of topk, and the error messages.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "ember/ember.h"
#include "ember/native/TensorHelpers.h"

#include "OpTestUtil.h"

using namespace ember;
using namespace ember::optest;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

// The lines of t along dim (row-major over the other dimensions), read from memory.
std::vector<std::vector<double>> lines(const Tensor& t, int64_t dim) {
  const auto v = values(t);
  if (t.dim() == 0) return {v};
  const int64_t w = dim < 0 ? dim + t.dim() : dim;
  int64_t inner = 1;
  for (int64_t d = w + 1; d < t.dim(); ++d) inner *= t.size(d);
  int64_t outer = 1;
  for (int64_t d = 0; d < w; ++d) outer *= t.size(d);
  const int64_t n = t.size(w);
  std::vector<std::vector<double>> out;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      std::vector<double> line;
      for (int64_t k = 0; k < n; ++k) line.push_back(v[(o * n + k) * inner + i]);
      out.push_back(line);
    }
  return out;
}

// The stable order of a line: ascending with NaN last, or descending with NaN first.
std::vector<int64_t> ref_order(const std::vector<double>& x, bool desc) {
  std::vector<int64_t> idx(x.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) {
    const double u = x[a], v = x[b];
    if (desc) return std::isnan(u) ? !std::isnan(v) : u > v;
    return std::isnan(v) ? !std::isnan(u) : u < v;
  });
  return idx;
}

bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

// values and indices (k per line along dim) against the first k of the reference order.
void check_selection(const Tensor& self, const Tensor& values_t, const Tensor& indices_t, int64_t dim, bool desc,
                     int64_t k, bool ordered, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(values_t.dtype(), self.dtype());
  EXPECT_EQ(indices_t.dtype(), kInt64);
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end());
  if (self.dim() > 0) shape[dim < 0 ? dim + self.dim() : dim] = k;
  EXPECT_EQ(values_t.sizes(), IntArrayRef(shape));
  EXPECT_EQ(indices_t.sizes(), IntArrayRef(shape));
  const auto in = lines(self, dim), vs = lines(values_t, dim), is = lines(indices_t, dim);
  ASSERT_EQ(in.size(), vs.size());
  for (size_t l = 0; l < in.size(); ++l) {
    const auto order = ref_order(in[l], desc);
    std::vector<int64_t> got_idx(is[l].begin(), is[l].end());
    for (int64_t j = 0; j < k; ++j) {
      ASSERT_GE(got_idx[j], 0);
      ASSERT_LT(got_idx[j], static_cast<int64_t>(in[l].size()));
      EXPECT_TRUE(same(vs[l][j], in[l][got_idx[j]])) << "values != self[indices] in line " << l << " at " << j;
    }
    std::vector<int64_t> want(order.begin(), order.begin() + k);
    if (!ordered) {  // the selected set only
      std::sort(want.begin(), want.end());
      std::sort(got_idx.begin(), got_idx.end());
    }
    EXPECT_EQ(got_idx, want) << "line " << l;
  }
}

}  // namespace

TEST(CpuSort, SortEveryDtypeLayoutAndDim) {
  for (ScalarType dt : kDtypes) {
    for (Kind kind : kKinds) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " " + kind_name(kind));
      Tensor a = make({3, 4, 5}, dt, kind, 3);  // few distinct values: many ties
      for (int64_t d : {-1, 0, 1, 2}) {
        for (bool desc : {false, true}) {
          const std::string what = "dim " + std::to_string(d) + (desc ? " desc" : " asc");
          auto [v, i] = a.sort(d, desc);
          check_selection(a, v, i, d, desc, a.size(d), true, "sort " + what);
          // Laid out as self (LibTorch's sort.stable meta): dense strides in self's order.
          EXPECT_EQ(v.strides(), IntArrayRef(native::infer_dense_strides(a.sizes(), a.strides())));
          EXPECT_EQ(i.strides(), v.strides());
          auto [v2, i2] = ember::sort(a, std::optional<bool>(true), d, desc);
          EXPECT_EQ(values(i2), values(i)) << "sort.stable " << what;
          EXPECT_EQ(values(a.argsort(d, desc)), values(i)) << "argsort " << what;
        }
      }
    }
  }
}

TEST(CpuSort, LongRowsEveryDtype) {
  // Rows of 300 and 1000 (the radix path for 32-bit keys) with ties, +-0, +-inf and NaN.
  for (ScalarType dt : kDtypes) {
    for (int64_t len : {int64_t{300}, int64_t{1000}}) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " len " + std::to_string(len));
      std::vector<double> x(static_cast<size_t>(2 * len));
      for (size_t n = 0; n < x.size(); ++n) {
        const double v = static_cast<double>((n * 7919) % 211) - 105;
        x[n] = dt == kBool ? static_cast<double>(n % 3 == 0) : dt == kUInt8 ? v + 105 : v;
      }
      if (is_floating_type(dt)) {
        x[3] = kNaN;
        x[len + 5] = kNaN;
        x[10] = -0.0;
        x[11] = 0.0;
        x[12] = kInf;
        x[len + 1] = -kInf;
      }
      Tensor a = from_values({2, len}, dt, x);
      for (const Tensor& t : {a, a.t().contiguous().t()}) {
        for (bool desc : {false, true}) {
          auto [v, i] = t.sort(1, desc);
          check_selection(t, v, i, 1, desc, len, true, desc ? "desc" : "asc");
        }
        auto [v0, i0] = t.sort(0);
        check_selection(t, v0, i0, 0, false, 2, true, "dim 0");
      }
    }
  }
}

TEST(CpuSort, StableOnTies) {
  Tensor a = from_values({8}, kInt32, {2, 1, 2, 1, 2, 0, 1, 2});
  auto [v, i] = a.sort();
  EXPECT_EQ(values(v), (std::vector<double>{0, 1, 1, 1, 2, 2, 2, 2}));
  EXPECT_EQ(values(i), (std::vector<double>{5, 1, 3, 6, 0, 2, 4, 7}));
  auto [vd, id] = a.sort(-1, true);
  EXPECT_EQ(values(vd), (std::vector<double>{2, 2, 2, 2, 1, 1, 1, 0}));
  EXPECT_EQ(values(id), (std::vector<double>{0, 2, 4, 7, 1, 3, 6, 5}));
  // -0.0 and 0.0 are equal keys: index order, each value kept as stored.
  Tensor z = from_values({3}, kFloat32, {0.0, -0.0, -1});
  auto [zv, zi] = z.sort();
  EXPECT_EQ(values(zi), (std::vector<double>{2, 0, 1}));
  EXPECT_FALSE(std::signbit(values(zv)[1]));
  EXPECT_TRUE(std::signbit(values(zv)[2]));
}

TEST(CpuSort, NaNPlacement) {
  for (ScalarType dt : {kFloat16, kBFloat16, kFloat32, kFloat64}) {
    SCOPED_TRACE(dtype_name(dt));
    Tensor a = from_values({7}, dt, {1, kNaN, -kInf, 0.5, kNaN, kInf, -2});
    auto [v, i] = a.sort();
    const auto vv = values(v);
    EXPECT_EQ(std::vector<double>(vv.begin(), vv.begin() + 5), (std::vector<double>{-kInf, -2, 0.5, 1, kInf}));
    EXPECT_TRUE(std::isnan(vv[5]) && std::isnan(vv[6]));
    EXPECT_EQ(values(i), (std::vector<double>{2, 6, 3, 0, 5, 1, 4}));
    auto [vd, id] = a.sort(0, true);
    EXPECT_EQ(values(id), (std::vector<double>{1, 4, 5, 0, 3, 6, 2}));
    auto [tv, ti] = a.topk(3);
    EXPECT_EQ(values(ti), (std::vector<double>{1, 4, 5}));
    auto [sv, si] = a.topk(2, 0, false);
    EXPECT_EQ(values(si), (std::vector<double>{2, 6}));
    check_selection(a, vd, id, 0, true, 7, true, "desc");
  }
}

TEST(CpuSort, TopkEveryDtypeLayoutAndK) {
  for (ScalarType dt : kDtypes) {
    for (Kind kind : kKinds) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " " + kind_name(kind));
      Tensor a = make({3, 4, 6}, dt, kind, 5);
      for (int64_t d : {-1, 0, 1}) {
        for (int64_t k : {int64_t{0}, int64_t{1}, int64_t{2}, a.size(d)}) {
          for (bool largest : {true, false}) {
            for (bool sorted : {true, false}) {
              auto [v, i] = a.topk(k, d, largest, sorted);
              check_selection(a, v, i, d, largest, k, sorted,
                              "dim " + std::to_string(d) + " k " + std::to_string(k) +
                                  (largest ? " largest" : " smallest") + (sorted ? " sorted" : " unsorted"));
            }
          }
        }
      }
    }
  }
}

TEST(CpuSort, TopkHeapAndSelectPathsOnLongRows) {
  // 300 random-ish float rows with duplicates: k = 3 takes the heap path, k = 150 nth_element.
  std::vector<double> x(2 * 300);
  for (size_t n = 0; n < x.size(); ++n) x[n] = static_cast<double>((n * 7919) % 97) - 40;
  x[17] = kNaN;
  for (ScalarType dt : {kFloat32, kFloat64, kInt32, kBFloat16}) {
    SCOPED_TRACE(dtype_name(dt));
    Tensor a = from_values({2, 300}, dt, x);
    if (!is_floating_type(dt))
      a = from_values({2, 300}, dt, [&] {
        auto y = x;
        y[17] = 5;
        return y;
      }());
    Tensor at = a.t().contiguous().t();  // same values, column-major
    for (const Tensor& s : {a, at}) {
      for (int64_t k : {1, 3, 18, 150, 299}) {
        for (bool largest : {true, false}) {
          for (bool sorted : {true, false}) {
            auto [v, i] = s.topk(k, 1, largest, sorted);
            check_selection(s, v, i, 1, largest, k, sorted, "k " + std::to_string(k));
          }
        }
      }
    }
  }
}

TEST(CpuSort, ZeroDimAndEmpty) {
  Tensor s = ember::full({}, 3.5);
  auto [v, i] = s.sort();
  EXPECT_EQ(v.dim(), 0);
  EXPECT_EQ(values(v), (std::vector<double>{3.5}));
  EXPECT_EQ(values(i), (std::vector<double>{0}));
  auto [tv, ti] = s.topk(1);
  EXPECT_EQ(values(tv), (std::vector<double>{3.5}));
  auto [zv, zi] = s.topk(0);  // LibTorch: a 0-dim input is copied for any valid k
  EXPECT_EQ(zv.dim(), 0);
  EXPECT_EQ(values(zv), (std::vector<double>{3.5}));
  EXPECT_EQ(values(zi), (std::vector<double>{0}));
  Tensor e = ember::zeros({2, 0});
  auto [ev, ei] = e.sort(1);
  EXPECT_EQ(ev.sizes(), IntArrayRef({2, 0}));
  auto [sv, si] = e.sort(0);
  EXPECT_EQ(si.sizes(), IntArrayRef({2, 0}));
  EXPECT_EQ(std::get<0>(e.topk(0, 1)).sizes(), IntArrayRef({2, 0}));
}

TEST(CpuSort, Errors) {
  Tensor a = ember::ones({2, 3});
  EXPECT_ERROR(IndexError, a.topk(4), "[topk]", "'k'", "out of range", "got 4");
  EXPECT_ERROR(IndexError, a.topk(-1), "[topk]", "'k'", "out of range");
  EXPECT_ERROR(IndexError, a.topk(3, 0), "[topk]", "k <= 2");
  EXPECT_ERROR(IndexError, ember::full({}, 1.0).topk(2), "[topk]", "k <= 1");
  EXPECT_ERROR(IndexError, a.sort(2), "[sort]", "dimension out of range");
  EXPECT_ERROR(IndexError, a.argsort(int64_t{-3}), "[argsort]", "dimension out of range");
  EXPECT_ERROR(IndexError, a.topk(1, 5), "[topk]", "dimension out of range");
}

TEST(CpuSort, OutVariants) {
  Tensor a = make({3, 5}, kFloat32, Kind::Transposed, 2);
  Tensor v = ember::empty({0}), i = ember::empty({0}, kInt64);
  auto [rv, ri] = ember::sort_out(v, i, a, 0, true);
  EXPECT_EQ(&rv, &v);
  EXPECT_EQ(&ri, &i);
  auto [wv, wi] = a.sort(0, true);
  EXPECT_EQ(v.sizes(), wv.sizes());
  EXPECT_EQ(values(v), values(wv));
  EXPECT_EQ(values(i), values(wi));
  // A non-contiguous out of the right shape keeps its strides.
  Tensor tv = ember::zeros({2, 3}).t(), ti = ember::zeros({2, 3}, kInt64).t();  // {3, 2}, strides {1, 3}
  ember::topk_out(tv, ti, a, 2);
  EXPECT_EQ(tv.stride(0), 1);
  EXPECT_EQ(ti.stride(1), 3);
  auto [kv, ki] = a.topk(2);
  EXPECT_EQ(values(tv), values(kv));
  EXPECT_EQ(values(ti), values(ki));
  Tensor bad = ember::empty({0}, kInt32);
  EXPECT_ERROR(TypeError, ember::sort_out(bad, i, a), "[sort]", "'values'", "float32");
  EXPECT_ERROR(TypeError, ember::topk_out(v, bad, a, 1), "[topk]", "'indices'", "int64");
}

TEST(CpuSort, BoxedOutVariantsOnTemporariesOwnTheirResults) {
  // The stack holds the only references to the out tensors: the boxed call must return them
  // alive (ASan reported a use-after-free here), with the values the typed call computes.
  const Tensor a = make({3, 5}, kFloat32, Kind::Contiguous, 3);
  auto check = [&](const char* op, const IValue& r, const Tensor& want_v, const Tensor& want_i) {
    SCOPED_TRACE(op);
    ASSERT_TRUE(r.isTuple());
    ASSERT_EQ(r.toTupleRef().size(), 2u);
    const Tensor& v = r.toTupleRef()[0].toTensor();
    const Tensor& i = r.toTupleRef()[1].toTensor();
    EXPECT_EQ(v.use_count(), 1);
    EXPECT_EQ(i.use_count(), 1);
    EXPECT_EQ(v.sizes(), want_v.sizes());
    EXPECT_EQ(i.dtype(), kInt64);
    EXPECT_EQ(values(v), values(want_v));
    EXPECT_EQ(values(i), values(want_i));
  };
  // Fresh out tensors each time, moved onto the stack.
  auto v0 = [] { return ember::empty({0}); };
  auto i0 = [] { return ember::empty({0}, kInt64); };
  using ember::ops::call;
  auto [mv, mi] = a.max(1);
  check("max.dim_max", call("aten::max.dim_max", a, int64_t{1}, false, v0(), i0()), mv, mi);
  auto [nv, ni] = a.min(0, true);
  check("min.dim_min", call("aten::min.dim_min", a, int64_t{0}, true, v0(), i0()), nv, ni);
  auto [sv, si] = a.sort(1, true);
  check("sort.values", call("aten::sort.values", a, int64_t{1}, true, v0(), i0()), sv, si);
  auto [kv, ki] = a.topk(2);
  check("topk.values", call("aten::topk.values", a, int64_t{2}, int64_t{-1}, true, true, v0(), i0()), kv, ki);
}
