// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// rational_reference.hpp — the deterministic conversions (RNE, RNA, RTZ, RU, RD, RTO) decided in
// exact rational arithmetic (boost::multiprecision::cpp_rational), by a different route than the
// table reference: the input is read exactly from its bits, its binade 2^e is found by exact
// comparisons, and |x| / q for the target quantum q = 2^(max(e, emin) - M) is split into an
// integer significand n and a remainder compared exactly with 1/2. The code follows from (e, n).
// The policy readings are those written down in table_reference.hpp; they are coded again here.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include <boost/multiprecision/cpp_int.hpp>

#include "octet/cast.hpp"  // CastSpec and its enums
#include "reference/ref_format.hpp"

namespace octet_ref {

using boost::multiprecision::cpp_int;
using boost::multiprecision::cpp_rational;

inline cpp_rational pow2_rational(int k) {
  return k >= 0 ? cpp_rational(cpp_int(1) << k) : cpp_rational(cpp_int(1), cpp_int(1) << -k);
}

// |x| of a finite double, exactly, from its bits: field 0 -> m * 2^-1074, else (2^52 + m) * 2^(field - 1075).
inline cpp_rational exact_magnitude(double x) {
  std::uint64_t bits;
  std::memcpy(&bits, &x, 8);
  const int field = int((bits >> 52) & 0x7FF);
  const std::uint64_t m = bits & ((std::uint64_t(1) << 52) - 1);
  if (field == 0) return cpp_rational(cpp_int(m)) * pow2_rational(-1074);
  return cpp_rational(cpp_int((std::uint64_t(1) << 52) | m)) * pow2_rational(field - 1075);
}

// The exact value of a finite magnitude code, from the format parameters.
inline cpp_rational rational_magnitude(const RefFormat& f, std::uint32_t mag) {
  if (f.specials == Specials::E8m0) return pow2_rational(int(mag) - f.bias);
  const std::uint32_t field = mag >> f.M;
  const std::uint32_t m = mag & ((1u << f.M) - 1u);
  if (field == 0) return cpp_rational(cpp_int(m)) * pow2_rational(1 - f.bias - f.M);
  return cpp_rational(cpp_int((1u << f.M) + m)) * pow2_rational(int(field) - f.bias - f.M);
}

// Everything the deterministic modes need to know about one finite nonzero magnitude.
struct RationalDecision {
  bool above_max = false;         // |x| > max, exactly
  bool below_smallest = false;    // e8m0fnu: |x| < 2^-127
  std::uint64_t code_down = 0;    // magnitude code of |x| truncated to the target quantum
  bool exact = false;             // |x| is that value
  int half = 0;                   // sign of (remainder - quantum / 2)
  bool significand_odd = false;   // of the truncated value
  bool code_odd = false;          // of the truncated value's code
  bool fp32_subnormal = false;    // 0 < |x| < 2^-126
  bool above_smallest = false;    // |x| > 2^-127
};

inline RationalDecision rational_decide(const RefFormat& f, double x) {
  RationalDecision d;
  const cpp_rational a = exact_magnitude(x);
  d.above_max = a > rational_magnitude(f, f.max_code);
  d.fp32_subnormal = a < pow2_rational(-126);
  d.above_smallest = a > pow2_rational(-127);

  // Binade: 2^e <= a < 2^(e+1). ilogb is only a first guess; the comparisons decide.
  int e = std::ilogb(x);
  while (pow2_rational(e) > a) --e;
  while (pow2_rational(e + 1) <= a) ++e;

  const bool has_zero = f.specials != Specials::E8m0;
  const int emin = has_zero ? 1 - f.bias : -f.bias;
  const int et = e > emin ? e : emin;
  const cpp_rational t = a / pow2_rational(et - f.M);  // |x| in units of the quantum
  const cpp_int n = numerator(t) / denominator(t);      // floor, t > 0
  const cpp_rational rem = t - cpp_rational(n);
  d.exact = rem == 0;
  const cpp_rational twice = rem * 2;
  d.half = twice > 1 ? 1 : (twice < 1 ? -1 : 0);
  d.significand_odd = (n & 1) != 0;

  if (!has_zero) {
    // e8m0fnu: n is 1 for e >= emin, 0 below 2^-127.
    d.below_smallest = e < emin;
    d.code_down = d.below_smallest ? 0 : std::uint64_t(e + f.bias);
    d.code_odd = (d.code_down & 1) != 0;
    return d;
  }
  const std::uint64_t nn = static_cast<std::uint64_t>(n);
  if (e < emin) d.code_down = nn;  // subnormal: n < 2^M
  else d.code_down = (std::uint64_t(e - emin + 1) << f.M) + (nn - (std::uint64_t(1) << f.M));
  d.code_odd = (d.code_down & 1) != 0;
  return d;
}

// The policy layer, for a finite nonzero input with decision d.
inline std::uint32_t rational_apply(const RefFormat& f, const octet::CastSpec& s, Source src,
                                    const RationalDecision& d, bool negative) {
  using octet::Overflow;
  using octet::Rounding;
  const std::uint32_t sign = negative ? f.sign_bit() : 0u;
  const auto not_finite = [&]() -> std::uint32_t {  // Inf, else NaN, else max
    if (f.specials == Specials::Ieee) return sign | f.inf_code;
    if (f.specials == Specials::Fn) return sign | f.nan_code;
    if (f.specials == Specials::None) return sign | f.max_code;
    return f.nan_code;  // fnuz 0x80, e8m0 0xFF
  };
  if (f.specials == Specials::E8m0 && s.e8m0_subnormal_above_min_rounds_up && src == Source::fp32 &&
      d.fp32_subnormal)
    return d.above_smallest ? 1u : 0u;
  if (s.overflow == Overflow::CompareBeforeRound && d.above_max) return not_finite();
  if (d.below_smallest) return 0u;

  bool up = false;
  switch (s.rounding) {
    case Rounding::NearestEven:
      up = d.half > 0 || (d.half == 0 && (s.ties_to_even_code ? d.code_odd : d.significand_odd));
      break;
    case Rounding::NearestAway: up = d.half >= 0; break;
    case Rounding::TowardZero: break;
    case Rounding::TowardPositive: up = !d.exact && !negative; break;
    case Rounding::TowardNegative: up = !d.exact && negative; break;
    case Rounding::ToOdd: up = !d.exact && !d.significand_odd; break;
    case Rounding::Stochastic: return 0xDEADu;  // not a deterministic mode
  }
  const std::uint64_t code = d.code_down + (up ? 1 : 0);
  if (code > f.max_code) {
    if (s.overflow == Overflow::SatFinite || s.overflow == Overflow::SatFiniteOnly) return sign | f.max_code;
    const bool directed_to_max = s.overflow == Overflow::Ieee &&  // NonSat, CompareBeforeRound: never
                                 (s.rounding == Rounding::TowardZero ||
                                  (s.rounding == Rounding::TowardPositive && negative) ||
                                  (s.rounding == Rounding::TowardNegative && !negative));
    return directed_to_max ? (sign | f.max_code) : not_finite();
  }
  std::uint32_t mag = std::uint32_t(code);
  if (s.subnormals == octet::Subnormals::Flush && f.specials != Specials::E8m0 && mag < (1u << f.M)) mag = 0;
  if (mag == 0 && f.specials == Specials::Fnuz) return 0u;
  return sign | mag;
}

// The whole conversion, specials included. `decided`, when given, is rational_decide(f, x)
// computed earlier (it does not depend on the spec, so sweeps over specs reuse it).
inline std::uint32_t rational_encode(const RefFormat& f, const octet::CastSpec& s, Source src, double x,
                                     const RationalDecision* decided = nullptr) {
  bool negative = std::signbit(x);
  if (std::isnan(x)) {
    if (f.specials == Specials::None) {
      if (s.nanless_nan == octet::NanlessNan::PositiveMax) return f.max_code;
      return negative ? 0u : f.sign_bit();
    }
    if (s.nan == octet::NanPolicy::ToMax) return (negative ? f.sign_bit() : 0u) | f.max_code;
    if (f.specials == Specials::Fnuz || f.specials == Specials::E8m0) return f.nan_code;
    const std::uint32_t sign = (s.nan == octet::NanPolicy::KeepSign && negative) ? f.sign_bit() : 0u;
    if (f.specials == Specials::Fn) return sign | f.nan_code;
    std::uint64_t bits;
    std::memcpy(&bits, &x, 8);
    const std::uint32_t mask = (1u << f.M) - 1u, quiet = 1u << (f.M - 1);
    switch (s.ieee_nan) {
      case octet::IeeeNanCode::Quiet: return sign | f.inf_code | quiet;
      case octet::IeeeNanCode::AllOnes: return sign | f.inf_code | mask;
      case octet::IeeeNanCode::Payload: return sign | f.inf_code | quiet | (std::uint32_t(bits >> (52 - f.M)) & mask);
    }
  }
  if (x == 0 && f.specials == Specials::E8m0)  // -0 is a zero: the zero rule comes first
    return s.unsigned_zero == octet::UnsignedZero::Min ? 0u : f.nan_code;
  if (!f.is_signed && negative) {
    if (s.unsigned_negative == octet::UnsignedNegative::Nan) return f.nan_code;
    if (s.unsigned_negative == octet::UnsignedNegative::Min) return 0u;
    negative = false;
  }
  const std::uint32_t sign = negative ? f.sign_bit() : 0u;
  if (std::isinf(x)) {
    if (s.overflow == octet::Overflow::SatFinite) return sign | f.max_code;
    if (f.specials == Specials::Ieee) return sign | f.inf_code;
    if (f.specials == Specials::Fn) return sign | f.nan_code;
    if (f.specials == Specials::None) return sign | f.max_code;
    return f.nan_code;
  }
  if (x == 0) {
    if (f.specials == Specials::E8m0) return s.unsigned_zero == octet::UnsignedZero::Min ? 0u : f.nan_code;
    if (f.specials == Specials::Fnuz) return 0u;
    return sign;
  }
  return rational_apply(f, s, src, decided ? *decided : rational_decide(f, x), negative);
}

}  // namespace octet_ref
