// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// cases/recipe.cpp — the recipes family (recipes.h5): for every named recipe (octet::recipes(),
// reference/recipes.md §8 special values):
//   * recipe_scale_from_amax on the contract inputs: 0, fp32 subnormals, NaN, +Inf, FLT_MAX,
//     every power of two with its fp32 neighbours, r.max_pos·2^k (the boundaries of the e8m0 and
//     pow2 formulas; neighbours for |k| <= 12 and at the top), the amax floors (1e-12, 1e-4) ±1 ulp;
//   * recipe_quantize_blocks on a contract block per special amax (the block's other elements are
//     fixed fractions of it: ties, halves, the sign), and on random blocks (normal, log_uniform,
//     outliers, specials, zero_blocks) of the recipe's natural block length;
//   * misuse cases (wrong dtype or rank, unknown recipe, block not dividing the row).
#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "catalogue.hpp"
#include "octet/scale.hpp"

namespace octet::golden {
namespace {

// Inserts x and its fp32 neighbours (finite, non-negative) into `out`.
void with_neighbours(std::set<std::uint32_t>& out, float x) {
  for (const float y : {x, std::nextafter(x, INFINITY), std::nextafter(x, -INFINITY)})
    if (std::isfinite(y) && y >= 0.0f) out.insert(std::bit_cast<std::uint32_t>(y));
}

// The amax contract inputs of a recipe, ascending by fp32 bits, then +Inf and NaN.
std::vector<float> contract_amax(const Recipe& r) {
  std::set<std::uint32_t> bits;
  bits.insert(0u);
  for (const std::uint32_t b : {0x00000001u, 0x00000002u, 0x00200000u, 0x00400000u, 0x00400001u, 0x007fffffu})
    bits.insert(b);  // fp32 subnormals: the smallest, around 2^-127 (e8m0 code 0), the largest
  for (int e = -149; e <= 127; ++e) with_neighbours(bits, std::ldexp(1.0f, e));
  // r.max_pos·2^k in every binade; its fp32 neighbours where the formulas' rounding can tip
  // (around unit scale, and at the top of the range).
  for (int e = -160; e <= 127; ++e) {
    const float m = std::ldexp(r.max_pos, e);
    if (!std::isfinite(m) || m == 0.0f) continue;
    if (std::abs(e) <= 12 || !std::isfinite(std::ldexp(r.max_pos, e + 2))) with_neighbours(bits, m);
    else bits.insert(std::bit_cast<std::uint32_t>(m));
  }
  for (const double eps : {1e-12, 1e-4}) with_neighbours(bits, float(eps));
  with_neighbours(bits, FLT_MAX);
  std::vector<float> v;
  for (const std::uint32_t b : bits) v.push_back(std::bit_cast<float>(b));
  v.push_back(std::numeric_limits<float>::infinity());
  v.push_back(std::bit_cast<float>(0x7fc00000u));
  return v;
}

// A handful of amax values whose blocks exercise the special paths of quantize_element.
std::vector<float> contract_block_amax(const Recipe& r) {
  const float m = r.max_pos;
  return {0.0f,
          std::bit_cast<float>(0x00000001u),
          std::bit_cast<float>(0x00400000u),
          1e-12f,
          1e-4f,
          std::nextafter(m, 0.0f),
          m,
          std::nextafter(m, INFINITY),
          m * 1.0625f,  // between max and the next power of two (FLOOR saturation)
          1.0f,
          std::nextafter(1.0f, INFINITY),
          std::ldexp(m, 20),
          std::ldexp(m, -20),
          FLT_MAX,
          std::numeric_limits<float>::infinity(),
          std::bit_cast<float>(0x7fc00000u)};
}

// A contract row of `block` elements: element 0 holds ±amax (alternating sign per row), the rest
// are amax times fixed fractions (halves, quarters, ties of 3-bit mantissas, tiny ratios) with
// alternating signs, so every element lies at or below amax.
std::vector<float> contract_row(float amax, std::int64_t block, std::int64_t row) {
  static constexpr double kFractions[] = {1.0, 0.5, 0.75, 0.9375, 0.96875, 0.53125, 0.25, 0.0625,
                                          0x1p-7, 0x1p-9, 0x1p-10, 0.3, 0.1, 0.0};
  std::vector<float> v(static_cast<std::size_t>(block));
  for (std::int64_t i = 0; i < block; ++i) {
    const double f = kFractions[std::size_t(i) % std::size(kFractions)];
    const float mag = std::isfinite(amax) ? float(double(amax) * f) : (f == 1.0 ? amax : float(f));
    v[std::size_t(i)] = ((i + row) % 2 == 1) ? -mag : mag;
  }
  return v;
}

// The block length the recipe's kernels use: 32 for MX, 16 for NVFP4, 128 otherwise.
std::int64_t natural_block(const Recipe& r) {
  if (storage(r) == ScaleStorage::E8m0) return 32;
  if (storage(r) == ScaleStorage::E4m3) return 16;
  return 128;
}

CaseSpec make_case(std::string name, std::string_view kernel, const Recipe& r) {
  CaseSpec c;
  c.name = std::move(name);
  c.call.kernel = std::string(kernel);
  c.call.attrs.strings["recipe"] = std::string(r.name);
  return c;
}

void add_recipe_cases(std::vector<CaseSpec>& out, const Recipe& r, Suite suite) {
  const std::string rn(r.name);
  {  // scale_from_amax on the contract inputs
    const std::vector<float> amax = contract_amax(r);
    const std::int64_t n = std::int64_t(amax.size());
    CaseSpec c = make_case("recipe_scale_from_amax_" + rn + "_" + std::to_string(n) + "_contract_0",
                           "recipe_scale_from_amax", r);
    describe_input(c, "contract(0,subnormals,pow2+-ulp,max_pos*2^k+-ulp,eps+-ulp,FLT_MAX,Inf,NaN)", "float32", {n});
    c.call.attrs.ints["seed"] = 0;
    c.call.inputs.emplace("amax", make_tensor("float32", {n}, amax));
    out.push_back(std::move(c));
  }
  {  // quantize_blocks: one contract row per special amax
    const std::vector<float> amax = contract_block_amax(r);
    const std::int64_t block = 32, rows = std::int64_t(amax.size());
    std::vector<float> x;
    for (std::int64_t row = 0; row < rows; ++row) {
      const std::vector<float> v = contract_row(amax[std::size_t(row)], block, row);
      x.insert(x.end(), v.begin(), v.end());
    }
    CaseSpec c = make_case("recipe_quantize_blocks_" + rn + "_" + dims_label({rows, block}) + "_contract_0",
                           "recipe_quantize_blocks", r);
    describe_input(c, "contract(amax special per row, fixed fractions of it)", "float32", {rows, block});
    c.call.attrs.ints["seed"] = 0;
    c.call.attrs.ints["block"] = block;
    c.call.inputs.emplace("x", make_tensor("float32", {rows, block}, x));
    out.push_back(std::move(c));
  }
  // Random blocks of the recipe's block length, from a bf16 source: rows_per rows per
  // distribution, stacked in one case (the `distribution` attribute lists them by row).
  const std::int64_t block = natural_block(r), rows_per = suite == Suite::full ? 16 : 2;
  const Distribution dists[] = {Distribution::normal, Distribution::log_uniform, Distribution::outliers,
                                Distribution::specials, Distribution::zero_blocks};
  std::vector<std::uint16_t> x;
  std::string described;
  std::uint64_t seed = 1;
  for (const Distribution d : dists) {
    const InputSpec spec{d, seed++, 1.0, block};
    const std::vector<std::uint16_t> part = generate_bf16(spec, rows_per * block);
    x.insert(x.end(), part.begin(), part.end());
    described += (described.empty() ? "" : "; ") + std::string("rows ") + std::to_string(std::int64_t(seed - 2) * rows_per) +
                 "-" + std::to_string(std::int64_t(seed - 1) * rows_per - 1) + ": " + describe(spec);
  }
  const std::int64_t rows = std::int64_t(std::size(dists)) * rows_per;
  CaseSpec c = make_case("recipe_quantize_blocks_" + rn + "_" + dims_label({rows, block}) + "_mixed_1",
                         "recipe_quantize_blocks", r);
  describe_input(c, described, "bfloat16", {rows, block});
  c.call.attrs.ints["seed"] = 1;
  c.call.attrs.ints["block"] = block;
  c.call.inputs.emplace("x", make_tensor("bfloat16", {rows, block}, x));
  out.push_back(std::move(c));
}

// Misuse: each must be rejected with its message.
void add_misuse_cases(std::vector<CaseSpec>& out) {
  const Recipe& r = recipe("te_current");
  const auto misuse = [&](std::string name, std::string_view kernel, std::string_view what) {
    CaseSpec c = make_case(std::string(kernel) + "_te_current_" + name, kernel, r);
    c.expect_error = true;
    c.call.attrs.strings["distribution"] = std::string(what);
    c.call.attrs.ints["seed"] = 0;
    return c;
  };
  const InputSpec normal{Distribution::normal, 7, 1.0, 32};
  {
    CaseSpec c = misuse("4_misuse_amax_bfloat16", "recipe_scale_from_amax", "misuse(amax dtype bfloat16)");
    c.call.inputs.emplace("amax", generate_tensor(normal, {4}, "bfloat16"));
    out.push_back(std::move(c));
  }
  {
    CaseSpec c = misuse("2x2_misuse_amax_rank2", "recipe_scale_from_amax", "misuse(amax rank 2)");
    c.call.inputs.emplace("amax", generate_tensor(normal, {2, 2}, "float32"));
    out.push_back(std::move(c));
  }
  {
    CaseSpec c = misuse("4_misuse_unknown_recipe", "recipe_scale_from_amax", "misuse(unknown recipe)");
    c.call.attrs.strings["recipe"] = "no_such_recipe";
    c.call.inputs.emplace("amax", generate_tensor(normal, {4}, "float32"));
    out.push_back(std::move(c));
  }
  {
    CaseSpec c = misuse("2x48_misuse_block_not_dividing", "recipe_quantize_blocks", "misuse(48 columns, block 32)");
    c.call.attrs.ints["block"] = 32;
    c.call.inputs.emplace("x", generate_tensor(normal, {2, 48}, "float32"));
    out.push_back(std::move(c));
  }
  {
    CaseSpec c = misuse("2x32_misuse_block_zero", "recipe_quantize_blocks", "misuse(block 0)");
    c.call.attrs.ints["block"] = 0;
    c.call.inputs.emplace("x", generate_tensor(normal, {2, 32}, "float32"));
    out.push_back(std::move(c));
  }
  {
    CaseSpec c = misuse("64_misuse_x_rank1", "recipe_quantize_blocks", "misuse(x rank 1)");
    c.call.inputs.emplace("x", generate_tensor(normal, {64}, "float32"));
    out.push_back(std::move(c));
  }
  {
    CaseSpec c = misuse("2x32_misuse_x_int32", "recipe_quantize_blocks", "misuse(x dtype int32)");
    c.call.inputs.emplace("x", make_tensor("int32", {2, 32}, std::vector<std::int32_t>(64, 1)));
    out.push_back(std::move(c));
  }
}

}  // namespace

std::vector<CaseSpec> recipe_cases(Suite s) {
  std::vector<CaseSpec> out;
  for (const Recipe& r : recipes()) add_recipe_cases(out, r, s);
  add_misuse_cases(out);
  return out;
}

}  // namespace octet::golden
