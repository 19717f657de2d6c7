// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// octet decode --format F [--json] [CODE...] — code to exact value and class. Without CODE, every
// code of a format of at most 8 bits.
#include <bit>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "commands/commands.hpp"
#include "common.hpp"
#include "json.hpp"
#include "octet/format.hpp"

namespace octet::cli {
namespace {

struct Decoded {
  double value;
  std::string_view class_name;
};

Decoded decode_any(const Format& f, std::uint64_t code) {
  if (f.bits() <= 16) return {decode(f, std::uint32_t(code)), name(f.classify(std::uint32_t(code)))};
  // fp32 / fp64: format.hpp's helpers take 32-bit codes, so read the bits as the C++ types.
  const double v = f.id == FormatId::fp32 ? double(std::bit_cast<float>(std::uint32_t(code)))
                                          : std::bit_cast<double>(code);
  const bool subnormal = f.id == FormatId::fp32 ? std::fpclassify(float(v)) == FP_SUBNORMAL
                                                : std::fpclassify(v) == FP_SUBNORMAL;
  const ValueClass c = std::isnan(v) ? ValueClass::nan
                       : std::isinf(v) ? ValueClass::inf
                       : v == 0        ? ValueClass::zero
                       : subnormal     ? ValueClass::subnormal
                                       : ValueClass::normal;
  return {v, name(c)};
}

}  // namespace

int run_decode(const DecodeOptions& o) {
  const Format& f = parse_format_arg(o.format);
  const int bits = f.bits();
  const std::uint64_t max_code = bits == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << bits) - 1;
  std::vector<std::uint64_t> codes;
  if (o.codes.empty()) {
    if (bits > 8)
      throw UsageError("decode: give CODE... for " + std::string(name(f.id)) +
                       " (every code is listed only for formats of at most 8 bits)");
    for (std::uint64_t c = 0; c <= max_code; ++c) codes.push_back(c);
  }
  for (const std::string& s : o.codes)
    codes.push_back(parse_uint(s, max_code, std::string(name(f.id)) + " code"));

  std::vector<std::string> objects;
  std::vector<std::vector<std::string>> rows;
  for (const std::uint64_t c : codes) {
    const Decoded d = decode_any(f, c);
    if (o.json)
      objects.push_back(json::Object()
                            .str("code", hex_code(c, bits))
                            .raw("value", json::number_or_special(d.value))
                            .str("class", d.class_name)
                            .dump());
    else
      rows.push_back({hex_code(c, bits), format_double(d.value), std::string(d.class_name)});
  }
  if (o.json)
    std::printf("%s\n", json::array_lines(objects).c_str());
  else
    std::printf("%s", render_table(rows).c_str());
  return 0;
}

}  // namespace octet::cli
