// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
#include "common.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace octet::cli {
namespace {

template <class Range, class NameOf>
std::string join(const Range& items, NameOf name_of) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += ", ";
    out += name_of(item);
  }
  return out;
}

}  // namespace

std::string format_names(bool targets_only, bool bytes_only) {
  std::string names, dtypes;
  for (const Format& f : all_formats) {
    if (targets_only && (f.id == FormatId::fp32 || f.id == FormatId::fp64)) continue;
    if (bytes_only && f.bits() > 8) continue;
    names += (names.empty() ? "" : ", ") + std::string(name(f.id));
    dtypes += (dtypes.empty() ? "" : ", ") + std::string(dtype_name(f.id));
  }
  return names + " (or the ml_dtypes names " + dtypes + ")";
}

std::string rounding_names() { return join(kAllRoundings, [](Rounding r) { return std::string(name(r)); }); }
std::string overflow_names() { return join(kAllOverflows, [](Overflow o) { return std::string(name(o)); }); }
std::string profile_names() {
  return join(profiles(), [](const Profile& p) { return std::string(p.name); });
}

const Format& parse_format_arg(std::string_view s) {
  const auto id = parse_format(s);
  if (!id) throw UsageError("unknown format '" + std::string(s) + "'; valid: " + format_names(false, false));
  return format_of(*id);
}

const Format& parse_target_arg(std::string_view s) {
  const auto id = parse_format(s);
  if (!id) throw UsageError("unknown format '" + std::string(s) + "'; valid: " + format_names(true, false));
  if (*id == FormatId::fp32 || *id == FormatId::fp64)
    throw UsageError("format '" + std::string(s) + "' is a source only, not a cast target; valid: " +
                     format_names(true, false));
  return format_of(*id);
}

const Format& parse_sweep_target_arg(std::string_view s) {
  const auto id = parse_format(s);
  if (!id) throw UsageError("unknown format '" + std::string(s) + "'; valid: " + format_names(true, true));
  const Format& f = format_of(*id);
  if (f.bits() > 8)
    throw UsageError("sweep: format '" + std::string(s) + "' has " + std::to_string(f.bits()) +
                     " bits; the fp32 sweep writes one byte per input, so it takes targets of at most 8 bits; valid: " +
                     format_names(true, true));
  return f;
}

SourceType parse_source_arg(std::string_view s) {
  if (const auto t = parse_source(s)) return *t;
  // Also the ml_dtypes spellings float32 / float64 / bfloat16 / float16.
  if (const auto id = parse_format(s)) {
    switch (*id) {
      case FormatId::fp32: return SourceType::fp32;
      case FormatId::fp64: return SourceType::fp64;
      case FormatId::bf16: return SourceType::bf16;
      case FormatId::fp16: return SourceType::fp16;
      default: break;
    }
  }
  throw UsageError("unknown source type '" + std::string(s) + "'; valid: fp32, fp64, bf16, fp16");
}

const Profile& parse_profile_arg(std::string_view s) {
  if (const Profile* p = find_profile(s)) return *p;
  throw UsageError("unknown profile '" + std::string(s) + "'; valid: " + profile_names());
}

Rounding parse_rounding_arg(std::string_view s) {
  if (const auto r = parse_rounding(s)) return *r;
  throw UsageError("unknown rounding '" + std::string(s) + "'; valid: " + rounding_names());
}

Overflow parse_overflow_arg(std::string_view s) {
  if (const auto o = parse_overflow(s)) return *o;
  throw UsageError("unknown overflow policy '" + std::string(s) + "'; valid: " + overflow_names());
}

CastSpec effective_spec(const Profile& profile, const Format& f, SourceType src, std::string_view rounding,
                        std::string_view overflow) {
  CastSpec spec = profile.spec_for(f.id, src);
  if (!rounding.empty()) spec.rounding = parse_rounding_arg(rounding);
  if (!overflow.empty()) spec.overflow = parse_overflow_arg(overflow);
  return spec;
}

std::uint64_t parse_uint(std::string_view s, std::uint64_t max, std::string_view what) {
  const std::string text(s);
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (s.empty() || ec == std::errc::invalid_argument || end != s.data() + s.size())
    throw UsageError("malformed " + std::string(what) + " '" + text +
                     "'; expected an unsigned integer in hex (0x7e) or decimal (126)");
  if (ec == std::errc::result_out_of_range || v > max)
    throw UsageError(std::string(what) + " '" + text + "' is out of range; valid: 0.." + std::to_string(max) +
                     " (0x0.." + hex_code(max, 0) + ")");
  return v;
}

std::string format_double(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  // Shortest round-trip form: every value of an 8- or 16-bit format prints exactly.
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

std::string hex_code(std::uint64_t code, int bits) {
  const int digits = bits <= 8 ? 2 : (bits + 3) / 4;
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%0*llx", digits, static_cast<unsigned long long>(code));
  return buf;
}

std::string render_table(const std::vector<std::vector<std::string>>& rows, std::string_view indent) {
  std::vector<std::size_t> width;
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (width.size() <= c) width.push_back(0);
      width[c] = std::max(width[c], row[c].size());
    }
  std::string out;
  for (const auto& row : rows) {
    std::string line(indent);
    for (std::size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) line += std::string(width[c] - row[c].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace octet::cli
