#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The octet authors
#
# The main job: install, build, then run octet's default work (format table, casts under the
# profiles, an exhaustive fp32 sweep checked against the reference).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
octet_build
echo
echo "== octet (default work) =="
"$build_dir/cli/octet"

echo
echo "== golden: the default suite, generated into the build tree, and the CPU backend checked against it =="
"$build_dir/cli/octet" golden gen --suite default --out "$build_dir/golden-data"
"$build_dir/cli/octet" golden verify --dir "$repo/golden/data"
"$repo/scripts/golden_check_cpu.sh" "$build_dir/cli/octet" "$build_dir/golden-data" "$build_dir/golden-cpu"
