// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// bench_fp8_kernels.cpp — families 1-3 on the MoE shape of the issue: a 16640 x 5120 bf16 input
// (85.2 M elements; groups 1 / 16 / 64 where grouped). 3D kernels take the same element count as
// (E, K, N) = (2, 5120, 8320), per-expert column-major. The dual kernel splits the same count into
// two 16640 x 2560 tensors. Bytes processed = 2 B in + 1 B out per element (+ 4 B per scale).
// cpu_all_threads_ms is the process CPU time per iteration over all threads: on a shared host,
// cpu_all_threads_ms / 2 is the wall time with both cores to itself.
// Run: build/tests/kernels_fp8/octet_bench_fp8_kernels [--benchmark_filter=...]
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "octet/kernels/fp8_blockwise.hpp"
#include "octet/kernels/fp8_per_group.hpp"
#include "octet/kernels/fp8_rowwise.hpp"

namespace {

using octet::View2D;
using octet::View3D;
using i64 = std::int64_t;

constexpr i64 kM = 16640, kK = 5120;           // 2D input (tokens, hidden)
constexpr i64 kE = 2, kWK = 5120, kWN = 8320;  // 3D input, kE*kWK*kWN = kM*kK

const std::vector<std::uint16_t>& input() {
  static const std::vector<std::uint16_t> buf = [] {
    std::vector<std::uint16_t> b(std::size_t(kM * kK));
    std::mt19937_64 rng(2026);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (auto& v : b) {
      const std::uint32_t f = std::bit_cast<std::uint32_t>(normal(rng));
      v = std::uint16_t((f + 0x7FFFu + ((f >> 16) & 1u)) >> 16);
    }
    return b;
  }();
  return buf;
}

// G groups over `extent` rows, random sizes that are multiples of `align` (empty groups possible).
std::vector<std::int32_t> make_offs(i64 extent, int groups, i64 align) {
  std::mt19937_64 rng(std::uint64_t(groups) * 7919u + std::uint64_t(align));
  std::uniform_int_distribution<i64> cut(0, extent / align);
  std::vector<std::int32_t> offs;
  for (int g = 0; g + 1 < groups; ++g) offs.push_back(std::int32_t(cut(rng) * align));
  std::sort(offs.begin(), offs.end());
  offs.push_back(std::int32_t(extent));
  return offs;
}

// CPU seconds of the whole process (all threads): on a shared host, cpu_ms / threads is the wall
// time the kernel would take with the cores to itself.
double process_cpu_ms() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return (double(u.ru_utime.tv_sec) + double(u.ru_stime.tv_sec)) * 1e3 +
         (double(u.ru_utime.tv_usec) + double(u.ru_stime.tv_usec)) * 1e-3;
}

void report(benchmark::State& state, i64 elements, i64 scales, double cpu_ms) {
  state.SetItemsProcessed(state.iterations() * elements);
  state.SetBytesProcessed(state.iterations() * (elements * 3 + scales * 4));
  state.counters["cpu_all_threads_ms"] = cpu_ms / double(state.iterations());
}

View2D<const std::uint16_t> x_m_k() { return View2D<const std::uint16_t>::row_major(input().data(), kM, kK); }
View3D<const std::uint16_t> w_e_k_n() {
  return View3D<const std::uint16_t>::col_major_per_expert(input().data(), kE, kWK, kWN);
}

template <class Fn>
void run(benchmark::State& state, Fn fn) {
  input();  // generated once, outside the timed loop
  i64 scales = 0;
  const double cpu0 = process_cpu_ms();
  for (auto _ : state) {
    auto q = fn();
    scales = i64(q.scales.size());
    benchmark::DoNotOptimize(q.data.data());
  }
  report(state, kM * kK, scales, process_cpu_ms() - cpu0);
}

// ---- family 1
void BM_rowwise_2d(benchmark::State& s) {
  run(s, [] { return octet::fp8_rowwise_2d_scale_and_cast(x_m_k()); });
}
void BM_colwise_3d(benchmark::State& s) {
  run(s, [] { return octet::fp8_colwise_3d_scale_and_cast(w_e_k_n()); });
}
void BM_rowwise_3d_transpose_rhs(benchmark::State& s) {
  run(s, [] { return octet::fp8_rowwise_3d_transpose_rhs(w_e_k_n()); });
}

// ---- family 2 (groups along the tokens: rowwise runs on grad_out.t(), a (5120, 16640) view)
void BM_per_group_rowwise(benchmark::State& s) {
  const auto offs = make_offs(kM, int(s.range(0)), 16);
  const auto xt = View2D<const std::uint16_t>::col_major(input().data(), kK, kM);
  run(s, [&] { return octet::fp8_per_group_rowwise_scales(xt, std::span<const std::int32_t>(offs)); });
}
void BM_per_group_colwise(benchmark::State& s) {
  const auto offs = make_offs(kM, int(s.range(0)), 16);
  run(s, [&] { return octet::fp8_per_group_colwise_scales(x_m_k(), std::span<const std::int32_t>(offs)); });
}
void BM_per_group_colwise_dual(benchmark::State& s) {
  input();
  const auto offs = make_offs(kM, int(s.range(0)), 16);
  const auto a = View2D<const std::uint16_t>::row_major(input().data(), kM, kK / 2);
  const auto b = View2D<const std::uint16_t>::row_major(input().data() + kM * kK / 2, kM, kK / 2);
  i64 scales = 0;
  const double cpu0 = process_cpu_ms();
  for (auto _ : s) {
    auto q = octet::fp8_per_group_colwise_scales_dual(a, b, std::span<const std::int32_t>(offs));
    scales = i64(q.first.scales.size() + q.second.scales.size());
    benchmark::DoNotOptimize(q.first.data.data());
  }
  report(s, kM * kK, scales, process_cpu_ms() - cpu0);
}

// ---- family 3
void BM_blockwise_act_quant_lhs(benchmark::State& s) {
  run(s, [] { return octet::fp8_blockwise_act_quant_lhs(x_m_k()); });
}
void BM_blockwise_act_quant_rhs(benchmark::State& s) {
  run(s, [] { return octet::fp8_blockwise_act_quant_rhs(x_m_k()); });
}
void BM_blockwise_act_quant_transposed_lhs(benchmark::State& s) {
  run(s, [] { return octet::fp8_blockwise_act_quant_transposed_lhs(x_m_k()); });
}
void BM_blockwise_weight_quant_rhs(benchmark::State& s) {
  run(s, [] { return octet::fp8_blockwise_weight_quant_rhs(x_m_k()); });
}
void BM_blockwise_weight_quant_transposed_rhs(benchmark::State& s) {
  run(s, [] { return octet::fp8_blockwise_weight_quant_transposed_rhs(x_m_k()); });
}
void BM_blockwise_weight_quant_grouped_transposed_rhs(benchmark::State& s) {
  run(s, [] { return octet::fp8_blockwise_weight_quant_grouped_transposed_rhs(w_e_k_n()); });
}
void BM_blockwise_weight_quant_grouped_rhs(benchmark::State& s) {
  run(s, [] { return octet::fp8_blockwise_weight_quant_grouped_rhs(w_e_k_n()); });
}
void BM_blockwise_act_quant_k_grouped_deepgemm(benchmark::State& s) {
  const auto offs = make_offs(kM, int(s.range(0)), 128);
  run(s,
      [&] { return octet::fp8_blockwise_act_quant_k_grouped_deepgemm(x_m_k(), std::span<const std::int32_t>(offs)); });
}
void BM_blockwise_act_quant_rhs_grouped(benchmark::State& s) {
  const auto offs = make_offs(kM, int(s.range(0)), 16);
  run(s, [&] { return octet::fp8_blockwise_act_quant_rhs_grouped(x_m_k(), std::span<const std::int32_t>(offs)); });
}
void BM_blockwise_act_quant_transposed_lhs_grouped(benchmark::State& s) {
  const auto offs = make_offs(kM, int(s.range(0)), 16);
  run(s, [&] {
    return octet::fp8_blockwise_act_quant_transposed_lhs_grouped(x_m_k(), std::span<const std::int32_t>(offs));
  });
}
// The same 1x128 / 128x1 kernels under power-of-two recipes (TE Float8BlockScaling default, DeepGEMM UE8M0).
void BM_blockwise_act_quant_lhs_te_blockwise(benchmark::State& s) {
  run(s, [] { return octet::fp8_blockwise_act_quant_lhs(x_m_k(), octet::recipe("te_blockwise")); });
}
void BM_blockwise_act_quant_rhs_te_blockwise(benchmark::State& s) {
  run(s, [] { return octet::fp8_blockwise_act_quant_rhs(x_m_k(), octet::recipe("te_blockwise")); });
}
void BM_deepgemm_per_token_ue8m0(benchmark::State& s) {
  run(s, [] { return octet::deepgemm_per_token_cast_to_fp8(x_m_k(), octet::recipe("deepgemm_ue8m0")); });
}
void BM_deepgemm_per_token(benchmark::State& s) {
  run(s, [] { return octet::deepgemm_per_token_cast_to_fp8(x_m_k()); });
}
void BM_deepgemm_per_channel(benchmark::State& s) {
  run(s, [] { return octet::deepgemm_per_channel_cast_to_fp8(x_m_k()); });
}
void BM_deepgemm_per_block(benchmark::State& s) {
  run(s, [] { return octet::deepgemm_per_block_cast_to_fp8(x_m_k()); });
}

#define OCTET_BENCH(fn) BENCHMARK(fn)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3)
#define OCTET_BENCH_GROUPS(fn) OCTET_BENCH(fn)->ArgName("groups")->Arg(1)->Arg(16)->Arg(64)
OCTET_BENCH(BM_rowwise_2d);
OCTET_BENCH(BM_colwise_3d);
OCTET_BENCH(BM_rowwise_3d_transpose_rhs);
OCTET_BENCH_GROUPS(BM_per_group_rowwise);
OCTET_BENCH_GROUPS(BM_per_group_colwise);
OCTET_BENCH_GROUPS(BM_per_group_colwise_dual);
OCTET_BENCH(BM_blockwise_act_quant_lhs);
OCTET_BENCH(BM_blockwise_act_quant_rhs);
OCTET_BENCH(BM_blockwise_act_quant_transposed_lhs);
OCTET_BENCH(BM_blockwise_weight_quant_rhs);
OCTET_BENCH(BM_blockwise_weight_quant_transposed_rhs);
OCTET_BENCH(BM_blockwise_weight_quant_grouped_transposed_rhs);
OCTET_BENCH(BM_blockwise_weight_quant_grouped_rhs);
OCTET_BENCH_GROUPS(BM_blockwise_act_quant_k_grouped_deepgemm);
OCTET_BENCH_GROUPS(BM_blockwise_act_quant_rhs_grouped);
OCTET_BENCH_GROUPS(BM_blockwise_act_quant_transposed_lhs_grouped);
OCTET_BENCH(BM_deepgemm_per_token);
OCTET_BENCH(BM_deepgemm_per_channel);
OCTET_BENCH(BM_deepgemm_per_block);
OCTET_BENCH(BM_blockwise_act_quant_lhs_te_blockwise);
OCTET_BENCH(BM_blockwise_act_quant_rhs_te_blockwise);
OCTET_BENCH(BM_deepgemm_per_token_ue8m0);

}  // namespace

BENCHMARK_MAIN();
