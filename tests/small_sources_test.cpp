// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// small_sources_test.cpp — all 2^16 fp16 and all 2^16 bf16 inputs, to every target format, under
// every rounding mode (SR with seeded random words), every overflow policy and both NaN
// policies, plus the fp6/fp4 NaN, e8m0fnu negative/zero and subnormal-flush variants, through
// the array API, against the table reference.
#include <bit>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "octet/cast.hpp"
#include "reference/table_reference.hpp"
#include "test_util.hpp"

namespace {

using octet::CastSpec;
using octet::FormatId;
using octet::Overflow;
using octet::Rounding;
using octet::SourceType;
using octet_test::MismatchLog;

// Every spec this suite runs for a target: the full rounding x overflow x NaN-policy product,
// then each policy variant that applies to the target under every rounding x {SatFinite, Ieee}
// (x every overflow policy where the variant interacts with overflow).
std::vector<CastSpec> specs_for(const octet_ref::RefFormat& f) {
  std::vector<CastSpec> out;
  const std::vector<Overflow> all_overflows(octet_test::kAllOverflows.begin(), octet_test::kAllOverflows.end());
  const std::vector<Overflow> two_overflows{Overflow::SatFinite, Overflow::Ieee};
  const auto product = [&](CastSpec base, const std::vector<Overflow>& overflows, bool all_nan_policies) {
    for (Rounding r : octet_test::kAllRoundings)
      for (Overflow o : overflows)
        for (octet::NanPolicy p : octet_test::kAllNanPolicies) {
          if (!all_nan_policies && p != base.nan) continue;
          CastSpec s = base;
          s.rounding = r;
          s.overflow = o;
          s.nan = p;
          out.push_back(s);
        }
  };
  product(CastSpec{}, all_overflows, true);
  if (!f.has_nan()) {
    CastSpec s;
    s.nanless_nan = octet::NanlessNan::NegZero;
    product(s, two_overflows, true);
  }
  if (!f.is_signed) {
    for (auto neg : {octet::UnsignedNegative::Nan, octet::UnsignedNegative::Abs, octet::UnsignedNegative::Min})
      for (auto zero : {octet::UnsignedZero::Min, octet::UnsignedZero::Nan}) {
        if (neg == octet::UnsignedNegative::Nan && zero == octet::UnsignedZero::Min) continue;  // the default
        CastSpec s;
        s.unsigned_negative = neg;
        s.unsigned_zero = zero;
        product(s, neg == octet::UnsignedNegative::Abs ? all_overflows : two_overflows, false);
      }
    CastSpec s;
    s.unsigned_negative = octet::UnsignedNegative::Abs;
    s.ties_to_even_code = true;
    product(s, two_overflows, false);
    s.ties_to_even_code = false;
    s.e8m0_subnormal_above_min_rounds_up = true;
    product(s, two_overflows, false);
  }
  if (f.has_zero()) {
    CastSpec s;
    s.subnormals = octet::Subnormals::Flush;
    product(s, two_overflows, false);
  }
  for (auto code : {octet::IeeeNanCode::AllOnes, octet::IeeeNanCode::Payload})
    for (auto p : {octet::NanPolicy::KeepSign, octet::NanPolicy::Canonical})
      for (Overflow o : two_overflows) {
        CastSpec s;
        s.ieee_nan = code;
        s.nan = p;
        s.overflow = o;
        out.push_back(s);
      }
  // SR with an explicit bit count (the PTX f16x2 / bf16x2 slices, and the full word).
  for (std::uint8_t k : {13, 16, 32}) {
    CastSpec s;
    s.rounding = Rounding::Stochastic;
    s.sr.bits = k;
    out.push_back(s);
  }
  return out;
}

// The 2^16 inputs of one 16-bit source, widened to double by the suite's own decoder.
struct Inputs {
  SourceType type;
  std::vector<std::uint16_t> bits;
  std::vector<double> values;
};

Inputs all_inputs(SourceType t) {
  Inputs in{t, std::vector<std::uint16_t>(1u << 16), std::vector<double>(1u << 16)};
  for (std::uint32_t i = 0; i < (1u << 16); ++i) {
    in.bits[i] = std::uint16_t(i);
    in.values[i] = t == SourceType::bf16 ? double(std::bit_cast<float>(i << 16))
                                         : octet_ref::fp16_to_double(std::uint16_t(i));
  }
  return in;
}

// octet's array API: the typed overloads for 8-bit targets, the type-erased one for 16-bit
// targets (the typed bf16_bits / fp16_bits overloads only take 8-bit outputs).
std::vector<std::uint32_t> octet_cast(const Inputs& in, const octet::Format& dst, const CastSpec& s,
                                      std::span<const std::uint32_t> rbits) {
  const std::size_t n = in.bits.size();
  std::vector<std::uint32_t> out(n);
  if (dst.bits() <= 8) {
    std::vector<std::uint8_t> o(n);
    if (in.type == SourceType::bf16)
      octet::cast(std::span<const octet::bf16_bits>(reinterpret_cast<const octet::bf16_bits*>(in.bits.data()), n), dst,
                  s, std::span<std::uint8_t>(o), rbits);
    else
      octet::cast(std::span<const octet::fp16_bits>(reinterpret_cast<const octet::fp16_bits*>(in.bits.data()), n), dst,
                  s, std::span<std::uint8_t>(o), rbits);
    for (std::size_t i = 0; i < n; ++i) out[i] = o[i];
  } else {
    std::vector<std::uint16_t> o(n);
    octet::cast(in.type, in.bits.data(), n, dst, s, o.data(), rbits.empty() ? nullptr : rbits.data());
    for (std::size_t i = 0; i < n; ++i) out[i] = o[i];
  }
  return out;
}

std::string source_name(SourceType t) { return t == SourceType::bf16 ? "bf16" : "fp16"; }

struct Case {
  SourceType source;
  FormatId target;
};

class SmallSources : public ::testing::TestWithParam<Case> {};

TEST_P(SmallSources, AllInputsAllSpecsMatchTableReference) {
  const Case c = GetParam();
  const Inputs in = all_inputs(c.source);
  const octet::Format& dst = octet::format_of(c.target);
  const octet_ref::TableReference& ref = octet_ref::table_reference(c.target);
  const octet_ref::RefFormat& f = ref.format();
  const std::size_t n = in.values.size();

  // The neighbour lookup does not depend on the spec: do it once.
  std::vector<octet_ref::TableReference::Neighbours> located(n);
  for (std::size_t i = 0; i < n; ++i)
    if (std::isfinite(in.values[i]) && in.values[i] != 0) located[i] = ref.locate(std::fabs(in.values[i]));

  std::mt19937 rng(0x5EED0002u + unsigned(c.target) * 17u + unsigned(c.source));
  std::vector<std::uint32_t> rbits(n);
  int failed_specs = 0;
  for (const CastSpec& s : specs_for(f)) {
    const bool sr = s.rounding == Rounding::Stochastic;
    if (sr)
      for (auto& r : rbits) r = rng();
    const std::vector<std::uint32_t> got = octet_cast(in, dst, s, sr ? std::span<const std::uint32_t>(rbits)
                                                                     : std::span<const std::uint32_t>());
    MismatchLog log;  // single-threaded: about a millisecond per spec
    for (std::int64_t i = 0; i < std::int64_t(n); ++i) {
      const double x = in.values[std::size_t(i)];
      const bool located_ok = std::isfinite(x) && x != 0;
      const std::uint32_t want = ref.encode(s, octet_ref::Source::fp32, x, rbits[std::size_t(i)],
                                               located_ok ? &located[std::size_t(i)] : nullptr);
      if (got[std::size_t(i)] != want)
        log.add({std::uint64_t(i), in.bits[std::size_t(i)], 4, x, want, got[std::size_t(i)]});
    }
    if (!log.empty() && ++failed_specs <= 20)
      ADD_FAILURE() << log.report(f, source_name(c.source) + " -> " + std::string(f.name) + " [" +
                                         octet_test::spec_name(s) + "]");
  }
  EXPECT_EQ(failed_specs, 0);
}

std::vector<Case> all_cases() {
  std::vector<Case> out;
  for (SourceType s : {SourceType::fp16, SourceType::bf16})
    for (FormatId t : octet_test::kTargets) out.push_back({s, t});
  return out;
}

INSTANTIATE_TEST_SUITE_P(All, SmallSources, ::testing::ValuesIn(all_cases()), [](const auto& info) {
  return source_name(info.param.source) + "_to_" + std::string(octet_ref::ref_format(info.param.target).name);
});

}  // namespace
