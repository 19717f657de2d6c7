// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// conformance.hpp — where two profiles disagree: for a (target format, source dtype) and every
// pair of profiles, the number of inputs on which their codes differ, split into classes, with
// examples.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "octet/profile.hpp"

namespace octet {

// Why two codes differ, judged from the input and the two results (first match wins).
enum class DiffClass : std::uint8_t {
  nan,              // NaN input: sign, payload, or the code a NaN-less format uses
  inf,              // +-Inf input: saturated or not
  unsigned_input,   // e8m0fnu: zero or negative input (NaN, |x|, or the smallest code)
  overflow,         // finite input past max: the threshold, compare-before-round, saturation
  negative_zero,    // results that differ only as +0 / -0
  subnormal,        // input below the target's smallest normal (e8m0: below 2^-126)
  tie,              // input exactly halfway between two representable values
  rounding,         // any other rounding difference (directed vs nearest)
};
inline constexpr int kDiffClassCount = 8;
std::string_view name(DiffClass c);

struct DiffExample {
  std::uint64_t input_bits;
  std::uint32_t code_a, code_b;
};

struct PairDiff {
  std::string_view profile_a, profile_b;
  std::uint64_t inputs = 0;       // inputs compared
  std::uint64_t differences = 0;  // inputs with different codes
  std::array<std::uint64_t, kDiffClassCount> classes{};
  std::array<std::vector<DiffExample>, kDiffClassCount> examples;  // up to 3 per class
};

struct ConformanceReport {
  FormatId format;
  SourceType source;
  bool exhaustive;
  std::vector<PairDiff> pairs;  // every unordered pair of `profiles`, in table order
};

// Quick mode: every boundary point (each profile's code changes and their neighbours, zeros,
// infinities, NaNs with both signs and several payloads, max and min neighbours) plus a sample of
// 2^24 seeded random inputs. Exhaustive: all 2^32 fp32 inputs; fp16 and bf16 sources are always
// exhaustive (2^16); fp64 has no exhaustive mode (boundary set + sample).
ConformanceReport compare_profiles(FormatId format, SourceType source, bool exhaustive,
                                   std::span<const Profile* const> profiles);

}  // namespace octet
