// Prints the reference values test_libtorch_reference.cpp pastes: LibTorch 1.13 optimizers on the
// problem of OptimTestUtil.h (float64), and LibTorch's StepLR sequence. Not part of the build:
//   g++ -std=c++17 -O1 reference.cpp -I/usr/include/torch/csrc/api/include -ltorch -ltorch_cpu -lc10 -o ref
//   ./ref
#include <torch/torch.h>

#include <cstdio>
#include <functional>
#include <memory>
#include <vector>

using namespace torch;
using namespace torch::optim;

namespace {

std::vector<Tensor> make_params() {
  auto o = TensorOptions().dtype(kFloat64);
  return {torch::tensor({-1.2, 0.5, 0.8, -0.3, 1.5, 0.1}, o).reshape({2, 3}).requires_grad_(),
          torch::tensor({1.0, -0.4, 0.2, 0.9, 2.0, -0.7}, o).reshape({2, 3}).requires_grad_(),
          torch::tensor({0.3, -1.1, 2.0, 0.6}, o).requires_grad_()};
}

// convex: test_lbfgs.cpp's variant, y coupled linearly to x.
Tensor loss_of(const std::vector<Tensor>& p, bool convex = false) {
  auto o = TensorOptions().dtype(kFloat64);
  Tensor w = torch::tensor({1.0, 2.0, 0.5, 1.5}, o), c = torch::tensor({0.5, -0.5, 1.0, 0.0}, o);
  Tensor a = 1.0 - p[0], b = convex ? p[1] - 0.5 * p[0] : p[1] - p[0] * p[0], d = p[2] - c, z2 = p[2] * p[2];
  return (a * a).sum() + 5.0 * (b * b).sum() + (w * d * d).sum() + 0.1 * (z2 * z2).sum();
}

void print(const char* name, const std::vector<Tensor>& p) {
  std::printf("%s:\n", name);
  for (const auto& t : p) {
    Tensor f = t.detach().reshape({-1});
    std::printf("  {");
    for (int64_t i = 0; i < f.numel(); ++i) std::printf("%s%.17g", i ? ", " : "", f[i].item<double>());
    std::printf("},\n");
  }
}

void run(const char* name, const std::function<std::unique_ptr<Optimizer>(std::vector<Tensor>&)>& make,
         int steps = 100) {
  auto p = make_params();
  auto opt = make(p);
  for (int t = 0; t < steps; ++t) {
    opt->zero_grad();
    loss_of(p).backward();
    opt->step();
  }
  print(name, p);
}

void run_lbfgs(const char* name, LBFGSOptions options, int steps, bool convex = false) {
  auto p = make_params();
  LBFGS opt(p, options);
  for (int t = 0; t < steps; ++t) {
    opt.step([&] {
      opt.zero_grad();
      Tensor l = loss_of(p, convex);
      l.backward();
      return l;
    });
  }
  print(name, p);
}

template <class O>
std::vector<OptimizerParamGroup> two_groups(std::vector<Tensor>& p, O a, O b) {
  return {OptimizerParamGroup({p[0], p[1]}, std::make_unique<O>(a)),
          OptimizerParamGroup({p[2]}, std::make_unique<O>(b))};
}

}  // namespace

int main() {
  run("SGD", [](auto& p) {
    return std::make_unique<SGD>(two_groups(p, SGDOptions(0.01).momentum(0.9).dampening(0.1).weight_decay(0.01),
                                            SGDOptions(0.02).momentum(0.8).nesterov(true).weight_decay(0.001)),
                                 SGDOptions(0.1));
  });
  run("Adam", [](auto& p) {
    return std::make_unique<Adam>(two_groups(p, AdamOptions(0.01).betas({0.8, 0.99}).weight_decay(0.01).amsgrad(true),
                                             AdamOptions(0.02).eps(1e-6)));
  });
  run("AdamW", [](auto& p) {
    return std::make_unique<AdamW>(
        two_groups(p, AdamWOptions(0.01).weight_decay(0.1).amsgrad(true), AdamWOptions(0.03).betas({0.95, 0.9})));
  });
  run("RMSprop", [](auto& p) {
    return std::make_unique<RMSprop>(two_groups(
        p, RMSpropOptions(0.005).centered(true).momentum(0.5).weight_decay(0.01), RMSpropOptions(0.005).alpha(0.9)));
  });
  run("Adagrad", [](auto& p) {
    return std::make_unique<Adagrad>(
        two_groups(p, AdagradOptions(0.1).lr_decay(0.01).initial_accumulator_value(0.5).weight_decay(0.01),
                   AdagradOptions(0.05).eps(1e-6)));
  });
  run_lbfgs("LBFGS valley", LBFGSOptions(0.2).max_iter(1).history_size(5), 40);
  run_lbfgs("LBFGS valley strong_wolfe", LBFGSOptions(1).max_iter(5).history_size(3).line_search_fn("strong_wolfe"), 6);
  run_lbfgs("LBFGS convex strong_wolfe", LBFGSOptions(1).max_iter(4).history_size(3).line_search_fn("strong_wolfe"),
            100, /*convex=*/true);

  // StepLR(step_size 2, gamma 0.5) on lr 1: the lr after each of 6 steps.
  auto p = make_params();
  SGD opt(p, SGDOptions(1.0));
  StepLR sched(opt, 2, 0.5);
  std::printf("StepLR:\n  {");
  for (int i = 0; i < 6; ++i) {
    sched.step();
    std::printf("%s%.17g", i ? ", " : "", opt.param_groups()[0].options().get_lr());
  }
  std::printf("}\n");
}
