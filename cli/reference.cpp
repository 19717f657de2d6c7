// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
#include "reference.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "common.hpp"
#include "octet/sweep.hpp"

namespace octet::cli {

// ---------------------------------------------------------------------------------------------
// Decoder, from the format definitions:
//   Ieee     exponent all ones: Inf (mantissa 0) or NaN                    e5m2, bf16, fp16
//   AllOnes  S.1111.111 is NaN, nothing is Inf                             e4m3fn, e8m0fnu
//   NegZero  1.0000.000 (the -0 pattern) is the only NaN                   e4m3fnuz, e5m2fnuz
//   None     every code is finite                                          e2m3fn, e3m2fn, e2m1fn
// Value: (2^M + mantissa) * 2^(e - bias - M) for a nonzero exponent field e, mantissa *
// 2^(1 - bias - M) for e = 0; a format without zero (e8m0fnu) has no subnormals, so its e = 0 is
// an ordinary binade.

double ref_decode(const Format& f, std::uint32_t code) {
  const int E = f.exponent_bits, M = f.mantissa_bits;
  const std::uint32_t magnitude = code & ((1u << (E + M)) - 1u);
  const bool negative = f.is_signed && ((code >> (E + M)) & 1u) != 0;
  const std::uint32_t field = magnitude >> M, mantissa = magnitude & ((1u << M) - 1u);
  const std::uint32_t all_ones = (1u << E) - 1u;
  const double sign = negative ? -1.0 : 1.0;
  switch (f.nan) {
    case NanEncoding::Ieee:
      if (field == all_ones) return mantissa == 0 ? sign * HUGE_VAL : std::copysign(NAN, sign);
      break;
    case NanEncoding::AllOnes:
      if (magnitude == (1u << (E + M)) - 1u) return std::copysign(NAN, sign);
      break;
    case NanEncoding::NegZero:
      if (negative && magnitude == 0) return -NAN;
      break;
    case NanEncoding::None: break;
  }
  if (field == 0 && f.has_zero) return sign * std::ldexp(double(mantissa), 1 - f.bias - M);
  return sign * std::ldexp(double((1u << M) + mantissa), int(field) - f.bias - M);
}

ValueClass ref_classify(const Format& f, std::uint32_t code) {
  const double v = ref_decode(f, code);
  if (std::isnan(v)) return ValueClass::nan;
  if (std::isinf(v)) return ValueClass::inf;
  if (v == 0) return ValueClass::zero;
  const int emin = f.has_zero ? 1 - f.bias : -f.bias;
  return std::fabs(v) < std::ldexp(1.0, emin) ? ValueClass::subnormal : ValueClass::normal;
}

// ---------------------------------------------------------------------------------------------
// Reference

Reference::Reference(const Format& f, const CastSpec& spec) : f_(f), s_(spec) {
  if (f.bits() > 16) throw std::invalid_argument("Reference: targets of at most 16 bits");
  const int M = f.mantissa_bits;
  const int magnitude_bits = f.exponent_bits + M;
  sign_bit_ = f.is_signed ? 1u << magnitude_bits : 0u;
  neg_zero_is_nan_ = f.is_signed && std::isnan(ref_decode(f, sign_bit_));

  std::vector<std::pair<double, std::uint32_t>> finite;
  for (std::uint32_t m = 0; m < (1u << magnitude_bits); ++m) {
    const double v = ref_decode(f, m);
    if (std::isfinite(v)) finite.emplace_back(v, m);
    if (std::isinf(v)) inf_magnitude_ = m;
  }
  std::sort(finite.begin(), finite.end());
  for (std::size_t i = 1; i < finite.size(); ++i)
    if (!(finite[i - 1].first < finite[i].first)) throw std::logic_error("Reference: duplicate values");
  virtual_zero_ = finite.front().first != 0;
  if (virtual_zero_) {
    values_.push_back(0);
    codes_.push_back(finite.front().second);
  }
  for (const auto& [v, m] : finite) {
    values_.push_back(v);
    codes_.push_back(m);
  }
  const double max = values_.back();
  max_code_ = codes_.back();
  const int emin = f.has_zero ? 1 - f.bias : -f.bias;
  min_normal_ = std::ldexp(1.0, emin);
  // Overflow point: max plus the quantum of max's binade.
  values_.push_back(max + std::ldexp(1.0, std::ilogb(max) - M));
  codes_.push_back(0);
  n_ = int(values_.size()) - 1;

  // Significand parity in units of the value's own quantum 2^(max(exponent, emin) - M). With no
  // mantissa bits (e8m0fnu) every nonzero significand is 1, odd: RNE ties then go up, which is
  // the significand-parity rule; they never land on an "even" code.
  for (const double v : values_) {
    if (v == 0) {
      odd_.push_back(false);
      continue;
    }
    const double sig = std::ldexp(v, -(std::max(std::ilogb(v), emin) - M));
    odd_.push_back(std::fmod(sig, 2.0) == 1.0);
  }
  // ties_to_even_code: RNE ties go to the even code instead. Where M >= 1 that is the same thing
  // (the code's LSB is the mantissa's); where M = 0 it is the parity of the exponent field.
  tie_odd_ = odd_;
  if (s_.ties_to_even_code)
    for (int i = 0; i < n_; ++i) tie_odd_[std::size_t(i)] = !(virtual_zero_ && i == 0) && (codes_[std::size_t(i)] & 1u) != 0;
}

int Reference::floor_index(double magnitude) const {
  if (s_.overflow == Overflow::CompareBeforeRound && magnitude > values_[n_ - 1]) return n_;
  if (magnitude >= values_[n_]) return n_;  // every rounding of this overflows
  const auto it = std::upper_bound(values_.begin(), values_.begin() + n_, magnitude);
  return int(it - values_.begin()) - 1;
}

int Reference::round_index(double magnitude, bool negative) const {
  const int i = floor_index(magnitude);
  if (i == n_ || values_[i] == magnitude) return i;
  const double lo = values_[i], hi = values_[i + 1];
  const double mid = (lo + hi) / 2;  // exact: both are short dyadic numbers
  switch (s_.rounding) {
    case Rounding::NearestEven:
      return magnitude < mid ? i : magnitude > mid ? i + 1 : (tie_odd_[i] ? i + 1 : i);
    case Rounding::NearestAway: return magnitude < mid ? i : i + 1;
    case Rounding::TowardZero: return i;
    case Rounding::TowardPositive: return negative ? i : i + 1;
    case Rounding::TowardNegative: return negative ? i + 1 : i;
    case Rounding::ToOdd: return odd_[i] ? i : i + 1;
    case Rounding::Stochastic: break;
  }
  throw std::logic_error("Reference::round_index: stochastic rounding needs random bits");
}

// Stochastic rounding, cast.hpp's rule: f = (|x| - lo) / (hi - lo), F = floor(f * 2^k), and the
// magnitude goes up iff F + (rbits mod 2^k) >= 2^k. hi - lo is a power of two and |x| - lo has at
// most 24 significant bits, so F is exact.
int Reference::sr_index(int i, double magnitude, std::uint32_t rbits) const {
  if (i == n_ || values_[i] == magnitude) return i;
  const int k = s_.sr.bits != 0 ? s_.sr.bits : 23 - f_.mantissa_bits;
  const double F = std::floor((magnitude - values_[i]) / (values_[i + 1] - values_[i]) * std::ldexp(1.0, k));
  const std::uint64_t R = std::uint64_t(rbits) & ((std::uint64_t(1) << k) - 1);
  return std::uint64_t(F) + R >= (std::uint64_t(1) << k) ? i + 1 : i;
}

bool Reference::finite_overflow_to_max(bool negative) const {
  switch (s_.overflow) {
    case Overflow::SatFinite:
    case Overflow::SatFiniteOnly: return true;
    case Overflow::CompareBeforeRound:
    case Overflow::NonSat: return false;  // no directed-rounding exception
    case Overflow::Ieee:
      // IEEE 754 §7.4: directed roundings that point away from this sign's infinity give max.
      return s_.rounding == Rounding::TowardZero || (s_.rounding == Rounding::TowardPositive && negative) ||
             (s_.rounding == Rounding::TowardNegative && !negative);
  }
  return false;
}

std::uint32_t Reference::nan_code(bool negative) const {
  const std::uint32_t sign = negative ? sign_bit_ : 0u;
  switch (f_.nan) {
    case NanEncoding::Ieee: return sign | inf_magnitude_ | (1u << (f_.mantissa_bits - 1));  // quiet
    case NanEncoding::AllOnes: return sign | ((1u << (f_.exponent_bits + f_.mantissa_bits)) - 1u);
    case NanEncoding::NegZero: return sign_bit_;  // the only NaN
    case NanEncoding::None: break;
  }
  throw std::logic_error("Reference::nan_code: the format has no NaN");
}

std::uint32_t Reference::overflow_code(bool negative, bool to_max) const {
  const std::uint32_t sign = negative ? sign_bit_ : 0u;
  if (to_max || (!f_.has_inf && f_.nan == NanEncoding::None)) return sign | max_code_;
  if (f_.has_inf) return sign | inf_magnitude_;
  return nan_code(negative);
}

std::uint32_t Reference::code_for(int index, bool negative) const {
  if (index == n_) return overflow_code(negative, finite_overflow_to_max(negative));
  std::uint32_t magnitude = codes_[std::size_t(index)];
  const double v = values_[std::size_t(index)];
  if (s_.subnormals == Subnormals::Flush && !virtual_zero_ && v > 0 && v < min_normal_)
    magnitude = codes_[0];  // a zero of the same sign
  if (!negative || (magnitude == codes_[0] && !virtual_zero_ && neg_zero_is_nan_)) return magnitude;
  return sign_bit_ | magnitude;
}

std::uint32_t Reference::sr_code(int floor, bool negative, double magnitude, std::uint32_t rbits) const {
  return code_for(sr_index(floor, magnitude, rbits), negative);
}

std::uint32_t Reference::encode(std::uint32_t x, std::uint32_t rbits) const {
  bool negative = (x >> 31) != 0;
  const std::uint32_t field = (x >> 23) & 0xFFu, mantissa = x & 0x7FFFFFu;
  if (field == 0xFF && mantissa != 0) {  // NaN
    if (s_.nan == NanPolicy::ToMax) return (negative ? sign_bit_ : 0u) | max_code_;
    const bool nan_negative = s_.nan == NanPolicy::KeepSign && negative;
    if (f_.nan == NanEncoding::Ieee) {  // exponent all ones; the nonzero mantissa per ieee_nan
      const int M = f_.mantissa_bits;
      const std::uint32_t quiet = 1u << (M - 1);
      const std::uint32_t m = s_.ieee_nan == IeeeNanCode::Quiet     ? quiet
                              : s_.ieee_nan == IeeeNanCode::AllOnes ? (1u << M) - 1u
                                                                    : quiet | (mantissa >> (23 - M));  // payload
      return (nan_negative ? sign_bit_ : 0u) | inf_magnitude_ | m;
    }
    if (f_.nan != NanEncoding::None) return nan_code(nan_negative);
    if (s_.nanless_nan == NanlessNan::PositiveMax) return max_code_;
    return negative ? codes_[0] : sign_bit_;  // ml_dtypes: -(the sign-only code)
  }
  if (field == 0 && mantissa == 0) {  // -0 is a zero: the zero rule before the negative-input rule
    if (virtual_zero_) return s_.unsigned_zero == UnsignedZero::Min ? codes_[0] : nan_code(false);
    return code_for(0, negative && f_.is_signed);
  }
  if (negative && !f_.is_signed) {  // decides -Inf too
    switch (s_.unsigned_negative) {
      case UnsignedNegative::Nan: return nan_code(false);
      case UnsignedNegative::Min: return codes_[0];
      case UnsignedNegative::Abs: negative = false; break;
    }
  }
  if (field == 0xFF) return overflow_code(negative, s_.overflow == Overflow::SatFinite);  // Inf
  // e8m0_subnormal_above_min_rounds_up: an fp32 subnormal gives 2^-126 iff |x| > 2^-127, else
  // 2^-127, whatever the rounding mode.
  if (field == 0 && mantissa != 0 && virtual_zero_ && s_.e8m0_subnormal_above_min_rounds_up)
    return std::fabs(double(std::bit_cast<float>(x))) > values_[1] ? codes_[2] : codes_[1];
  const double magnitude = std::fabs(double(std::bit_cast<float>(x)));
  if (s_.rounding == Rounding::Stochastic) return sr_code(floor_index(magnitude), negative, magnitude, rbits);
  return code_for(round_index(magnitude, negative), negative);
}

std::vector<Reference::Interval> Reference::intervals() const {
  std::vector<Interval> out;
  const bool sr = s_.rounding == Rounding::Stochastic;
  const auto constant = [&](std::uint32_t first, std::uint32_t last) {
    out.push_back({first, last, encode(first), -1, false});
  };
  // Splits [lo, hi] into the runs of equal key(p); key must be non-decreasing on [lo, hi].
  const auto walk = [&](std::uint32_t lo, std::uint32_t hi, auto key, auto emit) {
    for (std::uint32_t start = lo;;) {
      const auto k = key(start);
      std::uint32_t a = start, b = hi;  // the last pattern with key k, by binary search
      while (a < b) {
        const std::uint32_t mid = a + (b - a + 1) / 2;
        if (key(mid) == k) a = mid; else b = mid - 1;
      }
      emit(start, a, k);
      if (a == hi) break;
      start = a + 1;
    }
  };
  for (const std::uint32_t sign : {0u, 0x80000000u}) {
    constant(sign, sign);  // +-0
    std::uint32_t lo = sign | 1u;
    const std::uint32_t hi = sign | 0x7F7FFFFFu;
    if (sign != 0 && !f_.is_signed && s_.unsigned_negative != UnsignedNegative::Abs) {
      constant(lo, hi);
    } else {
      if (virtual_zero_ && s_.e8m0_subnormal_above_min_rounds_up) {  // fp32 subnormals: own rule
        walk(lo, sign | 0x007FFFFFu, [&](std::uint32_t p) { return encode(p); },
             [&](std::uint32_t a, std::uint32_t b, std::uint32_t) { constant(a, b); });
        lo = sign | 0x00800000u;
      }
      const bool negative = sign != 0 && f_.is_signed;
      walk(lo, hi,
           [&](std::uint32_t p) {
             const double magnitude = std::fabs(double(std::bit_cast<float>(p)));
             return sr ? floor_index(magnitude) : round_index(magnitude, negative);
           },
           [&](std::uint32_t a, std::uint32_t b, int index) {
             out.push_back({a, b, sr ? 0u : code_for(index, negative), sr ? index : -1, negative});
           });
    }
    constant(sign | 0x7F800000u, sign | 0x7F800000u);  // +-Inf
    // NaN: one code per sign, except that the Payload NaN of an IEEE-style target keeps the top
    // mantissa bits; split those runs by code (the code is monotone in the payload).
    walk(sign | 0x7F800001u, sign | 0x7FFFFFFFu, [&](std::uint32_t p) { return encode(p); },
         [&](std::uint32_t a, std::uint32_t b, std::uint32_t) { constant(a, b); });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// SweepChecker

SweepChecker::SweepChecker(const Format& f, const CastSpec& spec, std::uint64_t seed)
    : f_(f), ref_(f, spec), intervals_(ref_.intervals()), seed_(seed) {
  std::uint64_t next = 0;
  for (const auto& iv : intervals_) {
    if (iv.first != next || iv.last < iv.first) throw std::logic_error("SweepChecker: intervals do not tile 2^32");
    next = std::uint64_t(iv.last) + 1;
  }
  if (next != (std::uint64_t(1) << 32)) throw std::logic_error("SweepChecker: intervals do not tile 2^32");
}

void SweepChecker::check_block(std::uint64_t first, std::span<const std::uint8_t> codes) {
  const std::uint64_t end = first + codes.size();
  auto it = std::upper_bound(intervals_.begin(), intervals_.end(), first,
                             [](std::uint64_t p, const Reference::Interval& iv) { return p < iv.first; }) - 1;
  std::uint64_t bad = 0;
  std::vector<Mismatch> local;
  const auto record = [&](std::uint64_t input, std::uint32_t got, std::uint32_t want) {
    if (local.size() < kKeep) local.push_back({std::uint32_t(input), got, want});
  };
  for (std::uint64_t p = first; p < end; ++it) {
    const Reference::Interval& iv = *it;
    const std::uint64_t stop = std::min<std::uint64_t>(std::uint64_t(iv.last) + 1, end);
    const std::uint8_t* c = codes.data() + (p - first);
    const std::size_t len = std::size_t(stop - p);
    if (iv.sr_floor < 0) {
      const std::uint8_t want = std::uint8_t(iv.code);
      std::size_t n_bad = 0;
      for (std::size_t j = 0; j < len; ++j) n_bad += c[j] != want;  // vectorises
      if (n_bad != 0) {
        bad += n_bad;
        for (std::size_t j = 0; j < len && local.size() < kKeep; ++j)
          if (c[j] != want) record(p + j, c[j], want);
      }
    } else {
      for (std::size_t j = 0; j < len; ++j) {
        const std::uint32_t input = std::uint32_t(p + j);
        const double magnitude = std::fabs(double(std::bit_cast<float>(input)));
        const std::uint32_t want = ref_.sr_code(iv.sr_floor, iv.negative, magnitude, counter_rbits(seed_, input));
        if (c[j] != want) {
          ++bad;
          record(input, c[j], want);
        }
      }
    }
    p = stop;
  }
  checked_ += codes.size();
  if (bad == 0) return;
  mismatches_ += bad;
  const std::lock_guard lock(mutex_);
  kept_.insert(kept_.end(), local.begin(), local.end());
  std::sort(kept_.begin(), kept_.end(), [](const Mismatch& a, const Mismatch& b) { return a.input < b.input; });
  if (kept_.size() > kKeep) kept_.resize(kKeep);
}

std::vector<SweepChecker::Mismatch> SweepChecker::first_mismatches() const {
  const std::lock_guard lock(mutex_);
  return kept_;
}

std::string SweepChecker::describe(const Mismatch& m) const {
  const double x = std::bit_cast<float>(m.input);
  return "mismatch at fp32 " + hex_code(m.input, 32) + " (" + format_double(x) + "): got " +
         hex_code(m.got, f_.bits()) + " (" + format_double(ref_decode(f_, m.got)) + ") want " +
         hex_code(m.want, f_.bits()) + " (" + format_double(ref_decode(f_, m.want)) + ")";
}

}  // namespace octet::cli
