// ConvNeXt blocks (depthwise 7x7 conv, LayerNorm, pointwise MLP with 4x expansion, layer scale,
// residual) whose MLPs are tensor-parallel on a 1-D DeviceMesh: the first linear's weight is
// Shard(0) (column parallel: each rank computes its slice of the hidden units), the second's
// Shard(1) (row parallel: each rank's product is a Partial sum, all-reduced). Everything else is
// replicated. Each rank also runs the same model whole, on one process, and the program checks
// that the loss and every gradient agree, then that three SGD steps keep them together.
//
// Without RANK in the environment the program starts 2 copies of itself as ranks (torchrun's
// variables, a deadline) and exits non-zero if either fails; under `ember run` it is one rank.
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "ember/distributed.h"
#include "ember/ember.h"

extern char** environ;

namespace dist = ember::distributed;
using ember::Tensor;

// The tensor-parallel view of one block's MLP: its parameters as DTensors.
struct TensorParallelMlp {
  dist::DeviceMesh mesh;
  dist::DTensor w1, b1, w2, b2;
};

struct BlockImpl : ember::nn::Module {
  explicit BlockImpl(int64_t dim) {
    dwconv = register_module("dwconv", ember::nn::Conv2d(ember::nn::Conv2dOptions(dim, dim, 7).padding(3).groups(dim)));
    norm = register_module("norm", ember::nn::LayerNorm(ember::nn::LayerNormOptions({dim}).eps(1e-6)));
    pwconv1 = register_module("pwconv1", ember::nn::Linear(dim, 4 * dim));
    pwconv2 = register_module("pwconv2", ember::nn::Linear(4 * dim, dim));
    gamma = register_parameter("gamma", ember::full({dim}, 0.5));  // layer scale
  }
  Tensor forward(const Tensor& x) {
    Tensor y = norm(dwconv(x).permute({0, 2, 3, 1}));  // channels last for the MLP
    if (tp) {
      // The activations are replicated; the hidden units are sharded, the output partial.
      dist::DTensor h = dist::DTensor::from_local(y, tp->mesh, {dist::Replicate()});
      h = dist::gelu(dist::linear(h, tp->w1, tp->b1));
      y = dist::linear(h, tp->w2, tp->b2).full_tensor();
    } else {
      y = pwconv2(ember::gelu(pwconv1(y)));
    }
    return x + (y * gamma).permute({0, 3, 1, 2});
  }
  ember::nn::Conv2d dwconv{nullptr};
  ember::nn::LayerNorm norm{nullptr};
  ember::nn::Linear pwconv1{nullptr}, pwconv2{nullptr};
  Tensor gamma;
  std::optional<TensorParallelMlp> tp;
};
EMBER_MODULE(Block);

struct ConvNeXtImpl : ember::nn::Module {
  ConvNeXtImpl(int64_t dim, int64_t depth, int64_t classes) {
    stem = register_module("stem", ember::nn::Conv2d(ember::nn::Conv2dOptions(3, dim, 2).stride(2)));
    blocks = register_module("blocks", ember::nn::ModuleList());
    for (int64_t i = 0; i < depth; ++i) blocks->push_back(Block(dim));
    head = register_module("head", ember::nn::Linear(dim, classes));
  }
  Tensor forward(Tensor x) {
    x = stem(x);
    for (const auto& b : *blocks) x = b->as<BlockImpl>()->forward(x);
    return head(x.mean({2, 3}));
  }
  ember::nn::Conv2d stem{nullptr};
  ember::nn::ModuleList blocks{nullptr};
  ember::nn::Linear head{nullptr};
};
EMBER_MODULE(ConvNeXt);

namespace {

constexpr int64_t kDim = 8, kDepth = 2, kClasses = 5, kBatch = 4;

ConvNeXt make_model() {
  ember::manual_seed(0);  // the same initial parameters on every rank and for the reference
  return ConvNeXt(kDim, kDepth, kClasses);
}

double max_diff(const Tensor& a, const Tensor& b) { return (a - b).abs().max().item<double>(); }

int run_rank() {
  dist::init_process_group("gloo");
  const int rank = dist::get_rank(), world = dist::get_world_size();
  dist::DeviceMesh mesh = dist::init_device_mesh("cpu", {world}, {"tp"});

  ConvNeXt model = make_model();
  ConvNeXt reference = make_model();
  // The MLPs' linears are sharded; every other parameter is replicated.
  auto dm = dist::distribute_module(model.ptr(), mesh,
                                    [](const std::string& name, ember::nn::Module&, const dist::DeviceMesh&) {
                                      std::map<std::string, dist::Placements> plan;
                                      if (name.ends_with("pwconv1"))
                                        plan = {{"weight", {dist::Shard(0)}}, {"bias", {dist::Shard(0)}}};
                                      if (name.ends_with("pwconv2")) plan = {{"weight", {dist::Shard(1)}}};
                                      return plan;
                                    });
  for (int64_t i = 0; i < kDepth; ++i) {
    std::string p = "blocks." + std::to_string(i) + ".";
    model->blocks->ptr<BlockImpl>(i)->tp =
        TensorParallelMlp{mesh, dm.parameter(p + "pwconv1.weight"), dm.parameter(p + "pwconv1.bias"),
                          dm.parameter(p + "pwconv2.weight"), dm.parameter(p + "pwconv2.bias")};
  }
  if (rank == 0)
    std::printf("mesh %s; blocks.0.pwconv1.weight: global [%lld, %lld] as %s, local [%lld, %lld]\n",
                mesh.to_string().c_str(), (long long)dm.parameter("blocks.0.pwconv1.weight").size(0),
                (long long)dm.parameter("blocks.0.pwconv1.weight").size(1),
                dist::to_string(dm.parameter("blocks.0.pwconv1.weight").placements()).c_str(),
                (long long)model->blocks->ptr<BlockImpl>(0)->pwconv1->weight.size(0),
                (long long)model->blocks->ptr<BlockImpl>(0)->pwconv1->weight.size(1));

  ember::optim::SGD opt(model->parameters(), ember::optim::SGDOptions(0.1));
  ember::optim::SGD ref_opt(reference->parameters(), ember::optim::SGDOptions(0.1));
  auto ref_params = reference->named_parameters();
  double worst = 0;
  for (int step = 0; step < 3; ++step) {
    ember::manual_seed(100 + step);  // the same batch on every rank
    Tensor x = ember::randn({kBatch, 3, 16, 16});
    Tensor target = ember::randint(kClasses, {kBatch});
    opt.zero_grad();
    ref_opt.zero_grad();
    Tensor loss = ember::nn::functional::cross_entropy(model->forward(x), target);
    Tensor ref_loss = ember::nn::functional::cross_entropy(reference->forward(x), target);
    loss.backward();
    ref_loss.backward();
    // Every gradient against the reference's, sharded ones against their slice of it.
    double grad_err = 0;
    for (const auto& e : dm.parameters) {
      const Tensor& want = ref_params[e.key()].grad();
      grad_err = std::max(grad_err, max_diff(e.value().grad().full_tensor(), want));
    }
    double loss_err = std::abs(loss.item<double>() - ref_loss.item<double>());
    worst = std::max({worst, grad_err, loss_err});
    if (rank == 0)
      std::printf("step %d  loss %.6f (single process %.6f)  max gradient difference %.2e\n", step, loss.item<double>(),
                  ref_loss.item<double>(), grad_err);
    opt.step();
    ref_opt.step();
  }
  double param_err = 0;
  for (const auto& e : dm.parameters)
    param_err = std::max(param_err, max_diff(e.value().full_tensor(), ref_params[e.key()]));
  worst = std::max(worst, param_err);
  if (rank == 0) std::printf("after 3 SGD steps: max parameter difference %.2e\n", param_err);
  dist::destroy_process_group();
  if (worst > 1e-4) {
    std::printf("rank %d FAILED: the tensor-parallel model differs from the single-process one by %.2e\n", rank, worst);
    return 1;
  }
  return 0;
}

int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  int port = 29500;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  close(fd);
  return port;
}

// Starts `world` copies of this program as ranks and waits for them (killing them at a deadline).
int launch(int world) {
  const char* self = "/proc/self/exe";
  const std::string port = std::to_string(free_port());
  std::vector<pid_t> pids;
  for (int r = 0; r < world; ++r) {
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e) env.emplace_back(*e);
    for (std::string kv :
         {"RANK=" + std::to_string(r), "LOCAL_RANK=" + std::to_string(r), "WORLD_SIZE=" + std::to_string(world),
          "LOCAL_WORLD_SIZE=" + std::to_string(world), std::string("MASTER_ADDR=127.0.0.1"), "MASTER_PORT=" + port})
      env.push_back(kv);
    std::vector<char*> cenv;
    for (auto& e : env) cenv.push_back(e.data());
    cenv.push_back(nullptr);
    char* argv[] = {const_cast<char*>(self), nullptr};
    pid_t pid = -1;
    if (posix_spawn(&pid, self, nullptr, nullptr, argv, cenv.data()) != 0) {
      std::perror("posix_spawn");
      for (pid_t p : pids) kill(p, SIGKILL);
      return 1;
    }
    pids.push_back(pid);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(150);
  int failed = 0;
  for (size_t r = 0; r < pids.size(); ++r) {
    int status = 0;
    while (waitpid(pids[r], &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        std::printf("rank %zu did not finish in time: stopping every rank\n", r);
        for (pid_t p : pids) kill(p, SIGKILL);
        waitpid(pids[r], &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::printf("rank %zu failed (status %d)\n", r, status);
      failed = 1;
    }
  }
  return failed;
}

}  // namespace

int main() {
  if (!dist::is_gloo_available()) {
    std::printf("skipped: this Ember has no Gloo backend\n");
    return 77;
  }
  if (!std::getenv("RANK")) return launch(2);
  try {
    return run_rank();
  } catch (const std::exception& e) {
    std::printf("rank %s: %s\n", std::getenv("RANK"), e.what());
    return 1;
  }
}
