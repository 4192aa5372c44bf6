// Random operators with an explicit Generator (LibTorch's `Generator? generator=None`): the
// values are the Philox blocks of that generator's seed and offset, exactly as the default
// generator's; explicit generators advance alone; state round-trips; a generator of another
// device is refused; boxed calls and the meta backend take one too.
#include <gtest/gtest.h>

#include <cmath>

#include "ember/ember.h"

#include "OpTestUtil.h"

using namespace ember;

namespace {

// A generator of a device type of the test's own.
class OtherGeneratorImpl final : public GeneratorImpl {
 public:
  explicit OtherGeneratorImpl(DeviceType t)
      : GeneratorImpl(Device(t, 0), DispatchKeySet::of(Functionality::Dense) | DispatchKeySet::of(t)) {}
  void set_current_seed(uint64_t) override {}
  uint64_t current_seed() const override { return 0; }
  uint64_t seed() override { return 0; }
  void set_offset(uint64_t) override {}
  uint64_t get_offset() const override { return 0; }
  GeneratorState get_state() const override { return {}; }
  void set_state(const GeneratorState&) override {}

 private:
  OtherGeneratorImpl* clone_impl() const override { return new OtherGeneratorImpl(device().type()); }
};

}  // namespace

TEST(CpuGenerator, ValuesAreThePhiloxBlocksOfTheGeneratorGiven) {
  // float32 rand: four elements a block, 24 bits each, from block offset + i / 4.
  Generator g = detail::createCPUGenerator(123);
  g.set_offset(10);
  Tensor r = rand({9}, g);
  const float* p = r.data_ptr<float>();
  for (int i = 0; i < 9; ++i) {
    const auto w = detail::philox_block(123, 10 + i / 4);
    EXPECT_EQ(p[i], static_cast<float>(w[i % 4] >> 8) * 0x1.0p-24f) << i;
  }
  EXPECT_EQ(g.get_offset(), 13u);  // three blocks reserved

  // float64 uniform_: two elements a block, 53 bits from two words.
  Tensor d = empty({3}, kFloat64);
  Generator g2 = detail::createCPUGenerator(7);
  d.uniform_(0, 1, g2);
  for (int i = 0; i < 3; ++i) {
    const auto w = detail::philox_block(7, i / 2);
    const uint64_t x = (uint64_t{w[2 * (i % 2)]} << 32 | w[2 * (i % 2) + 1]) >> 11;
    EXPECT_EQ(d.data_ptr<double>()[i], static_cast<double>(x) * 0x1.0p-53) << i;
  }
}

TEST(CpuGenerator, ExplicitAndDefaultGeneratorsGiveTheSameStream) {
  // The default generator after manual_seed(s) and a fresh generator seeded s agree, op by op.
  for (auto make : {+[](std::optional<Generator> g) {
                      return rand({37, 5}, g);
                    },
                    +[](std::optional<Generator> g) {
                      return randn({37, 5}, g, kFloat64);
                    },
                    +[](std::optional<Generator> g) {
                      return randint(-5, 100, {37, 5}, g);
                    },
                    +[](std::optional<Generator> g) {
                      return randint(100, {37, 5}, g, kInt32);
                    },
                    +[](std::optional<Generator> g) {
                      return empty({37, 5}).bernoulli_(0.3, g);
                    },
                    +[](std::optional<Generator> g) {
                      return empty({37, 5}, kInt16).random_(-3, 9, g);
                    },
                    +[](std::optional<Generator> g) {
                      return empty({37, 5}).normal_(2, 3, g);
                    },
                    +[](std::optional<Generator> g) {
                      return empty({37, 5}).t().uniform_(-1, 1, g);
                    }}) {
    manual_seed(42);
    Tensor by_default = make(std::nullopt);
    Tensor by_default_undefined = make(Generator());  // an undefined Generator is None
    Generator g = detail::createCPUGenerator(42);
    Tensor explicit_gen = make(g);
    EXPECT_TRUE(by_default.equal(explicit_gen));
    EXPECT_FALSE(by_default.equal(by_default_undefined));  // the default generator moved on
    EXPECT_TRUE(make(g).equal(by_default_undefined));      // and so does the explicit one
  }
}

TEST(CpuGenerator, AnExplicitGeneratorLeavesTheDefaultAlone) {
  manual_seed(1);
  const uint64_t before = detail::getDefaultCPUGenerator().get_offset();
  Generator g = detail::createCPUGenerator(5);
  (void)rand({100}, g);
  (void)empty({100}).normal_(0, 1, g);
  EXPECT_EQ(detail::getDefaultCPUGenerator().get_offset(), before);
  EXPECT_EQ(g.get_offset(), 25u + 50u);
  // manual_seed does not touch generators the user made.
  manual_seed(2);
  EXPECT_EQ(g.current_seed(), 5u);
  EXPECT_EQ(g.get_offset(), 75u);
}

TEST(CpuGenerator, StateAndCloneReplayTheSequence) {
  Generator g = detail::createCPUGenerator(9);
  (void)rand({3}, g);
  const GeneratorState st = g.get_state();
  Generator c = g.clone();
  Tensor a = randn({11}, g);
  Tensor b = randn({11}, c);
  EXPECT_TRUE(a.equal(b));
  g.set_state(st);
  EXPECT_TRUE(randn({11}, g).equal(a));
  // The default generator's state, through a handle to it.
  Generator def = detail::getDefaultCPUGenerator();
  const GeneratorState ds = def.get_state();
  Tensor x = rand({4});
  def.set_state(ds);
  EXPECT_TRUE(rand({4}).equal(x));
}

TEST(CpuGenerator, AGeneratorOfAnotherDeviceIsRefused) {
  const DeviceType t = register_device_type("tothergen");
  Generator other = make_generator<OtherGeneratorImpl>(t);
  EXPECT_ERROR(ValueError, empty({2}).uniform_(0, 1, other),
               "[uniform_] expected a generator of device type 'cpu', got one of 'tothergen'");
  EXPECT_ERROR(ValueError, empty({2}).normal_(0, 1, other), "[normal_] expected a generator of device type 'cpu'");
  EXPECT_ERROR(ValueError, empty({2}).random_(0, 3, other), "[random_] expected a generator of device type 'cpu'");
  EXPECT_ERROR(ValueError, empty({2}).bernoulli_(0.5, other), "[bernoulli_] expected a generator of device type");
  EXPECT_ERROR(ValueError, rand({2}, other), "[uniform_] expected a generator of device type 'cpu'");
  // A refused call changes nothing: the tensor keeps its values.
  Tensor z = zeros({3});
  EXPECT_ERROR(ValueError, z.uniform_(0, 1, other), "[uniform_]");
  EXPECT_TRUE(z.equal(zeros({3})));
  // Argument errors still come first, and reserve nothing.
  Generator g = detail::createCPUGenerator(3);
  EXPECT_ERROR(ValueError, empty({2}).uniform_(1, 0, g), "[uniform_]", "from=1 > to=0");
  EXPECT_ERROR(ValueError, randint(5, 5, {3}, g), "[randint] low >= high");
  EXPECT_EQ(g.get_offset(), 0u);
}

TEST(CpuGenerator, BoxedCallsTakeAGenerator) {
  Generator g = detail::createCPUGenerator(11);
  Tensor a = empty({6});
  ops::call("aten::uniform_", a, 0.0, 1.0, g);
  Generator g2 = detail::createCPUGenerator(11);
  EXPECT_TRUE(a.equal(rand({6}, g2)));
  IValue r = ops::call("aten::rand.generator", std::vector<int64_t>{6}, g);
  EXPECT_TRUE(r.toTensor().equal(rand({6}, g2)));
  // By name alone, a Generator argument picks the .generator overload.
  r = ops::call("aten::randn", std::vector<int64_t>{6}, g);
  EXPECT_TRUE(r.toTensor().equal(randn({6}, g2)));
  EXPECT_ERROR(TypeError, ops::call("aten::uniform_", a, 0.0, 1.0, 5),
               "argument 4 'generator' expects Generator?, got int");
  // Without the argument: the default generator.
  manual_seed(4);
  Tensor b = empty({6});
  ops::call("aten::normal_", b);
  manual_seed(4);
  EXPECT_TRUE(b.equal(randn({6})));
}

TEST(CpuGenerator, MetaKernelsTakeAGeneratorAndDrawNothing) {
  plugins::load("meta");
  Generator g = detail::createCPUGenerator(3);
  Tensor m = rand({2, 3}, g, TensorOptions().device(kMeta));
  EXPECT_EQ(m.device(), Device(kMeta));
  EXPECT_EQ(m.sizes(), IntArrayRef({2, 3}));
  Tensor n = empty({4}, TensorOptions().device(kMeta));
  n.normal_(0, 1, g);
  n.bernoulli_(0.5, g);
  n.random_(0, 3, g);
  EXPECT_EQ(g.get_offset(), 0u);
  EXPECT_ERROR(ValueError, n.uniform_(1, 0, g), "[uniform_]", "from=1 > to=0");
}
