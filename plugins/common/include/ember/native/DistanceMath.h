#pragma once
// The p-norm distances of cdist and pdist and their per-coordinate gradients (Note [Distance p
// cases]), in double, written once for the cpu loops and the GPU kernels so that both sum in the
// same order. Plain C++17 with host/device annotations.
//
// Note [Distance p cases]
// ~~~~~~~~~~~~~~~~~~~~~~~
// cdist and pdist take LibTorch's special cases of p: 0 (the count of differing coordinates),
// 1, 2, inf (the largest difference) and a general p ((sum |d|^p)^(1/p)). Their gradients with
// respect to x1 at a pair of distance dist are grad * g(d) per coordinate difference d: 0 for
// p = 0; sign(d) for p = 1; d |d|^(p-2) / dist^(p-1) for general p (d / dist for p = 2);
// sign(d) where |d| equals the largest |d| for inf; all 0 where dist is 0. The composite double
// backward in the autograd plugin (FunctionsManual.cpp) differentiates the same expressions.
#include <cmath>
#include <cstdint>

#include "ember/native/SpecialMath.h"  // EMBER_HOST_DEVICE_INLINE

namespace ember::native {

// The sum of term(k) over k in [0, n), in 8 independent double lanes: the cpu loop vectorises (one
// running sum is a serial chain of adds), and the fixed order keeps results the same on every ISA
// and on the GPU.
template <class F>
EMBER_HOST_DEVICE_INLINE double lane_sum(int64_t n, const F& term) {
  constexpr int kLanes = 8;
  double l[kLanes] = {};
  int64_t k = 0;
  for (; k + kLanes <= n; k += kLanes)
    for (int j = 0; j < kLanes; ++j) l[j] += term(k + j);
  double s = 0;
  for (double v : l) s += v;
  for (; k < n; ++k) s += term(k);
  return s;
}

// The largest |a[k] - b[k]| (0 for m = 0).
EMBER_HOST_DEVICE_INLINE double max_abs_diff(const double* a, const double* b, int64_t m) {
  double s = 0;
  for (int64_t k = 0; k < m; ++k) {
    const double d = std::abs(a[k] - b[k]);
    s = s < d ? d : s;  // std::max(s, d)
  }
  return s;
}

// The p-norm distance of the m-vectors a and b.
EMBER_HOST_DEVICE_INLINE double dist_value(const double* a, const double* b, int64_t m, double p) {
  if (p == 0) return lane_sum(m, [a, b](int64_t k) { return a[k] != b[k] ? 1.0 : 0.0; });
  if (p == 1) return lane_sum(m, [a, b](int64_t k) { return std::abs(a[k] - b[k]); });
  if (p == 2) return std::sqrt(lane_sum(m, [a, b](int64_t k) { return (a[k] - b[k]) * (a[k] - b[k]); }));
  if (std::isinf(p)) return max_abs_diff(a, b, m);
  double s = 0;
  for (int64_t k = 0; k < m; ++k) s += std::pow(std::abs(a[k] - b[k]), p);
  return std::pow(s, 1.0 / p);
}

// Whether a pair adds no gradient (p = 0, a zero distance or a zero incoming gradient).
EMBER_HOST_DEVICE_INLINE bool dist_grad_vanishes(double p, double dist, double g) {
  return p == 0 || dist == 0 || g == 0;
}

// d dist / d a[k] for the coordinate difference d = a[k] - b[k] of a pair at distance dist; dmax
// the pair's max_abs_diff (read for p = inf only). A pair where dist_grad_vanishes adds nothing.
EMBER_HOST_DEVICE_INLINE double dist_grad_factor(double d, double p, double dist, double dmax) {
  if (p == 1) return static_cast<double>((d > 0) - (d < 0));
  if (p == 2) return d / dist;
  if (std::isinf(p)) return std::abs(d) == dmax ? static_cast<double>((d > 0) - (d < 0)) : 0.0;
  return d * std::pow(std::abs(d), p - 2) / std::pow(dist, p - 1);
}

}  // namespace ember::native
