// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// bench_mx_kernels.cpp — the MX quantisers and the dim0 dequantiser on a 16640x5120 bf16 input
// (the torchao M-groups benchmark shape; kernels.md §11). Target: each ≤ 0.5 s on 2 cores.
// Run: build/tests/kernels_mx/octet_bench_mx_kernels [--benchmark_filter=dim0]
// Bytes moved per call (napkin): quantise 2·numel (read bf16) + numel (codes) + numel/32 (scales)
// (the 2d both-directions call reads twice and writes twice); dequantise numel + numel/32 + 2·numel.
#include <benchmark/benchmark.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "octet/kernels/mx_quantize.hpp"

namespace {

constexpr std::int64_t kM = 16640, kK = 5120;

// Gaussian rows at varied magnitudes, as bf16 bits (RNE), seeded.
const std::vector<std::uint16_t>& input() {
  static const std::vector<std::uint16_t> x = [] {
    std::vector<std::uint16_t> v(std::size_t(kM * kK));
    std::mt19937_64 rng(20260101);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (std::int64_t m = 0; m < kM; ++m) {
      const float row_scale = std::ldexp(1.0f, int(rng() % 16) - 8);
      for (std::int64_t k = 0; k < kK; ++k) {
        const std::uint32_t u = std::bit_cast<std::uint32_t>(normal(rng) * row_scale);
        v[std::size_t(m * kK + k)] = std::uint16_t((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
      }
    }
    return v;
  }();
  return x;
}

octet::View2D<const std::uint16_t> x2d() { return octet::View2D<const std::uint16_t>::row_major(input().data(), kM, kK); }
// The same bytes as 8 experts of (2080, 5120).
octet::View3D<const std::uint16_t> x3d() {
  return octet::View3D<const std::uint16_t>::row_major(input().data(), 8, kM / 8, kK);
}

void set_counters(benchmark::State& state, double bytes) {
  state.SetItemsProcessed(std::int64_t(state.iterations()) * kM * kK);
  state.SetBytesProcessed(std::int64_t(double(state.iterations()) * bytes));
}
const double kQuantBytes = double(kM * kK) * (2 + 1) + double(kM * kK) / 32;

void BM_Dim0(benchmark::State& state, const char* recipe) {
  const octet::Recipe& r = octet::recipe(recipe);
  x2d();
  for (auto _ : state) benchmark::DoNotOptimize(octet::mx_quantize_dim0(r, x2d()));
  set_counters(state, kQuantBytes);
}
void BM_Dim1(benchmark::State& state, const char* recipe) {
  const octet::Recipe& r = octet::recipe(recipe);
  x2d();
  for (auto _ : state) benchmark::DoNotOptimize(octet::mx_quantize_dim1(r, x2d()));
  set_counters(state, kQuantBytes);
}
void BM_2dBoth(benchmark::State& state, const char* recipe) {
  const octet::Recipe& r = octet::recipe(recipe);
  x2d();
  for (auto _ : state) benchmark::DoNotOptimize(octet::mx_quantize_2d(r, x2d(), true, true));
  set_counters(state, 2 * kQuantBytes);
}
void BM_3d(benchmark::State& state, const char* recipe, octet::MxBlock3D block) {
  const octet::Recipe& r = octet::recipe(recipe);
  x3d();
  for (auto _ : state) benchmark::DoNotOptimize(octet::mx_quantize_3d(r, x3d(), block));
  set_counters(state, kQuantBytes);
}
void BM_DequantBf16(benchmark::State& state, const char* recipe) {
  const octet::Recipe& r = octet::recipe(recipe);
  const octet::MxOutput2D q = octet::mx_quantize_dim0(r, x2d());
  for (auto _ : state) benchmark::DoNotOptimize(octet::mx_dequantize_dim0_bf16(r, q.data_view(), q.scale_view()));
  set_counters(state, double(kM * kK) * (1 + 2) + double(kM * kK) / 32);
}
void BM_DequantFp32(benchmark::State& state, const char* recipe) {
  const octet::Recipe& r = octet::recipe(recipe);
  const octet::MxOutput2D q = octet::mx_quantize_dim0(r, x2d());
  for (auto _ : state) benchmark::DoNotOptimize(octet::mx_dequantize_dim0_fp32(r, q.data_view(), q.scale_view()));
  set_counters(state, double(kM * kK) * (1 + 4) + double(kM * kK) / 32);
}

#define OCTET_MX_BENCH(fn, tag, ...) \
  BENCHMARK_CAPTURE(fn, tag, __VA_ARGS__)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3)

OCTET_MX_BENCH(BM_Dim0, rceil, "torchao_mx_rceil");
OCTET_MX_BENCH(BM_Dim0, floor, "torchao_mx_floor");
OCTET_MX_BENCH(BM_Dim1, rceil, "torchao_mx_rceil");
OCTET_MX_BENCH(BM_2dBoth, te_mxfp8, "te_mxfp8");
OCTET_MX_BENCH(BM_3d, rceil_32x1, "torchao_mx_rceil", octet::MxBlock3D::Block32x1);
OCTET_MX_BENCH(BM_3d, rceil_32x32, "torchao_mx_rceil", octet::MxBlock3D::Block32x32);
OCTET_MX_BENCH(BM_DequantBf16, rceil, "torchao_mx_rceil");
OCTET_MX_BENCH(BM_DequantFp32, rceil, "torchao_mx_rceil");

}  // namespace

BENCHMARK_MAIN();
