// Resampling on the CPU: upsample_{nearest,linear,bilinear,bicubic,trilinear}{1,2,3}d (+ .vec,
// .out and backward), grid_sampler_2d (+ .out and backward), im2col and col2im (+ .out).
//
// Note [CPU upsample kernels]
// The index and weight tables are ember/native/ResampleTables.h's (Note [Upsample tables]), in
// the compute dtype (float32 for float16/bfloat16/float32, float64 for float64). The forward
// reads, per output row (a plane, a D index and an H index), the KD * KH input rows it needs and
// accumulates each row's KW taps along W: a loop over the row whose gathers the compiler
// vectorizes (compiled per ISA, Loops.h). Rows are split over the intra-op threads. Nearest is a
// pure gather in the input's own dtype (uint8 too). The backward scatters grad_output through the
// same tables, one plane per task (planes never share an input element). Inputs of any layout are
// made contiguous; outputs are contiguous (Ember has no channels-last memory format).
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <tuple>
#include <vector>

#include "CPUKernels.h"
#include "DtypeVisit.h"
#include "NN.h"
#include "ember/native/ResampleRules.h"
#include "ember/native/ResampleTables.h"
#include "ember/native/Rules.h"

namespace ember::cpu {
namespace {

namespace rs = native::resample;
using rs::UpsampleGeom;
using Scales = std::array<std::optional<double>, 3>;

using rs::area_scale;
using rs::Interp;
using rs::interp_tables;
using rs::nearest_table;
using rs::Table;

// ---- nearest -----------------------------------------------------------------------------------

// Output rows [r0, r1) (row r = (plane, od, oh)) gathered from their source rows.
template <class S>
EMBER_ALWAYS_INLINE void nearest_rows_body(const UpsampleGeom& g, const int64_t* id, const int64_t* ih,
                                           const int64_t* iw, const S* __restrict in, S* __restrict out, int64_t r0,
                                           int64_t r1) {
  const int64_t oD = g.out[0], oH = g.out[1], oW = g.out[2];
  const int64_t ID = g.in[0], IH = g.in[1], IW = g.in[2];
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t p = r / (oD * oH), rem = r % (oD * oH), od = rem / oH, oh = rem % oH;
    const S* src = in + ((p * ID + id[od]) * IH + ih[oh]) * IW;
    S* dst = out + r * oW;
    for (int64_t ow = 0; ow < oW; ++ow) dst[ow] = src[iw[ow]];
  }
}

template <class S>
EMBER_NOINLINE void nearest_rows_baseline(const UpsampleGeom& g, const int64_t* id, const int64_t* ih,
                                          const int64_t* iw, const S* in, S* out, int64_t r0, int64_t r1) {
  nearest_rows_body(g, id, ih, iw, in, out, r0, r1);
}
#if defined(EMBER_CPU_MULTI_ISA)
template <class S>
EMBER_NOINLINE EMBER_CPU_TARGET_AVX512 void nearest_rows_avx512(const UpsampleGeom& g, const int64_t* id,
                                                                const int64_t* ih, const int64_t* iw, const S* in,
                                                                S* out, int64_t r0, int64_t r1) {
  nearest_rows_body(g, id, ih, iw, in, out, r0, r1);
}
#endif

template <class S>
void nearest_forward(const UpsampleGeom& g, const S* in, S* out) {
  const auto id = nearest_table(g.in[0], g.out[0], g.scales[0]), ih = nearest_table(g.in[1], g.out[1], g.scales[1]),
             iw = nearest_table(g.in[2], g.out[2], g.scales[2]);
  const int64_t rows = g.planes() * g.out[0] * g.out[1];
  parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / g.out[2]), [&](int64_t r0, int64_t r1) {
#if defined(EMBER_CPU_MULTI_ISA)
    if (cpu_isa() == Isa::Avx512) return nearest_rows_avx512(g, id.data(), ih.data(), iw.data(), in, out, r0, r1);
#endif
    nearest_rows_baseline(g, id.data(), ih.data(), iw.data(), in, out, r0, r1);
  });
}

template <class T>
void nearest_backward(const UpsampleGeom& g, const T* go, T* gi) {
  const auto id = nearest_table(g.in[0], g.out[0], g.scales[0]), ih = nearest_table(g.in[1], g.out[1], g.scales[1]),
             iw = nearest_table(g.in[2], g.out[2], g.scales[2]);
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2], out_plane = g.out[0] * g.out[1] * g.out[2];
  parallel_for(0, g.planes(), std::max<int64_t>(1, kGrainSize / std::max<int64_t>(out_plane, 1)),
               [&](int64_t p0, int64_t p1) {
                 for (int64_t p = p0; p < p1; ++p) {
                   T* dst = gi + p * in_plane;
                   const T* src = go + p * out_plane;
                   for (int64_t od = 0; od < g.out[0]; ++od)
                     for (int64_t oh = 0; oh < g.out[1]; ++oh) {
                       T* row = dst + (id[static_cast<size_t>(od)] * g.in[1] + ih[static_cast<size_t>(oh)]) * g.in[2];
                       const T* o = src + (od * g.out[1] + oh) * g.out[2];
                       for (int64_t ow = 0; ow < g.out[2]; ++ow) row[iw[static_cast<size_t>(ow)]] += o[ow];
                     }
                 }
               });
}

// ---- linear and cubic --------------------------------------------------------------------------

// Output rows [r0, r1): for each of the KD * KH source rows, out_row += w_d * w_h * (taps along W).
template <int KW, class T>
EMBER_ALWAYS_INLINE void interp_rows_body(const UpsampleGeom& g, const std::array<Table<T>, 3>& t,
                                          const T* __restrict in, T* __restrict out, int64_t r0, int64_t r1) {
  const int64_t oD = g.out[0], oH = g.out[1], oW = g.out[2];
  const int64_t ID = g.in[0], IH = g.in[1], IW = g.in[2];
  const int64_t kd_n = t[0].taps, kh_n = t[1].taps;
  const int64_t* __restrict iw = t[2].index.data();
  const T* __restrict ww = t[2].weight.data();
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t p = r / (oD * oH), rem = r % (oD * oH), od = rem / oH, oh = rem % oH;
    T* __restrict dst = out + r * oW;
    bool first = true;
    for (int64_t kd = 0; kd < kd_n; ++kd) {
      for (int64_t kh = 0; kh < kh_n; ++kh) {
        const int64_t sd = t[0].index[static_cast<size_t>(kd * oD + od)];
        const int64_t sh = t[1].index[static_cast<size_t>(kh * oH + oh)];
        const T w = t[0].weight[static_cast<size_t>(kd * oD + od)] * t[1].weight[static_cast<size_t>(kh * oH + oh)];
        const T* __restrict src = in + ((p * ID + sd) * IH + sh) * IW;
        if (first) {
          for (int64_t ow = 0; ow < oW; ++ow) {
            T s = ww[ow] * src[iw[ow]];
            for (int64_t k = 1; k < KW; ++k) s += ww[k * oW + ow] * src[iw[k * oW + ow]];
            dst[ow] = w * s;
          }
          first = false;
        } else {
          for (int64_t ow = 0; ow < oW; ++ow) {
            T s = ww[ow] * src[iw[ow]];
            for (int64_t k = 1; k < KW; ++k) s += ww[k * oW + ow] * src[iw[k * oW + ow]];
            dst[ow] += w * s;
          }
        }
      }
    }
  }
}

template <int KW, class T>
EMBER_NOINLINE void interp_rows_baseline(const UpsampleGeom& g, const std::array<Table<T>, 3>& t, const T* in, T* out,
                                         int64_t r0, int64_t r1) {
  interp_rows_body<KW>(g, t, in, out, r0, r1);
}
#if defined(EMBER_CPU_MULTI_ISA)
template <int KW, class T>
EMBER_NOINLINE EMBER_CPU_TARGET_AVX2 void interp_rows_avx2(const UpsampleGeom& g, const std::array<Table<T>, 3>& t,
                                                           const T* in, T* out, int64_t r0, int64_t r1) {
  interp_rows_body<KW>(g, t, in, out, r0, r1);
}
template <int KW, class T>
EMBER_NOINLINE EMBER_CPU_TARGET_AVX512 void interp_rows_avx512(const UpsampleGeom& g, const std::array<Table<T>, 3>& t,
                                                               const T* in, T* out, int64_t r0, int64_t r1) {
  interp_rows_body<KW>(g, t, in, out, r0, r1);
}
#endif

template <int KW, class T>
void interp_forward(const UpsampleGeom& g, const std::array<Table<T>, 3>& t, const T* in, T* out) {
  const int64_t rows = g.planes() * g.out[0] * g.out[1];
  const int64_t work = g.out[2] * KW * t[0].taps * t[1].taps;
  parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / work), [&](int64_t r0, int64_t r1) {
#if defined(EMBER_CPU_MULTI_ISA)
    if (cpu_isa() == Isa::Avx512) return interp_rows_avx512<KW>(g, t, in, out, r0, r1);
    if (cpu_isa() == Isa::Avx2) return interp_rows_avx2<KW>(g, t, in, out, r0, r1);
#endif
    interp_rows_baseline<KW>(g, t, in, out, r0, r1);
  });
}

template <class T>
void interp_backward(const UpsampleGeom& g, const std::array<Table<T>, 3>& t, const T* go, T* gi) {
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2], out_plane = g.out[0] * g.out[1] * g.out[2];
  const int64_t oD = g.out[0], oH = g.out[1], oW = g.out[2], kw_n = t[2].taps;
  parallel_for(0, g.planes(), std::max<int64_t>(1, kGrainSize / std::max<int64_t>(out_plane, 1)),
               [&](int64_t p0, int64_t p1) {
                 for (int64_t p = p0; p < p1; ++p) {
                   T* dst = gi + p * in_plane;
                   for (int64_t od = 0; od < oD; ++od)
                     for (int64_t oh = 0; oh < oH; ++oh) {
                       const T* o = go + p * out_plane + (od * oH + oh) * oW;
                       for (int64_t kd = 0; kd < t[0].taps; ++kd)
                         for (int64_t kh = 0; kh < t[1].taps; ++kh) {
                           const size_t jd = static_cast<size_t>(kd * oD + od), jh = static_cast<size_t>(kh * oH + oh);
                           const T w = t[0].weight[jd] * t[1].weight[jh];
                           T* row = dst + (t[0].index[jd] * g.in[1] + t[1].index[jh]) * g.in[2];
                           for (int64_t ow = 0; ow < oW; ++ow) {
                             const T v = w * o[ow];
                             for (int64_t k = 0; k < kw_n; ++k) {
                               const auto j = static_cast<size_t>(k * oW + ow);
                               row[t[2].index[j]] += t[2].weight[j] * v;
                             }
                           }
                         }
                     }
                 }
               });
}

// ---- the upsample entry points -----------------------------------------------------------------

Tensor upsample_nearest(const char* op, const Tensor& self, IntArrayRef output_size, int64_t nd, Scales scales) {
  const UpsampleGeom g = rs::check_upsample(op, kCPU, self, output_size, nd, scales, true);
  const Tensor x = self.is_contiguous() ? self : materialize(self);
  Tensor out = empty_cpu(g.output_sizes(), self.dtype());
  if (out.numel() == 0) return out;
  visit_dtype(self.dtype(), op, [&](auto tag) {
    using S = typename decltype(tag)::type;
    nearest_forward<S>(g, x.data_ptr<S>(), out.data_ptr<S>());
  });
  return out;
}

Tensor upsample_nearest_backward(const char* op, const Tensor& grad_output, IntArrayRef output_size,
                                 IntArrayRef input_size, int64_t nd, Scales scales) {
  const UpsampleGeom g = rs::check_upsample_backward(op, kCPU, grad_output, output_size, input_size, nd, scales);
  const ScalarType ct = nn::compute_float(grad_output, op, "grad_output");
  const Tensor go = nn::compute_input(grad_output, ct);
  Tensor gi = empty_cpu(g.input_sizes(), ct);
  cpu::zero_(gi);
  if (go.numel() > 0) {
    if (ct == kFloat32)
      nearest_backward(g, go.data_ptr<float>(), gi.data_ptr<float>());
    else
      nearest_backward(g, go.data_ptr<double>(), gi.data_ptr<double>());
  }
  return nn::to_dtype_of(gi, grad_output.dtype());
}

template <class T>
void interp_forward_any(const UpsampleGeom& g, Interp mode, bool align_corners, const T* in, T* out) {
  const auto t = interp_tables<T>(g, mode, align_corners);
  if (mode == Interp::Linear)
    interp_forward<2>(g, t, in, out);
  else
    interp_forward<4>(g, t, in, out);
}

Tensor upsample_interp(const char* op, const Tensor& self, IntArrayRef output_size, int64_t nd, Interp mode,
                       bool align_corners, Scales scales) {
  const UpsampleGeom g = rs::check_upsample(op, kCPU, self, output_size, nd, scales, false);
  const ScalarType ct = nn::compute_float(self, op, "self");
  const Tensor x = nn::compute_input(self, ct);
  Tensor out = empty_cpu(g.output_sizes(), ct);
  if (out.numel() > 0) {
    if (ct == kFloat32)
      interp_forward_any(g, mode, align_corners, x.data_ptr<float>(), out.data_ptr<float>());
    else
      interp_forward_any(g, mode, align_corners, x.data_ptr<double>(), out.data_ptr<double>());
  }
  return nn::to_dtype_of(out, self.dtype());
}

Tensor upsample_interp_backward(const char* op, const Tensor& grad_output, IntArrayRef output_size,
                                IntArrayRef input_size, int64_t nd, Interp mode, bool align_corners, Scales scales) {
  const UpsampleGeom g = rs::check_upsample_backward(op, kCPU, grad_output, output_size, input_size, nd, scales);
  const ScalarType ct = nn::compute_float(grad_output, op, "grad_output");
  const Tensor go = nn::compute_input(grad_output, ct);
  Tensor gi = empty_cpu(g.input_sizes(), ct);
  cpu::zero_(gi);
  if (go.numel() > 0) {
    if (ct == kFloat32)
      interp_backward(g, interp_tables<float>(g, mode, align_corners), go.data_ptr<float>(), gi.data_ptr<float>());
    else
      interp_backward(g, interp_tables<double>(g, mode, align_corners), go.data_ptr<double>(), gi.data_ptr<double>());
  }
  return nn::to_dtype_of(gi, grad_output.dtype());
}

// An out= variant: the functional result written into out (resized; no dtype casting).
Tensor& write_out(const char* op, const Tensor& result, Tensor& out) {
  native::nn::check_on(op, kCPU, out);
  rs::check_out_dtype(op, out, result.dtype());
  resize_output(out, result.sizes(), op);
  native::check_out_writable(op, out);
  cpu::copy_(out, result, false);
  return out;
}

}  // namespace

// ---- grid_sampler_2d -----------------------------------------------------------------------------

namespace {

// Note [CPU grid sampler]
// The coordinate rules, taps and per-pixel backward are ember/native/ResampleMath.h's (Note [Grid
// sampler rules]), shared with the GPU kernels. Output pixels (n, h, w) are split over the
// threads; the input gradient scatters one image per task.
using GridCtx = rs::GridGeom;

// Output pixels are taken kGridBlock at a time: their K taps (index into an image plane, or -1
// outside it, and weight) are computed once, then every channel is read through them with
// contiguous writes (a loop of gathers the compiler vectorizes).
constexpr int64_t kGridBlock = 64;

template <int K, class T>
void grid_taps(const GridCtx& c, const T* grid, int64_t count, int64_t* idx, T* w) {
  for (int64_t q = 0; q < count; ++q) rs::grid_taps<K>(c, grid[2 * q], grid[2 * q + 1], idx + q, w + q, kGridBlock);
}

template <int K, class T>
EMBER_ALWAYS_INLINE void grid_block_body(const GridCtx& c, const T* __restrict img, T* __restrict dst, int64_t count,
                                         const int64_t* __restrict idx, const T* __restrict w) {
  const int64_t HW = c.H * c.W, oHW = c.oH * c.oW;
  for (int64_t ch = 0; ch < c.C; ++ch) {
    const T* __restrict p = img + ch * HW;
    T* __restrict o = dst + ch * oHW;
    for (int64_t q = 0; q < count; ++q) {
      T v = 0;
      for (int64_t k = 0; k < K; ++k) {
        const int64_t i = idx[k * kGridBlock + q];
        v += i >= 0 ? p[i] * w[k * kGridBlock + q] : T(0);
      }
      o[q] = v;
    }
  }
}

template <int K, class T>
EMBER_NOINLINE void grid_block_baseline(const GridCtx& c, const T* img, T* dst, int64_t count, const int64_t* idx,
                                        const T* w) {
  grid_block_body<K>(c, img, dst, count, idx, w);
}
#if defined(EMBER_CPU_MULTI_ISA)
template <int K, class T>
EMBER_NOINLINE EMBER_CPU_TARGET_AVX512 void grid_block_avx512(const GridCtx& c, const T* img, T* dst, int64_t count,
                                                              const int64_t* idx, const T* w) {
  grid_block_body<K>(c, img, dst, count, idx, w);
}
#endif

template <int K, class T>
void grid_forward_k(const GridCtx& c, int64_t N, const T* in, const T* grid, T* out) {
  const int64_t HW = c.H * c.W, oHW = c.oH * c.oW, blocks_per_image = (oHW + kGridBlock - 1) / kGridBlock;
  const int64_t work = kGridBlock * c.C * K;
  parallel_for(0, N * blocks_per_image, std::max<int64_t>(1, kGrainSize / work), [&](int64_t b0, int64_t b1) {
    int64_t idx[K * kGridBlock];
    T w[K * kGridBlock];
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t n = b / blocks_per_image, o0 = (b % blocks_per_image) * kGridBlock;
      const int64_t count = std::min(kGridBlock, oHW - o0);
      grid_taps<K>(c, grid + 2 * (n * oHW + o0), count, idx, w);
      const T* img = in + n * c.C * HW;
      T* dst = out + n * c.C * oHW + o0;
#if defined(EMBER_CPU_MULTI_ISA)
      if (cpu_isa() == Isa::Avx512) {
        grid_block_avx512<K>(c, img, dst, count, idx, w);
        continue;
      }
#endif
      grid_block_baseline<K>(c, img, dst, count, idx, w);
    }
  });
}

template <class T>
void grid_forward(const GridCtx& c, int64_t mode, int64_t N, const T* in, const T* grid, T* out) {
  if (mode == rs::kGridBilinear) return grid_forward_k<4>(c, N, in, grid, out);
  if (mode == rs::kGridNearest) return grid_forward_k<1>(c, N, in, grid, out);
  grid_forward_k<16>(c, N, in, grid, out);
}

// grad_input (when gi) and grad_grid (when gg) of one image n.
template <class T>
void grid_backward_image(const GridCtx& c, int64_t mode, int64_t n, const T* go, const T* in, const T* grid, T* gi,
                         T* gg) {
  const int64_t HW = c.H * c.W, oHW = c.oH * c.oW;
  const T* img = in + n * c.C * HW;
  T* gimg = gi ? gi + n * c.C * HW : nullptr;
  for (int64_t o = 0; o < oHW; ++o) {
    const int64_t i = n * oHW + o;
    T dx, dy;
    rs::grid_pixel_backward(
        c, mode, grid[2 * i], grid[2 * i + 1], go + n * c.C * oHW + o, oHW, img, gimg != nullptr,
        [gimg](int64_t at, T v) { gimg[at] += v; }, dx, dy);
    if (gg) gg[2 * i] = dx, gg[2 * i + 1] = dy;
  }
}

Tensor grid_sampler_2d_impl(const Tensor& input, const Tensor& grid, int64_t interpolation_mode, int64_t padding_mode,
                            bool align_corners) {
  const char* op = "grid_sampler_2d";
  rs::check_grid_sampler_2d(op, kCPU, input, grid, interpolation_mode, padding_mode);
  const ScalarType ct = input.dtype();
  const Tensor x = nn::compute_input(input, ct), gr = nn::compute_input(grid, ct);
  Tensor out = empty_cpu(rs::grid_sampler_2d_shape(input, grid), ct);
  if (out.numel() == 0) return out;
  const GridCtx c = rs::grid_geom(input, grid, padding_mode, align_corners);
  nn::visit_float(ct, [&](auto tag) {
    using T = decltype(tag);
    grid_forward<T>(c, interpolation_mode, input.size(0), x.data_ptr<T>(), gr.data_ptr<T>(), out.data_ptr<T>());
  });
  return out;
}

}  // namespace

std::tuple<Tensor, Tensor> grid_sampler_2d_backward(const Tensor& grad_output, const Tensor& input, const Tensor& grid,
                                                    int64_t interpolation_mode, int64_t padding_mode,
                                                    bool align_corners, std::array<bool, 2> output_mask) {
  const char* op = "grid_sampler_2d_backward";
  rs::check_grid_sampler_2d_backward(op, kCPU, grad_output, input, grid, interpolation_mode, padding_mode);
  const ScalarType ct = input.dtype();
  const Tensor go = nn::compute_input(grad_output, ct), x = nn::compute_input(input, ct),
               gr = nn::compute_input(grid, ct);
  Tensor gi, gg;
  if (output_mask[0]) {
    gi = empty_cpu(input.sizes(), ct);
    cpu::zero_(gi);
  }
  if (output_mask[1]) {
    gg = empty_cpu(grid.sizes(), ct);
    cpu::zero_(gg);
  }
  if ((!gi.defined() && !gg.defined()) || go.numel() == 0) return {gi, gg};
  const GridCtx c = rs::grid_geom(input, grid, padding_mode, align_corners);
  nn::visit_float(ct, [&](auto tag) {
    using T = decltype(tag);
    T* gip = gi.defined() ? gi.data_ptr<T>() : nullptr;
    T* ggp = gg.defined() ? gg.data_ptr<T>() : nullptr;
    parallel_for(0, input.size(0), 1, [&](int64_t n0, int64_t n1) {
      for (int64_t n = n0; n < n1; ++n)
        grid_backward_image<T>(c, interpolation_mode, n, go.data_ptr<T>(), x.data_ptr<T>(), gr.data_ptr<T>(), gip, ggp);
    });
  });
  return {gi, gg};
}

// ---- im2col / col2im -----------------------------------------------------------------------------

namespace {

// Note [CPU im2col]
// col[n, (c * kH + i) * kW + j, bh * bW + bw] = image[n, c, bh * sH - pH + i * dH, bw * sW - pW + j * dW]
// (0 outside the image). im2col writes every column row once; col2im sums each column row back
// into its image (channels are independent, so images and channels are split over the threads).
template <class T>
void im2col_plane(const rs::ColGeom& g, const T* img, T* col) {
  const int64_t L = g.blocks();
  for (int64_t i = 0; i < g.kH; ++i)
    for (int64_t j = 0; j < g.kW; ++j) {
      T* dst = col + (i * g.kW + j) * L;
      for (int64_t bh = 0; bh < g.bH; ++bh) {
        const int64_t y = bh * g.sH - g.pH + i * g.dH;
        T* d = dst + bh * g.bW;
        if (y < 0 || y >= g.H) {
          std::fill(d, d + g.bW, T(0));
          continue;
        }
        const T* row = img + y * g.W;
        for (int64_t bw = 0; bw < g.bW; ++bw) {
          const int64_t x = bw * g.sW - g.pW + j * g.dW;
          d[bw] = x >= 0 && x < g.W ? row[x] : T(0);
        }
      }
    }
}

template <class T>
void col2im_plane(const rs::ColGeom& g, const T* col, T* img) {
  const int64_t L = g.blocks();
  for (int64_t i = 0; i < g.kH; ++i)
    for (int64_t j = 0; j < g.kW; ++j) {
      const T* src = col + (i * g.kW + j) * L;
      for (int64_t bh = 0; bh < g.bH; ++bh) {
        const int64_t y = bh * g.sH - g.pH + i * g.dH;
        if (y < 0 || y >= g.H) continue;
        T* row = img + y * g.W;
        const T* s = src + bh * g.bW;
        for (int64_t bw = 0; bw < g.bW; ++bw) {
          const int64_t x = bw * g.sW - g.pW + j * g.dW;
          if (x >= 0 && x < g.W) row[x] += s[bw];
        }
      }
    }
}

Tensor im2col_impl(const Tensor& self, IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding,
                   IntArrayRef stride) {
  const char* op = "im2col";
  const rs::ColGeom g = rs::check_im2col(op, kCPU, self, kernel_size, dilation, padding, stride);
  const ScalarType ct = nn::compute_float(self, op, "self");
  const Tensor x = nn::compute_input(self, ct);
  Tensor col = empty_cpu(g.col_sizes(), ct);
  const int64_t planes = g.N * g.C, HW = g.H * g.W, per = g.kH * g.kW * g.blocks();
  if (col.numel() > 0) {
    nn::visit_float(ct, [&](auto tag) {
      using T = decltype(tag);
      const T* in = x.data_ptr<T>();
      T* out = col.data_ptr<T>();
      parallel_for(0, planes, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(per, 1)),
                   [&](int64_t p0, int64_t p1) {
                     for (int64_t p = p0; p < p1; ++p) im2col_plane<T>(g, in + p * HW, out + p * per);
                   });
    });
  }
  return nn::to_dtype_of(col, self.dtype());
}

Tensor col2im_impl(const Tensor& self, IntArrayRef output_size, IntArrayRef kernel_size, IntArrayRef dilation,
                   IntArrayRef padding, IntArrayRef stride) {
  const char* op = "col2im";
  const rs::ColGeom g = rs::check_col2im(op, kCPU, self, output_size, kernel_size, dilation, padding, stride);
  const ScalarType ct = nn::compute_float(self, op, "self");
  const Tensor x = nn::compute_input(self, ct);
  Tensor img = empty_cpu(g.image_sizes(), ct);
  cpu::zero_(img);
  const int64_t planes = g.N * g.C, HW = g.H * g.W, per = g.kH * g.kW * g.blocks();
  if (img.numel() > 0) {
    nn::visit_float(ct, [&](auto tag) {
      using T = decltype(tag);
      const T* in = x.data_ptr<T>();
      T* out = img.data_ptr<T>();
      parallel_for(0, planes, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(per, 1)),
                   [&](int64_t p0, int64_t p1) {
                     for (int64_t p = p0; p < p1; ++p) col2im_plane<T>(g, in + p * per, out + p * HW);
                   });
    });
  }
  return nn::to_dtype_of(img, self.dtype());
}

}  // namespace

// ---- entry points -----------------------------------------------------------------------------------

#include "ember/native/ResampleEntryPoints.inc"

}  // namespace ember::cpu
