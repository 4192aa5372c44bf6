// Random fills (uniform_, normal_, random_.from, bernoulli_.float) and randperm on a CPU generator (the one
// given, else the default CPU generator). rand, randn, randint and their .generator overloads
// are composites in libember (api/src/native/factories.cpp): empty, then these fills.
//
// Each fill reserves its Philox blocks from the generator once, under its mutex, and gives
// element i (in row-major order) a value computed from block offset + i / k alone (k elements
// per block), so results do not depend on threads or memory layout (see Note [Counter-based
// random numbers] in ember/core/Philox.h). A non-contiguous self is filled through a contiguous
// buffer and copy_.
#include <cmath>
#include <limits>
#include <numbers>

#include "CPUKernels.h"
#include "Loops.h"
#include "ember/core/CPUGeneratorImpl.h"
#include "ember/generated/Functions.h"
#include "ember/native/IndexShapeRules.h"
#include "ember/native/Randperm.h"

namespace ember::cpu {
namespace {

// Bits of precision of T's significand (24 for float, 53 double, 11 half, 8 bfloat16).
template <class T>
constexpr int digits_of() {
  if constexpr (std::is_same_v<T, Half>) return 11;
  else if constexpr (std::is_same_v<T, BFloat16>) return 8;
  else return std::numeric_limits<T>::digits;
}

// [0, 1) with `bits` random bits (bits <= 32), exact in any type with that many digits.
inline float unit_float(uint32_t w, int bits) {
  return static_cast<float>(w >> (32 - bits)) * std::ldexp(1.0f, -bits);
}
// [0, 1) with 53 random bits from two words.
inline double unit_double(uint32_t hi, uint32_t lo) {
  const uint64_t x = (uint64_t{hi} << 32 | lo) >> 11;
  return static_cast<double>(x) * 0x1.0p-53;
}

// Calls fill(T* data, int64_t n) on a contiguous buffer holding self's elements in row-major
// order, then copies back when self was not contiguous.
template <class T, class Fill>
void fill_contiguous(Tensor& self, Fill&& fill) {
  if (self.is_contiguous()) {
    fill(static_cast<T*>(self.data_ptr()), self.numel());
  } else {
    Tensor tmp = empty_cpu(self.sizes(), self.dtype());
    fill(static_cast<T*>(tmp.data_ptr()), tmp.numel());
    cpu::copy_(self, tmp, false);
  }
}

// Calls body(b) for every block b of `per` elements covering n elements, blocks split over the
// intra-op threads: an element's value depends on its block number alone, so the split changes
// nothing.
template <class F>
void for_blocks(int64_t n, int64_t per, const F& body) {
  parallel_for(0, (n + per - 1) / per, std::max<int64_t>(1, kGrainSize / (8 * per)), [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) body(b);
  });
}

uint64_t blocks_for(int64_t n, int64_t per_block) {
  return static_cast<uint64_t>((n + per_block - 1) / per_block);
}

// `gen` (None or undefined: the default CPU generator), checked to be a CPU generator.
CPUGeneratorImpl* cpu_generator(const std::optional<Generator>& gen, const char* op) {
  return get_generator_or_default<CPUGeneratorImpl>(gen, ember::detail::getDefaultCPUGenerator(), op);
}

// Reserves `blocks` consecutive Philox blocks of `g` for one call.
PhiloxRange reserve(CPUGeneratorImpl* g, uint64_t blocks) {
  std::lock_guard<std::mutex> lock(g->mutex_);
  return g->reserve(blocks);
}

}  // namespace

Tensor& uniform_(Tensor& self, double from, double to, std::optional<Generator> generator) {
  check_defined("uniform_", self, "self");
  check_cpu("uniform_", self);
  CPUGeneratorImpl* gen = cpu_generator(generator, "uniform_");
  native::check_uniform(self, from, to);
  if (is_complex_type(self.dtype())) {  // each part uniform, as LibTorch
    Tensor parts = real_view(self);
    uniform_(parts, from, to, generator);
    return self;
  }
  visit_dtype(self.dtype(), "uniform_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T> || is_reduced_float_v<T>) {
      fill_contiguous<T>(self, [&](T* p, int64_t n) {
        if constexpr (std::is_same_v<T, double>) {
          // Two elements a block, 53 bits each.
          const auto r = reserve(gen, blocks_for(n, 2));
          for_blocks(n, 2, [&](int64_t b) {
            const auto w = ember::detail::philox_block(r.seed, r.offset + static_cast<uint64_t>(b));
            for (int64_t j = 0; j < 2 && b * 2 + j < n; ++j)
              p[b * 2 + j] = from + unit_double(w[2 * j], w[2 * j + 1]) * (to - from);
          });
        } else {
          // Four elements a block, with T's digits of precision (so rand is exact and < 1).
          constexpr int bits = digits_of<T>();
          const auto r = reserve(gen, blocks_for(n, 4));
          const auto f = static_cast<float>(from), span = static_cast<float>(to - from);
          for_blocks(n, 4, [&](int64_t b) {
            const auto w = ember::detail::philox_block(r.seed, r.offset + static_cast<uint64_t>(b));
            for (int64_t j = 0; j < 4 && b * 4 + j < n; ++j)
              p[b * 4 + j] = convert<T>(f + unit_float(w[j], bits) * span);
          });
        }
      });
    }
  });
  return self;
}

Tensor& normal_(Tensor& self, double mean, double std, std::optional<Generator> generator) {
  check_defined("normal_", self, "self");
  check_cpu("normal_", self);
  CPUGeneratorImpl* gen = cpu_generator(generator, "normal_");
  native::check_normal(self, std);
  if (is_complex_type(self.dtype())) {  // each part normal with variance std^2 / 2, as LibTorch
    Tensor parts = real_view(self);
    normal_(parts, mean, std / std::sqrt(2.0), generator);
    return self;
  }
  visit_dtype(self.dtype(), "normal_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T> || is_reduced_float_v<T>) {
      // Box-Muller: a block gives u1 in (0, 1] and u2 in [0, 1), so the pair of elements
      // (2b, 2b + 1) gets r cos(2 pi u2) and r sin(2 pi u2), r = sqrt(-2 log u1).
      using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;
      fill_contiguous<T>(self, [&](T* p, int64_t n) {
        const auto r = reserve(gen, blocks_for(n, 2));
        const Acc m = static_cast<Acc>(mean), s = static_cast<Acc>(std);
        constexpr Acc two_pi = static_cast<Acc>(2 * std::numbers::pi);
        for_blocks(n, 2, [&](int64_t b) {
          const auto w = ember::detail::philox_block(r.seed, r.offset + static_cast<uint64_t>(b));
          Acc u1, u2;
          if constexpr (std::is_same_v<T, double>) {
            u1 = 1.0 - unit_double(w[0], w[1]);
            u2 = unit_double(w[2], w[3]);
          } else {
            u1 = 1.0f - unit_float(w[0], 24);
            u2 = unit_float(w[1], 24);
          }
          const Acc rad = std::sqrt(Acc(-2) * std::log(u1));
          p[b * 2] = convert<T>(m + s * rad * std::cos(two_pi * u2));
          if (b * 2 + 1 < n) p[b * 2 + 1] = convert<T>(m + s * rad * std::sin(two_pi * u2));
        });
      });
    }
  });
  return self;
}

Tensor& random_from(Tensor& self, int64_t from, std::optional<int64_t> to, std::optional<Generator> generator) {
  check_defined("random_", self, "self");
  check_cpu("random_", self);
  CPUGeneratorImpl* gen = cpu_generator(generator, "random_");
  const __int128 end = native::random_from_end(self, from, to);
  visit_dtype(self.dtype(), "random_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto range = static_cast<unsigned __int128>(end - from);  // in [1, 2^64]
    fill_contiguous<T>(self, [&](T* p, int64_t n) {
      // Two elements a block, 64 bits each.
      const auto r = reserve(gen, blocks_for(n, 2));
      for_blocks(n, 2, [&](int64_t b) {
        const auto w = ember::detail::philox_block(r.seed, r.offset + static_cast<uint64_t>(b));
        for (int64_t j = 0; j < 2 && b * 2 + j < n; ++j) {
          const uint64_t x = uint64_t{w[2 * j]} << 32 | w[2 * j + 1];
          const auto v = static_cast<__int128>(from) + static_cast<__int128>(x % range);
          p[b * 2 + j] = convert<T>(static_cast<int64_t>(v));
        }
      });
    });
  });
  return self;
}

Tensor& bernoulli_float(Tensor& self, double p, std::optional<Generator> generator) {
  check_defined("bernoulli_", self, "self");
  check_cpu("bernoulli_", self);
  CPUGeneratorImpl* gen = cpu_generator(generator, "bernoulli_");
  native::check_bernoulli(p);
  visit_dtype(self.dtype(), "bernoulli_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    fill_contiguous<T>(self, [&](T* out, int64_t n) {
      // Four elements a block: 1 where a 32-bit uniform in [0, 1) is below p.
      const auto r = reserve(gen, blocks_for(n, 4));
      for_blocks(n, 4, [&](int64_t b) {
        const auto w = ember::detail::philox_block(r.seed, r.offset + static_cast<uint64_t>(b));
        for (int64_t j = 0; j < 4 && b * 4 + j < n; ++j)
          out[b * 4 + j] = convert<T>(static_cast<double>(w[j]) * 0x1.0p-32 < p ? 1 : 0);
      });
    });
  });
  return self;
}



}  // namespace ember::cpu

// ---- randperm ----------------------------------------------------------------------------------

namespace ember::cpu {

// The permutation of ember/native/Randperm.h (one per seed on every device).
Tensor randperm_generator(int64_t n, std::optional<Generator> generator, OptDtype dtype, OptLayout layout,
                          OptDevice device, OptBool pin_memory) {
  check_factory("randperm", layout, device, pin_memory);
  const ScalarType dt = dtype.value_or(kInt64);
  native::check_randperm(n, dt);
  CPUGeneratorImpl* gen = cpu_generator(generator, "randperm");
  Tensor out = empty_cpu({n}, dt);
  Tensor perm = dt == kInt64 ? out : empty_cpu({n}, kInt64);
  const auto r = reserve(gen, native::randperm_blocks(n));
  native::randperm_fill(perm.data_ptr<int64_t>(), n, r.seed, r.offset);
  if (dt != kInt64) cpu::copy_(out, perm, false);
  return pinned_result(out, pin_memory);
}

Tensor randperm(int64_t n, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin_memory) {
  return cpu::randperm_generator(n, std::nullopt, dtype, layout, device, pin_memory);
}

Tensor& randperm_out(int64_t n, Tensor& out) {
  check_defined("randperm", out, "out");
  check_cpu("randperm", out);
  const Tensor r = cpu::randperm_generator(n, std::nullopt, out.dtype(), std::nullopt, std::nullopt, std::nullopt);
  native::resize_output(out, {n}, "randperm");
  native::check_out_writable("randperm", out);
  return cpu::copy_(out, r, false);
}

}  // namespace ember::cpu
