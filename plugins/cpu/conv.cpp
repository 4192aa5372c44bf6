// 2-D convolution: convolution and convolution_backward (conv2d is a composite in libember).
//
// Note [CPU convolution paths]
//   - float32: oneDNN convolution primitives (forward, backward data, backward weights with the
//     bias gradient). Activations are NCHW at the boundary; the primitives are created with
//     format_tag::any so oneDNN picks its blocked layouts, and we reorder in and out. Primitives
//     are cached by geometry (Note [CPU oneDNN primitives] in Dnnl.h). The forward runs with
//     prop_kind forward_training, which picks the nChw16c kernels (LibTorch's choice):
//     forward_inference picks brgconv on NHWC, whose NHWC -> NCHW reorder costs more than the
//     convolution.
//   - The forward of 3x3 stride-1 layers with finite operands uses oneDNN's Winograd F(4x4, 3x3)
//     kernel where it has one (AVX-512): ~1.6x faster than direct on 64-channel layers, results
//     within ~1e-5 relative of direct summation (tested against float64). Non-finite operands
//     take direct convolution, whose inf/NaN pattern is PyTorch's (Winograd would spread one inf
//     as NaN over its 4x4 output tile); the check is one extra read of the input.
//   - The forward weight in oneDNN's layout is cached per weight tensor (WeightCache): keyed by
//     the weight's storage, data pointer, sizes, strides and version counter, so repeated calls
//     with an unchanged weight skip the reorder. Ember's in-place ops bump the version; a write
//     through a raw data_ptr() does not and is not seen (as autograd would not see it either).
//     Entries hold the weight (its storage cannot be freed and its address reused while cached).
//   - float64: our own im2col + cblas_dgemm (OpenBLAS), forward and backward; also the float32
//     fallback should oneDNN have no primitive for a geometry (none seen so far).
//   - float16/bfloat16: computed in float32 (Note [CPU CNN kernel dtypes] in NN.h).
//   - Transposed convolution and other than 2-D inputs are NotImplemented.
#include <cblas.h>

#include <array>
#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <tuple>

#include "CPUKernels.h"
#include "Dnnl.h"
#include "NN.h"
#include "ember/generated/Functions.h"

namespace ember::cpu {
namespace {

using dnnl::memory;

using Geom = native::nn::ConvGeom;  // checks and output size: ember/native/NNRules.h

// ---- oneDNN (float32) ------------------------------------------------------------------------

using ConvKey = std::array<int64_t, 16>;

ConvKey conv_key(const Geom& g, bool bias, bool winograd = false) {
  return {g.N, g.C, g.H, g.W, g.O, g.kH, g.kW, g.G, g.sH, g.sW, g.pH, g.pW, g.dH, g.dW, bias ? 1 : 0, winograd ? 1 : 0};
}

memory::dims src_dims(const Geom& g) { return {g.N, g.C, g.H, g.W}; }
memory::dims dst_dims(const Geom& g) { return {g.N, g.O, g.oH, g.oW}; }
memory::dims wei_dims(const Geom& g) {
  if (g.G == 1) return {g.O, g.C, g.kH, g.kW};
  return {g.G, g.O / g.G, g.C / g.G, g.kH, g.kW};
}
memory::format_tag wei_tag(const Geom& g) { return g.G == 1 ? memory::format_tag::oihw : memory::format_tag::goihw; }

struct FwdEntry {
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward prim;
};
struct BwdEntry {
  dnnl::convolution_backward_data::primitive_desc data_pd;
  dnnl::convolution_backward_data data_prim;
  dnnl::convolution_backward_weights::primitive_desc wei_pd;
  dnnl::convolution_backward_weights wei_prim;
};

PrimitiveCache<ConvKey, FwdEntry> g_fwd;
PrimitiveCache<ConvKey, BwdEntry> g_bwd;

// The memory descriptors (format any: oneDNN picks) and window parameters of a geometry.
struct ConvDescs {
  memory::desc src, wei, dst, bias;
  memory::dims strides, dil, pad, pad_r;
  explicit ConvDescs(const Geom& g)
      : src(src_dims(g), memory::data_type::f32, memory::format_tag::any),
        wei(wei_dims(g), memory::data_type::f32, memory::format_tag::any),
        dst(dst_dims(g), memory::data_type::f32, memory::format_tag::any),
        bias({g.O}, memory::data_type::f32, memory::format_tag::x),
        strides{g.sH, g.sW},
        dil{g.dH - 1, g.dW - 1},
        pad{g.pH, g.pW},
        // The right/bottom padding oneDNN needs for our (floor) output size.
        pad_r{(g.oH - 1) * g.sH + (g.kH - 1) * g.dH + 1 - g.H - g.pH,
              (g.oW - 1) * g.sW + (g.kW - 1) * g.dW + 1 - g.W - g.pW} {}
};

dnnl::convolution_forward::desc fwd_desc(const ConvDescs& d, bool bias, dnnl::prop_kind prop,
                                         dnnl::algorithm alg = dnnl::algorithm::convolution_direct) {
  if (bias) return {prop, alg, d.src, d.wei, d.bias, d.dst, d.strides, d.dil, d.pad, d.pad_r};
  return {prop, alg, d.src, d.wei, d.dst, d.strides, d.dil, d.pad, d.pad_r};
}

// 3x3, stride 1, undilated, ungrouped: the shapes oneDNN's Winograd F(4x4, 3x3) kernel may take.
bool winograd_shape(const Geom& g) {
  return g.kH == 3 && g.kW == 3 && g.sH == 1 && g.sW == 1 && g.dH == 1 && g.dW == 1 && g.G == 1;
}

// No inf or NaN among the n floats at p (exponent bits all ones).
bool all_finite(const float* p, int64_t n) {
  std::atomic<bool> ok{true};
  parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) {
    const auto* u = reinterpret_cast<const uint32_t*>(p);
    uint32_t bad = 0;
    for (int64_t i = b; i < e; ++i) bad |= static_cast<uint32_t>((u[i] & 0x7f800000u) == 0x7f800000u);
    if (bad) ok.store(false, std::memory_order_relaxed);
  });
  return ok.load();
}

// The forward primitive for a geometry, or null when oneDNN has none (remembered; the callers
// then compute in float64). `winograd`: try oneDNN's Winograd kernel first (see the Note).
std::shared_ptr<FwdEntry> get_fwd(const Geom& g, bool bias, bool winograd) {
  return g_fwd.get(conv_key(g, bias, winograd), [&]() -> std::shared_ptr<FwdEntry> {
    // forward_training: see the Note.
    const ConvDescs d(g);
    const auto prop = dnnl::prop_kind::forward_training;
    if (winograd) {
      try {
        dnnl::convolution_forward::primitive_desc pd(fwd_desc(d, bias, prop, dnnl::algorithm::convolution_winograd),
                                                     user_scratchpad_attr(), dnnl_engine());
        return std::make_shared<FwdEntry>(FwdEntry{pd, dnnl::convolution_forward(pd)});
      } catch (const dnnl::error&) {  // channels or ISA it does not take: direct below
      }
    }
    try {
      dnnl::convolution_forward::primitive_desc pd(fwd_desc(d, bias, prop), user_scratchpad_attr(), dnnl_engine());
      return std::make_shared<FwdEntry>(FwdEntry{pd, dnnl::convolution_forward(pd)});
    } catch (const dnnl::error&) {
      return nullptr;
    }
  });
}

std::shared_ptr<BwdEntry> get_bwd(const Geom& g) {
  return g_bwd.get(conv_key(g, true), [&]() -> std::shared_ptr<BwdEntry> {
    try {
      const ConvDescs d(g);
      const auto alg = dnnl::algorithm::convolution_direct;
      dnnl::engine& eng = dnnl_engine();
      const dnnl::convolution_forward::primitive_desc hint(fwd_desc(d, true, dnnl::prop_kind::forward_training), eng);
      dnnl::convolution_backward_data::primitive_desc dpd({alg, d.src, d.wei, d.dst, d.strides, d.dil, d.pad, d.pad_r},
                                                          user_scratchpad_attr(), eng, hint);
      dnnl::convolution_backward_weights::primitive_desc wpd(
          {alg, d.src, d.wei, d.bias, d.dst, d.strides, d.dil, d.pad, d.pad_r}, user_scratchpad_attr(), eng, hint);
      return std::make_shared<BwdEntry>(
          BwdEntry{dpd, dnnl::convolution_backward_data(dpd), wpd, dnnl::convolution_backward_weights(wpd)});
    } catch (const dnnl::error&) {
      return nullptr;
    }
  });
}

// `data` (plain layout `user`) as memory of layout `want`: itself, or a reordered copy whose
// buffer `keep` holds.
memory in_layout(const memory::desc& user, const void* data, const memory::desc& want, std::vector<Tensor>& keep) {
  dnnl::engine& eng = dnnl_engine();
  memory um(user, eng, const_cast<void*>(data));
  if (want == user) return um;
  memory m = ember_memory(want, keep);
  reorder(um, m);
  return m;
}

// Memory of layout `have` that ends up in `data` (plain layout `user`): data itself when the
// layouts agree, else a buffer (held by `keep`) that finish_layout() reorders into data.
memory out_layout(const memory::desc& user, void* data, const memory::desc& have, std::vector<Tensor>& keep) {
  dnnl::engine& eng = dnnl_engine();
  if (have == user) return memory(user, eng, data);
  return ember_memory(have, keep);
}
void finish_layout(const memory& m, const memory::desc& user, void* data) {
  if (m.get_desc() == user) return;
  dnnl::engine& eng = dnnl_engine();
  reorder(m, memory(user, eng, data));
}

// The forward weight in oneDNN's layout, reordered once per (weight, version, layout).
class WeightCache {
 public:
  memory get(const Tensor& w, const Tensor& w_contig, const memory::desc& user, const memory::desc& want) {
    const void* storage = w.unsafeGetTensorImpl()->storage().get();
    const uint64_t version = w._version();
    {
      std::lock_guard<std::mutex> g(mu_);
      for (const Entry& e : entries_)
        if (e.storage == storage && e.data == w.data_ptr() && e.version == version && e.desc == want &&
            e.weight.sizes() == w.sizes() && e.weight.strides() == w.strides())
          return e.mem;
    }
    std::vector<Tensor> keep;
    memory m = in_layout(user, w_contig.data_ptr(), want, keep);
    if (m.get_data_handle() == w_contig.data_ptr()) return m;  // no reorder needed: nothing to cache
    std::lock_guard<std::mutex> g(mu_);
    if (entries_.size() >= kMax) entries_.pop_front();
    entries_.push_back(Entry{w, storage, w.data_ptr(), version, want, m, std::move(keep)});
    return m;
  }

 private:
  struct Entry {
    Tensor weight;  // keeps the storage (and so its address) alive
    const void* storage;
    const void* data;
    uint64_t version;
    memory::desc desc;
    memory mem;
    std::vector<Tensor> buffer;  // mem's storage
  };
  static constexpr size_t kMax = 16;
  std::mutex mu_;
  std::deque<Entry> entries_;
};

WeightCache g_weights;

// `cache_as`: the caller's weight, whose reordered copy is cached; null for a temporary weight.
// False when oneDNN has no primitive for g.
bool dnnl_forward(const Geom& g, const Tensor& x, const Tensor* cache_as, const Tensor& w, const Tensor& b,
                  Tensor& out) {
  // Winograd for finite operands only (see the Note).
  const bool wino =
      winograd_shape(g) && all_finite(w.data_ptr<float>(), w.numel()) && all_finite(x.data_ptr<float>(), x.numel());
  auto e = get_fwd(g, b.defined(), wino);
  if (!e) return false;
  const auto f32 = memory::data_type::f32;
  const memory::desc src_user(src_dims(g), f32, memory::format_tag::nchw);
  const memory::desc dst_user(dst_dims(g), f32, memory::format_tag::nchw);
  const memory::desc wei_user(wei_dims(g), f32, wei_tag(g));
  std::unordered_map<int, memory> args;
  std::vector<Tensor> keep;  // the reordered copies' buffers
  args.emplace(DNNL_ARG_SRC, in_layout(src_user, x.data_ptr(), e->pd.src_desc(), keep));
  args.emplace(DNNL_ARG_WEIGHTS, cache_as ? g_weights.get(*cache_as, w, wei_user, e->pd.weights_desc())
                                          : in_layout(wei_user, w.data_ptr(), e->pd.weights_desc(), keep));
  if (b.defined())
    args.emplace(DNNL_ARG_BIAS, memory(memory::desc({g.O}, f32, memory::format_tag::x), dnnl_engine(), b.data_ptr()));
  memory dst = out_layout(dst_user, out.data_ptr(), e->pd.dst_desc(), keep);
  args.emplace(DNNL_ARG_DST, dst);
  run(e->prim, e->pd, args);
  finish_layout(dst, dst_user, out.data_ptr());
  return true;
}

// False when oneDNN has no primitives for g.
bool dnnl_backward(const Geom& g, const Tensor& go, const Tensor& x, const Tensor& w, Tensor& gi, Tensor& gw,
                   Tensor& gb) {
  auto e = get_bwd(g);
  if (!e) return false;
  const auto f32 = memory::data_type::f32;
  const memory::desc src_user(src_dims(g), f32, memory::format_tag::nchw);
  const memory::desc dst_user(dst_dims(g), f32, memory::format_tag::nchw);
  const memory::desc wei_user(wei_dims(g), f32, wei_tag(g));
  std::vector<Tensor> keep;  // the reordered copies' buffers
  if (gi.defined()) {
    memory dsrc = out_layout(src_user, gi.data_ptr(), e->data_pd.diff_src_desc(), keep);
    run(e->data_prim, e->data_pd,
        {{DNNL_ARG_DIFF_DST, in_layout(dst_user, go.data_ptr(), e->data_pd.diff_dst_desc(), keep)},
         {DNNL_ARG_WEIGHTS, in_layout(wei_user, w.data_ptr(), e->data_pd.weights_desc(), keep)},
         {DNNL_ARG_DIFF_SRC, dsrc}});
    finish_layout(dsrc, src_user, gi.data_ptr());
  }
  if (gw.defined() || gb.defined()) {
    // The primitive always produces both; a gradient not asked for goes to a scratch tensor.
    Tensor wbuf = gw.defined() ? gw : empty_cpu(w.sizes(), kFloat32);
    Tensor bbuf = gb.defined() ? gb : empty_cpu({g.O}, kFloat32);
    memory dwei = out_layout(wei_user, wbuf.data_ptr(), e->wei_pd.diff_weights_desc(), keep);
    run(e->wei_prim, e->wei_pd,
        {{DNNL_ARG_SRC, in_layout(src_user, x.data_ptr(), e->wei_pd.src_desc(), keep)},
         {DNNL_ARG_DIFF_DST, in_layout(dst_user, go.data_ptr(), e->wei_pd.diff_dst_desc(), keep)},
         {DNNL_ARG_DIFF_WEIGHTS, dwei},
         {DNNL_ARG_DIFF_BIAS,
          memory(memory::desc({g.O}, f32, memory::format_tag::x), dnnl_engine(), bbuf.data_ptr())}});
    finish_layout(dwei, wei_user, wbuf.data_ptr());
  }
  return true;
}

// ---- im2col + GEMM (float64) -----------------------------------------------------------------

// col[(c, kh, kw), (oh, ow)] = x[c, oh * sH - pH + kh * dH, ow * sW - pW + kw * dW] (0 outside).
void im2col(const Geom& g, const double* x, int64_t Cg, double* col) {
  const int64_t L = g.oH * g.oW;
  for (int64_t c = 0; c < Cg; ++c)
    for (int64_t kh = 0; kh < g.kH; ++kh)
      for (int64_t kw = 0; kw < g.kW; ++kw) {
        double* row = col + ((c * g.kH + kh) * g.kW + kw) * L;
        for (int64_t oh = 0; oh < g.oH; ++oh) {
          const int64_t ih = oh * g.sH - g.pH + kh * g.dH;
          double* r = row + oh * g.oW;
          if (ih < 0 || ih >= g.H) {
            for (int64_t ow = 0; ow < g.oW; ++ow) r[ow] = 0;
            continue;
          }
          const double* xr = x + (c * g.H + ih) * g.W;
          for (int64_t ow = 0; ow < g.oW; ++ow) {
            const int64_t iw = ow * g.sW - g.pW + kw * g.dW;
            r[ow] = iw >= 0 && iw < g.W ? xr[iw] : 0.0;
          }
        }
      }
}

// The adjoint of im2col: gx[c, ih, iw] += col[...] for every tap that read it.
void col2im(const Geom& g, const double* col, int64_t Cg, double* gx) {
  const int64_t L = g.oH * g.oW;
  for (int64_t c = 0; c < Cg; ++c)
    for (int64_t kh = 0; kh < g.kH; ++kh)
      for (int64_t kw = 0; kw < g.kW; ++kw) {
        const double* row = col + ((c * g.kH + kh) * g.kW + kw) * L;
        for (int64_t oh = 0; oh < g.oH; ++oh) {
          const int64_t ih = oh * g.sH - g.pH + kh * g.dH;
          if (ih < 0 || ih >= g.H) continue;
          double* xr = gx + (c * g.H + ih) * g.W;
          const double* r = row + oh * g.oW;
          for (int64_t ow = 0; ow < g.oW; ++ow) {
            const int64_t iw = ow * g.sW - g.pW + kw * g.dW;
            if (iw >= 0 && iw < g.W) xr[iw] += r[ow];
          }
        }
      }
}

void gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const double* A, int64_t lda, const double* B, int64_t ldb,
          double beta, double* C, int64_t ldc) {
  cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, static_cast<blasint>(M),
              static_cast<blasint>(N), static_cast<blasint>(K), 1.0, A, static_cast<blasint>(lda), B,
              static_cast<blasint>(ldb), beta, C, static_cast<blasint>(ldc));
}

// out[n, o, :] += b[o] over an [N, O, L] output.
template <class T>
void add_bias(const T* b, int64_t N, int64_t O, int64_t L, T* out) {
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t i = 0; i < L; ++i) out[(n * O + o) * L + i] += b[o];
}

void f64_forward(const Geom& g, const Tensor& x, const Tensor& w, const Tensor& b, Tensor& out) {
  const int64_t Cg = g.C / g.G, Og = g.O / g.G, K = Cg * g.kH * g.kW, L = g.oH * g.oW;
  std::vector<double> col(static_cast<size_t>(K * L));
  const double* xp = x.data_ptr<double>();
  const double* wp = w.data_ptr<double>();
  double* op = out.data_ptr<double>();
  for (int64_t n = 0; n < g.N; ++n) {
    for (int64_t gr = 0; gr < g.G; ++gr) {
      im2col(g, xp + (n * g.C + gr * Cg) * g.H * g.W, Cg, col.data());
      double* o = op + (n * g.O + gr * Og) * L;
      gemm(false, false, Og, L, K, wp + gr * Og * K, K, col.data(), L, 0.0, o, L);
    }
  }
  if (b.defined()) add_bias(b.data_ptr<double>(), g.N, g.O, L, op);
}

void f64_backward(const Geom& g, const Tensor& go, const Tensor& x, const Tensor& w, Tensor& gi, Tensor& gw,
                  Tensor& gb) {
  const int64_t Cg = g.C / g.G, Og = g.O / g.G, K = Cg * g.kH * g.kW, L = g.oH * g.oW;
  std::vector<double> col(static_cast<size_t>(K * L));
  const double* gop = go.data_ptr<double>();
  if (gi.defined()) cpu::zero_(gi);
  if (gw.defined()) cpu::zero_(gw);
  for (int64_t n = 0; n < g.N; ++n) {
    for (int64_t gr = 0; gr < g.G; ++gr) {
      const double* gog = gop + (n * g.O + gr * Og) * L;
      if (gw.defined()) {  // gw_g += go_g [Og, L] x col^T [L, K]
        im2col(g, x.data_ptr<double>() + (n * g.C + gr * Cg) * g.H * g.W, Cg, col.data());
        gemm(false, true, Og, K, L, gog, L, col.data(), L, 1.0, gw.data_ptr<double>() + gr * Og * K, K);
      }
      if (gi.defined()) {  // col = w_g^T [K, Og] x go_g [Og, L], scattered back
        gemm(true, false, K, L, Og, w.data_ptr<double>() + gr * Og * K, K, gog, L, 0.0, col.data(), L);
        col2im(g, col.data(), Cg, gi.data_ptr<double>() + (n * g.C + gr * Cg) * g.H * g.W);
      }
    }
  }
  if (gb.defined()) {
    double* bp = gb.data_ptr<double>();
    for (int64_t o = 0; o < g.O; ++o) {
      double s = 0;
      for (int64_t n = 0; n < g.N; ++n)
        for (int64_t i = 0; i < L; ++i) s += gop[(n * g.O + o) * L + i];
      bp[o] = s;
    }
  }
}

}  // namespace

// ---- CPU kernels ---------------------------------------------------------------------------

Tensor convolution(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
                   IntArrayRef padding, IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                   int64_t groups) {
  const char* op = "convolution";
  native::nn::check_not_transposed(op, transposed, output_padding);
  const Geom g = native::nn::check_conv(op, kCPU, input, weight, bias, stride, padding, dilation, groups);
  const ScalarType ct = nn::compute_float(input, op, "input");
  const Tensor x = nn::compute_input(input, ct), w = nn::compute_input(weight, ct);
  const Tensor b = bias && bias->defined() ? nn::compute_input(*bias, ct) : Tensor();
  Tensor out = empty_cpu({g.N, g.O, g.oH, g.oW}, ct);
  if (out.numel() == 0) return nn::to_dtype_of(out, input.dtype());
  if (x.numel() == 0) {  // no input channels: the bias alone, as PyTorch
    cpu::zero_(out);
    if (b.defined() && ct == kFloat32) add_bias(b.data_ptr<float>(), g.N, g.O, g.oH * g.oW, out.data_ptr<float>());
    if (b.defined() && ct == kFloat64) add_bias(b.data_ptr<double>(), g.N, g.O, g.oH * g.oW, out.data_ptr<double>());
  } else if (ct == kFloat32) {
    // Cache the reordered weight under the caller's tensor, unless it is a converted copy.
    if (!dnnl_forward(g, x, weight.dtype() == kFloat32 ? &weight : nullptr, w, b, out)) {
      Tensor o64 = empty_cpu(out.sizes(), kFloat64);
      f64_forward(g, nn::compute_input(x, kFloat64), nn::compute_input(w, kFloat64),
                  b.defined() ? nn::compute_input(b, kFloat64) : Tensor(), o64);
      cpu::copy_(out, o64, false);
    }
  } else {
    f64_forward(g, x, w, b, out);
  }
  return nn::to_dtype_of(out, input.dtype());
}

std::tuple<Tensor, Tensor, Tensor> convolution_backward(const Tensor& grad_output, const Tensor& input,
                                                        const Tensor& weight, std::optional<IntArrayRef> bias_sizes,
                                                        IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                                        bool transposed, IntArrayRef output_padding, int64_t groups,
                                                        std::array<bool, 3> output_mask) {
  const char* op = "convolution_backward";
  const Geom g = native::nn::check_conv_backward(op, kCPU, grad_output, input, weight, bias_sizes, stride, padding,
                                                 dilation, transposed, output_padding, groups, output_mask);
  const ScalarType ct = nn::compute_float(input, op, "input");
  const Tensor go = nn::compute_input(grad_output, ct), x = nn::compute_input(input, ct),
               w = nn::compute_input(weight, ct);
  Tensor gi = output_mask[0] ? empty_cpu(input.sizes(), ct) : Tensor();
  Tensor gw = output_mask[1] ? empty_cpu(weight.sizes(), ct) : Tensor();
  Tensor gb = output_mask[2] ? empty_cpu({g.O}, ct) : Tensor();
  if (go.numel() == 0 || x.numel() == 0) {
    for (Tensor* t : {&gi, &gw, &gb})
      if (t->defined()) cpu::zero_(*t);
  } else if (ct == kFloat32 && dnnl_backward(g, go, x, w, gi, gw, gb)) {
  } else if (ct == kFloat32) {  // no oneDNN primitive: float64
    Tensor g64[3];
    Tensor* outs[3] = {&gi, &gw, &gb};
    for (int i = 0; i < 3; ++i)
      if (outs[i]->defined()) g64[i] = empty_cpu(outs[i]->sizes(), kFloat64);
    f64_backward(g, nn::compute_input(go, kFloat64), nn::compute_input(x, kFloat64), nn::compute_input(w, kFloat64),
                 g64[0], g64[1], g64[2]);
    for (int i = 0; i < 3; ++i)
      if (outs[i]->defined()) cpu::copy_(*outs[i], g64[i], false);
  } else {
    f64_backward(g, go, x, w, gi, gw, gb);
  }
  const ScalarType dt = input.dtype();
  return {nn::to_dtype_of(gi, dt), nn::to_dtype_of(gw, dt), nn::to_dtype_of(gb, dt)};
}

}  // namespace ember::cpu
