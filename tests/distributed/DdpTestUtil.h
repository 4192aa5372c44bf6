#pragma once
// The model and data the DDP tests share (threads in test_ddp.cpp, processes in ddp_worker.cpp):
// a two-layer net with an optional branch, a global batch of 8 split evenly over the ranks, and
// the single-process reference (SGD on the whole batch).
#include <vector>

#include "ember/distributed.h"
#include "ember/ember.h"

namespace ember::test {

// Parameters (registration order): 0 fc1.weight, 1 fc1.bias, 2 fc2.weight, 3 fc2.bias,
// 4 branch.weight, 5 branch.bias.
struct DdpNetImpl : nn::Module {
  DdpNetImpl() {
    fc1 = register_module("fc1", nn::Linear(4, 8));
    fc2 = register_module("fc2", nn::Linear(8, 3));
    branch = register_module("branch", nn::Linear(8, 3));
  }
  Tensor forward(Tensor x) {
    Tensor h = ember::relu(fc1(x));
    Tensor y = fc2(h);
    return use_branch ? y + branch(h) : y;
  }
  bool use_branch = true;
  nn::Linear fc1{nullptr}, fc2{nullptr}, branch{nullptr};
};
EMBER_MODULE(DdpNet);

inline DdpNet make_net(uint64_t seed) {
  ember::manual_seed(seed);
  return DdpNet();
}

struct DdpData {
  Tensor x, y;  // the global batch (8 samples)
};
inline DdpData make_data(int step) {
  ember::manual_seed(1000 + step);
  DdpData d;
  d.x = ember::randn({8, 4});
  d.y = ember::randn({8, 3});
  return d;
}
// Rank r's share of `t`'s 8 samples.
inline Tensor shard(const Tensor& t, int rank, int world) {
  const int64_t n = t.size(0) / world;
  return t.narrow(0, rank * n, n);
}

inline Tensor loss_of(const Tensor& out, const Tensor& y) { return nn::functional::mse_loss(out, y); }

// The reference: `steps` SGD steps on the whole batch, from make_net(seed).
inline std::vector<Tensor> reference_params(uint64_t seed, int steps, bool use_branch = true) {
  DdpNet net = make_net(seed);
  net->use_branch = use_branch;
  optim::SGD opt(net->parameters(), optim::SGDOptions(0.1));
  for (int s = 0; s < steps; ++s) {
    DdpData d = make_data(s);
    opt.zero_grad();
    loss_of(net->forward(d.x), d.y).backward();
    opt.step();
  }
  std::vector<Tensor> out;
  for (const Tensor& p : net->parameters()) out.push_back(p.detach().clone());
  return out;
}

}  // namespace ember::test
