// DistributedDataParallel on the small CNN (bench/train.cpp's model, `ember train`'s): the training
// step of 2 processes over Gloo, batch 64 each, beside one process on batch 64 (the target: the
// DDP step within 1.2x), one intra-op thread per process. Then, from the reducer's timings, how
// much of the gradient communication overlaps backward, with PyTorch's default buckets (one
// bucket here: 139 KB of parameters) and with small buckets (one per large parameter).
//   bench_ddp [steps]   spawns its own ranks (torchrun's environment over loopback)
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ember/distributed.h"
#include "ember/ember.h"

namespace {

using namespace ember;
using clk = std::chrono::steady_clock;
constexpr int64_t kBatch = 64;

nn::Sequential make_cnn() {
  return nn::Sequential(nn::Conv2d(nn::Conv2dOptions(1, 32, 3)), nn::ReLU(), nn::MaxPool2d(nn::MaxPool2dOptions(2)),
                        nn::Conv2d(nn::Conv2dOptions(32, 64, 3)), nn::ReLU(), nn::MaxPool2d(nn::MaxPool2dOptions(2)),
                        nn::Flatten(), nn::Linear(1600, 10));
}

struct Result {
  double step_ms = 0;
  // Means over the timed steps, in ms (DDP only).
  double backward_ms = 0;         // backward's start to the grads written back
  double comm_ms = 0;             // summed over buckets: launch to finish
  double comm_overlapped_ms = 0;  // the part of comm_ms before the last gradient arrived
  double exposed_ms = 0;          // last gradient to the grads written back
  double exposed_min_ms = 0;      // the same, in the step where it was shortest (no peer to wait for)
  size_t buckets = 0;
};

// Median step time of `steps` steps after 5 warm-up steps.
Result time_steps(nn::Sequential& model, nn::parallel::DistributedDataParallelImpl* ddp, int steps) {
  manual_seed(1);
  const Tensor x = ember::randn({kBatch, 1, 28, 28}), y = ember::randint(0, 10, {kBatch});
  optim::SGD opt(model->parameters(), optim::SGDOptions(0.01));
  std::vector<double> times, exposed;
  Result r;
  for (int s = 0; s < steps + 5; ++s) {
    const auto t0 = clk::now();
    opt.zero_grad();
    const Tensor logits = ddp ? ddp->forward(x) : model->forward(x);
    ember::cross_entropy_loss(logits, y).backward();
    opt.step();
    if (s < 5) continue;
    times.push_back(std::chrono::duration<double, std::milli>(clk::now() - t0).count());
    if (!ddp) continue;
    const auto t = ddp->last_timings();
    r.backward_ms += t.end_ms;
    r.exposed_ms += t.end_ms - t.last_grad_ms;
    exposed.push_back(t.end_ms - t.last_grad_ms);
    for (const auto& b : t.buckets) {
      r.comm_ms += b.finish_ms - b.launch_ms;
      r.comm_overlapped_ms += std::max(0.0, std::min(b.finish_ms, t.last_grad_ms) - b.launch_ms);
    }
  }
  std::sort(times.begin(), times.end());
  r.step_ms = times[times.size() / 2];
  r.backward_ms /= steps;
  r.exposed_ms /= steps;
  r.comm_ms /= steps;
  r.comm_overlapped_ms /= steps;
  if (!exposed.empty()) r.exposed_min_ms = *std::min_element(exposed.begin(), exposed.end());
  if (ddp) r.buckets = ddp->bucket_indices().size();
  return r;
}

int free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

// A rank: argv = {self, config, steps, single_ms}.
int worker(char** argv) {
  const std::string config = argv[1];
  const int steps = std::atoi(argv[2]);
  const double single_ms = std::atof(argv[3]);
  set_num_threads(1);
  distributed::init_process_group("gloo");
  manual_seed(0);
  nn::Sequential model = make_cnn();
  auto opts = nn::parallel::DistributedDataParallelOptions();
  if (config == "small") opts.first_bucket_cap_mb(0.02).bucket_cap_mb(0.02);
  auto ddp = std::make_shared<nn::parallel::DistributedDataParallelImpl>(model.ptr(), opts);
  const Result r = time_steps(model, ddp.get(), steps);
  // A bare all_reduce of all the gradients (one flat buffer), for scale.
  int64_t numel = 0;
  for (const Tensor& p : model->parameters()) numel += p.numel();
  std::vector<Tensor> flat{ember::ones({numel})};
  std::vector<double> ar;
  for (int i = 0; i < 25; ++i) {
    const auto t0 = clk::now();
    distributed::resolve_group()->allreduce(flat)->wait();
    if (i >= 5) ar.push_back(std::chrono::duration<double, std::milli>(clk::now() - t0).count());
  }
  std::sort(ar.begin(), ar.end());
  if (distributed::get_rank() == 0) {
    std::printf("%-8s buckets %zu  DDP step %.2f ms  (2 processes x batch %lld)  ratio to one process %.2fx\n",
                config.c_str(), r.buckets, r.step_ms, static_cast<long long>(kBatch), r.step_ms / single_ms);
    std::printf(
        "         backward %.2f ms; all_reduce %.2f ms, of which %.2f ms (%.0f%%) before the last gradient; "
        "exposed after it %.2f ms (%.2f ms in the step where it was least)\n",
        r.backward_ms, r.comm_ms, r.comm_overlapped_ms, r.comm_ms > 0 ? 100.0 * r.comm_overlapped_ms / r.comm_ms : 0.0,
        r.exposed_ms, r.exposed_min_ms);
    std::printf("         a bare all_reduce of the %lld gradients (%.0f KB), idle otherwise: %.2f ms\n",
                static_cast<long long>(numel), static_cast<double>(numel) * 4 / 1024, ar[ar.size() / 2]);
    std::fflush(stdout);
  }
  distributed::destroy_process_group();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (std::getenv("WORLD_SIZE")) return worker(argv);
  const int steps = argc > 1 ? std::atoi(argv[1]) : 30;
  set_num_threads(1);
  manual_seed(0);
  nn::Sequential model = make_cnn();
  const Result single = time_steps(model, nullptr, steps);
  std::printf("one process, batch %lld, 1 thread: step %.2f ms\n", static_cast<long long>(kBatch), single.step_ms);
  std::fflush(stdout);
  for (const char* config : {"default", "small"}) {
    const std::string port = std::to_string(free_port());
    std::string self = "/proc/self/exe", cfg = config, n = std::to_string(steps),
                single_ms = std::to_string(single.step_ms);
    std::vector<pid_t> pids;
    for (int r = 0; r < 2; ++r) {
      const pid_t pid = fork();
      if (pid == 0) {
        const std::string rank = std::to_string(r);
        setenv("RANK", rank.c_str(), 1);
        setenv("LOCAL_RANK", rank.c_str(), 1);
        setenv("WORLD_SIZE", "2", 1);
        setenv("LOCAL_WORLD_SIZE", "2", 1);
        setenv("MASTER_ADDR", "127.0.0.1", 1);
        setenv("MASTER_PORT", port.c_str(), 1);
        std::vector<char*> args{self.data(), cfg.data(), n.data(), single_ms.data(), nullptr};
        execv("/proc/self/exe", args.data());
        _exit(127);
      }
      pids.push_back(pid);
    }
    int failed = 0;
    for (pid_t p : pids) {
      int status = 0;
      waitpid(p, &status, 0);
      failed += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    if (failed) {
      std::fprintf(stderr, "bench_ddp: %d rank(s) failed (%s)\n", failed, config);
      return 1;
    }
  }
  return 0;
}
