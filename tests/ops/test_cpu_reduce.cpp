// The reductions (mean, prod, amax/amin, max/min, max.dim/min.dim, argmax/argmin,
// any/all) against naive float64 references: several dtypes, contiguous and non-contiguous
// inputs, negative and multiple dims, keepdim, NaN propagation, empty inputs, and the error
// messages. Reference values are read straight from memory through sizes and strides.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "ember/ember.h"

#include "OpTestUtil.h"

using namespace ember;
using namespace ember::optest;

namespace {

const std::vector<ScalarType> kFloats = {kFloat16, kBFloat16, kFloat32, kFloat64};

// The rows of a reduction: for each output element (kept coordinates in row-major order), the
// input values over the reduced dimensions in row-major order. An empty `dims` reduces all.
std::vector<std::vector<double>> rows_of(const Tensor& a, std::vector<int64_t> dims) {
  const int64_t nd = a.dim();
  std::vector<bool> red(static_cast<size_t>(nd), dims.empty());
  for (int64_t d : dims)
    if (nd > 0) red[d < 0 ? d + nd : d] = true;
  int64_t outer = 1;
  for (int64_t d = 0; d < nd; ++d)
    if (!red[d]) outer *= a.size(d);
  std::vector<std::vector<double>> rows(static_cast<size_t>(outer));
  const auto v = values(a);
  std::vector<int64_t> idx(static_cast<size_t>(nd), 0);
  for (size_t n = 0; n < v.size(); ++n) {
    int64_t o = 0;
    for (int64_t d = 0; d < nd; ++d)
      if (!red[d]) o = o * a.size(d) + idx[d];
    rows[o].push_back(v[n]);
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (++idx[d] < a.size(d)) break;
      idx[d] = 0;
    }
  }
  return rows;
}

std::vector<int64_t> out_shape(const Tensor& a, std::vector<int64_t> dims, bool keepdim) {
  const int64_t nd = a.dim();
  std::vector<bool> red(static_cast<size_t>(nd), dims.empty());
  for (int64_t d : dims)
    if (nd > 0) red[d < 0 ? d + nd : d] = true;
  std::vector<int64_t> s;
  for (int64_t d = 0; d < nd; ++d)
    if (!red[d]) s.push_back(a.size(d));
    else if (keepdim) s.push_back(1);
  return s;
}

std::vector<double> ref_reduce(const Tensor& a, std::vector<int64_t> dims,
                               const std::function<double(const std::vector<double>&)>& f) {
  std::vector<double> r;
  for (const auto& row : rows_of(a, dims)) r.push_back(f(row));
  return r;
}

double ref_max(const std::vector<double>& r) {
  double m = -std::numeric_limits<double>::infinity();
  for (double x : r) {
    if (std::isnan(x)) return x;
    m = std::max(m, x);
  }
  return m;
}
double ref_min(const std::vector<double>& r) {
  double m = std::numeric_limits<double>::infinity();
  for (double x : r) {
    if (std::isnan(x)) return x;
    m = std::min(m, x);
  }
  return m;
}
double ref_argmax(const std::vector<double>& r) {
  size_t b = 0;
  for (size_t i = 0; i < r.size(); ++i) {
    if (std::isnan(r[i])) return static_cast<double>(i);
    if (r[i] > r[b]) b = i;
  }
  return static_cast<double>(b);
}
double ref_argmin(const std::vector<double>& r) {
  size_t b = 0;
  for (size_t i = 0; i < r.size(); ++i) {
    if (std::isnan(r[i])) return static_cast<double>(i);
    if (r[i] < r[b]) b = i;
  }
  return static_cast<double>(b);
}

const std::vector<std::vector<int64_t>> kDimLists = {{0}, {1}, {2}, {-1}, {0, 2}, {-1, 0}, {0, 1, 2}, {}};

}  // namespace

// ---- amax / amin / max / min ----------------------------------------------------------------

TEST(CpuReduce2, AmaxAminEveryDtypeAndLayout) {
  for (ScalarType dt : kDtypes) {
    for (Kind k : kKinds) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " " + kind_name(k));
      Tensor a = make({3, 4, 5}, dt, k, 2);
      for (const auto& dims : kDimLists) {
        for (bool keep : {false, true}) {
          Tensor mx = ember::amax(a, dims, keep), mn = a.amin(dims, keep);
          EXPECT_EQ(mx.dtype(), dt);
          EXPECT_EQ(mn.dtype(), dt);
          EXPECT_EQ(mx.sizes(), IntArrayRef(out_shape(a, dims, keep)));
          expect_values(mx, ref_reduce(a, dims, ref_max), "amax");
          expect_values(mn, ref_reduce(a, dims, ref_min), "amin");
        }
      }
      Tensor m = ember::max(a);
      EXPECT_EQ(m.dim(), 0);
      EXPECT_EQ(m.dtype(), dt);
      expect_values(m, ref_reduce(a, {}, ref_max), "max()");
      expect_values(a.min(), ref_reduce(a, {}, ref_min), "min()");
    }
  }
}

TEST(CpuReduce2, MaxMinNaNAndInf) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  for (ScalarType dt : kFloats) {
    SCOPED_TRACE(dtype_name(dt));
    Tensor a = from_values({2, 4}, dt, {1, nan, 3, -inf, -2, 5, inf, 0});
    expect_values(ember::max(a), {nan}, "max with NaN");
    expect_values(ember::min(a), {nan}, "min with NaN");
    expect_values(ember::amax(a, {1}), {nan, inf}, "amax rows");
    expect_values(ember::amin(a, {1}), {nan, -2}, "amin rows");
    expect_values(ember::amax(a, {0}), {1, nan, inf, 0}, "amax cols");
    auto [v, i] = ember::max(a, 1);
    expect_values(v, {nan, inf}, "max.dim values");
    expect_values(i, {1, 2}, "max.dim indices pick the NaN");
    auto [v2, i2] = ember::min(a, -1, true);
    EXPECT_EQ(v2.sizes(), IntArrayRef({2, 1}));
    expect_values(v2, {nan, -2}, "min.dim values");
    expect_values(i2, {1, 0}, "min.dim indices");
    expect_values(ember::argmax(a), {1}, "argmax flat picks the NaN");
    expect_values(ember::argmin(a, 1), {1, 0}, "argmin rows");
    Tensor allnan = from_values({3}, dt, {nan, nan, nan});
    expect_values(ember::amax(allnan), {nan}, "all-NaN amax");
  }
  // Extremes of int64 are exact (no detour through double).
  Tensor big = ember::full({3}, int64_t{9007199254740993}, kInt64);
  big.data_ptr<int64_t>()[1] = 9007199254740995;
  EXPECT_EQ(ember::max(big).item<int64_t>(), 9007199254740995);
  EXPECT_EQ(ember::amin(big).item<int64_t>(), 9007199254740993);
}

TEST(CpuReduce2, MaxMinDimAndArgEveryDtype) {
  for (ScalarType dt : kDtypes) {
    for (Kind k : kKinds) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " " + kind_name(k));
      Tensor a = make({3, 4, 5}, dt, k, 3);
      for (int64_t d : {0, 1, 2, -1, -3}) {
        for (bool keep : {false, true}) {
          const std::vector<int64_t> dims{d};
          auto [v, i] = ember::max(a, d, keep);
          EXPECT_EQ(v.dtype(), dt);
          EXPECT_EQ(i.dtype(), kInt64);
          EXPECT_EQ(v.sizes(), IntArrayRef(out_shape(a, dims, keep)));
          EXPECT_EQ(i.sizes(), IntArrayRef(out_shape(a, dims, keep)));
          expect_values(v, ref_reduce(a, dims, ref_max), "max.dim values");
          expect_values(i, ref_reduce(a, dims, ref_argmax), "max.dim indices (first maximum)");
          auto [v2, i2] = a.min(d, keep);
          expect_values(v2, ref_reduce(a, dims, ref_min), "min.dim values");
          expect_values(i2, ref_reduce(a, dims, ref_argmin), "min.dim indices (first minimum)");
          if (dt != kBool) {
            Tensor am = ember::argmax(a, d, keep);
            EXPECT_EQ(am.dtype(), kInt64);
            EXPECT_EQ(am.sizes(), IntArrayRef(out_shape(a, dims, keep)));
            expect_values(am, ref_reduce(a, dims, ref_argmax), "argmax(dim)");
            expect_values(a.argmin(d, keep), ref_reduce(a, dims, ref_argmin), "argmin(dim)");
          }
        }
      }
      if (dt != kBool) {
        Tensor am = ember::argmax(a);
        EXPECT_EQ(am.dim(), 0);
        expect_values(am, ref_reduce(a, {}, ref_argmax), "argmax()");
        expect_values(a.argmin(), ref_reduce(a, {}, ref_argmin), "argmin()");
      } else {
        EXPECT_ERROR(NotImplementedError, ember::argmax(a), "[argmax]", "bool");
      }
    }
  }
}

TEST(CpuReduce2, ExtremesZeroDimAndEmpty) {
  Tensor s = ember::full({}, 2.5);
  expect_values(ember::max(s), {2.5}, "0-dim max");
  expect_values(ember::amax(s, {0}), {2.5}, "0-dim amax(dim=0)");
  auto [v, i] = ember::max(s, -1);
  EXPECT_EQ(v.dim(), 0);
  expect_values(i, {0}, "0-dim max.dim index");
  expect_values(ember::argmax(s, 0, true), {0}, "0-dim argmax");
  // A zero-size kept dimension is fine; a zero-size reduced one is an error.
  Tensor e = ember::zeros({0, 3});
  EXPECT_EQ(ember::amax(e, {1}).sizes(), IntArrayRef({0}));
  EXPECT_EQ(std::get<1>(ember::max(e, 1)).sizes(), IntArrayRef({0}));
  EXPECT_ERROR(IndexError, ember::max(e), "[max]", "cannot reduce over a zero-size dimension", "numel() == 0");
  EXPECT_ERROR(IndexError, ember::amax(e, {0}), "[amax]", "cannot reduce over a zero-size dimension", "dim 0");
  EXPECT_ERROR(IndexError, ember::amin(e), "[amin]", "zero-size");
  EXPECT_ERROR(IndexError, ember::max(e, 0), "[max]", "zero-size", "dim 0");
  EXPECT_ERROR(IndexError, ember::min(e, -2), "[min]", "zero-size", "dim 0");
  EXPECT_ERROR(IndexError, ember::argmax(e), "[argmax]", "zero-size");
  EXPECT_ERROR(IndexError, ember::argmin(e, 0), "[argmin]", "zero-size");
  // Dims.
  Tensor a = ember::ones({2, 3});
  EXPECT_ERROR(IndexError, ember::amax(a, {2}), "[amax]", "out of range");
  EXPECT_ERROR(ValueError, ember::amax(a, {1, -1}), "[amax]", "appears multiple times");
  EXPECT_ERROR(IndexError, ember::max(a, -3), "[max]", "out of range");
  EXPECT_ERROR(IndexError, ember::argmax(a, 2), "[argmax]", "out of range");
}

// ---- prod -----------------------------------------------------------------------------------

TEST(CpuReduce2, ProdEveryDtypeAndLayout) {
  auto prod = [](const std::vector<double>& r) {
    double p = 1;
    for (double x : r) p *= x;
    return p;
  };
  for (ScalarType dt : kDtypes) {
    for (Kind k : kKinds) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " " + kind_name(k));
      Tensor a = make({3, 2, 2}, dt, k, 4, true);
      const ScalarType want = is_floating_type(dt) ? dt : kInt64;
      Tensor p = a.prod();
      EXPECT_EQ(p.dtype(), want);
      EXPECT_EQ(p.dim(), 0);
      expect_values(p, ref_reduce(a, {}, prod), "prod()");
      for (int64_t d : {0, 1, -1}) {
        for (bool keep : {false, true}) {
          Tensor r = ember::prod(a, d, keep);
          EXPECT_EQ(r.dtype(), want);
          EXPECT_EQ(r.sizes(), IntArrayRef(out_shape(a, {d}, keep)));
          expect_values(r, ref_reduce(a, {d}, prod), "prod(dim)");
        }
      }
    }
  }
  // dtype converts first; integers wrap in int64; empty products are 1.
  Tensor h = ember::full({3}, 300.0, kFloat32);
  expect_values(h.prod(kFloat64), {2.7e7}, "prod dtype=float64");
  EXPECT_EQ(h.prod(kFloat64).dtype(), kFloat64);
  expect_values(ember::full({3}, 3, kInt32).prod(0, false, kInt8), {27}, "prod dtype=int8");
  Tensor w = ember::full({3}, int64_t{1} << 32, kInt64);
  EXPECT_EQ(w.prod().item<int64_t>(), 0);  // 2^96 wraps to 0
  expect_values(ember::empty({0}).prod(), {1}, "empty prod");
  expect_values(ember::zeros({2, 0}).prod(1), {1, 1}, "prod over empty dim");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  expect_values(from_values({3}, kFloat32, {2, nan, 0}).prod(), {nan}, "prod with NaN");
  EXPECT_ERROR(IndexError, ember::ones({2}).prod(1), "[prod]", "out of range");
}

// ---- mean -----------------------------------------------------------------------------------

TEST(CpuReduce2, MeanFloatDtypesAndLayouts) {
  auto mean = [](const std::vector<double>& r) {
    double s = 0;
    for (double x : r) s += x;
    return s / static_cast<double>(r.size());
  };
  for (ScalarType dt : kFloats) {
    for (Kind k : kKinds) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " " + kind_name(k));
      Tensor a = make({3, 4, 5}, dt, k, 5);
      Tensor m = a.mean();
      EXPECT_EQ(m.dtype(), dt);
      EXPECT_EQ(m.dim(), 0);
      expect_values(m, ref_reduce(a, {}, mean), "mean()");
      for (const auto& dims : kDimLists) {
        for (bool keep : {false, true}) {
          Tensor r = ember::mean(a, dims, keep);
          EXPECT_EQ(r.dtype(), dt);
          EXPECT_EQ(r.sizes(), IntArrayRef(out_shape(a, dims, keep)));
          expect_values(r, ref_reduce(a, dims, mean), "mean(dims)");
        }
      }
    }
  }
  // An explicit floating dtype accepts integer input, converting first.
  Tensor i = from_values({2, 2}, kInt32, {1, 2, 3, 5});
  Tensor mi = i.mean(kFloat64);
  EXPECT_EQ(mi.dtype(), kFloat64);
  expect_values(mi, {2.75}, "int mean with dtype");
  expect_values(ember::mean(i, {0}, true, kFloat32), {2, 3.5}, "int mean(dim) with dtype");
  // Accumulation in double: a million float16 0.1s average to float16(0.1).
  Tensor tenths = ember::full({1 << 20}, 0.1, kFloat16);
  expect_values(tenths.mean(), {static_cast<float>(Half(0.1f))}, "float16 mean is accurate");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  expect_values(ember::empty({0}).mean(), {nan}, "empty mean is NaN");
  expect_values(ember::zeros({2, 0}).mean(std::vector<int64_t>{1}), {nan, nan}, "mean over empty dim");
  expect_values(ember::full({}, 3.5).mean(), {3.5}, "0-dim mean");
  EXPECT_ERROR(TypeError, i.mean(), "[mean]", "Input dtype must be either a floating point", "int32");
  EXPECT_ERROR(TypeError, ember::ones({2}).mean(kInt64), "[mean]", "Optional dtype");
  EXPECT_ERROR(ValueError, ember::ones({2, 3}).mean(std::vector<int64_t>{0, -2}), "[mean]", "appears multiple times");
  EXPECT_ERROR(IndexError, ember::ones({2, 3}).mean(std::vector<int64_t>{3}), "[mean]", "out of range");
}

// ---- any / all --------------------------------------------------------------------------------

TEST(CpuReduce2, AnyAllEveryDtypeAndLayout) {
  auto any = [](const std::vector<double>& r) {
    for (double x : r)
      if (x != 0) return 1.0;
    return 0.0;
  };
  auto all = [](const std::vector<double>& r) {
    for (double x : r)
      if (x == 0) return 0.0;
    return 1.0;
  };
  for (ScalarType dt : kDtypes) {
    for (Kind k : kKinds) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " " + kind_name(k));
      // Sparse zeros so both answers occur along each dimension.
      Tensor a = make({3, 4, 5}, dt, k, 6);
      const ScalarType want = dt == kUInt8 ? kUInt8 : kBool;
      EXPECT_EQ(a.any().dtype(), want);
      expect_values(a.any(), ref_reduce(a, {}, any), "any()");
      expect_values(ember::all(a), ref_reduce(a, {}, all), "all()");
      for (int64_t d : {0, 1, 2, -1}) {
        for (bool keep : {false, true}) {
          Tensor r = ember::any(a, d, keep);
          EXPECT_EQ(r.dtype(), want);
          EXPECT_EQ(r.sizes(), IntArrayRef(out_shape(a, {d}, keep)));
          expect_values(r, ref_reduce(a, {d}, any), "any(dim)");
          expect_values(a.all(d, keep), ref_reduce(a, {d}, all), "all(dim)");
        }
      }
    }
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor f = from_values({2, 2}, kFloat32, {0, nan, 0, 0});
  expect_values(f.any(1), {1, 0}, "NaN is nonzero");
  expect_values(f.all(0), {0, 0}, "all cols");
  expect_values(ember::empty({0}).any(), {0}, "empty any");
  expect_values(ember::empty({0}).all(), {1}, "empty all");
  expect_values(ember::zeros({2, 0}).all(1), {1, 1}, "all over empty dim");
  EXPECT_ERROR(IndexError, ember::ones({2}).any(1), "[any]", "out of range");
  EXPECT_ERROR(IndexError, ember::ones({2}).all(-2), "[all]", "out of range");
}

// ---- softmax / log_softmax / logsumexp ----------------------------------------------------------

namespace {
// The reference of an op along one dimension: each line (the other coordinates fixed) mapped
// by f, laid out row-major like the input's logical order.
std::vector<double> ref_along(const Tensor& a, int64_t dim,
                              const std::function<std::vector<double>(const std::vector<double>&)>& f) {
  const int64_t nd = a.dim();
  if (nd == 0) return f(values(a));
  const int64_t w = dim < 0 ? dim + nd : dim;
  const auto v = values(a);
  std::vector<double> out(v.size());
  int64_t inner = 1;
  for (int64_t d = w + 1; d < nd; ++d) inner *= a.size(d);
  const int64_t n = a.size(w);
  const int64_t outer = n == 0 ? 0 : static_cast<int64_t>(v.size()) / (n * inner);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      std::vector<double> line;
      for (int64_t k = 0; k < n; ++k) line.push_back(v[(o * n + k) * inner + i]);
      const auto r = f(line);
      for (int64_t k = 0; k < n; ++k) out[(o * n + k) * inner + i] = r[k];
    }
  return out;
}

std::vector<double> ref_softmax(const std::vector<double>& x) {
  double m = -std::numeric_limits<double>::infinity(), s = 0;
  for (double e : x) m = std::max(m, e);
  for (double e : x) s += std::exp(e - m);
  std::vector<double> y;
  for (double e : x) y.push_back(std::exp(e - m) / s);
  return y;
}
std::vector<double> ref_log_softmax(const std::vector<double>& x) {
  auto y = ref_softmax(x);
  for (double& e : y) e = std::log(e);
  return y;
}
}  // namespace

TEST(CpuReduce2, SoftmaxLogSoftmax) {
  for (ScalarType dt : kFloats) {
    for (Kind k : kKinds) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " " + kind_name(k));
      Tensor a = make({3, 4, 5}, dt, k, 7);
      for (int64_t d : {0, 1, 2, -1, -2}) {
        Tensor s = ember::softmax(a, d);
        EXPECT_EQ(s.dtype(), dt);
        EXPECT_EQ(s.sizes(), a.sizes());
        EXPECT_TRUE(s.is_contiguous());
        expect_values(s, ref_along(a, d, ref_softmax), "softmax");
        expect_values(a.log_softmax(d), ref_along(a, d, ref_log_softmax), "log_softmax");
      }
    }
  }
  // Stable for large inputs; dtype converts first (integers are accepted only with a dtype).
  Tensor big = from_values({3}, kFloat32, {1000, 1001, 1002});
  expect_values(big.softmax(0), ref_softmax({0, 1, 2}), "large softmax");
  expect_values(big.log_softmax(0), ref_log_softmax({0, 1, 2}), "large log_softmax");
  Tensor i = from_values({2, 2}, kInt64, {1, 2, 3, 5});
  Tensor si = ember::softmax(i, 1, kFloat64);
  EXPECT_EQ(si.dtype(), kFloat64);
  expect_values(si, ref_along(i, 1, ref_softmax), "int softmax with dtype");
  EXPECT_EQ(ember::log_softmax(big, 0, kFloat64).dtype(), kFloat64);
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  expect_values(from_values({3}, kFloat32, {1, nan, 2}).softmax(0), {nan, nan, nan}, "NaN row");
  expect_values(from_values({2}, kFloat32, {-inf, 0}).softmax(0), {0, 1}, "-inf gets 0");
  expect_values(from_values({2}, kFloat32, {-inf, 0}).log_softmax(0), {-inf, 0}, "-inf log_softmax");
  expect_values(ember::full({}, 3.0).softmax(0), {1}, "0-dim softmax");
  EXPECT_EQ(ember::zeros({0, 3}).softmax(1).sizes(), IntArrayRef({0, 3}));
  EXPECT_ERROR(NotImplementedError, i.softmax(0), "[softmax]", "int64");
  EXPECT_ERROR(NotImplementedError, i.log_softmax(0), "[log_softmax]", "int64");
  EXPECT_ERROR(IndexError, big.softmax(1), "[softmax]", "out of range");
  // The float32 last-dimension path names its own op too.
  EXPECT_ERROR(IndexError, big.log_softmax(1), "[log_softmax]", "out of range");
}

TEST(CpuReduce2, Logsumexp) {
  auto lse = [](const std::vector<double>& r) {
    double s = 0;
    for (double x : r) s += std::exp(x);
    return std::log(s);
  };
  for (ScalarType dt : kDtypes) {
    for (Kind k : kKinds) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " " + kind_name(k));
      Tensor a = make({3, 4, 5}, dt, k, 8);
      const ScalarType want = is_floating_type(dt) ? dt : kFloat32;
      for (const auto& dims : kDimLists) {
        for (bool keep : {false, true}) {
          Tensor r = ember::logsumexp(a, dims, keep);
          EXPECT_EQ(r.dtype(), want);
          EXPECT_EQ(r.sizes(), IntArrayRef(out_shape(a, dims, keep)));
          expect_values(r, ref_reduce(a, dims, lse), "logsumexp");
        }
      }
    }
  }
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  Tensor big = from_values({2}, kFloat64, {1000, 1000});
  expect_values(big.logsumexp(std::vector<int64_t>{0}), {1000 + std::log(2.0)}, "stable");
  expect_values(from_values({2}, kFloat32, {-inf, -inf}).logsumexp(std::vector<int64_t>{0}), {-inf}, "all -inf");
  expect_values(from_values({2}, kFloat32, {inf, 1}).logsumexp(std::vector<int64_t>{0}), {inf}, "inf");
  expect_values(from_values({2}, kFloat32, {nan, 1}).logsumexp(std::vector<int64_t>{0}), {nan}, "NaN");
  expect_values(ember::zeros({2, 0}).logsumexp(std::vector<int64_t>{1}), {-inf, -inf}, "empty is -inf");
  EXPECT_ERROR(IndexError, big.logsumexp(std::vector<int64_t>{1}), "[logsumexp]", "out of range");
}

// ---- var / std ----------------------------------------------------------------------------------

TEST(CpuReduce2, VarStd) {
  auto var_of = [](bool unbiased) {
    return [unbiased](const std::vector<double>& r) {
      double m = 0;
      for (double x : r) m += x;
      m /= static_cast<double>(r.size());
      double s = 0;
      for (double x : r) s += (x - m) * (x - m);
      return s / (static_cast<double>(r.size()) - (unbiased ? 1 : 0));
    };
  };
  for (ScalarType dt : kFloats) {
    for (Kind k : kKinds) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " " + kind_name(k));
      Tensor a = make({3, 4, 5}, dt, k, 9);
      for (bool unbiased : {true, false}) {
        const auto vf = var_of(unbiased);
        auto sf = [&](const std::vector<double>& r) { return std::sqrt(vf(r)); };
        Tensor v = a.var(unbiased);
        EXPECT_EQ(v.dtype(), dt);
        EXPECT_EQ(v.dim(), 0);
        expect_values(v, ref_reduce(a, {}, vf), "var()");
        expect_values(ember::std(a, unbiased), ref_reduce(a, {}, sf), "std()");
        for (const auto& dims : kDimLists) {
          for (bool keep : {false, true}) {
            Tensor r = ember::var(a, IntArrayRef(dims), unbiased, keep);
            EXPECT_EQ(r.sizes(), IntArrayRef(out_shape(a, dims, keep)));
            expect_values(r, ref_reduce(a, dims, vf), "var(dims)");
            expect_values(a.std(IntArrayRef(dims), unbiased, keep), ref_reduce(a, dims, sf), "std(dims)");
          }
        }
      }
      expect_values(a.var(std::nullopt, true, true), ref_reduce(a, {}, var_of(true)), "var(None, keepdim)");
      EXPECT_EQ(a.var(std::nullopt, true, true).sizes(), IntArrayRef({1, 1, 1}));
    }
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  expect_values(ember::ones({1}).var(), {nan}, "one element, unbiased");
  expect_values(ember::ones({1}).var(false), {0}, "one element, biased");
  expect_values(ember::empty({0}).std(), {nan}, "empty std");
  expect_values(from_values({3}, kFloat32, {1, nan, 2}).var(), {nan}, "NaN");
  EXPECT_ERROR(TypeError, ember::ones({3}, kInt64).var(), "[var]", "floating point");
  EXPECT_ERROR(TypeError, ember::ones({3}, kBool).std(IntArrayRef({0})), "[std]", "floating point");
  EXPECT_ERROR(IndexError, ember::ones({3}).var(IntArrayRef({1})), "[var]", "out of range");
  EXPECT_ERROR(ValueError, ember::ones({3, 2}).std(IntArrayRef({0, -2})), "[std]", "appears multiple times");
}

// ---- cumsum -------------------------------------------------------------------------------------

TEST(CpuReduce2, Cumsum) {
  auto cums = [](const std::vector<double>& x) {
    std::vector<double> y;
    double a = 0;
    for (double e : x) y.push_back(a += e);
    return y;
  };
  for (ScalarType dt : kDtypes) {
    for (Kind k : kKinds) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " " + kind_name(k));
      Tensor a = make({3, 4, 5}, dt, k, 10);
      const ScalarType want = is_floating_type(dt) ? dt : kInt64;
      for (int64_t d : {0, 1, 2, -1, -3}) {
        Tensor c = a.cumsum(d);
        EXPECT_EQ(c.dtype(), want);
        EXPECT_EQ(c.sizes(), a.sizes());
        expect_values(c, ref_along(a, d, cums), "cumsum");
      }
    }
  }
  Tensor i = ember::full({4}, 100, kInt8);
  Tensor w = ember::cumsum(i, 0, kInt8);
  EXPECT_EQ(w.dtype(), kInt8);
  expect_values(w, {100, -56, 44, -112}, "int8 dtype wraps");
  expect_values(i.cumsum(0), {100, 200, 300, 400}, "int8 accumulates in int64");
  expect_values(ember::ones({3}, kBool).cumsum(0), {1, 2, 3}, "bool counts");
  EXPECT_EQ(ember::ones({3}).cumsum(0, kFloat64).dtype(), kFloat64);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  expect_values(from_values({3}, kFloat32, {1, nan, 2}).cumsum(0), {1, nan, nan}, "NaN carries");
  expect_values(ember::full({}, 2.0).cumsum(0), {2}, "0-dim");
  EXPECT_EQ(ember::zeros({0, 2}).cumsum(0).sizes(), IntArrayRef({0, 2}));
  EXPECT_ERROR(IndexError, i.cumsum(1), "[cumsum]", "out of range");
}

// ---- vectorised extremes: rows longer than one vector, NaN in a lane and in the tail -----------

TEST(CpuReduce2, ExtremesLongRowsNaNAndLayouts) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (ScalarType dt : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
    for (int64_t nan_at : {int64_t{-1}, int64_t{0}, int64_t{37}, int64_t{1002}}) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " NaN at " + std::to_string(nan_at));
      std::vector<double> v(3 * 1003);
      for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>((i * 37) % 101) - 50;
      v[500] = 77;  // the maximum of row 0 sits in a middle lane
      v[1003 + 1002] = -99;  // the minimum of row 1 sits in the tail
      if (nan_at >= 0) v[static_cast<size_t>(nan_at)] = nan;
      Tensor a = from_values({3, 1003}, dt, v);
      for (const Tensor& t : {a, a.t().contiguous().t()}) {
        expect_values(t.amax(IntArrayRef({1})), ref_reduce(t, {1}, ref_max), "amax rows");
        expect_values(t.amin(IntArrayRef({1})), ref_reduce(t, {1}, ref_min), "amin rows");
        expect_values(t.max(), ref_reduce(t, {}, ref_max), "max");
        expect_values(t.min(), ref_reduce(t, {}, ref_min), "min");
        // The first index of the extreme (values repeat every 101 elements), or of the first NaN.
        auto [mv, mi] = t.max(1);
        expect_values(mv, ref_reduce(t, {1}, ref_max), "max.dim values");
        expect_values(mi, ref_reduce(t, {1}, ref_argmax), "max.dim indices");
        expect_values(t.argmin(1), ref_reduce(t, {1}, ref_argmin), "argmin rows");
        expect_values(t.argmax(), ref_reduce(t, {}, ref_argmax), "argmax flat");
        // Leading dimensions: the column path for the contiguous layout, rows for the other.
        expect_values(t.amax(IntArrayRef({0})), ref_reduce(t, {0}, ref_max), "amax(0)");
        expect_values(t.amin(IntArrayRef({0}), true), ref_reduce(t, {0}, ref_min), "amin(0, keepdim)");
        EXPECT_EQ(t.amin(IntArrayRef({0}), true).sizes(), IntArrayRef({1, 1003}));
      }
      Tensor c = a.view({3, 17, 59});
      expect_values(c.amax(IntArrayRef({0, 1})), ref_reduce(c, {0, 1}, ref_max), "amax(0, 1)");
      expect_values(c.amin(IntArrayRef({1, 0})), ref_reduce(c, {0, 1}, ref_min), "amin(1, 0)");
    }
  }
}

TEST(CpuReduce2, ArgExtremeSignedZero) {
  // -0.0 == 0.0: the first of them is the extreme, returned as stored.
  std::vector<double> v(200, -1);
  v[70] = -0.0;
  v[150] = 0.0;
  Tensor a = from_values({200}, kFloat32, v);
  auto [mv, mi] = a.max(0);
  EXPECT_EQ(values(mi)[0], 70);
  EXPECT_TRUE(std::signbit(values(mv)[0]));
}

// ---- var/std with a correction, var_mean, std_mean ----------------------------------------------

TEST(CpuReduce2, VarStdCorrection) {
  auto var_of = [](double correction) {
    return [correction](const std::vector<double>& r) {
      double m = 0;
      for (double x : r) m += x;
      m /= static_cast<double>(r.size());
      double s = 0;
      for (double x : r) s += (x - m) * (x - m);
      return s / std::max(0.0, static_cast<double>(r.size()) - correction);
    };
  };
  auto mean_of = [](const std::vector<double>& r) {
    double m = 0;
    for (double x : r) m += x;
    return m / static_cast<double>(r.size());
  };
  for (ScalarType dt : kFloats) {
    for (Kind k : kKinds) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " " + kind_name(k));
      Tensor a = make({3, 4, 5}, dt, k, 4);
      for (std::optional<int64_t> c : {std::optional<int64_t>(), std::optional<int64_t>(0),
                                       std::optional<int64_t>(2), std::optional<int64_t>(-1)}) {
        const auto vf = var_of(static_cast<double>(c.value_or(1)));
        auto sf = [&](const std::vector<double>& r) { return std::sqrt(vf(r)); };
        for (const auto& dims : kDimLists) {
          for (bool keep : {false, true}) {
            Tensor v = ember::var(a, std::optional<IntArrayRef>(IntArrayRef(dims)), c, keep);
            EXPECT_EQ(v.dtype(), dt);
            EXPECT_EQ(v.sizes(), IntArrayRef(out_shape(a, dims, keep)));
            expect_values(v, ref_reduce(a, dims, vf), "var.correction");
            expect_values(a.std(std::optional<IntArrayRef>(IntArrayRef(dims)), c, keep), ref_reduce(a, dims, sf),
                          "std.correction");
            auto [vv, vm] = ember::var_mean(a, std::optional<IntArrayRef>(IntArrayRef(dims)), c, keep);
            expect_values(vv, ref_reduce(a, dims, vf), "var_mean var");
            expect_values(vm, ref_reduce(a, dims, mean_of), "var_mean mean");
            auto [sv, sm] = ember::std_mean(a, std::optional<IntArrayRef>(IntArrayRef(dims)), c, keep);
            expect_values(sv, ref_reduce(a, dims, sf), "std_mean std");
            expect_values(sm, ref_reduce(a, dims, mean_of), "std_mean mean");
            EXPECT_EQ(sm.sizes(), sv.sizes());
          }
        }
      }
      expect_values(ember::var(a, std::nullopt, std::optional<int64_t>(1), false), ref_reduce(a, {}, var_of(1)),
                    "dim None");
    }
  }
  // dof <= 0: a positive sum of squares over 0 is inf, 0 / 0 is NaN (as PyTorch).
  const double inf = std::numeric_limits<double>::infinity();
  Tensor two = from_values({2}, kFloat32, {1, 3});
  expect_values(ember::var(two, std::nullopt, std::optional<int64_t>(2), false), {inf}, "dof 0");
  expect_values(ember::var(two, std::nullopt, std::optional<int64_t>(5), false), {inf}, "dof < 0");
  expect_values(ember::std(ember::ones({2}), std::nullopt, std::optional<int64_t>(2), false),
                {std::numeric_limits<double>::quiet_NaN()}, "0 / 0");
  EXPECT_ERROR(TypeError, ember::var(ember::ones({3}, kInt32), std::nullopt, std::optional<int64_t>(1), false),
               "[var]", "floating point");
  EXPECT_ERROR(IndexError, ember::var_mean(two, std::optional<IntArrayRef>(IntArrayRef({3})), 1, false),
               "[var_mean]", "out of range");
}

// ---- norms ------------------------------------------------------------------------------------

TEST(CpuReduce2, Norms) {
  auto norm_of = [](double p) {
    return [p](const std::vector<double>& r) {
      if (p == 0) {
        double c = 0;
        for (double x : r) c += x != 0 ? 1 : 0;
        return c;
      }
      if (std::isinf(p)) {
        double m = std::fabs(r[0]);
        for (double x : r) {
          if (std::isnan(x)) return x;
          m = p > 0 ? std::max(m, std::fabs(x)) : std::min(m, std::fabs(x));
        }
        return m;
      }
      double s = 0;
      for (double x : r) s += std::pow(std::fabs(x), p);
      return std::pow(s, 1 / p);
    };
  };
  const double inf = std::numeric_limits<double>::infinity();
  for (ScalarType dt : kFloats) {
    for (Kind k : kKinds) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " " + kind_name(k));
      Tensor a = make({3, 4, 5}, dt, k, 6);
      for (double p : {0.0, 1.0, 2.0, 3.0, 0.5, inf, -inf}) {
        SCOPED_TRACE("p = " + std::to_string(p));
        Tensor n = a.norm(p);
        EXPECT_EQ(n.dtype(), dt);
        EXPECT_EQ(n.dim(), 0);
        expect_values(n, ref_reduce(a, {}, norm_of(p)), "norm");
        for (const auto& dims : kDimLists) {
          if (dims.empty()) continue;
          for (bool keep : {false, true}) {
            Tensor r = ember::norm(a, std::optional<Scalar>(p), IntArrayRef(dims), keep);
            EXPECT_EQ(r.sizes(), IntArrayRef(out_shape(a, dims, keep)));
            expect_values(r, ref_reduce(a, dims, norm_of(p)), "norm(dims)");
            expect_values(ember::linalg_vector_norm(a, p, IntArrayRef(dims), keep), ref_reduce(a, dims, norm_of(p)),
                          "linalg_vector_norm");
          }
        }
      }
      expect_values(ember::norm(a, std::nullopt, IntArrayRef({1})), ref_reduce(a, {1}, norm_of(2)), "p None");
    }
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor x = from_values({4}, kFloat32, {3, -4, nan, 0});
  expect_values(x.norm(), {nan}, "NaN, p = 2");
  expect_values(x.norm(inf), {nan}, "NaN, p = inf");
  expect_values(x.norm(0), {3}, "NaN counts as nonzero");
  Tensor f = ember::linalg_vector_norm(ember::ones({4}), 2, std::nullopt, false, kFloat64);
  EXPECT_EQ(f.dtype(), kFloat64);
  expect_values(f, {2}, "dtype");
  expect_values(ember::zeros({0}).norm(), {0}, "empty 2-norm");
  EXPECT_ERROR(IndexError, ember::zeros({0}).norm(inf), "[norm]", "zero-size");
  EXPECT_ERROR(TypeError, ember::ones({3}, kInt64).norm(), "[norm]", "floating point");
  EXPECT_ERROR(TypeError, ember::linalg_vector_norm(ember::ones({3}), 2, std::nullopt, false, kInt32),
               "[linalg_vector_norm]", "'dtype'");
}

// ---- cumprod ------------------------------------------------------------------------------------

TEST(CpuReduce2, Cumprod) {
  auto cump = [](const std::vector<double>& x) {
    std::vector<double> y;
    double a = 1;
    for (double e : x) y.push_back(a *= e);
    return y;
  };
  for (ScalarType dt : kDtypes) {
    for (Kind k : kKinds) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " " + kind_name(k));
      Tensor a = make({3, 4, 5}, dt, k, 2, true);
      const ScalarType want = is_floating_type(dt) ? dt : kInt64;
      for (int64_t d : {0, 1, -1}) {
        Tensor c = a.cumprod(d);
        EXPECT_EQ(c.dtype(), want);
        EXPECT_EQ(c.sizes(), a.sizes());
        expect_values(c, ref_along(a, d, cump), "cumprod");
      }
    }
  }
  expect_values(ember::cumprod(ember::full({3}, 16, kInt8), 0, kInt8), {16, 0, 0}, "int8 dtype wraps");
  expect_values(ember::full({3}, 16, kInt8).cumprod(0), {16, 256, 4096}, "int8 accumulates in int64");
  EXPECT_ERROR(IndexError, ember::ones({2}).cumprod(1), "[cumprod]", "out of range");
}

// ---- out= variants ---------------------------------------------------------------------------

TEST(CpuReduce2, OutVariants) {
  Tensor a = make({4, 6}, kFloat32, Kind::Transposed, 3);
  const std::vector<int64_t> d1 = {1};
  // Resized from empty; written through a non-contiguous out of the right shape, keeping its strides.
  auto check = [&](const std::function<Tensor&(Tensor&)>& f, const Tensor& want, const std::string& what) {
    SCOPED_TRACE(what);
    Tensor e = ember::empty({0}, want.dtype());
    Tensor& r = f(e);
    EXPECT_EQ(&r, &e);
    EXPECT_EQ(e.sizes(), want.sizes());
    expect_values(e, values(want), "resized");
    if (want.dim() == 1) {
      Tensor big = ember::zeros({want.size(0), 2}, want.dtype());
      Tensor col = big.select(1, 1);
      const auto stride = col.stride(0);
      f(col);
      EXPECT_EQ(col.stride(0), stride);
      expect_values(col, values(want), "strided");
      expect_values(big.select(1, 0), std::vector<double>(want.size(0), 0), "untouched");
    }
  };
  check([&](Tensor& o) -> Tensor& { return ember::sum_out(o, a, IntArrayRef(d1)); }, a.sum(IntArrayRef(d1)), "sum");
  check([&](Tensor& o) -> Tensor& { return ember::mean_out(o, a, IntArrayRef(d1)); }, a.mean(IntArrayRef(d1)), "mean");
  check([&](Tensor& o) -> Tensor& { return ember::prod_out(o, a, 1); }, a.prod(1), "prod");
  check([&](Tensor& o) -> Tensor& { return ember::amax_out(o, a, IntArrayRef(d1)); }, a.amax(IntArrayRef(d1)), "amax");
  check([&](Tensor& o) -> Tensor& { return ember::amin_out(o, a, IntArrayRef(d1)); }, a.amin(IntArrayRef(d1)), "amin");
  check([&](Tensor& o) -> Tensor& { return ember::logsumexp_out(o, a, IntArrayRef(d1)); },
        a.logsumexp(IntArrayRef(d1)), "logsumexp");
  Tensor li = ember::empty({0}, kInt64);
  check([&](Tensor& o) -> Tensor& { return ember::argmax_out(o, a, 1); }, a.argmax(1), "argmax");
  check([&](Tensor& o) -> Tensor& { return ember::argmin_out(o, a, 0); }, a.argmin(0), "argmin");
  Tensor flat = a.flatten(0, -1);
  check([&](Tensor& o) -> Tensor& { return ember::cumsum_out(o, flat, 0); }, flat.cumsum(0), "cumsum");
  check([&](Tensor& o) -> Tensor& { return ember::cumprod_out(o, flat, 0); }, flat.cumprod(0), "cumprod");

  // Without a dtype, sum/mean/prod/cumsum compute in out's dtype; with one, out must match it.
  Tensor ints = make({4, 6}, kInt32, Kind::Contiguous, 1);
  Tensor fo = ember::empty({0}, kFloat64);
  ember::sum_out(fo, ints, IntArrayRef(d1));
  EXPECT_EQ(fo.dtype(), kFloat64);
  expect_values(fo, values(ints.sum(IntArrayRef(d1))), "int sum into float64 out");
  Tensor mo = ember::empty({0}, kFloat64);
  ember::mean_out(mo, ints, IntArrayRef(d1));
  expect_values(mo, values(ember::mean(ints, IntArrayRef(d1), false, kFloat64)), "int mean into float64 out");
  EXPECT_ERROR(TypeError, ember::sum_out(fo, ints, IntArrayRef(d1), false, kFloat32), "[sum]", "'out'", "dtype float32",
               "got float64");
  Tensor io = ember::empty({0}, kInt32);
  EXPECT_ERROR(TypeError, ember::mean_out(io, ints, IntArrayRef(d1)), "[mean]", "floating point");
  EXPECT_ERROR(TypeError, ember::amax_out(fo, a, IntArrayRef(d1)), "[amax]", "'out'", "float32");
  EXPECT_ERROR(TypeError, ember::argmax_out(fo, a, 1), "[argmax]", "int64");
  EXPECT_ERROR(TypeError, ember::logsumexp_out(io, a, IntArrayRef(d1)), "[logsumexp]", "floating point");
  EXPECT_ERROR(TypeError, ember::cumsum_out(io, a, 0, kFloat32), "[cumsum]", "dtype");

  // max.dim_max / min.dim_min: both outs written and returned.
  Tensor mv = ember::empty({0}), mi = ember::empty({0}, kInt64);
  auto [rv, ri] = ember::max_out(mv, mi, a, 1, true);
  EXPECT_EQ(&rv, &mv);
  EXPECT_EQ(&ri, &mi);
  auto [wv, wi] = a.max(1, true);
  EXPECT_EQ(mv.sizes(), wv.sizes());
  expect_values(mv, values(wv), "max values");
  expect_values(mi, values(wi), "max indices");
  Tensor nv = ember::empty({0}), ni = ember::empty({0}, kInt64);
  ember::min_out(nv, ni, a, 0);
  expect_values(nv, values(std::get<0>(a.min(0))), "min values");
  expect_values(ni, values(std::get<1>(a.min(0))), "min indices");
  Tensor bad = ember::empty({0}, kInt32);
  EXPECT_ERROR(TypeError, ember::max_out(mv, bad, a, 1), "[max]", "'max_values'", "int64");
  EXPECT_ERROR(TypeError, ember::min_out(bad, ni, a, 1), "[min]", "'min'");

  // out aliasing the input: the result is computed before out is written.
  Tensor s = from_values({3}, kFloat32, {1, 2, 3});
  ember::cumsum_out(s, s, 0);
  expect_values(s, {1, 3, 6}, "cumsum in place through out=");
  // A wrong-shaped out is resized.
  Tensor w = ember::zeros({5, 5});
  ember::amax_out(w, a, IntArrayRef(d1));
  EXPECT_EQ(w.sizes(), IntArrayRef({4}));
  expect_values(w, values(a.amax(IntArrayRef(d1))), "resized from a wrong shape");
}

// Note [CPU out= results]: an out that is contiguous, of the result's dtype and apart from the
// input is where the kernel writes (no temporary allocated, a view at an offset into a larger
// buffer included); an expanded out is refused naming the operator, as LibTorch's.
TEST(CpuReduce2, OutVariantsWriteIntoOut) {
  auto direct = [](const std::function<void(std::vector<Tensor*>)>& f, std::vector<Tensor> want,
                   const std::string& what) {
    SCOPED_TRACE(what);
    std::vector<Tensor> bufs, outs;
    for (const Tensor& w : want) {
      bufs.push_back(ember::full({w.numel() + 6}, 7, w.dtype()));
      outs.push_back(bufs.back().narrow(0, 3, w.numel()).view(w.sizes()));
    }
    std::vector<Tensor*> ptrs;
    for (Tensor& o : outs) ptrs.push_back(&o);
    const auto before = cpu_allocator_stats().allocations;
    f(ptrs);
    EXPECT_EQ(cpu_allocator_stats().allocations, before) << "a temporary was allocated";
    for (size_t k = 0; k < want.size(); ++k) {
      EXPECT_EQ(outs[k].data_ptr(), static_cast<char*>(bufs[k].data_ptr()) + 3 * bufs[k].itemsize());
      expect_values(outs[k], values(want[k]), "result " + std::to_string(k));
      const auto b = values(bufs[k]);
      const size_t n = b.size();
      for (size_t i : {size_t{0}, size_t{1}, size_t{2}, n - 3, n - 2, n - 1}) EXPECT_EQ(b[i], 7) << "outside out";
    }
  };
  const Tensor x = make({4, 6}, kFloat64, Kind::Contiguous, 5, true);
  const Tensor x3 = make({2, 3, 4}, kFloat64, Kind::Contiguous, 6);
  const Tensor xi = make({4, 6}, kInt64, Kind::Contiguous, 7);
  const std::vector<int64_t> d0 = {0}, d1 = {1}, dlast = {-1};
  direct([&](auto o) { ember::sum_out(*o[0], x, IntArrayRef(d1)); }, {x.sum(IntArrayRef(d1))}, "sum rows");
  direct([&](auto o) { ember::sum_out(*o[0], x, IntArrayRef(d0), true); }, {x.sum(IntArrayRef(d0), true)},
         "sum columns, keepdim");
  direct([&](auto o) { ember::sum_out(*o[0], x3, IntArrayRef(d1)); }, {x3.sum(IntArrayRef(d1))}, "sum middle dim");
  direct([&](auto o) { ember::sum_out(*o[0], xi, IntArrayRef(d1)); }, {xi.sum(IntArrayRef(d1))}, "int64 sum");
  direct([&](auto o) { ember::mean_out(*o[0], x3, IntArrayRef(d1)); }, {x3.mean(IntArrayRef(d1))}, "mean");
  direct([&](auto o) { ember::prod_out(*o[0], x, 1); }, {x.prod(1)}, "prod");
  direct([&](auto o) { ember::prod_out(*o[0], xi, 1, true); }, {xi.prod(1, true)}, "int64 prod, keepdim");
  direct([&](auto o) { ember::amax_out(*o[0], x, IntArrayRef(d1)); }, {x.amax(IntArrayRef(d1))}, "amax rows");
  direct([&](auto o) { ember::amin_out(*o[0], x, IntArrayRef(d0)); }, {x.amin(IntArrayRef(d0))}, "amin columns");
  direct([&](auto o) { ember::logsumexp_out(*o[0], x, IntArrayRef(d1)); }, {x.logsumexp(IntArrayRef(d1))}, "logsumexp");
  direct([&](auto o) { ember::cumsum_out(*o[0], x, -1); }, {x.cumsum(-1)}, "cumsum");
  direct([&](auto o) { ember::cumprod_out(*o[0], xi, -1); }, {xi.cumprod(-1)}, "int64 cumprod");
  direct([&](auto o) { ember::argmax_out(*o[0], x, 1); }, {x.argmax(1)}, "argmax");
  direct([&](auto o) { ember::argmin_out(*o[0], x, std::nullopt); }, {x.argmin()}, "argmin, all");
  auto [mv, mi] = x.max(1);
  direct([&](auto o) { ember::max_out(*o[0], *o[1], x, 1); }, {mv, mi}, "max.dim");
  auto [sv, si] = x.sort(-1, true);
  direct([&](auto o) { ember::sort_out(*o[0], *o[1], x, -1, true); }, {sv, si}, "sort");
  auto [tv, ti] = x.topk(2);
  direct([&](auto o) { ember::topk_out(*o[0], *o[1], x, 2); }, {tv, ti}, "topk");

  // An expanded out (of the result's shape) is refused by the operator, and left unwritten.
  Tensor ex = ember::zeros({1}, kFloat64).expand({4});
  EXPECT_ERROR(ValueError, ember::sum_out(ex, x, IntArrayRef(d1)), "[sum]", "written-to tensor");
  EXPECT_ERROR(ValueError, ember::cumsum_out(ex, x.select(1, 0), 0), "[cumsum]", "written-to tensor");
  Tensor exi = ember::zeros({1}, kInt64).expand({4});
  Tensor vals = ember::empty({4}, kFloat64);
  EXPECT_ERROR(ValueError, ember::max_out(vals, exi, x, 1), "[max]", "written-to tensor");
  EXPECT_ERROR(ValueError, ember::sort_out(vals, exi, x.select(1, 0)), "[sort]", "written-to tensor");
  EXPECT_EQ(values(ex), std::vector<double>(4, 0.0));
  // An out aliasing the input is written after the input is read (through a temporary).
  Tensor s = x.clone();
  const Tensor want = x.cumsum(1);
  ember::cumsum_out(s, s, 1);
  expect_values(s, values(want), "cumsum in place through out=");
  Tensor m = x3.clone();
  Tensor m0 = m.select(1, 0);
  const Tensor wm = x3.amax(IntArrayRef(d1));
  ember::amax_out(m0, m, IntArrayRef(d1));
  expect_values(m0, values(wm), "amax into a slice of its input");
}
