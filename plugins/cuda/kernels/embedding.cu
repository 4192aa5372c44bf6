// _embedding_bag's forward: a thread per (bag, column) reduces the bag's rows in index order, as
// the cpu's loop does, so sums, means and maxima (NaN rule included) are the cpu's; a thread per
// index finds its bag by binary search over the offsets.
#include <cmath>

#include "Loops.cuh"

namespace ember::gpu {
namespace {

constexpr int64_t kBagMean = 1, kBagMax = 2;

__device__ __forceinline__ int64_t bag_end(const BagArgs& a, int64_t b) {
  return b + 1 < a.n_offsets ? a.offsets[b + 1] : a.n;
}

// With D = 0, one thread per bag still counts its size.
__global__ void bag_kernel(BagArgs a) {
  const int64_t D = a.D > 0 ? a.D : 1;
  EMBER_GPU_GRID_STRIDE(e, a.B * D) {
    const int64_t b = e / D, c = e % D;
    const bool is_max = a.mode == kBagMax;
    double o = is_max ? -INFINITY : 0.0;
    int64_t maxi = 0, size = 0;
    bool any = false;
    for (int64_t i = a.offsets[b], end = bag_end(a, b); i < end; ++i) {
      const int64_t row = a.idx[i];
      if (row == a.padding_idx) continue;
      ++size;
      if (a.D == 0) continue;
      const double v = a.weight[row * a.D + c];
      if (is_max) {
        if ((!any || v > o || isnan(v)) && !(any && isnan(o))) o = v, maxi = row;
      } else {
        o += v * (a.psw ? a.psw[i] : 1.0);
      }
      any = true;
    }
    if (c == 0) a.bag_size[b] = size;
    if (a.D == 0) continue;
    if (!any) o = 0;
    if (a.mode == kBagMean && any) o *= 1.0 / static_cast<double>(size);
    a.out[e] = o;
    if (is_max) a.max_index[e] = maxi;
  }
}

// offsets[0, B) are sorted: the bag of index i is the last b with offsets[b] <= i (indices past
// the last bag's end belong to it).
__global__ void offset2bag_kernel(BagArgs a) {
  EMBER_GPU_GRID_STRIDE(i, a.n) {
    int64_t lo = 0, hi = a.B;  // the first b with offsets[b] > i lies in [lo, hi]
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (a.offsets[mid] <= i)
        lo = mid + 1;
      else
        hi = mid;
    }
    a.offset2bag[i] = lo > 0 ? lo - 1 : 0;
  }
}

}  // namespace

bool launch_embedding_bag(const BagArgs& a, gpuStream_t stream) {
  if (a.n > 0) EMBER_GPU_LAUNCH(offset2bag_kernel, grid_size(a.n), kBlockSize, 0, stream, a);
  if (a.B > 0) EMBER_GPU_LAUNCH(bag_kernel, grid_size(a.B * (a.D > 0 ? a.D : 1)), kBlockSize, 0, stream, a);
  return true;
}

}  // namespace ember::gpu
