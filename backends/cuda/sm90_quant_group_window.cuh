// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// sm90_quant_group_window.cuh — per-group colwise quantisation (one scale per (group, column),
// groups of rows given by offs) in fixed windows of rows, whatever the group sizes, in one pass.
// Peer:   torchao triton_fp8_per_group_colwise_scales (the recipe and bytes of
//         octet::fp8_per_group_colwise_scales, emulator/src/kernels/fp8_per_group.cpp).
//
// Why: column_stream_kernel works on one (group, column tile) per item. Its pieces are fixed at
// 256 rows (64 columns), so a group of 260 rows takes two pieces, the second almost empty, and a
// group of more than three pieces is read twice (G = 1: a key launch and a cast launch, at most
// 3/5 of copy). On an H100 it stayed at 51-61% of copy for 1..128 groups of 16640 rows, where the
// 1x128 rhs quantiser, with the same pieces always full, reaches 85%.
//
// Here an item is a window of 256 rows (whole 8-row blocks: one per lane of a warp) of a 64-column
// tile, the rows cut at multiples of 256 without regard to the groups: every copy is a full 32 KB
// piece and every lane has one block. A group's amax runs over the windows it touches, in
// different CTAs. Each CTA has 8 compute warps and one sync warp:
//   reduce   (compute) each lane folds the rows of its block that belong to the block's first group
//            into eight column keys (integer keys, sm90_quant_common.cuh); the lanes of a warp (8
//            columns x 256 rows) hold consecutive blocks, so a group is a run of lanes and a
//            segmented shuffle maximum leaves each run's keys in its first lane, which atomicMaxes
//            them into the workspace keys[g * N + col] (rows of later groups inside a block that a
//            group boundary cuts, with offs not on multiples of 8, go there one row at a time);
//   publish  (sync) after a named barrier and fence.acq_rel.gpu, one more window in
//            count[g * tiles + tile] for every group the window touches;
//   table    (sync) when the count of each group the window touches equals the number of windows
//            that group touches (ld.acquire.gpu), the block_casts of the window's groups into a
//            shared table, and the scales of the groups that begin in the window;
//   cast     (compute) the element casts under the table, an 8x8 transpose in registers and
//            8-byte stores of a column's codes, as column_stream_kernel.
// A window is cast kWindowLag items after its reduction, read again (from L2 while it is still
// there), so that the cast rarely waits for another CTA's window (window_op).
//
// Deadlock freedom: the CTAs are co-resident (a cooperative launch, else nothing is launched) and
// take the items i = blockIdx + k * gridDim in order, tile-major; every CTA publishes a window
// before it waits on it. A window waits only on windows of its own tile, fewer than gridDim away
// in item order (the host requires windows per tile <= gridDim), so on a CTA that holds the
// smallest waiting item, every item it waits for is either done or the current item of another CTA,
// already published. offs are clamped in shared memory to a monotone sequence in [0, K] (the
// adapters reject bad offs earlier; the clamp only keeps a kernel given them from waiting forever).
#pragma once

#include "sm90_quant_column_stream.cuh"

namespace octet::cuda::quant {

inline constexpr int kWindowCols = 64;                    // columns per tile: a warp is one 8-column chunk
inline constexpr int kWindowRows = 8 * 32;                // one 8-row block per lane
inline constexpr int kWindowStages = 3;
inline constexpr int kWindowMaxGroups = 1024;             // offs cached in shared memory
inline constexpr int kWindowSegs = 8;                     // tabled block_casts: groups per window
inline constexpr int kWindowComputeWarps = kWindowCols / kChunk;
inline constexpr int kWindowThreads = 32 * (kWindowComputeWarps + 1);  // + the sync warp
// Items reduced ahead of the cast: a window is cast kWindowLag items after its reduction (read
// again, mostly from L2), so a cast rarely waits for another CTA's window.
inline constexpr int kWindowLag = 3;
// Named barriers: the compute warps' stage barrier, keys issued (kWindowLag, by item), table ready
// (two, by item parity).
inline constexpr int kBarStage = 1, kBarKeys = 2, kBarTable = kBarKeys + kWindowLag;
static_assert(kBarTable + 2 <= 16, "16 named barriers");

// A CTA's 2n ops over its n items: the reductions of items 0 .. D-1 (D = min(kWindowLag, n)),
// then cast m and reduce m + D alternately, then the last casts:
//   R0 .. R(D-1), C0, R(D), C1, R(D+1), ..., C(n-1-D), R(n-1), C(n-D), ..., C(n-1).
struct WindowOp {
  int item;
  bool reduce;
};
__device__ __forceinline__ WindowOp window_op(int k, int n) {
  const int D = min(kWindowLag, n), pairs = n - D;
  if (k < D) return {k, true};
  const int t = k - D;
  if (t < 2 * pairs) return t % 2 == 0 ? WindowOp{t / 2, false} : WindowOp{t / 2 + D, true};
  return {k - D - pairs, false};
}
// The sync warp's order of the same ops: each cast one place earlier than the compute warps' (C(m +
// 1) before R(m + D)), so that its block_casts are ready before the compute warps reach it; its
// groups' windows were published at least D - 1 items before.
__device__ __forceinline__ WindowOp sync_window_op(int k, int n) {
  const int D = min(kWindowLag, n), pairs = n - D;
  if (k < D) return {k, true};
  const int t = k - D;
  if (t == 0) return {0, false};
  if (t <= 2 * pairs) return t % 2 == 1 ? WindowOp{(t + 1) / 2, false} : WindowOp{t / 2 - 1 + D, true};
  return {t - pairs, false};
}

struct GroupWindowShape {
  int K = 0, N = 0, G = 0;  // rows (K <= windows * 256 < 2^31), columns, groups
  int windows = 0, tiles = 0, items = 0;
  FastDiv windows_div;
  bool drop_nan = false, out_vec = false;
};

// The shared memory of one CTA (bf16 input): the stages, offs (+ scan scratch), two tables of
// block_casts (encode multipliers, stored scales and cvt flags) per (group slot, column).
struct GroupWindowLayout {
  static constexpr std::uint32_t kStageBytes = kWindowRows * kWindowCols * 2;
  static constexpr std::uint32_t kOffs = kWindowStages * kStageBytes;
  static constexpr std::uint32_t kEnc = (kOffs + 4 * (kWindowMaxGroups + kWindowThreads / 32) + 15) / 16 * 16;
  static constexpr std::uint32_t kStored = kEnc + 4 * 2 * kWindowSegs * kWindowCols;
  static constexpr std::uint32_t kFast = kStored + 4 * 2 * kWindowSegs * kWindowCols;
  static constexpr std::uint32_t kTotal = kFast + 2 * kWindowSegs * kWindowCols;
};

// The workspace: keys (and, for recipes that drop NaN from the amax, `all` words holding NaN and
// Inf as well) per (group, column), and the window counts per (group, tile); zeroed before the
// launch.
struct GroupWindowWork {
  std::uint32_t* keys = nullptr;
  std::uint32_t* alls = nullptr;
  std::uint32_t* counts = nullptr;
};

__device__ __forceinline__ std::uint32_t load_acquire_gpu(const std::uint32_t* p) {
  std::uint32_t v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// fence.acq_rel.gpu (PTX ISA 6.0): orders this thread's earlier memory operations, and those it
// has observed through a CTA barrier, before its later ones at GPU scope; __threadfence() is the
// heavier fence.sc.gpu.
__device__ __forceinline__ void fence_acq_rel_gpu() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }

// First g in [0, G) with offs[g] > v (G if none): the group of row v, G past the last group.
__device__ __forceinline__ int group_of_row(const int* offs, int G, int v) {
  int lo = 0, hi = G;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (offs[mid] > v) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

// The rows of the groups after the first in an 8-row block cut by group boundaries (offs off
// the 8-row grid): each row's keys go straight to the workspace. Rare; out of line.
template <bool kDrop>
__device__ __noinline__ void reduce_cut_rows(const unsigned char* block, std::uint32_t vec_off, int row_b, int i0,
                                             int row_end, const int* offs, int G, int g, std::uint32_t* keys,
                                             std::uint32_t* alls, int N, int c0) {
  for (int i = i0; i < 8 && row_b + i < row_end; ++i) {
    while (offs[g] <= row_b + i) ++g;
    const uint4 t = *reinterpret_cast<const uint4*>(block + std::uint32_t(i) * (kWindowCols * 2) + vec_off);
    const std::uint32_t w[4] = {t.x, t.y, t.z, t.w};
    std::uint32_t key[4], all[4];
    for (int k = 0; k < 4; ++k) {
      key[k] = key_word<std::uint16_t, kDrop>(0u, w[k]);
      all[k] = key_word<std::uint16_t, false>(0u, w[k]);
    }
    for (int jc = 0; jc < kChunk; ++jc) {
      atomicMax(keys + std::int64_t(g) * N + c0 + jc, column_key<std::uint16_t>(key, jc));
      if (kDrop) atomicMax(alls + std::int64_t(g) * N + c0 + jc, column_key<std::uint16_t>(all, jc));
    }
  }
}

// First i in [0, G) with offs[i] >= v (G if none).
__device__ __forceinline__ int first_offs_at_least(const int* offs, int G, int v) {
  int lo = 0, hi = G;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (offs[mid] >= v) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

// The codes of one row's chunk (8 columns from keys[key0]) under their block_casts computed here:
// the rows of later groups in a cut block, blocks off the cvt (NaN, Inf) and groups past the
// table. Rare; out of line.
template <CastPath P, class R>
__device__ __noinline__ uint2 slow_row_codes(R r, CastBounds bounds, GroupWindowWork work, bool drop_nan,
                                            std::int64_t key0, uint4 raw) {
  BlockScale sc[kChunk];
  bool fast = true;
#pragma unroll
  for (int jc = 0; jc < kChunk; ++jc) {
    const std::uint32_t k = __ldcg(work.keys + key0 + jc);
    const BlockCast bc = block_cast<P>(r, bounds, k, drop_nan ? __ldcg(work.alls + key0 + jc) : k);
    sc[jc] = bc.scale;
    fast = fast && bc.fast;
  }
  RawChunk<std::uint16_t> c;
  c.w[0] = raw.x;
  c.w[1] = raw.y;
  c.w[2] = raw.z;
  c.w[3] = raw.w;
  return quantize_chunk<P>(
      r, bounds, fast, [&](int jc) { return sc[jc].encode; }, [&](int jc) -> const BlockScale& { return sc[jc]; },
      c.unpack());
}

// Named barriers (PTX bar.sync / bar.arrive): `count` threads, a multiple of 32. bar.arrive does
// not wait; the memory operations before it are visible to the threads after the matching
// bar.sync.
__device__ __forceinline__ void named_sync(int id, int count) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}
__device__ __forceinline__ void named_arrive(int id, int count) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(count) : "memory");
}

template <CastPath P, class R>
__global__ void __maxnreg__(112)  // two CTAs of 288 threads per SM
    group_window_kernel(const std::uint16_t* __restrict__ x, const std::int64_t* __restrict__ offs_in,
                        std::uint8_t* __restrict__ q, std::uint32_t* __restrict__ scales, R r, CastBounds bounds,
                        GroupWindowShape shape, GroupWindowWork work) {
  using In = std::uint16_t;  // bf16
  extern __shared__ __align__(128) unsigned char smem[];
  int* soffs = reinterpret_cast<int*>(smem + GroupWindowLayout::kOffs);
  float* tab_enc = reinterpret_cast<float*>(smem + GroupWindowLayout::kEnc);
  std::uint8_t* tab_fast = smem + GroupWindowLayout::kFast;
  std::uint32_t* tab_stored = reinterpret_cast<std::uint32_t*>(smem + GroupWindowLayout::kStored);
  const int tid = int(threadIdx.x), warp = tid / 32, lane = tid % 32;
  const int K = shape.K, N = shape.N, G = shape.G;
  constexpr std::uint32_t kRowBytes = kWindowCols * 2;
  constexpr int kWarps = kWindowThreads / 32;

  // offs, clamped to a monotone sequence in [0, K]: clamp, then a running maximum (per warp by
  // shuffles, then across the warps of each pass).
  {
    int carry = 0;
    for (int base = 0; base < G; base += kWindowThreads) {
      const int g = base + tid;
      const std::int64_t o = g < G ? offs_in[g] : std::int64_t(K);
      int v = o < 0 ? 0 : o > K ? K : int(o);
#pragma unroll
      for (int d = 1; d < 32; d *= 2) {
        const int u = __shfl_up_sync(0xFFFFFFFFu, v, d);
        if (lane >= d) v = max(v, u);
      }
      if (lane == 31) soffs[G + warp] = v;  // the warp totals, past the groups (scratch)
      __syncthreads();
      int before = carry;
      for (int k = 0; k < warp; ++k) before = max(before, soffs[G + k]);
      v = max(v, before);
      int total = carry;
      for (int k = 0; k < kWarps; ++k) total = max(total, soffs[G + k]);
      __syncthreads();
      if (g < G) soffs[g] = v;
      carry = total;
      __syncthreads();
    }
  }

  const auto item_of = [&](int j) { return int(blockIdx.x) + j * int(gridDim.x); };
  const int n = item_of(0) < shape.items ? (shape.items - 1 - item_of(0)) / int(gridDim.x) + 1 : 0;
  const auto tile_of = [&](int i) { return int(shape.windows_div.div(std::uint32_t(i))); };
  const auto group_begin_row = [&](int g) { return g == 0 ? 0 : soffs[g - 1]; };
  const auto key_of = [&](int g, int col) {
    const std::uint32_t k = __ldcg(work.keys + std::int64_t(g) * N + col);
    return make_uint2(k, shape.drop_nan ? __ldcg(work.alls + std::int64_t(g) * N + col) : k);
  };

  if (warp == kWindowComputeWarps) {
    // The sync warp. For item j: publish (after the compute warps' keys), wait, the block_casts
    // of the window's first kWindowSegs groups into table j % 2, the scales of the groups that
    // begin in the window.
    //
    // The block_casts of item jt's first kWindowSegs groups into table jt % 2, and the scales of
    // the groups that begin in its window.
    const auto table = [&](int jt, int t, int w, int lo, int hi) {
      const int row0 = w * kWindowRows;
      // The table: up to 16 entries per lane, their key loads issued four at a time.
      const int slots = min(hi - lo + 1, kWindowSegs), entries = max(slots, 0) * kWindowCols;
      float* enc = tab_enc + (jt % 2) * kWindowSegs * kWindowCols;
      std::uint8_t* fast = tab_fast + (jt % 2) * kWindowSegs * kWindowCols;
      std::uint32_t* stored = tab_stored + (jt % 2) * kWindowSegs * kWindowCols;
      for (int k0 = 0; k0 < entries; k0 += 4 * 32) {
        uint2 ka[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) {
          const int k = k0 + lane + 32 * u, col = t * kWindowCols + k % kWindowCols;
          ka[u] = k < entries && col < N ? key_of(lo + k / kWindowCols, col) : make_uint2(0u, 0u);
        }
#pragma unroll
        for (int u = 0; u < 4; ++u) {
          const int k = k0 + lane + 32 * u;
          if (k >= entries) break;
          const BlockCast bc = block_cast<P>(r, bounds, ka[u].x, ka[u].y);
          enc[k] = bc.scale.encode;
          fast[k] = bc.fast ? 1 : 0;
          stored[k] = bc.scale.stored;
        }
      }
      __syncwarp();
      // Scales: the window where a group begins writes them (the last window also those of
      // empty groups at K), from the table where it holds the group.
      const int first = w == 0 ? 0 : first_offs_at_least(soffs, G, row0) + 1;
      const int last = w + 1 < shape.windows ? min(first_offs_at_least(soffs, G, row0 + kWindowRows) + 1, G) : G;
      for (int k = lane; k < (last - first) * kWindowCols; k += 32) {
        const int g = first + k / kWindowCols, col = t * kWindowCols + k % kWindowCols;
        if (col >= N) continue;
        const int slot = g - lo;
        std::uint32_t v;
        if (slot >= 0 && slot < slots) {
          v = stored[slot * kWindowCols + k % kWindowCols];
        } else {
          const uint2 ka = key_of(g, col);
          v = block_cast<P>(r, bounds, ka.x, ka.y).scale.stored;
        }
        store_scale(scales, std::int64_t(g) * N + col, false, v);
      }
    };
    const auto groups_of = [&](int j, int& t, int& w, int& lo, int& hi) {
      const int i = item_of(j);
      t = tile_of(i);
      w = i - t * shape.windows;
      const int row0 = w * kWindowRows, row_end = min(row0 + kWindowRows, K);
      lo = group_of_row(soffs, G, row0);
      hi = min(group_of_row(soffs, G, row_end - 1), G - 1);
    };
    for (int k = 0; k < 2 * n; ++k) {
      const WindowOp op = sync_window_op(k, n);
      int t, w, lo, hi;
      groups_of(op.item, t, w, lo, hi);
      if (op.reduce) {
        named_sync(kBarKeys + op.item % kWindowLag, kWindowThreads);  // the keys of op.item are issued
        fence_acq_rel_gpu();
        for (int g = lo + lane; g <= hi; g += 32)
          if (group_begin_row(g) < soffs[g]) atomicAdd(work.counts + std::int64_t(g) * shape.tiles + t, 1u);
      } else {
        for (int g = lo + lane; g <= hi; g += 32) {
          const int b = group_begin_row(g), e = soffs[g];
          if (b >= e) continue;
          const std::uint32_t need = std::uint32_t((e - 1) / kWindowRows - b / kWindowRows + 1);
          const std::uint32_t* c = work.counts + std::int64_t(g) * shape.tiles + t;
          while (load_acquire_gpu(c) < need) __nanosleep(32);
        }
        __syncwarp();
        table(op.item, t, w, lo, hi);
        named_arrive(kBarTable + op.item % 2, kWindowThreads);  // table op.item is ready
      }
    }
    return;
  }

  // The compute warps: warp = the tile's 8-column chunk, lane = an 8-row block of the window.
  // Copies of the item of op k into stage k % 3: thread t copies 16-byte vector t % 8 of rows
  // t / 8 + 32i.
  const int copy_w = tid % 8, copy_row = tid / 8;
  const auto swizzle = [](int row) { return (row >> 3) & 7; };
  const auto issue = [&](int k) {
    if (k < 2 * n) {
      const int i = item_of(window_op(k, n).item), t = tile_of(i), w = i - t * shape.windows;
      const int row0 = w * kWindowRows, col = t * kWindowCols + copy_w * 8;
      unsigned char* stage = smem + std::uint32_t(k % kWindowStages) * GroupWindowLayout::kStageBytes;
      if (col < N) {
        const int rows = min(kWindowRows, K - row0);
        const In* src = x + std::int64_t(row0 + copy_row) * N + col;
#pragma unroll 4
        for (int row = copy_row; row < kWindowRows; row += 32, src += std::int64_t(32) * N)
          if (row < rows) cp_async_16(stage + std::uint32_t(row) * kRowBytes + std::uint32_t(copy_w ^ swizzle(row)) * 16u, src);
      }
    }
    cp_async_commit();
  };

  // Per item, what the cast needs from the reduction: the lane's group and its rows in it.
  struct LaneItem {
    int i = 0, t = 0, row0 = 0, row_end = 0, row_b = 0, g = 0, g_first = 0, main_rows = 0;
    unsigned heads = 0;
  };
  const std::uint32_t vec_off = std::uint32_t((warp ^ (lane & 7)) * 16);  // chunk `warp` of rows lane * 8 + i

  // The lane's block of item j: its group, its rows in it, the warp's runs.
  const auto lane_item = [&](int j) {
    LaneItem li;
    li.i = item_of(j);
    li.t = tile_of(li.i);
    li.row0 = (li.i - li.t * shape.windows) * kWindowRows;
    li.row_end = min(li.row0 + kWindowRows, K);
    li.row_b = li.row0 + lane * 8;
    const int c0 = li.t * kWindowCols + warp * kChunk;
    li.g = li.row_b < li.row_end ? group_of_row(soffs, G, li.row_b) : G;
    li.g_first = __shfl_sync(0xFFFFFFFFu, li.g, 0);
    li.main_rows = li.g < G ? min(8, soffs[li.g] - li.row_b) : 0;
    const int prev_g = __shfl_up_sync(0xFFFFFFFFu, li.g, 1);
    li.heads = __ballot_sync(0xFFFFFFFFu, li.g < G && (lane == 0 || prev_g != li.g));
    return li;
  };

  // Reduce item j from `stage` (its load complete and visible): the atomicMax of each run's keys.
  const auto reduce = [&](int j, const unsigned char* stage) {
    const LaneItem li = lane_item(j);
    const int c0 = li.t * kWindowCols + warp * kChunk;
    if (c0 >= N) return;  // the warp's chunk lies past the last column (N % 8 == 0)
    const unsigned char* block = stage + std::uint32_t(lane * 8) * kRowBytes;
    const auto run = [&](auto drop) {
      constexpr bool kDrop = decltype(drop)::value;
      std::uint32_t acc[4] = {0u, 0u, 0u, 0u}, acc_all[4] = {0u, 0u, 0u, 0u};
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        if (i >= li.main_rows) break;
        const uint4 v = *reinterpret_cast<const uint4*>(block + std::uint32_t(i) * kRowBytes + vec_off);
        const std::uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (int k = 0; k < 4; ++k) {
          acc[k] = key_word<In, kDrop>(acc[k], w[k]);
          if constexpr (kDrop) acc_all[k] = key_word<In, false>(acc_all[k], w[k]);
        }
      }
      // The runs of equal groups: suffix maxima, so a run's first lane holds the run's keys.
#pragma unroll
      for (int o = 1; o < 32; o *= 2) {
        const int og = __shfl_down_sync(0xFFFFFFFFu, li.g, o);
        const bool same = lane + o < 32 && og == li.g;
#pragma unroll
        for (int k = 0; k < 4; ++k) {
          const std::uint32_t a = __shfl_down_sync(0xFFFFFFFFu, acc[k], o);
          if (same) acc[k] = combine_keys<In>(acc[k], a);
          if constexpr (kDrop) {
            const std::uint32_t b = __shfl_down_sync(0xFFFFFFFFu, acc_all[k], o);
            if (same) acc_all[k] = combine_keys<In>(acc_all[k], b);
          }
        }
      }
      if ((li.heads >> lane) & 1u) {
        std::uint32_t* key = work.keys + std::int64_t(li.g) * N + c0;
#pragma unroll
        for (int jc = 0; jc < kChunk; ++jc) {
          atomicMax(key + jc, column_key<In>(acc, jc));
          if constexpr (kDrop) atomicMax(work.alls + std::int64_t(li.g) * N + c0 + jc, column_key<In>(acc_all, jc));
        }
      }
      // Rows of later groups in a block that a group boundary cuts.
      const int rows_in = li.g < G ? min(8, min(li.row_end, soffs[G - 1]) - li.row_b) : 0;
      if (li.main_rows < rows_in)
        reduce_cut_rows<kDrop>(block, vec_off, li.row_b, li.main_rows, li.row_b + rows_in, soffs, G, li.g + 1,
                               work.keys, work.alls, N, c0);
    };
    if (shape.drop_nan) run(std::true_type{});
    else run(std::false_type{});
  };

  // Cast item j (table j % 2 ready): the codes of the window.
  const auto cast = [&](int j, const unsigned char* stage) {
    const LaneItem li = lane_item(j);
    const int c0 = li.t * kWindowCols + warp * kChunk;
    if (c0 >= N) return;
    const unsigned char* block = stage + std::uint32_t(lane * 8) * kRowBytes;
    const auto raw_of = [&](int i) { return *reinterpret_cast<const uint4*>(block + std::uint32_t(i) * kRowBytes + vec_off); };
    uint2 codes[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) codes[i] = make_uint2(0u, 0u);
    if (li.main_rows > 0) {
      // The run's block_casts from the table (its first kWindowSegs groups), all eight on the cvt.
      const int slot = li.g - li.g_first;
      float enc[kChunk];
      bool fast = slot < kWindowSegs;
      if (fast) {
        const float* e = tab_enc + ((j % 2) * kWindowSegs + slot) * kWindowCols + warp * kChunk;
        const std::uint8_t* f = tab_fast + ((j % 2) * kWindowSegs + slot) * kWindowCols + warp * kChunk;
        const uint2 flags = *reinterpret_cast<const uint2*>(f);
        fast = flags.x == 0x01010101u && flags.y == 0x01010101u;
        const float4 e0 = *reinterpret_cast<const float4*>(e), e1 = *reinterpret_cast<const float4*>(e + 4);
        enc[0] = e0.x, enc[1] = e0.y, enc[2] = e0.z, enc[3] = e0.w;
        enc[4] = e1.x, enc[5] = e1.y, enc[6] = e1.z, enc[7] = e1.w;
      }
      if (fast) {
        const auto enc_of = [&](int jc) { return enc[jc]; };
        const BlockScale unused{};  // quantize_chunk takes scale_of only off the cvt
        const auto scale_of = [&](int) -> const BlockScale& { return unused; };
#pragma unroll
        for (int i = 0; i < 8; ++i) {
          if (i >= li.main_rows) break;
          const uint4 v = raw_of(i);
          RawChunk<In> c;
          c.w[0] = v.x, c.w[1] = v.y, c.w[2] = v.z, c.w[3] = v.w;
          codes[i] = quantize_chunk<P>(r, bounds, true, enc_of, scale_of, c.unpack());
        }
      } else {
#pragma unroll
        for (int i = 0; i < 8; ++i)
          if (i < li.main_rows)
            codes[i] = slow_row_codes<P>(r, bounds, work, shape.drop_nan, std::int64_t(li.g) * N + c0, raw_of(i));
      }
    }
    // Rows of later groups in a cut block, row by row (rare).
    const int rows_in = li.g < G ? min(8, min(li.row_end, soffs[G - 1]) - li.row_b) : 0;
    if (li.main_rows < rows_in) {
      int g = li.g + 1;
#pragma unroll
      for (int i = 1; i < 8; ++i) {
        if (i < li.main_rows || i >= rows_in) continue;
        while (soffs[g] <= li.row_b + i) ++g;
        codes[i] = slow_row_codes<P>(r, bounds, work, shape.drop_nan, std::int64_t(g) * N + c0, raw_of(i));
      }
    }
    // Rows [row_b, row_end) are stored (zeros past offs[G - 1]): 8 codes of a column per store.
    const int rows_out = min(8, li.row_end - li.row_b);
    if (rows_out <= 0) return;
    const auto store_half = [&](auto half) {
      constexpr int kHalf = decltype(half)::value;
      uint2 colv[4];
      transpose_8x4<kHalf>(codes, colv);
#pragma unroll
      for (int jh = 0; jh < 4; ++jh) {
        std::uint8_t* dst = q + std::int64_t(c0 + 4 * kHalf + jh) * K + li.row_b;
        if (shape.out_vec && rows_out == 8 && reinterpret_cast<std::uintptr_t>(dst) % 8 == 0) {
          *reinterpret_cast<uint2*>(dst) = colv[jh];
        } else {
          for (int i = 0; i < rows_out; ++i) dst[i] = std::uint8_t((i < 4 ? colv[jh].x : colv[jh].y) >> (8 * (i % 4)));
        }
      }
    };
    store_half(std::integral_constant<int, 0>{});
    store_half(std::integral_constant<int, 1>{});
  };

  // The pipeline: the ops (window_op) in order, each with its own load, two loads in flight; op k
  // - 1's stage is free after op k's barrier.
  constexpr int kCompute = kWindowComputeWarps * 32;
  issue(0);
  issue(1);
  for (int k = 0; k < 2 * n; ++k) {
    cp_async_wait(1);
    named_sync(kBarStage, kCompute);  // op k's load visible; every thread is done with op k - 1's stage
    issue(k + 2);
    const WindowOp op = window_op(k, n);
    const unsigned char* stage = smem + std::uint32_t(k % kWindowStages) * GroupWindowLayout::kStageBytes;
    if (op.reduce) {
      reduce(op.item, stage);
      named_arrive(kBarKeys + op.item % kWindowLag, kWindowThreads);
    } else {
      named_sync(kBarTable + op.item % 2, kWindowThreads);  // the block_casts of op.item
      cast(op.item, stage);
    }
  }
  cp_async_wait(0);  // no copy may outlive the CTA
}

// Launches group_window_kernel where it applies (returns false, nothing launched, otherwise): bf16
// input 16-byte aligned, sm_90, N % 8 == 0, 1 <= G <= kWindowMaxGroups, and at most as many windows
// per tile as co-resident CTAs (a cooperative launch). keys / alls / counts: a zeroed workspace of
// G * N, G * N (drop_nan recipes; may be null otherwise) and G * tiles words.
template <class... Cores>
bool launch_group_window(SourceType src, const void* x, std::int64_t K, std::int64_t N, const std::int64_t* offs,
                         std::int64_t G, const Recipe& r, std::uint8_t* q, std::uint32_t* scales, bool out_vec,
                         cudaStream_t stream, const GroupWindowWork& work) {
  const Device d = device();
  const RecipeCore core = make_core(r);
  const CastBounds bounds = cast_bounds(r);
  GroupWindowShape shape;
  shape.K = int(K);
  shape.N = int(N);
  shape.G = int(G);
  shape.windows = int((K + kWindowRows - 1) / kWindowRows);
  shape.tiles = int((N + kWindowCols - 1) / kWindowCols);
  shape.items = shape.windows * shape.tiles;
  shape.windows_div = FastDiv(std::uint32_t(shape.windows));
  shape.drop_nan = r.amax_nan == AmaxNan::Drop;
  shape.out_vec = out_vec;
  bool launched = false;
  with_core<Cores...>(core, cast_path(r, d), [&](auto p, const auto& rc) {
    using R = std::decay_t<decltype(rc)>;
    constexpr auto kernel = &group_window_kernel<decltype(p)::value, R>;
    const int per_sm = stream_ctas_per_sm<kernel, kWindowThreads>(GroupWindowLayout::kTotal);
    const unsigned grid = grid_for(per_sm, shape.items, d);
    if (shape.windows > int(grid)) return;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(grid);
    config.blockDim = dim3(kWindowThreads);
    config.dynamicSmemBytes = GroupWindowLayout::kTotal;
    config.stream = stream;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeCooperative;
    attr[0].val.cooperative = 1;
    config.attrs = attr;
    config.numAttrs = 1;
    OCTET_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, static_cast<const std::uint16_t*>(x), offs, q, scales, rc,
                                        bounds, shape, work));
    launched = true;
  });
  (void)src;
  return launched;
}

}  // namespace octet::cuda::quant
