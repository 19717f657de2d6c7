// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// expf_octet_test.cpp — octet's shared transcendental (swiglu_quant.hpp expf_octet) against the
// correctly rounded e^x, taken from x87 `expl` (64-bit significand) rounded once to binary32. The
// reference is undecided only where expl lies within 2^-60 of a binary32 midpoint; the exhaustive
// run found no such input. Unit tests: special values, every bf16 input (the inputs of the bf16
// kernels), 2^20 random fp32 bit patterns, the input whose binary64 value lies closest to a
// midpoint. The `exhaustive` label: all 2^32 inputs.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "fused_test_util.hpp"
#include "octet/kernels/swiglu_quant.hpp"

namespace {

constexpr bool kHaveWideLongDouble = std::numeric_limits<long double>::digits >= 64;

float reference_expf(float x) {
  if (std::isnan(x)) return x;
  return float(std::exp(static_cast<long double>(x)));
}

bool same_bits(float a, float b) {
  return std::isnan(a) ? std::isnan(b) : std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}

::testing::AssertionResult matches_reference(std::uint32_t bits) {
  const float x = std::bit_cast<float>(bits), got = octet::expf_octet(x), want = reference_expf(x);
  if (same_bits(got, want)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expf_octet(" << std::hexfloat << x << " = " << fused_test::hex(bits, 8)
                                       << ") = " << got << " (" << fused_test::hex(std::bit_cast<std::uint32_t>(got), 8)
                                       << "), correctly rounded " << want << " ("
                                       << fused_test::hex(std::bit_cast<std::uint32_t>(want), 8) << ")";
}

TEST(ExpfOctet, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(std::isnan(octet::expf_octet(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_TRUE(std::isnan(octet::expf_octet(-std::numeric_limits<float>::quiet_NaN())));
  EXPECT_EQ(octet::expf_octet(inf), inf);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(octet::expf_octet(-inf)), 0u);  // +0
  EXPECT_EQ(octet::expf_octet(0.0f), 1.0f);
  EXPECT_EQ(octet::expf_octet(-0.0f), 1.0f);
  EXPECT_EQ(octet::expf_octet(1.0f), 2.71828182845904523536f);
  // The last finite result and the first overflow (ln(FLT_MAX) lies between these two inputs).
  EXPECT_TRUE(std::isfinite(octet::expf_octet(std::bit_cast<float>(0x42B17217u))));
  EXPECT_EQ(octet::expf_octet(std::bit_cast<float>(0x42B17218u)), inf);
  // Subnormal results and the underflow to 0 near -103.97.
  EXPECT_EQ(std::fpclassify(octet::expf_octet(-100.0f)), FP_SUBNORMAL);
  EXPECT_EQ(octet::expf_octet(-104.0f), 0.0f);
  EXPECT_EQ(octet::expf_octet(-1e30f), 0.0f);
  EXPECT_EQ(octet::expf_octet(1e30f), inf);
}

TEST(ExpfOctet, EveryBf16InputCorrectlyRounded) {
  if (!kHaveWideLongDouble) GTEST_SKIP() << "long double has no 64-bit significand here";
  for (std::uint32_t b = 0; b < (1u << 16); ++b) ASSERT_TRUE(matches_reference(b << 16));
}

TEST(ExpfOctet, RandomFp32InputsCorrectlyRounded) {
  if (!kHaveWideLongDouble) GTEST_SKIP() << "long double has no 64-bit significand here";
  std::mt19937_64 rng(7101);
  for (int i = 0; i < (1 << 20); ++i) {
    // Half of the draws inside the interesting range [-104, 89], half any bit pattern.
    const std::uint32_t bits = i % 2 == 0 ? std::uint32_t(rng())
                                          : std::bit_cast<std::uint32_t>(std::uniform_real_distribution<float>(-104.0f, 89.0f)(rng));
    ASSERT_TRUE(matches_reference(bits));
  }
}

// The input whose binary64 value is closest to a binary32 midpoint (2^-52.98 relative, found by
// the exhaustive scan), and its neighbours.
TEST(ExpfOctet, ClosestToMidpoint) {
  if (!kHaveWideLongDouble) GTEST_SKIP() << "long double has no 64-bit significand here";
  for (std::uint32_t b = 0xC16912CDu - 2; b <= 0xC16912CDu + 2; ++b) EXPECT_TRUE(matches_reference(b));
}

// The same bits as libm's double exp rounded to float (which the scan also found correctly rounded
// on glibc); libm's expf itself is not correctly rounded everywhere.
TEST(ExpfOctet, AgreesWithDoubleExpOnBf16Inputs) {
  for (std::uint32_t b = 0; b < (1u << 16); ++b) {
    const float x = std::bit_cast<float>(b << 16);
    if (std::isnan(x)) continue;
    ASSERT_TRUE(same_bits(octet::expf_octet(x), float(std::exp(double(x))))) << std::hexfloat << x;
  }
}

// All 2^32 inputs (label exhaustive; about 17 CPU-minutes with x87 expl).
TEST(ExpfOctetExhaustive, AllFp32InputsCorrectlyRounded) {
  if (!kHaveWideLongDouble) GTEST_SKIP() << "long double has no 64-bit significand here";
  long long bad = 0;
  std::uint32_t first_bad = 0;
#pragma omp parallel for schedule(dynamic, 1 << 20) reduction(+ : bad)
  for (std::int64_t i = 0; i < (std::int64_t(1) << 32); ++i) {
    const auto bits = std::uint32_t(i);
    const float x = std::bit_cast<float>(bits);
    if (!same_bits(octet::expf_octet(x), reference_expf(x))) {
      ++bad;
#pragma omp critical
      first_bad = first_bad == 0 ? bits : first_bad;
    }
  }
  EXPECT_EQ(bad, 0) << "first: " << matches_reference(first_bad).message();
}

}  // namespace
