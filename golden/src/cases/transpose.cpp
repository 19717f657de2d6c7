// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// cases/transpose.cpp — the kernels_transpose catalogue: the FP8-Flow-MoE scaling-aware fp8
// transpose (octet/kernels/fp8flow_transpose.hpp; reference/kernels.md §8), each problem run
// through the published, ideal and naive variants.
//
// Inputs are what the peer receives: rows quantised 1x128 by TE's blockwise recipe (te_blockwise:
// e4m3fn codes, pow2 fp32 scale_inv), grouped by int32 offs. Adversarial problems reach the
// corner cases (a)-(d) of the header: scale exponents spread over the whole [2^-127, 2^127] range
// inside one tile (large shifts k), pad rows (scale_inv +0) with zero and non-zero codes,
// subnormal, ±0 and NaN codes, partial tile rows and columns, empty and one-row groups.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "octet/golden/inputs.hpp"
#include "octet/golden/suite.hpp"
#include "octet/scale.hpp"

namespace octet::golden {

namespace case_io {  // defined in cases/layout.cpp
struct QuantisedRows {
  Tensor q, scale;
};
QuantisedRows quantise_rows(const InputSpec& spec, std::int64_t rows, std::int64_t cols, const Recipe& r,
                            std::int64_t block);
}  // namespace case_io

namespace {

using Ints = std::vector<std::int64_t>;

constexpr const char* kVariants[] = {"fp8flow_transpose_published", "fp8flow_transpose_ideal",
                                     "fp8flow_transpose_naive"};

// Sorted-cut group ends, as in the layout catalogue: empty groups where cuts coincide.
Ints random_offs(std::uint64_t seed, std::int64_t groups, std::int64_t total) {
  Ints cuts;
  for (std::int64_t g = 0; g + 1 < groups; ++g) cuts.push_back(uniform_int(seed, std::uint64_t(g), total + 1));
  std::sort(cuts.begin(), cuts.end());
  cuts.push_back(total);
  return cuts;
}

// How an adversarial problem rewrites the quantised rows.
enum class Corner : std::uint8_t {
  none,
  spread_scales,  // every (row, block) scale_inv 2^e, e uniform in [-127, 127] (2^-127: fp32 subnormal)
  pad_rows,       // every 5th row a pad row (scale_inv +0), every 2nd of those with non-zero codes
  special_codes,  // 1 code in 8 replaced by NaN, ±0 or a subnormal code; shifts k up to 12
};
std::string_view corner_name(Corner c) {
  constexpr std::string_view names[] = {"", "spread-scales", "pad-rows", "special-codes"};
  return names[std::size_t(c)];
}

struct Problem {
  std::int64_t rows, cols;
  Ints offs;
  Distribution dist;
  Corner corner = Corner::none;
  bool int64_offs = false;
};

// q and scale_inv of a problem: te_blockwise 1x128 quantisation of the distribution, then the
// corner rewrite. Scales outside the kernel's domain (+0 or pow2 in [2^-127, 2^127]) never occur:
// te_blockwise stores pow2 scale_inv, 1 for all-zero or non-finite blocks.
Tensors problem_inputs(const Problem& p, const InputSpec& spec) {
  case_io::QuantisedRows qr = case_io::quantise_rows(spec, p.rows, p.cols, recipe("te_blockwise"), 128);
  std::vector<std::uint8_t> q = values_of<std::uint8_t>(qr.q);
  std::vector<float> si = values_of<float>(qr.scale);
  const std::int64_t cb = qr.scale.shape[1];
  std::uint64_t draw = 0;
  for (std::int64_t r = 0; r < p.rows; ++r)
    for (std::int64_t j = 0; j < cb; ++j) {
      float& s = si[std::size_t(r * cb + j)];
      if (p.corner == Corner::spread_scales) {
        const int e = int(uniform_int(spec.seed, draw++, 255)) - 127;
        s = e == -127 ? std::bit_cast<float>(0x00400000u) : std::ldexp(1.0f, e);
      } else if (p.corner == Corner::special_codes) {
        s = std::ldexp(1.0f, int(uniform_int(spec.seed, draw++, 13)) - 6);
      } else if (p.corner == Corner::pad_rows && r % 5 == 4) {
        s = 0.0f;
      }
    }
  for (std::int64_t i = 0; i < p.rows * p.cols; ++i) {
    std::uint8_t& c = q[std::size_t(i)];
    const std::int64_t r = i / p.cols;
    if (p.corner == Corner::pad_rows && r % 5 == 4 && r % 10 != 9) c = 0;
    if (p.corner == Corner::special_codes) {
      const std::int64_t u = uniform_int(spec.seed, std::uint64_t(1 << 20) + std::uint64_t(i), 64);
      if (u < 8) {
        constexpr std::uint8_t kSpecial[] = {0x7F, 0xFF, 0x00, 0x80, 0x01, 0x87, 0x07, 0x08};
        c = kSpecial[u];
      }
    }
  }
  Tensors in;
  in["q"] = make_tensor("float8_e4m3fn", {p.rows, p.cols}, q);
  in["scale_inv"] = make_tensor("float32", {p.rows, cb}, si);
  if (p.int64_offs) in["offs"] = make_tensor("int64", p.offs);
  else in["offs"] = make_tensor("int32", std::vector<std::int32_t>(p.offs.begin(), p.offs.end()));
  return in;
}

}  // namespace

std::vector<CaseSpec> transpose_cases(Suite s) {
  const std::int64_t up = s == Suite::full ? 8 : 1;  // the full suite scales the token counts
  const std::vector<Problem> problems = {
      {8, 128, {8}, Distribution::normal},                                           // one tile, hand-checkable
      {4, 256, {1, 4}, Distribution::normal, Corner::none, true},                    // two groups, int64 offs
      {150, 200, {0, 140, 140, 150}, Distribution::outliers},                        // empty groups, partial tiles
      {192 * up, 224, random_offs(21, 8, 192 * up), Distribution::normal},           // DSv3 7168/32, 8 experts
      {96 * up, 320, random_offs(22, 4, 96 * up), Distribution::student_t},          // Llama4 5120/16
      {5, 128, {1, 2, 3, 4, 5}, Distribution::log_uniform},                          // one-row groups
      {0, 128, {0}, Distribution::normal},                                           // no rows at all
      {136, 256, {136}, Distribution::constant_blocks},                              // equal scales: k = 0
      {180, 160, {130, 130, 180}, Distribution::normal, Corner::spread_scales},      // k up to 254
      {150, 128, {64, 150}, Distribution::zero_blocks, Corner::pad_rows},            // pad rows, corner (d)
      {140, 136, {140}, Distribution::log_uniform, Corner::special_codes},           // corners (a)-(c)
      {64, 128, {64}, Distribution::specials},                                       // NaN/Inf before quantisation
  };
  std::vector<CaseSpec> cases;
  std::map<std::string, int> count;
  std::uint64_t seed = 600;
  for (const Problem& p : problems) {
    const InputSpec spec{p.dist, seed++, 1.0, 32};
    const Tensors in = problem_inputs(p, spec);
    for (const char* kernel : kVariants) {
      std::string dist(name(p.dist));
      if (p.corner != Corner::none) dist += "-" + std::string(corner_name(p.corner));
      const std::string stem = std::string(kernel) + "_te_blockwise_" + std::to_string(p.rows) + "x" +
                               std::to_string(p.cols) + "_" + dist;
      CaseSpec c;
      c.name = stem + "_" + std::to_string(count[stem]++);
      c.call.kernel = kernel;
      c.call.inputs = in;
      CaseAttributes& a = c.call.attrs;
      a.strings["input_recipe"] = "te_blockwise";
      a.strings["distribution"] = describe(spec);
      if (p.corner != Corner::none) a.strings["corner"] = std::string(corner_name(p.corner));
      a.strings["dtype"] = "float8_e4m3fn";
      a.int_arrays["shape"] = {p.rows, p.cols};
      a.ints["seed"] = std::int64_t(spec.seed);
      cases.push_back(std::move(c));
    }
  }

  // Misuse: each is rejected by the argument checks the variants share; the variants take turns.
  struct Misuse {
    std::string what;
    Tensors inputs;
  };
  const InputSpec spec{Distribution::normal, 95, 1.0, 32};
  const Tensors good = problem_inputs({4, 32, {4}, Distribution::normal}, spec);
  const auto with = [&](const std::string& key, Tensor t) {
    Tensors in = good;
    in[key] = std::move(t);
    return in;
  };
  const auto si_with = [&](float v) {
    std::vector<float> si = values_of<float>(good.at("scale_inv"));
    si[2] = v;
    return with("scale_inv", make_tensor("float32", {4, 1}, si));
  };
  Tensors no_offs = good;
  no_offs.erase("offs");
  const std::vector<Misuse> misuses = {
      {"offs-end-below-rows", with("offs", make_tensor("int32", std::vector<std::int32_t>{1, 3}))},
      {"offs-empty", with("offs", make_tensor("int32", std::vector<std::int32_t>{}))},
      {"offs-nonmonotonic", with("offs", make_tensor("int32", std::vector<std::int32_t>{3, 1, 4}))},
      {"offs-beyond-int32", with("offs", make_tensor("int64", Ints{std::int64_t(1) << 31}))},
      {"offs-missing", no_offs},
      {"scale-inv-cols", with("scale_inv", make_tensor("float32", {4, 2}, std::vector<float>(8, 1.0f)))},
      {"scale-inv-not-pow2", si_with(3.0f)},
      {"scale-inv-negative", si_with(-1.0f)},
      {"scale-inv-nan", si_with(std::bit_cast<float>(0x7fc00000u))},
      {"scale-inv-dtype-bfloat16", with("scale_inv", make_tensor("bfloat16", {4, 1}, std::vector<std::uint16_t>(4, 0x3f80)))},
      {"q-dtype-e5m2", with("q", make_tensor("float8_e5m2", {4, 32}, values_of<std::uint8_t>(good.at("q"))))},
      {"q-rank-1", with("q", make_tensor("float8_e4m3fn", {128}, values_of<std::uint8_t>(good.at("q"))))},
  };
  for (std::size_t i = 0; i < misuses.size(); ++i) {
    const Misuse& m = misuses[i];
    const char* kernel = kVariants[i % std::size(kVariants)];
    CaseSpec c;
    c.name = std::string(kernel) + "_te_blockwise_4x32_misuse-" + m.what;
    c.call.kernel = kernel;
    c.call.inputs = m.inputs;
    c.call.attrs.strings["distribution"] = describe(spec);
    c.call.attrs.ints["seed"] = std::int64_t(spec.seed);
    c.expect_error = true;
    cases.push_back(std::move(c));
  }
  return cases;
}

}  // namespace octet::golden
