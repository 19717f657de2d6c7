// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// bench_fused.cpp — families 7-8 on the torchao M-groups benchmark shape (kernels.md §11): 16640
// tokens, bf16. Target: each ≤ 0.5 s on 2 cores.
//   SwiGLU: x (16640, 2·2560) -> y (16640, 2560) ["H2560", the 16640x5120 input], and
//           x (16640, 2·5120) -> y (16640, 5120) ["H5120"]; backward: grad (16640, H), x (16640, 2H)
//           -> (16640, 2H).
//   a2a:    x (16640, 5120) over 8 ranks (uneven splits); combine: the same rows as expert
//           outputs of 2080 tokens x top-8 routes.
// Run: build/tests/kernels_fused/octet_bench_fused [--benchmark_filter=Swiglu]
// Bytes per call (napkin): SwiGLU forward 2·(2H)·M read + 2·H·M (bf16 y) + H·M (codes) + scales;
// backward 2·3H·M read + 2·2H·M + 2H·M + scales; dispatch 2·N·H read + N·H codes ×2 (exchange) +
// 2·N·H written; combine 2·N·H read (+ exchange) + 2·T·H written.
#include <benchmark/benchmark.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "octet/kernels/a2a_emulation.hpp"
#include "octet/kernels/swiglu_quant.hpp"

namespace {

constexpr std::int64_t kM = 16640, kK = 5120;

// Gaussian rows at varied magnitudes, as bf16 bits (RNE), seeded; n rows of `cols`.
std::vector<std::uint16_t> gaussian_bf16(std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  std::vector<std::uint16_t> v(std::size_t(rows * cols));
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (std::int64_t m = 0; m < rows; ++m) {
    const float row_scale = std::ldexp(1.0f, int(rng() % 16) - 8);
    for (std::int64_t k = 0; k < cols; ++k) {
      const std::uint32_t u = std::bit_cast<std::uint32_t>(normal(rng) * row_scale);
      v[std::size_t(m * cols + k)] = std::uint16_t((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
    }
  }
  return v;
}

const std::vector<std::uint16_t>& input(std::int64_t H) {  // (kM, 2H)
  static std::vector<std::uint16_t> h2560, h5120;
  auto& v = H == 2560 ? h2560 : h5120;
  if (v.empty()) v = gaussian_bf16(kM, 2 * H, 20260101 + std::uint64_t(H));
  return v;
}
const std::vector<std::uint16_t>& grad(std::int64_t H) {  // (kM, H)
  static std::vector<std::uint16_t> h2560, h5120;
  auto& v = H == 2560 ? h2560 : h5120;
  if (v.empty()) v = gaussian_bf16(kM, H, 20260202 + std::uint64_t(H));
  return v;
}

void counters(benchmark::State& state, double bytes) {
  state.SetBytesProcessed(std::int64_t(double(state.iterations()) * bytes));
}

void BM_SwigluForward(benchmark::State& state, const char* recipe, std::int64_t H, bool probs) {
  const octet::Recipe& r = octet::recipe(recipe);
  const auto x = octet::View2D<const std::uint16_t>::row_major(input(H).data(), kM, 2 * H);
  std::vector<float> p;
  if (probs) p.assign(std::size_t(kM), 0.37f);
  for (auto _ : state) benchmark::DoNotOptimize(octet::swiglu_quantize_forward<std::uint16_t>(x, r, p));
  const double B = double(octet::swiglu_block_size(r));
  counters(state, double(kM) * (4.0 * H + 3.0 * H + H / B * (B == 32 ? 1 : 4)));
}

void BM_SwigluBackward(benchmark::State& state, const char* recipe, std::int64_t H) {
  const octet::Recipe& r = octet::recipe(recipe);
  const auto x = octet::View2D<const std::uint16_t>::row_major(input(H).data(), kM, 2 * H);
  const auto g = octet::View2D<const std::uint16_t>::row_major(grad(H).data(), kM, H);
  for (auto _ : state) benchmark::DoNotOptimize(octet::swiglu_quantize_backward<std::uint16_t>(g, x, r));
  const double B = double(octet::swiglu_block_size(r));
  counters(state, double(kM) * (6.0 * H + 6.0 * H + 2 * H / B * (B == 32 ? 1 : 4)));
}

// 8 ranks, uneven splits summing to kM rows.
const octet::A2aPlan& plan() {
  static const octet::A2aPlan p = [] {
    const std::int64_t R = 8;
    std::vector<std::int64_t> w(std::size_t(R * R)), s(std::size_t(R * R));
    std::mt19937_64 rng(7);
    std::int64_t wsum = 0, total = 0;
    for (auto& e : w) wsum += e = 1 + std::int64_t(rng() % 4);
    for (std::size_t i = 0; i < s.size(); ++i) total += s[i] = kM * w[i] / wsum;
    s.back() += kM - total;  // the rounding remainder, so that the splits sum to kM
    return octet::A2aPlan(s, R);
  }();
  return p;
}

void BM_A2aDispatch(benchmark::State& state, octet::A2aPayload payload) {
  const auto x = octet::View2D<const std::uint16_t>::row_major(input(2560).data(), kM, kK);  // same bytes, (kM, 5120)
  for (auto _ : state) benchmark::DoNotOptimize(octet::a2a_exchange<std::uint16_t>(x, plan(), payload));
  counters(state, double(kM) * kK * (payload == octet::A2aPayload::passthrough ? 4.0 : 6.0));
}

void BM_A2aCombine(benchmark::State& state, octet::A2aPayload payload) {
  // Route (t, k) of token t on rank s is the k-th row of rank s's send buffer past t·8: every row
  // of the send layout carries one route, 2080 tokens x top-8.
  static const auto routes_storage = [] {
    struct R {
      std::vector<std::int64_t> tokens_per_rank, row_t_k;
      std::vector<float> w;
    } r;
    const auto& p = plan();
    for (std::int64_t s = 0; s < p.ranks(); ++s) {
      const std::int64_t rows = p.send_offset(s + 1) - p.send_offset(s);
      const std::int64_t T = (rows + 7) / 8;
      r.tokens_per_rank.push_back(T);
      for (std::int64_t i = 0; i < T * 8; ++i) r.row_t_k.push_back(i < rows ? p.send_offset(s) + i : -1);
    }
    r.w.assign(r.row_t_k.size(), 0.125f);
    return r;
  }();
  const octet::A2aRoutes routes{routes_storage.tokens_per_rank, 8, routes_storage.row_t_k, routes_storage.w};
  const auto y = octet::View2D<const std::uint16_t>::row_major(input(2560).data(), kM, kK);
  for (auto _ : state) benchmark::DoNotOptimize(octet::a2a_combine<std::uint16_t>(y, plan(), routes, payload));
  counters(state, double(kM) * kK * 4.0 + double(kM) / 8 * kK * 2.0);
}

#define OCTET_BENCH(...) BENCHMARK_CAPTURE(__VA_ARGS__)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime()
OCTET_BENCH(BM_SwigluForward, te_mxfp8_H2560, "te_mxfp8", 2560, false);
OCTET_BENCH(BM_SwigluForward, te_mxfp8_H2560_probs, "te_mxfp8", 2560, true);
OCTET_BENCH(BM_SwigluForward, te_blockwise_H2560, "te_blockwise", 2560, false);
OCTET_BENCH(BM_SwigluBackward, te_mxfp8_H2560, "te_mxfp8", 2560);
OCTET_BENCH(BM_SwigluBackward, te_blockwise_H2560, "te_blockwise", 2560);
OCTET_BENCH(BM_SwigluForward, te_mxfp8_H5120, "te_mxfp8", 5120, false);
OCTET_BENCH(BM_SwigluForward, te_blockwise_H5120, "te_blockwise", 5120, false);
OCTET_BENCH(BM_SwigluBackward, te_mxfp8_H5120, "te_mxfp8", 5120);
OCTET_BENCH(BM_SwigluBackward, te_blockwise_H5120, "te_blockwise", 5120);
OCTET_BENCH(BM_A2aDispatch, passthrough, octet::A2aPayload::passthrough);
OCTET_BENCH(BM_A2aDispatch, mxfp8_rceil, octet::A2aPayload::mxfp8);
OCTET_BENCH(BM_A2aDispatch, fp8_blockwise_deepep, octet::A2aPayload::fp8_blockwise);
OCTET_BENCH(BM_A2aCombine, passthrough, octet::A2aPayload::passthrough);
OCTET_BENCH(BM_A2aCombine, mxfp8_rceil, octet::A2aPayload::mxfp8);

}  // namespace

BENCHMARK_MAIN();
