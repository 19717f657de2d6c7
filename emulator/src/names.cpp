// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
#include <array>
#include <string_view>

#include "octet/cast.hpp"

namespace octet {
namespace {
struct FormatNames { std::string_view name, dtype; };
constexpr std::array<FormatNames, 12> kFormatNames{{
    {"e4m3fn", "float8_e4m3fn"},   {"e4m3fnuz", "float8_e4m3fnuz"}, {"e5m2", "float8_e5m2"},
    {"e5m2fnuz", "float8_e5m2fnuz"}, {"e8m0fnu", "float8_e8m0fnu"}, {"e2m3fn", "float6_e2m3fn"},
    {"e3m2fn", "float6_e3m2fn"},   {"e2m1fn", "float4_e2m1fn"},     {"bf16", "bfloat16"},
    {"fp16", "float16"},           {"fp32", "float32"},             {"fp64", "float64"},
}};
}  // namespace

std::string_view name(FormatId id) { return kFormatNames[std::size_t(id)].name; }
std::string_view dtype_name(FormatId id) { return kFormatNames[std::size_t(id)].dtype; }

std::optional<FormatId> parse_format(std::string_view s) {
  for (std::size_t i = 0; i < kFormatNames.size(); ++i)
    if (s == kFormatNames[i].name || s == kFormatNames[i].dtype) return FormatId(i);
  return std::nullopt;
}

std::string_view name(ValueClass c) {
  constexpr std::array<std::string_view, 5> k{"zero", "subnormal", "normal", "inf", "nan"};
  return k[std::size_t(c)];
}

std::string_view name(Rounding r) {
  constexpr std::array<std::string_view, 7> k{"rne", "rna", "rtz", "ru", "rd", "rto", "sr"};
  return k[std::size_t(r)];
}

std::string_view name(Overflow o) {
  constexpr std::array<std::string_view, 5> k{"satfinite", "ieee", "satfinite-only", "compare-before-round", "nonsat"};
  return k[std::size_t(o)];
}

std::string_view name(SourceType t) {
  constexpr std::array<std::string_view, 4> k{"fp32", "fp64", "bf16", "fp16"};
  return k[std::size_t(t)];
}

std::optional<SourceType> parse_source(std::string_view s) {
  constexpr std::array<std::string_view, 4> k_dtype{"float32", "float64", "bfloat16", "float16"};
  for (int i = 0; i < 4; ++i)
    if (s == name(SourceType(i)) || s == k_dtype[std::size_t(i)]) return SourceType(i);
  return std::nullopt;
}

}  // namespace octet

namespace octet {
std::optional<Rounding> parse_rounding(std::string_view s) {
  for (const Rounding r : kAllRoundings)
    if (s == name(r)) return r;
  return std::nullopt;
}
std::optional<Overflow> parse_overflow(std::string_view s) {
  for (const Overflow o : kAllOverflows)
    if (s == name(o)) return o;
  return std::nullopt;
}
}  // namespace octet
