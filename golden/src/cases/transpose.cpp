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
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "catalogue.hpp"
#include "octet/scale.hpp"

namespace octet::golden {

namespace {

constexpr const char* kVariants[] = {"fp8flow_transpose_published", "fp8flow_transpose_ideal",
                                     "fp8flow_transpose_naive"};

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
  QuantisedRows qr = quantise_rows(spec, p.rows, p.cols, recipe("te_blockwise"), 128);
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
  in["offs"] = int_tensor(p.int64_offs ? "int64" : "int32", p.offs);
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
  Catalogue cat;
  std::uint64_t seed = 600;
  for (const Problem& p : problems) {
    const InputSpec spec{p.dist, seed++, 1.0, 32};
    const Tensors in = problem_inputs(p, spec);
    for (const char* kernel : kVariants) {
      std::string dist(name(p.dist));
      if (p.corner != Corner::none) dist += "-" + std::string(corner_name(p.corner));
      const std::string stem = std::string(kernel) + "_te_blockwise_" + dims_label({p.rows, p.cols}) + "_" + dist;
      CaseSpec& c = cat.add(kernel, stem, spec, in);
      describe_input(c, describe(spec), "float8_e4m3fn", {p.rows, p.cols});
      c.call.attrs.strings["input_recipe"] = "te_blockwise";
      if (p.corner != Corner::none) c.call.attrs.strings["corner"] = std::string(corner_name(p.corner));
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
      {"offs-end-below-rows", with("offs", int_tensor("int32", {1, 3}))},
      {"offs-empty", with("offs", int_tensor("int32", {}))},
      {"offs-nonmonotonic", with("offs", int_tensor("int32", {3, 1, 4}))},
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
    const std::string kernel = kVariants[i % std::size(kVariants)];
    cat.misuse(kernel, kernel + "_te_blockwise_4x32_misuse-" + m.what, spec, m.inputs);
  }
  return cat.take();
}

}  // namespace octet::golden
