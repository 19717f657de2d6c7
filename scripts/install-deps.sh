#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The octet authors
#
# Installs everything octet needs on Debian 12 (run as root): the Debian packages through apt,
# and a Python venv inside the build tree (numpy, ml_dtypes, h5py) for the cross-library checks.
# Idempotent: packages already present are not reinstalled.
#   usage: scripts/install-deps.sh [BUILD_DIR]   (default: build)
set -euo pipefail
build_dir=${1:-build}

packages=(
  build-essential cmake git pkg-config
  libeigen3-dev          # Eigen: GEMM paths
  libboost-dev           # Boost.Multiprecision: exact rational oracle
  libhdf5-dev            # HDF5 C/C++: golden files
  libgtest-dev libgmock-dev
  libbenchmark-dev       # Google Benchmark
  libcli11-dev           # CLI11: the octet command line
  libfmt-dev
  libomp-dev             # OpenMP runtime for clang builds (g++ uses libgomp)
  python3 python3-venv python3-pip
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "octet: installing Debian packages: ${missing[*]}"
  if [[ $(id -u) -ne 0 ]]; then
    echo "octet: need root to install packages (run as root, or install: ${missing[*]})" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# CUDA: nvcc is used when present (/usr/local/cuda on octet's machines); it is not installed here.
if ! command -v nvcc >/dev/null && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  echo "octet: nvcc found at /usr/local/cuda/bin (add it to PATH to build the CUDA backend)"
fi

# Python venv in the build tree. Use Debian's interpreter so that the venv does not depend on
# whatever else is on PATH.
mkdir -p "$build_dir"
venv="$build_dir/venv"
py=/usr/bin/python3
[[ -x $py ]] || py=$(command -v python3)
if [[ ! -x $venv/bin/python ]]; then
  echo "octet: creating Python venv $venv"
  "$py" -m venv "$venv"
fi
# ml_dtypes below 0.7: octet's `ml_dtypes` cast profile is that of 0.5-0.6. 0.7.0 rounds float64
# sources directly (PR #401) and fp32 subnormals in (2^-127, 1.5·2^-127) to e8m0 0x00 instead of
# 0x01; tests/conformance/ml_dtypes_test.py compares every fp32 input with the installed release.
ml_dtypes_spec="ml_dtypes>=0.5,<0.7"
if ! "$venv/bin/python" -c "import numpy, h5py, ml_dtypes, sys
v = tuple(int(x) for x in ml_dtypes.__version__.split('.')[:2])
sys.exit(0 if (0, 5) <= v < (0, 7) else 1)" 2>/dev/null; then
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "numpy>=1.26" "$ml_dtypes_spec" "h5py>=3.10"
fi
echo "octet: dependencies ready ($("$venv/bin/python" -c 'import ml_dtypes, numpy; print("ml_dtypes", ml_dtypes.__version__, "numpy", numpy.__version__)'))"
