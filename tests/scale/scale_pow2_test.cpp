// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// recipes.md §9: rounding the encode scale fl32(448/amax) down to a power of two by the mantissa
// mask gives the exact reciprocal of rounding the decode scale fl32(amax/448) or fl32(amax·R) up
// to a power of two, over every finite bf16 amax and every fp32 amax within +-3000 ulps of
// 448·2^k, with exactly two exceptions:
//   1. 448/amax overflows fp32 (amax < 448/FLT_MAX): TE substitutes value_for_inf; 992 positive
//      bf16 values;
//   2. the single fp32 amax 448·2^-127 + 1 ulp (0x04600001): TE 2^126, the ceil rules 2^-127.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "octet/scale.hpp"
#include "scale_test_util.hpp"

namespace {

using namespace scale_test;

constexpr double kR = 0.002232142956927418709;  // fl32(1/448) = 0x3B124925

std::vector<std::uint32_t> finite_positive_bf16() {
  std::vector<std::uint32_t> v;
  for (std::uint32_t b = 0x0001u; b <= 0x7F7Fu; ++b) v.push_back(b << 16);
  return v;
}

std::vector<std::uint32_t> near_448_pow2() {
  std::vector<std::uint32_t> v;
  for (int k = -160; k <= 130; ++k) {
    const double center = std::ldexp(448.0, k);
    if (center > FLT_MAX || double(float(center)) != center || float(center) == 0.0f) continue;
    const std::int64_t mid = fbits(float(center));
    for (std::int64_t d = -3000; d <= 3000; ++d)
      if (mid + d > 0 && mid + d <= 0x7F7FFFFF) v.push_back(std::uint32_t(mid + d));
  }
  return v;
}

// log2 of a power of two (exact), or of 2^ceil(log2 d).
int exponent_of_pow2(double p) {
  int e = 0;
  std::frexp(p, &e);
  return e - 1;
}
int ceil_log2(double d) {
  int e = 0;
  const double m = std::frexp(d, &e);
  return m == 0.5 ? e - 1 : e;
}

// The ceil rules round the decode scale up to a power of two in e8m0's range (at least 2^-127),
// as cvt.rp.ue8m0 does: an fp32-subnormal d <= 2^-127 gives 2^-127. (An unbounded
// 2^ceil(log2 d) would also differ where fl32(amax/448) rounds down to 2^-128 or below.)
enum class Rule { rp_div, rp_mul_r };
const char* rule_name(Rule r) { return r == Rule::rp_div ? "RP of fl32(amax/448)" : "RP of fl32(amax*R)"; }

int decode_exponent(Rule rule, float a) {
  const float d = rule == Rule::rp_div ? float(double(a) / 448.0) : float(double(a) * kR);
  if (d == 0.0f) return -127;
  return std::max(ceil_log2(d), -127);
}

struct Census {
  std::int64_t overflow = 0;               // exception 1
  std::vector<std::uint32_t> not_inverse;  // outside exception 1
};

Census census(const std::vector<std::uint32_t>& amaxes, Rule rule) {
  Census c;
  for (const std::uint32_t b : amaxes) {
    const float a = fval(b);
    const float s = 448.0f / a;  // __fdiv_rn
    if (std::isinf(s)) {
      ++c.overflow;
      continue;
    }
    const int mask_exp = exponent_of_pow2(double(fval(fbits(s) & 0xFF800000u)));
    if (mask_exp + decode_exponent(rule, a) != 0) c.not_inverse.push_back(b);
  }
  return c;
}

TEST(Pow2Claim, MaskVsCeilRulesBf16) {
  const auto amaxes = finite_positive_bf16();
  for (const Rule rule : {Rule::rp_div, Rule::rp_mul_r}) {
    const Census c = census(amaxes, rule);
    EXPECT_EQ(c.overflow, 992) << rule_name(rule);
    EXPECT_TRUE(c.not_inverse.empty()) << rule_name(rule) << ": " << c.not_inverse.size()
                                       << " bf16 amax, first 0x" << std::hex
                                       << (c.not_inverse.empty() ? 0u : c.not_inverse[0]);
  }
}

TEST(Pow2Claim, MaskVsCeilRulesFp32Near448Pow2) {
  const auto amaxes = near_448_pow2();
  for (const Rule rule : {Rule::rp_div, Rule::rp_mul_r}) {
    const Census c = census(amaxes, rule);
    ASSERT_EQ(c.not_inverse.size(), 1u) << rule_name(rule) << ", first 0x" << std::hex
                                        << (c.not_inverse.empty() ? 0u : c.not_inverse[0]);
    EXPECT_EQ(c.not_inverse[0], 0x04600001u) << rule_name(rule);  // 448·2^-127 + 1 ulp
    const float a = fval(0x04600001u);
    EXPECT_EQ(fbits(448.0f / a) & 0xFF800000u, fbits(std::ldexp(1.0f, 126)));
    EXPECT_EQ(decode_exponent(rule, a), -127) << rule_name(rule);
  }
}

// The same claim through the recipes: te_blockwise's encode is the reciprocal of the decode of
// torchao_mx_rceil, te_mxfp8 and deepgemm_ue8m0, and equals deepep_round's and
// torchao_fp8_rowwise_pow2's encode, wherever the amax floors (1e-4, 1e-12) do not apply.
TEST(Pow2Claim, RecipesPickTheSamePowerOfTwo) {
  std::vector<std::uint32_t> amaxes = finite_positive_bf16();
  const auto near = near_448_pow2();
  amaxes.insert(amaxes.end(), near.begin(), near.end());
  const auto& te = octet::recipe("te_blockwise");
  std::int64_t checked = 0;
  for (const std::uint32_t b : amaxes) {
    const float a = fval(b);
    if (a < 1e-4f || b == 0x04600001u) continue;
    ++checked;
    const float s = octet::scale_from_amax(te, a).encode;
    for (const char* name : {"torchao_mx_rceil", "te_mxfp8", "deepgemm_ue8m0"}) {
      const float d = octet::scale_from_amax(octet::recipe(name), a).decode;
      if (double(s) * double(d) != 1.0) {
        ADD_FAILURE() << name << ": amax 0x" << std::hex << b << " te_blockwise s=0x" << fbits(s) << " " << name
                      << " d=0x" << fbits(d);
        return;
      }
    }
    for (const char* name : {"deepep_round", "torchao_fp8_rowwise_pow2"}) {
      const float e = octet::scale_from_amax(octet::recipe(name), a).encode;
      if (e != s) {
        ADD_FAILURE() << name << ": amax 0x" << std::hex << b << " te_blockwise s=0x" << fbits(s) << " " << name
                      << " s=0x" << fbits(e);
        return;
      }
    }
  }
  EXPECT_GT(checked, 800000);
}

// DeepGEMM's literal ceil_to_ue8m0 clamps the exponent field to >= 1, so an fp32-subnormal decode
// scale becomes 2^-126 instead of the RP rules' 2^-127..2^-126. Outside exception 1 this changes
// the §9 result only where fl32(amax/448) <= 2^-127 (derived here; its 1e-4 floor never gets there).
TEST(Pow2Claim, DeepGemmUe8m0ClampOnlyBelowTwoToMinus127) {
  auto amaxes = finite_positive_bf16();
  const auto near = near_448_pow2();
  amaxes.insert(amaxes.end(), near.begin(), near.end());
  std::int64_t extra = 0;
  for (const std::uint32_t b : amaxes) {
    const float a = fval(b);
    const float s = 448.0f / a;
    if (std::isinf(s) || b == 0x04600001u) continue;
    const float d = float(double(a) / 448.0);
    const int literal = std::max(ceil_log2(d), -126);  // clamp(exp, 1, 254): 2^-126 at least
    const int mask_exp = exponent_of_pow2(double(fval(fbits(s) & 0xFF800000u)));
    if (mask_exp + literal != 0) {
      ++extra;
      EXPECT_LE(double(d), std::ldexp(1.0, -127)) << std::hex << "amax 0x" << b;
    }
  }
  std::printf("DeepGEMM ceil_to_ue8m0 (literal clamp): %lld further amax values differ, all with d <= 2^-127\n",
              static_cast<long long>(extra));
}

}  // namespace
