// Upsampling through per-dimension index and weight tables (Note [Upsample tables] in
// ember/native/ResampleTables.h): a thread per output element sums its taps in the cpu's order
// (this file is compiled without contracted multiply-adds); the backwards add each output
// gradient's weighted share into the input gradient with device atomics, so the order of those
// additions, and the last bits, may differ from the cpu's. Nearest moves elements by their size.
#include "Loops.cuh"

namespace ember::gpu {
namespace {

struct Pos {
  int64_t p, od, oh, ow;
};

__device__ __forceinline__ Pos pos_of(const UpsampleArgs& a, int64_t e) {
  Pos q;
  q.ow = e % a.out[2];
  e /= a.out[2];
  q.oh = e % a.out[1];
  e /= a.out[1];
  q.od = e % a.out[0];
  q.p = e / a.out[0];
  return q;
}

__device__ __forceinline__ int64_t in_plane(const UpsampleArgs& a) { return a.in[0] * a.in[1] * a.in[2]; }

template <class U, bool Backward>
__global__ void nearest_kernel(UpsampleArgs a) {
  EMBER_GPU_GRID_STRIDE(e, a.planes * a.out[0] * a.out[1] * a.out[2]) {
    const Pos q = pos_of(a, e);
    const int64_t at = q.p * in_plane(a) + (a.index[0][q.od] * a.in[1] + a.index[1][q.oh]) * a.in[2] + a.index[2][q.ow];
    if constexpr (Backward)
      atomicAdd(reinterpret_cast<U*>(a.dst) + at, reinterpret_cast<const U*>(a.src)[e]);
    else
      reinterpret_cast<U*>(a.dst)[e] = reinterpret_cast<const U*>(a.src)[at];
  }
}

template <class T>
__global__ void interp_kernel(UpsampleArgs a) {
  const T* wd = reinterpret_cast<const T*>(a.weight[0]);
  const T* wh = reinterpret_cast<const T*>(a.weight[1]);
  const T* ww = reinterpret_cast<const T*>(a.weight[2]);
  const int64_t oD = a.out[0], oH = a.out[1], oW = a.out[2];
  EMBER_GPU_GRID_STRIDE(e, a.planes * oD * oH * oW) {
    const Pos q = pos_of(a, e);
    const int64_t base = q.p * in_plane(a);
    T acc = T(0);
    for (int64_t kd = 0; kd < a.taps[0]; ++kd)
      for (int64_t kh = 0; kh < a.taps[1]; ++kh) {
        const int64_t jd = kd * oD + q.od, jh = kh * oH + q.oh;
        const T w = wd[jd] * wh[jh];
        const int64_t row = base + (a.index[0][jd] * a.in[1] + a.index[1][jh]) * a.in[2];
        if (a.backward) {
          const T v = w * reinterpret_cast<const T*>(a.src)[e];
          for (int64_t k = 0; k < a.taps[2]; ++k) {
            const int64_t jw = k * oW + q.ow;
            atomicAdd(reinterpret_cast<T*>(a.dst) + row + a.index[2][jw], ww[jw] * v);
          }
        } else {
          const T* src = reinterpret_cast<const T*>(a.src) + row;
          T s = ww[q.ow] * src[a.index[2][q.ow]];
          for (int64_t k = 1; k < a.taps[2]; ++k) s += ww[k * oW + q.ow] * src[a.index[2][k * oW + q.ow]];
          acc = kd == 0 && kh == 0 ? w * s : acc + w * s;
        }
      }
    if (!a.backward) reinterpret_cast<T*>(a.dst)[e] = acc;
  }
}

}  // namespace

bool launch_upsample(const UpsampleArgs& a, gpuStream_t stream) {
  const int64_t n = a.planes * a.out[0] * a.out[1] * a.out[2];
  if (n == 0) return true;
  const int grid = grid_size(n);
  if (a.nearest && !a.backward) {
    return visit_word(a.itemsize, [&](auto word) {
      EMBER_GPU_LAUNCH((nearest_kernel<decltype(word), false>), grid, kBlockSize, 0, stream, a);
    });
  }
  if (a.dtype != Float && a.dtype != Double) return false;
  if (a.nearest) {
    if (a.dtype == Float)
      EMBER_GPU_LAUNCH((nearest_kernel<float, true>), grid, kBlockSize, 0, stream, a);
    else
      EMBER_GPU_LAUNCH((nearest_kernel<double, true>), grid, kBlockSize, 0, stream, a);
  } else {
    if (a.dtype == Float)
      EMBER_GPU_LAUNCH(interp_kernel<float>, grid, kBlockSize, 0, stream, a);
    else
      EMBER_GPU_LAUNCH(interp_kernel<double>, grid, kBlockSize, 0, stream, a);
  }
  return true;
}

}  // namespace ember::gpu
