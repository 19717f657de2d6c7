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
#include "octet/scale_core.hpp"

namespace octet {

std::string_view name(ScaleStorage s);

// The recipe's steps (ScaleStorage, AmaxNan, AmaxFloor, ScaleFormula, Pow2Rounding,
// E8m0Reciprocal, ClampBeforeCast), BlockScale and RecipeCore are defined in scale_core.hpp.

struct Recipe {
  std::string_view name;          // "torchao_mx_rceil"
  std::string_view peer;          // the peer file (and version) the arithmetic is read from
  std::string_view summary;       // one line
  std::string_view specials;      // the recipe's row of recipes.md §8, in words
  FormatId element = FormatId::e4m3fn;
  ScaleStorage storage = ScaleStorage::EncodeFp32;
  float max_pos = 448.0f;         // largest finite element value (e4m3fn 448, e4m3fnuz 240, e5m2 57344, e2m1 6)
  int emax_elem = 8;              // OCP MX emax_elem of the element format (ExpFloor/Ceil/Even)
  AmaxNan amax_nan = AmaxNan::Propagate;
  AmaxFloor amax_floor = AmaxFloor::None;
  double eps = 0.0;               // the amax floor's value (1e-12, 1e-4, TE amax_epsilon 0)
  ScaleFormula formula = ScaleFormula::DivFp64;
  Pow2Rounding pow2 = Pow2Rounding::None;
  E8m0Reciprocal e8m0_reciprocal = E8m0Reciprocal::None;
  // fl32(1/448) as the kernels compute it: R = 0x3B124925. For nvidia_rceil_rcp_approx this is
  // rcp.approx.ftz.f32(448.f), to be measured once per GPU architecture (recipes.md §7).
  std::uint32_t rcp448_bits = 0x3B124925u;  // measured on sm_90 (H200): rcp.approx.ftz.f32(448) = 0x3B124925
  float value_for_inf = 3.40282347e38f;  // TE: the scale that replaces an Inf scale (FLT_MAX)
  ClampBeforeCast clamp = ClampBeforeCast::None;
  std::string_view cast_profile;  // the profile whose rules cast the elements ("torch", "cuda_satfinite", ...)
  CastSpec cast{};                // = find_profile(cast_profile)->spec_for(element), filled by the registry
};

// The element cast of a recipe (its CastSpec for its element format).
const CastSpec& element_cast(const Recipe& r);

// The numeric part of a recipe, for device code (scale_core.hpp): every field the arithmetic
// reads, the element CastSpec included.
RecipeCore make_core(const Recipe& r);

// The CastSpec of NVFP4's e4m3 block scale (torch's e4m3fn rules), read by scale_core's
// nvfp4_block_scale for a Recipe.
const CastSpec& nvfp4_scale_cast(const Recipe& r);

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
// The BlockScale of a stored e4m3 block scale under a global encode scale (scale_from_stored
// for nvfp4 assumes global_encode = 1).
BlockScale nvfp4_scale_from_stored(const Recipe& r, float global_encode, std::uint32_t stored);

// The scale arithmetic's building blocks, exposed for kernels and tests.
// RP conversion of a non-negative fp32 d to an e8m0 byte (cvt.rp[.satfinite].ue8m0): NaN -> 255,
// Inf and d > 2^127 -> 255 (254 with satfinite), fp32 subnormals: d > 2^-127 -> 1, else 0.
std::uint8_t e8m0_rp(float d, bool satfinite);
// The e8m0 byte b of an MX recipe -> its fp32 multiplier (Recipe::e8m0_reciprocal) and its
// decode value 2^(b-127) as fp32 (0 -> 0x00400000, 255 -> NaN).
float e8m0_encode_multiplier(const Recipe& r, std::uint32_t b);
float e8m0_decode(std::uint32_t b);

}  // namespace octet
