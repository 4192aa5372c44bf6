// Pooling over 1 to 3 spatial dimensions on the CPU (Note [Pooling over 1 to 3 dimensions] in
// ember/native/NNRules.h): max_pool{2,3}d_with_indices, avg_pool{1,2,3}d, adaptive_avg_pool1d,
// _adaptive_avg_pool{2,3}d, adaptive_max_pool2d and their backwards; max_pool1d/2d/3d,
// adaptive_max_pool1d and adaptive_avg_pool2d/3d are composites in libember (api/src/native).
//
// Note [CPU max pooling]
// Our own NCHW kernel rather than oneDNN's pooling: PyTorch's max_pool2d_with_indices returns
// int64 indices (h * W + w within the input plane), which oneDNN's training workspace does not
// give, and reordering NCHW to oneDNN's blocked layout and back would cost more than the pooling
// itself. Each (n, c) plane is pooled row by row (a 3-d window's rows are its (d, h) pairs, in
// index order); the outputs whose window lies inside the row (most of them) run a branch-free
// loop over the taps, the border outputs a general one.
//   - float32 on AVX-512 (stride 1 or 2 along W, no W dilation): intrinsics, 16 outputs per
//     vector with masked row ends (CNN rows are short: 13 outputs for 26 columns, which a
//     compiler-vectorized loop would leave to its scalar tail), stride-2 taps gathered by a
//     two-register permute. About the cost of a relu over the input (bench/nn).
//   - otherwise: the same loop in plain C++ with the tap count and stride as template constants
//     for 2x2/3x3 windows of stride 1/2, compiled per ISA (Loops.h) for the compiler to vectorize.
// Semantics are PyTorch's: a tap wins when it is greater than the current maximum or NaN, so
// the first maximum (and the last NaN) gives the index (d * H * W + h * W + w within the input
// plane); padding never wins.
#include <immintrin.h>

#include <cmath>
#include <limits>
#include <tuple>

#include "CPUKernels.h"
#include "NN.h"
#include "Reduce.h"
#include "ember/generated/Functions.h"

namespace ember::cpu {
namespace {

// Checks and output sizes: ember/native/NNRules.h (shared with the meta plugin).
using native::nn::pooled_shape;
using native::nn::PoolGeom;

// f(p0, p1) over the planes [0, planes), split over the intra-op threads; `work` is the elements
// one plane touches.
template <class F>
void for_planes(int64_t planes, int64_t work, const F& f) {
  parallel_for(0, planes, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(work, 1)), f);
}

// ---- max pooling -----------------------------------------------------------------------------

// The range [lo, hi) of outputs whose window (kW taps of dilation dW) lies inside [0, W).
void interior(int64_t W, int64_t k, int64_t s, int64_t p, int64_t d, int64_t n, int64_t& lo, int64_t& hi) {
  lo = (p + s - 1) / s;                          // first o with o * s - p >= 0
  const int64_t last = W - 1 - (k - 1) * d + p;  // o * s <= last
  hi = last < 0 ? 0 : std::min(n, last / s + 1);
  lo = std::min(lo, hi);
}

// One tap row `r` (input row ih) into outputs [lo, hi) of one output row; KW/SW > 0 are
// compile-time tap counts/strides (dilation 1), 0 means use the runtime kw/sw/dw.
template <int KW, int SW, class T>
EMBER_ALWAYS_INLINE void max_row(const T* __restrict r, int64_t ih_off, T* __restrict out, int64_t* __restrict ind,
                                 int64_t lo, int64_t hi, int64_t pW, int64_t kw_rt, int64_t sw_rt, int64_t dw_rt) {
  const int64_t kw_n = KW ? KW : kw_rt, sw = SW ? SW : sw_rt, dw = KW ? 1 : dw_rt;
  for (int64_t o = lo; o < hi; ++o) {
    T m = out[o];
    int64_t mi = ind[o];
    const int64_t iw0 = o * sw - pW;
    for (int64_t kw = 0; kw < kw_n; ++kw) {
      const int64_t iw = iw0 + kw * dw;
      const T v = r[iw];
      const bool take = v > m || v != v;
      m = take ? v : m;
      mi = take ? ih_off + iw : mi;
    }
    out[o] = m;
    ind[o] = mi;
  }
}

// The first tap and one past the last of a window along one dimension, the first moved inside [0, n).
struct Span {
  int64_t start, end;
};
EMBER_ALWAYS_INLINE Span window(int64_t o, int64_t s, int64_t p, int64_t k, int64_t d, int64_t n) {
  int64_t st = o * s - p;
  const int64_t en = std::min(st + (k - 1) * d + 1, n);
  while (st < 0) st += d;
  return {st, en};
}

template <int KW, int SW, class T>
EMBER_ALWAYS_INLINE void max_plane_body(const PoolGeom& g, const T* __restrict in, T* __restrict out,
                                        int64_t* __restrict ind) {
  int64_t lo, hi;
  interior(g.W, g.kW, g.sW, g.pW, g.dW, g.oW, lo, hi);
  for (int64_t od = 0; od < g.oD; ++od) {
    const Span sd = window(od, g.sD, g.pD, g.kD, g.dD, g.D);
    for (int64_t oh = 0; oh < g.oH; ++oh) {
      T* orow = out + (od * g.oH + oh) * g.oW;
      int64_t* irow = ind + (od * g.oH + oh) * g.oW;
      const Span sh = window(oh, g.sH, g.pH, g.kH, g.dH, g.H);
      for (int64_t ow = 0; ow < g.oW; ++ow) {
        int64_t ws = ow * g.sW - g.pW;
        while (ws < 0) ws += g.dW;
        orow[ow] = -std::numeric_limits<T>::infinity();
        irow[ow] = (sd.start * g.H + sh.start) * g.W + ws;
      }
      for (int64_t id = sd.start; id < sd.end; id += g.dD) {
        for (int64_t ih = sh.start; ih < sh.end; ih += g.dH) {
          const int64_t off = (id * g.H + ih) * g.W;
          const T* r = in + off;
          max_row<KW, SW>(r, off, orow, irow, lo, hi, g.pW, g.kW, g.sW, g.dW);
          // Border outputs: only the taps inside the row.
          auto border = [&](int64_t ow) {
            T m = orow[ow];
            int64_t mi = irow[ow];
            for (int64_t kw = 0; kw < g.kW; ++kw) {
              const int64_t iw = ow * g.sW - g.pW + kw * g.dW;
              if (iw < 0 || iw >= g.W) continue;
              const T v = r[iw];
              if (v > m || v != v) m = v, mi = off + iw;
            }
            orow[ow] = m;
            irow[ow] = mi;
          };
          for (int64_t ow = 0; ow < lo; ++ow) border(ow);
          for (int64_t ow = hi; ow < g.oW; ++ow) border(ow);
        }
      }
    }
  }
}

template <int KW, int SW, class T>
EMBER_NOINLINE void max_planes_baseline(const PoolGeom& g, const T* in, T* out, int64_t* ind, int64_t p0, int64_t p1) {
  for (int64_t p = p0; p < p1; ++p)
    max_plane_body<KW, SW>(g, in + p * g.in_plane(), out + p * g.out_plane(), ind + p * g.out_plane());
}
#if defined(EMBER_CPU_MULTI_ISA)
template <int KW, int SW, class T>
EMBER_NOINLINE EMBER_CPU_TARGET_AVX2 void max_planes_avx2(const PoolGeom& g, const T* in, T* out, int64_t* ind,
                                                          int64_t p0, int64_t p1) {
  for (int64_t p = p0; p < p1; ++p)
    max_plane_body<KW, SW>(g, in + p * g.in_plane(), out + p * g.out_plane(), ind + p * g.out_plane());
}
template <int KW, int SW, class T>
EMBER_NOINLINE EMBER_CPU_TARGET_AVX512 void max_planes_avx512(const PoolGeom& g, const T* in, T* out, int64_t* ind,
                                                              int64_t p0, int64_t p1) {
  for (int64_t p = p0; p < p1; ++p)
    max_plane_body<KW, SW>(g, in + p * g.in_plane(), out + p * g.out_plane(), ind + p * g.out_plane());
}
#endif

template <int KW, int SW, class T>
void max_planes_isa(const PoolGeom& g, const T* in, T* out, int64_t* ind, int64_t p0, int64_t p1) {
#if defined(EMBER_CPU_MULTI_ISA)
  if (cpu_isa() == Isa::Avx512) return max_planes_avx512<KW, SW>(g, in, out, ind, p0, p1);
  if (cpu_isa() == Isa::Avx2) return max_planes_avx2<KW, SW>(g, in, out, ind, p0, p1);
#endif
  max_planes_baseline<KW, SW>(g, in, out, ind, p0, p1);
}

#if defined(EMBER_CPU_MULTI_ISA)
// One output's full window (PyTorch's loop): the border outputs of the AVX-512 path.
EMBER_ALWAYS_INLINE void max_one(const PoolGeom& g, const float* in, Span sd, Span sh, int64_t ow, float* out,
                                 int64_t* ind) {
  const Span sw = window(ow, g.sW, g.pW, g.kW, g.dW, g.W);
  float m = -std::numeric_limits<float>::infinity();
  int64_t mi = (sd.start * g.H + sh.start) * g.W + sw.start;
  for (int64_t id = sd.start; id < sd.end; id += g.dD)
    for (int64_t ih = sh.start; ih < sh.end; ih += g.dH)
      for (int64_t iw = sw.start; iw < sw.end; iw += g.dW) {
        const float v = in[(id * g.H + ih) * g.W + iw];
        if (v > m || v != v) m = v, mi = (id * g.H + ih) * g.W + iw;
      }
  *out = m;
  *ind = mi;
}

// float32, dilation 1 along W, stride 1 or 2 along W: 16 outputs of a row per vector (masked at
// the row's end), taps in PyTorch's order; stride-2 taps are two loads and a permute. Indices
// are kept as int32 (planes below 2^31 elements) and widened on store.
EMBER_NOINLINE EMBER_CPU_TARGET_AVX512 void max_planes_f32_avx512(const PoolGeom& g, const float* in, float* out,
                                                                  int64_t* ind, int64_t p0, int64_t p1) {
  int64_t lo, hi;
  interior(g.W, g.kW, g.sW, g.pW, g.dW, g.oW, lo, hi);
  const __m512i lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  const __m512i even = _mm512_add_epi32(lane, lane);
  const __m512i lane_step = _mm512_mullo_epi32(lane, _mm512_set1_epi32(static_cast<int32_t>(g.sW)));
  const __m512 neg_inf = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  const int64_t HW = g.in_plane(), L = g.out_plane();
  for (int64_t p = p0; p < p1; ++p) {
    const float* x = in + p * HW;
    for (int64_t odh = 0; odh < g.oD * g.oH; ++odh) {
      const int64_t od = odh / g.oH, oh = odh % g.oH;
      float* o = out + p * L + odh * g.oW;
      int64_t* oi = ind + p * L + odh * g.oW;
      const Span sd = window(od, g.sD, g.pD, g.kD, g.dD, g.D), sh = window(oh, g.sH, g.pH, g.kH, g.dH, g.H);
      for (int64_t ow = 0; ow < lo; ++ow) max_one(g, x, sd, sh, ow, o + ow, oi + ow);
      for (int64_t ow = hi; ow < g.oW; ++ow) max_one(g, x, sd, sh, ow, o + ow, oi + ow);
      for (int64_t o0 = lo; o0 < hi; o0 += 16) {
        const int64_t n = std::min<int64_t>(16, hi - o0);
        const auto k = static_cast<__mmask16>((1u << n) - 1);
        const int64_t span = (n - 1) * g.sW + 1;  // input elements one tap reads
        const auto klo = static_cast<__mmask16>(span >= 16 ? 0xffffu : (1u << span) - 1);
        const auto khi = static_cast<__mmask16>(span <= 16 ? 0u : (1u << (span - 16)) - 1);
        const int64_t iw0 = o0 * g.sW - g.pW;
        __m512 m = neg_inf;
        __m512i mi = _mm512_add_epi32(_mm512_set1_epi32(static_cast<int32_t>((sd.start * g.H + sh.start) * g.W + iw0)),
                                      lane_step);
        for (int64_t id = sd.start; id < sd.end; id += g.dD)
          for (int64_t ih = sh.start; ih < sh.end; ih += g.dH) {
            const int64_t row = id * g.H + ih;
            const float* r = x + row * g.W + iw0;
            for (int64_t kw = 0; kw < g.kW; ++kw) {
              __m512 v;
              if (g.sW == 1) {
                v = _mm512_maskz_loadu_ps(k, r + kw);
              } else {
                const __m512 v0 = _mm512_maskz_loadu_ps(klo, r + kw);
                const __m512 v1 = _mm512_maskz_loadu_ps(khi, r + kw + 16);
                v = _mm512_permutex2var_ps(v0, even, v1);
              }
              const __mmask16 take = _mm512_cmp_ps_mask(v, m, _CMP_GT_OQ) | _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
              m = _mm512_mask_mov_ps(m, take, v);
              const __m512i cand =
                  _mm512_add_epi32(_mm512_set1_epi32(static_cast<int32_t>(row * g.W + iw0 + kw)), lane_step);
              mi = _mm512_mask_mov_epi32(mi, take, cand);
            }
          }
        _mm512_mask_storeu_ps(o + o0, k, m);
        int64_t* dst = oi + o0;
        // maskz forms: the plain ones trip GCC 12's -Wmaybe-uninitialized inside immintrin.h.
        const __m256i mlo = _mm512_maskz_extracti64x4_epi64(0xff, mi, 0),
                      mhi = _mm512_maskz_extracti64x4_epi64(0xff, mi, 1);
        _mm512_mask_storeu_epi64(dst, static_cast<__mmask8>(k & 0xff), _mm512_maskz_cvtepi32_epi64(0xff, mlo));
        _mm512_mask_storeu_epi64(dst + 8, static_cast<__mmask8>(k >> 8), _mm512_maskz_cvtepi32_epi64(0xff, mhi));
      }
    }
  }
}
#endif

template <class T>
void max_planes_range(const PoolGeom& g, const T* in, T* out, int64_t* ind, int64_t p0, int64_t p1) {
#if defined(EMBER_CPU_MULTI_ISA)
  if constexpr (std::is_same_v<T, float>) {
    if (cpu_isa() == Isa::Avx512 && g.dW == 1 && (g.sW == 1 || g.sW == 2) && g.in_plane() < (int64_t{1} << 31))
      return max_planes_f32_avx512(g, in, out, ind, p0, p1);
  }
#endif
  if (g.dW == 1 && g.kW == 2 && g.sW == 2) return max_planes_isa<2, 2>(g, in, out, ind, p0, p1);
  if (g.dW == 1 && g.kW == 3 && g.sW == 2) return max_planes_isa<3, 2>(g, in, out, ind, p0, p1);
  if (g.dW == 1 && g.kW == 2 && g.sW == 1) return max_planes_isa<2, 1>(g, in, out, ind, p0, p1);
  if (g.dW == 1 && g.kW == 3 && g.sW == 1) return max_planes_isa<3, 1>(g, in, out, ind, p0, p1);
  max_planes_isa<0, 0>(g, in, out, ind, p0, p1);
}

template <class T>
void max_planes(const PoolGeom& g, const T* in, T* out, int64_t* ind) {
  for_planes(g.planes, g.in_plane(), [&](int64_t p0, int64_t p1) { max_planes_range(g, in, out, ind, p0, p1); });
}

// ---- average pooling -------------------------------------------------------------------------

struct AvgParams {
  bool count_include_pad;
  std::optional<int64_t> divisor_override;
};

// A window's clamped extent along one dimension, and its extent counting the padding.
struct AvgSpan {
  int64_t start, end, padded;
};
inline AvgSpan avg_span(int64_t o, int64_t s, int64_t p, int64_t k, int64_t n) {
  const int64_t st = o * s - p, en = std::min(st + k, n + p);
  return {std::max<int64_t>(st, 0), std::min(en, n), en - st};
}

// Calls f(output offset, window, divisor) for every output of a plane (PyTorch's window and
// divisor rules); f gives an empty window 0.
struct AvgWindow {
  AvgSpan d, h, w;
  bool empty() const { return d.start >= d.end || h.start >= h.end || w.start >= w.end; }
};
template <class F>
void avg_windows(const PoolGeom& g, const AvgParams& a, F&& f) {
  for (int64_t od = 0; od < g.oD; ++od) {
    const AvgSpan sd = avg_span(od, g.sD, g.pD, g.kD, g.D);
    for (int64_t oh = 0; oh < g.oH; ++oh) {
      const AvgSpan sh = avg_span(oh, g.sH, g.pH, g.kH, g.H);
      for (int64_t ow = 0; ow < g.oW; ++ow) {
        const AvgWindow w{sd, sh, avg_span(ow, g.sW, g.pW, g.kW, g.W)};
        const int64_t div = a.divisor_override ? *a.divisor_override
                            : a.count_include_pad
                                ? w.d.padded * w.h.padded * w.w.padded
                                : (w.d.end - w.d.start) * (w.h.end - w.h.start) * (w.w.end - w.w.start);
        f((od * g.oH + oh) * g.oW + ow, w, div);
      }
    }
  }
}

template <class F>
EMBER_ALWAYS_INLINE void for_window(const PoolGeom& g, const AvgWindow& w, F&& f) {
  for (int64_t id = w.d.start; id < w.d.end; ++id)
    for (int64_t ih = w.h.start; ih < w.h.end; ++ih) f((id * g.H + ih) * g.W, w.w.start, w.w.end);
}

template <class T>
void avg_forward(const PoolGeom& g, const AvgParams& a, const T* in, T* out) {
  for_planes(g.planes, g.in_plane(), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const T* x = in + p * g.in_plane();
      T* o = out + p * g.out_plane();
      avg_windows(g, a, [&](int64_t i, const AvgWindow& w, int64_t div) {
        T s = 0;
        for_window(g, w, [&](int64_t row, int64_t ws, int64_t we) {
          for (int64_t iw = ws; iw < we; ++iw) s += x[row + iw];
        });
        o[i] = w.empty() ? T(0) : s / static_cast<T>(div);
      });
    }
  });
}

template <class T>
void avg_backward(const PoolGeom& g, const AvgParams& a, const T* go, T* gi) {
  for_planes(g.planes, g.in_plane(), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      T* x = gi + p * g.in_plane();
      const T* o = go + p * g.out_plane();
      avg_windows(g, a, [&](int64_t i, const AvgWindow& w, int64_t div) {
        const T v = o[i] / static_cast<T>(div);
        for_window(g, w, [&](int64_t row, int64_t ws, int64_t we) {
          for (int64_t iw = ws; iw < we; ++iw) x[row + iw] += v;
        });
      });
    }
  });
}

// ---- adaptive pooling ------------------------------------------------------------------------

// Output i of `out` covers the inputs [floor(i * in / out), ceil((i + 1) * in / out)).
inline Span adaptive_span(int64_t i, int64_t out, int64_t in) {
  return {(i * in) / out, ((i + 1) * in + out - 1) / out};
}

// Calls f(output offset, window) for every output of a plane.
template <class F>
void adaptive_windows(const PoolGeom& g, F&& f) {
  for (int64_t od = 0; od < g.oD; ++od) {
    const Span sd = adaptive_span(od, g.oD, g.D);
    for (int64_t oh = 0; oh < g.oH; ++oh) {
      const Span sh = adaptive_span(oh, g.oH, g.H);
      for (int64_t ow = 0; ow < g.oW; ++ow) {
        const Span sw = adaptive_span(ow, g.oW, g.W);
        f((od * g.oH + oh) * g.oW + ow, AvgWindow{{sd.start, sd.end, 0}, {sh.start, sh.end, 0}, {sw.start, sw.end, 0}});
      }
    }
  }
}

inline int64_t window_size(const AvgWindow& w) {
  return (w.d.end - w.d.start) * (w.h.end - w.h.start) * (w.w.end - w.w.start);
}

template <class T>
void adaptive_avg_forward(const PoolGeom& g, const T* in, T* out) {
  for_planes(g.planes, g.in_plane(), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const T* x = in + p * g.in_plane();
      T* o = out + p * g.out_plane();
      adaptive_windows(g, [&](int64_t i, const AvgWindow& w) {
        T s = 0;
        for_window(g, w, [&](int64_t row, int64_t ws, int64_t we) {
          for (int64_t iw = ws; iw < we; ++iw) s += x[row + iw];
        });
        o[i] = s / static_cast<T>(window_size(w));
      });
    }
  });
}

template <class T>
void adaptive_avg_backward(const PoolGeom& g, const T* go, T* gi) {
  for_planes(g.planes, g.in_plane(), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      T* x = gi + p * g.in_plane();
      const T* o = go + p * g.out_plane();
      adaptive_windows(g, [&](int64_t i, const AvgWindow& w) {
        const T v = o[i] / static_cast<T>(window_size(w));
        for_window(g, w, [&](int64_t row, int64_t ws, int64_t we) {
          for (int64_t iw = ws; iw < we; ++iw) x[row + iw] += v;
        });
      });
    }
  });
}

// PyTorch's rule as in max pooling: the first maximum or the last NaN; the index starts at the
// window's first element.
template <class T>
void adaptive_max_forward(const PoolGeom& g, const T* in, T* out, int64_t* ind) {
  for_planes(g.planes, g.in_plane(), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const T* x = in + p * g.in_plane();
      adaptive_windows(g, [&](int64_t i, const AvgWindow& w) {
        T m = -std::numeric_limits<T>::infinity();
        int64_t mi = (w.d.start * g.H + w.h.start) * g.W + w.w.start;
        for_window(g, w, [&](int64_t row, int64_t ws, int64_t we) {
          for (int64_t iw = ws; iw < we; ++iw) {
            const T v = x[row + iw];
            if (v > m || v != v) m = v, mi = row + iw;
          }
        });
        out[p * g.out_plane() + i] = m;
        ind[p * g.out_plane() + i] = mi;
      });
    }
  });
}

// grad_input[indices] += grad_output, plane by plane (indices are flat within an input plane).
void scatter_indices(const char* op, const PoolGeom& g, const Tensor& go, const Tensor& idx, Tensor& gi) {
  const int64_t HW = g.in_plane(), L = g.out_plane();
  const int64_t* ip = idx.data_ptr<int64_t>();
  auto scatter = [&](auto* gip, const auto* gop) {
    for_planes(g.planes, HW, [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p)
        for (int64_t i = 0; i < L; ++i) {
          const int64_t k = ip[p * L + i];
          EMBER_CHECK_INDEX(k >= 0 && k < HW,
                            "[{}] argument 'indices': index {} is out of range for an input plane of {} elements", op,
                            k, HW);
          gip[p * HW + k] += gop[p * L + i];
        }
    });
  };
  if (gi.dtype() == kFloat32)
    scatter(gi.data_ptr<float>(), go.data_ptr<float>());
  else
    scatter(gi.data_ptr<double>(), go.data_ptr<double>());
}

// t in the layout LibTorch gives a pooled tensor (Note [Pooled layouts] in NNRules.h).
Tensor pool_layout(const Tensor& t, bool channels_last) {
  if (!channels_last) return t;
  Tensor r = empty_strided_cpu(t.sizes(), native::nn::pooled_strides(t.sizes(), true), t.dtype());
  cpu::copy_(r, t, false);
  return r;
}

std::tuple<Tensor, Tensor> max_pool_impl(const char* op, int64_t nd, const Tensor& self, IntArrayRef kernel_size,
                                         IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                         bool ceil_mode) {
  const PoolGeom g = native::nn::check_pool(op, kCPU, self, nd, kernel_size, stride, padding, dilation, ceil_mode);
  const ScalarType ct = nn::compute_float(self, op, "self");
  const Tensor x = nn::compute_input(self, ct);
  const auto shape = pooled_shape(self, nd, g);
  Tensor out = empty_cpu(shape, ct), ind = empty_cpu(shape, kInt64);
  if (out.numel() > 0)
    nn::visit_float(ct, [&](auto t) {
      using T = decltype(t);
      max_planes(g, x.data_ptr<T>(), out.data_ptr<T>(), ind.data_ptr<int64_t>());
    });
  const bool cl = native::nn::pool_keeps_channels_last(self, nd);
  return {pool_layout(nn::to_dtype_of(out, self.dtype()), cl), pool_layout(ind, cl)};
}

Tensor max_pool_backward_impl(const char* op, int64_t nd, const Tensor& grad_output, const Tensor& self,
                              IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                              bool ceil_mode, const Tensor& indices) {
  const PoolGeom g = native::nn::check_max_pool_backward(op, kCPU, grad_output, self, nd, kernel_size, stride, padding,
                                                         dilation, ceil_mode, indices);
  const ScalarType ct = nn::compute_float(self, op, "self");
  const Tensor go = nn::compute_input(grad_output, ct), idx = nn::compute_input(indices, kInt64);
  Tensor gi = empty_cpu(self.sizes(), ct);
  cpu::zero_(gi);
  scatter_indices(op, g, go, idx, gi);
  return pool_layout(nn::to_dtype_of(gi, self.dtype()), native::nn::pool_keeps_channels_last(self, nd));
}

Tensor avg_pool_impl(const char* op, int64_t nd, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                     IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                     std::optional<int64_t> divisor_override) {
  const PoolGeom g =
      native::nn::check_avg_pool(op, kCPU, self, nd, kernel_size, stride, padding, ceil_mode, divisor_override);
  const ScalarType ct = nn::compute_float(self, op, "self");
  const Tensor x = nn::compute_input(self, ct);
  Tensor out = empty_cpu(pooled_shape(self, nd, g), ct);
  const AvgParams a{count_include_pad, divisor_override};
  if (out.numel() > 0)
    nn::visit_float(ct, [&](auto t) {
      using T = decltype(t);
      avg_forward(g, a, x.data_ptr<T>(), out.data_ptr<T>());
    });
  return pool_layout(nn::to_dtype_of(out, self.dtype()), native::nn::pool_keeps_channels_last(self, nd));
}

Tensor avg_pool_backward_impl(const char* op, int64_t nd, const Tensor& grad_output, const Tensor& self,
                              IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                              bool count_include_pad, std::optional<int64_t> divisor_override) {
  const PoolGeom g =
      native::nn::check_avg_pool(op, kCPU, self, nd, kernel_size, stride, padding, ceil_mode, divisor_override);
  native::nn::check_pool_grad(op, kCPU, grad_output, self, pooled_shape(self, nd, g));
  const ScalarType ct = nn::compute_float(self, op, "self");
  const Tensor go = nn::compute_input(grad_output, ct);
  Tensor gi = empty_cpu(self.sizes(), ct);
  cpu::zero_(gi);
  const AvgParams a{count_include_pad, divisor_override};
  if (go.numel() > 0)
    nn::visit_float(ct, [&](auto t) {
      using T = decltype(t);
      avg_backward(g, a, go.data_ptr<T>(), gi.data_ptr<T>());
    });
  return pool_layout(nn::to_dtype_of(gi, self.dtype()), native::nn::pool_keeps_channels_last(self, nd));
}

Tensor adaptive_avg_impl(const char* op, int64_t nd, const Tensor& self, IntArrayRef output_size) {
  const PoolGeom g = native::nn::check_adaptive_pool(op, kCPU, self, nd, output_size);
  const ScalarType ct = nn::compute_float(self, op, "self");
  const Tensor x = nn::compute_input(self, ct);
  Tensor out = empty_cpu(pooled_shape(self, nd, g), ct);
  if (out.numel() > 0)
    nn::visit_float(ct, [&](auto t) {
      using T = decltype(t);
      adaptive_avg_forward(g, x.data_ptr<T>(), out.data_ptr<T>());
    });
  return pool_layout(nn::to_dtype_of(out, self.dtype()), native::nn::pool_keeps_channels_last(self, nd));
}

Tensor adaptive_avg_backward_impl(const char* op, int64_t nd, const Tensor& grad_output, const Tensor& self) {
  const PoolGeom g = native::nn::check_adaptive_pool_backward(op, kCPU, grad_output, self, nd);
  const ScalarType ct = nn::compute_float(self, op, "self");
  const Tensor go = nn::compute_input(grad_output, ct);
  Tensor gi = empty_cpu(self.sizes(), ct);
  cpu::zero_(gi);
  if (go.numel() > 0)
    nn::visit_float(ct, [&](auto t) {
      using T = decltype(t);
      adaptive_avg_backward(g, go.data_ptr<T>(), gi.data_ptr<T>());
    });
  return pool_layout(nn::to_dtype_of(gi, self.dtype()), native::nn::pool_keeps_channels_last(self, nd));
}

}  // namespace

// ---- CPU kernels ---------------------------------------------------------------------------

std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                                   IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return max_pool_impl("max_pool2d_with_indices", 2, self, kernel_size, stride, padding, dilation, ceil_mode);
}

std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                                   IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return max_pool_impl("max_pool3d_with_indices", 3, self, kernel_size, stride, padding, dilation, ceil_mode);
}

std::tuple<Tensor&, Tensor&> max_pool3d_with_indices_out(const Tensor& self, IntArrayRef kernel_size,
                                                         IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                                         bool ceil_mode, Tensor& out, Tensor& indices) {
  const char* op = "max_pool3d_with_indices_out";
  auto [o, i] = max_pool_impl("max_pool3d_with_indices", 3, self, kernel_size, stride, padding, dilation, ceil_mode);
  check_out(op, out, self.dtype());
  check_out(op, indices, kInt64, "indices");
  write_out(out, o, op);
  write_out(indices, i, op);
  return {out, indices};
}

Tensor max_pool2d_with_indices_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                        IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                        const Tensor& indices) {
  return max_pool_backward_impl("max_pool2d_with_indices_backward", 2, grad_output, self, kernel_size, stride, padding,
                                dilation, ceil_mode, indices);
}

Tensor max_pool3d_with_indices_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                        IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                        const Tensor& indices) {
  return max_pool_backward_impl("max_pool3d_with_indices_backward", 3, grad_output, self, kernel_size, stride, padding,
                                dilation, ceil_mode, indices);
}

Tensor avg_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool count_include_pad) {
  return avg_pool_impl("avg_pool1d", 1, self, kernel_size, stride, padding, ceil_mode, count_include_pad, std::nullopt);
}

Tensor avg_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override) {
  return avg_pool_impl("avg_pool2d", 2, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                       divisor_override);
}

Tensor avg_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override) {
  return avg_pool_impl("avg_pool3d", 3, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                       divisor_override);
}

Tensor& avg_pool3d_out(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                       bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override, Tensor& out) {
  const char* op = "avg_pool3d_out";
  const Tensor r = avg_pool_impl("avg_pool3d", 3, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                                 divisor_override);
  check_out(op, out, self.dtype());
  return write_out(out, r, op);
}

Tensor avg_pool2d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                           IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                           std::optional<int64_t> divisor_override) {
  return avg_pool_backward_impl("avg_pool2d_backward", 2, grad_output, self, kernel_size, stride, padding, ceil_mode,
                                count_include_pad, divisor_override);
}

Tensor avg_pool3d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                           IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                           std::optional<int64_t> divisor_override) {
  return avg_pool_backward_impl("avg_pool3d_backward", 3, grad_output, self, kernel_size, stride, padding, ceil_mode,
                                count_include_pad, divisor_override);
}

Tensor adaptive_avg_pool1d(const Tensor& self, IntArrayRef output_size) {
  return adaptive_avg_impl("adaptive_avg_pool1d", 1, self, output_size);
}

Tensor _adaptive_avg_pool2d(const Tensor& self, IntArrayRef output_size) {
  return adaptive_avg_impl("adaptive_avg_pool2d", 2, self, output_size);
}

Tensor _adaptive_avg_pool3d(const Tensor& self, IntArrayRef output_size) {
  return adaptive_avg_impl("adaptive_avg_pool3d", 3, self, output_size);
}

Tensor& _adaptive_avg_pool3d_out(const Tensor& self, IntArrayRef output_size, Tensor& out) {
  const char* op = "adaptive_avg_pool3d_out";
  const Tensor r = adaptive_avg_impl("adaptive_avg_pool3d", 3, self, output_size);
  check_out(op, out, self.dtype());
  return write_out(out, r, op);
}

Tensor _adaptive_avg_pool2d_backward(const Tensor& grad_output, const Tensor& self) {
  return adaptive_avg_backward_impl("adaptive_avg_pool2d_backward", 2, grad_output, self);
}

Tensor _adaptive_avg_pool3d_backward(const Tensor& grad_output, const Tensor& self) {
  return adaptive_avg_backward_impl("adaptive_avg_pool3d_backward", 3, grad_output, self);
}

std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& self, IntArrayRef output_size) {
  const char* op = "adaptive_max_pool2d";
  const PoolGeom g = native::nn::check_adaptive_pool(op, kCPU, self, 2, output_size);
  const ScalarType ct = nn::compute_float(self, op, "self");
  const Tensor x = nn::compute_input(self, ct);
  const auto shape = pooled_shape(self, 2, g);
  Tensor out = empty_cpu(shape, ct), ind = empty_cpu(shape, kInt64);
  if (out.numel() > 0)
    nn::visit_float(ct, [&](auto t) {
      using T = decltype(t);
      adaptive_max_forward(g, x.data_ptr<T>(), out.data_ptr<T>(), ind.data_ptr<int64_t>());
    });
  const bool cl = native::nn::pool_keeps_channels_last(self, 2);
  return {pool_layout(nn::to_dtype_of(out, self.dtype()), cl), pool_layout(ind, cl)};
}

Tensor adaptive_max_pool2d_backward(const Tensor& grad_output, const Tensor& self, const Tensor& indices) {
  const char* op = "adaptive_max_pool2d_backward";
  const PoolGeom g = native::nn::check_adaptive_pool_backward(op, kCPU, grad_output, self, 2);
  native::nn::check_pool_indices(op, kCPU, indices, grad_output.sizes());
  const ScalarType ct = nn::compute_float(self, op, "self");
  const Tensor go = nn::compute_input(grad_output, ct), idx = nn::compute_input(indices, kInt64);
  Tensor gi = empty_cpu(self.sizes(), ct);
  cpu::zero_(gi);
  scatter_indices(op, g, go, idx, gi);
  return pool_layout(nn::to_dtype_of(gi, self.dtype()), native::nn::pool_keeps_channels_last(self, 2));
}

}  // namespace ember::cpu
