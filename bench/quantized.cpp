// int8 linear, conv2d and pools (quantized::*, QuantizedCPU) beside the float32 ones on the same
// data, as time ratios (f32 time / int8 time: above 1 the int8 kernel is faster).
// Run: build/bin/bench_quantized [threads] (default 1).
// The int8 conv is timed twice: on an NCHW input (its time includes the copy to NHWC) and on a
// channels-last input, which is what a quantized conv returns, so what a chain of convs sees;
// so are the pools (their channels-last kernels are the fast ones).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "BenchUtil.h"
#include "ember/ember.h"
#include "ember/quantized.h"

namespace {

void row(const char* name, const bench::Times& tf, const bench::Times& tq) {
  std::printf("%-40s %8.3f/%-8.3f %8.3f/%-8.3f %7.2fx\n", name, tf.best * 1e3, tf.median * 1e3, tq.best * 1e3,
              tq.median * 1e3, tf.best / tq.best);
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  ember::set_num_threads(threads);
  ember::plugins::load("cpu");
  ember::plugins::load("nn");
  ember::plugins::load("quantized");
  std::printf("threads: %d\n%-40s %-17s %-17s %8s\n", threads, "linear (M, K, N)", "f32 ms best/med",
              "int8 ms best/med", "f32/int8");
  // The Fashion-MNIST CNN's classifier (1600 -> 10), an MLP, a ResNet head, transformer-like.
  const int64_t shapes[][3] = {{64, 1600, 10},  {256, 1600, 10},   {256, 784, 512},  {256, 512, 512}, {64, 512, 1000},
                               {64, 3136, 128}, {256, 1024, 1024}, {1024, 512, 512}, {16, 4096, 4096}};
  for (const auto& s : shapes) {
    const int64_t m = s[0], k = s[1], n = s[2];
    ember::manual_seed(1);
    const ember::Tensor x = ember::randn({m, k}), w = ember::randn({n, k}) * 0.05, b = ember::randn({n});
    const ember::Tensor qx = ember::quantize_per_tensor(x, 0.03, 128, ember::kQUInt8);
    const ember::Tensor qw = ember::quantize_per_tensor(w, 0.002, 0, ember::kQInt8);
    const bench::Times tf = bench::measure([&] { (void)ember::linear(x, w, b); }, 5);
    const bench::Times tq = bench::measure([&] { (void)ember::quantized::linear(qx, qw, b, 0.5, 128); }, 5);
    char name[64];
    std::snprintf(name, sizeof name, "(%ld, %ld, %ld)", static_cast<long>(m), static_cast<long>(k),
                  static_cast<long>(n));
    row(name, tf, tq);
  }
  std::printf("%-40s %-17s %-17s %8s\n", "conv2d (N, C->OC, HxW, k, s, p, g)", "f32 ms best/med", "int8 ms best/med",
              "f32/int8");
  struct Conv {
    int64_t n, c, oc, h, k, s, p, g;
  };
  const Conv convs[] = {
      {64, 1, 32, 28, 3, 1, 0, 1},     {256, 1, 32, 28, 3, 1, 0, 1},   // Fashion-MNIST CNN, first conv
      {64, 32, 64, 13, 3, 1, 0, 1},    {256, 32, 64, 13, 3, 1, 0, 1},  // and second
      {8, 3, 64, 224, 7, 2, 3, 1},                                     // ResNet stem
      {8, 64, 64, 56, 3, 1, 1, 1},     {8, 128, 128, 28, 3, 1, 1, 1}, {8, 256, 256, 14, 3, 1, 1, 1},  // ResNet
      {8, 64, 256, 56, 1, 1, 0, 1},    {8, 64, 128, 56, 3, 2, 1, 1},  {32, 32, 32, 28, 3, 1, 1, 1},
      {8, 128, 128, 28, 3, 1, 1, 128},  // depthwise (MobileNet)
  };
  for (const Conv& v : convs) {
    ember::manual_seed(2);
    const ember::Tensor x = ember::randn({v.n, v.c, v.h, v.h}), w = ember::randn({v.oc, v.c / v.g, v.k, v.k}) * 0.05,
                        b = ember::randn({v.oc});
    const ember::Tensor qx = ember::quantize_per_tensor(x, 0.03, 128, ember::kQUInt8);
    // The same values channels-last (NHWC memory, NCHW sizes).
    const ember::Tensor qxl = qx.permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2});
    const ember::Tensor qw = ember::quantize_per_tensor(w, 0.002, 0, ember::kQInt8);
    const bench::Times tf = bench::measure([&] { (void)ember::conv2d(x, w, b, v.s, v.p, 1, v.g); }, 5);
    auto q = [&](const ember::Tensor& in) {
      return bench::measure(
          [&] {
            (void)ember::quantized::conv2d(in, qw, b, {v.s, v.s}, {v.p, v.p}, {1, 1}, v.g, 0.5, 128);
          },
          5);
    };
    char name[96];
    std::snprintf(name, sizeof name, "(%ld, %ld->%ld, %ldx%ld, %ld, %ld, %ld, %ld)", static_cast<long>(v.n),
                  static_cast<long>(v.c), static_cast<long>(v.oc), static_cast<long>(v.h), static_cast<long>(v.h),
                  static_cast<long>(v.k), static_cast<long>(v.s), static_cast<long>(v.p), static_cast<long>(v.g));
    row(name, tf, q(qx));
    std::snprintf(name, sizeof name, "  same, channels-last int8 input");
    row(name, tf, q(qxl));
  }
  std::printf("%-40s %-17s %-17s %8s\n", "pool (N, C, HxW)", "f32 ms best/med", "int8 ms best/med", "f32/int8");
  struct Pool {
    const char* kind;
    int64_t n, c, h;
  };
  const Pool pools[] = {{"max 2x2", 64, 32, 26},     {"max 2x2", 64, 64, 11},      {"max 3x3 s2 p1", 8, 64, 112},
                        {"avg 2x2", 64, 32, 26},     {"avg 3x3 s2 p1", 8, 64, 56}, {"adaptive 1x1", 64, 512, 7},
                        {"adaptive 1x1", 8, 2048, 7}};
  for (const Pool& v : pools) {
    ember::manual_seed(3);
    const ember::Tensor x = ember::randn({v.n, v.c, v.h, v.h});
    const ember::Tensor qx = ember::quantize_per_tensor(x, 0.03, 128, ember::kQUInt8);
    const ember::Tensor qxl = qx.permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2});
    const std::string kind = v.kind;
    auto pool = [&](const ember::Tensor& t) {
      if (kind == "max 2x2") return ember::max_pool2d(t, {2, 2});
      if (kind == "max 3x3 s2 p1") return ember::max_pool2d(t, {3, 3}, {2, 2}, {1, 1});
      if (kind == "avg 2x2") return ember::avg_pool2d(t, {2, 2});
      if (kind == "avg 3x3 s2 p1") return ember::avg_pool2d(t, {3, 3}, {2, 2}, {1, 1});
      return ember::adaptive_avg_pool2d(t, {1, 1});
    };
    const bench::Times tf = bench::measure([&] { (void)pool(x); }, 5);
    char name[96];
    std::snprintf(name, sizeof name, "%s (%ld, %ld, %ldx%ld)", v.kind, static_cast<long>(v.n), static_cast<long>(v.c),
                  static_cast<long>(v.h), static_cast<long>(v.h));
    row(name, tf, bench::measure([&] { (void)pool(qx); }, 5));
    row("  same, channels-last int8 input", tf, bench::measure([&] { (void)pool(qxl); }, 5));
  }
}
