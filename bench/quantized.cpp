// int8 linear and conv2d (quantized::linear / conv2d, oneDNN u8 x s8) beside the float32 ones on
// the same data, one thread, as time ratios. Run: build/bin/bench_quantized
#include <cstdio>

#include "BenchUtil.h"
#include "ember/ember.h"
#include "ember/quantized.h"

int main() {
  ember::set_num_threads(1);
  ember::plugins::load("cpu");
  ember::plugins::load("quantized");
  std::printf("%-26s %-19s %-19s %8s\n", "linear (M, K, N)", "f32 ms best/med", "int8 ms best/med", "f32/int8");
  const int64_t shapes[][3] = {{64, 3136, 128}, {256, 1024, 1024}, {1024, 512, 512}, {16, 4096, 4096}};
  for (const auto& s : shapes) {
    const int64_t m = s[0], k = s[1], n = s[2];
    ember::manual_seed(1);
    const ember::Tensor x = ember::randn({m, k}), w = ember::randn({n, k}) * 0.05, b = ember::randn({n});
    const ember::Tensor qx = ember::quantize_per_tensor(x, 0.03, 128, ember::kQUInt8);
    const ember::Tensor qw = ember::quantize_per_tensor(w, 0.002, 0, ember::kQInt8);
    const bench::Times tf = bench::measure([&] { (void)ember::linear(x, w, b); });
    const bench::Times tq = bench::measure([&] { (void)ember::quantized::linear(qx, qw, b, 0.5, 128); });
    char name[64];
    std::snprintf(name, sizeof name, "(%ld, %ld, %ld)", static_cast<long>(m), static_cast<long>(k),
                  static_cast<long>(n));
    std::printf("%-26s %8.3f/%-10.3f %8.3f/%-10.3f %7.2fx\n", name, tf.best * 1e3, tf.median * 1e3, tq.best * 1e3,
                tq.median * 1e3, tf.best / tq.best);
  }
  std::printf("%-26s %-19s %-19s %8s\n", "conv2d 3x3 pad 1", "f32 ms best/med", "int8 ms best/med", "f32/int8");
  const int64_t convs[][3] = {{8, 64, 56}, {32, 32, 28}, {64, 1, 28}};  // (N, C=OC, H=W)
  for (const auto& s : convs) {
    const int64_t nb = s[0], c = s[1], h = s[2];
    const int64_t oc = c == 1 ? 32 : c;
    ember::manual_seed(2);
    const ember::Tensor x = ember::randn({nb, c, h, h}), w = ember::randn({oc, c, 3, 3}) * 0.05, b = ember::randn({oc});
    const ember::Tensor qx = ember::quantize_per_tensor(x, 0.03, 128, ember::kQUInt8);
    const ember::Tensor qw = ember::quantize_per_tensor(w, 0.002, 0, ember::kQInt8);
    const bench::Times tf = bench::measure([&] { (void)ember::conv2d(x, w, b, 1, 1); });
    const bench::Times tq = bench::measure([&] {
      (void)ember::quantized::conv2d(qx, qw, b, {1, 1}, {1, 1}, {1, 1}, 1, 0.5, 128);
    });
    char name[64];
    std::snprintf(name, sizeof name, "(%ld, %ld->%ld, %ldx%ld)", static_cast<long>(nb), static_cast<long>(c),
                  static_cast<long>(oc), static_cast<long>(h), static_cast<long>(h));
    std::printf("%-26s %8.3f/%-10.3f %8.3f/%-10.3f %7.2fx\n", name, tf.best * 1e3, tf.median * 1e3, tq.best * 1e3,
                tq.median * 1e3, tf.best / tq.best);
  }
}
