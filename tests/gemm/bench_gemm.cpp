// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// octet_bench_gemm — the DeepSeek-MoE-16B expert GEMM shape as a 2Dx3D grouped GEMM:
// A (16640, 2048) e4m3 codes, B (64, 2048, 1408) per-expert column-major, random jagged offs
// (multiples of 32, as torchao generate_jagged_offs). Target: fp32_seq / fp32_promote <= 10 s on
// 2 cores. The exact model runs on one 260-row group (the mean group size); its rate is reported
// and extrapolated to the full shape.
// napkin math: M·K·N = 16640·2048·1408 = 4.80e10 multiply-adds (GMAC below).
// Run: build/tests/gemm/octet_bench_gemm
#include <benchmark/benchmark.h>

#include <algorithm>
#include <random>
#include <vector>

#include "octet/gemm.hpp"
#include "octet/scale.hpp"

namespace {
using namespace octet;

constexpr std::int64_t kM = 16640, kK = 2048, kN = 1408, kE = 64;

struct Problem {
  std::vector<std::uint8_t> a, b;
  std::vector<std::uint32_t> sa, sb;
  std::vector<std::int32_t> offs;
  ScaledOperand A;
  ScaledOperand3D B;
};

// e4m3fn codes in the bulk of a randn-like distribution (no NaN code 0x7F/0xFF).
std::uint8_t code(std::mt19937_64& rng) {
  const std::uint8_t c = std::uint8_t(0x20 + rng() % 0x40);
  return rng() & 1 ? std::uint8_t(c | 0x80) : c;
}

Problem make(const Recipe& r, ScaleBlock ba, ScaleBlock bb, std::int64_t m, std::int64_t e) {
  std::mt19937_64 rng(1234);
  Problem p;
  p.a.resize(std::size_t(m * kK));
  p.b.resize(std::size_t(e * kK * kN));
  for (auto& c : p.a) c = code(rng);
  for (auto& c : p.b) c = code(rng);
  const std::int64_t sar = ba.outer == 0 ? 1 : m, sac = ba.k == 0 ? 1 : kK / ba.k;
  const std::int64_t sbr = bb.k == 0 ? 1 : kK / bb.k, sbc = bb.outer == 0 ? 1 : (kN + bb.outer - 1) / bb.outer;
  for (std::int64_t i = 0; i < sar * sac; ++i) p.sa.push_back(scale_from_amax(r, 1.0f + float(i % 7)).stored);
  for (std::int64_t i = 0; i < e * sbr * sbc; ++i) p.sb.push_back(scale_from_amax(r, 0.5f + float(i % 5)).stored);
  // jagged offs: E-1 distinct random multiples of 32 plus M, sorted
  std::vector<std::int32_t> cuts;
  while (std::int64_t(cuts.size()) < e - 1) {
    const auto v = std::int32_t(32 * (1 + rng() % std::uint64_t(m / 32 - 1)));
    if (std::find(cuts.begin(), cuts.end(), v) == cuts.end()) cuts.push_back(v);
  }
  cuts.push_back(std::int32_t(m));
  std::sort(cuts.begin(), cuts.end());
  p.offs = cuts;
  p.A = {&r, View2D<const std::uint8_t>::row_major(p.a.data(), m, kK),
         ScaleView::of(View2D<const std::uint32_t>::row_major(p.sa.data(), sar, sac)), ba};
  p.B = {&r, View3D<const std::uint8_t>::col_major_per_expert(p.b.data(), e, kK, kN),
         {ScaleView::of(View2D<const std::uint32_t>::row_major(p.sb.data(), sbr, sbc)), e, sbr * sbc}, bb};
  return p;
}

void run(benchmark::State& state, const char* recipe_name, ScaleBlock ba, ScaleBlock bb, GemmModel model,
         std::int64_t m, std::int64_t e) {
  const Problem p = make(recipe(recipe_name), ba, bb, m, e);
  const GemmConfig cfg{.model = model, .out = OutDtype::bf16};
  for (auto _ : state) {
    GemmOutput o = scaled_grouped_mm_2d3d(p.A, p.B, p.offs, cfg);
    benchmark::DoNotOptimize(o.values.data());
  }
  const double macs = double(m) * kK * kN;
  state.counters["GMAC"] = macs * 1e-9;
  state.counters["GMAC/s"] = benchmark::Counter(macs * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  // seconds for the full 16640x2048x1408 shape at this rate
  state.counters["full_shape_s"] = benchmark::Counter(macs / (double(kM) * kK * kN), benchmark::Counter::kIsIterationInvariantRate |
                                                                                     benchmark::Counter::kInvert);
}

void BM_fp32_seq_rowwise(benchmark::State& s) {
  run(s, "torchao_fp8_rowwise_pow2", ScaleBlock::rowwise(), ScaleBlock::rowwise(), GemmModel::fp32_seq, kM, kE);
}
void BM_fp32_promote_blockwise(benchmark::State& s) {
  run(s, "torchao_blockwise", ScaleBlock::block_1x128(), ScaleBlock::block_128x128(), GemmModel::fp32_promote, kM, kE);
}
void BM_exact_blockwise_one_group(benchmark::State& s) {
  run(s, "torchao_blockwise", ScaleBlock::block_1x128(), ScaleBlock::block_128x128(), GemmModel::exact, kM / kE, 1);
}
void BM_exact_rowwise_one_group(benchmark::State& s) {
  run(s, "torchao_fp8_rowwise_pow2", ScaleBlock::rowwise(), ScaleBlock::rowwise(), GemmModel::exact, kM / kE, 1);
}
void BM_hopper_fast_accum_rowwise_one_group(benchmark::State& s) {
  run(s, "torchao_fp8_rowwise_pow2", ScaleBlock::rowwise(), ScaleBlock::rowwise(), GemmModel::hopper_fast_accum, kM / kE, 1);
}
BENCHMARK(BM_hopper_fast_accum_rowwise_one_group)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();
// The exact model on the full shape (about 15-20 s on 2 cores): --benchmark_filter=exact_blockwise_full
void BM_exact_blockwise_full(benchmark::State& s) {
  run(s, "torchao_blockwise", ScaleBlock::block_1x128(), ScaleBlock::block_128x128(), GemmModel::exact, kM, kE);
}
BENCHMARK(BM_fp32_seq_rowwise)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();
BENCHMARK(BM_fp32_promote_blockwise)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();
BENCHMARK(BM_exact_blockwise_one_group)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();
BENCHMARK(BM_exact_rowwise_one_group)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();
BENCHMARK(BM_exact_blockwise_full)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
