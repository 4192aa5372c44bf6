#pragma once
// Helpers of the nn plugin's composites: argument checks and the loss reduction.
#include <string_view>

#include "ember/ember.h"
#include "ember/native/TensorHelpers.h"  // check_defined
#include "ember/nn/Reduction.h"

namespace ember::native::nnutil {

// Whether t's values can be read: checks on values (class indices in range, probabilities in
// [0, 1]) are skipped on the meta device, which has shapes only.
inline bool has_values(const Tensor& t) { return t.device().type() != kMeta; }

inline void check_reduction(const char* op, int64_t reduction) {
  EMBER_CHECK(reduction >= Reduction::None && reduction < Reduction::END,
              "[{}] argument 'reduction': expected 0 (none), 1 (mean) or 2 (sum), got {}", op, reduction);
}

// The per-element loss reduced as `reduction` says (checked by check_reduction).
inline Tensor reduce(const Tensor& loss, int64_t reduction) {
  if (reduction == Reduction::Mean) return loss.mean();
  if (reduction == Reduction::Sum) return loss.sum();
  return loss;
}

inline void check_floating(const char* op, const Tensor& t, const char* name) {
  EMBER_CHECK_TYPE(t.is_floating_point(), "[{}] argument '{}': expected a floating point tensor, got {}", op, name,
                   t.dtype());
}

// A 0-dim tensor of value v with t's dtype and device.
inline Tensor scalar_like(const Tensor& t, double v) { return scalar_tensor(v, t.options()); }

}  // namespace ember::native::nnutil
