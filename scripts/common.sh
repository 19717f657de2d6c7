# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The octet authors
#
# Shared by scripts/main.sh and scripts/test.sh: install dependencies, configure and build.
# Environment: OCTET_BUILD_DIR (default build), OCTET_JOBS (default: all cores).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${OCTET_BUILD_DIR:-$repo/build}
jobs=${OCTET_JOBS:-$(nproc)}

# nvcc lives in /usr/local/cuda/bin on octet's machines; the CUDA backend is built when found.
if ! command -v nvcc >/dev/null 2>&1 && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi

octet_build() {
  "$repo/scripts/install-deps.sh" "$build_dir"
  cmake -S "$repo" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release "$@"
  cmake --build "$build_dir" -j "$jobs"
}
