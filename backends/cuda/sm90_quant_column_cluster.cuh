// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// sm90_quant_column_cluster.cuh — per-group colwise quantisation (one scale per (group, column),
// groups of rows given by offs) with a whole column strip held in the shared memory of one
// thread-block cluster (sm_90: cluster launch, distributed shared memory, barrier.cluster; PTX ISA
// 7.8, "Parallel Synchronization and Communication Instructions: barrier.cluster", "mapa",
// state space .shared::cluster).
// Peer:     pytorch/ao torchao/prototype/moe_training/kernels/jagged_float8_scales.py::
//           triton_fp8_per_group_colwise_scales; the bytes are octet::fp8_per_group_colwise_scales's
//           (emulator/src/kernels/fp8_per_group.cpp), as column_stream_kernel's over GroupColMap.
//
// Why: a group's scale needs the amax of all its rows before any of its codes, and a group of the
// MoE wgrad operand has up to all K rows (16640 at one group). column_stream_kernel works on one
// (group, 64-column tile) per item: a group larger than its stages is read twice, groups of more
// than 2048 rows on average take two launches (the input read twice from HBM: at most 3/5 of the
// copy rate), and at 16..128 groups most pieces hold a group's tail (H100: 48-54% of copy). Here
// the strip of kW columns and all K rows is read once: cluster rank q holds rows
// [q * slice_rows, (q + 1) * slice_rows) (K = 16640, kW = 32 bf16: 16 ranks of 1040 rows, 66.5 KB
// each), reduces the groups that lie inside its slice, and exchanges with the other ranks only the
// partial keys of the (at most two) groups that cross its slice's edges.
//
// One CTA (256 threads) per rank:
//   1. copies its slice with cp.async (a warp instruction covers whole row pieces of the strip);
//   2. in windows of up to kClusterWindowGroups groups: per-column keys of each group, the warps'
//      lanes taking consecutive 8-row blocks of one 8-column chunk (a segmented shuffle maximum
//      across lanes, then one shared atomicMax per (group, column) and segment); the scales
//      (block_cast), stored by the rank whose slice holds the group's first row; the casts;
//   3. publishes the partial keys of its first and last group, arrives at the cluster barrier;
//   4. after it, the full keys of the groups crossing its edges (the maximum of the partial keys
//      of every rank that holds a part, read from their shared memory), their scales and casts;
//      a second cluster barrier keeps every rank's shared memory alive until all have read it.
// Codes: each lane's 8x8 block transposed in registers, 8 rows of a column per 8-byte store, so a
// warp's store instruction writes 256 contiguous bytes of one column.
// The arithmetic is the shared core's (sm90_quant_common.cuh: integer amax keys, block_cast,
// quantize_chunk). Applies where the slices of at most kClusterMaxRanks ranks hold all K rows
// (launch_group_column_cluster returns false otherwise; the caller then runs the stream kernel).
#pragma once

#include <map>
#include <utility>

#include "sm90_quant_column_stream.cuh"

namespace octet::cuda::quant {

inline constexpr int kClusterMaxRanks = 16;      // sm_90's largest (non-portable) cluster
inline constexpr int kClusterWindowGroups = 16;  // groups reduced and cast per window

struct GroupClusterShape {
  std::int64_t rows = 0, cols = 0, groups = 0;  // K, N, G
  std::int64_t slice_rows = 0;                  // rows per rank, a multiple of 8
  int ranks = 1;                                // cluster size
};

// The shared memory of one rank: the slice, then the window's keys and scales, the scales of the
// two edge groups, the published edge keys, every rank's first and last group, the slice's
// 8-row blocks (their first row's group) and the copy barriers.
inline constexpr int kClusterCopyParts = 4;  // the slice's copies in parts, each with its mbarrier

template <class In, int kW>
struct GroupClusterLayout {
  static constexpr std::uint32_t kRowBytes = std::uint32_t(kW) * sizeof(In);
  static constexpr std::uint32_t kSlots = std::uint32_t(kClusterWindowGroups) * kW;
  std::uint32_t keys = 0, alls = 0, scales = 0, fast = 0, edge_scales = 0, edge_fast = 0, published = 0, ranks = 0,
                blocks = 0, bars = 0, total = 0;
  __host__ __device__ explicit GroupClusterLayout(std::int64_t slice_rows) {
    keys = StreamLayout::align(std::uint32_t(slice_rows) * kRowBytes, 16);
    alls = keys + 4u * kSlots;
    scales = alls + 4u * kSlots;
    fast = scales + std::uint32_t(sizeof(BlockScale)) * kSlots;
    edge_scales = StreamLayout::align(fast + kSlots, 16);
    edge_fast = edge_scales + std::uint32_t(sizeof(BlockScale)) * 2u * kW;
    published = StreamLayout::align(edge_fast + 2u * kW, 16);
    ranks = published + 8u * 2u * kW;
    blocks = ranks + 8u * 2u * kClusterMaxRanks;
    bars = StreamLayout::align(blocks + 4u * std::uint32_t(slice_rows / 8), 8);
    total = bars + 8u * kClusterCopyParts;
  }
};

// Byte offset of 16-byte vector v of slice row `row`. Rows are kRowVecs vectors, one after another;
// the placement inside each 128-byte line is permuted so that the 8 lanes of a quarter warp, which
// read vector v of rows 8L + i (L = 0..7, lanes on consecutive 8-row blocks), hit 8 distinct bank
// groups, as do the copies (a quarter warp writes one line). 64-byte rows: the line of rows 2p and
// 2p + 1 holds row 2p in its lower half when bit 3 of the row is clear, the vectors XOR-ed by
// bits 4-5; longer rows: the vector XOR-ed by bits 3-5 within each line.
template <int kRowVecs>
__device__ __forceinline__ std::uint32_t slice_offset(int row, int v) {
  static_assert(kRowVecs == 4 || kRowVecs == 8 || kRowVecs == 16, "rows of 64, 128 or 256 bytes");
  if constexpr (kRowVecs == 4) {
    const int half = (row & 1) ^ ((row >> 3) & 1);
    return std::uint32_t(row >> 1) * 128u + std::uint32_t(half * 4 + ((v ^ (row >> 4)) & 3)) * 16u;
  } else {
    return std::uint32_t(row) * (kRowVecs * 16u) + std::uint32_t((v & ~7) | ((v ^ (row >> 3)) & 7)) * 16u;
  }
}

// The cluster (PTX ISA: %cluster_ctarank; barrier.cluster.arrive.release / wait.acquire, which
// every thread of every CTA of the cluster executes; mapa + ld.shared::cluster reads another
// rank's shared memory). Compiled for sm_90 only; older targets trap (the host launches sm_90+).
__device__ __forceinline__ int cluster_rank() {
  std::uint32_t r = 0;
  OCTET_BULK_COPY_ASM("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return int(r);
}
__device__ __forceinline__ void cluster_arrive() {
  OCTET_BULK_COPY_ASM("barrier.cluster.arrive.release.aligned;" ::: "memory");
}
__device__ __forceinline__ void cluster_wait() {
  OCTET_BULK_COPY_ASM("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}
__device__ __forceinline__ uint2 load_rank_u2(const void* local, int rank) {
  std::uint32_t remote = 0;
  uint2 v = make_uint2(0u, 0u);
  OCTET_BULK_COPY_ASM("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(smem_address(local)), "r"(rank));
  OCTET_BULK_COPY_ASM("ld.shared::cluster.v2.u32 {%0, %1}, [%2];" : "=r"(v.x), "=r"(v.y) : "r"(remote));
  return v;
}

template <class In, CastPath P, class R, int kW>
__global__ void __launch_bounds__(kStreamThreads, 2)
    group_column_cluster_kernel(const In* __restrict__ x, const std::int64_t* __restrict__ offs,
                                std::uint8_t* __restrict__ q, std::uint32_t* __restrict__ scales, R r,
                                CastBounds bounds, GroupClusterShape shape, bool out_vec) {
  constexpr int kChunks = kW / kChunk;            // 8-column chunks per strip
  constexpr int kWords = RawChunk<In>::kWords;
  constexpr int kVecs = kWords / 4;               // 16-byte vectors per chunk
  constexpr int kRowVecs = kChunks * kVecs;
  constexpr int kWarps = kStreamThreads / 32;
  static_assert(kW % kChunk == 0 && kWarps % kChunks == 0, "whole warps per chunk");
  constexpr int kWarpsPerChunk = kWarps / kChunks;
  constexpr int kUniform = 1 << 30;               // block-table flag: the block's rows in one group
  using Layout = GroupClusterLayout<In, kW>;
  extern __shared__ __align__(128) unsigned char smem[];
  const Layout lay(shape.slice_rows);
  std::uint32_t* skeys = reinterpret_cast<std::uint32_t*>(smem + lay.keys);
  std::uint32_t* salls = reinterpret_cast<std::uint32_t*>(smem + lay.alls);
  BlockScale* sscale = reinterpret_cast<BlockScale*>(smem + lay.scales);
  std::uint8_t* sfast = smem + lay.fast;
  BlockScale* escale = reinterpret_cast<BlockScale*>(smem + lay.edge_scales);
  std::uint8_t* efast = smem + lay.edge_fast;
  uint2* published = reinterpret_cast<uint2*>(smem + lay.published);  // [first, last group][column]
  std::int64_t* rank_groups = reinterpret_cast<std::int64_t*>(smem + lay.ranks);  // [first | last][rank]
  int* sblocks = reinterpret_cast<int*>(smem + lay.blocks);  // per 8-row block: group - a (| kUniform)
  std::uint64_t* bars = reinterpret_cast<std::uint64_t*>(smem + lay.bars);

  const int tid = int(threadIdx.x), lane = tid % 32;
  const int rank = cluster_rank(), C = shape.ranks;
  const std::int64_t K = shape.rows, N = shape.cols, G = shape.groups, slice = shape.slice_rows;
  const std::int64_t R0 = rank * slice, R1 = R0 + slice < K ? R0 + slice : K;
  const int rows_here = int(R1 - R0), blocks_here = (rows_here + 7) / 8;
  const int part_rows = ((rows_here + kClusterCopyParts - 1) / kClusterCopyParts + 7) / 8 * 8;
  const std::int64_t col0 = std::int64_t(blockIdx.x / std::uint32_t(C)) * kW;
  const int chunks_ok = N - col0 >= kW ? kChunks : int((N - col0) / kChunk);  // N % 8 == 0
  const bool drop_nan = r.amax_nan == AmaxNan::Drop;

  if (tid == 0) {
    for (int p = 0; p < kClusterCopyParts; ++p) mbarrier_init(bars + p, kStreamThreads);
    mbarrier_init_fence();
  }
  // Every rank's first and last group (the groups of its first and last row; G: the rows past
  // offs[G-1]).
  if (tid < C) {
    const std::int64_t r0 = tid * slice, r1 = r0 + slice < K ? r0 + slice : K;
    rank_groups[tid] = layout_detail::upper_bound(offs, G, r0);
    rank_groups[kClusterMaxRanks + tid] = layout_detail::upper_bound(offs, G, r1 - 1);
  }
  __syncthreads();  // the barriers' initialisation, rank_groups

  // 1. The slice in parts of part_rows rows: vector e % kRowVecs of row e / kRowVecs, columns below
  // N; each thread arrives on a part's barrier when its copies of the part have landed.
  {
    const int vecs_ok = chunks_ok * kVecs;
    const In* src = x + R0 * N + col0;
    for (int p = 0; p < kClusterCopyParts; ++p) {
      const int e_end = min((p + 1) * part_rows, rows_here) * kRowVecs;
      for (int e = p * part_rows * kRowVecs + tid; e < e_end; e += kStreamThreads) {
        const int row = e / kRowVecs, v = e % kRowVecs;
        if (v < vecs_ok)
          cp_async_16(smem + slice_offset<kRowVecs>(row, v), src + std::int64_t(row) * N + v * (16 / int(sizeof(In))));
      }
      OCTET_BULK_COPY_ASM("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(smem_address(bars + p))
                          : "memory");
    }
  }
  const std::int64_t a = rank_groups[rank], b = rank_groups[kClusterMaxRanks + rank];
  const auto begin_of = [&](std::int64_t g) { return layout_detail::group_begin(offs, g); };
  const auto end_of = [&](std::int64_t g) { return g < G ? __ldg(offs + g) : K; };
  // The block table, while the copies are in flight.
  for (int t = tid; t < blocks_here; t += kStreamThreads) {
    const std::int64_t rb = R0 + 8 * t, last = (rb + 8 < R1 ? rb + 8 : R1) - 1;
    const std::int64_t g = layout_detail::upper_bound(offs, G, rb);
    sblocks[t] = int(g - a) | (end_of(g) > last ? kUniform : 0);
  }
  const bool edge_a = a < G && begin_of(a) < R0;  // group a began in an earlier rank
  const bool edge_b = b < G && end_of(b) > R1;    // group b goes on in a later rank
  // The rank whose slice holds the group's first row writes its scales (the last rank also those of
  // empty groups at K).
  const auto owns = [&](std::int64_t g) {
    const std::int64_t bg = begin_of(g);
    return bg >= R0 && (bg < R0 + slice || rank == C - 1);
  };
  const auto write_scale = [&](std::int64_t g, int col, std::uint32_t stored) {
    if (col0 + col < N && owns(g)) store_scale(scales, g * N + col0 + col, false, stored);
  };
  // Waits (once per part and thread) until the slice rows [0, rows) have landed.
  int landed = 0;
  const auto wait_rows = [&](int rows) {
    const int need = min(kClusterCopyParts, (rows + part_rows - 1) / part_rows);
    for (; landed < need; ++landed) mbarrier_wait(bars + landed, 0);
  };
  const auto chunk_of = [&](int row, int c) {
    RawChunk<In> raw;
#pragma unroll
    for (int v = 0; v < kVecs; ++v) {
      const uint4 t = *reinterpret_cast<const uint4*>(smem + slice_offset<kRowVecs>(row, c * kVecs + v));
      raw.w[4 * v + 0] = t.x;
      raw.w[4 * v + 1] = t.y;
      raw.w[4 * v + 2] = t.z;
      raw.w[4 * v + 3] = t.w;
    }
    return raw;
  };

  // f(blk, c, valid) for the 8-row blocks [blk_lo, blk_hi) of the slice: a warp takes 32
  // consecutive blocks of one chunk (all lanes call f: it may shuffle).
  const auto for_blocks = [&](int blk_lo, int blk_hi, auto&& f) {
    const int warp = tid / 32, c = warp % kChunks;
    for (int base = blk_lo + (warp / kChunks) * 32; base < blk_hi; base += 32 * kWarpsPerChunk) {
      const int blk = base + lane;
      f(blk, c, blk < blk_hi && c < chunks_ok);
    }
  };

  // Keys of the groups a + w0 .. over slice rows [lo, hi) (every row of which lies in one of them)
  // into skeys / salls[(group - a - w0) * kW + column].
  const auto reduce_rows = [&](int lo, int hi, int w0, auto drop) {
    constexpr bool kDrop = decltype(drop)::value;
    for_blocks(lo / 8, (hi + 7) / 8, [&](int blk, int c, bool valid) {
      std::uint32_t acc[kWords], all[kWords];
#pragma unroll
      for (int k = 0; k < kWords; ++k) acc[k] = all[k] = 0u;
      int slot = -1;  // the block's window slot when all its rows in [lo, hi) share one group
      if (valid) {
        const int rb = blk * 8, i0 = max(lo - rb, 0), i1 = min(hi - rb, 8);
        wait_rows(rb + i1);
        const int entry = sblocks[blk];
        if (entry & kUniform) {
          slot = (entry & (kUniform - 1)) - w0;
#pragma unroll
          for (int i = 0; i < 8; ++i) {
            if (i < i0 || i >= i1) continue;
            const RawChunk<In> raw = chunk_of(rb + i, c);
#pragma unroll
            for (int k = 0; k < kWords; ++k) {
              acc[k] = key_word<In, kDrop>(acc[k], raw.w[k]);
              if constexpr (kDrop) all[k] = key_word<In, false>(all[k], raw.w[k]);
            }
          }
        } else {
          // A block across a group boundary: row by row into the groups' slots.
          std::int64_t g = a + entry;
          for (int i = i0; i < i1; ++i) {
            while (end_of(g) <= R0 + rb + i) ++g;
            const int s = int(g - a) - w0;
            const RawChunk<In> raw = chunk_of(rb + i, c);
            std::uint32_t ka[kWords], kb[kWords];
#pragma unroll
            for (int k = 0; k < kWords; ++k) {
              ka[k] = key_word<In, kDrop>(0u, raw.w[k]);
              kb[k] = key_word<In, false>(0u, raw.w[k]);
            }
#pragma unroll
            for (int j = 0; j < kChunk; ++j) {
              atomicMax(skeys + s * kW + c * kChunk + j, column_key<In>(ka, j));
              if constexpr (kDrop) atomicMax(salls + s * kW + c * kChunk + j, column_key<In>(kb, j));
            }
          }
        }
      }
      // Segmented maximum towards the first lane of each run of equal slots (lanes hold
      // consecutive blocks, so a group's blocks are neighbouring lanes).
#pragma unroll
      for (int o = 1; o < 32; o *= 2) {
        const int other = __shfl_down_sync(0xFFFFFFFFu, slot, o);
        const bool same = lane + o < 32 && other == slot;
#pragma unroll
        for (int k = 0; k < kWords; ++k) {
          const std::uint32_t v = __shfl_down_sync(0xFFFFFFFFu, acc[k], o);
          if (same) acc[k] = combine_keys<In>(acc[k], v);
          if constexpr (kDrop) {
            const std::uint32_t u = __shfl_down_sync(0xFFFFFFFFu, all[k], o);
            if (same) all[k] = combine_keys<In>(all[k], u);
          }
        }
      }
      const int before = __shfl_up_sync(0xFFFFFFFFu, slot, 1);
      if (slot >= 0 && (lane == 0 || before != slot)) {
#pragma unroll
        for (int j = 0; j < kChunk; ++j) {
          atomicMax(skeys + slot * kW + c * kChunk + j, column_key<In>(acc, j));
          if constexpr (kDrop) atomicMax(salls + slot * kW + c * kChunk + j, column_key<In>(all, j));
        }
      }
    });
  };

  // Codes of slice rows [lo, hi): slot_of(g) >= 0 casts the rows of group g with scales
  // sc[slot * kW + column] (fast flags fa likewise), -1 leaves them, -2 writes zeros.
  const auto cast_rows = [&](int lo, int hi, const BlockScale* sc, const std::uint8_t* fa, auto&& slot_of) {
    if (hi <= lo) return;
    for_blocks(lo / 8, (hi + 7) / 8, [&](int blk, int c, bool valid) {
      if (!valid) return;
      const int rb = blk * 8, i0 = max(lo - rb, 0), i1 = min(hi - rb, 8);
      const int entry = sblocks[blk];
      std::int64_t g = a + (entry & (kUniform - 1));
      uint2 codes[8];
      unsigned mask = 0;
      if (entry & kUniform) {
        const int s = slot_of(g);
        if (s == -1) return;
        if (s >= 0) wait_rows(rb + i1);
        float enc[kChunk];
        bool fast = true;
        const int base = (s < 0 ? 0 : s) * kW + c * kChunk;
#pragma unroll
        for (int j = 0; j < kChunk; ++j) {
          enc[j] = s < 0 ? 0.0f : sc[base + j].encode;
          fast = fast && (s < 0 || fa[base + j] != 0);
        }
#pragma unroll
        for (int i = 0; i < 8; ++i) {
          codes[i] = make_uint2(0u, 0u);
          if (i < i0 || i >= i1) continue;
          mask |= 1u << i;
          if (s >= 0)
            codes[i] = quantize_chunk<P>(
                r, bounds, fast, [&](int j) { return enc[j]; },
                [&](int j) -> const BlockScale& { return sc[base + j]; }, chunk_of(rb + i, c).unpack());
        }
      } else {
        // A block across a group boundary: each row under its own group's scales.
        wait_rows(rb + i1);
#pragma unroll
        for (int i = 0; i < 8; ++i) {
          codes[i] = make_uint2(0u, 0u);
          if (i < i0 || i >= i1) continue;
          while (end_of(g) <= R0 + rb + i) ++g;
          const int s = slot_of(g);
          if (s == -1) continue;
          mask |= 1u << i;
          if (s < 0) continue;
          const int base = s * kW + c * kChunk;
          bool fast = true;
#pragma unroll
          for (int j = 0; j < kChunk; ++j) fast = fast && fa[base + j] != 0;
          codes[i] = quantize_chunk<P>(
              r, bounds, fast, [&](int j) { return sc[base + j].encode; },
              [&](int j) -> const BlockScale& { return sc[base + j]; }, chunk_of(rb + i, c).unpack());
        }
      }
      if (mask == 0) return;
      uint2 cols[8];
      {
        uint2 lo4[4], hi4[4];
        transpose_8x4<0>(codes, lo4);
        transpose_8x4<1>(codes, hi4);
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          cols[j] = lo4[j];
          cols[4 + j] = hi4[j];
        }
      }
      std::uint8_t* out = q + (col0 + c * kChunk) * K + R0 + rb;
      if (mask == 0xFFu && out_vec) {
#pragma unroll
        for (int j = 0; j < kChunk; ++j) *reinterpret_cast<uint2*>(out + j * K) = cols[j];
      } else {
#pragma unroll
        for (int j = 0; j < kChunk; ++j)
#pragma unroll
          for (int i = 0; i < 8; ++i)
            if (mask >> i & 1u) out[j * K + i] = std::uint8_t((i < 4 ? cols[j].x : cols[j].y) >> (8 * (i % 4)));
      }
    });
  };

  // Empty groups this rank owns that no window covers: those at R0 (before a), and at the last
  // rank those at K (after b). Key 0, as an empty window slot.
  {
    const std::int64_t first_owned = R0 == 0 ? 0 : layout_detail::upper_bound(offs, G, R0 - 1) + 1;
    const std::int64_t after = rank == C - 1 ? (b < G ? G - b - 1 : 0) : 0;
    const std::int64_t before = a > first_owned ? a - first_owned : 0;
    if (before + after > 0) {
      const BlockScale zero = block_cast<P>(r, bounds, 0u, 0u).scale;
      for (std::int64_t i = tid; i < (before + after) * kW; i += kStreamThreads) {
        const std::int64_t k = i / kW, g = k < before ? first_owned + k : b + 1 + (k - before);
        write_scale(g, int(i % kW), zero.stored);
      }
    }
  }

  // 2. Windows of the groups a .. min(b, G - 1).
  const std::int64_t last = b < G ? b : G - 1;
  for (std::int64_t g0 = a; g0 <= last; g0 += kClusterWindowGroups) {
    const std::int64_t g1 = g0 + kClusterWindowGroups - 1 < last ? g0 + kClusterWindowGroups - 1 : last;
    const int slots = int(g1 - g0 + 1) * kW;
    for (int i = tid; i < slots; i += kStreamThreads) skeys[i] = salls[i] = 0u;
    __syncthreads();  // zeroed (the first time: the block table); the previous window's casts are done
    const std::int64_t b0 = begin_of(g0), e1 = end_of(g1);
    const int lo = int((b0 > R0 ? b0 : R0) - R0), hi = int((e1 < R1 ? e1 : R1) - R0);
    const int w0 = int(g0 - a);
    if (drop_nan) reduce_rows(lo, hi, w0, std::true_type{});
    else reduce_rows(lo, hi, w0, std::false_type{});
    __syncthreads();
    for (int i = tid; i < slots; i += kStreamThreads) {
      const std::int64_t g = g0 + i / kW;
      const int col = i % kW;
      const uint2 ka = make_uint2(skeys[i], drop_nan ? salls[i] : skeys[i]);
      if (g == a) published[col] = ka;
      if (g == b) published[kW + col] = ka;
      if ((g == a && edge_a) || (g == b && edge_b)) continue;
      const BlockCast bc = block_cast<P>(r, bounds, ka.x, ka.y);
      sscale[i] = bc.scale;
      sfast[i] = bc.fast ? 1 : 0;
      write_scale(g, col, bc.scale.stored);
    }
    __syncthreads();
    cast_rows(lo, hi, sscale, sfast, [&](std::int64_t g) {
      return (g == a && edge_a) || (g == b && edge_b) ? -1 : int(g - g0);
    });
  }
  if (a > last) __syncthreads();  // no window: the block table
  // The rows past offs[G-1]: zeros.
  if (b == G) {
    const std::int64_t t = begin_of(G);
    cast_rows(int((t > R0 ? t : R0) - R0), rows_here, escale, efast, [](std::int64_t) { return -2; });
  }

  // 3-4. The edge groups: every rank's partial keys of them, after the first cluster barrier.
  cluster_arrive();
  cluster_wait();
  if (edge_a || edge_b) {
    for (int i = tid; i < 2 * kW; i += kStreamThreads) {
      const int e = i / kW, col = i % kW;
      // (a == b crossing both edges: one group, slot 0.)
      if (!(e == 0 ? edge_a : edge_b && !(b == a && edge_a))) continue;
      const std::int64_t g = e == 0 ? a : b;
      std::uint32_t key = 0, all = 0;
      for (int p = 0; p < C; ++p) {
        for (int side = 0; side < 2; ++side) {
          if (rank_groups[side * kClusterMaxRanks + p] != g) continue;
          const uint2 v = load_rank_u2(published + side * kW + col, p);
          key = max(key, v.x);
          all = max(all, v.y);
        }
      }
      const BlockCast bc = block_cast<P>(r, bounds, key, all);
      escale[i] = bc.scale;
      efast[i] = bc.fast ? 1 : 0;
      write_scale(g, col, bc.scale.stored);
    }
  }
  cluster_arrive();  // done with the other ranks' shared memory
  __syncthreads();
  const auto edge_slot = [&](std::int64_t g) { return g == a && edge_a ? 0 : g == b && edge_b ? 1 : -1; };
  if (edge_a) cast_rows(0, int((end_of(a) < R1 ? end_of(a) : R1) - R0), escale, efast, edge_slot);
  if (edge_b && !(b == a && edge_a)) {
    const std::int64_t bb = begin_of(b);
    cast_rows(int((bb > R0 ? bb : R0) - R0), rows_here, escale, efast, edge_slot);
  }
  wait_rows(rows_here);  // no copy may outlive the CTA
  cluster_wait();        // no rank leaves while another may still read its shared memory
}

// ---------------------------------------------------------------------------------------------
// Host side.

// Slice bytes per rank (68 KB by default: two CTAs per SM, 16 ranks of 1040 rows for K = 16640
// at 32 bf16 columns). OCTET_CUDA_GROUP_CLUSTER_SLICE_BYTES overrides it and
// OCTET_CUDA_GROUP_CLUSTER_RANKS forces the rank count (tests: many ranks on small inputs; -1 turns
// the kernel off, for comparisons), both read once; the bytes of every result unchanged.
struct GroupClusterTuning {
  std::int64_t slice_bytes = 68 * 1024;
  int ranks = 0;
};
inline GroupClusterTuning group_cluster_tuning() {
  static const GroupClusterTuning t = [] {
    GroupClusterTuning v;
    if (const char* e = std::getenv("OCTET_CUDA_GROUP_CLUSTER_SLICE_BYTES")) v.slice_bytes = std::max(std::atol(e), 64L);
    if (const char* e = std::getenv("OCTET_CUDA_GROUP_CLUSTER_RANKS")) v.ranks = std::atoi(e);
    return v;
  }();
  return t;
}

// Launches group_column_cluster_kernel for the per-group colwise quantisation of a row-major
// (K, N) input; returns false (nothing launched) where it does not apply: before sm_90, N % 8 != 0,
// an input that is not 16-byte aligned, slices of more than kClusterMaxRanks ranks, or a cluster
// the device cannot place. Cores as launch_row_blocks.
template <int kW, class... Cores>
bool launch_group_column_cluster(SourceType src, const void* x, std::int64_t K, std::int64_t N,
                                 const std::int64_t* offs, std::int64_t G, const Recipe& r, std::uint8_t* q,
                                 std::uint32_t* scales, cudaStream_t stream) {
  const Device d = device();
  if (d.cc < 90 || K <= 0 || N <= 0 || N % kChunk != 0 || !aligned(x, 16)) return false;
  const std::int64_t in_bytes = src == SourceType::fp32 ? 4 : 2;
  const GroupClusterTuning tuning = group_cluster_tuning();
  if (tuning.ranks < 0) return false;
  std::int64_t ranks = tuning.ranks > 0 ? tuning.ranks : (K * kW * in_bytes + tuning.slice_bytes - 1) / tuning.slice_bytes;
  ranks = std::max<std::int64_t>(ranks, 1);
  if (ranks > kClusterMaxRanks) return false;
  GroupClusterShape shape;
  shape.rows = K;
  shape.cols = N;
  shape.groups = G;
  shape.slice_rows = ((K + ranks - 1) / ranks + 7) / 8 * 8;
  shape.ranks = int((K + shape.slice_rows - 1) / shape.slice_rows);  // every rank holds rows
  const std::int64_t strips = (N + kW - 1) / kW;
  if (strips * shape.ranks > std::numeric_limits<std::int32_t>::max()) return false;
  const bool out_vec = K % 8 == 0 && aligned(q, 8);
  const RecipeCore core = make_core(r);
  const CastBounds bounds = cast_bounds(r);
  bool launched = false;
  with_source(src, [&](auto in) {
    using In = decltype(in);
    const GroupClusterLayout<In, kW> lay(shape.slice_rows);
    if (lay.total > kStreamMaxSharedBytes) return;
    with_core<Cores...>(core, cast_path(r, d), [&](auto p, const auto& rc) {
      using Rc = std::decay_t<decltype(rc)>;
      constexpr auto kernel = &group_column_cluster_kernel<In, decltype(p)::value, Rc, kW>;
      cudaLaunchConfig_t config = {};
      cudaLaunchAttribute attr[1];
      attr[0].id = cudaLaunchAttributeClusterDimension;
      attr[0].val.clusterDim.x = unsigned(shape.ranks);
      attr[0].val.clusterDim.y = 1;
      attr[0].val.clusterDim.z = 1;
      config.gridDim = dim3(unsigned(strips * shape.ranks));
      config.blockDim = dim3(kStreamThreads);
      config.dynamicSmemBytes = lay.total;
      config.stream = stream;
      config.attrs = attr;
      config.numAttrs = 1;
      // Attributes set once per kernel; whether the device can place such a cluster, once per
      // (ranks, shared memory) of the kernel.
      static std::mutex mutex;
      static bool attributes_set = false;
      static std::map<std::pair<int, std::uint32_t>, bool> placeable;
      {
        const std::lock_guard<std::mutex> lock(mutex);
        if (!attributes_set) {
          OCTET_CUDA_CHECK(
              cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kStreamMaxSharedBytes)));
          OCTET_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
          attributes_set = true;
        }
        const auto key = std::make_pair(shape.ranks, lay.total);
        auto it = placeable.find(key);
        if (it == placeable.end()) {
          int clusters = 0;
          OCTET_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &config));
          it = placeable.emplace(key, clusters > 0).first;
        }
        if (!it->second) return;
      }
      OCTET_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, static_cast<const In*>(x), offs, q, scales, rc, bounds,
                                          shape, out_vec));
      launched = true;
    });
  });
  return launched;
}

}  // namespace octet::cuda::quant
