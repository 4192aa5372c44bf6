#!/usr/bin/env bash
# Fuzzes the safetensors reader with libFuzzer: scripts/fuzz.sh [seconds] [build dir] (default 600 s,
# build/). Inputs that reach new code accumulate in <build>/tests/serialize/fuzz_corpus (the
# checked-in seeds in tests/serialize/fuzz_seeds are only read); a crashing input is saved as
# <build>/tests/serialize/fuzz_crash-<hash> and the script exits non-zero. The normal suite runs
# a short smoke run of the same target (ctest -R serialize_fuzz_smoke).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
secs="${1:-600}"
build="${2:-$root/build}"
[ -f "$build/build.ninja" ] || "$root/scripts/build.sh" "$build"
if ! cmake --build "$build" --target ember_serialize_fuzz; then
  echo "fuzz: cannot build the fuzz target (it needs clang++ with -fsanitize=fuzzer)" >&2
  exit 1
fi
dir="$build/tests/serialize"
mkdir -p "$dir/fuzz_corpus"
exec "$dir/fuzz_safetensors" -max_total_time="$secs" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 -dict="$root/tests/serialize/fuzz.dict" -artifact_prefix="$dir/fuzz_crash-" \
  "$dir/fuzz_corpus" "$root/tests/serialize/fuzz_seeds"
