#!/usr/bin/env bash
# Benchmarks beside LibTorch 1.13 in the same process (installs libtorch-dev and the OpenMP
# OpenBLAS that "tuned" LibTorch uses). Reported as ratios Ember / LibTorch.
#   scripts/bench.sh            dispatch, GEMM, nn (conv2d, max_pool2d), linalg and fft on one core
#                               (linalg and fft on two too); elementwise on one and two threads,
#                               LibTorch stock and tuned; autograd (small ops and a chain on one core,
#                               an MLP step on one and two threads)
# Tuned (perf-anchors.md §0): environment-only fixes that make LibTorch fair: the OpenMP build of
# OpenBLAS, OPENBLAS_CORETYPE unset, malloc asking for huge pages.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/setup.sh" --bench
"$root/scripts/build.sh" "$root/build-bench" -DEMBER_BUILD_BENCH=ON -DEMBER_BUILD_TESTS=OFF >/dev/null
bin="$root/build-bench/bin"
# LibTorch loads libgomp before libember can set the wait policy (Note [One intra-op pool]):
# set it here, for both.
export OMP_WAIT_POLICY=PASSIVE
tuned() {
  env -u OPENBLAS_CORETYPE GLIBC_TUNABLES=glibc.malloc.hugetlb=1 \
    LD_LIBRARY_PATH="/usr/lib/x86_64-linux-gnu/openblas-openmp${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@"
}
echo "== bench/dispatch (1 thread)"; OMP_NUM_THREADS=1 taskset -c 1 "$bin/bench_dispatch"
echo "== bench/gemm (1 thread)"; OMP_NUM_THREADS=1 taskset -c 1 "$bin/bench_gemm"
echo "== bench/indexing (1 thread)"; OMP_NUM_THREADS=1 taskset -c 1 "$bin/bench_indexing"
echo "== bench/reduce (1 thread)"; OMP_NUM_THREADS=1 taskset -c 1 "$bin/bench_reduce"
for t in 1 2; do
  pin=(); [ "$t" = 1 ] && pin=(taskset -c 1)
  echo "== bench/elementwise, $t thread(s), LibTorch stock"; "${pin[@]}" "$bin/bench_elementwise" "$t"
  echo "== bench/elementwise, $t thread(s), LibTorch tuned"; tuned "${pin[@]}" "$bin/bench_elementwise" "$t"
done
echo "== bench/nn (1 thread)"; OMP_NUM_THREADS=1 taskset -c 1 "$bin/bench_nn"
echo "== bench/linalg (1 thread)"; OMP_NUM_THREADS=1 taskset -c 1 "$bin/bench_linalg" 1
echo "== bench/linalg (2 threads)"; "$bin/bench_linalg" 2
echo "== bench/fft (1 thread)"; OMP_NUM_THREADS=1 taskset -c 1 "$bin/bench_fft" 1
echo "== bench/fft (2 threads)"; "$bin/bench_fft" 2
echo "== bench/sparse (1 thread)"; OMP_NUM_THREADS=1 taskset -c 1 "$bin/bench_sparse" 1
echo "== bench/sparse (2 threads)"; "$bin/bench_sparse" 2
echo "== bench/quantized (1 thread)"; OMP_NUM_THREADS=1 taskset -c 1 "$bin/bench_quantized" 1
echo "== bench/quantized (2 threads)"; "$bin/bench_quantized" 2
# Autograd: small ops and the engine on one core; the MLP step on one and two threads.
echo "== bench/autograd (1 thread), LibTorch stock"; OMP_NUM_THREADS=1 taskset -c 1 "$bin/bench_autograd" 1
echo "== bench/autograd (1 thread), LibTorch tuned"; OMP_NUM_THREADS=1 tuned taskset -c 1 "$bin/bench_autograd" 1
echo "== bench/autograd, MLP on 2 threads, LibTorch tuned"; tuned "$bin/bench_autograd" 2
# The same with workers that spin briefly before sleeping: what the passive pool's wake-ups cost
# per parallel region (on a quiet machine only: spinning on a busy one is far slower).
echo "== bench/autograd, MLP on 2 threads, LibTorch tuned, OMP_WAIT_POLICY=ACTIVE GOMP_SPINCOUNT=10000"
OMP_WAIT_POLICY=ACTIVE GOMP_SPINCOUNT=10000 tuned "$bin/bench_autograd" 2
# The small CNN's training step (perf-anchors.md §7) on one and two threads, and each framework's
# peak resident memory training it (one process each).
echo "== bench/train, CNN step, 1 thread, LibTorch tuned"; OMP_NUM_THREADS=1 tuned taskset -c 1 "$bin/bench_train" 1
echo "== bench/train, CNN step, 2 threads, LibTorch tuned"; tuned "$bin/bench_train" 2
echo "== bench/train, peak resident memory"
for w in ember torch; do tuned "$bin/bench_train" rss "$w" 50; done
# DDP: the CNN step on 2 processes (1 thread each, batch 64 each) beside one process on batch 64.
echo "== bench/ddp, CNN step, 2 processes over Gloo"; tuned "$bin/bench_ddp" 50
# all_reduce bus bandwidth on 2 processes over loopback, 1 KiB .. 256 MiB: Ember's gloo group beside
# gloo::allreduce called directly (started by `ember run`), and Ember's mpi group beside
# MPI_Allreduce (under mpirun) when the build has MPI.
echo "== bench/distributed, all_reduce busbw, 2 processes, gloo"
OMP_NUM_THREADS=1 "$bin/ember" run --nproc-per-node 2 -- "$bin/bench_distributed" gloo
if [ "$("$bin/bench_distributed" has-mpi)" = yes ] && command -v mpirun >/dev/null; then
  echo "== bench/distributed, all_reduce busbw, 2 processes, mpi"
  OMP_NUM_THREADS=1 mpirun -np 2 --allow-run-as-root --oversubscribe "$bin/bench_distributed" mpi
fi
