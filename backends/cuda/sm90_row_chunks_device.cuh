// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// sm90_row_chunks_device.cuh — the hot loop pieces of the kernels that quantise rows in 1x32 / 1x128
// blocks on the way (sm90_bf16_swiglu_fp8.cu, sm90_a2a_emulation.cu); included by .cu files only.
// A thread holds a chunk of 8 consecutive elements of a row as fp32 bit patterns; a block of B
// elements is B/8 neighbouring lanes, combined with shuffles. Every scale is scale_core.hpp's
// (the emulator's own functions), computed once per chunk from the block's amax.
//
// amax: amax_update (scale_core.hpp) is a maximum of |x| under a NaN rule, so its fold over a block
// in any order equals amax_update(amax_update(amax_init, max |x| over the non-NaN elements), NaN)
// when the block holds a NaN, and amax_update(amax_init, max |x|) otherwise (a NaN amax is always
// the canonical NaN, so the order cannot change its payload). The magnitudes of non-NaN fp32 values
// order like their bit patterns as unsigned integers, so a block reduces one uint32 key: the
// magnitude bits, a NaN mapped above every magnitude (kNanKey) when the recipe propagates NaN or
// counts it as Inf, and to 0 when the recipe drops NaN (then no NaN can win).
//
// Cast: cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 where rowwise::element_cast_of proved it equal to the
// recipe's CastSpec for every non-NaN value; a chunk holding a NaN after the scale takes
// octet::encode_bits for all 8 elements, out of line (one uniform branch per chunk).
#pragma once

#include <cuda_bf16.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

#include "cuda_check.hpp"
#include "octet/cast.hpp"
#include "octet/scale.hpp"
#include "octet/scale_core.hpp"
#include "sm90_fixed_core.hpp"
#include "sm90_quant_common.cuh"
#include "sm90_rowwise_blocks_device.hpp"

namespace octet::cuda::row_chunks {

inline constexpr int kChunk = 8;
inline constexpr std::uint32_t kInfBits = 0x7F800000u;
inline constexpr std::uint32_t kNanKey = 0x7F800001u;

// Eight elements as fp32 bit patterns (bf16 widened exactly).
struct Chunk {
  std::uint32_t v[kChunk];
};

// 8 elements at p (16-byte aligned): one 16-byte load for bf16, two for fp32; read-only path.
__device__ __forceinline__ Chunk load_chunk(const std::uint16_t* p) {
  const uint4 w = __ldg(reinterpret_cast<const uint4*>(p));
  const std::uint32_t words[4] = {w.x, w.y, w.z, w.w};
  Chunk c;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    c.v[2 * k] = words[k] << 16;
    c.v[2 * k + 1] = words[k] & 0xFFFF0000u;
  }
  return c;
}
__device__ __forceinline__ Chunk load_chunk(const float* p) {
  const uint4 lo = __ldg(reinterpret_cast<const uint4*>(p)), hi = __ldg(reinterpret_cast<const uint4*>(p) + 1);
  return Chunk{{lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w}};
}

// The storage words of a chunk as loaded (bf16: one uint4, fp32: two), widened when used: a
// thread that keeps several chunks in flight holds half the registers for bf16.
template <class In>
struct RawChunk {
  static constexpr int kVecs = int(sizeof(In)) * kChunk / 16;
  uint4 w[kVecs];
  __device__ __forceinline__ void load(const In* p) {
#pragma unroll
    for (int k = 0; k < kVecs; ++k) w[k] = __ldg(reinterpret_cast<const uint4*>(p) + k);
  }
  __device__ __forceinline__ Chunk chunk() const {
    Chunk c;
    if constexpr (kVecs == 1) {
      const std::uint32_t words[4] = {w[0].x, w[0].y, w[0].z, w[0].w};
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        c.v[2 * k] = words[k] << 16;
        c.v[2 * k + 1] = words[k] & 0xFFFF0000u;
      }
    } else {
      c = Chunk{{w[0].x, w[0].y, w[0].z, w[0].w, w[1].x, w[1].y, w[1].z, w[1].w}};
    }
    return c;
  }
};

// Stores 8 values held as fp32 bits; for bf16 the bits must be widened bf16 (low halves zero).
__device__ __forceinline__ void store_chunk(std::uint16_t* p, const Chunk& c) {
  uint4 w;
  w.x = (c.v[0] >> 16) | c.v[1];
  w.y = (c.v[2] >> 16) | c.v[3];
  w.z = (c.v[4] >> 16) | c.v[5];
  w.w = (c.v[6] >> 16) | c.v[7];
  *reinterpret_cast<uint4*>(p) = w;
}
__device__ __forceinline__ void store_chunk(float* p, const Chunk& c) {
  reinterpret_cast<uint4*>(p)[0] = make_uint4(c.v[0], c.v[1], c.v[2], c.v[3]);
  reinterpret_cast<uint4*>(p)[1] = make_uint4(c.v[4], c.v[5], c.v[6], c.v[7]);
}

__device__ __forceinline__ float value(const Chunk& c, int e) { return __uint_as_float(c.v[e]); }

// ---------------------------------------------------------------------------------------------
// Recipes with compile-time scale rules.

// FixedCore and the production recipes' instances: sm90_fixed_core.hpp.
using cuda::DeepEpCore;
using cuda::FixedCore;
using cuda::TeBlockwiseCore;
using cuda::TeMxfp8Core;
using cuda::TorchaoMxRceilCore;

// ---------------------------------------------------------------------------------------------
// Block amax and scale.

template <class R>
__host__ __device__ inline std::uint32_t nan_key_of(const R& r) {
  return r.amax_nan == AmaxNan::Drop ? 0u : kNanKey;
}

// The largest key of the chunk's elements.
__device__ __forceinline__ std::uint32_t chunk_key(const Chunk& c, std::uint32_t nan_key) {
  std::uint32_t m = 0;
#pragma unroll
  for (int e = 0; e < kChunk; ++e) {
    const std::uint32_t mag = c.v[e] & 0x7FFFFFFFu;
    m = max(m, mag > kInfBits ? nan_key : mag);
  }
  return m;
}

// The same key from a chunk of bf16 as loaded, two elements per instruction: the quantisers'
// bf16x2 accumulators (quant::key_word: __hmax2 of the magnitudes, which skips NaN operands, or
// an integer 16x2 maximum that keeps them), then the two halves as above; any_nan: whether an
// element is NaN (the NaN-keeping maximum above 0x7F80 in a half). The per-element form takes
// about 4.5 integer instructions per element, the bottleneck of the a2a exchange (ncu, H100: ALU
// pipe 78-83% busy).
__device__ __forceinline__ std::uint32_t chunk_key(const RawChunk<std::uint16_t>& raw, std::uint32_t nan_key,
                                                   bool& any_nan) {
  const std::uint32_t words[4] = {raw.w[0].x, raw.w[0].y, raw.w[0].z, raw.w[0].w};
  std::uint32_t all = 0;  // NaN kept
#pragma unroll
  for (int k = 0; k < 4; ++k) all = quant::key_word<std::uint16_t, false>(all, words[k]);
  std::uint32_t acc = all;
  if (nan_key == 0u) {  // NaN dropped
    acc = 0;
#pragma unroll
    for (int k = 0; k < 4; ++k) acc = quant::key_word<std::uint16_t, true>(acc, words[k]);
  }
  any_nan = quant::key_bits<std::uint16_t>(all) > kInfBits;
  const std::uint32_t lo = acc << 16, hi = acc & 0xFFFF0000u;
  return max(lo > kInfBits ? nan_key : lo, hi > kInfBits ? nan_key : hi);
}

// The block's scale from its reduced key, through the recipe's amax_init / amax_update and
// scale_from_amax (the emulator's functions). `key` must already be the maximum over the block.
template <class R>
__device__ __forceinline__ BlockScale scale_of_key(const R& r, std::uint32_t key) {
  const float init = scale_core::amax_init(r);
  const float amax = key > kInfBits ? scale_core::amax_update(r, init, __uint_as_float(scale_core::kCanonicalNan))
                                    : scale_core::amax_update(r, init, __uint_as_float(key));
  return scale_core::scale_from_amax(r, amax);
}

// Maximum over aligned groups of kWidth lanes (a power of two, <= 32); every lane of the warp calls it.
template <int kWidth>
__device__ __forceinline__ std::uint32_t group_max(std::uint32_t v) {
#pragma unroll
  for (int o = kWidth / 2; o > 0; o /= 2) v = max(v, __shfl_xor_sync(0xFFFFFFFFu, v, o, kWidth));
  return v;
}

// ---------------------------------------------------------------------------------------------
// The element cast.

using rowwise::ElementCast;

// The codes of 8 values that reach the cast (after scaled_element), by the recipe's CastSpec.
// Out of line: taken for a chunk holding a NaN, or on the generic path.
static __device__ __noinline__ uint2 encode_chunk_generic(FormatId element, CastSpec cast, Chunk y) {
  const Format& f = format_of(element);
  std::uint32_t code[kChunk];
#pragma unroll
  for (int e = 0; e < kChunk; ++e) code[e] = encode_bits<Fp32Source>(f, cast, y.v[e]);
  return make_uint2(code[0] | code[1] << 8 | code[2] << 16 | code[3] << 24,
                    code[4] | code[5] << 8 | code[6] << 16 | code[7] << 24);
}

// Eight codes (element 0 in the low byte of .x) of a chunk under block scale s:
// scale_core::quantize_element per element. scaled_element makes every NaN the canonical
// 0x7FFFFFFF (and a NanToMax clamp makes it +max_pos), so the one NaN that can reach the cast has
// one code per recipe: nan_code = encode_bits(element format, cast, 0x7FFFFFFF) (the host's
// nan_code_of); the cvt paths patch it in for NaN elements instead of calling encode_bits.
// no_nan_input: the caller knows that no element of c is NaN. Under a finite nonzero encode
// multiplier no product is then NaN (x·s is NaN only for a NaN x, or for ±Inf·0 and 0·Inf), so
// scaled_element is the product and the recipe's clamp (Propagate and NanToMax clamp every
// non-NaN value alike) and no NaN code needs patching in: about 5 integer instructions per
// element fewer (the a2a exchange, ncu).
template <ElementCast kCast, class R>
__device__ __forceinline__ uint2 quantize_chunk(const R& r, const BlockScale& s, const Chunk& c,
                                                std::uint32_t nan_code, bool no_nan_input = false) {
  if constexpr (kCast != ElementCast::generic) {
    if (no_nan_input && (__float_as_uint(s.encode) & 0x7FFFFFFFu) - 1u < kInfBits - 1u) {  // finite, nonzero
      std::uint32_t pair[kChunk / 2];
#pragma unroll
      for (int e = 0; e < kChunk; e += 2) {
        float y[2];
#pragma unroll
        for (int i = 0; i < 2; ++i) {
          y[i] = scale_core::mul(value(c, e + i), s.encode);
          if (r.clamp != ClampBeforeCast::None) y[i] = scale_core::clamp(y[i], -r.max_pos, r.max_pos);
        }
        pair[e / 2] = rowwise::cvt_pair<kCast>(y[1], y[0]);  // the first source goes to the upper byte
      }
      return make_uint2(pair[0] | pair[1] << 16, pair[2] | pair[3] << 16);
    }
  }
  Chunk y;
  bool any_nan = false;
#pragma unroll
  for (int e = 0; e < kChunk; ++e) {
    y.v[e] = scale_core::bits(scale_core::scaled_element(r, s, value(c, e)));
    any_nan |= (y.v[e] & 0x7FFFFFFFu) > kInfBits;
  }
  if constexpr (kCast == ElementCast::generic) {
    return encode_chunk_generic(r.element, r.cast, y);
  } else {
    std::uint32_t pair[kChunk / 2];
#pragma unroll
    for (int e = 0; e < kChunk; e += 2)  // the first source goes to the upper byte
      pair[e / 2] = rowwise::cvt_pair<kCast>(value(y, e + 1), value(y, e));
    uint2 codes = make_uint2(pair[0] | pair[1] << 16, pair[2] | pair[3] << 16);
    if (any_nan) {
#pragma unroll
      for (int e = 0; e < kChunk; ++e) {
        if ((y.v[e] & 0x7FFFFFFFu) <= kInfBits) continue;
        std::uint32_t& word = e < 4 ? codes.x : codes.y;
        const int shift = 8 * (e % 4);
        word = (word & ~(0xFFu << shift)) | (nan_code & 0xFFu) << shift;
      }
    }
    return codes;
  }
}

// The code of the canonical NaN 0x7FFFFFFF under the recipe's element cast (host).
inline std::uint32_t nan_code_of(const RecipeCore& r) {
  return encode_bits<Fp32Source>(format_of(r.element), r.cast, scale_core::kCanonicalNan);
}

__device__ __forceinline__ std::uint32_t code_byte(const uint2& codes, int e) {
  return ((e < 4 ? codes.x : codes.y) >> (8 * (e % 4))) & 0xFFu;
}

// The stored scale of a block: an e8m0 byte (B = 32) or fp32 bits (B = 128).
template <int B>
__device__ __forceinline__ void store_scale(void* scales, std::int64_t index, std::uint32_t stored) {
  if constexpr (B == 32) static_cast<std::uint8_t*>(scales)[index] = std::uint8_t(stored);
  else static_cast<std::uint32_t*>(scales)[index] = stored;
}

// ---------------------------------------------------------------------------------------------
// Grid-stride walk over the (rows, chunks_per_row) chunks of a row-major matrix without a 64-bit
// division per step: the stride is split once into whole rows and a column rest.
struct ChunkCursor {
  std::int64_t row = 0, chunk = 0;
  __device__ __forceinline__ void advance(std::int64_t step_rows, std::int64_t step_chunks, std::int64_t per_row) {
    row += step_rows;
    chunk += step_chunks;
    if (chunk >= per_row) {
      chunk -= per_row;
      ++row;
    }
  }
};

// ---------------------------------------------------------------------------------------------
// Host: persistent grids.

// Blocks of `kernel` resident on one SM at `threads` threads and `smem` bytes of dynamic shared
// memory, computed once per kernel (the launchers call it on every launch).
template <class Kernel>
int resident_blocks_per_sm(Kernel kernel, int threads, std::size_t smem) {
  static std::mutex mutex;
  static std::vector<std::pair<const void*, int>> known;
  const void* key = reinterpret_cast<const void*>(kernel);
  const std::lock_guard<std::mutex> lock(mutex);
  for (const auto& [k, n] : known)
    if (k == key) return n;
  int n = 0;
  OCTET_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, threads, smem));
  known.emplace_back(key, n > 0 ? n : 1);
  return known.back().second;
}

// A grid of at most the resident blocks of the current device and at least one block, no more
// than `items` need at `items_per_block` each.
template <class Kernel>
unsigned persistent_grid(Kernel kernel, int threads, std::size_t smem, std::int64_t items,
                         std::int64_t items_per_block) {
  int device = 0, sms = 0;
  OCTET_CUDA_CHECK(cudaGetDevice(&device));
  OCTET_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const std::int64_t resident = std::int64_t(sms) * resident_blocks_per_sm(kernel, threads, smem);
  std::int64_t blocks = (items + items_per_block - 1) / items_per_block;
  if (blocks > resident) blocks = resident;
  return unsigned(blocks < 1 ? 1 : blocks);
}

}  // namespace octet::cuda::row_chunks
