// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// scale_test_util.hpp — helpers of the scale-recipe tests: bit views, bf16 rounding, and the
// naive block loop every kernel runs (scale.hpp's header comment).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "octet/scale.hpp"

namespace scale_test {

inline std::uint32_t fbits(float f) { return std::bit_cast<std::uint32_t>(f); }
inline float fval(std::uint32_t b) { return std::bit_cast<float>(b); }

// fp32 -> bf16 (RNE; NaN stays a quiet NaN), widened back to fp32.
inline float round_to_bf16(float x) {
  const std::uint32_t b = fbits(x);
  if (std::isnan(x)) return fval((b | 0x00400000u) & 0xFFFF0000u);
  const std::uint32_t rounded = (b + 0x7FFFu + ((b >> 16) & 1u)) & 0xFFFF0000u;
  return fval(rounded);
}

struct QuantizedBlock {
  octet::BlockScale scale;
  std::vector<std::uint32_t> codes;
};

// The naive block loop: amax_update over the block, scale_from_amax, quantize_element.
inline QuantizedBlock quantize_block(const octet::Recipe& r, std::span<const float> x) {
  float amax = octet::amax_init(r);
  for (const float v : x) amax = octet::amax_update(r, amax, v);
  QuantizedBlock q{octet::scale_from_amax(r, amax), {}};
  for (const float v : x) q.codes.push_back(octet::quantize_element(r, q.scale, v));
  return q;
}

}  // namespace scale_test
