// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// octet_capi.cpp — a C ABI over the emulator's casts, for Python (ctypes) cross-checks against
// ml_dtypes and torch. Errors return a nonzero code; octet_last_error() has the message.
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "octet/profile.hpp"

namespace {
thread_local std::string last_error;

int fail(const std::string& message) {
  last_error = message;
  return 2;
}

// Resolves (format, profile, rounding or null, overflow or null) into a Format and CastSpec.
int resolve(const char* format, const char* profile, const char* rounding, const char* overflow,
            octet::SourceType source, const octet::Format** f, octet::CastSpec* spec) {
  const auto id = octet::parse_format(format ? format : "");
  if (!id) return fail(std::string("unknown format '") + (format ? format : "") + "'");
  const octet::Profile* p = octet::find_profile(profile ? profile : "ocp");
  if (!p) return fail(std::string("unknown profile '") + profile + "'");
  *f = &octet::format_of(*id);
  *spec = p->spec_for(*id, source);
  if (rounding && *rounding) {
    const auto r = octet::parse_rounding(rounding);
    if (!r) return fail(std::string("unknown rounding '") + rounding + "'");
    spec->rounding = *r;
  }
  if (overflow && *overflow) {
    const auto o = octet::parse_overflow(overflow);
    if (!o) return fail(std::string("unknown overflow '") + overflow + "'");
    spec->overflow = *o;
  }
  return 0;
}
}  // namespace

extern "C" {
#pragma GCC visibility push(default)

const char* octet_last_error() { return last_error.c_str(); }

// Codes of the fp32 bit patterns [first, first + n) (n <= 2^32 - first), one byte each.
int octet_cast_fp32_range(const char* format, const char* profile, const char* rounding, const char* overflow,
                          std::uint32_t first, std::uint64_t n, std::uint8_t* out) {
  try {
    const octet::Format* f = nullptr;
    octet::CastSpec spec;
    if (int rc = resolve(format, profile, rounding, overflow, octet::SourceType::fp32, &f, &spec)) return rc;
    if (f->bits() > 8) return fail("octet_cast_fp32_range: the target must have at most 8 bits");
    if (first + n > (std::uint64_t(1) << 32)) return fail("octet_cast_fp32_range: range beyond 2^32");
    octet::cast_fp32_range(first, std::size_t(n), *f, spec, out);
    return 0;
  } catch (const std::exception& e) {
    return fail(e.what());
  }
}

// Any source ("fp32", "fp64", "bf16", "fp16") to any target; out holds n codes of 1 or 2 bytes.
int octet_cast(const char* source, const void* in, std::uint64_t n, const char* format, const char* profile,
               const char* rounding, const char* overflow, void* out, const std::uint32_t* rbits) {
  try {
    const auto src = octet::parse_source(source ? source : "");
    if (!src) return fail(std::string("unknown source '") + (source ? source : "") + "'");
    const octet::Format* f = nullptr;
    octet::CastSpec spec;
    if (int rc = resolve(format, profile, rounding, overflow, *src, &f, &spec)) return rc;
    octet::cast(*src, in, std::size_t(n), *f, spec, out, rbits);
    return 0;
  } catch (const std::exception& e) {
    return fail(e.what());
  }
}

#pragma GCC visibility pop
}  // extern "C"
