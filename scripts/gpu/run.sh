#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The octet authors
#
# run.sh — build octet's CUDA backend on a GPU machine and check it there: the gpu-labelled
# tests (ctest -L gpu), the cast benchmark, compute-sanitizer memcheck and racecheck on a
# reduced test run (OCTET_GPU_TEST_REDUCED=1), and the cvt instructions in the SASS. Needs
# nvcc, CMake >= 3.25 and the libraries of the top-level CMakeLists.txt; no network.
#   usage: scripts/gpu/run.sh            (from anywhere; builds in <repo>/build-gpu)
#   env:   OUT                 log folder (default build-gpu/logs)
#          OCTET_GPU_BUILD     build folder (default build-gpu)
#          OCTET_GPU_BUDGET_S  seconds for the whole run (default 560); each step gets what is
#                              left, and the summary table is always printed, last
#          OCTET_GPU_BUILD_ALL=1  build every target, not only the GPU ones
#          OCTET_GPU_STEPS     comma-separated steps to run after the build (default all: tests,
#                              bench,patterns,memcheck,racecheck,torch,gemm-calibration,
#                              torch-ref); "none"
#                              only builds (a warm machine keeps the build for the next call)
# Exit status: 0 when every step that ran passed.
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
root=$PWD
build=${OCTET_GPU_BUILD:-build-gpu}
logs=${OUT:-$root/$build/logs}
budget=${OCTET_GPU_BUDGET_S:-560}
start=$(date +%s)
mkdir -p "$logs"
export PATH="/usr/local/cuda/bin:$PATH"
jobs=$(nproc 2>/dev/null || echo 4)

declare -A rc secs
steps=()

# run_step NAME MAX_SECONDS LOG CMD... — runs CMD under the time left, appending to LOG.
run_step() {
  local name=$1 max=$2 log=$3
  shift 3
  local now left t0
  now=$(date +%s)
  left=$((start + budget - now - 15))  # keep time for the summary
  ((left < max)) && max=$left
  steps+=("$name")
  if ((max < 5)); then
    rc[$name]=skipped
    secs[$name]=0
    echo "== $name: skipped, no time left" | tee -a "$log"
    return 0
  fi
  echo "== $name (limit ${max}s): $*" >>"$log"
  t0=$(date +%s)
  timeout --kill-after=10 "$max" "$@" >>"$log" 2>&1
  rc[$name]=$?
  secs[$name]=$(($(date +%s) - t0))
  echo "== $name: rc ${rc[$name]} in ${secs[$name]}s" | tee -a "$log"
}

# ---------------------------------------------------------------------------------------------
# environment, configure, build

{
  date -u
  nvidia-smi || true
  nvcc --version || true
  cmake --version | head -1
  c++ --version | head -1
  echo "cores: $jobs"
} >"$logs/build.log" 2>&1

gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
run_step configure 180 "$logs/build.log" \
  cmake -S "$root" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DOCTET_CUDA=ON -DOCTET_PYTHON=OFF
targets=(--target octet_gpu_tests octet_gpu_bench octet_capi octet_gpu_kernel_tests octet_gpu_bench_quant
  octet_gpu_bench_layout)
[[ ${OCTET_GPU_BUILD_ALL:-0} == 1 ]] && targets=()
if [[ ${rc[configure]} == 0 ]]; then
  run_step build 300 "$logs/build.log" cmake --build "$build" -j "$jobs" "${targets[@]}"
fi
tests_bin=$build/backends/octet_gpu_tests
kernel_tests_bin=$build/backends/octet_gpu_kernel_tests
bench_bin=$build/backends/octet_gpu_bench
built=no
[[ ${rc[build]:-} == 0 && -x $tests_bin && -x $bench_bin ]] && built=yes
wanted=${OCTET_GPU_STEPS:-all}
want() { [[ $wanted == all || ",$wanted," == *",$1,"* ]]; }

# ---------------------------------------------------------------------------------------------
# tests, benchmark, sanitizers, SASS

if [[ $built == yes ]]; then
  now=$(date +%s)
  want tests && run_step tests 300 "$logs/tests.log" \
    ctest --test-dir "$build" -L gpu -V --output-on-failure --timeout $((start + budget - now - 30))
  want bench && run_step bench 90 "$logs/bench.log" "$bench_bin"
  want bench && run_step bench-quant 150 "$logs/bench_kernels.log" "$build/backends/octet_gpu_bench_quant"
  want bench && run_step bench-layout 150 "$logs/bench_kernels.log" "$build/backends/octet_gpu_bench_layout"
  # The access-pattern experiment behind the column quantisers' design (memory_patterns.cu).
  want patterns && run_step patterns 120 "$logs/patterns.log" bash -c \
    "nvcc -O3 -std=c++17 -arch=sm_90a -o '$build/memory_patterns' scripts/gpu/memory_patterns.cu && '$build/memory_patterns'"

  sanitizer=$(command -v compute-sanitizer || true)
  [[ -z $sanitizer && -x /usr/local/cuda/compute-sanitizer/compute-sanitizer ]] &&
    sanitizer=/usr/local/cuda/compute-sanitizer/compute-sanitizer
  if [[ -n $sanitizer ]] && (want memcheck || want racecheck); then
    want memcheck && run_step memcheck-kernels 300 "$logs/memcheck.log" env OCTET_GPU_TEST_REDUCED=1 \
      "$sanitizer" --tool memcheck --error-exitcode 99 --print-limit 20 "$kernel_tests_bin"
    want racecheck && run_step racecheck-kernels 150 "$logs/racecheck.log" env OCTET_GPU_TEST_REDUCED=1 \
      "$sanitizer" --tool racecheck --error-exitcode 99 --print-limit 20 "$kernel_tests_bin" \
      '--gtest_filter=-Cases/GpuKernels.BytesEqualEmulator/large_*'
    want memcheck && run_step memcheck 150 "$logs/memcheck.log" env OCTET_GPU_TEST_REDUCED=1 \
      "$sanitizer" --tool memcheck --error-exitcode 99 --print-limit 20 "$tests_bin"
    want racecheck && run_step racecheck 90 "$logs/racecheck.log" env OCTET_GPU_TEST_REDUCED=1 \
      "$sanitizer" --tool racecheck --error-exitcode 99 --print-limit 20 "$tests_bin" \
      '--gtest_filter=GpuCast/Variant1Matrix.*/e4m3fn_*:GpuCast/FullSweep.*:GpuCast/HardwareCvt16.*:GpuCast.*'
  elif want memcheck || want racecheck; then
    steps+=(memcheck racecheck)
    rc[memcheck]="no compute-sanitizer"
    rc[racecheck]="no compute-sanitizer"
  fi

  # torch's float8 casts (CPU and CUDA) against the `torch` profile over all 2^32 fp32 inputs.
  capi=$(find "$build/python" -name 'liboctet_capi.so' | head -1)
  if [[ -n $capi ]] && python3 -c 'import torch, numpy' 2>/dev/null && want torch; then
    run_step torch 240 "$logs/torch.log" python3 scripts/gpu/conformance_torch.py "$capi"
    # torch._scaled_mm against octet's GEMM accumulation models (docs/gemm-accumulation.md).
  fi
  if [[ -n $capi ]] && python3 -c 'import torch, numpy' 2>/dev/null && want gemm-calibration; then
    run_step gemm-calibration 240 "$logs/gemm_calibration.log" env OUT="$logs" \
      python3 scripts/gpu/calibrate_gemm.py "$capi"
  fi

  # torch.compile references of the same kernels at the same shapes (ratios in the table below).
  if python3 -c 'import torch' 2>/dev/null && want torch-ref; then
    for ref in scripts/gpu/torch_ref_*.py; do
      [[ -f $ref ]] && run_step "$(basename "$ref" .py)" 200 "$logs/torch_ref.log" python3 "$ref"
    done
  fi

  obj=$(find "$build" -name 'sm90_cast.cu.o' | head -1)
  if command -v cuobjdump >/dev/null && [[ -n $obj ]]; then
    {
      echo "cvt instructions in $obj (cuobjdump -sass), by opcode:"
      cuobjdump -sass "$obj" | grep -oE 'F2FP[.A-Z0-9_]*' | sort | uniq -c
      echo "16-byte global accesses:"
      cuobjdump -sass "$obj" | grep -oE '(LDG|STG)[.A-Z0-9_]*128[.A-Z0-9_]*' | sort | uniq -c
      echo "one variant-2 kernel (fp32 -> e4m3fn, NaN step, vector):"
      cuobjdump -sass "$obj" | awk '/Function : .*cast_kernel2ILNS_10SourceTypeE0ELNS_8FormatIdE0ELb1ELb1E/{p=1} p{print} p&&/EXIT/{n++} n>=2{exit}' | head -150
    } >"$logs/sass.txt" 2>&1
  fi
fi

# ---------------------------------------------------------------------------------------------
# summary, last

{
  echo
  echo "==================== octet GPU run summary ($(date -u +%Y-%m-%dT%H:%MZ), $(($(date +%s) - start)) s) ===================="
  gpu=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)
  printf '%-10s %s\n' device "${gpu:-unknown}; $(nvcc --version 2>/dev/null | grep -o 'release [0-9.]*, V[0-9.]*' | head -1)"
  for s in "${steps[@]}"; do
    detail=""
    case $s in
      tests)
        t=$logs/tests.log
        ran=$(grep -oE '[0-9]+ tests? from [0-9]+ test suites? ran' "$t" | tail -1 | awk '{print $1}')
        passed=$(grep -oE '\[  PASSED  \] [0-9]+' "$t" | tail -1 | grep -oE '[0-9]+$')
        failed=$(grep -oE '\[  FAILED  \] [0-9]+ tests?,' "$t" | tail -1 | grep -oE '[0-9]+')
        skipped=$(grep -oE '\[  SKIPPED \] [0-9]+ tests?,' "$t" | tail -1 | grep -oE '[0-9]+')
        detail="gtest: ${ran:-?} ran, ${passed:-0} passed, ${failed:-0} failed, ${skipped:-0} skipped"
        ;;
      memcheck | racecheck | memcheck-kernels | racecheck-kernels)
        detail=$(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY' "$logs/$s.log" 2>/dev/null | tail -1 | sed 's/^========= //')
        ;;
      bench)
        detail=$(grep -E '^Disposition' "$logs/bench.log" 2>/dev/null | tail -1)
        ;;
      patterns)
        detail=$(grep -E 'along rows \+ barrier, T=128' "$logs/patterns.log" 2>/dev/null | grep -oE '[0-9.]+% of copy' |
          head -1 | sed 's/^/stream skeleton at /')
        ;;
      torch)
        detail=$(grep -E 'passed, [0-9]+ failed' "$logs/torch.log" 2>/dev/null | tail -1)
        ;;
      gemm-calibration)
        detail=$(grep -E '^done in' "$logs/gemm_calibration.log" 2>/dev/null | tail -1)
        ;;
      configure | build)
        [[ ${rc[$s]} != 0 ]] && detail=$(grep -m3 -E 'error|Error' "$logs/build.log" | tr '\n' ' ' | cut -c1-300)
        ;;
    esac
    printf '%-10s rc %-4s %4ss  %s\n' "$s" "${rc[$s]}" "${secs[$s]:-0}" "$detail"
  done
  if [[ -f $logs/tests.log ]]; then
    grep -oE '(device: .*|hw-nan .*|sweep .*|large-count .*|rcp-approx .*)' "$logs/tests.log" | sed 's/^/  /'
    grep -E '^[0-9]+: \[  FAILED  \] ' "$logs/tests.log" | head -10 | sed 's/^/  /'
  fi
  [[ -f $logs/torch.log ]] && grep -E '^(torch |float8|    input)' "$logs/torch.log" | sed 's/^/  /'
  [[ -f $logs/gemm_calibration.log ]] && grep -E '^  [a-z0-9]+/fast=' "$logs/gemm_calibration.log" | sed 's/^/  /'
  [[ -f $logs/bench.log ]] && grep -E '^(octet_gpu_bench|op |copy |cast |All results|validation)' "$logs/bench.log" | sed 's/^/  /'
  [[ -f $logs/sass.txt ]] && sed -n '2,12p' "$logs/sass.txt" | grep -E 'F2FP|LDG|STG' | sed 's/^/  sass /'
  [[ -f $logs/patterns.log ]] && grep -E '^(NVIDIA|reads|writes|both|[A-Z])' "$logs/patterns.log" | sed 's/^/  /'
  if [[ -f $logs/bench_kernels.log ]]; then
    echo
    python3 scripts/gpu/kernel_table.py "$logs/bench_kernels.log" "$logs/torch_ref.log" 2>&1 || true
  fi
} | tee "$logs/summary.txt"

status=0
for s in "${steps[@]}"; do
  [[ ${rc[$s]} == 0 || ${rc[$s]} == skipped || ${rc[$s]} == "no compute-sanitizer" ]] || status=1
done
exit $status
