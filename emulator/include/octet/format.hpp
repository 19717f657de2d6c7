// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// format.hpp — constexpr descriptors of every element format octet emulates.
//
// Naming follows LLVM / ml_dtypes: `f` = finite (no Inf), `n` = special NaN encoding,
// `uz` = unsigned zero (no -0; the -0 code is the NaN), `u` = unsigned.
// Sources: OCP OFP8 v1.0 (E4M3, E5M2), OCP MX v1.0 §5 (E8M0, E2M3, E3M2, E2M1), the fnuz formats
// of arXiv 2206.02915 as implemented by ml_dtypes `float8.h` and c10 `Float8_e4m3fnuz.h`, and
// IEEE 754-2019 binary16 / bfloat16. Every literal below is asserted in tests/format_test.cpp.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <optional>
#include <string_view>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define OCTET_HD __host__ __device__
#else
#define OCTET_HD
#endif

namespace octet {

// Every format octet can encode to or decode from. fp32 and fp64 are sources only.
enum class FormatId : std::uint8_t {
  e4m3fn, e4m3fnuz, e5m2, e5m2fnuz, e8m0fnu, e2m3fn, e3m2fn, e2m1fn, bf16, fp16, fp32, fp64,
};

// How a format spells NaN.
enum class NanEncoding : std::uint8_t {
  Ieee,     // exponent all ones, mantissa != 0 (e5m2, bf16, fp16, fp32, fp64)
  AllOnes,  // only S.1111.111 (e4m3fn), or 0xFF for the unsigned e8m0fnu
  NegZero,  // only 0x80, the code -0 would have (fnuz)
  None,     // no NaN at all (fp6, fp4)
};

enum class ValueClass : std::uint8_t { zero, subnormal, normal, inf, nan };

struct Format {
  FormatId id;
  std::uint8_t exponent_bits;
  std::uint8_t mantissa_bits;
  std::int16_t bias;
  bool is_signed;
  bool has_inf;
  NanEncoding nan;
  bool has_zero;  // false only for e8m0fnu, whose code 0x00 is 2^-127

  // The code helpers below work on 32-bit codes: every cast target and fp32. fp64 is described
  // for its source traits only.
  OCTET_HD constexpr int bits() const { return int(is_signed) + exponent_bits + mantissa_bits; }
  OCTET_HD constexpr std::uint32_t sign_mask() const { return is_signed ? 1u << (bits() - 1) : 0u; }
  OCTET_HD constexpr std::uint32_t magnitude_mask() const {
    return (1u << (exponent_bits + mantissa_bits)) - 1u;
  }
  OCTET_HD constexpr std::uint32_t mantissa_mask() const { return (1u << mantissa_bits) - 1u; }
  OCTET_HD constexpr std::uint64_t code_count() const { return std::uint64_t(1) << bits(); }

  // Largest finite magnitude code: e4m3fn 0x7E, e5m2 0x7B, fnuz 0x7F, e8m0fnu 0xFE, e2m1fn 0x7.
  OCTET_HD constexpr std::uint32_t max_finite_code() const {
    switch (nan) {
      case NanEncoding::Ieee: return (((1u << exponent_bits) - 1u) << mantissa_bits) - 1u;
      case NanEncoding::AllOnes: return magnitude_mask() - 1u;
      default: return magnitude_mask();
    }
  }
  // Unbiased exponent of the smallest normal. e8m0fnu has no zero and no subnormals: its code 0
  // is the normal 2^-127, so its smallest exponent is -bias rather than 1 - bias.
  OCTET_HD constexpr int emin() const { return has_zero ? 1 - bias : -bias; }
  // Unbiased exponent of the largest finite value ("emax_elem" of OCP MX §6.3).
  OCTET_HD constexpr int emax() const {
    return int(max_finite_code() >> mantissa_bits) - bias;
  }
  // Signed-magnitude code of +-Inf; only meaningful when has_inf.
  OCTET_HD constexpr std::uint32_t inf_code(bool negative) const {
    return (negative ? sign_mask() : 0u) | (((1u << exponent_bits) - 1u) << mantissa_bits);
  }
  // The format's canonical NaN code. Ieee formats: the quiet NaN with the top mantissa bit set
  // (e5m2 0x7E, bf16 0x7FC0, fp16 0x7E00), as ml_dtypes quiet_NaN(); a conversion may choose
  // another (CastSpec::ieee_nan). fnuz has one NaN (0x80) and e8m0fnu has one (0xFF): the sign
  // cannot be kept.
  OCTET_HD constexpr std::uint32_t nan_code(bool negative) const {
    switch (nan) {
      case NanEncoding::Ieee:
        return (negative ? sign_mask() : 0u) | inf_code(false) | (1u << (mantissa_bits - 1));
      case NanEncoding::AllOnes: return (negative ? sign_mask() : 0u) | magnitude_mask();
      case NanEncoding::NegZero: return sign_mask();
      case NanEncoding::None: return 0u;  // no NaN; callers consult CastSpec::nanless_nan
    }
    return 0u;
  }
  OCTET_HD constexpr bool is_nan(std::uint32_t code) const {
    const std::uint32_t mag = code & magnitude_mask();
    switch (nan) {
      case NanEncoding::Ieee: return (mag >> mantissa_bits) == ((1u << exponent_bits) - 1u) && (mag & mantissa_mask()) != 0;
      case NanEncoding::AllOnes: return mag == magnitude_mask();
      case NanEncoding::NegZero: return code == sign_mask();
      case NanEncoding::None: return false;
    }
    return false;
  }
  OCTET_HD constexpr bool is_inf(std::uint32_t code) const {
    return has_inf && (code & magnitude_mask()) == inf_code(false);
  }
  OCTET_HD constexpr ValueClass classify(std::uint32_t code) const {
    if (is_nan(code)) return ValueClass::nan;
    if (is_inf(code)) return ValueClass::inf;
    const std::uint32_t mag = code & magnitude_mask();
    if (!has_zero) return ValueClass::normal;
    if (mag == 0) return ValueClass::zero;
    return (mag >> mantissa_bits) == 0 ? ValueClass::subnormal : ValueClass::normal;
  }
};

//                                        id                  E   M   bias   signed inf    NaN                   zero
inline constexpr Format e4m3fn_format  {FormatId::e4m3fn,    4,  3,     7,  true, false, NanEncoding::AllOnes, true};
inline constexpr Format e4m3fnuz_format{FormatId::e4m3fnuz,  4,  3,     8,  true, false, NanEncoding::NegZero, true};
inline constexpr Format e5m2_format    {FormatId::e5m2,      5,  2,    15,  true, true,  NanEncoding::Ieee,    true};
inline constexpr Format e5m2fnuz_format{FormatId::e5m2fnuz,  5,  2,    16,  true, false, NanEncoding::NegZero, true};
inline constexpr Format e8m0fnu_format {FormatId::e8m0fnu,   8,  0,   127, false, false, NanEncoding::AllOnes, false};
inline constexpr Format e2m3fn_format  {FormatId::e2m3fn,    2,  3,     1,  true, false, NanEncoding::None,    true};
inline constexpr Format e3m2fn_format  {FormatId::e3m2fn,    3,  2,     3,  true, false, NanEncoding::None,    true};
inline constexpr Format e2m1fn_format  {FormatId::e2m1fn,    2,  1,     1,  true, false, NanEncoding::None,    true};
inline constexpr Format bf16_format    {FormatId::bf16,      8,  7,   127,  true, true,  NanEncoding::Ieee,    true};
inline constexpr Format fp16_format    {FormatId::fp16,      5, 10,    15,  true, true,  NanEncoding::Ieee,    true};
inline constexpr Format fp32_format    {FormatId::fp32,      8, 23,   127,  true, true,  NanEncoding::Ieee,    true};
inline constexpr Format fp64_format    {FormatId::fp64,     11, 52,  1023,  true, true,  NanEncoding::Ieee,    true};

inline constexpr std::array<Format, 12> all_formats{
    e4m3fn_format, e4m3fnuz_format, e5m2_format, e5m2fnuz_format, e8m0fnu_format, e2m3fn_format,
    e3m2fn_format, e2m1fn_format,   bf16_format, fp16_format,     fp32_format,     fp64_format};

// The formats a cast can target (fp32 and fp64 are sources only).
inline constexpr std::array<Format, 10> target_formats{
    e4m3fn_format, e4m3fnuz_format, e5m2_format, e5m2fnuz_format, e8m0fnu_format,
    e2m3fn_format, e3m2fn_format,   e2m1fn_format, bf16_format,   fp16_format};

#if defined(__CUDACC__)
// Device code cannot read namespace-scope constexpr objects at run time (nvcc: "identifier
// octet::all_formats is undefined in device code"), and nvcc compiles every __host__ __device__
// function that a .cu file uses for the device too: the device pass gets its own copy.
static constexpr __device__ std::array<Format, 12> device_formats{
    e4m3fn_format, e4m3fnuz_format, e5m2_format, e5m2fnuz_format, e8m0fnu_format, e2m3fn_format,
    e3m2fn_format, e2m1fn_format,   bf16_format, fp16_format,     fp32_format,     fp64_format};
#endif

OCTET_HD constexpr const Format& format_of(FormatId id) {
#if defined(__CUDA_ARCH__)
  return device_formats[std::size_t(id)];
#else
  return all_formats[std::size_t(id)];
#endif
}

// octet's short name ("e4m3fn") and the ml_dtypes / HDF5 `dtype` spelling ("float8_e4m3fn").
std::string_view name(FormatId id);
std::string_view dtype_name(FormatId id);
std::string_view name(ValueClass c);
std::optional<FormatId> parse_format(std::string_view s);  // accepts both spellings

// Decode: every code to its exact value. Every value of every format here is exact in double.
// NaN decodes to a quiet NaN with the code's sign where the format has signed NaNs; the single
// NaN of fnuz (0x80) and e8m0fnu (0xFF) decodes to +NaN.
OCTET_HD constexpr double decode(const Format& f, std::uint32_t code) {
  const std::uint32_t mag = code & f.magnitude_mask();
  const bool negative = (code & f.sign_mask()) != 0;
  if (f.is_nan(code))
    return (negative && f.nan != NanEncoding::NegZero) ? -__builtin_nan("") : __builtin_nan("");
  if (f.is_inf(code)) return negative ? -__builtin_inf() : __builtin_inf();
  const int field = int(mag >> f.mantissa_bits);
  const std::uint32_t mant = mag & f.mantissa_mask();
  // value = significand * 2^(exponent - M), with the implicit bit for normal codes.
  std::uint64_t significand = mant;
  int exponent = f.emin();
  if (!f.has_zero) {
    significand |= 1u << f.mantissa_bits;
    exponent = field - f.bias;
  } else if (field != 0) {
    significand |= 1u << f.mantissa_bits;
    exponent = field - f.bias;
  }
  // ldexp is not constexpr before C++23: scale by repeated exact powers of two instead.
  double v = double(significand);
  int e = exponent - f.mantissa_bits;
  while (e > 0) { const int s = e > 60 ? 60 : e; v *= double(std::uint64_t(1) << s); e -= s; }
  while (e < 0) { const int s = -e > 60 ? 60 : -e; v /= double(std::uint64_t(1) << s); e += s; }
  return negative ? -v : v;
}

OCTET_HD constexpr double max_finite(const Format& f) { return decode(f, f.max_finite_code()); }
OCTET_HD constexpr double min_normal(const Format& f) {
  return decode(f, f.has_zero ? 1u << f.mantissa_bits : 0u);
}
// Smallest positive value: the smallest subnormal, or for e8m0fnu its code 0x00 = 2^-127.
OCTET_HD constexpr double min_subnormal(const Format& f) { return decode(f, f.has_zero ? 1u : 0u); }

}  // namespace octet
