// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// table_reference.hpp — an obviously-correct conversion to any target format: look the input up
// in the sorted table of every finite non-negative value of the target, take its two neighbours
// lo <= |x| <= hi, and decide between them by the rounding mode. Written from
// reference/formats.md and the policy comments of octet/cast.hpp, never from octet's code.
//
// The input is a double: fp32, bf16 and fp16 values are exact in double, so one routine serves
// every source. Every value, midpoint and neighbour difference used below is exact in double for
// these formats (at most 11 significant bits, exponents within [-149, 128]).
//
// Readings of cast.hpp written down here (the comments there admit more than one):
//  * NaN input is decided first, before the unsigned-negative rule: any NaN -> e8m0fnu 0xFF.
//  * NanPolicy ("for targets that have a NaN") applies only to targets with a NaN; for fp6/fp4
//    only NanlessNan applies, so NanPolicy::ToMax and ::Canonical do not change an fp6/fp4
//    result. NanPolicy::ToMax gives +-max with the input's sign (e8m0fnu: 0xFE).
//  * IeeeNanCode::Payload takes the top M bits of the source mantissa. They are the top M bits
//    of the fp64 mantissa too when an fp32 NaN is widened (quieting only sets the quiet bit,
//    which the payload sets anyway), so the double input carries them.
//  * For the unsigned e8m0fnu, +-0 takes the zero rule (UnsignedZero) first; UnsignedNegative is
//    applied before the Inf rule and so decides -Inf; only with UnsignedNegative::Abs does -Inf
//    reach the Inf rule.
//  * Every e8m0fnu significand is 1, an odd significand: RNE and RNA ties go up (with
//    ties_to_even_code, RNE ties go to the even code instead), and RTO ("truncate, then set the
//    significand LSB if inexact") equals RTZ. For M >= 1 the significand LSB is the code LSB.
//  * A value below 2^-127 gives e8m0fnu 0x00 in every mode (it rounds to 2^-127 or below).
//  * e8m0_subnormal_above_min_rounds_up applies to fp32-path inputs (fp32, bf16, fp16) that are
//    fp32 subnormals (0 < |x| < 2^-126), in every rounding mode: 0x01 iff |x| > 2^-127.
//  * "Overflow" means that the rounded magnitude is not finite in the target: it reached the
//    virtual next value after max. Under Overflow::Ieee only RTZ, RU for negatives and RD for
//    positives give +-max; RNE, RNA, RTO and SR overflow to +-Inf (NaN / max). So RTO of a value
//    in (448, 480) overflows for e4m3fn (truncated code 0x7E is even, the odd neighbour is 480).
//    Overflow::NonSat overflows to +-Inf (NaN / max) in every mode.
//  * The NaN produced by an overflow or an Inf input keeps the input's sign (e4m3fn 0xFF for
//    -1000 under Ieee); NanPolicy only governs NaN inputs.
//  * CompareBeforeRound: |x| > max (exact) overflows in every rounding mode, directed ones
//    included; Inf inputs likewise give Inf / NaN (+-max where neither exists).
//  * Subnormals::Flush applies after rounding: a nonzero subnormal result becomes a zero of the
//    input's sign (fnuz: +0); a value that rounds up to the smallest normal is kept.
//  * Stochastic: f = (|x| - lo) / (hi - lo), F = floor(f * 2^k), R = rbits mod 2^k, up iff
//    F + R >= 2^k; k = SrRule::bits or 23 - M. All of it is exact in double.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "octet/cast.hpp"  // CastSpec and its enums: the policy vocabulary, not the algorithm
#include "reference/ref_format.hpp"

namespace octet_ref {

class TableReference {
 public:
  explicit TableReference(const RefFormat& f) : f_(f) {
    values_.reserve(finite_magnitude_count(f));
    for (std::uint32_t c = 0; c <= f.max_code; ++c) values_.push_back(plain_magnitude(f, c));
    next_ = plain_magnitude(f, f.max_code + 1);
    // The lookup needs values increasing with the magnitude code.
    for (std::size_t i = 1; i < values_.size(); ++i)
      if (!(values_[i - 1] < values_[i])) throw std::logic_error("TableReference: values not increasing");
    if (!(values_.back() < next_)) throw std::logic_error("TableReference: next after max not above max");
  }

  const RefFormat& format() const { return f_; }
  const std::vector<double>& values() const { return values_; }  // by magnitude code
  double max() const { return values_.back(); }
  double next_after_max() const { return next_; }

  // Where a finite positive magnitude lies in the table: values_[index] <= a < hi.
  struct Neighbours {
    std::uint32_t index = 0;
    double lo = 0, hi = 0;
    bool beyond = false;  // a >= next_after_max(): every rounding overflows
    bool below = false;   // e8m0fnu: a < 2^-127
  };
  Neighbours locate(double a) const {
    Neighbours n;
    if (a >= next_) { n.beyond = true; return n; }
    if (a < values_.front()) { n.below = true; return n; }
    n.index = std::uint32_t(std::upper_bound(values_.begin(), values_.end(), a) - values_.begin()) - 1;
    n.lo = values_[n.index];
    n.hi = n.index + 1 < values_.size() ? values_[n.index + 1] : next_;
    return n;
  }

  // The target code for x under spec; rbits is read only for Rounding::Stochastic. `located`,
  // when given, is locate(|x|) computed earlier (a spec-independent lookup that sweeps reuse).
  std::uint32_t encode(const octet::CastSpec& s, Source src, double x, std::uint32_t rbits = 0,
                       const Neighbours* located = nullptr) const {
    using octet::Overflow;
    using octet::Rounding;
    bool negative = std::signbit(x);

    if (std::isnan(x)) return nan_result(s, x);
    if (x == 0) {  // -0 is a zero: the zero rule, not the negative-input rule
      if (!f_.has_zero()) return s.unsigned_zero == octet::UnsignedZero::Min ? 0u : f_.nan_code;
      return with_sign(0, negative);
    }
    if (negative && !f_.is_signed) {
      switch (s.unsigned_negative) {
        case octet::UnsignedNegative::Nan: return f_.nan_code;
        case octet::UnsignedNegative::Min: return 0u;
        case octet::UnsignedNegative::Abs: negative = false; break;
      }
    }
    const std::uint32_t sign = negative ? f_.sign_bit() : 0u;
    if (std::isinf(x)) {
      if (s.overflow == Overflow::SatFinite) return sign | f_.max_code;
      return infinite_result(negative);
    }
    const double a = std::fabs(x);
    if (!f_.has_zero() && s.e8m0_subnormal_above_min_rounds_up && src == Source::fp32 && a < 0x1p-126)
      return a > 0x1p-127 ? 1u : 0u;
    if (s.overflow == Overflow::CompareBeforeRound && a > max()) return infinite_result(negative);
    const Neighbours n = located ? *located : locate(a);
    if (n.below) return 0u;  // e8m0fnu below 2^-127
    if (n.beyond) return overflow_result(s, negative);

    const bool exact = a == n.lo;
    const bool lo_significand_odd = f_.M == 0 ? true : (n.index & 1u) != 0;
    const bool lo_code_odd = (n.index & 1u) != 0;
    const double mid = (n.lo + n.hi) / 2;
    bool up = false;
    switch (s.rounding) {
      case Rounding::NearestEven:
        up = a > mid || (a == mid && (s.ties_to_even_code ? lo_code_odd : lo_significand_odd));
        break;
      case Rounding::NearestAway: up = a >= mid; break;
      case Rounding::TowardZero: up = false; break;
      case Rounding::TowardPositive: up = !exact && !negative; break;
      case Rounding::TowardNegative: up = !exact && negative; break;
      case Rounding::ToOdd: up = !exact && !lo_significand_odd; break;
      case Rounding::Stochastic: {
        const int k = s.sr.bits != 0 ? s.sr.bits : 23 - f_.M;
        const double two_k = std::ldexp(1.0, k);
        const std::uint64_t F = std::uint64_t(std::floor((a - n.lo) / (n.hi - n.lo) * two_k));
        const std::uint64_t R = std::uint64_t(rbits) & ((std::uint64_t(1) << k) - 1);
        up = double(F + R) >= two_k;
        break;
      }
    }
    std::uint32_t code = n.index + (up ? 1u : 0u);
    if (code > f_.max_code) return overflow_result(s, negative);
    if (s.subnormals == octet::Subnormals::Flush && f_.has_zero() && code != 0 && code < (1u << f_.M))
      code = 0;
    return with_sign(code, negative);
  }

 private:
  std::uint32_t nan_result(const octet::CastSpec& s, double x) const {
    const bool negative = std::signbit(x);
    if (!f_.has_nan())
      return s.nanless_nan == octet::NanlessNan::PositiveMax ? f_.max_code : (negative ? 0u : f_.sign_bit());
    if (s.nan == octet::NanPolicy::ToMax) return (negative ? f_.sign_bit() : 0u) | f_.max_code;
    if (f_.specials == Specials::Fnuz || f_.specials == Specials::E8m0) return f_.nan_code;
    const std::uint32_t sign = (s.nan == octet::NanPolicy::KeepSign && negative) ? f_.sign_bit() : 0u;
    if (f_.specials == Specials::Fn) return sign | f_.nan_code;
    const std::uint32_t quiet = 1u << (f_.M - 1);
    std::uint32_t payload = quiet;
    if (s.ieee_nan == octet::IeeeNanCode::AllOnes) payload = (1u << f_.M) - 1u;
    if (s.ieee_nan == octet::IeeeNanCode::Payload)
      payload = quiet | std::uint32_t((std::bit_cast<std::uint64_t>(x) >> (52 - f_.M)) & ((1u << f_.M) - 1u));
    return sign | f_.inf_code | payload;
  }
  std::uint32_t with_sign(std::uint32_t mag, bool negative) const {
    if (f_.specials == Specials::Fnuz && mag == 0) return 0u;  // no -0
    return (negative ? f_.sign_bit() : 0u) | mag;
  }
  // Inf input, or an overflow that is not saturated: Inf, else NaN with the sign, else max.
  std::uint32_t infinite_result(bool negative) const {
    const std::uint32_t sign = negative ? f_.sign_bit() : 0u;
    switch (f_.specials) {
      case Specials::Ieee: return sign | f_.inf_code;
      case Specials::Fn: return sign | f_.nan_code;
      case Specials::Fnuz: return f_.nan_code;
      case Specials::E8m0: return f_.nan_code;
      case Specials::None: return sign | f_.max_code;
    }
    return 0;
  }
  std::uint32_t overflow_result(const octet::CastSpec& s, bool negative) const {
    using octet::Rounding;
    const std::uint32_t sign = negative ? f_.sign_bit() : 0u;
    switch (s.overflow) {
      case octet::Overflow::SatFinite:
      case octet::Overflow::SatFiniteOnly: return sign | f_.max_code;
      case octet::Overflow::CompareBeforeRound:
      case octet::Overflow::NonSat: return infinite_result(negative);
      case octet::Overflow::Ieee: {
        const bool toward_max = s.rounding == Rounding::TowardZero ||
                                (s.rounding == Rounding::TowardPositive && negative) ||
                                (s.rounding == Rounding::TowardNegative && !negative);
        return toward_max ? (sign | f_.max_code) : infinite_result(negative);
      }
    }
    return 0;
  }

  RefFormat f_;
  std::vector<double> values_;
  double next_ = 0;
};

// One table per target format (every row of kRefFormats but the source-only fp32), built on
// first use.
inline constexpr std::size_t kRefTargetCount = kRefFormats.size() - 1;

inline const TableReference& table_reference(octet::FormatId id) {
  static const auto kTables = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<TableReference, sizeof...(I)>{TableReference(kRefFormats[I])...};
  }(std::make_index_sequence<kRefTargetCount>{});
  for (const TableReference& t : kTables)
    if (t.format().id == id) return t;
  throw std::invalid_argument("table_reference: not a target format");
}

inline std::uint32_t table_encode(octet::FormatId id, const octet::CastSpec& s, Source src, double x,
                                  std::uint32_t rbits = 0) {
  return table_reference(id).encode(s, src, x, rbits);
}

}  // namespace octet_ref
