// The intra-op pool (Note [One intra-op pool] in ember/core/Parallel.h): kernels split over two
// threads give the same bits as on one, on every path a split can take (contiguous loops,
// TensorIter runs that start and end mid-row, conversions, fills), and stay serial where a split
// would race (reductions, stride-0 outputs).
#include <cstdlib>
#include <string>

#include "OpTestUtil.h"

namespace ember::optest {
namespace {

// Long enough to be split (more than 2 * kGrainSize elements), with rows that do not divide the
// split points, so runs start and end mid-row.
const std::vector<int64_t> kShape = {257, 523};

TEST(CpuThreads, DefaultsAndEnvironment) {
  EXPECT_GE(get_num_threads(), 1);
  // libember sets a passive wait policy before libgomp loads, unless the user chose one.
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  ASSERT_NE(policy, nullptr);
  EXPECT_STREQ(policy, "PASSIVE");
}

TEST(CpuThreads, ElementwiseMatchesOneThread) {
  for (Kind k : kKinds) {
    const std::string kn = kind_name(k);
    Tensor a = make(kShape, kFloat32, k, 1);
    Tensor b = make(kShape, kFloat32, Kind::Contiguous, 2, true);
    expect_thread_invariant("add " + kn, [&] { return a + b; });
    expect_thread_invariant("div " + kn, [&] { return a / b; });
    expect_thread_invariant("exp " + kn, [&] { return a.exp(); });
    expect_thread_invariant("addcmul " + kn, [&] { return ember::addcmul(a, a, b, 0.5); });
    expect_thread_invariant("lt " + kn, [&] { return a < b; });
    expect_thread_invariant("where " + kn, [&] { return ember::where(a < b, a, b); });
    // Mixed dtypes: the chunked conversion path of run_binary.
    Tensor h = make(kShape, kFloat16, k, 3);
    expect_thread_invariant("mul f32*f16 " + kn, [&] { return a * h; });
    expect_thread_invariant("to f16 " + kn, [&] { return a.to(kFloat16); });
    expect_thread_invariant("contiguous " + kn, [&] { return a.contiguous(); });
  }
}

TEST(CpuThreads, SplitResultsMatchReference) {
  // A transposed operand takes TensorIter's strided runs; check the values, not only invariance.
  Tensor a = make(kShape, kFloat64, Kind::Transposed, 4);
  Tensor b = make(kShape, kInt32, Kind::Sliced, 5);
  Tensor r = with_threads(2, [&] { return a * b; });
  expect_values(r, ref_binary(a, b, [](double x, double y) { return x * y; }), "mul f64*i32 on two threads");
}

TEST(CpuThreads, FillsAndCopies) {
  expect_thread_invariant("zeros", [] { return ember::zeros({300000}); });
  expect_thread_invariant("full", [] { return ember::full({3, 100000}, 2.5); });
  Tensor tall = ember::empty({600, 600});
  expect_thread_invariant("fill_ transposed", [&] { return tall.t().fill_(7).t().clone(); });
  Tensor src = make(kShape, kInt64, Kind::Contiguous, 6);
  expect_thread_invariant("copy_ i64->f64", [&] {
    Tensor dst = ember::empty(kShape, kFloat64);
    dst.copy_(src);
    return dst;
  });
  Tensor z = with_threads(2, [] { return ember::zeros({300001}, kInt8); });
  EXPECT_EQ(z.sum().item().toLong(), 0);
  Tensor f = with_threads(2, [] { return ember::full({300001}, 1, kInt64); });
  EXPECT_EQ(f.sum().item().toLong(), 300001);
}

TEST(CpuThreads, InPlaceOnSelfAndOverlap) {
  // In place on two threads, against the same op on one.
  Tensor base = make(kShape, kFloat32, Kind::Contiguous, 7);
  expect_thread_invariant("mul_", [&] {
    Tensor x = base.clone();
    x.mul_(3);
    return x;
  });
  // An input that may overlap the output (not dense: too hard to tell) is read from a copy first,
  // whatever the split.
  expect_thread_invariant("overlapping add_", [&] {
    Tensor x = ember::arange(0, 200000, 1, kFloat64);
    Tensor lhs = x.slice(0, 0, 200000, 2), rhs = x.slice(0, 1, 200000, 2);
    lhs.add_(rhs);
    return x;
  });
}

TEST(CpuThreads, ReductionsAndRandomIndependentOfThreads) {
  Tensor a = make(kShape, kFloat32, Kind::Transposed, 8);
  // A long contiguous sum splits its pairwise tree over threads: same bits on any count.
  for (ScalarType dt : {kFloat32, kFloat64, kInt32, kFloat16}) {
    Tensor big = make({1000003}, dt, Kind::Contiguous, 9);
    expect_thread_invariant(std::string("full sum ") + std::string(dtype_name(dt)), [&] { return big.sum(); });
    if (dt == kFloat16) continue;  // the float16 result overflows to inf, as LibTorch's
    double want = 0;
    for (double v : values(big)) want += v;
    EXPECT_NEAR(with_threads(2, [&] { return big.sum(); }).item().toDouble(), want, 1e-9 * std::fabs(want) + 1e-6);
  }
  // Extremes of one long row split into parts; rows split over threads; NaN still propagates.
  Tensor longrow = make({1000003}, kFloat32, Kind::Contiguous, 10);
  expect_thread_invariant("amax long row", [&] { return ember::amax(longrow); });
  expect_thread_invariant("min long row", [&] { return longrow.min(); });
  Tensor withnan = longrow.clone();
  withnan.data_ptr<float>()[777777] = NAN;
  EXPECT_TRUE(std::isnan(with_threads(2, [&] { return ember::amax(withnan); }).item().toDouble()));
  const std::vector<double> lv = values(longrow);
  EXPECT_EQ(with_threads(2, [&] { return ember::amax(longrow); }).item().toDouble(),
            *std::max_element(lv.begin(), lv.end()));
  expect_thread_invariant("argmax rows", [&] { return a.argmax(1); });
  expect_thread_invariant("any rows", [&] { return (a > 0).any(1); });
  // Trailing-dimension sums of a contiguous tensor: rows split over threads.
  Tensor rows = make({301, 1001}, kFloat32, Kind::Contiguous, 11);
  expect_thread_invariant("sum rows", [&] { return rows.sum(1); });
  expect_thread_invariant("mean rows keepdim", [&] { return rows.mean(1, true); });
  {
    Tensor r = with_threads(2, [&] { return rows.sum(-1, true); });
    EXPECT_EQ(r.sizes(), (std::vector<int64_t>{301, 1}));
    const std::vector<double> v = values(rows);
    std::vector<double> want(301, 0.0);
    for (size_t i = 0; i < v.size(); ++i) want[i / 1001] += v[i];
    expect_values(r, want, "sum rows keepdim");
  }
  // Leading-dimension sums of a contiguous tensor: column ranges split over threads.
  expect_thread_invariant("sum columns", [&] { return rows.sum(0); });
  {
    Tensor r = with_threads(2, [&] { return rows.sum(0, true); });
    EXPECT_EQ(r.sizes(), (std::vector<int64_t>{1, 1001}));
    const std::vector<double> v = values(rows);
    std::vector<double> want(1001, 0.0);
    for (size_t i = 0; i < v.size(); ++i) want[i % 1001] += v[i];
    expect_values(r, want, "sum columns keepdim");
  }
  expect_thread_invariant("sum dim 0", [&] { return a.sum(0); });
  expect_thread_invariant("sum dim 1", [&] { return a.sum(1); });
  // Random fills split their Philox blocks over threads: the same seed gives the same numbers.
  expect_thread_invariant("rand", [] {
    manual_seed(5);
    return ember::rand({300001});
  });
  expect_thread_invariant("randn f64", [] {
    manual_seed(6);
    return ember::randn({300001}, kFloat64);
  });
  expect_thread_invariant("randint", [] {
    manual_seed(7);
    return ember::randint(-50, 50, {300001});
  });
  expect_thread_invariant("bernoulli_", [] {
    manual_seed(8);
    return ember::empty({300001}).bernoulli_(0.3);
  });
}

}  // namespace
}  // namespace ember::optest
