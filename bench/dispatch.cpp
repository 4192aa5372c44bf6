// bench/dispatch: per-call cost of Ember's dispatcher and small ops, beside LibTorch 1.13 in the
// same process. One thread. Each figure: best and median ns/call over 9 repetitions of ~0.2 s.
//   scripts/bench.sh   (builds with -DEMBER_BUILD_BENCH=ON and runs pinned to one core)
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "BenchUtil.h"
#include "ember/ember.h"

// A no-op custom operator in both frameworks.
TORCH_LIBRARY(anchors, m) { m.def("noop(Tensor x) -> Tensor"); }
TORCH_LIBRARY_IMPL(anchors, CPU, m) { m.impl("noop", [](const at::Tensor& x) { return x; }); }
EMBER_LIBRARY(anchors, m) { m.def("noop(Tensor x) -> Tensor"); }
EMBER_LIBRARY_IMPL(anchors, CPU, m) { m.impl("noop", [](const ember::Tensor& x) { return x; }); }

namespace {

struct Result {
  double best, median;
};

// ns per call of f (which runs `inner` calls), best and median of 9 repetitions.
Result measure(const std::function<void(long)>& f) {
  using clk = std::chrono::steady_clock;
  const long n = bench::calibrate_calls(f, 1000);  // ~0.2 s per repetition
  std::vector<double> v;
  for (int r = 0; r < 9; ++r) {
    auto t0 = clk::now();
    f(n);
    v.push_back(std::chrono::duration<double, std::nano>(clk::now() - t0).count() / static_cast<double>(n));
  }
  std::sort(v.begin(), v.end());
  return {v.front(), v[v.size() / 2]};
}

ember::Tensor ember_noop_fn(const ember::Tensor& x) { return x; }
at::Tensor torch_noop_fn(const at::Tensor& x) { return x; }

template <class T>
void keep(T&& v) {
  asm volatile("" : : "g"(&v) : "memory");
}

}  // namespace

int main() {
  at::set_num_threads(1);
  ember::set_num_threads(1);
  ember::plugins::load("cpu");

  at::Tensor ta = at::ones({1}), tb = at::ones({1});
  ember::Tensor ea = ember::ones({1}), eb = ember::ones({1});

  // The floor: an indirect call of a no-op kernel returning a Tensor (the refcount of the result).
  ember::Tensor (*volatile efn)(const ember::Tensor&) = &ember_noop_fn;
  at::Tensor (*volatile tfn)(const at::Tensor&) = &torch_noop_fn;
  Result floor_e = measure([&](long n) { for (long i = 0; i < n; ++i) keep(efn(ea)); });
  Result floor_t = measure([&](long n) { for (long i = 0; i < n; ++i) keep(tfn(ta)); });

  auto eop = ember::Dispatcher::singleton().findSchemaOrThrow("anchors::noop", "")
                 .typed<ember::Tensor(const ember::Tensor&)>();
  auto top = c10::Dispatcher::singleton().findSchemaOrThrow("anchors::noop", "")
                 .typed<at::Tensor(const at::Tensor&)>();
  Result typed_e = measure([&](long n) { for (long i = 0; i < n; ++i) keep(eop.call(ea)); });
  Result typed_t = measure([&](long n) { for (long i = 0; i < n; ++i) keep(top.call(ta)); });

  auto eh = eop.handle();
  auto th = c10::Dispatcher::singleton().findSchemaOrThrow("anchors::noop", "");
  Result boxed_e = measure([&](long n) {
    for (long i = 0; i < n; ++i) {
      ember::Stack s;
      s.emplace_back(ea);
      eh.callBoxed(s);
      keep(s);
    }
  });
  Result boxed_t = measure([&](long n) {
    for (long i = 0; i < n; ++i) {
      torch::jit::Stack s;
      s.emplace_back(ta);
      th.callBoxed(&s);
      keep(s);
    }
  });

  Result empty_e = measure([&](long n) { for (long i = 0; i < n; ++i) keep(ember::empty({1})); });
  Result empty_t = measure([&](long n) { for (long i = 0; i < n; ++i) keep(at::empty({1})); });
  Result add_e = measure([&](long n) { for (long i = 0; i < n; ++i) keep(ember::add(ea, eb)); });
  Result add_t = measure([&](long n) { for (long i = 0; i < n; ++i) keep(at::add(ta, tb)); });
  Result add__e = measure([&](long n) { for (long i = 0; i < n; ++i) keep(ea.add_(eb)); });
  Result add__t = measure([&](long n) { for (long i = 0; i < n; ++i) keep(ta.add_(tb)); });
  Result mul_e = measure([&](long n) { for (long i = 0; i < n; ++i) keep(ea.mul_(eb)); });
  Result mul_t = measure([&](long n) { for (long i = 0; i < n; ++i) keep(ta.mul_(tb)); });

  struct Row {
    const char* what;
    Result e, t;
    double target;
  };
  Row rows[] = {
      {"indirect call of a no-op kernel (floor)", floor_e, floor_t, 0},
      {"typed call, no-op custom operator", typed_e, typed_t, 15},
      {"boxed call, no-op custom operator", boxed_e, boxed_t, 25},
      {"empty({1})", empty_e, empty_t, 100},
      {"add, 1-element tensors", add_e, add_t, 280},
      {"add_ in place, 1-element tensors", add__e, add__t, 150},
      {"mul_ in place, 1-element tensors", mul_e, mul_t, 150},
  };
  std::printf("%-42s %18s %18s %8s %8s\n", "ns/call (best / median), 1 thread", "Ember", "LibTorch 1.13",
              "ratio", "target");
  for (auto& r : rows) {
    char tgt[16] = "-";
    if (r.target > 0) std::snprintf(tgt, sizeof tgt, "<=%.0f", r.target);
    std::printf("%-42s %8.1f / %7.1f %8.1f / %7.1f %8.2f %8s%s\n", r.what, r.e.best, r.e.median, r.t.best,
                r.t.median, r.e.best / r.t.best, tgt, r.target > 0 && r.e.best > r.target ? "  MISSED" : "");
  }
  std::printf("typed call / floor: %.2f (target <= 1.3)\n", typed_e.best / floor_e.best);
  return 0;
}
