// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// sm90_quant_row_stream.cuh — the row quantisers' streaming kernel (sm_90): whole rows of a
// row-major input are copied into shared memory by the bulk copy engine (cp.async.bulk, PTX ISA
// 8.0 "Data Movement and Conversion Instructions: cp.async.bulk", completion on an mbarrier), a
// ring of stages (2 by default) deep, while the CTA's threads reduce and cast the rows that have
// arrived.
// Used by every quantiser whose scale blocks are column ranges of a row (rowwise, 1x128 and 1x32
// blocks, per-group column ranges); the arithmetic is the shared core's (sm90_quant_common.cuh:
// integer amax keys, block_cast, quantize_chunk), so the bytes equal row_segments_kernel's.
//
// Why: in row_segments_kernel a lane loads its chunks, waits for them, reduces, waits at a
// barrier for the scale and stores; loads are in flight only while a lane is in its first phase,
// and every lane pays the index and masking arithmetic of its chunks (H200, 16640x5120 bf16:
// 72% of copy bandwidth at best). Here one thread issues one copy per item (a run of whole rows,
// ~32 KB) up to stages - 1 items ahead, so HBM streams through the reductions, barriers and stores;
// the threads read 16-byte chunks from shared memory at addresses that need no masking.
//
// A row map (the RowBlocks concept) describes the scale blocks of every row, the same for all rows:
//   rows, len                       the input is rows x len, row-major, contiguous
//   segments()                      column ranges per row (scale blocks and zero-fill ranges)
//   seg_begin(s), seg_end(s)        columns [begin, end) of range s (ranges in column order)
//   segment_of(col)                 the range holding column col (never an empty one)
//   zero_fill(s)                    codes 0x00 and no scale (columns of no group)
//   scaled_segments()               the ranges with a scale: 0 .. scaled_segments() - 1 (the
//                                   zero-fill ranges, if any, come after them)
//   scale_index(row, s)             where the scale of (row, s) is stored
//   block_columns()                 the columns of a block when all are equal (else 8)
//   kMayMix                         whether an 8-column chunk can straddle two ranges
//   kSlotRanges                     the scale phase's order (below): runs of this many (a power
//                                   of two) neighbouring ranges whose scales sit together, the
//                                   item's rows inside a run; 0: row by row (row-major scales)
//   kEqualLengths                   for the fallback (row_segments_kernel's shared-scale choice)
// row_stream_kernel runs when the input and codes are 16-byte aligned, len % 8 == 0 and a stage
// fits; otherwise launch_row_blocks falls back to row_segments_kernel over the same map.
// Measured shapes and outcomes: docs/gpu-notes.md (2026-11-25).
#pragma once

#include <bit>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <string>
#include <type_traits>

#include "sm90_bulk_copy.cuh"
#include "sm90_cp_async.cuh"
#include "sm90_layout_device.hpp"
#include "sm90_quant_common.cuh"

namespace octet::cuda::quant {

// ---------------------------------------------------------------------------------------------
// Row maps.

// A ScaleAt functor's kSlotRanges member (the map trait above), 0 where it has none.
template <class ScaleAt, class = void>
inline constexpr int kSlotRangesOf = 0;
template <class ScaleAt>
inline constexpr int kSlotRangesOf<ScaleAt, std::void_t<decltype(ScaleAt::kSlotRanges)>> = ScaleAt::kSlotRanges;

// Column blocks of `block` columns (the last one shorter when block does not divide len); the
// scale of (row, s) at scale_at(row, s). min_segments: 1 where a row of no columns still has a
// scale block (rowwise: the scale of an empty row).
template <class ScaleAt>
struct BlockColumns {
  static constexpr bool kEqualLengths = true;  // but a shorter last block
  static constexpr bool kMayMix = false;       // block % 8 == 0 (launch_row_blocks checks)
  static constexpr int kSlotRanges = kSlotRangesOf<ScaleAt>;
  std::int64_t rows = 0, len = 0, block = 1;
  ScaleAt scale_at{};
  int min_segments = 0;
  __host__ __device__ int segments() const {
    const int n = int((len + block - 1) / block);
    return n > min_segments ? n : min_segments;
  }
  __device__ int segment_of(std::int64_t col) const { return int(col / block); }
  __device__ std::int64_t seg_begin(int s) const { return s * block; }
  __device__ std::int64_t seg_end(int s) const { return (s + 1) * block < len ? (s + 1) * block : len; }
  __device__ bool zero_fill(int) const { return false; }
  __host__ __device__ int scaled_segments() const { return segments(); }
  __device__ std::int64_t scale_index(std::int64_t row, int s) const { return scale_at(row, s); }
  __host__ __device__ std::int64_t block_columns() const { return block; }
};

// Column groups given by offs (G cumulative group ends, non-decreasing, offs[G-1] <= len): range
// g < G is [offs[g-1], offs[g]) with its scale at g*rows + row, range G the zero-fill columns
// [offs[G-1], len).
struct GroupColumns {
  static constexpr bool kEqualLengths = false;
  static constexpr bool kMayMix = true;
  static constexpr int kSlotRanges = 1;  // scale at g * rows + row
  std::int64_t rows = 0, len = 0, G = 0;
  const std::int64_t* offs = nullptr;
  __host__ __device__ int segments() const { return int(G + 1); }
  __device__ std::int64_t seg_begin(int g) const { return layout_detail::group_begin(offs, g); }
  __device__ std::int64_t seg_end(int g) const { return g < G ? __ldg(offs + g) : len; }
  // The first g with offs[g] > col, G when there is none.
  __device__ int segment_of(std::int64_t col) const { return int(layout_detail::upper_bound(offs, G, col)); }
  __device__ bool zero_fill(int g) const { return g == G; }
  __host__ __device__ int scaled_segments() const { return int(G); }
  __device__ std::int64_t scale_index(std::int64_t row, int g) const { return g * rows + row; }
  __host__ __device__ std::int64_t block_columns() const { return kChunk; }
};

// The same blocks as row_segments_kernel segments (the fallback): id = row * segments() + s.
template <class RowMap>
struct FlatSegments {
  static constexpr bool kEqualLengths = RowMap::kEqualLengths;
  RowMap map;
  std::int64_t segs = 1;
  __device__ Segment operator()(std::int64_t id) const {
    const std::int64_t row = id / segs;
    const int s = int(id - row * segs);
    const std::int64_t b = map.seg_begin(s), e = map.seg_end(s);
    const bool zero = map.zero_fill(s);
    return {row * map.len + b, e - b, zero ? 0 : map.scale_index(row, s), zero};
  }
};

// ---------------------------------------------------------------------------------------------
// The kernel.

inline constexpr int kStreamThreads = 256;
inline constexpr int kStreamMaxStages = 8;
inline constexpr std::uint16_t kMixedChunk = 0xFFFF;  // chunk_seg entry of a chunk in two ranges

// The launch's geometry (computed by launch_row_blocks).
struct StreamShape {
  std::int64_t items = 0;       // runs of rows_per_item rows (the last one shorter)
  int rows_per_item = 1;
  int last_rows = 1;            // rows of the last item
  int cpr = 0;                  // 8-element chunks per row (len / 8)
  FastDiv cpr_div;              // by cpr: an item chunk's row, where a rare path needs it
  int segs = 1;                 // ranges per row
  int scaled_segs = 1;          // the first ranges of a row that have a scale (the rest zero-fill)
  std::uint32_t stage_bytes = 0;  // rows_per_item * len * sizeof(In), a multiple of 16
  int stages = 2;                 // items in flight per CTA (<= kStreamMaxStages; StreamTuning)
  // Lanes per slot when every slot of a warp's 32 consecutive chunks covers an aligned group of
  // group_lanes lanes (a power of two <= 32: equal blocks of up to 32 chunks, or rows of whole
  // 32-chunk windows); 0 for any other layout (runs found by a segmented scan).
  // kAtomicRuns: group maps whose runs the segmented scan would find; each lane's key goes to its
  // slot by its own shared atomicMax instead.
  int group_lanes = 0;
  FastDiv scaled_div;  // by scaled_segs: a slot's row in the scale phase, row by row
  // Maps with kSlotRanges: the scale phase in runs of 2^slot_shift neighbouring ranges (a divisor
  // of scaled_segs), the item's rows inside a run; run_div divides by the slots of a run.
  int slot_shift = 0;
  FastDiv run_div;
};
inline constexpr int kAtomicRuns = -1;

// chunk_run entry of chunk column cc (rows whose runs are not aligned lane groups, and not found
// by match.any): the count of whole chunks of its range before it in the row (capped at 31; 0 for
// a chunk in two ranges), and kRunLast where the next chunk column holds another range or the row
// ends there.
inline constexpr std::uint16_t kRunLast = 0x8000;
inline constexpr std::uint16_t kRunPosMask = 31;

// chunk_slot entry of an item's chunk c (stage order: row * cpr + chunk column): its slot (row of
// the item * segs + range), flagged where the cast must leave the fast path: kSlotZero for a chunk
// of a zero-fill range (codes 0x00), kSlotMixed for a chunk in two ranges (the low bits then hold
// row * segs). Slots are below kStreamMaxSlots (2048). One table lookup per chunk gives both passes
// the slot, where they stepped a (row, chunk column) pair per chunk and read the range from a
// per-column table (H200 SASS of the rowwise kernel: 24 of 107 instructions per chunk and warp).
inline constexpr std::uint16_t kSlotMixed = 0x8000;
inline constexpr std::uint16_t kSlotZero = 0x4000;
inline constexpr std::uint16_t kSlotBits = 0x3FFF;
// slot_fenc entry of a block that cannot take the cvt (a NaN pattern: a fast block's encode is
// finite).
inline constexpr std::uint32_t kSlowBlock = 0xFFFFFFFFu;

// The maximum of v[] over aligned groups of kLanes lanes (xor shuffles; every lane of the warp).
template <int kLanes, int kValues>
__device__ __forceinline__ void xor_max_ladder(std::uint32_t (&v)[kValues]) {
#pragma unroll
  for (int o = kLanes / 2; o > 0; o /= 2) {
#pragma unroll
    for (int k = 0; k < kValues; ++k) v[k] = max(v[k], __shfl_xor_sync(0xFFFFFFFFu, v[k], o));
  }
}

// The maximum of v[] over this lane's run, the neighbouring lanes of the warp with the same slot
// (runs are contiguous: slots grow with the chunk index). Returns whether this lane holds the run's
// result: lane 0 of each aligned group, the first lane of each run (kMatchRuns), or the last lane
// of each run (segmented scan). Every lane of the warp must call it.
// Aligned groups: one redux.sync for the whole warp, else the ladder of xor shuffles of the group
// size (xor_max_ladder). The runtime shuffle loop and the integer division of `lane % group_lanes`
// it replaces were 37% of the rowwise kernel's instructions (ncu, H100: 26 instructions per
// element); without them the 1x32, 1x128 and rowwise kernels gain 4-10 points of copy bandwidth.
// Segmented scan: Hillis-Steele, five shuffle steps of the values, a lane taking the value d
// lanes up where at least d lanes of its run come before it (its chunk_run entry `run`, capped by
// its lane: runs do not cross rows, so they start in the warp or before it). It replaces a scan
// that shuffled and compared the slots at every step as well. H100, per-group rowwise 16640x5120
// at 64 groups, four runs each: 84.1% of copy against 82.3-82.6% in one binary with a switch;
// rowwise 3D at 64x2048x1408 97.1-97.3 against 95.4-95.7. Against the previous commit's binary
// (both kernels recompiled) it read 81.2-81.4 against 81.8-82.2 and 94.7-94.8 against 95.8-96.0,
// while rows that take neither scan moved by -3 to +4 points (code generation; docs/gpu-notes.md,
// 2026-11-27).
template <bool kMatchRuns, int kValues>
__device__ __forceinline__ bool run_max(int slot, std::uint16_t run, std::uint32_t (&v)[kValues], int group_lanes) {
  constexpr unsigned kAll = 0xFFFFFFFFu;
  const int lane = int(threadIdx.x) % 32;
  if (group_lanes == 32) {
#pragma unroll
    for (int k = 0; k < kValues; ++k) v[k] = __reduce_max_sync(kAll, v[k]);
    return lane == 0;
  }
  if (group_lanes > 0) {
    // One straight ladder per group size: a ladder of five steps, each skipped or taken by a
    // warp-uniform test, cost the 1x128 kernel 32 instructions per chunk and warp (H200 SASS).
    switch (group_lanes) {  // a power of two
      case 16: xor_max_ladder<16>(v); break;
      case 8: xor_max_ladder<8>(v); break;
      case 4: xor_max_ladder<4>(v); break;
      case 2: xor_max_ladder<2>(v); break;
      default: break;  // 1: every lane is its own group
    }
    return (lane & (group_lanes - 1)) == 0;
  }
  if constexpr (kMatchRuns) {
    // The lanes with this lane's slot (match.any.sync), then one redux.sync per value over them
    // (the warp split into disjoint member masks, as cooperative groups' labeled_partition does).
    const unsigned peers = __match_any_sync(kAll, unsigned(slot));
#pragma unroll
    for (int k = 0; k < kValues; ++k) v[k] = __reduce_max_sync(peers, v[k]);
    return lane == __ffs(peers) - 1;
  } else {
    const int pos = min(int(run & kRunPosMask), lane);  // lanes of this run in the warp before this one
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
#pragma unroll
      for (int k = 0; k < kValues; ++k) {
        const std::uint32_t up = __shfl_up_sync(kAll, v[k], d);
        if (pos >= d) v[k] = max(v[k], up);
      }
    }
    return lane == 31 || (run & kRunLast) != 0;
  }
}

// The shared memory of one CTA: the stages, then (8-byte aligned) the barriers, the slot arrays
// (slot = row of the item * segs + range; slot_fenc: the encode bits of a fast block, else
// kSlowBlock), the per-column tables (chunk_seg, chunk_run) and the per-chunk table chunk_slot
// (item_chunks = rows_per_item * cpr entries).
struct StreamLayout {
  std::uint32_t stages = 0, bars = 0, keys = 0, alls = 0, fenc = 0, scales = 0, fast = 0, chunk_seg = 0,
                chunk_run = 0, chunk_slot = 0;
  std::uint32_t total = 0;
  __host__ __device__ static std::uint32_t align(std::uint32_t v, std::uint32_t a) { return (v + a - 1) / a * a; }
  __host__ __device__ StreamLayout(int stage_count, std::uint32_t stage_bytes, int slots, int cpr, int item_chunks) {
    stages = 0;
    bars = stages + std::uint32_t(stage_count) * stage_bytes;
    keys = align(bars + std::uint32_t(stage_count) * 8, 16);
    alls = keys + 4u * std::uint32_t(slots);
    fenc = alls + 4u * std::uint32_t(slots);
    scales = align(fenc + 4u * std::uint32_t(slots), 16);
    fast = scales + std::uint32_t(sizeof(BlockScale)) * std::uint32_t(slots);
    chunk_seg = align(fast + std::uint32_t(slots), 4);
    chunk_run = chunk_seg + 2u * std::uint32_t(cpr);
    chunk_slot = chunk_run + 2u * std::uint32_t(cpr);
    total = align(chunk_slot + 2u * std::uint32_t(item_chunks), 16);
  }
};

// Element j of a chunk that straddles ranges: its key into its range's slot. Out of line (rare),
// and every argument by value: a reference would make the caller keep the chunk in local memory.
template <class In, class Map>
__device__ __noinline__ void reduce_mixed_chunk(Map map, bool drop_nan, RawChunk<In> raw,
                                                std::int64_t col0, int slot0, std::uint32_t* keys,
                                                std::uint32_t* alls) {
  const Chunk c = raw.unpack();
#pragma unroll
  for (int j = 0; j < kChunk; ++j) {
    const int slot = slot0 + map.segment_of(col0 + j);
    const std::uint32_t mag = c.v[j] & 0x7FFFFFFFu;
    if (drop_nan) {
      atomicMax(alls + slot, mag);
      if (mag <= kInfBits) atomicMax(keys + slot, mag);
    } else {
      atomicMax(keys + slot, mag);
    }
  }
}

// The codes of a chunk that straddles ranges: element j under its own range's cast; 0x00 in
// zero-fill ranges (out of line, arguments by value, as reduce_mixed_chunk).
template <class In, CastPath P, class R, class Map>
__device__ __noinline__ uint2 cast_mixed_chunk(R r, CastBounds bounds, Map map, RawChunk<In> raw,
                                               std::int64_t col0, int slot0,
                                               const BlockScale* scales, const std::uint8_t* fast) {
  int seg[kChunk];
  bool all_fast = true;
#pragma unroll
  for (int j = 0; j < kChunk; ++j) {
    seg[j] = map.segment_of(col0 + j);
    all_fast = all_fast && (map.zero_fill(seg[j]) || fast[slot0 + seg[j]] != 0);
  }
  const auto enc_of = [&](int j) { return map.zero_fill(seg[j]) ? 0.0f : scales[slot0 + seg[j]].encode; };
  const auto scale_of = [&](int j) -> const BlockScale& { return scales[slot0 + seg[j]]; };
  uint2 codes = quantize_chunk<P>(r, bounds, all_fast, enc_of, scale_of, raw.unpack());
#pragma unroll
  for (int j = 0; j < kChunk; ++j) {
    if (!map.zero_fill(seg[j])) continue;
    const std::uint32_t keep = ~(0xFFu << (8 * (j % 4)));
    if (j < 4) codes.x &= keep;
    else codes.y &= keep;
  }
  return codes;
}

// Chunk c of a stage (16-byte aligned shared memory).
template <class In>
__device__ __forceinline__ RawChunk<In> stage_chunk(const unsigned char* stage, int c) {
  RawChunk<In> r;
  const uint4* p = reinterpret_cast<const uint4*>(stage) + c * (RawChunk<In>::kWords / 4);
#pragma unroll
  for (int k = 0; k < RawChunk<In>::kWords / 4; ++k) {
    const uint4 v = p[k];
    r.w[4 * k + 0] = v.x;
    r.w[4 * k + 1] = v.y;
    r.w[4 * k + 2] = v.z;
    r.w[4 * k + 3] = v.w;
  }
  return r;
}

// Item i (this CTA's j-th) holds rows [i * rows_per_item, ...): one contiguous run of the input.
// Per item: wait for its stage; pass 1 reduces each chunk's key into its slot (lanes of a warp
// with the same slot combine by shuffles first: run_max; one shared atomicMax per slot and warp);
// barrier; one thread per scaled slot computes block_cast, stores the scale and clears the keys;
// barrier; pass 2 casts each chunk from shared memory and stores its 8 codes. The next item's
// pass 1 starts without a barrier (it touches only keys, cleared before the second barrier); its
// first barrier frees the previous stage, which thread 0 then refills `stages` items ahead.
//
// The per-group instance with atomics is held to three CTAs per SM (at most 80 registers): left to
// itself ptxas gave it 112-113 registers once its scale phase took runs of ranges, two CTAs per
// SM, and per-group rowwise lost 5-9 points of copy (H100: 78.6-79.3% at 64 and 128 groups against
// 87.8-88.4 / 83.8-84.1). The others are left alone: the same bound on every instance moved
// unrelated rows by a point or more either way (per-group rowwise at 16 groups 84.5-84.7 against
// 85.7-86.2, the 1x128 lhs 84.2-84.5 against 85.3-85.5, MX dim0 89.3-89.8 against 88.0-88.3). Two
// kernels around one body: written out, a minimum of one CTA per SM is not the same to ptxas as
// none (the per-group instance with match.any took 104-112 registers with it, 80 without).
// kUnmatchedGroupRuns: that instance (per-group rows whose runs are not found by match.any: shared
// atomics, or the segmented scan where forced).
template <class Map, bool kMatchRuns>
inline constexpr bool kUnmatchedGroupRuns = Map::kMayMix && !kMatchRuns;

template <class In, CastPath P, class R, class Map, bool kMatchRuns>
__device__ __forceinline__ void row_stream_body(const In* __restrict__ x, std::uint8_t* __restrict__ q,
                                                void* __restrict__ scales, bool scale_bytes, R r, CastBounds bounds,
                                                Map map, StreamShape shape) {
  // The scale phase in runs of the map's ranges (kSlotRanges), but row by row in the per-group
  // instance with match.any runs (1 and 16 groups here; see the scale phase).
  constexpr bool kRunOrder = Map::kSlotRanges > 0 && !(Map::kMayMix && kMatchRuns);
  extern __shared__ __align__(128) unsigned char smem[];
  const int slots = shape.rows_per_item * shape.segs;
  const int S = shape.stages;
  const StreamLayout lay(S, shape.stage_bytes, slots, shape.cpr, shape.rows_per_item * shape.cpr);
  std::uint64_t* bars = reinterpret_cast<std::uint64_t*>(smem + lay.bars);
  std::uint32_t* keys = reinterpret_cast<std::uint32_t*>(smem + lay.keys);
  std::uint32_t* alls = reinterpret_cast<std::uint32_t*>(smem + lay.alls);
  std::uint32_t* slot_fenc = reinterpret_cast<std::uint32_t*>(smem + lay.fenc);
  BlockScale* slot_scale = reinterpret_cast<BlockScale*>(smem + lay.scales);
  std::uint8_t* slot_fast = smem + lay.fast;
  std::uint16_t* chunk_seg = reinterpret_cast<std::uint16_t*>(smem + lay.chunk_seg);
  std::uint16_t* chunk_run = reinterpret_cast<std::uint16_t*>(smem + lay.chunk_run);
  std::uint16_t* chunk_slot = reinterpret_cast<std::uint16_t*>(smem + lay.chunk_slot);
  const int tid = int(threadIdx.x);
  const std::int64_t row_elems = map.len;
  const std::int64_t item_elems = std::int64_t(shape.rows_per_item) * row_elems;
  const std::int64_t total_elems = map.rows * row_elems;
  // This CTA's j-th item goes to stage j % S; the stage index and the barrier parity are stepped,
  // not divided (a runtime S cost ~25 instructions per warp and item).
  const auto item_of = [&](std::int64_t j) { return std::int64_t(blockIdx.x) + j * gridDim.x; };
  const auto issue = [&](std::int64_t j, int stage_index) {
    const std::int64_t item = item_of(j);
    if (item >= shape.items) return;
    const std::int64_t e0 = item * item_elems;
    const std::int64_t n = (total_elems - e0 < item_elems ? total_elems - e0 : item_elems);
    bulk_copy_to_shared(smem + lay.stages + std::uint32_t(stage_index) * shape.stage_bytes, x + e0,
                        std::uint32_t(n * std::int64_t(sizeof(In))), &bars[stage_index]);
  };

  if (tid == 0) {
    for (int s = 0; s < S; ++s) mbarrier_init(&bars[s]);
    mbarrier_init_fence();
  }
  for (int i = tid; i < slots; i += kStreamThreads) keys[i] = alls[i] = 0u;
  for (int cc = tid; cc < shape.cpr; cc += kStreamThreads) {
    const std::int64_t col = std::int64_t(cc) * kChunk;
    const int s0 = map.segment_of(col), s1 = map.segment_of(col + kChunk - 1);
    chunk_seg[cc] = s0 == s1 ? std::uint16_t(s0) : kMixedChunk;
  }
  __syncthreads();
  // The chunk_run table of run_max's segmented scan (no aligned lane groups, no match.any).
  const bool scan_runs = !kMatchRuns && shape.group_lanes == 0;
  if (scan_runs) {
    for (int cc = tid; cc < shape.cpr; cc += kStreamThreads) {
      const std::uint16_t seg = chunk_seg[cc];
      if (Map::kMayMix && seg == kMixedChunk) {
        chunk_run[cc] = kRunLast;  // a run of its own (no slot: reduce_mixed_chunk)
        continue;
      }
      const std::int64_t first = (map.seg_begin(seg) + kChunk - 1) / kChunk;  // the range's first whole chunk
      const bool last = cc + 1 == shape.cpr || chunk_seg[cc + 1] != seg;
      chunk_run[cc] = std::uint16_t(min(std::int64_t(cc) - first, std::int64_t(kRunPosMask))) | (last ? kRunLast : 0);
    }
  }
  for (int row = 0; row < shape.rows_per_item; ++row) {
    for (int cc = tid; cc < shape.cpr; cc += kStreamThreads) {
      const std::uint16_t seg = chunk_seg[cc];
      const int slot0 = row * shape.segs;
      std::uint16_t e;
      if (Map::kMayMix && seg == kMixedChunk) e = kSlotMixed | std::uint16_t(slot0);
      else e = std::uint16_t(slot0 + seg) | (map.zero_fill(seg) ? kSlotZero : 0);
      chunk_slot[row * shape.cpr + cc] = e;
    }
  }
  __syncthreads();
  if (tid == 0)
    for (int j = 0; j < S; ++j) issue(j, j);

  const bool drop_nan = r.amax_nan == AmaxNan::Drop;
  int st = 0, prev_st = S - 1;  // the stages of items j and j - 1
  std::uint32_t parity = 0;     // of item j's barrier
  for (std::int64_t j = 0; item_of(j) < shape.items; ++j) {
    const std::int64_t item = item_of(j);
    const std::int64_t e0 = item * item_elems;
    const int nrows = item + 1 < shape.items ? shape.rows_per_item : shape.last_rows;
    const int nchunks = nrows * shape.cpr;
    const unsigned char* stage = smem + lay.stages + std::uint32_t(st) * shape.stage_bytes;
    const std::int64_t row0 = item * shape.rows_per_item;
    mbarrier_wait(&bars[st], parity);

    // Pass 1: keys. Chunk c = c0 + tid; the warp takes whole rounds (run_max wants every lane), a
    // lane past the item re-reads its last chunk and contributes a zero key.
    const auto reduce = [&](auto drop) {
      constexpr bool kDrop = decltype(drop)::value;
      for (int c0 = 0; c0 < nchunks; c0 += kStreamThreads) {
        const int c = c0 + tid;
        const bool active = c < nchunks;
        const int cl = active ? c : nchunks - 1;
        const RawChunk<In> raw = stage_chunk<In>(stage, cl);
        const std::uint16_t e = chunk_slot[cl];
        std::uint32_t key = 0, all = 0;
        int slot = -1;
        if (!Map::kMayMix || (e & kSlotMixed) == 0) {
          slot = e & kSlotBits;
          const std::uint32_t k = key_bits<In>(chunk_key<In, kDrop>(0u, raw));
          key = active ? k : 0u;
          if constexpr (kDrop) all = active ? key_bits<In>(chunk_key<In, false>(0u, raw)) : 0u;
          else all = key;
        } else if (active) {
          const int cc = c - int(shape.cpr_div.div(std::uint32_t(c))) * shape.cpr;
          reduce_mixed_chunk<In>(map, kDrop, raw, std::int64_t(cc) * kChunk, e & kSlotBits, keys, alls);
        }
        // The lanes of one slot (a run of neighbouring lanes) combine first; one atomic per run.
        std::uint32_t v[kDrop ? 2 : 1];
        v[0] = key;
        if constexpr (kDrop) v[1] = all;
        const std::uint16_t run = scan_runs ? chunk_run[cl - int(shape.cpr_div.div(std::uint32_t(cl))) * shape.cpr] : 0;
        bool holds = true;  // kAtomicRuns: every lane holds its own key
        if (!kUnmatchedGroupRuns<Map, kMatchRuns> || shape.group_lanes != kAtomicRuns)
          holds = run_max<kMatchRuns>(slot, run, v, shape.group_lanes);
        if (holds && (!Map::kMayMix || slot >= 0)) {
          atomicMax(keys + slot, v[0]);
          if constexpr (kDrop) atomicMax(alls + slot, v[1]);
        }
      }
    };
    if (drop_nan) reduce(std::true_type{});
    else reduce(std::false_type{});
    __syncthreads();
    // The stage of item j - 1 is free (every thread has cast it): refill it `stages` items ahead.
    if (tid == 0 && j > 0) issue(j - 1 + S, prev_st);
    // The casts, one thread per scaled slot; their keys cleared for the next item. The keys of
    // zero-fill slots are never read. (Per-group rows at 128 groups: 2 rows x 128 scaled slots, one
    // round of 256 threads; with the zero-fill slots, 258 slots took two rounds. H100, three runs
    // each: 79.1-79.4% of copy against 76.2-76.4%.) The phase is a dependent chain per slot while
    // the other threads wait: a thread with two slots (1x32 blocks: 2 rows x 160 per item) takes
    // both in one pass, the two chains side by side, and the slot's row comes by FastDiv.
    // kRunOrder: the slots in runs of the map's ranges, so that neighbouring threads store
    // neighbouring scales: per-group scales range by range (g * rows + row: a warp stores 16 pairs
    // of neighbouring words where it stored 32 words 16640 x 4 bytes apart), the blocked 1x32
    // scales 4 ranges x the item's rows (whole 8-byte pieces of a tile's 32-byte sectors). A short
    // last item leaves the threads of its missing rows idle. H100, against the previous commit's
    // binary, alternating, % of copy: per-group rowwise at 128 groups 84.5-86.2 against
    // 78.6-83.9, the blocked 1x32 scales 87.8-88.3 against 84.4-85.6. The 1x128 lhs (kb * M + m)
    // measured no gain in that order (84.2-85.5 in two builds against 85.1-85.6) and keeps the
    // row order, as do the per-group rows with match.any runs (1 and 16 groups: no gain).
    const int item_slots = (kRunOrder ? shape.rows_per_item : nrows) * shape.scaled_segs;
    for (int i0 = tid; i0 < item_slots; i0 += 2 * kStreamThreads) {
#pragma unroll
      for (int u = 0; u < 2; ++u) {
        const int i = i0 + u * kStreamThreads;
        if (i >= item_slots) break;
        int row, s;
        if constexpr (kRunOrder) {
          const int run = int(shape.run_div.div(std::uint32_t(i)));
          const int in_run = i - run * (shape.rows_per_item << shape.slot_shift);
          row = in_run >> shape.slot_shift;
          if (row >= nrows) continue;
          s = (run << shape.slot_shift) + (in_run & ((1 << shape.slot_shift) - 1));
        } else {
          row = int(shape.scaled_div.div(std::uint32_t(i)));
          s = i - row * shape.scaled_segs;
        }
        const int slot = row * shape.segs + s;
        const std::uint32_t key = keys[slot], all = drop_nan ? alls[slot] : key;
        keys[slot] = 0u;
        alls[slot] = 0u;
        const BlockCast bc = block_cast<P>(r, bounds, key, all);
        store_scale(scales, map.scale_index(row0 + row, s), scale_bytes, bc.scale.stored);
        slot_scale[slot] = bc.scale;
        slot_fast[slot] = bc.fast ? 1 : 0;
        slot_fenc[slot] = bc.fast ? __float_as_uint(bc.scale.encode) : kSlowBlock;
      }
    }
    __syncthreads();

    // Pass 2: codes, 8 per 8-byte store (the item is a contiguous run of the codes too).
    std::uint8_t* q_chunk = q + e0 + std::int64_t(tid) * kChunk;
    for (int c = tid; c < nchunks; c += kStreamThreads, q_chunk += kStreamThreads * kChunk) {
      const RawChunk<In> raw = stage_chunk<In>(stage, c);
      const std::uint16_t e = chunk_slot[c];
      uint2 codes;
      if ((e & (kSlotMixed | kSlotZero)) == 0) {
        const std::uint32_t fenc = slot_fenc[e];
        const float enc = __uint_as_float(fenc);
        codes = quantize_chunk<P>(r, bounds, fenc != kSlowBlock, [&](int) { return enc; },
                                  [&](int) -> const BlockScale& { return slot_scale[e]; }, raw.unpack());
      } else if (!Map::kMayMix || (e & kSlotMixed) == 0) {
        codes = make_uint2(0u, 0u);  // a zero-fill range
      } else {
        const int cc = c - int(shape.cpr_div.div(std::uint32_t(c))) * shape.cpr;
        codes = cast_mixed_chunk<In, P>(r, bounds, map, raw, std::int64_t(cc) * kChunk, e & kSlotBits, slot_scale,
                                        slot_fast);
      }
      *reinterpret_cast<uint2*>(q_chunk) = codes;
    }
    prev_st = st;
    if (++st == S) {
      st = 0;
      parity ^= 1u;
    }
  }
}

template <class In, CastPath P, class R, class Map, bool kMatchRuns>
__global__ void __launch_bounds__(kStreamThreads)
    row_stream_kernel(const In* __restrict__ x, std::uint8_t* __restrict__ q, void* __restrict__ scales,
                      bool scale_bytes, R r, CastBounds bounds, Map map, StreamShape shape) {
  row_stream_body<In, P, R, Map, kMatchRuns>(x, q, scales, scale_bytes, r, bounds, map, shape);
}
template <class In, CastPath P, class R, class Map, bool kMatchRuns>
__global__ void __launch_bounds__(kStreamThreads, 3)
    row_stream_kernel_3ctas(const In* __restrict__ x, std::uint8_t* __restrict__ q, void* __restrict__ scales,
                            bool scale_bytes, R r, CastBounds bounds, Map map, StreamShape shape) {
  row_stream_body<In, P, R, Map, kMatchRuns>(x, q, scales, scale_bytes, r, bounds, map, shape);
}

// ---------------------------------------------------------------------------------------------
// Host side.

// Shared memory per stage: ~32 KB (the column kernel's; the row kernel's is set in stream_tuning),
// two stages (three CTAs per SM by shared memory and registers). Measured before run_max and
// FastDiv: a stage's size matters more than the stage count; each item pays two barriers and the
// serial scale phase (H100, 16640x5120 bf16 rowwise, % of copy: items of 10 KB 59%, 20 KB 80%,
// 30 KB 88%; 4 x 12 KB or 8 x 8 KB stages no better than 4 x 16 KB; 30 KB items in 2 stages 90% (three CTAs)
// against 3 stages 88% (two CTAs), per-group at 1/16/64/128 groups 86/81/73/60% against
// 73/68/58/47%; 40 or 60 KB items, one or two CTAs, 63-70%). Rows of up to 48 KB; at most
// kStreamMaxSlots scale blocks per item. The environment variables OCTET_CUDA_STREAM_STAGE_BYTES
// and OCTET_CUDA_STREAM_STAGES override the first two (read once; for tuning sweeps, the bytes of
// every result unchanged).
struct StreamTuning {
  std::uint32_t stage_target = 32 * 1024;
  int stages = 2;
};
// The defaults, or the environment's overrides bytes_env / stages_env.
inline StreamTuning read_stream_tuning(const char* bytes_env, const char* stages_env) {
  StreamTuning v;
  if (const char* e = std::getenv(bytes_env)) v.stage_target = std::uint32_t(std::atol(e));
  if (const char* e = std::getenv(stages_env)) v.stages = std::atoi(e);
  v.stage_target = std::max<std::uint32_t>(v.stage_target, 16);
  v.stages = std::min(std::max(v.stages, 2), kStreamMaxStages);
  return v;
}
// The row kernel's items: ~24 KB. Measured again on 2026-11-26, after run_max and the divisions
// left the hot paths (H100, % of copy, median of three runs, 24 KB against 32 KB stages):
// rowwise 2D 93.0 / 85.4 (items of two 10 KB rows against three), rowwise 3D 99.3 / 91.1 at
// 8x5120x8192 and 95.7 / 92.6 at 64x2048x1408, 1x128 lhs 89.5 / 88.2, blocked 1x32 87.6 / 86.5,
// per-group at 1 / 16 / 64 / 128 groups 90.6 / 85.4 / 80.7 / 75.4 against 90.0 / 86.7 / 80.4 /
// 74.0; MX dim0 88.6 / 90.0 and per-token 89.4 / 90.8 lose a little. 20 and 28 KB: within a
// point of 24 KB.
inline StreamTuning stream_tuning() {
  static const StreamTuning t = [] {
    StreamTuning v = read_stream_tuning("OCTET_CUDA_STREAM_STAGE_BYTES", "OCTET_CUDA_STREAM_STAGES");
    if (std::getenv("OCTET_CUDA_STREAM_STAGE_BYTES") == nullptr) v.stage_target = 24 * 1024;
    return v;
  }();
  return t;
}
inline constexpr std::uint32_t kStreamMaxRowBytes = 48 * 1024;
inline constexpr int kStreamMaxSlots = 2048;
static_assert(kStreamMaxSlots <= kSlotBits + 1, "chunk_slot entries hold a slot in kSlotBits");
inline constexpr std::uint32_t kStreamMaxSharedBytes = 200 * 1024;  // under sm_90's 227 KB per CTA

// Resident CTAs of kBlockThreads threads per SM of `Kernel` at `smem` bytes of dynamic shared
// memory. The kernel's dynamic shared memory limit is raised once (kStreamMaxSharedBytes), and the
// answer is cached per kernel and size: a launch must not pay for attribute calls. Per kernel, not
// per launcher: the limit belongs to the function, which several launchers may share.
template <auto Kernel, int kBlockThreads = kStreamThreads>
int stream_ctas_per_sm(std::uint32_t smem) {
  static std::mutex mutex;
  static bool limit_set = false;
  static std::uint32_t occupancy_bytes = 0;
  static int cached_per_sm = 1;
  const std::lock_guard<std::mutex> lock(mutex);
  if (!limit_set) {
    OCTET_CUDA_CHECK(cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kStreamMaxSharedBytes)));
    limit_set = true;
  }
  if (smem != occupancy_bytes) {
    OCTET_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&cached_per_sm, Kernel, kBlockThreads, smem));
    cached_per_sm = std::max(cached_per_sm, 1);
    occupancy_bytes = smem;
  }
  return cached_per_sm;
}

// Calls f(path, core) with the cast path as an integral_constant and the recipe's core: the first
// of the FixedCore types Cores (sm90_fixed_core.hpp) that matches a recipe taking the e4m3 cvt,
// otherwise the runtime RecipeCore.
template <class... Cores, class F>
void with_core(const RecipeCore& core, CastPath path, F&& f) {
  bool done = false;
  const auto try_fixed = [&](auto fixed) {
    using Core = decltype(fixed);
    if (done || path != CastPath::CvtE4m3 || !Core::matches(core)) return;
    f(std::integral_constant<CastPath, CastPath::CvtE4m3>{}, Core::of(core));
    done = true;
  };
  (try_fixed(Cores{}), ...);
  if (!done) with_path(path, [&](auto p) { f(p, core); });
}

// One launch of row_stream_kernel<In, P, R, Map, kMatchRuns>.
template <class In, CastPath P, bool kMatchRuns, class R, class Map>
void launch_row_stream(const void* x, std::uint8_t* q, void* scales, bool scale_bytes, const R& core,
                       const CastBounds& bounds, const Map& map, const StreamShape& shape, std::uint32_t smem,
                       const Device& d, cudaStream_t stream) {
  constexpr auto kernel = [] {  // only the kernel that runs is instantiated
    if constexpr (kUnmatchedGroupRuns<Map, kMatchRuns>) return &row_stream_kernel_3ctas<In, P, R, Map, kMatchRuns>;
    else return &row_stream_kernel<In, P, R, Map, kMatchRuns>;
  }();
  const int per_sm = stream_ctas_per_sm<kernel>(smem);
  kernel<<<grid_for(per_sm, shape.items, d), kStreamThreads, smem, stream>>>(static_cast<const In*>(x), q, scales,
                                                                              scale_bytes, core, bounds, map, shape);
  OCTET_CUDA_CHECK(cudaGetLastError());
}

// Launches row_stream_kernel over the rows of `map` where it applies, else row_segments_kernel
// <kLanes, kCacheWords, kSegs> over the same blocks. Cores: FixedCore types (sm90_fixed_core.hpp)
// tried in order for recipes that take the e4m3 cvt; the first that matches the recipe runs,
// otherwise the kernel over the runtime RecipeCore.
template <int kLanes, int kCacheWords, int kSegs = 1, class... Cores, class Map>
void launch_row_blocks(SourceType src, const void* x, std::uint8_t* q, void* scales, bool scale_bytes,
                       const Recipe& r, const Map& map, cudaStream_t stream) {
  const int segs = map.segments();
  if (map.rows == 0 || segs == 0) return;
  const Device d = device();
  const std::int64_t in_bytes = src == SourceType::fp32 ? 4 : 2;
  const std::int64_t row_bytes = map.len * in_bytes;
  const StreamTuning tuning = stream_tuning();
  std::int64_t rpi = std::max<std::int64_t>(1, tuning.stage_target / std::max<std::int64_t>(row_bytes, 1));
  rpi = std::min<std::int64_t>({rpi, kStreamMaxSlots / segs, map.rows});
  const StreamLayout lay(tuning.stages, std::uint32_t(rpi * row_bytes), int(rpi) * segs, int(map.len / kChunk),
                         int(rpi * (map.len / kChunk)));
  const bool stream_ok = d.cc >= 90 && map.len > 0 && map.len % kChunk == 0 && row_bytes <= kStreamMaxRowBytes &&
                         map.block_columns() % kChunk == 0 && segs <= kStreamMaxSlots &&
                         lay.total <= kStreamMaxSharedBytes && aligned(x, 16) && aligned(q, 16);
  if (!stream_ok) {
    launch_row_segments<kLanes, kCacheWords, kSegs>(src, x, q, scales, scale_bytes, r, FlatSegments<Map>{map, segs},
                                                    map.rows * segs, stream);
    return;
  }
  StreamShape shape;
  shape.rows_per_item = int(rpi);
  shape.items = (map.rows + rpi - 1) / rpi;
  shape.last_rows = int(map.rows - (shape.items - 1) * rpi);
  shape.cpr = int(map.len / kChunk);
  shape.cpr_div = FastDiv(std::uint32_t(shape.cpr));
  shape.segs = segs;
  shape.scaled_segs = map.scaled_segments();
  shape.scaled_div = FastDiv(std::uint32_t(std::max(shape.scaled_segs, 1)));
  // Runs of kSlotRanges ranges where they divide the row's scaled ranges, else of one range.
  static_assert((Map::kSlotRanges & (Map::kSlotRanges - 1)) == 0, "kSlotRanges: 0 or a power of two");
  constexpr int kSlotShift = std::countr_zero(unsigned(std::max(Map::kSlotRanges, 1)));
  if (shape.scaled_segs % (1 << kSlotShift) == 0) shape.slot_shift = kSlotShift;
  shape.run_div = FastDiv(std::uint32_t(rpi << shape.slot_shift));
  shape.stage_bytes = std::uint32_t(rpi * row_bytes);
  shape.stages = tuning.stages;
  if constexpr (!Map::kMayMix) {
    // Blocks of bc chunks start at multiples of bc in the stage's chunk index when cpr % bc == 0.
    const std::int64_t bc = map.block_columns() / kChunk;
    if (shape.cpr % bc == 0 && bc >= 32 && bc % 32 == 0) shape.group_lanes = 32;
    if (shape.cpr % bc == 0 && bc < 32 && (bc & (bc - 1)) == 0) shape.group_lanes = int(bc);
  }
  // match.any.sync + redux.sync for per-group rows (ranges at any column) with ranges of 32 chunks
  // or more on average. H100, one machine, % of copy, match against the segmented scan (which then
  // shuffled the slots as well): per-group rowwise 16640x5120 bf16 at 1 / 16 groups 87.2 / 83.6
  // against 83.0 / 81.0, at 64 / 128 groups 71.5 / 60.2 against 77.8 / 70.8 (several slots per
  // warp); rowwise 3D at 64x2048x1408 (rows of 176 chunks, one range each) 89.0 against 92.6.
  // The other per-group rows (ranges of fewer than 32 chunks on average: several runs in a warp)
  // take kAtomicRuns: one shared atomicMax per lane, where the segmented scan spent five shuffle
  // steps per round (H100, per-group rowwise 16640x5120 at 64 / 128 groups, two runs each against
  // the scan's binary in one call: 87.9-88.1 / 84.0-84.4% of copy against 80.6 / 76.4-76.9; ncu
  // of an experiment build with both: 59 / 64 M warp instructions against 77 / 82 M). Not where
  // match.any applies: at 1 and 16 groups, atomics on one or two slots per warp measured 78.2 /
  // 78.2 against 84.8 / 81.6 in that experiment build. OCTET_CUDA_STREAM_RUNS = match | scan | atomic forces one of the three for
  // per-group rows (comparisons; the bytes are the same).
  static const int forced_runs = [] {
    const char* v = std::getenv("OCTET_CUDA_STREAM_RUNS");
    if (v == nullptr) return 0;
    const std::string s = v;
    return s == "match" ? 1 : s == "scan" ? 2 : s == "atomic" ? 3 : 0;
  }();
  const bool match_runs = forced_runs != 0 ? forced_runs == 1 : std::int64_t(segs) * 32 <= shape.cpr;
  if constexpr (Map::kMayMix)
    if (!match_runs && forced_runs != 2) shape.group_lanes = kAtomicRuns;
  const RecipeCore core = make_core(r);
  const CastBounds bounds = cast_bounds(r);
  const CastPath path = cast_path(r, d);
  with_source(src, [&](auto in) {
    using In = decltype(in);
    with_core<Cores...>(core, path, [&](auto p, const auto& rc) {
      // The kMatchRuns instance only for maps that may have runs of any length.
      if constexpr (Map::kMayMix) {
        if (match_runs) {
          launch_row_stream<In, decltype(p)::value, true>(x, q, scales, scale_bytes, rc, bounds, map, shape,
                                                          lay.total, d, stream);
          return;
        }
      }
      launch_row_stream<In, decltype(p)::value, false>(x, q, scales, scale_bytes, rc, bounds, map, shape, lay.total,
                                                       d, stream);
    });
  });
}

}  // namespace octet::cuda::quant
