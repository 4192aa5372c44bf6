// The standard nn modules on a GPU backend against the same modules on the cpu: a module built
// with one seed, moved with Module::to, run forward and backward on one input and one output
// gradient, then one SGD step; the outputs, the input and parameter gradients, the parameters
// after the step and the buffers (batch norm's running statistics) agree. EMBER_TEST_BACKEND
// names the device (cuda by default), EMBER_TEST_BACKEND_PLUGIN its plugin; skipped, with the
// reason, where it has none.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "ember/ember.h"

using namespace ember;

namespace {

using Named = std::vector<std::pair<std::string, Tensor>>;

Device backend_device() {
  const char* b = std::getenv("EMBER_TEST_BACKEND");
  return Device(std::string(b && *b ? b : "cuda"));
}

Tensor data(std::vector<int64_t> shape, uint64_t seed) {
  return randn(shape, ember::detail::createCPUGenerator(seed), kFloat32);
}

// Everything one run yields, copied to the host.
template <class Make, class Forward>
Named run_case(Make make, Forward forward, const Tensor& input, bool input_grad, Device dev) {
  manual_seed(0);
  auto m = make();
  m->to(dev);
  Tensor x = input.detach().clone().to(dev);  // a leaf of its own on either side
  if (input_grad) x.requires_grad_();
  const Tensor y = forward(m, x);
  // A GPU tensor's device has an index: "cuda" is the current device, cuda:0 here.
  const Device want = dev.has_index() || dev.type() == kCPU ? dev : Device(dev.type(), 0);
  EXPECT_EQ(y.device(), want);
  const Tensor v = randn(y.sizes(), ember::detail::createCPUGenerator(3), kFloat32).to(dev);
  (y * v).sum().backward();
  Named r{{"output", y.detach().cpu()}};
  if (input_grad) r.emplace_back("input gradient", x.grad().cpu());
  for (const auto& kv : m->named_parameters()) {
    const Tensor g = kv.value().grad();
    if (g.defined()) {
      EXPECT_EQ(g.device(), want) << kv.key();
    }
    r.emplace_back(kv.key() + " gradient", g.defined() ? g.cpu() : Tensor());
  }
  if (!m->parameters().empty()) {
    // SGD, not Adam: a gradient that is 0 but for rounding (a bias before batch norm, attention's key
    // bias) would have Adam step by about lr either way.
    optim::SGD opt(m->parameters(), optim::SGDOptions(0.1).momentum(0.9).weight_decay(1e-2));
    opt.step();
  }
  for (const auto& kv : m->named_parameters()) r.emplace_back(kv.key() + " after a step", kv.value().detach().cpu());
  for (const auto& kv : m->named_buffers()) r.emplace_back(kv.key() + " (buffer)", kv.value().cpu());
  return r;
}

// The differences between the cpu's run and the device's (float32 sums in other orders).
std::vector<std::string> differences(const Named& cpu, const Named& dev) {
  std::vector<std::string> out;
  if (cpu.size() != dev.size()) return {"different numbers of results"};
  for (size_t i = 0; i < cpu.size(); ++i) {
    const Tensor &a = cpu[i].second, &b = dev[i].second;
    if (a.defined() != b.defined() || (a.defined() && a.sizes() != b.sizes())) {
      out.push_back(cpu[i].first + ": shapes or definedness differ");
      continue;
    }
    if (!a.defined()) continue;
    const Tensor x = a.to(kFloat64).contiguous(), y = b.to(kFloat64).contiguous();
    for (int64_t k = 0; k < x.numel(); ++k) {
      const double p = x.data_ptr<double>()[k], q = y.data_ptr<double>()[k];
      if (std::abs(p - q) > 1e-4 + 1e-4 * std::abs(p)) {
        std::ostringstream os;
        os << cpu[i].first << ": element " << k << ": " << q << " on the device, " << p << " on the cpu";
        out.push_back(os.str());
        break;
      }
    }
  }
  return out;
}

class DeviceModules : public testing::Test {
 protected:
  // The device's plugin has its name unless EMBER_TEST_BACKEND_PLUGIN names another (cuda-emulated
  // serves cuda on the host); a GPU plugin loads without a GPU and reports no device.
  void SetUp() override {
    dev_ = backend_device();
    const char* plugin = std::getenv("EMBER_TEST_BACKEND_PLUGIN");
    plugins::load(plugin && *plugin ? std::string(plugin) : dev_.str());
    if (device_count(dev_.type()) == 0) GTEST_SKIP() << "no " << dev_.str() << " device on this machine";
  }

  template <class Make, class Forward>
  void check(Make make, Forward forward, const Tensor& input, bool input_grad = true) {
    const Named c = run_case(make, forward, input, input_grad, Device(kCPU));
    const Named d = run_case(make, forward, input, input_grad, dev_);
    for (const std::string& p : differences(c, d)) ADD_FAILURE() << p;
  }

  Device dev_{kCPU};
};

auto call = [](auto& m, const Tensor& x) { return m->forward(x); };

TEST_F(DeviceModules, Linear) {
  check([] { return nn::Linear(12, 7); }, call, data({5, 12}, 1));
}

TEST_F(DeviceModules, Convolutions) {
  check([] { return nn::Conv1d(nn::Conv1dOptions(4, 6, 3).stride(2).padding(1)); }, call, data({2, 4, 11}, 2));
  check(
      [] {
        return nn::Conv2d(nn::Conv2dOptions(4, 6, {3, 2}).padding({1, 0}).groups(2));
      },
      call, data({2, 4, 9, 8}, 3));
  check([] { return nn::Conv3d(nn::Conv3dOptions(2, 3, 2).dilation(2)); }, call, data({1, 2, 6, 7, 5}, 4));
  check([] { return nn::ConvTranspose2d(nn::ConvTranspose2dOptions(4, 2, 3).stride(2).output_padding(1)); }, call,
        data({2, 4, 5, 6}, 5));
}

TEST_F(DeviceModules, Normalizations) {
  // Training mode: batch statistics, and the running ones as buffers.
  check([] { return nn::BatchNorm2d(5); }, call, data({4, 5, 3, 3}, 6));
  check([] { return nn::BatchNorm1d(6); }, call, data({8, 6}, 7));
  check([] { return nn::LayerNorm(nn::LayerNormOptions({4, 5})); }, call, data({3, 4, 5}, 8));
  check([] { return nn::GroupNorm(nn::GroupNormOptions(2, 6)); }, call, data({3, 6, 4}, 9));
}

TEST_F(DeviceModules, Pools) {
  check([] { return nn::MaxPool2d(nn::MaxPool2dOptions(2).stride(2)); }, call, data({2, 3, 6, 7}, 10));
  check([] { return nn::AvgPool2d(nn::AvgPool2dOptions(3).stride(2).padding(1)); }, call, data({2, 3, 7, 7}, 11));
  check([] { return nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions({3, 2})); }, call, data({2, 3, 7, 5}, 12));
  check(
      [] {
        return nn::Upsample(nn::UpsampleOptions().scale_factor(std::vector<double>{2, 2}).mode(kBilinear));
      },
      call, data({1, 2, 4, 5}, 13));
}

TEST_F(DeviceModules, Embeddings) {
  const Tensor idx = tensor({1, 4, 4, 0, 9, 2}, kInt64);
  check([] { return nn::Embedding(nn::EmbeddingOptions(10, 3).padding_idx(0)); }, call, idx, false);
  const Tensor offsets = tensor({0, 2, 2}, kInt64);
  check([] { return nn::EmbeddingBag(nn::EmbeddingBagOptions(10, 4).mode(kSum)); },
        [&](auto& m, const Tensor& x) { return m->forward(x, offsets.to(x.device())); }, idx, false);
}

TEST_F(DeviceModules, Attention) {
  check([] { return nn::MultiheadAttention(nn::MultiheadAttentionOptions(8, 2)); },
        [](auto& m, const Tensor& x) { return std::get<0>(m->forward(x, x, x)); }, data({5, 3, 8}, 14));
  check(
      [] {
        return nn::TransformerEncoderLayer(nn::TransformerEncoderLayerOptions(8, 2).dim_feedforward(16).dropout(0));
      },
      call, data({4, 2, 8}, 15));
}

// The training job's shape of network: conv, batch norm, relu, pool, linear, and its loss.
TEST_F(DeviceModules, SmallCnnWithLoss) {
  const Tensor target = tensor({3, 1, 0, 9}, kInt64);
  check(
      [] {
        return nn::Sequential(nn::Conv2d(nn::Conv2dOptions(1, 4, 3).padding(1)), nn::BatchNorm2d(4), nn::ReLU(),
                              nn::MaxPool2d(2), nn::Flatten(), nn::Linear(4 * 4 * 4, 10));
      },
      [&](auto& m, const Tensor& x) {
        return nn::functional::cross_entropy(m->forward(x), target.to(x.device())).reshape({1});
      },
      data({4, 1, 8, 8}, 16));
}

// Each backward node runs on the stream its forward ran on, whatever stream backward() is called
// under (Note [Streams in backward] in the autograd engine).
TEST_F(DeviceModules, BackwardRunsOnTheForwardsStreams) {
  if (dev_.type() == kCPU) GTEST_SKIP() << "the cpu has no streams";
  const Stream ambient = current_stream(dev_);
  const Stream side = stream_from_pool(dev_), caller = stream_from_pool(dev_);
  ASSERT_NE(side, ambient);
  ASSERT_NE(caller, side);
  const Tensor xc = data({4, 3}, 20);
  const Tensor x = xc.to(dev_).requires_grad_();
  Tensor y;
  {
    StreamGuard on_side(side);
    y = x * 3;
  }
  const Tensor z = y.sin();
  std::vector<Stream> seen_y, seen_z;
  y.register_hook([&](const Tensor& g) {
    seen_y.push_back(current_stream(dev_));
    return g;
  });
  z.register_hook([&](const Tensor& g) {
    seen_z.push_back(current_stream(dev_));
    return g;
  });
  {
    StreamGuard on_caller(caller);
    z.sum().backward();
    EXPECT_EQ(current_stream(dev_), caller) << "the caller's stream is restored";
  }
  ASSERT_EQ(seen_z.size(), 1u);
  EXPECT_EQ(seen_z[0], ambient) << "sin's backward runs where sin ran";
  ASSERT_EQ(seen_y.size(), 1u);
  EXPECT_EQ(seen_y[0], side) << "mul's backward runs where mul ran";
  EXPECT_TRUE(allclose(x.grad().cpu(), 3 * cos(3 * xc), 1e-5, 1e-6));
}

}  // namespace
