// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// octet formats [--json] — every format octet knows: field widths, bias, limits, special codes.
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "commands/commands.hpp"
#include "common.hpp"
#include "json.hpp"
#include "octet/format.hpp"

namespace octet::cli {
namespace {

struct FormatFacts {
  double max, min_normal, min_subnormal;
  std::vector<std::uint64_t> nan_codes;  // every NaN code up to 8 bits; the quiet pair beyond
  std::uint64_t nan_code_count;
  std::string inf_text, nan_text;        // for the table: codes, or ranges a..b; "-" for none
};

// "0x7d..0x7f 0xfd..0xff": consecutive codes as ranges.
std::string ranges_text(std::uint64_t first_lo, std::uint64_t first_hi, std::uint64_t second_lo,
                        std::uint64_t second_hi, int bits) {
  const auto range = [&](std::uint64_t lo, std::uint64_t hi) {
    return lo == hi ? hex_code(lo, bits) : hex_code(lo, bits) + ".." + hex_code(hi, bits);
  };
  return range(first_lo, first_hi) + " " + range(second_lo, second_hi);
}

FormatFacts facts_of(const Format& f) {
  FormatFacts x{};
  const int bits = f.bits(), E = f.exponent_bits, M = f.mantissa_bits;
  // format.hpp's code helpers work on 32-bit codes; the sources fp32 / fp64 are described here
  // with 64-bit arithmetic and <limits>, which give the same IEEE numbers.
  if (bits <= 16) {
    x.max = max_finite(f);
    x.min_normal = min_normal(f);
    x.min_subnormal = min_subnormal(f);
  } else if (f.id == FormatId::fp32) {
    x.max = std::numeric_limits<float>::max();
    x.min_normal = std::numeric_limits<float>::min();
    x.min_subnormal = std::numeric_limits<float>::denorm_min();
  } else {
    x.max = std::numeric_limits<double>::max();
    x.min_normal = std::numeric_limits<double>::min();
    x.min_subnormal = std::numeric_limits<double>::denorm_min();
  }
  const std::uint64_t sign = f.is_signed ? std::uint64_t(1) << (bits - 1) : 0;
  const std::uint64_t inf = ((std::uint64_t(1) << E) - 1) << M;
  const std::uint64_t mantissa_mask = (std::uint64_t(1) << M) - 1;
  x.inf_text = f.has_inf ? hex_code(inf, bits).append(" ").append(hex_code(sign | inf, bits)) : std::string(1, '-');
  if (bits <= 8) {
    for (std::uint32_t c = 0; c < f.code_count(); ++c)
      if (f.is_nan(c)) x.nan_codes.push_back(c);
    x.nan_code_count = x.nan_codes.size();
    std::string text;
    for (std::size_t i = 0; i < x.nan_codes.size();) {
      std::size_t j = i;
      while (j + 1 < x.nan_codes.size() && x.nan_codes[j + 1] == x.nan_codes[j] + 1) ++j;
      if (!text.empty()) text += ' ';
      text += hex_code(x.nan_codes[i], bits);
      if (j > i) text.append("..").append(hex_code(x.nan_codes[j], bits));
      i = j + 1;
    }
    x.nan_text = text.empty() ? std::string(1, '-') : text;
  } else {  // IEEE-style (bf16, fp16, fp32, fp64): exponent all ones, mantissa nonzero
    const std::uint64_t quiet = inf | (std::uint64_t(1) << (M - 1));
    x.nan_codes = {quiet, sign | quiet};
    x.nan_code_count = 2 * mantissa_mask;
    x.nan_text = ranges_text(inf + 1, inf | mantissa_mask, sign | (inf + 1), sign | inf | mantissa_mask, bits);
  }
  return x;
}

}  // namespace

void print_format_table() {
  std::vector<std::vector<std::string>> rows{
      {"format", "dtype", "bits", "E", "M", "bias", "max", "min normal", "min subnormal", "Inf", "NaN"}};
  for (const Format& f : all_formats) {
    const FormatFacts x = facts_of(f);
    rows.push_back({std::string(name(f.id)), std::string(dtype_name(f.id)), std::to_string(f.bits()),
                    std::to_string(f.exponent_bits), std::to_string(f.mantissa_bits), std::to_string(f.bias),
                    format_double(x.max), format_double(x.min_normal), format_double(x.min_subnormal),
                    x.inf_text, x.nan_text});
  }
  std::printf("%s", render_table(rows).c_str());
  std::printf("(e8m0fnu has no zero and no subnormals, so its smallest value 2^-127 is normal; the fp6 and\n"
              " fp4 formats have neither Inf nor NaN; fp32 and fp64 are cast sources only)\n");
}

int run_formats(const FormatsOptions& o) {
  if (!o.json) {
    print_format_table();
    return 0;
  }
  std::vector<std::string> objects;
  for (const Format& f : all_formats) {
    const FormatFacts x = facts_of(f);
    std::vector<std::string> nan_codes;
    for (const std::uint64_t c : x.nan_codes) nan_codes.push_back(json::quote(hex_code(c, f.bits())));
    json::Object obj;
    obj.str("name", name(f.id))
        .raw("bits", json::number(f.bits()))
        .raw("exponent_bits", json::number(int(f.exponent_bits)))
        .raw("mantissa_bits", json::number(int(f.mantissa_bits)))
        .raw("bias", json::number(int(f.bias)))
        .raw("max", json::number(x.max))
        .raw("min_normal", json::number(x.min_normal))
        .raw("min_subnormal", json::number(x.min_subnormal))
        .raw("has_inf", json::boolean(f.has_inf))
        .raw("nan_codes", json::array_inline(nan_codes))
        .raw("nan_code_count", json::number(x.nan_code_count));
    objects.push_back(obj.dump());
  }
  std::printf("%s\n", json::array_lines(objects).c_str());
  return 0;
}

}  // namespace octet::cli
