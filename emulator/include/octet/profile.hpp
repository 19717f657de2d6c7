// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// profile.hpp — a profile is data: a named bundle of CastSpec rules that reproduces one
// implementation's conversions bit for bit (reference/formats.md §8). Selectable by name
// wherever a cast happens (`--profile` on the command line).
#pragma once

#include <span>
#include <string_view>

#include "octet/cast.hpp"

namespace octet {

struct Profile {
  std::string_view name;        // "ocp"
  std::string_view reproduces;  // one line: whose conversions these are
  std::string_view source;      // the spec section or header the rules were read from
  CastSpec fp8;                 // e4m3fn, e4m3fnuz, e5m2, e5m2fnuz, bf16, fp16 targets
  CastSpec e8m0;                // e8m0fnu target
  CastSpec fp6_fp4;             // e2m3fn, e3m2fn, e2m1fn targets

  constexpr const CastSpec& spec_for(FormatId id) const {
    if (id == FormatId::e8m0fnu) return e8m0;
    if (id == FormatId::e2m3fn || id == FormatId::e3m2fn || id == FormatId::e2m1fn) return fp6_fp4;
    return fp8;
  }
};

std::span<const Profile> profiles();
const Profile* find_profile(std::string_view name);  // nullptr when unknown
const Profile& default_profile();                     // "ocp"

}  // namespace octet
