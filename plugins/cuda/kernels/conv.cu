// Convolution and pooling kernels of our own: what the HIP plugin convolves with (Debian has
// no MIOpen), and what the cuda plugin runs where cuDNN does not.
//
// Note [Implicit GEMM convolution]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Each of a convolution's three products is a GEMM per group g (the grid's z dimension) whose
// operands are read straight from the tensors, never materialised as im2col columns: the tiled
// GEMM core (TiledGemm.cuh) asks a Problem for A(i, k) and B(k, j), and the Problem maps the
// indices to the input, weight or gradient with bounds and padding checks (zero outside).
// With kvol = kD kH kW, Og = O / G, Cg = C / G, and the forward's output positions P = N oD oH oW:
//   Forward     C[o, (n, od, oh, ow)]  = sum over (c, kd, kh, kw) weight[o, c, k] x input[n, c, od sD - pD + kd dD,
//   ...] InputGrad   C[c, (n, d, h, w)]     = sum over (o, kd, kh, kw) weight[o, c, k] x grad_out[n, o, od, ...]
//               where od = (d + pD - kd dD) / sD when that divides exactly and lies in [0, oD)
//   WeightGrad  C[o, (c, kd, kh, kw)]  = sum over (n, od, oh, ow) grad_out[n, o, od, ...] x input[n, c, od sD - pD + kd
//   dD, ...]
// (m x n x k: Og x P x Cg kvol, Cg x N D H W x Og kvol, Og x Cg kvol x P.) Accumulation is in
// float for the 16-bit types. A transposed convolution is these with the roles of Note
// [Convolution geometry] in ember/native/NNRules.h.
#include "TiledGemm.cuh"

namespace ember::gpu {
namespace {

struct Geometry {
  ConvArgs cv;
  int64_t Og, Cg, kvol, ospatial, ispatial;
  explicit Geometry(const ConvArgs& args)
      : cv(args),
        Og(args.O / args.G),
        Cg(args.C / args.G),
        kvol(args.kD * args.kH * args.kW),
        ospatial(args.oD * args.oH * args.oW),
        ispatial(args.D * args.H * args.W) {}
  // input[n, c (of all C), id, ih, iw], or 0 in the padding.
  template <class T, class Acc>
  __device__ Acc input_at(int64_t n, int64_t c, int64_t id, int64_t ih, int64_t iw) const {
    if (id < 0 || id >= cv.D || ih < 0 || ih >= cv.H || iw < 0 || iw >= cv.W) return Acc(0);
    return to_acc<Acc>(
        reinterpret_cast<const T*>(cv.input)[((n * cv.C + c) * cv.D + id) * cv.H * cv.W + ih * cv.W + iw]);
  }
  // A flat kernel offset r < kvol as (kd, kh, kw), a flat output position as (od, oh, ow).
  __device__ void kernel_at(int64_t r, int64_t& kd, int64_t& kh, int64_t& kw) const {
    kd = r / (cv.kH * cv.kW), kh = r / cv.kW % cv.kH, kw = r % cv.kW;
  }
  __device__ void output_at(int64_t sp, int64_t& od, int64_t& oh, int64_t& ow) const {
    od = sp / (cv.oH * cv.oW), oh = sp / cv.oW % cv.oH, ow = sp % cv.oW;
  }
  // The input element kernel offset (kd, kh, kw) meets at output position (od, oh, ow).
  template <class T, class Acc>
  __device__ Acc window_input(int64_t n, int64_t c, int64_t od, int64_t oh, int64_t ow, int64_t kd, int64_t kh,
                              int64_t kw) const {
    return input_at<T, Acc>(n, c, od * cv.sD - cv.pD + kd * cv.dD, oh * cv.sH - cv.pH + kh * cv.dH,
                            ow * cv.sW - cv.pW + kw * cv.dW);
  }
};

template <class T, class Acc>
struct ForwardProblem : Geometry {
  int64_t m, n, k, batch;
  explicit ForwardProblem(const ConvArgs& args)
      : Geometry(args), m(Og), n(args.N * ospatial), k(Cg * kvol), batch(args.G) {}
  __device__ Acc a(int64_t g, int64_t i, int64_t kk) const {
    return to_acc<Acc>(reinterpret_cast<const T*>(cv.weight)[(g * Og + i) * Cg * kvol + kk]);
  }
  __device__ Acc b(int64_t g, int64_t kk, int64_t j) const {
    int64_t kd, kh, kw, od, oh, ow;
    kernel_at(kk % kvol, kd, kh, kw);
    output_at(j % ospatial, od, oh, ow);
    return window_input<T, Acc>(j / ospatial, g * Cg + kk / kvol, od, oh, ow, kd, kh, kw);
  }
  __device__ void store(int64_t g, int64_t i, int64_t j, Acc acc) const {
    const int64_t o = g * Og + i;
    if (cv.bias != nullptr) acc += to_acc<Acc>(reinterpret_cast<const T*>(cv.bias)[o]);
    reinterpret_cast<T*>(cv.out)[(j / ospatial * cv.O + o) * ospatial + j % ospatial] = from_acc<T>(acc);
  }
};

// The forward output position kernel offset kx maps x from, or -1.
__device__ __forceinline__ int64_t source(int64_t x, int64_t pad, int64_t kx, int64_t dil, int64_t stride,
                                          int64_t out) {
  const int64_t num = x + pad - kx * dil;
  if (num < 0 || num % stride != 0) return -1;
  const int64_t o = num / stride;
  return o < out ? o : -1;
}

template <class T, class Acc>
struct InputGradProblem : Geometry {
  int64_t m, n, k, batch;
  explicit InputGradProblem(const ConvArgs& args)
      : Geometry(args), m(Cg), n(args.N * ispatial), k(Og * kvol), batch(args.G) {}
  __device__ Acc a(int64_t g, int64_t i, int64_t kk) const {
    return to_acc<Acc>(reinterpret_cast<const T*>(cv.weight)[((g * Og + kk / kvol) * Cg + i) * kvol + kk % kvol]);
  }
  __device__ Acc b(int64_t g, int64_t kk, int64_t j) const {
    int64_t kd, kh, kw;
    kernel_at(kk % kvol, kd, kh, kw);
    const int64_t nn = j / ispatial, sp = j % ispatial;
    const int64_t d = sp / (cv.H * cv.W), h = sp / cv.W % cv.H, w = sp % cv.W;
    const int64_t od = source(d, cv.pD, kd, cv.dD, cv.sD, cv.oD), oh = source(h, cv.pH, kh, cv.dH, cv.sH, cv.oH),
                  ow = source(w, cv.pW, kw, cv.dW, cv.sW, cv.oW);
    if (od < 0 || oh < 0 || ow < 0) return Acc(0);
    return to_acc<Acc>(reinterpret_cast<const T*>(
        cv.grad_out)[((nn * cv.O + g * Og + kk / kvol) * cv.oD + od) * cv.oH * cv.oW + oh * cv.oW + ow]);
  }
  __device__ void store(int64_t g, int64_t i, int64_t j, Acc acc) const {
    // A transposed convolution's bias (over its output channels, the forward's C): rounded once.
    if (cv.bias != nullptr) acc += to_acc<Acc>(reinterpret_cast<const T*>(cv.bias)[g * Cg + i]);
    reinterpret_cast<T*>(cv.out)[(j / ispatial * cv.C + g * Cg + i) * ispatial + j % ispatial] = from_acc<T>(acc);
  }
};

template <class T, class Acc>
struct WeightGradProblem : Geometry {
  int64_t m, n, k, batch;
  explicit WeightGradProblem(const ConvArgs& args)
      : Geometry(args), m(Og), n(Cg * kvol), k(args.N * ospatial), batch(args.G) {}
  __device__ Acc a(int64_t g, int64_t i, int64_t kk) const {
    return to_acc<Acc>(
        reinterpret_cast<const T*>(cv.grad_out)[(kk / ospatial * cv.O + g * Og + i) * ospatial + kk % ospatial]);
  }
  __device__ Acc b(int64_t g, int64_t kk, int64_t j) const {
    int64_t kd, kh, kw, od, oh, ow;
    kernel_at(j % kvol, kd, kh, kw);
    output_at(kk % ospatial, od, oh, ow);
    return window_input<T, Acc>(kk / ospatial, g * Cg + j / kvol, od, oh, ow, kd, kh, kw);
  }
  __device__ void store(int64_t g, int64_t i, int64_t j, Acc acc) const {
    reinterpret_cast<T*>(cv.out)[(g * Og + i) * Cg * kvol + j] = from_acc<T>(acc);
  }
};

template <class T, class Acc>
void launch_conv_typed(ConvMode mode, const ConvArgs& args, gpuStream_t stream) {
  switch (mode) {
    case ConvMode::Forward:
      return launch_tiled_gemm<Acc>(ForwardProblem<T, Acc>(args), stream);
    case ConvMode::InputGrad:
      return launch_tiled_gemm<Acc>(InputGradProblem<T, Acc>(args), stream);
    case ConvMode::WeightGrad:
      return launch_tiled_gemm<Acc>(WeightGradProblem<T, Acc>(args), stream);
  }
}

// ---- max pooling ---------------------------------------------------------------------------------

// A window's clamped extent along one dimension and its extent counting the padding (the cpu's).
struct Span {
  int64_t start, end, padded;
};
// Output i of `out` covers the inputs [floor(i * in / out), ceil((i + 1) * in / out)).
__device__ __forceinline__ Span adaptive_span(int64_t i, int64_t out, int64_t in) {
  const int64_t st = i * in / out, en = ((i + 1) * in + out - 1) / out;
  return {st, en, en - st};
}

// The positions a max-pool window reads along one dimension: first + k * step for k < count.
struct Taps {
  int64_t first, count, step;
};
__device__ __forceinline__ Taps pool_taps(const PoolArgs& p, int64_t o, int64_t out, int64_t in, int64_t k, int64_t s,
                                          int64_t pad, int64_t dil) {
  if (p.adaptive) {
    const Span w = adaptive_span(o, out, in);
    return {w.start, w.end - w.start, 1};
  }
  return {o * s - pad, k, dil};
}

template <class T, class Acc>
__global__ void max_pool_kernel(PoolArgs p, int64_t total) {
  const T* in = reinterpret_cast<const T*>(p.in);
  T* out = reinterpret_cast<T*>(p.out);
  const int64_t in_plane = p.D * p.H * p.W, out_plane = p.oD * p.oH * p.oW;
  EMBER_GPU_GRID_STRIDE(e, total) {
    const int64_t plane = e / out_plane, sp = e % out_plane;
    const int64_t od = sp / (p.oH * p.oW), oh = sp / p.oW % p.oH, ow = sp % p.oW;
    const T* src = in + plane * in_plane;
    Acc best = -static_cast<Acc>(INFINITY);
    int64_t best_at = -1;  // the window's first element until one is greater (the cpu's rule)
    const Taps td = pool_taps(p, od, p.oD, p.D, p.kD, p.sD, p.pD, p.dD);
    const Taps th = pool_taps(p, oh, p.oH, p.H, p.kH, p.sH, p.pH, p.dH);
    const Taps tw = pool_taps(p, ow, p.oW, p.W, p.kW, p.sW, p.pW, p.dW);
    for (int64_t kd = 0; kd < td.count; ++kd) {
      const int64_t d = td.first + kd * td.step;
      if (d < 0 || d >= p.D) continue;
      for (int64_t kh = 0; kh < th.count; ++kh) {
        const int64_t h = th.first + kh * th.step;
        if (h < 0 || h >= p.H) continue;
        for (int64_t kw = 0; kw < tw.count; ++kw) {
          const int64_t w = tw.first + kw * tw.step;
          if (w < 0 || w >= p.W) continue;
          const int64_t at = (d * p.H + h) * p.W + w;
          const Acc v = to_acc<Acc>(src[at]);
          if (best_at < 0) best_at = at;
          if (v > best || v != v) {  // a NaN wins (the last one)
            best = v;
            best_at = at;
          }
        }
      }
    }
    out[e] = from_acc<T>(best);  // every window holds an element (check_pool: padding <= kernel / 2)
    p.indices[e] = best_at;
  }
}

// The pooling windows [lo, hi) that cover input position x: o stride - pad <= x <= o stride - pad + (k - 1) dil.
__device__ __forceinline__ void windows_over(int64_t x, int64_t pad, int64_t k, int64_t dil, int64_t stride,
                                             int64_t out, int64_t& lo, int64_t& hi) {
  const int64_t first = x + pad - (k - 1) * dil;
  lo = first <= 0 ? 0 : (first + stride - 1) / stride;
  hi = (x + pad) / stride + 1;
  if (hi > out) hi = out;
}

// One thread per input element gathers the gradients of the windows whose maximum it was
// (deterministic: no atomics).
template <class T, class Acc>
__global__ void max_pool_backward_kernel(PoolArgs p, int64_t total) {
  const T* go = reinterpret_cast<const T*>(p.in);
  T* gi = reinterpret_cast<T*>(p.out);
  const int64_t in_plane = p.D * p.H * p.W, out_plane = p.oD * p.oH * p.oW;
  EMBER_GPU_GRID_STRIDE(e, total) {
    const int64_t plane = e / in_plane, at = e % in_plane;
    const int64_t d = at / (p.H * p.W), h = at / p.W % p.H, w = at % p.W;
    int64_t d0, d1, h0, h1, w0, w1;
    windows_over(d, p.pD, p.kD, p.dD, p.sD, p.oD, d0, d1);
    windows_over(h, p.pH, p.kH, p.dH, p.sH, p.oH, h0, h1);
    windows_over(w, p.pW, p.kW, p.dW, p.sW, p.oW, w0, w1);
    Acc sum = 0;
    const int64_t base = plane * out_plane;
    for (int64_t od = d0; od < d1; ++od)
      for (int64_t oh = h0; oh < h1; ++oh)
        for (int64_t ow = w0; ow < w1; ++ow) {
          const int64_t o = base + (od * p.oH + oh) * p.oW + ow;
          if (p.indices[o] == at) sum += to_acc<Acc>(go[o]);
        }
    gi[e] = from_acc<T>(sum);
  }
}

// ---- average pooling ------------------------------------------------------------------------------

__device__ __forceinline__ Span avg_span(int64_t o, int64_t s, int64_t p, int64_t k, int64_t n) {
  const int64_t st = o * s - p, en = st + k < n + p ? st + k : n + p;
  return {st > 0 ? st : 0, en < n ? en : n, en - st};
}

struct AvgWindow {
  Span d, h, w;
  int64_t divisor;
};

__device__ __forceinline__ AvgWindow avg_window(const AvgPoolArgs& a, int64_t od, int64_t oh, int64_t ow) {
  const PoolArgs& p = a.p;
  AvgWindow w;
  if (a.adaptive) {
    w.d = adaptive_span(od, p.oD, p.D), w.h = adaptive_span(oh, p.oH, p.H), w.w = adaptive_span(ow, p.oW, p.W);
    w.divisor = (w.d.end - w.d.start) * (w.h.end - w.h.start) * (w.w.end - w.w.start);
    return w;
  }
  w.d = avg_span(od, p.sD, p.pD, p.kD, p.D), w.h = avg_span(oh, p.sH, p.pH, p.kH, p.H);
  w.w = avg_span(ow, p.sW, p.pW, p.kW, p.W);
  w.divisor = a.divisor != 0        ? a.divisor
              : a.count_include_pad ? w.d.padded * w.h.padded * w.w.padded
                                    : (w.d.end - w.d.start) * (w.h.end - w.h.start) * (w.w.end - w.w.start);
  return w;
}

template <class T, class Acc>
__global__ void avg_pool_kernel(AvgPoolArgs a, int64_t total) {
  const PoolArgs& p = a.p;
  const T* in = reinterpret_cast<const T*>(p.in);
  T* out = reinterpret_cast<T*>(p.out);
  const int64_t in_plane = p.D * p.H * p.W, out_plane = p.oD * p.oH * p.oW;
  EMBER_GPU_GRID_STRIDE(e, total) {
    const int64_t plane = e / out_plane, sp = e % out_plane;
    const AvgWindow w = avg_window(a, sp / (p.oH * p.oW), sp / p.oW % p.oH, sp % p.oW);
    const T* src = in + plane * in_plane;
    Acc sum = 0;
    for (int64_t d = w.d.start; d < w.d.end; ++d)
      for (int64_t h = w.h.start; h < w.h.end; ++h)
        for (int64_t x = w.w.start; x < w.w.end; ++x) sum += to_acc<Acc>(src[(d * p.H + h) * p.W + x]);
    const bool empty = w.d.start >= w.d.end || w.h.start >= w.h.end || w.w.start >= w.w.end;
    out[e] = from_acc<T>(empty ? Acc(0) : sum / static_cast<Acc>(w.divisor));
  }
}

// The outputs whose windows may hold input position x: [lo, hi).
__device__ __forceinline__ void candidates(const AvgPoolArgs& a, int64_t x, int64_t s, int64_t pad, int64_t k,
                                           int64_t in, int64_t out, int64_t& lo, int64_t& hi) {
  if (!a.adaptive) return windows_over(x, pad, k, 1, s, out, lo, hi);
  lo = x * out / in;
  hi = ((x + 1) * out + in - 1) / in;
  if (hi > out) hi = out;
}

template <class T, class Acc>
__global__ void avg_pool_backward_kernel(AvgPoolArgs a, int64_t total) {
  const PoolArgs& p = a.p;
  const T* go = reinterpret_cast<const T*>(p.in);
  T* gi = reinterpret_cast<T*>(p.out);
  const int64_t in_plane = p.D * p.H * p.W, out_plane = p.oD * p.oH * p.oW;
  EMBER_GPU_GRID_STRIDE(e, total) {
    const int64_t plane = e / in_plane, at = e % in_plane;
    const int64_t d = at / (p.H * p.W), h = at / p.W % p.H, x = at % p.W;
    int64_t d0, d1, h0, h1, w0, w1;
    candidates(a, d, p.sD, p.pD, p.kD, p.D, p.oD, d0, d1);
    candidates(a, h, p.sH, p.pH, p.kH, p.H, p.oH, h0, h1);
    candidates(a, x, p.sW, p.pW, p.kW, p.W, p.oW, w0, w1);
    Acc sum = 0;
    for (int64_t od = d0; od < d1; ++od)
      for (int64_t oh = h0; oh < h1; ++oh)
        for (int64_t ow = w0; ow < w1; ++ow) {
          const AvgWindow w = avg_window(a, od, oh, ow);
          if (d < w.d.start || d >= w.d.end || h < w.h.start || h >= w.h.end || x < w.w.start || x >= w.w.end) continue;
          sum += to_acc<Acc>(go[plane * out_plane + (od * p.oH + oh) * p.oW + ow]) / static_cast<Acc>(w.divisor);
        }
    gi[e] = from_acc<T>(sum);
  }
}

template <class T, class Acc>
void launch_avg_typed(const AvgPoolArgs& a, int64_t total, gpuStream_t stream) {
  if (a.backward)
    EMBER_GPU_LAUNCH((avg_pool_backward_kernel<T, Acc>), grid_size(total), kBlockSize, 0, stream, a, total);
  else
    EMBER_GPU_LAUNCH((avg_pool_kernel<T, Acc>), grid_size(total), kBlockSize, 0, stream, a, total);
}

}  // namespace

bool launch_avg_pool(const AvgPoolArgs& a, gpuStream_t stream) {
  const PoolArgs& p = a.p;
  const int64_t total = p.planes * (a.backward ? p.D * p.H * p.W : p.oD * p.oH * p.oW);
  return visit_floating(p.dtype, [&](auto t, auto acc) {
    if (total > 0) launch_avg_typed<decltype(t), decltype(acc)>(a, total, stream);
  });
}

bool launch_conv(ConvMode mode, const ConvArgs& args, gpuStream_t stream) {
  return visit_floating(args.dtype,
                        [&](auto t, auto acc) { launch_conv_typed<decltype(t), decltype(acc)>(mode, args, stream); });
}

bool launch_max_pool(const PoolArgs& p, gpuStream_t stream) {
  const int64_t total = p.planes * p.oD * p.oH * p.oW;
  return visit_floating(p.dtype, [&](auto t, auto acc) {
    using T = decltype(t);
    using Acc = decltype(acc);
    if (total > 0) EMBER_GPU_LAUNCH((max_pool_kernel<T, Acc>), grid_size(total), kBlockSize, 0, stream, p, total);
  });
}

bool launch_max_pool_backward(const PoolArgs& p, gpuStream_t stream) {
  const int64_t total = p.planes * p.D * p.H * p.W;
  return visit_floating(p.dtype, [&](auto t, auto acc) {
    using T = decltype(t);
    using Acc = decltype(acc);
    if (total > 0)
      EMBER_GPU_LAUNCH((max_pool_backward_kernel<T, Acc>), grid_size(total), kBlockSize, 0, stream, p, total);
  });
}

}  // namespace ember::gpu
