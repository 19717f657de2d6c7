// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
#include "octet/profile.hpp"

#include <array>

namespace octet {
namespace {

constexpr CastSpec kOcpSat{.rounding = Rounding::NearestEven, .overflow = Overflow::SatFinite};
constexpr CastSpec kOcpNoSat{.rounding = Rounding::NearestEven, .overflow = Overflow::Ieee};

// The MX spec defines no float -> E8M0 rounding; octet's OCP profile rounds an e8m0 cast to
// nearest (ties up, the significand-parity rule), maps 0 to the smallest scale 2^-127 and a
// negative input to NaN, which has no representation in an unsigned format.
constexpr CastSpec kOcpE8m0{.rounding = Rounding::NearestEven, .overflow = Overflow::SatFinite,
                            .unsigned_negative = UnsignedNegative::Nan,
                            .unsigned_zero = UnsignedZero::Min};
constexpr CastSpec kOcpE8m0NoSat{.rounding = Rounding::NearestEven, .overflow = Overflow::Ieee,
                                 .unsigned_negative = UnsignedNegative::Nan,
                                 .unsigned_zero = UnsignedZero::Min};

constexpr std::array kProfiles{
    Profile{"ocp", "OCP OFP8 v1.0 / MX v1.0, saturating mode (the mode MX element casts use)",
            "OFP8 v1.0 §5 (conversion), MX v1.0 §6.3", kOcpSat, kOcpE8m0, kOcpSat},
    Profile{"ocp_nosat", "OCP OFP8 v1.0, non-saturating mode (overflow -> Inf / NaN)",
            "OFP8 v1.0 §5 (conversion)", kOcpNoSat, kOcpE8m0NoSat, kOcpNoSat},
};

}  // namespace

std::span<const Profile> profiles() { return kProfiles; }

const Profile* find_profile(std::string_view name) {
  for (const Profile& p : kProfiles)
    if (p.name == name) return &p;
  return nullptr;
}

const Profile& default_profile() { return kProfiles[0]; }

}  // namespace octet
