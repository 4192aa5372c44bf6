// LibTorch 1.13 program printing the reference values of tests/nn (not built by CMake):
//   g++ -std=c++17 ref_layers.cpp -I/usr/include/torch/csrc/api/include -ltorch -ltorch_cpu -lc10 -o ref_layers && ./ref_layers | python3 gen_reference_values.py
// Inputs are seq(shape, a, b) = sin(i * a + b), as NNTestUtil.h builds them.
#include <torch/torch.h>
#include <iostream>
#include <iomanip>
using namespace torch;
namespace F = torch::nn::functional;
Tensor seq(std::vector<int64_t> shape, double a, double b) {
  int64_t n = 1; for (auto s : shape) n *= s;
  return torch::sin(torch::arange(n, kFloat64) * a + b).view(shape);
}
void p(const char* name, const Tensor& t) {
  std::cout << name << " " << t.sizes() << " = {";
  auto c = t.contiguous().to(kFloat64).view(-1);
  for (int64_t i = 0; i < c.numel(); ++i) std::cout << std::setprecision(17) << c[i].item<double>() << (i + 1 < c.numel() ? ", " : "");
  std::cout << "}\n";
}
#define TRY(x) try { x; } catch (const std::exception& e) { std::cout << "ERR " #x ": " << std::string(e.what()).substr(0, 160) << "\n"; }
int main() { std::cout << std::unitbuf;
  // bilinear
  Tensor b1 = seq({2, 3, 4}, 0.3, 0.1), b2 = seq({2, 3, 5}, 0.7, 0.2), bw = seq({2, 4, 5}, 0.45, 0.3), bb = seq({2}, 1.0, 0.5);
  p("bilinear", at::bilinear(b1, b2, bw, bb));
  p("bilinear_nobias", at::bilinear(b1.select(0, 0), b2.select(0, 0), bw));
  // conv1d
  Tensor x1 = seq({2, 4, 7}, 0.37, 0.1), w1 = seq({6, 2, 3}, 0.71, 0.2), c1b = seq({6}, 0.5, 0.3);
  p("conv1d", at::conv1d(x1, w1, c1b, {2}, {1}, {2}, 2));
  p("conv1d_unbatched", at::conv1d(x1.select(0, 1), w1.slice(1, 0, 1).repeat({1, 4, 1}), Tensor(), std::vector<int64_t>{1}, std::vector<int64_t>{0}, std::vector<int64_t>{1}, 1));
  // conv3d
  Tensor x3 = seq({2, 4, 4, 5, 3}, 0.13, 0.1), w3 = seq({6, 2, 2, 3, 2}, 0.29, 0.4), c3b = seq({6}, 0.9, 0.3);
  p("conv3d", at::conv3d(x3, w3, c3b, {1, 2, 1}, {1, 0, 1}, {1, 1, 2}, 2));
  p("conv3d_unbatched_sum", at::conv3d(x3.select(0, 0), w3.slice(1, 0, 1).repeat({1, 4, 1, 1, 1})).sum());
  // conv_transpose
  Tensor xt1 = seq({2, 4, 5}, 0.41, 0.1), wt1 = seq({4, 3, 3}, 0.57, 0.2), tb1 = seq({6}, 0.8, 0.3);
  p("conv_transpose1d", at::conv_transpose1d(xt1, wt1, tb1, {2}, {1}, {1}, 2, {2}));
  Tensor xt2 = seq({2, 4, 3, 4}, 0.23, 0.1), wt2 = seq({4, 3, 3, 2}, 0.37, 0.2), tb2 = seq({6}, 0.6, 0.3);
  p("conv_transpose2d", at::conv_transpose2d(xt2, wt2, tb2, {2, 1}, {1, 0}, {1, 0}, 2, {1, 2}));
  p("conv_transpose2d_plain", at::conv_transpose2d(xt2, seq({4, 2, 2, 2}, 0.3, 0.1)));
  Tensor xt3 = seq({1, 2, 2, 3, 2}, 0.31, 0.1), wt3 = seq({2, 3, 2, 2, 2}, 0.47, 0.2);
  p("conv_transpose3d", at::conv_transpose3d(xt3, wt3, {}, {2, 1, 2}, {0, 1, 0}, {1, 0, 0}, 1, {1, 1, 1}));
  {
    Tensor x = xt2.clone().requires_grad_(), w = wt2.clone().requires_grad_(), b = tb2.clone().requires_grad_();
    auto y = at::conv_transpose2d(x, w, b, {2, 1}, {1, 0}, {1, 0}, 2, {1, 2});
    (y * seq(y.sizes().vec(), 0.11, 0.3)).sum().backward();
    p("ct2_gx", x.grad()); p("ct2_gw", w.grad()); p("ct2_gb", b.grad());
  }
  // instance/group norm
  Tensor xn = seq({2, 4, 3, 2}, 0.53, 0.2) * 2 + 0.5;
  Tensor nw = seq({4}, 0.9, 1.0) + 1, nb = seq({4}, 0.4, 0.3);
  p("instance_norm", at::instance_norm(xn, nw, nb, {}, {}, true, 0.1, 1e-5, false));
  {
    Tensor rm = torch::zeros({4}, kFloat64) + 0.1, rv = torch::ones({4}, kFloat64) * 2;
    p("instance_norm_rs", at::instance_norm(xn, nw, nb, rm, rv, true, 0.3, 1e-5, false));
    p("instance_norm_rm", rm); p("instance_norm_rv", rv);
    p("instance_norm_eval", at::instance_norm(xn, nw, nb, rm, rv, false, 0.3, 1e-5, false));
  }
  p("group_norm", at::group_norm(xn, 2, nw, nb, 1e-5));
  p("group_norm_noaffine", at::group_norm(xn.view({2, 4, 6}), 4, {}, {}, 1e-3));
  TRY(at::group_norm(xn, 3, nw, nb, 1e-5));
  TRY(at::group_norm(xn, 2, seq({3}, 1, 1), nb, 1e-5));
  TRY(at::instance_norm(xn, nw, nb, {}, {}, false, 0.1, 1e-5, false));
  // embedding_bag
  Tensor ew = seq({10, 3}, 0.61, 0.2);
  Tensor idx = torch::tensor({1, 2, 4, 5, 4, 3, 2, 9}, kLong), off = torch::tensor({0, 3, 3, 5}, kLong);
  Tensor psw = seq({8}, 0.9, 0.4);
  for (int mode = 0; mode < 3; ++mode) {
    auto r = at::embedding_bag(ew, idx, off, false, mode, false, mode == 0 ? psw : Tensor(), false);
    std::cout << "mode " << mode << "\n";
    p("eb_out", std::get<0>(r)); p("eb_offset2bag", std::get<1>(r)); p("eb_bag_size", std::get<2>(r)); p("eb_max_indices", std::get<3>(r));
    auto r2 = at::embedding_bag(ew, idx, torch::tensor({0, 3, 3, 5, 8}, kLong), false, mode, false, {}, true, 4);
    p("eb_last_pad4", std::get<0>(r2));
  }
  {
    Tensor w = ew.clone().requires_grad_(), s = psw.clone().requires_grad_();
    auto r = at::embedding_bag(w, idx, off, false, 0, false, s, false);
    (std::get<0>(r) * seq({4, 3}, 0.3, 0.2)).sum().backward();
    p("eb_gw", w.grad());
    Tensor w2 = ew.clone().requires_grad_();
    auto r2 = at::embedding_bag(w2, idx, off, false, 2, false, {}, false);
    (std::get<0>(r2) * seq({4, 3}, 0.3, 0.2)).sum().backward();
    p("eb_max_gw", w2.grad());
  }
  TRY(at::embedding_bag(ew, idx, off, false, 1, false, psw, false));
  TRY(at::embedding_bag(ew, idx, torch::tensor({1, 3}, kLong), false, 0, false, {}, false));
  TRY(at::embedding_bag(ew, idx, torch::tensor({0, 9}, kLong), false, 0, false, {}, false));
  TRY(at::embedding_bag(ew, idx.view({2, 4}), off, false, 0, false, {}, false));
  p("F_eb_2d_mean", F::embedding_bag(idx.view({2, 4}), ew, F::EmbeddingBagFuncOptions().mode(torch::kMean)));
  // distance
  Tensor d1 = seq({3, 5}, 0.7, 0.1), d2 = seq({3, 5}, 0.31, 0.9);
  p("cos", at::cosine_similarity(d1, d2, 1, 1e-8));
  p("cos_dim0_bcast", at::cosine_similarity(d1, d2.select(0, 1), 0, 1e-8));
  p("cos_zero", at::cosine_similarity(torch::zeros({2, 3}, kFloat64), d1.slice(0, 0, 2).slice(1, 0, 3), 1, 1e-8));
  p("pdist", at::pairwise_distance(d1, d2, 2, 1e-6, false));
  p("pdist_p1_keep", at::pairwise_distance(d1, d2, 1, 1e-6, true));
  p("pdist_p3", at::pairwise_distance(d1, d2.select(0, 2), 3, 1e-6, false));
  p("pdist_inf", at::pairwise_distance(d1, d2, INFINITY, 1e-6, false));
  Tensor d3 = seq({3, 5}, 0.9, 1.3);
  for (int r = 0; r < 3; ++r) {
    p("triplet", at::triplet_margin_loss(d1, d2, d3, 1.0, 2, 1e-6, false, r));
    p("triplet_swap", at::triplet_margin_loss(d1, d2, d3, 0.5, 1, 1e-6, true, r));
  }
  TRY(at::triplet_margin_loss(d1, d2, d3.select(0, 0), 1.0, 2, 1e-6, false, 1));
  // MHA
  {
    int64_t E = 6, H = 2, L = 3, S = 4, N = 2;
    Tensor q = seq({L, N, E}, 0.37, 0.1), k = seq({S, N, E}, 0.53, 0.2), v = seq({S, N, E}, 0.71, 0.3);
    Tensor ipw = seq({3 * E, E}, 0.29, 0.4) * 0.5, ipb = seq({3 * E}, 0.61, 0.5) * 0.1;
    Tensor opw = seq({E, E}, 0.43, 0.6) * 0.5, opb = seq({E}, 0.83, 0.7) * 0.1;
    auto o = F::MultiheadAttentionForwardFuncOptions(E, H, ipw, ipb, {}, {}, false, 0.0, opw, opb).training(false);
    auto r = F::multi_head_attention_forward(q, k, v, o);
    p("mha_out", std::get<0>(r)); p("mha_w", std::get<1>(r));
    Tensor kpm = torch::tensor({{false, false, true, false}, {false, true, false, false}});
    Tensor am = seq({L, S}, 0.77, 0.1);
    auto o2 = F::MultiheadAttentionForwardFuncOptions(E, H, ipw, ipb, seq({1, 1, E}, 0.5, 0.5), seq({1, 1, E}, 0.6, 0.1), true, 0.0, opw, opb).training(false).key_padding_mask(kpm).attn_mask(am).average_attn_weights(false);
    auto r2 = F::multi_head_attention_forward(q, k, v, o2);
    p("mha2_out", std::get<0>(r2)); p("mha2_w", std::get<1>(r2));
    Tensor bm = torch::tensor({{false, true, false, false}, {false, false, false, true}, {true, false, false, false}});
    // LibTorch 1.13's C++ function adds a bool mask as 0/1; PyTorch's masks where true, which the
    // -inf float mask gives here (the Ember test passes bm itself).
    Tensor fm = torch::zeros({L, S}, kFloat64).masked_fill(bm, -INFINITY);
    auto o3 = F::MultiheadAttentionForwardFuncOptions(E, H, ipw, ipb, {}, {}, false, 0.0, opw, opb).training(false).attn_mask(fm).need_weights(false);
    auto r3 = F::multi_head_attention_forward(q, k, v, o3);
    p("mha3_out", std::get<0>(r3)); std::cout << "mha3_w defined " << std::get<1>(r3).defined() << "\n";
    auto o4 = F::MultiheadAttentionForwardFuncOptions(E, H, ipw, ipb, {}, {}, false, 0.0, opw, opb).training(false).use_separate_proj_weight(true)
        .q_proj_weight(ipw.slice(0, 0, E)).k_proj_weight(ipw.slice(0, E, 2 * E).slice(1, 0, 5)).v_proj_weight(ipw.slice(0, 2 * E, 3 * E).slice(1, 1, 6));
    auto r4 = F::multi_head_attention_forward(q, k.slice(2, 0, 5), v.slice(2, 1, 6), o4);
    p("mha4_out", std::get<0>(r4)); p("mha4_w", std::get<1>(r4));
    TRY(F::multi_head_attention_forward(q, k, v, F::MultiheadAttentionForwardFuncOptions(E, 4, ipw, ipb, {}, {}, false, 0.0, opw, opb)));
  }
}
