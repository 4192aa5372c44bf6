// The CNN operators (conv2d/convolution(+backward), max/avg/adaptive pooling (+backward),
// batch/layer norm (+backward)) against naive float64 loops over the values read straight from
// memory (OpTestUtil.h's values()): several geometries, non-contiguous inputs, every floating
// dtype; the backward kernels against the reference gradients and a float64 finite difference;
// the error messages.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "ember/ember.h"

#include "OpTestUtil.h"

using namespace ember;
using ember::optest::error_of;
using ember::optest::expect_thread_invariant;
using ember::optest::from_values;
using ember::optest::values;
using Vec = std::vector<double>;
using Shape = std::vector<int64_t>;

namespace {

const ScalarType kFloats[] = {kFloat32, kFloat64, kFloat16, kBFloat16};

int64_t numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t x : s) n *= x;
  return n;
}

// Deterministic values in [-1, 1), rounded to dtype dt (so the reference sees what is stored).
Vec random_values(int64_t n, unsigned seed) {
  Vec v(static_cast<size_t>(n));
  for (auto& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<double>(seed >> 8) / static_cast<double>(1 << 23) - 1.0;
  }
  return v;
}

enum class Layout2 { Contiguous, Sliced, Transposed };

// A tensor with logical values v laid out as `l` (the last dimension sliced with step 2, or the
// last two stored transposed).
Tensor make(const Shape& shape, ScalarType dt, const Vec& v, Layout2 l = Layout2::Contiguous) {
  if (l == Layout2::Contiguous || shape.size() < 2) return from_values(shape, dt, v);
  const size_t nd = shape.size();
  if (l == Layout2::Sliced) {
    Shape big = shape;
    big[nd - 1] *= 2;
    Vec bv(static_cast<size_t>(numel(big)), 0.0);
    for (size_t i = 0; i < v.size(); ++i) bv[2 * i] = v[i];
    Tensor t = from_values(big, dt, bv).slice(-1, 0, std::nullopt, 2);
    EXPECT_FALSE(t.is_contiguous());
    return t;
  }
  Shape sw = shape;
  std::swap(sw[nd - 1], sw[nd - 2]);
  const int64_t R = shape[nd - 2], C = shape[nd - 1], B = numel(shape) / (R * C);
  Vec tv(v.size());
  for (int64_t b = 0; b < B; ++b)
    for (int64_t r = 0; r < R; ++r)
      for (int64_t c = 0; c < C; ++c) tv[(b * C + c) * R + r] = v[(b * R + r) * C + c];
  Tensor t = from_values(sw, dt, tv).transpose(-1, -2);
  EXPECT_FALSE(t.is_contiguous() && R > 1 && C > 1);
  return t;
}

Tensor randt(const Shape& shape, ScalarType dt, unsigned seed, Layout2 l = Layout2::Contiguous) {
  return make(shape, dt, random_values(numel(shape), seed), l);
}

double tol_for(ScalarType dt) {
  switch (dt) {
    case kFloat64:
      return 1e-10;
    case kFloat32:
      return 2e-5;
    case kFloat16:
      return 2e-2;
    default:
      return 6e-2;  // bfloat16
  }
}

void expect_close(const Tensor& got, const Vec& want, const Shape& shape, double tol, const std::string& what) {
  ASSERT_TRUE(got.defined()) << what;
  ASSERT_EQ(Shape(got.sizes().begin(), got.sizes().end()), shape) << what;
  const Vec g = values(got);
  ASSERT_EQ(g.size(), want.size()) << what;
  for (size_t i = 0; i < g.size(); ++i) {
    if (std::isnan(want[i]) || std::isinf(want[i])) {
      if (std::isnan(want[i]))
        EXPECT_TRUE(std::isnan(g[i])) << what << " at " << i;
      else
        EXPECT_EQ(g[i], want[i]) << what << " at " << i;
      continue;
    }
    ASSERT_NEAR(g[i], want[i], tol * std::max(1.0, std::fabs(want[i]))) << what << " at " << i;
  }
}

// ---- convolution reference ------------------------------------------------------------------

struct ConvCase {
  Shape x, w;  // input [N, C, H, W], weight [O, C / G, kH, kW]
  bool bias;
  std::array<int64_t, 2> stride, padding, dilation;
  int64_t groups;
};

struct ConvRef {
  Shape out_shape;
  Vec out;
};

int64_t conv_out(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) {
  return (in + 2 * p - d * (k - 1) - 1) / s + 1;
}

// Calls f(n, o, oh, ow, c, kh, kw, input offset, weight offset) for every in-bounds tap.
template <class F>
Shape conv_taps(const ConvCase& c, F&& f) {
  const int64_t N = c.x[0], C = c.x[1], H = c.x[2], W = c.x[3], O = c.w[0], Cg = c.w[1], kH = c.w[2], kW = c.w[3];
  const int64_t oH = conv_out(H, kH, c.stride[0], c.padding[0], c.dilation[0]);
  const int64_t oW = conv_out(W, kW, c.stride[1], c.padding[1], c.dilation[1]);
  const int64_t Og = O / c.groups;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t oh = 0; oh < oH; ++oh)
        for (int64_t ow = 0; ow < oW; ++ow)
          for (int64_t ci = 0; ci < Cg; ++ci)
            for (int64_t kh = 0; kh < kH; ++kh)
              for (int64_t kw = 0; kw < kW; ++kw) {
                const int64_t ih = oh * c.stride[0] - c.padding[0] + kh * c.dilation[0];
                const int64_t iw = ow * c.stride[1] - c.padding[1] + kw * c.dilation[1];
                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                const int64_t cin = (o / Og) * Cg + ci;
                f(((n * O + o) * oH + oh) * oW + ow, ((n * C + cin) * H + ih) * W + iw,
                  ((o * Cg + ci) * kH + kh) * kW + kw);
              }
  return {N, O, oH, oW};
}

ConvRef ref_conv(const ConvCase& c, const Vec& x, const Vec& w, const Vec& b) {
  ConvRef r;
  Shape s = conv_taps(c, [](int64_t, int64_t, int64_t) {});
  r.out_shape = s;
  r.out.assign(static_cast<size_t>(numel(s)), 0.0);
  conv_taps(c, [&](int64_t oi, int64_t xi, int64_t wi) { r.out[oi] += x[xi] * w[wi]; });
  if (c.bias) {
    const int64_t L = s[2] * s[3];
    for (int64_t i = 0; i < numel(s); ++i) r.out[i] += b[(i / L) % s[1]];
  }
  return r;
}

void ref_conv_backward(const ConvCase& c, const Vec& go, const Vec& x, const Vec& w, Vec& gx, Vec& gw, Vec& gb,
                       const Shape& out_shape) {
  gx.assign(x.size(), 0.0);
  gw.assign(w.size(), 0.0);
  gb.assign(static_cast<size_t>(c.w[0]), 0.0);
  conv_taps(c, [&](int64_t oi, int64_t xi, int64_t wi) {
    gx[xi] += go[oi] * w[wi];
    gw[wi] += go[oi] * x[xi];
  });
  const int64_t L = out_shape[2] * out_shape[3];
  for (int64_t i = 0; i < numel(out_shape); ++i) gb[(i / L) % out_shape[1]] += go[i];
}

const std::vector<ConvCase> kConvCases = {
    {{2, 3, 7, 6}, {4, 3, 3, 3}, true, {1, 1}, {1, 1}, {1, 1}, 1},
    {{1, 4, 9, 8}, {6, 2, 3, 2}, false, {2, 1}, {1, 0}, {1, 2}, 2},     // groups, non-square, dilation
    {{2, 2, 6, 7}, {3, 2, 2, 3}, true, {2, 3}, {0, 2}, {2, 1}, 1},      // stride > 1, asymmetric padding
    {{1, 6, 5, 5}, {6, 1, 3, 3}, true, {1, 1}, {1, 1}, {1, 1}, 6},      // depthwise
    {{3, 16, 8, 8}, {32, 16, 1, 1}, true, {1, 1}, {0, 0}, {1, 1}, 1},   // 1x1, blocked-layout friendly
    {{1, 1, 4, 4}, {1, 1, 4, 4}, false, {1, 1}, {0, 0}, {1, 1}, 1},     // kernel == input
    {{2, 32, 9, 10}, {48, 32, 3, 3}, true, {1, 1}, {1, 1}, {1, 1}, 1},  // 3x3 stride 1: Winograd in float32
};

TEST(CpuNNConv, ForwardMatchesReference) {
  for (ScalarType dt : kFloats)
    for (const ConvCase& c : kConvCases)
      for (Layout2 l : {Layout2::Contiguous, Layout2::Sliced, Layout2::Transposed}) {
        const Vec xv = random_values(numel(c.x), 1), wv = random_values(numel(c.w), 2), bv = random_values(c.w[0], 3);
        const Tensor x = make(c.x, dt, xv, l), w = make(c.w, dt, wv, l);
        const Tensor b = c.bias ? make({c.w[0]}, dt, bv) : Tensor();
        // The reference sees the values as stored in dt.
        const ConvRef r = ref_conv(c, values(x), values(w), c.bias ? values(b) : Vec{});
        const Tensor y = ember::conv2d(x, w, c.bias ? std::optional<Tensor>(b) : std::nullopt, c.stride, c.padding,
                                       c.dilation, c.groups);
        EXPECT_EQ(y.dtype(), dt);
        EXPECT_TRUE(y.is_contiguous());
        const double K = static_cast<double>(c.w[1] * c.w[2] * c.w[3]);
        expect_close(y, r.out, r.out_shape, tol_for(dt) * std::sqrt(K),
                     std::string("conv2d ") + std::string(dtype_name(dt)) + " case x=" + std::to_string(c.x[1]) +
                         " layout " + std::to_string(static_cast<int>(l)));
      }
}

TEST(CpuNNConv, ScalarParametersAndUnbatchedInput) {
  const ConvCase c{{1, 2, 6, 5}, {3, 2, 3, 3}, true, {2, 2}, {1, 1}, {1, 1}, 1};
  const Tensor x = randt(c.x, kFloat64, 4), w = randt(c.w, kFloat64, 5), b = randt({3}, kFloat64, 6);
  const ConvRef r = ref_conv(c, values(x), values(w), values(b));
  // int[2] arguments given as one int apply to both dimensions.
  const Tensor y = ember::conv2d(x, w, b, 2, 1, 1, 1);
  expect_close(y, r.out, r.out_shape, 1e-12, "scalar stride/padding");
  // A 3-D input is one unbatched image: the result has no batch dimension.
  const Tensor y3 = ember::conv2d(x.select(0, 0), w, b, 2, 1);
  expect_close(y3, r.out, {r.out_shape[1], r.out_shape[2], r.out_shape[3]}, 1e-12, "unbatched");
  // The defaults: no bias, stride 1, padding 0.
  const ConvCase d{{1, 2, 6, 5}, {3, 2, 3, 3}, false, {1, 1}, {0, 0}, {1, 1}, 1};
  const ConvRef rd = ref_conv(d, values(x), values(w), {});
  expect_close(ember::conv2d(x, w), rd.out, rd.out_shape, 1e-12, "defaults");
  // Through the boxed path with the schema's defaults.
  const Tensor yb = ember::ops::call("aten::conv2d", x, w).toTensor();
  expect_close(yb, rd.out, rd.out_shape, 1e-12, "boxed defaults");
}

TEST(CpuNNConv, NonFiniteInputsStayLocal) {
  // An inf reaches only the outputs whose window covers it, also on the shapes that take the
  // Winograd kernel for finite inputs (3x3 stride 1).
  const ConvCase c{{1, 16, 12, 12}, {16, 16, 3, 3}, false, {1, 1}, {1, 1}, {1, 1}, 1};
  Vec xv = random_values(numel(c.x), 121);
  for (double& v : xv) v = std::fabs(v) + 0.1;
  xv[5 * 12 + 5] = std::numeric_limits<double>::infinity();
  Vec wv = random_values(numel(c.w), 122);
  for (double& v : wv) v = std::fabs(v) + 0.1;
  const Tensor x = from_values(c.x, kFloat32, xv), w = from_values(c.w, kFloat32, wv);
  const ConvRef r = ref_conv(c, values(x), values(w), {});
  int64_t infs = 0;
  for (double v : r.out) infs += std::isinf(v) ? 1 : 0;
  EXPECT_EQ(infs, 16 * 9);
  expect_close(ember::conv2d(x, w, {}, 1, 1), r.out, r.out_shape, 2e-5 * 12, "inf in the input");
  // Finite again: the same shape (now Winograd) still matches.
  xv[5 * 12 + 5] = 1;
  const Tensor xf = from_values(c.x, kFloat32, xv);
  const ConvRef rf = ref_conv(c, values(xf), values(w), {});
  expect_close(ember::conv2d(xf, w, {}, 1, 1), rf.out, rf.out_shape, 2e-5 * 12, "finite");
}

TEST(CpuNNConv, NoInputChannelsGivesTheBias) {
  for (ScalarType dt : {kFloat32, kFloat64}) {
    const Tensor x = ember::empty({2, 0, 4, 4}, dt), w = ember::empty({3, 0, 2, 2}, dt);
    const Tensor b = from_values({3}, dt, {1, -2, 3});
    Vec want;
    for (int n = 0; n < 2; ++n)
      for (double v : {1.0, -2.0, 3.0})
        for (int i = 0; i < 9; ++i) want.push_back(v);
    expect_close(ember::conv2d(x, w, b), want, {2, 3, 3, 3}, 0, "C = 0");
  }
}

TEST(CpuNNConv, WeightReorderCacheSeesInPlaceUpdates) {
  // Same weight tensor, called twice: the second call must see an in-place update (version bump).
  const ConvCase c{{2, 16, 6, 6}, {16, 16, 3, 3}, true, {1, 1}, {1, 1}, {1, 1}, 1};
  const Tensor x = randt(c.x, kFloat32, 7), w = randt(c.w, kFloat32, 8), b = randt({16}, kFloat32, 9);
  const Tensor y1 = ember::conv2d(x, w, b, 1, 1);
  const Tensor y1b = ember::conv2d(x, w, b, 1, 1);
  EXPECT_TRUE(ember::equal(y1, y1b));
  w.mul_(2.0);
  const ConvRef r = ref_conv(c, values(x), values(w), values(b));
  expect_close(ember::conv2d(x, w, b, 1, 1), r.out, r.out_shape, 2e-5 * 12, "after w.mul_(2)");
  // A view of the same storage with other strides is a different weight.
  const Tensor wt = w.transpose(0, 1);
  const ConvRef rt = ref_conv(c, values(x), values(wt), values(b));
  expect_close(ember::conv2d(x, wt, b, 1, 1), rt.out, rt.out_shape, 2e-5 * 12, "transposed view of the weight");
}

TEST(CpuNNConv, BackwardMatchesReference) {
  for (ScalarType dt : kFloats)
    for (const ConvCase& c : kConvCases) {
      const Tensor x = randt(c.x, dt, 11, Layout2::Sliced), w = randt(c.w, dt, 12);
      Shape os = conv_taps(c, [](int64_t, int64_t, int64_t) {});
      const Tensor go = randt(os, dt, 13, Layout2::Transposed);
      Vec gx, gw, gb;
      ref_conv_backward(c, values(go), values(x), values(w), gx, gw, gb, os);
      const std::array<int64_t, 1> bs = {c.w[0]};
      const std::array<int64_t, 2> zero = {0, 0};
      auto [gi, gwt, gbt] = ember::convolution_backward(go, x, w, IntArrayRef(bs.data(), 1), c.stride, c.padding,
                                                        c.dilation, false, zero, c.groups, {true, true, true});
      const std::string what =
          std::string("convolution_backward ") + std::string(dtype_name(dt)) + " C=" + std::to_string(c.x[1]);
      const double red = std::sqrt(static_cast<double>(os[0] * os[2] * os[3] + c.w[0] * c.w[2] * c.w[3]));
      expect_close(gi, gx, c.x, tol_for(dt) * red, what + " grad_input");
      expect_close(gwt, gw, c.w, tol_for(dt) * red, what + " grad_weight");
      expect_close(gbt, gb, {c.w[0]}, tol_for(dt) * red, what + " grad_bias");
      // Only the masked outputs are computed.
      auto [a, bb, cc] = ember::convolution_backward(go, x, w, std::nullopt, c.stride, c.padding, c.dilation, false,
                                                     zero, c.groups, {false, true, false});
      EXPECT_FALSE(a.defined());
      EXPECT_FALSE(cc.defined());
      expect_close(bb, gw, c.w, tol_for(dt) * red, what + " grad_weight alone");
    }
}

// A float64 central difference of L = sum(f(x) * R) along a few coordinates of x.
void finite_difference(const std::function<Tensor(const Tensor&)>& f, const Tensor& x, const Tensor& R,
                       const Tensor& grad, const std::string& what, int probes = 6) {
  const Vec rv = values(R);
  auto loss = [&](const Tensor& xx) {
    const Vec y = values(f(xx));
    double s = 0;
    for (size_t i = 0; i < y.size(); ++i) s += y[i] * rv[i];
    return s;
  };
  const Vec xv = values(x), gv = values(grad);
  const Shape shape(x.sizes().begin(), x.sizes().end());
  const double h = 1e-6;
  for (int p = 0; p < probes; ++p) {
    const size_t i = (static_cast<size_t>(p) * 7919u + 3u) % xv.size();
    Vec plus = xv, minus = xv;
    plus[i] += h, minus[i] -= h;
    const double fd = (loss(from_values(shape, kFloat64, plus)) - loss(from_values(shape, kFloat64, minus))) / (2 * h);
    EXPECT_NEAR(gv[i], fd, 1e-6 * std::max(1.0, std::fabs(fd))) << what << " coordinate " << i;
  }
}

TEST(CpuNNConv, BackwardFiniteDifference) {
  const ConvCase c{{2, 4, 6, 5}, {6, 2, 3, 2}, true, {2, 1}, {1, 1}, {1, 2}, 2};
  const Tensor x = randt(c.x, kFloat64, 21), w = randt(c.w, kFloat64, 22), b = randt({6}, kFloat64, 23);
  const Tensor y = ember::conv2d(x, w, b, c.stride, c.padding, c.dilation, c.groups);
  const Tensor R = randt(Shape(y.sizes().begin(), y.sizes().end()), kFloat64, 24);
  const std::array<int64_t, 2> zero = {0, 0};
  auto [gx, gw, gb] = ember::convolution_backward(R, x, w, std::nullopt, c.stride, c.padding, c.dilation, false, zero,
                                                  c.groups, {true, true, true});
  finite_difference(
      [&](const Tensor& xx) { return ember::conv2d(xx, w, b, c.stride, c.padding, c.dilation, c.groups); }, x, R, gx,
      "d/dinput");
  finite_difference(
      [&](const Tensor& ww) { return ember::conv2d(x, ww, b, c.stride, c.padding, c.dilation, c.groups); }, w, R, gw,
      "d/dweight");
  finite_difference(
      [&](const Tensor& bb) { return ember::conv2d(x, w, bb, c.stride, c.padding, c.dilation, c.groups); }, b, R, gb,
      "d/dbias", 3);
}

TEST(CpuNNConv, Errors) {
  // A literal 0 padding is ambiguous with the string overload, as in LibTorch: `zero` spells it.
  const std::array<int64_t, 2> one = {1, 1}, zero = {0, 0};
  const Tensor x = randt({1, 4, 5, 5}, kFloat32, 1), w = randt({2, 4, 3, 3}, kFloat32, 2);
  EXPECT_ERROR(ValueError, ember::conv2d(x, randt({2, 4, 3}, kFloat32, 3)), "[conv2d]", "'weight'", "4-D", "[2, 4, 3]");
  EXPECT_ERROR(ValueError, ember::conv2d(randt({5, 5}, kFloat32, 3), w), "[conv2d]", "'input'", "3-D", "4-D");
  EXPECT_ERROR(ValueError, ember::conv2d(randt({1, 3, 5, 5}, kFloat32, 3), w), "[convolution]", "4 channels",
               "got 3 channels");
  EXPECT_ERROR(ValueError, ember::conv2d(x, randt({3, 2, 3, 3}, kFloat32, 3), {}, 1, zero, 1, 2),
               "divisible by groups");
  EXPECT_ERROR(ValueError, ember::conv2d(x, randt({2, 4, 7, 7}, kFloat32, 3)), "kernel size (dilated) 7x7",
               "padded input size 5x5");
  EXPECT_ERROR(ValueError, ember::conv2d(x, w, {}, 1, zero, 3), "kernel size (dilated) 7x7");
  EXPECT_ERROR(ValueError, ember::conv2d(x, w, randt({3}, kFloat32, 3)), "'bias'", "2 elements", "[3]");
  EXPECT_ERROR(ValueError, ember::conv2d(x, w, {}, 0), "'stride'", "positive");
  EXPECT_ERROR(ValueError, ember::conv2d(x, w, {}, 1, -1), "'padding'", "non-negative");
  EXPECT_ERROR(ValueError, ember::conv2d(x, w, {}, {1, 1, 1}), "'stride'", "tuple of two");
  EXPECT_ERROR(ValueError, ember::conv2d(x, w, {}, 1, zero, 1, 0), "'groups'", "positive");
  EXPECT_ERROR(TypeError, ember::conv2d(x, randt({2, 4, 3, 3}, kFloat64, 3)), "same dtype", "float32", "float64");
  EXPECT_ERROR(TypeError, ember::conv2d(x.to(kInt64), w.to(kInt64)), "floating point");
  // Transposed: w [2, 4, 3, 3] reads as (in_channels 2, out_channels 4), so x needs 2 channels.
  EXPECT_ERROR(ValueError, ember::convolution(x, w, std::nullopt, one, zero, one, true, zero, 1), "[convolution]",
               "to have 2 channels", "transposed");
  EXPECT_ERROR(ValueError,
               ember::convolution_backward(randt({1, 2, 4, 4}, kFloat32, 3), x, w, std::nullopt, one, zero, one, false,
                                           zero, 1, {true, true, true}),
               "'grad_output'", "[1, 2, 3, 3]");
}

// ---- pooling references ---------------------------------------------------------------------

struct PoolCase {
  Shape x;  // [N, C, H, W] or [C, H, W]
  std::array<int64_t, 2> k, s, p, d;
  bool ceil;
};

int64_t pool_out(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil) {
  const double v = static_cast<double>(in + 2 * p - d * (k - 1) - 1) / static_cast<double>(s);
  int64_t o = static_cast<int64_t>(ceil ? std::ceil(v) : std::floor(v)) + 1;
  if (ceil && (o - 1) * s >= in + p) --o;
  return o;
}

Shape pooled(const Shape& x, int64_t oH, int64_t oW) {
  Shape s = x;
  s[s.size() - 2] = oH, s[s.size() - 1] = oW;
  return s;
}

// Max pooling, PyTorch's rule: a tap wins if greater than the running max or NaN.
void ref_max_pool(const PoolCase& c, const Vec& x, Vec& out, std::vector<int64_t>& ind, Shape& os) {
  const int64_t H = c.x[c.x.size() - 2], W = c.x.back(), P = numel(c.x) / (H * W);
  const int64_t oH = pool_out(H, c.k[0], c.s[0], c.p[0], c.d[0], c.ceil),
                oW = pool_out(W, c.k[1], c.s[1], c.p[1], c.d[1], c.ceil);
  os = pooled(c.x, oH, oW);
  out.clear(), ind.clear();
  for (int64_t p = 0; p < P; ++p)
    for (int64_t oh = 0; oh < oH; ++oh)
      for (int64_t ow = 0; ow < oW; ++ow) {
        double m = -std::numeric_limits<double>::infinity();
        int64_t mi = -1;
        for (int64_t kh = 0; kh < c.k[0]; ++kh)
          for (int64_t kw = 0; kw < c.k[1]; ++kw) {
            const int64_t ih = oh * c.s[0] - c.p[0] + kh * c.d[0], iw = ow * c.s[1] - c.p[1] + kw * c.d[1];
            if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
            const double v = x[(p * H + ih) * W + iw];
            if (mi < 0 || v > m || std::isnan(v)) m = v, mi = ih * W + iw;
          }
        out.push_back(m);
        ind.push_back(mi);
      }
}

const std::vector<PoolCase> kPoolCases = {
    {{2, 3, 8, 8}, {2, 2}, {2, 2}, {0, 0}, {1, 1}, false},
    {{2, 3, 9, 7}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, false},
    {{1, 2, 9, 7}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, true},    // ceil_mode
    {{2, 10, 11}, {3, 2}, {1, 1}, {1, 0}, {1, 1}, false},    // unbatched, stride 1, non-square
    {{1, 2, 12, 13}, {3, 3}, {3, 2}, {1, 1}, {2, 2}, true},  // dilation
    {{1, 1, 5, 6}, {2, 3}, {1, 1}, {0, 1}, {1, 1}, false},
    {{3, 2, 6, 40}, {2, 2}, {2, 2}, {1, 1}, {1, 1}, true},  // long rows: the vectorized interior
    {{1, 1, 3, 3}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, false},
    {{2, 2, 11, 21}, {3, 2}, {2, 2}, {1, 1}, {2, 1}, true},  // dilation along H only
};

TEST(CpuNNPool, MaxPoolMatchesReference) {
  for (ScalarType dt : kFloats)
    for (const PoolCase& c : kPoolCases)
      for (Layout2 l : {Layout2::Contiguous, Layout2::Transposed}) {
        const Tensor x = randt(c.x, dt, 31, l);
        Vec out;
        std::vector<int64_t> ind;
        Shape os;
        ref_max_pool(c, values(x), out, ind, os);
        auto [y, i] = ember::max_pool2d_with_indices(x, c.k, c.s, c.p, c.d, c.ceil);
        const std::string what = std::string("max_pool2d ") + std::string(dtype_name(dt)) + " " +
                                 std::to_string(c.x.back()) + "/" + std::to_string(c.k[0]);
        EXPECT_EQ(y.dtype(), dt);
        EXPECT_EQ(i.dtype(), kInt64);
        expect_close(y, out, os, 0, what);
        Vec iv(ind.begin(), ind.end());
        expect_close(i, iv, os, 0, what + " indices");
        expect_close(ember::max_pool2d(x, c.k, c.s, c.p, c.d, c.ceil), out, os, 0, what + " (composite)");
      }
}

TEST(CpuNNPool, MaxPoolTiesNaNAndInfinity) {
  // Ties keep the first index; a NaN wins (the last one); -inf everywhere keeps the first tap.
  const double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
  for (ScalarType dt : {kFloat32, kFloat64}) {
    const Tensor x = from_values({1, 1, 2, 8}, dt,
                                 {1, 1, nan, 2, -inf, -inf, 3, 5,  //
                                  1, 0, 7, nan, -inf, -inf, 5, 4});
    auto [y, i] = ember::max_pool2d_with_indices(x, 2, 2);
    expect_close(y, {1, nan, -inf, 5}, {1, 1, 1, 4}, 0, "special values");
    expect_close(i, {0, 11, 4, 7}, {1, 1, 1, 4}, 0, "special indices");
  }
  // Default stride = kernel_size; a long row exercises the vectorized interior with ties.
  const Tensor z = ember::zeros({1, 1, 2, 64});
  auto [yz, iz] = ember::max_pool2d_with_indices(z, {2, 2});
  Vec want;
  for (int64_t o = 0; o < 32; ++o) want.push_back(static_cast<double>(2 * o));
  expect_close(iz, want, {1, 1, 1, 32}, 0, "ties in a long row");
}

TEST(CpuNNPool, MaxPoolBackward) {
  for (ScalarType dt : kFloats)
    for (const PoolCase& c : kPoolCases) {
      const Tensor x = randt(c.x, dt, 41);
      auto [y, i] = ember::max_pool2d_with_indices(x, c.k, c.s, c.p, c.d, c.ceil);
      const Tensor go = randt(Shape(y.sizes().begin(), y.sizes().end()), dt, 42, Layout2::Sliced);
      const Vec gv = values(go), iv = values(i);
      const int64_t HW = c.x[c.x.size() - 2] * c.x.back(), L = y.size(-1) * y.size(-2);
      Vec want(static_cast<size_t>(numel(c.x)), 0.0);
      for (size_t k = 0; k < gv.size(); ++k) want[(k / L) * HW + static_cast<int64_t>(iv[k])] += gv[k];
      const Tensor gi = ember::max_pool2d_with_indices_backward(go, x, c.k, c.s, c.p, c.d, c.ceil, i);
      expect_close(gi, want, c.x, tol_for(dt), "max_pool2d backward");
    }
  const PoolCase c = kPoolCases[1];
  const Tensor x = randt(c.x, kFloat64, 43);
  auto [y, i] = ember::max_pool2d_with_indices(x, c.k, c.s, c.p, c.d, c.ceil);
  const Tensor R = randt(Shape(y.sizes().begin(), y.sizes().end()), kFloat64, 44);
  finite_difference([&](const Tensor& xx) { return ember::max_pool2d(xx, c.k, c.s, c.p, c.d, c.ceil); }, x, R,
                    ember::max_pool2d_with_indices_backward(R, x, c.k, c.s, c.p, c.d, c.ceil, i), "max_pool2d");
}

struct AvgCase {
  PoolCase g;
  bool count_include_pad;
  std::optional<int64_t> divisor;
};

// Average pooling: PyTorch's window (clipped to the padded input for the divisor, then to the input).
Vec ref_avg_pool(const AvgCase& a, const Vec& x, Shape& os, const Vec* go = nullptr, Vec* gx = nullptr) {
  const PoolCase& c = a.g;
  const int64_t H = c.x[c.x.size() - 2], W = c.x.back(), P = numel(c.x) / (H * W);
  const int64_t oH = pool_out(H, c.k[0], c.s[0], c.p[0], 1, c.ceil),
                oW = pool_out(W, c.k[1], c.s[1], c.p[1], 1, c.ceil);
  os = pooled(c.x, oH, oW);
  Vec out;
  if (gx) gx->assign(x.size(), 0.0);
  for (int64_t p = 0; p < P; ++p)
    for (int64_t oh = 0; oh < oH; ++oh)
      for (int64_t ow = 0; ow < oW; ++ow) {
        const int64_t h0 = oh * c.s[0] - c.p[0], w0 = ow * c.s[1] - c.p[1];
        const int64_t h1 = std::min(h0 + c.k[0], H + c.p[0]), w1 = std::min(w0 + c.k[1], W + c.p[1]);
        double s = 0;
        int64_t n = 0;
        for (int64_t ih = std::max<int64_t>(h0, 0); ih < std::min(h1, H); ++ih)
          for (int64_t iw = std::max<int64_t>(w0, 0); iw < std::min(w1, W); ++iw) s += x[(p * H + ih) * W + iw], ++n;
        const double div = a.divisor             ? static_cast<double>(*a.divisor)
                           : a.count_include_pad ? static_cast<double>((h1 - h0) * (w1 - w0))
                                                 : static_cast<double>(n);
        out.push_back(n ? s / div : 0.0);
        if (gx && n)
          for (int64_t ih = std::max<int64_t>(h0, 0); ih < std::min(h1, H); ++ih)
            for (int64_t iw = std::max<int64_t>(w0, 0); iw < std::min(w1, W); ++iw)
              (*gx)[(p * H + ih) * W + iw] += (*go)[(p * oH + oh) * oW + ow] / div;
      }
  return out;
}

const std::vector<AvgCase> kAvgCases = {
    {{{2, 3, 8, 8}, {2, 2}, {2, 2}, {0, 0}, {1, 1}, false}, true, std::nullopt},
    {{{2, 3, 9, 7}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, false}, true, std::nullopt},
    {{{2, 3, 9, 7}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, false}, false, std::nullopt},  // count_include_pad=False
    {{{1, 2, 9, 7}, {3, 2}, {2, 3}, {1, 1}, {1, 1}, true}, true, std::nullopt},    // ceil_mode: clipped windows
    {{{1, 2, 9, 7}, {3, 2}, {2, 3}, {1, 1}, {1, 1}, true}, false, std::nullopt},
    {{{3, 5, 6}, {2, 3}, {1, 2}, {1, 1}, {1, 1}, false}, true, 5},  // divisor_override, unbatched
};

TEST(CpuNNPool, AvgPoolForwardAndBackward) {
  for (ScalarType dt : kFloats)
    for (const AvgCase& a : kAvgCases) {
      const PoolCase& c = a.g;
      const Tensor x = randt(c.x, dt, 51, Layout2::Transposed);
      Shape os;
      const Vec xv = values(x);
      const Vec want = ref_avg_pool(a, xv, os);
      const std::string what = std::string("avg_pool2d ") + std::string(dtype_name(dt)) + " " +
                               std::to_string(c.x.back()) + (a.count_include_pad ? " incl" : " excl");
      const Tensor y = ember::avg_pool2d(x, c.k, c.s, c.p, c.ceil, a.count_include_pad, a.divisor);
      expect_close(y, want, os, tol_for(dt), what);
      const Tensor go = randt(os, dt, 52);
      const Vec gov = values(go);
      Vec gx;
      ref_avg_pool(a, xv, os, &gov, &gx);
      expect_close(ember::avg_pool2d_backward(go, x, c.k, c.s, c.p, c.ceil, a.count_include_pad, a.divisor), gx, c.x,
                   tol_for(dt), what + " backward");
    }
  const AvgCase a = kAvgCases[4];
  const Tensor x = randt(a.g.x, kFloat64, 53);
  const Tensor y = ember::avg_pool2d(x, a.g.k, a.g.s, a.g.p, a.g.ceil, a.count_include_pad, a.divisor);
  const Tensor R = randt(Shape(y.sizes().begin(), y.sizes().end()), kFloat64, 54);
  finite_difference(
      [&](const Tensor& xx) {
        return ember::avg_pool2d(xx, a.g.k, a.g.s, a.g.p, a.g.ceil, a.count_include_pad, a.divisor);
      },
      x, R, ember::avg_pool2d_backward(R, x, a.g.k, a.g.s, a.g.p, a.g.ceil, a.count_include_pad, a.divisor),
      "avg_pool2d");
  // Defaults: stride = kernel_size, no padding.
  Shape os;
  const AvgCase d{{{1, 1, 4, 6}, {2, 2}, {2, 2}, {0, 0}, {1, 1}, false}, true, std::nullopt};
  const Tensor xd = randt(d.g.x, kFloat64, 55);
  const Vec want = ref_avg_pool(d, values(xd), os);
  expect_close(ember::avg_pool2d(xd, 2), want, os, 1e-12, "avg_pool2d defaults");
}

Vec ref_adaptive(const Shape& xs, const Vec& x, int64_t oH, int64_t oW, const Vec* go = nullptr, Vec* gx = nullptr) {
  const int64_t H = xs[xs.size() - 2], W = xs.back(), P = numel(xs) / (H * W);
  Vec out;
  if (gx) gx->assign(x.size(), 0.0);
  for (int64_t p = 0; p < P; ++p)
    for (int64_t oh = 0; oh < oH; ++oh)
      for (int64_t ow = 0; ow < oW; ++ow) {
        const auto h0 = static_cast<int64_t>(std::floor(static_cast<double>(oh * H) / oH));
        const auto h1 = static_cast<int64_t>(std::ceil(static_cast<double>((oh + 1) * H) / oH));
        const auto w0 = static_cast<int64_t>(std::floor(static_cast<double>(ow * W) / oW));
        const auto w1 = static_cast<int64_t>(std::ceil(static_cast<double>((ow + 1) * W) / oW));
        double s = 0;
        for (int64_t ih = h0; ih < h1; ++ih)
          for (int64_t iw = w0; iw < w1; ++iw) s += x[(p * H + ih) * W + iw];
        const double n = static_cast<double>((h1 - h0) * (w1 - w0));
        out.push_back(s / n);
        if (gx)
          for (int64_t ih = h0; ih < h1; ++ih)
            for (int64_t iw = w0; iw < w1; ++iw) (*gx)[(p * H + ih) * W + iw] += (*go)[(p * oH + oh) * oW + ow] / n;
      }
  return out;
}

TEST(CpuNNPool, AdaptiveAvgPool) {
  const std::vector<std::pair<Shape, std::array<int64_t, 2>>> cases = {
      {{2, 3, 7, 9}, {3, 4}}, {{2, 3, 8, 8}, {1, 1}}, {{3, 5, 4}, {5, 7}}, {{1, 2, 10, 6}, {4, 6}}};
  for (ScalarType dt : kFloats)
    for (const auto& [xs, o] : cases) {
      const Tensor x = randt(xs, dt, 61, Layout2::Sliced);
      const Vec xv = values(x);
      const Shape os = pooled(xs, o[0], o[1]);
      expect_close(ember::adaptive_avg_pool2d(x, o), ref_adaptive(xs, xv, o[0], o[1]), os, tol_for(dt),
                   "adaptive_avg_pool2d");
      const Tensor go = randt(os, dt, 62);
      const Vec gov = values(go);
      Vec gx;
      ref_adaptive(xs, xv, o[0], o[1], &gov, &gx);
      expect_close(ember::_adaptive_avg_pool2d_backward(go, x), gx, xs, tol_for(dt), "adaptive backward");
    }
  // One int is a square output.
  const Tensor x = randt({1, 2, 6, 6}, kFloat64, 63);
  expect_close(ember::adaptive_avg_pool2d(x, 4), ref_adaptive({1, 2, 6, 6}, values(x), 4, 4), {1, 2, 4, 4}, 1e-12,
               "adaptive square");
  const Tensor R = randt({1, 2, 4, 4}, kFloat64, 64);
  finite_difference([&](const Tensor& xx) { return ember::adaptive_avg_pool2d(xx, 4); }, x, R,
                    ember::_adaptive_avg_pool2d_backward(R, x), "adaptive_avg_pool2d");
}

TEST(CpuNNPool, Errors) {
  const Tensor x = randt({1, 2, 5, 5}, kFloat32, 1);
  EXPECT_ERROR(ValueError, ember::max_pool2d(randt({5, 5}, kFloat32, 1), 2), "[max_pool2d_with_indices]",
               "3-D (C, H, W) or 4-D");
  EXPECT_ERROR(ValueError, ember::max_pool2d(x, 0), "'kernel_size'", "positive");
  EXPECT_ERROR(ValueError, ember::max_pool2d(x, 2, 0), "'stride'", "positive");
  EXPECT_ERROR(ValueError, ember::max_pool2d(x, 2, 2, 2), "'padding'", "half the kernel size");
  EXPECT_ERROR(ValueError, ember::max_pool2d(x, 6), "output size", "too small");
  EXPECT_ERROR(ValueError, ember::max_pool2d(x, 2, 2, 0, 0), "'dilation'", "positive");
  EXPECT_ERROR(ValueError, ember::max_pool2d(randt({1, 0, 5, 5}, kFloat32, 1), 2), "non-zero sizes");
  EXPECT_ERROR(TypeError, ember::max_pool2d(x.to(kInt32), 2), "[max_pool2d_with_indices]", "floating point");
  EXPECT_ERROR(ValueError, ember::avg_pool2d(x, 2, 2, 0, false, true, 0), "'divisor_override'", "non-zero");
  EXPECT_ERROR(ValueError, ember::avg_pool2d(x, {2, 2, 2}), "'kernel_size'", "tuple of two");
  EXPECT_ERROR(ValueError, ember::avg_pool2d_backward(randt({1, 2, 3, 3}, kFloat32, 1), x, 2, 2, 0, false, true, {}),
               "'grad_output'", "[1, 2, 2, 2]");
  EXPECT_ERROR(ValueError, ember::adaptive_avg_pool2d(randt({4, 5}, kFloat32, 1), 2), "[adaptive_avg_pool2d]",
               "3-D (C, H, W)");
  auto [y, i] = ember::max_pool2d_with_indices(x, 2);
  EXPECT_ERROR(ValueError, ember::max_pool2d_with_indices_backward(y, x, 2, 2, 0, 1, false, i.to(kInt32)), "'indices'",
               "int64");
}

// ---- normalization ----------------------------------------------------------------------------

struct BnRef {
  Vec y, mean, var;  // var: biased batch variance
};

BnRef ref_bn(const Shape& xs, const Vec& x, const Vec& w, const Vec& b, bool training, const Vec& rm, const Vec& rv,
             double eps) {
  const int64_t N = xs[0], C = xs[1], L = numel(xs) / (N * C);
  BnRef r;
  r.y.assign(x.size(), 0.0);
  for (int64_t c = 0; c < C; ++c) {
    double m = 0, v = 0;
    if (training) {
      for (int64_t n = 0; n < N; ++n)
        for (int64_t i = 0; i < L; ++i) m += x[(n * C + c) * L + i];
      m /= static_cast<double>(N * L);
      for (int64_t n = 0; n < N; ++n)
        for (int64_t i = 0; i < L; ++i) v += std::pow(x[(n * C + c) * L + i] - m, 2);
      v /= static_cast<double>(N * L);
    } else {
      m = rm[c], v = rv[c];
    }
    r.mean.push_back(m), r.var.push_back(v);
    for (int64_t n = 0; n < N; ++n)
      for (int64_t i = 0; i < L; ++i) {
        const int64_t k = (n * C + c) * L + i;
        r.y[k] = (x[k] - m) / std::sqrt(v + eps) * (w.empty() ? 1.0 : w[c]) + (b.empty() ? 0.0 : b[c]);
      }
  }
  return r;
}

TEST(CpuNNNorm, BatchNormTrainingAndEval) {
  const std::vector<Shape> shapes = {{4, 3, 5, 6}, {6, 4}, {2, 5, 7}};
  const double eps = 1e-5, mom = 0.1;
  for (ScalarType dt : kFloats)
    for (const Shape& xs : shapes)
      for (bool affine : {true, false}) {
        const int64_t C = xs[1];
        const Tensor x = randt(xs, dt, 71, Layout2::Transposed);
        const Tensor w = affine ? randt({C}, dt, 72) : Tensor(), b = affine ? randt({C}, dt, 73) : Tensor();
        const Vec rm0 = random_values(C, 74);
        Vec rv0 = random_values(C, 75);
        for (double& v : rv0) v = std::fabs(v) + 0.5;
        Tensor rm = from_values({C}, dt, rm0), rv = from_values({C}, dt, rv0);
        const Vec rm0s = values(rm), rv0s = values(rv);
        const auto wo = affine ? std::optional<Tensor>(w) : std::nullopt;
        const auto bo = affine ? std::optional<Tensor>(b) : std::nullopt;
        const std::string what = std::string("batch_norm ") + std::string(dtype_name(dt)) + " dims " +
                                 std::to_string(xs.size()) + (affine ? " affine" : "");
        const Vec wv = affine ? values(w) : Vec{}, bv = affine ? values(b) : Vec{};
        // Training: batch statistics, running stats updated with the unbiased variance.
        const BnRef r = ref_bn(xs, values(x), wv, bv, true, {}, {}, eps);
        const uint64_t v0 = rm._version();
        auto [y, sm, si] = ember::native_batch_norm(x, wo, bo, rm, rv, true, mom, eps);
        expect_close(y, r.y, xs, tol_for(dt) * 4, what + " output");
        Vec invstd;
        for (double v : r.var) invstd.push_back(1 / std::sqrt(v + eps));
        expect_close(sm, r.mean, {C}, tol_for(dt), what + " save_mean");
        expect_close(si, invstd, {C}, tol_for(dt) * 4, what + " save_invstd");
        const double M = static_cast<double>(numel(xs) / C);
        Vec rm1, rv1;
        for (int64_t c = 0; c < C; ++c) {
          rm1.push_back((1 - mom) * rm0s[c] + mom * r.mean[c]);
          rv1.push_back((1 - mom) * rv0s[c] + mom * r.var[c] * M / (M - 1));
        }
        expect_close(rm, rm1, {C}, tol_for(dt), what + " running_mean");
        expect_close(rv, rv1, {C}, tol_for(dt), what + " running_var");
        // Written without a version bump, as LibTorch 1.13 (Note [Version counters]).
        EXPECT_EQ(rm._version(), v0) << what;
        // Eval: the running statistics, untouched.
        const Vec rm1s = values(rm), rv1s = values(rv);
        const BnRef re = ref_bn(xs, values(x), wv, bv, false, rm1s, rv1s, eps);
        auto [ye, a, bb] = ember::native_batch_norm(x, wo, bo, rm, rv, false, mom, eps);
        expect_close(ye, re.y, xs, tol_for(dt) * 4, what + " eval output");
        EXPECT_EQ(a.numel(), 0);
        expect_close(rm, rm1s, {C}, 0, what + " eval leaves running_mean");
        expect_close(ember::batch_norm(x, wo, bo, rm, rv, false, mom, eps, true), re.y, xs, tol_for(dt) * 4,
                     what + " composite");
      }
}

// Expanded (stride 0) running statistics take the channels' updates in order on their one
// element, as LibTorch 1.13's (libtorch: running_mean 0.5 -> 3.5570, running_var 2 -> 12.9949 for
// x = arange(24).view({2, 3, 4}), momentum 0.1); every dtype, the float16 path included.
TEST(CpuNNNorm, BatchNormExpandedRunningStats) {
  for (ScalarType dt : kFloats) {
    const Tensor x = ember::arange(0, 24, TensorOptions(kFloat64)).view({2, 3, 4}).to(dt);
    Tensor rm = ember::full({1}, 0.5, dt).expand({3}), rv = ember::full({1}, 2.0, dt).expand({3});
    auto [y, sm, si] = ember::native_batch_norm(x, {}, {}, rm, rv, true, 0.1, 1e-5);
    // Relative: a rounding per channel update in the statistic's dtype.
    const double tol = dt == kFloat64 ? 1e-12 : dt == kFloat32 ? 1e-6 : dt == kFloat16 ? 3e-3 : 1.5e-2;
    double m = 0.5, v = 2;
    for (double cm : {7.5, 11.5, 15.5}) {
      m = 0.9 * m + 0.1 * cm;
      v = 0.9 * v + 0.1 * 42.5714285714285714;  // the unbiased variance of each channel
    }
    EXPECT_NEAR(m, 3.5570, 1e-4);
    EXPECT_NEAR(v, 12.9949, 1e-4);
    for (double g : values(rm)) EXPECT_NEAR(g, m, tol * m) << dtype_name(dt);
    for (double g : values(rv)) EXPECT_NEAR(g, v, tol * v) << dtype_name(dt);
    EXPECT_EQ(rm.strides(), IntArrayRef({0}));
    // The output normalizes with the batch statistics, which the running ones do not change.
    expect_close(sm, {7.5, 11.5, 15.5}, {3}, tol_for(dt), std::string(dtype_name(dt)) + " save_mean");
  }
}

TEST(CpuNNNorm, BatchNormBackward) {
  const Shape xs = {3, 4, 5, 2};
  const double eps = 1e-5;
  const int64_t N = xs[0], C = xs[1], L = xs[2] * xs[3];
  for (ScalarType dt : kFloats)
    for (bool train : {true, false}) {
      const Tensor x = randt(xs, dt, 81), w = randt({C}, dt, 82), go = randt(xs, dt, 83, Layout2::Sliced);
      Tensor rm = randt({C}, dt, 84), rv = ember::ones({C}, dt).mul(1.5);
      auto [y, sm, si] = ember::native_batch_norm(x, w, std::nullopt, rm, rv, true, 0.1, eps);
      auto [gi, gw, gb] = ember::native_batch_norm_backward(go, x, w, rm, rv, sm, si, train, eps, {true, true, true});
      const Vec xv = values(x), wv = values(w), gv = values(go), mv = train ? values(sm) : values(rm);
      Vec isv = train ? values(si) : values(rv);
      if (!train)
        for (double& v : isv) v = 1 / std::sqrt(v + eps);
      Vec wgi(xv.size()), wgw(C), wgb(C);
      for (int64_t c = 0; c < C; ++c) {
        double sdy = 0, sdyx = 0;
        for (int64_t n = 0; n < N; ++n)
          for (int64_t i = 0; i < L; ++i) {
            const int64_t k = (n * C + c) * L + i;
            sdy += gv[k], sdyx += gv[k] * (xv[k] - mv[c]);
          }
        wgw[c] = sdyx * isv[c], wgb[c] = sdy;
        const double M = static_cast<double>(N * L);
        for (int64_t n = 0; n < N; ++n)
          for (int64_t i = 0; i < L; ++i) {
            const int64_t k = (n * C + c) * L + i;
            wgi[k] = train ? (gv[k] - sdy / M - (xv[k] - mv[c]) * isv[c] * isv[c] * sdyx / M) * isv[c] * wv[c]
                           : gv[k] * isv[c] * wv[c];
          }
      }
      const std::string what =
          std::string("batch_norm backward ") + std::string(dtype_name(dt)) + (train ? " train" : " eval");
      expect_close(gi, wgi, xs, tol_for(dt) * 4, what + " grad_input");
      expect_close(gw, wgw, {C}, tol_for(dt) * 8, what + " grad_weight");
      expect_close(gb, wgb, {C}, tol_for(dt) * 8, what + " grad_bias");
    }
  // Finite difference through the training forward (batch statistics depend on x).
  const Tensor x = randt(xs, kFloat64, 85), w = randt({C}, kFloat64, 86), b = randt({C}, kFloat64, 87);
  auto [y, sm, si] = ember::native_batch_norm(x, w, b, std::nullopt, std::nullopt, true, 0.1, eps);
  const Tensor R = randt(xs, kFloat64, 88);
  auto [gi, gw, gb] =
      ember::native_batch_norm_backward(R, x, w, std::nullopt, std::nullopt, sm, si, true, eps, {true, true, true});
  auto f = [&](const Tensor& xx, const Tensor& ww, const Tensor& bb) {
    return std::get<0>(ember::native_batch_norm(xx, ww, bb, std::nullopt, std::nullopt, true, 0.1, eps));
  };
  finite_difference([&](const Tensor& xx) { return f(xx, w, b); }, x, R, gi, "batch_norm d/dinput");
  finite_difference([&](const Tensor& ww) { return f(x, ww, b); }, w, R, gw, "batch_norm d/dweight", 3);
  finite_difference([&](const Tensor& bb) { return f(x, w, bb); }, b, R, gb, "batch_norm d/dbias", 3);
}

TEST(CpuNNNorm, LayerNormForwardAndBackward) {
  const std::vector<std::pair<Shape, Shape>> cases = {{{4, 6}, {6}}, {{2, 3, 4, 5}, {4, 5}}, {{3, 7}, {3, 7}}};
  const double eps = 1e-5;
  for (ScalarType dt : kFloats)
    for (const auto& [xs, ns] : cases)
      for (bool affine : {true, false}) {
        const Tensor x = randt(xs, dt, 91, Layout2::Transposed);
        const Tensor w = affine ? randt(ns, dt, 92) : Tensor(), b = affine ? randt(ns, dt, 93) : Tensor();
        const auto wo = affine ? std::optional<Tensor>(w) : std::nullopt;
        const auto bo = affine ? std::optional<Tensor>(b) : std::nullopt;
        const int64_t N = numel(ns), M = numel(xs) / N;
        const Vec xv = values(x), wv = affine ? values(w) : Vec(N, 1.0), bv = affine ? values(b) : Vec(N, 0.0);
        Vec yr(xv.size()), mr, rr;
        for (int64_t r = 0; r < M; ++r) {
          double m = 0, v = 0;
          for (int64_t i = 0; i < N; ++i) m += xv[r * N + i];
          m /= static_cast<double>(N);
          for (int64_t i = 0; i < N; ++i) v += std::pow(xv[r * N + i] - m, 2);
          const double rs = 1 / std::sqrt(v / static_cast<double>(N) + eps);
          mr.push_back(m), rr.push_back(rs);
          for (int64_t i = 0; i < N; ++i) yr[r * N + i] = (xv[r * N + i] - m) * rs * wv[i] + bv[i];
        }
        const std::string what = std::string("layer_norm ") + std::string(dtype_name(dt)) + (affine ? " affine" : "");
        Shape ss = xs;
        for (size_t i = 0; i < ns.size(); ++i) ss[ss.size() - 1 - i] = 1;
        auto [y, mean, rstd] = ember::native_layer_norm(x, ns, wo, bo, eps);
        expect_close(y, yr, xs, tol_for(dt) * 4, what);
        expect_close(mean, mr, ss, tol_for(dt), what + " mean");
        expect_close(rstd, rr, ss, tol_for(dt) * 4, what + " rstd");
        expect_close(ember::layer_norm(x, ns, wo, bo), yr, xs, tol_for(dt) * 4, what + " composite");
        // Backward against the closed form.
        const Tensor go = randt(xs, dt, 94, Layout2::Sliced);
        const Vec gv = values(go), mv = values(mean), rv = values(rstd);
        Vec gi(xv.size()), gw(N, 0.0), gb(N, 0.0);
        for (int64_t r = 0; r < M; ++r) {
          double sg = 0, sgx = 0;
          for (int64_t i = 0; i < N; ++i) {
            const double xh = (xv[r * N + i] - mv[r]) * rv[r];
            sg += gv[r * N + i] * wv[i], sgx += gv[r * N + i] * wv[i] * xh;
            gw[i] += gv[r * N + i] * xh, gb[i] += gv[r * N + i];
          }
          for (int64_t i = 0; i < N; ++i) {
            const double xh = (xv[r * N + i] - mv[r]) * rv[r];
            gi[r * N + i] = rv[r] * (gv[r * N + i] * wv[i] - sg / N - xh * sgx / N);
          }
        }
        auto [dx, dw, db] = ember::native_layer_norm_backward(go, x, ns, mean, rstd, wo, bo, {true, affine, affine});
        expect_close(dx, gi, xs, tol_for(dt) * 8, what + " grad_input");
        if (affine) {
          expect_close(dw, gw, ns, tol_for(dt) * 8, what + " grad_weight");
          expect_close(db, gb, ns, tol_for(dt) * 8, what + " grad_bias");
        } else {
          EXPECT_FALSE(dw.defined());
        }
      }
  {
    // The boxed path: a bool[3] output mask as a bool list, the undefined gradient as a tensor.
    const Tensor x = randt({2, 4}, kFloat64, 99), w = randt({4}, kFloat64, 100), go = randt({2, 4}, kFloat64, 101);
    auto [y, mean, rstd] = ember::native_layer_norm(x, {4}, w, std::nullopt, eps);
    auto [dx, dw, db] = ember::native_layer_norm_backward(go, x, {4}, mean, rstd, w, std::nullopt, {true, true, false});
    const IValue r = ember::ops::call("aten::native_layer_norm_backward", go, x, std::vector<int64_t>{4}, mean, rstd, w,
                                      IValue(), std::vector<bool>{true, true, false});
    const auto& t = r.toTupleRef();
    ASSERT_EQ(t.size(), 3u);
    EXPECT_TRUE(ember::equal(t[0].toTensor(), dx));
    EXPECT_TRUE(ember::equal(t[1].toTensor(), dw));
    EXPECT_FALSE(db.defined());
    EXPECT_FALSE(t[2].toTensor().defined());
  }
  const Shape xs = {3, 2, 5}, ns = {2, 5};
  const Tensor x = randt(xs, kFloat64, 95), w = randt(ns, kFloat64, 96), b = randt(ns, kFloat64, 97);
  auto [y, mean, rstd] = ember::native_layer_norm(x, ns, w, b, eps);
  const Tensor R = randt(xs, kFloat64, 98);
  auto [gi, gw, gb] = ember::native_layer_norm_backward(R, x, ns, mean, rstd, w, b, {true, true, true});
  finite_difference([&](const Tensor& xx) { return ember::layer_norm(xx, ns, w, b, eps); }, x, R, gi,
                    "layer_norm d/dx");
  finite_difference([&](const Tensor& ww) { return ember::layer_norm(x, ns, ww, b, eps); }, w, R, gw, "layer_norm d/dw",
                    3);
  finite_difference([&](const Tensor& bb) { return ember::layer_norm(x, ns, w, bb, eps); }, b, R, gb, "layer_norm d/db",
                    3);
}

TEST(CpuNNNorm, Errors) {
  const Tensor x = randt({2, 3, 4}, kFloat32, 1);
  EXPECT_ERROR(ValueError, ember::layer_norm(x, {3}), "[native_layer_norm]", "normalized_shape=[3]", "[2, 3, 4]");
  EXPECT_ERROR(ValueError, ember::layer_norm(x, {4}, randt({3}, kFloat32, 2)), "'weight'", "[4]", "[3]");
  EXPECT_ERROR(ValueError, ember::layer_norm(x, IntArrayRef{}), "'normalized_shape'", "at least one");
  EXPECT_ERROR(ValueError, ember::batch_norm(x, randt({4}, kFloat32, 2), {}, {}, {}, true, 0.1, 1e-5, true),
               "[native_batch_norm]", "'weight'", "3 elements", "[4]");
  EXPECT_ERROR(ValueError, ember::batch_norm(x, {}, {}, {}, {}, false, 0.1, 1e-5, true), "running_mean",
               "evaluation mode");
  EXPECT_ERROR(ValueError, ember::batch_norm(randt({4}, kFloat32, 2), {}, {}, {}, {}, true, 0.1, 1e-5, true), "'input'",
               "at least 2 dimensions");
  EXPECT_ERROR(TypeError, ember::batch_norm(x.to(kInt64), {}, {}, {}, {}, true, 0.1, 1e-5, true), "floating point");
}

// The kernels split planes, channels and rows over the intra-op threads: two threads give the
// same bits as one (inputs large enough to be split; every output element has one owner).
TEST(CpuNNThreads, SameResultsOnTwoThreads) {
  for (ScalarType dt : {kFloat32, kFloat64}) {
    const Shape xs = {4, 24, 33, 35};
    const Tensor x = randt(xs, dt, 111), go = randt(xs, dt, 112);
    const std::string d(dtype_name(dt));
    expect_thread_invariant("max_pool2d " + d, [&] { return ember::max_pool2d(x, 3, 2, 1, 1, true); });
    expect_thread_invariant("max_pool2d indices " + d,
                            [&] { return std::get<1>(ember::max_pool2d_with_indices(x, 2, 1)); });
    auto [y, idx] = ember::max_pool2d_with_indices(x, 3, 2, 1);
    const Tensor gy = randt(Shape(y.sizes().begin(), y.sizes().end()), dt, 113);
    expect_thread_invariant("max_pool2d backward " + d,
                            [&] { return ember::max_pool2d_with_indices_backward(gy, x, 3, 2, 1, 1, false, idx); });
    expect_thread_invariant("avg_pool2d " + d, [&] { return ember::avg_pool2d(x, 3, 2, 1, true, false); });
    expect_thread_invariant("avg_pool2d backward " + d,
                            [&] { return ember::avg_pool2d_backward(gy, x, 3, 2, 1, false, true, std::nullopt); });
    expect_thread_invariant("adaptive " + d, [&] { return ember::adaptive_avg_pool2d(x, {5, 7}); });
    const Tensor ga = randt({4, 24, 5, 7}, dt, 114);
    expect_thread_invariant("adaptive backward " + d, [&] { return ember::_adaptive_avg_pool2d_backward(ga, x); });
    const Tensor w = randt({24}, dt, 115), b = randt({24}, dt, 116);
    expect_thread_invariant("batch_norm " + d, [&] {
      return ember::batch_norm(x, w, b, std::nullopt, std::nullopt, true, 0.1, 1e-5, true);
    });
    auto [bn, sm, si] = ember::native_batch_norm(x, w, b, std::nullopt, std::nullopt, true, 0.1, 1e-5);
    expect_thread_invariant("batch_norm backward " + d, [&] {
      return std::get<0>(ember::native_batch_norm_backward(go, x, w, std::nullopt, std::nullopt, sm, si, true, 1e-5,
                                                           {true, true, true}));
    });
    const Tensor lw = randt({35}, dt, 117);
    expect_thread_invariant("layer_norm " + d, [&] { return ember::layer_norm(x, {35}, lw); });
    auto [ln, m, r] = ember::native_layer_norm(x, {35}, lw, std::nullopt, 1e-5);
    expect_thread_invariant("layer_norm backward dx " + d, [&] {
      return std::get<0>(ember::native_layer_norm_backward(go, x, {35}, m, r, lw, std::nullopt, {true, true, true}));
    });
    expect_thread_invariant("layer_norm backward dw " + d, [&] {
      return std::get<1>(ember::native_layer_norm_backward(go, x, {35}, m, r, lw, std::nullopt, {true, true, true}));
    });
  }
}

}  // namespace
