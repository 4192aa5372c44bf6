// Convolution over 1, 2 or 3 spatial dimensions, plain or transposed: convolution and
// convolution_backward (conv1d/2d/3d and conv_transpose are composites). Every case is computed
// as a forward convolution in 3-D form (Note [Convolution geometry] in ember/native/NNRules.h) by
// three products: the forward, its data gradient and its weight gradient.
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
//   - 1-D convolutions run oneDNN's 2-D primitives with H = 1, 3-D ones its 3-D primitives.
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

using ConvKey = std::array<int64_t, 25>;

// 3-D geometries use oneDNN's 3-D primitives; 1-D and 2-D ones its 2-D primitives (H = 1 for 1-D).
bool three_d(const Geom& g) { return g.nd == 3; }

ConvKey conv_key(const Geom& g, bool bias, bool winograd = false) {
  return {g.N,  g.C,  g.D,  g.H,          g.W,
          g.O,  g.kD, g.kH, g.kW,         g.G,
          g.sD, g.sH, g.sW, g.pD,         g.pH,
          g.pW, g.dD, g.dH, g.dW,         g.oD,
          g.oH, g.oW, g.nd, bias ? 1 : 0, winograd ? 1 : 0};
}

memory::dims src_dims(const Geom& g) {
  return three_d(g) ? memory::dims{g.N, g.C, g.D, g.H, g.W} : memory::dims{g.N, g.C, g.H, g.W};
}
memory::dims dst_dims(const Geom& g) {
  return three_d(g) ? memory::dims{g.N, g.O, g.oD, g.oH, g.oW} : memory::dims{g.N, g.O, g.oH, g.oW};
}
memory::dims wei_dims(const Geom& g) {
  memory::dims d = g.G == 1 ? memory::dims{g.O, g.C} : memory::dims{g.G, g.O / g.G, g.C / g.G};
  if (three_d(g)) d.push_back(g.kD);
  d.push_back(g.kH);
  d.push_back(g.kW);
  return d;
}
memory::format_tag act_tag(const Geom& g) { return three_d(g) ? memory::format_tag::ncdhw : memory::format_tag::nchw; }
memory::format_tag wei_tag(const Geom& g) {
  if (three_d(g)) return g.G == 1 ? memory::format_tag::oidhw : memory::format_tag::goidhw;
  return g.G == 1 ? memory::format_tag::oihw : memory::format_tag::goihw;
}

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
        bias({g.O}, memory::data_type::f32, memory::format_tag::x) {
    // The right/bottom padding oneDNN needs for our output size (negative where a transposed
    // convolution's output_padding crops).
    auto add = [&](int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, int64_t o) {
      strides.push_back(s);
      dil.push_back(d - 1);
      pad.push_back(p);
      pad_r.push_back((o - 1) * s + (k - 1) * d + 1 - in - p);
    };
    if (three_d(g)) add(g.D, g.kD, g.sD, g.pD, g.dD, g.oD);
    add(g.H, g.kH, g.sH, g.pH, g.dH, g.oH);
    add(g.W, g.kW, g.sW, g.pW, g.dW, g.oW);
  }
};

dnnl::convolution_forward::desc fwd_desc(const ConvDescs& d, bool bias, dnnl::prop_kind prop,
                                         dnnl::algorithm alg = dnnl::algorithm::convolution_direct) {
  if (bias) return {prop, alg, d.src, d.wei, d.bias, d.dst, d.strides, d.dil, d.pad, d.pad_r};
  return {prop, alg, d.src, d.wei, d.dst, d.strides, d.dil, d.pad, d.pad_r};
}

// 2-D, 3x3, stride 1, undilated, ungrouped: the shapes oneDNN's Winograd F(4x4, 3x3) kernel may take.
bool winograd_shape(const Geom& g) {
  return g.nd == 2 && g.kH == 3 && g.kW == 3 && g.sH == 1 && g.sW == 1 && g.dH == 1 && g.dW == 1 && g.G == 1;
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

struct UserDescs {
  memory::desc src, dst, wei, bias;
  explicit UserDescs(const Geom& g)
      : src(src_dims(g), memory::data_type::f32, act_tag(g)),
        dst(dst_dims(g), memory::data_type::f32, act_tag(g)),
        wei(wei_dims(g), memory::data_type::f32, wei_tag(g)),
        bias({g.O}, memory::data_type::f32, memory::format_tag::x) {}
};

// out = conv(x, w) + b. `cache_as`: the caller's weight, whose reordered copy is cached; null for
// a temporary weight. False when oneDNN has no primitive for g.
bool dnnl_forward(const Geom& g, const Tensor& x, const Tensor* cache_as, const Tensor& w, const Tensor& b,
                  Tensor& out) {
  // Winograd for finite operands only (see the Note).
  const bool wino =
      winograd_shape(g) && all_finite(w.data_ptr<float>(), w.numel()) && all_finite(x.data_ptr<float>(), x.numel());
  auto e = get_fwd(g, b.defined(), wino);
  if (!e) return false;
  const UserDescs u(g);
  std::vector<Tensor> keep;  // the reordered copies' buffers
  std::unordered_map<int, memory> args;
  args.emplace(DNNL_ARG_SRC, in_layout(u.src, x.data_ptr(), e->pd.src_desc(), keep));
  args.emplace(DNNL_ARG_WEIGHTS, cache_as ? g_weights.get(*cache_as, w, u.wei, e->pd.weights_desc())
                                          : in_layout(u.wei, w.data_ptr(), e->pd.weights_desc(), keep));
  if (b.defined()) args.emplace(DNNL_ARG_BIAS, memory(u.bias, dnnl_engine(), b.data_ptr()));
  memory dst = out_layout(u.dst, out.data_ptr(), e->pd.dst_desc(), keep);
  args.emplace(DNNL_ARG_DST, dst);
  run(e->prim, e->pd, args);
  finish_layout(dst, u.dst, out.data_ptr());
  return true;
}

// gi = the data gradient of conv(., w) at go. False when oneDNN has no primitives for g.
bool dnnl_backward_data(const Geom& g, const Tensor& go, const Tensor& w, Tensor& gi) {
  auto e = get_bwd(g);
  if (!e) return false;
  const UserDescs u(g);
  std::vector<Tensor> keep;  // the reordered copies' buffers
  memory dsrc = out_layout(u.src, gi.data_ptr(), e->data_pd.diff_src_desc(), keep);
  run(e->data_prim, e->data_pd,
      {{DNNL_ARG_DIFF_DST, in_layout(u.dst, go.data_ptr(), e->data_pd.diff_dst_desc(), keep)},
       {DNNL_ARG_WEIGHTS, in_layout(u.wei, w.data_ptr(), e->data_pd.weights_desc(), keep)},
       {DNNL_ARG_DIFF_SRC, dsrc}});
  finish_layout(dsrc, u.src, gi.data_ptr());
  return true;
}

// gw, gb = the weight and bias gradients of conv(x, .) at go (either may be undefined: not wanted).
bool dnnl_backward_weights(const Geom& g, const Tensor& x, const Tensor& go, Tensor& gw, Tensor& gb) {
  auto e = get_bwd(g);
  if (!e) return false;
  const UserDescs u(g);
  std::vector<Tensor> keep;  // the reordered copies' buffers
  // The primitive always produces both; a gradient not asked for goes to a scratch tensor.
  Tensor wbuf = gw.defined() ? gw : empty_cpu(IntArrayRef(wei_dims(g)), kFloat32);
  Tensor bbuf = gb.defined() ? gb : empty_cpu({g.O}, kFloat32);
  memory dwei = out_layout(u.wei, wbuf.data_ptr(), e->wei_pd.diff_weights_desc(), keep);
  run(e->wei_prim, e->wei_pd,
      {{DNNL_ARG_SRC, in_layout(u.src, x.data_ptr(), e->wei_pd.src_desc(), keep)},
       {DNNL_ARG_DIFF_DST, in_layout(u.dst, go.data_ptr(), e->wei_pd.diff_dst_desc(), keep)},
       {DNNL_ARG_DIFF_WEIGHTS, dwei},
       {DNNL_ARG_DIFF_BIAS, memory(u.bias, dnnl_engine(), bbuf.data_ptr())}});
  finish_layout(dwei, u.wei, wbuf.data_ptr());
  return true;
}

// ---- im2col + GEMM (float64) -----------------------------------------------------------------

// col[(c, kd, kh, kw), (od, oh, ow)] = x[c, id, ih, iw] with id = od * sD - pD + kd * dD, ... (0
// outside the input).
void im2col(const Geom& g, const double* x, int64_t Cg, double* col) {
  const int64_t L = g.oD * g.oH * g.oW;
  for (int64_t c = 0; c < Cg; ++c)
    for (int64_t kd = 0; kd < g.kD; ++kd)
      for (int64_t kh = 0; kh < g.kH; ++kh)
        for (int64_t kw = 0; kw < g.kW; ++kw) {
          double* row = col + (((c * g.kD + kd) * g.kH + kh) * g.kW + kw) * L;
          for (int64_t od = 0; od < g.oD; ++od) {
            const int64_t id = od * g.sD - g.pD + kd * g.dD;
            for (int64_t oh = 0; oh < g.oH; ++oh) {
              const int64_t ih = oh * g.sH - g.pH + kh * g.dH;
              double* r = row + (od * g.oH + oh) * g.oW;
              if (id < 0 || id >= g.D || ih < 0 || ih >= g.H) {
                for (int64_t ow = 0; ow < g.oW; ++ow) r[ow] = 0;
                continue;
              }
              const double* xr = x + ((c * g.D + id) * g.H + ih) * g.W;
              for (int64_t ow = 0; ow < g.oW; ++ow) {
                const int64_t iw = ow * g.sW - g.pW + kw * g.dW;
                r[ow] = iw >= 0 && iw < g.W ? xr[iw] : 0.0;
              }
            }
          }
        }
}

// The adjoint of im2col: gx[c, id, ih, iw] += col[...] for every tap that read it.
void col2im(const Geom& g, const double* col, int64_t Cg, double* gx) {
  const int64_t L = g.oD * g.oH * g.oW;
  for (int64_t c = 0; c < Cg; ++c)
    for (int64_t kd = 0; kd < g.kD; ++kd)
      for (int64_t kh = 0; kh < g.kH; ++kh)
        for (int64_t kw = 0; kw < g.kW; ++kw) {
          const double* row = col + (((c * g.kD + kd) * g.kH + kh) * g.kW + kw) * L;
          for (int64_t od = 0; od < g.oD; ++od) {
            const int64_t id = od * g.sD - g.pD + kd * g.dD;
            if (id < 0 || id >= g.D) continue;
            for (int64_t oh = 0; oh < g.oH; ++oh) {
              const int64_t ih = oh * g.sH - g.pH + kh * g.dH;
              if (ih < 0 || ih >= g.H) continue;
              double* xr = gx + ((c * g.D + id) * g.H + ih) * g.W;
              const double* r = row + (od * g.oH + oh) * g.oW;
              for (int64_t ow = 0; ow < g.oW; ++ow) {
                const int64_t iw = ow * g.sW - g.pW + kw * g.dW;
                if (iw >= 0 && iw < g.W) xr[iw] += r[ow];
              }
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

// gb[o] = the sum of go[n, o, :] over an [N, O, L] gradient.
template <class T>
void bias_grad(const T* go, int64_t N, int64_t O, int64_t L, T* gb) {
  for (int64_t o = 0; o < O; ++o) {
    double s = 0;
    for (int64_t n = 0; n < N; ++n)
      for (int64_t i = 0; i < L; ++i) s += go[(n * O + o) * L + i];
    gb[o] = static_cast<T>(s);
  }
}

int64_t fwd_in_plane(const Geom& g) { return g.D * g.H * g.W; }
int64_t fwd_out_plane(const Geom& g) { return g.oD * g.oH * g.oW; }

void f64_forward(const Geom& g, const Tensor& x, const Tensor& w, Tensor& out) {
  const int64_t Cg = g.C / g.G, Og = g.O / g.G, K = Cg * g.kD * g.kH * g.kW, L = fwd_out_plane(g), P = fwd_in_plane(g);
  std::vector<double> col(static_cast<size_t>(K * L));
  const double* xp = x.data_ptr<double>();
  const double* wp = w.data_ptr<double>();
  double* op = out.data_ptr<double>();
  for (int64_t n = 0; n < g.N; ++n) {
    for (int64_t gr = 0; gr < g.G; ++gr) {
      im2col(g, xp + (n * g.C + gr * Cg) * P, Cg, col.data());
      gemm(false, false, Og, L, K, wp + gr * Og * K, K, col.data(), L, 0.0, op + (n * g.O + gr * Og) * L, L);
    }
  }
}

void f64_backward_data(const Geom& g, const Tensor& go, const Tensor& w, Tensor& gi) {
  const int64_t Cg = g.C / g.G, Og = g.O / g.G, K = Cg * g.kD * g.kH * g.kW, L = fwd_out_plane(g), P = fwd_in_plane(g);
  std::vector<double> col(static_cast<size_t>(K * L));
  cpu::zero_(gi);
  for (int64_t n = 0; n < g.N; ++n) {
    for (int64_t gr = 0; gr < g.G; ++gr) {  // col = w_g^T [K, Og] x go_g [Og, L], scattered back
      gemm(true, false, K, L, Og, w.data_ptr<double>() + gr * Og * K, K,
           go.data_ptr<double>() + (n * g.O + gr * Og) * L, L, 0.0, col.data(), L);
      col2im(g, col.data(), Cg, gi.data_ptr<double>() + (n * g.C + gr * Cg) * P);
    }
  }
}

void f64_backward_weights(const Geom& g, const Tensor& x, const Tensor& go, Tensor& gw) {
  const int64_t Cg = g.C / g.G, Og = g.O / g.G, K = Cg * g.kD * g.kH * g.kW, L = fwd_out_plane(g), P = fwd_in_plane(g);
  std::vector<double> col(static_cast<size_t>(K * L));
  cpu::zero_(gw);
  for (int64_t n = 0; n < g.N; ++n) {
    for (int64_t gr = 0; gr < g.G; ++gr) {  // gw_g += go_g [Og, L] x col^T [L, K]
      im2col(g, x.data_ptr<double>() + (n * g.C + gr * Cg) * P, Cg, col.data());
      gemm(false, true, Og, K, L, go.data_ptr<double>() + (n * g.O + gr * Og) * L, L, col.data(), L, 1.0,
           gw.data_ptr<double>() + gr * Og * K, K);
    }
  }
}

// ---- the three products, on contiguous float32 or float64 buffers ---------------------------------
// Each takes oneDNN for float32 where it has a primitive, else computes in float64.

Tensor as_f64(const Tensor& t) { return t.defined() ? nn::compute_input(t, kFloat64) : t; }

// out = conv(x, w) (no bias); `cache_as` as in dnnl_forward.
void conv_forward(const Geom& g, const Tensor& x, const Tensor* cache_as, const Tensor& w, const Tensor& b,
                  Tensor& out) {
  if (out.dtype() == kFloat32 && dnnl_forward(g, x, cache_as, w, b, out)) return;
  Tensor o64 = out.dtype() == kFloat64 ? out : empty_cpu(out.sizes(), kFloat64);
  f64_forward(g, as_f64(x), as_f64(w), o64);
  if (b.defined()) {
    const Tensor b64 = as_f64(b);
    add_bias(b64.data_ptr<double>(), g.N, g.O, fwd_out_plane(g), o64.data_ptr<double>());
  }
  if (!o64.is_same(out)) cpu::copy_(out, o64, false);
}

void conv_backward_data(const Geom& g, const Tensor& go, const Tensor& w, Tensor& gi) {
  if (gi.dtype() == kFloat32 && dnnl_backward_data(g, go, w, gi)) return;
  Tensor g64 = gi.dtype() == kFloat64 ? gi : empty_cpu(gi.sizes(), kFloat64);
  f64_backward_data(g, as_f64(go), as_f64(w), g64);
  if (!g64.is_same(gi)) cpu::copy_(gi, g64, false);
}

// gw (and gb, the sum of go, when defined) for conv(x, .) at go.
void conv_backward_weights(const Geom& g, const Tensor& x, const Tensor& go, Tensor& gw, Tensor& gb) {
  if (go.dtype() == kFloat32 && dnnl_backward_weights(g, x, go, gw, gb)) return;
  if (gw.defined()) {
    Tensor g64 = gw.dtype() == kFloat64 ? gw : empty_cpu(gw.sizes(), kFloat64);
    f64_backward_weights(g, as_f64(x), as_f64(go), g64);
    if (!g64.is_same(gw)) cpu::copy_(gw, g64, false);
  }
  if (gb.defined()) {
    if (gb.dtype() == kFloat64)
      bias_grad(go.data_ptr<double>(), g.N, g.O, fwd_out_plane(g), gb.data_ptr<double>());
    else
      bias_grad(go.data_ptr<float>(), g.N, g.O, fwd_out_plane(g), gb.data_ptr<float>());
  }
}

// gb = the sum of go (the call's output gradient, [N, channels, ...]) over all but dim 1.
void sum_bias_grad(const Tensor& go, Tensor& gb) {
  const int64_t N = go.size(0), ch = go.size(1), L = N * ch > 0 ? go.numel() / (N * ch) : 0;
  if (gb.dtype() == kFloat64)
    bias_grad(go.data_ptr<double>(), N, ch, L, gb.data_ptr<double>());
  else
    bias_grad(go.data_ptr<float>(), N, ch, L, gb.data_ptr<float>());
}

}  // namespace

// ---- CPU kernels ---------------------------------------------------------------------------

Tensor convolution(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
                   IntArrayRef padding, IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                   int64_t groups) {
  const char* op = "convolution";
  const Geom g = native::nn::check_conv(op, kCPU, input, weight, bias, stride, padding, dilation, transposed,
                                        output_padding, groups);
  const ScalarType ct = nn::compute_float(input, op, "input");
  const Tensor x = nn::compute_input(input, ct), w = nn::compute_input(weight, ct);
  const Tensor b = bias && bias->defined() ? nn::compute_input(*bias, ct) : Tensor();
  // LibTorch's layout rule (conv_output_format): computed in NCHW, then reordered.
  const MemoryFormat format = native::nn::conv_output_format(g, input, weight);
  auto finish = [&](const Tensor& o) {
    const Tensor r = nn::to_dtype_of(o, input.dtype());
    return format == MemoryFormat::Contiguous ? r : r.contiguous(format);
  };
  Tensor out = empty_cpu(IntArrayRef(g.output_sizes()), ct);
  if (out.numel() == 0) {  // nothing to reorder: the format's strides directly (contiguous() keeps an empty tensor's)
    const auto sizes = g.output_sizes();
    return empty_strided_cpu(sizes, memory_format_strides(sizes, format, "convolution"), input.dtype());
  }
  const int64_t out_plane = out.numel() / (out.size(0) * out.size(1));
  if (x.numel() == 0) {  // no input channels: the bias alone, as PyTorch
    cpu::zero_(out);
    if (b.defined() && ct == kFloat32)
      add_bias(b.data_ptr<float>(), g.N, out.size(1), out_plane, out.data_ptr<float>());
    if (b.defined() && ct == kFloat64)
      add_bias(b.data_ptr<double>(), g.N, out.size(1), out_plane, out.data_ptr<double>());
  } else if (!g.transposed) {
    // Cache the reordered weight under the caller's tensor, unless it is a converted copy.
    conv_forward(g, x, weight.dtype() == kFloat32 ? &weight : nullptr, w, b, out);
  } else {  // the forward convolution's data gradient, then the bias (Note [Convolution geometry])
    conv_backward_data(g, x, w, out);
    if (b.defined() && ct == kFloat32) add_bias(b.data_ptr<float>(), g.N, g.C, out_plane, out.data_ptr<float>());
    if (b.defined() && ct == kFloat64) add_bias(b.data_ptr<double>(), g.N, g.C, out_plane, out.data_ptr<double>());
  }
  return finish(out);
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
  Tensor gb = output_mask[2] ? empty_cpu({g.out_channels()}, ct) : Tensor();
  if (go.numel() == 0 || x.numel() == 0) {
    for (Tensor* t : {&gi, &gw, &gb})
      if (t->defined()) cpu::zero_(*t);
    if (gb.defined() && go.numel() > 0) sum_bias_grad(go, gb);
  } else if (!g.transposed) {
    if (gi.defined()) conv_backward_data(g, go, w, gi);
    if (gw.defined() || gb.defined()) conv_backward_weights(g, x, go, gw, gb);
  } else {  // the roles of Note [Convolution geometry]: go is the forward convolution's input
    if (gi.defined()) conv_forward(g, go, nullptr, w, Tensor(), gi);
    Tensor no_bias;
    if (gw.defined()) conv_backward_weights(g, go, x, gw, no_bias);
    if (gb.defined()) sum_bias_grad(go, gb);
  }
  const ScalarType dt = input.dtype();
  return {nn::to_dtype_of(gi, dt), nn::to_dtype_of(gw, dt), nn::to_dtype_of(gb, dt)};
}

}  // namespace ember::cpu
