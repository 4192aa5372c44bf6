// int8 linear: quantized::linear(X, W, B, Y_scale, Y_zero_point) on oneDNN's u8 x s8 -> s32
// matmul (VNNI where the CPU has it), with the weight prepacked once and cached.
//
// Note [Quantized linear]
// ~~~~~~~~~~~~~~~~~~~~~~~
// X is a per-tensor kQUInt8 tensor (..., K); W a kQInt8 (N, K) weight, per-tensor or per-channel
// (axis 0) with zero points 0 (symmetric weights, as PyTorch's oneDNN backend requires); B an
// optional float32 (N) bias. oneDNN computes acc = sum_k x * w on the raw integers; the source
// zero point is folded in as acc - zx * colsum(w), and the epilogue requantizes as FBGEMM does:
// y = zy + nearbyint((acc' * sx * sw[n] + b[n]) * (1 / sy)), clamped. Unlike LibTorch, W is a
// plain quantized tensor rather than an opaque LinearPackedParams: the packed weight (oneDNN's
// preferred layout, plus the column sums) is cached by the weight's storage, offset and version,
// so a module that keeps its weight packs it once and an updated weight repacks.
#include <algorithm>
#include <array>
#include <map>
#include <mutex>
#include <optional>
#include <tuple>

#include "../cpu/Dnnl.h"
#include "QTensorImpl.h"
#include "ember/core/Exception.h"
#include "ember/dispatcher/Library.h"
#include "ember/generated/Functions.h"

namespace ember::qbackend {
namespace {

using dnnl::memory;
using Dims = memory::dims;

struct PackedWeight {
  memory::desc desc;  // the layout the primitive wants
  Tensor buffer;      // holds the packed weight
  std::vector<int32_t> colsum;
  std::vector<float> scales;  // per output channel
  Storage weight;             // kept alive so that its address (in the key) is not reused while cached
};

struct MatmulEntry {
  dnnl::matmul::primitive_desc pd;
  dnnl::matmul prim;
};

// Weight identity: its data and version (a new weight or an in-place update packs again).
using WeightKey = std::tuple<const void*, int64_t, int64_t, uint64_t, memory::dims>;

cpu::PrimitiveCache<std::tuple<int64_t, int64_t, int64_t>, MatmulEntry>& matmul_cache() {
  static cpu::PrimitiveCache<std::tuple<int64_t, int64_t, int64_t>, MatmulEntry> c;
  return c;
}
cpu::PrimitiveCache<WeightKey, PackedWeight>& weight_cache() {
  static cpu::PrimitiveCache<WeightKey, PackedWeight> c(64);
  return c;
}

std::shared_ptr<MatmulEntry> matmul_for(int64_t m, int64_t k, int64_t n) {
  return matmul_cache().get({m, k, n}, [&] {
    const memory::desc src({m, k}, memory::data_type::u8, memory::format_tag::ab);
    const memory::desc wei({k, n}, memory::data_type::s8, memory::format_tag::any);
    const memory::desc dst({m, n}, memory::data_type::s32, memory::format_tag::ab);
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src, wei, dst), cpu::user_scratchpad_attr(), cpu::dnnl_engine());
    return std::make_shared<MatmulEntry>(MatmulEntry{pd, dnnl::matmul(pd)});
  });
}

std::shared_ptr<PackedWeight> pack(const Tensor& w, const memory::desc& want, const memory::desc& plain) {
  const TensorImpl& wi = *w.unsafeGetTensorImpl();
  WeightKey key{wi.storage()->data(), wi.storage_offset(), w.size(0), wi.version(), want.dims()};
  return weight_cache().get(key, [&] {
    const int64_t n = w.size(0), k = w.numel() / std::max<int64_t>(n, 1);
    const Tensor wc = int_view(w).contiguous();  // (N, K...) int8, described by `plain`
    auto p = std::make_shared<PackedWeight>();
    p->desc = want;
    p->weight = wi.storage();
    p->buffer = ember::empty({static_cast<int64_t>(want.get_size())}, TensorOptions(kUInt8));
    cpu::reorder(memory(plain, cpu::dnnl_engine(), const_cast<void*>(wc.data_ptr())),
                 memory(want, cpu::dnnl_engine(), p->buffer.data_ptr()));
    const auto* wp = static_cast<const int8_t*>(wc.data_ptr());
    p->colsum.assign(static_cast<size_t>(n), 0);
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < k; ++i) p->colsum[static_cast<size_t>(j)] += wp[j * k + i];
    const QTensorImpl& q = qimpl(w, "linear");
    p->scales.resize(static_cast<size_t>(n));
    if (q.quantizer()->qscheme() == kPerTensorAffine) {
      std::fill(p->scales.begin(), p->scales.end(),
                static_cast<float>(static_cast<const PerTensorAffineQuantizer&>(*q.quantizer()).scale));
    } else {
      const auto& pc = static_cast<const PerChannelAffineQuantizer&>(*q.quantizer());
      for (int64_t j = 0; j < n; ++j)
        p->scales[static_cast<size_t>(j)] = static_cast<float>(pc.scales.data_ptr<double>()[j]);
    }
    return p;
  });
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

// y[r * rs + j * cs] = requantized acc[r * n + j] (Note [Quantized linear]); rs/cs let conv2d
// write NCHW from oneDNN's NHWC accumulators.
void requantize(const int32_t* ap, uint8_t* yp, int64_t m, int64_t n, int64_t rs, int64_t cs, const PackedWeight& pw,
                const PerTensorAffineQuantizer& xp, const std::optional<Tensor>& b, double y_scale,
                int64_t y_zero_point, bool relu) {
  const bool has_bias = b.has_value() && b->defined();
  const Tensor bc = has_bias ? b->contiguous() : Tensor();
  const float* bp = has_bias ? bc.data_ptr<float>() : nullptr;
  const float sx = static_cast<float>(xp.scale), inv_y = 1.0f / static_cast<float>(y_scale);
  const auto zx = static_cast<int32_t>(xp.zero_point);
  std::vector<float> mult(static_cast<size_t>(n)), bias(static_cast<size_t>(n), 0.0f);
  std::vector<int32_t> fold(static_cast<size_t>(n));
  for (size_t j = 0; j < mult.size(); ++j) {
    mult[j] = sx * pw.scales[j];
    if (bp) bias[j] = bp[j];
    fold[j] = zx * pw.colsum[j];
  }
  // Round half to even by the 1.5 * 2^23 trick (exact for |t| < 2^22, which the clamp ensures;
  // nearbyint would be a libm call at this ISA level), so the loop vectorizes.
  const float lo = static_cast<float>(relu ? 0 : -y_zero_point), hi = static_cast<float>(255 - y_zero_point);
  const auto zy = static_cast<int32_t>(y_zero_point);
  // Locals with __restrict__: a uint8_t store may alias anything, which would otherwise reload
  // every operand per element and keep the loop scalar.
  const float* __restrict__ mp = mult.data();
  const float* __restrict__ bsp = bias.data();
  const int32_t* __restrict__ fp = fold.data();
  parallel_for(0, m, 16, [=](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int32_t* __restrict__ a = ap + r * n;
      uint8_t* __restrict__ out = yp + r * rs;
      if (cs == 1) {
        for (int64_t j = 0; j < n; ++j) {
          float t = (static_cast<float>(a[j] - fp[j]) * mp[j] + bsp[j]) * inv_y;
          t = t < lo ? lo : (t > hi ? hi : t);
          t = (t + 12582912.0f) - 12582912.0f;
          out[j] = static_cast<uint8_t>(static_cast<int32_t>(t) + zy);
        }
      } else {
        for (int64_t j = 0; j < n; ++j) {
          float t = (static_cast<float>(a[j] - fp[j]) * mp[j] + bsp[j]) * inv_y;
          t = t < lo ? lo : (t > hi ? hi : t);
          t = (t + 12582912.0f) - 12582912.0f;
          out[j * cs] = static_cast<uint8_t>(static_cast<int32_t>(t) + zy);
        }
      }
    }
  });
}

Tensor linear_impl(const char* op, const Tensor& x, const Tensor& w, const std::optional<Tensor>& b, double y_scale,
                   int64_t y_zero_point, bool relu) {
  EMBER_CHECK(x.defined() && x.is_quantized() && x.dtype() == kQUInt8,
              "[quantized::{}] expected a quint8 quantized tensor for X, got {}", op,
              x.defined() ? fmt::format("{}", x.dtype()) : std::string("an undefined tensor"));
  EMBER_CHECK(x.dim() >= 1, "[quantized::{}] expected X with at least one dimension", op);
  const QTensorImpl& xq = qimpl(x, op);
  EMBER_CHECK_NOT_IMPLEMENTED(xq.quantizer()->qscheme() == kPerTensorAffine, "[quantized::{}] X quantized per channel",
                              op);
  const auto& xp = static_cast<const PerTensorAffineQuantizer&>(*xq.quantizer());
  const int64_t k = x.size(-1);
  check_weight_quantizer(w, op);
  EMBER_CHECK(w.dim() == 2 && w.size(1) == k,
              "[quantized::{}] expected W of shape (N, {}) (X's last dimension), got {}", op, k, w.sizes());
  const int64_t n = w.size(0);
  const bool has_bias = b.has_value() && b->defined();
  if (has_bias)
    EMBER_CHECK(b->dtype() == kFloat32 && b->dim() == 1 && b->size(0) == n,
                "[quantized::{}] expected a float32 bias of shape ({}), got {} of shape {}", op, n, b->dtype(),
                b->sizes());
  auto yq = make_per_tensor_quantizer(op, y_scale, y_zero_point, kQUInt8);
  const int64_t m = x.numel() / std::max<int64_t>(k, 1);
  std::vector<int64_t> out_sizes(x.sizes().begin(), x.sizes().end());
  out_sizes.back() = n;
  Tensor y = new_qtensor(out_sizes, kQUInt8, yq);
  if (m == 0 || n == 0) return y;

  const Tensor xc = int_view(x).contiguous();
  auto mm = matmul_for(m, k, n);
  // W (N, K) row-major is the (K, N) matmul operand in format ba.
  auto pw = pack(w, mm->pd.weights_desc(), memory::desc({k, n}, memory::data_type::s8, memory::format_tag::ba));
  Tensor acc = ember::empty({m, n}, TensorOptions(kInt32));
  dnnl::engine& eng = cpu::dnnl_engine();
  cpu::run(mm->prim, mm->pd,
           {{DNNL_ARG_SRC, memory(mm->pd.src_desc(), eng, const_cast<void*>(xc.data_ptr()))},
            {DNNL_ARG_WEIGHTS, memory(pw->desc, eng, pw->buffer.data_ptr())},
            {DNNL_ARG_DST, memory(mm->pd.dst_desc(), eng, acc.data_ptr())}});

  requantize(acc.data_ptr<int32_t>(), static_cast<uint8_t*>(y.data_ptr()), m, n, n, 1, *pw, xp, b, y_scale,
             y_zero_point, relu);
  return y;
}

struct ConvEntry {
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward prim;
};
using ConvKey = std::tuple<std::vector<int64_t>, std::vector<int64_t>, std::vector<int64_t>>;
cpu::PrimitiveCache<ConvKey, ConvEntry>& conv_cache() {
  static cpu::PrimitiveCache<ConvKey, ConvEntry> c;
  return c;
}

// X's zero point pads X (PyTorch pads a quantized input with the value 0.0), so the
// convolution itself runs unpadded on NHWC integers and the zero-point fold stays uniform.
Tensor conv2d_impl(const char* op, const Tensor& x, const Tensor& w, const std::optional<Tensor>& b, IntArrayRef stride,
                   IntArrayRef padding, IntArrayRef dilation, int64_t groups, double y_scale, int64_t y_zero_point,
                   bool relu) {
  EMBER_CHECK(x.defined() && x.is_quantized() && x.dtype() == kQUInt8 && x.dim() == 4,
              "[quantized::{}] expected a 4-D quint8 quantized tensor (N, C, H, W) for X, got {}", op,
              x.defined() ? fmt::format("{} of shape {}", x.dtype(), x.sizes()) : std::string("an undefined tensor"));
  const QTensorImpl& xq = qimpl(x, op);
  EMBER_CHECK_NOT_IMPLEMENTED(xq.quantizer()->qscheme() == kPerTensorAffine, "[quantized::{}] X quantized per channel",
                              op);
  const auto& xp = static_cast<const PerTensorAffineQuantizer&>(*xq.quantizer());
  check_weight_quantizer(w, op);
  EMBER_CHECK_NOT_IMPLEMENTED(groups == 1, "[quantized::{}] groups={} (groups=1 only)", op, groups);
  EMBER_CHECK(w.dim() == 4 && w.size(1) == x.size(1),
              "[quantized::{}] expected W of shape (OC, {}, KH, KW) (X's channels), got {}", op, x.size(1), w.sizes());
  auto pair = [&](IntArrayRef v, const char* name) {
    EMBER_CHECK(v.size() == 2 || v.size() == 1, "[quantized::{}] expected 1 or 2 values for {}, got {}", op, name,
                v.size());
    return std::array<int64_t, 2>{v[0], v.size() == 2 ? v[1] : v[0]};
  };
  const auto st = pair(stride, "stride"), pd = pair(padding, "padding"), dl = pair(dilation, "dilation");
  EMBER_CHECK(st[0] > 0 && st[1] > 0 && dl[0] > 0 && dl[1] > 0 && pd[0] >= 0 && pd[1] >= 0,
              "[quantized::{}] expected positive stride and dilation and non-negative padding", op);
  const int64_t nb = x.size(0), c = x.size(1), h = x.size(2), wd = x.size(3);
  const int64_t oc = w.size(0), kh = w.size(2), kw = w.size(3);
  const int64_t hp = h + 2 * pd[0], wp = wd + 2 * pd[1];
  const int64_t oh = (hp - dl[0] * (kh - 1) - 1) / st[0] + 1, ow = (wp - dl[1] * (kw - 1) - 1) / st[1] + 1;
  EMBER_CHECK(oh > 0 && ow > 0,
              "[quantized::{}] the output would be empty: the padded input {}x{} is smaller than the dilated kernel",
              op, hp, wp);
  const bool has_bias = b.has_value() && b->defined();
  if (has_bias)
    EMBER_CHECK(b->dtype() == kFloat32 && b->dim() == 1 && b->size(0) == oc,
                "[quantized::{}] expected a float32 bias of shape ({}), got {} of shape {}", op, oc, b->dtype(),
                b->sizes());
  auto yq = make_per_tensor_quantizer(op, y_scale, y_zero_point, kQUInt8);
  if (nb == 0 || oc == 0) return new_qtensor({nb, oc, oh, ow}, kQUInt8, yq);

  Tensor xn = ember::full({nb, hp, wp, c}, Scalar(xp.zero_point), TensorOptions(kUInt8));
  xn.slice(1, pd[0], pd[0] + h).slice(2, pd[1], pd[1] + wd).copy_(int_view(x).permute({0, 2, 3, 1}));
  auto entry = conv_cache().get({{nb, c, hp, wp}, {oc, kh, kw}, {st[0], st[1], dl[0], dl[1]}}, [&] {
    const memory::desc src({nb, c, hp, wp}, memory::data_type::u8, memory::format_tag::nhwc);
    const memory::desc wei({oc, c, kh, kw}, memory::data_type::s8, memory::format_tag::any);
    const memory::desc dst({nb, oc, oh, ow}, memory::data_type::s32, memory::format_tag::nhwc);
    dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src, wei,
                                      dst, {st[0], st[1]}, {dl[0] - 1, dl[1] - 1}, {0, 0}, {0, 0});
    dnnl::convolution_forward::primitive_desc p(d, cpu::user_scratchpad_attr(), cpu::dnnl_engine());
    return std::make_shared<ConvEntry>(ConvEntry{p, dnnl::convolution_forward(p)});
  });
  auto pw =
      pack(w, entry->pd.weights_desc(), memory::desc({oc, c, kh, kw}, memory::data_type::s8, memory::format_tag::oihw));
  Tensor acc = ember::empty({nb, oh, ow, oc}, TensorOptions(kInt32));
  dnnl::engine& eng = cpu::dnnl_engine();
  cpu::run(entry->prim, entry->pd,
           {{DNNL_ARG_SRC, memory(entry->pd.src_desc(), eng, xn.data_ptr())},
            {DNNL_ARG_WEIGHTS, memory(pw->desc, eng, pw->buffer.data_ptr())},
            {DNNL_ARG_DST, memory(entry->pd.dst_desc(), eng, acc.data_ptr())}});
  // The result is channels-last (NHWC in memory, NCHW sizes), as LibTorch's quantized conv: the
  // epilogue writes rows, and the next conv reads them without a transpose.
  Tensor yn = new_qtensor({nb, oh, ow, oc}, kQUInt8, yq);
  requantize(acc.data_ptr<int32_t>(), static_cast<uint8_t*>(yn.data_ptr()), nb * oh * ow, oc, oc, 1, *pw, xp, b,
             y_scale, y_zero_point, relu);
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
