// bench/gemm: square float32 C = A x B through ember::mm (oneDNN matmul primitive, see Note
// [CPU matrix product paths]) beside oneDNN's dnnl_sgemm and LibTorch's at::mm, in one process.
// GFLOP/s = 2n^3 / time, best and median of 7 repetitions; ratios are to dnnl_sgemm's best.
// ember::mm and dnnl_sgemm (both OpenMP) are interleaved; at::mm runs after them (LibTorch's
// OpenBLAS workers spin and would slow the OpenMP calls). Run with OMP_NUM_THREADS=1 and an
// explicit OPENBLAS_CORETYPE (see toolchain.md §3), e.g.
//   OMP_NUM_THREADS=1 OPENBLAS_CORETYPE=Haswell build-bench/bin/bench_gemm
#include <dnnl.h>
#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "BenchUtil.h"
#include "ember/ember.h"

namespace {

struct Stat {
  double best = 0, median = 0;  // GFLOP/s
};

Stat summarize(std::vector<double> secs, double flop) {
  const bench::Times t = bench::summarize(std::move(secs));
  return {flop / t.best * 1e-9, flop / t.median * 1e-9};
}

ember::Tensor random_matrix(int64_t n, unsigned seed) {
  ember::Tensor t = ember::empty({n, n}, ember::kFloat32);
  bench::fill_random(t.data_ptr<float>(), n * n, seed);
  return t;
}

}  // namespace

int main() {
  at::set_num_threads(1);
  ember::set_num_threads(1);
  ember::plugins::load("cpu");
  std::printf("%6s  %-22s %-22s %-22s %8s %8s\n", "n", "ember::mm best/med", "dnnl_sgemm best/med",
              "at::mm best/med", "ember/d", "torch/d");
  for (int64_t n : {256, 1024, 2048}) {
    const double flop = 2.0 * n * n * n;
    ember::Tensor a = random_matrix(n, 1), b = random_matrix(n, 2);
    std::vector<float> c(static_cast<size_t>(n * n));
    const float* A = a.data_ptr<float>();
    const float* B = b.data_ptr<float>();
    auto run_ember = [&] {
      ember::Tensor r = ember::mm(a, b);
      asm volatile("" : : "g"(r.data_ptr()) : "memory");
    };
    auto run_dnnl = [&] {
      dnnl_sgemm('N', 'N', n, n, n, 1.f, A, n, B, n, 0.f, c.data(), n);
      asm volatile("" : : "g"(c.data()) : "memory");
    };
    const int ce = bench::calls_for(run_ember), cd = bench::calls_for(run_dnnl);
    std::vector<double> te, td;
    for (int r = 0; r < 7; ++r) {
      te.push_back(bench::time_once(run_ember, ce));
      td.push_back(bench::time_once(run_dnnl, cd));
    }
    at::Tensor ta = at::from_blob(const_cast<float*>(A), {n, n}, at::kFloat).clone();
    at::Tensor tb = at::from_blob(const_cast<float*>(B), {n, n}, at::kFloat).clone();
    auto run_torch = [&] {
      at::Tensor r = at::mm(ta, tb);
      asm volatile("" : : "g"(r.data_ptr()) : "memory");
    };
    const int ct = bench::calls_for(run_torch);
    std::vector<double> tt;
    for (int r = 0; r < 7; ++r) tt.push_back(bench::time_once(run_torch, ct));
    const Stat se = summarize(te, flop), sd = summarize(td, flop), st = summarize(tt, flop);
    std::printf("%6lld  %8.1f / %-11.1f %8.1f / %-11.1f %8.1f / %-11.1f %8.2f %8.2f\n", static_cast<long long>(n),
                se.best, se.median, sd.best, sd.median, st.best, st.median, se.best / sd.best, st.best / sd.best);
  }
  return 0;
}
