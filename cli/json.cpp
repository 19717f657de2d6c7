// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
#include "json.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace octet::cli::json {

std::string quote(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string number(double v) {
  if (!std::isfinite(v)) throw std::logic_error("json::number: non-finite value");
  if (v == 0 && std::signbit(v)) return "-0.0";
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);  // shortest round-trip
  return std::string(buf, res.ptr);
}

std::string number(std::int64_t v) { return std::to_string(v); }
std::string number(std::uint64_t v) { return std::to_string(v); }

std::string number_or_special(double v) {
  if (std::isnan(v)) return quote("nan");
  if (std::isinf(v)) return quote(v < 0 ? "-inf" : "inf");
  return number(v);
}

Object& Object::raw(std::string_view key, std::string value_json) {
  members_.emplace_back(std::string(key), std::move(value_json));
  return *this;
}

std::string Object::dump(int indent) const {
  if (members_.empty()) return "{}";
  const bool lines = indent >= 0;
  const std::string pad(lines ? std::size_t(indent) : 0, ' ');
  std::string out = lines ? "{\n" : "{";
  for (std::size_t i = 0; i < members_.size(); ++i) {
    out += pad + quote(members_[i].first) + ": " + members_[i].second;
    if (i + 1 < members_.size()) out += lines ? ",\n" : ", ";
  }
  return out + (lines ? "\n}" : "}");
}

std::string array_lines(const std::vector<std::string>& elements) {
  if (elements.empty()) return "[]";
  std::string out = "[\n";
  for (std::size_t i = 0; i < elements.size(); ++i)
    out += "  " + elements[i] + (i + 1 < elements.size() ? ",\n" : "\n");
  return out + "]";
}

std::string array_inline(const std::vector<std::string>& elements) {
  std::string out = "[";
  for (std::size_t i = 0; i < elements.size(); ++i) out += (i ? ", " : "") + elements[i];
  return out + "]";
}

}  // namespace octet::cli::json
