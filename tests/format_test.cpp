// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// format_test.cpp — every number of reference/formats.md §1 and its "Further facts", asserted
// literally against octet's descriptors and decode(), and decode()/classify() of every code of
// every format against the suite's own decoder (tests/reference/ref_format.hpp).
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "octet/format.hpp"
#include "reference/ref_format.hpp"
#include "test_util.hpp"

namespace {

using octet::Format;
using octet::FormatId;
using octet::NanEncoding;
using octet::ValueClass;
using octet_test::hex;

// decode(code) must be exactly `value`, sign of zero included, in octet and in the reference.
void expect_value(const Format& f, std::uint32_t code, double value) {
  const double got = octet::decode(f, code);
  EXPECT_EQ(std::bit_cast<std::uint64_t>(got), std::bit_cast<std::uint64_t>(value))
      << octet::name(f.id) << " decode(" << hex(code, (f.bits() + 3) / 4) << ") = " << got << ", want " << value;
  const double ref = octet_ref::ref_decode(octet_ref::ref_format(f.id), code);
  EXPECT_EQ(std::bit_cast<std::uint64_t>(ref), std::bit_cast<std::uint64_t>(value))
      << "reference decoder disagrees with formats.md: " << octet::name(f.id) << " " << hex(code, 4);
}

void expect_nan(const Format& f, std::uint32_t code) {
  EXPECT_TRUE(f.is_nan(code)) << octet::name(f.id) << " " << hex(code, 4);
  EXPECT_EQ(f.classify(code), ValueClass::nan) << octet::name(f.id) << " " << hex(code, 4);
  EXPECT_TRUE(std::isnan(octet::decode(f, code))) << octet::name(f.id) << " " << hex(code, 4);
}

// 1 + epsilon is the code after 1.0; 1.0 is (bias << M).
double epsilon_of(const Format& f) {
  const std::uint32_t one = std::uint32_t(f.bias) << f.mantissa_bits;
  EXPECT_EQ(octet::decode(f, one), 1.0) << octet::name(f.id);
  return octet::decode(f, one + 1) - 1.0;
}

// ---------------------------------------------------------------------------------------------
// formats.md §1, one test per format.

TEST(FormatLimits, E4m3fn) {
  const Format& f = octet::e4m3fn_format;
  EXPECT_EQ(f.bits(), 8);
  EXPECT_EQ(f.exponent_bits, 4);
  EXPECT_EQ(f.mantissa_bits, 3);
  EXPECT_EQ(f.bias, 7);
  EXPECT_TRUE(f.is_signed);
  EXPECT_FALSE(f.has_inf);
  EXPECT_EQ(f.nan, NanEncoding::AllOnes);
  EXPECT_EQ(f.max_finite_code(), 0x7Eu);     // 0.1111.110
  expect_value(f, 0x7E, 448.0);              // 0.1111.110 = 1.75 * 2^8
  EXPECT_EQ(octet::max_finite(f), 448.0);
  expect_value(f, 0x08, 0x1p-6);             // 0.0001.000 = min normal
  EXPECT_EQ(octet::min_normal(f), 0x1p-6);
  expect_value(f, 0x07, 0.875 * 0x1p-6);     // 0.0000.111 = max subnormal
  expect_value(f, 0x01, 0x1p-9);             // 0.0000.001 = min subnormal
  EXPECT_EQ(octet::min_subnormal(f), 0x1p-9);
  expect_nan(f, 0x7F);                       // 0.1111.111
  expect_nan(f, 0xFF);                       // 1.1111.111
  EXPECT_EQ(f.nan_code(false), 0x7Fu);
  EXPECT_EQ(f.nan_code(true), 0xFFu);
  expect_value(f, 0x80, -0.0);               // 1.0000.000 = -0
  expect_value(f, 0xFE, -448.0);             // 1.1111.110
  EXPECT_EQ(epsilon_of(f), 0.125);
  EXPECT_EQ(f.emax(), 8);                    // emax_elem
  EXPECT_EQ(f.emin(), -6);
}

TEST(FormatLimits, E4m3fnuz) {
  const Format& f = octet::e4m3fnuz_format;
  EXPECT_EQ(f.bits(), 8);
  EXPECT_EQ(f.bias, 8);
  EXPECT_FALSE(f.has_inf);
  EXPECT_EQ(f.nan, NanEncoding::NegZero);
  EXPECT_EQ(f.max_finite_code(), 0x7Fu);     // 0.1111.111
  expect_value(f, 0x7F, 240.0);              // 1.875 * 2^7
  expect_value(f, 0x08, 0x1p-7);             // 0.0001.000 = min normal
  expect_value(f, 0x07, 0.875 * 0x1p-7);     // 0.0000.111
  expect_value(f, 0x01, 0x1p-10);            // 0.0000.001
  EXPECT_EQ(octet::min_normal(f), 0x1p-7);
  EXPECT_EQ(octet::min_subnormal(f), 0x1p-10);
  expect_nan(f, 0x80);                       // 1.0000.000: the only NaN, no -0
  EXPECT_EQ(f.nan_code(false), 0x80u);
  EXPECT_EQ(f.nan_code(true), 0x80u);
  EXPECT_FALSE(f.is_nan(0x7F));
  EXPECT_FALSE(f.is_nan(0xFF));
  expect_value(f, 0xFF, -240.0);             // 1.1111.111
  EXPECT_EQ(epsilon_of(f), 0.125);
  EXPECT_EQ(f.emax(), 7);
}

TEST(FormatLimits, E5m2) {
  const Format& f = octet::e5m2_format;
  EXPECT_EQ(f.exponent_bits, 5);
  EXPECT_EQ(f.mantissa_bits, 2);
  EXPECT_EQ(f.bias, 15);
  EXPECT_TRUE(f.has_inf);
  EXPECT_EQ(f.nan, NanEncoding::Ieee);
  EXPECT_EQ(f.max_finite_code(), 0x7Bu);     // 0.11110.11
  expect_value(f, 0x7B, 57344.0);            // 1.75 * 2^15
  expect_value(f, 0x04, 0x1p-14);            // 0.00001.00 = min normal
  expect_value(f, 0x03, 0.75 * 0x1p-14);     // 0.00000.11
  expect_value(f, 0x01, 0x1p-16);            // 0.00000.01
  expect_value(f, 0x7C, INFINITY);           // 0.11111.00
  expect_value(f, 0xFC, -INFINITY);          // 1.11111.00
  EXPECT_EQ(f.inf_code(false), 0x7Cu);
  EXPECT_EQ(f.inf_code(true), 0xFCu);
  for (std::uint32_t c : {0x7Du, 0x7Eu, 0x7Fu, 0xFDu, 0xFEu, 0xFFu}) expect_nan(f, c);  // S.11111.{01,10,11}
  EXPECT_EQ(f.nan_code(false), 0x7Eu);       // ml_dtypes quiet NaN
  EXPECT_EQ(f.nan_code(true), 0xFEu);
  expect_value(f, 0x80, -0.0);
  EXPECT_EQ(epsilon_of(f), 0.25);
  EXPECT_EQ(f.emax(), 15);
  EXPECT_EQ(f.emin(), -14);
}

TEST(FormatLimits, E5m2fnuz) {
  const Format& f = octet::e5m2fnuz_format;
  EXPECT_EQ(f.bias, 16);
  EXPECT_FALSE(f.has_inf);
  EXPECT_EQ(f.max_finite_code(), 0x7Fu);     // 0.11111.11
  expect_value(f, 0x7F, 57344.0);            // 1.75 * 2^15
  expect_value(f, 0x04, 0x1p-15);            // 0.00001.00
  expect_value(f, 0x03, 0.75 * 0x1p-15);     // 0.00000.11
  expect_value(f, 0x01, 0x1p-17);            // 0.00000.01
  expect_nan(f, 0x80);
  EXPECT_FALSE(f.is_inf(0x7C));
  expect_value(f, 0x7C, 1.0 * 0x1p15);       // 0.11111.00 is finite here
  EXPECT_EQ(f.nan_code(true), 0x80u);
  EXPECT_EQ(epsilon_of(f), 0.25);
  EXPECT_EQ(f.emax(), 15);
}

TEST(FormatLimits, E8m0fnu) {
  const Format& f = octet::e8m0fnu_format;
  EXPECT_EQ(f.bits(), 8);
  EXPECT_EQ(f.exponent_bits, 8);
  EXPECT_EQ(f.mantissa_bits, 0);
  EXPECT_EQ(f.bias, 127);
  EXPECT_FALSE(f.is_signed);
  EXPECT_FALSE(f.has_zero);
  EXPECT_FALSE(f.has_inf);
  EXPECT_EQ(f.max_finite_code(), 0xFEu);
  expect_value(f, 0xFE, 0x1p127);            // 1111.1110
  expect_value(f, 0x00, 0x1p-127);           // 0000.0000: no zero, the smallest value
  expect_value(f, 0x7F, 1.0);
  expect_value(f, 0x80, 2.0);                // no sign bit: 0x80 is 2^1
  expect_nan(f, 0xFF);
  EXPECT_EQ(f.nan_code(false), 0xFFu);
  EXPECT_EQ(f.classify(0x00), ValueClass::normal);
  EXPECT_EQ(octet::min_subnormal(f), 0x1p-127);
  EXPECT_EQ(octet::min_normal(f), 0x1p-127);
  EXPECT_EQ(f.emax(), 127);
  EXPECT_EQ(f.emin(), -127);
  // As fp32, 0x00 = 2^-127 is the subnormal 0x00400000 and 0xFE = 2^127 is 0x7F000000.
  EXPECT_EQ(std::bit_cast<std::uint32_t>(float(octet::decode(f, 0x00))), 0x00400000u);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(float(octet::decode(f, 0xFE))), 0x7F000000u);
  EXPECT_EQ(octet::decode(octet::fp32_format, 0x00400000u), 0x1p-127);
  EXPECT_EQ(octet::decode(octet::fp32_format, 0x7F000000u), 0x1p127);
  for (std::uint32_t b = 0; b <= 254; ++b) expect_value(f, b, std::ldexp(1.0, int(b) - 127));  // 2^(b-127)
}

TEST(FormatLimits, E2m3fn) {
  const Format& f = octet::e2m3fn_format;
  EXPECT_EQ(f.bits(), 6);
  EXPECT_EQ(f.bias, 1);
  EXPECT_EQ(f.nan, NanEncoding::None);
  EXPECT_EQ(f.max_finite_code(), 0x1Fu);     // 0.11.111
  expect_value(f, 0x1F, 7.5);
  expect_value(f, 0x08, 1.0);                // 0.01.000
  expect_value(f, 0x07, 0.875);              // 0.00.111
  expect_value(f, 0x01, 0.125);              // 0.00.001
  expect_value(f, 0x20, -0.0);               // 1.00.000
  expect_value(f, 0x3F, -7.5);
  EXPECT_EQ(epsilon_of(f), 0.125);
  EXPECT_EQ(f.emax(), 2);
}

TEST(FormatLimits, E3m2fn) {
  const Format& f = octet::e3m2fn_format;
  EXPECT_EQ(f.bits(), 6);
  EXPECT_EQ(f.bias, 3);
  EXPECT_EQ(f.max_finite_code(), 0x1Fu);     // 0.111.11
  expect_value(f, 0x1F, 28.0);
  expect_value(f, 0x04, 0.25);               // 0.001.00
  expect_value(f, 0x03, 0.1875);             // 0.000.11
  expect_value(f, 0x01, 0.0625);             // 0.000.01
  expect_value(f, 0x20, -0.0);
  EXPECT_EQ(epsilon_of(f), 0.25);
  EXPECT_EQ(f.emax(), 4);
}

TEST(FormatLimits, E2m1fn) {
  const Format& f = octet::e2m1fn_format;
  EXPECT_EQ(f.bits(), 4);
  EXPECT_EQ(f.bias, 1);
  EXPECT_EQ(f.max_finite_code(), 0x7u);      // 0.11.1
  expect_value(f, 0x2, 1.0);                 // 0.01.0 = min normal
  expect_value(f, 0x1, 0.5);                 // 0.00.1 = the only subnormal
  expect_value(f, 0x8, -0.0);                // 1.00.0
  EXPECT_EQ(epsilon_of(f), 0.5);
  EXPECT_EQ(f.emax(), 2);
  // The FP4 values are +-{0, 0.5, 1, 1.5, 2, 3, 4, 6}.
  constexpr double kValues[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  for (std::uint32_t c = 0; c < 8; ++c) {
    expect_value(f, c, kValues[c]);
    expect_value(f, c | 0x8, -kValues[c]);
  }
}

TEST(FormatLimits, Bf16) {
  const Format& f = octet::bf16_format;
  EXPECT_EQ(f.bits(), 16);
  EXPECT_EQ(f.bias, 127);
  EXPECT_EQ(f.max_finite_code(), 0x7F7Fu);
  expect_value(f, 0x7F7F, 3.3895313892515355e38);
  expect_value(f, 0x0080, 0x1p-126);
  expect_value(f, 0x007F, (1 - 0x1p-7) * 0x1p-126);
  expect_value(f, 0x0001, 0x1p-133);
  expect_value(f, 0x7F80, INFINITY);
  expect_value(f, 0xFF80, -INFINITY);
  EXPECT_EQ(f.nan_code(false), 0x7FC0u);     // canonical quiet NaN
  EXPECT_EQ(f.nan_code(true), 0xFFC0u);
  expect_nan(f, 0x7FC0);
  expect_nan(f, 0x7F81);
  expect_value(f, 0x8000, -0.0);
  EXPECT_EQ(epsilon_of(f), 0x1p-7);
}

TEST(FormatLimits, Fp16) {
  const Format& f = octet::fp16_format;
  EXPECT_EQ(f.bits(), 16);
  EXPECT_EQ(f.bias, 15);
  EXPECT_EQ(f.max_finite_code(), 0x7BFFu);
  expect_value(f, 0x7BFF, 65504.0);
  expect_value(f, 0x0400, 0x1p-14);
  expect_value(f, 0x03FF, (1 - 0x1p-10) * 0x1p-14);
  expect_value(f, 0x0001, 0x1p-24);
  expect_value(f, 0x7C00, INFINITY);
  expect_value(f, 0xFC00, -INFINITY);
  EXPECT_EQ(f.nan_code(false), 0x7E00u);
  expect_nan(f, 0x7E00);
  expect_nan(f, 0x7C01);
  expect_value(f, 0x8000, -0.0);
  EXPECT_EQ(epsilon_of(f), 0x1p-10);
}

TEST(FormatLimits, Fp32AndFp64Sources) {
  EXPECT_EQ(octet::fp32_format.bias, 127);
  EXPECT_EQ(octet::fp32_format.mantissa_bits, 23);
  EXPECT_EQ(octet::fp64_format.bias, 1023);
  EXPECT_EQ(octet::fp64_format.exponent_bits, 11);
  EXPECT_EQ(octet::fp64_format.mantissa_bits, 52);
  EXPECT_EQ(octet::decode(octet::fp32_format, 0x7F7FFFFFu), double(3.40282346638528859812e38f));
  EXPECT_EQ(octet::decode(octet::fp32_format, 0x00000001u), 0x1p-149);
  // target_formats holds every format but the two sources.
  EXPECT_EQ(octet::target_formats.size(), 10u);
  for (const Format& t : octet::target_formats) {
    EXPECT_NE(t.id, FormatId::fp32);
    EXPECT_NE(t.id, FormatId::fp64);
  }
}

// formats.md "Further facts": the fp32 constants that scale recipes depend on.
TEST(FormatFacts, Fp32Constants) {
  const float inv448 = 1.0f / 448.0f;
  EXPECT_EQ(std::bit_cast<std::uint32_t>(inv448), 0x3B124925u);  // fl32(1/448)
  EXPECT_GT(double(inv448) * 448.0, 1.0);                         // rounded up (exact product)
  EXPECT_EQ(448.0f * inv448, 1.0f);                               // fl32(448 * fl32(1/448)) = 1
  EXPECT_EQ(std::bit_cast<std::uint32_t>(1e-12f), 0x2B8CBCCCu);    // fl32(1e-12)
}

// The descriptor can express ml_dtypes' float8_e3m4, float8_e4m3 and float8_e4m3b11fnuz
// (the id is only a label here).
TEST(FormatFacts, DescriptorExpressesMlDtypesExtras) {
  constexpr Format e3m4{FormatId::e4m3fn, 3, 4, 3, true, true, NanEncoding::Ieee, true};
  EXPECT_EQ(octet::max_finite(e3m4), 15.5);
  constexpr Format e4m3{FormatId::e4m3fn, 4, 3, 7, true, true, NanEncoding::Ieee, true};
  EXPECT_EQ(octet::max_finite(e4m3), 240.0);
  EXPECT_EQ(e4m3.inf_code(false), 0x78u);  // S.1111.000
  constexpr Format e4m3b11fnuz{FormatId::e4m3fnuz, 4, 3, 11, true, false, NanEncoding::NegZero, true};
  EXPECT_EQ(octet::max_finite(e4m3b11fnuz), 30.0);
  EXPECT_EQ(e4m3b11fnuz.nan_code(false), 0x80u);
}

TEST(FormatFacts, Names) {
  struct Row { FormatId id; const char* name; const char* dtype; };
  constexpr Row kRows[] = {
      {FormatId::e4m3fn, "e4m3fn", "float8_e4m3fn"},       {FormatId::e4m3fnuz, "e4m3fnuz", "float8_e4m3fnuz"},
      {FormatId::e5m2, "e5m2", "float8_e5m2"},             {FormatId::e5m2fnuz, "e5m2fnuz", "float8_e5m2fnuz"},
      {FormatId::e8m0fnu, "e8m0fnu", "float8_e8m0fnu"},    {FormatId::e2m3fn, "e2m3fn", "float6_e2m3fn"},
      {FormatId::e3m2fn, "e3m2fn", "float6_e3m2fn"},       {FormatId::e2m1fn, "e2m1fn", "float4_e2m1fn"},
      {FormatId::bf16, "bf16", "bfloat16"},
  };
  for (const Row& r : kRows) {
    EXPECT_EQ(octet::name(r.id), r.name);
    EXPECT_EQ(octet::dtype_name(r.id), r.dtype);
    EXPECT_EQ(octet::parse_format(r.name), r.id);
    EXPECT_EQ(octet::parse_format(r.dtype), r.id);
    EXPECT_EQ(octet::format_of(r.id).id, r.id);
  }
  EXPECT_FALSE(octet::parse_format("e4m3").has_value());
}

// ---------------------------------------------------------------------------------------------
// Every code of every format: octet::decode and classify against the reference decoder.

class AllCodes : public ::testing::TestWithParam<FormatId> {};

ValueClass to_octet(octet_ref::RefClass c) { return ValueClass(int(c)); }

TEST_P(AllCodes, DecodeAndClassifyMatchReference) {
  const Format& f = octet::format_of(GetParam());
  const octet_ref::RefFormat& r = octet_ref::ref_format(GetParam());
  ASSERT_EQ(f.bits(), r.bits);
  ASSERT_EQ(f.code_count(), 1u << r.bits);
  int bad = 0;
  std::uint32_t nan_count = 0;
  for (std::uint32_t code = 0; code < f.code_count(); ++code) {
    const double want = octet_ref::ref_decode(r, code);
    const double got = octet::decode(f, code);
    const bool same = std::isnan(want) ? (std::isnan(got) && std::signbit(got) == std::signbit(want))
                                       : std::bit_cast<std::uint64_t>(got) == std::bit_cast<std::uint64_t>(want);
    const octet_ref::RefClass cls = octet_ref::ref_classify(r, code);
    nan_count += cls == octet_ref::RefClass::nan;
    if ((!same || f.classify(code) != to_octet(cls) || f.is_nan(code) != (cls == octet_ref::RefClass::nan) ||
         f.is_inf(code) != (cls == octet_ref::RefClass::inf)) &&
        ++bad <= 10)
      ADD_FAILURE() << r.name << " code " << hex(code, (r.bits + 3) / 4) << ": decode " << octet_test::value_str(got)
                    << " class " << octet::name(f.classify(code)) << ", want " << octet_test::value_str(want)
                    << " class " << octet::name(to_octet(cls));
  }
  EXPECT_EQ(bad, 0);
  // NaN code counts, from formats.md §1.
  std::uint32_t want_nans = 0;
  switch (GetParam()) {
    case FormatId::e4m3fn: want_nans = 2; break;                  // S.1111.111
    case FormatId::e5m2: want_nans = 6; break;                    // S.11111.{01,10,11}
    case FormatId::e4m3fnuz: case FormatId::e5m2fnuz: case FormatId::e8m0fnu: want_nans = 1; break;
    case FormatId::bf16: want_nans = 2 * 127; break;
    case FormatId::fp16: want_nans = 2 * 1023; break;
    default: want_nans = 0; break;                                // fp6, fp4
  }
  EXPECT_EQ(nan_count, want_nans);
}

TEST_P(AllCodes, ValuesIncreaseWithMagnitudeCode) {
  const Format& f = octet::format_of(GetParam());
  double prev = -1;
  for (std::uint32_t mag = 0; mag <= f.max_finite_code(); ++mag) {
    const double v = octet::decode(f, mag);
    ASSERT_GT(v, prev) << octet::name(f.id) << " " << hex(mag, 4);
    prev = v;
    if (f.is_signed && !(f.nan == NanEncoding::NegZero && mag == 0)) {
      ASSERT_EQ(octet::decode(f, mag | f.sign_mask()), -v);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, AllCodes, ::testing::ValuesIn(octet_test::kTargets),
                         [](const auto& info) { return std::string(octet_ref::ref_format(info.param).name); });

}  // namespace
