// bench/fft: ember::fft beside torch::fft (LibTorch 1.13, pocketfft inside) in the same process,
// and beside a naive recursive radix-2 FFT (std::complex<float>, O(n log n), powers of two
// only) as the floor any real FFT must beat. Complex64 c2c forward, float32 rfft, and a batched
// 2-D transform; best of 15 runs, milliseconds and "GFLOP/s" as 5 n log2 n / t (the usual
// FFT figure of merit). Ratios are Ember / other: below 1 is faster.
//   scripts/bench.sh   (builds with -DEMBER_BUILD_BENCH=ON; runs on one thread and on two)
#include <torch/torch.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numbers>
#include <vector>

#include "BenchUtil.h"
#include "ember/ember.h"
#include "ember/fft.h"

namespace {

using bench::best_ms;
using cf = std::complex<float>;

// The textbook recursive decimation-in-time radix-2 FFT (n a power of two).
void naive_fft(cf* x, int64_t n, std::vector<cf>& tmp) {
  if (n == 1) return;
  const int64_t h = n / 2;
  cf* t = tmp.data();
  for (int64_t i = 0; i < h; ++i) {
    t[i] = x[2 * i];
    t[i + h] = x[2 * i + 1];
  }
  std::memcpy(static_cast<void*>(x), t, static_cast<size_t>(n) * sizeof(cf));
  naive_fft(x, h, tmp);
  naive_fft(x + h, h, tmp);
  for (int64_t k = 0; k < h; ++k) {
    const float a = -2.0f * std::numbers::pi_v<float> * static_cast<float>(k) / static_cast<float>(n);
    const cf w = cf(std::cos(a), std::sin(a)) * x[k + h];
    x[k + h] = x[k] - w;
    x[k] += w;
  }
}

double gflops(int64_t n, int64_t batch, double ms) {
  return 5.0 * static_cast<double>(n) * std::log2(static_cast<double>(n)) * static_cast<double>(batch) / (ms * 1e6);
}

void row(const char* what, int64_t n, int64_t batch, double e_ms, double t_ms, double naive_ms) {
  std::printf("%-26s %9.3f ms %7.2f GF/s | torch %9.3f ms  ratio %5.2f", what, e_ms, gflops(n, batch, e_ms), t_ms,
              e_ms / t_ms);
  if (naive_ms > 0)
    std::printf(" | naive radix-2 %9.3f ms  ratio %5.2f\n", naive_ms, e_ms / naive_ms);
  else
    std::printf(" | naive radix-2      n/a\n");
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  at::set_num_threads(threads);
  ember::set_num_threads(threads);
  std::printf("threads: %d\n", threads);
  for (int64_t n : {int64_t{1} << 10, int64_t{1} << 16, int64_t{1} << 20, int64_t{1000}, int64_t{4097}}) {
    const ember::Tensor e = ember::complex(ember::randn({n}), ember::randn({n}));
    at::Tensor t = at::empty({n}, at::kComplexFloat);
    std::memcpy(t.data_ptr(), e.data_ptr(), static_cast<size_t>(n) * sizeof(cf));
    const double e_ms = best_ms([&] { (void)ember::fft::fft(e); });
    const double t_ms = best_ms([&] { (void)torch::fft::fft(t); });
    double naive_ms = 0;
    if ((n & (n - 1)) == 0) {
      std::vector<cf> buf(static_cast<size_t>(n)), tmp(static_cast<size_t>(n));
      naive_ms = best_ms([&] {
        std::memcpy(static_cast<void*>(buf.data()), e.data_ptr(), static_cast<size_t>(n) * sizeof(cf));
        naive_fft(buf.data(), n, tmp);
      });
    }
    char what[64];
    std::snprintf(what, sizeof what, "fft c64 n=%ld", static_cast<long>(n));
    row(what, n, 1, e_ms, t_ms, naive_ms);
    // The real transform of the real parts.
    const ember::Tensor er = ember::real(e).contiguous();
    const at::Tensor tr = at::real(t).contiguous();
    const double er_ms = best_ms([&] { (void)ember::fft::rfft(er); });
    const double tr_ms = best_ms([&] { (void)torch::fft::rfft(tr); });
    std::snprintf(what, sizeof what, "rfft f32 n=%ld", static_cast<long>(n));
    row(what, n, 1, er_ms, tr_ms, 0);
  }
  {
    const int64_t b = 8, n = 256;
    const ember::Tensor e = ember::complex(ember::randn({b, n, n}), ember::randn({b, n, n}));
    at::Tensor t = at::empty({b, n, n}, at::kComplexFloat);
    std::memcpy(t.data_ptr(), e.data_ptr(), static_cast<size_t>(b * n * n) * sizeof(cf));
    const double e_ms = best_ms([&] { (void)ember::fft::fft2(e); });
    const double t_ms = best_ms([&] { (void)torch::fft::fft2(t); });
    // n log n per 2-D transform of n*n points: 5 (n^2) log2(n^2).
    row("fft2 c64 8x256x256", n * n, b, e_ms, t_ms, 0);
    const ember::Tensor er = ember::real(e).contiguous();
    const at::Tensor tr = at::real(t).contiguous();
    row("rfft2 f32 8x256x256", n * n, b, best_ms([&] { (void)ember::fft::rfft2(er); }),
        best_ms([&] { (void)torch::fft::rfft2(tr); }), 0);
  }
  return 0;
}
