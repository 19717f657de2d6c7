#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The octet authors
#
# golden_check_cpu.sh — checks the CPU backend against a golden suite: every file of the
# suite's MANIFEST is run through `octet run` (each case's kernel on the case's inputs) and the
# result compared with the file by `octet check`.
#   usage: scripts/golden_check_cpu.sh OCTET GOLDEN_DIR WORK_DIR
# Exit status: 0 when every file passes; 1 otherwise (2 on a bad argument).
set -uo pipefail
if (($# != 3)); then
  echo "usage: $0 OCTET GOLDEN_DIR WORK_DIR" >&2
  exit 2
fi
octet=$1 golden=$2 work=$3
[[ -f $golden/MANIFEST ]] || { echo "golden_check_cpu: $golden/MANIFEST: missing" >&2; exit 2; }
mkdir -p "$work"
status=0 files=0
while read -r _sha file; do
  [[ -z $file ]] && continue
  files=$((files + 1))
  if ! "$octet" run --input "$golden/$file" --output "$work/$file" >"$work/$file.run.log" 2>&1; then
    echo "FAIL  $file: octet run failed:"
    sed 's/^/      /' "$work/$file.run.log"
    status=1
    continue
  fi
  if "$octet" check --golden "$golden/$file" --candidate "$work/$file" >"$work/$file.check.log" 2>&1; then
    echo "PASS  $file: $(tail -1 "$work/$file.check.log")"
  else
    echo "FAIL  $file:"
    sed 's/^/      /' "$work/$file.check.log" | head -60
    status=1
  fi
done <"$golden/MANIFEST"
echo "golden_check_cpu: $files files, $([[ $status == 0 ]] && echo 'all pass' || echo 'FAILURES')"
exit $status
