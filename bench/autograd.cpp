// bench/autograd: the cost of recording a graph and of running backward, beside LibTorch 1.13 in the
// same process. Reported as best / median and the ratio Ember / LibTorch of the best figures.
//   bench_autograd [threads]   threads = 1 (default): small ops, the engine on a 10,000-node chain and
//                              the MLP training step; threads > 1: the MLP step only.
//   bench_autograd profile WHAT [seconds] [threads]   Ember's side of one benchmark alone, for perf;
//                              with BENCH_TRACE_NEW=1, the call stack of each operator new in one call.
//   scripts/bench.sh           (builds with -DEMBER_BUILD_BENCH=ON and runs pinned to one core)
// Allocation counts are operator new calls made on this thread (this binary replaces operator new for
// both frameworks); tensor data is not counted (Ember's caching allocator, LibTorch's posix_memalign).
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include <dlfcn.h>
#include <execinfo.h>
#include <sys/resource.h>
#include <time.h>

#include "BenchUtil.h"
#include "ember/ember.h"

// GCC pairs inlined library `new` with this file's free-based delete and warns; both go through
// malloc/free here.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace {
// Plain thread-local counter: no atomic on the timed paths (local-exec TLS in the executable).
thread_local long t_news = 0;
// Profile mode with BENCH_TRACE_NEW=1: the call stack of every operator new in one call.
thread_local bool t_trace_new = false;

void trace_new(size_t n) {
  t_trace_new = false;  // backtrace may allocate
  void* frames[10];
  const int k = backtrace(frames, 10);
  std::fprintf(stderr, "operator new(%zu)\n", n);
  for (int i = 1; i < k; ++i) {  // object and offset: addr2line -f -C -e OBJECT OFFSET (hidden symbols too)
    Dl_info info;
    if (dladdr(frames[i], &info) && info.dli_fname)
      std::fprintf(stderr, "  %s 0x%zx\n", info.dli_fname,
                   static_cast<size_t>(static_cast<char*>(frames[i]) - static_cast<char*>(info.dli_fbase)) - 1);
  }
  t_trace_new = true;
}
}  // namespace

void* operator new(size_t n) {
  ++t_news;
  if (t_trace_new) trace_new(n);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }

namespace {

using clk = std::chrono::steady_clock;

struct Result {
  double best, median;  // wall clock, per unit (ns per call, ns per node, s per step)
  double cpu_best = 0;  // this thread's CPU time (immune to other processes taking the core)
};

Result summarize(std::vector<double> v, std::vector<double> cpu = {}) {
  std::sort(v.begin(), v.end());
  return {v.front(), v[v.size() / 2], cpu.empty() ? 0 : *std::min_element(cpu.begin(), cpu.end())};
}

double thread_cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

long minor_faults() {
  rusage u;
  getrusage(RUSAGE_THREAD, &u);
  return u.ru_minflt;
}

// ns per call of f (which runs `n` calls), best and median of 9 repetitions of ~0.2 s (after a
// calibration that warms up).
Result measure_ns(const std::function<void(long)>& f) {
  const long n = bench::calibrate_calls(f, 1);
  std::vector<double> v, cpu;
  for (int r = 0; r < 9; ++r) {
    const double c0 = thread_cpu_ns();
    auto t0 = clk::now();
    f(n);
    v.push_back(std::chrono::duration<double, std::nano>(clk::now() - t0).count() / static_cast<double>(n));
    cpu.push_back((thread_cpu_ns() - c0) / static_cast<double>(n));
  }
  return summarize(v, cpu);
}

// operator new calls per call of f.
double news_per_call(const std::function<void(long)>& f, long n = 1000) {
  f(10);
  const long before = t_news;
  f(n);
  return static_cast<double>(t_news - before) / static_cast<double>(n);
}

template <class T>
void keep(T&& v) {
  asm volatile("" : : "g"(&v) : "memory");
}

struct Row {
  std::string what;
  Result e, t;
  double target;  // in the row's unit; 0: none
  double news_e = -1, news_t = -1;
};

void print_rows(const char* title, const char* unit, double scale, const std::vector<Row>& rows) {
  std::printf("%-50s %19s %19s %6s %8s %19s %13s\n", title, "Ember best / med", "LibTorch best / med", "ratio",
              "target", "cpu time best: E / T", "new: E / T");
  for (auto& r : rows) {
    char tgt[24] = "-", news[32] = "", cpu[48] = "";
    if (r.target > 0) std::snprintf(tgt, sizeof tgt, "<=%.4g", r.target);
    if (r.news_e >= 0) std::snprintf(news, sizeof news, "%5.1f / %5.1f", r.news_e, r.news_t);
    if (r.e.cpu_best > 0) std::snprintf(cpu, sizeof cpu, "%8.4g / %8.4g", r.e.cpu_best * scale, r.t.cpu_best * scale);
    std::printf("%-50s %9.4g / %7.4g %9.4g / %7.4g %6.2f %8s %19s %13s%s\n", r.what.c_str(), r.e.best * scale,
                r.e.median * scale, r.t.best * scale, r.t.median * scale, r.e.best / r.t.best, tgt, cpu, news,
                r.target > 0 && r.e.best * scale > r.target ? "  MISSED" : "");
  }
  std::printf("(unit: %s)\n\n", unit);
}

// ---- 1, 2: one recorded op, and a tiny backward ----

void small_ops() {
  at::Tensor ta = at::ones({1}), tb = at::ones({1});
  ember::Tensor ea = ember::ones({1}), eb = ember::ones({1});
  at::Tensor tga = at::ones({1}).requires_grad_(), tgb = at::ones({1}).requires_grad_();
  ember::Tensor ega = ember::ones({1}).requires_grad_(), egb = ember::ones({1}).requires_grad_();

  auto e_add = [&](long n) {
    for (long i = 0; i < n; ++i) keep(ember::add(ea, eb));
  };
  auto t_add = [&](long n) {
    for (long i = 0; i < n; ++i) keep(at::add(ta, tb));
  };
  auto e_gadd = [&](long n) {
    for (long i = 0; i < n; ++i) keep(ember::add(ega, egb));
  };
  auto t_gadd = [&](long n) {
    for (long i = 0; i < n; ++i) keep(at::add(tga, tgb));
  };
  auto e_gmul = [&](long n) {
    for (long i = 0; i < n; ++i) keep(ember::mul(ega, egb));
  };
  auto t_gmul = [&](long n) {
    for (long i = 0; i < n; ++i) keep(at::mul(tga, tgb));
  };
  // The gradients accumulate into a.grad and b.grad from the second call on (as LibTorch's anchor).
  auto e_bwd = [&](long n) {
    for (long i = 0; i < n; ++i) ember::add(ega, egb).sum().backward();
  };
  auto t_bwd = [&](long n) {
    for (long i = 0; i < n; ++i) at::add(tga, tgb).sum().backward();
  };

  std::vector<Row> rows;
  auto row = [&](const char* what, auto& fe, auto& ft, double target) {
    Row r{what, measure_ns(fe), measure_ns(ft), target};
    r.news_e = news_per_call(fe);
    r.news_t = news_per_call(ft);
    rows.push_back(r);
  };
  row("add, 1-element tensors, no grad", e_add, t_add, 0);
  row("add, 1-element, requires grad (records AddBackward0)", e_gadd, t_gadd, 576);
  row("mul, 1-element, requires grad (saves both inputs)", e_gmul, t_gmul, 0);
  row("y = add(a, b).sum(); y.backward()", e_bwd, t_bwd, 4900);
  print_rows("1 thread", "ns per call; target 0.5x LibTorch's anchor", 1.0, rows);
  std::printf("recording a node costs: Ember %+.0f ns, LibTorch %+.0f ns (add with grad - add without)\n\n",
              rows[1].e.best - rows[0].e.best, rows[1].t.best - rows[0].t.best);
}

// ---- 3: the engine on a long chain of scalar ops ----

constexpr int kChain = 10000;

struct ChainTimes {
  Result build, backward, total;  // ns per node
  double news_build, news_backward;
  double faults;  // minor page faults per node, build + backward (freed heap returned to the kernel)
};

// `step(x)` makes the next link; the chain ends at a 1-element tensor whose backward needs no
// gradient argument. backward is timed until the graph is gone (Ember frees it as it goes, LibTorch
// when the last handle drops), so both include freeing it.
template <class T, class Step>
ChainTimes time_chain(const T& leaf, Step step) {
  std::vector<double> build, bwd, total, cbuild, cbwd, ctotal;
  double news_build = 0, news_bwd = 0;
  long faults = 0;
  constexpr int kReps = 16;
  for (int r = 0; r < kReps; ++r) {
    const long n0 = t_news, f0 = minor_faults();
    const double c0 = thread_cpu_ns();
    auto t0 = clk::now();
    T x = leaf;
    for (int i = 0; i < kChain; ++i) x = step(x);
    auto t1 = clk::now();
    const double c1 = thread_cpu_ns();
    const long n1 = t_news;
    x.backward();
    x = T();
    auto t2 = clk::now();
    const double c2 = thread_cpu_ns();
    const long n2 = t_news;
    if (r == 0) continue;  // warm-up
    faults += minor_faults() - f0;
    build.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / kChain);
    bwd.push_back(std::chrono::duration<double, std::nano>(t2 - t1).count() / kChain);
    total.push_back(std::chrono::duration<double, std::nano>(t2 - t0).count() / kChain);
    cbuild.push_back((c1 - c0) / kChain);
    cbwd.push_back((c2 - c1) / kChain);
    ctotal.push_back((c2 - c0) / kChain);
    news_build = static_cast<double>(n1 - n0) / kChain;
    news_bwd = static_cast<double>(n2 - n1) / kChain;
  }
  return {summarize(build, cbuild),
          summarize(bwd, cbwd),
          summarize(total, ctotal),
          news_build,
          news_bwd,
          static_cast<double>(faults) / (kReps - 1) / kChain};
}

void chain() {
  ember::Tensor ex = ember::ones({1}).requires_grad_(), ec = ember::full({1}, 1.0001);
  at::Tensor tx = at::ones({1}).requires_grad_(), tc = at::full({1}, 1.0001);
  std::vector<Row> rows;
  auto add_rows = [&](const char* op, const ChainTimes& e, const ChainTimes& t) {
    rows.push_back({std::string(op) + ": build (forward, records)", e.build, t.build, 0, e.news_build, t.news_build});
    rows.push_back({std::string(op) + ": backward (engine, frees graph)", e.backward, t.backward, 1000, e.news_backward,
                    t.news_backward});
    rows.push_back({std::string(op) + ": build + backward", e.total, t.total, 0});
    std::printf("%s: minor page faults per node: Ember %.3f, LibTorch %.3f\n", op, e.faults, t.faults);
  };
  {
    auto e = time_chain(ex, [&](const ember::Tensor& x) { return ember::mul(x, ec); });
    auto t = time_chain(tx, [&](const at::Tensor& x) { return at::mul(x, tc); });
    add_rows("x = x * c", e, t);
    std::printf(
        "chain check: x.grad, d/dx of x * c^%d accumulated over 16 runs: Ember %.6g, LibTorch %.6g, exact %.6g\n",
        kChain, ex.grad().item<double>(), tx.grad().item<double>(), 16 * std::pow(1.0001f, kChain));
  }
  {
    auto e = time_chain(ex, [&](const ember::Tensor& x) { return ember::add(x, ec); });
    auto t = time_chain(tx, [&](const at::Tensor& x) { return at::add(x, tc); });
    add_rows("x = x + c", e, t);
  }
  char title[64];
  std::snprintf(title, sizeof title, "%d-node chain, 1 thread", kChain);
  print_rows(title, "ns per node; new = operator new calls per node", 1.0, rows);
}

// ---- 4: MLP training step, 784-512-512-10, ReLU, cross entropy, SGD ----

constexpr int64_t kBatch = 64, kIn = 784, kHidden = 512, kOut = 10;
constexpr double kLr = 0.01;

struct MlpData {
  std::vector<std::vector<float>> params;  // w1 b1 w2 b2 w3 b3, PyTorch's layout (w: [out, in])
  std::vector<std::vector<int64_t>> shapes;
  std::vector<float> x;
  std::vector<int64_t> target;
};

MlpData make_mlp_data() {
  MlpData d;
  const int64_t dims[] = {kIn, kHidden, kHidden, kOut};
  for (int l = 0; l < 3; ++l) {
    const float bound = 1.0f / std::sqrt(static_cast<float>(dims[l]));  // nn.Linear's init range
    std::vector<float> w(static_cast<size_t>(dims[l + 1] * dims[l])), b(static_cast<size_t>(dims[l + 1]));
    bench::fill_random(w.data(), static_cast<int64_t>(w.size()), 11u + l);
    bench::fill_random(b.data(), static_cast<int64_t>(b.size()), 23u + l);
    for (float& v : w) v *= 2 * bound;
    for (float& v : b) v *= 2 * bound;
    d.params.push_back(std::move(w));
    d.shapes.push_back({dims[l + 1], dims[l]});
    d.params.push_back(std::move(b));
    d.shapes.push_back({dims[l + 1]});
  }
  d.x.resize(static_cast<size_t>(kBatch * kIn));
  bench::fill_random(d.x.data(), kBatch * kIn, 7u);
  for (int64_t i = 0; i < kBatch; ++i) d.target.push_back((i * 7 + 3) % kOut);
  return d;
}

// One formulation for both frameworks (Ember has no nn yet): addmm, relu, log_softmax, and the
// cross entropy as the mean of the gathered log-probabilities; SGD as LibTorch's optimizer does it
// (p -= lr * grad through add_'s alpha; the grads zeroed in place).
template <class T, class NoGrad, class F>
struct Mlp {
  std::vector<T> p;
  T x, target;  // target: int64 [batch, 1]
  F ops;
  bool in_out = false;  // weights stored [in, out]: no transposed views, so contiguous weight gradients

  T w(size_t i) const { return in_out ? p[i] : p[i].t(); }
  T forward_loss() const {
    T h = ops.relu(ops.addmm(p[1], x, w(0)));
    h = ops.relu(ops.addmm(p[3], h, w(2)));
    T logits = ops.addmm(p[5], h, w(4));
    return ops.log_softmax(logits, 1).gather(1, target).mean().neg();
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
  static ember::Tensor relu(const ember::Tensor& a) { return ember::relu(a); }
  static ember::Tensor addmm(const ember::Tensor& b, const ember::Tensor& x, const ember::Tensor& w) {
    return ember::addmm(b, x, w);
  }
  static ember::Tensor log_softmax(const ember::Tensor& a, int64_t d) { return ember::log_softmax(a, d); }
};
struct TorchOps {
  static at::Tensor relu(const at::Tensor& a) { return at::relu(a); }
  static at::Tensor addmm(const at::Tensor& b, const at::Tensor& x, const at::Tensor& w) { return at::addmm(b, x, w); }
  static at::Tensor log_softmax(const at::Tensor& a, int64_t d) { return at::log_softmax(a, d); }
};

// LibTorch's idiomatic spelling: at::linear and at::cross_entropy_loss (nll_loss's fused kernels).
struct TorchIdiomatic {
  std::vector<at::Tensor> p;
  at::Tensor x, target;  // target: int64 [batch]
  at::Tensor forward_loss() const {
    at::Tensor h = at::relu(at::linear(x, p[0], p[1]));
    h = at::relu(at::linear(h, p[2], p[3]));
    return at::cross_entropy_loss(at::linear(h, p[4], p[5]), target);
  }
  void step() {
    at::Tensor loss = forward_loss();
    loss.backward();
    at::NoGradGuard g;
    for (auto& q : p) {
      q.sub_(q.grad(), kLr);
      q.mutable_grad().zero_();
    }
  }
};

using EmberMlp = Mlp<ember::Tensor, ember::NoGradGuard, EmberOps>;
using TorchMlp = Mlp<at::Tensor, at::NoGradGuard, TorchOps>;

// The model on d's data; in_out: weights stored transposed ([in, out], the same values).
template <class M>
M make_mlp(MlpData& d, bool in_out) {
  M m;
  m.in_out = in_out;
  auto from = [](void* data, std::vector<int64_t> shape, bool int64) {
    if constexpr (std::is_same_v<M, EmberMlp>)
      return ember::from_blob(data, shape, int64 ? ember::kInt64 : ember::kFloat32).clone();
    else
      return at::from_blob(data, shape, int64 ? at::kLong : at::kFloat).clone();
  };
  for (size_t i = 0; i < d.params.size(); ++i) {
    auto t = from(d.params[i].data(), d.shapes[i], false);
    if (in_out && t.dim() == 2) t = t.t().contiguous();
    m.p.push_back(t.requires_grad_());
  }
  m.x = from(d.x.data(), {kBatch, kIn}, false);
  m.target = from(d.target.data(), {kBatch, 1}, true);
  return m;
}

void mlp(int threads) {
  MlpData d = make_mlp_data();
  EmberMlp em = make_mlp<EmberMlp>(d, false), em_io = make_mlp<EmberMlp>(d, true);
  TorchMlp tm = make_mlp<TorchMlp>(d, false), tm_io = make_mlp<TorchMlp>(d, true);
  TorchIdiomatic ti;
  for (size_t i = 0; i < d.params.size(); ++i)
    ti.p.push_back(at::from_blob(d.params[i].data(), d.shapes[i]).clone().requires_grad_());
  ti.x = tm.x;
  ti.target = tm.target.reshape({kBatch});

  // Seconds per step. The CPU time is this thread's: shown on one thread only.
  auto measure = [threads](const std::function<void()>& f) {
    Result r = measure_ns([&](long n) {
      for (long i = 0; i < n; ++i) f();
    });
    return Result{r.best * 1e-9, r.median * 1e-9, threads == 1 ? r.cpu_best * 1e-9 : 0};
  };
  const double target = threads == 1 ? 1.2 : threads == 2 ? 0.7 : 0;
  char title[80];
  std::snprintf(title, sizeof title, "MLP 784-512-512-10 train step, batch 64, %d thread(s)", threads);
  const char* unit = "ms per step (forward, loss, backward, SGD update, zero grads)";

  // LibTorch first, so its figures come out even where Ember lacks a derivative.
  const double lt = tm.forward_loss().item<double>(), li = ti.forward_loss().item<double>();
  for (int i = 0; i < 3; ++i) {
    tm.step();
    tm_io.step();
    ti.step();
  }
  const double lt3 = tm.forward_loss().item<double>(), li3 = ti.forward_loss().item<double>(),
               lt3_io = tm_io.forward_loss().item<double>();
  const Result rt = measure([&] { tm.step(); }), ri = measure([&] { ti.step(); });
  const Result rt_io = measure([&] { tm_io.step(); });
  const Result ft = measure([&] { keep(tm.forward_loss()); });

  double le = NAN, le3 = NAN, le3_io = NAN;
  Result re{NAN, NAN}, fe{NAN, NAN}, re_io{NAN, NAN};
  std::string missing;
  try {
    le = em.forward_loss().item<double>();
    for (int i = 0; i < 3; ++i) {
      em.step();
      em_io.step();
    }
    le3 = em.forward_loss().item<double>();
    le3_io = em_io.forward_loss().item<double>();
    re = measure([&] { em.step(); });
    re_io = measure([&] { em_io.step(); });
    fe = measure([&] { keep(em.forward_loss()); });
  } catch (const std::exception& ex) {
    missing = ex.what();
    ember::NoGradGuard g;  // the forward alone, to check the formulation meanwhile
    le = em.forward_loss().item<double>();
  }
  // Both start from the same weights and take the same steps: their losses must agree.
  std::printf(
      "MLP loss, start / after 3 SGD steps: Ember %.6f / %.6f, LibTorch %.6f / %.6f, idiomatic %.6f / %.6f; "
      "weights [in, out]: Ember %.6f, LibTorch %.6f\n",
      le, le3, lt, lt3, li, li3, le3_io, lt3_io);
  // operator new calls per step on this thread (the workers' are not counted).
  auto news = [](const std::function<void()>& f) {
    return news_per_call(
        [&](long n) {
          for (long i = 0; i < n; ++i) f();
        },
        20);
  };
  const double ne = missing.empty() ? news([&] { em.step(); }) : -1, nt = news([&] { tm.step(); });
  const double ne_f = missing.empty() ? news([&] { keep(em.forward_loss()); }) : -1,
               nt_f = news([&] { keep(tm.forward_loss()); });
  print_rows(title, unit, 1e3,
             {{"MLP step, same ops (addmm, relu, log_softmax, gather)", re, rt, target, ne, nt},
              {"  LibTorch idiomatic (linear, cross_entropy_loss)", re, ri, target, ne, news([&] { ti.step(); })},
              {"  forward + loss only (graph recorded, dropped)", fe, ft, 0, ne_f, nt_f},
              {"  weights stored [in, out] (no transposed views)", re_io, rt_io, 0}});
  if (!missing.empty()) {
    std::printf("Ember MLP step: not run: %s\n", missing.c_str());
    std::exit(1);
  }
}

// The eight matrix products of one MLP step, with the operand layouts the step gives them (a
// weight enters as the transposed view W.t(); the backward's formulas transpose activations):
// Ember's mm beside at::mm, microseconds per call on the current thread count.
void mlp_gemms() {
  struct Shape {
    const char* what;
    int64_t m, k, n;
    bool a_t, b_t;  // operand given as the transposed view of a contiguous [k, m] / [n, k]
  };
  const Shape shapes[] = {
      {"fwd  x @ W1.t()       64x784 @ 784x512", kBatch, kIn, kHidden, false, true},
      {"fwd  h1 @ W2.t()      64x512 @ 512x512", kBatch, kHidden, kHidden, false, true},
      {"fwd  h2 @ W3.t()      64x512 @ 512x10", kBatch, kHidden, kOut, false, true},
      {"bwd  g3 @ W3          64x10 @ 10x512", kBatch, kOut, kHidden, false, false},
      {"bwd  h2.t() @ g3      512x64 @ 64x10", kHidden, kBatch, kOut, true, false},
      {"bwd  g2 @ W2          64x512 @ 512x512", kBatch, kHidden, kHidden, false, false},
      {"bwd  h1.t() @ g2      512x64 @ 64x512", kHidden, kBatch, kHidden, true, false},
      {"bwd  x.t() @ g1       784x64 @ 64x512", kIn, kBatch, kHidden, true, false},
  };
  std::printf("%-42s %10s %10s %6s  (us per call, best of 9; %d thread(s))\n", "matrix product", "Ember", "LibTorch",
              "ratio", ember::get_num_threads());
  double te = 0, tt = 0;
  for (const Shape& sh : shapes) {
    std::vector<float> av(static_cast<size_t>(sh.m * sh.k)), bv(static_cast<size_t>(sh.k * sh.n));
    bench::fill_random(av.data(), sh.m * sh.k, 3u);
    bench::fill_random(bv.data(), sh.k * sh.n, 5u);
    auto a_sizes = sh.a_t ? std::vector<int64_t>{sh.k, sh.m} : std::vector<int64_t>{sh.m, sh.k};
    auto b_sizes = sh.b_t ? std::vector<int64_t>{sh.n, sh.k} : std::vector<int64_t>{sh.k, sh.n};
    ember::Tensor ea = ember::from_blob(av.data(), a_sizes).clone(), eb = ember::from_blob(bv.data(), b_sizes).clone();
    at::Tensor ta = at::from_blob(av.data(), a_sizes).clone(), tb = at::from_blob(bv.data(), b_sizes).clone();
    if (sh.a_t) ea = ea.t(), ta = ta.t();
    if (sh.b_t) eb = eb.t(), tb = tb.t();
    const Result e = measure_ns([&](long n) {
      for (long i = 0; i < n; ++i) keep(ember::mm(ea, eb));
    });
    const Result t = measure_ns([&](long n) {
      for (long i = 0; i < n; ++i) keep(at::mm(ta, tb));
    });
    std::printf("%-42s %10.1f %10.1f %6.2f\n", sh.what, e.best * 1e-3, t.best * 1e-3, e.best / t.best);
    te += e.best;
    tt += t.best;
  }
  std::printf("%-42s %10.1f %10.1f %6.2f\n", "all eight", te * 1e-3, tt * 1e-3, te / tt);
}

// `bench_autograd profile WHAT [seconds] [threads]`: Ember's side of one benchmark alone, in a loop,
// for perf record (WHAT: add, backward, chain, mlp, mlp-in-out, mlp-forward); `gemms` compares the
// step's matrix products with LibTorch's instead.
int profile(const std::string& what, double seconds) {
  if (what == "gemms") {
    mlp_gemms();
    return 0;
  }
  ember::Tensor a = ember::ones({1}).requires_grad_(), b = ember::ones({1}).requires_grad_();
  ember::Tensor c = ember::full({1}, 1.0001);
  MlpData d = make_mlp_data();
  EmberMlp em = make_mlp<EmberMlp>(d, false), em_io = make_mlp<EmberMlp>(d, true);
  std::function<void()> f;
  if (what == "add") {
    f = [&] { keep(ember::add(a, b)); };
  } else if (what == "backward") {
    f = [&] { ember::add(a, b).sum().backward(); };
  } else if (what == "chain") {
    f = [&] {
      ember::Tensor x = a;
      for (int i = 0; i < kChain; ++i) x = ember::mul(x, c);
      x.backward();
    };
  } else if (what == "mlp") {
    f = [&] { em.step(); };
  } else if (what == "mlp-in-out") {
    f = [&] { em_io.step(); };
  } else if (what == "mlp-forward") {
    f = [&] { keep(em.forward_loss()); };
  } else {
    std::fprintf(
        stderr,
        "bench_autograd profile: unknown benchmark '%s' (add, backward, chain, mlp, mlp-in-out, mlp-forward, gemms)\n",
        what.c_str());
    return 2;
  }
  if (std::getenv("BENCH_TRACE_NEW")) {
    f();  // twice: the first calls make statics and the first gradients
    f();
    t_trace_new = true;
    f();
    t_trace_new = false;
    return 0;
  }
  long calls = 0;
  const long news0 = t_news;
  auto t0 = clk::now();
  while (std::chrono::duration<double>(clk::now() - t0).count() < seconds) {
    f();
    ++calls;
  }
  std::printf("%s: %ld calls, %.4g us per call, %.1f operator new per call\n", what.c_str(), calls,
              std::chrono::duration<double, std::micro>(clk::now() - t0).count() / static_cast<double>(calls),
              static_cast<double>(t_news - news0) / static_cast<double>(calls));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const bool prof = argc > 2 && std::string(argv[1]) == "profile";
  const int threads = prof ? (argc > 4 ? std::atoi(argv[4]) : 1) : argc > 1 ? std::atoi(argv[1]) : 1;
  at::set_num_threads(threads);
  ember::set_num_threads(threads);
  ember::plugins::load("cpu");
  ember::plugins::load("autograd");
  if (prof) return profile(argv[2], argc > 3 ? std::atof(argv[3]) : 5.0);
  const char* wait = std::getenv("OMP_WAIT_POLICY");
  std::printf("threads %d (OMP_WAIT_POLICY=%s)\n\n", threads, wait ? wait : "unset");
  if (threads == 1) {
    small_ops();
    chain();
  }
  mlp(threads);
  return 0;
}
