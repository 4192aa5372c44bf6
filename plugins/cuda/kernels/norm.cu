// Normalization kernels: per-row statistics and the elementwise passes of batch, layer and group
// norm, forward and backward.
//
// Note [GPU normalization]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// The three norms differ only in which elements share a statistic and which share a weight. In a
// contiguous tensor seen as [A, R, B] the elements of statistic r are (a, r, b) for every a and b:
// batch norm is [N, C, L] (a row is a channel), layer norm [1, M, L] (a row is a row) and group
// norm [1, N G, D HxW] (a row is a group of one sample). The weight index is a function of (r, b)
// given by three integers (NormArgs). So two kernels serve all three:
// - a row kernel: a block takes a row and sums it (two passes for the moments: the mean, then the
//   mean of squared deviations, as the cpu's kernels; or the two gradient sums), in double
//   whatever the dtype, through warp shuffles and shared memory;
// - an elementwise kernel: y = (x - mean) rstd w + bias forward, and dx = dy w k1 + x k2 + k3
//   backward, whose per-row coefficients the host forms from the row sums (small tensors).
#include <cmath>

#include "Loops.cuh"

namespace ember::gpu {
namespace {

__device__ __forceinline__ int64_t weight_index(const NormArgs& a, int64_t r, int64_t b) {
  return (r % a.w_rmod) * a.w_rmul + (a.w_bdiv ? b / a.w_bdiv : 0);
}

template <class T>
__global__ void norm_rows(NormArgs a, bool moments) {
  const T* x = reinterpret_cast<const T*>(a.x);
  const T* dy = reinterpret_cast<const T*>(a.dy);
  const int64_t n = a.A * a.B;
  for (int64_t r = blockIdx.x; r < a.R; r += gridDim.x) {
    auto at = [&](int64_t k, int64_t& b) {
      const int64_t i = k / a.B;
      b = k - i * a.B;
      return (i * a.R + r) * a.B + b;
    };
    double s1 = 0, s2 = 0;
    if (moments) {
      for (int64_t k = threadIdx.x; k < n; k += blockDim.x) {
        int64_t b;
        s1 += static_cast<double>(x[at(k, b)]);
      }
      const double mean = block_reduce<false>(s1) / static_cast<double>(n);
      for (int64_t k = threadIdx.x; k < n; k += blockDim.x) {
        int64_t b;
        const double d = static_cast<double>(x[at(k, b)]) - mean;
        s2 += d * d;
      }
      const double var = block_reduce<false>(s2) / static_cast<double>(n);
      if (threadIdx.x == 0) {
        a.s1[r] = n > 0 ? mean : NAN;
        a.s2[r] = n > 0 ? var : NAN;
      }
    } else {
      for (int64_t k = threadIdx.x; k < n; k += blockDim.x) {
        int64_t b;
        const int64_t i = at(k, b);
        const double g = static_cast<double>(dy[i]) * (a.w ? a.w[weight_index(a, r, b)] : 1.0);
        s1 += g;
        s2 += g * static_cast<double>(x[i]);
      }
      s1 = block_reduce<false>(s1);
      s2 = block_reduce<false>(s2);
      if (threadIdx.x == 0) {
        a.s1[r] = s1;
        a.s2[r] = s2;
      }
    }
  }
}

// The forward passes round as the cpu's kernels do (this file is compiled without contracted
// multiply-adds), so a constant row normalizes to the cpu's value, not merely near it.
template <class T>
__global__ void norm_elementwise(NormArgs a, NormMode mode) {
  const T* x = reinterpret_cast<const T*>(a.x);
  const T* dy = reinterpret_cast<const T*>(a.dy);
  T* out = reinterpret_cast<T*>(a.out);
  EMBER_GPU_GRID_STRIDE(i, a.A * a.R * a.B) {
    const int64_t b = i % a.B, r = (i / a.B) % a.R, wi = weight_index(a, r, b);
    const double w = a.w ? a.w[wi] : 1.0, bias = a.bias ? a.bias[wi] : 0.0;
    if (mode == NormMode::Forward) {
      const double s = a.rstd[r] * w;
      out[i] = x[i] * static_cast<T>(s) + static_cast<T>(bias - a.mean[r] * s);
    } else if (mode == NormMode::ForwardCentered) {
      out[i] =
          (x[i] - static_cast<T>(a.mean[r])) * static_cast<T>(a.rstd[r]) * static_cast<T>(w) + static_cast<T>(bias);
    } else {
      out[i] = static_cast<T>(static_cast<double>(dy[i]) * w * a.k1[r] + static_cast<double>(x[i]) * a.k2[r] + a.k3[r]);
    }
  }
}

}  // namespace

bool launch_norm(NormMode mode, const NormArgs& args, gpuStream_t stream) {
  auto go = [&](auto tag) {
    using T = decltype(tag);
    if (mode == NormMode::Moments || mode == NormMode::GradSums) {
      if (args.R == 0) return;
      const int grid = static_cast<int>(args.R < 65535 * 8 ? args.R : 65535 * 8);
      EMBER_GPU_LAUNCH(norm_rows<T>, grid, kBlockSize, 0, stream, args, mode == NormMode::Moments);
    } else {
      const int64_t n = args.A * args.R * args.B;
      if (n == 0) return;
      EMBER_GPU_LAUNCH(norm_elementwise<T>, grid_size(n), kBlockSize, 0, stream, args, mode);
    }
  };
  if (args.dtype == Float)
    go(float{});
  else if (args.dtype == Double)
    go(double{});
  else
    return false;
  return true;
}

}  // namespace ember::gpu
