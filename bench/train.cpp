// The small CNN's training step beside LibTorch 1.13 in the same process (perf-anchors.md §7):
// conv 1->32 3x3, ReLU, max-pool 2, conv 32->64 3x3, ReLU, max-pool 2, linear 1600->10, cross
// entropy, SGD (lr 0.01), batch 64 of 28x28. A step is zero_grad, forward, loss, backward, update.
//   bench_train [threads]     Ember's nn::Module model and LibTorch's torch::nn model, same weights
//   bench_train profile ember|torch SECONDS [threads]   one framework's step alone, for perf record
//   bench_train rss ember|torch [steps]    peak resident memory of a process training one framework
#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <sys/resource.h>
#include <functional>
#include <string>
#include <vector>

#include "BenchUtil.h"
#include "ember/ember.h"

namespace {

constexpr int64_t kBatch = 64;
constexpr double kLr = 0.01;

// The weights, PyTorch's layouts, deterministic (uniform in nn's default init ranges).
struct Weights {
  std::vector<std::vector<float>> p;
  std::vector<std::vector<int64_t>> shapes;
  std::vector<float> x;
  std::vector<int64_t> target;
};

Weights make_weights() {
  Weights w;
  const std::vector<std::vector<int64_t>> shapes = {{32, 1, 3, 3}, {32}, {64, 32, 3, 3}, {64}, {10, 1600}, {10}};
  const int64_t fan_in[] = {9, 9, 288, 288, 1600, 1600};
  for (size_t i = 0; i < shapes.size(); ++i) {
    int64_t n = 1;
    for (auto s : shapes[i]) n *= s;
    std::vector<float> v(static_cast<size_t>(n));
    bench::fill_random(v.data(), n, 31u + static_cast<unsigned>(i));
    const float bound = 2.0f / std::sqrt(static_cast<float>(fan_in[i]));
    for (float& f : v) f *= bound;
    w.p.push_back(std::move(v));
    w.shapes.push_back(shapes[i]);
  }
  w.x.resize(static_cast<size_t>(kBatch * 28 * 28));
  bench::fill_random(w.x.data(), static_cast<int64_t>(w.x.size()), 5u);
  for (int64_t i = 0; i < kBatch; ++i) w.target.push_back((i * 3 + 1) % 10);
  return w;
}

// The same formulation in both frameworks: functional ops, cross entropy as log_softmax + gather.
template <class T, class NoGrad, class Ops>
struct Cnn {
  std::vector<T> p;
  T x, target;  // target int64 [batch, 1]
  T forward_loss() const {
    T h = Ops::max_pool2d(Ops::relu(Ops::conv2d(x, p[0], p[1])));
    h = Ops::max_pool2d(Ops::relu(Ops::conv2d(h, p[2], p[3])));
    T logits = Ops::linear(h.reshape({kBatch, 1600}), p[4], p[5]);
    return Ops::log_softmax(logits, 1).gather(1, target).mean().neg();
  }
  void step() {
    T loss = forward_loss();
    loss.backward();
    NoGrad g;
    for (auto& q : p) {
      q.sub_(q.grad(), kLr);
      q.grad().zero_();
    }
  }
};

struct EmberOps {
  using T = ember::Tensor;
  static T conv2d(const T& x, const T& w, const T& b) { return ember::conv2d(x, w, b); }
  static T relu(const T& x) { return ember::relu(x); }
  static T max_pool2d(const T& x) { return ember::max_pool2d(x, {2, 2}); }
  static T linear(const T& x, const T& w, const T& b) { return ember::linear(x, w, b); }
  static T log_softmax(const T& x, int64_t d) { return ember::log_softmax(x, d); }
};
struct TorchOps {
  using T = at::Tensor;
  static T conv2d(const T& x, const T& w, const T& b) { return at::conv2d(x, w, b); }
  static T relu(const T& x) { return at::relu(x); }
  static T max_pool2d(const T& x) { return at::max_pool2d(x, {2, 2}); }
  static T linear(const T& x, const T& w, const T& b) { return at::linear(x, w, b); }
  static T log_softmax(const T& x, int64_t d) { return at::log_softmax(x, d); }
};
using EmberCnn = Cnn<ember::Tensor, ember::NoGradGuard, EmberOps>;
using TorchCnn = Cnn<at::Tensor, at::NoGradGuard, TorchOps>;

template <class M>
M make_cnn(Weights& w) {
  M m;
  auto from = [](void* data, std::vector<int64_t> shape, bool int64) {
    if constexpr (std::is_same_v<M, EmberCnn>)
      return ember::from_blob(data, shape, int64 ? ember::kInt64 : ember::kFloat32).clone();
    else
      return at::from_blob(data, shape, int64 ? at::kLong : at::kFloat).clone();
  };
  for (size_t i = 0; i < w.p.size(); ++i) m.p.push_back(from(w.p[i].data(), w.shapes[i], false).requires_grad_());
  m.x = from(w.x.data(), {kBatch, 1, 28, 28}, false);
  m.target = from(w.target.data(), {kBatch, 1}, true);
  return m;
}

void run(int threads) {
  Weights w = make_weights();
  EmberCnn em = make_cnn<EmberCnn>(w);
  TorchCnn tm = make_cnn<TorchCnn>(w);
  const double le = em.forward_loss().item<double>(), lt = tm.forward_loss().item<double>();
  for (int i = 0; i < 3; ++i) {
    em.step();
    tm.step();
  }
  const double le3 = em.forward_loss().item<double>(), lt3 = tm.forward_loss().item<double>();
  std::printf("CNN loss, start / after 3 SGD steps: Ember %.6f / %.6f, LibTorch %.6f / %.6f\n", le, le3, lt, lt3);
  const bench::Times te = bench::measure([&] { em.step(); }), tt = bench::measure([&] { tm.step(); });
  const double target = threads == 1 ? 8.0 : threads == 2 ? 4.5 : 0;
  std::printf("CNN train step, batch 64, %d thread(s), ms (best / median):\n", threads);
  std::printf("  Ember    %7.3f / %7.3f\n  LibTorch %7.3f / %7.3f\n  ratio    %7.2f (best)   target %.1f ms: %s\n",
              te.best * 1e3, te.median * 1e3, tt.best * 1e3, tt.median * 1e3, te.best / tt.best, target,
              target == 0               ? "-"
              : te.best * 1e3 <= target ? "met"
                                        : "MISSED");
}

double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

// Steps for `seconds`; the calling thread's CPU time per step is what one thread costs even on a
// busy machine. which: "ember" or "torch".
int profile(const std::string& which, double seconds) {
  Weights w = make_weights();
  EmberCnn em = make_cnn<EmberCnn>(w);
  TorchCnn tm = make_cnn<TorchCnn>(w);
  const std::function<void()> step = [&] { which == "torch" ? tm.step() : em.step(); };
  step();
  long n = 0;
  const double c0 = thread_cpu_ms();
  auto t0 = bench::clk::now();
  while (std::chrono::duration<double>(bench::clk::now() - t0).count() < seconds) {
    step();
    ++n;
  }
  std::printf("%s: %ld steps, %.3f ms per step, %.3f ms of this thread's CPU per step\n", which.c_str(), n,
              std::chrono::duration<double, std::milli>(bench::clk::now() - t0).count() / static_cast<double>(n),
              (thread_cpu_ms() - c0) / static_cast<double>(n));
  return 0;
}

// Peak resident memory of a process that runs `steps` steps of one framework's model only (the
// other's library is loaded but idle): run once per framework, each in its own process.
int rss(const std::string& which, int steps) {
  Weights w = make_weights();
  if (which == "torch") {
    TorchCnn tm = make_cnn<TorchCnn>(w);
    for (int i = 0; i < steps; ++i) tm.step();
  } else {
    EmberCnn em = make_cnn<EmberCnn>(w);
    for (int i = 0; i < steps; ++i) em.step();
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  std::printf("%s: peak resident memory after %d steps: %.1f MiB\n", which.c_str(), steps,
              static_cast<double>(ru.ru_maxrss) / 1024.0);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 2 && std::string(argv[1]) == "rss") return rss(argv[2], argc > 3 ? std::atoi(argv[3]) : 50);
  const bool prof = argc > 2 && std::string(argv[1]) == "profile";
  const int threads = prof ? (argc > 4 ? std::atoi(argv[4]) : 1) : argc > 1 ? std::atoi(argv[1]) : 1;
  at::set_num_threads(threads);
  ember::set_num_threads(threads);
  if (prof) return profile(argv[2], argc > 3 ? std::atof(argv[3]) : 5.0);
  run(threads);
  return 0;
}
