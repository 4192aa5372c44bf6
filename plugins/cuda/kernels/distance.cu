// cdist and pdist: a thread per distance, or per gradient element, through the cpu's own
// per-pair functions (ember/native/DistanceMath.h), in double; each sum runs in the cpu's order,
// so the results are the cpu's (this file is compiled without contracted multiply-adds).
#include "Loops.cuh"
#include "ember/native/DistanceMath.h"

namespace ember::gpu {
namespace {

using native::dist_grad_factor;
using native::dist_grad_vanishes;
using native::dist_value;
using native::max_abs_diff;

// The flat index of pair (lo, hi), lo < hi, among the P (P - 1) / 2 pairs taken row by row.
__device__ __forceinline__ int64_t pair_index(int64_t lo, int64_t hi, int64_t P) {
  return lo * P - lo * (lo + 1) / 2 + (hi - lo - 1);
}

__global__ void cdist_forward_kernel(DistArgs a) {
  EMBER_GPU_GRID_STRIDE(e, a.batch * a.P * a.R) {
    const int64_t j = e % a.R, r = e / a.R, k = r / a.P;  // r = k P + i
    a.out[e] = dist_value(a.a + r * a.M, a.b + (k * a.R + j) * a.M, a.M, a.p);
  }
}

// The gradient of coordinate m of row x against the n rows of y (row j at y + j * M), with pair
// distances dist[j] and incoming gradients grad[j].
__device__ __forceinline__ double row_grad(const DistArgs& a, const double* x, int64_t m, const double* y, int64_t n,
                                           const double* dist, const double* grad) {
  double s = 0;
  for (int64_t j = 0; j < n; ++j) {
    const double* yj = y + j * a.M;
    const double d = dist[j], g = grad[j];
    if (dist_grad_vanishes(a.p, d, g)) continue;
    const double dmax = isinf(a.p) ? max_abs_diff(x, yj, a.M) : 0.0;
    s += g * dist_grad_factor(x[m] - yj[m], a.p, d, dmax);
  }
  return s;
}

__global__ void cdist_backward_kernel(DistArgs a) {
  EMBER_GPU_GRID_STRIDE(e, a.batch * a.P * a.M) {
    const int64_t m = e % a.M, r = e / a.M, k = r / a.P;  // r = k P + i
    a.out[e] = row_grad(a, a.a + r * a.M, m, a.b + k * a.R * a.M, a.R, a.dist + r * a.R, a.grad + r * a.R);
  }
}

__global__ void pdist_forward_kernel(DistArgs a) {
  EMBER_GPU_GRID_STRIDE(e, a.P * a.P) {
    const int64_t i = e / a.P, j = e % a.P;
    if (j > i) a.out[pair_index(i, j, a.P)] = dist_value(a.a + i * a.M, a.a + j * a.M, a.M, a.p);
  }
}

// Pair (i, j)'s distance and gradient sit at pair_index(min, max): gathered into the row's order.
__global__ void pdist_backward_kernel(DistArgs a) {
  EMBER_GPU_GRID_STRIDE(e, a.P * a.M) {
    const int64_t m = e % a.M, i = e / a.M;
    const double* x = a.a + i * a.M;
    double s = 0;
    for (int64_t j = 0; j < a.P; ++j) {
      if (j == i) continue;
      const int64_t at = i < j ? pair_index(i, j, a.P) : pair_index(j, i, a.P);
      const double d = a.dist[at], g = a.grad[at];
      if (dist_grad_vanishes(a.p, d, g)) continue;
      const double* y = a.a + j * a.M;
      const double dmax = isinf(a.p) ? max_abs_diff(x, y, a.M) : 0.0;
      s += g * dist_grad_factor(x[m] - y[m], a.p, d, dmax);
    }
    a.out[e] = s;
  }
}

}  // namespace

bool launch_distance(DistMode mode, const DistArgs& a, gpuStream_t stream) {
  switch (mode) {
    case DistMode::CdistForward:
      if (a.batch * a.P * a.R > 0)
        EMBER_GPU_LAUNCH(cdist_forward_kernel, grid_size(a.batch * a.P * a.R), kBlockSize, 0, stream, a);
      break;
    case DistMode::CdistBackward:
      if (a.batch * a.P * a.M > 0)
        EMBER_GPU_LAUNCH(cdist_backward_kernel, grid_size(a.batch * a.P * a.M), kBlockSize, 0, stream, a);
      break;
    case DistMode::PdistForward:
      if (a.P > 1) EMBER_GPU_LAUNCH(pdist_forward_kernel, grid_size(a.P * a.P), kBlockSize, 0, stream, a);
      break;
    case DistMode::PdistBackward:
      if (a.P * a.M > 0) EMBER_GPU_LAUNCH(pdist_backward_kernel, grid_size(a.P * a.M), kBlockSize, 0, stream, a);
      break;
  }
  return true;
}

}  // namespace ember::gpu
