#!/usr/bin/env bash
# Benchmarks beside LibTorch (installs libtorch-dev). One core, one thread.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/setup.sh" --bench
"$root/scripts/build.sh" "$root/build-bench" -DEMBER_BUILD_BENCH=ON -DEMBER_BUILD_TESTS=OFF >/dev/null
export OMP_NUM_THREADS=1
echo "== bench/dispatch"; taskset -c 1 "$root/build-bench/bin/bench_dispatch"
echo "== bench/gemm"; taskset -c 1 "$root/build-bench/bin/bench_gemm"
echo "== bench/reduce"; taskset -c 1 "$root/build-bench/bin/bench_reduce"
