// bench/sparse: SpMM, a 4096x4096 float32 matrix at 1% density times a 4096x64 dense matrix:
// Ember's CSR and COO mm beside Ember's dense mm on the same data and LibTorch 1.13's sparse mm
// (COO and CSR), in the same process; then coalesce of the same matrix with every entry twice
// (uncoalesced, reversed), and sparse + sparse. Best of 15 runs; the thread count is argv[1]
// (default 1).
//   scripts/bench.sh   (builds with -DEMBER_BUILD_BENCH=ON)
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>

#include "BenchUtil.h"
#include "ember/ember.h"

namespace {

using bench::best_ms;

at::Tensor to_torch(const ember::Tensor& e) {
  const ember::Tensor c = e.contiguous();
  at::Tensor t = at::empty(std::vector<int64_t>(c.sizes().begin(), c.sizes().end()),
                           c.scalar_type() == ember::kInt64 ? at::kLong : at::kFloat);
  std::memcpy(t.data_ptr(), c.data_ptr(), static_cast<size_t>(c.numel()) * c.itemsize());
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  at::set_num_threads(threads);
  ember::set_num_threads(threads);
  const int64_t n = 4096, k = 4096, m = 64;
  ember::manual_seed(0);
  const ember::Tensor a = ember::rand({n, k}).mul(ember::rand({n, k}).lt(0.01));
  const ember::Tensor b = ember::rand({k, m});
  const ember::Tensor coo = a.to_sparse(), csr = a.to_sparse_csr();
  const at::Tensor ta = to_torch(a), tb = to_torch(b);
  const at::Tensor tcoo = ta.to_sparse(), tcsr = ta.to_sparse_csr();
  const double err = to_torch(ember::mm(csr, b)).sub(at::mm(tcoo, tb)).abs().max().item<double>();
  std::printf("SpMM %ldx%ld (nnz %ld, %.2f%%) x %ldx%ld, %d thread(s); max |ember csr - libtorch coo| = %.2e\n", n, k,
              coo._nnz(), 100.0 * static_cast<double>(coo._nnz()) / static_cast<double>(n * k), k, m, threads, err);
  const double dense = best_ms([&] { (void)ember::mm(a, b); });
  const double e_csr = best_ms([&] { (void)ember::mm(csr, b); });
  const double e_coo = best_ms([&] { (void)ember::mm(coo, b); });
  const double t_coo = best_ms([&] { (void)at::mm(tcoo, tb); });
  double t_csr = -1;
  try {
    t_csr = best_ms([&] { (void)at::mm(tcsr, tb); });
  } catch (const std::exception&) {
  }
  std::printf("ember dense mm        %8.3f ms\n", dense);
  std::printf("ember csr mm          %8.3f ms   %5.1fx dense   libtorch/ember %.2f (csr)\n", e_csr, dense / e_csr,
              t_csr > 0 ? t_csr / e_csr : 0.0);
  std::printf("ember coo mm          %8.3f ms   %5.1fx dense   libtorch/ember %.2f (coo)\n", e_coo, dense / e_coo,
              t_coo / e_coo);
  std::printf("libtorch coo mm       %8.3f ms\n", t_coo);
  if (t_csr > 0)
    std::printf("libtorch csr mm       %8.3f ms\n", t_csr);
  else
    std::printf("libtorch csr mm       unavailable (needs MKL)\n");
  // Every entry twice, the second half reversed: coalesce sorts and sums them.
  const ember::Tensor ix = coo._indices(), v = coo._values();
  const ember::Tensor dup =
      ember::sparse_coo_tensor(ember::cat({ix, ix.flip({1})}, 1), ember::cat({v, v.flip({0})}, 0), {n, k});
  const at::Tensor tdup = at::sparse_coo_tensor(to_torch(ember::cat({ix, ix.flip({1})}, 1)),
                                                to_torch(ember::cat({v, v.flip({0})}, 0)), {n, k});
  const double e_coal = best_ms([&] { (void)dup.coalesce(); });
  const double t_coal = best_ms([&] { (void)tdup.coalesce(); });
  std::printf("coalesce (nnz %ld -> %ld)  ember %8.3f ms   libtorch %8.3f ms   ember/libtorch %.2f\n", dup._nnz(),
              coo._nnz(), e_coal, t_coal, e_coal / t_coal);
  const double e_add = best_ms([&] { (void)coo.add(coo); });
  const double t_add = best_ms([&] { (void)tcoo.add(tcoo); });
  std::printf("coo + coo               ember %8.3f ms   libtorch %8.3f ms   ember/libtorch %.2f\n", e_add, t_add,
              e_add / t_add);
  return 0;
}
