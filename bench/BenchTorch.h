// Helpers for the benchmarks that run LibTorch beside Ember in one process (they link LibTorch;
// BenchUtil.h does not).
#pragma once

#include <torch/torch.h>

#include <vector>

#include "BenchUtil.h"
#include "ember/ember.h"

namespace bench {

// A float32 tensor of the given shape filled by fill_random(seed).
inline ember::Tensor random_tensor(std::vector<int64_t> shape, unsigned seed = 1) {
  ember::Tensor t = ember::empty(shape, ember::kFloat32);
  fill_random(t.data_ptr<float>(), t.numel(), seed);
  return t;
}

// A LibTorch copy of a float32 Ember tensor of any strides.
inline at::Tensor to_torch(const ember::Tensor& t) {
  const ember::Tensor c = t.contiguous();
  return at::from_blob(c.data_ptr(), std::vector<int64_t>(c.sizes().begin(), c.sizes().end()), at::kFloat).clone();
}

// measure() of f, its result kept so the call is not optimised away.
template <class F>
Times time_it(F&& f) {
  return measure([&] {
    auto r = f();
    asm volatile("" : : "g"(&r) : "memory");
  });
}

}  // namespace bench
