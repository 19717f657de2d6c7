// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// bench_layout.cpp — wall time of the layout kernels on a 16640×5120 bf16 activation (the
// torchao M-groups benchmark shape) split into G = 1, 16, 64 jagged groups / experts (Google
// Benchmark). Target: each call ≤ 0.5 s on a 2-core host.
// Run: build/tests/kernels_layout/octet_bench_layout [--benchmark_filter=fused]
// bytes_per_second counts bytes read + written once (napkin math, given per benchmark below).
#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "octet/kernels/layout_pad_permute.hpp"
#include "octet/kernels/mx_swizzle.hpp"

namespace {

using namespace octet;

constexpr std::int64_t kRows = 16640, kCols = 5120, kScaleCols = kCols / 32;  // 160 e8m0 per row

// Jagged group sizes summing to `total`, each a multiple of `multiple`, one group empty.
std::vector<std::int64_t> jagged_offs(std::int64_t groups, std::int64_t total, std::int64_t multiple) {
  std::mt19937_64 rng(1234 + groups);
  std::vector<std::int64_t> cuts;
  for (std::int64_t g = 0; g + 1 < groups; ++g) cuts.push_back(std::int64_t(rng() % std::uint64_t(total / multiple)) * multiple);
  if (groups > 2) cuts[1] = cuts[0];  // an empty group
  cuts.push_back(total);
  std::sort(cuts.begin(), cuts.end());
  return cuts;
}

const std::vector<std::uint8_t>& activation() {  // 16640×5120 bf16, random finite bits
  static const std::vector<std::uint8_t> x = [] {
    std::vector<std::uint8_t> v(std::size_t(kRows * kCols * 2));
    std::mt19937_64 rng(7);
    for (std::size_t i = 0; i < v.size(); i += 2) {
      const auto b = std::uint16_t((rng() >> 48) & 0xBFFF);  // clear the top exponent bit: finite
      v[i] = std::uint8_t(b);
      v[i + 1] = std::uint8_t(b >> 8);
    }
    return v;
  }();
  return x;
}
const std::vector<std::uint8_t>& scales() {  // (16640, 160) e8m0
  static const std::vector<std::uint8_t> s = [] {
    std::vector<std::uint8_t> v(std::size_t(kRows * kScaleCols));
    std::mt19937_64 rng(8);
    for (auto& b : v) b = std::uint8_t(rng() >> 56);
    return v;
  }();
  return s;
}
RowsView x_view() { return {activation().data(), kRows, kCols, 2}; }

// Generates the inputs before the first timed iteration.
void warm(const benchmark::State&) {
  activation();
  scales();
}

void finish(benchmark::State& state, double bytes) {
  state.SetBytesProcessed(std::int64_t(bytes * double(state.iterations())));
  state.counters["threads"] = omp_get_max_threads();
}

// bytes: read T·D·2, write padded rows·D·2.
void BM_PadTokenGroups(benchmark::State& state) {
  const auto offs = jagged_offs(state.range(0), kRows, 1);
  std::int64_t out_rows = 0;
  for (auto _ : state) {
    auto p = pad_token_groups(x_view(), std::span<const std::int64_t>(offs), 32);
    out_rows = p.data.rows;
    benchmark::DoNotOptimize(p.data.bytes.data());
  }
  finish(state, double(kRows + out_rows) * kCols * 2);
}

void BM_UnpadTokenGroups(benchmark::State& state) {
  const auto offs = jagged_offs(state.range(0), kRows, 1);
  const auto padded = pad_token_groups(x_view(), std::span<const std::int64_t>(offs), 32);
  for (auto _ : state) {
    auto u = unpad_token_groups(padded.data.view(), std::span<const std::int64_t>(offs), padded.padded_starts, kRows);
    benchmark::DoNotOptimize(u.data.bytes.data());
  }
  finish(state, double(2 * kRows) * kCols * 2);
}

// torchao EP: one rank, G local experts; permuted rows gathered (read + write ≈ 2·T·D·2).
void BM_PermuteAndPad(benchmark::State& state) {
  const auto offs = jagged_offs(state.range(0), kRows, 1);
  std::vector<std::int64_t> counts(offs.size());
  std::adjacent_difference(offs.begin(), offs.end(), counts.begin());
  for (auto _ : state) {
    auto p = permute_and_pad(x_view(), std::span<const std::int64_t>(counts), 1, state.range(0), 32);
    benchmark::DoNotOptimize(p.rows.data.bytes.data());
  }
  finish(state, double(2 * kRows) * kCols * 2);
}

void BM_UnpermuteTokens(benchmark::State& state) {
  const auto offs = jagged_offs(state.range(0), kRows, 1);
  std::vector<std::int64_t> counts(offs.size());
  std::adjacent_difference(offs.begin(), offs.end(), counts.begin());
  const auto p = permute_and_pad(x_view(), std::span<const std::int64_t>(counts), 1, state.range(0), 32);
  for (auto _ : state) {
    auto u = unpermute_tokens(p.rows.data.view(), std::span<const std::int64_t>(p.indices.permuted_indices), kRows);
    benchmark::DoNotOptimize(u.data.bytes.data());
  }
  finish(state, double(2 * kRows) * kCols * 2);
}

// TE: T tokens with top-K routes over E = G experts, T·K = 16640 routed rows.
struct TeSetup {
  std::int64_t tokens, topk;
  std::vector<std::int32_t> experts;
  std::vector<float> probs;
  std::int64_t e = 1;  // experts
  TokenRouting view() const { return {tokens, topk, e, experts, probs}; }
};
TeSetup te_setup(std::int64_t E) {
  TeSetup s;
  s.e = E;
  s.topk = E == 1 ? 1 : 2;
  s.tokens = kRows / s.topk;
  std::mt19937_64 rng(99);
  s.experts.resize(std::size_t(s.tokens * s.topk));
  s.probs.resize(s.experts.size());
  for (std::int64_t t = 0; t < s.tokens; ++t) {
    const auto a = std::int32_t(rng() % std::uint64_t(E));
    s.experts[std::size_t(t * s.topk)] = a;
    if (s.topk == 2) s.experts[std::size_t(t * 2 + 1)] = std::int32_t((a + 1 + rng() % std::uint64_t(E - 1)) % E);
  }
  for (auto& p : s.probs) p = float(std::uniform_real_distribution<double>(0, 1)(rng));
  return s;
}

void BM_FusedPermutePad(benchmark::State& state) {
  const auto s = te_setup(state.range(0));
  const RowsView x{activation().data(), s.tokens, kCols, 2};
  std::int64_t rows = 0;
  for (auto _ : state) {
    auto p = fused_permute_pad(x, s.view(), 32);
    rows = p.map.rows;
    benchmark::DoNotOptimize(p.data.bytes.data());
  }
  finish(state, double(s.tokens + rows) * kCols * 2);
}

void BM_FusedUnpermuteUnpad(benchmark::State& state) {
  const auto s = te_setup(state.range(0));
  const RowsView x{activation().data(), s.tokens, kCols, 2};
  const auto p = fused_permute_pad(x, s.view(), 32);
  for (auto _ : state) {
    auto u = fused_unpermute_unpad(p.data.view(), InputType::bf16, p.map, s.probs);
    benchmark::DoNotOptimize(u.bytes.data());
  }
  finish(state, double(p.map.rows + s.tokens) * kCols * 2);
}

// Scale swizzles on the (16640, 160) e8m0 scales of the same activation.
View2D<const std::uint8_t> scale_view() { return View2D<const std::uint8_t>::row_major(scales().data(), kRows, kScaleCols); }

void BM_ToBlocked(benchmark::State& state) {
  for (auto _ : state) {
    auto b = to_blocked(scale_view());
    benchmark::DoNotOptimize(b.data());
  }
  finish(state, 2.0 * kRows * kScaleCols);
}

void BM_FromBlocked(benchmark::State& state) {
  const auto b = to_blocked(scale_view());
  for (auto _ : state) {
    auto s = from_blocked(b, kRows, kScaleCols);
    benchmark::DoNotOptimize(s.data());
  }
  finish(state, 2.0 * kRows * kScaleCols);
}

void BM_ToBlockedMGroups(benchmark::State& state) {
  const auto offs = jagged_offs(state.range(0), kRows, 1);
  for (auto _ : state) {
    auto b = to_blocked_m_groups(scale_view(), std::span<const std::int64_t>(offs));
    benchmark::DoNotOptimize(b.bytes.data());
  }
  finish(state, double(2 * kRows + 128 * state.range(0)) * kScaleCols);
}

// wgrad: the (5120, 16640/32) scales of the 32×1-scaled operand, token groups multiples of 32.
void BM_ToBlockedKGroups(benchmark::State& state) {
  const std::int64_t n = kCols, mb = kRows / 32;
  const auto offs = jagged_offs(state.range(0), kRows, 32);
  const auto scale_offs = k_group_scale_offsets(std::span<const std::int64_t>(offs));
  const auto s = View2D<const std::uint8_t>::row_major(scales().data(), n, mb);
  for (auto _ : state) {
    auto b = to_blocked_k_groups(s, std::span<const std::int64_t>(scale_offs));
    benchmark::DoNotOptimize(b.bytes.data());
  }
  finish(state, double(n) * double(2 * mb + 4 * state.range(0)));
}

// Per-group 3D: G experts sharing the 16640 rows, (G, 16640/G, 160).
void BM_ToBlockedPerGroup3d(benchmark::State& state) {
  const std::int64_t e = state.range(0), rows = kRows / e;
  const auto s = View3D<const std::uint8_t>::row_major(scales().data(), e, rows, kScaleCols);
  for (auto _ : state) {
    auto b = to_blocked_per_group_3d(s);
    benchmark::DoNotOptimize(b.data());
  }
  finish(state, 2.0 * double(e * rows * kScaleCols));
}

#define LAYOUT_BENCH(fn) BENCHMARK(fn)->Arg(1)->Arg(16)->Arg(64)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5)->Setup(warm)
LAYOUT_BENCH(BM_PadTokenGroups);
LAYOUT_BENCH(BM_UnpadTokenGroups);
LAYOUT_BENCH(BM_PermuteAndPad);
LAYOUT_BENCH(BM_UnpermuteTokens);
LAYOUT_BENCH(BM_FusedPermutePad);
LAYOUT_BENCH(BM_FusedUnpermuteUnpad);
LAYOUT_BENCH(BM_ToBlockedMGroups);
LAYOUT_BENCH(BM_ToBlockedKGroups);
LAYOUT_BENCH(BM_ToBlockedPerGroup3d);
BENCHMARK(BM_ToBlocked)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5)->Setup(warm);
BENCHMARK(BM_FromBlocked)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5)->Setup(warm);

}  // namespace

BENCHMARK_MAIN();
