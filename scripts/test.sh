#!/usr/bin/env bash
# The whole test suite: unit, plugin, codegen and op suites, then the out-of-tree examples built
# against an installed copy with the build tree moved away.
#   scripts/test.sh           the suite (what .ci/run runs)
#   scripts/test.sh --asan    the unit, plugin and op suites under ASan+UBSan (build-asan/)
#   scripts/test.sh --tsan    the registration/dispatch stress, dispatcher, autograd and distributed suites under TSan (build-tsan/)
#   scripts/test.sh --vs-libtorch  the differential suite against LibTorch 1.13 (tests/vs_libtorch; installs libtorch-dev)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/setup.sh"
source "$root/scripts/setup.sh"  # setup_python_venv
EMBER_TEST_PYTHON="${EMBER_TEST_PYTHON:-$(setup_python_venv)}"
export EMBER_TEST_PYTHON
mode="${1:-}"
case "$mode" in
  --asan)
    "$root/scripts/build.sh" "$root/build-asan" -DEMBER_SANITIZE="address;undefined" -DCMAKE_BUILD_TYPE=RelWithDebInfo
    # Keep plugins mapped so leak reports name their frames (toolchain.md §1).
    # intercept_tls_get_addr=0: GCC 12's LeakSanitizer reads a garbage dynamic-TLS range of the
    # OpenMP workers that oneDNN (cpu plugin, matmul) starts, and its tracer dies with SIGSEGV at
    # exit after the tests passed ("Tracer caught signal 11", a sanitizer-runtime bug).
    # lsan.supp: caches third-party libraries keep for the process lifetime (fontconfig).
    EMBER_PLUGIN_NODELETE=1 ASAN_OPTIONS=detect_leaks=1:intercept_tls_get_addr=0 LSAN_OPTIONS=suppressions="$root/scripts/lsan.supp" \
      UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
      ctest --test-dir "$root/build-asan" --output-on-failure -j 2 -E codegen_golden
    exit 0 ;;
  --tsan)
    "$root/scripts/build.sh" "$root/build-tsan" -DEMBER_SANITIZE=thread -DCMAKE_BUILD_TYPE=RelWithDebInfo
    # One intra-op thread: libgomp is not TSan-instrumented and its barriers give false reports.
    # The MPI suite is left out: Open MPI's own (uninstrumented) locks report lock-order inversions.
    OMP_NUM_THREADS=1 TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 EMBER_PLUGIN_NODELETE=1 \
      ctest --test-dir "$root/build-tsan" --output-on-failure -R "Stress|Dispatch|Registration|Plugin|Autograd|DataLoader|PinnedMemory|Store|DistApi|Gloo|Ddp|DTensor"
    exit 0 ;;
  --vs-libtorch)
    "$root/scripts/setup.sh" --bench  # libtorch-dev
    # build.sh passes -D options only when it configures a new tree.
    [ ! -f "$root/build/build.ninja" ] || cmake "$root/build" -DEMBER_VS_LIBTORCH=ON >/dev/null
    "$root/scripts/build.sh" "$root/build" -DEMBER_VS_LIBTORCH=ON
    ctest --test-dir "$root/build" --output-on-failure -j 2 -L vs_libtorch
    exit 0 ;;
  "") ;;
  *) echo "usage: scripts/test.sh [--asan|--tsan|--vs-libtorch]" >&2; exit 2 ;;
esac

"$root/scripts/build.sh" "$root/build"
ctest --test-dir "$root/build" --output-on-failure -j 2

# Install to a temporary prefix, move the build tree away, build and run examples/ against it.
prefix="$(mktemp -d /tmp/ember-prefix.XXXXXX)"
cmake --install "$root/build" --prefix "$prefix" >/dev/null
aside="$root/build.aside.$$"
mv "$root/build" "$aside"
trap 'mv "$aside" "$root/build"; rm -rf "$prefix"' EXIT
"$root/scripts/examples.sh" "$prefix"
