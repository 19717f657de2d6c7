// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// sm90_rowwise_blocks_device.hpp — device pieces shared by the kernels that quantise rows in 1x32 /
// 1x128 blocks on the way (sm90_bf16_swiglu_fp8.cu, sm90_a2a_emulation.cu); included by .cu files
// only. A thread holds 8 consecutive elements of a row; a block of B elements is B/8 neighbouring
// lanes (aligned to B/8), whose amax is combined with shuffles. amax_update is a max under the
// recipe's NaN rule, so the combination order does not change the result. Every arithmetic step is
// scale_core.hpp's (the emulator's own functions).
#pragma once

#include <cstdint>

#include "cuda_cast.hpp"
#include "octet/scale.hpp"
#include "octet/scale_core.hpp"

namespace octet::cuda::rowwise {

inline constexpr int kPerThread = 8;

// 8 consecutive elements: bf16 bits (one 16-byte access) or fp32 (two).
template <class In> struct Elem;
template <> struct Elem<std::uint16_t> {
  __device__ static void load8(const std::uint16_t* p, float v[8]) {
    const uint4 w = __ldg(reinterpret_cast<const uint4*>(p));
    const std::uint32_t words[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
    for (int e = 0; e < 8; ++e) v[e] = __uint_as_float(((words[e / 2] >> (16 * (e % 2))) & 0xFFFFu) << 16);
  }
  __device__ static float widen(std::uint16_t b) { return __uint_as_float(std::uint32_t(b) << 16); }
  __device__ static void store8(std::uint16_t* p, const std::uint16_t v[8]) {
    uint4 w;
    w.x = v[0] | std::uint32_t(v[1]) << 16;
    w.y = v[2] | std::uint32_t(v[3]) << 16;
    w.z = v[4] | std::uint32_t(v[5]) << 16;
    w.w = v[6] | std::uint32_t(v[7]) << 16;
    *reinterpret_cast<uint4*>(p) = w;
  }
};
template <> struct Elem<float> {
  __device__ static void load8(const float* p, float v[8]) {
    const float4 lo = __ldg(reinterpret_cast<const float4*>(p)), hi = __ldg(reinterpret_cast<const float4*>(p) + 1);
    v[0] = lo.x, v[1] = lo.y, v[2] = lo.z, v[3] = lo.w, v[4] = hi.x, v[5] = hi.y, v[6] = hi.z, v[7] = hi.w;
  }
  __device__ static float widen(float v) { return v; }
  __device__ static void store8(float* p, const float v[8]) {
    reinterpret_cast<float4*>(p)[0] = make_float4(v[0], v[1], v[2], v[3]);
    reinterpret_cast<float4*>(p)[1] = make_float4(v[4], v[5], v[6], v[7]);
  }
};

// The BlockScale of the block of B elements that this lane's 8 values belong to. Every lane of the
// warp must call it (the shuffles use the full mask).
template <int B>
__device__ inline BlockScale block_scale8(const RecipeCore& rec, const float v[8]) {
  float amax = scale_core::amax_init(rec);
#pragma unroll
  for (int e = 0; e < kPerThread; ++e) amax = scale_core::amax_update(rec, amax, v[e]);
#pragma unroll
  for (int s = 1; s < B / kPerThread; s *= 2)
    amax = scale_core::amax_update(rec, amax, __shfl_xor_sync(0xFFFFFFFFu, amax, s));
  return scale_core::scale_from_amax(rec, amax);
}

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

// The cast a recipe's elements can take (host).
inline ElementCast element_cast_of(const Recipe& r) {
  const Format& f = format_of(element_format(r));
  if (hardware_cvt_unsupported(SourceType::fp32, f, element_cast(r))) return ElementCast::generic;
  return f.id == FormatId::e4m3fn ? ElementCast::cvt_e4m3 : ElementCast::cvt_e5m2;
}

// The element code of a NaN value under the recipe's CastSpec (octet::encode_bits), out of line:
// for kernels that inline many element casts, where dozens of inlined copies of the generic
// encoder would not fit the instruction cache.
__device__ __noinline__ inline std::uint32_t nan_element_code(const RecipeCore& rec, float nan) {
  return encode_bits<Fp32Source>(format_of(rec.element), rec.cast, scale_core::bits(nan));
}

// The codes of two elements under `s` (scale_core::quantize_element: scaled_element, then the
// cast), low byte `lo`'s. kNanOutOfLine: a NaN's code through nan_element_code.
template <ElementCast kCast = ElementCast::generic, bool kNanOutOfLine = false>
__device__ inline std::uint16_t code_pair(const RecipeCore& rec, const BlockScale& s, float lo, float hi) {
  if constexpr (kCast == ElementCast::generic) {
    return std::uint16_t(scale_core::quantize_element(rec, s, lo) | scale_core::quantize_element(rec, s, hi) << 8);
  } else {
    const float a = scale_core::scaled_element(rec, s, lo), b = scale_core::scaled_element(rec, s, hi);
    std::uint16_t pair = cvt_pair<kCast>(b, a);
    auto nan_code = [&](float v) -> std::uint32_t {
      if constexpr (kNanOutOfLine) return nan_element_code(rec, v);
      else return encode_bits<Fp32Source>(format_of(rec.element), rec.cast, scale_core::bits(v));
    };
    if (scale_core::is_nan(a)) pair = (pair & 0xFF00u) | std::uint16_t(nan_code(a));
    if (scale_core::is_nan(b)) pair = (pair & 0x00FFu) | std::uint16_t(nan_code(b) << 8);
    return pair;
  }
}

// The stored scale of block `index`: an e8m0 byte (B = 32) or fp32 bits (B = 128); written by the
// block's first lane.
template <int B>
__device__ inline void store_scale(void* scales, std::int64_t index, const BlockScale& s) {
  if (threadIdx.x % (B / kPerThread) != 0) return;
  if constexpr (B == 32) static_cast<std::uint8_t*>(scales)[index] = std::uint8_t(s.stored);
  else static_cast<std::uint32_t*>(scales)[index] = s.stored;
}

}  // namespace octet::cuda::rowwise
