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
  // fp64 sources: implementations whose double path differs (CUDA keeps the NaN sign and
  // payload there, where its float path makes NaN canonical first).
  bool fp64_nan_keeps_sign_and_payload = false;
  // e4m3fnuz / e5m2fnuz, where the implementation treats them apart from the OCP formats (HIP's
  // 2024 software path saturates a fnuz NaN to +-max); otherwise fp8 applies.
  bool has_fnuz_rule = false;
  CastSpec fnuz{};

  constexpr CastSpec spec_for(FormatId id, SourceType src = SourceType::fp32) const {
    const bool is_fnuz = id == FormatId::e4m3fnuz || id == FormatId::e5m2fnuz;
    CastSpec s = id == FormatId::e8m0fnu ? e8m0
                 : (id == FormatId::e2m3fn || id == FormatId::e3m2fn || id == FormatId::e2m1fn) ? fp6_fp4
                 : (is_fnuz && has_fnuz_rule) ? fnuz
                 : fp8;
    if (src == SourceType::fp64 && fp64_nan_keeps_sign_and_payload) {
      s.nan = NanPolicy::KeepSign;
      s.ieee_nan = IeeeNanCode::Payload;
    }
    return s;
  }
};

std::span<const Profile> profiles();
const Profile* find_profile(std::string_view name);  // nullptr when unknown
const Profile& default_profile();                     // "ocp"

}  // namespace octet
