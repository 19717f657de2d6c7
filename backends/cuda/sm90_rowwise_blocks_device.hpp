// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// sm90_rowwise_blocks_device.hpp — the element cast of the kernels that quantise on the way
// (sm90_row_chunks_device.cuh for the a2a exchange and SwiGLU, sm90_fp8flow_transpose.cu): which
// cast a recipe's elements can take (element_cast_of), the packed PTX cvt, and the codes of two
// elements under a block scale (code_pair). Included by .cu files only. Every arithmetic step is
// scale_core.hpp's (the emulator's own functions).
#pragma once

#include <cstdint>
#include <cstring>

#include <cuda_fp16.h>

#include "cuda_cast.hpp"
#include "octet/scale.hpp"
#include "octet/scale_core.hpp"

namespace octet::cuda::rowwise {

// How the element cast runs: octet::encode_bits with the recipe's CastSpec, or the PTX
// cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 where it gives the same codes (cuda_cast.hpp
// hardware_cvt_unsupported: RNE, SatFinite, subnormals kept); a NaN value still takes encode_bits
// (its code is the CastSpec's NaN rule), as sm90_cast.cu's variant 2 does.
enum class ElementCast : std::uint8_t { generic, cvt_e4m3, cvt_e5m2 };

template <ElementCast kCast>
__device__ inline std::uint16_t cvt_pair(float hi, float lo) {
  std::uint16_t d;
  if constexpr (kCast == ElementCast::cvt_e4m3) asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(d) : "f"(hi), "f"(lo));
  else asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;" : "=h"(d) : "f"(hi), "f"(lo));
  return d;
}

// The values of two e4m3fn (cvt_e4m3) or e5m2 (cvt_e5m2) codes, the low byte first, by the packed
// cvt.rn.f16x2.{e4m3x2,e5m2x2} (PTX ISA 7.8, sm_89): exact, every finite e4m3fn / e5m2 value is
// an f16 value; NaN codes give a NaN, e5m2's Inf codes Inf.
template <ElementCast kCast>
__device__ __forceinline__ float2 decode_pair(std::uint16_t pair) {
  static_assert(kCast != ElementCast::generic, "decode_pair: e4m3fn or e5m2 codes only");
  std::uint32_t h2 = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  if constexpr (kCast == ElementCast::cvt_e4m3) asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(h2) : "h"(pair));
  else asm("cvt.rn.f16x2.e5m2x2 %0, %1;" : "=r"(h2) : "h"(pair));
#else
  __trap();  // the launchers take this path on sm_89 and later only
#endif
  __half2 h;
  std::memcpy(&h, &h2, 4);
  return __half22float2(h);
}

// The cast a recipe's elements can take (host).
inline ElementCast element_cast_of(const Recipe& r) {
  const Format& f = format_of(element_format(r));
  if (hardware_cvt_unsupported(SourceType::fp32, f, element_cast(r))) return ElementCast::generic;
  return f.id == FormatId::e4m3fn ? ElementCast::cvt_e4m3 : ElementCast::cvt_e5m2;
}

// The element code of a NaN value under the recipe's CastSpec (octet::encode_bits), out of line:
// code_pair's callers inline many element casts, and dozens of inlined copies of the generic
// encoder would not fit the instruction cache.
__device__ __noinline__ inline std::uint32_t nan_element_code(const RecipeCore& rec, float nan) {
  return encode_bits<Fp32Source>(format_of(rec.element), rec.cast, scale_core::bits(nan));
}

// The codes of two elements under `s` (scale_core::quantize_element: scaled_element, then the
// cast), low byte `lo`'s; a NaN's code through nan_element_code.
// R: RecipeCore, or a FixedCore (sm90_fixed_core.hpp) whose compile-time rules fold the switches.
template <ElementCast kCast = ElementCast::generic, class R>
__device__ inline std::uint16_t code_pair(const R& rec, const BlockScale& s, float lo, float hi) {
  if constexpr (kCast == ElementCast::generic) {
    return std::uint16_t(scale_core::quantize_element(rec, s, lo) | scale_core::quantize_element(rec, s, hi) << 8);
  } else {
    const float a = scale_core::scaled_element(rec, s, lo), b = scale_core::scaled_element(rec, s, hi);
    std::uint16_t pair = cvt_pair<kCast>(b, a);
    if (scale_core::is_nan(a)) pair = (pair & 0xFF00u) | std::uint16_t(nan_element_code(rec, a));
    if (scale_core::is_nan(b)) pair = (pair & 0x00FFu) | std::uint16_t(nan_element_code(rec, b) << 8);
    return pair;
  }
}

}  // namespace octet::cuda::rowwise
