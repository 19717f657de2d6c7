// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// exhaustive_fp32_test.cpp — all 2^32 fp32 inputs per (target, rounding, overflow), against the
// table reference. The reference is monotone in the input value, so over the ordered positive
// bit patterns [0x00000000, 0x7F800000] (and the negative ones [0x80000000, 0xFF800000]) each
// result code covers one contiguous run: binary search on the bit patterns, with the reference
// itself as the oracle, yields a short list of intervals [first_bits, last_bits] -> code. The
// sweep (octet::sweep_fp32, 2^20 inputs a block) is then compared against the intervals.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <mutex>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "octet/sweep.hpp"
#include "reference/table_reference.hpp"
#include "test_util.hpp"

namespace {

using octet::CastSpec;
using octet::FormatId;
using octet::Overflow;
using octet::Rounding;

struct Interval {
  std::uint64_t first, last;  // fp32 bit patterns, inclusive
  std::uint32_t code;
};

// Splits [first, last] (bit patterns over which ref is monotone) into runs of equal codes.
template <class Ref>
void add_runs(const Ref& ref, std::uint64_t first, std::uint64_t last, std::vector<Interval>& out) {
  std::uint64_t a = first;
  while (a <= last) {
    const std::uint32_t code = ref(a);
    // Largest b in [a, last] with ref(b) == code.
    std::uint64_t lo = a, hi = last;
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo + 1) / 2;
      if (ref(mid) == code) lo = mid;
      else hi = mid - 1;
    }
    out.push_back({a, lo, code});
    a = lo + 1;
  }
}

std::vector<Interval> expected_intervals(FormatId id, const CastSpec& s) {
  const octet_ref::TableReference& table = octet_ref::table_reference(id);
  const auto ref = [&](std::uint64_t bits) {
    return table.encode(s, octet_ref::Source::fp32, double(std::bit_cast<float>(std::uint32_t(bits))));
  };
  std::vector<Interval> out;
  add_runs(ref, 0x00000000u, 0x7F800000u, out);  // +0 .. +Inf, increasing
  add_runs(ref, 0x7F800001u, 0x7FFFFFFFu, out);  // +NaN
  add_runs(ref, 0x80000000u, 0xFF800000u, out);  // -0 .. -Inf, decreasing
  add_runs(ref, 0xFF800001u, 0xFFFFFFFFu, out);  // -NaN
  return out;
}

// e8m0fnu policy variants that change the rounding of finite inputs.
enum class Variant { none, negative_abs, ties_to_even_code, fp32_subnormal_rule };

struct SweepCase {
  FormatId format;
  Rounding rounding;
  Overflow overflow;
  Variant variant = Variant::none;
};

CastSpec spec_of(const SweepCase& c) {
  CastSpec s;
  s.rounding = c.rounding;
  s.overflow = c.overflow;
  if (c.variant != Variant::none) s.unsigned_negative = octet::UnsignedNegative::Abs;  // negatives rounded too
  s.ties_to_even_code = c.variant == Variant::ties_to_even_code;
  s.e8m0_subnormal_above_min_rounds_up = c.variant == Variant::fp32_subnormal_rule;
  return s;
}

std::string case_name(const SweepCase& c) {
  constexpr const char* kVariant[] = {"_", "_abs_", "_evencode_", "_subnormalrule_"};
  return std::string(octet_ref::ref_format(c.format).name) + kVariant[int(c.variant)] +
         octet_test::rounding_name(c.rounding) + "_" + octet_test::overflow_name(c.overflow);
}

class ExhaustiveFp32 : public ::testing::TestWithParam<SweepCase> {};

TEST_P(ExhaustiveFp32, AllInputs) {
  const SweepCase c = GetParam();
  const CastSpec s = spec_of(c);
  const octet_ref::TableReference& table = octet_ref::table_reference(c.format);
  const octet_ref::RefFormat& f = table.format();
  const std::vector<Interval> runs = expected_intervals(c.format, s);

  // The intervals must tile [0, 2^32) and agree with the reference at random points inside
  // (a cheap guard on the monotonicity premise).
  ASSERT_EQ(runs.front().first, 0u);
  ASSERT_EQ(runs.back().last, 0xFFFFFFFFu);
  for (std::size_t i = 1; i < runs.size(); ++i) ASSERT_EQ(runs[i].first, runs[i - 1].last + 1);
  std::mt19937_64 rng(0x5EED0004u);
  for (int k = 0; k < 100000; ++k) {
    const std::uint32_t bits = std::uint32_t(rng());
    const auto it = std::upper_bound(runs.begin(), runs.end(), std::uint64_t(bits),
                                     [](std::uint64_t b, const Interval& r) { return b < r.first; }) - 1;
    ASSERT_EQ(it->code, table.encode(s, octet_ref::Source::fp32, double(std::bit_cast<float>(bits)))) << octet_test::hex(bits, 8);
  }

  octet_test::MismatchLog log;
  const auto on_block = [&](std::uint64_t first, std::span<const std::uint8_t> codes) {
    auto it = std::upper_bound(runs.begin(), runs.end(), first,
                               [](std::uint64_t b, const Interval& r) { return b < r.first; }) - 1;
    std::uint64_t i = 0;
    while (i < codes.size()) {
      const std::uint64_t end = std::min<std::uint64_t>(codes.size(), it->last + 1 - first);
      const std::uint8_t want = std::uint8_t(it->code);
      for (; i < end; ++i)
        if (codes[i] != want) [[unlikely]] {
          const std::uint32_t bits = std::uint32_t(first + i);
          log.add({bits, bits, 8, double(std::bit_cast<float>(bits)), want, codes[i]});
        }
      ++it;
    }
  };
  const octet::SweepResult result = octet::sweep_fp32(octet::format_of(c.format), s, 0, std::uint64_t(1) << 32, 0, on_block);
  EXPECT_EQ(result.inputs, std::uint64_t(1) << 32);
  EXPECT_TRUE(log.empty()) << log.report(f, "fp32 sweep " + case_name(c) + " (" + std::to_string(runs.size()) +
                                                " reference intervals)");
  RecordProperty("conversions_per_second", std::to_string(result.conversions_per_second));
  std::printf("%s: %zu intervals, %.2f s, %.3g conversions/s, %d threads, digest %016llx\n", case_name(c).c_str(),
              runs.size(), result.seconds, result.conversions_per_second, result.threads,
              static_cast<unsigned long long>(result.digest));
}

std::vector<SweepCase> all_cases() {
  std::vector<SweepCase> out;
  for (FormatId f : {FormatId::e4m3fn, FormatId::e4m3fnuz, FormatId::e5m2, FormatId::e5m2fnuz, FormatId::e8m0fnu,
                     FormatId::e2m3fn, FormatId::e3m2fn, FormatId::e2m1fn})
    for (Rounding r : {Rounding::NearestEven, Rounding::TowardZero, Rounding::TowardPositive, Rounding::TowardNegative})
      for (Overflow o : {Overflow::SatFinite, Overflow::Ieee}) out.push_back({f, r, o});
  // The other overflow policies and the e8m0fnu variants, where they change results.
  for (FormatId f : {FormatId::e4m3fn, FormatId::e4m3fnuz, FormatId::e5m2})
    out.push_back({f, Rounding::NearestEven, Overflow::CompareBeforeRound});
  for (FormatId f : {FormatId::e4m3fn, FormatId::e5m2}) {
    out.push_back({f, Rounding::TowardZero, Overflow::NonSat});
    out.push_back({f, Rounding::NearestAway, Overflow::SatFiniteOnly});
  }
  for (Rounding r : {Rounding::TowardPositive, Rounding::TowardNegative})
    out.push_back({FormatId::e8m0fnu, r, Overflow::Ieee, Variant::negative_abs});
  out.push_back({FormatId::e8m0fnu, Rounding::NearestEven, Overflow::SatFinite, Variant::ties_to_even_code});
  out.push_back({FormatId::e8m0fnu, Rounding::NearestEven, Overflow::SatFinite, Variant::fp32_subnormal_rule});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Fp32Sweep, ExhaustiveFp32, ::testing::ValuesIn(all_cases()),
                         [](const auto& info) { return case_name(info.param); });

}  // namespace
