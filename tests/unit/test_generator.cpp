// Generators with no plugin loaded: the handle, CPUGeneratorImpl's state, the factory registry
// and default generators of a device type registered at run time, manual_seed across devices,
// and Generator/Stream through IValue, schemas and boxed calls.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <thread>
#include <vector>

#include "UnitTestUtil.h"
#include "ember/ember.h"

using namespace ember;

namespace {

using test::error_of;

#define EXPECT_MSG(stmt, part) \
  EXPECT_NE(error_of([&] { (void)(stmt); }).find(part), std::string::npos) << error_of([&] { (void)(stmt); })

// A generator for a device type of the test's own: counts up from its seed, one per device index.
class CountingGeneratorImpl final : public GeneratorImpl {
 public:
  CountingGeneratorImpl(DeviceType t, DeviceIndex i)
      : GeneratorImpl(Device(t, i), DispatchKeySet::of(Functionality::Dense) | DispatchKeySet::of(t)) {}
  void set_current_seed(uint64_t s) override {
    seed_ = s;
    offset_ = 0;
  }
  uint64_t current_seed() const override { return seed_; }
  uint64_t seed() override { return seed_ = 99; }
  void set_offset(uint64_t o) override { offset_ = o; }
  uint64_t get_offset() const override { return offset_; }
  GeneratorState get_state() const override { return {device().type(), {static_cast<uint8_t>(seed_)}}; }
  void set_state(const GeneratorState& s) override { seed_ = s.bytes.at(0); }

 private:
  CountingGeneratorImpl* clone_impl() const override {
    auto* g = new CountingGeneratorImpl(device().type(), device().index());
    g->seed_ = seed_;
    g->offset_ = offset_;
    return g;
  }
  uint64_t seed_ = 5;
  uint64_t offset_ = 0;
};

}  // namespace

TEST(Generator, HandleSharesStateAndCloneCopiesIt) {
  Generator none;
  EXPECT_FALSE(none.defined());
  EXPECT_MSG(none.current_seed(), "[Generator::current_seed] called on an undefined Generator");
  EXPECT_MSG(Generator(IntrusivePtr<GeneratorImpl>()), "[Generator] cannot wrap a null GeneratorImpl");

  Generator a = make_generator<CPUGeneratorImpl>(42);
  EXPECT_TRUE(a.defined());
  EXPECT_EQ(a.device(), Device(kCPU));
  EXPECT_EQ(a.key_set(), DispatchKeySet(DispatchKey::CPU));
  EXPECT_EQ(a.current_seed(), 42u);
  Generator b = a;  // same state
  EXPECT_TRUE(a == b);
  b.set_offset(7);
  EXPECT_EQ(a.get_offset(), 7u);
  Generator c = a.clone();  // independent copy
  EXPECT_FALSE(a == c);
  EXPECT_EQ(c.current_seed(), 42u);
  EXPECT_EQ(c.get_offset(), 7u);
  c.set_current_seed(1);
  EXPECT_EQ(c.get_offset(), 0u);  // a new seed restarts the stream
  EXPECT_EQ(a.current_seed(), 42u);
  EXPECT_EQ(a.get<CPUGeneratorImpl>()->reserve(3).offset, 7u);
  EXPECT_EQ(a.get_offset(), 10u);

  // seed(): a non-deterministic seed, returned and in effect.
  const uint64_t s = a.seed();
  EXPECT_EQ(a.current_seed(), s);
  EXPECT_EQ(detail::createCPUGenerator().current_seed(), default_rng_seed_val);
  EXPECT_EQ(default_rng_seed_val, 67280421310721ull);
}

TEST(Generator, StateRoundTripsAndIsChecked) {
  Generator a = make_generator<CPUGeneratorImpl>(0x0102030405060708ull);
  a.set_offset(0x1112);
  GeneratorState st = a.get_state();
  EXPECT_EQ(st.device_type, kCPU);
  ASSERT_EQ(st.bytes.size(), 16u);
  EXPECT_EQ(st.bytes[0], 0x08);  // little-endian seed, then offset
  EXPECT_EQ(st.bytes[7], 0x01);
  EXPECT_EQ(st.bytes[8], 0x12);
  EXPECT_EQ(st.bytes[9], 0x11);
  Generator b = detail::createCPUGenerator(5);
  b.set_state(st);
  EXPECT_EQ(b.current_seed(), 0x0102030405060708ull);
  EXPECT_EQ(b.get_offset(), 0x1112u);
  EXPECT_EQ(b.get_state(), st);

  EXPECT_MSG(b.set_state(GeneratorState{kCPU, {1, 2, 3}}),
             "[Generator::set_state] expected the 16-byte state of a cpu generator, got 3 bytes from a cpu");
  EXPECT_MSG(b.set_state(GeneratorState{kMeta, std::vector<uint8_t>(16)}), "from a meta generator");
  EXPECT_EQ(b.current_seed(), 0x0102030405060708ull);  // a refused state changes nothing
}

TEST(Generator, CheckGeneratorNamesTheOperator) {
  EXPECT_MSG(check_generator<CPUGeneratorImpl>(std::nullopt, "uniform_"), "[uniform_] expected a Generator, got None");
  EXPECT_MSG(check_generator<CPUGeneratorImpl>(Generator(), "uniform_"), "got an undefined one");
  const DeviceType t = register_device_type("tgendev");
  Generator other = make_generator<CountingGeneratorImpl>(t, 0);
  EXPECT_MSG(check_generator<CPUGeneratorImpl>(other, "normal_"),
             "[normal_] expected a generator of device type 'cpu', got one of 'tgendev'");
  const Generator& def = detail::getDefaultCPUGenerator();
  EXPECT_EQ(get_generator_or_default<CPUGeneratorImpl>(std::nullopt, def), def.unsafeGetGeneratorImpl());
  EXPECT_EQ(get_generator_or_default<CPUGeneratorImpl>(Generator(), def), def.unsafeGetGeneratorImpl());
  Generator mine = detail::createCPUGenerator();
  EXPECT_EQ(get_generator_or_default<CPUGeneratorImpl>(mine, def), mine.unsafeGetGeneratorImpl());
}

TEST(Generator, RegistryAndDefaultsPerDevice) {
  const DeviceType t = register_device_type("tgendev2");
  EXPECT_FALSE(has_generator_factory(t));
  EXPECT_MSG(detail::getDefaultGenerator(Device(t, 0)),
             "[getDefaultGenerator] no generator is registered for device type 'tgendev2': load the plugin");
  EXPECT_MSG(detail::createGenerator(Device(t, 0)), "[createGenerator] no generator is registered");
  EXPECT_MSG(register_generator_factory(t, {}), "empty factory");
  EXPECT_MSG(register_generator_factory(static_cast<DeviceType>(15), [](DeviceIndex) { return Generator(); }),
             "unknown device type id 15");

  register_generator_factory(t, [t](DeviceIndex i) { return make_generator<CountingGeneratorImpl>(t, i); });
  EXPECT_TRUE(has_generator_factory(t));
  EXPECT_TRUE(has_generator_factory(kCPU));
  EXPECT_FALSE(has_generator_factory(kMeta));

  const Generator& d0 = detail::getDefaultGenerator(Device(t, 0));
  const Generator& d1 = detail::getDefaultGenerator(Device(t, 1));
  EXPECT_EQ(d0.device(), Device(t, 0));
  EXPECT_EQ(d1.device(), Device(t, 1));
  EXPECT_FALSE(d0 == d1);
  EXPECT_EQ(&detail::getDefaultGenerator(Device(t, 1)), &d1);  // made once
  // No DeviceGuardImpl for this type: index -1 means device 0.
  EXPECT_EQ(&detail::getDefaultGenerator(Device(t)), &d0);
  // createGenerator makes a fresh one each time.
  Generator n = detail::createGenerator(Device(t, 1));
  EXPECT_FALSE(n == d1);
  EXPECT_EQ(n.device(), Device(t, 1));
  // The CPU default: one for every index.
  EXPECT_EQ(&detail::getDefaultGenerator(Device(kCPU)), &detail::getDefaultCPUGenerator());
  EXPECT_EQ(&detail::getDefaultGenerator(Device(kCPU, 0)), &detail::getDefaultCPUGenerator());
  EXPECT_TRUE(detail::default_cpu_generator().generator() == detail::getDefaultCPUGenerator());

  // A factory that returns a generator of another type is refused.
  const DeviceType bad = register_device_type("tgendev3");
  register_generator_factory(bad, [](DeviceIndex) { return detail::createCPUGenerator(); });
  EXPECT_MSG(detail::getDefaultGenerator(Device(bad, 0)),
             "the generator factory of device type 'tgendev3' returned a generator of device type 'cpu'");
}

TEST(Generator, ManualSeedSeedsEveryDeviceIncludingLaterOnes) {
  const DeviceType t = register_device_type("tgendev4");
  register_generator_factory(t, [t](DeviceIndex i) { return make_generator<CountingGeneratorImpl>(t, i); });
  Generator g0 = detail::getDefaultGenerator(Device(t, 0));
  g0.set_current_seed(5);
  g0.set_offset(3);
  Generator cpu = detail::getDefaultCPUGenerator();  // a handle: set_offset is not const
  cpu.set_offset(11);
  manual_seed(1234);
  EXPECT_EQ(g0.current_seed(), 1234u);
  EXPECT_EQ(g0.get_offset(), 0u);
  EXPECT_EQ(detail::getDefaultCPUGenerator().current_seed(), 1234u);
  EXPECT_EQ(detail::getDefaultCPUGenerator().get_offset(), 0u);
  // A default generator made after manual_seed starts from that seed too.
  EXPECT_EQ(detail::getDefaultGenerator(Device(t, 3)).current_seed(), 1234u);
  // Generators that are not defaults keep their own state.
  Generator mine = make_generator<CPUGeneratorImpl>(8);
  manual_seed(77);
  EXPECT_EQ(mine.current_seed(), 8u);
  EXPECT_EQ(g0.current_seed(), 77u);
  EXPECT_EQ(detail::getDefaultGenerator(Device(t, 3)).current_seed(), 77u);
}

TEST(Generator, ConcurrentReservationsNeverOverlap) {
  Generator g = detail::createCPUGenerator(3);
  auto* impl = g.get<CPUGeneratorImpl>();
  std::vector<std::vector<uint64_t>> got(4);
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&, t] {
      for (int i = 0; i < 1000; ++i) {
        std::lock_guard<std::mutex> lock(g.mutex());
        got[t].push_back(impl->reserve(2).offset);
      }
    });
  for (auto& t : ts) t.join();
  std::set<uint64_t> all;
  for (auto& v : got) all.insert(v.begin(), v.end());
  EXPECT_EQ(all.size(), 4000u);
  EXPECT_EQ(*all.rbegin(), 7998u);
  EXPECT_EQ(g.get_offset(), 8000u);
}

// ---- Generator and Stream as boxed values and schema types -----------------------------------

TEST(Generator, IValueHoldsGeneratorsAndStreams) {
  static_assert(sizeof(IValue) == 16);
  Generator g = detail::createCPUGenerator(4);
  {
    IValue v(g);
    EXPECT_TRUE(v.isGenerator());
    EXPECT_EQ(v.tag_name(), "Generator");
    EXPECT_EQ(g.getIntrusivePtr().use_count(), 2u);  // the IValue holds a reference
    IValue w = v;
    EXPECT_EQ(g.getIntrusivePtr().use_count(), 3u);
    EXPECT_TRUE(w.toGenerator() == g);
    EXPECT_EQ(v.repr(), "Generator(cpu)");
    EXPECT_MSG(v.toTensor(), "[IValue] expected Tensor but got Generator");
  }
  EXPECT_EQ(g.getIntrusivePtr().use_count(), 1u);
  EXPECT_TRUE(IValue(Generator()).isNone());  // undefined: None
  EXPECT_TRUE(IValue(std::optional<Generator>()).isNone());
  EXPECT_TRUE(IValue(std::optional<Generator>(g)).isGenerator());
  EXPECT_MSG(IValue(1).toGenerator(), "[IValue] expected Generator but got int");

  const DeviceType t = register_device_type("tgendev5");
  for (StreamId id : {StreamId{0}, StreamId{3}, StreamId{-2}, (StreamId{1} << 47) - 1, -(StreamId{1} << 47)}) {
    Stream s(Stream::UNSAFE, Device(t, 7), id);
    IValue v(s);
    EXPECT_TRUE(v.isStream());
    EXPECT_EQ(v.toStream(), s) << id;
    EXPECT_EQ(v.toStream().device(), Device(t, 7));
  }
  EXPECT_MSG(IValue(Stream(Stream::UNSAFE, Device(kCPU), StreamId{1} << 47)),
             "[Stream] id 140737488355328 does not fit the 48 bits");
  EXPECT_EQ(IValue(Stream(Stream::DEFAULT, Device(kCPU))).repr(), "Stream(device=cpu, id=0)");
  EXPECT_EQ(IValue(Stream(Stream::DEFAULT, Device(kCPU))).tag_name(), "Stream");
}

TEST(Generator, SchemasKernelsAndBoxedCallsTakeGeneratorOptional) {
  FunctionSchema s = parse_schema("tgen::f(Tensor self, *, Generator? generator=None) -> Tensor");
  EXPECT_EQ(s.arguments()[1].type()->str(), "Generator?");
  std::string why;
  EXPECT_EQ(expected_cpp_arg(s.arguments()[1], &why), "std::optional<Generator>");
  EXPECT_EQ(expected_cpp_arg(parse_schema("g(Stream s) -> ()").arguments()[0], &why), "Stream");
  EXPECT_EQ(expected_cpp_arg(parse_schema("g(Stream? s) -> ()").arguments()[0], &why), "std::optional<Stream>");

  auto def = std::make_unique<Library>(Library::Kind::DEF, "tgen", std::nullopt, __FILE__, __LINE__);
  def->def("f(Tensor self, *, Generator? generator=None) -> Tensor");
  def->def("g(Tensor self, Stream s) -> Tensor");
  auto impl = std::make_unique<Library>(Library::Kind::IMPL, "tgen", DispatchKey::CPU, __FILE__, __LINE__);
  // By const reference is refused, with LibTorch's convention in the message.
  std::string e =
      error_of([&] { impl->impl("f", [](const Tensor& x, const std::optional<Generator>&) { return x; }); });
  EXPECT_NE(e.find("C++ must take `std::optional<Generator>`, but it takes `const std::optional<Generator>&` "
                   "(LibTorch takes `Generator?` by value)"),
            std::string::npos)
      << e;
  static uint64_t seen_seed = 0;
  static StreamId seen_stream = -1;
  impl->impl("f", [](const Tensor& x, std::optional<Generator> g) {
    seen_seed = g ? g->current_seed() : 0;
    return x;
  });
  impl->impl("g", [](const Tensor& x, Stream s) {
    seen_stream = s.id();
    return x;
  });

  Tensor x = make_empty({2}, kFloat32);
  auto f =
      Dispatcher::singleton().findSchemaOrThrow("tgen::f", "").typed<Tensor(const Tensor&, std::optional<Generator>)>();
  f.call(x, detail::createCPUGenerator(31));
  EXPECT_EQ(seen_seed, 31u);
  const std::optional<Generator> none;
  f.call(x, none);
  EXPECT_EQ(seen_seed, 0u);
  // Boxed, by name: the default (None), then a Generator.
  ops::call("tgen::f", x);
  EXPECT_EQ(seen_seed, 0u);
  ops::call("tgen::f", x, detail::createCPUGenerator(32));
  EXPECT_EQ(seen_seed, 32u);
  ops::call("tgen::g", x, Stream(Stream::UNSAFE, Device(kCPU), 12));
  EXPECT_EQ(seen_stream, 12);
}
