// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// octet cast --format F [--from S] [--rounding R] [--overflow O] [--profile P] [--random-bits U32]
//            [--json] VALUE... — each VALUE through octet's array API, one result line per value.
#include <cctype>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "commands/commands.hpp"
#include "common.hpp"
#include "json.hpp"
#include "octet/cast.hpp"
#include "octet/profile.hpp"
#include "value_parser.hpp"

namespace octet::cli {

int run_cast(const CastOptions& o) {
  const Format& f = parse_target_arg(o.format);
  const SourceType src = parse_source_arg(o.from);
  const CastSpec spec = effective_spec(parse_profile_arg(o.profile), f, src, o.rounding, o.overflow);
  const bool have_rbits = !o.random_bits.empty();
  const std::uint32_t rbits = have_rbits ? std::uint32_t(parse_uint(o.random_bits, 0xFFFFFFFFu, "--random-bits")) : 0;
  if (spec.rounding == Rounding::Stochastic && !have_rbits)
    throw UsageError("--rounding sr needs --random-bits U32 (one 32-bit word, used for every value)");
  if (spec.rounding != Rounding::Stochastic && have_rbits)
    std::fprintf(stderr, "octet: note: --random-bits is read only under --rounding sr; ignored\n");

  std::vector<SourceValue> inputs;
  for (const std::string& token : o.values) {
    if (token == "--") continue;  // CLI11 may hand the end-of-options marker through
    try {
      inputs.push_back(parse_value(token, src));
    } catch (const UsageError&) {
      // A leftover "--name" or "-x" is a mistyped option rather than a malformed number.
      if (token.size() > 1 && token[0] == '-' && (token[1] == '-' || std::isalpha(static_cast<unsigned char>(token[1]))))
        throw UsageError("cast: unknown option '" + token + "' (see octet cast --help)");
      throw;
    }
  }
  if (inputs.empty())
    throw UsageError("cast: no VALUE given; e.g. octet cast --format e4m3fn 448 -1e-3 0x1.8p+3 nan bits:0x7f800001");

  // One call of the type-erased array API: n source values in, n codes out.
  const std::size_t n = inputs.size(), in_size = size_of(src), out_size = f.bits() > 8 ? 2 : 1;
  std::vector<unsigned char> in(n * in_size), out(n * out_size);
  for (std::size_t i = 0; i < n; ++i) std::memcpy(&in[i * in_size], &inputs[i].bits, in_size);  // little-endian
  const std::vector<std::uint32_t> rbits_n(n, rbits);
  cast(src, in.data(), n, f, spec, out.data(), spec.rounding == Rounding::Stochastic ? rbits_n.data() : nullptr);

  std::vector<std::string> objects;
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t code = 0;
    std::memcpy(&code, &out[i * out_size], out_size);
    const double value = decode(f, code);
    const std::string input_bits = hex_code(inputs[i].bits, source_bits_width(src));
    const std::string class_name(name(f.classify(code)));
    if (o.json) {
      objects.push_back(json::Object()
                            .str("input", inputs[i].text)
                            .str("input_bits", input_bits)
                            .str("code", hex_code(code, f.bits()))
                            .raw("value", json::number_or_special(value))
                            .str("class", class_name)
                            .dump());
    } else {
      rows.push_back({inputs[i].text, input_bits, "->", hex_code(code, f.bits()), format_double(value), class_name});
    }
  }
  if (o.json)
    std::printf("%s\n", json::array_lines(objects).c_str());
  else
    std::printf("%s", render_table(rows).c_str());
  return 0;
}

}  // namespace octet::cli
