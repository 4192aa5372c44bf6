// One rank of the Gloo DDP tests (test_ddp.cpp starts two with torchrun's environment). Exit 0:
// the checks passed; 77: no working Gloo backend; 1: a check failed (printed).
#include <cstdio>
#include <string>

#include "../unit/UnitTestUtil.h"
#include "DdpTestUtil.h"

using namespace ember;
using ember::nn::parallel::DistributedDataParallel;
using ember::nn::parallel::DistributedDataParallelOptions;

namespace {

int failures = 0;
void check(bool ok, const std::string& what) {
  if (!ok) {
    std::printf("FAILED: %s\n", what.c_str());
    ++failures;
  }
}

bool params_near(const std::vector<Tensor>& got, const std::vector<Tensor>& want) {
  bool ok = got.size() == want.size();
  for (size_t i = 0; ok && i < got.size(); ++i) ok = ember::allclose(got[i], want[i], 1e-5, 1e-6);
  return ok;
}

std::vector<Tensor> snapshot(nn::Module& m) {
  std::vector<Tensor> out;
  for (const Tensor& p : m.parameters()) out.push_back(p.detach().clone());
  return out;
}

// Three SGD steps on half the batch each, from different initialisations: rank 0's model trained
// on the whole batch.
void train(int rank, int world) {
  const auto want = test::reference_params(0, 3);
  auto net = test::make_net(rank);
  DistributedDataParallel ddp(net, DistributedDataParallelOptions().first_bucket_cap_mb(1e-4).bucket_cap_mb(1e-4));
  check(ddp->bucket_indices().size() > 1, "several buckets");
  optim::SGD opt(ddp->parameters(), optim::SGDOptions(0.1));
  for (int s = 0; s < 3; ++s) {
    auto d = test::make_data(s);
    opt.zero_grad();
    test::loss_of(ddp(test::shard(d.x, rank, world)), test::shard(d.y, rank, world)).backward();
    opt.step();
  }
  check(params_near(snapshot(*net), want), "parameters equal the one-process run");
  const auto t = ddp->last_timings();
  check(t.buckets.front().launch_ms < t.last_grad_ms, "the first bucket launched before the last gradient");
}

void nosync_unused(int rank, int world) {
  // no_sync on one micro-batch, then a synced one: the sum of both halves' gradients.
  {
    const auto a = test::make_data(0), b = test::make_data(1);
    auto ref = test::make_net(0);
    test::loss_of(ref->forward(a.x), a.y).backward();
    test::loss_of(ref->forward(b.x), b.y).backward();
    std::vector<Tensor> want;
    for (const Tensor& p : ref->parameters()) want.push_back(p.grad());
    auto net = test::make_net(rank);
    DistributedDataParallel ddp(net);
    {
      auto guard = ddp->no_sync();
      test::loss_of(ddp(test::shard(a.x, rank, world)), test::shard(a.y, rank, world)).backward();
    }
    test::loss_of(ddp(test::shard(b.x, rank, world)), test::shard(b.y, rank, world)).backward();
    std::vector<Tensor> got;
    for (const Tensor& p : net->parameters()) got.push_back(p.grad());
    check(params_near(got, want), "no_sync then sync: the whole batch's accumulated gradients");
  }
  // An unused branch with find_unused_parameters: trains as one process does.
  {
    const auto want = test::reference_params(0, 2, /*use_branch=*/false);
    auto net = test::make_net(rank);
    net->use_branch = false;
    DistributedDataParallel ddp(net, DistributedDataParallelOptions().find_unused_parameters(true));
    optim::SGD opt(ddp->parameters(), optim::SGDOptions(0.1));
    for (int s = 0; s < 2; ++s) {
      auto d = test::make_data(s);
      opt.zero_grad();
      test::loss_of(ddp(test::shard(d.x, rank, world)), test::shard(d.y, rank, world)).backward();
      opt.step();
    }
    check(params_near(snapshot(*net), want), "find_unused_parameters: parameters equal the one-process run");
    check(!net->branch->weight.grad().defined(), "the unused branch has no grad");
  }
  // Without it: PyTorch's error on the next forward.
  {
    auto net = test::make_net(rank);
    net->use_branch = false;
    DistributedDataParallel ddp(net);
    auto d = test::make_data(0);
    test::loss_of(ddp(test::shard(d.x, rank, world)), test::shard(d.y, rank, world)).backward();
    const std::string e = test::error_of([&] { ddp(test::shard(d.x, rank, world)); });
    check(e.find("Expected to have finished reduction in the prior iteration") != std::string::npos &&
              e.find("Parameter indices which did not receive grad for rank " + std::to_string(rank) + ": 4 5") !=
                  std::string::npos,
          "the unused-parameter error: " + e);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  try {
    distributed::init_process_group("gloo");
  } catch (const NotImplementedError& e) {
    std::printf("%s\n", e.what());
    return 77;
  }
  try {
    const int rank = distributed::get_rank(), world = distributed::get_world_size();
    if (mode == "train")
      train(rank, world);
    else if (mode == "nosync_unused")
      nosync_unused(rank, world);
    else
      check(false, "unknown mode '" + mode + "'");
    distributed::destroy_process_group();
  } catch (const std::exception& e) {
    std::printf("FAILED: %s\n", e.what());
    return 1;
  }
  return failures == 0 ? 0 : 1;
}
