// scaled_dot_product_attention against a float64 loop (PyTorch 2.x's definition: LibTorch 1.13
// has no public one) and multi_head_attention_forward against LibTorch 1.13's
// F::multi_head_attention_forward (ReferenceValues.h); errors and gradients.
#include <cmath>
#include <limits>

#include "NNTestUtil.h"
#include "ReferenceValues.h"

namespace ember::nntest {
namespace {

using VL = autograd::variable_list;
Tensor req(const Tensor& t) { return t.detach().clone().requires_grad_(); }

// softmax(q k^T * scale + bias) v by loops over (batch, L, S), bias[b][i][j] (-inf: masked).
std::vector<double> naive_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& bias,
                                    double scale) {
  const int64_t B = q.size(0), L = q.size(1), E = q.size(2), S = k.size(1), Ev = v.size(2);
  const std::vector<double> Q = values(q), K = values(k), V = values(v), M = values(bias);
  std::vector<double> out(static_cast<size_t>(B * L * Ev), 0.0);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < L; ++i) {
      std::vector<double> s(static_cast<size_t>(S));
      double mx = -std::numeric_limits<double>::infinity();
      for (int64_t j = 0; j < S; ++j) {
        double d = 0;
        for (int64_t e = 0; e < E; ++e) d += Q[(b * L + i) * E + e] * K[(b * S + j) * E + e];
        s[j] = d * scale + M[(b * L + i) * S + j];
        mx = std::max(mx, s[j]);
      }
      double z = 0;
      for (double& x : s) z += (x = std::exp(x - mx));
      for (int64_t j = 0; j < S; ++j)
        for (int64_t e = 0; e < Ev; ++e) out[(b * L + i) * Ev + e] += s[j] / z * V[(b * S + j) * Ev + e];
    }
  return out;
}

struct QKV {
  Tensor q = seq({2, 3, 4}, 0.37, 0.1), k = seq({2, 5, 4}, 0.53, 0.2), v = seq({2, 5, 6}, 0.71, 0.3);
};

TEST(NNAttention, SdpaMatchesTheDefinition) {
  const QKV t;
  const Tensor no_bias = zeros({2, 3, 5}, kFloat64);
  expect_close(scaled_dot_product_attention(t.q, t.k, t.v), naive_attention(t.q, t.k, t.v, no_bias, 0.5));
  expect_close(scaled_dot_product_attention(t.q, t.k, t.v, {}, 0.0, false, 0.3),
               naive_attention(t.q, t.k, t.v, no_bias, 0.3));
  // A float mask is added; a bool mask keeps where true.
  const Tensor fmask = seq({3, 5}, 0.77, 0.1);
  expect_close(scaled_dot_product_attention(t.q, t.k, t.v, fmask),
               naive_attention(t.q, t.k, t.v, fmask.expand({2, 3, 5}), 0.5));
  const Tensor bmask = seq({2, 1, 5}, 1.3, 0.2).gt(-0.5);
  const double inf = std::numeric_limits<double>::infinity();
  const Tensor bbias = where(bmask, zeros({}, kFloat64), full({}, -inf, kFloat64)).expand({2, 3, 5});
  expect_close(scaled_dot_product_attention(t.q, t.k, t.v, bmask), naive_attention(t.q, t.k, t.v, bbias, 0.5));
  // Causal: query i sees keys 0..i.
  Tensor causal = zeros({2, 3, 5}, kFloat64);
  for (int64_t i = 0; i < 3; ++i) causal.select(1, i).slice(1, i + 1).fill_(-inf);
  expect_close(scaled_dot_product_attention(t.q, t.k, t.v, {}, 0.0, true), naive_attention(t.q, t.k, t.v, causal, 0.5));
}

TEST(NNAttention, SdpaDropoutDropsAttentionWeights) {
  const QKV t;
  manual_seed(3);
  const Tensor got = scaled_dot_product_attention(t.q, t.k, t.v, {}, 0.4);
  manual_seed(3);
  const Tensor w = dropout(softmax(matmul(t.q, t.k.transpose(-2, -1)) * 0.5, -1), 0.4, true);
  expect_close(got, values(matmul(w, t.v)), 1e-12, 1e-12);
}

TEST(NNAttention, SdpaGradcheckAndErrors) {
  const QKV t;
  EXPECT_TRUE(autograd::gradcheck([](const VL& x) { return scaled_dot_product_attention(x[0], x[1], x[2], x[3]); },
                                  {req(t.q), req(t.k), req(t.v), req(seq({3, 5}, 0.77, 0.1))}));
  EXPECT_TRUE(
      autograd::gradcheck([](const VL& x) { return scaled_dot_product_attention(x[0], x[1], x[2], {}, 0, true); },
                          {req(t.q), req(t.k), req(t.v)}));
  EXPECT_EQ(error_of([&] {
              scaled_dot_product_attention(t.q, t.k, t.v, ones({3, 5}), 0.0, true);
            }),
            "[scaled_dot_product_attention] attn_mask must be None when is_causal is true");
  EXPECT_EQ(error_of([&] { scaled_dot_product_attention(t.q, t.k.slice(2, 0, 3), t.v); }),
            "[scaled_dot_product_attention] expected key's last dimension (3) to match query's (4)");
  EXPECT_EQ(error_of([&] { scaled_dot_product_attention(t.q, t.k, t.v.slice(1, 0, 4)); }),
            "[scaled_dot_product_attention] expected value's sequence length (4) to match key's (5)");
  EXPECT_EQ(error_of([&] {
              scaled_dot_product_attention(t.q, t.k, t.v, tensor({1, 2}));
            }),
            "[scaled_dot_product_attention] argument 'attn_mask': expected a bool or floating point mask, got int64");
}

// The LibTorch program's multi-head attention inputs: E = 6, 2 heads, L = 3, S = 4, N = 2.
struct Mha {
  int64_t E = 6, H = 2;
  Tensor q = seq({3, 2, 6}, 0.37, 0.1), k = seq({4, 2, 6}, 0.53, 0.2), v = seq({4, 2, 6}, 0.71, 0.3);
  Tensor ipw = seq({18, 6}, 0.29, 0.4) * 0.5, ipb = seq({18}, 0.61, 0.5) * 0.1;
  Tensor opw = seq({6, 6}, 0.43, 0.6) * 0.5, opb = seq({6}, 0.83, 0.7) * 0.1;
};

TEST(NNAttention, MultiHeadMatchesLibTorch) {
  const Mha m;
  auto [out, w] =
      multi_head_attention_forward(m.q, m.k, m.v, m.E, m.H, m.ipw, m.ipb, {}, {}, false, 0.0, m.opw, m.opb, false);
  expect_close(out, ref::mha_out);
  expect_close(w, ref::mha_w);
  EXPECT_EQ(w.sizes(), IntArrayRef({2, 3, 4}));

  // bias_k/bias_v, add_zero_attn, a bool key padding mask, a float attention mask, per-head weights.
  const Tensor kpm = tensor({{false, false, true, false}, {false, true, false, false}});
  auto [out2, w2] = multi_head_attention_forward(m.q, m.k, m.v, m.E, m.H, m.ipw, m.ipb, seq({1, 1, 6}, 0.5, 0.5),
                                                 seq({1, 1, 6}, 0.6, 0.1), true, 0.0, m.opw, m.opb, false, kpm, true,
                                                 seq({3, 4}, 0.77, 0.1), false, {}, {}, {}, {}, {}, false);
  expect_close(out2, ref::mha2_out);
  expect_close(w2, ref::mha2_w);
  EXPECT_EQ(w2.sizes(), IntArrayRef({2, 2, 3, 6}));

  // A bool attention mask (true: masked, PyTorch's meaning; LibTorch 1.13's C++ function adds it as
  // 0/1, so its reference is the equivalent -inf float mask) without weights.
  const Tensor bm = tensor({{false, true, false, false}, {false, false, false, true}, {true, false, false, false}});
  auto [out3, w3] = multi_head_attention_forward(m.q, m.k, m.v, m.E, m.H, m.ipw, m.ipb, {}, {}, false, 0.0, m.opw,
                                                 m.opb, false, {}, false, bm);
  expect_close(out3, ref::mha3_out);
  EXPECT_FALSE(w3.defined());

  // Separate projection weights with other key and value sizes.
  auto [out4, w4] = multi_head_attention_forward(
      m.q, m.k.slice(2, 0, 5), m.v.slice(2, 1, 6), m.E, m.H, {}, m.ipb, {}, {}, false, 0.0, m.opw, m.opb, false, {},
      true, {}, true, m.ipw.slice(0, 0, 6), m.ipw.slice(0, 6, 12).slice(1, 0, 5), m.ipw.slice(0, 12).slice(1, 1, 6));
  expect_close(out4, ref::mha4_out);
  expect_close(w4, ref::mha4_w);
}

TEST(NNAttention, MultiHeadUnbatchedAndStatic) {
  const Mha m;
  auto [out, w] = multi_head_attention_forward(m.q.select(1, 1), m.k.select(1, 1), m.v.select(1, 1), m.E, m.H, m.ipw,
                                               m.ipb, {}, {}, false, 0.0, m.opw, m.opb, false);
  EXPECT_EQ(out.sizes(), IntArrayRef({3, 6}));
  EXPECT_EQ(w.sizes(), IntArrayRef({3, 4}));
  const std::vector<double> all = ref::mha_out, all_w = ref::mha_w;
  std::vector<double> want, want_w;
  for (int64_t l = 0; l < 3; ++l)
    for (int64_t e = 0; e < 6; ++e) want.push_back(all[static_cast<size_t>((l * 2 + 1) * 6 + e)]);
  for (size_t i = 12; i < 24; ++i) want_w.push_back(all_w[i]);
  expect_close(out, want);
  expect_close(w, want_w);
  // static_k/static_v replace the projected keys and values: given the projections themselves, the
  // result is the same.
  const Tensor kp = linear(m.k, m.ipw.slice(0, 6, 12), m.ipb.slice(0, 6, 12)).reshape({4, 4, 3}).transpose(0, 1);
  const Tensor vp = linear(m.v, m.ipw.slice(0, 12), m.ipb.slice(0, 12)).reshape({4, 4, 3}).transpose(0, 1);
  auto [out_s, w_s] = multi_head_attention_forward(m.q, m.k, m.v, m.E, m.H, m.ipw, m.ipb, {}, {}, false, 0.0, m.opw,
                                                   m.opb, false, {}, true, {}, false, {}, {}, {}, kp, vp);
  expect_close(out_s, ref::mha_out, 1e-10, 1e-12);
  expect_close(w_s, ref::mha_w, 1e-10, 1e-12);
}

TEST(NNAttention, MultiHeadDropoutOnlyWhenTraining) {
  const Mha m;
  auto run = [&](bool training) {
    manual_seed(9);
    return std::get<0>(multi_head_attention_forward(m.q, m.k, m.v, m.E, m.H, m.ipw, m.ipb, {}, {}, false, 0.5, m.opw,
                                                    m.opb, training));
  };
  expect_close(run(false), ref::mha_out);
  EXPECT_FALSE(allclose(run(true), run(false)));
  EXPECT_TRUE(equal(run(true), run(true)));  // the seed fixes the mask
}

TEST(NNAttention, MultiHeadGradcheck) {
  const Mha m;
  const Tensor kpm = tensor({{false, false, true, false}, {false, true, false, false}});
  EXPECT_TRUE(autograd::gradcheck(
      [&](const VL& x) {
        auto r = multi_head_attention_forward(x[0], x[1], x[2], m.E, m.H, x[3], x[4], x[5], x[6], true, 0.0, x[7], x[8],
                                              false, kpm, true, x[9]);
        return VL{std::get<0>(r), std::get<1>(r)};
      },
      {req(m.q), req(m.k), req(m.v), req(m.ipw), req(m.ipb), req(seq({1, 1, 6}, 0.5, 0.5)),
       req(seq({1, 1, 6}, 0.6, 0.1)), req(m.opw), req(m.opb), req(seq({3, 4}, 0.77, 0.1))}));
}

TEST(NNAttention, MultiHeadErrors) {
  const Mha m;
  auto call = [&](const Tensor& q, const Tensor& k, const Tensor& v, int64_t E, int64_t H) {
    return multi_head_attention_forward(q, k, v, E, H, m.ipw, m.ipb, {}, {}, false, 0.0, m.opw, m.opb);
  };
  EXPECT_EQ(error_of([&] { call(m.q, m.k, m.v, 6, 4); }),
            "[multi_head_attention_forward] embed_dim 6 is not divisible by num_heads 4");
  EXPECT_EQ(error_of([&] { call(m.q, m.k, m.v, 8, 2); }),
            "[multi_head_attention_forward] expected an embedding dimension of 8 (embed_dim_to_check), got 6");
  EXPECT_EQ(error_of([&] { call(m.q, m.k, m.v.slice(0, 0, 3), 6, 2); }),
            "[multi_head_attention_forward] expected key and value of the same shape, got [4, 2, 6] and [3, 2, 6]");
  EXPECT_EQ(error_of([&] { call(m.q.select(1, 0), m.k, m.v, 6, 2); }),
            "[multi_head_attention_forward] expected key and value to be 2-D like query [3, 6], got shapes [4, 2, 6] "
            "and [4, 2, 6]");
  EXPECT_EQ(error_of([&] {
              multi_head_attention_forward(m.q, m.k, m.v, 6, 2, m.ipw, m.ipb, {}, {}, false, 0.0, m.opw, m.opb, true,
                                           {}, true, ones({4, 4}, kBool));
            }),
            "[multi_head_attention_forward] argument 'attn_mask': expected a 2-D mask of shape [3, 4], got [4, 4]");
  EXPECT_EQ(error_of([&] {
              multi_head_attention_forward(m.q, m.k, m.v, 6, 2, m.ipw, m.ipb, {}, {}, false, 0.0, m.opw, m.opb, true,
                                           ones({2, 3}, kBool));
            }),
            "[multi_head_attention_forward] argument 'key_padding_mask': expected shape [2, 4] (batch, source length), "
            "got [2, 3]");
  EXPECT_EQ(error_of([&] {
              multi_head_attention_forward(m.q, m.k, m.v, 6, 2, m.ipw, m.ipb, seq({1, 1, 6}, 0.5, 0.5), {}, false, 0.0,
                                           m.opw, m.opb);
            }),
            "[multi_head_attention_forward] bias_k and bias_v must be given together");
  EXPECT_EQ(
      error_of([&] { multi_head_attention_forward(m.q, m.k, m.v, 6, 2, {}, m.ipb, {}, {}, false, 0.0, m.opw, m.opb); }),
      "[multi_head_attention_forward] in_proj_weight is required unless use_separate_proj_weight");
  EXPECT_EQ(error_of([&] {
              multi_head_attention_forward(m.q, m.k, m.v, 6, 2, m.ipw, m.ipb, {}, {}, false, 0.0, m.opw, m.opb, true,
                                           {}, true, {}, false, {}, {}, {}, {}, {}, true, true);
            }),
            "[multi_head_attention_forward] is_causal is a hint that attn_mask is the causal mask: attn_mask must be "
            "given with it");
}

}  // namespace
}  // namespace ember::nntest
