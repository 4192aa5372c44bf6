// bench/linalg: the LAPACK-backed torch.linalg operators, Ember beside LibTorch 1.13 in the same
// process on the same float32 matrices: n = 64, 256, 1024 and a batch of 1000 4x4 matrices (where
// the per-matrix overhead and the threading over the batch show). Best of several runs; the ratio
// is LibTorch's time over Ember's (above 1: Ember is faster).
//   scripts/bench.sh   (builds with -DEMBER_BUILD_BENCH=ON; runs on one thread, then on two)
//   bench_linalg [threads]
#include <torch/torch.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "BenchTorch.h"
#include "ember/ember.h"

using bench::to_torch;

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  at::set_num_threads(threads);
  ember::set_num_threads(threads);
  std::printf("%d thread(s), float32; times in ms, ratio = libtorch / ember\n", threads);
  struct Shape {
    int64_t batch, n;
  };
  for (Shape s : {Shape{1, 64}, Shape{1, 256}, Shape{1, 1024}, Shape{1000, 4}}) {
    std::vector<int64_t> sz = {s.batch, s.n, s.n};
    const ember::Tensor x = ember::randn(sz);
    const ember::Tensor eye = ember::eye(s.n) * static_cast<float>(s.n);
    const ember::Tensor A = x + eye;                                      // well-conditioned
    const ember::Tensor P = ember::matmul(x, x.transpose(-2, -1)) + eye;  // positive-definite
    const ember::Tensor B = ember::randn({s.batch, s.n, 16});
    const at::Tensor tA = to_torch(A), tP = to_torch(P), tB = to_torch(B);
    const int reps = s.n >= 1024 ? 3 : 10;
    const std::string shape = s.batch > 1
                                  ? std::to_string(s.batch) + "x" + std::to_string(s.n) + "x" + std::to_string(s.n)
                                  : std::to_string(s.n) + "x" + std::to_string(s.n);
    auto row = [&](const char* op, const std::function<void()>& fe, const std::function<void()>& ft) {
      const double me = bench::best_ms(fe, reps), mt = bench::best_ms(ft, reps);
      std::printf("%-10s %-12s ember %10.3f ms   libtorch %10.3f ms   ratio %.2f\n", op, shape.c_str(), me, mt,
                  mt / me);
    };
    row(
        "inv", [&] { (void)ember::linalg::inv(A); }, [&] { (void)torch::linalg::inv(tA); });
    row(
        "solve", [&] { (void)ember::linalg::solve(A, B, true); }, [&] { (void)torch::linalg::solve(tA, tB, true); });
    row(
        "cholesky", [&] { (void)ember::linalg::cholesky(P); }, [&] { (void)torch::linalg::cholesky(tP); });
    row(
        "qr", [&] { (void)ember::linalg::qr(A); }, [&] { (void)torch::linalg::qr(tA); });
    row(
        "svd", [&] { (void)ember::linalg::svd(A, false, std::nullopt); },
        [&] { (void)torch::linalg::svd(tA, false, c10::nullopt); });
    row(
        "svdvals", [&] { (void)ember::linalg::svdvals(A, std::nullopt); },
        [&] { (void)torch::linalg::svdvals(tA, c10::nullopt); });
    row(
        "eigh", [&] { (void)ember::linalg::eigh(P, "L"); }, [&] { (void)torch::linalg::eigh(tP, "L"); });
    row(
        "eigvalsh", [&] { (void)ember::linalg::eigvalsh(P, "L"); }, [&] { (void)torch::linalg::eigvalsh(tP, "L"); });
    row(
        "det", [&] { (void)ember::linalg::det(A); }, [&] { (void)torch::linalg::det(tA); });
    row(
        "slogdet", [&] { (void)ember::linalg::slogdet(A); }, [&] { (void)torch::linalg::slogdet(tA); });
  }
  return 0;
}
