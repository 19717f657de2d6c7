// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// hazards_test.cpp — every known divergence and bug of reference/formats.md §9, with the code
// each profile must produce. Expected codes are the published ones (the table in §9 and the
// sources it cites), never octet's output.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <string>

#include "octet/profile.hpp"

namespace {

using namespace octet;

std::string hex(std::uint32_t c) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%02x", c);
  return b;
}

// One expectation: `profile` casts `x` (fp32, or fp64 when `fp64`) to `format`, giving `want`.
void expect_code(const char* profile, FormatId format, double x, std::uint32_t want, bool fp64 = false,
                 Rounding* rounding = nullptr) {
  const Profile* p = find_profile(profile);
  ASSERT_NE(p, nullptr) << profile;
  CastSpec s = p->spec_for(format, fp64 ? SourceType::fp64 : SourceType::fp32);
  if (rounding) s.rounding = *rounding;
  const Format& f = format_of(format);
  const std::uint32_t got = fp64 ? encode(f, s, x) : encode(f, s, float(x));
  EXPECT_EQ(got, want) << profile << ": " << x << " (" << (fp64 ? "fp64" : "fp32") << ") -> " << name(format)
                       << " gave " << hex(got) << " (" << decode(f, got) << "), want " << hex(want) << " ("
                       << decode(f, want) << ")";
}

constexpr auto E4M3 = FormatId::e4m3fn;
constexpr auto E4M3FNUZ = FormatId::e4m3fnuz;
constexpr auto E5M2 = FormatId::e5m2;
constexpr auto E5M2FNUZ = FormatId::e5m2fnuz;
constexpr auto E8M0 = FormatId::e8m0fnu;
constexpr auto E2M1 = FormatId::e2m1fn;
const double kNaN = std::bit_cast<float>(0x7FC00000u);
const double kNegNaN = std::bit_cast<float>(0xFFC00000u);

TEST(Hazards, H1_RneTieAt464) {
  for (const char* p : {"ocp", "ocp_nosat", "cuda_satfinite", "cuda_nosat", "torch", "ml_dtypes", "ml_dtypes_sat",
                        "gfloat", "ml_dtypes_trunc", "microxcaling"})
    expect_code(p, E4M3, 464.0, 0x7E);  // 0.1111.110 = 448 (ties to even; RNA overflows, saturates)
  expect_code("hip_sw", E4M3, 464.0, 0x7F);  // |x| > 448 before rounding: NaN
}

TEST(Hazards, H2_CompareBeforeRound449) {
  for (const char* p : {"ocp_nosat", "cuda_nosat", "torch", "ml_dtypes"}) expect_code(p, E4M3, 449.0, 0x7E);
  expect_code("hip_sw", E4M3, 449.0, 0x7F);
}

TEST(Hazards, H3_E4m3fnuz240And248) {
  expect_code("torch", E4M3FNUZ, 241.0, 0x7F);
  expect_code("torch", E4M3FNUZ, double(247.9f), 0x7F);
  expect_code("torch", E4M3FNUZ, 248.0, 0x80);  // the carry out of 0x7F wraps to the NaN 0x80
  for (const double x : {241.0, double(247.9f), 248.0}) expect_code("hip_sw", E4M3FNUZ, x, 0x80);
}

TEST(Hazards, H4_E5m2_57345And61440) {
  for (const char* p : {"torch", "ml_dtypes", "cuda_nosat", "ocp_nosat"}) {
    expect_code(p, E5M2, 57345.0, 0x7B);
    expect_code(p, E5M2, 61440.0, 0x7C);  // the tie goes to even, 2^16: Inf
  }
  expect_code("hip_sw", E5M2, 57345.0, 0x7C);
  expect_code("hip_sw", E5M2, 61440.0, 0x7C);
}

TEST(Hazards, H5_InfUnderSaturation) {
  const double inf = HUGE_VAL;
  for (const char* p : {"cuda_satfinite", "gfloat", "ocp"}) {
    expect_code(p, E4M3, inf, 0x7E);
    expect_code(p, E5M2, inf, 0x7B);
  }
  expect_code("ml_dtypes_sat", E4M3, inf, 0x7F);  // specials are not saturated
  expect_code("ml_dtypes_sat", E5M2, inf, 0x7C);
}

TEST(Hazards, H6_NegativeNanSign) {
  for (const char* p : {"ml_dtypes", "torch"}) expect_code(p, E4M3, kNegNaN, 0xFF);
  for (const char* p : {"cuda_satfinite", "cuda_nosat"}) {
    expect_code(p, E4M3, kNegNaN, 0x7F);               // float source: canonical NaN first
    expect_code(p, E4M3, -std::nan(""), 0xFF, true);   // double source keeps the sign
  }
}

TEST(Hazards, H7_FnuzNegativeZeroAndUnderflow) {
  for (const Profile& p : profiles())
    for (const FormatId f : {E4M3FNUZ, E5M2FNUZ})
      for (const double x : {-0.0, -0x1p-20}) expect_code(std::string(p.name).c_str(), f, x, 0x00);
}

TEST(Hazards, H8_DoubleRoundingViaFp32) {
  const double x = -431.99999999999994;
  for (const char* p : {"ml_dtypes", "cuda_nosat", "torch"}) expect_code(p, E4M3, x, 0xFD, true);  // direct: -416
  expect_code("ml_dtypes", E4M3, double(float(x)), 0xFE);  // numpy's path: fp32 -432, a tie, to -448
}

TEST(Hazards, H9_E5m2SubnormalToE4m3) {
  const double x = 3.5 * 0x1p-9;  // e5m2 0x1F = 0.00111.11
  ASSERT_EQ(decode(e5m2_format, 0x1F), x);
  expect_code("ml_dtypes", E4M3, x, 0x04);
  expect_code("ml_dtypes_trunc", E4M3, x, 0x03);
}

TEST(Hazards, H10_E8m0TieAt3) {
  for (const char* p : {"ml_dtypes", "torch"}) expect_code(p, E8M0, 3.0, 0x81);
  expect_code("gfloat", E8M0, 3.0, 0x80);  // ties to the even code
  Rounding rz = Rounding::TowardZero, rp = Rounding::TowardPositive;
  expect_code("cuda_satfinite", E8M0, 3.0, 0x80, false, &rz);
  expect_code("cuda_satfinite", E8M0, 3.0, 0x81, false, &rp);
}

TEST(Hazards, H11_E8m0Negative) {
  expect_code("ml_dtypes", E8M0, -2.0, 0xFF);
  expect_code("ml_dtypes_sat", E8M0, -2.0, 0x00);
  for (const char* p : {"torch", "cuda_satfinite", "cuda_nosat", "gfloat"}) expect_code(p, E8M0, -2.0, 0x80);
}

TEST(Hazards, H12_E8m0Zero) {
  expect_code("ml_dtypes", E8M0, 0.0, 0xFF);
  expect_code("ml_dtypes_sat", E8M0, 0.0, 0x00);
  for (const char* p : {"torch", "cuda_satfinite", "cuda_nosat", "gfloat", "ocp"}) expect_code(p, E8M0, 0.0, 0x00);
}

TEST(Hazards, H13_E8m0Overflow) {
  const double x = std::bit_cast<float>(0x7F400000u);  // 1.5 * 2^127
  for (const char* p : {"cuda_nosat", "torch", "ml_dtypes"}) expect_code(p, E8M0, x, 0xFF);
  for (const char* p : {"cuda_satfinite", "ml_dtypes_sat"}) expect_code(p, E8M0, x, 0xFE);
}

TEST(Hazards, H14_Fp4Nan) {
  expect_code("ml_dtypes", E2M1, kNaN, 0x8);
  expect_code("ml_dtypes", E2M1, kNegNaN, 0x0);
  expect_code("cuda_satfinite", E2M1, kNaN, 0x7);
  expect_code("cuda_satfinite", E2M1, kNegNaN, 0x7);
}

TEST(Hazards, H21_F64ToE8m0JustAbovePowerOfTwo) {
  // CUDA narrows double -> float with round-to-odd, then rounds up: no double rounding.
  Rounding rp = Rounding::TowardPositive;
  expect_code("cuda_satfinite", E8M0, 0x1.0000000001p+3, 0x83, true, &rp);  // 2^4
  expect_code("cuda_satfinite", E8M0, 0x1p+3, 0x82, true, &rp);
}

TEST(Hazards, H22_CudaConstructorSaturates) {
  expect_code("cuda_satfinite", E4M3, 1e9, 0x7E);  // __nv_fp8_e4m3(1e9f)
  expect_code("cuda_nosat", E4M3, 1e9, 0x7F);      // __nv_cvt_float_to_fp8(1e9f, __NV_NOSAT, __NV_E4M3)
}

TEST(Hazards, E8m0Fp32SubnormalQuirk) {
  // c10 / ml_dtypes round the exponent field with the implicit bit (0) as LSB: 1.25 * 2^-127
  // gives 0x01 where round-to-nearest gives 0x00 (reference/formats.md §2).
  const double x = 1.25 * 0x1p-127;
  for (const char* p : {"torch", "ml_dtypes"}) expect_code(p, E8M0, x, 0x01);
  expect_code("ocp", E8M0, x, 0x00);
}

TEST(Hazards, MicroxcalingTiesAway) {
  expect_code("microxcaling", E4M3, 400.0, 0x7D);  // 416: test_fp8_e4m3_fix.py
  expect_code("ocp", E4M3, 400.0, 0x7C);           // 384 under RNE
  expect_code("microxcaling", E4M3, 485.0, 0x7E);  // saturate_normals
}

}  // namespace

namespace {

TEST(Hazards, H5_HipInfUnderSaturationByRevision) {
  const double inf = HUGE_VAL;
  expect_code("hip_sw_2024", E4M3, inf, 0x7E);   // 2024-10: Inf -> +-max
  expect_code("hip_sw_2024", E5M2, -inf, 0xFB);
  expect_code("hip_sw_2025", E4M3, inf, 0x7F);   // newer: Inf not saturated, e4m3 NaN
  expect_code("hip_sw_2025", E5M2, inf, 0x7C);   // e5m2 Inf
}

TEST(Hazards, HipFnuzNanWithClip) {
  expect_code("hip_sw_2024", E4M3FNUZ, kNaN, 0x7F);     // clip ? +-0x7F : 0x80
  expect_code("hip_sw_2024", E4M3FNUZ, kNegNaN, 0xFF);
  expect_code("hip_sw_2025", E4M3FNUZ, kNaN, 0x80);     // newer: NaN stays NaN
  expect_code("hip_sw", E4M3FNUZ, kNaN, 0x80);
}

TEST(Hazards, H16_HipGfx942PackedClampMisses) {
  // __hip_cvt_float2_to_fp8x2((1e9, 1e9), __HIP_SATFINITE, ...): the scalar path clamps to max,
  // the packed path does not (modelled hardware overflow: NaN 0x80).
  expect_code("hip_gfx942", E4M3FNUZ, 1e9, 0x7F);
  expect_code("hip_gfx942_x2", E4M3FNUZ, 1e9, 0x80);
}

TEST(Hazards, H15_CpfloatE4m3Has480) {
  // CPFloat's "E4M3" preset has no NaN code: S.1111.111 is the finite 480 = 2^8 * (2 - 2^-3).
  // The same rounding that gives OCP e4m3fn NaN for 470 gives CPFloat 480.
  constexpr Format cpfloat_e4m3{FormatId::e4m3fn, 4, 3, 7, true, false, NanEncoding::None, true};
  const CastSpec nonsat{.rounding = Rounding::NearestEven, .overflow = Overflow::NonSat};
  EXPECT_EQ(decode(cpfloat_e4m3, encode(cpfloat_e4m3, nonsat, 470.0f)), 480.0);
  EXPECT_EQ(decode(cpfloat_e4m3, encode(cpfloat_e4m3, nonsat, 464.0f)), 448.0);  // the tie still goes to even
  expect_code("ocp_nosat", E4M3, 470.0, 0x7F);
}

}  // namespace
