#pragma once
// Argument checks and output shapes of the CNN operators (convolution, pooling, batch and layer
// norm), shared by the cpu kernels (plugins/cpu/conv.cpp, pool.cpp, norm.cpp) and the meta kernels
// (the same names in plugins/meta), so both give the same sizes and the same errors. `dev` is the
// device type the calling kernel serves: tensors on another device are rejected with the message
// the cpu kernels always gave ("expected a CPU tensor").
#include <fmt/format.h>

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "ember/native/TensorHelpers.h"

namespace ember::native::nn {

// Throws unless t is on device type `dev`.
inline void check_on(const char* op, DeviceType dev, const Tensor& t) {
  if (dev == kCPU)
    EMBER_CHECK(t.device().type() == kCPU, "[{}] expected a CPU tensor, got one on {}", op, t.device());
  else
    EMBER_CHECK(t.device().type() == dev, "[{}] expected a {} tensor, got one on {}", op, Device(dev), t.device());
}
inline void check_on(const char* op, DeviceType dev, const Tensor& a, const Tensor& b) {
  check_same_device(op, dev, a, b);
}

struct Pair {
  int64_t h = 0, w = 0;
};

// An int[2] argument given as one value (both dimensions) or two.
inline Pair pair_arg(IntArrayRef v, const char* op, const char* name) {
  EMBER_CHECK(v.size() == 1 || v.size() == 2,
              "[{}] argument '{}': expected a single int or a tuple of two ints, got {}", op, name, v);
  return v.size() == 1 ? Pair{v[0], v[0]} : Pair{v[0], v[1]};
}

// The dtype a kernel computes t's dtype in (float16/bfloat16 -> float32); TypeError otherwise
// (Note [CPU CNN kernel dtypes] in plugins/cpu/NN.h). Results are in the input's dtype.
inline ScalarType compute_float(const Tensor& t, const char* op, const char* name) {
  const ScalarType dt = t.dtype();
  EMBER_CHECK_TYPE(is_floating_type(dt), "[{}] argument '{}': expected a floating point tensor, got {}", op, name, dt);
  return dt == kFloat64 ? kFloat64 : kFloat32;
}

// An optional per-channel tensor (weight, bias, running stats): false when absent; else checked
// to be a floating 1-D tensor of `n` elements.
inline bool check_vector(const char* op, DeviceType dev, const std::optional<Tensor>& t, int64_t n, const char* name) {
  if (!t || !t->defined()) return false;
  check_on(op, dev, *t);
  EMBER_CHECK(t->dim() == 1 && t->size(0) == n,
              "[{}] argument '{}': expected a 1-D tensor of {} elements, got shape {}", op, name, n, t->sizes());
  compute_float(*t, op, name);
  return true;
}

// ---- convolution ------------------------------------------------------------------------------

// Note [Convolution geometry]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~
// convolution takes 1, 2 or 3 spatial dimensions: (N, C, L), (N, C, H, W) or (N, C, D, H, W)
// inputs. ConvGeom holds each in 3-D form with leading unit dimensions (a length L is D = H = 1,
// W = L), so the kernels have one code path (oneDNN's 2-D primitives take the 1-D case).
// A transposed convolution is the adjoint (the input gradient) of the forward convolution that
// maps its output back to its input, with the same weight, and ConvGeom describes that forward
// convolution: its input (N, C, D, H, W) is the transposed call's output, its output
// (N, O, oD, oH, oW) the call's input, and the call's weight (in_channels, out_channels / groups,
// k...) is the forward one's (O, C / groups, k...). The forward of a transposed convolution is
// then the forward convolution's data gradient, its data gradient the forward convolution, and
// its weight gradient the forward one's with the roles of input and output gradient swapped.
struct ConvGeom {
  int64_t nd = 2;  // spatial dimensions of the call: 1, 2 or 3
  bool transposed = false;
  int64_t N = 0, C = 0, D = 1, H = 1, W = 1;  // the forward convolution's input
  int64_t O = 0, kD = 1, kH = 1, kW = 1;      // weight [O, C / G, kD, kH, kW]
  int64_t G = 1;                              // groups
  int64_t sD = 1, sH = 1, sW = 1, pD = 0, pH = 0, pW = 0, dD = 1, dH = 1, dW = 1;
  int64_t oD = 1, oH = 1, oW = 1;  // the forward convolution's output

  std::vector<int64_t> fwd_input_sizes() const { return sizes(C, {D, H, W}); }
  std::vector<int64_t> fwd_output_sizes() const { return sizes(O, {oD, oH, oW}); }
  // The call's input and output shapes, and its output channels (the bias's size).
  std::vector<int64_t> input_sizes() const { return transposed ? fwd_output_sizes() : fwd_input_sizes(); }
  std::vector<int64_t> output_sizes() const { return transposed ? fwd_input_sizes() : fwd_output_sizes(); }
  int64_t out_channels() const { return transposed ? C : O; }

 private:
  std::vector<int64_t> sizes(int64_t channels, std::array<int64_t, 3> spatial) const {
    std::vector<int64_t> r{N, channels};
    for (int64_t i = 3 - nd; i < 3; ++i) r.push_back(spatial[static_cast<size_t>(i)]);
    return r;
  }
};

// An int[nd] argument given as one value (every dimension) or nd, in 3-D form (leading `fill`).
inline std::array<int64_t, 3> spatial_arg(IntArrayRef v, int64_t nd, int64_t fill, const char* op, const char* name) {
  static const char* const kCounts[] = {"", "one", "two", "three"};
  EMBER_CHECK(v.size() == 1 || static_cast<int64_t>(v.size()) == nd,
              "[{}] argument '{}': expected a single int{}, got {}", op, name,
              nd == 1 ? "" : fmt::format(" or a tuple of {} ints", kCounts[nd]), v);
  std::array<int64_t, 3> r{fill, fill, fill};
  for (int64_t i = 0; i < nd; ++i) r[static_cast<size_t>(3 - nd + i)] = v[v.size() == 1 ? 0 : static_cast<size_t>(i)];
  return r;
}

// The last nd of a 3-D form's values joined by 'x' ("7x3").
inline std::string spatial_str(std::array<int64_t, 3> v, int64_t nd) {
  std::string s;
  for (int64_t i = 3 - nd; i < 3; ++i) {
    if (!s.empty()) s += 'x';
    s += std::to_string(v[static_cast<size_t>(i)]);
  }
  return s;
}

// The layout of convolution's result (LibTorch 1.13's CPU rule, mkldnn and slow_conv2d alike): a
// 2-d, non-transposed convolution whose input or weight is channels-last gives a channels-last
// result; anything else a contiguous one (Note [Memory formats]).
inline MemoryFormat conv_output_format(const ConvGeom& g, const Tensor& input, const Tensor& weight) {
  if (g.transposed || g.nd != 2 || input.dim() != 4) return MemoryFormat::Contiguous;
  return input.suggest_memory_format() == MemoryFormat::ChannelsLast ||
                 weight.suggest_memory_format() == MemoryFormat::ChannelsLast
             ? MemoryFormat::ChannelsLast
             : MemoryFormat::Contiguous;
}

inline ConvGeom check_conv(const char* op, DeviceType dev, const Tensor& input, const Tensor& weight,
                           const std::optional<Tensor>& bias, IntArrayRef stride, IntArrayRef padding,
                           IntArrayRef dilation, bool transposed, IntArrayRef output_padding, int64_t groups) {
  check_defined(op, input, "input");
  check_defined(op, weight, "weight");
  check_on(op, dev, input, weight);
  EMBER_CHECK(input.dim() >= 3 && input.dim() <= 5,
              "[{}] argument 'input': expected a 3-D (N, C, L), 4-D (N, C, H, W) or 5-D (N, C, D, H, W) input, got "
              "shape {}",
              op, input.sizes());
  const int64_t nd = input.dim() - 2;
  EMBER_CHECK(
      weight.dim() == input.dim(),
      "[{}] argument 'weight': expected a {}-D weight ({}, in_channels / groups, kernel...) for a {}-D input, got "
      "shape {}",
      op, input.dim(), transposed ? "in_channels, out_channels / groups, kernel..." : "out_channels", input.dim(),
      weight.sizes());
  compute_float(input, op, "input");
  EMBER_CHECK_TYPE(weight.dtype() == input.dtype(),
                   "[{}] expected input and weight to have the same dtype, got {} and {}", op, input.dtype(),
                   weight.dtype());
  EMBER_CHECK(groups > 0, "[{}] argument 'groups': expected a positive value, got {}", op, groups);
  ConvGeom g;
  g.nd = nd, g.transposed = transposed, g.G = groups, g.N = input.size(0);
  const int64_t in_ch = input.size(1);
  if (!transposed) {
    g.C = in_ch, g.O = weight.size(0);
    EMBER_CHECK(g.O % groups == 0, "[{}] expected out_channels ({}, weight shape {}) to be divisible by groups ({})",
                op, g.O, weight.sizes(), groups);
    EMBER_CHECK(g.C == weight.size(1) * groups,
                "[{}] expected input {} to have {} channels (weight {} with groups={}), but got {} channels", op,
                input.sizes(), weight.size(1) * groups, weight.sizes(), groups, g.C);
  } else {
    g.O = in_ch, g.C = weight.size(1) * groups;
    EMBER_CHECK(weight.size(0) == in_ch,
                "[{}] expected input {} to have {} channels (weight {}'s in_channels, transposed), but got {} channels",
                op, input.sizes(), weight.size(0), weight.sizes(), in_ch);
    EMBER_CHECK(in_ch % groups == 0, "[{}] expected in_channels ({}, weight shape {}) to be divisible by groups ({})",
                op, in_ch, weight.sizes(), groups);
  }
  std::array<int64_t, 3> k{1, 1, 1}, in{1, 1, 1};
  for (int64_t i = 0; i < nd; ++i) {
    k[static_cast<size_t>(3 - nd + i)] = weight.size(2 + i);
    in[static_cast<size_t>(3 - nd + i)] = input.size(2 + i);
  }
  EMBER_CHECK(weight.size(transposed ? 1 : 0) > 0 && k[0] > 0 && k[1] > 0 && k[2] > 0,
              "[{}] argument 'weight': expected non-empty dimensions, got shape {}", op, weight.sizes());
  const auto s = spatial_arg(stride, nd, 1, op, "stride"), p = spatial_arg(padding, nd, 0, op, "padding"),
             d = spatial_arg(dilation, nd, 1, op, "dilation");
  for (int i = 0; i < 3; ++i) {
    EMBER_CHECK(s[i] > 0, "[{}] argument 'stride': expected positive values, got {}", op, stride);
    EMBER_CHECK(p[i] >= 0, "[{}] argument 'padding': expected non-negative values, got {}", op, padding);
    EMBER_CHECK(d[i] > 0, "[{}] argument 'dilation': expected positive values, got {}", op, dilation);
  }
  g.kD = k[0], g.kH = k[1], g.kW = k[2];
  g.sD = s[0], g.sH = s[1], g.sW = s[2], g.pD = p[0], g.pH = p[1], g.pW = p[2], g.dD = d[0], g.dH = d[1], g.dW = d[2];
  std::array<int64_t, 3> ek{}, out{};
  for (int i = 0; i < 3; ++i) ek[i] = (k[i] - 1) * d[i] + 1;
  if (!transposed) {
    for (int64_t v : output_padding)
      EMBER_CHECK(v == 0, "[{}] argument 'output_padding': expected zeros for a non-transposed convolution, got {}", op,
                  output_padding);
    bool fits = true;
    for (int i = 0; i < 3; ++i) fits = fits && ek[i] <= in[i] + 2 * p[i];
    std::array<int64_t, 3> padded{};
    for (int i = 0; i < 3; ++i) padded[i] = in[i] + 2 * p[i];
    EMBER_CHECK(fits,
                "[{}] kernel size (dilated) {} can't be greater than the padded input size {} (input {}, padding {})",
                op, spatial_str(ek, nd), spatial_str(padded, nd), input.sizes(), padding);
    for (int i = 0; i < 3; ++i) out[i] = (in[i] + 2 * p[i] - ek[i]) / s[i] + 1;
    g.D = in[0], g.H = in[1], g.W = in[2], g.oD = out[0], g.oH = out[1], g.oW = out[2];
  } else {
    const int64_t no_padding = 0;
    const auto opad =
        spatial_arg(output_padding.empty() ? IntArrayRef(no_padding) : output_padding, nd, 0, op, "output_padding");
    for (int i = 0; i < 3; ++i)
      EMBER_CHECK(opad[i] >= 0 && (opad[i] < s[i] || opad[i] < d[i]),
                  "[{}] argument 'output_padding': expected non-negative values smaller than either stride or "
                  "dilation, got output_padding {} with stride {} and dilation {}",
                  op, output_padding, stride, dilation);
    bool positive = true;
    for (int i = 0; i < 3; ++i) {
      out[i] = (in[i] - 1) * s[i] - 2 * p[i] + ek[i] + opad[i];
      positive = positive && out[i] > 0;
    }
    EMBER_CHECK(positive,
                "[{}] the output size {} of the transposed convolution is too small (input {}, weight {}, stride {}, "
                "padding {})",
                op, spatial_str(out, nd), input.sizes(), weight.sizes(), stride, padding);
    g.D = out[0], g.H = out[1], g.W = out[2], g.oD = in[0], g.oH = in[1], g.oW = in[2];
  }
  if (bias && bias->defined()) {
    check_on(op, dev, *bias);
    EMBER_CHECK(bias->dim() == 1 && bias->size(0) == g.out_channels(),
                "[{}] argument 'bias': expected a 1-D tensor of out_channels={} elements, got shape {}", op,
                g.out_channels(), bias->sizes());
    EMBER_CHECK_TYPE(bias->dtype() == input.dtype(),
                     "[{}] expected input and bias to have the same dtype, got {} and {}", op, input.dtype(),
                     bias->dtype());
  }
  return g;
}

// convolution_backward's arguments beyond the forward's: grad_output is the forward output's
// shape and dtype, bias_sizes (when the bias gradient is asked for) is [out_channels].
inline ConvGeom check_conv_backward(const char* op, DeviceType dev, const Tensor& grad_output, const Tensor& input,
                                    const Tensor& weight, std::optional<IntArrayRef> bias_sizes, IntArrayRef stride,
                                    IntArrayRef padding, IntArrayRef dilation, bool transposed,
                                    IntArrayRef output_padding, int64_t groups, std::array<bool, 3> output_mask) {
  const ConvGeom g =
      check_conv(op, dev, input, weight, std::nullopt, stride, padding, dilation, transposed, output_padding, groups);
  check_defined(op, grad_output, "grad_output");
  check_on(op, dev, grad_output);
  const std::vector<int64_t> want = g.output_sizes();
  EMBER_CHECK(grad_output.sizes() == IntArrayRef(want),
              "[{}] argument 'grad_output': expected shape {} (the convolution's output), got {}", op,
              IntArrayRef(want), grad_output.sizes());
  EMBER_CHECK_TYPE(grad_output.dtype() == input.dtype(),
                   "[{}] expected grad_output and input to have the same dtype, got {} and {}", op, grad_output.dtype(),
                   input.dtype());
  if (output_mask[2] && bias_sizes)
    EMBER_CHECK(bias_sizes->size() == 1 && (*bias_sizes)[0] == g.out_channels(),
                "[{}] argument 'bias_sizes': expected [{}], got {}", op, g.out_channels(), *bias_sizes);
  return g;
}

// ---- pooling ----------------------------------------------------------------------------------

// Note [Pooling over 1 to 3 dimensions]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// The pools of 1, 2 and 3 spatial dimensions (avg_pool1d/2d/3d, max_pool*_with_indices,
// adaptive pools) share one geometry: PoolGeom describes a window over planes of D x H x W, and
// the 1-d and 2-d forms are its special cases with leading unit dimensions (a length L is
// D = H = 1, W = L, with kernel 1, stride 1, padding 0 there), so each cpu kernel has one code
// path. An int[nd] argument is one value for every dimension or nd values (pool_arg). Inputs are
// (C, spatial...) or (N, C, spatial...); the output keeps the leading dimensions.
struct PoolGeom {
  int64_t planes, H, W;  // input: planes (N * C) of D x H x W
  int64_t kH, kW, sH, sW, pH, pW, dH, dW;
  int64_t oH, oW;
  int64_t D = 1, kD = 1, sD = 1, pD = 0, dD = 1, oD = 1;
  int64_t in_plane() const { return D * H * W; }
  int64_t out_plane() const { return oD * oH * oW; }
};

// (d, h, w) values of an int[nd] argument, `fill` in the dimensions the call does not have.
using Dims3 = std::array<int64_t, 3>;

inline Dims3 pool_arg(IntArrayRef v, int64_t nd, const char* op, const char* name, int64_t fill) {
  static constexpr const char* kForms[] = {"", "a single int", "a single int or a tuple of two ints",
                                           "a single int or a tuple of three ints"};
  EMBER_CHECK(v.size() == 1 || static_cast<int64_t>(v.size()) == nd, "[{}] argument '{}': expected {}, got {}", op,
              name, kForms[nd], v);
  Dims3 r = {fill, fill, fill};
  for (int64_t i = 0; i < nd; ++i) r[3 - nd + i] = v.size() == 1 ? v[0] : v[i];
  return r;
}

// One output dimension of a pooling window: floor, or ceil where the last window still starts
// inside the input or its left padding (PyTorch's pooling_output_shape).
inline int64_t pooled_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil_mode) {
  const int64_t num = in + 2 * pad - dil * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  int64_t out = (num >= 0 ? num / stride : -((-num + stride - 1) / stride)) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

// A (C, spatial...) or (N, C, spatial...) floating input of nd spatial dimensions, with non-zero
// sizes except the batch.
inline void check_pool_input(const char* op, DeviceType dev, const Tensor& self, int64_t nd = 2) {
  static constexpr const char* kForms[] = {"", "a 2-D (C, L) or 3-D (N, C, L)", "a 3-D (C, H, W) or 4-D (N, C, H, W)",
                                           "a 4-D (C, D, H, W) or 5-D (N, C, D, H, W)"};
  check_defined(op, self, "self");
  check_on(op, dev, self);
  EMBER_CHECK(self.dim() == nd + 1 || self.dim() == nd + 2, "[{}] argument 'self': expected {} input, got shape {}", op,
              kForms[nd], self.sizes());
  for (int64_t d = self.dim() == nd + 2 ? 1 : 0; d < self.dim(); ++d)
    EMBER_CHECK(self.size(d) > 0, "[{}] argument 'self': expected non-zero sizes except the batch, got shape {}", op,
                self.sizes());
  compute_float(self, op, "self");
}

// The geometry of self's last nd dimensions as (D, H, W), planes the product of the others.
inline void pool_input_geom(const Tensor& self, int64_t nd, PoolGeom& g) {
  Dims3 in = {1, 1, 1};
  for (int64_t i = 0; i < nd; ++i) in[3 - nd + i] = self.size(self.dim() - nd + i);
  g.D = in[0], g.H = in[1], g.W = in[2];
  g.planes = g.in_plane() == 0 ? 0 : self.numel() / g.in_plane();
}

// max_pool{1,2,3}d_with_indices and the avg pools (dilation 1): the checks and the geometry.
inline PoolGeom check_pool(const char* op, DeviceType dev, const Tensor& self, int64_t nd, IntArrayRef kernel_size,
                           IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  check_pool_input(op, dev, self, nd);
  const Dims3 k = pool_arg(kernel_size, nd, op, "kernel_size", 1);
  const Dims3 s = stride.empty() ? k : pool_arg(stride, nd, op, "stride", 1);
  const Dims3 p = pool_arg(padding, nd, op, "padding", 0), d = pool_arg(dilation, nd, op, "dilation", 1);
  for (int i = 0; i < 3; ++i) {
    EMBER_CHECK(k[i] > 0, "[{}] argument 'kernel_size': expected positive values, got {}", op, kernel_size);
    EMBER_CHECK(s[i] > 0, "[{}] argument 'stride': expected positive values, got {}", op, stride);
    EMBER_CHECK(d[i] > 0, "[{}] argument 'dilation': expected positive values, got {}", op, dilation);
  }
  for (int i = 0; i < 3; ++i)
    EMBER_CHECK(p[i] >= 0 && p[i] <= k[i] / 2,
                "[{}] argument 'padding': expected non-negative values at most half the kernel size {}, got {}", op,
                kernel_size, padding);
  PoolGeom g{};
  pool_input_geom(self, nd, g);
  g.kD = k[0], g.kH = k[1], g.kW = k[2], g.sD = s[0], g.sH = s[1], g.sW = s[2];
  g.pD = p[0], g.pH = p[1], g.pW = p[2], g.dD = d[0], g.dH = d[1], g.dW = d[2];
  g.oD = pooled_size(g.D, k[0], p[0], s[0], d[0], ceil_mode);
  g.oH = pooled_size(g.H, k[1], p[1], s[1], d[1], ceil_mode);
  g.oW = pooled_size(g.W, k[2], p[2], s[2], d[2], ceil_mode);
  const Dims3 o = {g.oD, g.oH, g.oW};
  EMBER_CHECK(g.oD >= 1 && g.oH >= 1 && g.oW >= 1,
              "[{}] given input of shape {}, the calculated output size {} is too small (kernel_size {}, stride {}, "
              "padding {}, dilation {})",
              op, self.sizes(), fmt::join(o.end() - nd, o.end(), "x"), kernel_size, stride, padding, dilation);
  return g;
}
inline PoolGeom check_pool(const char* op, DeviceType dev, const Tensor& self, IntArrayRef kernel_size,
                           IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return check_pool(op, dev, self, 2, kernel_size, stride, padding, dilation, ceil_mode);
}

// avg_pool{1,2,3}d: check_pool with dilation 1, and a non-zero divisor_override.
inline PoolGeom check_avg_pool(const char* op, DeviceType dev, const Tensor& self, int64_t nd, IntArrayRef kernel_size,
                               IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                               std::optional<int64_t> divisor_override) {
  const std::array<int64_t, 1> one = {1};
  const PoolGeom g = check_pool(op, dev, self, nd, kernel_size, stride, padding, IntArrayRef(one.data(), 1), ceil_mode);
  EMBER_CHECK(!divisor_override || *divisor_override != 0,
              "[{}] argument 'divisor_override': expected a non-zero value", op);
  return g;
}
inline PoolGeom check_avg_pool(const char* op, DeviceType dev, const Tensor& self, IntArrayRef kernel_size,
                               IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                               std::optional<int64_t> divisor_override) {
  return check_avg_pool(op, dev, self, 2, kernel_size, stride, padding, ceil_mode, divisor_override);
}

// Note [Pooled layouts]
// LibTorch 1.13's CPU pools keep a channels-last input's layout in their results, indices and
// gradients when they pool 2 dimensions of a 4-d input, and in the 1-d pools it runs as 2-d ones
// (an [N, C, L] input whose channels are innermost gives [C L, 1, C] strides). 3-d pools, unbatched
// inputs and everything else give contiguous tensors. The cpu kernels compute contiguously and
// reorder a channels-last result (a copy); the meta kernels give the same strides.
inline bool pool_keeps_channels_last(const Tensor& self, int64_t nd) {
  if (nd == 2 && self.dim() == 4) return self.suggest_memory_format() == MemoryFormat::ChannelsLast;
  if (nd == 1 && self.dim() == 3) return self.unsqueeze(-2).suggest_memory_format() == MemoryFormat::ChannelsLast;
  return false;
}
// The strides of a pooled tensor of `sizes` (4-d or 3-d when channels_last; see the Note).
inline std::vector<int64_t> pooled_strides(IntArrayRef sizes, bool channels_last) {
  const auto n = sizes.size();
  std::vector<int64_t> st(n, 1);
  for (size_t i = n - 1; i > 0; --i) st[i - 1] = st[i] * std::max<int64_t>(sizes[i], 1);
  if (!channels_last) return st;
  if (n == 4) {
    const auto cl = memory_format_strides(sizes, MemoryFormat::ChannelsLast, "pool");
    return {cl.begin(), cl.end()};
  }
  const int64_t C = std::max<int64_t>(sizes[1], 1), L = std::max<int64_t>(sizes[2], 1);
  return {C * L, 1, C};
}

// self's shape with the last nd sizes replaced by the output's (oD, oH, oW).
inline std::vector<int64_t> pooled_shape(const Tensor& self, int64_t nd, const PoolGeom& g) {
  std::vector<int64_t> s(self.sizes().begin(), self.sizes().end());
  const Dims3 o = {g.oD, g.oH, g.oW};
  for (int64_t i = 0; i < nd; ++i) s[s.size() - nd + i] = o[3 - nd + i];
  return s;
}
inline std::vector<int64_t> pooled_shape(const Tensor& self, int64_t oH, int64_t oW) {
  std::vector<int64_t> s(self.sizes().begin(), self.sizes().end());
  s[s.size() - 2] = oH;
  s[s.size() - 1] = oW;
  return s;
}

inline void check_pool_grad(const char* op, DeviceType dev, const Tensor& grad_output, const Tensor& self,
                            IntArrayRef want) {
  check_defined(op, grad_output, "grad_output");
  check_on(op, dev, grad_output);
  EMBER_CHECK(grad_output.sizes() == want, "[{}] argument 'grad_output': expected shape {} (the output's), got {}", op,
              want, grad_output.sizes());
  EMBER_CHECK_TYPE(grad_output.dtype() == self.dtype(),
                   "[{}] expected grad_output and self to have the same dtype, got {} and {}", op, grad_output.dtype(),
                   self.dtype());
}

// Max-pool indices: an int64 tensor of the output's shape.
inline void check_pool_indices(const char* op, DeviceType dev, const Tensor& indices, IntArrayRef shape) {
  check_defined(op, indices, "indices");
  check_on(op, dev, indices);
  EMBER_CHECK(indices.sizes() == shape && indices.dtype() == kInt64,
              "[{}] argument 'indices': expected an int64 tensor of shape {}, got {} of shape {}", op, shape,
              indices.dtype(), indices.sizes());
}

// max_pool{2,3}d_with_indices_backward: the forward's checks, grad_output and indices of the
// output's shape. Returns the geometry.
inline PoolGeom check_max_pool_backward(const char* op, DeviceType dev, const Tensor& grad_output, const Tensor& self,
                                        int64_t nd, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                                        IntArrayRef dilation, bool ceil_mode, const Tensor& indices) {
  const PoolGeom g = check_pool(op, dev, self, nd, kernel_size, stride, padding, dilation, ceil_mode);
  const auto shape = pooled_shape(self, nd, g);
  check_pool_grad(op, dev, grad_output, self, shape);
  check_pool_indices(op, dev, indices, shape);
  return g;
}
inline PoolGeom check_max_pool_backward(const char* op, DeviceType dev, const Tensor& grad_output, const Tensor& self,
                                        IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                                        IntArrayRef dilation, bool ceil_mode, const Tensor& indices) {
  return check_max_pool_backward(op, dev, grad_output, self, 2, kernel_size, stride, padding, dilation, ceil_mode,
                                 indices);
}

// The adaptive pools: the geometry with the output size (oD, oH, oW) (window fields unused).
inline PoolGeom check_adaptive_pool(const char* op, DeviceType dev, const Tensor& self, int64_t nd,
                                    IntArrayRef output_size) {
  static constexpr const char* kForms[] = {"", "one non-negative size", "two non-negative sizes",
                                           "three non-negative sizes"};
  check_pool_input(op, dev, self, nd);
  bool ok = static_cast<int64_t>(output_size.size()) == nd;
  for (int64_t v : output_size) ok = ok && v >= 0;
  EMBER_CHECK(ok, "[{}] argument 'output_size': expected {}, got {}", op, kForms[nd], output_size);
  PoolGeom g{};
  pool_input_geom(self, nd, g);
  Dims3 o = {1, 1, 1};
  for (int64_t i = 0; i < nd; ++i) o[3 - nd + i] = output_size[i];
  g.oD = o[0], g.oH = o[1], g.oW = o[2];
  return g;
}
inline Pair check_adaptive_pool(const char* op, DeviceType dev, const Tensor& self, IntArrayRef output_size) {
  const PoolGeom g = check_adaptive_pool(op, dev, self, 2, output_size);
  return {g.oH, g.oW};
}

// The adaptive pools' backward: the geometry, the output size read from grad_output.
inline PoolGeom check_adaptive_pool_backward(const char* op, DeviceType dev, const Tensor& grad_output,
                                             const Tensor& self, int64_t nd) {
  check_pool_input(op, dev, self, nd);
  check_defined(op, grad_output, "grad_output");
  EMBER_CHECK(grad_output.dim() == self.dim(), "[{}] expected grad_output of {} dimensions like self, got shape {}", op,
              self.dim(), grad_output.sizes());
  PoolGeom g{};
  pool_input_geom(self, nd, g);
  Dims3 o = {1, 1, 1};
  for (int64_t i = 0; i < nd; ++i) o[3 - nd + i] = grad_output.size(grad_output.dim() - nd + i);
  g.oD = o[0], g.oH = o[1], g.oW = o[2];
  check_pool_grad(op, dev, grad_output, self, pooled_shape(self, nd, g));
  return g;
}
inline Pair check_adaptive_pool_backward(const char* op, DeviceType dev, const Tensor& grad_output,
                                         const Tensor& self) {
  const PoolGeom g = check_adaptive_pool_backward(op, dev, grad_output, self, 2);
  return {g.oH, g.oW};
}

// ---- batch norm: input viewed as [N, C, L] ------------------------------------------------------

struct BnShape {
  int64_t N, C, L;
};

inline BnShape bn_shape(const char* op, DeviceType dev, const Tensor& input) {
  check_defined(op, input, "input");
  check_on(op, dev, input);
  EMBER_CHECK(input.dim() >= 2, "[{}] argument 'input': expected at least 2 dimensions (N, C, ...), got shape {}", op,
              input.sizes());
  BnShape s{input.size(0), input.size(1), 1};
  for (int64_t d = 2; d < input.dim(); ++d) s.L *= input.size(d);
  return s;
}

// native_batch_norm's checks (weight, bias and running stats are per-channel vectors; evaluation
// needs the running stats).
inline BnShape check_batch_norm(const char* op, DeviceType dev, const Tensor& input,
                                const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                                const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
                                bool training) {
  const BnShape s = bn_shape(op, dev, input);
  compute_float(input, op, "input");
  check_vector(op, dev, weight, s.C, "weight");
  check_vector(op, dev, bias, s.C, "bias");
  const bool has_rm = check_vector(op, dev, running_mean, s.C, "running_mean");
  const bool has_rv = check_vector(op, dev, running_var, s.C, "running_var");
  EMBER_CHECK(training || (has_rm && has_rv),
              "[{}] running_mean and running_var must be defined in evaluation mode (training=False)", op);
  return s;
}

// native_batch_norm_backward's checks. Training uses save_mean/save_invstd, evaluation the
// running stats; both pairs are per-channel vectors.
inline BnShape check_batch_norm_backward(const char* op, DeviceType dev, const Tensor& grad_out, const Tensor& input,
                                         const std::optional<Tensor>& weight, const std::optional<Tensor>& running_mean,
                                         const std::optional<Tensor>& running_var,
                                         const std::optional<Tensor>& save_mean,
                                         const std::optional<Tensor>& save_invstd, bool train) {
  const BnShape s = bn_shape(op, dev, input);
  check_defined(op, grad_out, "grad_out");
  check_on(op, dev, grad_out);
  EMBER_CHECK(grad_out.sizes() == input.sizes(), "[{}] argument 'grad_out': expected shape {} (input's), got {}", op,
              input.sizes(), grad_out.sizes());
  compute_float(input, op, "input");
  check_vector(op, dev, weight, s.C, "weight");
  if (train) {
    EMBER_CHECK(save_mean && save_mean->defined() && save_invstd && save_invstd->defined(),
                "[{}] save_mean and save_invstd must be defined when train=True", op);
    check_vector(op, dev, save_mean, s.C, "save_mean");
    check_vector(op, dev, save_invstd, s.C, "save_invstd");
  } else {
    EMBER_CHECK(running_mean && running_mean->defined() && running_var && running_var->defined(),
                "[{}] running_mean and running_var must be defined when train=False", op);
    check_vector(op, dev, running_mean, s.C, "running_mean");
    check_vector(op, dev, running_var, s.C, "running_var");
  }
  return s;
}

// ---- layer norm: input viewed as [M, N] -------------------------------------------------------

struct LnShape {
  int64_t M, N;
};

inline LnShape ln_shape(const char* op, DeviceType dev, const Tensor& input, IntArrayRef normalized_shape) {
  check_defined(op, input, "input");
  check_on(op, dev, input);
  const int64_t k = static_cast<int64_t>(normalized_shape.size());
  EMBER_CHECK(k >= 1, "[{}] argument 'normalized_shape': expected at least one dimension, got {}", op,
              normalized_shape);
  bool fits = input.dim() >= k;
  for (int64_t i = 0; fits && i < k; ++i) fits = input.size(input.dim() - k + i) == normalized_shape[i];
  EMBER_CHECK(
      fits,
      "[{}] given normalized_shape={}, expected the input's trailing dimensions to match it, but got input of shape {}",
      op, normalized_shape, input.sizes());
  LnShape s{1, 1};
  for (int64_t d = 0; d < input.dim(); ++d) (d < input.dim() - k ? s.M : s.N) *= input.size(d);
  return s;
}

// An optional weight or bias of normalized_shape: false when absent.
inline bool check_ln_param(const char* op, DeviceType dev, const std::optional<Tensor>& t, IntArrayRef normalized_shape,
                           const char* name) {
  if (!t || !t->defined()) return false;
  check_on(op, dev, *t);
  EMBER_CHECK(t->sizes() == normalized_shape, "[{}] argument '{}': expected shape {} (normalized_shape), got {}", op,
              name, normalized_shape, t->sizes());
  compute_float(*t, op, name);
  return true;
}

// The shape of layer norm's mean and rstd: input's with the normalized dimensions set to 1.
inline std::vector<int64_t> ln_stat_shape(const Tensor& input, int64_t k) {
  std::vector<int64_t> s(input.sizes().begin(), input.sizes().end());
  for (int64_t i = 0; i < k; ++i) s[s.size() - 1 - i] = 1;
  return s;
}

inline LnShape check_layer_norm(const char* op, DeviceType dev, const Tensor& input, IntArrayRef normalized_shape,
                                const std::optional<Tensor>& weight, const std::optional<Tensor>& bias) {
  const LnShape s = ln_shape(op, dev, input, normalized_shape);
  compute_float(input, op, "input");
  check_ln_param(op, dev, weight, normalized_shape, "weight");
  check_ln_param(op, dev, bias, normalized_shape, "bias");
  return s;
}

inline LnShape check_layer_norm_backward(const char* op, DeviceType dev, const Tensor& grad_out, const Tensor& input,
                                         IntArrayRef normalized_shape, const Tensor& mean, const Tensor& rstd,
                                         const std::optional<Tensor>& weight, const std::optional<Tensor>& bias) {
  const LnShape s = ln_shape(op, dev, input, normalized_shape);
  check_defined(op, grad_out, "grad_out");
  check_on(op, dev, grad_out);
  EMBER_CHECK(grad_out.sizes() == input.sizes(), "[{}] argument 'grad_out': expected shape {} (input's), got {}", op,
              input.sizes(), grad_out.sizes());
  for (const Tensor* t : {&mean, &rstd}) {
    check_defined(op, *t, t == &mean ? "mean" : "rstd");
    EMBER_CHECK(t->numel() == s.M, "[{}] argument '{}': expected {} elements (one per row), got shape {}", op,
                t == &mean ? "mean" : "rstd", s.M, t->sizes());
  }
  compute_float(input, op, "input");
  check_ln_param(op, dev, weight, normalized_shape, "weight");
  check_ln_param(op, dev, bias, normalized_shape, "bias");
  return s;
}

}  // namespace ember::native::nn
