#pragma once
// Random-number generators: the Generator handle, the GeneratorImpl interface device backends
// subclass, the registry of per-device-type generator factories, the per-device default
// generators, and manual_seed.
//
// Note [Generators]
// ~~~~~~~~~~~~~~~~~
// As LibTorch's at::Generator: a Generator is a reference-counted handle to a GeneratorImpl
// (CPUGeneratorImpl in core; a device plugin brings its own); copies share one state, clone()
// makes an independent one. Random operators take LibTorch's `Generator? generator=None`, in C++
// `std::optional<Generator>` by value; None (or an undefined Generator) means the default
// generator of the output's device, detail::getDefaultGenerator(device).
//
// Thread safety is LibTorch's: neither GeneratorImpl's methods nor Generator's lock. Code that
// shares a generator between threads holds `gen.mutex()` around its calls; random kernels do,
// around the one call that reserves their numbers, and so do manual_seed and the
// detail::CpuGenerator view.
//
// Each device type has at most one factory (register_generator_factory; core registers the CPU
// one). The default generator of each (type, index) is made by it on first use and lives for the
// process. manual_seed(s) seeds every default generator made so far, on every device, and
// remembers s for those made later, so all devices start from s after it (LibTorch seeds every
// CUDA device the same way).
//
// get_state()/set_state() exchange a GeneratorState (the owning device type and the bytes of the
// state) where LibTorch uses a uint8 CPU tensor: core's generator must not need Tensor's
// generated operator methods.
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

#include "ember/core/DispatchKey.h"
#include "ember/core/IntrusivePtr.h"

namespace ember {

// The seed of a fresh generator (PyTorch's default_rng_seed_val).
constexpr uint64_t default_rng_seed_val = 67280421310721ull;

// A generator's state, as get_state() returns it; set_state() checks the device type and size.
struct EMBER_API GeneratorState {
  DeviceType device_type = kCPU;
  std::vector<uint8_t> bytes;
  bool operator==(const GeneratorState&) const = default;
};

// What a device backend implements. Methods do not lock: see Note [Generators].
class EMBER_API GeneratorImpl : public IntrusiveTarget {
 public:
  GeneratorImpl(Device device, DispatchKeySet key_set);
  ~GeneratorImpl() override;

  // A new generator with a copy of this one's state.
  IntrusivePtr<GeneratorImpl> clone() const;

  virtual void set_current_seed(uint64_t seed) = 0;  // also restarts the stream (offset 0)
  virtual uint64_t current_seed() const = 0;
  // Seeds from a non-deterministic source and returns the seed (LibTorch's seed()).
  virtual uint64_t seed() = 0;
  virtual void set_offset(uint64_t offset) = 0;
  virtual uint64_t get_offset() const = 0;
  virtual GeneratorState get_state() const = 0;
  virtual void set_state(const GeneratorState& state) = 0;

  Device device() const { return device_; }
  DispatchKeySet key_set() const { return key_set_; }

  // Guards the state; held by callers, never by the methods above (LibTorch's public member).
  std::mutex mutex_;

 protected:
  virtual GeneratorImpl* clone_impl() const = 0;

 private:
  Device device_;
  DispatchKeySet key_set_;
};

class EMBER_API Generator {
 public:
  Generator() = default;
  // Throws ValueError for a null impl (as LibTorch).
  explicit Generator(IntrusivePtr<GeneratorImpl> impl);

  bool defined() const { return impl_.get() != nullptr; }
  GeneratorImpl* unsafeGetGeneratorImpl() const { return impl_.get(); }
  const IntrusivePtr<GeneratorImpl>& getIntrusivePtr() const { return impl_; }
  template <class T>
  T* get() const {
    return static_cast<T*>(impl_.get());
  }
  // The same GeneratorImpl.
  bool operator==(const Generator& o) const { return impl_.get() == o.impl_.get(); }

  // Each throws ValueError on an undefined Generator. None locks (see Note [Generators]).
  void set_current_seed(uint64_t seed);
  uint64_t current_seed() const;
  uint64_t seed();
  void set_offset(uint64_t offset);
  uint64_t get_offset() const;
  GeneratorState get_state() const;
  void set_state(const GeneratorState& state);
  std::mutex& mutex() const;
  Device device() const;
  DispatchKeySet key_set() const;
  Generator clone() const;

 private:
  GeneratorImpl* checked(const char* what) const;

  IntrusivePtr<GeneratorImpl> impl_;
};

// LibTorch's spelling: make_generator<CPUGeneratorImpl>(seed).
template <class Impl, class... Args>
Generator make_generator(Args&&... args) {
  return Generator(make_intrusive<Impl>(std::forward<Args>(args)...));
}

// Throws ValueError naming `op`, unless `gen` is a defined generator of implementation T (on
// T::device_type()).
EMBER_API void check_generator_device(const Generator& gen, DeviceType want, const char* op);
template <class T>
T* check_generator(const std::optional<Generator>& gen, const char* op = "Generator") {
  EMBER_CHECK(gen.has_value() && gen->defined(), "[{}] expected a Generator, got {}", op,
              gen.has_value() ? "an undefined one" : "None");
  check_generator_device(*gen, T::device_type(), op);
  auto* impl = dynamic_cast<T*>(gen->unsafeGetGeneratorImpl());
  EMBER_CHECK(impl != nullptr, "[{}] the {} generator given is not of the implementation this kernel uses", op,
              device_type_name(T::device_type()));
  return impl;
}
// `gen` when it is given and defined, else `default_gen`; checked as check_generator does.
template <class T>
T* get_generator_or_default(const std::optional<Generator>& gen, const Generator& default_gen,
                            const char* op = "Generator") {
  return gen.has_value() && gen->defined() ? check_generator<T>(gen, op) : check_generator<T>(default_gen, op);
}

// ---- the registry ----------------------------------------------------------------------------

// Makes a new generator for one device of its type (the index is >= 0).
using GeneratorFactory = std::function<Generator(DeviceIndex)>;

// Registers the factory of `type` (a plugin does, for its device type), replacing any earlier
// one; default generators made before stay. Throws ValueError for an unknown type.
EMBER_API void register_generator_factory(DeviceType type, GeneratorFactory factory);
EMBER_API bool has_generator_factory(DeviceType type);

// Seeds the default generator of every device (and remembers the seed for those made later),
// then calls the seed hooks, as torch::manual_seed.
EMBER_API void manual_seed(uint64_t seed);

namespace detail {

// A new generator for `device` from its type's factory (index -1: the current device, else 0).
// Throws ValueError naming the plugin to load when the type has no factory.
EMBER_API Generator createGenerator(Device device);
// The default generator of `device` (index -1: the current device, as LibTorch), made on first
// use. The reference stays valid for the process.
EMBER_API const Generator& getDefaultGenerator(Device device);
EMBER_API const Generator& getDefaultCPUGenerator();
// A new CPU generator (LibTorch's at::detail::createCPUGenerator).
EMBER_API Generator createCPUGenerator(uint64_t seed_val = default_rng_seed_val);

// Registers a function manual_seed calls with the new seed, for generators that are not default
// generators of the registry (a plugin's private ones).
EMBER_API void add_seed_hook(std::function<void(uint64_t)> hook);

}  // namespace detail
}  // namespace ember
