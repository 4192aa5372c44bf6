#!/usr/bin/env bash
# Configures (once) and builds a tree: scripts/build.sh BUILD_DIR [cmake -D options...]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="$1"; shift
# Paths relative to the checkout in ccache's hash, so a fresh clone anywhere (CI) hits the cache.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-true}"
py=python3
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c "import yaml" 2>/dev/null && py=/usr/bin/python3
if [ ! -f "$dir/build.ninja" ]; then
  cmake -S "$root" -B "$dir" -G Ninja -DPython3_EXECUTABLE="$py" "$@" >/dev/null
fi
jobs=$(nproc 2>/dev/null || echo 2)
cmake --build "$dir" -j "$jobs"
