// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// json.hpp — the little JSON the CLI writes: objects of scalar or preformatted members, arrays
// printed one element per line. Members keep insertion order, so output is byte-stable.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace octet::cli::json {

std::string quote(std::string_view s);  // "..." with \" \\ \n \t and \u00XX escapes
// A finite double as the shortest decimal that reads back exactly (-0 as -0.0, so that parsers
// keep the sign). Non-finite values have no JSON number: callers write "nan" / "inf" strings.
std::string number(double v);
std::string number(std::int64_t v);
std::string number(std::uint64_t v);
inline std::string number(int v) { return number(std::int64_t(v)); }
// A value that is a number when finite, else the string "nan", "inf" or "-inf".
std::string number_or_special(double v);
inline std::string boolean(bool b) { return b ? "true" : "false"; }

class Object {
 public:
  Object& raw(std::string_view key, std::string value_json);  // value already JSON
  Object& str(std::string_view key, std::string_view value) { return raw(key, quote(value)); }
  // {"a": 1, "b": "x"} on one line, or one member per line with `indent` spaces.
  std::string dump(int indent = -1) const;

 private:
  std::vector<std::pair<std::string, std::string>> members_;
};

// "[]" or "[\n  e1,\n  e2\n]": elements already JSON, one per line.
std::string array_lines(const std::vector<std::string>& elements);
// ["0x7f", "0xff"] on one line.
std::string array_inline(const std::vector<std::string>& elements);

}  // namespace octet::cli::json
