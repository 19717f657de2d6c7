// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
#include "value_parser.hpp"

#include <bit>
#include <cctype>
#include <cfenv>
#include <cmath>
#include <cstdlib>
#include <string>

#include "common.hpp"

namespace octet::cli {
namespace {

[[noreturn]] void malformed(std::string_view text, SourceType type) {
  throw UsageError("malformed value '" + std::string(text) +
                   "'; expected a decimal (448, -1e-3, nan, -inf), a hex float (0x1.8p+3) or raw " +
                   std::to_string(source_bits_width(type)) + "-bit " + std::string(name(type)) +
                   " bits (bits:0x...)");
}

// strtod / strtof over the whole token: no leading blanks, nothing left over.
template <class T>
bool parse_whole(const std::string& s, T (*fn)(const char*, char**), T& out) {
  if (s.empty() || std::isspace(static_cast<unsigned char>(s[0]))) return false;
  char* end = nullptr;
  out = fn(s.c_str(), &end);  // ERANGE is fine: overflow gives Inf, underflow the rounded tiny
  return end == s.c_str() + s.size();
}

// The decimal rounded to odd in double: toward zero, with the last bit set when inexact. One more
// rounding to a format of at most 51 significant bits (bf16: 8, fp16: 11) is then correct, where
// decimal -> nearest double -> nearest bf16 would round twice (1.00390625000000000001 is above the
// bf16 midpoint 1 + 2^-8, but its nearest double is the midpoint itself, a tie that goes down).
// glibc's strtod honours the current rounding mode; the two directed parses bracket the value.
bool parse_round_to_odd(const std::string& s, double& out) {
  const int saved = std::fegetround();
  double down = 0, up = 0;
  std::fesetround(FE_DOWNWARD);
  const bool ok = parse_whole<double>(s, std::strtod, down);
  std::fesetround(FE_UPWARD);
  parse_whole<double>(s, std::strtod, up);
  std::fesetround(saved);
  if (!ok) return false;
  if (std::isnan(down) || down == up) {
    out = down;
    return true;
  }
  // Inexact: down and up are neighbours, exactly one with an odd last bit. Past the double range
  // they are +-DBL_MAX (odd) and +-Inf (even), so an overflow keeps +-DBL_MAX and still rounds
  // to Inf in bf16 / fp16.
  out = (std::bit_cast<std::uint64_t>(down) & 1) ? down : up;
  return true;
}

}  // namespace

SourceValue parse_value(std::string_view text, SourceType type) {
  const std::string s(text);
  const int width = source_bits_width(type);
  if (s.rfind("bits:", 0) == 0) {
    const std::uint64_t max = width == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << width) - 1;
    const std::uint64_t bits =
        parse_uint(std::string_view(s).substr(5), max, std::to_string(width) + "-bit " + std::string(name(type)) + " bits");
    return {s, type, bits};
  }
  switch (type) {
    case SourceType::fp32: {
      float f = 0;  // strtof rounds the decimal once, straight to float
      if (!parse_whole<float>(s, std::strtof, f)) malformed(text, type);
      return {s, type, std::bit_cast<std::uint32_t>(f)};
    }
    case SourceType::fp64: {
      double d = 0;
      if (!parse_whole<double>(s, std::strtod, d)) malformed(text, type);
      return {s, type, std::bit_cast<std::uint64_t>(d)};
    }
    case SourceType::bf16:
    case SourceType::fp16: {
      double d = 0;
      if (!parse_round_to_odd(s, d)) malformed(text, type);
      // octet's own encoder: fp64 -> bf16 / fp16, round to nearest even, IEEE overflow to Inf.
      const CastSpec rne_ieee{.rounding = Rounding::NearestEven, .overflow = Overflow::Ieee};
      const Format& f = type == SourceType::bf16 ? bf16_format : fp16_format;
      return {s, type, encode(f, rne_ieee, d)};
    }
  }
  malformed(text, type);
}

double source_to_double(SourceType type, std::uint64_t bits) {
  switch (type) {
    case SourceType::fp32: return std::bit_cast<float>(std::uint32_t(bits));
    case SourceType::fp64: return std::bit_cast<double>(bits);
    case SourceType::bf16: return std::bit_cast<float>(bf16_to_fp32_bits(std::uint16_t(bits)));
    case SourceType::fp16: return std::bit_cast<float>(fp16_to_fp32_bits(std::uint16_t(bits)));
  }
  return 0;
}

}  // namespace octet::cli
