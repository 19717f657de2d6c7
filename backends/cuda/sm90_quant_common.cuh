// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// sm90_quant_common.cuh — what every CUDA quantiser shares (sm90_bf16_fp8_*_quant.cu,
// sm90_bf16_mx_quant.cu): 8-element input chunks (one 16-byte bf16 load, two for fp32), the block
// amax as an integer maximum of magnitudes, the recipe's scale (scale_core.hpp, the same code as
// the emulator's scale.cpp) and the element cast (the PTX cvt where it equals the recipe's
// CastSpec, octet::encode_bits otherwise).
//
// amax: amax_update (scale_core.hpp) is a maximum of |x| under a NaN rule, so the fold over a block
// in any order equals amax_update(amax_update(amax_init, max |x| over the non-NaN elements), NaN)
// when the block holds a NaN, and amax_update(amax_init, max |x|) otherwise (a NaN amax is always
// the canonical NaN, so the order cannot change its payload). The magnitudes |x| of non-NaN fp32
// values order like their bit patterns as unsigned integers, so the kernels reduce one uint32 per
// block: the magnitude bits, with a NaN mapped to kNanKey (above every non-NaN magnitude) when the
// recipe propagates or saturates NaN, and to 0 when it drops NaN (then no NaN can win).
#pragma once

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <cuda_runtime.h>

#include "cuda_check.hpp"
#include "octet/cast.hpp"
#include "octet/scale.hpp"
#include "octet/scale_core.hpp"
#include "octet/tensor.hpp"

namespace octet::cuda::quant {

namespace core = ::octet::scale_core;

// Elements per chunk: one 16-byte load of bf16, two of fp32; one 8-byte store of codes.
inline constexpr int kChunk = 8;
inline constexpr std::uint32_t kInfBits = 0x7F800000u;
inline constexpr std::uint32_t kNanKey = 0x7F800001u;

// The input element types: bf16 bits or fp32 (float).
template <class In>
inline constexpr bool kIsBf16 = sizeof(In) == 2;

// How the element cast is done (chosen on the host by cast_path()).
enum class CastPath : int {
  Generic = 0,  // octet::encode_bits with the recipe's CastSpec and element format
  CvtE4m3 = 1,  // cvt.rn.satfinite.e4m3x2.f32; NaN inputs through encode_bits
  CvtE5m2 = 2,  // cvt.rn.satfinite.e5m2x2.f32; NaN inputs through encode_bits
};

// Eight input elements as fp32 bit patterns.
struct Chunk {
  std::uint32_t v[kChunk];
};

// The storage of one chunk: 4 words (bf16) or 8 words (fp32), loaded with 16-byte loads.
template <class In>
struct RawChunk {
  static constexpr int kWords = kChunk * int(sizeof(In)) / 4;
  std::uint32_t w[kWords];

  __device__ __forceinline__ static RawChunk pack(const Chunk& c) {
    RawChunk r;
#pragma unroll
    for (int k = 0; k < kWords; ++k) {
      if constexpr (kIsBf16<In>) r.w[k] = (c.v[2 * k] >> 16) | (c.v[2 * k + 1] & 0xFFFF0000u);
      else r.w[k] = c.v[k];
    }
    return r;
  }
  __device__ __forceinline__ Chunk unpack() const {
    Chunk c;
#pragma unroll
    for (int j = 0; j < kChunk; ++j) {
      if constexpr (kIsBf16<In>) c.v[j] = (j % 2 == 0) ? (w[j / 2] << 16) : (w[j / 2] & 0xFFFF0000u);
      else c.v[j] = w[j];
    }
    return c;
  }
};

// fp32 bits of element i of `x` (bf16 widened exactly).
template <class In>
__device__ __forceinline__ std::uint32_t load_bits(const In* x, std::int64_t i) {
  if constexpr (kIsBf16<In>) return std::uint32_t(reinterpret_cast<const std::uint16_t*>(x)[i]) << 16;
  else return __float_as_uint(reinterpret_cast<const float*>(x)[i]);
}

// Chunk at x[i .. i+8): 16-byte loads (x + i must be 16-byte aligned), read-only path.
template <class In>
__device__ __forceinline__ RawChunk<In> load_vec(const In* x, std::int64_t i) {
  RawChunk<In> r;
  const uint4* p = reinterpret_cast<const uint4*>(x + i);
#pragma unroll
  for (int k = 0; k < RawChunk<In>::kWords / 4; ++k) {
    const uint4 v = __ldg(p + k);
    r.w[4 * k + 0] = v.x;
    r.w[4 * k + 1] = v.y;
    r.w[4 * k + 2] = v.z;
    r.w[4 * k + 3] = v.w;
  }
  return r;
}

// Chunk of `count` (<= 8) elements at stride `stride` starting at x[i]; missing elements are 0.
template <class In>
__device__ __forceinline__ Chunk load_strided(const In* x, std::int64_t i, int count, std::int64_t stride) {
  Chunk c;
#pragma unroll
  for (int j = 0; j < kChunk; ++j) c.v[j] = j < count ? load_bits(x, i + j * stride) : 0u;
  return c;
}

// The reduction key of one element (see the file comment).
__device__ __forceinline__ std::uint32_t amax_key(std::uint32_t bits, std::uint32_t nan_key) {
  const std::uint32_t mag = bits & 0x7FFFFFFFu;
  return mag > kInfBits ? nan_key : mag;
}
__device__ __forceinline__ std::uint32_t chunk_key(const Chunk& c, std::uint32_t nan_key) {
  std::uint32_t m = 0;
#pragma unroll
  for (int j = 0; j < kChunk; ++j) m = max(m, amax_key(c.v[j], nan_key));
  return m;
}

// The NaN key of a recipe: dropped NaNs never win the maximum.
__host__ __device__ inline std::uint32_t nan_key_of(const RecipeCore& r) {
  return r.amax_nan == AmaxNan::Drop ? 0u : kNanKey;
}

// The block's amax from its reduced key, through the recipe's own amax_init / amax_update.
__device__ __forceinline__ float amax_from_key(const RecipeCore& r, std::uint32_t key) {
  const float init = core::amax_init(r);
  if (key > kInfBits) return core::amax_update(r, init, __uint_as_float(core::kCanonicalNan));
  return core::amax_update(r, init, __uint_as_float(key));
}

// Maximum of `v` over aligned groups of `width` lanes (a power of two, <= 32).
template <int kWidth>
__device__ __forceinline__ std::uint32_t group_max(std::uint32_t v) {
#pragma unroll
  for (int o = kWidth / 2; o > 0; o /= 2) v = max(v, __shfl_xor_sync(0xFFFFFFFFu, v, o, kWidth));
  return v;
}

// ---------------------------------------------------------------------------------------------
// The element cast.

template <CastPath P>
__device__ __forceinline__ std::uint32_t cvt_pair(float hi, float lo) {
  std::uint16_t d = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  if constexpr (P == CastPath::CvtE4m3) asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(d) : "f"(hi), "f"(lo));
  else asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;" : "=h"(d) : "f"(hi), "f"(lo));
#else
  __trap();  // the host refuses the cvt paths below sm_89
#endif
  return d;
}

// The codes of eight values that reach the cast (scaled and clamped), by the recipe's CastSpec
// (octet::encode_bits). Out of line and taking the format and CastSpec by value: the hot loops
// below call it only for a chunk holding a NaN (or on the Generic path), and a RecipeCore passed by
// reference would have to be copied to local memory in every kernel.
static __device__ __noinline__ uint2 encode_chunk_generic(FormatId element, CastSpec cast, Chunk y) {
  const Format& f = format_of(element);
  std::uint32_t code[kChunk];
#pragma unroll
  for (int j = 0; j < kChunk; ++j) code[j] = encode_bits<Fp32Source>(f, cast, y.v[j]);
  return make_uint2(code[0] | (code[1] << 8) | (code[2] << 16) | (code[3] << 24),
                    code[4] | (code[5] << 8) | (code[6] << 16) | (code[7] << 24));
}

// Eight codes (element 0 in the low byte of word 0) of a chunk; element j under scale_of(j).
// Cvt paths: cast_path() proves the PTX cvt equal to the recipe's cast for every non-NaN value
// that reaches it, so a chunk without a NaN after the multiply and clamp takes four packed cvts
// (one branch per chunk, almost always uniform over the warp); a chunk with a NaN is encoded
// wholly by encode_bits, which is exact for every value.
template <CastPath P, class ScaleOf>
__device__ __forceinline__ uint2 quantize_chunk(const RecipeCore& r, ScaleOf scale_of, const Chunk& c) {
  Chunk y;
  bool any_nan = false;
#pragma unroll
  for (int j = 0; j < kChunk; ++j) {
    const float v = core::scaled_element(r, scale_of(j), __uint_as_float(c.v[j]));
    y.v[j] = __float_as_uint(v);
    any_nan |= (y.v[j] & 0x7FFFFFFFu) > kInfBits;
  }
  if constexpr (P == CastPath::Generic) {
    return encode_chunk_generic(r.element, r.cast, y);
  } else {
    if (any_nan) return encode_chunk_generic(r.element, r.cast, y);
    std::uint32_t pair[kChunk / 2];
#pragma unroll
    for (int j = 0; j < kChunk; j += 2)  // the first source goes to the upper byte
      pair[j / 2] = cvt_pair<P>(__uint_as_float(y.v[j + 1]), __uint_as_float(y.v[j]));
    return make_uint2(pair[0] | (pair[1] << 16), pair[2] | (pair[3] << 16));
  }
}

__device__ __forceinline__ std::uint8_t code_byte(const uint2& codes, int j) {
  return std::uint8_t((j < 4 ? codes.x : codes.y) >> (8 * (j % 4)));
}


// ---------------------------------------------------------------------------------------------
// Kernel 1: row segments. A segment is one scale block whose elements are contiguous in a
// row-major input: x[start, start + len), codes at q[start, ...) (the output has the input's
// layout), one stored scale at scales[scale_index]; a zero-fill segment (columns that belong to no
// group) gets code 0x00 and no scale. The map gives segment i (0 <= i < count).
//
// kLanes lanes work on one segment, each on 8-element chunks c = lane, lane + kLanes, ...: with
// kLanes = 8 a warp reads four 128-byte runs per instruction. Pass 1 reduces the amax key (the
// first kCache chunks of each lane stay in registers), the kLanes lanes combine it by shuffles and
// each computes the scale (scale_core::scale_from_amax, the emulator's code); pass 2 casts (the
// cached chunks, then the rest re-read, from L1/L2) and stores 8 codes per 8-byte store. A chunk is
// loaded with 16-byte loads when the segment start is 8-element aligned (and the host saw aligned
// pointers), else element by element.

struct Segment {
  std::int64_t start = 0;
  std::int64_t len = 0;
  std::int64_t scale_index = 0;
  bool zero_fill = false;
};

// Scales: one byte each (MX kernels: e8m0) or one 32-bit word each (the FP8 kernels: fp32 bits,
// or a byte zero-extended, as octet::Fp8Quantized holds them).
__device__ __forceinline__ void store_scale(void* scales, std::int64_t i, bool bytes, std::uint32_t stored) {
  if (bytes)
    static_cast<std::uint8_t*>(scales)[i] = std::uint8_t(stored);
  else
    static_cast<std::uint32_t*>(scales)[i] = stored;
}

template <class In>
__device__ __forceinline__ RawChunk<In> load_chunk(const In* x, std::int64_t first, std::int64_t end, bool vec) {
  if (vec && first + kChunk <= end) return load_vec(x, first);
  const std::int64_t left = end - first;
  return RawChunk<In>::pack(load_strided(x, first, int(left < kChunk ? left : kChunk), 1));
}

__device__ __forceinline__ void store_codes(std::uint8_t* q, std::int64_t first, std::int64_t end, bool vec,
                                            const uint2& codes) {
  if (vec && first + kChunk <= end) {
    *reinterpret_cast<uint2*>(q + first) = codes;
    return;
  }
  for (int j = 0; j < kChunk && first + j < end; ++j) q[first + j] = code_byte(codes, j);
}

inline constexpr int kThreads = 256;
// Resident CTAs per SM the register allocation must allow (at most 128 registers per thread):
// two 256-thread CTAs, 16 warps with 2-4 independent 16-byte loads each in flight. Three (80
// registers) would make ptxas spill the cached chunks (300-600 bytes per thread) to local memory.
inline constexpr int kMinCtasPerSm = 2;

// Chunks per lane (or row steps per thread) kept in registers: kCacheWords 32-bit words, at least
// one chunk whatever the source type.
template <class In, int kCacheWords>
inline constexpr int kCacheChunks = kCacheWords / RawChunk<In>::kWords > 0 ? kCacheWords / RawChunk<In>::kWords : 1;

// kSegs segments per lane group and iteration (ids id, id + per_grid, ...): for short segments
// (MX: 32 elements, one chunk per lane) every lane then has kSegs independent 16-byte loads in
// flight before its first shuffle.
template <class In, CastPath P, int kLanes, int kCacheWords, int kSegs, class Map>
__global__ void __launch_bounds__(kThreads, kMinCtasPerSm)
    row_segments_kernel(const In* __restrict__ x, std::uint8_t* __restrict__ q, void* __restrict__ scales,
                        bool scale_bytes, RecipeCore r, Map map, std::int64_t count, bool vec_ok) {
  constexpr int kCache = kCacheChunks<In, kCacheWords>;
  static_assert(kLanes >= 1 && kLanes <= 32 && (kLanes & (kLanes - 1)) == 0, "kLanes: a power of two up to 32");
  static_assert(kSegs >= 1, "kSegs: at least one segment per iteration");
  const int lane = int(threadIdx.x) % kLanes;
  const std::int64_t per_grid = std::int64_t(gridDim.x) * (kThreads / kLanes);
  const std::uint32_t nan_key = nan_key_of(r);
  // Every lane of a warp runs the same number of iterations (shuffles need the whole warp).
  const std::int64_t first = (std::int64_t(blockIdx.x) * kThreads + threadIdx.x) / kLanes;
  const std::int64_t warp_first = first - (int(threadIdx.x) % 32) / kLanes;
  for (std::int64_t base = first, wbase = warp_first; wbase < count; base += kSegs * per_grid, wbase += kSegs * per_grid) {
    Segment seg[kSegs];
    bool active[kSegs];
    RawChunk<In> cache[kSegs][kCache];
    std::uint32_t key[kSegs];
    // Pass 1a: the cached chunks of every segment, all loads issued before any reduction.
#pragma unroll
    for (int s = 0; s < kSegs; ++s) {
      const std::int64_t id = base + s * per_grid;
      active[s] = id < count;
      seg[s] = active[s] ? map(id) : Segment{};
      const std::int64_t end = seg[s].start + seg[s].len;
      const std::int64_t chunks = seg[s].zero_fill ? 0 : (seg[s].len + kChunk - 1) / kChunk;
      const bool vec = vec_ok && seg[s].start % kChunk == 0;
#pragma unroll
      for (int i = 0; i < kCache; ++i) {
        const std::int64_t c = lane + std::int64_t(i) * kLanes;
        if (c < chunks) cache[s][i] = load_chunk(x, seg[s].start + c * kChunk, end, vec);
      }
    }
    // Pass 1b: the keys (the uncached chunks read four at a time), combined over the kLanes lanes.
#pragma unroll
    for (int s = 0; s < kSegs; ++s) {
      const std::int64_t end = seg[s].start + seg[s].len;
      const std::int64_t chunks = seg[s].zero_fill ? 0 : (seg[s].len + kChunk - 1) / kChunk;
      const bool vec = vec_ok && seg[s].start % kChunk == 0;
      std::uint32_t k = 0;
#pragma unroll
      for (int i = 0; i < kCache; ++i)
        if (lane + std::int64_t(i) * kLanes < chunks) k = max(k, chunk_key(cache[s][i].unpack(), nan_key));
#pragma unroll 4
      for (std::int64_t c = lane + std::int64_t(kCache) * kLanes; c < chunks; c += kLanes)
        k = max(k, chunk_key(load_chunk(x, seg[s].start + c * kChunk, end, vec).unpack(), nan_key));
      key[s] = group_max<kLanes>(k);  // on every lane of the warp, whatever its segment
    }
    // Pass 2: the scale, then the codes.
#pragma unroll
    for (int s = 0; s < kSegs; ++s) {
      if (!active[s]) continue;
      const std::int64_t end = seg[s].start + seg[s].len;
      const std::int64_t chunks = (seg[s].len + kChunk - 1) / kChunk;
      const bool vec = vec_ok && seg[s].start % kChunk == 0;
      if (seg[s].zero_fill) {
        for (std::int64_t c = lane; c < chunks; c += kLanes)
          store_codes(q, seg[s].start + c * kChunk, end, vec, make_uint2(0u, 0u));
        continue;
      }
      const BlockScale sc = core::scale_from_amax(r, amax_from_key(r, key[s]));
      if (lane == 0) store_scale(scales, seg[s].scale_index, scale_bytes, sc.stored);
      const auto scale_of = [&](int) -> BlockScale { return sc; };
#pragma unroll
      for (int i = 0; i < kCache; ++i) {
        const std::int64_t c = lane + std::int64_t(i) * kLanes;
        if (c < chunks)
          store_codes(q, seg[s].start + c * kChunk, end, vec, quantize_chunk<P>(r, scale_of, cache[s][i].unpack()));
      }
#pragma unroll 4
      for (std::int64_t c = lane + std::int64_t(kCache) * kLanes; c < chunks; c += kLanes)
        store_codes(q, seg[s].start + c * kChunk, end, vec,
                    quantize_chunk<P>(r, scale_of, load_chunk(x, seg[s].start + c * kChunk, end, vec).unpack()));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Kernel 2: column tiles. The input is row-major (rows, cols) with row stride `cols`; a scale
// block runs down a column over a row range [r0, r1) (kAmaxCols = 1: one block per column), or
// over kAmaxCols adjacent columns of that range (128x128 tiles, 32x32 MX blocks; kAmaxCols divides
// kTileCols and every block starts at a multiple of kAmaxCols). The codes of a column
// are contiguous along the rows of a range: q[map.out_offset(row, col)] (column-major, per
// expert for 3D weights). The map gives range i (0 <= i < ranges): its rows, whether it is a
// zero-fill range (rows of no group), and the scale index of (range, column).
//
// One CTA of 256 threads works on one (range, column tile) item at a time: thread (cx, ry) holds
// the 8-column chunk cx of rows r0 + ry, r0 + ry + kRowLanes, ... Pass 1 keeps per-column keys in
// registers (the first kCache row steps cached), combines them through shared memory and computes
// one scale per column (or per tile); pass 2 casts each row step, transposes the codes through
// shared memory and writes each column's kRowLanes codes as one contiguous run (8-byte stores
// when aligned).

struct RowRange {
  std::int64_t r0 = 0, r1 = 0;
  bool zero_fill = false;
  bool writes_scale = true;  // false for the later parts of a block split over several ranges
};

// Where a column block's amax key comes from. Own: the range is the whole block, reduced here.
// Store / Load: a block (a large group) is split into several ranges; a first launch reduces each
// range (Store: atomicMax of the key into a zeroed workspace, keys[map.key_index(range, col)]; an
// integer maximum, so the result does not depend on the order), a second casts (Load: the key
// from the workspace; the range with writes_scale stores the scale).
enum class KeyMode : int { Own, Store, Load };

template <int kTileCols>
struct ColumnTileShared {
  static constexpr int kColChunks = kTileCols / kChunk;
  static constexpr int kRowLanes = kThreads / kColChunks;
  // Pass 2 casts kBatch row steps (kBatchRows rows) between two barriers: kBatch independent
  // 16-byte loads per thread in flight.
  static constexpr int kBatch = 4;
  static constexpr int kBatchRows = kRowLanes * kBatch;
  static constexpr int kRunsPerCol = kBatchRows / kChunk;  // 8-code runs per column and batch
  static_assert(kTileCols * kRunsPerCol == kThreads * kBatch, "every thread writes kBatch runs per batch");
  std::uint32_t keys[kRowLanes][kTileCols + 1];
  BlockScale scale[kTileCols];
  // An odd row length: the 8 column chunks of a warp write bytes to 8 different banks.
  std::uint8_t codes[kTileCols][kBatchRows + 1];
};

template <class In, CastPath P, int kTileCols, int kAmaxCols, int kCacheWords, KeyMode kMode, class Map>
__global__ void __launch_bounds__(kThreads, kMinCtasPerSm)
    column_tiles_kernel(const In* __restrict__ x, std::int64_t cols, std::uint8_t* __restrict__ q,
                        void* __restrict__ scales, bool scale_bytes, RecipeCore r, Map map, std::int64_t ranges,
                        bool vec_ok, bool out_vec, std::uint32_t* __restrict__ keys) {
  static_assert(kAmaxCols == 1 || kMode == KeyMode::Own, "tile blocks are never split");
  static_assert(kAmaxCols >= 1 && kTileCols % kAmaxCols == 0, "whole blocks per tile");
  constexpr int kCache = kCacheChunks<In, kCacheWords>;  // row steps kept in registers
  using Shared = ColumnTileShared<kTileCols>;
  constexpr int kColChunks = Shared::kColChunks, kRowLanes = Shared::kRowLanes;
  // Raw storage: BlockScale's member initialisers would ask for a dynamic initialisation.
  __shared__ alignas(16) unsigned char shared_bytes[sizeof(Shared)];
  Shared& sh = *reinterpret_cast<Shared*>(shared_bytes);
  const int cx = int(threadIdx.x) % kColChunks, ry = int(threadIdx.x) / kColChunks;
  const std::uint32_t nan_key = nan_key_of(r);
  const std::int64_t col_tiles = (cols + kTileCols - 1) / kTileCols;
  const std::int64_t items = ranges * col_tiles;

  for (std::int64_t item = blockIdx.x; item < items; item += gridDim.x) {
    const std::int64_t range_id = item / col_tiles, tile = item % col_tiles;
    const RowRange rr = map.range(range_id);
    const std::int64_t tile_c0 = tile * kTileCols;
    const std::int64_t c0 = tile_c0 + cx * kChunk;
    const int ncols = int(cols - c0 < kChunk ? (cols - c0 > 0 ? cols - c0 : 0) : kChunk);
    const bool vec = vec_ok && ncols == kChunk;
    const auto load_row = [&](std::int64_t row) -> RawChunk<In> {
      const std::int64_t i = row * cols + c0;
      if (vec) return load_vec(x, i);
      return RawChunk<In>::pack(load_strided(x, i, ncols, 1));
    };
    const std::int64_t steps = (rr.r1 - rr.r0 + kRowLanes - 1) / kRowLanes;

    // Pass 1: per-column keys, then one scale per column (or tile).
    RawChunk<In> cache[kCache];
    if constexpr (kMode == KeyMode::Store) {
      if (rr.zero_fill) continue;
    }
    if (!rr.zero_fill && kMode != KeyMode::Load) {
      std::uint32_t key[kChunk];
#pragma unroll
      for (int j = 0; j < kChunk; ++j) key[j] = 0;
#pragma unroll
      for (int i = 0; i < kCache; ++i) {
        const std::int64_t row = rr.r0 + ry + std::int64_t(i) * kRowLanes;
        if (row < rr.r1) {
          cache[i] = load_row(row);
          const Chunk c = cache[i].unpack();
#pragma unroll
          for (int j = 0; j < kChunk; ++j) key[j] = max(key[j], amax_key(c.v[j], nan_key));
        }
      }
#pragma unroll 4
      for (std::int64_t row = rr.r0 + ry + std::int64_t(kCache) * kRowLanes; row < rr.r1; row += kRowLanes) {
        const Chunk c = load_row(row).unpack();
#pragma unroll
        for (int j = 0; j < kChunk; ++j) key[j] = max(key[j], amax_key(c.v[j], nan_key));
      }
#pragma unroll
      for (int j = 0; j < kChunk; ++j) sh.keys[ry][cx * kChunk + j] = key[j];
      __syncthreads();
      if (threadIdx.x < kTileCols) {
        std::uint32_t k = 0;
        for (int y = 0; y < kRowLanes; ++y) k = max(k, sh.keys[y][threadIdx.x]);
        sh.keys[0][threadIdx.x] = k;
      }
      __syncthreads();
    }
    if constexpr (kMode == KeyMode::Store) {
      const std::int64_t col = tile_c0 + threadIdx.x;
      if (threadIdx.x < kTileCols && col < cols && rr.r1 > rr.r0)
        atomicMax(keys + map.key_index(range_id, col), sh.keys[0][threadIdx.x]);
      __syncthreads();  // sh.keys is rewritten by the next item
      continue;
    }
    if (!rr.zero_fill) {
      if (threadIdx.x < kTileCols) {
        const std::int64_t col = tile_c0 + threadIdx.x;
        std::uint32_t k = 0;
        if constexpr (kMode == KeyMode::Load) {
          if (col < cols) k = keys[map.key_index(range_id, col)];
        } else {
          k = sh.keys[0][threadIdx.x];
        }
        if constexpr (kAmaxCols > 1) {
          // The block of this column; columns past `cols` hold key 0, which cannot change the maximum.
          const int c0 = int(threadIdx.x) / kAmaxCols * kAmaxCols;
          for (int c = c0; c < c0 + kAmaxCols; ++c) k = max(k, sh.keys[0][c]);
        }
        const BlockScale s = core::scale_from_amax(r, amax_from_key(r, k));
        sh.scale[threadIdx.x] = s;
        if (col < cols && threadIdx.x % kAmaxCols == 0 && rr.writes_scale)
          store_scale(scales, map.scale_index(range_id, col), scale_bytes, s.stored);
      }
      __syncthreads();
    }

    // Pass 2: cast kBatch row steps, transpose through shared memory, write column runs.
    const auto scale_of = [&](int j) -> const BlockScale& { return sh.scale[cx * kChunk + j]; };
    constexpr int kBatch = Shared::kBatch, kBatchRows = Shared::kBatchRows, kRunsPerCol = Shared::kRunsPerCol;
    for (std::int64_t step0 = 0; step0 < steps; step0 += kBatch) {
      RawChunk<In> c[kBatch];
      bool valid[kBatch];
#pragma unroll
      for (int b = 0; b < kBatch; ++b) {
        const std::int64_t step = step0 + b, row = rr.r0 + step * kRowLanes + ry;
        valid[b] = !rr.zero_fill && row < rr.r1;
        if (!valid[b]) continue;
        if (kMode == KeyMode::Own && step < kCache) {
#pragma unroll
          for (int i = 0; i < kCache; ++i)
            if (step == i) c[b] = cache[i];
        } else {
          c[b] = load_row(row);
        }
      }
#pragma unroll
      for (int b = 0; b < kBatch; ++b) {
        const uint2 codes = valid[b] ? quantize_chunk<P>(r, scale_of, c[b].unpack()) : make_uint2(0u, 0u);
#pragma unroll
        for (int j = 0; j < kChunk; ++j) sh.codes[cx * kChunk + j][b * kRowLanes + ry] = code_byte(codes, j);
      }
      __syncthreads();
      // Run u = threadIdx.x + i * kThreads: 8 codes of column u / kRunsPerCol (consecutive threads
      // write consecutive runs of one column).
      const std::int64_t batch_r0 = rr.r0 + step0 * kRowLanes;
#pragma unroll
      for (int i = 0; i < kBatch; ++i) {
        const int u = int(threadIdx.x) + i * kThreads;
        const int wc = u / kRunsPerCol, wr = (u % kRunsPerCol) * kChunk;
        const std::int64_t col = tile_c0 + wc, out_row = batch_r0 + wr;
        if (col < cols && out_row < rr.r1) {
          std::uint8_t* dst = q + map.out_offset(out_row, col);
          const std::uint8_t* src = &sh.codes[wc][wr];
          if (out_vec && out_row % kChunk == 0 && out_row + kChunk <= rr.r1) {
            uint2 v;
            v.x = std::uint32_t(src[0]) | (std::uint32_t(src[1]) << 8) | (std::uint32_t(src[2]) << 16) |
                  (std::uint32_t(src[3]) << 24);
            v.y = std::uint32_t(src[4]) | (std::uint32_t(src[5]) << 8) | (std::uint32_t(src[6]) << 16) |
                  (std::uint32_t(src[7]) << 24);
            *reinterpret_cast<uint2*>(dst) = v;
          } else {
            for (int j = 0; j < kChunk && out_row + j < rr.r1; ++j) dst[j] = src[j];
          }
        }
      }
      static_assert(kBatchRows % kChunk == 0, "whole runs per batch");
      __syncthreads();
    }
  }
}

}  // namespace octet::cuda::quant

// ---------------------------------------------------------------------------------------------
// Host side: the cast path of a recipe, grids, and the launches of the two kernels for a
// source type (bf16 or fp32) and cast path.

namespace octet::cuda::quant {

struct Device {
  int sms = 0;
  int cc = 0;  // compute capability, major * 10 + minor
};
// The current device's properties, read once per device (a launch must not pay for them: the
// quantisers run in tens of microseconds).
inline Device device() {
  constexpr int kMaxDevices = 64;
  static std::mutex mutex;
  static Device cache[kMaxDevices];
  int dev = 0;
  OCTET_CUDA_CHECK(cudaGetDevice(&dev));
  const std::lock_guard<std::mutex> lock(mutex);
  if (dev < kMaxDevices && cache[dev].sms != 0) return cache[dev];
  int major = 0, minor = 0;
  Device d;
  OCTET_CUDA_CHECK(cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, dev));
  OCTET_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  OCTET_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
  d.cc = major * 10 + minor;
  if (dev < kMaxDevices) cache[dev] = d;
  return d;
}

// The PTX cvt (RNE, satfinite, subnormals kept) gives the recipe's codes for every non-NaN value
// that reaches the cast when the recipe's CastSpec rounds to nearest even, keeps subnormals, and
// either saturates (Overflow::SatFinite) or never sees a value beyond the format's max (the
// recipe clamps to max_pos <= max). NaNs always take encode_bits, so the NaN policy is the
// recipe's own.
inline CastPath cast_path(const Recipe& r, const Device& d) {
  if (d.cc < 89) return CastPath::Generic;
  if (r.element != FormatId::e4m3fn && r.element != FormatId::e5m2) return CastPath::Generic;
  const CastSpec& c = r.cast;
  if (c.rounding != Rounding::NearestEven || c.subnormals != Subnormals::Keep) return CastPath::Generic;
  const double format_max = max_finite(all_formats[std::size_t(r.element)]);
  const bool in_range = c.overflow == Overflow::SatFinite ||
                        (r.clamp != ClampBeforeCast::None && double(r.max_pos) <= format_max);
  if (!in_range) return CastPath::Generic;
  return r.element == FormatId::e4m3fn ? CastPath::CvtE4m3 : CastPath::CvtE5m2;
}

inline bool aligned(const void* p, std::size_t bytes) { return reinterpret_cast<std::uintptr_t>(p) % bytes == 0; }

// Grid-stride grid: every SM filled at the kernel's occupancy (`per_sm` CTAs, computed once per
// kernel by the caller), no more CTAs than the work needs.
template <class Kernel>
int occupancy(Kernel kernel) {
  int per_sm = 0;
  OCTET_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, 0));
  return std::max(per_sm, 1);
}
inline unsigned grid_for(int per_sm, std::int64_t ctas_needed, const Device& d) {
  const std::int64_t full = std::int64_t(per_sm) * d.sms;
  return unsigned(std::max<std::int64_t>(1, std::min(full, ctas_needed)));
}

template <class F>
void with_source(SourceType src, F&& f) {
  switch (src) {
    case SourceType::bf16: return f(std::uint16_t{});
    case SourceType::fp32: return f(float{});
    default: throw std::invalid_argument("cuda quantiser: the input must be bfloat16 or float32");
  }
}
template <class F>
void with_path(CastPath p, F&& f) {
  switch (p) {
    case CastPath::Generic: return f(std::integral_constant<CastPath, CastPath::Generic>{});
    case CastPath::CvtE4m3: return f(std::integral_constant<CastPath, CastPath::CvtE4m3>{});
    case CastPath::CvtE5m2: return f(std::integral_constant<CastPath, CastPath::CvtE5m2>{});
  }
}

// Launches kernel 1 over `count` segments. x: row-major input; q: codes; scales: words or bytes.
template <int kLanes, int kCacheWords, int kSegs = 1, class Map>
void launch_row_segments(SourceType src, const void* x, std::uint8_t* q, void* scales, bool scale_bytes,
                         const Recipe& r, const Map& map, std::int64_t count, cudaStream_t stream) {
  if (count == 0) return;
  const Device d = device();
  const RecipeCore core = make_core(r);
  const bool vec_ok = aligned(x, 16) && aligned(q, 8);
  with_source(src, [&](auto in) {
    using In = decltype(in);
    with_path(cast_path(r, d), [&](auto path) {
      auto* kernel = &row_segments_kernel<In, decltype(path)::value, kLanes, kCacheWords, kSegs, Map>;
      static const int per_sm = occupancy(kernel);
      const std::int64_t needed = (count * kLanes + std::int64_t(kThreads) * kSegs - 1) / (std::int64_t(kThreads) * kSegs);
      kernel<<<grid_for(per_sm, needed, d), kThreads, 0, stream>>>(static_cast<const In*>(x), q, scales, scale_bytes,
                                                                   core, map, count, vec_ok);
      OCTET_CUDA_CHECK(cudaGetLastError());
    });
  });
}

// Launches kernel 2 over `ranges` row ranges of a row-major (rows, cols) input. out_vec: every
// code run that starts at a row multiple of 8 is 8-byte aligned in q (the caller knows the layout).
template <int kTileCols, int kAmaxCols, int kCacheWords, KeyMode kMode = KeyMode::Own, class Map>
void launch_column_tiles(SourceType src, const void* x, std::int64_t cols, std::uint8_t* q, void* scales,
                         bool scale_bytes, bool out_vec, const Recipe& r, const Map& map, std::int64_t ranges,
                         cudaStream_t stream, std::uint32_t* keys = nullptr) {
  const std::int64_t items = ranges * ((cols + kTileCols - 1) / kTileCols);
  if (items == 0) return;
  const Device d = device();
  const RecipeCore core = make_core(r);
  const bool vec_ok = aligned(x, 16) && cols % kChunk == 0;
  with_source(src, [&](auto in) {
    using In = decltype(in);
    with_path(cast_path(r, d), [&](auto path) {
      auto* kernel = &column_tiles_kernel<In, decltype(path)::value, kTileCols, kAmaxCols, kCacheWords, kMode, Map>;
      static const int per_sm = occupancy(kernel);
      kernel<<<grid_for(per_sm, items, d), kThreads, 0, stream>>>(static_cast<const In*>(x), cols, q, scales, scale_bytes,
                                                                  core, map, ranges, vec_ok, out_vec && aligned(q, 8),
                                                                  keys);
      OCTET_CUDA_CHECK(cudaGetLastError());
    });
  });
}

}  // namespace octet::cuda::quant
