// Pooling over 1 and 3 dimensions, adaptive max pooling and padding against naive float64 loops
// over the values read straight from memory (OpTestUtil.h's values()): max/avg pools and their
// backwards, the adaptive pools, reflection/replication/constant/circular padding and their
// backwards, over several geometries, non-contiguous inputs and every accepted dtype; a few
// results LibTorch 1.13 printed; thread-count invariance.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <complex>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/nn.h"

#include "OpTestUtil.h"

using namespace ember;
using ember::optest::expect_thread_invariant;
using ember::optest::from_values;
using ember::optest::values;
using Vec = std::vector<double>;
using Shape = std::vector<int64_t>;
using D3 = std::array<int64_t, 3>;

namespace {

const ScalarType kFloats[] = {kFloat32, kFloat64, kFloat16, kBFloat16};

int64_t numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t x : s) n *= x;
  return n;
}

// Distinct values (no ties for the max pools) exactly representable in bfloat16: multiples of
// 1/8 in [-8, 8), shuffled.
Vec distinct_values(int64_t n) {
  Vec v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<double>((i * 37) % 128) / 8.0 - 8.0;
  return v;
}

// Random values in [-1, 1).
Vec random_values(int64_t n, unsigned seed) {
  Vec v(static_cast<size_t>(n));
  for (auto& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<double>(seed >> 8) / static_cast<double>(1 << 23) - 1.0;
  }
  return v;
}

// A tensor of logical values v, contiguous or with its last dimension sliced with step 2.
Tensor make(const Shape& shape, ScalarType dt, const Vec& v, bool sliced) {
  if (!sliced) return from_values(shape, dt, v);
  Shape big = shape;
  big.back() *= 2;
  Vec bv(static_cast<size_t>(numel(big)), 0.0);
  for (size_t i = 0; i < v.size(); ++i) bv[2 * i] = v[i];
  return from_values(big, dt, bv).slice(-1, 0, std::nullopt, 2);
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
      return 6e-2;
  }
}

void expect_close(const Tensor& got, const Vec& want, const Shape& shape, double tol, const std::string& what) {
  ASSERT_TRUE(got.defined()) << what;
  ASSERT_EQ(Shape(got.sizes().begin(), got.sizes().end()), shape) << what;
  const Vec g = values(got);
  ASSERT_EQ(g.size(), want.size()) << what;
  for (size_t i = 0; i < g.size(); ++i)
    ASSERT_NEAR(g[i], want[i], tol * std::max(1.0, std::fabs(want[i]))) << what << " at " << i;
}

// ---- pooling reference -------------------------------------------------------------------------

struct Pool {
  Shape x;  // (N, C, spatial...) or (C, spatial...)
  int64_t nd;
  D3 k, s, p, d;  // per (D, H, W); unused leading dims are 1/1/0/1
  bool ceil;
};

int64_t out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil) {
  int64_t o = (in + 2 * p - d * (k - 1) - 1 + (ceil ? s - 1 : 0)) / s + 1;
  if (ceil && (o - 1) * s >= in + p) --o;
  return o;
}

struct Geo {
  int64_t planes;
  D3 in, out;
  Shape out_shape;
};

Geo geometry(const Pool& c) {
  Geo g{1, {1, 1, 1}, {1, 1, 1}, c.x};
  for (int64_t i = 0; i < c.nd; ++i) g.in[3 - c.nd + i] = c.x[c.x.size() - c.nd + i];
  for (int i = 0; i < 3; ++i) g.out[i] = out_size(g.in[i], c.k[i], c.s[i], c.p[i], c.d[i], c.ceil);
  for (int64_t i = 0; i < c.nd; ++i) g.out_shape[c.x.size() - c.nd + i] = g.out[3 - c.nd + i];
  g.planes = numel(c.x) / (g.in[0] * g.in[1] * g.in[2]);
  return g;
}

// PyTorch's max pool: the first maximum, a NaN wins; the index is flat within the plane.
void ref_max(const Pool& c, const Vec& x, Vec& out, Vec& ind) {
  const Geo g = geometry(c);
  const int64_t IP = g.in[0] * g.in[1] * g.in[2];
  for (int64_t pl = 0; pl < g.planes; ++pl)
    for (int64_t od = 0; od < g.out[0]; ++od)
      for (int64_t oh = 0; oh < g.out[1]; ++oh)
        for (int64_t ow = 0; ow < g.out[2]; ++ow) {
          double m = -std::numeric_limits<double>::infinity();
          int64_t mi = -1;
          for (int64_t kd = 0; kd < c.k[0]; ++kd)
            for (int64_t kh = 0; kh < c.k[1]; ++kh)
              for (int64_t kw = 0; kw < c.k[2]; ++kw) {
                const int64_t id = od * c.s[0] - c.p[0] + kd * c.d[0], ih = oh * c.s[1] - c.p[1] + kh * c.d[1],
                              iw = ow * c.s[2] - c.p[2] + kw * c.d[2];
                if (id < 0 || id >= g.in[0] || ih < 0 || ih >= g.in[1] || iw < 0 || iw >= g.in[2]) continue;
                const int64_t i = (id * g.in[1] + ih) * g.in[2] + iw;
                const double v = x[pl * IP + i];
                if (mi < 0 || v > m || std::isnan(v)) m = v, mi = i;
              }
          out.push_back(m);
          ind.push_back(static_cast<double>(mi));
        }
}

// PyTorch's average pool: windows clamped to input + padding for the divisor, then to the input.
void ref_avg(const Pool& c, const Vec& x, bool cip, std::optional<int64_t> div, Vec& out) {
  const Geo g = geometry(c);
  const int64_t IP = g.in[0] * g.in[1] * g.in[2];
  for (int64_t pl = 0; pl < g.planes; ++pl)
    for (int64_t od = 0; od < g.out[0]; ++od)
      for (int64_t oh = 0; oh < g.out[1]; ++oh)
        for (int64_t ow = 0; ow < g.out[2]; ++ow) {
          const D3 o = {od, oh, ow};
          int64_t padded = 1, inside = 1;
          D3 lo{}, hi{};
          for (int i = 0; i < 3; ++i) {
            const int64_t st = o[i] * c.s[i] - c.p[i], en = std::min(st + c.k[i], g.in[i] + c.p[i]);
            padded *= en - st;
            lo[i] = std::max<int64_t>(st, 0), hi[i] = std::min(en, g.in[i]);
            inside *= std::max<int64_t>(hi[i] - lo[i], 0);
          }
          double s = 0;
          for (int64_t id = lo[0]; id < hi[0]; ++id)
            for (int64_t ih = lo[1]; ih < hi[1]; ++ih)
              for (int64_t iw = lo[2]; iw < hi[2]; ++iw) s += x[pl * IP + (id * g.in[1] + ih) * g.in[2] + iw];
          out.push_back(inside == 0 ? 0.0 : s / static_cast<double>(div ? *div : cip ? padded : inside));
        }
}

// The ints of one pool argument in the call's own nd.
std::vector<int64_t> arg(const D3& v, int64_t nd) { return std::vector<int64_t>(v.end() - nd, v.end()); }

const Pool kPools3d[] = {
    {{2, 3, 5, 6, 7}, 3, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}, false},
    {{2, 2, 5, 4, 6}, 3, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}, true},
    {{3, 4, 7, 5}, 3, {2, 3, 2}, {1, 2, 1}, {1, 1, 0}, {1, 1, 2}, false},     // unbatched, dilation along W
    {{1, 2, 3, 5, 40}, 3, {1, 2, 3}, {1, 1, 2}, {0, 1, 1}, {1, 1, 1}, true},  // long rows
};
const Pool kPools1d[] = {
    {{2, 3, 9}, 1, {1, 1, 3}, {1, 1, 2}, {0, 0, 1}, {1, 1, 1}, true},
    {{3, 40}, 1, {1, 1, 2}, {1, 1, 1}, {0, 0, 0}, {1, 1, 3}, false},
    {{2, 2, 11}, 1, {1, 1, 4}, {1, 1, 3}, {0, 0, 2}, {1, 1, 1}, false},
};

TEST(CpuPool, MaxPool3dMatchesReference) {
  for (ScalarType dt : kFloats)
    for (const Pool& c : kPools3d)
      for (bool sliced : {false, true}) {
        const Tensor x = make(c.x, dt, distinct_values(numel(c.x)), sliced);
        Vec out, ind;
        ref_max(c, values(x), out, ind);
        const Geo g = geometry(c);
        auto [y, i] = ember::max_pool3d_with_indices(x, c.k, c.s, c.p, c.d, c.ceil);
        const std::string what = "max_pool3d " + std::string(dtype_name(dt)) + " " + std::to_string(c.x.back());
        EXPECT_EQ(y.dtype(), dt);
        EXPECT_EQ(i.dtype(), kInt64);
        expect_close(y, out, g.out_shape, 0, what);
        expect_close(i, ind, g.out_shape, 0, what + " indices");
        expect_close(ember::max_pool3d(x, c.k, c.s, c.p, c.d, c.ceil), out, g.out_shape, 0, what + " (composite)");
        // The backward adds each output gradient at its index.
        const Tensor go = make(g.out_shape, dt, random_values(numel(g.out_shape), 5), false);
        const Vec gov = values(go);
        Vec gi(static_cast<size_t>(numel(c.x)), 0.0);
        const int64_t IP = g.in[0] * g.in[1] * g.in[2], OP = g.out[0] * g.out[1] * g.out[2];
        for (size_t j = 0; j < ind.size(); ++j) gi[j / OP * IP + static_cast<int64_t>(ind[j])] += gov[j];
        expect_close(ember::max_pool3d_with_indices_backward(go, x, c.k, c.s, c.p, c.d, c.ceil, i), gi, c.x,
                     tol_for(dt), what + " backward");
      }
}

TEST(CpuPool, MaxPool1dMatchesReference) {
  for (ScalarType dt : kFloats)
    for (const Pool& c : kPools1d) {
      const Tensor x = make(c.x, dt, distinct_values(numel(c.x)), true);
      Vec out, ind;
      ref_max(c, values(x), out, ind);
      expect_close(ember::max_pool1d(x, arg(c.k, 1), arg(c.s, 1), arg(c.p, 1), arg(c.d, 1), c.ceil), out,
                   geometry(c).out_shape, 0, "max_pool1d " + std::string(dtype_name(dt)));
    }
}

TEST(CpuPool, MaxPool3dNaNAndInfinity) {
  // A NaN wins (the last one); -inf everywhere keeps the window's first element.
  const double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
  for (ScalarType dt : {kFloat32, kFloat64}) {
    const Tensor x = from_values({1, 1, 2, 2, 4}, dt,
                                 {1, nan, -inf, -inf, 1, 2, -inf, -inf,  //
                                  3, 1, -inf, -inf, nan, 0, -inf, -inf});
    auto [y, i] = ember::max_pool3d_with_indices(x, {2, 2, 2});
    expect_close(i, {12, 2}, {1, 1, 1, 1, 2}, 0, "special indices");
    EXPECT_TRUE(std::isnan(values(y)[0]));
    EXPECT_EQ(values(y)[1], -inf);
  }
}

TEST(CpuPool, AvgPoolMatchesReference) {
  for (ScalarType dt : kFloats)
    for (bool cip : {true, false}) {
      for (const Pool& c : kPools3d) {
        if (c.d != D3{1, 1, 1}) continue;
        for (std::optional<int64_t> div : {std::optional<int64_t>(), std::optional<int64_t>(5)}) {
          const Tensor x = make(c.x, dt, random_values(numel(c.x), 3), true);
          Vec out;
          ref_avg(c, values(x), cip, div, out);
          const Geo g = geometry(c);
          const std::string what = "avg_pool3d " + std::string(dtype_name(dt)) + (cip ? " cip" : "");
          expect_close(ember::avg_pool3d(x, c.k, c.s, c.p, c.ceil, cip, div), out, g.out_shape, tol_for(dt), what);
          // The backward is the forward's transpose: <avg(x), go> = <x, avg_backward(go)>.
          const Tensor go = make(g.out_shape, kFloat64, random_values(numel(g.out_shape), 9), false);
          const Vec gov = values(go);
          Vec gi(static_cast<size_t>(numel(c.x)), 0.0);
          for (int64_t j = 0; j < numel(c.x); ++j) {
            Vec e(static_cast<size_t>(numel(c.x)), 0.0), o;
            e[j] = 1;
            ref_avg(c, e, cip, div, o);
            for (size_t q = 0; q < o.size(); ++q) gi[j] += o[q] * gov[q];
          }
          const Tensor gx = ember::avg_pool3d_backward(go.to(dt), x, c.k, c.s, c.p, c.ceil, cip, div);
          EXPECT_EQ(gx.dtype(), dt);
          expect_close(gx, gi, c.x, tol_for(dt) * 4, what + " backward");
        }
      }
      for (const Pool& c : kPools1d) {
        if (c.d != D3{1, 1, 1}) continue;
        const Tensor x = make(c.x, dt, random_values(numel(c.x), 4), true);
        Vec out;
        ref_avg(c, values(x), cip, std::nullopt, out);
        expect_close(ember::avg_pool1d(x, arg(c.k, 1), arg(c.s, 1), arg(c.p, 1), c.ceil, cip), out,
                     geometry(c).out_shape, tol_for(dt), "avg_pool1d " + std::string(dtype_name(dt)));
      }
    }
}

TEST(CpuPool, AdaptiveMaxPoolTiesKeepTheFirstIndex) {
  // Windows rows [0, 2), [2, 4) by columns [0, 2), [2, 4), [4, 6): each index is its window's start.
  auto [y, i] = ember::adaptive_max_pool2d(ember::zeros({1, 4, 6}), {2, 3});
  expect_close(i, {0, 2, 4, 12, 14, 16}, {1, 2, 3}, 0, "ties");
  auto [y1, i1] = ember::adaptive_max_pool1d(ember::zeros({1, 6}), {3});
  expect_close(i1, {0, 2, 4}, {1, 3}, 0, "ties 1-d");
}

TEST(CpuPool, LibTorchValues) {
  // Printed by LibTorch 1.13 for the same calls.
  expect_close(ember::avg_pool1d(ember::arange(6.0).reshape({1, 6}), {3}, {2}, {1}, true, false), {0.5, 2, 4, 5},
               {1, 4}, 1e-7, "avg_pool1d ceil_mode, padding excluded");
  expect_close(ember::avg_pool3d(ember::arange(8.0).reshape({1, 2, 2, 2}), {2}, {2}, {1}, true, true),
               {0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875}, {1, 2, 2, 2}, 1e-7, "avg_pool3d padding 1");
  auto [y, i] = ember::max_pool3d_with_indices(ember::arange(54.0).reshape({2, 3, 3, 3}), {2}, {1}, {1}, {1}, true);
  EXPECT_EQ(y.sizes(), IntArrayRef({2, 4, 4, 4}));
  EXPECT_EQ(i.sizes(), IntArrayRef({2, 4, 4, 4}));
  expect_close(ember::constant_pad_nd(ember::ones({2}, kInt32), {1, 1}, 2.5), {2, 1, 1, 2}, {4}, 0,
               "constant_pad_nd int32, value 2.5");
}

// ---- adaptive pooling ------------------------------------------------------------------------

// Output o of `out` covers inputs [floor(o * in / out), ceil((o + 1) * in / out)).
void ref_adaptive(const Shape& xs, int64_t nd, const D3& os, const Vec& x, bool max, Vec& out, Vec& ind) {
  D3 in = {1, 1, 1};
  for (int64_t i = 0; i < nd; ++i) in[3 - nd + i] = xs[xs.size() - nd + i];
  const int64_t IP = in[0] * in[1] * in[2], planes = numel(xs) / IP;
  auto lo = [](int64_t o, int64_t n, int64_t i) { return o * i / n; };
  auto hi = [](int64_t o, int64_t n, int64_t i) { return ((o + 1) * i + n - 1) / n; };
  for (int64_t pl = 0; pl < planes; ++pl)
    for (int64_t od = 0; od < os[0]; ++od)
      for (int64_t oh = 0; oh < os[1]; ++oh)
        for (int64_t ow = 0; ow < os[2]; ++ow) {
          double s = 0, m = -std::numeric_limits<double>::infinity();
          int64_t mi = -1, n = 0;
          for (int64_t id = lo(od, os[0], in[0]); id < hi(od, os[0], in[0]); ++id)
            for (int64_t ih = lo(oh, os[1], in[1]); ih < hi(oh, os[1], in[1]); ++ih)
              for (int64_t iw = lo(ow, os[2], in[2]); iw < hi(ow, os[2], in[2]); ++iw) {
                const int64_t k = (id * in[1] + ih) * in[2] + iw;
                const double v = x[pl * IP + k];
                s += v, ++n;
                if (mi < 0 || v > m || std::isnan(v)) m = v, mi = k;
              }
          out.push_back(max ? m : s / static_cast<double>(n));
          ind.push_back(static_cast<double>(mi));
        }
}

TEST(CpuPool, AdaptivePoolsMatchReference) {
  struct Case {
    Shape x;
    int64_t nd;
    D3 os;
  };
  const Case cases[] = {
      {{2, 3, 7}, 1, {1, 1, 3}},     {{3, 5}, 1, {1, 1, 8}},       {{2, 2, 5, 4, 7}, 3, {2, 3, 2}},
      {{2, 3, 4, 5}, 3, {4, 5, 6}},  {{2, 3, 7, 6}, 2, {1, 3, 2}}, {{3, 5, 4}, 2, {1, 5, 9}},
      {{1, 2, 9, 33}, 2, {1, 4, 7}},
  };
  for (ScalarType dt : kFloats)
    for (const Case& c : cases) {
      const Tensor x = make(c.x, dt, distinct_values(numel(c.x)), true);
      Shape os = c.x;
      for (int64_t i = 0; i < c.nd; ++i) os[os.size() - c.nd + i] = c.os[3 - c.nd + i];
      const std::vector<int64_t> o = arg(c.os, c.nd);
      Vec avg, max, ind, unused;
      ref_adaptive(c.x, c.nd, c.os, values(x), false, avg, unused);
      ref_adaptive(c.x, c.nd, c.os, values(x), true, max, ind);
      const std::string what = std::string(dtype_name(dt)) + " " + std::to_string(c.nd) + "-d";
      if (c.nd == 1) {
        expect_close(ember::adaptive_avg_pool1d(x, o), avg, os, tol_for(dt), "adaptive_avg_pool1d " + what);
        auto [y, i] = ember::adaptive_max_pool1d(x, o);
        expect_close(y, max, os, 0, "adaptive_max_pool1d " + what);
        expect_close(i, ind, os, 0, "adaptive_max_pool1d indices " + what);
      } else if (c.nd == 3) {
        expect_close(ember::_adaptive_avg_pool3d(x, o), avg, os, tol_for(dt), "adaptive_avg_pool3d " + what);
        expect_close(ember::adaptive_avg_pool3d(x, o), avg, os, tol_for(dt), "adaptive_avg_pool3d " + what);
      } else {
        auto [y, i] = ember::adaptive_max_pool2d(x, o);
        expect_close(y, max, os, 0, "adaptive_max_pool2d " + what);
        expect_close(i, ind, os, 0, "adaptive_max_pool2d indices " + what);
        // Its backward adds each gradient at its index.
        const Tensor go = make(os, dt, random_values(numel(os), 2), false);
        const Vec gov = values(go);
        Vec gi(static_cast<size_t>(numel(c.x)), 0.0);
        const int64_t IP = c.x[c.x.size() - 1] * c.x[c.x.size() - 2], OP = c.os[1] * c.os[2];
        for (size_t j = 0; j < ind.size(); ++j) gi[j / OP * IP + static_cast<int64_t>(ind[j])] += gov[j];
        expect_close(ember::adaptive_max_pool2d_backward(go, x, i), gi, c.x, tol_for(dt), "backward " + what);
      }
    }
}

// ---- padding ---------------------------------------------------------------------------------

enum class Mode { Constant, Reflect, Replicate, Circular };

// out[o] = x[source(o)] per padded dimension (pad lists (left, right) from the last dimension).
Vec ref_pad(const Shape& xs, const std::vector<int64_t>& pad, Mode m, double value, const Vec& x, Shape& os) {
  const int64_t dim = static_cast<int64_t>(xs.size()), np = static_cast<int64_t>(pad.size()) / 2;
  os = xs;
  std::vector<int64_t> lo(dim, 0);
  for (int64_t i = 0; i < np; ++i) {
    os[dim - 1 - i] += pad[2 * i] + pad[2 * i + 1];
    lo[dim - 1 - i] = pad[2 * i];
  }
  Vec out;
  std::vector<int64_t> idx(dim, 0);
  for (int64_t n = 0; n < numel(os); ++n) {
    int64_t off = 0;
    bool inside = true;
    for (int64_t d = 0; d < dim; ++d) {
      int64_t i = idx[d] - lo[d];
      const int64_t sz = xs[d];
      if (m == Mode::Reflect) i = i < 0 ? -i : i >= sz ? 2 * (sz - 1) - i : i;
      if (m == Mode::Replicate) i = std::clamp<int64_t>(i, 0, sz - 1);
      if (m == Mode::Circular) i = ((i % sz) + sz) % sz;
      if (i < 0 || i >= sz) inside = false;
      off = off * sz + i;
    }
    out.push_back(inside ? x[off] : value);
    for (int64_t d = dim - 1; d >= 0; --d) {
      if (++idx[d] < os[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

struct PadCase {
  Shape x;
  std::vector<int64_t> pad;
};
const PadCase kPads[] = {
    {{2, 3, 5}, {2, 3}},
    {{3, 6}, {-1, 3}},
    {{2, 2, 4, 5}, {1, 2, 3, 0}},
    {{2, 4, 5}, {-2, 1, 2, -1}},
    {{1, 2, 3, 9, 70}, {3, 2, 1, 1, 2, 1}},
    {{2, 3, 4, 3}, {1, -1, 2, 0, -1, 2}},
};

TEST(CpuPad, ReflectionAndReplicationMatchReference) {
  for (ScalarType dt : kFloats)
    for (const PadCase& c : kPads)
      for (Mode m : {Mode::Reflect, Mode::Replicate})
        for (bool sliced : {false, true}) {
          const Tensor x = make(c.x, dt, random_values(numel(c.x), 7), sliced);
          Shape os;
          const Vec want = ref_pad(c.x, c.pad, m, 0, values(x), os);
          const int64_t nd = static_cast<int64_t>(c.pad.size()) / 2;
          const bool r = m == Mode::Reflect;
          Tensor y;
          switch (nd) {
            case 1:
              y = r ? ember::reflection_pad1d(x, c.pad) : ember::replication_pad1d(x, c.pad);
              break;
            case 2:
              y = r ? ember::reflection_pad2d(x, c.pad) : ember::replication_pad2d(x, c.pad);
              break;
            default:
              y = r ? ember::reflection_pad3d(x, c.pad) : ember::replication_pad3d(x, c.pad);
              break;
          }
          const std::string what = std::string(r ? "reflection" : "replication") + " " + std::to_string(nd) + "-d " +
                                   std::string(dtype_name(dt));
          EXPECT_EQ(y.dtype(), dt);
          expect_close(y, want, os, 0, what);
          expect_close(ember::pad(x, c.pad, r ? "reflect" : "replicate"), want, os, 0, what + " (pad)");
          // The backward sums the gradients of the outputs that read each input.
          const Tensor go = make(os, dt, random_values(numel(os), 11), false);
          Vec idx(static_cast<size_t>(numel(c.x)));
          for (size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<double>(i);
          Shape unused;
          const Vec src = ref_pad(c.x, c.pad, m, 0, idx, unused), gov = values(go);
          Vec gi(idx.size(), 0.0);
          for (size_t j = 0; j < src.size(); ++j) gi[static_cast<size_t>(src[j])] += gov[j];
          Tensor gx;
          switch (nd) {
            case 1:
              gx = r ? ember::reflection_pad1d_backward(go, x, c.pad) : ember::replication_pad1d_backward(go, x, c.pad);
              break;
            case 2:
              gx = r ? ember::reflection_pad2d_backward(go, x, c.pad) : ember::replication_pad2d_backward(go, x, c.pad);
              break;
            default:
              gx = r ? ember::reflection_pad3d_backward(go, x, c.pad) : ember::replication_pad3d_backward(go, x, c.pad);
              break;
          }
          EXPECT_EQ(gx.dtype(), dt);
          expect_close(gx, gi, c.x, tol_for(dt) * 4, what + " backward");
        }
}

TEST(CpuPad, ConstantAndCircularMatchReference) {
  const PadCase cases[] = {
      {{2, 3, 5}, {2, 3}}, {{3, 6}, {-1, 3, 1, 0}}, {{2, 2, 4, 5}, {1, 2, 3, 0, 0, 1, 2, 2}},
      {{4}, {0, 0}},       {{5}, {2, -3}},          {{2, 3, 70}, {5, 9}},
  };
  for (ScalarType dt : optest::kDtypes)
    for (const PadCase& c : cases)
      for (bool sliced : {false, true}) {
        Vec v = random_values(numel(c.x), 13);
        for (double& e : v) e = std::fabs(std::round(e * 4));  // small non-negative integers: every dtype holds them
        const Tensor x = make(c.x, dt, v, sliced);
        Shape os;
        const Vec want = ref_pad(c.x, c.pad, Mode::Constant, 1, values(x), os);
        const std::string what = "constant_pad_nd " + std::string(dtype_name(dt));
        const Tensor y = ember::constant_pad_nd(x, c.pad, 1);
        EXPECT_EQ(y.dtype(), dt);
        expect_close(y, want, os, 0, what);
        Tensor out = ember::empty({0}, dt);
        ember::constant_pad_nd_out(out, x, c.pad, 1);
        expect_close(out, want, os, 0, what + " out=");
      }
  // Circular: every floating dtype, 1 to 3 padded dimensions, crops.
  const PadCase circular[] = {
      {{2, 3, 5}, {2, 3}}, {{2, 2, 4, 5}, {-1, 2, 3, 0}}, {{1, 2, 2, 3, 2}, {1, 1, 0, 2, 2, 1}}};
  for (ScalarType dt : kFloats)
    for (const PadCase& c : circular) {
      const Tensor x = make(c.x, dt, random_values(numel(c.x), 17), true);
      Shape os;
      const Vec want = ref_pad(c.x, c.pad, Mode::Circular, 0, values(x), os);
      expect_close(ember::pad(x, c.pad, "circular"), want, os, 0, "circular " + std::string(dtype_name(dt)));
    }
  // constant mode through pad, with its value.
  Shape os;
  const Tensor x = ember::arange(6.0).reshape({2, 3});
  expect_close(ember::pad(x, {1, 0, 0, 1}, "constant", -2.5),
               ref_pad({2, 3}, {1, 0, 0, 1}, Mode::Constant, -2.5, values(x), os), {3, 4}, 0, "pad constant -2.5");
}

TEST(CpuPad, ComplexAndOutVariants) {
  // Reflection of a complex input keeps both parts (written and read through memory: Ember has no
  // complex constructors yet); out= writes into its argument.
  Tensor z = ember::empty({1, 4}, kComplex64);
  auto* zp = static_cast<std::complex<float>*>(z.data_ptr());
  for (int i = 0; i < 4; ++i) zp[i] = {static_cast<float>(i), static_cast<float>(-i)};
  const Tensor y = ember::reflection_pad1d(z, {2, 1});
  EXPECT_EQ(y.dtype(), kComplex64);
  ASSERT_EQ(y.sizes(), IntArrayRef({1, 7}));
  const auto* yp = static_cast<const std::complex<float>*>(y.data_ptr());
  const float want[] = {2, 1, 0, 1, 2, 3, 2};
  for (int i = 0; i < 7; ++i) EXPECT_EQ(yp[i], std::complex<float>(want[i], -want[i])) << i;
  // Its backward adds the complex gradients.
  Tensor g = ember::empty({1, 7}, kComplex64);
  auto* gp = static_cast<std::complex<float>*>(g.data_ptr());
  for (int i = 0; i < 7; ++i) gp[i] = {1.0f, static_cast<float>(i)};
  const Tensor gx = ember::reflection_pad1d_backward(g, z, {2, 1});
  const auto* gxp = static_cast<const std::complex<float>*>(gx.data_ptr());
  const std::complex<float> gwant[] = {
      {1, 2}, {2, 4}, {3, 10}, {1, 5}};  // inputs 0..3 read by outputs {2}, {1, 3}, {0, 4, 6}, {5}
  for (int i = 0; i < 4; ++i) EXPECT_EQ(gxp[i], gwant[i]) << i;
  Tensor out = ember::empty({3}, kFloat32);
  ember::replication_pad2d_out(out, ember::arange(4.0f).reshape({1, 2, 2}), {1, 0, 0, 1});
  expect_close(out, {0, 0, 1, 2, 2, 3, 2, 2, 3}, {1, 3, 3}, 0, "replication_pad2d out=");
}

TEST(CpuPad, FunctionalAndModules) {
  namespace F = ember::nn::functional;
  const Tensor x = ember::arange(6.0).reshape({1, 1, 6});
  expect_close(F::pad(x, F::PadFuncOptions({2, 1}).mode(kReflect)), {2, 1, 0, 1, 2, 3, 4, 5, 4}, {1, 1, 9}, 0,
               "F::pad reflect");
  expect_close(F::pad(x, F::PadFuncOptions({1, 1}).mode(kCircular)), {5, 0, 1, 2, 3, 4, 5, 0}, {1, 1, 8}, 0,
               "F::pad circular");
  expect_close(F::pad(x, F::PadFuncOptions({1, 2}).value(-1)), {-1, 0, 1, 2, 3, 4, 5, -1, -1}, {1, 1, 9}, 0,
               "F::pad constant");
  nn::ReflectionPad1d rp(2);
  nn::ConstantPad2d cp(nn::ConstantPad2dOptions({1, 0, 0, 1}, 3.5));
  nn::ZeroPad2d zp(1);
  expect_close(rp(x), {2, 1, 0, 1, 2, 3, 4, 5, 4, 3}, {1, 1, 10}, 0, "ReflectionPad1d");
  EXPECT_EQ(cp(x).sizes(), IntArrayRef({1, 2, 7}));
  EXPECT_EQ(zp(x).sizes(), IntArrayRef({1, 3, 8}));
  std::ostringstream os;
  os << *rp << "\n" << *cp << "\n" << *zp;
  EXPECT_EQ(os.str(),
            "ember::nn::ReflectionPad1d(padding=[2, 2])\nember::nn::ConstantPad2d(padding=[1, 0, 0, 1], value=3.5)\n"
            "ember::nn::ZeroPad2d(padding=[1, 1, 1, 1])");
  nn::AdaptiveMaxPool2d amp(nn::AdaptiveMaxPool2dOptions({2, std::nullopt}));
  nn::AvgPool3d ap(2);
  nn::MaxPool3d mp(nn::MaxPool3dOptions(2).stride(1));
  EXPECT_EQ(amp(ember::arange(24.0).reshape({1, 4, 6})).sizes(), IntArrayRef({1, 2, 6}));
  EXPECT_EQ(ap(ember::ones({1, 2, 4, 4, 4})).sizes(), IntArrayRef({1, 2, 2, 2, 2}));
  EXPECT_EQ(mp(ember::ones({2, 3, 3, 3})).sizes(), IntArrayRef({2, 2, 2, 2}));
  EXPECT_EQ(
      F::adaptive_avg_pool3d(ember::ones({2, 4, 4, 4}), F::AdaptiveAvgPool3dFuncOptions({2, std::nullopt, 1})).sizes(),
      IntArrayRef({2, 2, 4, 1}));
}

TEST(CpuPool, ThreadInvariant) {
  const Tensor x = ember::randn({4, 8, 9, 10, 11});
  expect_thread_invariant("max_pool3d", [&] { return std::get<0>(ember::max_pool3d_with_indices(x, {3}, {2}, {1})); });
  expect_thread_invariant("avg_pool3d", [&] { return ember::avg_pool3d(x, {3}, {2}, {1}); });
  expect_thread_invariant("adaptive_avg_pool3d", [&] { return ember::_adaptive_avg_pool3d(x, {4, 5, 3}); });
  expect_thread_invariant("reflection_pad3d", [&] { return ember::reflection_pad3d(x, {2, 3, 1, 2, 3, 1}); });
  expect_thread_invariant("reflection_pad3d_backward", [&] {
    return ember::reflection_pad3d_backward(ember::ones({4, 8, 13, 13, 16}), x, {2, 3, 1, 2, 3, 1});
  });
  expect_thread_invariant("constant_pad_nd", [&] { return ember::constant_pad_nd(x, {2, 3, 1, 2, 3, 1, 1, 1}, 2); });
}

}  // namespace
