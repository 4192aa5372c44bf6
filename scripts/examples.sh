#!/usr/bin/env bash
# Builds and runs examples/ (a standalone CMake project) against an installed Ember:
#   scripts/examples.sh PREFIX        e.g. after `cmake --install build --prefix PREFIX`
# Configures with CMAKE_PREFIX_PATH=PREFIX and Ninja in a temporary build directory, builds, and
# runs the examples' tests (ctest --output-on-failure). Exits non-zero on any failure.
# EMBER_EXAMPLES_BUILD_DIR=DIR keeps the build in DIR instead (for looking at it afterwards).
set -euo pipefail
if [ $# -ne 1 ]; then
  echo "usage: scripts/examples.sh PREFIX" >&2
  exit 2
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
prefix="$(cd "$1" && pwd)"
if [ ! -f "$prefix/lib/cmake/Ember/EmberConfig.cmake" ] && ! compgen -G "$prefix/lib*/cmake/Ember/EmberConfig.cmake" >/dev/null; then
  echo "scripts/examples.sh: no Ember package under $prefix (expected lib/cmake/Ember/EmberConfig.cmake)" >&2
  exit 1
fi

if [ -n "${EMBER_EXAMPLES_BUILD_DIR:-}" ]; then
  build="$EMBER_EXAMPLES_BUILD_DIR"
  mkdir -p "$build"
else
  build="$(mktemp -d "${TMPDIR:-/tmp}/ember-examples.XXXXXX")"
  trap 'rm -rf "$build"' EXIT
fi

jobs=$(nproc 2>/dev/null || echo 2)
echo "== examples: configure against $prefix (build in $build)"
cmake -S "$root/examples" -B "$build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release
echo "== examples: build"
cmake --build "$build" -j "$jobs"
echo "== examples: run"
ctest --test-dir "$build" --output-on-failure
