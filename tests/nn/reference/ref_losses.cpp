// LibTorch 1.13 program printing the reference values of tests/nn (not built by CMake):
//   g++ -std=c++17 ref_losses.cpp -I/usr/include/torch/csrc/api/include -ltorch -ltorch_cpu -lc10 -o ref_losses && ./ref_losses
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
#define TRY(x) try { x; } catch (const std::exception& e) { std::cout << "ERR " #x ": " << std::string(e.what()).substr(0, 200) << "\n"; }
int main() {
  Tensor x = seq({3, 4}, 0.7, 0.3) * 2;
  Tensor t = torch::tensor({1, 0, 3}, kLong);
  Tensor w = torch::tensor({0.2, 0.5, 1.0, 1.5}, kFloat64);
  for (int r = 0; r < 3; ++r) {
    auto red = r == 0 ? at::Reduction::None : r == 1 ? at::Reduction::Mean : at::Reduction::Sum;
    std::cout << "reduction " << r << "\n";
    p("ce", at::cross_entropy_loss(x, t, {}, red, -100, 0.0));
    p("ce_w", at::cross_entropy_loss(x, t, w, red, -100, 0.0));
    p("ce_w_ign0", at::cross_entropy_loss(x, t, w, red, 0, 0.0));
    p("ce_ls", at::cross_entropy_loss(x, t, {}, red, -100, 0.1));
    p("ce_w_ign0_ls", at::cross_entropy_loss(x, t, w, red, 0, 0.25));
    Tensor prob = torch::softmax(seq({3, 4}, 0.9, 0.1), 1);
    p("ce_prob", at::cross_entropy_loss(x, prob, {}, red, -100, 0.0));
    p("ce_prob_w_ls", at::cross_entropy_loss(x, prob, w, red, -100, 0.2));
    Tensor x4 = seq({2, 3, 2, 2}, 0.5, 0.2) * 3;
    Tensor t4 = torch::tensor({0, 2, 1, 1, 2, 0, 0, 1}, kLong).view({2, 2, 2});
    Tensor w3 = torch::tensor({0.3, 1.0, 2.0}, kFloat64);
    p("ce4_w_ign1", at::cross_entropy_loss(x4, t4, w3, red, 1, 0.0));
    p("ce4_w_ls", at::cross_entropy_loss(x4, t4, w3, red, -100, 0.3));
    Tensor x3 = seq({2, 3, 4}, 0.3, 0.5) * 2;
    Tensor t3 = torch::tensor({0, 2, 1, 1, 2, 0, 0, 1}, kLong).view({2, 4});
    p("ce3_w", at::cross_entropy_loss(x3, t3, w3, red, -100, 0.0));
    Tensor x5 = seq({2, 3, 2, 1, 2}, 0.3, 0.5) * 2;
    p("ce5_w", at::cross_entropy_loss(x5, t4.view({2,2,1,2}), w3, red, 2, 0.0));
    Tensor x1 = seq({4}, 0.8, 0.1);
    p("ce1", at::cross_entropy_loss(x1, torch::tensor(2, kLong), w, red, -100, 0.0));
    p("ce1_prob", at::cross_entropy_loss(x1, torch::softmax(seq({4}, 0.4, 0.3), 0), w, red, -100, 0.0));
    p("nll", at::nll_loss_nd(torch::log_softmax(x, 1), t, w, red, 3));
    p("nll_all_ignored", at::nll_loss_nd(torch::log_softmax(x, 1), torch::tensor({2,2,2}, kLong), w, red, 2));
    Tensor a = seq({2, 3}, 0.6, 0.1) * 2, b = seq({2, 3}, 1.1, 0.7) * 2;
    p("mse", at::mse_loss(a, b, red));
    p("l1", at::l1_loss(a, b, red));
    p("sl1_b05", at::smooth_l1_loss(a, b, red, 0.5));
    p("sl1_b0", at::smooth_l1_loss(a, b, red, 0.0));
    p("huber_07", at::huber_loss(a, b, red, 0.7));
    Tensor pr = torch::sigmoid(a), tg = torch::sigmoid(b * 2);
    Tensor bw = torch::tensor({0.5, 1.0, 2.0}, kFloat64);
    p("bce", at::binary_cross_entropy(pr, tg, {}, red));
    p("bce_w", at::binary_cross_entropy(pr, tg, bw.expand({2,3}), red));
    Tensor pw = torch::tensor({1.5, 0.5, 3.0}, kFloat64);
    p("bcel", at::binary_cross_entropy_with_logits(a, tg, {}, {}, red));
    p("bcel_w_pw", at::binary_cross_entropy_with_logits(a, tg, bw, pw, red));
    Tensor lp = torch::log_softmax(a, 1);
    Tensor tq = torch::softmax(b, 1);
    p("kl", at::kl_div(lp, tq, red, false));
    p("kl_log", at::kl_div(lp, torch::log_softmax(b, 1), red, true));
    Tensor tq0 = tq.clone(); tq0.index_put_({0, 1}, 0.0);
    p("kl_zero", at::kl_div(lp, tq0, red, false));
  }
  // gradients
  {
    Tensor xg = x.clone().requires_grad_();
    Tensor wg = w.clone();
    auto l = at::cross_entropy_loss(xg, t, wg, at::Reduction::Mean, 0, 0.25);
    l.backward();
    p("grad_ce_x", xg.grad());
  }
  // errors
  TRY(at::cross_entropy_loss(x, torch::tensor({1, 0, 4}, kLong), {}, 1, -100, 0.0));
  TRY(at::cross_entropy_loss(x, torch::tensor({1, 0, -1}, kLong), {}, 1, -100, 0.0));
  TRY(at::cross_entropy_loss(x, torch::tensor({1, 0, 2}, kInt), {}, 1, -100, 0.0));
  TRY(at::cross_entropy_loss(x, torch::tensor({1, 0}, kLong), {}, 1, -100, 0.0));
  TRY(at::cross_entropy_loss(x, t, {}, 1, -100, 1.5));
  TRY(at::cross_entropy_loss(x, t, {}, 1, -100, -0.5));
  TRY(at::cross_entropy_loss(x, torch::softmax(x,1), {}, 1, -100, 1.5));
  TRY(at::cross_entropy_loss(x, torch::softmax(x,1), {}, 1, 3, 0.0));
  TRY(at::cross_entropy_loss(x, torch::softmax(x,1).to(kLong), {}, 1, -100, 0.0));
  TRY(at::cross_entropy_loss(x, t, torch::ones({3}, kFloat64), 1, -100, 0.0));
  TRY(at::cross_entropy_loss(x, torch::softmax(x,1), torch::ones({3}, kFloat64), 1, -100, 0.0));
  TRY(at::cross_entropy_loss(torch::tensor(1.0), torch::tensor(1, kLong), {}, 1, -100, 0.0));
  TRY(at::nll_loss(x.view({3,2,2}), t, {}, 1, -100));
  TRY(at::nll_loss(x, t.view({3,1}), {}, 1, -100));
  TRY(at::nll_loss2d(x, t, {}, 1, -100));
  TRY(at::nll_loss2d(x.view({1,3,2,2}), t, {}, 1, -100));
  TRY(at::nll_loss2d(x.view({1,3,2,2}), torch::zeros({1,2,3}, kLong), {}, 1, -100));
  TRY(at::nll_loss_nd(x.view({3,2,2}), torch::zeros({3,3}, kLong), {}, 1, -100));
  TRY(at::nll_loss_nd(x.view({3,2,2}), torch::zeros({2,2}, kLong), {}, 1, -100));
  TRY(at::mse_loss(x, x.view({4,3}), 1));
  TRY(at::mse_loss(t, t, 1));
  TRY(at::smooth_l1_loss(x, x, 1, -1.0));
  TRY(at::huber_loss(x, x, 1, 0.0));
  TRY(at::binary_cross_entropy(x, x, {}, 1));
  TRY(at::binary_cross_entropy(torch::sigmoid(x), torch::sigmoid(x).view({4,3}), {}, 1));
  TRY(at::kl_div(t, t, 1, false));
  TRY(at::dropout(x, 1.5, true));
  TRY(at::feature_dropout(torch::ones({3}), 0.5, true));
  TRY(at::alpha_dropout(x, -0.5, true));
  TRY(at::feature_alpha_dropout(torch::ones({3}), 0.5, true));
  p("dropout_p1", at::dropout(x, 1.0, true));
  p("alpha_dropout_p1", at::alpha_dropout(x, 1.0, true));
  p("ce_empty_mean", at::cross_entropy_loss(torch::zeros({0, 4}, kFloat64), torch::zeros({0}, kLong), {}, 1, -100, 0.0));
  p("ce_prob_empty_mean", at::cross_entropy_loss(torch::zeros({0, 4}, kFloat64), torch::zeros({0,4}, kFloat64), {}, 1, -100, 0.0));
  p("mse_empty_mean", at::mse_loss(torch::zeros({0}, kFloat64), torch::zeros({0}, kFloat64), 1));
  p("softmax_int_dtype", torch::softmax(torch::tensor({1, 2, 3}), 0, kFloat64));
  TRY(torch::softmax(torch::tensor({1, 2, 3}), 0));
  p("logsoftmax_f32_to_f64", torch::log_softmax(torch::tensor({1.f, 2.f, 3.f}), 0, kFloat64));
  TRY(torch::log_softmax(torch::tensor({1.0, 2.0, 3.0}, kFloat64), 0, kInt));
}
