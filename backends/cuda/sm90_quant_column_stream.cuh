// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// sm90_quant_column_stream.cuh — the column quantisers' streaming kernel: a scale block runs
// down a column (or kAmaxCols adjacent columns) over a range of rows; the CTA copies the pieces of
// its (range, column tile) items into shared memory with cp.async (PTX ISA 7.0, sm_80: 16-byte
// asynchronous copies in per-thread commit groups), `stages` pieces ahead of the reduction and
// cast. The arithmetic is the shared core's (sm90_quant_common.cuh: integer amax keys, block_cast,
// quantize_chunk), so the bytes equal column_tiles_kernel's.
//
// Used by the quantisers whose scale blocks are row ranges of a column: per-group colwise (and its
// dual form; groups of more than 2048 rows on average split over several ranges, KeyMode::Store /
// Load), 1x128 act rhs / transposed lhs and their token-grouped and k-grouped forms, 128x128
// weights (rhs, grouped rhs), MX dim1 and MX 3D (32x1, 32x32; 32-row blocks four to an item,
// MergedRanges), and with row-major codes DeepGEMM per-channel / per-block and the transposed
// 128x128 weights (kRowMajorCodes). The map is column_tiles_kernel's (RowRange range(i),
// scale_index(i, col), out_offset(row, col)); column-major codes of a column are contiguous inside
// a range (out_offset(row + 1, col) = out_offset(row, col) + 1; for MergedRanges inside each of its
// blocks) and the columns of a range one step apart (out_offset(row, col + 1) - out_offset(row, col)
// the same for all its rows and columns), written 8 rows per 8-byte store.
//
// Why: column_tiles_kernel loads a range into registers, waits, reduces, waits at two barriers and
// casts; the next item's loads start only when it is done (H100, % of copy bandwidth: 128-row
// blocks 55-58%, per-group colwise 27-35%, MX dim1 38%). Here the copies of the next pieces are in
// flight while the CTA works on the current one.
//
// Memory instructions cover whole lines: a warp's copy instruction reads whole row pieces of the
// tile (2 rows x 256 bytes for 128 bf16 columns), and a store instruction writes 128 contiguous
// bytes of a column (16 row lanes x 8 rows) for tiles of up to 128 columns. The first versions let
// every thread copy its own 8-row blocks (no barriers at all), so a copy instruction touched 16
// rows x 32 bytes: 16 lines for one sector each. On an H100 that pattern alone reads at 80% of a
// linear read where whole row pieces read at 100% (exp. in docs/gpu-notes.md 2026-11-25, third),
// and the kernel stopped at 49-65% of copy.
//
// Work split (256 threads, T = kTileCols columns per item): for the arithmetic thread t owns the
// 8-column chunk cx = t / L of the tile and the 8-row blocks b = t % L + L*u (u < units) of every
// piece, with L = 2048 / T row lanes (the 32 lanes of a warp cover 32 / L chunks). A piece is
// units * 8 * L rows. Per piece a thread folds its blocks into per-column keys (registers); after
// the last piece the lanes of a chunk combine by shuffles, and lanes 0-7 of the chunk compute its
// eight block_casts, shared within the warp (blocks of kAmaxCols > 1 columns: one key per chunk
// through shared memory between two CTA barriers, one thread per block); then each thread casts its
// blocks, transposes each 8x8 block of codes in registers (8 byte permutes per 4x4 quarter) and
// stores 8 codes of a column per store (row-major codes: into its own slots, then after a barrier
// out a row piece per warp instruction). One CTA barrier per piece makes the piece's copies (by
// other threads) visible and frees the stages read before it for the next copies.
//
// Ranges: the pieces of an item start at the range's first row rounded down to a multiple of 8
// (rows outside the range are neither copied nor stored). An item of at most `stages` pieces is
// read once (kept in shared memory from the key pass to the cast); a longer one is streamed
// twice (the second time mostly from L2). Blocks split over several ranges take two launches: the
// first reduces each range into a workspace key (atomicMax, KeyMode::Store), the second casts with
// the block's key (KeyMode::Load), walking the items backwards so that what the first read last is
// still in L2. column_tiles_kernel (and row_major_blocks_kernel for row-major codes) stays the
// fallback where this kernel does not apply (launch_column_stream).
#pragma once

#include "sm90_pdl.cuh"
#include "sm90_quant_row_stream.cuh"

namespace octet::cuda::quant {

inline constexpr int kColumnMaxUnits = 4;  // 8-row blocks per thread and piece

// The launch's geometry (computed by launch_column_stream).
struct ColumnStreamShape {
  std::int64_t items = 0;        // ranges * col_tiles
  std::int64_t col_tiles = 0;
  int piece_rows = 0;            // units * 8 * row lanes
  int units = 1;                 // 8-row blocks per thread and piece (<= kColumnMaxUnits)
  int stages = 2;
  std::uint32_t stage_bytes = 0; // piece_rows * kTileCols * sizeof(In)
  // Divisions by the count of the item index's faster part (col_tiles, or the ranges for
  // TileMajor maps), piece_rows and stages (FastDiv, set by the host: kernel parameters, so the
  // kernel reads them from the constant bank instead of holding them in registers).
  FastDiv order_div, pieces_div, stages_div;
  // kTileGroups maps: items in the order (group of 2^tile_group_log2 tiles, range, tile in the
  // group) where tile_group_log2 > 0; range_div divides by the ranges.
  int tile_group_log2 = 0;
  FastDiv range_div;
};

// The shared memory of one CTA: the stages, then the per-column keys (blocks of several chunks:
// two buffers of per-chunk key pairs in the keys and alls regions), scales and flags.
// The ranges of a CTA's first kColumnRangeCache items, read from the map once at the start: a
// map's range can be a global load (group offsets, block tables), which the copies of every item
// would otherwise wait for after each barrier (H100: token-grouped rhs at one group 51% of copy
// against 81% for the plain rhs of the same blocks).
inline constexpr int kColumnRangeCache = 64;

// The map's own region (MapSharedBytes) comes first, at offset 0, where map_shared() finds it.
struct ColumnStreamLayout {
  std::uint32_t stages = 0, keys = 0, alls = 0, scales = 0, fast = 0, ranges = 0, total = 0;
  __host__ __device__ ColumnStreamLayout(int stage_count, std::uint32_t stage_bytes, int tile_cols,
                                         std::uint32_t map_bytes) {
    stages = StreamLayout::align(map_bytes, 128);
    keys = StreamLayout::align(stages + std::uint32_t(stage_count) * stage_bytes, 16);
    alls = keys + 4u * std::uint32_t(tile_cols);
    scales = StreamLayout::align(alls + 4u * std::uint32_t(tile_cols), 16);
    fast = scales + std::uint32_t(sizeof(BlockScale)) * std::uint32_t(tile_cols);
    ranges = StreamLayout::align(fast + std::uint32_t(tile_cols), 16);
    total = StreamLayout::align(ranges + std::uint32_t(sizeof(RowRange)) * kColumnRangeCache, 16);
  }
};

// What a CTA does for one item: its range and tile, the first row of its pieces, the piece count
// and the loads (pieces, or twice the pieces when the item is streamed twice).
struct ColumnItem {
  RowRange rr;
  std::int64_t range_id = 0, tile = 0, base = 0;
  int pieces = 0, loads = 0;
};

// 4x4 bytes: byte j of a0..a3 into bytes 0..3 of c[j] (8 byte permutes).
__device__ __forceinline__ void transpose_4x4(std::uint32_t a0, std::uint32_t a1, std::uint32_t a2, std::uint32_t a3,
                                              std::uint32_t (&c)[4]) {
  const std::uint32_t t0 = __byte_perm(a0, a1, 0x5140), t1 = __byte_perm(a0, a1, 0x7362);
  const std::uint32_t t2 = __byte_perm(a2, a3, 0x5140), t3 = __byte_perm(a2, a3, 0x7362);
  c[0] = __byte_perm(t0, t2, 0x5410);
  c[1] = __byte_perm(t0, t2, 0x7632);
  c[2] = __byte_perm(t1, t3, 0x5410);
  c[3] = __byte_perm(t1, t3, 0x7632);
}

// Columns 4h .. 4h + 3 of an 8x8 block of codes (row i's codes in rows[i], column j in byte j % 4
// of .x (j < 4) or .y): cols[j] holds column 4h + j, row i in byte i % 4 of .x (i < 4) or .y.
template <int kHalf>
__device__ __forceinline__ void transpose_8x4(const uint2 (&rows)[8], uint2 (&cols)[4]) {
  const auto w = [&](int i) { return kHalf == 0 ? rows[i].x : rows[i].y; };
  std::uint32_t lo[4], hi[4];
  transpose_4x4(w(0), w(1), w(2), w(3), lo);
  transpose_4x4(w(4), w(5), w(6), w(7), hi);
#pragma unroll
  for (int j = 0; j < 4; ++j) cols[j] = make_uint2(lo[j], hi[j]);
}

// The codes of rows row_b .. row_b + 7 of column `col` (row i in byte i % 4 of v.x / v.y) that lie
// in [r0, r1), one byte at a time: the edges of a range, or unaligned columns. Out of line and by
// value (rare; inlined it would hold registers in the hot loop).
template <class Map>
__device__ __noinline__ void store_column_bytes(std::uint8_t* q, Map map, std::int64_t row_b, std::int64_t col,
                                                std::int64_t r0, std::int64_t r1, uint2 v) {
  for (int i = 0; i < 8; ++i) {
    const std::int64_t row = row_b + i;
    if (row >= r0 && row < r1) q[map.out_offset(row, col)] = std::uint8_t((i < 4 ? v.x : v.y) >> (8 * (i % 4)));
  }
}

// Combines two key accumulators (sm90_quant_common.cuh) of the same columns: both hold
// magnitudes that order as unsigned integers (bf16: per half; NaN-dropping keys hold no NaN).
template <class In>
__device__ __forceinline__ std::uint32_t combine_keys(std::uint32_t a, std::uint32_t b) {
  if constexpr (kIsBf16<In>) return __vmaxu2(a, b);
  else return max(a, b);
}

// Map traits of the stream kernel. kSubBlockRows (> 0): a range holds several scale blocks of that
// many rows, one after another (MergedRanges below): scale_index(range, sub, col). kRowMajorCodes:
// the codes are row-major (out_offset(row, col + 1) = out_offset(row, col) + 1, and
// out_offset(row + 1, col) = out_offset(row, col) + map.code_row_stride() inside a range), written
// from shared memory a row piece per warp instruction.
template <class Map, class = void>
struct SubBlockRows : std::integral_constant<int, 0> {};
template <class Map>
struct SubBlockRows<Map, std::void_t<decltype(Map::kSubBlockRows)>> : std::integral_constant<int, Map::kSubBlockRows> {};
template <class Map, class = void>
struct RowMajorCodes : std::false_type {};
template <class Map>
struct RowMajorCodes<Map, std::void_t<decltype(Map::kRowMajorCodes)>> : std::bool_constant<Map::kRowMajorCodes> {};

// kTileMajor: items in tile-major order (the ranges of a tile one after another); the token-grouped
// 1x128 rhs at 16 / 64 / 128 groups measured 72 / 58 / 55% range-major, 77 / 76 / 66% tile-major in
// the same run (and the per-group colwise, 128x128 weights and DeepGEMM per-channel 1-10 points
// slower tile-major).
template <class Map, class = void>
struct TileMajor : std::false_type {};
template <class Map>
struct TileMajor<Map, std::void_t<decltype(Map::kTileMajor)>> : std::bool_constant<Map::kTileMajor> {};

// kRowBlockCols (> 0): the map has a second output, 1 x kRowBlockCols blocks along the rows of the
// same input (mx_quantize_2d: the dim0 codes and scales beside the dim1 ones), quantised from the
// stages after the column cast of each piece, so the input is read once for both (two launches
// read it twice: at most 4/6 of copy in the counted bytes). map.row_blocks() gives a RowBlockOut.
template <class Map, class = void>
struct RowBlockCols : std::integral_constant<int, 0> {};
template <class Map>
struct RowBlockCols<Map, std::void_t<decltype(Map::kRowBlockCols)>> : std::integral_constant<int, Map::kRowBlockCols> {};

// kProgrammaticLaunch: the map reads a table that a short kernel writes just before (the k-grouped
// map's GroupBlockTable): the stream kernel is launched by launch_pdl, so its launch overlaps that
// kernel, and waits for it in pdl_wait() (every instance calls it first: a no-op for a normal
// launch).
template <class Map, class = void>
struct ProgrammaticLaunch : std::false_type {};
template <class Map>
struct ProgrammaticLaunch<Map, std::void_t<decltype(Map::kProgrammaticLaunch)>>
    : std::bool_constant<Map::kProgrammaticLaunch> {};

// The row-block output: codes row-major like the input (row * cols + col), the scale of block
// (row, col / kRowBlockCols) at row * scale_stride + col / kRowBlockCols.
struct RowBlockOut {
  std::uint8_t* q = nullptr;
  void* scales = nullptr;
  std::int64_t scale_stride = 0;
};
template <class Map>
__device__ __forceinline__ RowBlockOut row_blocks_of(const Map& map) {
  if constexpr (RowBlockCols<Map>::value > 0) return map.row_blocks();
  else return {};
}

// The 8-row blocks of a piece with one 8-row block per thread (units = 1): 8 * row lanes.
template <int kTileCols>
inline constexpr int kColumnPieceRows = 8 * kStreamThreads * kChunk / kTileCols;

// Scale-block slots per tile in shared memory: kTileCols, times the blocks of a merged range.
template <class Map, int kTileCols>
inline constexpr int kColumnScaleSlots =
    kTileCols * (SubBlockRows<Map>::value > 0 ? kColumnPieceRows<kTileCols> / SubBlockRows<Map>::value : 1);

// Ranges of kRows rows (contiguous, each starting at a multiple of 8), kSubs at a time: one item
// then covers kSubs scale blocks of each column (MX 32-row blocks: 4 per 128-row piece, so a
// store instruction writes 128 bytes of a column instead of 32).
template <class Inner, int kRows, int kSubs>
struct MergedRanges {
  static constexpr int kSubBlockRows = kRows;
  static constexpr int kRowBlockCols = RowBlockCols<Inner>::value;
  Inner inner;
  std::int64_t count;  // ranges of `inner`
  __device__ RowRange range(std::int64_t i) const {
    const std::int64_t first = i * kSubs, last = (first + kSubs < count ? first + kSubs : count) - 1;
    return {inner.range(first).r0, inner.range(last).r1, false};
  }
  __device__ std::int64_t scale_index(std::int64_t i, int sub, std::int64_t col) const {
    return inner.scale_index(i * kSubs + sub, col);
  }
  __device__ std::int64_t out_offset(std::int64_t row, std::int64_t col) const { return inner.out_offset(row, col); }
  __device__ RowBlockOut row_blocks() const { return inner.row_blocks(); }  // kRowBlockCols > 0 only
};

// kSharedBytes (> 0): the map keeps per-CTA state in shared memory, the first kSharedBytes of the
// kernel's dynamic shared memory (map_shared()), which map.load_shared(tid) fills (every thread
// calls it, then a CTA barrier); such maps run on this kernel only. The token- and k-grouped maps
// hold their groups' blocks there instead of a table in global memory that a kernel of its own
// would write first (H100: that kernel and its workspace cost 4-6 us of a 100 us launch).
// kSharedRanges (default true): range() reads that state, so it is loaded before the first range;
// otherwise only scale_index / out_offset do, and it is loaded while the first copies are in flight.
template <class Map, class = void>
struct MapSharedBytes : std::integral_constant<std::uint32_t, 0> {};
template <class Map>
struct MapSharedBytes<Map, std::void_t<decltype(Map::kSharedBytes)>>
    : std::integral_constant<std::uint32_t, Map::kSharedBytes> {};
template <class Map, class = void>
struct SharedRanges : std::true_type {};
template <class Map>
struct SharedRanges<Map, std::void_t<decltype(Map::kSharedRanges)>> : std::bool_constant<Map::kSharedRanges> {};

// kLiveRanges: the map's ranges with work are the first live_count() of a renumbering (live range
// c is map range live_range(c); the others read and write nothing), known only on the device
// (after load_shared); the CTAs then take every gridDim-th item of the live ranges' items instead
// of all ranges' (the host's count, for the worst case). Why: the token-grouped rhs lists
// ceil(M/128) + G ranges, of which at 128 groups (16640 rows, the benchmark's offs) only 193 hold
// rows (80 whole blocks, 113 partial ones); with 264 CTAs over 40 tiles x 259 ranges, CTA b takes
// ranges b, b + 5, b + 10, ... of consecutive tiles, a window of range positions that holds the 65
// empty ones for some CTAs and none for others (the CTA with the most rows had 1.38 times the
// mean; ncu: the SMs were active in 84% of the kernel's cycles, against 91-96% at 1, 16 and 64
// groups). H100: 68% to 80.5% of copy at 128 groups.
template <class Map, class = void>
struct LiveRanges : std::false_type {};
template <class Map>
struct LiveRanges<Map, std::void_t<decltype(Map::kLiveRanges)>> : std::bool_constant<Map::kLiveRanges> {};

// kTileGroups: the map's member tile_group_log2 (> 0) puts the items in the order (group of
// 2^tile_group_log2 tiles, range, tile in the group): the CTAs then work on 264 / 2^n ranges of
// 2^n neighbouring tiles at a time instead of 264 / col_tiles whole ranges (range-major) or one
// tile of 264 ranges (tile-major); tile groups past col_tiles are padded with empty items. For
// the per-group colwise map (64-column tiles), H100, % of copy, two runs each (2026-11-27): groups
// of 4 tiles at 16 / 64 / 128 groups 64.7-64.9 / 74.1-74.2 / 56.7-56.8 against 62.0-62.5 /
// 66.8 / 58.7 range-major (8 tiles: 56.8-57.0 / 72.1-72.6 / 57.2-57.4; 2 tiles: 58.3-58.8 /
// 71.8-72.9 / 56.9-57.0). The other column maps measured at most 1.5 points higher and up to 30
// lower in that order (k-grouped 79-84 against 82-86, MX 3D at 64x2048x1408 64-86 against 91-96,
// the 128x128 weights at 64x2048x1408 61-78 against 85).
template <class Map, class = void>
struct TileGroups : std::false_type {};
template <class Map>
struct TileGroups<Map, std::void_t<decltype(Map::kTileGroups)>> : std::bool_constant<Map::kTileGroups> {};

// The map's region of the dynamic shared memory (every extern __shared__ array starts at its base).
__device__ __forceinline__ unsigned char* map_shared() {
  extern __shared__ __align__(128) unsigned char map_smem[];
  return map_smem;
}

// Two CTAs per SM (at most 128 registers per thread), each with `stages` (3) ~32 KB stages.
template <class In, CastPath P, class R, int kTileCols, int kAmaxCols, KeyMode kMode, class Map>
__global__ void __launch_bounds__(kStreamThreads, 2)
    column_stream_kernel(const In* __restrict__ x, std::int64_t cols, std::uint8_t* __restrict__ q,
                         void* __restrict__ scales, bool scale_bytes, R r, CastBounds bounds, Map map,
                         ColumnStreamShape shape, bool out_vec, std::uint32_t* __restrict__ keys) {
  static_assert(kTileCols >= 64 && kTileCols <= 2048 && (kTileCols & (kTileCols - 1)) == 0,
                "a power-of-two tile of 64..2048 columns: at most 32 row lanes per chunk");
  static_assert(kAmaxCols >= 1 && kTileCols % kAmaxCols == 0, "whole blocks per tile");
  static_assert(kAmaxCols == 1 || kAmaxCols % (2 * kChunk) == 0, "blocks of one column or of whole chunk pairs");
  static_assert(kMode == KeyMode::Own || (kAmaxCols == 1 && SubBlockRows<Map>::value == 0 && !RowMajorCodes<Map>::value),
                "split blocks are column ranges of one block each");
  constexpr int kLanes = kStreamThreads * kChunk / kTileCols;  // row lanes per chunk (<= 32)
  constexpr int kWords = RawChunk<In>::kWords;
  constexpr int kVecs = kWords / 4;  // 16-byte pieces per chunk
  // Merged ranges: blocks of kSubRows rows per range (units = 1), kSubLanes row lanes each.
  constexpr int kSubRows = SubBlockRows<Map>::value;
  constexpr int kSubLanes = kSubRows > 0 ? kSubRows / 8 : kLanes;
  static_assert(kSubRows % 8 == 0 && kColumnPieceRows<kTileCols> % (kSubRows > 0 ? kSubRows : 1) == 0,
                "merged blocks of whole 8-row blocks, whole blocks per piece");
  constexpr bool kRowMajor = RowMajorCodes<Map>::value;
  constexpr int kRowBlock = RowBlockCols<Map>::value;
  constexpr int kRowBlockDiv = kRowBlock > 0 ? kRowBlock : 1;  // (no division by zero where unused)
  static_assert(kRowBlock == 0 || (kMode == KeyMode::Own && !kRowMajor && kRowBlock % kChunk == 0 &&
                                   kTileCols % kRowBlockDiv == 0 && kRowBlock / kChunk <= 32),
                "row blocks: whole chunks, whole blocks per tile, one launch, at most a warp per block");
  extern __shared__ __align__(128) unsigned char smem[];
  pdl_wait();  // (ProgrammaticLaunch) the map's table is written
  const int S = shape.stages;
  const ColumnStreamLayout lay(S, shape.stage_bytes, kColumnScaleSlots<Map, kTileCols>,
                               MapSharedBytes<Map>::value);  // as the host's
  // kAmaxCols > 1: the (key, all) pair of each chunk of a tile (and of each block of a merged range),
  // two buffers of kKeySlots pairs (within the keys and alls regions: 8 bytes per column slot).
  constexpr int kKeySlots = kColumnScaleSlots<Map, kTileCols> / kChunk;
  uint2* chunk_keys = reinterpret_cast<uint2*>(smem + lay.keys);
  int key_buffer = 0;
  BlockScale* sscale = reinterpret_cast<BlockScale*>(smem + lay.scales);
  std::uint8_t* sfast = smem + lay.fast;
  const int tid = int(threadIdx.x);
  const int cx = tid / kLanes, rl = tid % kLanes;
  const int my_sub = kSubRows > 0 ? rl / kSubLanes : 0;  // this thread's block of a merged range
  const int slot0 = my_sub * kTileCols + cx * kChunk;     // its chunk's first column slot (kAmaxCols = 1)
  constexpr int kChunksPerTile = kTileCols / kChunk;
  const std::int64_t piece_rows = shape.piece_rows;
  const bool drop_nan = r.amax_nan == AmaxNan::Drop;

  RowRange* sranges = reinterpret_cast<RowRange*>(smem + lay.ranges);
  if constexpr (MapSharedBytes<Map>::value > 0 && SharedRanges<Map>::value) {
    map.load_shared(tid);
    __syncthreads();
  }
  // Item j of this CTA (the host keeps items < 2^31: 32-bit division): every gridDim-th item of
  // the ranges (or of the live ranges: kLiveRanges, which divide by their count). The cast launch
  // of split blocks (KeyMode::Load) walks the items backwards: what the key launch read last is in
  // L2.
  constexpr bool kLive = LiveRanges<Map>::value;
  static_assert(!kLive || (kMode == KeyMode::Own && TileMajor<Map>::value), "live ranges: tile-major, one launch");
  static_assert(!(kLive && TileGroups<Map>::value), "live ranges in the map's tile-major order, not in tile groups");
  std::uint32_t items = std::uint32_t(shape.items);
  FastDiv live_div;
  if constexpr (kLive) {
    const std::uint32_t live = map.live_count();
    items = live * std::uint32_t(shape.col_tiles);
    live_div = FastDiv(live > 0 ? live : 1u);
  }
  // kTileGroups: item -> (tile, range), true where the map's tile groups apply.
  const auto tile_group_decode = [&](std::uint32_t item, std::int64_t& tile, std::uint32_t& c) {
    if constexpr (TileGroups<Map>::value) {
      if (shape.tile_group_log2 > 0) {
        const std::uint32_t rest = item >> shape.tile_group_log2, group = shape.range_div.div(rest);
        c = rest - group * shape.range_div.d;
        tile = (std::int64_t(group) << shape.tile_group_log2) + (item & ((1u << shape.tile_group_log2) - 1u));
        return true;
      }
    }
    return false;
  };
  // The item index's division: by the live ranges, or the host's (a kernel parameter, in the
  // constant bank).
  const auto order_div = [&]() -> const FastDiv& {
    if constexpr (kLive) return live_div;
    else return shape.order_div;
  };
  const auto step_of = [&](int j) { return int(blockIdx.x) + j * int(gridDim.x); };
  const auto has_item = [&](int j) { return std::uint32_t(step_of(j)) < items; };
  const auto item_index = [&](int j) {
    return kMode == KeyMode::Load ? std::uint32_t(items - 1 - step_of(j)) : std::uint32_t(step_of(j));
  };
  // The map's range of (live) range position c.
  const auto map_range_id = [&](std::uint32_t c) -> std::int64_t {
    if constexpr (kLive) return map.live_range(c);
    else return c;
  };
  // Item -> (range, tile): range-major (the tiles of a range one after another) or tile-major.
  const auto range_of = [&](std::uint32_t item) {
    std::int64_t tile;
    std::uint32_t c;
    if (tile_group_decode(item, tile, c)) return c;
    if constexpr (TileMajor<Map>::value) return item - order_div().div(item) * order_div().d;
    else return order_div().div(item);
  };
  for (int j = tid; j < kColumnRangeCache && has_item(j); j += kStreamThreads)
    sranges[j] = map.range(map_range_id(range_of(item_index(j))));
  __syncthreads();
  const auto item_of = [&](int j) {
    ColumnItem it;
    const std::uint32_t item = item_index(j);
    std::uint32_t c = 0;
    if (tile_group_decode(item, it.tile, c)) {
      it.range_id = map_range_id(c);
    } else if constexpr (TileMajor<Map>::value) {
      const std::uint32_t tile = order_div().div(item);
      it.tile = tile;
      it.range_id = map_range_id(item - tile * order_div().d);
    } else {
      const std::uint32_t c = order_div().div(item);
      it.range_id = map_range_id(c);
      it.tile = item - c * std::uint32_t(shape.col_tiles);
    }
    it.rr = j < kColumnRangeCache ? sranges[j] : map.range(it.range_id);
    it.base = it.rr.r0 & ~std::int64_t(7);
    const bool reads = it.rr.r1 > it.rr.r0 && !it.rr.zero_fill;
    const std::int64_t rows = it.rr.r1 - it.base;  // 32-bit division where it fits
    it.pieces = !reads ? 0
                : rows < (std::int64_t(1) << 31) - piece_rows
                    ? int(shape.pieces_div.div(std::uint32_t(rows) + std::uint32_t(piece_rows) - 1))
                    : int((rows + piece_rows - 1) / piece_rows);
    // Read twice (keys, then casts) where an item of its own block outgrows the stages.
    it.loads = kMode == KeyMode::Own && it.pieces > S ? 2 * it.pieces : it.pieces;
    return it;
  };
  // The stage of load L holds the piece's rows one after another, kRowBytes = kTileCols * sizeof(In)
  // bytes each; the 16-byte vector w of row r sits at r * kRowBytes + (w ^ swizzle(r)) * 16. The
  // copies run along rows (a warp's cp.async covers whole row pieces: 2 x 256 bytes for 128 bf16
  // columns), the reads down columns (a quarter warp reads 8 rows of one chunk, or 4 rows of two):
  // XOR-ing the vector index with the row's 8-row block (mod kSwz, spread over the 8 16-byte bank
  // groups) puts each of those 8 reads in its own bank group.
  constexpr std::uint32_t kRowBytes = std::uint32_t(kTileCols) * sizeof(In);
  constexpr int kRowVecs = int(kRowBytes / 16);  // 16-byte vectors per row (8 .. 256)
  static_assert(kRowVecs >= 8 && kRowVecs <= kStreamThreads, "a copy pass covers whole rows");
  constexpr int kSwz = kLanes < 8 ? kLanes : 8;
  const auto swizzle = [](int row) { return int((unsigned(row) >> 3) % kSwz) * (8 / kSwz); };
  const auto stage_of = [&](int L) {
    return smem + lay.stages + shape.stages_div.mod(std::uint32_t(L)) * shape.stage_bytes;
  };
  // This thread's blocks read rows (rl + u * kLanes) * 8 + i: the same swizzle for all of them.
  const int my_swz = swizzle(rl * 8);
  // Chunk `chunk` of the stage row at `row_ptr`, whose swizzle is `swz`.
  const auto stage_chunk = [](const unsigned char* row_ptr, int chunk, int swz) {
    RawChunk<In> c;
#pragma unroll
    for (int v = 0; v < kVecs; ++v) {
      const uint4 t = *reinterpret_cast<const uint4*>(row_ptr + std::uint32_t((chunk * kVecs + v) ^ swz) * 16u);
      c.w[4 * v + 0] = t.x;
      c.w[4 * v + 1] = t.y;
      c.w[4 * v + 2] = t.z;
      c.w[4 * v + 3] = t.w;
    }
    return c;
  };
  // Row i of one of this thread's blocks: its chunk cx.
  const auto slot_chunk = [&](const unsigned char* block, int i) {
    return stage_chunk(block + std::uint32_t(i) * kRowBytes, cx, my_swz);
  };

  // The rows [x, y) of the piece from row prow0 on that lie in `range` (32-bit, clamped to the
  // piece), and a thread's first row row0 + k * step (k >= 0) at or after x: the bounds of the
  // copy and row-major store loops.
  const auto piece_span = [&](const RowRange& range, std::int64_t prow0) {
    return make_int2(int(std::max<std::int64_t>(range.r0 - prow0, 0)),
                     int(std::min<std::int64_t>(range.r1 - prow0, shape.piece_rows)));
  };
  const auto first_row = [](int row0, int lo, int step) {
    return row0 + (lo > row0 ? (lo - row0 + step - 1) / step * step : 0);
  };

  // The copies: every thread walks the CTA's loads in order (the same for all threads) and copies
  // vector w = tid % kRowVecs of rows tid / kRowVecs + k * kRowStep of each (the rows of the range,
  // the columns below `cols`); one commit group per load (an empty group past the last load keeps
  // the count). A stage is refilled only after a barrier that every thread passed after its last
  // read of it (consume below), so the copies need no barrier of their own.
  constexpr int kRowStep = kStreamThreads / kRowVecs;
  const int copy_w = tid % kRowVecs, copy_row = tid / kRowVecs;
  int committed = 0;  // commit groups so far: group g holds load g (or nothing, past the last)
  int pj = 0, pk = 0;  // next load: load pk of item pj
  const auto issue_next = [&] {
    for (; has_item(pj); ++pj, pk = 0) {
      const ColumnItem it = item_of(pj);
      if (pk >= it.loads) continue;
      const int pp = pk < it.pieces ? pk : pk - it.pieces;  // the second reading of a twice-read item
      const std::int64_t prow0 = it.base + std::int64_t(pp) * piece_rows;
      const std::int64_t col = it.tile * kTileCols + std::int64_t(copy_w) * (16 / int(sizeof(In)));
      if (col < cols) {
        unsigned char* stage = stage_of(committed);
        const int2 span = piece_span(it.rr, prow0);
        const int first = first_row(copy_row, span.x, kRowStep);
        const In* src = x + (prow0 + first) * cols + col;
#pragma unroll 4
        for (int row = first; row < span.y; row += kRowStep, src += kRowStep * cols)
          cp_async_16(stage + std::uint32_t(row) * kRowBytes + std::uint32_t(copy_w ^ swizzle(row)) * 16u, src);
      }
      ++pk;
      break;
    }
    cp_async_commit();
    ++committed;
  };
  // Loads whose stage no thread reads again (every thread counts the same releases in the same
  // order; only a barrier makes them reusable).
  int released = 0;
  const auto refill = [&] {
    while (committed < released + S) issue_next();
  };
  refill();
  if constexpr (MapSharedBytes<Map>::value > 0 && !SharedRanges<Map>::value) {
    map.load_shared(tid);
    __syncthreads();
  }
  // Load L is complete and visible to every thread; stages released before here are refilled. A
  // load not yet issued (an item of `stages` pieces after another one: its stages were released
  // after the last barrier) needs one barrier more before its copies.
  const auto consume = [&](int L) {
    if (L >= committed) {
      __syncthreads();
      refill();
    }
    cp_async_wait(committed - 1 - L);
    __syncthreads();
    refill();
  };
  const auto release = [&] { ++released; };

  int Lc = 0;  // this CTA's next load to consume
  for (int j = 0; has_item(j); ++j) {
    const ColumnItem it = item_of(j);
    const RowRange rr = it.rr;
    const std::int64_t c0 = it.tile * kTileCols + cx * kChunk;
    const bool col_ok = c0 < cols;  // cols % 8 == 0: a chunk is whole or absent
    // Column-major codes: the code of (row, c0 + jc) for a row of this thread's blocks is at
    // out_ref + row + jc * out_step. The rows of a range are contiguous in every column (a merged
    // range's: those of each of its blocks, the thread's own sub-range from ref_row on) and its
    // columns one step apart (the maps' contract, file comment), so two out_offset calls per item
    // serve all of the thread's blocks (out_offset per column and block took 25-30 instructions
    // per block, a division for Mx3dMap). out_vec_item: its whole blocks take 8-byte stores.
    std::int64_t out_ref = 0, out_step = 0;
    bool out_vec_item = false;
    if constexpr (!kRowMajor && kMode != KeyMode::Store) {
      const std::int64_t ref_row = rr.r0 + (kSubRows > 0 ? std::int64_t(my_sub) * kSubRows : 0);
      if (col_ok && ref_row < rr.r1) {
        const std::int64_t ref = map.out_offset(ref_row, c0);
        out_ref = ref - ref_row;
        out_step = map.out_offset(ref_row, c0 + 1) - ref;
        out_vec_item = out_vec && (reinterpret_cast<std::uintptr_t>(q) + std::uint64_t(out_ref)) % 8 == 0 &&
                       out_step % 8 == 0;
      }
    }

    // Scale slot `sub` of a merged range (kSubRows > 0) exists where the range reaches it.
    const auto sub_exists = [&](int sub) { return kSubRows == 0 || rr.r0 + std::int64_t(sub) * kSubRows < rr.r1; };
    const auto scale_index_of = [&](int sub, std::int64_t col) {
      if constexpr (kSubRows > 0) return map.scale_index(it.range_id, sub, col);
      else return map.scale_index(it.range_id, col);
    };
    // Row-major codes: 8 codes of `row` from column `col` on.
    const auto store_row8 = [&](std::int64_t row, std::int64_t col, uint2 v) {
      std::uint8_t* dst = q + map.out_offset(row, col);
      if (out_vec && reinterpret_cast<std::uintptr_t>(dst) % 8 == 0) {
        *reinterpret_cast<uint2*>(dst) = v;
        return;
      }
      for (int j = 0; j < 8; ++j) dst[j] = std::uint8_t((j < 4 ? v.x : v.y) >> (8 * (j % 4)));
    };

    // The codes of an 8-row block starting at row_b (rows outside the range are not stored).
    const auto store_block = [&](std::int64_t row_b, const uint2 (&codes)[8]) {
      const bool full_rows = row_b >= rr.r0 && row_b + 8 <= rr.r1;
      if constexpr (kRowMajor) {
#pragma unroll
        for (int i = 0; i < 8; ++i)
          if (full_rows || (row_b + i >= rr.r0 && row_b + i < rr.r1)) store_row8(row_b + i, c0, codes[i]);
        return;
      }
      // Column c0 + jc's codes at q + out_ref + row_b + jc * out_step (whole blocks; the bytes of
      // a block at a range's edge or of an unaligned output one by one, by out_offset). Four
      // columns at a time (fewer live registers).
      const auto store_columns = [&](auto vec) {
        std::uint8_t* dst = q + (out_ref + row_b);
        const auto store_half = [&](auto half) {
          constexpr int kHalf = decltype(half)::value;
          uint2 colv[4];
          transpose_8x4<kHalf>(codes, colv);
#pragma unroll
          for (int jh = 0; jh < 4; ++jh) {
            if constexpr (decltype(vec)::value) *reinterpret_cast<uint2*>(dst) = colv[jh];
            else store_column_bytes(q, map, row_b, c0 + 4 * kHalf + jh, rr.r0, rr.r1, colv[jh]);
            dst += out_step;
          }
        };
        store_half(std::integral_constant<int, 0>{});
        store_half(std::integral_constant<int, 1>{});
      };
      if (full_rows && out_vec_item) store_columns(std::true_type{});
      else store_columns(std::false_type{});
    };

    // f(row_b, block, full_rows) for each of this thread's 8-row blocks of piece p (in the stage of
    // load L) that holds rows of the range: its first row, its slots, whether all 8 rows are in.
    const auto for_each_block = [&](int L, int p, auto&& f) {
      const unsigned char* stage = stage_of(L);
      const std::int64_t prow0 = it.base + p * piece_rows;
#pragma unroll 1
      for (int u = 0; u < shape.units; ++u) {
        const std::int64_t row_b = prow0 + std::int64_t(rl + u * kLanes) * 8;
        if (!col_ok || row_b >= rr.r1 || row_b + 8 <= rr.r0) continue;
        f(row_b, stage + std::uint32_t((rl + u * kLanes) * 8) * kRowBytes, row_b >= rr.r0 && row_b + 8 <= rr.r1);
      }
    };
    // The rows row_b + [lo, hi) of a block at a range's edge that lie in the range (0 <= lo < hi <= 8;
    // 32-bit).
    const auto rows_in = [&](std::int64_t row_b) {
      return make_int2(row_b >= rr.r0 ? 0 : int(rr.r0 - row_b), row_b + 8 <= rr.r1 ? 8 : int(rr.r1 - row_b));
    };

    if (rr.zero_fill) {
      // Rows of no group: codes 0x00 (written by the cast launch of split blocks), nothing read,
      // no scale.
      if (kMode == KeyMode::Store || !col_ok) continue;
      const uint2 zeros[8] = {};
      for (std::int64_t row_b = it.base + std::int64_t(rl) * 8; row_b < rr.r1; row_b += 8 * kLanes) store_block(row_b, zeros);
      continue;
    }

    // f(jc) for the columns of this thread's chunk that it computes for its lane group: every lane
    // of a block's group holds the chunk's eight keys after the shuffle combine, and the lane at
    // position g takes columns g, g + kSubLanes, ...
    const auto for_lane_columns = [&](auto&& f) {
      const int g = rl % kSubLanes;
#pragma unroll
      for (int t = 0; t < (kChunk + kSubLanes - 1) / kSubLanes; ++t) {
        const int jc = g + t * kSubLanes;
        if (jc < kChunk) f(jc);
      }
    };
    // One-column blocks: the block_casts of the chunk's columns from keys_of(jc) = (key, all),
    // into sscale / sfast, which only this warp reads (no CTA barrier), and the stored scales.
    const auto cast_columns = [&](auto&& keys_of) {
      __syncwarp();  // this warp's casts of the previous item are done with sscale
      for_lane_columns([&](int jc) {
        const uint2 ka = keys_of(jc);
        const BlockCast bc = block_cast<P>(r, bounds, ka.x, ka.y);
        sscale[slot0 + jc] = bc.scale;
        sfast[slot0 + jc] = bc.fast ? 1 : 0;
        if (col_ok && rr.writes_scale && sub_exists(my_sub))
          store_scale(scales, scale_index_of(my_sub, c0 + jc), scale_bytes, bc.scale.stored);
      });
      __syncwarp();
    };

    // Pass 1: per-column keys of this thread's blocks, over every piece (the cast launch of split
    // blocks takes the keys from the workspace instead).
    if constexpr (kMode != KeyMode::Load) {
      const bool twice = it.loads > it.pieces || kMode == KeyMode::Store;
      const auto reduce = [&](auto drop) {
        constexpr bool kDrop = decltype(drop)::value;
        std::uint32_t acc[kWords], acc_all[kWords];
#pragma unroll
        for (int k = 0; k < kWords; ++k) acc[k] = acc_all[k] = 0u;
        for (int p = 0; p < it.pieces; ++p) {
          const int L = Lc + p;
          consume(L);
          for_each_block(L, p, [&](std::int64_t row_b, const unsigned char* block, bool full_rows) {
            const auto fold = [&](int i) {
              const RawChunk<In> raw = slot_chunk(block, i);
#pragma unroll
              for (int k = 0; k < kWords; ++k) {
                acc[k] = key_word<In, kDrop>(acc[k], raw.w[k]);
                if constexpr (kDrop) acc_all[k] = key_word<In, false>(acc_all[k], raw.w[k]);
              }
            };
            // Whole blocks without a test per row.
            if (full_rows) {
#pragma unroll
              for (int i = 0; i < 8; ++i) fold(i);
            } else {
              const int2 in = rows_in(row_b);
#pragma unroll 1
              for (int i = in.x; i < in.y; ++i) fold(i);
            }
          });
          if (twice) release();
        }
        // The row lanes of a chunk (of a block of a merged range) are kSubLanes neighbouring lanes of
        // one warp.
#pragma unroll
        for (int o = kSubLanes / 2; o > 0; o /= 2)
#pragma unroll
          for (int k = 0; k < kWords; ++k) {
            acc[k] = combine_keys<In>(acc[k], __shfl_xor_sync(0xFFFFFFFFu, acc[k], o));
            if constexpr (kDrop) acc_all[k] = combine_keys<In>(acc_all[k], __shfl_xor_sync(0xFFFFFFFFu, acc_all[k], o));
          }
        if constexpr (kAmaxCols == 1 && kMode == KeyMode::Store) {
          // The range's keys into the blocks' workspace slots (an integer maximum: any order).
          for_lane_columns([&](int jc) {
            if (col_ok && rr.r1 > rr.r0) atomicMax(keys + map.key_index(it.range_id, c0 + jc), column_key<In>(acc, jc));
          });
        } else if constexpr (kAmaxCols == 1) {
          cast_columns([&](int jc) {
            return make_uint2(column_key<In>(acc, jc), column_key<In>(kDrop ? acc_all : acc, jc));
          });
        } else if (rl % kSubLanes == 0) {
          // The chunk's key (the maximum of its columns'), one slot per chunk.
          std::uint32_t k = 0, a = 0;
#pragma unroll
          for (int jc = 0; jc < kChunk; ++jc) {
            k = max(k, column_key<In>(acc, jc));
            a = max(a, column_key<In>(kDrop ? acc_all : acc, jc));
          }
          chunk_keys[key_buffer * kKeySlots + my_sub * kChunksPerTile + cx] = make_uint2(k, a);
        }
      };
      if (drop_nan) reduce(std::true_type{});
      else reduce(std::false_type{});
    } else {
      // The block's key from the workspace. It holds keys only: for a recipe that drops NaN an
      // `all` word above every magnitude keeps the block on encode_bits (exact, slower).
      cast_columns([&](int jc) {
        const std::uint32_t k = col_ok ? keys[map.key_index(it.range_id, c0 + jc)] : 0u;
        return make_uint2(k, drop_nan ? 0xFFFFFFFFu : k);
      });
    }
    if constexpr (kMode == KeyMode::Store) {
      Lc += it.loads;
      continue;
    }

    // Blocks of several chunks (kAmaxCols > 1, other warps' columns): the chunk keys through shared
    // memory, then one CTA barrier, after which every thread takes its own block's key (the block's
    // chunk keys, the same words for the threads of a block: broadcast reads) and block_cast, and
    // one thread per block stores the scale. (One thread per block between two barriers, the others
    // waiting for its serial key and cast, measured lower.) The keys alternate between two buffers:
    // an item's writes come after the barrier of the item before, which every thread reaches only
    // after its reads of the buffer two items back.
    BlockCast own;  // kAmaxCols > 1: this thread's block
    if constexpr (kAmaxCols > 1) {
      __syncthreads();
      const int blk = cx * kChunk / kAmaxCols;
      const uint4* pairs = reinterpret_cast<const uint4*>(chunk_keys + key_buffer * kKeySlots +
                                                          my_sub * kChunksPerTile + blk * (kAmaxCols / kChunk));
      // Chunks past `cols` (and blocks past the range) hold key 0, which cannot change the maximum.
      std::uint32_t k = 0, a = 0;
#pragma unroll
      for (int c = 0; c < kAmaxCols / kChunk / 2; ++c) {
        const uint4 p = pairs[c];  // two chunks' (key, all)
        k = max(k, max(p.x, p.z));
        a = max(a, max(p.y, p.w));
      }
      own = block_cast<P>(r, bounds, k, a);
      const std::int64_t col = it.tile * kTileCols + std::int64_t(blk) * kAmaxCols;
      if (rl % kSubLanes == 0 && cx * kChunk % kAmaxCols == 0 && col < cols && rr.writes_scale && sub_exists(my_sub))
        store_scale(scales, scale_index_of(my_sub, col), scale_bytes, own.scale.stored);
      key_buffer ^= 1;
    }

    // Pass 2: cast, transpose, store (row-major codes: cast into the slots, then store row pieces).
    float enc[kChunk];
    bool fast;
    if constexpr (kAmaxCols > 1) {
#pragma unroll
      for (int jc = 0; jc < kChunk; ++jc) enc[jc] = own.scale.encode;
      fast = own.fast;
    } else {
#pragma unroll
      for (int jc = 0; jc < kChunk; ++jc) enc[jc] = sscale[slot0 + jc].encode;
      // The chunk's fast flags (bytes 0 / 1, eight in a row, 8-byte aligned).
      const uint2 f = *reinterpret_cast<const uint2*>(sfast + slot0);
      fast = (f.x & f.y) == 0x01010101u;
    }
    const auto enc_of = [&](int jc) { return enc[jc]; };
    const auto scale_of = [&](int jc) -> const BlockScale& {
      if constexpr (kAmaxCols > 1) return own.scale;
      else return sscale[slot0 + jc];
    };
    const int cast_L0 = Lc + (it.loads > it.pieces ? it.pieces : 0);
    // The row blocks of piece p (kRowBlock > 0), from the stage of load L: thread t takes chunk
    // t % kChunksPerTile of rows t / kChunksPerTile + k * kLanes (a warp covers whole row pieces of
    // the tile, and its stores write whole rows of codes), combines the key of its block over the
    // block's kRowBlock / 8 neighbouring lanes, and stores 8 codes per store; kAtOnce rows per
    // step, their reads, shuffles and casts side by side. Every thread runs the same steps
    // (piece_rows is a multiple of 8 * kLanes): the shuffles see the whole warp. One block per
    // lane instead (one block_cast per block, no shuffles, lanes 8 rows apart) measured 64% of copy
    // against 71% on an H100: its stores cover 8-byte pieces of eight rows per instruction.
    const auto row_block_pass = [&](int L, int p, auto drop) {
      constexpr bool kDrop = decltype(drop)::value;
      constexpr int kBlockLanes = kRowBlock > 0 ? kRowBlock / kChunk : 1;
      constexpr int kAtOnce = 2;  // H100, mx_quantize_2d: 1 / 2 / 4 rows a step 70.2 / 71.0 / 64.9% of copy
      static_assert(8 % kAtOnce == 0, "whole steps per piece");
      const RowBlockOut rb = row_blocks_of(map);
      const unsigned char* stage = stage_of(L);
      const std::int64_t prow0 = it.base + p * piece_rows;
      const int ch = tid % kChunksPerTile;
      const std::int64_t col = it.tile * kTileCols + std::int64_t(ch) * kChunk;
      const bool vec = reinterpret_cast<std::uintptr_t>(rb.q) % 8 == 0;
#pragma unroll 1
      for (int row0 = tid / kChunksPerTile; row0 < shape.piece_rows; row0 += kLanes * kAtOnce) {
        RawChunk<In> raw[kAtOnce];
        bool in[kAtOnce];
        std::uint32_t key[kAtOnce], all[kAtOnce];
#pragma unroll
        for (int a = 0; a < kAtOnce; ++a) {
          const int row = row0 + a * kLanes;
          const std::int64_t abs_row = prow0 + row;
          in[a] = abs_row >= rr.r0 && abs_row < rr.r1 && col < cols;
          raw[a] = in[a] ? stage_chunk(stage + std::uint32_t(row) * kRowBytes, ch, swizzle(row)) : RawChunk<In>::zero();
        }
#pragma unroll
        for (int a = 0; a < kAtOnce; ++a) {
          key[a] = group_max<kBlockLanes>(key_bits<In>(chunk_key<In, kDrop>(0u, raw[a])));
          all[a] = kDrop ? group_max<kBlockLanes>(key_bits<In>(chunk_key<In, false>(0u, raw[a]))) : key[a];
        }
#pragma unroll
        for (int a = 0; a < kAtOnce; ++a) {
          if (!in[a]) continue;
          const std::int64_t abs_row = prow0 + row0 + a * kLanes;
          const BlockCast bc = block_cast<P>(r, bounds, key[a], all[a]);
          if (ch % kBlockLanes == 0)
            store_scale(rb.scales, abs_row * rb.scale_stride + col / kRowBlockDiv, scale_bytes, bc.scale.stored);
          const auto enc_of = [&](int) { return bc.scale.encode; };
          const auto scale_of = [&](int) -> const BlockScale& { return bc.scale; };
          const uint2 codes = quantize_chunk<P>(r, bounds, bc.fast, enc_of, scale_of, raw[a].unpack());
          std::uint8_t* dst = rb.q + abs_row * cols + col;
          if (vec) {
            *reinterpret_cast<uint2*>(dst) = codes;
          } else {
#pragma unroll
            for (int j = 0; j < kChunk; ++j) dst[j] = code_byte(codes, j);
          }
        }
      }
    };
    for (int p = 0; p < it.pieces; ++p) {
      const int L = cast_L0 + p;
      if (it.loads > it.pieces || kMode == KeyMode::Load) consume(L);
      for_each_block(L, p, [&](std::int64_t row_b, const unsigned char* block, bool full_rows) {
        uint2 codes[8];
        // kWhole: all eight rows without a test per row (elsewhere the rows outside the range stay
        // 0). kFast: the fast cast of every column, its instructions apart from the generic path's.
        const auto cast_rows = [&](auto fast_path, auto whole) {
          constexpr bool kFast = decltype(fast_path)::value, kWhole = decltype(whole)::value;
          const int2 in = kWhole ? make_int2(0, 8) : rows_in(row_b);
#pragma unroll
          for (int i = 0; i < 8; ++i)
            codes[i] = kWhole || (i >= in.x && i < in.y)
                           ? quantize_chunk<P>(r, bounds, kFast, enc_of, scale_of, slot_chunk(block, i).unpack())
                           : make_uint2(0u, 0u);
        };
        if (P == CastPath::Generic || !fast) cast_rows(std::false_type{}, std::false_type{});
        else if (full_rows) cast_rows(std::true_type{}, std::true_type{});
        else cast_rows(std::true_type{}, std::false_type{});
        if constexpr (kRowMajor) {
          // Over this thread's own slots (the first 8 bytes of its chunk's first vector per row).
#pragma unroll
          for (int i = 0; i < 8; ++i)
            *reinterpret_cast<uint2*>(const_cast<unsigned char*>(block) + std::uint32_t(i) * kRowBytes +
                                      std::uint32_t((cx * kVecs) ^ my_swz) * 16u) = codes[i];
        } else {
          store_block(row_b, codes);
        }
      });
      if constexpr (kRowBlock > 0) {
        if (drop_nan) row_block_pass(L, p, std::true_type{});
        else row_block_pass(L, p, std::false_type{});
      }
      if constexpr (kRowMajor) {
        // Every thread's codes of the piece are in its stage: 8 codes per lane, lanes along rows
        // (a warp instruction writes whole rows of the tile's codes).
        __syncthreads();
        constexpr int kCodeVecs = kTileCols / kChunk, kCodeRowStep = kStreamThreads / kCodeVecs;
        const int w = tid % kCodeVecs;
        const std::int64_t col = it.tile * kTileCols + std::int64_t(w) * kChunk;
        const std::int64_t prow0 = it.base + p * piece_rows;
        const unsigned char* stage = stage_of(L);
        // The codes of a row lie code_row_stride() after the row before's (one out_offset per piece).
        const int2 span = piece_span(rr, prow0);
        const int first = first_row(tid / kCodeVecs, span.x, kCodeRowStep);
        if (col < cols && first < span.y) {
          std::uint8_t* dst = q + map.out_offset(prow0 + first, col);
          const std::int64_t step = std::int64_t(kCodeRowStep) * map.code_row_stride();
          const bool vec = out_vec && reinterpret_cast<std::uintptr_t>(dst) % 8 == 0 && step % 8 == 0;
          for (int row = first; row < span.y; row += kCodeRowStep, dst += step) {
            const uint2 v = *reinterpret_cast<const uint2*>(stage + std::uint32_t(row) * kRowBytes +
                                                            std::uint32_t((w * kVecs) ^ swizzle(row)) * 16u);
            if (vec) {
              *reinterpret_cast<uint2*>(dst) = v;
            } else {
#pragma unroll
              for (int j = 0; j < kChunk; ++j) dst[j] = code_byte(v, j);
            }
          }
        }
      }
      release();
    }
    // The next item rewrites sscale and sfast after this warp's __syncwarp (one-column blocks);
    // wider blocks' keys alternate between two buffers (above).
    Lc += it.loads;
  }
  cp_async_wait(0);  // no copy may outlive the CTA
}

// ---------------------------------------------------------------------------------------------
// Host side.

// kStreamStages: the map's count of stages (kStreamStageBytes each) per CTA, 2 by default (room for three CTAs per
// SM in shared memory; the registers allow two: the instances take 110-128 per thread, cuobjdump
// 2026-11-27, and capped at 80 by a minimum of three CTAs they spill: 1x128 rhs 72% of copy against
// 88%, MX dim1 67% against 86%). The per-group colwise maps take 3: their groups of up to `stages`
// pieces are read once. H100, % of copy, two runs each, 3 against 2 stages (2026-11-26): 1x128 rhs 81.6-82.7 /
// 87.8-88.3, transposed lhs 81.6-82.6 / 87.4-88.3, MX dim1 82.6-83.2 / 85.1-85.9, MX 3D 32x32
// 87.1-87.8 / 91.5-91.8, k-grouped 77-81 / 80-84, token-grouped rhs at 16 and 64 groups 78 and
// 73-74 / 82 and 82-83; per-group colwise at 1 / 16 / 64 / 128 groups 52.5-52.8 / 56.3-56.5 /
// 66.6-67.8 / 56.4-56.9 against 52.6-52.7 / 54.7-54.9 / 61.5-62.0 / 52.3-52.6.
template <class Map, class = void>
struct StreamStages : std::integral_constant<int, 2> {};
template <class Map>
struct StreamStages<Map, std::void_t<decltype(Map::kStreamStages)>> : std::integral_constant<int, Map::kStreamStages> {};

// kStreamStageBytes: the map's stage size, StreamTuning's 32 KB by default. A stage holds whole
// rounds of one 8-row block per thread (32 KB of bf16: 256 threads x 8 rows x 8 columns x 2 bytes),
// so the size is taken down to a multiple of 32 KB (bf16; 64 KB of fp32), at least one round and at
// most kColumnMaxUnits.
template <class Map, class = void>
struct StreamStageBytes : std::integral_constant<std::uint32_t, StreamTuning{}.stage_target> {};
template <class Map>
struct StreamStageBytes<Map, std::void_t<decltype(Map::kStreamStageBytes)>>
    : std::integral_constant<std::uint32_t, Map::kStreamStageBytes> {};

// The map's stage bytes and `stages`; OCTET_CUDA_COLUMN_STAGE_BYTES and OCTET_CUDA_COLUMN_STAGES
// override them, for tuning sweeps (the bytes of every result unchanged).
inline StreamTuning column_tuning(int stages, std::uint32_t stage_bytes) {
  static const StreamTuning env = read_stream_tuning("OCTET_CUDA_COLUMN_STAGE_BYTES", "OCTET_CUDA_COLUMN_STAGES");
  static const bool stages_set = std::getenv("OCTET_CUDA_COLUMN_STAGES") != nullptr;
  static const bool bytes_set = std::getenv("OCTET_CUDA_COLUMN_STAGE_BYTES") != nullptr;
  StreamTuning t = env;
  if (!stages_set) t.stages = stages;
  if (!bytes_set) t.stage_target = stage_bytes;
  return t;
}

// Launches column_stream_kernel over `ranges` row ranges of a row-major (rows, cols) input, with
// kTileCols columns per item; returns false (nothing launched) where it does not apply: before
// sm_90, cols % 8 != 0, an input that is not 16-byte aligned, more than 2^31 - 1 items, or stages
// beyond the shared memory. Cores as launch_row_blocks.
// kMode Store / Load: blocks split over several ranges (keys[map.key_index(range, col)], a zeroed
// workspace), the key launch and the cast launch (KeyMode, sm90_quant_common.cuh).
template <int kTileCols, int kAmaxCols, KeyMode kMode, class... Cores, class Map>
bool launch_column_stream_mode(SourceType src, const void* x, std::int64_t cols, std::uint8_t* q, void* scales,
                               bool scale_bytes, bool out_vec, const Recipe& r, const Map& map, std::int64_t ranges,
                               cudaStream_t stream, std::uint32_t* keys) {
  const Device d = device();
  const std::int64_t in_bytes = src == SourceType::fp32 ? 4 : 2;
  if (d.cc < 90 || cols % kChunk != 0 || !aligned(x, 16)) return false;
  ColumnStreamShape shape;
  shape.col_tiles = (cols + kTileCols - 1) / kTileCols;
  shape.items = ranges * shape.col_tiles;
  if constexpr (TileGroups<Map>::value) {
    if (map.tile_group_log2 > 0 && kMode == KeyMode::Own) {
      // Whole tile groups (the padding items have no columns).
      shape.tile_group_log2 = map.tile_group_log2;
      const std::int64_t group_tiles = std::int64_t(1) << map.tile_group_log2;
      shape.items = ranges * ((shape.col_tiles + group_tiles - 1) / group_tiles * group_tiles);
      shape.range_div = FastDiv(std::uint32_t(ranges));
    }
  }
  if (shape.items == 0) return true;
  if (shape.items > std::numeric_limits<std::int32_t>::max()) return false;  // 32-bit item arithmetic
  constexpr int kLanes = kStreamThreads * kChunk / kTileCols;
  const StreamTuning tuning = column_tuning(StreamStages<Map>::value, StreamStageBytes<Map>::value);
  // A piece: `units` 8-row blocks per thread, one 16-byte copy per 8 bf16 (two per 8 fp32).
  const std::uint32_t round_bytes = std::uint32_t(kStreamThreads) * 8u * std::uint32_t(kChunk * in_bytes);
  // Merged ranges are one piece of one 8-row block per thread (units = 1).
  shape.units = SubBlockRows<Map>::value > 0
                    ? 1
                    : int(std::clamp<std::uint32_t>(tuning.stage_target / round_bytes, 1, kColumnMaxUnits));
  shape.piece_rows = shape.units * 8 * kLanes;
  shape.stage_bytes = std::uint32_t(shape.units) * round_bytes;
  shape.stages = tuning.stages;
  shape.order_div = FastDiv(std::uint32_t(TileMajor<Map>::value ? ranges : shape.col_tiles));
  shape.pieces_div = FastDiv(std::uint32_t(shape.piece_rows));
  shape.stages_div = FastDiv(std::uint32_t(shape.stages));
  const ColumnStreamLayout lay(shape.stages, shape.stage_bytes, kColumnScaleSlots<Map, kTileCols>,
                               MapSharedBytes<Map>::value);
  if (lay.total > kStreamMaxSharedBytes) return false;
  const RecipeCore core = make_core(r);
  const CastBounds bounds = cast_bounds(r);
  with_source(src, [&](auto in) {
    using In = decltype(in);
    with_core<Cores...>(core, cast_path(r, d), [&](auto p, const auto& rc) {
      using R = std::decay_t<decltype(rc)>;
      constexpr auto kernel = &column_stream_kernel<In, decltype(p)::value, R, kTileCols, kAmaxCols, kMode, Map>;
      const int per_sm = stream_ctas_per_sm<kernel>(lay.total);
      const unsigned grid = grid_for(per_sm, shape.items, d);
      if constexpr (ProgrammaticLaunch<Map>::value) {
        launch_pdl(kernel, grid, kStreamThreads, lay.total, stream, static_cast<const In*>(x), cols, q, scales,
                   scale_bytes, rc, bounds, map, shape, out_vec, keys);
      } else {
        kernel<<<grid, kStreamThreads, lay.total, stream>>>(static_cast<const In*>(x), cols, q, scales, scale_bytes, rc,
                                                            bounds, map, shape, out_vec, keys);
        OCTET_CUDA_CHECK(cudaGetLastError());
      }
    });
  });
  return true;
}

template <int kTileCols, int kAmaxCols, class... Cores, class Map>
bool launch_column_stream(SourceType src, const void* x, std::int64_t cols, std::uint8_t* q, void* scales,
                          bool scale_bytes, bool out_vec, const Recipe& r, const Map& map, std::int64_t ranges,
                          cudaStream_t stream) {
  return launch_column_stream_mode<kTileCols, kAmaxCols, KeyMode::Own, Cores...>(
      src, x, cols, q, scales, scale_bytes, out_vec, r, map, ranges, stream, nullptr);
}

// column_stream_kernel with kTileCols columns per item where it applies, else column_tiles_kernel
// with kTilesCols / kCacheWords (sm90_quant_common.cuh) over the same map.
template <int kTileCols, int kAmaxCols, int kTilesCols, int kCacheWords, class... Cores, class Map>
void launch_column_blocks(SourceType src, const void* x, std::int64_t cols, std::uint8_t* q, void* scales,
                          bool scale_bytes, bool out_vec, const Recipe& r, const Map& map, std::int64_t ranges,
                          cudaStream_t stream) {
  static_assert(MapSharedBytes<Map>::value == 0, "a map with shared state runs on column_stream_kernel only");
  if (launch_column_stream<kTileCols, kAmaxCols, Cores...>(src, x, cols, q, scales, scale_bytes, out_vec, r, map,
                                                           ranges, stream))
    return;
  launch_column_tiles<kTilesCols, kAmaxCols, kCacheWords>(src, x, cols, q, scales, scale_bytes, out_vec, r, map, ranges,
                                                          stream);
}

// launch_column_blocks over `ranges` ranges of kRows rows each (contiguous, starting at multiples of
// 8), merged into items of one 8-row block per row lane (kColumnPieceRows rows) where the stream
// kernel applies; else column_tiles_kernel over the ranges as they are.
template <int kTileCols, int kAmaxCols, int kRows, int kTilesCols, int kCacheWords, class... Cores, class Map>
void launch_column_blocks_merged(SourceType src, const void* x, std::int64_t cols, std::uint8_t* q, void* scales,
                                 bool scale_bytes, bool out_vec, const Recipe& r, const Map& map, std::int64_t ranges,
                                 cudaStream_t stream) {
  constexpr int kSubs = kColumnPieceRows<kTileCols> / kRows;
  static_assert(kSubs >= 1 && kColumnPieceRows<kTileCols> % kRows == 0, "whole blocks per merged range");
  static_assert(MapSharedBytes<Map>::value == 0, "a map with shared state runs on column_stream_kernel only");
  const MergedRanges<Map, kRows, kSubs> merged{map, ranges};
  if (launch_column_stream<kTileCols, kAmaxCols, Cores...>(src, x, cols, q, scales, scale_bytes, out_vec, r, merged,
                                                           (ranges + kSubs - 1) / kSubs, stream))
    return;
  launch_column_tiles<kTilesCols, kAmaxCols, kCacheWords>(src, x, cols, q, scales, scale_bytes, out_vec, r, map, ranges,
                                                          stream);
}

}  // namespace octet::cuda::quant
