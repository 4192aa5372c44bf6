// int8 linear and conv2d: quantized::linear(X, W, B, Y_scale, Y_zero_point) and quantized::conv2d
// on oneDNN's u8 x s8 primitives (VNNI where the CPU has it), with the weight prepacked once and cached.
//
// Note [Quantized linear]
// ~~~~~~~~~~~~~~~~~~~~~~~
// X is a per-tensor kQUInt8 tensor; W a kQInt8 weight ((N, K) or (OC, C / groups, KH, KW)), per-tensor or per-channel
// (axis 0) with zero points 0 (symmetric weights, as PyTorch's oneDNN backend requires); B an optional float32 bias.
// oneDNN does the whole computation, requantization included, and writes the quint8 result:
//   y = clamp(zy + nearbyint(act(s[n] * (sum_k (x - zx) * w + b[n] / (sx * sw[n])))))
// (act: ReLU or the identity), with
// - the per-output-channel scale s[n] = sx * sw[n] / sy baked into the primitive (oneDNN's JIT convolutions take no
//   runtime scales; the matmul's brgemm kernel needs them at creation too);
// - X's zero point as oneDNN's src zero point, which also pads a convolution's input with the zero point (the
//   quantized 0.0, as PyTorch pads); grouped convolutions pad and fold it into the bias themselves (conv2d_impl);
//   depthwise ones (groups == C == OC) run our own kernel instead (Note [Int8 depthwise convolution]);
// - Y's zero point as oneDNN's dst zero point (runtime values);
// - the bias in f32 divided by sx * sw[n] (oneDNN 2.x adds the bias before the output scale);
// - ReLU as an eltwise post-op, which oneDNN applies before adding the dst zero point, so ReLU clamps at Y's zero
//   point as LibTorch's fused ops do.
// This matches FBGEMM's requantization within one quantization step (the float operations are ordered differently).
// Unlike LibTorch, W is a plain quantized tensor rather than an opaque packed-params object: the packed weight
// (oneDNN's preferred layout) is cached by the weight's storage, offset, strides, version and the packed layout, so a
// module that keeps its weight packs it once and an updated weight repacks. Primitives are cached by shapes, the
// scales, and whether there is a bias or a ReLU.
#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../cpu/Dnnl.h"
#include "Depthwise.h"
#include "QTensorImpl.h"
#include "Transpose.h"
#include "ember/core/Exception.h"
#include "ember/core/Parallel.h"
#include "ember/dispatcher/Library.h"
#include "ember/generated/Functions.h"

namespace ember::qbackend {
namespace {

using dnnl::memory;
using Dims = memory::dims;

struct PackedWeight {
  memory::desc desc;            // the layout the primitive wants
  Tensor buffer;                // holds the packed weight
  std::vector<int32_t> rowsum;  // per output channel, the sum of its weights (zero-point folding)
  Storage weight;               // kept alive so that its address (in the key) is not reused while cached
};

// The raw bytes of a memory descriptor: the packed layout, flags included, as a cache key.
std::string desc_key(const memory::desc& d) {
  return std::string(reinterpret_cast<const char*>(&d.data), sizeof d.data);
}

// Weight identity: its data, strides and version (a new weight, another view of it such as a
// square weight's transpose, or an in-place update packs again) and the packed layout.
using WeightKey = std::tuple<const void*, int64_t, std::vector<int64_t>, uint64_t, std::string>;
cpu::PrimitiveCache<WeightKey, PackedWeight>& weight_cache() {
  static cpu::PrimitiveCache<WeightKey, PackedWeight> c(64);
  return c;
}

std::shared_ptr<PackedWeight> pack(const Tensor& w, const memory::desc& want, const memory::desc& plain) {
  const TensorImpl& wi = *w.unsafeGetTensorImpl();
  WeightKey key{wi.storage()->data(), wi.storage_offset(), std::vector<int64_t>(w.strides().begin(), w.strides().end()),
                wi.version(), desc_key(want)};
  return weight_cache().get(key, [&] {
    const Tensor wc = int_view(w).contiguous();  // described by `plain`
    auto p = std::make_shared<PackedWeight>();
    p->desc = want;
    p->weight = wi.storage();
    p->buffer = ember::empty({static_cast<int64_t>(want.get_size())}, TensorOptions(kUInt8));
    cpu::reorder(memory(plain, cpu::dnnl_engine(), const_cast<void*>(wc.data_ptr())),
                 memory(want, cpu::dnnl_engine(), p->buffer.data_ptr()));
    const int64_t rows = w.size(0), per_row = w.numel() / std::max<int64_t>(rows, 1);
    const auto* wp = static_cast<const int8_t*>(wc.data_ptr());
    p->rowsum.assign(static_cast<size_t>(rows), 0);
    for (int64_t j = 0; j < rows; ++j)
      for (int64_t i = 0; i < per_row; ++i) p->rowsum[static_cast<size_t>(j)] += wp[j * per_row + i];
    return p;
  });
}

// W's scale per output channel (row of W).
std::vector<float> weight_scales(const Tensor& w, const char* op) {
  const QTensorImpl& q = qimpl(w, op);
  std::vector<float> s(static_cast<size_t>(w.size(0)));
  if (q.quantizer()->qscheme() == kPerTensorAffine) {
    std::fill(s.begin(), s.end(),
              static_cast<float>(static_cast<const PerTensorAffineQuantizer&>(*q.quantizer()).scale));
  } else {
    const double* ps = static_cast<const PerChannelAffineQuantizer&>(*q.quantizer()).scales.data_ptr<double>();
    for (size_t j = 0; j < s.size(); ++j) s[j] = static_cast<float>(ps[j]);
  }
  return s;
}

void check_weight_quantizer(const Tensor& w, const char* op) {
  EMBER_CHECK(w.defined() && w.is_quantized() && w.dtype() == kQInt8,
              "[quantized::{}] expected a qint8 quantized tensor for W, got {}", op,
              w.defined() ? fmt::format("{}", w.dtype()) : std::string("an undefined tensor"));
  const QTensorImpl& q = qimpl(w, op);
  if (q.quantizer()->qscheme() == kPerTensorAffine) {
    EMBER_CHECK_NOT_IMPLEMENTED(static_cast<const PerTensorAffineQuantizer&>(*q.quantizer()).zero_point == 0,
                                "[quantized::{}] weights with a nonzero zero point (symmetric weights only)", op);
  } else {
    const auto& pc = static_cast<const PerChannelAffineQuantizer&>(*q.quantizer());
    EMBER_CHECK_NOT_IMPLEMENTED(pc.axis == 0, "[quantized::{}] per-channel weights along axis {} (axis 0 only)", op,
                                pc.axis);
    const int64_t* z = pc.zero_points.data_ptr<int64_t>();
    EMBER_CHECK_NOT_IMPLEMENTED(std::all_of(z, z + pc.zero_points.numel(), [](int64_t v) { return v == 0; }),
                                "[quantized::{}] weights with a nonzero zero point (symmetric weights only)", op);
  }
}

const PerTensorAffineQuantizer& input_quantizer(const Tensor& x, const char* op) {
  const QTensorImpl& xq = qimpl(x, op);
  EMBER_CHECK_NOT_IMPLEMENTED(xq.quantizer()->qscheme() == kPerTensorAffine, "[quantized::{}] X quantized per channel",
                              op);
  return static_cast<const PerTensorAffineQuantizer&>(*xq.quantizer());
}

void check_bias(const std::optional<Tensor>& b, int64_t n, const char* op) {
  if (b.has_value() && b->defined())
    EMBER_CHECK(b->dtype() == kFloat32 && b->dim() == 1 && b->size(0) == n,
                "[quantized::{}] expected a float32 bias of shape ({}), got {} of shape {}", op, n, b->dtype(),
                b->sizes());
}

// What oneDNN's attributes need (Note [Quantized linear]): the output scales and the bias
// divided by sx * sw[n].
struct Requant {
  std::vector<float> scales;
  std::vector<float> bias;  // empty without a bias
  int32_t zx = 0, zy = 0;
  bool src_zero_point = true;  // false: X's zero point is folded into the bias instead
};

Requant requant_params(const PerTensorAffineQuantizer& xp, const Tensor& w, const std::optional<Tensor>& b,
                       double y_scale, int64_t y_zero_point, const char* op) {
  Requant r;
  r.scales = weight_scales(w, op);
  const float sx = static_cast<float>(xp.scale), sy = static_cast<float>(y_scale);
  if (b.has_value() && b->defined()) {
    const Tensor bc = b->contiguous();
    const float* bp = bc.data_ptr<float>();
    r.bias.resize(r.scales.size());
    for (size_t j = 0; j < r.bias.size(); ++j) r.bias[j] = bp[j] / (sx * r.scales[j]);
  }
  for (float& s : r.scales) s = sx * s / sy;
  r.zx = static_cast<int32_t>(xp.zero_point);
  r.zy = static_cast<int32_t>(y_zero_point);
  return r;
}

dnnl::primitive_attr requant_attr(const Requant& r, int mask, bool relu) {
  dnnl::primitive_attr attr = cpu::user_scratchpad_attr();
  attr.set_output_scales(mask, r.scales);
  if (r.src_zero_point) attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
  attr.set_zero_points(DNNL_ARG_DST, 0, {DNNL_RUNTIME_S32_VAL});
  if (relu) {
    dnnl::post_ops po;
    po.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    attr.set_post_ops(po);
  }
  return attr;
}

// Executes a requantizing primitive of `macs` multiply-adds: the zero points (runtime) and the
// bias join `args`. Like cpu::run, with a per-call scratchpad, but on one thread below 4M
// multiply-adds (the float GEMM's 1M cut, int8 being ~4x faster): waking the passive OpenMP
// workers costs more than they save there.
void run_requant(const dnnl::primitive& prim, const dnnl::primitive_desc_base& pd, Requant& r, int64_t macs,
                 std::unordered_map<int, memory> args) {
  dnnl::engine& eng = cpu::dnnl_engine();
  const memory::desc one({1}, memory::data_type::s32, memory::format_tag::x);
  if (r.src_zero_point) args.emplace(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, memory(one, eng, &r.zx));
  args.emplace(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST, memory(one, eng, &r.zy));
  if (!r.bias.empty()) args.emplace(DNNL_ARG_BIAS, memory(pd.query_md(dnnl::query::weights_md, 1), eng, r.bias.data()));
  constexpr int64_t kSmallInt8 = int64_t{1} << 22;
  sync_omp_threads(macs < kSmallInt8 ? 1 : get_num_threads());
  dnnl::stream st(eng);
  std::vector<Tensor> keep;
  const auto sd = pd.scratchpad_desc();
  if (sd.get_size() > 0) args.emplace(DNNL_ARG_SCRATCHPAD, cpu::ember_memory(sd, keep));
  prim.execute(st, args);
  st.wait();
}

struct MatmulEntry {
  dnnl::matmul::primitive_desc pd;
  dnnl::matmul prim;
};
using MatmulKey = std::tuple<int64_t, int64_t, int64_t, bool, bool, std::vector<float>>;
cpu::PrimitiveCache<MatmulKey, MatmulEntry>& matmul_cache() {
  static cpu::PrimitiveCache<MatmulKey, MatmulEntry> c;
  return c;
}

Tensor linear_impl(const char* op, const Tensor& x, const Tensor& w, const std::optional<Tensor>& b, double y_scale,
                   int64_t y_zero_point, bool relu) {
  EMBER_CHECK(x.defined() && x.is_quantized() && x.dtype() == kQUInt8,
              "[quantized::{}] expected a quint8 quantized tensor for X, got {}", op,
              x.defined() ? fmt::format("{}", x.dtype()) : std::string("an undefined tensor"));
  EMBER_CHECK(x.dim() >= 1, "[quantized::{}] expected X with at least one dimension", op);
  const auto& xp = input_quantizer(x, op);
  const int64_t k = x.size(-1);
  check_weight_quantizer(w, op);
  EMBER_CHECK(w.dim() == 2 && w.size(1) == k,
              "[quantized::{}] expected W of shape (N, {}) (X's last dimension), got {}", op, k, w.sizes());
  const int64_t n = w.size(0);
  check_bias(b, n, op);
  auto yq = make_per_tensor_quantizer(op, y_scale, y_zero_point, kQUInt8);
  int64_t m = 1;  // rows: every dimension but the last (X.numel() / K fails for K = 0)
  for (int64_t d = 0; d + 1 < x.dim(); ++d) m *= x.size(d);
  std::vector<int64_t> out_sizes(x.sizes().begin(), x.sizes().end());
  out_sizes.back() = n;
  Tensor y = new_qtensor(out_sizes, kQUInt8, yq);
  if (m == 0 || n == 0) return y;
  if (k == 0) {  // an empty sum: y is the quantized bias
    Tensor f = b.has_value() && b->defined() ? b->expand({m, n}) : ember::zeros({m, n});
    if (relu) f = ember::relu(f);
    return ember::quantize_per_tensor(f.reshape(out_sizes), y_scale, y_zero_point, kQUInt8);
  }

  Requant r = requant_params(xp, w, b, y_scale, y_zero_point, op);
  const Tensor xc = int_view(x).contiguous();
  auto mm = matmul_cache().get({m, k, n, !r.bias.empty(), relu, r.scales}, [&] {
    const memory::desc src({m, k}, memory::data_type::u8, memory::format_tag::ab);
    const memory::desc wei({k, n}, memory::data_type::s8, memory::format_tag::any);
    const memory::desc bias({1, n}, memory::data_type::f32, memory::format_tag::ab);
    const memory::desc dst({m, n}, memory::data_type::u8, memory::format_tag::ab);
    const auto d = r.bias.empty() ? dnnl::matmul::desc(src, wei, dst) : dnnl::matmul::desc(src, wei, bias, dst);
    dnnl::matmul::primitive_desc pd(d, requant_attr(r, 2, relu), cpu::dnnl_engine());
    return std::make_shared<MatmulEntry>(MatmulEntry{pd, dnnl::matmul(pd)});
  });
  // W (N, K) row-major is the (K, N) matmul operand in format ba.
  auto pw = pack(w, mm->pd.weights_desc(), memory::desc({k, n}, memory::data_type::s8, memory::format_tag::ba));
  dnnl::engine& eng = cpu::dnnl_engine();
  run_requant(mm->prim, mm->pd, r, m * k * n,
              {{DNNL_ARG_SRC, memory(mm->pd.src_desc(), eng, const_cast<void*>(xc.data_ptr()))},
               {DNNL_ARG_WEIGHTS, memory(pw->desc, eng, pw->buffer.data_ptr())},
               {DNNL_ARG_DST, memory(mm->pd.dst_desc(), eng, y.data_ptr())}});
  return y;
}

struct ConvEntry {
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward prim;
};
// (N, C, H, W, OC, KH, KW, groups), (stride, dilation, padding), bias, relu, scales.
using ConvKey = std::tuple<std::array<int64_t, 8>, std::array<int64_t, 6>, bool, bool, std::vector<float>>;
cpu::PrimitiveCache<ConvKey, ConvEntry>& conv_cache() {
  static cpu::PrimitiveCache<ConvKey, ConvEntry> c;
  return c;
}

// The uint8 (N, C, H, W) `xi` as NHWC memory: itself when channels-last, else a copy (a tiled
// transpose for the common NCHW-contiguous case: several times faster than a strided copy).
Tensor to_nhwc(const Tensor& xi) {
  const Tensor xn = xi.permute({0, 2, 3, 1});
  if (xn.is_contiguous() || !xi.is_contiguous()) return xn.contiguous();
  const int64_t nb = xi.size(0), c = xi.size(1), hw = xi.size(2) * xi.size(3);
  Tensor out = ember::empty({nb, xi.size(2), xi.size(3), c}, TensorOptions(kUInt8));
  const auto* src = static_cast<const uint8_t*>(xi.data_ptr());
  auto* dst = static_cast<uint8_t*>(out.data_ptr());
  // Blocks of 16 positions of one image, in parallel; a range may span images.
  const int64_t blocks = (hw + 15) / 16;
  parallel_for(0, nb * blocks, std::max<int64_t>(1, kGrainSize / (16 * c)), [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1;) {
      const int64_t n = b / blocks, first = b % blocks, last = std::min(blocks, first + (b1 - b));
      const int64_t p0 = first * 16, p1 = std::min(hw, last * 16);
      transpose_image(src + n * c * hw + p0, dst + (n * hw + p0) * c, c, p1 - p0, hw);
      b += last - first;
    }
  });
  return out;
}

// to_nhwc(xi) padded by (ph, pw) on both sides with `fill`: (N, H + 2 ph, W + 2 pw, C).
Tensor to_nhwc_padded(const Tensor& xi, int64_t ph, int64_t pw, uint8_t fill) {
  const Tensor xn = to_nhwc(xi);
  if (ph == 0 && pw == 0) return xn;
  const int64_t nb = xi.size(0), c = xi.size(1), h = xi.size(2), wd = xi.size(3);
  const int64_t hp = h + 2 * ph, wp = wd + 2 * pw;
  Tensor out = ember::empty({nb, hp, wp, c}, TensorOptions(kUInt8));
  const auto* src = static_cast<const uint8_t*>(xn.data_ptr());
  auto* dst = static_cast<uint8_t*>(out.data_ptr());
  parallel_for(0, nb * hp, std::max<int64_t>(1, kGrainSize / (wp * c)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t n = r / hp, row = r % hp - ph;
      uint8_t* o = dst + r * wp * c;
      if (row < 0 || row >= h) {
        std::memset(o, fill, static_cast<size_t>(wp * c));
        continue;
      }
      std::memset(o, fill, static_cast<size_t>(pw * c));
      std::memcpy(o + pw * c, src + (n * h + row) * wd * c, static_cast<size_t>(wd * c));
      std::memset(o + (pw + wd) * c, fill, static_cast<size_t>(pw * c));
    }
  });
  return out;
}

// Which depthwise kernel runs: EMBER_QUANTIZED_DEPTHWISE=auto (default: AVX-512 VNNI where the
// CPU has it, else portable), portable, or onednn (tests compare the three).
enum class DwKernel { Avx512, Portable, OneDnn };
DwKernel depthwise_kernel(const char* op) {
  static const bool vnni = __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vnni");
  const char* env = std::getenv("EMBER_QUANTIZED_DEPTHWISE");
  const std::string v = env ? env : "auto";
  EMBER_CHECK(v == "auto" || v == "portable" || v == "onednn",
              "[quantized::{}] expected EMBER_QUANTIZED_DEPTHWISE to be auto, portable or onednn, got '{}'", op, v);
  if (v == "onednn") return DwKernel::OneDnn;
  return v == "auto" && vnni ? DwKernel::Avx512 : DwKernel::Portable;
}

// groups == C == OC (Note [Int8 depthwise convolution]): the result into `yn` (N, OH, OW, C).
void depthwise_conv(DwKernel kernel, const Tensor& x, const Tensor& w, const Requant& r, std::array<int64_t, 2> st,
                    std::array<int64_t, 2> pd, std::array<int64_t, 2> dl, bool relu, Tensor& yn) {
  const Tensor xn = to_nhwc(int_view(x));
  const Tensor wc = int_view(w).contiguous();
  const int64_t nb = x.size(0), c = x.size(1), kh = w.size(2), kw = w.size(3), oh = yn.size(1), ow = yn.size(2);
  const auto* wp = static_cast<const int8_t*>(wc.data_ptr());
  std::vector<float> bias(static_cast<size_t>(c)), scale(r.scales);
  for (int64_t j = 0; j < c; ++j) {
    int32_t sum = 0;
    for (int64_t t = 0; t < kh * kw; ++t) sum += wp[j * kh * kw + t];
    bias[static_cast<size_t>(j)] =
        (r.bias.empty() ? 0.0f : r.bias[static_cast<size_t>(j)]) - static_cast<float>(r.zx * sum);
  }
  const int64_t c64 = (c + 63) / 64 * 64;
  DwArgs a{static_cast<const uint8_t*>(xn.data_ptr()),
           x.size(2),
           x.size(3),
           c,
           kh,
           kw,
           st[0],
           st[1],
           pd[0],
           pd[1],
           dl[0],
           dl[1],
           oh,
           ow,
           wp,
           bias.data(),
           scale.data(),
           r.zx,
           r.zy,
           relu,
           static_cast<uint8_t*>(yn.data_ptr())};
  std::vector<int8_t> wpk;
  std::vector<float> pbias, pscale;
  if (kernel == DwKernel::Avx512) {
    wpk.resize(static_cast<size_t>(kh * ((kw + 3) / 4) * c64 * 4));
    dw_pack_avx512(wp, c, kh, kw, wpk.data());
    pbias.resize(static_cast<size_t>(c64));
    pscale.resize(static_cast<size_t>(c64));
    dw_permute_avx512(bias.data(), c, pbias.data());
    dw_permute_avx512(scale.data(), c, pscale.data());
    a.wpk = wpk.data();
    a.bias = pbias.data();
    a.scale = pscale.data();
  }
  // Rows of ~256K multiply-adds per task.
  const int64_t row_macs = std::max<int64_t>(1, ow * c * kh * kw);
  parallel_for(0, nb * oh, std::max<int64_t>(1, (int64_t{1} << 18) / row_macs), [&](int64_t r0, int64_t r1) {
    if (kernel == DwKernel::Avx512) return dw_rows_avx512(a, r0, r1);
    for (int64_t row = r0; row < r1; ++row) dw_row_portable(a, row / oh, row % oh);
  });
}

// oneDNN's int8 convolutions want NHWC: a channels-last X (as every quantized conv returns) is
// used in place, anything else is copied once. Padding takes X's zero point (Note [Quantized linear]).
Tensor conv2d_impl(const char* op, const Tensor& x, const Tensor& w, const std::optional<Tensor>& b, IntArrayRef stride,
                   IntArrayRef padding, IntArrayRef dilation, int64_t groups, double y_scale, int64_t y_zero_point,
                   bool relu) {
  EMBER_CHECK(x.defined() && x.is_quantized() && x.dtype() == kQUInt8 && x.dim() == 4,
              "[quantized::{}] expected a 4-D quint8 quantized tensor (N, C, H, W) for X, got {}", op,
              x.defined() ? fmt::format("{} of shape {}", x.dtype(), x.sizes()) : std::string("an undefined tensor"));
  const auto& xp = input_quantizer(x, op);
  check_weight_quantizer(w, op);
  const int64_t nb = x.size(0), c = x.size(1), h = x.size(2), wd = x.size(3);
  EMBER_CHECK(c > 0 && h > 0 && wd > 0, "[quantized::{}] expected X with non-empty channels and spatial sizes, got {}",
              op, x.sizes());
  EMBER_CHECK(groups > 0 && c % groups == 0,
              "[quantized::{}] expected groups to be positive and divide X's {} channels, got {}", op, c, groups);
  EMBER_CHECK(w.dim() == 4 && w.size(1) == c / groups && w.size(0) % groups == 0,
              "[quantized::{}] expected W of shape (OC, {}, KH, KW) with OC divisible by groups={} (X's {} channels / "
              "groups), got {}",
              op, c / groups, groups, c, w.sizes());
  auto pair = [&](IntArrayRef v, const char* name) {
    EMBER_CHECK(v.size() == 2 || v.size() == 1, "[quantized::{}] expected 1 or 2 values for {}, got {}", op, name,
                v.size());
    return std::array<int64_t, 2>{v[0], v.size() == 2 ? v[1] : v[0]};
  };
  const auto st = pair(stride, "stride"), pd = pair(padding, "padding"), dl = pair(dilation, "dilation");
  EMBER_CHECK(st[0] > 0 && st[1] > 0 && dl[0] > 0 && dl[1] > 0 && pd[0] >= 0 && pd[1] >= 0,
              "[quantized::{}] expected positive stride and dilation and non-negative padding", op);
  const int64_t oc = w.size(0), kh = w.size(2), kw = w.size(3);
  const int64_t hp = h + 2 * pd[0], wp = wd + 2 * pd[1];
  const int64_t ekh = dl[0] * (kh - 1) + 1, ekw = dl[1] * (kw - 1) + 1;  // the dilated kernel
  EMBER_CHECK(hp >= ekh && wp >= ekw,
              "[quantized::{}] the output would be empty: the padded input {}x{} is smaller than the dilated kernel",
              op, hp, wp);
  const int64_t oh = (hp - ekh) / st[0] + 1, ow = (wp - ekw) / st[1] + 1;
  check_bias(b, oc, op);
  auto yq = make_per_tensor_quantizer(op, y_scale, y_zero_point, kQUInt8);
  // The result is channels-last (NHWC in memory, NCHW sizes), as LibTorch's quantized conv.
  Tensor yn = new_qtensor({nb, oh, ow, oc}, kQUInt8, yq);
  if (nb == 0 || oc == 0) return yn.permute({0, 3, 1, 2});

  Requant r = requant_params(xp, w, b, y_scale, y_zero_point, op);
  const int64_t g = groups;
  if (g == c && oc == c) {
    const DwKernel kernel = depthwise_kernel(op);
    if (kernel != DwKernel::OneDnn) {
      depthwise_conv(kernel, x, w, r, st, pd, dl, relu, yn);
      return yn.permute({0, 3, 1, 2});
    }
  }
  // oneDNN 2.6's grouped (depthwise) int8 kernels run ~1.45x slower with a src zero point: there
  // X is padded here with its zero point and sum (x - zx) * w = sum x * w - zx * sum w, the last
  // term folded into the bias. (For groups = 1 the zero point costs oneDNN nothing measurable.)
  const bool fold = g > 1;
  r.src_zero_point = !fold;
  const Tensor xn = fold ? to_nhwc_padded(int_view(x), pd[0], pd[1], static_cast<uint8_t>(r.zx)) : to_nhwc(int_view(x));
  const int64_t sh = fold ? hp : h, sw = fold ? wp : wd;  // X as oneDNN sees it
  const std::array<int64_t, 2> cpad = fold ? std::array<int64_t, 2>{0, 0} : pd;
  const bool has_bias = !r.bias.empty() || fold;
  auto entry = conv_cache().get(
      {{nb, c, sh, sw, oc, kh, kw, g}, {st[0], st[1], dl[0], dl[1], cpad[0], cpad[1]}, has_bias, relu, r.scales}, [&] {
        const memory::desc src({nb, c, sh, sw}, memory::data_type::u8, memory::format_tag::nhwc);
        const memory::desc wei =
            g == 1 ? memory::desc({oc, c, kh, kw}, memory::data_type::s8, memory::format_tag::any)
                   : memory::desc({g, oc / g, c / g, kh, kw}, memory::data_type::s8, memory::format_tag::any);
        const memory::desc bias({oc}, memory::data_type::f32, memory::format_tag::x);
        const memory::desc dst({nb, oc, oh, ow}, memory::data_type::u8, memory::format_tag::nhwc);
        const Dims sd{st[0], st[1]}, dd{dl[0] - 1, dl[1] - 1}, pp{cpad[0], cpad[1]};
        const auto prop = dnnl::prop_kind::forward_inference;
        const auto alg = dnnl::algorithm::convolution_direct;
        const auto d = !has_bias ? dnnl::convolution_forward::desc(prop, alg, src, wei, dst, sd, dd, pp, pp)
                                 : dnnl::convolution_forward::desc(prop, alg, src, wei, bias, dst, sd, dd, pp, pp);
        dnnl::convolution_forward::primitive_desc p(d, requant_attr(r, 2, relu), cpu::dnnl_engine());
        return std::make_shared<ConvEntry>(ConvEntry{p, dnnl::convolution_forward(p)});
      });
  // W (OC, C / g, KH, KW) contiguous is goihw (g, OC / g, C / g, KH, KW) in the same bytes.
  const memory::desc plain =
      g == 1 ? memory::desc({oc, c, kh, kw}, memory::data_type::s8, memory::format_tag::oihw)
             : memory::desc({g, oc / g, c / g, kh, kw}, memory::data_type::s8, memory::format_tag::goihw);
  auto pw = pack(w, entry->pd.weights_desc(), plain);
  if (fold) {
    r.bias.resize(static_cast<size_t>(oc), 0.0f);
    for (size_t j = 0; j < r.bias.size(); ++j) r.bias[j] -= static_cast<float>(r.zx * pw->rowsum[j]);
  }
  dnnl::engine& eng = cpu::dnnl_engine();
  run_requant(entry->prim, entry->pd, r, nb * oh * ow * oc * (c / g) * kh * kw,
              {{DNNL_ARG_SRC, memory(entry->pd.src_desc(), eng, const_cast<void*>(xn.data_ptr()))},
               {DNNL_ARG_WEIGHTS, memory(pw->desc, eng, pw->buffer.data_ptr())},
               {DNNL_ARG_DST, memory(entry->pd.dst_desc(), eng, yn.data_ptr())}});
  return yn.permute({0, 3, 1, 2});
}

Tensor conv2d(const Tensor& x, const Tensor& w, const std::optional<Tensor>& b, IntArrayRef stride, IntArrayRef padding,
              IntArrayRef dilation, int64_t groups, double y_scale, int64_t y_zero_point) {
  return conv2d_impl("conv2d", x, w, b, stride, padding, dilation, groups, y_scale, y_zero_point, false);
}
Tensor conv2d_relu(const Tensor& x, const Tensor& w, const std::optional<Tensor>& b, IntArrayRef stride,
                   IntArrayRef padding, IntArrayRef dilation, int64_t groups, double y_scale, int64_t y_zero_point) {
  return conv2d_impl("conv2d_relu", x, w, b, stride, padding, dilation, groups, y_scale, y_zero_point, true);
}

Tensor linear(const Tensor& x, const Tensor& w, const std::optional<Tensor>& b, double y_scale, int64_t y_zero_point) {
  return linear_impl("linear", x, w, b, y_scale, y_zero_point, false);
}
Tensor linear_relu(const Tensor& x, const Tensor& w, const std::optional<Tensor>& b, double y_scale,
                   int64_t y_zero_point) {
  return linear_impl("linear_relu", x, w, b, y_scale, y_zero_point, true);
}

}  // namespace
}  // namespace ember::qbackend

EMBER_LIBRARY_FRAGMENT(quantized, m) {
  m.def("linear(Tensor X, Tensor W, Tensor? B, float Y_scale, int Y_zero_point) -> Tensor");
  m.def("linear_relu(Tensor X, Tensor W, Tensor? B, float Y_scale, int Y_zero_point) -> Tensor");
  m.def(
      "conv2d(Tensor X, Tensor W, Tensor? B, int[2] stride, int[2] padding, int[2] dilation, int groups, "
      "float Y_scale, int Y_zero_point) -> Tensor");
  m.def(
      "conv2d_relu(Tensor X, Tensor W, Tensor? B, int[2] stride, int[2] padding, int[2] dilation, int groups, "
      "float Y_scale, int Y_zero_point) -> Tensor");
}

EMBER_LIBRARY_IMPL(quantized, QuantizedCPU, m) {
  m.impl("linear", ember::qbackend::linear);
  m.impl("linear_relu", ember::qbackend::linear_relu);
  m.impl("conv2d", ember::qbackend::conv2d);
  m.impl("conv2d_relu", ember::qbackend::conv2d_relu);
}
