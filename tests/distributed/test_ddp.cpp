// DistributedDataParallel: ranks as threads over an in-process group (ThreadGroup.h) for the
// reducer's semantics, and two processes over Gloo (ddp_worker.cpp) for the real thing.
#include <gtest/gtest.h>

#include <exception>
#include <functional>
#include <thread>

#include "../unit/UnitTestUtil.h"
#include "DdpTestUtil.h"
#include "Spawn.h"
#include "ThreadGroup.h"

using namespace ember;
using ember::nn::parallel::DistributedDataParallel;
using ember::nn::parallel::DistributedDataParallelOptions;
using ember::test::DdpNet;

namespace {

// Runs body(rank, group) on `world` threads; rethrows the first rank's failure.
void run_ranks(int world, const std::function<void(int, std::shared_ptr<c10d::ProcessGroup>)>& body) {
  auto shared = std::make_shared<test::ThreadWorld>(world);
  std::vector<std::exception_ptr> errors(world);
  std::vector<std::thread> threads;
  for (int r = 0; r < world; ++r)
    threads.emplace_back([&, r] {
      try {
        body(r, std::make_shared<test::ThreadGroup>(shared, r));
      } catch (...) {
        errors[r] = std::current_exception();
      }
    });
  for (auto& t : threads) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

std::vector<test::DdpData> batches(int steps) {
  std::vector<test::DdpData> out;
  for (int s = 0; s < steps; ++s) out.push_back(test::make_data(s));
  return out;
}

void expect_params_near(const std::vector<Tensor>& got, const std::vector<Tensor>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_TRUE(ember::allclose(got[i], want[i], 1e-5, 1e-6)) << "parameter " << i << ":\n"
                                                              << got[i] << "\nvs\n"
                                                              << want[i];
}

// Per-rank models with different initialisations (rank r: seed r), so construction must broadcast.
std::vector<DdpNet> nets(int world) {
  std::vector<DdpNet> out;
  for (int r = 0; r < world; ++r) out.push_back(test::make_net(r));
  return out;
}

}  // namespace

TEST(Ddp, TrainingMatchesOneProcessOnTheWholeBatch) {
  constexpr int kSteps = 3, kWorld = 2;
  const auto want = test::reference_params(0, kSteps);
  const auto data = batches(kSteps);
  auto models = nets(kWorld);
  std::vector<std::vector<Tensor>> got(kWorld);
  run_ranks(kWorld, [&](int r, auto pg) {
    // Tiny buckets: several all_reduces per backward.
    DistributedDataParallel ddp(
        models[r], DistributedDataParallelOptions().process_group(pg).first_bucket_cap_mb(1e-4).bucket_cap_mb(1e-4));
    optim::SGD opt(ddp->parameters(), optim::SGDOptions(0.1));
    for (int s = 0; s < kSteps; ++s) {
      opt.zero_grad();
      test::loss_of(ddp(test::shard(data[s].x, r, kWorld)), test::shard(data[s].y, r, kWorld)).backward();
      opt.step();
    }
    for (const Tensor& p : models[r]->parameters()) got[r].push_back(p.detach().clone());
  });
  for (int r = 0; r < kWorld; ++r) expect_params_near(got[r], want);
}

TEST(Ddp, GradientAsBucketViewMatchesAndAliasesTheBucket) {
  constexpr int kSteps = 2, kWorld = 2;
  const auto want = test::reference_params(0, kSteps);
  const auto data = batches(kSteps);
  auto models = nets(kWorld);
  std::vector<std::vector<Tensor>> got(kWorld);
  run_ranks(kWorld, [&](int r, auto pg) {
    DistributedDataParallel ddp(models[r],
                                DistributedDataParallelOptions().process_group(pg).gradient_as_bucket_view(true));
    optim::SGD opt(ddp->parameters(), optim::SGDOptions(0.1));
    for (int s = 0; s < kSteps; ++s) {
      opt.zero_grad(/*set_to_none=*/s == 0);
      test::loss_of(ddp(test::shard(data[s].x, r, kWorld)), test::shard(data[s].y, r, kWorld)).backward();
      opt.step();
    }
    // One bucket, its slots in registration order: fc1.bias's grad follows fc1.weight's.
    auto params = models[r]->parameters();
    EXPECT_EQ(static_cast<const char*>(params[1].grad().data_ptr()),
              static_cast<const char*>(params[0].grad().data_ptr()) + params[0].nbytes());
    for (const Tensor& p : params) got[r].push_back(p.detach().clone());
  });
  for (int r = 0; r < kWorld; ++r) expect_params_near(got[r], want);
}

TEST(Ddp, NoSyncAccumulatesLocallyThenReducesTheSum) {
  // Two micro-batches per step (no_sync on the first): the grads of loss(A) + loss(B) on the
  // whole batch, as one process computes them.
  constexpr int kWorld = 2;
  const auto a = test::make_data(0), b = test::make_data(1);
  DdpNet ref = test::make_net(0);
  test::loss_of(ref->forward(a.x), a.y).backward();
  test::loss_of(ref->forward(b.x), b.y).backward();
  std::vector<Tensor> want;
  for (const Tensor& p : ref->parameters()) want.push_back(p.grad().clone());

  auto models = nets(kWorld);
  std::vector<std::vector<Tensor>> got(kWorld), local(kWorld);
  std::vector<int64_t> collectives(kWorld);
  run_ranks(kWorld, [&](int r, std::shared_ptr<c10d::ProcessGroup> pg) {
    DistributedDataParallel ddp(models[r], DistributedDataParallelOptions().process_group(pg));
    auto* group = static_cast<test::ThreadGroup*>(pg.get());
    const int64_t before = group->collectives();
    {
      auto guard = ddp->no_sync();
      test::loss_of(ddp(test::shard(a.x, r, kWorld)), test::shard(a.y, r, kWorld)).backward();
    }
    collectives[r] = group->collectives() - before;
    for (const Tensor& p : models[r]->parameters()) local[r].push_back(p.grad().clone());
    test::loss_of(ddp(test::shard(b.x, r, kWorld)), test::shard(b.y, r, kWorld)).backward();
    for (const Tensor& p : models[r]->parameters()) got[r].push_back(p.grad().clone());
  });
  for (int r = 0; r < kWorld; ++r) {
    EXPECT_EQ(collectives[r], 0) << "no_sync's backward communicated";
    expect_params_near(got[r], want);
  }
  // Under no_sync each rank kept its own half's gradient.
  EXPECT_FALSE(ember::allclose(local[0][0], local[1][0]));
}

TEST(Ddp, FindUnusedParametersWithABranchNotUsed) {
  constexpr int kSteps = 2, kWorld = 2;
  const auto want = test::reference_params(0, kSteps, /*use_branch=*/false);
  const auto data = batches(kSteps);
  auto models = nets(kWorld);
  std::vector<std::vector<Tensor>> got(kWorld);
  std::vector<char> branch_grad_defined(kWorld, 1);  // not vector<bool>: the ranks write in parallel
  run_ranks(kWorld, [&](int r, auto pg) {
    models[r]->use_branch = false;
    DistributedDataParallel ddp(models[r], DistributedDataParallelOptions()
                                               .process_group(pg)
                                               .find_unused_parameters(true)
                                               .first_bucket_cap_mb(0)
                                               .bucket_cap_mb(0));
    optim::SGD opt(ddp->parameters(), optim::SGDOptions(0.1));
    for (int s = 0; s < kSteps; ++s) {
      opt.zero_grad();
      test::loss_of(ddp(test::shard(data[s].x, r, kWorld)), test::shard(data[s].y, r, kWorld)).backward();
      opt.step();
    }
    // No rank used the branch: its grads stay unset (PyTorch's rule).
    branch_grad_defined[r] = models[r]->branch->weight.grad().defined();
    for (const Tensor& p : models[r]->parameters()) got[r].push_back(p.detach().clone());
  });
  for (int r = 0; r < kWorld; ++r) {
    EXPECT_FALSE(branch_grad_defined[r]);
    expect_params_near(got[r], want);
  }
}

TEST(Ddp, UnusedParameterWithoutDetectionRaisesOnTheNextForward) {
  constexpr int kWorld = 2;
  const auto d = test::make_data(0);
  auto models = nets(kWorld);
  std::vector<std::string> errors(kWorld);
  run_ranks(kWorld, [&](int r, auto pg) {
    models[r]->use_branch = false;
    DistributedDataParallel ddp(
        models[r], DistributedDataParallelOptions().process_group(pg).first_bucket_cap_mb(0).bucket_cap_mb(0));
    test::loss_of(ddp(test::shard(d.x, r, kWorld)), test::shard(d.y, r, kWorld)).backward();
    errors[r] = test::error_of([&] { ddp(test::shard(d.x, r, kWorld)); });
  });
  for (int r = 0; r < kWorld; ++r) {
    const std::string& e = errors[r];
    EXPECT_NE(e.find("[DistributedDataParallel] Expected to have finished reduction in the prior iteration before "
                     "starting a new one."),
              std::string::npos)
        << e;
    EXPECT_NE(e.find("find_unused_parameters=True"), std::string::npos) << e;
    EXPECT_NE(
        e.find("Parameters which did not receive grad for rank " + std::to_string(r) + ": branch.weight, branch.bias"),
        std::string::npos)
        << e;
    EXPECT_NE(e.find("Parameter indices which did not receive grad for rank " + std::to_string(r) + ": 4 5"),
              std::string::npos)
        << e;
  }
}

TEST(Ddp, ConstructionBroadcastsParametersAndForwardBroadcastsBuffers) {
  constexpr int kWorld = 2;
  std::vector<nn::BatchNorm1d> bns;
  for (int r = 0; r < kWorld; ++r) {
    ember::manual_seed(r);
    bns.emplace_back(nn::BatchNorm1dOptions(3));
    NoGradGuard g;
    bns[r]->weight.uniform_();
    bns[r]->running_mean.fill_(10.0 * (r + 1));
  }
  ember::manual_seed(7);
  std::vector<Tensor> xs{ember::randn({4, 3}), ember::randn({4, 3}) * 5};
  std::vector<Tensor> weight(kWorld), mean_at_start(kWorld), mean_after_train(kWorld), mean_after_eval(kWorld);
  run_ranks(kWorld, [&](int r, auto pg) {
    DistributedDataParallel ddp(bns[r], DistributedDataParallelOptions().process_group(pg));
    weight[r] = bns[r]->weight.detach().clone();
    mean_at_start[r] = bns[r]->running_mean.clone();
    ddp(xs[r]).sum().backward();  // running stats move with each rank's own data
    mean_after_train[r] = bns[r]->running_mean.clone();
    ddp->eval();
    NoGradGuard g;
    ddp(xs[r]);  // buffers broadcast from rank 0 first; eval leaves them
    mean_after_eval[r] = bns[r]->running_mean.clone();
  });
  EXPECT_TRUE(ember::equal(weight[0], weight[1]));
  EXPECT_TRUE(ember::equal(mean_at_start[1], ember::full({3}, 10.0)));
  EXPECT_FALSE(ember::allclose(mean_after_train[0], mean_after_train[1]));
  EXPECT_TRUE(ember::equal(mean_after_eval[0], mean_after_train[0]));
  EXPECT_TRUE(ember::equal(mean_after_eval[1], mean_after_train[0]));
}

TEST(Ddp, BucketLayoutFollowsPyTorchsAssignment) {
  // Sizes in bytes: fc1.weight 128, fc1.bias 32, fc2.weight 96, fc2.bias 12, branch.weight 96,
  // branch.bias 12. In registration order with a 100-byte first bucket and 120-byte others:
  // {0} (128 >= 100), {1, 2} (128), {3, 4, 5} (120) -- then reversed.
  constexpr double kMiB = 1024.0 * 1024.0;
  auto models = nets(1);
  std::vector<std::vector<size_t>> layout, small_layout, default_layout;
  run_ranks(1, [&](int, auto pg) {
    DistributedDataParallel ddp(
        models[0],
        DistributedDataParallelOptions().process_group(pg).first_bucket_cap_mb(100 / kMiB).bucket_cap_mb(120 / kMiB));
    layout = ddp->bucket_indices();
    small_layout =
        DistributedDataParallel(
            models[0], DistributedDataParallelOptions().process_group(pg).first_bucket_cap_mb(0).bucket_cap_mb(0))
            ->bucket_indices();
    default_layout =
        DistributedDataParallel(models[0], DistributedDataParallelOptions().process_group(pg))->bucket_indices();
  });
  EXPECT_EQ(layout, (std::vector<std::vector<size_t>>{{3, 4, 5}, {1, 2}, {0}}));
  // Zero caps close a bucket after each parameter; the default caps hold them all in one.
  EXPECT_EQ(small_layout, (std::vector<std::vector<size_t>>{{5}, {4}, {3}, {2}, {1}, {0}}));
  EXPECT_EQ(default_layout, (std::vector<std::vector<size_t>>{{0, 1, 2, 3, 4, 5}}));
}

TEST(Ddp, CommunicationOverlapsBackward) {
  constexpr int kWorld = 2;
  const auto d = test::make_data(0);
  auto models = nets(kWorld);
  std::vector<nn::parallel::DDPIterationTimings> timings(kWorld);
  std::vector<size_t> nbuckets(kWorld);
  run_ranks(kWorld, [&](int r, auto pg) {
    DistributedDataParallel ddp(
        models[r], DistributedDataParallelOptions().process_group(pg).first_bucket_cap_mb(0).bucket_cap_mb(0));
    test::loss_of(ddp(test::shard(d.x, r, kWorld)), test::shard(d.y, r, kWorld)).backward();
    timings[r] = ddp->last_timings();
    nbuckets[r] = ddp->bucket_indices().size();
  });
  for (int r = 0; r < kWorld; ++r) {
    const auto& t = timings[r];
    ASSERT_EQ(t.buckets.size(), nbuckets[r]);
    ASSERT_EQ(nbuckets[r], 6u);
    EXPECT_GE(t.first_grad_ms, 0);
    // The first bucket went out before the last gradient arrived.
    EXPECT_LT(t.buckets.front().launch_ms, t.last_grad_ms);
    for (const auto& b : t.buckets) {
      EXPECT_GE(b.launch_ms, b.ready_ms);
      EXPECT_GE(b.finish_ms, b.launch_ms);
      EXPECT_LE(b.finish_ms, t.end_ms);
    }
    for (size_t b = 1; b < t.buckets.size(); ++b) EXPECT_GE(t.buckets[b].launch_ms, t.buckets[b - 1].launch_ms);
  }
}

TEST(Ddp, SequentialIsCalledThroughForward) {
  // d/dW of sum(x W^T + b) is every row's sum of x: averaged over the ranks, half the whole batch's.
  constexpr int kWorld = 2;
  ember::manual_seed(3);
  const Tensor x = ember::randn({4, 4});
  std::vector<nn::Sequential> models;
  for (int r = 0; r < kWorld; ++r) models.emplace_back(nn::Linear(4, 3), nn::ReLU());
  std::vector<Tensor> grads(kWorld);
  run_ranks(kWorld, [&](int r, auto pg) {
    DistributedDataParallel ddp(models[r], DistributedDataParallelOptions().process_group(pg));
    {
      NoGradGuard g;  // no ReLU cut: every output positive
      models[r]->ptr<nn::LinearImpl>(0)->weight.abs_();
      models[r]->ptr<nn::LinearImpl>(0)->bias.abs_();
    }
    ddp(test::shard(x.abs(), r, kWorld)).sum().backward();
    grads[r] = models[r]->ptr<nn::LinearImpl>(0)->weight.grad().clone();
  });
  const Tensor want = x.abs().sum(0).div(2).expand({3, 4});
  for (int r = 0; r < kWorld; ++r) EXPECT_TRUE(ember::allclose(grads[r], want)) << grads[r] << want;
}

TEST(Ddp, BadArguments) {
  auto models = nets(1);
  run_ranks(1, [&](int, std::shared_ptr<c10d::ProcessGroup> pg) {
    auto opts = DistributedDataParallelOptions().process_group(pg);
    EXPECT_EQ(test::error_of(
                  [&] { DistributedDataParallel(models[0], DistributedDataParallelOptions(opts).bucket_cap_mb(-1)); }),
              "[DistributedDataParallel] bucket_cap_mb: expected a size >= 0 in MiB, got -1");
    std::shared_ptr<nn::Module> erased = models[0].ptr();
    DistributedDataParallel ddp(erased, opts);
    EXPECT_NE(test::error_of([&] {
                ddp(ember::zeros({2, 4}));
              }).find("[DistributedDataParallel] forward: the module was given as a type without one forward"),
              std::string::npos);
    auto frozen = test::make_net(0);
    for (Tensor& p : frozen->parameters()) p.requires_grad_(false);
    EXPECT_EQ(test::error_of([&] { DistributedDataParallel(frozen, opts); }),
              "[DistributedDataParallel] module: DistributedDataParallel is not needed when a module doesn't have any "
              "parameter that requires a gradient.");
    EXPECT_EQ(test::error_of([&] { DistributedDataParallel(std::shared_ptr<test::DdpNetImpl>(), opts); }),
              "[DistributedDataParallel] module: expected a module, got a null pointer");
  });
}

TEST(Ddp, DifferentModelsOnTheRanksRaiseOnEveryRank) {
  std::vector<std::shared_ptr<nn::Module>> models{nn::Linear(4, 3).ptr(), nn::Linear(4, 2).ptr()};
  std::vector<std::string> errors(2);
  run_ranks(2, [&](int r, auto pg) {
    errors[r] =
        test::error_of([&] { DistributedDataParallel(models[r], DistributedDataParallelOptions().process_group(pg)); });
  });
  EXPECT_NE(errors[0].find("[DistributedDataParallel] module: expected the same parameters on every rank"),
            std::string::npos)
      << errors[0];
  EXPECT_NE(errors[1].find("but rank 1's differ from rank 0's (this rank has 2 parameters with sizes 8, 2)"),
            std::string::npos)
      << errors[1];
}

// ---- Two processes over Gloo ---------------------------------------------------------------

namespace {
// exit 77: the worker found no working Gloo backend.
void run_workers(const std::string& mode) {
  test::SpawnOptions o;
  o.deadline = std::chrono::seconds(60);
  auto results = test::spawn_ranks({EMBER_DDP_WORKER, mode}, 2, o);
  if (results[0].exit_code == 77) GTEST_SKIP() << "no Gloo backend: " << results[0].output;
  for (int r = 0; r < 2; ++r) EXPECT_EQ(results[r].exit_code, 0) << "rank " << r << ":\n" << results[r].output;
}
}  // namespace

TEST(DdpGloo, TrainingMatchesOneProcess) { run_workers("train"); }
TEST(DdpGloo, NoSyncAndUnusedParameters) { run_workers("nosync_unused"); }
