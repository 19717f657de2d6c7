// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// value_parser.hpp — a command-line VALUE to the bits of the cast's source type.
//   decimal    448  -1e-3  nan  -inf      rounded once, correctly, to the source type
//   hex float  0x1.8p+3                   likewise (it may be inexact in bf16 / fp16)
//   raw bits   bits:0x7f800001            exactly these bits; the width is the source's
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "octet/cast.hpp"

namespace octet::cli {

struct SourceValue {
  std::string text;    // the VALUE as given
  SourceType type;
  std::uint64_t bits;  // in the low size_of(type) * 8 bits
};

SourceValue parse_value(std::string_view text, SourceType type);  // throws UsageError

// The exact value of source bits (bf16 and fp16 widen exactly to double).
double source_to_double(SourceType type, std::uint64_t bits);
inline int source_bits_width(SourceType type) { return int(size_of(type)) * 8; }

}  // namespace octet::cli
