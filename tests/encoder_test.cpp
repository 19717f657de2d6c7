// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// Fp32Encoder (the memoised per-element cast of kernels) gives the codes of octet::encode for
// every bf16 and 8-bit target, rounding mode and overflow policy: at each bucket's edges and
// bf16 midpoints, and on seeded random fp32 patterns. The memo's 8-bit tables are also covered by
// the exhaustive sweeps; this test is what covers the bf16 table.
#include <gtest/gtest.h>

#include <bit>
#include <cstdio>
#include <random>
#include <string>

#include "octet/cast.hpp"
#include "test_util.hpp"

namespace {

using namespace octet;

TEST(Fp32Encoder, MatchesEncode) {
  std::mt19937 rng(20261122);
  for (const FormatId id : {FormatId::bf16, FormatId::fp16, FormatId::e4m3fn, FormatId::e5m2, FormatId::e8m0fnu,
                            FormatId::e2m1fn}) {
    const Format& f = format_of(id);
    for (const Rounding r : kAllRoundings) {
      if (r == Rounding::Stochastic) continue;
      for (const Overflow o : kAllOverflows) {
        const CastSpec s{.rounding = r, .overflow = o};
        const Fp32Encoder enc(f, s);
        std::uint64_t mismatches = 0;
        std::string first;
        const auto check = [&](std::uint32_t bits) {
          const std::uint32_t want = encode_bits<Fp32Source>(f, s, bits), got = enc(std::bit_cast<float>(bits));
          if (want != got && mismatches++ < 5) {
            char line[160];
            std::snprintf(line, sizeof line, "  input 0x%08x: encode 0x%04x, Fp32Encoder 0x%04x\n", bits, want, got);
            first += line;
          }
        };
        for (std::uint32_t hi = 0; hi < (1u << 16); ++hi)
          for (const std::uint32_t lo : {0x0000u, 0x0001u, 0x7FFFu, 0x8000u, 0x8001u, 0xFFFFu, std::uint32_t(rng() & 0xFFFFu)})
            check(hi << 16 | lo);
        for (int i = 0; i < (1 << 20); ++i) check(std::uint32_t(rng()));
        EXPECT_EQ(mismatches, 0u) << name(id) << " " << name(r) << " " << name(o) << ":\n" << first;
      }
    }
  }
}

}  // namespace
