// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// common.hpp — what every subcommand shares: the usage error (exit code 2), name lookups whose
// messages list the valid choices, the effective CastSpec of a cast, and number/code printing.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "octet/cast.hpp"
#include "octet/format.hpp"
#include "octet/profile.hpp"

namespace octet::cli {

// A bad name or a malformed value on the command line: main prints "octet: <what>", exits 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Every rounding mode and overflow policy, in enum order: octet::kAllRoundings, kAllOverflows.
using octet::kAllOverflows;
using octet::kAllRoundings;

// The valid choices, comma-separated, as the error messages and --help list them. Formats: all,
// or only cast targets, or only targets of at most 8 bits; with the ml_dtypes names appended.
std::string format_names(bool targets_only, bool bytes_only);
std::string rounding_names();
std::string overflow_names();
std::string profile_names();

// Name lookups. Formats take octet's name or the ml_dtypes spelling ("float8_e4m3fn").
const Format& parse_format_arg(std::string_view s);        // any format, fp32/fp64 included
const Format& parse_target_arg(std::string_view s);        // a cast target: not fp32/fp64
const Format& parse_sweep_target_arg(std::string_view s);  // at most 8 bits (the sweep writes bytes)
SourceType parse_source_arg(std::string_view s);           // fp32, fp64, bf16, fp16
const Profile& parse_profile_arg(std::string_view s);
Rounding parse_rounding_arg(std::string_view s);
Overflow parse_overflow_arg(std::string_view s);

// The profile's spec for the format and source, then --rounding / --overflow (empty: keep the
// profile's).
CastSpec effective_spec(const Profile& profile, const Format& f, SourceType src, std::string_view rounding,
                        std::string_view overflow);

// An unsigned integer in hex ("0x7e") or decimal ("126"), at most `max`. `what` names it in
// the error message ("code", "--random-bits").
std::uint64_t parse_uint(std::string_view s, std::uint64_t max, std::string_view what);

// Shortest decimal that reads back to the same double ("448", "0.001953125", "1e+09");
// "nan", "inf", "-inf"; a negative zero prints "-0".
std::string format_double(double v);
// A code in hex with the format's width: 0x7e (8 bits and fewer), 0x7fc0, 0x7f800000.
std::string hex_code(std::uint64_t code, int bits);

// Rows of cells as text: each column padded to its widest cell, columns two spaces apart,
// trailing blanks trimmed; every line is prefixed with `indent`.
std::string render_table(const std::vector<std::vector<std::string>>& rows, std::string_view indent = "");

}  // namespace octet::cli
