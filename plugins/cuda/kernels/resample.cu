// Resampling kernels, compiled without contracted multiply-adds so that sums of taps round as the
// cpu's:
// - upsampling through per-dimension index and weight tables (Note [Upsample tables] in
//   ember/native/ResampleTables.h): a thread per output element sums its taps in the cpu's order;
//   the backwards add each output gradient's weighted share into the input gradient with device
//   atomics, so the order of those additions, and the last bits, may differ from the cpu's.
//   Nearest moves elements by their size;
// - grid_sampler_2d through the cpu's own per-pixel functions (ember/native/ResampleMath.h), its
//   input gradient added with atomics;
// - im2col (a gather) and col2im (a gather sum per image element, in the cpu's order).
#include "Loops.cuh"
#include "ember/native/ResampleMath.h"

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

// ---- grid_sampler_2d -------------------------------------------------------------------------

namespace rs = ember::native::resample;

__device__ __forceinline__ rs::GridGeom grid_geom(const GridSampleArgs& a) {
  return {a.C, a.H, a.W, a.oH, a.oW, a.padding, a.align};
}

template <int K, class T>
__global__ void grid_forward_kernel(GridSampleArgs a) {
  const rs::GridGeom c = grid_geom(a);
  const int64_t HW = a.H * a.W, oHW = a.oH * a.oW;
  EMBER_GPU_GRID_STRIDE(e, a.N * oHW) {
    const int64_t n = e / oHW, o = e % oHW;
    const T* g = reinterpret_cast<const T*>(a.grid) + 2 * e;
    int64_t idx[K];
    T w[K];
    rs::grid_taps<K>(c, g[0], g[1], idx, w, 1);
    const T* img = reinterpret_cast<const T*>(a.input) + n * a.C * HW;
    T* dst = reinterpret_cast<T*>(a.out) + n * a.C * oHW + o;
    for (int64_t ch = 0; ch < a.C; ++ch) {
      const T* p = img + ch * HW;
      T v = 0;
      for (int k = 0; k < K; ++k) v += idx[k] >= 0 ? p[idx[k]] * w[k] : T(0);
      dst[ch * oHW] = v;
    }
  }
}

template <class T>
__global__ void grid_backward_kernel(GridSampleArgs a) {
  const rs::GridGeom c = grid_geom(a);
  const int64_t HW = a.H * a.W, oHW = a.oH * a.oW;
  EMBER_GPU_GRID_STRIDE(e, a.N * oHW) {
    const int64_t n = e / oHW, o = e % oHW;
    const T* g = reinterpret_cast<const T*>(a.grid) + 2 * e;
    T* gimg = a.grad_input ? reinterpret_cast<T*>(a.grad_input) + n * a.C * HW : nullptr;
    T dx, dy;
    rs::grid_pixel_backward(
        c, a.mode, g[0], g[1], reinterpret_cast<const T*>(a.grad_out) + n * a.C * oHW + o, oHW,
        reinterpret_cast<const T*>(a.input) + n * a.C * HW, gimg != nullptr,
        [gimg](int64_t at, T v) { atomicAdd(gimg + at, v); }, dx, dy);
    if (a.grad_grid) {
      T* gg = reinterpret_cast<T*>(a.grad_grid) + 2 * e;
      gg[0] = dx, gg[1] = dy;
    }
  }
}

template <class T>
void launch_grid_typed(const GridSampleArgs& a, bool backward, gpuStream_t stream) {
  const int grid = grid_size(a.N * a.oH * a.oW);
  if (backward)
    EMBER_GPU_LAUNCH(grid_backward_kernel<T>, grid, kBlockSize, 0, stream, a);
  else if (a.mode == rs::kGridBilinear)
    EMBER_GPU_LAUNCH((grid_forward_kernel<4, T>), grid, kBlockSize, 0, stream, a);
  else if (a.mode == rs::kGridNearest)
    EMBER_GPU_LAUNCH((grid_forward_kernel<1, T>), grid, kBlockSize, 0, stream, a);
  else
    EMBER_GPU_LAUNCH((grid_forward_kernel<16, T>), grid, kBlockSize, 0, stream, a);
}

// ---- im2col / col2im -------------------------------------------------------------------------

template <class U>
__global__ void im2col_kernel(ColArgs a) {
  const int64_t L = a.bH * a.bW, rows = a.kH * a.kW;
  EMBER_GPU_GRID_STRIDE(e, a.planes * rows * L) {
    const int64_t l = e % L, r = e / L % rows, plane = e / (L * rows);
    const int64_t y = l / a.bW * a.sH - a.pH + r / a.kW * a.dH, x = l % a.bW * a.sW - a.pW + r % a.kW * a.dW;
    reinterpret_cast<U*>(a.out)[e] =
        y >= 0 && y < a.H && x >= 0 && x < a.W ? reinterpret_cast<const U*>(a.in)[(plane * a.H + y) * a.W + x] : U{};
  }
}

template <class T>
__global__ void col2im_kernel(ColArgs a) {
  const int64_t L = a.bH * a.bW, rows = a.kH * a.kW, HW = a.H * a.W;
  EMBER_GPU_GRID_STRIDE(e, a.planes * HW) {
    const int64_t plane = e / HW, y = e % HW / a.W, x = e % a.W;
    const T* col = reinterpret_cast<const T*>(a.in) + plane * rows * L;
    T acc = 0;
    for (int64_t i = 0; i < a.kH; ++i) {
      const int64_t ty = y + a.pH - i * a.dH;  // = bh sH
      if (ty < 0 || ty % a.sH != 0 || ty / a.sH >= a.bH) continue;
      for (int64_t j = 0; j < a.kW; ++j) {
        const int64_t tx = x + a.pW - j * a.dW;
        if (tx < 0 || tx % a.sW != 0 || tx / a.sW >= a.bW) continue;
        acc += col[(i * a.kW + j) * L + ty / a.sH * a.bW + tx / a.sW];
      }
    }
    reinterpret_cast<T*>(a.out)[e] = acc;
  }
}

}  // namespace

bool launch_grid_sample(const GridSampleArgs& a, bool backward, gpuStream_t stream) {
  if (a.N * a.oH * a.oW == 0) return true;
  if (a.dtype == Float)
    launch_grid_typed<float>(a, backward, stream);
  else if (a.dtype == Double)
    launch_grid_typed<double>(a, backward, stream);
  else
    return false;
  return true;
}

bool launch_im2col(const ColArgs& a, gpuStream_t stream) {
  const int64_t n = a.planes * a.kH * a.kW * a.bH * a.bW;
  if (n == 0) return true;
  return visit_word(a.itemsize, [&](auto word) {
    EMBER_GPU_LAUNCH(im2col_kernel<decltype(word)>, grid_size(n), kBlockSize, 0, stream, a);
  });
}

bool launch_col2im(const ColArgs& a, gpuStream_t stream) {
  const int64_t n = a.planes * a.H * a.W;
  if (n == 0) return true;
  if (a.dtype == Float)
    EMBER_GPU_LAUNCH(col2im_kernel<float>, grid_size(n), kBlockSize, 0, stream, a);
  else if (a.dtype == Double)
    EMBER_GPU_LAUNCH(col2im_kernel<double>, grid_size(n), kBlockSize, 0, stream, a);
  else
    return false;
  return true;
}

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
