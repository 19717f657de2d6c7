// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// bench_cast.cpp — conversions per second of the emulator's casts (Google Benchmark).
// Run: build/bench/octet_bench_cast [--benchmark_filter=Sweep]
// Figures go to docs/performance.md. items_per_second = conversions per second (all threads).
#include <benchmark/benchmark.h>
#include <omp.h>

#include <random>
#include <vector>

#include "octet/sweep.hpp"

namespace {

using namespace octet;

CastSpec spec(Rounding r, Overflow o) { return CastSpec{.rounding = r, .overflow = o}; }

// The whole 2^32 fp32 sweep: conversion + digest, as `octet sweep` runs it.
void BM_Sweep(benchmark::State& state, FormatId f, Rounding r, Overflow o) {
  for (auto _ : state) {
    const SweepResult res = sweep_fp32(format_of(f), spec(r, o));
    benchmark::DoNotOptimize(res.digest);
  }
  state.SetItemsProcessed(state.iterations() * (std::int64_t(1) << 32));
  state.counters["threads"] = omp_get_max_threads();
}
BENCHMARK_CAPTURE(BM_Sweep, e4m3fn_rne_satfinite, FormatId::e4m3fn, Rounding::NearestEven, Overflow::SatFinite)
    ->Unit(benchmark::kSecond)->Iterations(2)->UseRealTime();
BENCHMARK_CAPTURE(BM_Sweep, e5m2_rne_satfinite, FormatId::e5m2, Rounding::NearestEven, Overflow::SatFinite)
    ->Unit(benchmark::kSecond)->Iterations(2)->UseRealTime();
BENCHMARK_CAPTURE(BM_Sweep, e8m0fnu_ru_satfinite, FormatId::e8m0fnu, Rounding::TowardPositive, Overflow::SatFinite)
    ->Unit(benchmark::kSecond)->Iterations(2)->UseRealTime();

// Arrays of random normal values (the fp32 memo path and the generic core paths).
template <class T>
std::vector<T> random_values(std::size_t n) {
  std::mt19937_64 rng(42);
  std::normal_distribution<double> dist(0.0, 100.0);
  std::vector<T> v(n);
  for (auto& x : v) x = T(dist(rng));
  return v;
}

void BM_CastFp32(benchmark::State& state, FormatId f, Rounding r) {
  const auto in = random_values<float>(std::size_t(1) << 24);
  std::vector<std::uint8_t> out(in.size());
  for (auto _ : state) {
    cast(std::span<const float>(in), format_of(f), spec(r, Overflow::SatFinite), std::span<std::uint8_t>(out));
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * std::int64_t(in.size()));
}
BENCHMARK_CAPTURE(BM_CastFp32, e4m3fn_rne, FormatId::e4m3fn, Rounding::NearestEven)->UseRealTime();
BENCHMARK_CAPTURE(BM_CastFp32, e4m3fn_rto_core, FormatId::e4m3fn, Rounding::ToOdd)->UseRealTime();

void BM_CastFp64(benchmark::State& state, FormatId f) {
  const auto in = random_values<double>(std::size_t(1) << 22);
  std::vector<std::uint8_t> out(in.size());
  for (auto _ : state) {
    cast(std::span<const double>(in), format_of(f), spec(Rounding::NearestEven, Overflow::SatFinite),
         std::span<std::uint8_t>(out));
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * std::int64_t(in.size()));
}
BENCHMARK_CAPTURE(BM_CastFp64, e4m3fn_rne, FormatId::e4m3fn)->UseRealTime();

void BM_CastFp32Stochastic(benchmark::State& state) {
  const auto in = random_values<float>(std::size_t(1) << 22);
  std::vector<std::uint32_t> rbits(in.size());
  for (std::size_t i = 0; i < rbits.size(); ++i) rbits[i] = counter_rbits(7, i);
  std::vector<std::uint8_t> out(in.size());
  for (auto _ : state) {
    cast(std::span<const float>(in), e4m3fn_format, spec(Rounding::Stochastic, Overflow::SatFinite),
         std::span<std::uint8_t>(out), rbits);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * std::int64_t(in.size()));
}
BENCHMARK(BM_CastFp32Stochastic)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
