// 2-D pooling on the CPU: max_pool2d_with_indices (+ backward), avg_pool2d (+ backward),
// _adaptive_avg_pool2d (+ backward); max_pool2d and adaptive_avg_pool2d are
// composites in libember (api/src/native/nn.cpp).
//
// Note [CPU max pooling]
// Our own NCHW kernel rather than oneDNN's pooling: PyTorch's max_pool2d_with_indices returns
// int64 indices (h * W + w within the input plane), which oneDNN's training workspace does not
// give, and reordering NCHW to oneDNN's blocked layout and back would cost more than the pooling
// itself. Each (n, c) plane is pooled row by row; the outputs whose window lies inside the row
// (most of them) run a branch-free loop over the taps, the border outputs a general one.
//   - float32 on AVX-512 (stride 1 or 2 along W, no W dilation): intrinsics, 16 outputs per
//     vector with masked row ends (CNN rows are short: 13 outputs for 26 columns, which a
//     compiler-vectorized loop would leave to its scalar tail), stride-2 taps gathered by a
//     two-register permute. About the cost of a relu over the input (bench/nn).
//   - otherwise: the same loop in plain C++ with the tap count and stride as template constants
//     for 2x2/3x3 windows of stride 1/2, compiled per ISA (Loops.h) for the compiler to vectorize.
// Semantics are PyTorch's: a tap wins when it is greater than the current maximum or NaN, so
// the first maximum (and the last NaN) gives the index; padding never wins.
#include <immintrin.h>

#include <cmath>
#include <limits>
#include <tuple>

#include "NN.h"
#include "CPUKernels.h"
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

template <int KW, int SW, class T>
EMBER_ALWAYS_INLINE void max_plane_body(const PoolGeom& g, const T* __restrict in, T* __restrict out,
                                        int64_t* __restrict ind) {
  int64_t lo, hi;
  interior(g.W, g.kW, g.sW, g.pW, g.dW, g.oW, lo, hi);
  for (int64_t oh = 0; oh < g.oH; ++oh) {
    T* orow = out + oh * g.oW;
    int64_t* irow = ind + oh * g.oW;
    int64_t hs = oh * g.sH - g.pH;
    const int64_t he = std::min(hs + (g.kH - 1) * g.dH + 1, g.H);
    while (hs < 0) hs += g.dH;
    for (int64_t ow = 0; ow < g.oW; ++ow) {
      int64_t ws = ow * g.sW - g.pW;
      while (ws < 0) ws += g.dW;
      orow[ow] = -std::numeric_limits<T>::infinity();
      irow[ow] = hs * g.W + ws;
    }
    for (int64_t ih = hs; ih < he; ih += g.dH) {
      const T* r = in + ih * g.W;
      max_row<KW, SW>(r, ih * g.W, orow, irow, lo, hi, g.pW, g.kW, g.sW, g.dW);
      // Border outputs: only the taps inside the row.
      auto border = [&](int64_t ow) {
        T m = orow[ow];
        int64_t mi = irow[ow];
        for (int64_t kw = 0; kw < g.kW; ++kw) {
          const int64_t iw = ow * g.sW - g.pW + kw * g.dW;
          if (iw < 0 || iw >= g.W) continue;
          const T v = r[iw];
          if (v > m || v != v) m = v, mi = ih * g.W + iw;
        }
        orow[ow] = m;
        irow[ow] = mi;
      };
      for (int64_t ow = 0; ow < lo; ++ow) border(ow);
      for (int64_t ow = hi; ow < g.oW; ++ow) border(ow);
    }
  }
}

template <int KW, int SW, class T>
EMBER_NOINLINE void max_planes_baseline(const PoolGeom& g, const T* in, T* out, int64_t* ind, int64_t p0, int64_t p1) {
  for (int64_t p = p0; p < p1; ++p)
    max_plane_body<KW, SW>(g, in + p * g.H * g.W, out + p * g.oH * g.oW, ind + p * g.oH * g.oW);
}
#if defined(EMBER_CPU_MULTI_ISA)
template <int KW, int SW, class T>
EMBER_NOINLINE EMBER_CPU_TARGET_AVX2 void max_planes_avx2(const PoolGeom& g, const T* in, T* out, int64_t* ind,
                                                          int64_t p0, int64_t p1) {
  for (int64_t p = p0; p < p1; ++p)
    max_plane_body<KW, SW>(g, in + p * g.H * g.W, out + p * g.oH * g.oW, ind + p * g.oH * g.oW);
}
template <int KW, int SW, class T>
EMBER_NOINLINE EMBER_CPU_TARGET_AVX512 void max_planes_avx512(const PoolGeom& g, const T* in, T* out, int64_t* ind,
                                                              int64_t p0, int64_t p1) {
  for (int64_t p = p0; p < p1; ++p)
    max_plane_body<KW, SW>(g, in + p * g.H * g.W, out + p * g.oH * g.oW, ind + p * g.oH * g.oW);
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
EMBER_ALWAYS_INLINE void max_one(const PoolGeom& g, const float* in, int64_t oh, int64_t ow, float* out, int64_t* ind) {
  int64_t hs = oh * g.sH - g.pH, ws = ow * g.sW - g.pW;
  const int64_t he = std::min(hs + (g.kH - 1) * g.dH + 1, g.H), we = std::min(ws + (g.kW - 1) * g.dW + 1, g.W);
  while (hs < 0) hs += g.dH;
  while (ws < 0) ws += g.dW;
  float m = -std::numeric_limits<float>::infinity();
  int64_t mi = hs * g.W + ws;
  for (int64_t ih = hs; ih < he; ih += g.dH)
    for (int64_t iw = ws; iw < we; iw += g.dW) {
      const float v = in[ih * g.W + iw];
      if (v > m || v != v) m = v, mi = ih * g.W + iw;
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
  const int64_t HW = g.H * g.W, L = g.oH * g.oW;
  for (int64_t p = p0; p < p1; ++p) {
    const float* x = in + p * HW;
    float* o = out + p * L;
    int64_t* oi = ind + p * L;
    for (int64_t oh = 0; oh < g.oH; ++oh) {
      int64_t hs = oh * g.sH - g.pH;
      const int64_t he = std::min(hs + (g.kH - 1) * g.dH + 1, g.H);
      while (hs < 0) hs += g.dH;
      for (int64_t ow = 0; ow < lo; ++ow) max_one(g, x, oh, ow, o + oh * g.oW + ow, oi + oh * g.oW + ow);
      for (int64_t ow = hi; ow < g.oW; ++ow) max_one(g, x, oh, ow, o + oh * g.oW + ow, oi + oh * g.oW + ow);
      for (int64_t o0 = lo; o0 < hi; o0 += 16) {
        const int64_t n = std::min<int64_t>(16, hi - o0);
        const auto k = static_cast<__mmask16>((1u << n) - 1);
        const int64_t span = (n - 1) * g.sW + 1;  // input elements one tap reads
        const auto klo = static_cast<__mmask16>(span >= 16 ? 0xffffu : (1u << span) - 1);
        const auto khi = static_cast<__mmask16>(span <= 16 ? 0u : (1u << (span - 16)) - 1);
        const int64_t iw0 = o0 * g.sW - g.pW;
        __m512 m = neg_inf;
        __m512i mi = _mm512_add_epi32(_mm512_set1_epi32(static_cast<int32_t>(hs * g.W + iw0)), lane_step);
        for (int64_t ih = hs; ih < he; ih += g.dH) {
          const float* r = x + ih * g.W + iw0;
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
                _mm512_add_epi32(_mm512_set1_epi32(static_cast<int32_t>(ih * g.W + iw0 + kw)), lane_step);
            mi = _mm512_mask_mov_epi32(mi, take, cand);
          }
        }
        _mm512_mask_storeu_ps(o + oh * g.oW + o0, k, m);
        int64_t* dst = oi + oh * g.oW + o0;
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
    if (cpu_isa() == Isa::Avx512 && g.dW == 1 && (g.sW == 1 || g.sW == 2) && g.H * g.W < (int64_t{1} << 31))
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
  for_planes(g.planes, g.H * g.W, [&](int64_t p0, int64_t p1) { max_planes_range(g, in, out, ind, p0, p1); });
}

// ---- average pooling -------------------------------------------------------------------------

struct AvgParams {
  bool count_include_pad;
  std::optional<int64_t> divisor_override;
};

// Calls f(output offset, hs, he, ws, we, divisor) for every output of a plane with a non-empty
// clamped window (PyTorch's window and divisor rules); empty windows give 0 through f's caller.
template <class F>
void avg_windows(const PoolGeom& g, const AvgParams& a, F&& f) {
  for (int64_t oh = 0; oh < g.oH; ++oh) {
    for (int64_t ow = 0; ow < g.oW; ++ow) {
      int64_t hs = oh * g.sH - g.pH, ws = ow * g.sW - g.pW;
      int64_t he = std::min(hs + g.kH, g.H + g.pH), we = std::min(ws + g.kW, g.W + g.pW);
      const int64_t pool_size = (he - hs) * (we - ws);
      hs = std::max<int64_t>(hs, 0), ws = std::max<int64_t>(ws, 0);
      he = std::min(he, g.H), we = std::min(we, g.W);
      const int64_t div = a.divisor_override    ? *a.divisor_override
                          : a.count_include_pad ? pool_size
                                                : (he - hs) * (we - ws);
      f(oh * g.oW + ow, hs, he, ws, we, div);
    }
  }
}

template <class T>
void avg_forward(const PoolGeom& g, const AvgParams& a, const T* in, T* out) {
  for_planes(g.planes, g.H * g.W, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const T* x = in + p * g.H * g.W;
      T* o = out + p * g.oH * g.oW;
      avg_windows(g, a, [&](int64_t i, int64_t hs, int64_t he, int64_t ws, int64_t we, int64_t div) {
        T s = 0;
        for (int64_t ih = hs; ih < he; ++ih)
          for (int64_t iw = ws; iw < we; ++iw) s += x[ih * g.W + iw];
        o[i] = hs < he && ws < we ? s / static_cast<T>(div) : T(0);
      });
    }
  });
}

template <class T>
void avg_backward(const PoolGeom& g, const AvgParams& a, const T* go, T* gi) {
  for_planes(g.planes, g.H * g.W, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      T* x = gi + p * g.H * g.W;
      const T* o = go + p * g.oH * g.oW;
      avg_windows(g, a, [&](int64_t i, int64_t hs, int64_t he, int64_t ws, int64_t we, int64_t div) {
        const T v = o[i] / static_cast<T>(div);
        for (int64_t ih = hs; ih < he; ++ih)
          for (int64_t iw = ws; iw < we; ++iw) x[ih * g.W + iw] += v;
      });
    }
  });
}

// ---- adaptive average pooling ----------------------------------------------------------------

int64_t start_index(int64_t i, int64_t out, int64_t in) { return (i * in) / out; }
int64_t end_index(int64_t i, int64_t out, int64_t in) { return ((i + 1) * in + out - 1) / out; }

template <class T>
void adaptive_forward(int64_t planes, int64_t H, int64_t W, int64_t oH, int64_t oW, const T* in, T* out) {
  for_planes(planes, H * W, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const T* x = in + p * H * W;
      for (int64_t oh = 0; oh < oH; ++oh) {
        const int64_t hs = start_index(oh, oH, H), he = end_index(oh, oH, H);
        for (int64_t ow = 0; ow < oW; ++ow) {
          const int64_t ws = start_index(ow, oW, W), we = end_index(ow, oW, W);
          T s = 0;
          for (int64_t ih = hs; ih < he; ++ih)
            for (int64_t iw = ws; iw < we; ++iw) s += x[ih * W + iw];
          out[(p * oH + oh) * oW + ow] = s / static_cast<T>((he - hs) * (we - ws));
        }
      }
    }
  });
}

template <class T>
void adaptive_backward(int64_t planes, int64_t H, int64_t W, int64_t oH, int64_t oW, const T* go, T* gi) {
  for_planes(planes, H * W, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      T* x = gi + p * H * W;
      for (int64_t oh = 0; oh < oH; ++oh) {
        const int64_t hs = start_index(oh, oH, H), he = end_index(oh, oH, H);
        for (int64_t ow = 0; ow < oW; ++ow) {
          const int64_t ws = start_index(ow, oW, W), we = end_index(ow, oW, W);
          const T v = go[(p * oH + oh) * oW + ow] / static_cast<T>((he - hs) * (we - ws));
          for (int64_t ih = hs; ih < he; ++ih)
            for (int64_t iw = ws; iw < we; ++iw) x[ih * W + iw] += v;
        }
      }
    }
  });
}

}  // namespace

// ---- CPU kernels ---------------------------------------------------------------------------

std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                                   IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  const char* op = "max_pool2d_with_indices";
  const PoolGeom g = native::nn::check_pool(op, kCPU, self, kernel_size, stride, padding, dilation, ceil_mode);
  const ScalarType ct = nn::compute_float(self, op, "self");
  const Tensor x = nn::compute_input(self, ct);
  const auto shape = pooled_shape(self, g.oH, g.oW);
  Tensor out = empty_cpu(shape, ct), ind = empty_cpu(shape, kInt64);
  if (out.numel() > 0) {
    if (ct == kFloat32)
      max_planes(g, x.data_ptr<float>(), out.data_ptr<float>(), ind.data_ptr<int64_t>());
    else
      max_planes(g, x.data_ptr<double>(), out.data_ptr<double>(), ind.data_ptr<int64_t>());
  }
  return {nn::to_dtype_of(out, self.dtype()), ind};
}

Tensor max_pool2d_with_indices_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                        IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                        const Tensor& indices) {
  const char* op = "max_pool2d_with_indices_backward";
  const PoolGeom g = native::nn::check_max_pool_backward(op, kCPU, grad_output, self, kernel_size, stride, padding,
                                                         dilation, ceil_mode, indices);
  const ScalarType ct = nn::compute_float(self, op, "self");
  const Tensor go = nn::compute_input(grad_output, ct), idx = nn::compute_input(indices, kInt64);
  Tensor gi = empty_cpu(self.sizes(), ct);
  cpu::zero_(gi);
  const int64_t HW = g.H * g.W, L = g.oH * g.oW;
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
  if (ct == kFloat32)
    scatter(gi.data_ptr<float>(), go.data_ptr<float>());
  else
    scatter(gi.data_ptr<double>(), go.data_ptr<double>());
  return nn::to_dtype_of(gi, self.dtype());
}

Tensor avg_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override) {
  const char* op = "avg_pool2d";
  const PoolGeom g =
      native::nn::check_avg_pool(op, kCPU, self, kernel_size, stride, padding, ceil_mode, divisor_override);
  const ScalarType ct = nn::compute_float(self, op, "self");
  const Tensor x = nn::compute_input(self, ct);
  Tensor out = empty_cpu(pooled_shape(self, g.oH, g.oW), ct);
  const AvgParams a{count_include_pad, divisor_override};
  if (out.numel() > 0) {
    if (ct == kFloat32)
      avg_forward(g, a, x.data_ptr<float>(), out.data_ptr<float>());
    else
      avg_forward(g, a, x.data_ptr<double>(), out.data_ptr<double>());
  }
  return nn::to_dtype_of(out, self.dtype());
}

Tensor avg_pool2d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                           IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                           std::optional<int64_t> divisor_override) {
  const char* op = "avg_pool2d_backward";
  const PoolGeom g =
      native::nn::check_avg_pool(op, kCPU, self, kernel_size, stride, padding, ceil_mode, divisor_override);
  native::nn::check_pool_grad(op, kCPU, grad_output, self, pooled_shape(self, g.oH, g.oW));
  const ScalarType ct = nn::compute_float(self, op, "self");
  const Tensor go = nn::compute_input(grad_output, ct);
  Tensor gi = empty_cpu(self.sizes(), ct);
  cpu::zero_(gi);
  const AvgParams a{count_include_pad, divisor_override};
  if (go.numel() > 0) {
    if (ct == kFloat32)
      avg_backward(g, a, go.data_ptr<float>(), gi.data_ptr<float>());
    else
      avg_backward(g, a, go.data_ptr<double>(), gi.data_ptr<double>());
  }
  return nn::to_dtype_of(gi, self.dtype());
}

Tensor _adaptive_avg_pool2d(const Tensor& self, IntArrayRef output_size) {
  const char* op = "adaptive_avg_pool2d";
  const nn::Pair o = native::nn::check_adaptive_pool(op, kCPU, self, output_size);
  const ScalarType ct = nn::compute_float(self, op, "self");
  const int64_t H = self.size(-2), W = self.size(-1), oH = o.h, oW = o.w;
  const Tensor x = nn::compute_input(self, ct);
  Tensor out = empty_cpu(pooled_shape(self, oH, oW), ct);
  const int64_t planes = self.numel() / (H * W);
  if (out.numel() > 0) {
    if (ct == kFloat32)
      adaptive_forward(planes, H, W, oH, oW, x.data_ptr<float>(), out.data_ptr<float>());
    else
      adaptive_forward(planes, H, W, oH, oW, x.data_ptr<double>(), out.data_ptr<double>());
  }
  return nn::to_dtype_of(out, self.dtype());
}

Tensor _adaptive_avg_pool2d_backward(const Tensor& grad_output, const Tensor& self) {
  const char* op = "adaptive_avg_pool2d_backward";
  const nn::Pair o = native::nn::check_adaptive_pool_backward(op, kCPU, grad_output, self);
  const int64_t H = self.size(-2), W = self.size(-1), oH = o.h, oW = o.w;
  const ScalarType ct = nn::compute_float(self, op, "self");
  const Tensor go = nn::compute_input(grad_output, ct);
  Tensor gi = empty_cpu(self.sizes(), ct);
  cpu::zero_(gi);
  const int64_t planes = self.numel() / (H * W);
  if (go.numel() > 0) {
    if (ct == kFloat32)
      adaptive_backward(planes, H, W, oH, oW, go.data_ptr<float>(), gi.data_ptr<float>());
    else
      adaptive_backward(planes, H, W, oH, oW, go.data_ptr<double>(), gi.data_ptr<double>());
  }
  return nn::to_dtype_of(gi, self.dtype());
}



}  // namespace ember::cpu
