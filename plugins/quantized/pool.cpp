// QuantizedCPU pools on the integers: max_pool2d, avg_pool2d and adaptive_avg_pool2d.
//
// Note [Quantized pools]
// ~~~~~~~~~~~~~~~~~~~~~~
// The output keeps the input's (per-tensor) quantizer, and is channels-last when the input is
// (NHWC memory, NCHW sizes), as in LibTorch, whose two layouts run different kernels. Max is
// exact. The averages reproduce LibTorch 1.13's integer arithmetic bit for bit, including its
// rounding, which differs between the layouts on ties: with S = the window's sum of integers
// minus count * zp and d the divisor,
//   avg_pool2d, NCHW:                        y = clamp(nearbyint(float(S) * float(1 / d) + zp))
//   avg_pool2d and adaptive, channels-last:  y = clamp(zp + nearbyint(float(S) * float(1 / d)))
//   adaptive_avg_pool2d, NCHW:               y = nearbyint(float(sum) * (1.0f / kH / kW))
// (compared with LibTorch on 1440 random pool calls, quint8 and qint8, both layouts, ~0.9M
// outputs: identical). 8-bit NCHW inputs of 16 planes or more are pooled channels-last in
// transposed blocks (for_plane_blocks; averages keep the NCHW rounding).
#include <emmintrin.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "QTensorImpl.h"
#include "Transpose.h"
#include "ember/core/Exception.h"
#include "ember/core/Parallel.h"
#include "ember/generated/Functions.h"
#include "ember/generated/QuantizedCPUFunctions.h"
#include "ember/native/NNRules.h"

namespace ember::quantizedcpu {
using namespace ember::qbackend;
using native::nn::PoolGeom;

namespace {

// A float stand-in with self's sizes (one element, zero strides) for the shared shape checks,
// which also check that the input is floating.
Tensor shape_stand_in(const Tensor& self) {
  return self.defined() ? ember::empty({}, TensorOptions(kFloat32)).expand(self.sizes()) : Tensor();
}

// nearbyint(min(max(u, lo), hi)) as T. For 8-bit types the bounds keep |u| < 2^22, where adding
// and subtracting 1.5 * 2^23 rounds half to even without a libm call, so the loops vectorize.
template <class T>
inline T round_clamp(float u) {
  constexpr float lo = static_cast<float>(std::numeric_limits<T>::lowest());
  constexpr float hi = static_cast<float>(std::numeric_limits<T>::max());
  if constexpr (sizeof(T) == 1) {
    u = u < lo ? lo : (u > hi ? hi : u);
    return static_cast<T>(static_cast<int32_t>((u + 12582912.0f) - 12582912.0f));
  } else {
    // Bounds in double: float(INT32_MAX) rounds up to 2^31, out of int32's range.
    const double r = std::nearbyint(static_cast<double>(u));
    constexpr double dlo = std::numeric_limits<T>::lowest(), dhi = std::numeric_limits<T>::max();
    return static_cast<T>(r < dlo ? dlo : (r > dhi ? dhi : r));
  }
}

// f(T{}, A{}) with T the integer type of `qtype` and A an accumulator wide enough for windows of
// `window` elements: int32 for 8-bit types below 2^23 elements (vectorizes), else int64.
template <class F>
void dispatch_acc(ScalarType qtype, int64_t window, F&& f) {
  dispatch_int(qtype, [&](auto t) {
    if (sizeof(t) == 1 && window < (int64_t{1} << 23))
      f(t, int32_t{});
    else
      f(t, int64_t{});
  });
}

// Output geometry of an NCHW (N*C planes) or channels-last input: nb batches of c channels.
struct Planes {
  int64_t nb, c;
};
Planes planes_of(const Tensor& self) {
  return self.dim() == 4 ? Planes{self.size(0), self.size(1)} : Planes{1, self.size(0)};
}

// The pooled result's integers, uninitialised, in the input's layout: [nb, oh, ow, c] for a
// channels-last input (its caller permutes back to NCHW sizes), else NCHW / CHW.
Tensor new_pooled(const Tensor& self, const QTensorImpl& qi, const Planes& pl, bool channels_last, int64_t oh,
                  int64_t ow) {
  const QuantizerPtr& q = qi.quantizer();
  return channels_last ? new_qtensor({pl.nb, oh, ow, pl.c}, self.dtype(), q)
                       : new_qtensor(native::nn::pooled_shape(self, oh, ow), self.dtype(), q);
}

// The inner loops take their bounds by value and restrict pointers: a uint8_t store may alias
// anything, which otherwise reloads the bounds per element and keeps the loops scalar.
template <class T>
inline void max_into(T* __restrict__ o, const T* __restrict__ in, int64_t n, int64_t stride) {
  if (stride == 1) {
    for (int64_t k = 0; k < n; ++k) o[k] = std::max(o[k], in[k]);
  } else if (stride == 2) {
    for (int64_t k = 0; k < n; ++k) o[k] = std::max(o[k], in[2 * k]);
  } else {
    for (int64_t k = 0; k < n; ++k) o[k] = std::max(o[k], in[k * stride]);
  }
}

template <class A, class T>
inline void add_into(A* __restrict__ o, const T* __restrict__ in, int64_t n, int64_t stride) {
  if (stride == 1) {
    for (int64_t k = 0; k < n; ++k) o[k] += in[k];
  } else if (stride == 2) {
    for (int64_t k = 0; k < n; ++k) o[k] += in[2 * k];
  } else {
    for (int64_t k = 0; k < n; ++k) o[k] += in[k * stride];
  }
}

// Output columns [lo, hi) whose input column ow * s + off lies in [0, W).
inline std::pair<int64_t, int64_t> valid_cols(int64_t off, int64_t s, int64_t W, int64_t oW) {
  const int64_t lo = off >= 0 ? 0 : (-off + s - 1) / s;
  const int64_t hi = W - 1 - off >= 0 ? std::min(oW, (W - 1 - off) / s + 1) : 0;
  return {lo, std::max(lo, hi)};
}

// f(input row ih, kernel row index) for the rows of output row oh's windows inside the input.
template <class F>
inline void window_rows(const PoolGeom& g, int64_t oh, const F& f) {
  for (int64_t i = 0; i < g.kH; ++i) {
    const int64_t ih = oh * g.sH - g.pH + i * g.dH;
    if (ih >= 0 && ih < g.H) f(ih);
  }
}

// Planes (NCHW) in parallel, one output row at a time: each kernel tap is a strided pass over
// the row (vectorized for strides 1 and 2).
template <class F>
void for_planes(const PoolGeom& g, const F& f) {
  const int64_t HW = g.H * g.W;
  parallel_for(0, g.planes, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(HW, 1)), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) f(p);
  });
}

// ---- max ----

template <class T>
void max_nchw(const PoolGeom& g, const T* x, T* y) {
  for_planes(g, [&](int64_t p) {
    const T* xp = x + p * g.H * g.W;
    for (int64_t oh = 0; oh < g.oH; ++oh) {
      T* o = y + (p * g.oH + oh) * g.oW;
      std::fill(o, o + g.oW, std::numeric_limits<T>::lowest());
      window_rows(g, oh, [&](int64_t ih) {
        for (int64_t j = 0; j < g.kW; ++j) {
          const int64_t off = j * g.dW - g.pW;
          const auto [lo, hi] = valid_cols(off, g.sW, g.W, g.oW);
          max_into(o + lo, xp + ih * g.W + lo * g.sW + off, hi - lo, g.sW);
        }
      });
    }
  });
}

// Rows (batch, output row) in parallel, channels innermost (contiguous, vectorized).
template <class F>
void for_nhwc_rows(const PoolGeom& g, int64_t nb, int64_t c, const F& f) {
  const int64_t work = std::max<int64_t>(1, g.oW * c * g.kH * g.kW);
  parallel_for(0, nb * g.oH, std::max<int64_t>(1, kGrainSize / work), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) f(r / g.oH, r % g.oH);
  });
}

// o[k] = max over the window's taps t of taps[t][k], k < c. For 8-bit types blocks of 16 channels
// stay in an SSE2 register across the taps (int8 compared as uint8 with the sign bit flipped).
template <class T>
inline void max_taps(const T* const* taps, int64_t ntaps, T* o, int64_t c) {
  int64_t k0 = 0;
  if constexpr (sizeof(T) == 1) {
    const __m128i flip = _mm_set1_epi8(std::is_signed_v<T> ? static_cast<char>(0x80) : 0);
    for (; k0 + 16 <= c; k0 += 16) {
      __m128i m = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(taps[0] + k0)), flip);
      for (int64_t t = 1; t < ntaps; ++t)
        m = _mm_max_epu8(m, _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(taps[t] + k0)), flip));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o + k0), _mm_xor_si128(m, flip));
    }
  }
  for (; k0 < c; ++k0) {
    T m = taps[0][k0];
    for (int64_t t = 1; t < ntaps; ++t) m = std::max(m, taps[t][k0]);
    o[k0] = m;
  }
}

template <class T>
void max_nhwc(const PoolGeom& g, int64_t nb, int64_t c, const T* x, T* y) {
  for_nhwc_rows(g, nb, c, [&](int64_t n, int64_t oh) {
    std::vector<const T*> taps(static_cast<size_t>(g.kH * g.kW));
    for (int64_t ow = 0; ow < g.oW; ++ow) {
      int64_t ntaps = 0;
      window_rows(g, oh, [&](int64_t ih) {
        for (int64_t j = 0; j < g.kW; ++j) {
          const int64_t iw = ow * g.sW - g.pW + j * g.dW;
          if (iw >= 0 && iw < g.W) taps[static_cast<size_t>(ntaps++)] = x + ((n * g.H + ih) * g.W + iw) * c;
        }
      });
      // ntaps >= 1: every window starts inside the input or its padding of at most half the kernel.
      max_taps(taps.data(), ntaps, y + ((n * g.oH + oh) * g.oW + ow) * c, c);
    }
  });
}

// Blocks of NCHW planes transposed to (H, W, planes); f(planes, in, out) pools them channels-last
// into (oH, oW, planes), transposed back into y. The buffers stay in cache. Pooling along the
// planes vectorizes whatever the plane width, unlike strided passes along short rows: 2-5x faster
// for 8-bit types with 16 planes or more.
template <class T, class F>
void for_plane_blocks(const PoolGeom& g, const T* x, T* y, const F& f) {
  static_assert(sizeof(T) == 1, "the transpose moves bytes");
  const int64_t HW = g.H * g.W, L = g.oH * g.oW;
  // 16 to 64 planes (a multiple of 16: the transpose's tile) of about 1 MB (L2).
  const int64_t kPlanes = std::clamp<int64_t>((int64_t{1} << 20) / std::max<int64_t>(HW, 1) / 16 * 16, 16, 64);
  const int64_t blocks = (g.planes + kPlanes - 1) / kPlanes;
  parallel_for(0, blocks, std::max<int64_t>(1, kGrainSize / (kPlanes * HW)), [&](int64_t b0, int64_t b1) {
    std::vector<T> in(static_cast<size_t>(HW * kPlanes)), out(static_cast<size_t>(L * kPlanes));
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t p0 = b * kPlanes, np = std::min(kPlanes, g.planes - p0);
      transpose_image(reinterpret_cast<const uint8_t*>(x + p0 * HW), reinterpret_cast<uint8_t*>(in.data()), np, HW, HW);
      f(np, in.data(), out.data());
      transpose_image(reinterpret_cast<const uint8_t*>(out.data()), reinterpret_cast<uint8_t*>(y + p0 * L), L, np, np);
    }
  });
}

// max is exact in any order.
template <class T>
void max_nchw_transposed(const PoolGeom& g, const T* x, T* y) {
  if constexpr (sizeof(T) != 1) {
    return max_nchw(g, x, y);  // the transpose moves bytes
  } else {
    for_plane_blocks(g, x, y, [&](int64_t np, const T* in, T* out) { max_nhwc(g, 1, np, in, out); });
  }
}

// ---- averages ----

// The window of output (oh, ow) clipped to the input: [hs, he) x [ws, we), and LibTorch's divisor.
struct AvgWindow {
  int64_t hs, he, ws, we, divisor;
};
inline AvgWindow avg_window(const PoolGeom& g, int64_t oh, int64_t ow, bool count_include_pad,
                            std::optional<int64_t> divisor_override) {
  int64_t hs = oh * g.sH - g.pH, ws = ow * g.sW - g.pW;
  int64_t he = std::min(hs + g.kH, g.H + g.pH), we = std::min(ws + g.kW, g.W + g.pW);
  const int64_t pool_size = (he - hs) * (we - ws);
  hs = std::max<int64_t>(hs, 0), ws = std::max<int64_t>(ws, 0);
  he = std::min(he, g.H), we = std::min(we, g.W);
  const int64_t d = divisor_override ? *divisor_override : count_include_pad ? pool_size : (he - hs) * (we - ws);
  return {hs, he, ws, we, d};
}

// y[k] = clamp(nearbyint(float(acc[k] - count[k] * zp) * m[k] + zp)): LibTorch's NCHW rounding.
template <class T, class A>
inline void finish_nchw(const A* __restrict__ acc, const A* __restrict__ count, const float* __restrict__ m,
                        T* __restrict__ y, int64_t n, A zp) {
  const auto zf = static_cast<float>(zp);
  for (int64_t k = 0; k < n; ++k) y[k] = round_clamp<T>(static_cast<float>(acc[k] - count[k] * zp) * m[k] + zf);
}

template <class T, class A>
void avg_nchw(const PoolGeom& g, bool cip, std::optional<int64_t> div, int64_t zp, const T* x, T* y) {
  for_planes(g, [&](int64_t p) {
    std::vector<A> acc(static_cast<size_t>(g.oW)), count(acc.size());
    std::vector<float> m(acc.size());
    const T* xp = x + p * g.H * g.W;
    for (int64_t oh = 0; oh < g.oH; ++oh) {
      for (int64_t ow = 0; ow < g.oW; ++ow) {
        const AvgWindow w = avg_window(g, oh, ow, cip, div);
        count[static_cast<size_t>(ow)] = static_cast<A>((w.he - w.hs) * (w.we - w.ws));
        m[static_cast<size_t>(ow)] = static_cast<float>(1.0 / static_cast<double>(w.divisor));
      }
      std::fill(acc.begin(), acc.end(), A{0});
      window_rows(g, oh, [&](int64_t ih) {
        for (int64_t j = 0; j < g.kW; ++j) {
          const int64_t off = j - g.pW;
          const auto [lo, hi] = valid_cols(off, g.sW, g.W, g.oW);
          add_into(acc.data() + lo, xp + ih * g.W + lo * g.sW + off, hi - lo, g.sW);
        }
      });
      finish_nchw(acc.data(), count.data(), m.data(), y + (p * g.oH + oh) * g.oW, g.oW, static_cast<A>(zp));
    }
  });
}

// clamp(zp + nearbyint(t)) as T (FBGEMM's quantize: round, then add the zero point). For 8-bit
// types t is clamped first (monotone, integer bounds: the same result), so the trick applies.
template <class T>
inline T round_add_clamp(float t, int32_t zp) {
  constexpr float lo = static_cast<float>(std::numeric_limits<T>::lowest());
  constexpr float hi = static_cast<float>(std::numeric_limits<T>::max());
  if constexpr (sizeof(T) == 1) {
    const float a = lo - static_cast<float>(zp), b = hi - static_cast<float>(zp);
    t = t < a ? a : (t > b ? b : t);
    return static_cast<T>(static_cast<int32_t>((t + 12582912.0f) - 12582912.0f) + zp);
  } else {
    const double r = static_cast<double>(std::nearbyint(t)) + zp;
    constexpr double dlo = std::numeric_limits<T>::lowest(), dhi = std::numeric_limits<T>::max();
    return static_cast<T>(r < dlo ? dlo : (r > dhi ? dhi : r));
  }
}

// Rounds channels-last sums S: clamp(zp + nearbyint(S * m)), LibTorch's channels-last rounding, or
// with kNchwRounding its NCHW one, clamp(nearbyint(S * m + zp)) (m = float(1 / d) either way).
template <bool kNchwRounding, class T, class A>
inline void finish_nhwc(const A* __restrict__ acc, T* __restrict__ o, int64_t c, float m, int32_t zp) {
  if constexpr (kNchwRounding) {
    const auto zf = static_cast<float>(zp);
    for (int64_t k = 0; k < c; ++k) o[k] = round_clamp<T>(static_cast<float>(acc[k]) * m + zf);
  } else {
    for (int64_t k = 0; k < c; ++k) o[k] = round_add_clamp<T>(static_cast<float>(acc[k]) * m, zp);
  }
}

// The channels-last average over rows [hs, he) x columns [ws, we) of batch n, all c channels:
// o[k] = the rounded float(sum_k - count * zp) * m (finish_nhwc).
template <bool kNchwRounding = false, class T, class A>
inline void avg_window_nhwc(const T* x, int64_t H, int64_t W, int64_t c, int64_t n, int64_t hs, int64_t he, int64_t ws,
                            int64_t we, float m, int32_t zp, A* acc, T* o) {
  std::fill(acc, acc + c, static_cast<A>(-(he - hs) * (we - ws) * static_cast<int64_t>(zp)));
  for (int64_t ih = hs; ih < he; ++ih)
    for (int64_t iw = ws; iw < we; ++iw) add_into(acc, x + ((n * H + ih) * W + iw) * c, c, 1);
  finish_nhwc<kNchwRounding>(acc, o, c, m, zp);
}

template <class T, class A, bool kNchwRounding = false>
void avg_nhwc(const PoolGeom& g, int64_t nb, int64_t c, bool cip, std::optional<int64_t> div, int64_t zp, const T* x,
              T* y) {
  for_nhwc_rows(g, nb, c, [&](int64_t n, int64_t oh) {
    std::vector<A> acc(static_cast<size_t>(c));
    for (int64_t ow = 0; ow < g.oW; ++ow) {
      const AvgWindow w = avg_window(g, oh, ow, cip, div);
      const float m = 1.0f / static_cast<float>(w.divisor);
      avg_window_nhwc<kNchwRounding>(x, g.H, g.W, c, n, w.hs, w.he, w.ws, w.we, m, static_cast<int32_t>(zp), acc.data(),
                                     y + ((n * g.oH + oh) * g.oW + ow) * c);
    }
  });
}

// NCHW averages as max_nchw_transposed, with LibTorch's NCHW rounding.
template <class T, class A>
void avg_nchw_transposed(const PoolGeom& g, bool cip, std::optional<int64_t> div, int64_t zp, const T* x, T* y) {
  if constexpr (sizeof(T) != 1) {
    return avg_nchw<T, A>(g, cip, div, zp, x, y);  // the transpose moves bytes
  } else {
    for_plane_blocks(g, x, y,
                     [&](int64_t np, const T* in, T* out) { avg_nhwc<T, A, true>(g, 1, np, cip, div, zp, in, out); });
  }
}

// Adaptive windows: [floor(i * in / out), ceil((i + 1) * in / out)).
inline int64_t start_index(int64_t i, int64_t out, int64_t in) { return (i * in) / out; }
inline int64_t end_index(int64_t i, int64_t out, int64_t in) { return ((i + 1) * in + out - 1) / out; }

// The sum of n contiguous integers.
template <class A, class T>
inline int64_t row_sum(const T* __restrict__ in, int64_t n) {
  A s = 0;
  for (int64_t k = 0; k < n; ++k) s += in[k];
  return s;
}

template <class T, class A>
void adaptive_nchw(int64_t planes, int64_t H, int64_t W, int64_t oH, int64_t oW, const T* x, T* y) {
  const int64_t HW = H * W;
  parallel_for(0, planes, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(HW, 1)), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const T* xp = x + p * HW;
      for (int64_t oh = 0; oh < oH; ++oh) {
        const int64_t hs = start_index(oh, oH, H), he = end_index(oh, oH, H);
        const float rh = 1.0f / static_cast<float>(he - hs);
        for (int64_t ow = 0; ow < oW; ++ow) {
          const int64_t ws = start_index(ow, oW, W), we = end_index(ow, oW, W);
          int64_t s = 0;
          if (ws == 0 && we == W)  // whole rows: one contiguous run
            s = row_sum<A>(xp + hs * W, (he - hs) * W);
          else
            for (int64_t ih = hs; ih < he; ++ih) s += row_sum<A>(xp + ih * W + ws, we - ws);
          y[(p * oH + oh) * oW + ow] = round_clamp<T>(static_cast<float>(s) * (rh / static_cast<float>(we - ws)));
        }
      }
    }
  });
}

template <class T, class A>
void adaptive_nhwc(int64_t nb, int64_t c, int64_t H, int64_t W, int64_t oH, int64_t oW, int64_t zp, const T* x, T* y) {
  const int64_t work = std::max<int64_t>(1, oW * c * ((H + oH - 1) / oH + 1) * ((W + oW - 1) / oW + 1));
  parallel_for(0, nb * oH, std::max<int64_t>(1, kGrainSize / work), [&](int64_t r0, int64_t r1) {
    std::vector<A> acc(static_cast<size_t>(c));
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t n = r / oH, oh = r % oH;
      const int64_t hs = start_index(oh, oH, H), he = end_index(oh, oH, H);
      for (int64_t ow = 0; ow < oW; ++ow) {
        const int64_t ws = start_index(ow, oW, W), we = end_index(ow, oW, W);
        const float m = 1.0f / static_cast<float>((he - hs) * (we - ws));
        avg_window_nhwc(x, H, W, c, n, hs, he, ws, we, m, static_cast<int32_t>(zp), acc.data(),
                        y + ((n * oH + oh) * oW + ow) * c);
      }
    }
  });
}

}  // namespace

Tensor quantized_max_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                            IntArrayRef dilation, bool ceil_mode) {
  const char* op = "max_pool2d";
  const PoolGeom g =
      native::nn::check_pool(op, kCPU, shape_stand_in(self), kernel_size, stride, padding, dilation, ceil_mode);
  const QTensorImpl& qi = qimpl(self, op);
  (void)per_tensor_quantizer(self, op);
  const Planes pl = planes_of(self);
  const bool cl = is_channels_last(self);
  Tensor y = new_pooled(self, qi, pl, cl, g.oH, g.oW);
  if (y.numel() > 0) {
    const Tensor xi = cl ? int_view(self) : int_view(self).contiguous();
    dispatch_int(self.dtype(), [&](auto t) {
      using T = decltype(t);
      if (cl)
        max_nhwc(g, pl.nb, pl.c, static_cast<const T*>(xi.data_ptr()), static_cast<T*>(y.data_ptr()));
      else if (g.planes >= 16)
        max_nchw_transposed(g, static_cast<const T*>(xi.data_ptr()), static_cast<T*>(y.data_ptr()));
      else
        max_nchw(g, static_cast<const T*>(xi.data_ptr()), static_cast<T*>(y.data_ptr()));
    });
  }
  return cl ? y.permute({0, 3, 1, 2}) : y;
}

Tensor avg_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override) {
  const char* op = "avg_pool2d";
  const PoolGeom g = native::nn::check_avg_pool(op, kCPU, shape_stand_in(self), kernel_size, stride, padding, ceil_mode,
                                                divisor_override);
  const QTensorImpl& qi = qimpl(self, op);
  const int64_t zp = per_tensor_quantizer(self, op).zero_point;
  const Planes pl = planes_of(self);
  const bool cl = is_channels_last(self);
  Tensor y = new_pooled(self, qi, pl, cl, g.oH, g.oW);
  if (y.numel() > 0) {
    const Tensor xi = cl ? int_view(self) : int_view(self).contiguous();
    dispatch_acc(self.dtype(), g.kH * g.kW, [&](auto t, auto a) {
      using T = decltype(t);
      using A = decltype(a);
      const T* x = static_cast<const T*>(xi.data_ptr());
      if (cl)
        avg_nhwc<T, A>(g, pl.nb, pl.c, count_include_pad, divisor_override, zp, x, static_cast<T*>(y.data_ptr()));
      else if (g.planes >= 16)
        avg_nchw_transposed<T, A>(g, count_include_pad, divisor_override, zp, x, static_cast<T*>(y.data_ptr()));
      else
        avg_nchw<T, A>(g, count_include_pad, divisor_override, zp, x, static_cast<T*>(y.data_ptr()));
    });
  }
  return cl ? y.permute({0, 3, 1, 2}) : y;
}

Tensor _adaptive_avg_pool2d(const Tensor& self, IntArrayRef output_size) {
  const char* op = "adaptive_avg_pool2d";
  const native::nn::Pair o = native::nn::check_adaptive_pool(op, kCPU, shape_stand_in(self), output_size);
  const QTensorImpl& qi = qimpl(self, op);
  const int64_t zp = per_tensor_quantizer(self, op).zero_point;
  const Planes pl = planes_of(self);
  const int64_t H = self.size(-2), W = self.size(-1);
  const bool cl = is_channels_last(self);
  Tensor y = new_pooled(self, qi, pl, cl, o.h, o.w);
  if (y.numel() > 0) {
    const Tensor xi = cl ? int_view(self) : int_view(self).contiguous();
    // The largest window: the whole input when an output size is 1 (also bounds NCHW row runs).
    dispatch_acc(self.dtype(), H * W, [&](auto t, auto a) {
      using T = decltype(t);
      using A = decltype(a);
      const T* x = static_cast<const T*>(xi.data_ptr());
      if (cl)
        adaptive_nhwc<T, A>(pl.nb, pl.c, H, W, o.h, o.w, zp, x, static_cast<T*>(y.data_ptr()));
      else
        adaptive_nchw<T, A>(pl.nb * pl.c, H, W, o.h, o.w, x, static_cast<T*>(y.data_ptr()));
    });
  }
  return cl ? y.permute({0, 3, 1, 2}) : y;
}

}  // namespace ember::quantizedcpu
