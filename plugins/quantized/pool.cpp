// QuantizedCPU pools on the integers: max_pool2d, avg_pool2d and adaptive_avg_pool2d.
//
// Note [Quantized pools]
// ~~~~~~~~~~~~~~~~~~~~~~
// The output keeps the input's (per-tensor) quantizer, and is channels-last when the input is
// (NHWC memory, NCHW sizes), as in LibTorch, whose two layouts run different kernels. Max is
// exact. The averages reproduce LibTorch 1.13's integer arithmetic bit for bit, including its
// rounding, which differs between the layouts on ties: with S = the window's sum of integers
// minus count * zp and d the divisor,
//   avg_pool2d, NCHW:                   y = clamp(nearbyint(float(S) * float(1 / d) + zp))
//   avg_pool2d and adaptive, channels-last: y = clamp(zp + nearbyint(float(S) * float(1 / d)))
//   adaptive_avg_pool2d, NCHW:          y = nearbyint(float(sum) * (1.0f / kH / kW))
// (checked against LibTorch on 260K random windows of every kind: no difference).
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "QTensorImpl.h"
#include "ember/core/Exception.h"
#include "ember/core/Parallel.h"
#include "ember/generated/Functions.h"
#include "ember/generated/QuantizedCPUFunctions.h"
#include "ember/native/NNRules.h"

namespace ember::quantizedcpu {
using namespace ember::qbackend;
using native::nn::PoolGeom;

namespace {

const PerTensorAffineQuantizer& pool_quantizer(const Tensor& self, const char* op) {
  const QTensorImpl& q = qimpl(self, op);
  EMBER_CHECK_NOT_IMPLEMENTED(q.quantizer()->qscheme() == kPerTensorAffine, "[{}] quantized tensors of qscheme {}", op,
                              to_string(q.quantizer()->qscheme()));
  return static_cast<const PerTensorAffineQuantizer&>(*q.quantizer());
}

// A float stand-in with self's sizes (one element, zero strides) for the shared shape checks,
// which also check that the input is floating.
Tensor shape_stand_in(const Tensor& self) {
  return self.defined() ? ember::empty({}, TensorOptions(kFloat32)).expand(self.sizes()) : Tensor();
}

bool is_channels_last(const Tensor& self) { return self.dim() == 4 && self.permute({0, 2, 3, 1}).is_contiguous(); }

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
    const double r = std::nearbyint(static_cast<double>(u));
    return static_cast<T>(r < lo ? lo : (r > hi ? hi : r));
  }
}

// A plain integer accumulator wide enough for a window of T.
template <class T>
using Acc = std::conditional_t<sizeof(T) == 1, int32_t, int64_t>;

// The window [hs, he) x [ws, we) of an average, clipped to the input, and LibTorch's divisor.
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

// Output geometry of an NCHW (N*C planes) or channels-last input: nb batches of c channels.
struct Planes {
  int64_t nb, c;
};
Planes planes_of(const Tensor& self) {
  return self.dim() == 4 ? Planes{self.size(0), self.size(1)} : Planes{1, self.size(0)};
}

// ---- max ----

template <class T>
void max_nchw(const PoolGeom& g, const T* x, T* y) {
  const int64_t HW = g.H * g.W, L = g.oH * g.oW;
  parallel_for(0, g.planes, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(HW, 1)), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const T* xp = x + p * HW;
      T* yp = y + p * L;
      for (int64_t oh = 0; oh < g.oH; ++oh)
        for (int64_t ow = 0; ow < g.oW; ++ow) {
          T m = std::numeric_limits<T>::lowest();
          for (int64_t i = 0; i < g.kH; ++i) {
            const int64_t ih = oh * g.sH - g.pH + i * g.dH;
            if (ih < 0 || ih >= g.H) continue;
            for (int64_t j = 0; j < g.kW; ++j) {
              const int64_t iw = ow * g.sW - g.pW + j * g.dW;
              if (iw >= 0 && iw < g.W) m = std::max(m, xp[ih * g.W + iw]);
            }
          }
          yp[oh * g.oW + ow] = m;
        }
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

template <class T>
void max_nhwc(const PoolGeom& g, int64_t nb, int64_t c, const T* x, T* y) {
  for_nhwc_rows(g, nb, c, [&](int64_t n, int64_t oh) {
    for (int64_t ow = 0; ow < g.oW; ++ow) {
      T* __restrict__ o = y + ((n * g.oH + oh) * g.oW + ow) * c;
      std::fill(o, o + c, std::numeric_limits<T>::lowest());
      for (int64_t i = 0; i < g.kH; ++i) {
        const int64_t ih = oh * g.sH - g.pH + i * g.dH;
        if (ih < 0 || ih >= g.H) continue;
        for (int64_t j = 0; j < g.kW; ++j) {
          const int64_t iw = ow * g.sW - g.pW + j * g.dW;
          if (iw < 0 || iw >= g.W) continue;
          const T* __restrict__ in = x + ((n * g.H + ih) * g.W + iw) * c;
          for (int64_t k = 0; k < c; ++k) o[k] = std::max(o[k], in[k]);
        }
      }
    }
  });
}

// ---- averages ----

template <class T>
void avg_nchw(const PoolGeom& g, bool cip, std::optional<int64_t> div, int64_t zp, const T* x, T* y) {
  const int64_t HW = g.H * g.W, L = g.oH * g.oW;
  const auto zf = static_cast<float>(zp);
  parallel_for(0, g.planes, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(HW, 1)), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const T* xp = x + p * HW;
      T* yp = y + p * L;
      for (int64_t oh = 0; oh < g.oH; ++oh)
        for (int64_t ow = 0; ow < g.oW; ++ow) {
          const AvgWindow w = avg_window(g, oh, ow, cip, div);
          int64_t s = 0;
          for (int64_t ih = w.hs; ih < w.he; ++ih)
            for (int64_t iw = w.ws; iw < w.we; ++iw) s += xp[ih * g.W + iw];
          s -= (w.he - w.hs) * (w.we - w.ws) * zp;
          const auto m = static_cast<float>(1.0 / static_cast<double>(w.divisor));
          yp[oh * g.oW + ow] = round_clamp<T>(static_cast<float>(s) * m + zf);
        }
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
    return static_cast<T>(r < lo ? lo : (r > hi ? hi : r));
  }
}

// The channels-last average over the window rows [hs, he) x columns [ws, we) of batch n, for all
// c channels at once: o[k] = clamp(zp + nearbyint(float(sum_k - count * zp) * m)).
template <class T>
inline void avg_window_nhwc(const T* x, int64_t H, int64_t W, int64_t c, int64_t n, int64_t hs, int64_t he, int64_t ws,
                            int64_t we, float m, int32_t zp, Acc<T>* __restrict__ acc, T* __restrict__ o) {
  const auto init = static_cast<Acc<T>>(-(he - hs) * (we - ws) * static_cast<int64_t>(zp));
  std::fill(acc, acc + c, init);
  for (int64_t ih = hs; ih < he; ++ih)
    for (int64_t iw = ws; iw < we; ++iw) {
      const T* __restrict__ in = x + ((n * H + ih) * W + iw) * c;
      for (int64_t k = 0; k < c; ++k) acc[k] += in[k];
    }
  for (int64_t k = 0; k < c; ++k) o[k] = round_add_clamp<T>(static_cast<float>(acc[k]) * m, zp);
}

template <class T>
void avg_nhwc(const PoolGeom& g, int64_t nb, int64_t c, bool cip, std::optional<int64_t> div, int64_t zp, const T* x,
              T* y) {
  for_nhwc_rows(g, nb, c, [&](int64_t n, int64_t oh) {
    std::vector<Acc<T>> acc(static_cast<size_t>(c));
    for (int64_t ow = 0; ow < g.oW; ++ow) {
      const AvgWindow w = avg_window(g, oh, ow, cip, div);
      const float m = 1.0f / static_cast<float>(w.divisor);
      avg_window_nhwc(x, g.H, g.W, c, n, w.hs, w.he, w.ws, w.we, m, static_cast<int32_t>(zp), acc.data(),
                      y + ((n * g.oH + oh) * g.oW + ow) * c);
    }
  });
}

// Adaptive windows: [floor(i * in / out), ceil((i + 1) * in / out)).
inline int64_t start_index(int64_t i, int64_t out, int64_t in) { return (i * in) / out; }
inline int64_t end_index(int64_t i, int64_t out, int64_t in) { return ((i + 1) * in + out - 1) / out; }

template <class T>
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
          for (int64_t ih = hs; ih < he; ++ih)
            for (int64_t iw = ws; iw < we; ++iw) s += xp[ih * W + iw];
          y[(p * oH + oh) * oW + ow] = round_clamp<T>(static_cast<float>(s) * (rh / static_cast<float>(we - ws)));
        }
      }
    }
  });
}

template <class T>
void adaptive_nhwc(int64_t nb, int64_t c, int64_t H, int64_t W, int64_t oH, int64_t oW, int64_t zp, const T* x, T* y) {
  const int64_t work = std::max<int64_t>(1, oW * c * ((H + oH - 1) / oH + 1) * ((W + oW - 1) / oW + 1));
  parallel_for(0, nb * oH, std::max<int64_t>(1, kGrainSize / work), [&](int64_t r0, int64_t r1) {
    std::vector<Acc<T>> acc(static_cast<size_t>(c));
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
  (void)pool_quantizer(self, op);
  const Planes pl = planes_of(self);
  const bool cl = is_channels_last(self);
  Tensor y = cl ? new_qtensor({pl.nb, g.oH, g.oW, pl.c}, self.dtype(), qi.quantizer())
                : new_qtensor(native::nn::pooled_shape(self, g.oH, g.oW), self.dtype(), qi.quantizer());
  if (y.numel() > 0) {
    const Tensor xi = cl ? int_view(self) : int_view(self).contiguous();
    dispatch_int(self.dtype(), [&](auto t) {
      using T = decltype(t);
      if (cl)
        max_nhwc(g, pl.nb, pl.c, static_cast<const T*>(xi.data_ptr()), static_cast<T*>(y.data_ptr()));
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
  const int64_t zp = pool_quantizer(self, op).zero_point;
  const Planes pl = planes_of(self);
  const bool cl = is_channels_last(self);
  Tensor y = cl ? new_qtensor({pl.nb, g.oH, g.oW, pl.c}, self.dtype(), qi.quantizer())
                : new_qtensor(native::nn::pooled_shape(self, g.oH, g.oW), self.dtype(), qi.quantizer());
  if (y.numel() > 0) {
    const Tensor xi = cl ? int_view(self) : int_view(self).contiguous();
    dispatch_int(self.dtype(), [&](auto t) {
      using T = decltype(t);
      const T* x = static_cast<const T*>(xi.data_ptr());
      if (cl)
        avg_nhwc(g, pl.nb, pl.c, count_include_pad, divisor_override, zp, x, static_cast<T*>(y.data_ptr()));
      else
        avg_nchw(g, count_include_pad, divisor_override, zp, x, static_cast<T*>(y.data_ptr()));
    });
  }
  return cl ? y.permute({0, 3, 1, 2}) : y;
}

Tensor _adaptive_avg_pool2d(const Tensor& self, IntArrayRef output_size) {
  const char* op = "adaptive_avg_pool2d";
  const native::nn::Pair o = native::nn::check_adaptive_pool(op, kCPU, shape_stand_in(self), output_size);
  const QTensorImpl& qi = qimpl(self, op);
  const int64_t zp = pool_quantizer(self, op).zero_point;
  const Planes pl = planes_of(self);
  const int64_t H = self.size(-2), W = self.size(-1);
  const bool cl = is_channels_last(self);
  Tensor y = cl ? new_qtensor({pl.nb, o.h, o.w, pl.c}, self.dtype(), qi.quantizer())
                : new_qtensor(native::nn::pooled_shape(self, o.h, o.w), self.dtype(), qi.quantizer());
  if (y.numel() > 0) {
    const Tensor xi = cl ? int_view(self) : int_view(self).contiguous();
    dispatch_int(self.dtype(), [&](auto t) {
      using T = decltype(t);
      const T* x = static_cast<const T*>(xi.data_ptr());
      if (cl)
        adaptive_nhwc(pl.nb, pl.c, H, W, o.h, o.w, zp, x, static_cast<T*>(y.data_ptr()));
      else
        adaptive_nchw(pl.nb * pl.c, H, W, o.h, o.w, x, static_cast<T*>(y.data_ptr()));
    });
  }
  return cl ? y.permute({0, 3, 1, 2}) : y;
}

}  // namespace ember::quantizedcpu
