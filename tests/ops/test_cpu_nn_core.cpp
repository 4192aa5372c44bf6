// The Core ATen nn kernels (_softmax, _native_batch_norm_legit, native_group_norm, native_dropout,
// embedding_dense_backward, _embedding_bag, cdist/pdist) and the order statistics, unique,
// searchsorted, dot/mv/outer and einsum against float64 naive references and LibTorch 1.13's
// values (quoted where used), over dtypes and non-contiguous layouts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "ember/ember.h"

#include "OpTestUtil.h"

using namespace ember;
using namespace ember::optest;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

Tensor f64(std::vector<int64_t> shape, int seed) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = std::sin(0.7 * static_cast<double>(i) + seed) * 2;
  return from_values(shape, kFloat64, v);
}

void expect_near_all(const Tensor& t, const std::vector<double>& ref, double tol, const std::string& what) {
  const auto got = values(t);
  ASSERT_EQ(got.size(), ref.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(ref[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << what << " at " << i;
    } else {
      EXPECT_NEAR(got[i], ref[i], tol * std::max(1.0, std::fabs(ref[i]))) << what << " at " << i;
    }
  }
}

// ---- softmax -----------------------------------------------------------------------------------

TEST(CpuNNCore, SoftmaxMatchesNaiveAndBackwardData) {
  for (ScalarType dt : {kFloat32, kFloat64, kBFloat16}) {
    for (Kind k : kKinds) {
      const Tensor x = make({3, 5}, dt, k, 1);
      const auto xv = values(x);
      for (int64_t dim : {0, 1}) {
        std::vector<double> sm(xv.size()), lsm(xv.size());
        const int64_t rows = dim == 1 ? 3 : 5, len = dim == 1 ? 5 : 3;
        auto at = [&](int64_t r, int64_t i) { return dim == 1 ? r * 5 + i : i * 5 + r; };
        for (int64_t r = 0; r < rows; ++r) {
          double m = -kInf, s = 0;
          for (int64_t i = 0; i < len; ++i) m = std::max(m, xv[at(r, i)]);
          for (int64_t i = 0; i < len; ++i) s += std::exp(xv[at(r, i)] - m);
          for (int64_t i = 0; i < len; ++i) {
            sm[at(r, i)] = std::exp(xv[at(r, i)] - m) / s;
            lsm[at(r, i)] = xv[at(r, i)] - m - std::log(s);
          }
        }
        const double tol = dt == kBFloat16 ? 1e-2 : dt == kFloat32 ? 1e-6 : 1e-12;
        expect_near_all(_softmax(x, dim, false), sm, tol, "softmax");
        expect_near_all(_log_softmax(x, dim, false), lsm, tol, "log_softmax");
        EXPECT_EQ(_softmax(x, dim, false).dtype(), dt);
      }
    }
  }
  // Backward data: (g - sum(g y)) y and g - exp(y) sum(g), along dim 1.
  const Tensor g = f64({2, 4}, 3), y = _softmax(f64({2, 4}, 5), 1, false), ly = _log_softmax(f64({2, 4}, 5), 1, false);
  const auto gv = values(g), yv = values(y), lyv = values(ly);
  std::vector<double> want(8), lwant(8);
  for (int r = 0; r < 2; ++r) {
    double s = 0, sg = 0;
    for (int i = 0; i < 4; ++i) s += gv[r * 4 + i] * yv[r * 4 + i], sg += gv[r * 4 + i];
    for (int i = 0; i < 4; ++i) {
      want[r * 4 + i] = (gv[r * 4 + i] - s) * yv[r * 4 + i];
      lwant[r * 4 + i] = gv[r * 4 + i] - std::exp(lyv[r * 4 + i]) * sg;
    }
  }
  expect_near_all(_softmax_backward_data(g, y, 1, kFloat64), want, 1e-12, "softmax backward");
  expect_near_all(_log_softmax_backward_data(g, ly, -1, kFloat64), lwant, 1e-12, "log_softmax backward");
  // out= is written in place.
  Tensor out = empty({0}, kFloat64);
  _softmax_out(out, f64({2, 4}, 5), 1, false);
  expect_near_all(out, yv, 1e-12, "softmax out");
}

// The float32 vector paths against float64: softmax along a middle dim whose inner size spans
// two column chunks (with a NaN column and large values), and the backward along a last dim long
// enough for the partial sums and their tail.
TEST(CpuNNCore, SoftmaxFloat32VectorPathsMatchFloat64) {
  Tensor x64 = f64({2, 3, 700}, 7) * 30;
  x64.select(2, 5).select(1, 1).fill_(std::numeric_limits<double>::quiet_NaN());
  const Tensor x = x64.to(kFloat32), xr = x.to(kFloat64);  // the float32 values, widened
  for (int64_t dim : {0, 1}) {
    const auto want = values(_softmax(xr, dim, false)), lwant = values(_log_softmax(xr, dim, false));
    const auto got = values(_softmax(x, dim, false)), lgot = values(_log_softmax(x, dim, false));
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      if (std::isnan(want[i])) {
        EXPECT_TRUE(std::isnan(got[i]) && std::isnan(lgot[i])) << "dim " << dim << " at " << i;
        continue;
      }
      EXPECT_NEAR(got[i], want[i], 1e-6 + 1e-5 * want[i]) << "softmax dim " << dim << " at " << i;
      EXPECT_NEAR(lgot[i], lwant[i], 1e-4 + 1e-6 * std::fabs(lwant[i])) << "log_softmax dim " << dim << " at " << i;
    }
  }
  const Tensor g = f64({3, 37}, 8).to(kFloat32), y = _softmax(f64({3, 37}, 9), 1, false).to(kFloat32);
  const Tensor ly = _log_softmax(f64({3, 37}, 9), 1, false).to(kFloat32);
  expect_near_all(_softmax_backward_data(g, y, 1, kFloat32),
                  values(_softmax_backward_data(g.to(kFloat64), y.to(kFloat64), 1, kFloat64)), 1e-6, "softmax bw");
  expect_near_all(_log_softmax_backward_data(g, ly, 1, kFloat32),
                  values(_log_softmax_backward_data(g.to(kFloat64), ly.to(kFloat64), 1, kFloat64)), 1e-5,
                  "log_softmax bw");
}

TEST(CpuNNCore, SoftmaxErrors) {
  EXPECT_ERROR(NotImplementedError, _softmax(ones({2, 3}, kInt64), 1, false),
               "[_softmax] not implemented for dtype int64 on the CPU");
  EXPECT_ERROR(NotImplementedError, _softmax(ones({2, 3}), 1, true),
               "[_softmax] softmax with half to float conversion is not supported on CPU");
  EXPECT_ERROR(IndexError, _log_softmax(ones({2, 3}), 2, false), "dimension out of range");
  EXPECT_ERROR(ValueError, _softmax_backward_data(ones({2, 3}), ones({3, 2}), 1, kFloat32),
               "[_softmax_backward_data] expected grad_output and output of the same shape, got [2, 3] and [3, 2]");
  Tensor o = empty({2}, kFloat64);
  EXPECT_ERROR(TypeError, _softmax_out(o, ones({2, 3}), 1, false), "[_softmax]");
}

// ---- batch norm (legit forms), group norm --------------------------------------------------------

TEST(CpuNNCore, BatchNormLegitUpdatesRunningStatsInPlace) {
  const Tensor x = f64({4, 3, 5}, 1), w = f64({3}, 2), b = f64({3}, 3);
  Tensor rm = zeros({3}, kFloat64), rv = ones({3}, kFloat64);
  const auto [y, sm, si] = _native_batch_norm_legit(x, w, b, rm, rv, true, 0.1, 1e-5);
  Tensor rm2 = zeros({3}, kFloat64), rv2 = ones({3}, kFloat64);
  const auto [y2, sm2, si2] = native_batch_norm(x, w, b, rm2, rv2, true, 0.1, 1e-5);
  expect_near_all(y, values(y2), 1e-12, "output");
  expect_near_all(rm, values(rm2), 1e-12, "running_mean");
  expect_near_all(rv, values(rv2), 1e-12, "running_var");
  // running_mean = 0.9 * 0 + 0.1 * the batch mean of channel 0.
  const auto xv = values(x);
  double m0 = 0;
  for (int n = 0; n < 4; ++n)
    for (int i = 0; i < 5; ++i) m0 += xv[n * 15 + i];
  EXPECT_NEAR(values(rm)[0], 0.1 * m0 / 20, 1e-12);
  // no_training uses the running stats and leaves them alone.
  const auto [e, e1, e2] = _native_batch_norm_legit_no_training(x, w, b, rm, rv, 0.1, 1e-5);
  const auto [e_ref, r1, r2] = native_batch_norm(x, w, b, rm, rv, false, 0.1, 1e-5);
  expect_near_all(e, values(e_ref), 1e-12, "evaluation");
  EXPECT_EQ(e1.numel(), 0);
  // no_stats: batch statistics only; evaluation without any statistics raises.
  expect_near_all(std::get<0>(_native_batch_norm_legit(x, w, b, rm2, rv2, true, 0.1, 1e-5)), values(y), 1e-12, "again");
  expect_near_all(std::get<0>(_native_batch_norm_legit(x, w, b, true, 0.1, 1e-5)), values(y), 1e-12, "no_stats");
  EXPECT_ERROR(ValueError, _native_batch_norm_legit(x, w, b, false, 0.1, 1e-5),
               "running_mean and running_var must be defined in evaluation mode");
}

TEST(CpuNNCore, GroupNormMatchesNaiveAndBackward) {
  const int64_t N = 2, C = 4, HxW = 3, G = 2, D = C / G;
  for (ScalarType dt : {kFloat64, kFloat32}) {
    const Tensor x = f64({N, C, HxW}, 1).to(dt), w = f64({C}, 2).to(dt), b = f64({C}, 3).to(dt);
    const auto [y, mean, rstd] = native_group_norm(x, w, b, N, C, HxW, G, 1e-5);
    ASSERT_EQ(mean.sizes(), IntArrayRef({N, G}));
    const auto xv = values(x), wv = values(w), bv = values(b);
    std::vector<double> want(xv.size()), mw, rw;
    for (int64_t n = 0; n < N; ++n)
      for (int64_t g = 0; g < G; ++g) {
        double m = 0, v = 0;
        for (int64_t i = 0; i < D * HxW; ++i) m += xv[(n * C + g * D) * HxW + i];
        m /= static_cast<double>(D * HxW);
        for (int64_t i = 0; i < D * HxW; ++i) v += std::pow(xv[(n * C + g * D) * HxW + i] - m, 2);
        v /= static_cast<double>(D * HxW);
        const double rs = 1 / std::sqrt(v + 1e-5);
        mw.push_back(m), rw.push_back(rs);
        for (int64_t d = 0; d < D; ++d)
          for (int64_t i = 0; i < HxW; ++i) {
            const int64_t c = g * D + d, k = (n * C + c) * HxW + i;
            want[k] = (xv[k] - m) * rs * wv[c] + bv[c];
          }
      }
    const double tol = dt == kFloat32 ? 1e-5 : 1e-12;
    expect_near_all(y, want, tol, "group norm");
    expect_near_all(mean, mw, tol, "mean");
    expect_near_all(rstd, rw, tol, "rstd");
  }
  // The backward kernel against the composite that autograd differentiates (group_norm's).
  const Tensor x = f64({N, C, HxW}, 4).requires_grad_(), w = f64({C}, 5).requires_grad_(),
               b = f64({C}, 6).requires_grad_(), gy = f64({N, C, HxW}, 7);
  const auto [y, mean, rstd] = native_group_norm(x, w, b, N, C, HxW, G, 1e-5);
  const auto [gx, gw, gb] = native_group_norm_backward(gy, x.detach(), mean.detach(), rstd.detach(), w.detach(), N, C,
                                                       HxW, G, {true, true, true});
  const Tensor xr = x.reshape({N, G, -1});
  const Tensor xc = xr - xr.mean({2}, true);
  const Tensor ref =
      (xc * ((xc * xc).mean({2}, true) + 1e-5).rsqrt()).reshape({N, C, HxW}) * w.view({1, C, 1}) + b.view({1, C, 1});
  const auto grads = autograd::grad({ref}, {x, w, b}, {gy});
  expect_near_all(gx, values(grads[0]), 1e-10, "grad input");
  expect_near_all(gw, values(grads[1]), 1e-10, "grad weight");
  expect_near_all(gb, values(grads[2]), 1e-10, "grad bias");
}

// ---- dropout -------------------------------------------------------------------------------------

TEST(CpuNNCore, NativeDropoutMaskAndScale) {
  manual_seed(3);
  const Tensor x = ones({1000}, kFloat32);
  const auto [y, mask] = native_dropout(x, 0.25, true);
  ASSERT_EQ(mask.dtype(), kBool);
  const auto yv = values(y), mv = values(mask);
  double kept = 0;
  for (size_t i = 0; i < yv.size(); ++i) {
    EXPECT_NEAR(yv[i], mv[i] / 0.75, 1e-6) << i;
    kept += mv[i];
  }
  EXPECT_NEAR(kept / 1000, 0.75, 0.05);
  manual_seed(3);
  expect_near_all(std::get<1>(native_dropout(x, 0.25, true)), mv, 0, "same seed, same mask");
  // Evaluation: a copy and an all-true mask; p = 1 drops everything.
  const auto [e, em] = native_dropout(x, 0.25, false);
  EXPECT_NE(e.data_ptr(), x.data_ptr());
  EXPECT_EQ(values(em), std::vector<double>(1000, 1.0));
  EXPECT_EQ(values(std::get<0>(native_dropout(x, 1.0, true))), std::vector<double>(1000, 0.0));
  expect_near_all(native_dropout_backward(f64({4}, 1), tensor({true, false, true, false}), 2.0),
                  {values(f64({4}, 1))[0] * 2, 0, values(f64({4}, 1))[2] * 2, 0}, 1e-12, "backward");
}

// ---- embeddings ----------------------------------------------------------------------------------

TEST(CpuNNCore, EmbeddingDenseBackward) {
  const Tensor g = f64({2, 3, 2}, 1), idx = tensor({{0, 1, 0}, {2, 2, 4}});
  const auto gv = values(g);
  // padding_idx 2 left out; index 0 twice and scaled by its count.
  std::vector<double> want(10, 0.0);
  const int64_t ix[] = {0, 1, 0, 2, 2, 4};
  const double cnt[] = {2, 1, 2, 2, 2, 1};
  for (int i = 0; i < 6; ++i) {
    if (ix[i] == 2) continue;
    for (int c = 0; c < 2; ++c) want[ix[i] * 2 + c] += gv[i * 2 + c] / cnt[i];
  }
  for (Kind k : kKinds) {
    (void)k;
    expect_near_all(embedding_dense_backward(g, idx, 5, 2, true), want, 1e-12, "dense backward");
    expect_near_all(embedding_dense_backward(g, idx.to(kInt32), 5, 2, true), want, 1e-12, "int32 indices");
  }
  EXPECT_ERROR(IndexError, embedding_dense_backward(g, idx, 3, -1, false),
               "[embedding_dense_backward] index 4 is out of range for 3 rows (num_weights)");
}

TEST(CpuNNCore, EmbeddingBagMatchesLibTorch) {
  // LibTorch 1.13, weight = arange(20).view(5, 4), indices {0, 2, 1, 2, 4, 3}, offsets {0, 2, 2, 5},
  // padding_idx 2: bags [0 2], [], [1 2 4], [3].
  const Tensor w = arange(20, kFloat32).view({5, 4}), idx = tensor({0, 2, 1, 2, 4, 3}), off = tensor({0, 2, 2, 5});
  const auto [s, s_o2b, s_bs, s_mi] = _embedding_bag(w, idx, off, false, 0, false, std::nullopt, false, 2);
  EXPECT_EQ(values(s), std::vector<double>({0, 1, 2, 3, 0, 0, 0, 0, 20, 22, 24, 26, 12, 13, 14, 15}));
  EXPECT_EQ(values(s_o2b), std::vector<double>({0, 0, 2, 2, 2, 3}));
  EXPECT_EQ(values(s_bs), std::vector<double>({0, 0, 0, 0}));  // sum mode does not count
  EXPECT_EQ(values(s_mi), std::vector<double>({0, 0, 0, 0}));
  const auto [m, m_o2b, m_bs, m_mi] = _embedding_bag(w, idx, off, false, 1, false, std::nullopt, false, 2);
  EXPECT_EQ(values(m), std::vector<double>({0, 1, 2, 3, 0, 0, 0, 0, 10, 11, 12, 13, 12, 13, 14, 15}));
  EXPECT_EQ(values(m_bs), std::vector<double>({1, 0, 2, 1}));
  EXPECT_EQ(values(m_mi), std::vector<double>({1, 0, 2, 1}));  // LibTorch: bag_size again
  const auto [x, x_o2b, x_bs, x_mi] = _embedding_bag(w, idx, off, false, 2, false, std::nullopt, false, 2);
  EXPECT_EQ(values(x), std::vector<double>({0, 1, 2, 3, 0, 0, 0, 0, 16, 17, 18, 19, 12, 13, 14, 15}));
  EXPECT_EQ(values(x_mi), std::vector<double>({0, 0, 0, 0, 0, 0, 0, 0, 4, 4, 4, 4, 3, 3, 3, 3}));
  // include_last_offset: offsets {0, 2, 2, 5, 6} give the same four bags.
  EXPECT_EQ(
      values(std::get<0>(_embedding_bag(w, idx, tensor({0, 2, 2, 5, 6}), false, 0, false, std::nullopt, true, 2))),
      values(s));
  // Backward: every row's gradient from its bags (per_sample_weights scale it).
  const Tensor psw = tensor({0.5, 1.0, 2.0, 1.0, 3.0, 1.0}, kFloat32);
  const auto r = _embedding_bag(w, idx, off, false, 0, false, psw, false, -1);
  const Tensor gw = _embedding_bag_backward(ones({4, 4}), idx, off, std::get<1>(r), std::get<2>(r), std::get<3>(r), 5,
                                            false, 0, false, psw, -1);
  EXPECT_EQ(values(gw.select(1, 0)), std::vector<double>({0.5, 2.0, 2.0, 1.0, 3.0}));
  const Tensor gp = _embedding_bag_per_sample_weights_backward(ones({4, 4}), w, idx, off, std::get<1>(r), 0, -1);
  EXPECT_EQ(values(gp), std::vector<double>({6, 38, 22, 38, 70, 54}));  // LibTorch's values
  EXPECT_ERROR(ValueError, _embedding_bag(w, idx, tensor({1, 2}), false, 0), "offsets[0] has to be 0");
  EXPECT_ERROR(IndexError, _embedding_bag(w, tensor({0, 9}), tensor({0}), false, 0),
               "[_embedding_bag] index 9 is out of range for 5 rows of weight");
}

// ---- distances -----------------------------------------------------------------------------------

double naive_dist(const std::vector<double>& a, const std::vector<double>& b, double p) {
  double s = 0;
  for (size_t k = 0; k < a.size(); ++k) {
    const double d = std::fabs(a[k] - b[k]);
    if (p == 0)
      s += d != 0;
    else if (std::isinf(p))
      s = std::max(s, d);
    else
      s += std::pow(d, p);
  }
  return p == 0 || std::isinf(p) ? s : std::pow(s, 1 / p);
}

TEST(CpuNNCore, CdistPdistMatchNaive) {
  // LibTorch's values for p = 0, inf and 0.5 on two small sets.
  const Tensor a = tensor({{0., 0.}, {1., 3.}}, kFloat64), b = tensor({{1., 0.}, {0., 0.}}, kFloat64);
  expect_near_all(cdist(tensor({{0., 0.}, {1., 1.}}, kFloat64), b, 0), {1, 0, 1, 2}, 0, "p 0");
  expect_near_all(cdist(a, b, kInf), {1, 0, 3, 3}, 0, "p inf");
  expect_near_all(cdist(a, b, 0.5), {1, 0, 3, 7.46410161514}, 1e-10, "p 0.5");
  for (double p : {0.0, 1.0, 2.0, 3.5, kInf}) {
    for (Kind k : kKinds) {
      const Tensor x1 = make({30, 3}, kFloat64, k, 1), x2 = make({4, 3}, kFloat64, k, 2);
      const auto v1 = values(x1), v2 = values(x2);
      std::vector<double> want;
      for (int i = 0; i < 30; ++i)
        for (int j = 0; j < 4; ++j)
          want.push_back(naive_dist({v1.begin() + i * 3, v1.begin() + i * 3 + 3},
                                    {v2.begin() + j * 3, v2.begin() + j * 3 + 3}, p));
      // 30 rows take the matrix-product path for p = 2 (compute_mode None), 2 forbids it.
      expect_near_all(cdist(x1, x2, p), want, 1e-9, "cdist");
      expect_near_all(cdist(x1, x2, p, 2), want, 1e-12, "cdist without mm");
      std::vector<double> pw;
      for (int i = 0; i < 30; ++i)
        for (int j = i + 1; j < 30; ++j)
          pw.push_back(naive_dist({v1.begin() + i * 3, v1.begin() + i * 3 + 3},
                                  {v1.begin() + j * 3, v1.begin() + j * 3 + 3}, p));
      expect_near_all(pdist(x1, p), pw, 1e-12, "pdist");
    }
  }
  // Batch dims broadcast; float32 keeps its dtype.
  EXPECT_EQ(cdist(ones({2, 3, 4}), ones({5, 4})).sizes(), IntArrayRef({2, 3, 5}));
  EXPECT_EQ(cdist(ones({2, 3, 4}), ones({5, 4})).dtype(), kFloat32);
  EXPECT_EQ(pdist(ones({1, 3})).numel(), 0);
  EXPECT_ERROR(ValueError, cdist(ones({3, 4}), ones({5, 3})),
               "[_cdist_forward] X1 and X2 must have the same number of columns. X1: 4 X2: 3");
  EXPECT_ERROR(ValueError, pdist(ones({2, 3, 4})), "[_pdist_forward] pdist only supports 2D tensors, got: 3D");
}

TEST(CpuNNCore, DistanceGradientsMatchComposite) {
  for (double p : {1.0, 2.0, 3.5, kInf}) {
    const Tensor x1 = f64({3, 4}, 1).requires_grad_(), x2 = f64({5, 4}, 2).requires_grad_();
    const Tensor g = f64({3, 5}, 3);
    const auto k = autograd::grad({cdist(x1, x2, p)}, {x1, x2}, {g});
    const std::vector<int64_t> last{-1};
    const Tensor ref = linalg_vector_norm(x1.unsqueeze(1) - x2.unsqueeze(0), p, IntArrayRef(last));
    const auto r = autograd::grad({ref}, {x1, x2}, {g});
    expect_near_all(k[0], values(r[0]), 1e-10, "x1");
    expect_near_all(k[1], values(r[1]), 1e-10, "x2");
  }
}

// ---- order statistics, unique, searchsorted ---------------------------------------------------------

TEST(CpuOrder, OrderStatisticsMatchLibTorch) {
  // LibTorch 1.13's values and indices.
  const Tensor x = tensor({{3., 1., 2., 1.}, {kNaN, 5., 4., 4.}}, kFloat64);
  for (ScalarType dt : {kFloat64, kFloat32, kBFloat16}) {
    for (Kind k : {Kind::Contiguous, Kind::Transposed}) {
      const Tensor xs = k == Kind::Transposed ? x.to(dt).t().contiguous().t() : x.to(dt);
      const auto [kv, ki] = kthvalue(xs, 2, 1);
      EXPECT_EQ(values(kv), std::vector<double>({1, 4}));
      EXPECT_EQ(values(ki), std::vector<double>({3, 3}));
      const auto [mv, mi] = median(xs, 1);
      EXPECT_EQ(values(mv)[0], 1);
      EXPECT_TRUE(std::isnan(values(mv)[1]));
      EXPECT_EQ(values(mi), std::vector<double>({3, 0}));
      const auto [nv, ni] = nanmedian(xs, 1);
      EXPECT_EQ(values(nv), std::vector<double>({1, 4}));
      EXPECT_EQ(values(ni), std::vector<double>({3, 3}));
      EXPECT_TRUE(std::isnan(values(median(xs))[0]));
      EXPECT_EQ(values(nanmedian(xs))[0], 3);
    }
  }
  EXPECT_EQ(values(median(tensor({1., 2., 3., 4.}))), std::vector<double>({2}));  // the lower median
  const auto [tv, ti] = median(tensor({2., 1., 2., 1.}), 0);
  EXPECT_EQ(values(ti), std::vector<double>({3}));
  const auto [ov, oi] = mode(tensor({{1, 2, 2, 3, 3}, {5, 5, 1, 1, 0}}), 1);
  EXPECT_EQ(values(ov), std::vector<double>({2, 1}));  // the smallest of the most frequent
  EXPECT_EQ(values(oi), std::vector<double>({2, 3}));  // its last occurrence
  const auto [nnv, nni] = mode(tensor({1., kNaN, kNaN, 2.}, kFloat64));
  EXPECT_EQ(values(nnv), std::vector<double>({1}));  // NaNs never equal each other
  EXPECT_EQ(values(nni), std::vector<double>({0}));
  // keepdim keeps the reduced dim; a large random line against a sort.
  EXPECT_EQ(std::get<0>(kthvalue(ones({3, 4, 5}), 2, 1, true)).sizes(), IntArrayRef({3, 1, 5}));
  const Tensor r = f64({1001}, 9);
  auto sorted = values(r);
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(values(std::get<0>(kthvalue(r, 137)))[0], sorted[136]);
  EXPECT_EQ(values(median(r))[0], sorted[500]);
  EXPECT_ERROR(IndexError, kthvalue(ones({2, 4}), 5, 1), "[kthvalue] argument 'k': selected number k out of range");
  EXPECT_ERROR(IndexError, median(empty({0, 3}), 0), "[median] Expected reduction dim 0 to have non-zero size.");
  EXPECT_ERROR(NotImplementedError, median(ones({3}, kFloat16)), "[median] not implemented for dtype float16");
}

TEST(CpuOrder, UniqueMatchesLibTorch) {
  for (ScalarType dt : {kInt64, kFloat32, kInt8, kBFloat16}) {
    const Tensor y = tensor({3, 1, 2, 1, 3, 3}).to(dt);
    const auto [u, inv, cnt] = _unique2(y, true, true, true);
    EXPECT_EQ(values(u), std::vector<double>({1, 2, 3}));
    EXPECT_EQ(values(inv), std::vector<double>({2, 0, 1, 0, 2, 2}));
    EXPECT_EQ(values(cnt), std::vector<double>({2, 1, 3}));
    const auto [c, cinv, ccnt] = unique_consecutive(y, true, true);
    EXPECT_EQ(values(c), std::vector<double>({3, 1, 2, 1, 3}));
    EXPECT_EQ(values(cinv), std::vector<double>({0, 1, 2, 3, 4, 4}));
    EXPECT_EQ(values(ccnt), std::vector<double>({1, 1, 1, 1, 2}));
    EXPECT_EQ(std::get<1>(_unique2(y, true, false, false)).numel(), 0);
  }
  // NaNs sort last, each its own value, in the order they appear.
  const Tensor z = tensor({kNaN, 1.0, kNaN, 1.0, 0.0});
  const auto [zu, zi, zc] = _unique2(z, true, true, true);
  const auto zv = values(zu);
  ASSERT_EQ(zv.size(), 4u);
  EXPECT_EQ(zv[0], 0);
  EXPECT_EQ(zv[1], 1);
  EXPECT_TRUE(std::isnan(zv[2]) && std::isnan(zv[3]));
  EXPECT_EQ(values(zi), std::vector<double>({2, 1, 3, 1, 0}));
  EXPECT_EQ(values(zc), std::vector<double>({1, 2, 1, 1}));
  const Tensor m = tensor({{1, 2}, {0, 5}, {1, 2}});
  const auto [u0, i0, c0] = unique_dim(m, 0);
  EXPECT_EQ(values(u0), std::vector<double>({0, 5, 1, 2}));
  EXPECT_EQ(values(i0), std::vector<double>({1, 0, 1}));
  EXPECT_EQ(values(c0), std::vector<double>({1, 2}));
  const auto [u1, i1, c1] = unique_dim(m.t(), 1);  // a transposed input: the same slices
  EXPECT_EQ(u1.sizes(), IntArrayRef({2, 2}));
  EXPECT_EQ(values(u1), std::vector<double>({0, 1, 5, 2}));
  EXPECT_EQ(values(i1), std::vector<double>({1, 0, 1}));
  const auto [uc, ic, cc] = unique_consecutive(m, true, true, 0);
  EXPECT_EQ(values(uc), values(m));
  EXPECT_EQ(values(cc), std::vector<double>({1, 1, 1}));
  EXPECT_ERROR(ValueError, unique_dim(empty({0, 3}), 1),
               "[unique_dim] There are 0 sized dimensions, and they aren't selected, so unique cannot be applied");
}

TEST(CpuOrder, SearchsortedMatchesLibTorch) {
  for (ScalarType dt : {kFloat32, kFloat64, kInt64, kFloat16}) {
    const Tensor ss = tensor({1, 3, 5, 7, 9}).to(dt), v = tensor({3, 6, 9}).to(dt);
    EXPECT_EQ(values(searchsorted(ss, v)), std::vector<double>({1, 3, 4}));
    EXPECT_EQ(values(searchsorted(ss, v, false, true)), std::vector<double>({2, 3, 5}));
    EXPECT_EQ(values(searchsorted(ss, v, false, false, "right")), std::vector<double>({2, 3, 5}));
    EXPECT_EQ(searchsorted(ss, v, true).dtype(), kInt32);
    EXPECT_EQ(values(searchsorted(ss, Scalar(3))), std::vector<double>({1}));
    EXPECT_EQ(searchsorted(ss, Scalar(3)).dim(), 0);
    EXPECT_EQ(values(bucketize(tensor({{3, 6}, {9, 0}}).to(dt), ss)), std::vector<double>({1, 3, 4, 0}));
    EXPECT_EQ(values(bucketize(Scalar(4), ss)), std::vector<double>({2}));
  }
  EXPECT_EQ(values(searchsorted(tensor({{1., 2.}, {3., 4.}}), tensor({{1.5, 0.}, {3.5, 9.}}))),
            std::vector<double>({1, 0, 1, 2}));
  EXPECT_EQ(values(searchsorted(tensor({5., 1., 9., 3., 7.}), tensor({3., 6.}), false, false, std::nullopt,
                                tensor({1, 3, 0, 4, 2}))),
            std::vector<double>({1, 3}));
  // NaN values go past the end, as LibTorch's binary search.
  EXPECT_EQ(values(searchsorted(tensor({1., 2., kNaN}, kFloat64), tensor({kNaN, 1.5, 3.}, kFloat64))),
            std::vector<double>({3, 1, 3}));
  EXPECT_ERROR(ValueError, searchsorted(tensor({1., 2.}), tensor({1.}), false, true, "left"),
               "[searchsorted] side and right can't be set to opposites");
  EXPECT_ERROR(IndexError, searchsorted(tensor({1., 2.}), tensor({1.}), false, false, std::nullopt, tensor({0, 5})),
               "[searchsorted] argument 'sorter': index 5 is out of range for 2 boundaries");
}

// Ascending values (a merge of sorted lists) take a galloping search from the previous result:
// the same bounds as a naive count, with duplicates, values past both ends, and across threads'
// chunks.
TEST(CpuOrder, SearchsortedOfAscendingValuesMatchesANaiveCount) {
  manual_seed(5);
  const Tensor ss = std::get<0>(randint(0, 60, {300}).sort());
  const Tensor asc = std::get<0>(randint(-5, 70, {5000}).sort());
  const Tensor shuffled = asc.index_select(0, randperm(5000));
  const auto b = values(ss);
  for (bool right : {false, true}) {
    for (const Tensor& v : {asc, shuffled}) {
      const auto q = values(v);
      std::vector<double> want;
      for (double x : q) {
        int64_t c = 0;
        for (double m : b) c += right ? m <= x : m < x;
        want.push_back(static_cast<double>(c));
      }
      EXPECT_EQ(values(searchsorted(ss, v, false, right)), want) << (right ? "right" : "left");
      EXPECT_EQ(values(searchsorted(ss.to(kFloat32), v.to(kFloat32), true, right)), want) << "float32, int32 out";
    }
  }
  // A NaN at the end of ascending values: past every boundary, the rest found normally.
  EXPECT_EQ(values(searchsorted(tensor({1., 2., 3.}, kFloat64), tensor({0., 2., 5., kNaN}, kFloat64))),
            std::vector<double>({0, 1, 3, 3}));
  // Unsorted boundaries (here -2..2 wrapped to uint8) give LibTorch's halving answer: 1 lands at 3.
  const Tensor wrapped = tensor({-2, -1, 0, 1, 2}).to(kUInt8);
  EXPECT_EQ(values(searchsorted(wrapped, ember::ones({100}, kUInt8))), std::vector<double>(100, 3));
}

// ---- dot, mv, outer, einsum --------------------------------------------------------------------

TEST(CpuOrder, DotMvOuter) {
  for (ScalarType dt : {kFloat32, kFloat64, kInt64, kInt32, kBFloat16}) {
    for (Kind k : kKinds) {
      const Tensor a = make({3, 4}, dt, k, 1), v = make({4}, dt, k, 2);
      const auto av = values(a), vv = values(v);
      std::vector<double> want(3, 0.0);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 4; ++j) want[i] += av[i * 4 + j] * vv[j];
      expect_values(mv(a, v), want, "mv");
      double d = 0;
      for (int j = 0; j < 4; ++j) d += av[j] * vv[j];
      expect_values(dot(a.select(0, 0), v), {d}, "dot");
      std::vector<double> o;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 4; ++j) o.push_back(av[i * 4] * vv[j]);
      expect_values(outer(a.select(1, 0), v), o, "outer");
    }
  }
}

TEST(CpuOrder, EinsumMatchesExplicitProducts) {
  const Tensor a = f64({2, 3}, 1), b = f64({3, 4}, 2), c = f64({4, 2}, 3), sq = f64({3, 3}, 4);
  expect_near_all(einsum("ij,jk->ik", {a, b}), values(mm(a, b)), 1e-12, "mm");
  expect_near_all(einsum("ij,jk", {a, b}), values(mm(a, b)), 1e-12, "implicit");
  expect_near_all(einsum("ij,jk->ki", {a, b}), values(mm(a, b).t()), 1e-12, "transposed output");
  expect_near_all(einsum("ij,jk,kl->il", {a, b, c}), values(mm(mm(a, b), c)), 1e-12, "chain");
  expect_near_all(einsum("ii", {sq}), values(sq.diagonal().sum()), 1e-12, "trace");
  expect_near_all(einsum("ii->i", {sq}), values(sq.diagonal()), 1e-12, "diagonal");
  expect_near_all(einsum("ij->", {a}), values(a.sum()), 1e-12, "sum");
  const Tensor x = f64({5, 2, 3}, 5);
  expect_near_all(einsum("...j,jk->...k", {x, b}), values(matmul(x, b)), 1e-12, "ellipsis");
  expect_near_all(einsum("b i j, b j k -> b i k", {f64({2, 3, 4}, 6), f64({2, 4, 5}, 7)}),
                  values(bmm(f64({2, 3, 4}, 6), f64({2, 4, 5}, 7))), 1e-12, "batched, spaces");
  // Without an arrow: ellipsis dims then the once-seen subscripts in ASCII order (upper case first).
  EXPECT_EQ(einsum("zA,AB", {f64({2, 3}, 1), f64({3, 4}, 2)}).sizes(), IntArrayRef({4, 2}));
  EXPECT_EQ(einsum("ab...,b->a...", {f64({2, 3, 4, 5}, 1), f64({3}, 2)}).sizes(), IntArrayRef({2, 4, 5}));
  EXPECT_EQ(einsum("...,...", {f64({2, 3}, 1), f64({3}, 2)}).sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(values(einsum("i,i->", {tensor({1, 2, 3}), tensor({4, 5, 6})})), std::vector<double>({32}));
  EXPECT_ERROR(ValueError, einsum("ij,jk->ik", {a, f64({4, 4}, 1)}),
               "[einsum] subscript j has size 4 for operand 1 which does not broadcast with previously seen size 3");
  EXPECT_ERROR(ValueError, einsum("ij->ii", {a}), "[einsum] output subscript i appears more than once in the output");
  // Gradients flow through the composite.
  const Tensor ag = a.detach().requires_grad_(), bg = b.detach().requires_grad_();
  einsum("ij,jk->ik", {ag, bg}).sum().backward();
  expect_near_all(ag.grad(), values(b.sum({1}).unsqueeze(0).expand({2, 3})), 1e-12, "grad a");
}

}  // namespace
