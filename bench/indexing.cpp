// bench/indexing: the indexing kernels (plugins/cpu/indexing.cpp) beside LibTorch 1.13's, one
// thread, same inputs. Prints microseconds per call (best of 7 batches) and ember/torch.
//   OMP_NUM_THREADS=1 taskset -c 1 build-bench/bin/bench_indexing
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "ember/ember.h"

namespace {

using clk = std::chrono::steady_clock;

// Best seconds per call of f over 7 batches of ~20 ms.
double best_of(const std::function<void()>& f) {
  f();
  auto t0 = clk::now();
  f();
  const double once = std::chrono::duration<double>(clk::now() - t0).count();
  const int calls = std::max(1, static_cast<int>(0.02 / std::max(once, 1e-9)));
  double best = 1e30;
  for (int r = 0; r < 7; ++r) {
    t0 = clk::now();
    for (int i = 0; i < calls; ++i) f();
    best = std::min(best, std::chrono::duration<double>(clk::now() - t0).count() / calls);
  }
  return best;
}

// The same bytes as an ember and a torch tensor (contiguous).
struct Pair {
  ember::Tensor e;
  torch::Tensor t;
};

Pair make(std::vector<int64_t> shape, ember::ScalarType et, torch::ScalarType tt) {
  Pair p{ember::empty(shape, et), torch::empty(shape, torch::TensorOptions().dtype(tt))};
  std::memset(p.e.data_ptr(), 0, p.e.nbytes());
  return p;
}

Pair floats(std::vector<int64_t> shape, unsigned seed) {
  Pair p = make(shape, ember::kFloat32, torch::kFloat32);
  auto* d = p.e.data_ptr<float>();
  for (int64_t i = 0; i < p.e.numel(); ++i) {
    seed = seed * 1664525u + 1013904223u;
    d[i] = static_cast<float>(seed >> 8) / static_cast<float>(1 << 24) - 0.5f;
  }
  std::memcpy(p.t.data_ptr(), d, p.e.nbytes());
  return p;
}

Pair longs(std::vector<int64_t> shape, int64_t hi, unsigned seed) {
  Pair p = make(shape, ember::kInt64, torch::kInt64);
  auto* d = p.e.data_ptr<int64_t>();
  for (int64_t i = 0; i < p.e.numel(); ++i) {
    seed = seed * 1664525u + 1013904223u;
    d[i] = static_cast<int64_t>(seed >> 8) % hi;
  }
  std::memcpy(p.t.data_ptr(), d, p.e.nbytes());
  return p;
}

void row(const char* name, const std::function<void()>& e, const std::function<void()>& t) {
  const double se = best_of(e), st = best_of(t);
  std::printf("%-44s %10.1f us %10.1f us %7.2f\n", name, se * 1e6, st * 1e6, se / st);
}

}  // namespace

int main() {
  torch::set_num_threads(1);
  std::printf("%-44s %13s %13s %7s\n", "op", "ember", "torch", "ratio");
  {
    Pair w = floats({50000, 128}, 1), i = longs({4096}, 50000, 2);
    row("embedding [50000,128] f32, 4096 rows", [&] { ember::embedding(w.e, i.e); },
        [&] { torch::embedding(w.t, i.t); });
    row("index_select dim 0, same", [&] { ember::index_select(w.e, 0, i.e); },
        [&] { torch::index_select(w.t, 0, i.t); });
  }
  {
    Pair x = floats({1024, 1024}, 3), i = longs({256}, 1024, 4), g = longs({1024, 256}, 1024, 5);
    row("index_select dim 1 [1024,1024] f32, 256", [&] { ember::index_select(x.e, 1, i.e); },
        [&] { torch::index_select(x.t, 1, i.t); });
    row("x[:, idx] [1024,1024] f32, 256", [&] { ember::index(x.e, {std::nullopt, i.e}); },
        [&] { x.t.index({torch::indexing::Slice(), i.t}); });
    row("gather dim 1 [1024,1024] f32, index [1024,256]", [&] { ember::gather(x.e, 1, g.e); },
        [&] { torch::gather(x.t, 1, g.t); });
    Pair src = floats({1024, 256}, 6);
    row("scatter_add_ dim 1, same", [&] { x.e.scatter_add_(1, g.e, src.e); }, [&] { x.t.scatter_add_(1, g.t, src.t); });
  }
  {
    Pair x = floats({1 << 20}, 7);
    ember::Tensor me = x.e > 0;
    torch::Tensor mt = x.t > 0;
    row("x[x > 0] [1M] f32", [&] { ember::index(x.e, {me}); }, [&] { x.t.index({mt}); });
    row("masked_select [1M] f32", [&] { ember::masked_select(x.e, me); }, [&] { torch::masked_select(x.t, mt); });
    row("nonzero [1M] f32", [&] { ember::nonzero(x.e); }, [&] { torch::nonzero(x.t); });
    Pair acc = floats({100000}, 8), i = longs({1 << 20}, 100000, 9), v = floats({1 << 20}, 10);
    row("index_put_ accumulate [100000] <- 1M", [&] { ember::index_put_(acc.e, {i.e}, v.e, true); },
        [&] { acc.t.index_put_({i.t}, v.t, true); });
  }
  // The index-shape family: scatter_reduce, index_add, tril, roll, repeat_interleave.
  {
    Pair x = floats({1024, 1024}, 11), g = longs({1024, 256}, 1024, 12), src = floats({1024, 256}, 13);
    for (const char* red : {"sum", "amax", "mean"}) {
      const std::string name = std::string("scatter_reduce_ ") + red + " dim 1 [1024,1024] <- [1024,256]";
      row(name.c_str(), [&] { x.e.scatter_reduce_(1, g.e, src.e, red); },
          [&] { x.t.scatter_reduce_(1, g.t, src.t, red); });
    }
    Pair i0 = longs({256}, 1024, 14), s0 = floats({256, 1024}, 15), s1 = floats({1024, 256}, 16);
    row("index_add_ dim 0 [1024,1024] <- [256,1024]", [&] { x.e.index_add_(0, i0.e, s0.e); },
        [&] { x.t.index_add_(0, i0.t, s0.t); });
    row("index_add_ dim 1 [1024,1024] <- [1024,256]", [&] { x.e.index_add_(1, i0.e, s1.e); },
        [&] { x.t.index_add_(1, i0.t, s1.t); });
    row("tril [1024,1024] f32", [&] { ember::tril(x.e); }, [&] { torch::tril(x.t); });
    row("triu_ [1024,1024] f32, diagonal 1", [&] { x.e.triu_(1); }, [&] { x.t.triu_(1); });
    Pair b = floats({64, 64, 64}, 17);
    row("tril [64,64,64] f32", [&] { ember::tril(b.e); }, [&] { torch::tril(b.t); });
    row("roll [1024,1024] f32, shifts (3, -5)", [&] { ember::roll(x.e, {3, -5}, {0, 1}); },
        [&] { torch::roll(x.t, {3, -5}, {0, 1}); });
    row("roll [1M] f32 flattened, 1000", [&] { ember::roll(x.e, {1000}); }, [&] { torch::roll(x.t, {1000}); });
    Pair r = longs({100000}, 8, 18), y = floats({100000, 16}, 19);
    row("repeat_interleave(repeats) [100000] in [0, 8)", [&] { ember::repeat_interleave(r.e); },
        [&] { torch::repeat_interleave(r.t); });
    row("repeat_interleave [100000,16] f32, 3, dim 0", [&] { ember::repeat_interleave(y.e, 3, 0); },
        [&] { torch::repeat_interleave(y.t, 3, 0); });
    row("repeat_interleave [100000,16] f32, repeats, dim 0", [&] { ember::repeat_interleave(y.e, r.e, 0); },
        [&] { torch::repeat_interleave(y.t, r.t, 0); });
  }
  return 0;
}
