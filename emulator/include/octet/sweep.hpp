// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// sweep.hpp — the exhaustive fp32 sweep (all 2^32 inputs) and the output digest.
#pragma once

#include <cstdint>
#include <functional>
#include <span>

#include "octet/cast.hpp"

namespace octet {

// Digest of a byte string: XXH64 (seed 0) as published by Y. Collet, written for octet.
std::uint64_t xxh64(std::span<const std::uint8_t> bytes, std::uint64_t seed = 0);

// The sweep converts fp32 bit patterns in blocks of kSweepBlock inputs. The digest of a sweep
// is the XXH64 of the concatenated little-endian XXH64 digests of the blocks' output codes, in
// input order: it depends only on the output bytes, never on the thread count.
inline constexpr std::uint64_t kSweepBlock = std::uint64_t(1) << 20;

struct SweepResult {
  std::uint64_t inputs = 0;
  double seconds = 0;
  double conversions_per_second = 0;
  std::uint64_t digest = 0;
  int threads = 1;
};

// Random bits for stochastic rounding in sweeps: a counter-based generator (the SplitMix64
// finaliser of seed + index), so that any thread count draws the same bits for each input.
OCTET_HD constexpr std::uint32_t counter_rbits(std::uint64_t seed, std::uint64_t index) {
  std::uint64_t z = seed + (index + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return std::uint32_t((z ^ (z >> 31)) >> 32);
}

// Sweep the fp32 bit patterns [first, first + count) (count a multiple of kSweepBlock, default
// all 2^32). `on_block`, when given, sees each block's codes (in any order across threads; it
// must be thread-safe). `seed` feeds counter_rbits for Rounding::Stochastic. The reported
// seconds include the time spent in `on_block`: benchmark without one.
SweepResult sweep_fp32(const Format& dst, const CastSpec& spec, std::uint64_t first = 0,
                       std::uint64_t count = std::uint64_t(1) << 32, std::uint64_t seed = 0,
                       const std::function<void(std::uint64_t first, std::span<const std::uint8_t> codes)>& on_block = {});

}  // namespace octet
