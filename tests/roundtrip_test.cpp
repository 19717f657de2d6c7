// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// roundtrip_test.cpp — every code of every target format, decoded by the reference decoder and
// encoded back, is itself under every rounding mode (an exact value is never rounded), from
// fp64 and from fp32 (every value of every target is exact in fp32, e8m0's 2^-127 as an fp32
// subnormal). NaN codes give the policy's NaN code, Inf codes follow the overflow policy.
#include <cmath>
#include <cstdint>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "octet/cast.hpp"
#include "reference/ref_format.hpp"
#include "test_util.hpp"

namespace {

using octet::CastSpec;
using octet::FormatId;
using octet::NanPolicy;
using octet::Overflow;
using octet::Rounding;
using octet_ref::RefClass;
using octet_ref::RefFormat;
using octet_ref::Specials;
using octet_test::MismatchLog;

// The code a decoded `code` must come back as: itself for finite codes; for NaN codes the
// format's NaN (Ieee: quiet, sign per policy) or +-max under NanPolicy::ToMax; for Inf codes
// Inf, or max under SatFinite.
std::uint32_t expected_back(const RefFormat& f, const CastSpec& s, std::uint32_t code) {
  const std::uint32_t sign = code & f.sign_bit();
  switch (octet_ref::ref_classify(f, code)) {
    case RefClass::nan:
      // fnuz's only NaN (0x80) decodes to +NaN: its sign bit is part of the code.
      if (s.nan == NanPolicy::ToMax) return (f.specials == Specials::Fnuz ? 0u : sign) | f.max_code;
      if (f.specials == Specials::Fnuz || f.specials == Specials::E8m0) return f.nan_code;
      return (s.nan == NanPolicy::KeepSign ? sign : 0u) | f.nan_code;
    case RefClass::inf: return s.overflow == Overflow::SatFinite ? (sign | f.max_code) : (sign | f.inf_code);
    default: return code;
  }
}

class RoundTrip : public ::testing::TestWithParam<FormatId> {};

TEST_P(RoundTrip, EveryCodeEveryMode) {
  const octet::Format& fmt = octet::format_of(GetParam());
  const RefFormat& f = octet_ref::ref_format(GetParam());
  std::mt19937 rng(0x5EED0001u);
  for (Rounding r : octet_test::kAllRoundings)
    for (Overflow o : octet_test::kAllOverflows)
      for (NanPolicy p : octet_test::kAllNanPolicies) {
        CastSpec s;
        s.rounding = r;
        s.overflow = o;
        s.nan = p;
        MismatchLog from64, from32;
        for (std::uint32_t code = 0; code < (1u << f.bits); ++code) {
          const double v = octet_ref::ref_decode(f, code);
          const std::uint32_t rbits = rng();
          const std::uint32_t want = expected_back(f, s, code);
          const std::uint32_t got64 = octet::encode(fmt, s, v, rbits);
          const std::uint32_t got32 = octet::encode(fmt, s, float(v), rbits);
          if (got64 != want) from64.add({code, code, (f.bits + 3) / 4, v, want, got64});
          if (got32 != want) from32.add({code, code, (f.bits + 3) / 4, v, want, got32});
        }
        EXPECT_TRUE(from64.empty()) << from64.report(f, "fp64 round trip [" + octet_test::spec_name(s) + "]");
        EXPECT_TRUE(from32.empty()) << from32.report(f, "fp32 round trip [" + octet_test::spec_name(s) + "]");
      }
}

// Sanity of the premise: every finite value of the target is exact in fp32.
TEST_P(RoundTrip, ValuesAreExactInFp32) {
  const RefFormat& f = octet_ref::ref_format(GetParam());
  for (std::uint32_t mag = 0; mag <= f.max_code; ++mag) {
    const double v = octet_ref::plain_magnitude(f, mag);
    ASSERT_EQ(double(float(v)), v) << f.name << " " << octet_test::hex(mag, 4);
  }
}

// Flush: a subnormal code comes back as the zero of its sign; every other code as itself.
TEST_P(RoundTrip, FlushMapsSubnormalCodesToZero) {
  const octet::Format& fmt = octet::format_of(GetParam());
  const RefFormat& f = octet_ref::ref_format(GetParam());
  CastSpec s;
  s.subnormals = octet::Subnormals::Flush;
  MismatchLog log;
  for (std::uint32_t code = 0; code < (1u << f.bits); ++code) {
    const RefClass c = octet_ref::ref_classify(f, code);
    if (c == RefClass::nan || c == RefClass::inf) continue;
    std::uint32_t want = code;
    if (c == RefClass::subnormal) want = f.specials == Specials::Fnuz ? 0u : (code & f.sign_bit());
    const double v = octet_ref::ref_decode(f, code);
    const std::uint32_t got = octet::encode(fmt, s, v);
    if (got != want) log.add({code, code, (f.bits + 3) / 4, v, want, got});
  }
  EXPECT_TRUE(log.empty()) << log.report(f, "flush round trip");
}

INSTANTIATE_TEST_SUITE_P(Formats, RoundTrip, ::testing::ValuesIn(octet_test::kTargets),
                         [](const auto& info) { return std::string(octet_ref::ref_format(info.param).name); });

// fnuz and e8m0fnu specifics.
TEST(RoundTripSpecifics, FnuzHasNoNegativeZeroCode) {
  for (FormatId id : {FormatId::e4m3fnuz, FormatId::e5m2fnuz}) {
    const octet::Format& fmt = octet::format_of(id);
    EXPECT_EQ(octet::encode(fmt, CastSpec{}, -0.0), 0x00u);
    EXPECT_EQ(octet::encode(fmt, CastSpec{}, octet_ref::ref_decode(octet_ref::ref_format(id), 0x80)), 0x80u);
    // 0x81 is -min subnormal, not a second zero.
    EXPECT_EQ(octet::encode(fmt, CastSpec{}, octet_ref::ref_decode(octet_ref::ref_format(id), 0x81)), 0x81u);
  }
}

TEST(RoundTripSpecifics, E8m0EveryCodeAndNan) {
  const octet::Format& fmt = octet::e8m0fnu_format;
  for (std::uint32_t b = 0; b <= 0xFE; ++b)
    for (Rounding r : octet_test::kDeterministicRoundings) {
      CastSpec s;
      s.rounding = r;
      ASSERT_EQ(octet::encode(fmt, s, std::ldexp(1.0f, int(b) - 127)), b) << "2^(" << int(b) - 127 << ")";
    }
  EXPECT_EQ(octet::encode(fmt, CastSpec{}, octet_ref::ref_decode(octet_ref::ref_format(FormatId::e8m0fnu), 0xFF)),
            0xFFu);
}

}  // namespace
