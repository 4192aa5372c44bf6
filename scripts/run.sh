#!/usr/bin/env bash
# The main job: until the training job exists, a demo that loads the CPU plugin at run time,
# runs a few operators and prints what loaded.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/setup.sh"
"$root/scripts/build.sh" "$root/build" >/dev/null
exec "$root/build/bin/ember" demo
