// bench/nn: the CNN operators beside LibTorch 1.13 in one process, one thread, as ratios.
//   - conv2d N=8, 64->64 channels, 56x56, 3x3, padding 1, with bias (NCHW in and out): ember's
//     oneDNN path (Note [CPU convolution paths]: Winograd for this shape) vs at::conv2d (oneDNN
//     direct); the printed max difference is float32 rounding of the two algorithms.
//   - the same conv2d on a channels-last input (the result is channels-last on both sides).
//   - max_pool2d on 64x32x26x26 (NCHW), kernel 2 stride 2 and kernel 3 stride 2: ember's own
//     kernel (Note [CPU max pooling]) vs at::max_pool2d, and vs ember::relu on the same tensor
//     (a read-one-write-one pass: the memory-bound floor).
// Best and median of 7 batches of ~0.1 s; ratios of the bests. Run with OMP_NUM_THREADS=1, e.g.
//   OMP_NUM_THREADS=1 taskset -c 1 build-bench/bin/bench_nn
#include <torch/torch.h>

#include <cstdio>
#include <vector>

#include "BenchTorch.h"
#include "ember/ember.h"

namespace {

using bench::random_tensor;
using bench::to_torch;
using bench::time_it;

void row(const char* what, bench::Times e, bench::Times t) {
  std::printf("%-34s %8.3f / %-8.3f %8.3f / %-8.3f %8.2f\n", what, e.best * 1e3, e.median * 1e3, t.best * 1e3,
              t.median * 1e3, e.best / t.best);
}

}  // namespace

int main() {
  at::set_num_threads(1);
  ember::set_num_threads(1);
  ember::plugins::load("cpu");
  std::printf("%-34s %-19s %-19s %8s\n", "op", "ember ms best/med", "torch ms best/med", "ember/torch");

  {
    const ember::Tensor x = random_tensor({8, 64, 56, 56}, 1), w = random_tensor({64, 64, 3, 3}, 2),
                        b = random_tensor({64}, 3);
    const at::Tensor tx = to_torch(x), tw = to_torch(w), tb = to_torch(b);
    // Same numbers from both (a sanity check, not a test).
    const ember::Tensor ye = ember::conv2d(x, w, b, 1, 1);
    const at::Tensor yt = at::conv2d(tx, tw, tb, 1, 1);
    const double diff = (to_torch(ye) - yt).abs().max().item<double>();
    const bench::Times te = time_it([&] { return ember::conv2d(x, w, b, 1, 1); });
    const bench::Times tt = time_it([&] { return at::conv2d(tx, tw, tb, 1, 1); });
    row("conv2d 8x64x56x56 3x3 pad 1", te, tt);
    std::printf("  (max |ember - torch| = %.2e)\n", diff);
    // Channels-last in and out (LibTorch's layout rule; ember reorders around its NCHW path).
    const ember::Tensor xc = x.contiguous(ember::MemoryFormat::ChannelsLast);
    const at::Tensor txc = tx.contiguous(at::MemoryFormat::ChannelsLast);
    const bench::Times tec = time_it([&] { return ember::conv2d(xc, w, b, 1, 1); });
    const bench::Times ttc = time_it([&] { return at::conv2d(txc, tw, tb, 1, 1); });
    row("conv2d channels-last", tec, ttc);
  }

  const ember::Tensor x = random_tensor({64, 32, 26, 26}, 4);
  const at::Tensor tx = to_torch(x);
  const bench::Times relu = time_it([&] { return ember::relu(x); });
  row("relu 64x32x26x26", relu, time_it([&] { return at::relu(tx); }));
  for (int64_t k : {2, 3}) {
    const ember::Tensor ye = ember::max_pool2d(x, k, 2);
    const double diff = (to_torch(ye) - at::max_pool2d(tx, k, 2)).abs().max().item<double>();
    const bench::Times te = time_it([&] { return ember::max_pool2d(x, k, 2); });
    const bench::Times tt = time_it([&] { return at::max_pool2d(tx, k, 2); });
    char name[64];
    std::snprintf(name, sizeof name, "max_pool2d 64x32x26x26 k%lld s2", static_cast<long long>(k));
    row(name, te, tt);
    std::printf("  (max |ember - torch| = %.2e; ember max_pool2d / ember relu = %.2f)\n", diff, te.best / relu.best);
  }
  return 0;
}
