// The GPU random kernels (plugins/cuda/kernels/random.cu, run on the host) against the cpu
// plugin's fills after the same manual_seed: Note [GPU random numbers] promises the CPU's bits
// for uniform_ and bernoulli_, and the CPU's normal_ values up to the device's last bits.
#include <gtest/gtest.h>

#include <cstring>

#include "ember/ember.h"
// After Ember's headers: the kernel dialect's macros (HostEmulation.h) stay out of them.
#include "Kernels.h"

namespace {

using ember::Tensor;

constexpr uint64_t kSeed = 20261125;
constexpr int64_t kN = 1001;  // not a multiple of a block's elements

// The kernel's fill of n elements of `dt` from (kSeed, offset 0), in a tensor of that dtype.
Tensor gpu_fill(ember::gpu::RandomKind kind, ember::ScalarType dt, double a, double b) {
  Tensor out = ember::empty({kN}, ember::TensorOptions(dt));
  ember::gpu::RandomArgs r;
  r.out = static_cast<char*>(out.data_ptr());
  r.n = kN;
  r.dtype = static_cast<int8_t>(dt);
  r.seed = kSeed;
  r.offset = 0;
  r.a = a;
  r.b = b;
  EXPECT_TRUE(ember::gpu::launch_random(kind, r, nullptr));
  return out;
}

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.nbytes() == b.nbytes() && std::memcmp(a.data_ptr(), b.data_ptr(), a.nbytes()) == 0;
}

TEST(EmulatedGpuRandom, UniformGivesTheCpusBits) {
  for (ember::ScalarType dt : {ember::kFloat32, ember::kFloat64, ember::kFloat16, ember::kBFloat16}) {
    ember::manual_seed(kSeed);
    const Tensor cpu = ember::empty({kN}, ember::TensorOptions(dt)).uniform_(-3, 5);
    EXPECT_TRUE(same_bits(gpu_fill(ember::gpu::RandomKind::Uniform, dt, -3, 5), cpu)) << dt;
  }
}

TEST(EmulatedGpuRandom, BernoulliGivesTheCpusBits) {
  for (ember::ScalarType dt : {ember::kFloat32, ember::kBool, ember::kInt64, ember::kFloat16}) {
    ember::manual_seed(kSeed);
    const Tensor cpu = ember::empty({kN}, ember::TensorOptions(dt)).bernoulli_(0.3);
    EXPECT_TRUE(same_bits(gpu_fill(ember::gpu::RandomKind::Bernoulli, dt, 0.3, 0), cpu)) << dt;
  }
}

TEST(EmulatedGpuRandom, NormalGivesTheCpusValues) {
  for (ember::ScalarType dt : {ember::kFloat32, ember::kFloat64}) {
    ember::manual_seed(kSeed);
    const Tensor cpu = ember::empty({kN}, ember::TensorOptions(dt)).normal_(1, 2);
    const Tensor gpu = gpu_fill(ember::gpu::RandomKind::Normal, dt, 1, 2);
    EXPECT_TRUE(ember::allclose(gpu, cpu, 1e-6, 1e-6)) << dt;
  }
  // A different offset gives other numbers: the kernel reads the reserved blocks, not block 0.
  ember::manual_seed(kSeed);
  ember::empty({4}).uniform_();  // takes block 0
  const Tensor cpu = ember::empty({kN}).uniform_();
  EXPECT_FALSE(same_bits(gpu_fill(ember::gpu::RandomKind::Uniform, ember::kFloat32, 0, 1), cpu));
}

}  // namespace
