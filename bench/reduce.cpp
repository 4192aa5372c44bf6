// bench/reduce: float32 reductions over 16M elements (64 MB, far beyond the caches) and sorts,
// Ember beside LibTorch 1.13 in the same process, one thread. Bandwidth figures are input bytes
// read per second; "read" is a plain vectorised read loop over the same buffer, the single-core
// read bandwidth the reductions are measured against. Best of 15 runs.
//   scripts/bench.sh   (builds with -DEMBER_BUILD_BENCH=ON and runs pinned to one core)
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>

#include "BenchUtil.h"
#include "ember/ember.h"

namespace {

using bench::best_ms;

__attribute__((noinline)) float read_all(const float* p, int64_t n) {
  float s[16] = {};
  for (int64_t i = 0; i + 16 <= n; i += 16)
    for (int k = 0; k < 16; ++k) s[k] += p[i + k];
  float r = 0;
  for (float x : s) r += x;
  return r;
}

}  // namespace

int main() {
  at::set_num_threads(1);
  const int64_t n = 16 << 20;
  ember::Tensor e = ember::rand({n});
  at::Tensor t = at::empty({n});
  std::memcpy(t.data_ptr<float>(), e.data_ptr<float>(), n * sizeof(float));
  ember::Tensor em = e.view({4096, 4096});
  at::Tensor tm = t.view({4096, 4096});
  const double gb = static_cast<double>(n) * 4 / 1e9;
  auto row = [&](const char* name, const std::function<void()>& fe, const std::function<void()>& ft) {
    const double me = best_ms(fe), mt = best_ms(ft);
    std::printf("%-26s ember %8.2f ms %6.1f GB/s   libtorch %8.2f ms %6.1f GB/s   ratio %.2f\n", name, me,
                gb / (me / 1e3), mt, gb / (mt / 1e3), mt / me);
  };
  volatile float sink = 0;
  const double mr = best_ms([&] { sink = read_all(e.data_ptr<float>(), n); });
  std::printf("%-26s       %8.2f ms %6.1f GB/s\n", "read (reference)", mr, gb / (mr / 1e3));
  row("sum()", [&] { (void)e.sum(); }, [&] { (void)t.sum(); });
  row("mean()", [&] { (void)e.mean(); }, [&] { (void)t.mean(); });
  row("amax()", [&] { (void)e.amax(); }, [&] { (void)t.amax(); });
  row("max()", [&] { (void)e.max(); }, [&] { (void)t.max(); });
  row("min()", [&] { (void)e.min(); }, [&] { (void)t.min(); });
  row("sum(1) 4096x4096", [&] { (void)em.sum(ember::IntArrayRef({1})); }, [&] { (void)tm.sum(1); });
  row("mean(1) 4096x4096", [&] { (void)em.mean(ember::IntArrayRef({1})); }, [&] { (void)tm.mean(1); });
  row("amax(1) 4096x4096", [&] { (void)em.amax(ember::IntArrayRef({1})); }, [&] { (void)tm.amax(1); });
  row("max(1) 4096x4096", [&] { (void)em.max(1); }, [&] { (void)tm.max(1); });
  row("amax(0) 4096x4096", [&] { (void)em.amax(ember::IntArrayRef({0})); }, [&] { (void)tm.amax(0); });
  row("sum(0) 4096x4096", [&] { (void)em.sum(ember::IntArrayRef({0})); }, [&] { (void)tm.sum(0); });
  row("sort(1) 4096x4096", [&] { (void)em.sort(1); }, [&] { (void)tm.sort(1); });
  row("topk(8) 16M", [&] { (void)e.topk(8); }, [&] { (void)t.topk(8); });
  row("topk(8, 1) 4096x4096", [&] { (void)em.topk(8, 1); }, [&] { (void)tm.topk(8, 1); });
  (void)sink;
  return 0;
}
