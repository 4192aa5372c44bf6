// Regression with a small MLP: y = sin(3x) + noise on [-1, 1], trained with Adam and MSE, as a
// LibTorch user writes it with the namespace swapped. Exits non-zero unless the fit is close.
#include <cmath>
#include <cstdio>

#include "ember/ember.h"

struct NetImpl : ember::nn::Module {
  NetImpl() {
    fc1 = register_module("fc1", ember::nn::Linear(1, 64));
    fc2 = register_module("fc2", ember::nn::Linear(64, 64));
    fc3 = register_module("fc3", ember::nn::Linear(64, 1));
  }
  ember::Tensor forward(ember::Tensor x) {
    x = ember::tanh(fc1->forward(x));
    x = ember::tanh(fc2->forward(x));
    return fc3->forward(x);
  }
  ember::nn::Linear fc1{nullptr}, fc2{nullptr}, fc3{nullptr};
};
EMBER_MODULE(Net);

int main() {
  ember::manual_seed(0);
  const ember::Tensor x = ember::linspace(-1, 1, 256).unsqueeze(1);
  const ember::Tensor y = ember::sin(x * 3) + ember::randn({256, 1}) * 0.05;
  Net net;
  ember::optim::Adam opt(net->parameters(), ember::optim::AdamOptions(1e-2));
  double loss_value = 0;
  for (int step = 0; step < 600; ++step) {
    opt.zero_grad();
    ember::Tensor loss = ember::nn::functional::mse_loss(net->forward(x), y);
    loss.backward();
    opt.step();
    loss_value = loss.item<double>();
    if (step % 100 == 0) std::printf("step %3d  mse %.5f\n", step, loss_value);
  }
  // Against the noise-free curve on points between the training ones.
  ember::NoGradGuard no_grad;
  net->eval();
  const ember::Tensor xt = ember::linspace(-0.99, 0.99, 100).unsqueeze(1);
  const double err = (net->forward(xt) - ember::sin(xt * 3)).abs().max().item<double>();
  std::printf("final training mse %.5f, max error on held-out points %.4f\n", loss_value, err);
  if (!(loss_value < 0.01 && err < 0.1)) {
    std::printf("FAILED: the fit is not close enough\n");
    return 1;
  }
  return 0;
}
