// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// bench_transpose.cpp — the FP8-Flow-MoE scaling-aware transpose on a 16640 x 5120 e4m3 tensor
// with 1 / 16 / 64 equal groups (16640, 1040, 260 rows: the last two end in partial tiles).
// Run: build/tests/kernels_transpose/octet_bench_transpose [--benchmark_filter=published]
// Bytes per call: m*cols codes read + m*cols codes written + 2 * m*cols/128 fp32 si (read, siᵀ)
// + sum(ceil(m_g/128)) * cols fp32 csi.
#include <benchmark/benchmark.h>
#include <omp.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "octet/kernels/fp8flow_transpose.hpp"

namespace {

using namespace octet;

constexpr std::int64_t kM = 16640, kCols = 5120, kCb = kCols / kFp8FlowBlock;

struct Input {
  std::vector<std::uint8_t> q;
  std::vector<float> si;
};

// Random finite codes (no NaN) and per-row scales 2^e, e in [-12, -4].
const Input& input() {
  static const Input in = [] {
    Input in;
    std::mt19937_64 rng(1);
    std::uniform_int_distribution<int> byte(0, 255), expo(-12, -4);
    in.q.resize(std::size_t(kM * kCols));
    for (auto& q : in.q) {
      q = std::uint8_t(byte(rng));
      if ((q & 0x7F) == 0x7F) q ^= 1;
    }
    in.si.resize(std::size_t(kM * kCb));
    for (auto& s : in.si) s = std::ldexp(1.0f, expo(rng));
    return in;
  }();
  return in;
}

void BM_Fp8FlowTranspose(benchmark::State& state, Fp8FlowVariant v) {
  const Input& in = input();
  const std::int64_t groups = state.range(0);
  std::vector<std::int32_t> offs;
  for (std::int64_t g = 1; g <= groups; ++g) offs.push_back(std::int32_t(kM * g / groups));
  const Fp8FlowLayout L = fp8flow_layout(offs, kM, kCols);
  std::vector<std::uint8_t> qt(std::size_t(L.qt_size()));
  std::vector<float> csi(std::size_t(L.csi_size())), sit(std::size_t(L.sit_size()));
  const auto qv = View2D<const std::uint8_t>::row_major(in.q.data(), kM, kCols);
  const auto sv = View2D<const float>::row_major(in.si.data(), kM, kCb);
  for (auto _ : state) {
    fp8flow_transpose(v, qv, sv, offs, {qt, csi, sit});
    benchmark::ClobberMemory();
  }
  const std::int64_t bytes = 2 * kM * kCols + 2 * 4 * kM * kCb + 4 * L.csi_size();
  state.SetBytesProcessed(state.iterations() * bytes);
  state.SetItemsProcessed(state.iterations() * kM * kCols);
  state.counters["threads"] = omp_get_max_threads();
}
BENCHMARK_CAPTURE(BM_Fp8FlowTranspose, published, Fp8FlowVariant::published)
    ->Arg(1)->Arg(16)->Arg(64)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_Fp8FlowTranspose, ideal, Fp8FlowVariant::ideal)
    ->Arg(1)->Arg(16)->Arg(64)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_Fp8FlowTranspose, naive, Fp8FlowVariant::naive)
    ->Arg(1)->Arg(16)->Arg(64)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
