// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// scale.hpp — scale recipes: a block's amax becomes a stored scale and the multiplier applied
// before the element cast (reference/recipes.md). Every kernel of the emulator quantises a block
// the same way:
//
//   float amax = amax_init(r);
//   for (x in block) amax = amax_update(r, amax, x);     // the recipe's NaN rule
//   const BlockScale s = scale_from_amax(r, amax);         // the recipe's formula and specials
//   for (x in block) code = quantize_element(r, s, x);     // multiply, clamp, cast, per recipe
//   store s.stored (fp32 bits or e8m0 byte, per r.storage)
//
// A Recipe is data (like a Profile), selected by name everywhere; its fields are defined below
// and documented per recipe in scale.cpp with the peer file they reproduce.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "octet/cast.hpp"

namespace octet {

// How the stored scale is to be read.
enum class ScaleStorage : std::uint8_t {
  EncodeFp32,   // fp32 bits of the multiplier s (torchao FP8 rowwise returns s; its GEMM takes 1/s)
  DecodeFp32,   // fp32 bits of the dequantisation multiplier d (TE scale_inv, DeepGEMM sf,
                // torchao blockwise div_rn(1, s), DeepEP scale_inv)
  E8m0,         // one e8m0fnu byte: d = 2^(b - 127) (MX)
  E4m3,         // one e4m3fn byte (NVFP4 block scales; the global fp32 scale is separate)
};
std::string_view name(ScaleStorage s);

struct Recipe;  // a recipe is data: its fields are defined in this header (below, with the enums it needs)

// The result of one block's scale computation.
struct BlockScale {
  float encode = 1.0f;        // multiplier before the cast (for MX: 2^(127 - b), exact)
  float decode = 1.0f;        // dequantisation multiplier (what a GEMM applies)
  std::uint32_t stored = 0;   // fp32 bits or the e8m0 / e4m3 byte, per Recipe::storage
};

// Named recipes (recipes.md §11 and the list): torchao_fp8_rowwise,
// torchao_fp8_rowwise_pow2, torchao_mx_{floor,rceil,ceil,even}, torchao_mx_{floor,rceil}_v018,
// torchao_blockwise, te_current, te_current_pow2, te_delayed, te_blockwise, te_blockwise_fp32,
// te_mxfp8, deepgemm, deepgemm_ue8m0, deepep, deepep_round, ocp_mx, nvidia_rceil_rcp_approx,
// nvfp4; element variants for e4m3fnuz (MI300, max 240) and e5m2 where the recipe allows it
// are separate entries with a suffix (`_e4m3fnuz`, `_e5m2`).
std::span<const Recipe> recipes();
const Recipe* find_recipe(std::string_view name);  // nullptr when unknown
// Throws std::invalid_argument("unknown recipe 'x'; valid: ...") when unknown.
const Recipe& recipe(std::string_view name);

std::string_view name(const Recipe& r);
FormatId element_format(const Recipe& r);  // e4m3fn, e4m3fnuz, e5m2, or e2m1fn (nvfp4)
ScaleStorage storage(const Recipe& r);

// amax over a block, one element at a time, in fp32 (bf16 inputs are widened exactly first).
// The recipe's NaN rule: NaN-propagating (torch.amax, CUDA max.NaN), NaN-dropping (TE fmaxf),
// or NaN as Inf (torchao Triton MX). Also the recipe's initial value (0, or DeepEP's 1e-4).
float amax_init(const Recipe& r);
float amax_update(const Recipe& r, float amax, float x);

// The scale of a block with this amax, special values included (recipes.md §8).
BlockScale scale_from_amax(const Recipe& r, float amax);

// The element code of x (an fp32 value; bf16 inputs widened exactly) under the block's scale:
// the recipe's multiply (fp32, or exact for power-of-two MX scales), optional clamp to +-max, and
// the element cast with the recipe's CastSpec.
std::uint32_t quantize_element(const Recipe& r, const BlockScale& s, float x);

// code -> value * decode, in double (exact: every product of an element value and an fp32 or
// power-of-two scale is representable in double).
double dequantize_element(const Recipe& r, const BlockScale& s, std::uint32_t code);

// The BlockScale a stored scale stands for (for dequantisation kernels and the transpose):
// decode from the stored bits; encode as the recipe computes it from decode.
BlockScale scale_from_stored(const Recipe& r, std::uint32_t stored);

// TransformerEngine DelayedScaling (recipes.md §4.2): the new scale from the amax history
// (window max or most recent) and the previous scale; the history roll is the caller's.
BlockScale te_delayed_scale(const Recipe& r, std::span<const float> amax_history, float previous_scale,
                            bool most_recent = false, int margin = 0);

// NVFP4 (recipes.md §4.6): the fp32 per-tensor global encode scale, then per 1x16 block an e4m3
// decode scale; quantize_element/dequantize_element apply both (BlockScale carries the combined
// multipliers).
float nvfp4_global_encode(float global_amax);
BlockScale nvfp4_block_scale(const Recipe& r, float global_encode, float block_amax);

}  // namespace octet
