// One rank of the multi-host test (test_multihost.sh runs one `ember run` per network namespace):
// joins the Gloo group through torchrun's environment, checks collectives and point-to-point
// against their closed forms, then trains DdpNet three SGD steps with DDP on its share of each
// global batch and checks the parameters against the one-process run on the whole batch.
// Prints "multihost rank R of N (node G): ok" and exits 0, or "FAILED: ..." and exits 1.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "DdpTestUtil.h"

using namespace ember;
namespace dist = ember::distributed;
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

std::vector<double> vals(const Tensor& t) {
  const Tensor c = t.contiguous().to(kFloat64);
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

void collectives(int r, int n) {
  Tensor t = ember::full({5}, Scalar(r + 1.0));
  dist::all_reduce(t);
  check(vals(t) == std::vector<double>(5, n * (n + 1) / 2.0), "all_reduce SUM");
  Tensor m = ember::full({3}, Scalar(10.0 * r));
  dist::all_reduce(m, dist::ReduceOp::MAX);
  check(vals(m) == std::vector<double>(3, 10.0 * (n - 1)), "all_reduce MAX");
  Tensor b = ember::full({4}, Scalar(r == n - 1 ? 42.0 : -1.0), TensorOptions().dtype(kInt64));
  dist::broadcast(b, n - 1);
  check(vals(b) == std::vector<double>(4, 42.0), "broadcast from the last rank");
  std::vector<Tensor> parts;
  for (int i = 0; i < n; ++i) parts.push_back(ember::zeros({2}));
  dist::all_gather(parts, ember::full({2}, Scalar(100.0 + r)));
  for (int i = 0; i < n; ++i)
    check(vals(parts[i]) == std::vector<double>(2, 100.0 + i), "all_gather part " + std::to_string(i));
  // A ring: send to the next rank, receive from the previous one (a 1 MiB tensor: several TCP segments).
  Tensor out = ember::full({1 << 18}, Scalar(static_cast<double>(r)));
  Tensor in = ember::zeros({1 << 18});
  auto s = dist::isend(out, (r + 1) % n);
  int src = dist::recv(in, (r + n - 1) % n);
  s->wait();
  check(src == (r + n - 1) % n && vals(in) == std::vector<double>(1 << 18, (r + n - 1) % n), "send/recv ring");
  dist::barrier();
}

void ddp_steps(int r, int n) {
  const auto want = test::reference_params(0, 3);
  auto net = test::make_net(r);  // different on each rank: DDP broadcasts rank 0's
  DistributedDataParallel ddp(net, DistributedDataParallelOptions().first_bucket_cap_mb(1e-4).bucket_cap_mb(1e-4));
  optim::SGD opt(ddp->parameters(), optim::SGDOptions(0.1));
  for (int step = 0; step < 3; ++step) {
    auto d = test::make_data(step);
    opt.zero_grad();
    test::loss_of(ddp(test::shard(d.x, r, n)), test::shard(d.y, r, n)).backward();
    opt.step();
  }
  auto got = net->parameters();
  check(got.size() == want.size(), "parameter count");
  for (size_t i = 0; i < got.size() && i < want.size(); ++i)
    check(ember::allclose(got[i], want[i], 1e-5, 1e-6),
          "DDP parameter " + std::to_string(i) + " equals the one-process run's");
}

const char* env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v ? v : fallback;
}

}  // namespace

int main() {
  try {
    dist::InitProcessGroupOptions o;
    o.backend = "gloo";
    o.timeout = std::chrono::seconds(60);
    dist::init_process_group(o);
    const int r = dist::get_rank(), n = dist::get_world_size();
    check(n == std::atoi(env_or("WORLD_SIZE", "0")), "world size from WORLD_SIZE");
    collectives(r, n);
    ddp_steps(r, n);
    dist::destroy_process_group();
    if (failures == 0) std::printf("multihost rank %d of %d (node %s): ok\n", r, n, env_or("GROUP_RANK", "?"));
  } catch (const std::exception& e) {
    std::printf("FAILED: %s\n", e.what());
    return 1;
  }
  return failures == 0 ? 0 : 1;
}
