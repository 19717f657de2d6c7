// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// sm90_quant_common.cuh — what every CUDA quantiser shares (sm90_bf16_fp8_*_quant.cu,
// sm90_bf16_mx_quant.cu): 8-element input chunks (one 16-byte bf16 load, two for fp32), the block
// amax as an integer maximum of magnitudes, the recipe's scale (scale_core.hpp, the same code as
// the emulator's scale.cpp) and the element cast (the PTX cvt where it equals the recipe's
// CastSpec, octet::encode_bits otherwise), and the two kernels built from them: row segments and
// column tiles.
//
// amax: amax_update (scale_core.hpp) is a maximum of |x| under a NaN rule, so the fold over a block
// in any order equals amax_update(amax_update(amax_init, max |x| over the non-NaN elements), NaN)
// when the block holds a NaN, and amax_update(amax_init, max |x|) otherwise (a NaN amax is always
// the canonical NaN, so the order cannot change its payload). The magnitudes |x| of non-NaN values
// order like their bit patterns as unsigned integers, and a NaN's magnitude bits lie above every
// other, so the kernels reduce one 32-bit key per block, the fp32 bits of the largest magnitude:
// - recipes that propagate or saturate NaN (the NaN must win): an integer maximum of the magnitude
//   bits, for bf16 two at a time (VIMNMX.U16x2);
// - recipes that drop NaN (AmaxNan::Drop, CUDA fmaxf): a float maximum of |x| that ignores NaN
//   operands (max.bf16x2 / max.f32), which can never return a NaN since it starts from +0.
// Beside the key every kernel reduces the block's `all` word: the integer maximum of the magnitude
// bits (NaN above everything, the key itself for recipes that do not drop NaN), which tells
// block_cast whether the block holds a NaN or an Inf.
//
// The cast: the block's scale decides once whether every element of the block can take the fast
// path, fl(x * encode), the clamp to [-max_pos, max_pos] and the packed PTX cvt (see block_cast);
// otherwise each element is scaled by scale_core::scaled_element and encoded by encode_bits.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "cuda_check.hpp"
#include "octet/cast.hpp"
#include "octet/scale.hpp"
#include "octet/scale_core.hpp"
#include "octet/tensor.hpp"
#include "sm90_fixed_core.hpp"

namespace octet::cuda::quant {

namespace core = ::octet::scale_core;

// Elements per chunk: one 16-byte load of bf16, two of fp32; one 8-byte store of codes.
inline constexpr int kChunk = 8;
inline constexpr std::uint32_t kInfBits = 0x7F800000u;

// The input element types: bf16 bits or fp32 (float).
template <class In>
inline constexpr bool kIsBf16 = sizeof(In) == 2;

// How the element cast is done (chosen on the host by cast_path()).
enum class CastPath : int {
  Generic = 0,  // octet::encode_bits with the recipe's CastSpec and element format, every element
  CvtE4m3 = 1,  // cvt.rn.satfinite.e4m3x2.f32 in blocks where it is exact (block_cast), else Generic
  CvtE5m2 = 2,  // cvt.rn.satfinite.e5m2x2.f32 likewise
};

// The recipe's clamp and the cvt's exact range as three floats, computed on the host
// (cast_bounds): non-NaN scaled values are clamped to [lo, hi] (+-max_pos, or +-inf for recipes
// without a clamp), and the cvt equals the recipe's cast for every |value| < limit.
struct CastBounds {
  float lo = -INFINITY;
  float hi = INFINITY;
  float limit = 0.0f;
  // Whether the fast path must clamp: false when [lo, hi] holds the format's finite range (then
  // a value the clamp would move lies beyond the largest finite value, where the satfinite cvt
  // gives that value's code too, and a fast block holds no NaN).
  bool clamp_fast = true;
};

// Eight input elements as fp32 bit patterns.
struct Chunk {
  std::uint32_t v[kChunk];
};

// The storage of one chunk: 4 words (bf16: element 2k in the low half of word k) or 8 words
// (fp32), loaded with 16-byte loads.
template <class In>
struct RawChunk {
  static constexpr int kWords = kChunk * int(sizeof(In)) / 4;
  std::uint32_t w[kWords];

  __device__ __forceinline__ static RawChunk zero() {
    RawChunk r;
#pragma unroll
    for (int k = 0; k < kWords; ++k) r.w[k] = 0u;
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

// Element i of `x` as stored (bf16: 16 bits; fp32: 32 bits).
template <class In>
__device__ __forceinline__ std::uint32_t load_raw(const In* x, std::int64_t i) {
  if constexpr (kIsBf16<In>) return reinterpret_cast<const std::uint16_t*>(x)[i];
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

// Chunk at x[i .. i+8) of which only the elements i + j with lo <= i + j < hi are read; the others
// are 0 (a zero can neither raise an amax nor be stored). Out of line: the kernels call it for the
// first and last chunk of a segment or row piece only, and inlined its eight addresses would take
// registers from the cached chunks of the hot loops.
template <class In>
__device__ __noinline__ RawChunk<In> load_masked(const In* x, std::int64_t i, std::int64_t lo, std::int64_t hi) {
  RawChunk<In> r = RawChunk<In>::zero();
#pragma unroll
  for (int j = 0; j < kChunk; ++j) {
    if (i + j < lo || i + j >= hi) continue;
    const std::uint32_t v = load_raw(x, i + j);
    if constexpr (kIsBf16<In>) r.w[j / 2] |= j % 2 == 0 ? v : v << 16;
    else r.w[j] = v;
  }
  return r;
}

// Asks for the 128-byte line holding p in L2 (no register waits for it): the kernels prefetch the
// chunks of their next work item before they cast the current one, so that HBM keeps streaming
// through the reductions, barriers and stores of an item.
__device__ __forceinline__ void prefetch_l2(const void* p) {
  asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
}

// ---------------------------------------------------------------------------------------------
// Keys (see the file comment). A key accumulator is one word per input word: for bf16 the two
// halves are two running magnitudes (one per element of the pair), for fp32 one.

template <class In, bool kDropNan>
__device__ __forceinline__ std::uint32_t key_word(std::uint32_t acc, std::uint32_t w) {
  if constexpr (kIsBf16<In>) {
    if constexpr (kDropNan) {
      __nv_bfloat162 a, b;
      static_assert(sizeof(a) == 4, "bf16 pair");
      memcpy(&a, &acc, 4);
      memcpy(&b, &w, 4);
      a = __hmax2(a, __habs2(b));  // max.bf16x2: a NaN operand is ignored
      memcpy(&acc, &a, 4);
      return acc;
    } else {
      return __vmaxu2(acc, w & 0x7FFF7FFFu);
    }
  } else {
    if constexpr (kDropNan) return __float_as_uint(fmaxf(__uint_as_float(acc), fabsf(__uint_as_float(w))));
    else return max(acc, w & 0x7FFFFFFFu);
  }
}

// The fp32 bits of the larger of the magnitudes an accumulator word holds (bf16: half `half`
// (0 or 1), or both halves with half = -1).
template <class In>
__device__ __forceinline__ std::uint32_t key_bits(std::uint32_t acc, int half = -1) {
  if constexpr (kIsBf16<In>) {
    if (half == 0) return acc << 16;
    if (half == 1) return acc & 0xFFFF0000u;
    return max(acc << 16, acc & 0xFFFF0000u);
  } else {
    return acc;
  }
}

// The key of column jc (0..7) of an 8-column accumulator (one accumulator word per input word of a
// chunk): the fp32 bits of that column's magnitude. jc may be a run-time index (selects, not an
// indexed register array).
template <class In, int kWords>
__device__ __forceinline__ std::uint32_t column_key(const std::uint32_t (&acc)[kWords], int jc) {
  const int word = kIsBf16<In> ? jc / 2 : jc;
  std::uint32_t w = acc[0];
#pragma unroll
  for (int k = 1; k < kWords; ++k) w = word == k ? acc[k] : w;
  // (bf16: the half by a select; key_bits with a run-time half compiles to branches)
  if constexpr (kIsBf16<In>) return (jc & 1) != 0 ? w & 0xFFFF0000u : w << 16;
  else return w;
}

// The whole chunk folded into one accumulator.
template <class In, bool kDropNan>
__device__ __forceinline__ std::uint32_t chunk_key(std::uint32_t acc, const RawChunk<In>& c) {
#pragma unroll
  for (int k = 0; k < RawChunk<In>::kWords; ++k) acc = key_word<In, kDropNan>(acc, c.w[k]);
  return acc;
}

// The block's amax from its key, through the recipe's own amax_init / amax_update. R: RecipeCore
// or a FixedCore (sm90_fixed_core.hpp), here and below.
template <class R>
__device__ __forceinline__ float amax_from_key(const R& r, std::uint32_t key) {
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
// call it only in blocks that cannot take the cvt, and a RecipeCore passed by reference would have
// to be copied to local memory in every kernel.
static __device__ __noinline__ uint2 encode_chunk_generic(FormatId element, CastSpec cast, Chunk y) {
  const Format& f = format_of(element);
  std::uint32_t code[kChunk];
#pragma unroll
  for (int j = 0; j < kChunk; ++j) code[j] = encode_bits<Fp32Source>(f, cast, y.v[j]);
  return make_uint2(code[0] | (code[1] << 8) | (code[2] << 16) | (code[3] << 24),
                    code[4] | (code[5] << 8) | (code[6] << 16) | (code[7] << 24));
}

// One scale block's cast: its scale, and whether every element of the block takes the cvt.
// The cvt is exact for an element when the recipe's scaled_element (fl(x * encode), canonical NaN,
// clamp) gives a non-NaN value of magnitude < bounds.limit (cast_bounds proves the cvt equal to
// the recipe's CastSpec there). For a block whose `all` word is finite (no NaN, no Inf; then it
// equals the key: the largest magnitude) and an encode that is finite, no product is NaN (no
// Inf * 0, no NaN operand), scaled_element is fl(x * encode) clamped to [lo, hi], and since rounding
// is monotonic every |fl(x * encode)| <= fl(amax * |encode|): one product per block bounds them all.
struct BlockCast {
  BlockScale scale;
  bool fast = false;
};

template <CastPath P, class R>
__device__ __forceinline__ BlockCast block_cast(const R& r, const CastBounds& b, std::uint32_t key,
                                                std::uint32_t all) {
  BlockCast c;
  c.scale = core::scale_from_amax(r, amax_from_key(r, key));
  if constexpr (P != CastPath::Generic) {
    const float enc = fabsf(c.scale.encode);
    const float y_max = fminf(__fmul_rn(__uint_as_float(all), enc), b.hi);
    c.fast = all < kInfBits && __float_as_uint(enc) < kInfBits && y_max < b.limit;
  }
  return c;
}

// Eight codes (element 0 in the low byte of word 0) of a chunk; element j under enc_of(j) on the
// fast path (all eight blocks fast), scale_of(j) otherwise.
template <CastPath P, class R, class EncOf, class ScaleOf>
__device__ __forceinline__ uint2 quantize_chunk(const R& r, const CastBounds& b, bool fast, EncOf enc_of,
                                                ScaleOf scale_of, const Chunk& c) {
  if constexpr (P != CastPath::Generic) {
    if (fast) {
      float y[kChunk];
#pragma unroll
      for (int j = 0; j < kChunk; ++j) y[j] = __fmul_rn(__uint_as_float(c.v[j]), enc_of(j));
      if (b.clamp_fast) {
#pragma unroll
        for (int j = 0; j < kChunk; ++j) y[j] = fminf(fmaxf(y[j], b.lo), b.hi);
      }
      std::uint32_t pair[kChunk / 2];
#pragma unroll
      for (int j = 0; j < kChunk; j += 2) pair[j / 2] = cvt_pair<P>(y[j + 1], y[j]);  // the first source: upper byte
      return make_uint2(pair[0] | (pair[1] << 16), pair[2] | (pair[3] << 16));
    }
  }
  Chunk y;
#pragma unroll
  for (int j = 0; j < kChunk; ++j) y.v[j] = __float_as_uint(core::scaled_element(r, scale_of(j), __uint_as_float(c.v[j])));
  return encode_chunk_generic(r.element, r.cast, y);
}

__device__ __forceinline__ std::uint8_t code_byte(const uint2& codes, int j) {
  return std::uint8_t((j < 4 ? codes.x : codes.y) >> (8 * (j % 4)));
}

// Scales: one byte each (MX kernels: e8m0) or one 32-bit word each (the FP8 kernels: fp32 bits,
// or a byte zero-extended, as octet::Fp8Quantized holds them).
__device__ __forceinline__ void store_scale(void* scales, std::int64_t i, bool bytes, std::uint32_t stored) {
  if (bytes)
    static_cast<std::uint8_t*>(scales)[i] = std::uint8_t(stored);
  else
    static_cast<std::uint32_t*>(scales)[i] = stored;
}

// Division of 32-bit unsigned numerators by a divisor fixed for the launch, by one 64-bit
// multiply-high (Lemire, Kaser and Kurz, "Faster remainder by direct computation", 2019: with
// m = ceil(2^64 / d) the quotient is exact for every 32-bit numerator). A runtime `/` or `%` in a
// kernel's per-piece path costs about 20 instructions (and signed ones more). Pass it in a kernel
// parameter (a launch shape, a map): built in the kernel, three of them held 9 registers and made
// the 32x32 MX 3D instance of column_stream_kernel spill (H100: 8 points of copy lost).
struct FastDiv {
  std::uint32_t d = 1;
  std::uint64_t m = 0;  // 0 for d = 1 (2^64 does not fit)
  FastDiv() = default;
  __host__ __device__ explicit FastDiv(std::uint32_t divisor)
      : d(divisor), m(divisor > 1 ? ~std::uint64_t(0) / divisor + 1 : 0) {}
  __device__ __forceinline__ std::uint32_t div(std::uint32_t a) const {
    return m == 0 ? a : std::uint32_t(__umul64hi(m, a));
  }
  __device__ __forceinline__ std::uint32_t mod(std::uint32_t a) const { return a - div(a) * d; }
};

inline constexpr int kThreads = 256;

// Chunks per lane (or row batches per thread) kept in registers: kCacheWords 32-bit words, at
// least one chunk whatever the source type.
template <class In, int kCacheWords>
inline constexpr int kCacheChunks = kCacheWords / RawChunk<In>::kWords > 0 ? kCacheWords / RawChunk<In>::kWords : 1;

// Resident CTAs per SM that the register allocation must allow: three 256-thread CTAs (at most 80
// registers per thread) when a thread keeps at most 16 words of input in registers, else two
// (128 registers; more would make ptxas spill the cached chunks to local memory).
template <int kCachedWords>
inline constexpr int kMinCtasPerSm = kCachedWords <= 16 ? 3 : 2;

// ---------------------------------------------------------------------------------------------
// Kernel 1: row segments. A segment is one scale block whose elements are contiguous in a
// row-major input: x[start, start + len), codes at q[start, ...) (the output has the input's
// layout), one stored scale at scales[scale_index]; a zero-fill segment (columns that belong to no
// group) gets code 0x00 and no scale. The map gives segment i (0 <= i < count).
//
// Chunks lie on the tensor's absolute 8-element grid: chunk c of a segment covers
// [a0 + 8c, a0 + 8c + 8) with a0 the start rounded down to a multiple of 8, so every interior
// chunk is one 16-byte load and one 8-byte store wherever a segment starts (groups at any
// offset); the first and last chunks are masked to the segment.
//
// kLanes lanes work on one segment (a power of two up to the CTA), each on the chunks
// c = lane, lane + kLanes, ...; kSegs segments per lane group and iteration are in flight at once.
// Pass 1 loads the first kCache chunks of each lane into registers, reduces the key (uncached
// chunks read and re-read later, from L1/L2) and combines it over the lanes (shuffles, then shared
// memory); one thread per segment computes the block's cast (block_cast, the emulator's scale
// code: tens to hundreds of instructions, so it must not run once per lane); pass 2 casts and
// stores 8 codes per 8-byte store, and meanwhile the next iteration's chunks are prefetched to L2.

struct Segment {
  std::int64_t start = 0;
  std::int64_t len = 0;
  std::int64_t scale_index = 0;
  bool zero_fill = false;
};

__device__ __forceinline__ std::int64_t first_chunk_start(const Segment& s) { return s.start & ~std::int64_t(kChunk - 1); }
__device__ __forceinline__ std::int64_t chunk_count(const Segment& s) {
  return s.len == 0 ? 0 : (s.start + s.len - first_chunk_start(s) + kChunk - 1) / kChunk;
}
// Whether chunk `first` is wholly inside the segment and can use the vector path.
__device__ __forceinline__ bool whole_chunk(const Segment& s, std::int64_t first, bool vec_ok) {
  return vec_ok && first >= s.start && first + kChunk <= s.start + s.len;
}

template <class In>
__device__ __forceinline__ RawChunk<In> load_segment_chunk(const In* x, const Segment& s, std::int64_t c, bool vec_ok) {
  const std::int64_t first = first_chunk_start(s) + c * kChunk;
  return whole_chunk(s, first, vec_ok) ? load_vec(x, first) : load_masked(x, first, s.start, s.start + s.len);
}

// The codes of chunk `first` that belong to [lo, hi), byte by byte (out of line, as load_masked).
static __device__ __noinline__ void store_masked(std::uint8_t* q, std::int64_t first, std::int64_t lo, std::int64_t hi,
                                          uint2 codes) {
#pragma unroll
  for (int j = 0; j < kChunk; ++j)
    if (first + j >= lo && first + j < hi) q[first + j] = code_byte(codes, j);
}

__device__ __forceinline__ void store_segment_chunk(std::uint8_t* q, const Segment& s, std::int64_t c, bool vec_ok,
                                                    const uint2& codes) {
  const std::int64_t first = first_chunk_start(s) + c * kChunk;
  if (whole_chunk(s, first, vec_ok)) *reinterpret_cast<uint2*>(q + first) = codes;
  else store_masked(q, first, s.start, s.start + s.len, codes);
}

// Maps whose segments all have one length declare `static constexpr bool kEqualLengths = true`.
template <class Map, class = void>
struct EqualLengths : std::false_type {};
template <class Map>
struct EqualLengths<Map, std::void_t<decltype(Map::kEqualLengths)>> : std::bool_constant<Map::kEqualLengths> {};

template <class In, CastPath P, int kLanes, int kCacheWords, int kSegs, class Map>
__global__ void __launch_bounds__(kThreads, kMinCtasPerSm<kSegs * kCacheChunks<In, kCacheWords> * RawChunk<In>::kWords>)
    row_segments_kernel(const In* __restrict__ x, std::uint8_t* __restrict__ q, void* __restrict__ scales,
                        bool scale_bytes, RecipeCore r, CastBounds bounds, Map map, std::int64_t count, bool vec_ok) {
  constexpr int kCache = kCacheChunks<In, kCacheWords>;
  constexpr int kGroups = kThreads / kLanes;  // lane groups per CTA
  static_assert(kLanes >= 1 && kLanes <= kThreads && (kLanes & (kLanes - 1)) == 0,
                "kLanes: a power of two up to the CTA size");
  static_assert(kSegs >= 1, "kSegs: at least one segment per iteration");
  // Per iteration the CTA holds kSlots segments, slot s * kGroups + group. With kSharedScale a
  // unit (a lane group, or one warp of a group wider than a warp) leaves its keys in shared
  // memory; one thread per slot then combines them and computes the block's cast, so that the
  // scale code runs once per segment rather than once per lane; pass 2 reads the cast back (two
  // barriers per iteration). That pays where lane groups are wide and the segments of a CTA equal
  // (no group waits at the barrier for a longer one); otherwise every lane computes its segment's
  // cast itself.
  constexpr bool kSharedScale = kLanes > 32 || (kLanes >= 16 && EqualLengths<Map>::value);
  constexpr int kUnitLanes = kLanes < 32 ? kLanes : 32;
  constexpr int kUnits = kThreads / kUnitLanes, kUnitsPerGroup = kLanes / kUnitLanes;
  constexpr int kSlots = kSegs * kGroups;
  struct SlotCast {
    BlockScale scale;
    bool fast;
  };
  __shared__ std::uint32_t unit_key[kSegs][kUnits], unit_all[kSegs][kUnits];
  __shared__ std::int64_t slot_scale_index[kSlots];  // -1: no scale (zero-fill or no segment)
  __shared__ alignas(16) unsigned char slot_bytes[kSlots * sizeof(SlotCast)];  // no dynamic initialisation
  SlotCast* slot_cast = reinterpret_cast<SlotCast*>(slot_bytes);
  const int group = int(threadIdx.x) / kLanes;
  const int lane = int(threadIdx.x) % kLanes;
  const std::int64_t per_grid = std::int64_t(gridDim.x) * kGroups;
  const std::int64_t first = std::int64_t(blockIdx.x) * kGroups + int(threadIdx.x) / kLanes;
  const std::int64_t cta_first = std::int64_t(blockIdx.x) * kGroups;
  const bool drop_nan = r.amax_nan == AmaxNan::Drop;
  // Every thread of the CTA runs the same number of iterations (shuffles and barriers).
  for (std::int64_t it = 0; cta_first + it < count; it += kSegs * per_grid) {
    Segment seg[kSegs];
    RawChunk<In> cache[kSegs][kCache];
    std::uint32_t key[kSegs], all[kSegs];
    // Pass 1a: the cached chunks of every segment, all loads issued before any reduction.
#pragma unroll
    for (int s = 0; s < kSegs; ++s) {
      const std::int64_t id = first + it + s * per_grid;
      seg[s] = id < count ? map(id) : Segment{0, 0, 0, true};
      const std::int64_t chunks = seg[s].zero_fill ? 0 : chunk_count(seg[s]);
#pragma unroll
      for (int i = 0; i < kCache; ++i) {
        const std::int64_t c = lane + std::int64_t(i) * kLanes;
        if (c < chunks) cache[s][i] = load_segment_chunk(x, seg[s], c, vec_ok);
      }
    }
    // Pass 1b: the keys (uncached chunks read four at a time), combined over the kLanes lanes.
    const auto reduce = [&](auto drop) {
      constexpr bool kDrop = decltype(drop)::value;
#pragma unroll
      for (int s = 0; s < kSegs; ++s) {
        const std::int64_t chunks = seg[s].zero_fill ? 0 : chunk_count(seg[s]);
        std::uint32_t acc = 0, acc_all = 0;
        const auto add = [&](const RawChunk<In>& c) {
          acc = chunk_key<In, kDrop>(acc, c);
          if constexpr (kDrop) acc_all = chunk_key<In, false>(acc_all, c);
        };
#pragma unroll
        for (int i = 0; i < kCache; ++i)
          if (lane + std::int64_t(i) * kLanes < chunks) add(cache[s][i]);
#pragma unroll 4
        for (std::int64_t c = lane + std::int64_t(kCache) * kLanes; c < chunks; c += kLanes)
          add(load_segment_chunk(x, seg[s], c, vec_ok));
        constexpr int kWidth = kLanes < 32 ? kLanes : 32;
        key[s] = group_max<kWidth>(key_bits<In>(acc));
        all[s] = kDrop ? group_max<kWidth>(key_bits<In>(acc_all)) : key[s];
      }
    };
    if (drop_nan) reduce(std::true_type{});
    else reduce(std::false_type{});
    if (kSharedScale && int(threadIdx.x) % kUnitLanes == 0) {
#pragma unroll
      for (int s = 0; s < kSegs; ++s) {
        unit_key[s][threadIdx.x / kUnitLanes] = key[s];
        unit_all[s][threadIdx.x / kUnitLanes] = all[s];
        if (lane == 0) slot_scale_index[s * kGroups + group] = seg[s].zero_fill ? -1 : seg[s].scale_index;
      }
    }
    if constexpr (kSharedScale) __syncthreads();
    for (int slot = int(threadIdx.x); kSharedScale && slot < kSlots; slot += kThreads) {
      const std::int64_t scale_index = slot_scale_index[slot];
      if (scale_index < 0) continue;
      const int s = slot / kGroups, u0 = slot % kGroups * kUnitsPerGroup;
      std::uint32_t k = 0, a = 0;
      for (int u = u0; u < u0 + kUnitsPerGroup; ++u) {
        k = max(k, unit_key[s][u]);
        a = max(a, unit_all[s][u]);
      }
      const BlockCast bc = block_cast<P>(r, bounds, k, a);
      store_scale(scales, scale_index, scale_bytes, bc.scale.stored);
      slot_cast[slot] = SlotCast{bc.scale, bc.fast};
    }
    if constexpr (kSharedScale) __syncthreads();
    // The next iteration's cached chunks, into L2 while this one casts.
#pragma unroll
    for (int s = 0; s < kSegs; ++s) {
      const std::int64_t id = first + it + (kSegs + s) * per_grid;
      if (id >= count) continue;
      const Segment next = map(id);
      const std::int64_t chunks = next.zero_fill ? 0 : chunk_count(next);
#pragma unroll
      for (int i = 0; i < kCache; ++i) {
        const std::int64_t c = lane + std::int64_t(i) * kLanes;
        if (c < chunks) prefetch_l2(x + max(first_chunk_start(next) + c * kChunk, next.start));
      }
    }
    // Pass 2: the scale, then the codes.
#pragma unroll
    for (int s = 0; s < kSegs; ++s) {
      const std::int64_t chunks = chunk_count(seg[s]);
      if (seg[s].zero_fill) {
        for (std::int64_t c = lane; c < chunks; c += kLanes) store_segment_chunk(q, seg[s], c, vec_ok, make_uint2(0u, 0u));
        continue;
      }
      SlotCast bc;
      if constexpr (kSharedScale) {
        bc = slot_cast[s * kGroups + group];
      } else {
        const BlockCast b = block_cast<P>(r, bounds, key[s], all[s]);
        if (lane == 0) store_scale(scales, seg[s].scale_index, scale_bytes, b.scale.stored);
        bc = SlotCast{b.scale, b.fast};
      }
      const float enc = bc.scale.encode;
      const auto enc_of = [&](int) { return enc; };
      const auto scale_of = [&](int) -> const BlockScale& { return bc.scale; };
#pragma unroll
      for (int i = 0; i < kCache; ++i) {
        const std::int64_t c = lane + std::int64_t(i) * kLanes;
        if (c < chunks)
          store_segment_chunk(q, seg[s], c, vec_ok,
                              quantize_chunk<P>(r, bounds, bc.fast, enc_of, scale_of, cache[s][i].unpack()));
      }
#pragma unroll 4
      for (std::int64_t c = lane + std::int64_t(kCache) * kLanes; c < chunks; c += kLanes)
        store_segment_chunk(
            q, seg[s], c, vec_ok,
            quantize_chunk<P>(r, bounds, bc.fast, enc_of, scale_of, load_segment_chunk(x, seg[s], c, vec_ok).unpack()));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Kernel 2: column tiles. The input is row-major (rows, cols) with row stride `cols`; a scale
// block runs down a column over a row range [r0, r1) (kAmaxCols = 1: one block per column), or
// over kAmaxCols adjacent columns of that range (128x128 tiles, 32x32 MX blocks; kAmaxCols divides
// kTileCols and every block starts at a multiple of kAmaxCols). The codes of a column are
// contiguous along the rows of a range: q[map.out_offset(row, col)] with
// out_offset(row + 1, col) = out_offset(row, col) + 1 (column-major, per expert for 3D weights).
// The map gives range i (0 <= i < ranges): its rows, whether it is a zero-fill range (rows of no
// group), and the scale index of (range, column).
//
// One CTA of 256 threads works on one (range, column tile) item at a time. Rows are taken in
// batches of kBatchRows from the range's first row rounded down to a multiple of 16 (so that a
// 16-row run of codes is 16-byte aligned wherever the range starts); thread (cx, ry) holds the
// 8-column chunk cx of the kBatch consecutive rows ry*kBatch .. ry*kBatch + kBatch - 1 of each
// batch (a warp reads whole 128-byte row pieces). Pass 1 keeps per-column keys in registers (the
// first kCacheBatches batches cached), combines them through shared memory and computes one cast
// per column (or per block of columns); pass 2 casts each batch, transposes the codes in registers
// into kBatch-byte column pieces, gathers them in shared memory and writes 16 codes of a column
// per 16-byte store.

struct RowRange {
  std::int64_t r0 = 0, r1 = 0;
  bool zero_fill = false;
  bool writes_scale = true;  // false for the later parts of a block split over several ranges
};

// Where a column block's key comes from. Own: the range is the whole block, reduced here.
// Store / Load: a block (a large group) is split into several ranges; a first launch reduces each
// range (Store: atomicMax of the key into a zeroed workspace, keys[map.key_index(range, col)]; an
// integer maximum, so the result does not depend on the order), a second casts (Load: the key
// from the workspace; the range with writes_scale stores the scale).
enum class KeyMode : int { Own, Store, Load };

template <int kTileCols, int kBatch>
struct ColumnTileShape {
  static constexpr int kColChunks = kTileCols / kChunk;    // threads across the tile
  static constexpr int kRowLanes = kThreads / kColChunks;  // thread rows
  static constexpr int kBatchRows = kRowLanes * kBatch;    // rows cast between two barriers
  static constexpr int kRuns = kBatchRows / 16;            // 16-code runs per column and batch
  static_assert(kBatch == 1 || kBatch == 2 || kBatch == 4, "kBatch: 1, 2 or 4 rows per thread");
  static_assert(kBatchRows % 16 == 0, "whole 16-code runs per batch");
};

template <int kTileCols, int kBatch>
struct ColumnTileShared {
  using Shape = ColumnTileShape<kTileCols, kBatch>;
  std::uint32_t keys[Shape::kRowLanes][kTileCols + 1];
  std::uint32_t alls[Shape::kRowLanes][kTileCols + 1];  // the `all` words (recipes that drop NaN)
  BlockScale scale[kTileCols];
  bool fast[kTileCols];
  // codes[col][...]: the batch's codes of a column, its 16-code runs swizzled (run g stored at
  // g ^ (col / 8 % kRuns)): the 8 column chunks of a warp write different banks.
  alignas(16) std::uint8_t codes[kTileCols][Shape::kBatchRows];
};

__device__ __forceinline__ int swizzled_run(int run, int col, int runs) { return run ^ ((col / kChunk) % runs); }

// Two CTAs per SM when a thread caches more than 8 words: beside the cache a column thread holds
// eight per-column keys (two sets for recipes that drop NaN), eight encodes and kBatch code pairs.
template <class In, CastPath P, int kTileCols, int kAmaxCols, int kBatch, int kCacheWords, KeyMode kMode, class Map>
__global__ void __launch_bounds__(kThreads, kMinCtasPerSm<kCacheWords <= 8 ? kCacheWords : 32>)
    column_tiles_kernel(const In* __restrict__ x, std::int64_t cols, std::uint8_t* __restrict__ q,
                        void* __restrict__ scales, bool scale_bytes, RecipeCore r, CastBounds bounds, Map map,
                        std::int64_t ranges, bool vec_ok, bool out_vec, std::uint32_t* __restrict__ keys) {
  static_assert(kAmaxCols == 1 || kMode == KeyMode::Own, "tile blocks are never split");
  static_assert(kAmaxCols >= 1 && kTileCols % kAmaxCols == 0, "whole blocks per tile");
  using Shape = ColumnTileShape<kTileCols, kBatch>;
  using Shared = ColumnTileShared<kTileCols, kBatch>;
  constexpr int kColChunks = Shape::kColChunks, kBatchRows = Shape::kBatchRows, kRuns = Shape::kRuns;
  constexpr int kWords = RawChunk<In>::kWords;
  // Batches kept in registers between the passes (none when this launch only reduces keys).
  constexpr int kCacheBatches = kMode == KeyMode::Own ? kCacheWords / (kBatch * kWords) : 0;
  // Raw storage: BlockScale's member initialisers would ask for a dynamic initialisation.
  __shared__ alignas(16) unsigned char shared_bytes[sizeof(Shared)];
  Shared& sh = *reinterpret_cast<Shared*>(shared_bytes);
  const int cx = int(threadIdx.x) % kColChunks, ry = int(threadIdx.x) / kColChunks;
  const bool drop_nan = r.amax_nan == AmaxNan::Drop;
  const std::int64_t col_tiles = (cols + kTileCols - 1) / kTileCols;
  const std::int64_t items = ranges * col_tiles;

  for (std::int64_t step = blockIdx.x; step < items; step += gridDim.x) {
    // The cast launch of split blocks walks the items backwards: the input the key launch read
    // last is still in L2.
    const std::int64_t item = kMode == KeyMode::Load ? items - 1 - step : step;
    const std::int64_t range_id = item / col_tiles, tile = item % col_tiles;
    const RowRange rr = map.range(range_id);
    if constexpr (kMode == KeyMode::Store) {
      if (rr.zero_fill) continue;
    }
    const std::int64_t tile_c0 = tile * kTileCols;
    const std::int64_t c0 = tile_c0 + cx * kChunk;
    const std::int64_t base = rr.r0 & ~std::int64_t(15);
    const std::int64_t batches = rr.r1 > rr.r0 ? (rr.r1 - base + kBatchRows - 1) / kBatchRows : 0;
    const bool vec = vec_ok && c0 + kChunk <= cols;
    // Row `row` of this thread's chunk, or zeros for rows outside the range or columns past `cols`.
    const auto load_row = [&](std::int64_t row) -> RawChunk<In> {
      if (row < rr.r0 || row >= rr.r1) return RawChunk<In>::zero();
      const std::int64_t i = row * cols + c0;
      if (vec) return load_vec(x, i);
      return load_masked(x, i, i, row * cols + cols);
    };
    const auto row_of = [&](std::int64_t batch, int b) { return base + batch * kBatchRows + ry * kBatch + b; };

    // Pass 1: per-column keys, then one cast per column (or block of columns).
    RawChunk<In> cache[kCacheBatches > 0 ? kCacheBatches : 1][kBatch];
    if (kMode != KeyMode::Load && !rr.zero_fill) {
      const auto reduce = [&](auto drop) {
        constexpr bool kDrop = decltype(drop)::value;
        std::uint32_t acc[kWords], acc_all[kWords];
#pragma unroll
        for (int k = 0; k < kWords; ++k) acc[k] = acc_all[k] = 0;
        const auto add = [&](const RawChunk<In>& c) {
#pragma unroll
          for (int k = 0; k < kWords; ++k) {
            acc[k] = key_word<In, kDrop>(acc[k], c.w[k]);
            if constexpr (kDrop) acc_all[k] = key_word<In, false>(acc_all[k], c.w[k]);
          }
        };
#pragma unroll
        for (int i = 0; i < kCacheBatches; ++i) {
#pragma unroll
          for (int b = 0; b < kBatch; ++b) {
            cache[i][b] = load_row(row_of(i, b));
            add(cache[i][b]);
          }
        }
        for (std::int64_t i = kCacheBatches; i < batches; ++i) {
#pragma unroll
          for (int b = 0; b < kBatch; ++b) add(load_row(row_of(i, b)));
        }
#pragma unroll
        for (int j = 0; j < kChunk; ++j) {
          sh.keys[ry][cx * kChunk + j] = column_key<In>(acc, j);
          sh.alls[ry][cx * kChunk + j] = column_key<In>(kDrop ? acc_all : acc, j);
        }
      };
      if (drop_nan) reduce(std::true_type{});
      else reduce(std::false_type{});
      __syncthreads();
      if (threadIdx.x < kTileCols) {
        std::uint32_t k = 0, a = 0;
        for (int y = 0; y < Shape::kRowLanes; ++y) {
          k = max(k, sh.keys[y][threadIdx.x]);
          a = max(a, sh.alls[y][threadIdx.x]);
        }
        sh.keys[0][threadIdx.x] = k;
        sh.alls[0][threadIdx.x] = a;
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
        std::uint32_t k = 0, a = 0;
        if constexpr (kMode == KeyMode::Load) {
          // The workspace holds keys only: for a recipe that drops NaN an `all` word above every
          // magnitude keeps the block on encode_bits (exact, slower).
          if (col < cols) k = keys[map.key_index(range_id, col)];
          a = drop_nan ? 0xFFFFFFFFu : k;
        } else {
          k = sh.keys[0][threadIdx.x];
          a = sh.alls[0][threadIdx.x];
        }
        if constexpr (kAmaxCols > 1) {
          // The block of this column; columns past `cols` hold key 0, which cannot change the maximum.
          const int b0 = int(threadIdx.x) / kAmaxCols * kAmaxCols;
          for (int c = b0; c < b0 + kAmaxCols; ++c) {
            k = max(k, sh.keys[0][c]);
            a = max(a, sh.alls[0][c]);
          }
        }
        const BlockCast bc = block_cast<P>(r, bounds, k, a);
        sh.scale[threadIdx.x] = bc.scale;
        sh.fast[threadIdx.x] = bc.fast;
        if (col < cols && threadIdx.x % kAmaxCols == 0 && rr.writes_scale)
          store_scale(scales, map.scale_index(range_id, col), scale_bytes, bc.scale.stored);
      }
      __syncthreads();
    }

    // The next item's first batches, into L2 while this one casts.
    if (step + gridDim.x < items) {
      const std::int64_t next = kMode == KeyMode::Load ? item - gridDim.x : item + gridDim.x;
      const RowRange nr = map.range(next / col_tiles);
      const std::int64_t nc0 = next % col_tiles * kTileCols + cx * kChunk, nbase = nr.r0 & ~std::int64_t(15);
      if (!nr.zero_fill && nc0 < cols) {
#pragma unroll
        for (int i = 0; i < (kCacheBatches > 0 ? kCacheBatches : 1); ++i)
#pragma unroll
          for (int b = 0; b < kBatch; ++b) {
            const std::int64_t row = nbase + i * kBatchRows + ry * kBatch + b;
            if (row >= nr.r0 && row < nr.r1) prefetch_l2(x + row * cols + nc0);
          }
      }
    }
    // Pass 2: cast a batch, transpose in registers and through shared memory, write column runs.
    float enc[kChunk];
    bool fast = !rr.zero_fill;
#pragma unroll
    for (int j = 0; j < kChunk; ++j) {
      enc[j] = rr.zero_fill ? 0.0f : sh.scale[cx * kChunk + j].encode;
      fast = fast && sh.fast[cx * kChunk + j];
    }
    const auto enc_of = [&](int j) { return enc[j]; };
    const auto scale_of = [&](int j) -> const BlockScale& { return sh.scale[cx * kChunk + j]; };
    for (std::int64_t i = 0; i < batches; ++i) {
      uint2 codes[kBatch];
#pragma unroll
      for (int b = 0; b < kBatch; ++b) {
        const std::int64_t row = row_of(i, b);
        codes[b] = make_uint2(0u, 0u);
        if (rr.zero_fill || row < rr.r0 || row >= rr.r1) continue;
        RawChunk<In> c;
        if (i < kCacheBatches) {
#pragma unroll
          for (int k = 0; k < (kCacheBatches > 0 ? kCacheBatches : 1); ++k)
            if (k == i) c = cache[k][b];
        } else {
          c = load_row(row);
        }
        codes[b] = quantize_chunk<P>(r, bounds, fast, enc_of, scale_of, c.unpack());
      }
      // Column j's piece: its kBatch codes, row b in byte b.
#pragma unroll
      for (int j = 0; j < kChunk; ++j) {
        std::uint32_t piece = 0;
#pragma unroll
        for (int b = 0; b < kBatch; ++b) piece |= std::uint32_t(code_byte(codes[b], j)) << (8 * b);
        const int col = cx * kChunk + j, off = ry * kBatch;
        std::uint8_t* dst = &sh.codes[col][swizzled_run(off / 16, col, kRuns) * 16 + off % 16];
        if constexpr (kBatch == 4) *reinterpret_cast<std::uint32_t*>(dst) = piece;
        else if constexpr (kBatch == 2) *reinterpret_cast<std::uint16_t*>(dst) = std::uint16_t(piece);
        else *dst = std::uint8_t(piece);
      }
      __syncthreads();
      // Run u: 16 codes of column u / kRuns (consecutive threads write consecutive runs).
      for (int u = int(threadIdx.x); u < kTileCols * kRuns; u += kThreads) {
        const int col_in_tile = u / kRuns, run = u % kRuns;
        const std::int64_t col = tile_c0 + col_in_tile, row0 = base + i * kBatchRows + run * 16;
        if (col >= cols || row0 >= rr.r1 || row0 + 16 <= rr.r0) continue;
        const uint4 v = *reinterpret_cast<const uint4*>(&sh.codes[col_in_tile][swizzled_run(run, col_in_tile, kRuns) * 16]);
        if (row0 >= rr.r0 && row0 + 16 <= rr.r1) {
          std::uint8_t* dst = q + map.out_offset(row0, col);
          if (out_vec && reinterpret_cast<std::uintptr_t>(dst) % 16 == 0) {
            *reinterpret_cast<uint4*>(dst) = v;
            continue;
          }
        }
        const std::uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (int j = 0; j < 16; ++j) {
          const std::int64_t row = row0 + j;
          if (row >= rr.r0 && row < rr.r1) q[map.out_offset(row, col)] = std::uint8_t(w[j / 4] >> (8 * (j % 4)));
        }
      }
      __syncthreads();
    }
  }
}

}  // namespace octet::cuda::quant

// ---------------------------------------------------------------------------------------------
// Host side: the cast path and bounds of a recipe, grids, and the launches of the two kernels for
// a source type (bf16 or fp32) and cast path.

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

// The PTX cvt (RNE, satfinite, subnormals kept) can stand for the recipe's cast when the recipe's
// CastSpec rounds to nearest even and keeps subnormals (the two then agree on every non-NaN value
// up to the format's largest finite value), for e4m3fn and e5m2 on sm_89 and later. Where they
// still differ (overflow, NaN) cast_bounds and block_cast keep such blocks on encode_bits.
inline CastPath cast_path(const Recipe& r, const Device& d) {
  if (d.cc < 89) return CastPath::Generic;
  if (r.element != FormatId::e4m3fn && r.element != FormatId::e5m2) return CastPath::Generic;
  const CastSpec& c = r.cast;
  if (c.rounding != Rounding::NearestEven || c.subnormals != Subnormals::Keep) return CastPath::Generic;
  return r.element == FormatId::e4m3fn ? CastPath::CvtE4m3 : CastPath::CvtE5m2;
}

// The clamp and the cvt's exact range (CastBounds). Under round-to-nearest-even every |v| below
// the format's max plus half its last ulp (e4m3fn: 448 + 16 = 464, e5m2: 57344 + 4096 = 61440)
// rounds to at most max, where a saturating and a non-saturating cast agree; a saturating
// CastSpec agrees with the cvt everywhere.
inline CastBounds cast_bounds(const Recipe& r) {
  CastBounds b;
  if (r.clamp != ClampBeforeCast::None) {
    b.hi = r.max_pos;
    b.lo = -r.max_pos;
  }
  const Format& f = all_formats[std::size_t(r.element)];
  b.clamp_fast = !(double(b.hi) >= max_finite(f) && double(b.lo) <= -max_finite(f));
  if (r.cast.overflow == Overflow::SatFinite) {
    b.limit = INFINITY;
  } else {
    const double max = max_finite(f);
    int e = 0;
    std::frexp(max, &e);  // max = m * 2^e, m in [0.5, 1): the last ulp is 2^(e - 1 - mantissa_bits)
    b.limit = float(max + std::ldexp(1.0, e - 2 - int(f.mantissa_bits)));
  }
  return b;
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
      constexpr std::int64_t kPerCta = std::int64_t(kThreads / kLanes) * kSegs;  // segments per CTA and iteration
      kernel<<<grid_for(per_sm, (count + kPerCta - 1) / kPerCta, d), kThreads, 0, stream>>>(
          static_cast<const In*>(x), q, scales, scale_bytes, core, cast_bounds(r), map, count, vec_ok);
      OCTET_CUDA_CHECK(cudaGetLastError());
    });
  });
}

// Launches kernel 2 over `ranges` row ranges of a row-major (rows, cols) input. out_vec: false
// keeps every code store to single bytes (otherwise 16-byte stores wherever a run is aligned).
// kBatch: rows per thread and batch (the batch has kBatch * 256 * 8 / kTileCols rows; no more than
// a typical range).
template <int kTileCols, int kAmaxCols, int kCacheWords, KeyMode kMode = KeyMode::Own, int kBatch = 4, class Map>
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
      auto* kernel = &column_tiles_kernel<In, decltype(path)::value, kTileCols, kAmaxCols, kBatch, kCacheWords, kMode, Map>;
      static const int per_sm = occupancy(kernel);
      kernel<<<grid_for(per_sm, items, d), kThreads, 0, stream>>>(static_cast<const In*>(x), cols, q, scales,
                                                                  scale_bytes, core, cast_bounds(r), map, ranges,
                                                                  vec_ok, out_vec, keys);
      OCTET_CUDA_CHECK(cudaGetLastError());
    });
  });
}

}  // namespace octet::cuda::quant
