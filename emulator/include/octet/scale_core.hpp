// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// scale_core.hpp — the per-block scale arithmetic of the recipes (reference/recipes.md), as
// __host__ __device__ functions: amax_init / amax_update, scale_from_amax, the multiply and clamp
// before the element cast, the element cast itself, and the e8m0 helpers. scale.cpp's public
// functions (scale.hpp) are thin wrappers over these, and the CUDA quantisers (backends/cuda)
// call the very same code, so host and device share one definition of every scale.
//
// The functions are templates over the recipe type R: octet::Recipe on the host (its fields are
// read in place, at no cost per call) or octet::RecipeCore, the trivially copyable numeric part
// of a Recipe that a kernel receives by value (make_core in scale.hpp builds it). Both name the
// fields identically; the one thing a RecipeCore carries that a Recipe looks up is the CastSpec
// of NVFP4's e4m3 block scale (nvfp4_scale_cast, an overload per type).
//
// Arithmetic rules (as scale.cpp documents): every fp32 step is one IEEE operation rounded to
// nearest even (device: the __f*_rn intrinsics, so nvcc cannot contract a multiply into an FMA;
// host: octet builds with -ffp-contract=off), subnormals are kept, every NaN that a multiply or
// a scale produces is made the canonical 0x7FFFFFFF (what PTX arithmetic produces), and every
// predicate on a float (NaN, Inf, signs) is a bit test. No std:: function without a device
// version is used.
#pragma once

#include <bit>
#include <cstdint>
#include <type_traits>

#include "octet/cast.hpp"
#include "octet/format.hpp"

namespace octet {

// How the stored scale is to be read.
enum class ScaleStorage : std::uint8_t {
  EncodeFp32,   // fp32 bits of the multiplier s (torchao FP8 rowwise returns s; its GEMM takes 1/s)
  DecodeFp32,   // fp32 bits of the dequantisation multiplier d (TE scale_inv, DeepGEMM sf,
                // torchao blockwise div_rn(1, s), DeepEP scale_inv)
  E8m0,         // one e8m0fnu byte: d = 2^(b - 127) (MX)
  E4m3,         // one e4m3fn byte (NVFP4 block scales; the global fp32 scale is separate)
};

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

// The result of one block's scale computation.
struct BlockScale {
  float encode = 1.0f;        // multiplier before the cast (for MX: 2^(127 - b), exact)
  float decode = 1.0f;        // dequantisation multiplier (what a GEMM applies)
  std::uint32_t stored = 0;   // fp32 bits or the e8m0 / e4m3 byte, per Recipe::storage
};

// The numeric fields of a Recipe (scale.hpp documents each), trivially copyable so that a kernel
// takes it by value. Built by make_core(const Recipe&).
struct RecipeCore {
  FormatId element = FormatId::e4m3fn;
  ScaleStorage storage = ScaleStorage::EncodeFp32;
  float max_pos = 448.0f;
  int emax_elem = 8;
  AmaxNan amax_nan = AmaxNan::Propagate;
  AmaxFloor amax_floor = AmaxFloor::None;
  double eps = 0.0;
  ScaleFormula formula = ScaleFormula::DivFp64;
  Pow2Rounding pow2 = Pow2Rounding::None;
  E8m0Reciprocal e8m0_reciprocal = E8m0Reciprocal::None;
  std::uint32_t rcp448_bits = 0x3B124925u;
  float value_for_inf = 3.40282347e38f;
  ClampBeforeCast clamp = ClampBeforeCast::None;
  CastSpec cast{};                // the element cast
  CastSpec nvfp4_scale_cast{};    // NVFP4: the cast of the e4m3 block scale (torch's e4m3fn rules)
};

OCTET_HD constexpr const CastSpec& nvfp4_scale_cast(const RecipeCore& r) { return r.nvfp4_scale_cast; }

namespace scale_core {

// ---------------------------------------------------------------------------------------------
// fp32 by bits, and single IEEE operations.

inline constexpr std::uint32_t kCanonicalNan = 0x7FFFFFFFu;  // PTX arithmetic NaN
inline constexpr std::uint32_t kFltMaxBits = 0x7F7FFFFFu;
inline constexpr std::uint32_t kInfBits = 0x7F800000u;

// On the device a constant folded from std::bit_cast passes through a host float and loses a
// signalling NaN's payload (0x7F800001 becomes 0x7FC00001); __uint_as_float keeps the bits.
OCTET_HD constexpr float f32(std::uint32_t b) {
#if defined(__CUDA_ARCH__)
  if (!std::is_constant_evaluated()) return __uint_as_float(b);
#endif
  return std::bit_cast<float>(b);
}
OCTET_HD constexpr std::uint32_t bits(float f) { return std::bit_cast<std::uint32_t>(f); }
OCTET_HD constexpr bool is_nan(float v) { return (bits(v) & 0x7FFFFFFFu) > kInfBits; }
OCTET_HD constexpr bool is_inf(float v) { return (bits(v) & 0x7FFFFFFFu) == kInfBits; }
OCTET_HD constexpr bool is_finite(float v) { return (bits(v) & 0x7FFFFFFFu) < kInfBits; }
OCTET_HD constexpr bool sign_bit(float v) { return (bits(v) >> 31) != 0; }
OCTET_HD constexpr bool is_nan(double v) { return (std::bit_cast<std::uint64_t>(v) << 1) > (0x7FF0000000000000ull << 1); }
OCTET_HD constexpr float magnitude(float v) { return f32(bits(v) & 0x7FFFFFFFu); }
OCTET_HD constexpr float canonical(float v) { return is_nan(v) ? f32(kCanonicalNan) : v; }

// One rounded-to-nearest-even operation each (never contracted into an FMA on the device).
OCTET_HD inline float mul(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
OCTET_HD inline float div(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}
OCTET_HD inline double div(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __ddiv_rn(a, b);
#else
  return a / b;
#endif
}

// std::max / std::clamp semantics for non-NaN operands: the first of two equal values wins.
OCTET_HD constexpr float max_of(float a, float b) { return a < b ? b : a; }
OCTET_HD constexpr double max_of(double a, double b) { return a < b ? b : a; }
OCTET_HD constexpr float min_of(float a, float b) { return b < a ? b : a; }
OCTET_HD constexpr float clamp(float v, float lo, float hi) { return v < lo ? lo : hi < v ? hi : v; }
OCTET_HD constexpr int clamp(int v, int lo, int hi) { return v < lo ? lo : hi < v ? hi : v; }

// CUDA fmaxf / PTX max.f32: a NaN operand (quiet or signalling) is ignored; two NaNs give NaN.
OCTET_HD constexpr float device_fmax(float a, float b) {
  if (is_nan(a)) return is_nan(b) ? f32(kCanonicalNan) : b;
  if (is_nan(b)) return a;
  return a > b ? a : b;
}

// ---------------------------------------------------------------------------------------------
// Power-of-two steps.

// exp2(floor(log2 s)) for s >= 0, floor(log2 s) by exponent extraction (exact): 0 -> 0 (log2 0 =
// -inf), Inf and NaN unchanged; an fp32-subnormal s keeps its top bit.
OCTET_HD constexpr float pow2_floor(float s) {
  if (!(s > 0.0f) || is_inf(s)) return s;
  const std::uint32_t b = bits(s);
  if (b >= 0x00800000u) return f32(b & 0xFF800000u);
  return f32(1u << detail::top_bit(b));
}

// DeepGEMM ceil_to_ue8m0: exp = e(d) + (m(d) != 0), bits = clamp(exp, 1, 254) << 23 (NaN and Inf:
// 2^127, as the bit formula gives).
OCTET_HD constexpr float ceil_ue8m0(float d) {
  const std::uint32_t b = bits(d) & 0x7FFFFFFFu;
  const int exp = int(b >> 23) + ((b & 0x7FFFFFu) != 0 ? 1 : 0);
  return f32(std::uint32_t(clamp(exp, 1, 254)) << 23);
}

// ceil(log2 d) for a finite d > 0, exactly (d = 2^k exactly gives k).
OCTET_HD constexpr int ceil_log2(float d) {
  const std::uint32_t b = bits(d) & 0x7FFFFFFFu;
  const std::uint32_t field = b >> 23, mant = b & 0x7FFFFFu;
  if (field != 0) return int(field) - 127 + (mant != 0 ? 1 : 0);
  const int top = detail::top_bit(mant);  // d = mant * 2^-149, floor(log2 d) = top - 149
  return top - 149 + (mant != (1u << top) ? 1 : 0);
}

template <class R>
OCTET_HD constexpr float apply_pow2(const R& r, float s) {
  switch (r.pow2) {
    case Pow2Rounding::FloorLog2: return pow2_floor(s);
    case Pow2Rounding::MaskMantissa: return f32(bits(s) & 0xFF800000u);
    default: return s;
  }
}

// ---------------------------------------------------------------------------------------------
// e8m0 scale bytes.

// RP conversion of a non-negative fp32 d to an e8m0 byte (cvt.rp[.satfinite].ue8m0): NaN -> 255,
// Inf and d > 2^127 -> 255 (254 with satfinite), fp32 subnormals: d > 2^-127 -> 1, else 0.
OCTET_HD constexpr std::uint32_t e8m0_rp(float d, bool satfinite) {
  if (is_nan(d)) return 255;
  if (is_inf(d)) return satfinite ? 254 : 255;
  const std::uint32_t b = bits(d) & 0x7FFFFFFFu;
  const std::uint32_t e = b >> 23, m = b & 0x7FFFFFu;
  // RP with the implicit bit as the LSB: an fp32 subnormal rounds up to 2^-126 only above 2^-127.
  const std::uint32_t up = e == 0 ? (m > 0x400000u ? 1u : 0u) : (m != 0 ? 1u : 0u);
  const std::uint32_t byte = e + up;
  if (byte == 255) return satfinite ? 254 : 255;
  return byte;
}

// Decode value 2^(b-127) as fp32 (0 -> 0x00400000, 255 -> NaN).
OCTET_HD constexpr float e8m0_decode(std::uint32_t b) {
  b &= 0xFFu;
  if (b == 255) return f32(kCanonicalNan);
  if (b == 0) return f32(0x00400000u);
  return f32(b << 23);
}

// The fp32 multiplier of an MX recipe's byte b (Recipe::e8m0_reciprocal); E8m0Reciprocal::None
// (not an MX recipe) gives NaN here, and scale.cpp's wrapper throws.
template <class R>
OCTET_HD constexpr float e8m0_encode_multiplier(const R& r, std::uint32_t b) {
  b &= 0xFFu;
  // 2^(127 - b) for b <= 253 has the biased exponent 254 - b; b = 254 gives 2^-127 = 0x00400000.
  const float exact = b == 254 ? f32(0x00400000u) : f32(((254u - b) & 0xFFu) << 23);
  switch (r.e8m0_reciprocal) {
    case E8m0Reciprocal::TorchaoMain: return b == 255 ? f32(0x7F800001u) : exact;
    case E8m0Reciprocal::Exp2fRcp: return b == 255 ? f32(0x7FFFFFFFu) : exact;
    case E8m0Reciprocal::V018Rceil: return b == 255 ? f32(kCanonicalNan) : b == 0 ? 1.0f : exact;
    case E8m0Reciprocal::V018FloorDiv: return b == 255 ? f32(kCanonicalNan) : b == 0 ? 0x1p126f : exact;
    case E8m0Reciprocal::Exact: return b == 255 ? f32(kCanonicalNan) : exact;
    case E8m0Reciprocal::None: break;
  }
  return f32(kCanonicalNan);
}

// torchao FLOOR / CEIL (and OCP): b = clamp(e(a) - 127 - emax_elem [+ (m != 0)], -127, 128) + 127;
// a non-finite amax gives 255.
template <class R>
OCTET_HD constexpr std::uint32_t exponent_byte(const R& r, float a, bool ceil) {
  if (!is_finite(a)) return 255;
  const std::uint32_t b = bits(a) & 0x7FFFFFFFu;
  const int unbiased = int(b >> 23) - 127 - r.emax_elem + ((ceil && (b & 0x7FFFFFu) != 0) ? 1 : 0);
  return std::uint32_t(clamp(unbiased, -127, 128) + 127);
}

// torchao EVEN: round amax to the element's mantissa bits (ties away in the bit add), keep the
// exponent field only, then FLOOR. A NaN amax stays NaN (torch restores it); an amax that rounds
// to Inf (>= 0x7F7C0000 for e4m3) gives 255 like FLOOR of Inf.
template <class R>
OCTET_HD constexpr std::uint32_t even_byte(const R& r, float a) {
  if (is_nan(a)) return 255;
  const int mbits = format_of(r.element).mantissa_bits;
  const std::uint32_t rounded = (bits(a) + (1u << (23 - mbits - 1))) & 0xFF800000u;
  return exponent_byte(r, f32(rounded), false);
}

// torchao <= v0.18 torch RCEIL: d = amax / max_pos; NaN -> 255, Inf -> 254, otherwise
// clamp(ceil(log2 d), -127, 127) + 127 (d = 0: log2 = -inf -> 0).
template <class R>
OCTET_HD inline std::uint32_t rceil_v018_byte(const R& r, float amax) {
  const float d = div(amax, r.max_pos);
  if (is_nan(d)) return 255;
  if (is_inf(d)) return 254;
  if (d == 0.0f) return 0;
  return std::uint32_t(clamp(ceil_log2(d), -127, 127) + 127);
}

// ---------------------------------------------------------------------------------------------
// The fp32 scale formulas. Each gives (encode, decode) as the recipe computes them.

struct Pair {
  float encode;
  float decode;
};

// The amax floor, in the recipe's precision; the fp64 result feeds DivFp64.
template <class R>
OCTET_HD constexpr double floored_amax(const R& r, float amax) {
  switch (r.amax_floor) {
    case AmaxFloor::None: return amax;
    case AmaxFloor::ClampFp64: return is_nan(amax) ? double(amax) : max_of(double(amax), r.eps);
    case AmaxFloor::ClampFp32: return is_nan(amax) ? amax : max_of(amax, float(r.eps));
    case AmaxFloor::LessFp32: return amax < float(r.eps) ? float(r.eps) : amax;
    case AmaxFloor::InitFp32: return device_fmax(amax, float(r.eps));
  }
  return amax;
}

// TE compute_scale_from_amax (recipes.md §4.1), steps 1-5, then scale_inv = 1/scale.
template <class R>
OCTET_HD inline Pair te_scale(const R& r, float amax) {
  const float a = float(floored_amax(r, amax));
  float s = 1.0f;
  if (!(is_inf(a) || a == 0.0f || is_nan(a))) {
    s = div(r.max_pos, a);  // __fdiv_rn
    if (is_inf(s)) s = r.value_for_inf;
    s = apply_pow2(r, s);
  }
  return {s, div(1.0f, s)};
}

// DeepEP calculate_fp8_scales: the amax already includes kFP8Margin (fmaxf from 1e-4).
template <class R>
OCTET_HD inline Pair deepep_scale(const R& r, float amax) {
  const float a = float(floored_amax(r, amax));
  const float rcp = f32(r.rcp448_bits);
  if (r.pow2 == Pow2Rounding::CeilLog2Bits) {
    // fast_log2_ceil(amax * R) and fast_pow2(+-e), as bit formulas: exact for every normal d
    // (every finite amax >= 1e-4); an Inf amax gives e = 128, so scale = bits(0xFF800000) = -Inf
    // and scale_inv = +Inf, which the source's wrapping shifts produce.
    const std::uint32_t db = bits(mul(a, rcp));
    const int e = int((db >> 23) & 0xFF) - 127 + ((db & 0x7FFFFFu) != 0 ? 1 : 0);
    return {f32(std::uint32_t(-e + 127) << 23), f32(std::uint32_t(e + 127) << 23)};
  }
  return {div(r.max_pos, a), mul(a, rcp)};
}

// TE DelayedScaling with an amax already reduced over the history (fmaxf from 0), the previous
// scale and 2^-margin applied to max_pos: s = scaled_max / amax when amax is finite and > 0.
template <class R>
OCTET_HD inline Pair te_delayed_pair(const R&, float amax, float previous_scale, float scaled_max) {
  float s = previous_scale;
  if (is_finite(amax) && amax > 0.0f) s = div(scaled_max, amax);
  if (is_inf(s)) s = f32(kFltMaxBits);
  return {s, div(1.0f, s)};
}

template <class R>
OCTET_HD constexpr BlockScale from_pair(const R& r, Pair p) {
  BlockScale s;
  s.encode = canonical(p.encode);
  s.decode = canonical(p.decode);
  s.stored = bits(r.storage == ScaleStorage::EncodeFp32 ? s.encode : s.decode);
  return s;
}

template <class R>
OCTET_HD constexpr BlockScale from_e8m0(const R& r, std::uint32_t b) {
  BlockScale s;
  s.stored = b;
  s.encode = e8m0_encode_multiplier(r, b);
  s.decode = e8m0_decode(b);
  return s;
}

// ---------------------------------------------------------------------------------------------
// NVFP4 (recipes.md §4.6).

// e4m3fn code -> its value in fp32 (exact; 0x7F / 0xFF -> NaN).
OCTET_HD constexpr float e4m3fn_value(std::uint32_t code) {
  code &= 0xFFu;
  const std::uint32_t sign = (code & 0x80u) << 24;
  const std::uint32_t field = (code >> 3) & 0xFu, mant = code & 7u;
  if (field == 0xF && mant == 7) return f32(sign | 0x7FC00000u);
  if (field == 0) {  // mant * 2^-9
    if (mant == 0) return f32(sign);
    const int top = detail::top_bit(mant);  // 0..2
    return f32(sign | (std::uint32_t(top - 9 + 127) << 23) | ((mant << (23 - top)) & 0x7FFFFFu));
  }
  return f32(sign | ((field - 7 + 127) << 23) | (mant << 20));
}

OCTET_HD inline float nvfp4_global_encode(float global_amax) {
  if (global_amax == 0.0f) return 1.0f;
  const float g = div(448.0f * 6.0f, global_amax);
  return is_nan(g) ? canonical(g) : min_of(g, f32(kFltMaxBits));
}

template <class R>
OCTET_HD inline BlockScale nvfp4_scale_from_stored(const R&, float global_encode, std::uint32_t stored) {
  const float decode_f32 = e4m3fn_value(stored);
  const float w = mul(decode_f32, div(1.0f, global_encode));
  float enc = div(1.0f, w);
  if (!is_nan(enc)) enc = min_of(enc, f32(kFltMaxBits));
  BlockScale s;
  s.encode = canonical(enc);
  s.decode = canonical(w);
  s.stored = stored & 0xFFu;
  return s;
}

template <class R>
OCTET_HD inline BlockScale nvfp4_block_scale(const R& r, float global_encode, float block_amax) {
  const float t = mul(global_encode, div(1.0f, 6.0f));
  float u = mul(block_amax, t);
  if (!is_nan(u)) u = clamp(min_of(u, f32(kFltMaxBits)), -448.0f, 448.0f);
  const std::uint32_t code = encode_bits<Fp32Source>(format_of(FormatId::e4m3fn), nvfp4_scale_cast(r), bits(canonical(u)));
  return nvfp4_scale_from_stored(r, global_encode, code);
}

// ---------------------------------------------------------------------------------------------
// The per-block API (scale.hpp documents each function).

template <class R>
OCTET_HD constexpr float amax_init(const R& r) {
  return r.amax_floor == AmaxFloor::InitFp32 ? float(r.eps) : 0.0f;
}

template <class R>
OCTET_HD constexpr float amax_update(const R& r, float amax, float x) {
  float a = magnitude(x);
  switch (r.amax_nan) {
    case AmaxNan::Propagate:
      if (is_nan(amax) || is_nan(a)) return f32(kCanonicalNan);
      return max_of(amax, a);
    case AmaxNan::Drop: return device_fmax(amax, a);
    case AmaxNan::AsInf:
      if (is_nan(a)) a = f32(kInfBits);
      return is_nan(amax) ? a : max_of(amax, a);
  }
  return amax;
}

template <class R>
OCTET_HD inline BlockScale scale_from_amax(const R& r, float amax) {
  switch (r.formula) {
    case ScaleFormula::DivFp64: {
      const double a = floored_amax(r, amax);
      const float s = apply_pow2(r, float(div(double(r.max_pos), a)));
      return from_pair(r, {s, div(1.0f, s)});  // blockwise: tl.div_rn(1.0, s)
    }
    case ScaleFormula::DivFp32Te: return from_pair(r, te_scale(r, amax));
    case ScaleFormula::TeDelayed:  // a one-entry history, previous scale 1, margin 0
      return from_pair(r, te_delayed_pair(r, device_fmax(0.0f, amax), 1.0f, r.max_pos));
    case ScaleFormula::DivDecodeFp32: {
      float d = div(float(floored_amax(r, amax)), r.max_pos);
      if (r.pow2 == Pow2Rounding::CeilUe8m0) d = ceil_ue8m0(d);
      return from_pair(r, {div(1.0f, d), d});
    }
    case ScaleFormula::DeepEpPair: return from_pair(r, deepep_scale(r, amax));
    case ScaleFormula::ExpFloor: return from_e8m0(r, exponent_byte(r, amax, false));
    case ScaleFormula::ExpCeil: return from_e8m0(r, exponent_byte(r, amax, true));
    case ScaleFormula::ExpEven: return from_e8m0(r, even_byte(r, amax));
    case ScaleFormula::RceilNoSat: return from_e8m0(r, e8m0_rp(mul(amax, f32(r.rcp448_bits)), false));
    case ScaleFormula::RceilSat: return from_e8m0(r, e8m0_rp(mul(amax, f32(r.rcp448_bits)), true));
    case ScaleFormula::RceilV018: return from_e8m0(r, rceil_v018_byte(r, amax));
    case ScaleFormula::Nvfp4: return nvfp4_block_scale(r, nvfp4_global_encode(amax), amax);
  }
  return from_pair(r, {f32(kCanonicalNan), f32(kCanonicalNan)});  // not reached: every formula above
}

// The value the element cast receives: fl32(x·encode), canonical NaN, then the recipe's clamp.
template <class R>
OCTET_HD inline float scaled_element(const R& r, const BlockScale& s, float x) {
  float y = canonical(mul(x, s.encode));
  switch (r.clamp) {
    case ClampBeforeCast::None: break;
    case ClampBeforeCast::Propagate:
      if (!is_nan(y)) y = clamp(y, -r.max_pos, r.max_pos);
      break;
    case ClampBeforeCast::NanToMax:
      y = is_nan(y) ? (sign_bit(y) ? -r.max_pos : r.max_pos) : clamp(y, -r.max_pos, r.max_pos);
      break;
  }
  return y;
}

// The element code: scaled_element, then the recipe's CastSpec (octet::encode_bits).
template <class R>
OCTET_HD inline std::uint32_t quantize_element(const R& r, const BlockScale& s, float x) {
  return encode_bits<Fp32Source>(format_of(r.element), r.cast, bits(scaled_element(r, s, x)));
}

// code -> value * decode, in double (exact).
template <class R>
OCTET_HD constexpr double dequantize_element(const R& r, const BlockScale& s, std::uint32_t code) {
  return decode(format_of(r.element), code) * double(s.decode);
}

// The BlockScale a stored scale stands for.
template <class R>
OCTET_HD inline BlockScale scale_from_stored(const R& r, std::uint32_t stored) {
  switch (r.storage) {
    case ScaleStorage::EncodeFp32: {
      const float s = f32(stored);
      return from_pair(r, {s, div(1.0f, s)});
    }
    case ScaleStorage::DecodeFp32: {
      // The recipes compute s from amax, not from d: fl32(1/d) is exact for power-of-two scales
      // (and for DeepGEMM, which computes 1/sf itself); otherwise it can be 1 ulp from the s used.
      const float d = f32(stored);
      BlockScale s = from_pair(r, {div(1.0f, d), d});
      s.stored = stored;
      return s;
    }
    case ScaleStorage::E8m0: return from_e8m0(r, stored);
    case ScaleStorage::E4m3: return nvfp4_scale_from_stored(r, 1.0f, stored);
  }
  return from_pair(r, {f32(kCanonicalNan), f32(kCanonicalNan)});  // not reached
}

}  // namespace scale_core
}  // namespace octet
