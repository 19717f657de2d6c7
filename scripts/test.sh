#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The octet authors
#
# Install, build and run the test suite. Default: everything but the labels that need a GPU,
# the full exhaustive matrix or a fuzzing run (CI runs this). Pass ctest label options to
# choose others, e.g. `scripts/test.sh -L exhaustive` for the whole 2^32 matrix.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
octet_build
cd "$build_dir"
if (($#)); then
  ctest --output-on-failure "$@"
else
  ctest --output-on-failure -LE "exhaustive|gpu|fuzz"
fi
