// Generator, the factory registry and the default generators. See Note [Generators].
#include "ember/core/Generator.h"

#include <array>
#include <atomic>
#include <random>

#include "ember/core/CPUGeneratorImpl.h"
#include "ember/core/DeviceGuardImpl.h"

namespace ember {

// ---- GeneratorImpl, Generator -----------------------------------------------------------------

GeneratorImpl::GeneratorImpl(Device device, DispatchKeySet key_set) : device_(device), key_set_(key_set) {}
GeneratorImpl::~GeneratorImpl() = default;

IntrusivePtr<GeneratorImpl> GeneratorImpl::clone() const { return IntrusivePtr<GeneratorImpl>(clone_impl()); }

Generator::Generator(IntrusivePtr<GeneratorImpl> impl) : impl_(std::move(impl)) {
  EMBER_CHECK(impl_ != nullptr, "[Generator] cannot wrap a null GeneratorImpl");
}

GeneratorImpl* Generator::checked(const char* what) const {
  EMBER_CHECK(defined(), "[Generator::{}] called on an undefined Generator", what);
  return impl_.get();
}

void Generator::set_current_seed(uint64_t seed) { checked("set_current_seed")->set_current_seed(seed); }
uint64_t Generator::current_seed() const { return checked("current_seed")->current_seed(); }
uint64_t Generator::seed() { return checked("seed")->seed(); }
void Generator::set_offset(uint64_t offset) { checked("set_offset")->set_offset(offset); }
uint64_t Generator::get_offset() const { return checked("get_offset")->get_offset(); }
GeneratorState Generator::get_state() const { return checked("get_state")->get_state(); }
void Generator::set_state(const GeneratorState& state) { checked("set_state")->set_state(state); }
std::mutex& Generator::mutex() const { return checked("mutex")->mutex_; }
Device Generator::device() const { return checked("device")->device(); }
DispatchKeySet Generator::key_set() const { return checked("key_set")->key_set(); }
Generator Generator::clone() const {
  GeneratorImpl* g = checked("clone");
  std::lock_guard<std::mutex> lock(g->mutex_);  // a consistent copy of a shared state
  return Generator(g->clone());
}

void check_generator_device(const Generator& gen, DeviceType want, const char* op) {
  EMBER_CHECK(gen.device().type() == want, "[{}] expected a generator of device type '{}', got one of '{}'", op,
              device_type_name(want), device_type_name(gen.device().type()));
}

// ---- the registry and the default generators -------------------------------------------------

namespace {

constexpr int kMaxIndices = 128;  // DeviceIndex is int8_t

struct GeneratorRegistry {
  std::mutex mu;
  std::array<GeneratorFactory, kMaxDeviceTypes> factories;
  // Default generators, never destroyed (usable during exit); published once, read lock-free.
  std::array<std::array<std::atomic<const Generator*>, kMaxIndices>, kMaxDeviceTypes> defaults{};
  std::optional<uint64_t> manual_seed;
  std::vector<std::function<void(uint64_t)>> hooks;

  GeneratorRegistry() {
    factories[static_cast<int>(kCPU)] = [](DeviceIndex) { return make_generator<CPUGeneratorImpl>(); };
  }
};

GeneratorRegistry& registry() {
  static auto* r = new GeneratorRegistry();  // never destroyed: used during exit
  return *r;
}

void check_type(DeviceType type, const char* op) {
  EMBER_CHECK(is_valid_device_type(type), "[{}] unknown device type id {}", op, static_cast<int>(type));
}

// CPU and Meta have one device; elsewhere -1 means the current device (through the type's
// DeviceGuardImpl when one is registered, else 0).
DeviceIndex resolve_index(Device d) {
  if (d.type() == kCPU || d.type() == kMeta) return 0;
  if (d.has_index()) return d.index();
  if (impl::hasDeviceGuardImpl(d.type())) {
    DeviceIndex i = impl::getDeviceGuardImpl(d.type())->getDevice().index();
    if (i >= 0) return i;
  }
  return 0;
}

// Calls the factory of d's type; the registry's mutex is held.
Generator make_from_factory(GeneratorRegistry& r, Device d, DeviceIndex index, const char* op) {
  const GeneratorFactory& f = r.factories[static_cast<int>(d.type())];
  EMBER_CHECK(static_cast<bool>(f),
              "[{}] no generator is registered for device type '{}': load the plugin that provides it "
              "(ember::plugins::load(\"{}\"))",
              op, device_type_name(d.type()), device_type_name(d.type()));
  Generator g = f(index);
  EMBER_CHECK(g.defined() && g.device().type() == d.type(),
              "[{}] the generator factory of device type '{}' returned {}", op, device_type_name(d.type()),
              g.defined() ? fmt::format("a generator of device type '{}'", device_type_name(g.device().type()))
                          : std::string("an undefined generator"));
  return g;
}

}  // namespace

void register_generator_factory(DeviceType type, GeneratorFactory factory) {
  check_type(type, "register_generator_factory");
  EMBER_CHECK(static_cast<bool>(factory), "[register_generator_factory] empty factory for device type '{}'",
              device_type_name(type));
  auto& r = registry();
  std::lock_guard<std::mutex> g(r.mu);
  r.factories[static_cast<int>(type)] = std::move(factory);
}

bool has_generator_factory(DeviceType type) {
  if (!is_valid_device_type(type)) return false;
  auto& r = registry();
  std::lock_guard<std::mutex> g(r.mu);
  return static_cast<bool>(r.factories[static_cast<int>(type)]);
}

void manual_seed(uint64_t seed) {
  auto& r = registry();
  std::vector<std::function<void(uint64_t)>> hooks;
  {
    std::lock_guard<std::mutex> g(r.mu);
    r.manual_seed = seed;
    for (auto& per_type : r.defaults)
      for (auto& slot : per_type)
        if (const Generator* gen = slot.load(std::memory_order_acquire)) {
          std::lock_guard<std::mutex> lock(gen->mutex());
          gen->unsafeGetGeneratorImpl()->set_current_seed(seed);
        }
    hooks = r.hooks;
  }
  for (auto& h : hooks) h(seed);
}

namespace detail {

Generator createGenerator(Device device) {
  check_type(device.type(), "createGenerator");
  DeviceIndex index = resolve_index(device);
  auto& r = registry();
  std::lock_guard<std::mutex> g(r.mu);
  return make_from_factory(r, device, index, "createGenerator");
}

const Generator& getDefaultGenerator(Device device) {
  check_type(device.type(), "getDefaultGenerator");
  DeviceIndex index = resolve_index(device);
  auto& r = registry();
  auto& slot = r.defaults[static_cast<int>(device.type())][index];
  if (const Generator* gen = slot.load(std::memory_order_acquire)) return *gen;
  std::lock_guard<std::mutex> g(r.mu);
  if (const Generator* gen = slot.load(std::memory_order_relaxed)) return *gen;
  auto* gen = new Generator(make_from_factory(r, device, index, "getDefaultGenerator"));
  if (r.manual_seed) gen->set_current_seed(*r.manual_seed);  // not shared yet: no lock needed
  slot.store(gen, std::memory_order_release);
  return *gen;
}

const Generator& getDefaultCPUGenerator() {
  static const Generator& gen = getDefaultGenerator(Device(kCPU));
  return gen;
}

Generator createCPUGenerator(uint64_t seed_val) { return make_generator<CPUGeneratorImpl>(seed_val); }

void add_seed_hook(std::function<void(uint64_t)> hook) {
  auto& r = registry();
  std::lock_guard<std::mutex> g(r.mu);
  r.hooks.push_back(std::move(hook));
}

}  // namespace detail

// ---- CPUGeneratorImpl ------------------------------------------------------------------------

CPUGeneratorImpl::CPUGeneratorImpl(uint64_t seed_in)
    : GeneratorImpl(Device(kCPU), DispatchKeySet::of(Functionality::Dense) | DispatchKeySet::of(kCPU)),
      seed_(seed_in) {}

void CPUGeneratorImpl::set_current_seed(uint64_t seed) {
  seed_ = seed;
  offset_ = 0;
}
uint64_t CPUGeneratorImpl::current_seed() const { return seed_; }

uint64_t CPUGeneratorImpl::seed() {
  std::random_device rd;
  const uint64_t s = uint64_t{rd()} << 32 | rd();
  set_current_seed(s);
  return s;
}

void CPUGeneratorImpl::set_offset(uint64_t offset) { offset_ = offset; }
uint64_t CPUGeneratorImpl::get_offset() const { return offset_; }

GeneratorState CPUGeneratorImpl::get_state() const {
  GeneratorState s{kCPU, std::vector<uint8_t>(16)};
  for (int i = 0; i < 8; ++i) {
    s.bytes[i] = static_cast<uint8_t>(seed_ >> (8 * i));
    s.bytes[8 + i] = static_cast<uint8_t>(offset_ >> (8 * i));
  }
  return s;
}

void CPUGeneratorImpl::set_state(const GeneratorState& state) {
  EMBER_CHECK(state.device_type == kCPU && state.bytes.size() == 16,
              "[Generator::set_state] expected the 16-byte state of a cpu generator, got {} bytes from a {} "
              "generator",
              state.bytes.size(), device_type_name(state.device_type));
  uint64_t seed = 0, offset = 0;
  for (int i = 0; i < 8; ++i) {
    seed |= uint64_t{state.bytes[i]} << (8 * i);
    offset |= uint64_t{state.bytes[8 + i]} << (8 * i);
  }
  seed_ = seed;
  offset_ = offset;
}

PhiloxRange CPUGeneratorImpl::reserve(uint64_t blocks) {
  PhiloxRange r{seed_, offset_};
  offset_ += blocks;
  return r;
}

CPUGeneratorImpl* CPUGeneratorImpl::clone_impl() const {
  auto* g = new CPUGeneratorImpl(seed_);
  g->offset_ = offset_;
  return g;
}

// ---- detail::CpuGenerator --------------------------------------------------------------------

namespace detail {

CpuGenerator::CpuGenerator() : CpuGenerator(createCPUGenerator()) {}

CpuGenerator::CpuGenerator(Generator gen) : gen_(std::move(gen)) {
  impl_ = check_generator<CPUGeneratorImpl>(gen_, "CpuGenerator");
}

void CpuGenerator::set_seed(uint64_t seed) {
  std::lock_guard<std::mutex> g(impl_->mutex_);
  impl_->set_current_seed(seed);
}
uint64_t CpuGenerator::seed() const {
  std::lock_guard<std::mutex> g(impl_->mutex_);
  return impl_->current_seed();
}
uint64_t CpuGenerator::offset() const {
  std::lock_guard<std::mutex> g(impl_->mutex_);
  return impl_->get_offset();
}
void CpuGenerator::set_offset(uint64_t offset) {
  std::lock_guard<std::mutex> g(impl_->mutex_);
  impl_->set_offset(offset);
}
CpuGenerator::Range CpuGenerator::reserve(uint64_t blocks) {
  std::lock_guard<std::mutex> g(impl_->mutex_);
  return impl_->reserve(blocks);
}

CpuGenerator& default_cpu_generator() {
  static auto* g = new CpuGenerator(getDefaultCPUGenerator());  // never destroyed: usable during exit
  return *g;
}

}  // namespace detail
}  // namespace ember
