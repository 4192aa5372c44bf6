// The small CNN on Fashion-MNIST in one screen: one epoch of SGD with momentum, then the test
// accuracy. `fashion_mnist DIR` (the IDX files, raw or .gz). Exits non-zero below 85%.
#include <cstdio>
#include <string>

#include "ember/ember.h"

namespace nn = ember::nn;

int main(int argc, char** argv) {
  const std::string root = argc > 1 ? argv[1] : "/usr/share/datasets/fashion-mnist";
  ember::manual_seed(1);
  auto train = std::make_shared<ember::data::datasets::MNIST>(root, ember::data::datasets::MNIST::Mode::kTrain);
  auto test = std::make_shared<ember::data::datasets::MNIST>(root, ember::data::datasets::MNIST::Mode::kTest);
  const auto normalize = ember::data::transforms::Normalize(0.2860, 0.3530);
  ember::data::DataLoader train_loader(
      train, ember::data::DataLoaderOptions().batch_size(64).shuffle(true).seed(1).transform(normalize));
  ember::data::DataLoader test_loader(test, ember::data::DataLoaderOptions().batch_size(1000).transform(normalize));

  nn::Sequential model(nn::Conv2d(nn::Conv2dOptions(1, 32, 3)), nn::ReLU(), nn::MaxPool2d(2),
                       nn::Conv2d(nn::Conv2dOptions(32, 64, 3)), nn::ReLU(), nn::MaxPool2d(2), nn::Flatten(),
                       nn::Linear(1600, 10));
  ember::optim::SGD opt(model->parameters(), ember::optim::SGDOptions(0.05).momentum(0.9));

  model->train();
  for (auto& batch : train_loader) {
    opt.zero_grad();
    ember::Tensor loss = nn::functional::cross_entropy(model->forward(batch.data), batch.target);
    loss.backward();
    opt.step();
  }

  model->eval();
  ember::NoGradGuard no_grad;
  int64_t correct = 0, seen = 0;
  for (auto& batch : test_loader) {
    correct += model->forward(batch.data).argmax(1).eq(batch.target).sum().item<int64_t>();
    seen += batch.data.size(0);
  }
  const double acc = static_cast<double>(correct) / static_cast<double>(seen);
  std::printf("test accuracy after one epoch: %.4f (%lld images)\n", acc, static_cast<long long>(seen));
  return acc >= 0.85 ? 0 : 1;
}
