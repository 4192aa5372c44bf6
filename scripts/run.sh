#!/usr/bin/env bash
# The main job: installs what it needs, builds, and trains the small CNN on Fashion-MNIST
# (Debian's dataset-fashion-mnist) with the plugins loaded at run time: `ember train`, whose
# flags this passes on (scripts/run.sh --epochs 3 --optimizer adam, ...; --help lists them).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/setup.sh"
"$root/scripts/build.sh" "$root/build" >/dev/null
exec "$root/build/bin/ember" train "$@"
