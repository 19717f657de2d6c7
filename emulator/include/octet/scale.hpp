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

// ---------------------------------------------------------------------------------------------
// A recipe is data. Each enum below names one step of recipes.md's arithmetic; scale.cpp
// documents which peer each named recipe reproduces.

// How amax_update treats a NaN element.
enum class AmaxNan : std::uint8_t {
  Propagate,  // torch.amax, CUDA max.NaN.f32: a NaN element makes amax NaN
  Drop,       // fmaxf / __hmax / tl.max: a NaN element is ignored (TE, DeepEP, Triton FP8 kernels)
  AsInf,      // torchao Triton MX `_triton_amax_nan_as_inf`: NaN counts as +Inf
};

// The amax floor ("eps"), and the precision and NaN behaviour of the step that applies it.
enum class AmaxFloor : std::uint8_t {
  None,
  ClampFp64,  // torch.clamp(fl64(amax), min=eps) in fp64: NaN passes through (torchao FP8 rowwise)
  ClampFp32,  // clamp(amax, min=fl32(eps)) in fp32: NaN passes through (torchao blockwise, DeepGEMM)
  LessFp32,   // `if (amax < eps) amax = eps` in fp32: NaN passes through (TE compute_scale_from_amax)
  InitFp32,   // the fmaxf reduction starts at fl32(eps): NaN becomes eps (DeepEP kFP8Margin)
};

// The scale formula, from the (floored) amax. Precision and special values per recipes.md.
enum class ScaleFormula : std::uint8_t {
  DivFp64,      // s = fl32(fl64(max_pos) / fl64(amax)); d = fl32(1/s)           torchao FP8 rowwise, blockwise
  DivFp32Te,    // TE compute_scale_from_amax: amax Inf/0/NaN -> s = 1; s = __fdiv_rn(max_pos, amax);
                // s Inf -> value_for_inf; (pow2); d = fl32(1/s)                   TE current, blockwise
  TeDelayed,    // amax finite and > 0: s = fl32(fl32(max_pos·2^-margin) / amax), Inf -> FLT_MAX;
                // otherwise the previous scale (scale_from_amax: previous scale 1)   TE delayed
  DivDecodeFp32,// d = fl32(amax / max_pos); s = fl32(1/d) after pow2             DeepGEMM
  DeepEpPair,   // s = fl32(max_pos / amax) and d = fl32(amax · rcp), both kept (not reciprocals);
                // pow2 CeilLog2Bits: e = fast_log2_ceil(amax·rcp), s = 2^-e, d = 2^e    DeepEP
  ExpFloor,     // e8m0 b = clamp(e(amax) - 127 - emax_elem, -127, 128) + 127; non-finite -> 255
  ExpCeil,      // ExpFloor with + (m(amax) != 0)                                 torchao CEIL
  ExpEven,      // amax rounded to 3 mantissa bits ((bits + 2^19) & 0xFF800000), then ExpFloor
  RceilNoSat,   // d = fl32(amax · rcp); b = RP of d to e8m0; Inf, NaN and overflow -> 255  torchao main
  RceilSat,     // the same with SATFINITE: Inf and overflow -> 254, NaN -> 255   TE MXFP8, NVIDIA
  RceilV018,    // d = fl32(amax / max_pos); NaN -> 255, Inf -> 254, else clamp(ceil(log2 d), -127, 127) + 127
  Nvfp4,        // two-level: nvfp4_block_scale (scale_from_amax: the block is the whole tensor)
};

// Rounding of an fp32 scale to a power of two (the e8m0 formulas are powers of two already).
enum class Pow2Rounding : std::uint8_t {
  None,
  FloorLog2,     // s = exp2(floor(log2 s)), floor(log2 s) by exact exponent extraction (torchao)
  MaskMantissa,  // s = bits(s) & 0xFF800000 (TE)
  CeilUe8m0,     // d = clamp(e(d) + (m(d) != 0), 1, 254) << 23 (DeepGEMM ceil_to_ue8m0)
  CeilLog2Bits,  // DeepEP fast_log2_ceil / fast_pow2 bit formulas (exact for every normal d)
};

// e8m0 byte b -> the fp32 multiplier applied before the cast.
enum class E8m0Reciprocal : std::uint8_t {
  None,          // not an e8m0 recipe
  TorchaoMain,   // e8m0_to_f32(uint8(254 - b)): 2^(127-b); 254 -> 2^-127; 255 -> NaN 0x7F800001
  Exp2fRcp,      // TE exp2f_rcp: 2^(127-b); 254 -> 2^-127; 255 -> NaN 0x7FFFFFFF
  V018Rceil,     // torchao <= v0.18 torch RCEIL: 2^(127-b), but 0 -> 1.0; 254 -> 2^-127; 255 -> NaN
  V018FloorDiv,  // torchao <= v0.18 torch FLOOR: x / max(2^(b-127), 2^-126), i.e. 0 -> 2^126; 255 -> NaN
  Exact,         // OCP MX: V / 2^(b-127) = V · 2^(127-b); 255 -> NaN
};

// The clamp of fl32(x·s) to +-max_pos before the element cast.
enum class ClampBeforeCast : std::uint8_t {
  None,         // the cast's overflow rule decides (satfinite casts: the same result)
  Propagate,    // torch.clamp: NaN stays NaN
  NanToMax,     // Triton tl.clamp on sm90+ (fmin.xorsign.abs, not NaN-propagating): NaN -> +-max with
                // the NaN's sign; device NaNs are canonical (+), so NaN -> +max
};

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
