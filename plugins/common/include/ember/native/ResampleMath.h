#pragma once
// The per-element arithmetic of the resampling kernels that the cpu and GPU plugins share, so
// both compute the same source positions, taps and weights: Keys' cubic coefficients (upsample
// bicubic, grid_sampler_2d bicubic) and grid_sampler_2d's coordinate rules, taps and per-pixel
// backward (Note [Grid sampler rules]). Plain C++17 with host/device annotations.
//
// Note [Grid sampler rules]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// PyTorch's GridSampler.h rules: a grid value in [-1, 1] is unnormalized to a pixel position
// (align_corners: -1 and 1 are the corner pixels' centres; else their outer edges), then for
// bilinear and nearest clipped (border) or reflected and clipped (reflection) to the image; zeros
// padding reads 0 outside it. Bicubic unnormalizes only and pads each of its 16 taps. Nearest
// rounds half to even. The backward also gives d(out)/d(grid) through the same chain (clip and
// reflection derivatives, the unnormalization's factor). Computed in float32 or float64.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "ember/native/SpecialMath.h"  // EMBER_HOST_DEVICE_INLINE

namespace ember::native::resample {

// Four per-tap values (a std::array the GPU kernels can use).
template <class T>
struct Taps4 {
  T v[4];
  EMBER_HOST_DEVICE_INLINE T operator[](size_t i) const { return v[i]; }
};

// Keys' cubic convolution weights of the taps at -1, 0, 1, 2 for a fraction x (A = -0.75).
template <class T>
EMBER_HOST_DEVICE_INLINE Taps4<T> cubic_coefficients(T x) {
  const T A = T(-0.75);
  auto conv1 = [&](T v) { return ((A + T(2)) * v - (A + T(3))) * v * v + T(1); };
  auto conv2 = [&](T v) { return ((A * v - T(5) * A) * v + T(8) * A) * v - T(4) * A; };
  return {{conv2(x + T(1)), conv1(x), conv1(T(1) - x), conv2(T(2) - x)}};
}

// Their derivatives in x (grid_sampler_2d's bicubic backward).
template <class T>
EMBER_HOST_DEVICE_INLINE Taps4<T> cubic_coefficients_grad(T t) {
  const T A = T(-0.75);
  T x = -T(1) - t;
  const T c0 = (-T(3) * A * x - T(10) * A) * x - T(8) * A;
  x = -t;
  const T c1 = (-T(3) * (A + T(2)) * x - T(2) * (A + T(3))) * x;
  x = T(1) - t;
  const T c2 = (T(3) * (A + T(2)) * x - T(2) * (A + T(3))) * x;
  x = T(2) - t;
  const T c3 = (T(3) * A * x - T(10) * A) * x + T(8) * A;
  return {{c0, c1, c2, c3}};
}

// grid_sampler_2d's integer arguments (PyTorch's codes).
constexpr int64_t kGridBilinear = 0, kGridNearest = 1, kGridBicubic = 2;
constexpr int64_t kGridZeros = 0, kGridBorder = 1, kGridReflection = 2;

// One call's geometry: input (N, C, H, W), output (N, C, oH, oW); padding a kGrid* padding code.
struct GridGeom {
  int64_t C, H, W, oH, oW;
  int64_t padding;
  bool align;
};

template <class T>
EMBER_HOST_DEVICE_INLINE T grid_unnormalize(T coord, int64_t size, bool align, T* grad = nullptr) {
  if (align) {
    if (grad) *grad = static_cast<T>(size - 1) / 2;
    return ((coord + 1) / 2) * static_cast<T>(size - 1);
  }
  if (grad) *grad = static_cast<T>(size) / 2;
  return ((coord + 1) * static_cast<T>(size) - 1) / 2;
}

template <class T>
EMBER_HOST_DEVICE_INLINE T grid_clip(T in, int64_t limit, T* grad = nullptr) {
  const T hi = static_cast<T>(limit - 1);
  if (grad) *grad = in > T(0) && in < hi ? T(1) : T(0);
  return std::min(hi, std::max(in, T(0)));
}

template <class T>
EMBER_HOST_DEVICE_INLINE T grid_reflect(T in, int64_t twice_low, int64_t twice_high, T* grad = nullptr) {
  if (twice_low == twice_high) {
    if (grad) *grad = 0;
    return 0;
  }
  const T mn = static_cast<T>(twice_low) / 2, span = static_cast<T>(twice_high - twice_low) / 2;
  in -= mn;
  T mult = 1;
  if (in < T(0)) mult = -1, in = -in;
  const T extra = std::fmod(in, span);
  const auto flips = static_cast<int64_t>(std::floor(in / span));
  if (flips % 2 == 0) {
    if (grad) *grad = mult;
    return extra + mn;
  }
  if (grad) *grad = -mult;
  return span - extra + mn;
}

// Keeps a coordinate where an int64 conversion is defined (NaN and huge values land outside).
template <class T>
EMBER_HOST_DEVICE_INLINE T grid_safe_coord(T x) {
  return std::isfinite(x) && std::fabs(x) < T(1e15) ? x : T(-100);
}

// The padding applied to an unnormalized coordinate (PyTorch's compute_coordinates).
template <class T>
EMBER_HOST_DEVICE_INLINE T grid_pad_coord(T x, int64_t size, int64_t padding, bool align, T* grad = nullptr) {
  T g1 = 1, g2 = 1;
  if (padding == kGridBorder) {
    x = grid_clip(x, size, grad ? &g1 : nullptr);
  } else if (padding == kGridReflection) {
    x = align ? grid_reflect(x, 0, 2 * (size - 1), grad ? &g2 : nullptr)
              : grid_reflect(x, -1, 2 * size - 1, grad ? &g2 : nullptr);
    x = grid_clip(x, size, grad ? &g1 : nullptr);
  }
  if (grad) *grad = g1 * g2;
  return grid_safe_coord(x);
}

// grid value -> source position (bilinear, nearest), with d(position)/d(value) when asked.
template <class T>
EMBER_HOST_DEVICE_INLINE T grid_source_pos(T coord, int64_t size, int64_t padding, bool align, T* grad = nullptr) {
  T gu = 1, gp = 1;
  const T x = grid_unnormalize(coord, size, align, grad ? &gu : nullptr);
  const T r = grid_pad_coord(x, size, padding, align, grad ? &gp : nullptr);
  if (grad) *grad = gu * gp;
  return r;
}

EMBER_HOST_DEVICE_INLINE bool grid_inside(int64_t y, int64_t x, int64_t H, int64_t W) {
  return y >= 0 && y < H && x >= 0 && x < W;
}

// One bicubic tap's padded position in an image (or -1 outside for zeros padding).
template <class T>
EMBER_HOST_DEVICE_INLINE int64_t grid_cubic_tap(T pos, int64_t size, int64_t padding, bool align) {
  const T p = grid_pad_coord(pos, size, padding, align);
  const auto i = static_cast<int64_t>(p);
  return i >= 0 && i < size ? i : -1;
}

// The K taps (1 nearest, 4 bilinear, 16 bicubic) of the output pixel whose grid value is (gx, gy):
// idx[k * stride] its position in an image plane (-1 outside it) and w[k * stride] its weight.
// An output channel is then sum_k (idx >= 0 ? plane[idx] * w : 0), from 0, in k order.
template <int K, class T>
EMBER_HOST_DEVICE_INLINE void grid_taps(const GridGeom& c, T gx, T gy, int64_t* idx, T* w, int64_t stride) {
  auto set = [&](int64_t k, int64_t y, int64_t x, T weight) {
    idx[k * stride] = grid_inside(y, x, c.H, c.W) ? y * c.W + x : -1;
    w[k * stride] = weight;
  };
  if constexpr (K == 1) {
    const T x = grid_source_pos(gx, c.W, c.padding, c.align), y = grid_source_pos(gy, c.H, c.padding, c.align);
    set(0, static_cast<int64_t>(std::nearbyint(y)), static_cast<int64_t>(std::nearbyint(x)), T(1));
  } else if constexpr (K == 4) {
    const T x = grid_source_pos(gx, c.W, c.padding, c.align), y = grid_source_pos(gy, c.H, c.padding, c.align);
    const auto x0 = static_cast<int64_t>(std::floor(x)), y0 = static_cast<int64_t>(std::floor(y));
    const T wx1 = x - static_cast<T>(x0), wx0 = static_cast<T>(x0 + 1) - x, wy1 = y - static_cast<T>(y0),
            wy0 = static_cast<T>(y0 + 1) - y;
    set(0, y0, x0, wx0 * wy0);
    set(1, y0, x0 + 1, wx1 * wy0);
    set(2, y0 + 1, x0, wx0 * wy1);
    set(3, y0 + 1, x0 + 1, wx1 * wy1);
  } else {
    const T x = grid_safe_coord(grid_unnormalize(gx, c.W, c.align)),
            y = grid_safe_coord(grid_unnormalize(gy, c.H, c.align));
    const T fx = std::floor(x), fy = std::floor(y);
    const auto wx = cubic_coefficients<T>(x - fx), wy = cubic_coefficients<T>(y - fy);
    for (int64_t j = 0; j < 4; ++j) {
      const int64_t yj = grid_cubic_tap(fy - 1 + static_cast<T>(j), c.H, c.padding, c.align);
      for (int64_t k = 0; k < 4; ++k) {
        const int64_t xk = grid_cubic_tap(fx - 1 + static_cast<T>(k), c.W, c.padding, c.align);
        // grid_cubic_tap gives -1 outside: grid_inside() then rejects the tap.
        set(j * 4 + k, yj, xk, wx[static_cast<size_t>(k)] * wy[static_cast<size_t>(j)]);
      }
    }
  }
}

// The backward of one output pixel (grid value (gx, gy)): `g` its output gradient of channel 0
// (channel ch at g[ch * g_stride]), `img` its image (channel ch's plane at img[ch * H * W]).
// Calls add(ch * H * W + position, value) for each input-gradient contribution when with_input
// (the caller sums them: a += on the cpu, an atomic add on the GPU) and returns the grid's
// gradient in dx, dy.
template <class T, class Add>
EMBER_HOST_DEVICE_INLINE void grid_pixel_backward(const GridGeom& c, int64_t mode, T gx, T gy, const T* g,
                                                  int64_t g_stride, const T* img, bool with_input, Add&& add, T& dx,
                                                  T& dy) {
  const int64_t HW = c.H * c.W;
  dx = 0, dy = 0;
  if (mode == kGridBilinear) {
    T mx, my;
    const T x = grid_source_pos(gx, c.W, c.padding, c.align, &mx),
            y = grid_source_pos(gy, c.H, c.padding, c.align, &my);
    const auto x0 = static_cast<int64_t>(std::floor(x)), y0 = static_cast<int64_t>(std::floor(y));
    const int64_t x1 = x0 + 1, y1 = y0 + 1;
    const T wx1 = x - static_cast<T>(x0), wx0 = static_cast<T>(x1) - x, wy1 = y - static_cast<T>(y0),
            wy0 = static_cast<T>(y1) - y;
    const bool b00 = grid_inside(y0, x0, c.H, c.W), b01 = grid_inside(y0, x1, c.H, c.W),
               b10 = grid_inside(y1, x0, c.H, c.W), b11 = grid_inside(y1, x1, c.H, c.W);
    for (int64_t ch = 0; ch < c.C; ++ch) {
      const T v = g[ch * g_stride];
      const T* p = img + ch * HW;
      const int64_t base = ch * HW;
      if (b00) {
        if (with_input) add(base + y0 * c.W + x0, wx0 * wy0 * v);
        dx -= p[y0 * c.W + x0] * wy0 * v, dy -= p[y0 * c.W + x0] * wx0 * v;
      }
      if (b01) {
        if (with_input) add(base + y0 * c.W + x1, wx1 * wy0 * v);
        dx += p[y0 * c.W + x1] * wy0 * v, dy -= p[y0 * c.W + x1] * wx1 * v;
      }
      if (b10) {
        if (with_input) add(base + y1 * c.W + x0, wx0 * wy1 * v);
        dx -= p[y1 * c.W + x0] * wy1 * v, dy += p[y1 * c.W + x0] * wx0 * v;
      }
      if (b11) {
        if (with_input) add(base + y1 * c.W + x1, wx1 * wy1 * v);
        dx += p[y1 * c.W + x1] * wy1 * v, dy += p[y1 * c.W + x1] * wx1 * v;
      }
    }
    dx *= mx, dy *= my;
  } else if (mode == kGridNearest) {
    if (with_input) {
      const T x = grid_source_pos(gx, c.W, c.padding, c.align), y = grid_source_pos(gy, c.H, c.padding, c.align);
      const auto xi = static_cast<int64_t>(std::nearbyint(x)), yi = static_cast<int64_t>(std::nearbyint(y));
      if (grid_inside(yi, xi, c.H, c.W))
        for (int64_t ch = 0; ch < c.C; ++ch) add(ch * HW + yi * c.W + xi, g[ch * g_stride]);
    }
  } else {
    T mx, my;
    const T x = grid_safe_coord(grid_unnormalize(gx, c.W, c.align, &mx)),
            y = grid_safe_coord(grid_unnormalize(gy, c.H, c.align, &my));
    const T fx = std::floor(x), fy = std::floor(y);
    const auto wx = cubic_coefficients<T>(x - fx), wy = cubic_coefficients<T>(y - fy);
    const auto dwx = cubic_coefficients_grad<T>(x - fx), dwy = cubic_coefficients_grad<T>(y - fy);
    int64_t xs[4], ys[4];
    for (int64_t k = 0; k < 4; ++k) {
      xs[k] = grid_cubic_tap(fx - 1 + static_cast<T>(k), c.W, c.padding, c.align);
      ys[k] = grid_cubic_tap(fy - 1 + static_cast<T>(k), c.H, c.padding, c.align);
    }
    for (int64_t ch = 0; ch < c.C; ++ch) {
      const T v = g[ch * g_stride];
      const T* p = img + ch * HW;
      for (int64_t j = 0; j < 4; ++j) {
        if (ys[j] < 0) continue;
        for (int64_t k = 0; k < 4; ++k) {
          if (xs[k] < 0) continue;
          const int64_t at = ys[j] * c.W + xs[k];
          const T wxk = wx[static_cast<size_t>(k)], wyj = wy[static_cast<size_t>(j)];
          if (with_input) add(ch * HW + at, v * wxk * wyj);
          dx -= p[at] * dwx[static_cast<size_t>(k)] * wyj * v;
          dy -= p[at] * dwy[static_cast<size_t>(j)] * wxk * v;
        }
      }
    }
    dx *= mx, dy *= my;
  }
}

}  // namespace ember::native::resample
