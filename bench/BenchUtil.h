#pragma once
// Timing helpers shared by the benchmarks: calls batched to ~0.1 s, repeated, best and median.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

namespace bench {

using clk = std::chrono::steady_clock;

// Seconds per call of f, over `calls` calls.
inline double time_once(const std::function<void()>& f, int calls) {
  auto t0 = clk::now();
  for (int i = 0; i < calls; ++i) f();
  return std::chrono::duration<double>(clk::now() - t0).count() / calls;
}

// Calls per ~0.1 s batch, after a warm-up call (primitive creation, page faults).
inline int calls_for(const std::function<void()>& f) {
  f();
  const double s = time_once(f, 1);
  return std::max(1, static_cast<int>(0.1 / s));
}

// For f(n) running n calls: the n that takes about 0.2 s, found from `start` upwards (the
// calibration also warms up).
inline long calibrate_calls(const std::function<void(long)>& f, long start) {
  long n = start;
  for (;;) {
    auto t0 = clk::now();
    f(n);
    const double s = std::chrono::duration<double>(clk::now() - t0).count();
    if (s > 0.05) return static_cast<long>(n * 0.2 / s) + 1;
    n *= 4;
  }
}

struct Times {
  double best = 0, median = 0;  // seconds per call
};

inline Times summarize(std::vector<double> secs) {
  std::sort(secs.begin(), secs.end());
  return {secs.front(), secs[secs.size() / 2]};
}

// Milliseconds of f's fastest single call of `reps`, after a warm-up call: for calls long enough
// (a millisecond and up) that batching adds nothing.
inline double best_ms(const std::function<void()>& f, int reps = 15) {
  f();
  double best = 1e30;
  for (int r = 0; r < reps; ++r) best = std::min(best, time_once(f, 1) * 1e3);
  return best;
}

// `reps` batches of f; seconds per call.
inline Times measure(const std::function<void()>& f, int reps = 7) {
  const int calls = calls_for(f);
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) t.push_back(time_once(f, calls));
  return summarize(t);
}

// Deterministic values in [-0.5, 0.5).
inline void fill_random(float* p, int64_t n, unsigned seed) {
  for (int64_t i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    p[i] = static_cast<float>(seed >> 8) / static_cast<float>(1 << 24) - 0.5f;
  }
}

}  // namespace bench
