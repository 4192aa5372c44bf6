// bench/pool: pooling over 1 and 3 dimensions, adaptive pools and padding beside LibTorch 1.13
// in one process, one thread, as ratios (ember / torch, best of 7 batches of ~0.1 s), with the
// max difference of the results. ember::relu on the input is printed as the memory-bound floor
// (one read, one write). Run with OMP_NUM_THREADS=1, e.g.
//   OMP_NUM_THREADS=1 taskset -c 1 build-bench/bin/bench_pool
#include <torch/torch.h>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "BenchTorch.h"
#include "ember/ember.h"

namespace {

using bench::random_tensor;
using bench::to_torch;
using bench::time_it;

void compare(const std::string& what, const std::function<ember::Tensor()>& e, const std::function<at::Tensor()>& t) {
  const double diff = (to_torch(e()) - t()).abs().max().item<double>();
  const bench::Times te = time_it(e), tt = time_it(t);
  std::printf("%-44s %8.3f / %-8.3f %8.3f / %-8.3f %8.2f  (max diff %.1e)\n", what.c_str(), te.best * 1e3,
              te.median * 1e3, tt.best * 1e3, tt.median * 1e3, te.best / tt.best, diff);
}

}  // namespace

int main() {
  at::set_num_threads(1);
  ember::set_num_threads(1);
  ember::plugins::load("cpu");
  std::printf("%-44s %-19s %-19s %8s\n", "op", "ember ms best/med", "torch ms best/med", "ember/torch");

  // 3-d: a video-sized batch, 8 x 16 x 16 x 32 x 32 (4M floats).
  const ember::Tensor x5 = random_tensor({8, 16, 16, 32, 32}, 1);
  const at::Tensor t5 = to_torch(x5);
  {
    const bench::Times relu = time_it([&] { return ember::relu(x5); });
    std::printf("%-44s %8.3f / %-8.3f\n", "relu 8x16x16x32x32 (memory floor)", relu.best * 1e3, relu.median * 1e3);
  }
  compare(
      "max_pool3d k2 s2", [&] { return ember::max_pool3d(x5, {2}); }, [&] { return at::max_pool3d(t5, {2}); });
  compare(
      "max_pool3d k3 s2 p1", [&] { return ember::max_pool3d(x5, {3}, {2}, {1}); },
      [&] { return at::max_pool3d(t5, {3}, {2}, {1}); });
  compare(
      "avg_pool3d k2 s2", [&] { return ember::avg_pool3d(x5, {2}); }, [&] { return at::avg_pool3d(t5, {2}); });
  compare(
      "avg_pool3d k3 s2 p1", [&] { return ember::avg_pool3d(x5, {3}, {2}, {1}); },
      [&] { return at::avg_pool3d(t5, {3}, {2}, {1}); });
  compare(
      "adaptive_avg_pool3d -> 4x4x4",
      [&] {
        return ember::adaptive_avg_pool3d(x5, {4, 4, 4});
      },
      [&] {
        return at::adaptive_avg_pool3d(t5, {4, 4, 4});
      });
  {
    const ember::Tensor g = random_tensor({8, 16, 8, 16, 16}, 2);
    const at::Tensor tg = to_torch(g);
    auto [y, i] = ember::max_pool3d_with_indices(x5, {2});
    auto [ty, ti] = at::max_pool3d_with_indices(t5, {2});
    compare(
        "max_pool3d_with_indices_backward k2",
        [&] { return ember::max_pool3d_with_indices_backward(g, x5, {2}, {2}, {0}, {1}, false, i); },
        [&] { return at::max_pool3d_with_indices_backward(tg, t5, {2}, {2}, {0}, {1}, false, ti); });
    compare(
        "avg_pool3d_backward k2", [&] { return ember::avg_pool3d_backward(g, x5, {2}, {2}, {0}, false, true, {}); },
        [&] { return at::avg_pool3d_backward(tg, t5, {2}, {2}, {0}, false, true, {}); });
  }

  // 1-d: 64 x 128 x 512 (4M floats).
  const ember::Tensor x3 = random_tensor({64, 128, 512}, 3);
  const at::Tensor t3 = to_torch(x3);
  compare(
      "max_pool1d k2 s2", [&] { return ember::max_pool1d(x3, {2}); }, [&] { return at::max_pool1d(t3, {2}); });
  compare(
      "avg_pool1d k3 s2 p1", [&] { return ember::avg_pool1d(x3, {3}, {2}, {1}); },
      [&] { return at::avg_pool1d(t3, {3}, {2}, {1}); });
  compare(
      "adaptive_avg_pool1d -> 100", [&] { return ember::adaptive_avg_pool1d(x3, {100}); },
      [&] { return at::adaptive_avg_pool1d(t3, {100}); });
  compare(
      "adaptive_max_pool1d -> 100", [&] { return std::get<0>(ember::adaptive_max_pool1d(x3, {100})); },
      [&] { return std::get<0>(at::adaptive_max_pool1d(t3, {100})); });

  // 2-d adaptive max: 32 x 64 x 56 x 56 -> 7 x 7 (6.4M floats).
  const ember::Tensor x4 = random_tensor({32, 64, 56, 56}, 4);
  const at::Tensor t4 = to_torch(x4);
  compare(
      "adaptive_max_pool2d 56x56 -> 7x7",
      [&] {
        return std::get<0>(ember::adaptive_max_pool2d(x4, {7, 7}));
      },
      [&] {
        return std::get<0>(at::adaptive_max_pool2d(t4, {7, 7}));
      });

  // Padding: 32 x 64 x 56 x 56 by 3 on every side (the input is 6.4M floats).
  compare(
      "reflection_pad2d 3",
      [&] {
        return ember::reflection_pad2d(x4, {3, 3, 3, 3});
      },
      [&] {
        return at::reflection_pad2d(t4, {3, 3, 3, 3});
      });
  compare(
      "replication_pad2d 3",
      [&] {
        return ember::replication_pad2d(x4, {3, 3, 3, 3});
      },
      [&] {
        return at::replication_pad2d(t4, {3, 3, 3, 3});
      });
  compare(
      "constant_pad_nd 3 (2 dims)",
      [&] {
        return ember::constant_pad_nd(x4, {3, 3, 3, 3}, 0);
      },
      [&] {
        return at::constant_pad_nd(t4, {3, 3, 3, 3}, 0);
      });
  compare(
      "pad circular 3",
      [&] {
        return ember::pad(x4, {3, 3, 3, 3}, "circular");
      },
      [&] {
        return at::pad(t4, {3, 3, 3, 3}, "circular");
      });
  compare(
      "reflection_pad1d 3 (64x128x512)",
      [&] {
        return ember::reflection_pad1d(x3, {3, 3});
      },
      [&] {
        return at::reflection_pad1d(t3, {3, 3});
      });
  compare(
      "reflection_pad3d 2",
      [&] {
        return ember::reflection_pad3d(x5, {2, 2, 2, 2, 2, 2});
      },
      [&] {
        return at::reflection_pad3d(t5, {2, 2, 2, 2, 2, 2});
      });
  compare(
      "replication_pad3d 2",
      [&] {
        return ember::replication_pad3d(x5, {2, 2, 2, 2, 2, 2});
      },
      [&] {
        return at::replication_pad3d(t5, {2, 2, 2, 2, 2, 2});
      });
  {
    const ember::Tensor g = random_tensor({32, 64, 62, 62}, 5);
    const at::Tensor tg = to_torch(g);
    compare(
        "reflection_pad2d_backward 3",
        [&] {
          return ember::reflection_pad2d_backward(g, x4, {3, 3, 3, 3});
        },
        [&] {
          return at::reflection_pad2d_backward(tg, t4, {3, 3, 3, 3});
        });
    compare(
        "replication_pad2d_backward 3",
        [&] {
          return ember::replication_pad2d_backward(g, x4, {3, 3, 3, 3});
        },
        [&] {
          return at::replication_pad2d_backward(tg, t4, {3, 3, 3, 3});
        });
  }
  return 0;
}
