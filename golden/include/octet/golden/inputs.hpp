// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// inputs.hpp — the input generators of the golden cases. Every value i of a tensor is a pure
// function of (seed, i) through octet::counter_rbits, so the bytes do not depend on the thread
// count, and only correctly rounded IEEE operations (+ - * / sqrt, ldexp) are used, so they do
// not depend on the libm either.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "octet/golden/h5.hpp"

namespace octet::golden {

enum class Distribution : std::uint8_t {
  normal,           // N(0, 1) by Irwin–Hall (sum of 12 uniforms − 6): tails end at ±6
  student_t,        // Student-t, ν = 3: heavy tails (normal / sqrt(χ²₃ / 3))
  outliers,         // normal, with 1 value in 256 scaled by 2^8 .. 2^12 (SwiGLU-like activations)
  log_uniform,      // sign · (1 + u) · 2^e, e uniform in [-40, 40]: every binade, subnormals of fp8 included
  constant_blocks,  // each aligned run of `block` values holds one normal value
  zero_blocks,      // normal, with every other aligned run of `block` values zero (±0 mixed)
  specials,         // normal, with 1 value in 32 replaced by NaN, ±Inf, ±0, an fp32 subnormal or ±448·2^k
};
std::string_view name(Distribution d);                        // "normal", "student_t", ...
bool parse_distribution(std::string_view s, Distribution& d);  // false when unknown

struct InputSpec {
  Distribution distribution = Distribution::normal;
  std::uint64_t seed = 0;
  double scale = 1.0;      // every finite value is multiplied by it (exact when a power of two)
  std::int64_t block = 32; // run length of constant_blocks / zero_blocks
};
// "normal(scale=1)", "student_t(nu=3,scale=1)", ...: the `distribution` case attribute.
std::string describe(const InputSpec& s);

std::vector<float> generate_fp32(const InputSpec& s, std::int64_t n);
// The same values rounded to bfloat16 (RNE; NaN stays NaN with its sign), as raw bits.
std::vector<std::uint16_t> generate_bf16(const InputSpec& s, std::int64_t n);
// A row-major tensor of dtype "float32" or "bfloat16".
Tensor generate_tensor(const InputSpec& s, std::vector<std::int64_t> shape, std::string_view dtype);

// A uniform integer in [0, bound) from (seed, index): for group sizes, routings, permutations.
std::int64_t uniform_int(std::uint64_t seed, std::uint64_t index, std::int64_t bound);

}  // namespace octet::golden
