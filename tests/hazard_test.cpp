// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// hazard_test.cpp — one named test per known hazard (reference/formats.md §3, §4, §9). Every
// expected code is typed in from formats.md; the table reference is checked against the same
// literal so that a reference bug cannot hide behind agreement with octet.
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include <gtest/gtest.h>

#include "octet/cast.hpp"
#include "reference/table_reference.hpp"
#include "test_util.hpp"

namespace {

using octet::CastSpec;
using octet::FormatId;
using octet::NanlessNan;
using octet::NanPolicy;
using octet::Overflow;
using octet::Rounding;
using octet::Subnormals;
using octet::UnsignedNegative;
using octet::UnsignedZero;
using octet_test::hex;

constexpr Rounding RNE = Rounding::NearestEven, RNA = Rounding::NearestAway, RTZ = Rounding::TowardZero,
                   RU = Rounding::TowardPositive, RD = Rounding::TowardNegative, RTO = Rounding::ToOdd;
constexpr Overflow kSat = Overflow::SatFinite, kIeee = Overflow::Ieee, kSatOnly = Overflow::SatFiniteOnly,
                   kPrecompare = Overflow::CompareBeforeRound;

CastSpec spec(Rounding r, Overflow o) {
  CastSpec s;
  s.rounding = r;
  s.overflow = o;
  return s;
}

std::string what(FormatId f, const CastSpec& s, double x, std::uint64_t bits, int digits) {
  return std::string(octet_ref::ref_format(f).name) + " <- " + octet_test::value_str(x) + " (" + hex(bits, digits) +
         ") [" + octet_test::spec_name(s) + "]";
}

// An fp32 input: octet's fp32 and fp64 paths (fp32 is exact in fp64) and the reference.
void expect_f32(FormatId f, const CastSpec& s, float x, std::uint32_t want, std::uint32_t rbits = 0) {
  const octet::Format& fmt = octet::format_of(f);
  const octet_ref::RefFormat& rf = octet_ref::ref_format(f);
  const std::string ctx = what(f, s, x, std::bit_cast<std::uint32_t>(x), 8);
  EXPECT_EQ(octet::encode(fmt, s, x, rbits), want)
      << ctx << ": got " << octet_test::code_str(rf, octet::encode(fmt, s, x, rbits)) << " want "
      << octet_test::code_str(rf, want);
  // The fp64 path gives the same code, except for the fp32-only e8m0 subnormal rule.
  const std::uint32_t want64 = s.e8m0_subnormal_above_min_rounds_up
                                   ? octet_ref::table_encode(f, s, octet_ref::Source::fp64, double(x), rbits)
                                   : want;
  EXPECT_EQ(octet::encode(fmt, s, double(x), rbits), want64) << ctx << " (as fp64)";
  EXPECT_EQ(octet_ref::table_encode(f, s, octet_ref::Source::fp32, double(x), rbits), want) << ctx << " (table reference)";
}

void expect_f64(FormatId f, const CastSpec& s, double x, std::uint32_t want) {
  const octet::Format& fmt = octet::format_of(f);
  const octet_ref::RefFormat& rf = octet_ref::ref_format(f);
  const std::string ctx = what(f, s, x, std::bit_cast<std::uint64_t>(x), 16);
  EXPECT_EQ(octet::encode(fmt, s, x), want)
      << ctx << ": got " << octet_test::code_str(rf, octet::encode(fmt, s, x)) << " want " << octet_test::code_str(rf, want);
  EXPECT_EQ(octet_ref::table_encode(f, s, octet_ref::Source::fp64, x), want) << ctx << " (table reference)";
}

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

// H1: 464 is the midpoint of 448 (0.1111.110) and 480 (the NaN code's place); RNE ties to the
// even mantissa 110.
TEST(Hazard, RneTieAt464) {
  for (Overflow o : {kSat, kIeee, kSatOnly}) {
    expect_f32(FormatId::e4m3fn, spec(RNE, o), 464.0f, 0x7E);    // 0.1111.110 = 448
    expect_f32(FormatId::e4m3fn, spec(RNE, o), -464.0f, 0xFE);
  }
  expect_f32(FormatId::e4m3fn, spec(RNA, kIeee), 464.0f, 0x7F);  // ties away: 480 overflows to NaN
  expect_f32(FormatId::e4m3fn, spec(RNA, kSat), 464.0f, 0x7E);
  // microxcaling test_fp8_e4m3_fix: 400 is the midpoint of 384 (0.1111.100) and 416 (0.1111.101).
  expect_f32(FormatId::e4m3fn, spec(RNE, kSat), 400.0f, 0x7C);   // 384
  expect_f32(FormatId::e4m3fn, spec(RNA, kSat), 400.0f, 0x7D);   // 416
}

TEST(Hazard, E4m3fnOverflowAt465) {
  expect_f32(FormatId::e4m3fn, spec(RNE, kIeee), 464.0f, 0x7E);
  expect_f32(FormatId::e4m3fn, spec(RNE, kIeee), 465.0f, 0x7F);     // 0.1111.111 = NaN
  expect_f32(FormatId::e4m3fn, spec(RNE, kIeee), -465.0f, 0xFF);    // NaN keeps the sign
  expect_f32(FormatId::e4m3fn, spec(RNE, kSat), 465.0f, 0x7E);
  expect_f32(FormatId::e4m3fn, spec(RNE, kSat), -465.0f, 0xFE);
  expect_f32(FormatId::e4m3fn, spec(RNE, kIeee), 1e9f, 0x7F);       // H22: __NV_NOSAT
  expect_f32(FormatId::e4m3fn, spec(RNE, kSat), 1e9f, 0x7E);        // H22: __NV_SATFINITE
  // IEEE 754 §7.4: RTZ, and RU/RD away from the infinity, give max.
  expect_f32(FormatId::e4m3fn, spec(RTZ, kIeee), 1e9f, 0x7E);
  expect_f32(FormatId::e4m3fn, spec(RD, kIeee), 1e9f, 0x7E);
  expect_f32(FormatId::e4m3fn, spec(RU, kIeee), 1e9f, 0x7F);
  expect_f32(FormatId::e4m3fn, spec(RU, kIeee), -1e9f, 0xFE);
  expect_f32(FormatId::e4m3fn, spec(RD, kIeee), -1e9f, 0xFF);
  expect_f32(FormatId::e4m3fn, spec(RU, kIeee), 449.0f, 0x7F);      // rounds up to 480: overflow
  expect_f32(FormatId::e4m3fn, spec(RTZ, kIeee), 479.0f, 0x7E);
}

// H3: (240, 248) rounds to 240; 248 is the tie with 256, whose even code 0x80 is the NaN.
TEST(Hazard, E4m3fnuz240And248) {
  expect_f32(FormatId::e4m3fnuz, spec(RNE, kIeee), 241.0f, 0x7F);
  expect_f32(FormatId::e4m3fnuz, spec(RNE, kIeee), 247.9f, 0x7F);   // 0.1111.111 = 240
  expect_f32(FormatId::e4m3fnuz, spec(RNE, kIeee), 248.0f, 0x80);   // NaN
  expect_f32(FormatId::e4m3fnuz, spec(RNE, kIeee), -248.0f, 0x80);  // the only NaN
  expect_f32(FormatId::e4m3fnuz, spec(RNE, kSat), 248.0f, 0x7F);
  expect_f32(FormatId::e4m3fnuz, spec(RNE, kSat), -248.0f, 0xFF);
  expect_f32(FormatId::e5m2fnuz, spec(RNE, kIeee), 61440.0f, 0x80); // derived: same rule
  expect_f32(FormatId::e5m2fnuz, spec(RNE, kIeee), 61439.0f, 0x7F);
}

// H4: 61440 is the midpoint of 57344 (0.11110.11) and 65536 (0.11111.00 = Inf); the tie goes to
// the even code, Inf.
TEST(Hazard, E5m2_57344And61440) {
  expect_f32(FormatId::e5m2, spec(RNE, kIeee), 57345.0f, 0x7B);
  expect_f32(FormatId::e5m2, spec(RNE, kIeee), 61439.0f, 0x7B);
  expect_f32(FormatId::e5m2, spec(RNE, kIeee), 61440.0f, 0x7C);
  expect_f32(FormatId::e5m2, spec(RNE, kIeee), -61440.0f, 0xFC);
  expect_f32(FormatId::e5m2, spec(RNE, kSat), 61440.0f, 0x7B);
  expect_f32(FormatId::e5m2, spec(RNE, kSat), 1e9f, 0x7B);
}

// H12 and row 7: e8m0fnu has no zero; code 0x00 is 2^-127.
TEST(Hazard, E8m0ZeroIs2PowMinus127) {
  CastSpec s = spec(RNE, kSat);
  s.unsigned_zero = UnsignedZero::Min;
  expect_f32(FormatId::e8m0fnu, s, 0.0f, 0x00);
  s.unsigned_zero = UnsignedZero::Nan;                                  // ml_dtypes
  expect_f32(FormatId::e8m0fnu, s, 0.0f, 0xFF);
  s = spec(RNE, kSat);
  expect_f32(FormatId::e8m0fnu, s, std::bit_cast<float>(0x00400000u), 0x00);   // 2^-127
  expect_f32(FormatId::e8m0fnu, s, std::bit_cast<float>(0x00000001u), 0x00);   // 2^-149 clamps
  expect_f32(FormatId::e8m0fnu, s, std::bit_cast<float>(0x00600000u), 0x01);   // 1.5 * 2^-127 ties up
  expect_f32(FormatId::e8m0fnu, spec(RU, kSat), std::bit_cast<float>(0x00400001u), 0x01);  // RP: m > 0x400000
  expect_f32(FormatId::e8m0fnu, spec(RU, kSat), std::bit_cast<float>(0x00400000u), 0x00);
  expect_f32(FormatId::e8m0fnu, spec(RU, kSat), std::bit_cast<float>(0x00200000u), 0x00);  // <= 2^-127
  expect_f32(FormatId::e8m0fnu, spec(RTZ, kSat), std::bit_cast<float>(0x007FFFFFu), 0x00); // RZ: e = 0
  expect_f32(FormatId::e8m0fnu, s, 1.0f, 0x7F);
  EXPECT_EQ(octet::decode(octet::e8m0fnu_format, 0x00), 0x1p-127);
}

// Rows 8 and 11, H13: 0xFF is the only NaN; overflow and Inf give it unless saturating.
TEST(Hazard, E8m0NanIs0xFF) {
  for (NanPolicy p : {NanPolicy::KeepSign, NanPolicy::Canonical})
    for (Overflow o : octet_test::kAllOverflows) {
      CastSpec s = spec(RNE, o);
      s.nan = p;
      expect_f32(FormatId::e8m0fnu, s, kNaN, 0xFF);
      expect_f32(FormatId::e8m0fnu, s, -kNaN, 0xFF);
      s.unsigned_negative = UnsignedNegative::Min;
      expect_f32(FormatId::e8m0fnu, s, -kNaN, 0xFF);  // NaN is decided before the sign
    }
  const float x = std::bit_cast<float>(0x7F400000u);   // 1.5 * 2^127: RN ties up to 2^128
  expect_f32(FormatId::e8m0fnu, spec(RNE, kIeee), x, 0xFF);
  expect_f32(FormatId::e8m0fnu, spec(RU, kIeee), x, 0xFF);
  expect_f32(FormatId::e8m0fnu, spec(RNE, kSat), x, 0xFE);
  expect_f32(FormatId::e8m0fnu, spec(RNE, kSatOnly), x, 0xFE);
  expect_f32(FormatId::e8m0fnu, spec(RTZ, kIeee), x, 0xFE);
  expect_f32(FormatId::e8m0fnu, spec(RNE, kIeee), kInf, 0xFF);
  expect_f32(FormatId::e8m0fnu, spec(RNE, kSat), kInf, 0xFE);
  expect_f32(FormatId::e8m0fnu, spec(RNE, kSatOnly), kInf, 0xFF);
}

// H10: 3.0 = 1.5 * 2^1 is the midpoint of 2 (0x80) and 4 (0x81). Every e8m0 significand is 1
// (odd), so RNE ties up; the even-code rule (gfloat) would give 0x80.
TEST(Hazard, E8m0TieUpAt3) {
  expect_f32(FormatId::e8m0fnu, spec(RNE, kSat), 3.0f, 0x81);
  expect_f32(FormatId::e8m0fnu, spec(RNA, kSat), 3.0f, 0x81);
  expect_f32(FormatId::e8m0fnu, spec(RTZ, kSat), 3.0f, 0x80);
  expect_f32(FormatId::e8m0fnu, spec(RU, kSat), 3.0f, 0x81);
  expect_f32(FormatId::e8m0fnu, spec(RD, kSat), 3.0f, 0x80);
  expect_f32(FormatId::e8m0fnu, spec(RTO, kSat), 3.0f, 0x80);          // significand already odd
  expect_f32(FormatId::e8m0fnu, spec(RNE, kSat), std::nextafter(3.0f, 0.0f), 0x80);
  expect_f32(FormatId::e8m0fnu, spec(RU, kSat), 448.0f, 0x88);          // CUDA cudaRoundPosInf: 2^9
}

// H10, H23: gfloat and ml_dtypes before PR #223 send e8m0 ties to the even *code*.
TEST(Hazard, E8m0TieToEvenCode) {
  CastSpec s = spec(RNE, kSat);
  s.ties_to_even_code = true;
  expect_f32(FormatId::e8m0fnu, s, 3.0f, 0x80);    // 2 (code 128, even) rather than 4
  expect_f32(FormatId::e8m0fnu, s, 6.0f, 0x82);    // lower code 0x81 is odd: up to 8
  expect_f32(FormatId::e8m0fnu, s, 1.5f, 0x80);    // lower code 0x7F is odd: up to 2
  expect_f32(FormatId::e8m0fnu, s, std::bit_cast<float>(0x7F400000u), 0xFE);  // 1.5 * 2^127: 0xFE even
  expect_f32(FormatId::e4m3fn, s, 464.0f, 0x7E);   // M >= 1: the same as ties to even significand
}

// formats.md §2: c10 and ml_dtypes round an fp32-subnormal input with the implicit bit (0) as
// the LSB, so every fp32 subnormal above 2^-127 gives code 1, whatever the rounding mode.
TEST(Hazard, E8m0Fp32SubnormalRule) {
  CastSpec s = spec(RNE, kSat);
  s.e8m0_subnormal_above_min_rounds_up = true;
  expect_f32(FormatId::e8m0fnu, s, std::bit_cast<float>(0x00400001u), 0x01);
  expect_f32(FormatId::e8m0fnu, s, std::bit_cast<float>(0x00400000u), 0x00);
  expect_f32(FormatId::e8m0fnu, s, std::bit_cast<float>(0x003FFFFFu), 0x00);
  expect_f32(FormatId::e8m0fnu, s, std::bit_cast<float>(0x007FFFFFu), 0x01);
  expect_f32(FormatId::e8m0fnu, s, std::bit_cast<float>(0x00800000u), 0x01);  // 2^-126: normal path
  expect_f32(FormatId::e8m0fnu, spec(RNE, kSat), std::bit_cast<float>(0x00400001u), 0x00);  // without the rule
  CastSpec rtz = s;
  rtz.rounding = RTZ;
  expect_f32(FormatId::e8m0fnu, rtz, std::bit_cast<float>(0x00500000u), 0x01);
  expect_f64(FormatId::e8m0fnu, s, 0x1.4p-127, 0x00);  // fp64 source: an fp32 rule, not applied
}

// Overflow::NonSat (ml_dtypes kTruncate, c10): beyond max is Inf/NaN whatever the direction.
TEST(Hazard, NonSatIgnoresDirection) {
  const Overflow kNonSat = Overflow::NonSat;
  expect_f32(FormatId::e4m3fn, spec(RTZ, kNonSat), 480.0f, 0x7F);
  expect_f32(FormatId::e4m3fn, spec(RTZ, kIeee), 480.0f, 0x7E);     // contrast: IEEE RTZ gives max
  expect_f32(FormatId::e4m3fn, spec(RTZ, kNonSat), 479.0f, 0x7E);   // truncates to 448
  expect_f32(FormatId::e4m3fn, spec(RD, kNonSat), 1e9f, 0x7F);
  expect_f32(FormatId::e4m3fn, spec(RU, kNonSat), -1e9f, 0xFF);
  expect_f32(FormatId::e4m3fn, spec(RNE, kNonSat), 464.0f, 0x7E);
  expect_f32(FormatId::e5m2, spec(RTZ, kNonSat), 65536.0f, 0x7C);
  expect_f32(FormatId::e5m2, spec(RTZ, kNonSat), 65535.0f, 0x7B);
  expect_f32(FormatId::e5m2, spec(RTZ, kNonSat), -kInf, 0xFC);
  expect_f32(FormatId::e2m1fn, spec(RTZ, kNonSat), 100.0f, 0x7);     // neither Inf nor NaN: max
}

// NaN codes of the IEEE-style targets: ml_dtypes quiet 0x7E, c10 `0x7F | sign`, CUDA double
// path `0x7E | truncated mantissa` (formats.md §4, §6.3).
TEST(Hazard, IeeeNanCodes) {
  CastSpec s = spec(RNE, kSat);
  expect_f32(FormatId::e5m2, s, kNaN, 0x7E);
  s.ieee_nan = octet::IeeeNanCode::AllOnes;
  expect_f32(FormatId::e5m2, s, kNaN, 0x7F);
  expect_f32(FormatId::e5m2, s, -kNaN, 0xFF);
  expect_f32(FormatId::bf16, s, kNaN, 0x7FFF);
  expect_f32(FormatId::fp16, s, -kNaN, 0xFFFF);
  s.nan = NanPolicy::Canonical;
  expect_f32(FormatId::e5m2, s, -kNaN, 0x7F);
  s = spec(RNE, kSat);
  s.ieee_nan = octet::IeeeNanCode::Payload;
  expect_f64(FormatId::e5m2, s, std::bit_cast<double>(0x7FF8000000000000ull), 0x7E);  // mantissa 10...
  expect_f64(FormatId::e5m2, s, std::bit_cast<double>(0x7FF4000000000000ull), 0x7F);  // 01...: 0x7E | 01
  expect_f64(FormatId::e5m2, s, std::bit_cast<double>(0xFFF0000000000001ull), 0xFE);  // signalling, negative
  expect_f32(FormatId::bf16, s, std::bit_cast<float>(0x7FC12345u), 0x7FC1);         // top 7 bits 1000001
  expect_f32(FormatId::bf16, s, std::bit_cast<float>(0x7F812345u), 0x7FC1);         // quiet bit forced
  expect_f32(FormatId::fp16, s, std::bit_cast<float>(0xFFFFE000u), 0xFFFF);
  expect_f32(FormatId::e4m3fn, s, kNaN, 0x7F);                                      // not an Ieee NaN format
}

// H11: negative input to the unsigned e8m0fnu.
TEST(Hazard, E8m0NegativeInput) {
  CastSpec s = spec(RNE, kSat);
  s.unsigned_negative = UnsignedNegative::Nan;   // ml_dtypes
  expect_f32(FormatId::e8m0fnu, s, -2.0f, 0xFF);
  s.unsigned_negative = UnsignedNegative::Min;   // ml_dtypes kSaturate
  expect_f32(FormatId::e8m0fnu, s, -2.0f, 0x00);
  s.unsigned_negative = UnsignedNegative::Abs;   // c10, CUDA
  expect_f32(FormatId::e8m0fnu, s, -2.0f, 0x80);
  expect_f32(FormatId::e8m0fnu, s, -3.0f, 0x81);
}

// §4: fnuz has one NaN, 0x80, whatever the sign and the overflow policy; only the HIP 2024-10
// clip rule (NanPolicy::ToMax) maps NaN to +-max.
TEST(Hazard, FnuzNanIs0x80) {
  for (FormatId f : {FormatId::e4m3fnuz, FormatId::e5m2fnuz})
    for (NanPolicy p : {NanPolicy::KeepSign, NanPolicy::Canonical})
      for (Overflow o : octet_test::kAllOverflows) {
        CastSpec s = spec(RNE, o);
        s.nan = p;
        expect_f32(f, s, kNaN, 0x80);
        expect_f32(f, s, -kNaN, 0x80);
        expect_f64(f, s, -std::numeric_limits<double>::quiet_NaN(), 0x80);
      }
  expect_f32(FormatId::e4m3fnuz, spec(RNE, kIeee), kInf, 0x80);
  expect_f32(FormatId::e4m3fnuz, spec(RNE, kIeee), -kInf, 0x80);
  CastSpec clip = spec(RNE, kSat);
  clip.nan = NanPolicy::ToMax;
  expect_f32(FormatId::e4m3fnuz, clip, kNaN, 0x7F);
  expect_f32(FormatId::e4m3fnuz, clip, -kNaN, 0xFF);
  expect_f32(FormatId::e5m2fnuz, clip, -kNaN, 0xFF);
}

// H7: no -0 in fnuz; -0 and negative underflow give +0.
TEST(Hazard, FnuzNegZeroIsPlusZero) {
  for (FormatId f : {FormatId::e4m3fnuz, FormatId::e5m2fnuz})
    for (Rounding r : {RNE, RNA, RTZ, RU}) {
      expect_f32(f, spec(r, kSat), -0.0f, 0x00);
      expect_f32(f, spec(r, kSat), -0x1p-20f, 0x00);
    }
  expect_f32(FormatId::e4m3fnuz, spec(RD, kSat), -0x1p-20f, 0x81);  // RD rounds away: -2^-10
  CastSpec flush = spec(RNE, kSat);
  flush.subnormals = Subnormals::Flush;
  expect_f32(FormatId::e4m3fnuz, flush, -0x1p-10f, 0x00);            // flushed -min subnormal
}

TEST(Hazard, NegZeroKeptForOcp) {
  const CastSpec s = spec(RNE, kSat);
  expect_f32(FormatId::e4m3fn, s, -0.0f, 0x80);
  expect_f32(FormatId::e5m2, s, -0.0f, 0x80);
  expect_f32(FormatId::e2m3fn, s, -0.0f, 0x20);
  expect_f32(FormatId::e3m2fn, s, -0.0f, 0x20);
  expect_f32(FormatId::e2m1fn, s, -0.0f, 0x8);
  expect_f32(FormatId::bf16, s, -0.0f, 0x8000);
  expect_f32(FormatId::fp16, s, -0.0f, 0x8000);
  expect_f32(FormatId::e4m3fn, s, -0x1p-20f, 0x80);   // negative underflow
  expect_f32(FormatId::e5m2, s, -0x1p-20f, 0x80);
  expect_f32(FormatId::e4m3fn, s, 0.0f, 0x00);
}

// H8 (ml_dtypes PR #401): -431.99999999999994 lies just above the midpoint -432 of -416 (0xFD)
// and -448 (0xFE) in magnitude; direct rounding gives -416, rounding to fp32 first lands on the
// midpoint, which ties to the even -448.
TEST(Hazard, DoubleRoundF64ViaF32) {
  const double x = -431.99999999999994;
  ASSERT_EQ(x, std::nextafter(-432.0, 0.0));
  ASSERT_EQ(float(x), -432.0f);
  expect_f64(FormatId::e4m3fn, spec(RNE, kSat), x, 0xFD);            // direct: -416 (1.1111.101)
  expect_f32(FormatId::e4m3fn, spec(RNE, kSat), float(x), 0xFE);     // via fp32: -448
  expect_f64(FormatId::e4m3fn, spec(RNE, kIeee), x, 0xFD);
  // Eigen-style: a double just above the bf16 midpoint 1 + 2^-8 rounds up, its fp32 rounding
  // (the midpoint) ties down.
  const double y = 1.0 + 0x1p-8 + 0x1p-40;
  expect_f64(FormatId::bf16, spec(RNE, kSat), y, 0x3F81);
  expect_f32(FormatId::bf16, spec(RNE, kSat), float(1.0 + 0x1p-8), 0x3F80);
}

// H2, H3, H4 under the HIP legacy rule: |x| > max is overflow before any rounding.
TEST(Hazard, CompareBeforeRound449) {
  expect_f32(FormatId::e4m3fn, spec(RNE, kPrecompare), 449.0f, 0x7F);
  expect_f32(FormatId::e4m3fn, spec(RNE, kPrecompare), -449.0f, 0xFF);
  expect_f32(FormatId::e4m3fn, spec(RNE, kPrecompare), 448.0f, 0x7E);
  expect_f32(FormatId::e4m3fn, spec(RNE, kPrecompare), 464.0f, 0x7F);   // H1 under hip_sw_*
  expect_f32(FormatId::e4m3fn, spec(RTZ, kPrecompare), 449.0f, 0x7F);   // in every mode
  expect_f32(FormatId::e4m3fnuz, spec(RNE, kPrecompare), 241.0f, 0x80);
  expect_f32(FormatId::e4m3fnuz, spec(RNE, kPrecompare), 247.9f, 0x80);
  expect_f32(FormatId::e4m3fnuz, spec(RNE, kPrecompare), 240.0f, 0x7F);
  expect_f32(FormatId::e5m2, spec(RNE, kPrecompare), 57345.0f, 0x7C);
  expect_f32(FormatId::e5m2, spec(RNE, kPrecompare), -57345.0f, 0xFC);
  expect_f32(FormatId::e5m2, spec(RNE, kPrecompare), 57344.0f, 0x7B);
  expect_f32(FormatId::e4m3fn, spec(RNE, kIeee), 449.0f, 0x7E);         // contrast: RNE first
  expect_f32(FormatId::e5m2, spec(RNE, kIeee), 57345.0f, 0x7B);
  expect_f32(FormatId::e2m1fn, spec(RNE, kPrecompare), 6.5f, 0x7);       // neither Inf nor NaN: max
}

// H5: SATFINITE saturates Inf too (CUDA __NV_SATFINITE, gfloat sat, HIP 2024-10).
TEST(Hazard, SatfiniteInfToMax) {
  const CastSpec s = spec(RNE, kSat);
  expect_f32(FormatId::e4m3fn, s, kInf, 0x7E);
  expect_f32(FormatId::e4m3fn, s, -kInf, 0xFE);
  expect_f32(FormatId::e5m2, s, kInf, 0x7B);
  expect_f32(FormatId::e5m2, s, -kInf, 0xFB);
  expect_f32(FormatId::e4m3fnuz, s, kInf, 0x7F);
  expect_f32(FormatId::e4m3fnuz, s, -kInf, 0xFF);
  expect_f32(FormatId::e5m2fnuz, s, kInf, 0x7F);
  expect_f32(FormatId::e8m0fnu, s, kInf, 0xFE);
  expect_f32(FormatId::e2m1fn, s, kInf, 0x7);
  expect_f32(FormatId::e2m1fn, s, -kInf, 0xF);
  expect_f32(FormatId::bf16, s, kInf, 0x7F7F);
  expect_f32(FormatId::fp16, s, -kInf, 0xFBFF);
}

// H5: ml_dtypes kSaturate / HIP newer revision: finite overflow clamps, Inf is not saturated.
TEST(Hazard, SatFiniteOnlyKeepsInf) {
  const CastSpec s = spec(RNE, kSatOnly);
  expect_f32(FormatId::e4m3fn, s, kInf, 0x7F);
  expect_f32(FormatId::e4m3fn, s, -kInf, 0xFF);
  expect_f32(FormatId::e5m2, s, kInf, 0x7C);
  expect_f32(FormatId::e5m2, s, -kInf, 0xFC);
  expect_f32(FormatId::e4m3fnuz, s, kInf, 0x80);
  expect_f32(FormatId::e4m3fn, s, 1e9f, 0x7E);
  expect_f32(FormatId::e5m2, s, 1e9f, 0x7B);
  expect_f32(FormatId::e5m2, s, -1e9f, 0xFB);
  expect_f32(FormatId::e4m3fn, spec(RU, kSatOnly), 449.0f, 0x7E);
  expect_f32(FormatId::e2m1fn, s, kInf, 0x7);                           // infinity() is max for fp4
}

// H6: NaN sign.
TEST(Hazard, NanSignPolicies) {
  const float neg_nan = std::bit_cast<float>(0xFFC00000u);
  CastSpec keep = spec(RNE, kSat), canon = spec(RNE, kSat);
  canon.nan = NanPolicy::Canonical;
  expect_f32(FormatId::e4m3fn, keep, neg_nan, 0xFF);
  expect_f32(FormatId::e4m3fn, canon, neg_nan, 0x7F);
  expect_f32(FormatId::e5m2, keep, neg_nan, 0xFE);   // ml_dtypes quiet NaN 0x7E with the sign
  expect_f32(FormatId::e5m2, canon, neg_nan, 0x7E);
  expect_f32(FormatId::bf16, keep, neg_nan, 0xFFC0);
  expect_f32(FormatId::fp16, canon, neg_nan, 0x7E00);
  expect_f32(FormatId::e4m3fn, keep, std::bit_cast<float>(0x7F800001u), 0x7F);  // signalling NaN
}

// H24: HIP SR adds `rng & drop_mask` with the 20 dropped fp32 mantissa bits of an e4m3 normal;
// bit 20 of the random word is outside the mask. x = 1 + 2^-23: f = 2^-20 quantum, F = 1.
TEST(Hazard, HipSrDropMask) {
  const CastSpec s = spec(Rounding::Stochastic, kSat);  // SrRule::bits = 0: the HIP rule
  const float x = 1.0f + 0x1p-23f;
  expect_f32(FormatId::e4m3fn, s, x, 0x39, 0x000FFFFFu);  // 1 + (2^20 - 1) >= 2^20: up to 1.125
  expect_f32(FormatId::e4m3fn, s, x, 0x38, 0x00100000u);  // masked to 0: stays 1.0 (0.0111.000)
  expect_f32(FormatId::e4m3fn, s, x, 0x38, 0x000FFFFEu);
  expect_f32(FormatId::e5m2, s, x, 0x3D, 0x001FFFFFu);    // e5m2: 21 bits; 1.25 = 0.01111.01
  expect_f32(FormatId::e5m2, s, x, 0x3C, 0x00200000u);
  CastSpec k8 = s;
  k8.sr.bits = 8;   // F = floor(2^-20 * 2^8) = 0: no random word rounds up
  expect_f32(FormatId::e4m3fn, k8, x, 0x38, 0xFFFFFFFFu);
  expect_f32(FormatId::e4m3fn, k8, 1.0625f, 0x39, 0x80u);  // f = 1/2: F = 128, R = 128
  expect_f32(FormatId::e4m3fn, k8, 1.0625f, 0x38, 0x7Fu);
}

// H14: fp4/fp6 have no NaN. cuda_fp4.h: +MAXNORM; ml_dtypes: -(sign-only code).
TEST(Hazard, Fp4NanPolicies) {
  CastSpec s = spec(RNE, kSat);
  s.nanless_nan = NanlessNan::PositiveMax;
  expect_f32(FormatId::e2m1fn, s, kNaN, 0x7);
  expect_f32(FormatId::e2m1fn, s, -kNaN, 0x7);
  expect_f32(FormatId::e2m3fn, s, -kNaN, 0x1F);
  expect_f32(FormatId::e3m2fn, s, kNaN, 0x1F);
  s.nanless_nan = NanlessNan::NegZero;
  expect_f32(FormatId::e2m1fn, s, kNaN, 0x8);
  expect_f32(FormatId::e2m1fn, s, -kNaN, 0x0);
  expect_f32(FormatId::e2m3fn, s, kNaN, 0x20);
  expect_f32(FormatId::e3m2fn, s, -kNaN, 0x00);
}

// NanPolicy is documented "for targets that have a NaN"; fp6/fp4 NaN follows NanlessNan only.
// (Reading recorded in table_reference.hpp.)
TEST(Hazard, NanPolicyDoesNotApplyToFp4) {
  for (NanPolicy p : octet_test::kAllNanPolicies) {
    CastSpec s = spec(RNE, kSat);
    s.nan = p;
    expect_f32(FormatId::e2m1fn, s, -kNaN, 0x7);   // cuda_fp4.h: positive MAXNORM
    expect_f32(FormatId::e2m3fn, s, -kNaN, 0x1F);
    s.nanless_nan = NanlessNan::NegZero;
    expect_f32(FormatId::e2m1fn, s, -kNaN, 0x0);
    expect_f32(FormatId::e2m1fn, s, kNaN, 0x8);
  }
}

// H9 and subnormal ties: e5m2 0x1F = 3.5 * 2^-9 is a tie between e4m3fn subnormals 3 and 4.
TEST(Hazard, SubnormalTies) {
  const float x = float(octet_ref::ref_decode(octet_ref::ref_format(FormatId::e5m2), 0x1F));
  ASSERT_EQ(x, 3.5f * 0x1p-9f);
  expect_f32(FormatId::e4m3fn, spec(RNE, kSat), x, 0x04);
  expect_f32(FormatId::e4m3fn, spec(RTZ, kSat), x, 0x03);
  expect_f32(FormatId::e4m3fn, spec(RNE, kSat), 0x1p-10f, 0x00);      // half the min subnormal: to even 0
  expect_f32(FormatId::e4m3fn, spec(RNA, kSat), 0x1p-10f, 0x01);
  expect_f32(FormatId::e4m3fn, spec(RNE, kSat), 1.5f * 0x1p-9f, 0x02);
  expect_f32(FormatId::e4m3fn, spec(RNE, kSat), 0.9375f * 0x1p-6f, 0x08); // tie of 0x07 and 0x08
  expect_f32(FormatId::e2m1fn, spec(RNE, kSat), 0.25f, 0x0);
  expect_f32(FormatId::e2m1fn, spec(RNE, kSat), 0.75f, 0x2);             // tie of 0.5 and 1
}

TEST(Hazard, SubnormalFlush) {
  CastSpec s = spec(RNE, kSat);
  s.subnormals = Subnormals::Flush;
  expect_f32(FormatId::e4m3fn, s, 0x1p-9f, 0x00);                       // 0.0000.001
  expect_f32(FormatId::e4m3fn, s, -0x1p-9f, 0x80);                      // same sign
  expect_f32(FormatId::e4m3fn, s, 0.875f * 0x1p-6f, 0x00);              // max subnormal
  expect_f32(FormatId::e4m3fn, s, 0.9375f * 0x1p-6f, 0x08);             // rounds to min normal: kept
  expect_f32(FormatId::e4m3fn, s, 0x1p-6f, 0x08);
  expect_f32(FormatId::e5m2, s, 0.75f * 0x1p-14f, 0x00);
  expect_f32(FormatId::e2m1fn, s, 0.5f, 0x0);
  expect_f32(FormatId::e2m1fn, s, -0.5f, 0x8);
  expect_f32(FormatId::bf16, s, 0x1p-130f, 0x0000);
  expect_f32(FormatId::fp16, s, 0x1p-20f, 0x0000);
  expect_f32(FormatId::fp16, s, 0x1p-14f, 0x0400);
}

// RTO: truncate, then set the LSB if inexact (Boldo–Melquiond).
TEST(Hazard, RoundToOdd) {
  const CastSpec s = spec(RTO, kSat);
  expect_f32(FormatId::e4m3fn, s, 1.0f, 0x38);                          // exact
  expect_f32(FormatId::e4m3fn, s, 1.0f + 0x1p-10f, 0x39);               // 1.125 (odd)
  expect_f32(FormatId::e4m3fn, s, 1.125f + 0x1p-10f, 0x39);             // already odd
  expect_f32(FormatId::e4m3fn, s, 1.25f + 0x1p-10f, 0x3B);              // 1.25 = 0x3A -> 0x3B
  expect_f32(FormatId::e4m3fn, s, -(1.0f + 0x1p-10f), 0xB9);
  expect_f32(FormatId::e4m3fn, s, 0x1p-12f, 0x01);                      // below min subnormal
  expect_f32(FormatId::e5m2, s, 60000.0f, 0x7B);                        // 57344 is odd already
  expect_f32(FormatId::e4m3fn, s, 449.0f, 0x7E);                        // odd neighbour 480: saturated
  expect_f32(FormatId::e4m3fn, spec(RTO, kIeee), 449.0f, 0x7F);         // ...or NaN (see table_reference.hpp)
}

}  // namespace
