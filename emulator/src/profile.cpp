// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// The named profiles. Each rule cites where it was read; reference/formats.md §3–§8 has the
// details. Profiles verified against the running implementation: cuda_* (cuda_fp8.h,
// cuda_fp6.h, cuda_fp4.h host paths, all 2^32 fp32 inputs, tests/conformance), ml_dtypes*
// (the PyPI package, tests/conformance). The others reproduce published source rules and are
// pinned by the named hazard tests.
#include "octet/profile.hpp"

#include <array>

namespace octet {
namespace {

constexpr Rounding kRne = Rounding::NearestEven;

// OCP OFP8 v1.0 / MX v1.0. The MX spec defines no float -> E8M0 rounding; octet's OCP profile
// rounds an e8m0 cast to nearest (ties up, the significand-parity rule), maps 0 to the smallest
// scale 2^-127 and a negative input to NaN, which has no representation in an unsigned format.
constexpr CastSpec kOcpSat{.rounding = kRne, .overflow = Overflow::SatFinite};
constexpr CastSpec kOcpNoSat{.rounding = kRne, .overflow = Overflow::Ieee};

// CUDA cuda_fp8.hpp __nv_cvt_float_to_fp8: NaN is made canonical (0x7FFFFFFF) first, so both
// e4m3 and e5m2 get 0x7F; the double path keeps the sign and `0x7E | truncated mantissa`.
// __NV_SATFINITE: Inf -> +-MAXNORM. E8M0 (__nv_cvt_float_to_e8m0): |x|, 0 -> 0x00, NaN -> 0xFF,
// only cudaRoundZero / cudaRoundPosInf (octet's default here: RP, as TE and torchao RCEIL use);
// SATFINITE: overflow and Inf -> 0xFE, NOSAT: 0xFF. cuda_fp4.h / cuda_fp6.h: saturate to
// +-MAXNORM, "NaN input values result in positive MAXNORM".
constexpr CastSpec kCudaFp8Sat{.rounding = kRne, .overflow = Overflow::SatFinite,
                               .nan = NanPolicy::Canonical, .ieee_nan = IeeeNanCode::AllOnes};
constexpr CastSpec kCudaFp8NoSat{.rounding = kRne, .overflow = Overflow::Ieee,
                                 .nan = NanPolicy::Canonical, .ieee_nan = IeeeNanCode::AllOnes};
constexpr CastSpec kCudaE8m0Sat{.rounding = Rounding::TowardPositive, .overflow = Overflow::SatFinite,
                                .unsigned_negative = UnsignedNegative::Abs, .unsigned_zero = UnsignedZero::Min};
constexpr CastSpec kCudaE8m0NoSat{.rounding = Rounding::TowardPositive, .overflow = Overflow::Ieee,
                                  .unsigned_negative = UnsignedNegative::Abs, .unsigned_zero = UnsignedZero::Min};
constexpr CastSpec kCudaFp6Fp4{.rounding = kRne, .overflow = Overflow::SatFinite,
                               .nanless_nan = NanlessNan::PositiveMax};

// PyTorch c10 Float8_*.h (<= 2.12): RNE, non-saturating, NaN sign kept; e5m2 NaN and overflow
// of the >= 2^16 branch: `f_bits > inf ? 0x7F : 0x7C` | sign. Float8_e8m0fnu.h: |x|, RN ties
// up with the implicit bit as LSB (fp32 subnormals above 2^-127 -> 0x01), 0 -> 0x00, Inf / NaN /
// overflow -> 0xFF.
constexpr CastSpec kTorchFp8{.rounding = kRne, .overflow = Overflow::NonSat, .nan = NanPolicy::KeepSign,
                             .ieee_nan = IeeeNanCode::AllOnes};
constexpr CastSpec kTorchE8m0{.rounding = kRne, .overflow = Overflow::NonSat,
                              .unsigned_negative = UnsignedNegative::Abs, .unsigned_zero = UnsignedZero::Min,
                              .e8m0_subnormal_above_min_rounds_up = true};

// ml_dtypes float8.h ConvertImpl<From, To, kSaturate, kTruncate>: RNE (kTruncate: RTZ whose
// overflow still goes to infinity()), NaN -> +-quiet_NaN(), overflow -> infinity() (the NaN code
// for fn/fnuz; max for fp6/fp4); fp4/fp6 NaN -> sign-only code, negated by the sign. e8m0:
// RN ties up (since PR #223) with the implicit-bit LSB, negative and zero -> NaN (kSaturate: 0x00),
// overflow -> NaN (kSaturate: 0xFE), Inf -> NaN.
constexpr CastSpec kMlFp8{.rounding = kRne, .overflow = Overflow::NonSat};
constexpr CastSpec kMlFp8Sat{.rounding = kRne, .overflow = Overflow::SatFiniteOnly};
constexpr CastSpec kMlFp8Trunc{.rounding = Rounding::TowardZero, .overflow = Overflow::NonSat};
constexpr CastSpec kMlE8m0{.rounding = kRne, .overflow = Overflow::NonSat,
                           .unsigned_negative = UnsignedNegative::Nan, .unsigned_zero = UnsignedZero::Nan,
                           .e8m0_subnormal_above_min_rounds_up = true};
constexpr CastSpec kMlE8m0Sat{.rounding = kRne, .overflow = Overflow::SatFiniteOnly,
                              .unsigned_negative = UnsignedNegative::Min, .unsigned_zero = UnsignedZero::Min,
                              .e8m0_subnormal_above_min_rounds_up = true};
constexpr CastSpec kMlFp6Fp4{.rounding = kRne, .overflow = Overflow::NonSat, .nanless_nan = NanlessNan::NegZero};
constexpr CastSpec kMlFp6Fp4Sat{.rounding = kRne, .overflow = Overflow::SatFiniteOnly,
                                .nanless_nan = NanlessNan::NegZero};
constexpr CastSpec kMlFp6Fp4Trunc{.rounding = Rounding::TowardZero, .overflow = Overflow::NonSat,
                                  .nanless_nan = NanlessNan::NegZero};

// HIP amd_hip_fp8.h software path internal::cast_to_f8 (from rocBLAS rocblas_hip_f8_impl.h),
// non-saturating (clip = false, __HIP_NOSAT): |x| > max is compared before rounding (449.0f ->
// e4m3fn NaN). OCP NaN -> (sign << 7) | 0x7F, e5m2 likewise; fnuz -> 0x80. Both revisions agree.
constexpr CastSpec kHipSwNoSat{.rounding = kRne, .overflow = Overflow::CompareBeforeRound,
                               .nan = NanPolicy::KeepSign, .ieee_nan = IeeeNanCode::AllOnes};

// HIP software path with clip (__HIP_SATFINITE, the struct default): 2024-10 revision (f9f995c):
// finite overflow and Inf -> +-max; OCP NaN -> (sign << 7) | 0x7F; fnuz Inf and NaN -> clip ? +-0x7F
// : 0x80, so a fnuz NaN saturates. Newer revision (00387053): Inf is not saturated (e4m3 and fnuz
// NaN, e5m2 Inf), NaN -> NaN.
constexpr CastSpec kHipSw2024Sat{.rounding = kRne, .overflow = Overflow::SatFinite, .nan = NanPolicy::KeepSign,
                                 .ieee_nan = IeeeNanCode::AllOnes};
constexpr CastSpec kHipSw2024SatFnuz{.rounding = kRne, .overflow = Overflow::SatFinite, .nan = NanPolicy::ToMax};
constexpr CastSpec kHipSw2025Sat{.rounding = kRne, .overflow = Overflow::SatFiniteOnly, .nan = NanPolicy::KeepSign,
                                 .ieee_nan = IeeeNanCode::AllOnes};

// gfx942 device fast path (cast_to_f8_from_f32): with SATFINITE a finite input is first clamped
// with __builtin_amdgcn_fmed3f(v, +-max), then the hardware converts with RNE; Inf and NaN skip
// the clamp. The packed x2 API (hip_gfx942_x2, hazard H16) writes the clamped value to the wrong
// lane and converts the original inputs, so nothing saturates. What the hardware gives for an
// unclamped overflow or an Inf is undocumented: octet models it as non-saturating (NaN 0x80 for
// fnuz), pending a sweep on MI300 (reference/formats.md §6.4; unverified).
constexpr CastSpec kHipGfx942{.rounding = kRne, .overflow = Overflow::SatFiniteOnly};
constexpr CastSpec kHipGfx942X2{.rounding = kRne, .overflow = Overflow::NonSat};

// gfloat round_float(..., sat=True): RNE, saturating including Inf, unsigned NaN; e8m0 ties to
// the even code.
constexpr CastSpec kGfloat{.rounding = kRne, .overflow = Overflow::SatFinite, .nan = NanPolicy::Canonical,
                           .ties_to_even_code = true};
constexpr CastSpec kGfloatE8m0{.rounding = kRne, .overflow = Overflow::SatFinite, .nan = NanPolicy::Canonical,
                               .unsigned_negative = UnsignedNegative::Abs, .unsigned_zero = UnsignedZero::Min,
                               .ties_to_even_code = true};

// microxcaling _quantize_elemwise_core(..., round='nearest', saturate_normals=True): values with
// ties away from zero (floor(|A| + 0.5)); 400 -> e4m3 416 in its test_fp8_e4m3_fix.py.
constexpr CastSpec kMicroxcaling{.rounding = Rounding::NearestAway, .overflow = Overflow::SatFinite};

constexpr std::array kProfiles{
    Profile{"ocp", "OCP OFP8 v1.0 / MX v1.0, saturating mode (the mode MX element casts use)",
            "OFP8 v1.0 §5 (conversion), MX v1.0 §6.3", kOcpSat, kOcpSat, kOcpSat},
    Profile{"ocp_nosat", "OCP OFP8 v1.0, non-saturating mode (overflow -> Inf / NaN)",
            "OFP8 v1.0 §5 (conversion)", kOcpNoSat, kOcpNoSat, kOcpNoSat},
    Profile{"cuda_satfinite", "CUDA __nv_cvt_*(…, __NV_SATFINITE, …) and the PTX cvt.rn.satfinite instructions",
            "cuda_fp8.hpp, cuda_fp6.hpp, cuda_fp4.hpp (CUDA 13.0); PTX ISA cvt", kCudaFp8Sat, kCudaE8m0Sat,
            kCudaFp6Fp4, true},
    Profile{"cuda_nosat", "CUDA __nv_cvt_*(…, __NV_NOSAT, …), software path",
            "cuda_fp8.hpp (CUDA 13.0)", kCudaFp8NoSat, kCudaE8m0NoSat, kCudaFp6Fp4, true},
    Profile{"torch", "PyTorch c10 Float8_* conversions (<= 2.12, non-saturating)",
            "c10/util/Float8_e4m3fn.h, Float8_e5m2.h, Float8_e4m3fnuz.h, Float8_e5m2fnuz.h, Float8_e8m0fnu.h",
            kTorchFp8, kTorchE8m0, kMlFp6Fp4},
    Profile{"ml_dtypes", "ml_dtypes ConvertFrom<float> (kSaturate=false, kTruncate=false)",
            "ml_dtypes/include/float8.h, mxfloat.h", kMlFp8, kMlE8m0, kMlFp6Fp4},
    Profile{"ml_dtypes_sat", "ml_dtypes ConvertImpl with kSaturate=true (specials not saturated)",
            "ml_dtypes/include/float8.h", kMlFp8Sat, kMlE8m0Sat, kMlFp6Fp4Sat},
    Profile{"ml_dtypes_trunc", "ml_dtypes ConvertImpl with kTruncate=true",
            "ml_dtypes/include/float8.h", kMlFp8Trunc, CastSpec{kMlE8m0}, kMlFp6Fp4Trunc},
    Profile{"hip_sw", "HIP amd_hip_fp8.h software cast_to_f8 without clip (NOSAT): compare before round",
            "ROCm/clr hipamd/include/hip/amd_detail/amd_hip_fp8.h", kHipSwNoSat, kOcpNoSat, kOcpSat},
    Profile{"hip_sw_2024", "HIP amd_hip_fp8.h software cast_to_f8 with clip (SATFINITE), 2024-10 revision",
            "ROCm/clr amd_hip_fp8.h at f9f995c", kHipSw2024Sat, kOcpSat, kOcpSat, false, true, kHipSw2024SatFnuz},
    Profile{"hip_sw_2025", "HIP amd_hip_fp8.h software cast_to_f8 with clip (SATFINITE), newer revision",
            "ROCm/clr amd_hip_fp8.h at 00387053", kHipSw2025Sat, kOcpSat, kOcpSat},
    Profile{"hip_gfx942", "HIP gfx942 device fast path: fmed3 clamp (SATFINITE), then hardware RNE",
            "ROCm/clr amd_hip_fp8.h cast_to_f8_from_f32 (hardware overflow/Inf: unverified)", kHipGfx942, kOcpSat,
            kOcpSat},
    Profile{"hip_gfx942_x2", "HIP gfx942 packed x2 conversion: the clamp misses, nothing saturates (bug H16)",
            "ROCm/clr amd_hip_fp8.h __hip_cvt_float2_to_fp8x2 (hardware overflow: unverified)", kHipGfx942X2,
            kOcpSat, kOcpSat},
    Profile{"gfloat", "gfloat round_float(…, RoundMode.TiesToEven, sat=True)",
            "graphcore-research/gfloat src/gfloat/round.py", kGfloat, kGfloatE8m0, kGfloat},
    Profile{"microxcaling", "microxcaling element quantisation, round='nearest' (ties away), saturate_normals",
            "microsoft/microxcaling mx/elemwise_ops.py", kMicroxcaling, kOcpSat, kMicroxcaling},
};

}  // namespace

std::span<const Profile> profiles() { return kProfiles; }

const Profile* find_profile(std::string_view name) {
  for (const Profile& p : kProfiles)
    if (p.name == name) return &p;
  return nullptr;
}

const Profile& default_profile() { return kProfiles[0]; }

}  // namespace octet
