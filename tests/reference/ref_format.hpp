// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// ref_format.hpp — the test suite's own description of every format, typed in from
// reference/formats.md §1, and a decoder written from first principles:
//   value = (-1)^s * 2^(E - bias) * (1 + m / 2^M)   (normal)
//   value = (-1)^s * 2^(1 - bias) * (m / 2^M)       (subnormal, E = 0)
//   e8m0fnu: 2^(code - 127), no sign, no zero.
// Nothing here reads octet::Format or calls octet::decode, so that the references built on it
// (table_reference.hpp, rational_reference.hpp) stay independent of the code under test.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>

#include "octet/format.hpp"  // FormatId only: the key that maps octet's formats to these rows

namespace octet_ref {

// How a format spells its specials (formats.md §1, columns Inf / NaN / -0).
enum class Specials : std::uint8_t {
  Ieee,  // E all ones: M == 0 Inf, M != 0 NaN (e5m2, bf16, fp16, fp32)
  Fn,    // no Inf; only S.1111.111 is NaN (e4m3fn)
  Fnuz,  // no Inf, no -0; 0x80 is the only NaN
  None,  // no Inf, no NaN (fp6, fp4)
  E8m0,  // unsigned, no zero; 0xFF is the only NaN
};

// Which source path an input takes: fp32 (bf16 and fp16 inputs widen to fp32 exactly) or fp64.
// The value is the same either way; only CastSpec::e8m0_subnormal_above_min_rounds_up, a rule
// about fp32-subnormal inputs, tells them apart.
enum class Source : std::uint8_t { fp32, fp64 };

struct RefFormat {
  octet::FormatId id;
  std::string_view name;
  int bits;
  int E, M, bias;
  bool is_signed;
  Specials specials;
  std::uint32_t max_code;  // largest finite magnitude code
  std::uint32_t inf_code;  // +Inf (Ieee only)
  std::uint32_t nan_code;  // the NaN a conversion produces for a positive NaN (Ieee: quiet)

  std::uint32_t sign_bit() const { return is_signed ? 1u << (bits - 1) : 0u; }
  std::uint32_t magnitude_mask() const { return (1u << (bits - (is_signed ? 1 : 0))) - 1u; }
  bool has_zero() const { return specials != Specials::E8m0; }
  bool has_nan() const { return specials != Specials::None; }
  bool has_inf() const { return specials == Specials::Ieee; }
};

//                      id                        name        bits E   M  bias  signed specials        max     +Inf    NaN
inline constexpr std::array<RefFormat, 11> kRefFormats{{
    {octet::FormatId::e4m3fn,   "e4m3fn",   8,  4,  3,    7, true,  Specials::Fn,   0x7E,   0,      0x7F},
    {octet::FormatId::e4m3fnuz, "e4m3fnuz", 8,  4,  3,    8, true,  Specials::Fnuz, 0x7F,   0,      0x80},
    {octet::FormatId::e5m2,     "e5m2",     8,  5,  2,   15, true,  Specials::Ieee, 0x7B,   0x7C,   0x7E},
    {octet::FormatId::e5m2fnuz, "e5m2fnuz", 8,  5,  2,   16, true,  Specials::Fnuz, 0x7F,   0,      0x80},
    {octet::FormatId::e8m0fnu,  "e8m0fnu",  8,  8,  0,  127, false, Specials::E8m0, 0xFE,   0,      0xFF},
    {octet::FormatId::e2m3fn,   "e2m3fn",   6,  2,  3,    1, true,  Specials::None, 0x1F,   0,      0},
    {octet::FormatId::e3m2fn,   "e3m2fn",   6,  3,  2,    3, true,  Specials::None, 0x1F,   0,      0},
    {octet::FormatId::e2m1fn,   "e2m1fn",   4,  2,  1,    1, true,  Specials::None, 0x7,    0,      0},
    {octet::FormatId::bf16,     "bf16",     16, 8,  7,  127, true,  Specials::Ieee, 0x7F7F, 0x7F80, 0x7FC0},
    {octet::FormatId::fp16,     "fp16",     16, 5,  10,  15, true,  Specials::Ieee, 0x7BFF, 0x7C00, 0x7E00},
    {octet::FormatId::fp32,     "fp32",     32, 8,  23, 127, true,  Specials::Ieee, 0x7F7FFFFF, 0x7F800000, 0x7FC00000},
}};

inline const RefFormat& ref_format(octet::FormatId id) {
  for (const RefFormat& f : kRefFormats)
    if (f.id == id) return f;
  throw std::invalid_argument("ref_format: no reference row for this format");
}

// The value of a magnitude code read with the plain formula, ignoring specials. Also defined one
// past the largest finite code, where it gives the "next value after max" (max + ulp of the top
// binade): e4m3fn 0x7F -> 480, e5m2 0x7C -> 65536, fnuz 0x80 -> 256 / 65536, e8m0 0xFF -> 2^128.
inline double plain_magnitude(const RefFormat& f, std::uint64_t mag) {
  if (f.specials == Specials::E8m0) return std::ldexp(1.0, int(mag) - f.bias);
  const std::uint64_t field = mag >> f.M;
  const std::uint64_t m = mag & ((std::uint64_t(1) << f.M) - 1);
  if (field == 0) return std::ldexp(double(m), 1 - f.bias - f.M);
  return std::ldexp(double((std::uint64_t(1) << f.M) + m), int(field) - f.bias - f.M);
}

enum class RefClass : std::uint8_t { zero, subnormal, normal, inf, nan };

inline RefClass ref_classify(const RefFormat& f, std::uint32_t code) {
  const std::uint32_t mag = code & f.magnitude_mask();
  const std::uint32_t field = mag >> f.M;
  const std::uint32_t all_ones = (1u << f.E) - 1u;
  switch (f.specials) {
    case Specials::Ieee:
      if (field == all_ones) return (mag & ((1u << f.M) - 1u)) ? RefClass::nan : RefClass::inf;
      break;
    case Specials::Fn:
      if (mag == f.magnitude_mask()) return RefClass::nan;
      break;
    case Specials::Fnuz:
      if (code == f.sign_bit()) return RefClass::nan;
      break;
    case Specials::E8m0: return code == 0xFF ? RefClass::nan : RefClass::normal;
    case Specials::None: break;
  }
  if (mag == 0) return RefClass::zero;
  return field == 0 ? RefClass::subnormal : RefClass::normal;
}

// Full decode, specials included. NaN decodes to a NaN with the code's sign bit, except fnuz's
// single NaN 0x80, whose "sign bit" is part of the code and means nothing: +NaN.
inline double ref_decode(const RefFormat& f, std::uint32_t code) {
  const bool negative = (code & f.sign_bit()) != 0 && !(f.specials == Specials::Fnuz && code == f.sign_bit());
  double v = 0;
  switch (ref_classify(f, code)) {
    case RefClass::nan: v = std::numeric_limits<double>::quiet_NaN(); break;
    case RefClass::inf: v = std::numeric_limits<double>::infinity(); break;
    default: v = plain_magnitude(f, code & f.magnitude_mask()); break;
  }
  return negative ? -v : v;
}

// fp16 bits to double, exactly, NaN payload included (the 10 mantissa bits become the top
// mantissa bits of the double, as IEEE widening keeps them).
inline double fp16_to_double(std::uint16_t h) {
  const RefFormat& f = ref_format(octet::FormatId::fp16);
  if (ref_classify(f, h) != RefClass::nan) return ref_decode(f, h);
  std::uint64_t bits = (std::uint64_t(h >> 15) << 63) | (std::uint64_t(0x7FF) << 52) | (std::uint64_t(h & 0x3FF) << 42);
  double d;
  std::memcpy(&d, &bits, 8);
  return d;
}
inline float fp16_to_float(std::uint16_t h) {
  const RefFormat& f = ref_format(octet::FormatId::fp16);
  if (ref_classify(f, h) != RefClass::nan) return float(ref_decode(f, h));
  std::uint32_t bits = (std::uint32_t(h >> 15) << 31) | (0xFFu << 23) | (std::uint32_t(h & 0x3FF) << 13);
  float x;
  std::memcpy(&x, &bits, 4);
  return x;
}

// The magnitude codes of all finite non-negative values, in increasing value order:
// 0 .. max_code (for e8m0, 0x00 = 2^-127 .. 0xFE = 2^127).
inline std::uint32_t finite_magnitude_count(const RefFormat& f) { return f.max_code + 1; }

}  // namespace octet_ref
