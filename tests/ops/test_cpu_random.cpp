// Seeded random numbers: the Philox4x32-10 generator against its published test vector, the
// default CPU generator (manual_seed, offsets), and rand/randn/randint/uniform_/normal_/random_/
// bernoulli_: reproducibility, ranges, moments on 1e6 samples, dtype rules and errors.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ember/ember.h"

#include "OpTestUtil.h"

using namespace ember;

namespace {

// The row-major values of a tensor, as doubles (through a float64 contiguous copy).
std::vector<double> values(const Tensor& t) {
  Tensor c = t.to(kFloat64).contiguous();
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

struct Moments {
  double mean, var;
};
Moments moments(const std::vector<double>& v) {
  double s = 0, s2 = 0;
  for (double x : v) s += x;
  const double mean = s / static_cast<double>(v.size());
  for (double x : v) s2 += (x - mean) * (x - mean);
  return {mean, s2 / static_cast<double>(v.size() - 1)};
}

}  // namespace

// ---- the generator ----------------------------------------------------------------------------

TEST(Philox, KnownAnswer) {
  // Random123's kat_vectors for philox4x32_10: counter 0, key 0.
  constexpr auto r = detail::philox4x32_10({0, 0, 0, 0}, {0, 0});
  static_assert(r[0] == 0x6627e8d5u && r[1] == 0xe169c58du && r[2] == 0xbc57ac4cu && r[3] == 0x9b00dbd8u);
  EXPECT_EQ(r[0], 0x6627e8d5u);
  EXPECT_EQ(r[1], 0xe169c58du);
  EXPECT_EQ(r[2], 0xbc57ac4cu);
  EXPECT_EQ(r[3], 0x9b00dbd8u);
  // philox_block puts the 64-bit block index in the first two counter words and the seed in the key.
  EXPECT_EQ(detail::philox_block(0, 0), r);
  EXPECT_NE(detail::philox_block(0, 1), r);
  EXPECT_NE(detail::philox_block(1, 0), r);
  EXPECT_NE(detail::philox_block(uint64_t{1} << 32, 0), detail::philox_block(1, 0));
}

TEST(CpuGenerator, SeedAndOffset) {
  detail::CpuGenerator g;
  EXPECT_EQ(g.seed(), 67280421310721ull);
  EXPECT_EQ(g.offset(), 0u);
  auto r = g.reserve(5);
  EXPECT_EQ(r.seed, 67280421310721ull);
  EXPECT_EQ(r.offset, 0u);
  EXPECT_EQ(g.reserve(3).offset, 5u);
  EXPECT_EQ(g.offset(), 8u);
  g.set_seed(42);
  EXPECT_EQ(g.seed(), 42u);
  EXPECT_EQ(g.offset(), 0u);

  manual_seed(7);
  EXPECT_EQ(detail::default_cpu_generator().seed(), 7u);
  EXPECT_EQ(detail::default_cpu_generator().offset(), 0u);
  (void)rand({10});
  EXPECT_GT(detail::default_cpu_generator().offset(), 0u);

  static uint64_t hooked = 0;  // static: the hook stays registered after this test
  detail::add_seed_hook([](uint64_t s) { hooked = s; });
  manual_seed(123);
  EXPECT_EQ(hooked, 123u);
}

// ---- reproducibility --------------------------------------------------------------------------

TEST(CpuRandom, SameSeedSameValues) {
  for (auto make : {+[] { return rand({37, 5}); }, +[] { return randn({37, 5}); },
                    +[] { return randint(-5, 100, {37, 5}); },
                    +[] { return empty({37, 5}).bernoulli_(0.3); },
                    +[] { return rand({37, 5}, kFloat64); }, +[] { return randn({37, 5}, kFloat16); }}) {
    manual_seed(0);
    Tensor a = make();
    Tensor b = make();  // the generator moved on
    manual_seed(0);
    Tensor a2 = make();
    manual_seed(1);
    Tensor c = make();
    EXPECT_TRUE(a.equal(a2));
    EXPECT_FALSE(a.equal(b));
    EXPECT_FALSE(a.equal(c));
  }
}

TEST(CpuRandom, IndependentOfThreadsAndLayout) {
  const int saved = get_num_threads();
  manual_seed(3);
  set_num_threads(1);
  Tensor a = randn({1000});
  manual_seed(3);
  set_num_threads(2);
  Tensor b = randn({1000});
  set_num_threads(saved);
  EXPECT_TRUE(a.equal(b));

  // A non-contiguous self gets, in row-major order, the values a contiguous one would.
  manual_seed(11);
  Tensor ref = rand({6, 4});
  manual_seed(11);
  Tensor t = empty({4, 6}).t();
  t.uniform_();
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_TRUE(t.equal(ref));
}

TEST(CpuRandom, DefaultSeedIsFixed) {
  // A fresh generator and manual_seed(default) agree: the default seed is PyTorch's.
  manual_seed(67280421310721ull);
  Tensor a = rand({8});
  detail::default_cpu_generator().set_seed(detail::CpuGenerator::kDefaultSeed);
  Tensor b = rand({8});
  EXPECT_TRUE(a.equal(b));
}

// ---- ranges and moments -----------------------------------------------------------------------

TEST(CpuRandom, RandRangeAndMoments) {
  manual_seed(0);
  for (ScalarType dt : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
    Tensor t = rand({100000}, dt);
    EXPECT_EQ(t.dtype(), dt);
    for (double v : values(t)) {
      ASSERT_GE(v, 0.0) << dt;
      ASSERT_LT(v, 1.0) << dt;
    }
  }
  EXPECT_EQ(rand({2, 3}).dtype(), get_default_dtype());
  Tensor r23 = rand({2, 3});
  EXPECT_EQ(r23.dim(), 2);
  EXPECT_EQ(r23.size(0), 2);
  EXPECT_EQ(r23.size(1), 3);
  EXPECT_EQ(rand({0}).numel(), 0);

  for (ScalarType dt : {kFloat32, kFloat64}) {
    auto m = moments(values(rand({1000000}, dt)));
    EXPECT_NEAR(m.mean, 0.5, 0.005) << dt;
    EXPECT_NEAR(m.var, 1.0 / 12, 0.002) << dt;
  }
  auto m = moments(values(empty({1000000}).uniform_(-2, 6)));
  EXPECT_NEAR(m.mean, 2.0, 0.02);
  EXPECT_NEAR(m.var, 64.0 / 12, 0.05);
  for (double v : values(empty({1000}, kFloat64).uniform_(-2, 6))) {
    ASSERT_GE(v, -2.0);
    ASSERT_LT(v, 6.0);
  }
}

TEST(CpuRandom, RandnMoments) {
  manual_seed(0);
  for (ScalarType dt : {kFloat32, kFloat64}) {
    auto m = moments(values(randn({1000000}, dt)));
    EXPECT_NEAR(m.mean, 0.0, 0.01) << dt;
    EXPECT_NEAR(std::sqrt(m.var), 1.0, 0.01) << dt;
  }
  for (ScalarType dt : {kFloat16, kBFloat16}) {
    Tensor t = randn({100000}, dt);
    EXPECT_EQ(t.dtype(), dt);
    auto m = moments(values(t));
    EXPECT_NEAR(m.mean, 0.0, 0.02) << dt;
    EXPECT_NEAR(std::sqrt(m.var), 1.0, 0.02) << dt;
  }
  auto m = moments(values(empty({1000000}, kFloat64).normal_(3, 0.5)));
  EXPECT_NEAR(m.mean, 3.0, 0.005);
  EXPECT_NEAR(std::sqrt(m.var), 0.5, 0.005);
  // An odd count fills the last element too (Box-Muller gives pairs).
  Tensor odd = randn({3}, kFloat64);
  for (double v : values(odd)) EXPECT_TRUE(std::isfinite(v));
  EXPECT_TRUE(empty({5}).normal_(2, 0).equal(full({5}, 2.0)));
}

TEST(CpuRandom, RandintRangeAndDtype) {
  manual_seed(0);
  Tensor a = randint(3, 10, {5, 5});
  Tensor b = randint(10, {5, 5});
  EXPECT_EQ(a.dtype(), kInt64);
  EXPECT_EQ(b.dtype(), kInt64);
  for (double v : values(a)) {
    EXPECT_GE(v, 3);
    EXPECT_LT(v, 10);
  }
  for (double v : values(b)) {
    EXPECT_GE(v, 0);
    EXPECT_LT(v, 10);
  }
  // Every value of a small range turns up, about equally often.
  Tensor c = randint(-2, 3, {100000});
  std::vector<int> counts(5, 0);
  for (double v : values(c)) {
    ASSERT_GE(v, -2);
    ASSERT_LT(v, 3);
    ++counts[static_cast<size_t>(v + 2)];
  }
  for (int n : counts) EXPECT_NEAR(n, 20000, 1000);
  auto m = moments(values(randint(0, 1000, {1000000})));
  EXPECT_NEAR(m.mean, 499.5, 1.0);

  for (ScalarType dt : {kUInt8, kInt8, kInt16, kInt32, kFloat32, kFloat64, kFloat16, kBFloat16}) {
    Tensor t = randint(-1 * (dt != kUInt8), 100, {1000}, dt);
    EXPECT_EQ(t.dtype(), dt);
    for (double v : values(t)) {
      ASSERT_GE(v, dt == kUInt8 ? 0 : -1) << dt;
      ASSERT_LT(v, 100) << dt;
      ASSERT_EQ(v, std::floor(v)) << dt;
    }
  }
  Tensor bools = randint(2, {1000}, kBool);
  EXPECT_EQ(bools.dtype(), kBool);
  // The widest int64 ranges work without overflow.
  Tensor wide = randint(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(), {1000});
  EXPECT_EQ(wide.dtype(), kInt64);
  // random_ with to=None: the dtype's whole range.
  Tensor u8 = empty({10000}, kUInt8).random_(0, std::nullopt);
  auto mu = moments(values(u8));
  EXPECT_NEAR(mu.mean, 127.5, 3);
  for (double v : values(empty({1000}, kInt8).random_(100, std::nullopt))) {
    ASSERT_GE(v, 100);
    ASSERT_LE(v, 127);
  }
}

TEST(CpuRandom, BernoulliFrequency) {
  manual_seed(0);
  for (double p : {0.1, 0.5, 0.75}) {
    Tensor t = empty({1000000}).bernoulli_(p);
    double ones = 0;
    for (double v : values(t)) {
      ASSERT_TRUE(v == 0 || v == 1);
      ones += v;
    }
    EXPECT_NEAR(ones / 1e6, p, 0.005) << p;
  }
  EXPECT_TRUE(empty({100}).bernoulli_(0).equal(zeros({100})));
  EXPECT_TRUE(empty({100}).bernoulli_(1).equal(ones({100})));
  Tensor b = empty({100}, kBool).bernoulli_();
  EXPECT_EQ(b.dtype(), kBool);
  Tensor i = empty({100}, kInt32).bernoulli_(0.5);
  for (double v : values(i)) EXPECT_TRUE(v == 0 || v == 1);
}

// ---- errors -----------------------------------------------------------------------------------

TEST(CpuRandom, Errors) {
  EXPECT_ERROR(ValueError, randint(5, 5, {3}), "[randint] low >= high");
  EXPECT_ERROR(ValueError, randint(7, 2, {3}), "[randint] low >= high", "low=7", "high=2");
  EXPECT_ERROR(ValueError, randint(0, {3}), "[randint] low >= high");
  EXPECT_ERROR(ValueError, rand({2, -1}), "[rand] negative dimension -1");
  EXPECT_ERROR(ValueError, randn({-3}), "[randn] negative dimension -3");
  EXPECT_ERROR(ValueError, randint(10, {-1}), "[randint] negative dimension -1");
  // rand and randn need a floating dtype (PyTorch: "not implemented for 'Long'").
  EXPECT_ERROR(TypeError, rand({2}, kInt64), "[rand] expects a floating point dtype");
  EXPECT_ERROR(TypeError, randn({2}, kInt32), "[randn] expects a floating point dtype");
  EXPECT_ERROR(TypeError, empty({2}, kInt64).uniform_(), "[uniform_] expects a floating point dtype");
  EXPECT_ERROR(TypeError, empty({2}, kBool).normal_(), "[normal_] expects a floating point dtype");
  EXPECT_ERROR(ValueError, empty({2}).uniform_(1, 0), "[uniform_]", "from=1 > to=0");
  EXPECT_ERROR(ValueError, empty({2}).normal_(0, -1), "[normal_] expects std >= 0.0");
  EXPECT_ERROR(ValueError, empty({2}).bernoulli_(1.5), "[bernoulli_] expects p to be in [0, 1]");
  EXPECT_ERROR(ValueError, empty({2}).bernoulli_(-0.1), "[bernoulli_] expects p to be in [0, 1]");
  EXPECT_ERROR(ValueError, empty({2}, kUInt8).random_(0, 300), "[random_]", "out of bounds for");
  EXPECT_ERROR(ValueError, empty({2}, kUInt8).random_(-1, 3), "[random_]", "out of bounds for");
  EXPECT_ERROR(ValueError, randint(0, 3, {2}, kBool), "[random_]", "out of bounds for");
  EXPECT_ERROR(ValueError, empty({2}).random_(4, 4), "[random_] expects 'from' to be less than 'to'");
  // A failed call reserves nothing: the next values are those the seed gives.
  manual_seed(9);
  Tensor a = rand({4});
  manual_seed(9);
  EXPECT_ERROR(ValueError, empty({2}).uniform_(1, 0), "[uniform_]");
  EXPECT_TRUE(rand({4}).equal(a));
}

TEST(CpuRandom, OptionsAndOverloads) {
  // LibTorch's ungrouped overloads and TensorOptions (requires_grad needs the autograd plugin,
  // which this binary does not load).
  manual_seed(0);
  Tensor a = rand({2, 3}, std::nullopt, std::nullopt, std::nullopt, std::nullopt);
  EXPECT_EQ(a.dtype(), get_default_dtype());
  Tensor b = randint(0, 4, {7}, kInt32, std::nullopt, Device(kCPU), std::nullopt);
  EXPECT_EQ(b.dtype(), kInt32);
  EXPECT_EQ(randint(4, {7}, dtype(kInt16).device(kCPU)).dtype(), kInt16);
  // Pinned memory needs a GPU plugin's host allocator (Note [Pinned host memory]); none is loaded here.
  EXPECT_ERROR(ValueError, rand({2}, std::nullopt, std::nullopt, std::nullopt, true),
               "[rand] pinned memory needs a GPU plugin's host allocator and none is registered: load the plugin "
               "of your GPU (ember::plugins::load(\"cuda\"))");
  EXPECT_ERROR(ValueError, empty({2}, TensorOptions().pinned_memory(true)), "[empty] pinned memory needs a GPU plugin");
  EXPECT_ERROR(ValueError, arange(3, TensorOptions().pinned_memory(true)), "[arange] pinned memory needs a GPU plugin");
  EXPECT_ERROR(ValueError, ones({2}).pin_memory(), "[pin_memory] pinned memory needs a GPU plugin");
  EXPECT_ERROR(ValueError, ones({2}).pin_memory(Device(kCUDA)),
               "[pin_memory] no pinned host allocator is registered for device 'cuda': load the plugin that provides "
               "it (ember::plugins::load(\"cuda\"))");
  EXPECT_FALSE(ones({2}).is_pinned()) << "nothing is pinned without a GPU plugin; asking is not an error";
  EXPECT_FALSE(ones({2}).to(kCPU, kFloat64, /*non_blocking=*/true).is_pinned());
}
