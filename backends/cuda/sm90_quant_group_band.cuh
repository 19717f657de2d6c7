// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// sm90_quant_group_band.cuh — per-group colwise quantisation (one scale per (group, column), the
// groups row ranges given by offs, codes column-major: q[n * K + k]) in two passes over fixed
// 256-row x 64-column tiles, ordered in column bands so that the second pass reads from L2.
//
// Why: a (group, column) scale needs the amax of the group's whole column before its first code.
// column_stream_kernel keeps a group in shared memory only while it fits three stages (768 rows at
// 64 columns); longer groups are read twice, and at one group of 16640 rows (170 MB of bf16, over
// three times the 50 MB L2) the second read comes from HBM (at most 3/5 of copy in the counted
// bytes). Its items follow the groups, so pieces are partly empty where groups are short (H100,
// % of copy: 52 / 57 / 67 / 56 at 1 / 16 / 64 / 128 groups).
//
// Here every item is one tile, whatever the groups, and every tile is read twice: by a reduce item
// (the keys of the groups in its rows, atomicMax into a G x N workspace) and later by a cast item
// (the codes, from the final keys). The items run in a fixed global order, dispatched to
// persistent CTAs by an atomic counter:
//   R(0) .. R(lag-1), C(0), R(lag), C(1), R(lag+1), ..., C(bands-1)
// where R(b) / C(b) are the reduce / cast items of column band b (band_tiles column tiles over all
// rows). A band's cast items come about `lag` bands of work after its reduce items, so the tiles
// they read are still in L2 (about (lag + 1) bands of input since: 8.5 MB per band of 256 columns
// at K = 16640), and by then the band's reduce items have finished: a cast item waits (one thread
// polling the band's done counter) only where they have not.
//
// Deadlock freedom: items are taken in increasing order and every dependency points to an earlier
// item, so the earliest unfinished item is always the one its CTA works on, and its dependencies
// are done; CTAs that are not resident hold no item.
//
// Memory order (the CUTLASS semaphore pattern): after a reduce item every thread's atomics are
// ordered before a CTA barrier, then one thread's fence.acq_rel.gpu and relaxed add to the band's
// counter; a cast item's thread polls the counter with ld.acquire.gpu, then a CTA barrier, then
// every thread reads the keys through L2 (ld.global.cg).
//
// Work split (256 threads): warp w owns the tile's 8-column chunk w, lane l its 8-row block l (rows
// 8l .. 8l + 7); a tile is copied into a shared-memory stage by cp.async, whole 128-byte row pieces
// per warp instruction (the layout and swizzle of column_stream_kernel's stages), two tiles ahead.
// Reduce: a lane folds its block's rows into per-column keys, the lanes of one group (a run of
// lanes) combine them by __match_any_sync / __reduce_max_sync and the run's first lane does the
// atomics; a block that straddles a group edge does one atomic per row and column instead. Cast:
// each warp builds a table of the block_casts of the tile's groups for its 8 columns (at most
// kBandTableGroups at a time), then every lane casts its block, transposes it in registers and
// stores 8 rows of a column per 8-byte store (a warp instruction writes 256 contiguous bytes of a
// column). A group's scale is stored by the cast items of the tile holding its first row (the last
// row tile for groups that begin at or past K).
//
// The arithmetic is the shared core's (sm90_quant_common.cuh: keys, block_cast, quantize_chunk),
// so the bytes equal column_stream_kernel's and the emulator's (recipes that drop NaN cast from the
// workspace key with an `all` word above every magnitude, on encode_bits: as KeyMode::Load).
#pragma once

#include "sm90_quant_column_stream.cuh"

namespace octet::cuda::quant {

inline constexpr int kBandTileRows = 256;  // one 8-row block per lane of a warp
inline constexpr int kBandTileCols = 64;   // one 8-column chunk per warp of the CTA
inline constexpr int kBandStages = 3;      // two tiles in flight while one is worked on
inline constexpr int kBandTableGroups = 8;  // groups per window of a warp's block_cast table
static_assert(kBandTileCols == (kStreamThreads / 32) * kChunk && kBandTileRows == 32 * 8, "a warp per chunk, a lane per block");

struct GroupBandShape {
  std::int64_t K = 0, N = 0;
  int G = 0;
  int row_tiles = 0, col_tiles = 0;
  int band_tiles = 0;  // column tiles per band
  int bands = 0;
  int lag = 0;         // reduce bands issued ahead of the casts
  int band_items = 0;  // row_tiles * band_tiles
  int items = 0;       // 2 * bands * band_items
  std::uint32_t stage_bytes = 0;
};

// Shared memory: the stages, offs as 32-bit rows, the item ring, the warps' block_cast tables.
struct GroupBandLayout {
  std::uint32_t offs = 0, ring = 0, table = 0, fast = 0, total = 0;
  __host__ __device__ GroupBandLayout(std::uint32_t stage_bytes, int G) {
    offs = std::uint32_t(kBandStages) * stage_bytes;
    ring = StreamLayout::align(offs + 4u * std::uint32_t(G), 16);
    table = StreamLayout::align(ring + 4u * (kBandStages + 1), 16);
    constexpr std::uint32_t kEntries = (kStreamThreads / 32) * kBandTableGroups * kChunk;
    fast = table + std::uint32_t(sizeof(BlockScale)) * kEntries;
    total = StreamLayout::align(fast + kEntries, 16);
  }
};

// Item `index` of the global order (file comment): reduce or cast, its band, its tile.
struct BandItem {
  bool cast = false;
  int band = 0, row_tile = 0, col_tile = 0;
};
__device__ __forceinline__ BandItem band_item(const GroupBandShape& s, int index) {
  BandItem it;
  const int chunk = index / s.band_items, w = index - chunk * s.band_items;
  const int pairs = s.bands - s.lag;  // (C, R) pairs after the first `lag` reduce bands
  if (chunk < s.lag) {
    it.band = chunk;
  } else if (chunk - s.lag < 2 * pairs) {
    const int k = chunk - s.lag;
    it.cast = k % 2 == 0;
    it.band = it.cast ? k / 2 : s.lag + k / 2;
  } else {
    it.cast = true;
    it.band = chunk - s.lag - pairs;
  }
  it.row_tile = w / s.band_tiles;
  it.col_tile = it.band * s.band_tiles + (w - it.row_tile * s.band_tiles);
  return it;
}

// The group of `row`: the first g with offs[g] > row (G for the rows past offs[G-1]), searched in
// [lo, G].
__device__ __forceinline__ int group_of_row(const int* soffs, int G, int lo, int row) {
  int hi = G;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (soffs[mid] > row) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
// The first g with offs[g] >= row.
__device__ __forceinline__ int first_offs_at_least(const int* soffs, int G, int row) {
  int lo = 0, hi = G;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (soffs[mid] >= row) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

__device__ __forceinline__ std::uint64_t l2_policy(bool evict_last) {
  std::uint64_t p;
  if (evict_last) asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p));
  else asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
  return p;
}
// cp.async with an L2 eviction priority (PTX ISA 7.4, sm_80: .L2::cache_hint with a createpolicy).
__device__ __forceinline__ void cp_async_16_hint(void* dst, const void* src, std::uint64_t policy) {
  asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2;" ::"r"(smem_address(dst)), "l"(src),
               "l"(policy)
               : "memory");
}
__device__ __forceinline__ int load_acquire_gpu(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return int(v);
}
__device__ __forceinline__ void release_add_gpu(unsigned* p) {
  asm volatile("fence.acq_rel.gpu;" ::: "memory");
  asm volatile("red.relaxed.gpu.global.add.u32 [%0], 1;" ::"l"(p) : "memory");
}

// sync[0]: the item counter; sync[1 + b]: the reduce items of band b done. keys: G x N, zeroed.
template <class In, CastPath P, class R>
__global__ void __launch_bounds__(kStreamThreads, 2)
    group_band_kernel(const In* __restrict__ x, const std::int64_t* __restrict__ offs, std::uint8_t* __restrict__ q,
                      std::uint32_t* __restrict__ scales, R r, CastBounds bounds, GroupBandShape shape, bool out_vec,
                      int hints, std::uint32_t* __restrict__ keys, unsigned* __restrict__ sync) {
  constexpr int kWords = RawChunk<In>::kWords;
  constexpr int kVecs = kWords / 4;                                    // 16-byte vectors per chunk
  constexpr std::uint32_t kRowBytes = kBandTileCols * sizeof(In);      // a tile row in its stage
  constexpr int kRowVecs = int(kRowBytes / 16);
  constexpr int kCopyRows = kStreamThreads / kRowVecs;                 // rows per copy pass
  constexpr unsigned kAll = 0xFFFFFFFFu;
  extern __shared__ __align__(128) unsigned char smem[];
  const GroupBandLayout lay(shape.stage_bytes, shape.G);
  int* soffs = reinterpret_cast<int*>(smem + lay.offs);
  volatile int* sring = reinterpret_cast<int*>(smem + lay.ring);
  const int tid = int(threadIdx.x), warp = tid / 32, lane = tid % 32;
  BlockScale* wtab = reinterpret_cast<BlockScale*>(smem + lay.table) + warp * kBandTableGroups * kChunk;
  std::uint8_t* wfast = smem + lay.fast + warp * kBandTableGroups * kChunk;
  const int G = shape.G;
  const std::int64_t K = shape.K, N = shape.N;
  const bool drop_nan = r.amax_nan == AmaxNan::Drop;
  unsigned* counter = sync;
  unsigned* done = sync + 1;

  const std::uint64_t pol_first = l2_policy(false), pol_last = l2_policy(true);
  const auto stage_of = [&](int j) { return smem + std::uint32_t(j % kBandStages) * shape.stage_bytes; };
  const auto swizzle = [](int row) { return (row >> 3) & 7; };
  const int rows_end = int(offs[G - 1]);  // rows [rows_end, K): no group, codes 0x00

  // Copies of item `index` into the stage of load j (nothing past the last item): rows of groups
  // only, columns below N; one commit group per load.
  const int copy_w = tid % kRowVecs, copy_row = tid / kRowVecs;
  const auto issue = [&](int j, int index) {
    if (index < shape.items) {
      const BandItem it = band_item(shape, index);
      const std::int64_t col = std::int64_t(it.col_tile) * kBandTileCols + copy_w * (16 / int(sizeof(In)));
      const int t0 = it.row_tile * kBandTileRows;
      const int hi = min(kBandTileRows, rows_end - t0);
      if (col < N) {
        unsigned char* stage = stage_of(j);
        const In* src = x + (std::int64_t(t0) + copy_row) * N + col;
        const bool hint = (hints & 1) != 0;
        const std::uint64_t pol = it.cast ? pol_first : pol_last;
#pragma unroll 4
        for (int row = copy_row; row < hi; row += kCopyRows, src += kCopyRows * N) {
          void* dst = stage + std::uint32_t(row) * kRowBytes + std::uint32_t(copy_w ^ swizzle(row)) * 16u;
          if (hint) cp_async_16_hint(dst, src, pol);
          else cp_async_16(dst, src);
        }
      }
    }
    cp_async_commit();
  };

  // Prologue: the first kBandStages item indices, the first kBandStages - 1 loads, offs.
  const bool tmp_static = (hints & 8) != 0;
  const auto index_of = [&](int j) {
    return tmp_static ? int(blockIdx.x) + j * int(gridDim.x) : sring[j % (kBandStages + 1)];
  };
  if (tid == 0 && !tmp_static)
    for (int i = 0; i < kBandStages; ++i) sring[i] = int(atomicAdd(counter, 1u));
  for (int g = tid; g < G; g += kStreamThreads) soffs[g] = int(offs[g]);
  __syncthreads();
  for (int i = 0; i < kBandStages - 1; ++i) issue(i, index_of(i));

  // Chunk `cx` of row `row` of a stage.
  const auto stage_row = [&](const unsigned char* stage, int row) {
    RawChunk<In> c;
    const unsigned char* p = stage + std::uint32_t(row) * kRowBytes;
#pragma unroll
    for (int v = 0; v < kVecs; ++v) {
      const uint4 t = *reinterpret_cast<const uint4*>(p + std::uint32_t((warp * kVecs + v) ^ swizzle(row)) * 16u);
      c.w[4 * v + 0] = t.x;
      c.w[4 * v + 1] = t.y;
      c.w[4 * v + 2] = t.z;
      c.w[4 * v + 3] = t.w;
    }
    return c;
  };

  int prev_reduce_band = -1;
  int grabbed = -1;  // thread 0: the item index taken in the previous step, stored before the barrier
  for (int j = 0;; ++j) {
    if (tid == 0 && j > 0 && !tmp_static) sring[(j + kBandStages - 1) % (kBandStages + 1)] = grabbed;
    cp_async_wait(kBandStages - 2);
    __syncthreads();  // load j visible; every thread done with item j - 1 (its stage, its atomics)
    const int index = index_of(j);
    issue(j + kBandStages - 1, index_of(j + kBandStages - 1));
    if (tid == 0) {
      if (prev_reduce_band >= 0) {
        if (hints & 4) atomicAdd(done + prev_reduce_band, 1u);
        else release_add_gpu(done + prev_reduce_band);
      }
      if (!tmp_static) grabbed = int(atomicAdd(counter, 1u));
    }
    if (index >= shape.items) break;
    const BandItem it = band_item(shape, index);
    prev_reduce_band = it.cast ? -1 : it.band;
    if (it.cast && !(hints & 16)) {
      if (tid == 0)
        while (load_acquire_gpu(done + it.band) < shape.band_items) __nanosleep(64);
      __syncthreads();  // the band's keys are final
    }
    if (it.col_tile >= shape.col_tiles) continue;  // the last band's missing tiles
    const unsigned char* stage = stage_of(j);
    const std::int64_t c0 = std::int64_t(it.col_tile) * kBandTileCols + warp * kChunk;
    const bool col_ok = c0 < N;  // N % 8 == 0: a chunk is whole or absent
    const int t0 = it.row_tile * kBandTileRows;
    const int row_b = t0 + lane * 8;
    const int lo_row = row_b < rows_end ? row_b : rows_end;
    // This block's group and that of its last row in the data (G: past offs[G-1]).
    const int g = group_of_row(soffs, G, 0, lo_row);
    const int g_last = row_b + 7 < rows_end ? group_of_row(soffs, G, g, row_b + 7) : G;
    const bool whole = g < G && g_last == g;  // all eight rows in group g
    const int block_row = lane * 8;           // the block's first row in the stage

    if (!it.cast) {
      const auto reduce = [&](auto drop) {
        constexpr bool kDrop = decltype(drop)::value;
        std::uint32_t acc[kWords];
#pragma unroll
        for (int k = 0; k < kWords; ++k) acc[k] = 0u;
        if (whole && col_ok) {
#pragma unroll
          for (int i = 0; i < 8; ++i) {
            const RawChunk<In> raw = stage_row(stage, block_row + i);
#pragma unroll
            for (int k = 0; k < kWords; ++k) acc[k] = key_word<In, kDrop>(acc[k], raw.w[k]);
          }
        }
        // The lanes of a group combine; the others stand alone (a label of their own).
        const int label = whole && col_ok ? g : -1 - lane;
        const unsigned peers = __match_any_sync(kAll, unsigned(label));
        std::uint32_t m[kChunk];
#pragma unroll
        for (int jc = 0; jc < kChunk; ++jc) m[jc] = __reduce_max_sync(peers, column_key<In>(acc, jc));
        if (whole && col_ok) {
          if (lane == __ffs(peers) - 1) {
            std::uint32_t* k = keys + std::int64_t(g) * N + c0;
#pragma unroll
            for (int jc = 0; jc < kChunk; ++jc)
              if (m[jc] != 0u) atomicMax(k + jc, m[jc]);
          }
        } else if (col_ok) {
          // A block at a group edge (or the data's end): row by row.
          for (int i = 0; i < 8 && row_b + i < rows_end; ++i) {
            const int gi = group_of_row(soffs, G, g, row_b + i);
            const RawChunk<In> raw = stage_row(stage, block_row + i);
            std::uint32_t a[kWords];
#pragma unroll
            for (int k = 0; k < kWords; ++k) a[k] = key_word<In, kDrop>(0u, raw.w[k]);
            std::uint32_t* k = keys + std::int64_t(gi) * N + c0;
#pragma unroll
            for (int jc = 0; jc < kChunk; ++jc) {
              const std::uint32_t v = column_key<In>(a, jc);
              if (v != 0u) atomicMax(k + jc, v);
            }
          }
        }
      };
      if (drop_nan) reduce(std::true_type{});
      else reduce(std::false_type{});
      continue;
    }

    if (!col_ok) continue;
    // Groups to tabulate: those with rows in the tile, and those whose scale this tile stores (the
    // first row in the tile; for the last row tile also every group beginning at or past K).
    const int t_last = t0 + kBandTileRows - 1;
    const int gc_lo = __shfl_sync(kAll, g, 0);
    const int gc_hi = min(__shfl_sync(kAll, whole ? g : group_of_row(soffs, G, g, min(row_b + 7, int(K) - 1)), 31), G - 1);
    const int gs_lo = t0 == 0 ? 0 : first_offs_at_least(soffs, G, t0) + 1;
    const int gs_hi = it.row_tile == shape.row_tiles - 1 ? G - 1 : min(group_of_row(soffs, G, 0, t_last), G - 1);
    const int w_lo = min(gc_lo, gs_lo), w_hi = max(gc_hi, gs_hi);

    uint2 codes[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) codes[i] = make_uint2(0u, 0u);
    for (int wb = w_lo; wb <= w_hi; wb += kBandTableGroups) {
      __syncwarp();  // this warp is done with the previous window's table
#pragma unroll
      for (int t = 0; t < kBandTableGroups * kChunk / 32; ++t) {
        const int e = lane + 32 * t, ge = wb + e / kChunk, jc = e % kChunk;
        if (ge > w_hi) continue;
        const std::uint32_t key = __ldcg(keys + std::int64_t(ge) * N + c0 + jc);
        const BlockCast bc = block_cast<P>(r, bounds, key, drop_nan ? 0xFFFFFFFFu : key);
        wtab[e] = bc.scale;
        wfast[e] = bc.fast ? 1 : 0;
        if (ge >= gs_lo && ge <= gs_hi) store_scale(scales, std::int64_t(ge) * N + c0 + jc, false, bc.scale.stored);
      }
      __syncwarp();
      if (whole) {
        if (g < wb || g >= wb + kBandTableGroups) continue;
        const int e0 = (g - wb) * kChunk;
        float enc[kChunk];
        bool fast = true;
#pragma unroll
        for (int jc = 0; jc < kChunk; ++jc) {
          enc[jc] = wtab[e0 + jc].encode;
          fast = fast && wfast[e0 + jc] != 0;
        }
        const auto enc_of = [&](int jc) { return enc[jc]; };
        const auto scale_of = [&](int jc) -> const BlockScale& { return wtab[e0 + jc]; };
        if (P != CastPath::Generic && fast) {
#pragma unroll
          for (int i = 0; i < 8; ++i)
            codes[i] = quantize_chunk<P>(r, bounds, true, enc_of, scale_of, stage_row(stage, block_row + i).unpack());
        } else {
#pragma unroll 1
          for (int i = 0; i < 8; ++i)
            codes[i] = quantize_chunk<P>(r, bounds, false, enc_of, scale_of, stage_row(stage, block_row + i).unpack());
        }
      } else {
        // A block at a group edge: row by row (rows past offs[G-1] keep code 0x00).
#pragma unroll 1
        for (int i = 0; i < 8 && row_b + i < rows_end; ++i) {
          const int gi = group_of_row(soffs, G, g, row_b + i);
          if (gi < wb || gi >= wb + kBandTableGroups) continue;
          const int e0 = (gi - wb) * kChunk;
          bool fast = true;
          for (int jc = 0; jc < kChunk; ++jc) fast = fast && wfast[e0 + jc] != 0;
          const auto enc_of = [&](int jc) { return wtab[e0 + jc].encode; };
          const auto scale_of = [&](int jc) -> const BlockScale& { return wtab[e0 + jc]; };
          const uint2 c = quantize_chunk<P>(r, bounds, fast, enc_of, scale_of, stage_row(stage, block_row + i).unpack());
#pragma unroll
          for (int ii = 0; ii < 8; ++ii)
            if (ii == i) codes[ii] = c;
        }
      }
    }
    // The block's codes, 8 rows of a column per store (rows past K are not stored).
    const bool vec = out_vec && row_b + 8 <= K;
    const bool stream_stores = (hints & 2) != 0;
    const auto store_half = [&](auto half) {
      constexpr int kHalf = decltype(half)::value;
      uint2 colv[4];
      transpose_8x4<kHalf>(codes, colv);
#pragma unroll
      for (int jh = 0; jh < 4; ++jh) {
        std::uint8_t* dst = q + (c0 + 4 * kHalf + jh) * K + row_b;
        if (vec) {
          if (stream_stores) __stcs(reinterpret_cast<uint2*>(dst), colv[jh]);
          else *reinterpret_cast<uint2*>(dst) = colv[jh];
          continue;
        }
        for (int i = 0; i < 8 && row_b + i < K; ++i) dst[i] = std::uint8_t((i < 4 ? colv[jh].x : colv[jh].y) >> (8 * (i % 4)));
      }
    };
    if (row_b < K) {
      store_half(std::integral_constant<int, 0>{});
      store_half(std::integral_constant<int, 1>{});
    }
  }
  cp_async_wait(0);  // no copy may outlive the CTA
}

}  // namespace octet::cuda::quant
