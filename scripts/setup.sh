#!/usr/bin/env bash
# Installs the Debian packages Ember builds with, once: quick when they are already there.
set -euo pipefail

# A venv with PyPI's safetensors and numpy for the serialization interop tests (tests/serialize),
# created once ($EMBER_VENV, default ~/.cache/ember-venv); prints its python, or nothing when it
# cannot be made (no network), and then those tests skip. `source scripts/setup.sh` defines only this.
setup_python_venv() {
  local venv="${EMBER_VENV:-$HOME/.cache/ember-venv}" py=/usr/bin/python3
  [ -x "$py" ] || py=python3
  if ! "$venv/bin/python" -c "import safetensors, numpy" 2>/dev/null; then
    echo "setup: creating $venv (safetensors, numpy from PyPI)" >&2
    if ! { "$py" -m venv "$venv" && "$venv/bin/pip" install -q --disable-pip-version-check \
             "safetensors==0.8.0" "numpy==2.4.6"; } >&2; then
      echo "setup: could not prepare $venv; the Python interop tests will skip" >&2
      return 0
    fi
  fi
  echo "$venv/bin/python"
}
[ "${BASH_SOURCE[0]}" = "$0" ] || return 0

pkgs=(cmake ninja-build ccache g++ python3 python3-yaml libfmt-dev libboost-dev
      libdnnl-dev ocl-icd-opencl-dev libopenblas-dev libopenblas0-openmp libsleef-dev libgtest-dev libgmock-dev libbenchmark-dev
      nlohmann-json3-dev zlib1g-dev libcli11-dev libplplot-dev plplot-driver-cairo dataset-fashion-mnist
      python3-venv libgloo-dev libopenmpi-dev openmpi-bin iproute2
      hipcc libamdhip64-dev rocm-device-libs)  # the hip plugin (plugins/hip), built for gfx90a and gfx1030
if [ "${1:-}" = "--bench" ]; then pkgs+=(libtorch-dev); fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
setup_python_venv >/dev/null
