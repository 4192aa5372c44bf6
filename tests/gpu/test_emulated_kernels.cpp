// The cuda plugin's kernel sources run on the host (Note [GPU kernels on the host] in
// plugins/cuda/kernels/HostEmulation.h) against naive references: the elementwise loops (both
// paths, dtype conversion, broadcasting and strides), the block and thread reductions with their
// warp shuffles, the tiled GEMM with shared memory, on shapes that leave partial tiles, the scans
// and the index maps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "Kernels.h"
#include "ember/native/UnaryKind.h"

using namespace ember::gpu;

namespace {

std::vector<float> random_floats(size_t n, uint32_t seed, float lo = -2, float hi = 2) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

// A 1-d or 2-d iteration over raw host buffers (byte strides, innermost first).
Iter iter2(int64_t inner, int64_t outer, std::vector<char*> data, std::vector<Dt> dt,
           std::vector<std::array<int64_t, 2>> strides) {
  Iter it;
  it.ndim = outer == 1 ? 1 : 2;
  it.nargs = static_cast<int>(data.size());
  it.numel = inner * outer;
  it.sizes[0] = inner;
  it.sizes[1] = outer;
  for (int a = 0; a < it.nargs; ++a) {
    it.data[a] = data[static_cast<size_t>(a)];
    it.dtype[a] = dt[static_cast<size_t>(a)];
    it.strides[a][0] = strides[static_cast<size_t>(a)][0];
    it.strides[a][1] = strides[static_cast<size_t>(a)][1];
  }
  return it;
}

TEST(EmulatedGpuKernels, UnaryContiguousAndStrided) {
  const int64_t n = 1000;
  auto x = random_floats(n, 1);
  std::vector<float> out(n);
  Iter it = iter2(n, 1, {reinterpret_cast<char*>(out.data()), reinterpret_cast<char*>(x.data())}, {Float, Float},
                  {{4, 0}, {4, 0}});
  ASSERT_TRUE(launch_unary(static_cast<int>(ember::native::UnaryKind::Exp), Float, it, nullptr));
  for (int64_t i = 0; i < n; ++i) ASSERT_FLOAT_EQ(out[i], std::exp(x[i])) << i;

  // A transposed 20 x 50 input into a contiguous output, through the general loop.
  std::vector<float> t(n);
  it = iter2(50, 20, {reinterpret_cast<char*>(t.data()), reinterpret_cast<char*>(x.data())}, {Float, Float},
             {{4, 200}, {80, 4}});
  ASSERT_TRUE(launch_unary(static_cast<int>(ember::native::UnaryKind::Neg), Float, it, nullptr));
  for (int64_t r = 0; r < 20; ++r)
    for (int64_t c = 0; c < 50; ++c) ASSERT_EQ(t[r * 50 + c], -x[c * 20 + r]);
}

TEST(EmulatedGpuKernels, UnaryToBoolAndRejectedComputeTypes) {
  std::vector<double> x = {1.0, std::nan(""), INFINITY, -INFINITY, 0.0};
  std::vector<bool> ref = {false, true, false, false, false};
  bool out[5] = {};
  Iter it =
      iter2(5, 1, {reinterpret_cast<char*>(out), reinterpret_cast<char*>(x.data())}, {Bool, Double}, {{1, 0}, {8, 0}});
  ASSERT_TRUE(launch_unary(static_cast<int>(ember::native::UnaryKind::IsNan), Double, it, nullptr));
  for (int i = 0; i < 5; ++i) EXPECT_EQ(out[i], ref[static_cast<size_t>(i)]) << i;
  // exp has no integer kernel: the dtype rule sends integers to float first.
  EXPECT_FALSE(launch_unary(static_cast<int>(ember::native::UnaryKind::Exp), Int64, it, nullptr));
}

TEST(EmulatedGpuKernels, BinaryBroadcastsAndConverts) {
  // out (int64? no: float32 6 x 7) = a (float16 6 x 7) + 2 * b (int32 broadcast row of 7).
  const int64_t rows = 6, cols = 7;
  auto af = random_floats(rows * cols, 2);
  std::vector<ember::Half> a(af.begin(), af.end());
  std::vector<int32_t> b = {1, -2, 3, -4, 5, -6, 7};
  std::vector<float> out(rows * cols);
  Iter it =
      iter2(cols, rows,
            {reinterpret_cast<char*>(out.data()), reinterpret_cast<char*>(a.data()), reinterpret_cast<char*>(b.data())},
            {Float, Half, Int32}, {{4, 28}, {2, 14}, {4, 0}});
  Value alpha;
  alpha.f = 2;
  ASSERT_TRUE(launch_binary(Binary::Add, Float, it, alpha, nullptr));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      ASSERT_FLOAT_EQ(out[r * cols + c], static_cast<float>(a[r * cols + c]) + 2.0f * b[c]);
}

TEST(EmulatedGpuKernels, ComparisonsAndMaximumPropagateNaN) {
  std::vector<float> a = {1, 2, std::nanf(""), 4}, b = {1, 3, 0, std::nanf("")};
  float mx[4];
  bool lt[4];
  Iter it =
      iter2(4, 1, {reinterpret_cast<char*>(mx), reinterpret_cast<char*>(a.data()), reinterpret_cast<char*>(b.data())},
            {Float, Float, Float}, {{4, 0}, {4, 0}, {4, 0}});
  ASSERT_TRUE(launch_binary(Binary::Maximum, Float, it, {}, nullptr));
  EXPECT_EQ(mx[0], 1);
  EXPECT_EQ(mx[1], 3);
  EXPECT_TRUE(std::isnan(mx[2]));
  EXPECT_TRUE(std::isnan(mx[3]));
  it.data[0] = reinterpret_cast<char*>(lt);
  it.dtype[0] = Bool;
  it.strides[0][0] = 1;
  ASSERT_TRUE(launch_binary(Binary::Lt, Float, it, {}, nullptr));
  EXPECT_FALSE(lt[0]);
  EXPECT_TRUE(lt[1]);
  EXPECT_FALSE(lt[2]);
  EXPECT_FALSE(lt[3]);
}

TEST(EmulatedGpuKernels, LogicalAndBitwiseKinds) {
  std::vector<int32_t> a = {0, 1, 2, -3}, b = {0, 0, 6, 5};
  bool lx[4];
  int32_t band[4];
  Iter it =
      iter2(4, 1, {reinterpret_cast<char*>(lx), reinterpret_cast<char*>(a.data()), reinterpret_cast<char*>(b.data())},
            {Bool, Int32, Int32}, {{1, 0}, {4, 0}, {4, 0}});
  ASSERT_TRUE(launch_binary(Binary::LogicalXor, Int32, it, {}, nullptr));
  EXPECT_EQ(std::vector<bool>(lx, lx + 4), (std::vector<bool>{false, true, false, false}));
  it.data[0] = reinterpret_cast<char*>(band);
  it.dtype[0] = Int32;
  it.strides[0][0] = 4;
  ASSERT_TRUE(launch_binary(Binary::BitwiseAnd, Int32, it, {}, nullptr));
  EXPECT_EQ(std::vector<int32_t>(band, band + 4), (std::vector<int32_t>{0, 0, 2, 5}));
  EXPECT_FALSE(launch_binary(Binary::BitwiseAnd, Float, it, {}, nullptr)) << "no floating bitwise kernel";
}

TEST(EmulatedGpuKernels, DivFloorMatchesPython) {
  std::vector<double> a = {7, -7, 7, -7, 0.5, -0.0}, b = {2, 2, -2, -2, 0, 3};
  double out[6];
  Iter it =
      iter2(6, 1, {reinterpret_cast<char*>(out), reinterpret_cast<char*>(a.data()), reinterpret_cast<char*>(b.data())},
            {Double, Double, Double}, {{8, 0}, {8, 0}, {8, 0}});
  ASSERT_TRUE(launch_binary(Binary::DivFloor, Double, it, {}, nullptr));
  EXPECT_EQ(out[0], 3);
  EXPECT_EQ(out[1], -4);
  EXPECT_EQ(out[2], -4);
  EXPECT_EQ(out[3], 3);
  EXPECT_TRUE(std::isinf(out[4]));
  EXPECT_TRUE(std::signbit(out[5]));
}

TEST(EmulatedGpuKernels, WhereFillAndCopy) {
  std::vector<bool> cond_v = {true, false, true, false};
  bool cond[4];
  for (int i = 0; i < 4; ++i) cond[i] = cond_v[static_cast<size_t>(i)];
  std::vector<int64_t> a = {1, 2, 3, 4}, b = {10, 20, 30, 40};
  int64_t out[4];
  Iter it = iter2(4, 1,
                  {reinterpret_cast<char*>(out), reinterpret_cast<char*>(cond), reinterpret_cast<char*>(a.data()),
                   reinterpret_cast<char*>(b.data())},
                  {Int64, Bool, Int64, Int64}, {{8, 0}, {1, 0}, {8, 0}, {8, 0}});
  ASSERT_TRUE(launch_where(Int64, it, nullptr));
  EXPECT_EQ(std::vector<int64_t>(out, out + 4), (std::vector<int64_t>{1, 20, 3, 40}));

  ember::BFloat16 h[3];
  Iter f = iter2(3, 1, {reinterpret_cast<char*>(h)}, {BFloat16}, {{2, 0}});
  Value v;
  v.f = 1.5;
  ASSERT_TRUE(launch_fill(Float, f, v, nullptr));
  for (auto x : h) EXPECT_EQ(static_cast<float>(x), 1.5f);

  // float -> uint8 wraps through int64 as the CPU's conversion; -> bool is != 0.
  std::vector<float> src = {-1.0f, 300.0f, 0.0f, 2.5f};
  uint8_t u8[4];
  Iter c =
      iter2(4, 1, {reinterpret_cast<char*>(u8), reinterpret_cast<char*>(src.data())}, {UInt8, Float}, {{1, 0}, {4, 0}});
  ASSERT_TRUE(launch_copy(c, nullptr));
  EXPECT_EQ(u8[0], 255);
  EXPECT_EQ(u8[1], 44);
  EXPECT_EQ(u8[2], 0);
  EXPECT_EQ(u8[3], 2);
}

// A row-major rows x cols float buffer reduced along `dim` (0 or 1) or both (-1).
ReduceArgs reduce_args(const std::vector<float>& in, int64_t rows, int64_t cols, int dim, void* out, Dt out_dt,
                       Dt acc) {
  ReduceArgs r;
  r.in = reinterpret_cast<const char*>(in.data());
  r.out = static_cast<char*>(out);
  r.in_dtype = Float;
  r.out_dtype = out_dt;
  r.acc_dtype = acc;
  auto red = [&](int64_t size, int64_t stride) {
    r.red_sizes[r.n_red_dims] = size;
    r.in_red_strides[r.n_red_dims++] = stride;
    r.n_red *= size;
  };
  auto keep = [&](int64_t size, int64_t stride) {
    r.kept_sizes[r.n_kept] = size;
    r.in_kept_strides[r.n_kept] = stride;
    r.out_strides[r.n_kept++] = out_dt == Int64 ? 8 : 4;
    r.n_out *= size;
  };
  if (dim == 1 || dim == -1)
    red(cols, 4);
  else
    keep(cols, 4);
  if (dim == 0 || dim == -1)
    red(rows, cols * 4);
  else
    keep(rows, cols * 4);
  return r;
}

TEST(EmulatedGpuKernels, ReductionsBlockAndThreadPaths) {
  // 3 x 1000: block per output (long rows); 2000 x 3 along dim 1: thread per output.
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{3, 1000}, {2000, 3}}) {
    const auto x = random_floats(static_cast<size_t>(rows * cols), 3);
    std::vector<float> sum(static_cast<size_t>(rows)), mx(static_cast<size_t>(rows));
    std::vector<int64_t> am(static_cast<size_t>(rows));
    ASSERT_TRUE(launch_reduce(Reduction::Sum, reduce_args(x, rows, cols, 1, sum.data(), Float, Float), nullptr));
    ASSERT_TRUE(launch_reduce(Reduction::Max, reduce_args(x, rows, cols, 1, mx.data(), Float, Float), nullptr));
    ASSERT_TRUE(launch_reduce(Reduction::ArgMax, reduce_args(x, rows, cols, 1, am.data(), Int64, Float), nullptr));
    for (int64_t r = 0; r < rows; ++r) {
      double s = 0;
      int64_t best = 0;
      for (int64_t c = 0; c < cols; ++c) {
        s += x[static_cast<size_t>(r * cols + c)];
        if (x[static_cast<size_t>(r * cols + c)] > x[static_cast<size_t>(r * cols + best)]) best = c;
      }
      ASSERT_NEAR(sum[static_cast<size_t>(r)], s, 1e-3) << rows << "x" << cols << " row " << r;
      ASSERT_EQ(mx[static_cast<size_t>(r)], x[static_cast<size_t>(r * cols + best)]);
      ASSERT_EQ(am[static_cast<size_t>(r)], best);
    }
  }
}

TEST(EmulatedGpuKernels, ReductionsOverEveryDimAndColumnsAndNaN) {
  const int64_t rows = 37, cols = 29;
  auto x = random_floats(static_cast<size_t>(rows * cols), 4);
  float mean = 0;
  ASSERT_TRUE(launch_reduce(Reduction::Mean, reduce_args(x, rows, cols, -1, &mean, Float, Float), nullptr));
  double ref = 0;
  for (float v : x) ref += v;
  EXPECT_NEAR(mean, ref / static_cast<double>(x.size()), 1e-5);

  std::vector<float> colmin(static_cast<size_t>(cols));
  ASSERT_TRUE(launch_reduce(Reduction::Min, reduce_args(x, rows, cols, 0, colmin.data(), Float, Float), nullptr));
  for (int64_t c = 0; c < cols; ++c) {
    float m = INFINITY;
    for (int64_t r = 0; r < rows; ++r) m = std::min(m, x[static_cast<size_t>(r * cols + c)]);
    ASSERT_EQ(colmin[static_cast<size_t>(c)], m) << c;
  }

  // The first NaN wins max and argmax; ties keep the first index.
  x.assign(static_cast<size_t>(rows * cols), 1.0f);
  x[500] = std::nanf("");
  x[900] = std::nanf("");
  float mx = 0;
  int64_t am = -1;
  ASSERT_TRUE(launch_reduce(Reduction::Max, reduce_args(x, rows, cols, -1, &mx, Float, Float), nullptr));
  ASSERT_TRUE(launch_reduce(Reduction::ArgMax, reduce_args(x, rows, cols, -1, &am, Int64, Float), nullptr));
  EXPECT_TRUE(std::isnan(mx));
  EXPECT_EQ(am, 500);
  x[500] = x[900] = 1.0f;
  ASSERT_TRUE(launch_reduce(Reduction::ArgMin, reduce_args(x, rows, cols, -1, &am, Int64, Float), nullptr));
  EXPECT_EQ(am, 0);
}

TEST(EmulatedGpuKernels, TiledGemmOnPartialTilesStridesAndBatches) {
  // m, n, k off the 64/64/16 tile sizes; A transposed in memory; two batches; beta != 0.
  const int64_t batch = 2, m = 70, n = 65, k = 33;
  const auto a = random_floats(static_cast<size_t>(batch * m * k), 5);  // stored as batch x k x m
  const auto b = random_floats(static_cast<size_t>(batch * k * n), 6);  // batch x k x n
  auto c = random_floats(static_cast<size_t>(batch * m * n), 7);
  const auto c0 = c;
  GemmArgs g;
  g.batch = batch;
  g.m = m;
  g.n = n;
  g.k = k;
  g.a = reinterpret_cast<const char*>(a.data());
  g.b = reinterpret_cast<const char*>(b.data());
  g.c = reinterpret_cast<char*>(c.data());
  g.sa_batch = m * k, g.sa_row = 1, g.sa_col = m;
  g.sb_batch = k * n, g.sb_row = n, g.sb_col = 1;
  g.sc_batch = m * n, g.sc_row = n;
  g.alpha = 0.5;
  g.beta = 2;
  g.dtype = Float;
  ASSERT_TRUE(launch_gemm(g, nullptr));
  for (int64_t p = 0; p < batch; ++p)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t q = 0; q < k; ++q)
          s += static_cast<double>(a[static_cast<size_t>(p * m * k + q * m + i)]) *
               b[static_cast<size_t>(p * k * n + q * n + j)];
        const size_t o = static_cast<size_t>(p * m * n + i * n + j);
        ASSERT_NEAR(c[o], 0.5 * s + 2.0 * c0[o], 1e-4) << p << " " << i << " " << j;
      }
}

TEST(EmulatedGpuKernels, GemmWithBetaZeroIgnoresNaNInC) {
  const int64_t m = 3, n = 2, k = 4;
  std::vector<double> a(static_cast<size_t>(m * k), 1.0), b(static_cast<size_t>(k * n), 2.0);
  std::vector<double> c(static_cast<size_t>(m * n), std::numeric_limits<double>::quiet_NaN());
  GemmArgs g;
  g.m = m, g.n = n, g.k = k;
  g.a = reinterpret_cast<const char*>(a.data());
  g.b = reinterpret_cast<const char*>(b.data());
  g.c = reinterpret_cast<char*>(c.data());
  g.sa_row = k, g.sa_col = 1, g.sb_row = n, g.sb_col = 1, g.sc_row = n;
  g.dtype = Double;
  ASSERT_TRUE(launch_gemm(g, nullptr));
  for (double v : c) EXPECT_EQ(v, 8.0);
  g.dtype = Bool;
  EXPECT_FALSE(launch_gemm(g, nullptr));
}

// Integers accumulate in int64 and wrap on the store, as the cpu plugin's.
TEST(EmulatedGpuKernels, GemmOnIntegersWrapsAsTheCpu) {
  const int64_t m = 2, n = 3, k = 70;
  std::vector<int8_t> a(static_cast<size_t>(m * k)), b(static_cast<size_t>(k * n));
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<int8_t>(static_cast<int>(i % 7) - 3);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<int8_t>(static_cast<int>(i % 5) + 1);
  std::vector<int8_t> c(static_cast<size_t>(m * n), 0);
  GemmArgs g;
  g.m = m, g.n = n, g.k = k;
  g.a = reinterpret_cast<const char*>(a.data());
  g.b = reinterpret_cast<const char*>(b.data());
  g.c = reinterpret_cast<char*>(c.data());
  g.sa_row = k, g.sa_col = 1, g.sb_row = n, g.sb_col = 1, g.sc_row = n;
  g.alpha = 2;
  g.dtype = Int8;
  ASSERT_TRUE(launch_gemm(g, nullptr));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      int64_t want = 0;
      for (int64_t p = 0; p < k; ++p) want += a[static_cast<size_t>(i * k + p)] * b[static_cast<size_t>(p * n + j)];
      EXPECT_EQ(c[static_cast<size_t>(i * n + j)], static_cast<int8_t>(2 * want)) << i << "," << j;
    }
}

// Naive softmax over [outer, dim, inner] in double.
std::vector<double> softmax_ref(const std::vector<float>& x, int64_t outer, int64_t dim, int64_t inner, bool log) {
  std::vector<double> y(x.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t j) { return static_cast<size_t>((o * dim + j) * inner + i); };
      double m = -INFINITY, s = 0;
      for (int64_t j = 0; j < dim; ++j) m = std::max(m, static_cast<double>(x[at(j)]));
      for (int64_t j = 0; j < dim; ++j) s += std::exp(x[at(j)] - m);
      for (int64_t j = 0; j < dim; ++j) y[at(j)] = log ? x[at(j)] - m - std::log(s) : std::exp(x[at(j)] - m) / s;
    }
  return y;
}

TEST(EmulatedGpuKernels, SoftmaxRowsAndColumnsForwardAndBackward) {
  // [3, 300, 1]: a block per row; [2, 5, 7]: a thread per column.
  for (auto [outer, dim, inner] : {std::tuple<int64_t, int64_t, int64_t>{3, 300, 1}, {2, 5, 7}})
    for (bool log : {false, true}) {
      const size_t n = static_cast<size_t>(outer * dim * inner);
      const auto x = random_floats(n, 8, -5, 5), g = random_floats(n, 9);
      std::vector<float> y(n), gin(n);
      SoftmaxArgs s;
      s.outer = outer, s.dim = dim, s.inner = inner, s.log = log;
      s.in = reinterpret_cast<const char*>(x.data());
      s.out = reinterpret_cast<char*>(y.data());
      ASSERT_TRUE(launch_softmax(s, nullptr));
      const auto ref = softmax_ref(x, outer, dim, inner, log);
      for (size_t i = 0; i < n; ++i) ASSERT_NEAR(y[i], ref[i], 1e-5) << log << " " << i;

      s.in = reinterpret_cast<const char*>(y.data());
      s.grad = reinterpret_cast<const char*>(g.data());
      s.out = reinterpret_cast<char*>(gin.data());
      ASSERT_TRUE(launch_softmax_backward(s, nullptr));
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
          auto at = [&](int64_t j) { return static_cast<size_t>((o * dim + j) * inner + i); };
          double sum = 0;
          for (int64_t j = 0; j < dim; ++j) sum += log ? g[at(j)] : static_cast<double>(g[at(j)]) * ref[at(j)];
          for (int64_t j = 0; j < dim; ++j) {
            const double want = log ? g[at(j)] - std::exp(ref[at(j)]) * sum : ref[at(j)] * (g[at(j)] - sum);
            ASSERT_NEAR(gin[at(j)], want, 1e-4) << log << " " << at(j);
          }
        }
    }
}

TEST(EmulatedGpuKernels, SoftmaxOfHalfToFloatAndNaNRows) {
  std::vector<ember::Half> x = {ember::Half(1.0f), ember::Half(2.0f), ember::Half(3.0f)};
  float y[3];
  SoftmaxArgs s;
  s.dim = 3;
  s.in = reinterpret_cast<const char*>(x.data());
  s.out = reinterpret_cast<char*>(y);
  s.in_dtype = Half;
  s.out_dtype = Float;
  ASSERT_TRUE(launch_softmax(s, nullptr));
  const double z = std::exp(-2.0) + std::exp(-1.0) + 1.0;
  EXPECT_NEAR(y[2], 1.0 / z, 1e-6);
  std::vector<float> nan_row = {1.0f, std::nanf(""), 2.0f};
  s.in = reinterpret_cast<const char*>(nan_row.data());
  s.in_dtype = Float;
  ASSERT_TRUE(launch_softmax(s, nullptr));
  for (float v : y) EXPECT_TRUE(std::isnan(v));
  s.in_dtype = Int64;
  EXPECT_FALSE(launch_softmax(s, nullptr));
}

}  // namespace

TEST(EmulatedGpuKernels, ScansBlockAndThreadPathsAndWrapping) {
  // 3 lines of 1000 along the middle dim (inner 2): a block per line; 5000 lines of 3: a thread each.
  for (auto [outer, n, inner] : {std::array<int64_t, 3>{3, 1000, 2}, {2500, 3, 2}}) {
    const auto x = random_floats(static_cast<size_t>(outer * n * inner), 11, 0.5f, 1.5f);
    for (bool prod : {false, true}) {
      std::vector<double> y(x.size());
      ScanArgs a;
      a.outer = outer, a.n = n, a.inner = inner;
      a.in = reinterpret_cast<const char*>(x.data());
      a.out = reinterpret_cast<char*>(y.data());
      a.in_dtype = Float, a.out_dtype = Double, a.in_itemsize = 4, a.out_itemsize = 8, a.prod = prod;
      ASSERT_TRUE(launch_scan(a, nullptr));
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
          double acc = prod ? 1 : 0;
          for (int64_t k = 0; k < n; ++k) {
            const size_t at = static_cast<size_t>((o * n + k) * inner + i);
            acc = prod ? acc * x[at] : acc + x[at];
            ASSERT_NEAR(y[at], acc, 1e-12 * std::max(1.0, std::fabs(acc))) << outer << "x" << n << " at " << at;
          }
        }
    }
  }
  // int64 products wrap as unsigned arithmetic does, in any order.
  std::vector<int64_t> v(300, 3), r(300);
  ScanArgs a;
  a.n = 300;
  a.in = reinterpret_cast<const char*>(v.data());
  a.out = reinterpret_cast<char*>(r.data());
  a.in_dtype = a.out_dtype = Int64, a.in_itemsize = a.out_itemsize = 8, a.prod = true, a.integral = true;
  ASSERT_TRUE(launch_scan(a, nullptr));
  uint64_t p = 1;
  for (size_t k = 0; k < r.size(); ++k) ASSERT_EQ(r[k], static_cast<int64_t>(p *= 3)) << k;
}

TEST(EmulatedGpuKernels, RemapPadsRollsFlipsAndBands) {
  // A 3 x 4 source: rows reflected with pad 2 (and cropped by a negative right pad), columns rolled by 1.
  std::vector<float> src(12), out(3 * 4);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(i);
  RemapArgs a;
  a.ndim = 2, a.numel = 12, a.itemsize = 4;
  a.sizes[0] = a.source_sizes[0] = 3, a.sizes[1] = a.source_sizes[1] = 4;
  a.mapped_strides[0] = a.source_strides[0] = 4, a.mapped_strides[1] = a.source_strides[1] = 1;
  a.mode[0] = static_cast<int8_t>(MapMode::Reflect), a.shift[0] = 2;
  a.mode[1] = static_cast<int8_t>(MapMode::Roll), a.shift[1] = 1;
  a.mapped = reinterpret_cast<char*>(out.data());
  a.source = reinterpret_cast<char*>(src.data());
  ASSERT_TRUE(launch_remap(a, nullptr));
  const int rows[3] = {2, 1, 0};  // i - 2 reflected: -2 -> 2, -1 -> 1, 0
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(out[i * 4 + j], src[rows[i] * 4 + (j + 3) % 4]) << i << "," << j;
  // Flip along columns, upper band from diagonal 1: the rest zero.
  a.mode[0] = static_cast<int8_t>(MapMode::Offset), a.shift[0] = 0;
  a.mode[1] = static_cast<int8_t>(MapMode::Flip), a.shift[1] = 0;
  a.band = Band::Upper, a.diagonal = 1;
  ASSERT_TRUE(launch_remap(a, nullptr));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(out[i * 4 + j], j - i >= 1 ? src[i * 4 + 3 - j] : 0.f) << i << "," << j;
  // The backward: each mapped element added into its source (replicated edges gather several).
  std::vector<double> g(5, 1.0), acc(3, 0.0);
  RemapArgs b;
  b.ndim = 1, b.numel = 5, b.dtype = Double;
  b.sizes[0] = 5, b.source_sizes[0] = 3, b.mapped_strides[0] = b.source_strides[0] = 1;
  b.mode[0] = static_cast<int8_t>(MapMode::Replicate), b.shift[0] = 1;
  b.mapped = reinterpret_cast<char*>(g.data());
  b.source = reinterpret_cast<char*>(acc.data());
  ASSERT_TRUE(launch_remap_add(b, nullptr));
  EXPECT_EQ(acc, (std::vector<double>{2, 1, 2}));
}

TEST(EmulatedGpuKernels, BitonicSortIsTheStableSortWithNaNLastAndSignedZerosEqual) {
  // 2 lines of 100 (padded to 128) with ties, -0.0/0.0, infinities and NaNs.
  const int64_t lines = 2, n = 100;
  std::vector<float> x = random_floats(static_cast<size_t>(lines * n), 5, -3, 3);
  for (size_t i = 0; i < x.size(); i += 7) x[i] = std::round(x[i]);  // ties
  x[3] = -0.0f, x[4] = 0.0f, x[10] = std::numeric_limits<float>::infinity();
  x[11] = std::numeric_limits<float>::quiet_NaN(), x[150] = std::numeric_limits<float>::quiet_NaN();
  for (bool desc : {false, true}) {
    std::vector<uint64_t> keys(static_cast<size_t>(lines * 128));
    std::vector<int64_t> idx(keys.size()), ind(static_cast<size_t>(lines * n));
    std::vector<float> val(ind.size());
    SortArgs a;
    a.lines = lines, a.n = n, a.padded = 128, a.k = n, a.descending = desc;
    a.in = reinterpret_cast<const char*>(x.data());
    a.keys = keys.data(), a.idx = idx.data();
    a.values = reinterpret_cast<char*>(val.data()), a.indices = ind.data();
    ASSERT_TRUE(launch_sort(a, nullptr));
    for (int64_t l = 0; l < lines; ++l) {
      std::vector<int64_t> want(static_cast<size_t>(n));
      for (int64_t j = 0; j < n; ++j) want[static_cast<size_t>(j)] = j;
      const float* row = x.data() + l * n;
      std::stable_sort(want.begin(), want.end(), [&](int64_t p, int64_t q) {
        const float u = row[p], v = row[q];
        if (std::isnan(u) || std::isnan(v))
          return desc ? std::isnan(u) && !std::isnan(v) : !std::isnan(u) && std::isnan(v);
        return desc ? u > v : u < v;
      });
      for (int64_t j = 0; j < n; ++j) {
        ASSERT_EQ(ind[static_cast<size_t>(l * n + j)], want[static_cast<size_t>(j)]) << "line " << l << " at " << j;
        const float got = val[static_cast<size_t>(l * n + j)], exp = row[want[static_cast<size_t>(j)]];
        ASSERT_TRUE(std::memcmp(&got, &exp, 4) == 0) << "line " << l << " at " << j;  // -0.0 and NaN kept
      }
    }
  }
  // Order statistics from the ascending sort: the median with a NaN is the first NaN.
  std::vector<uint64_t> keys(256);
  std::vector<int64_t> idx(256), ind(2);
  std::vector<float> val(2);
  SortArgs a;
  a.lines = lines, a.n = n, a.padded = 128, a.pick = Pick::Median;
  a.in = reinterpret_cast<const char*>(x.data());
  a.keys = keys.data(), a.idx = idx.data();
  a.values = reinterpret_cast<char*>(val.data()), a.indices = ind.data();
  ASSERT_TRUE(launch_sort(a, nullptr));
  EXPECT_EQ(ind[0], 11);
  EXPECT_EQ(ind[1], 50);
}
