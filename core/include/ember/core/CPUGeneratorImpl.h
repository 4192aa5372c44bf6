#pragma once
// The CPU generator: a Philox seed and block offset (see Note [Counter-based random numbers] in
// Philox.h), and detail::CpuGenerator, a self-locking view of one.
#include "ember/core/Generator.h"
#include "ember/core/Philox.h"

namespace ember {

class EMBER_API CPUGeneratorImpl final : public GeneratorImpl {
 public:
  explicit CPUGeneratorImpl(uint64_t seed_in = default_rng_seed_val);

  void set_current_seed(uint64_t seed) override;
  uint64_t current_seed() const override;
  uint64_t seed() override;
  void set_offset(uint64_t offset) override;
  uint64_t get_offset() const override;
  // 16 bytes: the seed, then the offset (little-endian).
  GeneratorState get_state() const override;
  void set_state(const GeneratorState& state) override;

  static DeviceType device_type() { return kCPU; }

  // Reserves `blocks` consecutive Philox blocks for one call. The caller holds mutex_.
  PhiloxRange reserve(uint64_t blocks);

 private:
  CPUGeneratorImpl* clone_impl() const override;

  uint64_t seed_;
  uint64_t offset_ = 0;
};

namespace detail {

// A CPU generator's seed and offset behind calls that each lock its mutex: for code that reserves
// Philox blocks itself. Copies view the same generator.
class EMBER_API CpuGenerator {
 public:
  static constexpr uint64_t kDefaultSeed = default_rng_seed_val;
  using Range = PhiloxRange;

  CpuGenerator();  // a fresh generator with the default seed
  // A view of `gen`; throws ValueError unless it is a CPU generator.
  explicit CpuGenerator(Generator gen);

  void set_seed(uint64_t seed);  // also resets the offset to 0
  uint64_t seed() const;         // the current seed (not LibTorch's reseeding seed())
  uint64_t offset() const;
  void set_offset(uint64_t offset);
  Range reserve(uint64_t blocks);
  const Generator& generator() const { return gen_; }

 private:
  Generator gen_;
  CPUGeneratorImpl* impl_;
};

// A view of the default CPU generator (getDefaultCPUGenerator()).
EMBER_API CpuGenerator& default_cpu_generator();

}  // namespace detail
}  // namespace ember
