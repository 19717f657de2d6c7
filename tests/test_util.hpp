// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// test_util.hpp — shared helpers: readable names for the policy enums, the lists the suites
// sweep over, and a mismatch log whose report explains itself (index, input bits and value, both
// codes in hex with their values decoded by the reference decoder, the spec).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "octet/cast.hpp"
#include "reference/ref_format.hpp"

namespace octet_test {

using octet::CastSpec;
using octet::FormatId;
using octet::NanlessNan;
using octet::NanPolicy;
using octet::Overflow;
using octet::Rounding;
using octet::Subnormals;
using octet::UnsignedNegative;
using octet::UnsignedZero;

using octet::kAllOverflows;
using octet::kAllRoundings;
inline constexpr std::array<Rounding, 6> kDeterministicRoundings{
    Rounding::NearestEven,    Rounding::NearestAway, Rounding::TowardZero, Rounding::TowardPositive,
    Rounding::TowardNegative, Rounding::ToOdd};
inline constexpr std::array<NanPolicy, 3> kAllNanPolicies{NanPolicy::KeepSign, NanPolicy::Canonical,
                                                          NanPolicy::ToMax};

// The formats a cast can target, in octet's FormatId order.
inline constexpr std::array<FormatId, 10> kTargets{
    FormatId::e4m3fn, FormatId::e4m3fnuz, FormatId::e5m2,   FormatId::e5m2fnuz, FormatId::e8m0fnu,
    FormatId::e2m3fn, FormatId::e3m2fn,   FormatId::e2m1fn, FormatId::bf16,     FormatId::fp16};

// Own spellings, so that a test's name does not depend on octet's name tables.
inline const char* rounding_name(Rounding r) {
  constexpr std::array<const char*, 7> k{"rne", "rna", "rtz", "ru", "rd", "rto", "sr"};
  return k[std::size_t(r)];
}
inline const char* overflow_name(Overflow o) {
  constexpr std::array<const char*, 5> k{"satfinite", "ieee", "satfiniteonly", "comparebeforeround", "nonsat"};
  return k[std::size_t(o)];
}

inline std::string spec_name(const CastSpec& s) {
  std::string out = std::string(rounding_name(s.rounding)) + " " + overflow_name(s.overflow);
  out += s.nan == NanPolicy::KeepSign ? " nan=keep-sign" : s.nan == NanPolicy::Canonical ? " nan=canonical" : " nan=to-max";
  if (s.ieee_nan == octet::IeeeNanCode::AllOnes) out += " ieee_nan=all-ones";
  if (s.ieee_nan == octet::IeeeNanCode::Payload) out += " ieee_nan=payload";
  if (s.ties_to_even_code) out += " ties=even-code";
  if (s.e8m0_subnormal_above_min_rounds_up) out += " e8m0_subnormal_rule";
  if (s.nanless_nan == NanlessNan::NegZero) out += " nanless=neg-zero";
  if (s.subnormals == Subnormals::Flush) out += " subnormals=flush";
  if (s.unsigned_negative != UnsignedNegative::Nan)
    out += s.unsigned_negative == UnsignedNegative::Abs ? " neg=abs" : " neg=min";
  if (s.unsigned_zero != UnsignedZero::Min) out += " zero=nan";
  if (s.rounding == Rounding::Stochastic) out += " sr_bits=" + std::to_string(int(s.sr.bits));
  return out;
}

inline std::string hex(std::uint64_t v, int digits) {
  std::string out = "0x";
  for (int i = digits - 1; i >= 0; --i) out += "0123456789ABCDEF"[(v >> (4 * i)) & 0xF];
  return out;
}

inline std::string value_str(double v) {
  if (std::isnan(v)) return std::signbit(v) ? "-NaN" : "NaN";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// "0x7E (448)" with the value from the reference decoder.
inline std::string code_str(const octet_ref::RefFormat& f, std::uint32_t code) {
  return hex(code, (f.bits + 3) / 4) + " (" + value_str(octet_ref::ref_decode(f, code)) + ")";
}

// Hex digits of a source's bit pattern.
inline int input_digits(octet::SourceType t) { return int(2 * octet::size_of(t)); }

// Collects mismatches from any number of threads; keeps the 10 with the smallest index.
class MismatchLog {
 public:
  static constexpr std::size_t kShown = 10;
  struct Entry {
    std::uint64_t index;
    std::uint64_t input_bits;
    int input_digits;
    double input;
    std::uint32_t want, got;
  };

  void add(const Entry& e) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++count_;
    if (first_.size() < kShown || e.index < first_.back().index) {
      first_.insert(std::upper_bound(first_.begin(), first_.end(), e,
                                     [](const Entry& a, const Entry& b) { return a.index < b.index; }),
                    e);
      if (first_.size() > kShown) first_.pop_back();
    }
  }
  std::uint64_t count() const { return count_; }
  bool empty() const { return count_ == 0; }

  // A failure message: "<context>: N mismatches; first ones:" and one line per entry.
  std::string report(const octet_ref::RefFormat& f, const std::string& context) const {
    std::string out = context + ": " + std::to_string(count_) + " mismatch(es) [" + std::string(f.name) + "]";
    for (const Entry& e : first_)
      out += "\n  at " + std::to_string(e.index) + ": input " + hex(e.input_bits, e.input_digits) + " (" +
             value_str(e.input) + "): got " + code_str(f, e.got) + " want " + code_str(f, e.want);
    return out;
  }

 private:
  std::mutex mutex_;
  std::uint64_t count_ = 0;
  std::vector<Entry> first_;
};

}  // namespace octet_test
