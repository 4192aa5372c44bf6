#!/usr/bin/env bash
# Installs the Debian packages Ember builds with, once: quick when they are already there.
set -euo pipefail
pkgs=(cmake ninja-build ccache g++ python3 python3-yaml libfmt-dev libboost-dev
      libdnnl-dev ocl-icd-opencl-dev libopenblas-dev libopenblas0-openmp libsleef-dev libgtest-dev libgmock-dev libbenchmark-dev
      nlohmann-json3-dev zlib1g-dev libcli11-dev libplplot-dev plplot-driver-cairo dataset-fashion-mnist
      python3-venv)
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
