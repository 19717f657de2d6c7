// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// sm90_e8m0_scale_swizzle.cu — the blocked ("swizzled") MX scale layouts on the GPU.
// Reference: octet::to_blocked / from_blocked / to_blocked_{m_groups,k_groups,per_group_3d}
//            (emulator/src/kernels/mx_swizzle.cpp), reference/kernels.md §5.
// Peer:      torchao mx_formats/utils.py::to_blocked with its Triton `_dest_indices_for_block`,
//            moe_training/kernels/mxfp8/quant.py::triton_mx_block_rearrange_{2d_M_groups,
//            2d_K_groups,per_group_3d}; cuBLAS "1D block scaling factors layout".
//
// One 128x4 tile of the padded scale matrix is 512 contiguous output bytes; inside it, row r and
// column c sit at (r%32)·16 + (r/32)·4 + c. So the 16 output bytes at tile offset rr·16 are the
// 4-byte column runs of rows rr, rr+32, rr+64, rr+96: every thread writes one such 16-byte chunk
// (one 16-byte store) from four 4-byte loads. A warp covers one tile; a block of 256 threads
// covers 8 neighbouring tiles, which read the same 32-byte sector of each of their 128 rows, so
// every input sector comes from DRAM once (the other warps hit L1/L2). The variants differ only
// in which source tile feeds output tile t (a TileSource functor); a chunk past every group is 0.
//
// Every form runs through a shared-memory window instead where the output is 16-byte aligned (see
// window_to_tiles): 16-byte loads and stores on both sides, which the per-chunk form's 4-byte
// loads of 32 rows per warp instruction cannot reach (L1 serves one line per cycle). The plain and
// 3D forms (and from_blocked) read 128 rows x 32 columns per block. The grouped forms with more
// than one group own input windows, not output windows (to_blocked_m_groups_input_kernel,
// to_blocked_k_groups_input_kernel): a block loads its rows at once and scans the groups while
// they fly, then writes them wherever the groups put them. Us at 1 / 16 / 64 / 128 groups (H100,
// 2026-11-26): M-groups 7.3 / 7.9 / 8.8 / 9.8 per chunk, 6.8 / 7.3-7.5 / 8.4-8.5 / 9.2-9.3 by
// output windows; K-groups (5120 x 520) 8.5 / 10.2 / 10.9 / 13.9 per chunk, 8.3 / 9.1-9.2 /
// 10.8-10.9 / 12.3 by output windows. By input windows (H200, 2026-12-02, against output windows
// in the same call): M-groups 7.4-7.5 / 7.8-7.9 / 8.3-8.4 against 7.2-7.3 / 8.3 / 9.2-9.3,
// K-groups 8.3 / 9.2-9.4 / 10.9-11.0 against 9.0-9.2 / 10.9-11.0 / 12.4-12.5. The per-chunk
// kernel stays for outputs that are not 16-byte aligned, for more than 1024 groups and for
// buffers of 2^30 bytes or more. With one group neither grouped form needs the scan: M-groups
// 5.6-5.8 us and K-groups (through the plain form's 32-column windows) 6.3-6.5 us (H100,
// 2026-11-28; to_blocked 5.8 us for the bytes of M-groups).
//
// Launch: windows, or ⌈bytes/16⌉ threads, 256 per block, one chunk each. The grouped forms scan
// their group sizes inside the same launch (every block into shared memory; block 0 also writes
// the starts out), so they cost one launch like the plain form. Bytes moved: rows·cols read, the
// blocked size written (from_blocked: the reverse).
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "octet/kernels/mx_swizzle.hpp"
#include "sm90_e8m0_scale_swizzle.hpp"
#include "sm90_layout_device.hpp"

namespace octet::cuda {
namespace {

using layout_detail::blocks_for;
using layout_detail::check_launch;
using layout_detail::first_above;
using layout_detail::group_begin;
using layout_detail::kThreads;

constexpr std::int64_t kChunkBytes = 16;

// ----------------------------------------------------------------------------
// Source tiles

// The 128x4 source region of an output tile: rows [row0, row0 + 128) ∩ [., row_end), columns
// [col0, col0 + 4) ∩ [., col_end); base == nullptr: an all-zero tile.
struct TileSource {
  const std::uint8_t* base = nullptr;
  std::int64_t row_stride = 0;
  std::int64_t row0 = 0, row_end = 0, col0 = 0, col_end = 0;
};

// Plain (and per expert of the 3D form): tile t = rb·ncb + cb of a (rows, cols) matrix.
struct PlainTiles {
  const std::uint8_t* base;
  std::int64_t rows, cols, row_stride, ncb;
  std::int64_t tiles_per_matrix, matrix_stride;  // 3D: experts back to back
  __device__ TileSource operator()(std::int64_t t) const {
    const std::int64_t e = t / tiles_per_matrix, lt = t % tiles_per_matrix;
    const std::int64_t rb = lt / ncb, cb = lt % ncb;
    return {base + e * matrix_stride, row_stride, rb * kScaleTileRows, rows, cb * kScaleTileCols, cols};
  }
};

// The grouped tile maps read their padded group starts through `starts`: the global array of a
// separate scan launch, or the block's shared copy when the kernel scans the groups itself.

// M-groups: output row block ob = t / ncb belongs to the group g with R_g <= 128·ob < R_{g+1}.
struct MGroupTiles {
  const std::uint8_t* base;
  std::int64_t cols, row_stride, ncb;
  const std::int64_t* offs;    // (G,)
  const std::int64_t* starts;  // (G + 1,) R_g, global or shared
  std::int64_t groups;
  __device__ TileSource operator()(std::int64_t t) const {
    const std::int64_t out_row = (t / ncb) * kScaleTileRows, cb = t % ncb;
    if (out_row >= starts[groups]) return {};
    const std::int64_t g = first_above(starts + 1, groups, out_row);
    const std::int64_t first = group_begin(offs, g) + (out_row - starts[g]);
    return {base, row_stride, first, __ldg(offs + g), cb * kScaleTileCols, cols};
  }
};

// K-groups: group g's region holds nrb·ncb_g tiles from tile C_g/4·nrb on, (rb, cb) at rb·ncb_g + cb.
struct KGroupTiles {
  const std::uint8_t* base;
  std::int64_t rows, row_stride, nrb;
  const std::int64_t* offs;    // (G,) over scale columns
  const std::int64_t* starts;  // (G + 1,) C_g, global or shared
  std::int64_t groups;
  __device__ TileSource operator()(std::int64_t t) const {
    const std::int64_t tile_col = t / nrb;  // t < C/4·nrb  <=>  t / nrb < C/4
    if (tile_col * kScaleTileCols >= starts[groups]) return {};
    const std::int64_t g = first_above(starts + 1, groups, tile_col * kScaleTileCols);
    const std::int64_t c_g = starts[g], ncb_g = (starts[g + 1] - c_g) / kScaleTileCols;
    const std::int64_t lt = t - c_g / kScaleTileCols * nrb;
    const std::int64_t rb = lt / ncb_g, cb = lt % ncb_g;
    return {base, row_stride, rb * kScaleTileRows, rows, group_begin(offs, g) + cb * kScaleTileCols, __ldg(offs + g)};
  }
};

// ----------------------------------------------------------------------------
// GPU kernels

// The 4 scales of row r in the tile's columns, little-endian in one word; 0 past the edges.
__device__ inline std::uint32_t load_run(const TileSource& s, std::int64_t r) {
  if (s.base == nullptr || r >= s.row_end) return 0;
  const std::uint8_t* p = s.base + r * s.row_stride + s.col0;
  if (s.col0 + 4 <= s.col_end && (reinterpret_cast<std::uintptr_t>(p) & 3u) == 0)
    return __ldg(reinterpret_cast<const std::uint32_t*>(p));
  std::uint32_t w = 0;
  for (int c = 0; c < 4; ++c)
    if (s.col0 + c < s.col_end) w |= std::uint32_t(__ldg(p + c)) << (8 * c);
  return w;
}

// The 16-byte chunk v at out + at: one 16-byte store where it lies whole below `limit` on a
// 16-byte boundary, else its bytes below `limit` one by one (an output that is not 16-byte
// aligned, or the end of an M-group buffer whose size is not a multiple of 16). kAligned: out +
// at is known to be 16-byte aligned (the window kernels), no test.
template <bool kAligned, class I>
__device__ inline void store_chunk(std::uint8_t* out, I at, I limit, uint4 v) {
  if (at + kChunkBytes <= limit && (kAligned || (reinterpret_cast<std::uintptr_t>(out + at) & 15u) == 0)) {
    *reinterpret_cast<uint4*>(out + at) = v;
    return;
  }
  const std::uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int b = 0; b < 16; ++b)  // unrolled: w stays in registers
    if (at + b < limit) out[at + b] = std::uint8_t(w[b / 4] >> (8 * (b % 4)));
}

// The 16-byte output chunk of this thread.
template <class Tiles>
__device__ void blocked_chunk(const Tiles& tiles, std::int64_t out_bytes, std::uint8_t* out) {
  const std::int64_t flat = (std::int64_t(blockIdx.x) * kThreads + threadIdx.x) * kChunkBytes;
  if (flat >= out_bytes) return;
  const TileSource src = tiles(flat / kScaleTileBytes);
  const std::int64_t rr = (flat % kScaleTileBytes) / kChunkBytes;
  std::uint32_t w[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) w[j] = load_run(src, src.row0 + rr + 32 * j);
  store_chunk<false>(out, flat, out_bytes, make_uint4(w[0], w[1], w[2], w[3]));
}

template <class Tiles>
__global__ void __launch_bounds__(kThreads) to_blocked_kernel(Tiles tiles, std::int64_t out_bytes, std::uint8_t* out) {
  blocked_chunk(tiles, out_bytes, out);
}

// Grouped forms in one launch: every block first scans the G group sizes into shared memory (the
// scan is a few hundred bytes of L2 reads, cheaper than a second launch on a kernel of a few us),
// block 0 also stores the starts for the caller, then each thread writes its chunk.
// At most this many groups: G + 1 starts in shared memory, 8 KB as int64 (here), 4 KB as int32 (the
// input-window kernels, which also keep the G ends: 8 KB in all).
constexpr std::int64_t kFusedScanGroups = 1024;

// The grouped kernels' prologue: the padded starts of the G groups into `starts` (shared memory,
// kFusedScanGroups + 1 entries), and from block 0 into group_starts for the caller. Every thread
// of the block calls it; the starts are visible to all of them after it.
__device__ inline void scan_group_starts(const std::int64_t* offs, std::int64_t groups, std::int64_t alignment,
                                         std::int64_t* starts, std::int64_t* group_starts) {
  layout_detail::padded_scan_offs(offs, groups, alignment, starts);
  __syncthreads();
  if (blockIdx.x == 0)
    for (std::int64_t g = threadIdx.x; g <= groups; g += kThreads) group_starts[g] = starts[g];
}

// The same prologue in two steps, for the input-window kernels, which issue their input loads
// first and index in 32 bits: stage_group_ends copies offs into `ends` (shared memory,
// kFusedScanGroups entries; every thread calls it), and scan_staged_starts, after a barrier, scans
// them into `starts` as above. Its barriers also publish whatever else each thread wrote to shared
// memory before it.
__device__ inline void stage_group_ends(const std::int64_t* offs, int groups, int* ends) {
  for (int g = threadIdx.x; g < groups; g += kThreads) ends[g] = int(__ldg(offs + g));
}

__device__ inline void scan_staged_starts(const int* ends, int groups, int alignment, int* starts,
                                          std::int64_t* group_starts) {
  __syncthreads();
  layout_detail::padded_scan([ends](int g) { return ends[g] - (g == 0 ? 0 : ends[g - 1]); }, groups, alignment,
                             starts);
  if (blockIdx.x == 0)
    for (int g = threadIdx.x; g <= groups; g += kThreads) group_starts[g] = starts[g];
}

template <class Tiles>
__global__ void __launch_bounds__(kThreads) to_blocked_grouped_kernel(Tiles tiles, std::int64_t alignment,
                                                                      std::int64_t out_bytes, std::uint8_t* out,
                                                                      std::int64_t* group_starts) {
  __shared__ std::int64_t starts[kFusedScanGroups + 1];
  scan_group_starts(tiles.offs, tiles.groups, alignment, starts, group_starts);
  tiles.starts = starts;
  blocked_chunk(tiles, out_bytes, out);
}

// ----------------------------------------------------------------------------
// GPU kernels: the plain forms through a shared-memory window
//
// A block of 256 threads owns a window of 8 neighbouring tiles: rows [128·rb, +128) x scale
// columns [4·cb0, +32) of one matrix. Each row's 32 bytes of the window are two 16-byte global
// accesses (thread tid: row tid/2, half tid%2), so a warp instruction touches 16 rows, where the
// per-chunk kernel above touches 32 rows with 4-byte loads and runs into L1's one-line-per-cycle
// limit (a 4-byte load per line: ~1 TB/s of reads at best). The window sits in shared memory as
// 128 rows of kWindowWords words (the ninth word pads rows apart: lane rr of a tile reads word
// rr·9 + t, 32 distinct banks); warp t then writes tile cb0 + t, lane rr its 16-byte chunk
// (rows rr, rr+32, rr+64, rr+96). from_blocked runs the same window backwards.
constexpr int kWindowTiles = kThreads / 32;  // one warp per tile
constexpr int kWindowCols = kWindowTiles * int(kScaleTileCols);  // 32 scale columns
constexpr int kWindowWords = kWindowCols / 4 + 1;

// Window of this block: matrix e, row block rb, first column block cb0. Block indices run
// column windows fastest, then row blocks, then matrices (32-bit arithmetic: the launcher
// keeps the block count below 2^31).
struct Window {
  std::int64_t e, rb, cb0;
};
__device__ inline Window window_of(std::int64_t ncb, std::int64_t nrb) {
  const unsigned windows = unsigned((ncb + kWindowTiles - 1) / kWindowTiles), b = blockIdx.x;
  const unsigned rest = b / windows;
  return {std::int64_t(rest / unsigned(nrb)), std::int64_t(rest % unsigned(nrb)),
          std::int64_t(b % windows) * kWindowTiles};
}

// 16 scales of one row from `col` on (bytes past `cols` are 0), little-endian in 4 words.
// Rows whose start is only 8-byte aligned (an odd row of 520 scale columns, the K-groups shape)
// take two 8-byte loads.
template <class I>
__device__ inline void load_row16(const std::uint8_t* row, I col, I cols, std::uint32_t w[4]) {
  const std::uint8_t* p = row + col;
  if (col + 16 <= cols && (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0) {
    const uint4 v = __ldg(reinterpret_cast<const uint4*>(p));
    w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w;
    return;
  }
  if (col + 16 <= cols && (reinterpret_cast<std::uintptr_t>(p) & 7u) == 0) {
    const uint2 lo = __ldg(reinterpret_cast<const uint2*>(p)), hi = __ldg(reinterpret_cast<const uint2*>(p + 8));
    w[0] = lo.x, w[1] = lo.y, w[2] = hi.x, w[3] = hi.y;
    return;
  }
#pragma unroll
  for (int b = 0; b < 16; ++b)
    if (col + b < cols) w[b / 4] |= std::uint32_t(__ldg(p + b)) << (8 * (b % 4));
}

// One window: rows [0, 128) of `src` (rows >= valid_rows read as 0) and scale columns [4·cb0,
// 4·cb0 + 32) to tiles cb0 .. cb0 + 7 of one row of ncb output tiles at `out_row` (16-byte
// aligned; bytes at or past out_len are not written), in two phases: window_load, this thread's
// 16 bytes of the window (row tid/2, half tid%2) into registers, and window_store, which stages
// them and writes the tiles. Every thread of the block calls both.
template <class I>
__device__ inline void window_load(const std::uint8_t* src, I valid_rows, I row_stride, I cols, I cb0,
                                   std::uint32_t w[4]) {
  const int r = int(threadIdx.x) / 2, h = int(threadIdx.x) % 2;
  w[0] = w[1] = w[2] = w[3] = 0;
  if (r < valid_rows) load_row16(src + r * row_stride, I(cb0 * kScaleTileCols + 16 * h), cols, w);
}

__device__ inline void window_stage(const std::uint32_t w[4], std::uint32_t* stage) {
  const int r = int(threadIdx.x) / 2, h = int(threadIdx.x) % 2;
#pragma unroll
  for (int i = 0; i < 4; ++i) stage[r * kWindowWords + 4 * h + i] = w[i];
  __syncthreads();
}

// Lane rr's 16-byte chunk of the window's tile t: rows rr, rr + 32, rr + 64, rr + 96.
__device__ inline uint4 window_chunk(const std::uint32_t* stage, int t, int rr) {
  return make_uint4(stage[rr * kWindowWords + t], stage[(rr + 32) * kWindowWords + t],
                    stage[(rr + 64) * kWindowWords + t], stage[(rr + 96) * kWindowWords + t]);
}

__device__ inline void window_store(const std::uint32_t w[4], std::int64_t cb0, std::int64_t ncb,
                                    std::uint8_t* out_row, std::int64_t out_len, std::uint32_t* stage) {
  window_stage(w, stage);
  const int t = int(threadIdx.x) / 32, rr = int(threadIdx.x) % 32;
  const std::int64_t cb = cb0 + t;
  if (cb >= ncb) return;
  store_chunk<true>(out_row, cb * kScaleTileBytes + rr * kChunkBytes, out_len, window_chunk(stage, t, rr));
}

__device__ inline void window_to_tiles(const std::uint8_t* src, std::int64_t valid_rows, std::int64_t row_stride,
                                       std::int64_t cols, std::int64_t cb0, std::int64_t ncb, std::uint8_t* out_row,
                                       std::int64_t out_len, std::uint32_t* stage) {
  std::uint32_t w[4];
  window_load(src, valid_rows, row_stride, cols, cb0, w);
  window_store(w, cb0, ncb, out_row, out_len, stage);
}

// s: `experts` matrices (rows, cols), matrix_stride bytes apart; out: experts x (hp·wp) bytes,
// 16-byte aligned.
__global__ void __launch_bounds__(kThreads)
    to_blocked_window_kernel(const std::uint8_t* __restrict__ s, std::int64_t rows, std::int64_t cols,
                             std::int64_t row_stride, std::int64_t matrix_stride, std::int64_t ncb, std::int64_t nrb,
                             std::uint8_t* __restrict__ out) {
  __shared__ std::uint32_t stage[kScaleTileRows * kWindowWords];
  const Window win = window_of(ncb, nrb);
  const std::int64_t row0 = win.rb * kScaleTileRows;
  window_to_tiles(s + win.e * matrix_stride + row0 * row_stride, rows - row0, row_stride, cols, win.cb0, ncb,
                  out + (win.e * nrb + win.rb) * ncb * kScaleTileBytes, ncb * kScaleTileBytes, stage);
}

// M-groups with one group: the group starts at row 0 of both the input and the output, so block
// (ob, cw) of to_blocked's windows loads its rows (those below `rows`) together with offs[0] and
// zeroes the rows at or past offs[0] afterwards, with no scan; output row blocks past the rows are
// zeros (the buffer holds rows + 128 rows).
__global__ void __launch_bounds__(kThreads)
    to_blocked_m_one_group_window_kernel(const std::uint8_t* __restrict__ s, std::int64_t rows, std::int64_t cols,
                                         std::int64_t row_stride, std::int64_t ncb, unsigned windows,
                                         const std::int64_t* __restrict__ offs, std::int64_t out_bytes,
                                         std::uint8_t* __restrict__ out, std::int64_t* __restrict__ group_starts) {
  __shared__ std::uint32_t stage[kScaleTileRows * kWindowWords];
  const std::int64_t ob = blockIdx.x / windows, cb0 = std::int64_t(blockIdx.x % windows) * kWindowTiles;
  const std::int64_t out_row = ob * kScaleTileRows, row_bytes = ncb * kScaleTileBytes;
  const std::int64_t end = __ldg(offs);  // in flight with the window's loads
  std::uint32_t w[4];
  window_load(s + out_row * row_stride, rows - out_row, row_stride, cols, cb0, w);
  if (blockIdx.x == 0 && threadIdx.x < 2) group_starts[threadIdx.x] = threadIdx.x == 0 ? 0 : blocked_rows(end);
  if (ncb == 0) return;
  if (out_row + int(threadIdx.x) / 2 >= end) w[0] = w[1] = w[2] = w[3] = 0;
  window_store(w, cb0, ncb, out + ob * row_bytes, out_bytes - ob * row_bytes, stage);
}

// M-groups by input windows. A block that owns an output window must know its group before it
// can load: the scan, the group search and another offs load stood before the input loads of
// every block (7.2-7.4 / 8.2-8.4 / 9.1-9.3 us at 16 / 64 / 128 groups against 5.6-5.8 with one
// group, H100, 2026-11-28). Here block (wb, cw) loads input rows [128·wb, +128) x scale columns
// [4·cb0, +32) at once, scans while they fly, and then writes each row at its output row: input
// rows [a, b) of group g (the window's share of it, one segment) go to output rows [d, d + b − a),
// d = R_g + a − offs[g-1]; the segment that holds a group's last row also writes the group's
// padding rows up to R_{g+1} (zeros). In each 128-row output tile a segment touches, lane p of
// warp t (tile column cb0 + t) writes the quarters q of its 16-byte chunk whose rows p + 32q lie in
// the segment: one 16-byte store where all four do, else one 4-byte store per quarter. A chunk at
// a segment's edge is shared with the neighbouring segment (of this block or the next), which
// writes its other bytes. The zero row blocks from R_G to the end of the buffer (rows + 128·G
// rows) are shared out over the blocks of the same column window, so the grid is ⌈rows / 128⌉ x
// ⌈ncb / 8⌉ blocks whatever the group count.
//
// Both input-window kernels index in 32 bits (the launcher takes them only for buffers below
// kInputKernelBytes): these kernels are bound by issued instructions, not by DRAM, and 64-bit
// indices doubled their count (ncu, H200, 2026-12-02).
constexpr std::int64_t kInputKernelBytes = std::int64_t(1) << 30;
// Six blocks of either kernel per SM (40 registers a thread): the ⌈rows / 128⌉ x 5 blocks of the
// M-groups shape (650) and the ⌈cols / 32⌉ x nrb of the K-groups shape (680) are one wave on 132 SMs.
constexpr int kInputBlocksPerSm = 6;

__global__ void __launch_bounds__(kThreads, kInputBlocksPerSm)
    to_blocked_m_groups_input_kernel(const std::uint8_t* __restrict__ s, int rows, int cols, int row_stride, int ncb,
                                     unsigned windows, const std::int64_t* __restrict__ offs, int groups,
                                     int out_bytes, std::uint8_t* __restrict__ out,
                                     std::int64_t* __restrict__ group_starts) {
  __shared__ int ends[kFusedScanGroups];
  __shared__ int starts[kFusedScanGroups + 1];
  __shared__ std::uint32_t stage[kScaleTileRows * kWindowWords];
  const int wb = int(blockIdx.x / windows), cb0 = int(blockIdx.x % windows) * kWindowTiles;
  const int row0 = wb * int(kScaleTileRows), row_bytes = ncb * int(kScaleTileBytes);
  std::uint32_t w[4];
  window_load(s + row0 * row_stride, rows - row0, row_stride, cols, cb0, w);
  stage_group_ends(offs, groups, ends);
  scan_staged_starts(ends, groups, int(kScaleTileRows), starts, group_starts);
  if (ncb == 0) return;
  window_stage(w, stage);
  const int t = int(threadIdx.x) / 32, p = int(threadIdx.x) % 32, cb = cb0 + t;
  if (cb >= ncb) return;
  const int lane_at = cb * int(kScaleTileBytes) + p * int(kChunkBytes);  // chunk p of tile column cb
  const int row_blocks = int(gridDim.x / windows);
  for (int at = starts[groups] / int(kScaleTileRows) * row_bytes + wb * row_bytes + lane_at; at < out_bytes;
       at += row_blocks * row_bytes)
    store_chunk<true>(out, at, out_bytes, make_uint4(0, 0, 0, 0));
  const int hi = min(row0 + int(kScaleTileRows), groups == 0 ? 0 : ends[groups - 1]);
  for (int g = row0 < hi ? first_above(ends, groups, row0) : groups; g < groups; ++g) {
    const int begin = g == 0 ? 0 : ends[g - 1];
    if (begin >= hi) break;
    const int a = max(begin, row0), b = min(ends[g], hi);
    if (a >= b) continue;  // an empty group
    const int d = starts[g] + (a - begin), len = b - a;
    const int e = b == ends[g] ? starts[g + 1] : d + len;  // with its last row, the group's padding
    const std::uint32_t* src = stage + (a - row0) * kWindowWords + t;  // segment row k at src[k·kWindowWords]
    for (int tile0 = d / int(kScaleTileRows) * int(kScaleTileRows); tile0 < e; tile0 += int(kScaleTileRows)) {
      std::uint32_t v[4];
      bool in[4];
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        const int k = tile0 + p + 32 * q - d;  // row of the segment; >= len: padding
        in[q] = k >= 0 && tile0 + p + 32 * q < e;
        v[q] = in[q] && k < len ? src[k * kWindowWords] : 0u;
      }
      const int at = tile0 / int(kScaleTileRows) * row_bytes + lane_at;
      if (in[0] && in[1] && in[2] && in[3]) {
        store_chunk<true>(out, at, out_bytes, make_uint4(v[0], v[1], v[2], v[3]));
      } else {
#pragma unroll
        for (int q = 0; q < 4; ++q)
          if (in[q] && at + 4 * q + 4 <= out_bytes) *reinterpret_cast<std::uint32_t*>(out + at + 4 * q) = v[q];
      }
    }
  }
}

// K-groups by input windows, for the same reason: block (rb, cw) loads input rows [128·rb, +128) x
// columns [32·cw, +36) at once (its window and the next window's first 4 columns, which the
// window's last words may need) and scans while they fly. It then writes the tiles whose words
// start in its columns: word k of group g (source columns [offs[g-1] + 4k, +4) ∩ [., offs[g])) is
// tile column k of the group, so tile (g, rb, k), at C_g / 4·nrb + rb·ncb_g + k, is whole in this
// block: 128 rows, one 16-byte chunk per lane (rows p, p + 32, p + 64, p + 96), each 4-byte run
// taken from the staged rows by a funnel shift. Warp t takes the window's words t, t + 8, ... in
// group order. Every group tile has exactly one such window (that of its first source column); the
// zero tiles past C_G / 4 (tile tc·nrb + rb for tile column tc) are shared out over the row
// block's windows, so the grid is ⌈cols / 32⌉ x nrb blocks whatever the group count.
constexpr int kKInputWords = kWindowCols / 4 + 1;  // 32 columns and the next 4

__device__ inline std::uint32_t load_row4(const std::uint8_t* row, int col, int cols) {
  const std::uint8_t* p = row + col;
  if (col + 4 <= cols && (reinterpret_cast<std::uintptr_t>(p) & 3u) == 0)
    return __ldg(reinterpret_cast<const std::uint32_t*>(p));
  std::uint32_t w = 0;
  for (int b = 0; b < 4; ++b)
    if (col + b < cols) w |= std::uint32_t(__ldg(p + b)) << (8 * b);
  return w;
}

__global__ void __launch_bounds__(kThreads, kInputBlocksPerSm)
    to_blocked_k_groups_input_kernel(const std::uint8_t* __restrict__ s, int rows, int cols, int row_stride, int nrb,
                                     unsigned windows, const std::int64_t* __restrict__ offs, int groups,
                                     int tile_cols, int out_bytes, std::uint8_t* __restrict__ out,
                                     std::int64_t* __restrict__ group_starts) {
  __shared__ int ends[kFusedScanGroups];
  __shared__ int starts[kFusedScanGroups + 1];
  __shared__ std::uint32_t stage[kScaleTileRows * kKInputWords];
  const int rb = int(blockIdx.x / windows), cw = int(blockIdx.x % windows), col0 = cw * kWindowCols;
  const int r = int(threadIdx.x) / 2, h = int(threadIdx.x) % 2, row = rb * int(kScaleTileRows) + r;
  std::uint32_t w[5] = {0, 0, 0, 0, 0};  // this thread's 16 columns of row r (and, for h = 1, the next 4)
  if (row < rows) {
    load_row16(s + row * row_stride, col0 + 16 * h, cols, w);
    if (h == 1) w[4] = load_row4(s + row * row_stride, col0 + kWindowCols, cols);
  }
  stage_group_ends(offs, groups, ends);
  scan_staged_starts(ends, groups, int(kScaleTileCols), starts, group_starts);
#pragma unroll
  for (int i = 0; i < 4; ++i) stage[r * kKInputWords + 4 * h + i] = w[i];
  if (h == 1) stage[r * kKInputWords + 8] = w[4];
  __syncthreads();
  if (out_bytes == 0) return;
  const int t = int(threadIdx.x) / 32, p = int(threadIdx.x) % 32;
  const int tile_bytes = int(kScaleTileBytes), lane_at = p * int(kChunkBytes);
  // This window's share of the zero tiles (tile columns C_G / 4 .. tile_cols), one warp per tile.
  for (int tc = starts[groups] / int(kScaleTileCols) + cw + int(windows) * t; tc < tile_cols;
       tc += int(windows) * kWindowTiles)
    store_chunk<true>(out, (tc * nrb + rb) * tile_bytes + lane_at, out_bytes, make_uint4(0, 0, 0, 0));
  const int hi = min(col0 + kWindowCols, groups == 0 ? 0 : ends[groups - 1]);
  int j = 0;  // words of the window before group g's, in order: word j goes to warp j % 8
  for (int g = col0 < hi ? first_above(ends, groups, col0) : groups; g < groups; ++g) {
    const int begin = g == 0 ? 0 : ends[g - 1], end = ends[g];
    if (begin >= hi) break;
    const int k_lo = (max(begin, col0) - begin + 3) / 4, k_hi = (min(end, hi) - begin + 3) / 4;
    if (k_lo >= k_hi) continue;  // an empty group, or no word of g starts here
    const int tile0 = starts[g] / int(kScaleTileCols) * nrb + rb * ((starts[g + 1] - starts[g]) / int(kScaleTileCols));
    for (int k = k_lo + ((t - j) & (kWindowTiles - 1)); k < k_hi; k += kWindowTiles) {
      const int c0 = begin + 4 * k, left = end - c0;  // left >= 1
      const std::uint32_t mask = left >= 4 ? 0xFFFFFFFFu : (1u << (8 * left)) - 1u;
      const int off = c0 - col0, kw = off / 4;  // off < 32: words kw, kw + 1 <= 8
      const unsigned shift = 8u * unsigned(off % 4);
      std::uint32_t v[4];
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        const std::uint32_t* row_words = stage + (p + 32 * q) * kKInputWords;
        v[q] = __funnelshift_r(row_words[kw], row_words[kw + 1], shift) & mask;
      }
      store_chunk<true>(out, (tile0 + k) * tile_bytes + lane_at, out_bytes, make_uint4(v[0], v[1], v[2], v[3]));
    }
    j += k_hi - k_lo;
  }
}

// K-groups with one group: C_0 = 0, so a tile column's source columns are its own columns, and
// block (rb, tc0) reads the window of to_blocked (32 scale columns of 128 rows, two threads a
// row) before offs is known, with offs[0] in flight, and no scan (as for M-groups above). Bytes
// at or past column offs[0] are zeroed; tile column tc < tcs = ⌈offs[0] / 4⌉ is tile rb·tcs + tc
// of the group, the others are the zero tiles tc·nrb + rb.
__global__ void __launch_bounds__(kThreads)
    to_blocked_k_one_group_window_kernel(const std::uint8_t* __restrict__ s, std::int64_t rows, std::int64_t cols,
                                         std::int64_t row_stride, std::int64_t nrb, unsigned windows,
                                         const std::int64_t* __restrict__ offs, std::int64_t out_bytes,
                                         std::uint8_t* __restrict__ out, std::int64_t* __restrict__ group_starts) {
  __shared__ std::uint32_t stage[kScaleTileRows * kWindowWords];
  const std::int64_t rb = blockIdx.x / windows, tc0 = std::int64_t(blockIdx.x % windows) * kWindowTiles;
  const std::int64_t end = __ldg(offs);  // in flight with the window's loads
  std::uint32_t w[4];
  window_load(s + rb * kScaleTileRows * row_stride, rows - rb * kScaleTileRows, row_stride, cols, tc0, w);
  const std::int64_t tcs = blocked_cols(end) / kScaleTileCols;
  if (blockIdx.x == 0 && threadIdx.x < 2) group_starts[threadIdx.x] = threadIdx.x == 0 ? 0 : blocked_cols(end);
  if (out_bytes == 0) return;
  const std::int64_t col0 = tc0 * kScaleTileCols + 16 * (threadIdx.x % 2);  // w[i]: columns col0 + 4i ..
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const std::int64_t left = end - (col0 + 4 * i);
    w[i] &= left >= 4 ? 0xFFFFFFFFu : left <= 0 ? 0u : (1u << (8 * left)) - 1u;
  }
  window_stage(w, stage);
  const int t = int(threadIdx.x) / 32, rr = int(threadIdx.x) % 32;
  const std::int64_t tc = tc0 + t, tile = tc < tcs ? rb * tcs + tc : tc * nrb + rb;
  store_chunk<true>(out, tile * kScaleTileBytes + rr * kChunkBytes, out_bytes, window_chunk(stage, t, rr));
}

// blocked: nrb·ncb tiles, 16-byte aligned -> out (rows, cols) row-major.
__global__ void __launch_bounds__(kThreads)
    from_blocked_window_kernel(const std::uint8_t* __restrict__ blocked, std::int64_t rows, std::int64_t cols,
                               std::int64_t ncb, std::int64_t nrb, std::uint8_t* __restrict__ out) {
  __shared__ std::uint32_t stage[kScaleTileRows * kWindowWords];
  const Window win = window_of(ncb, nrb);
  const int tid = threadIdx.x;
  {
    const int t = tid / 32, rr = tid % 32;
    const std::int64_t cb = win.cb0 + t;
    uint4 v = make_uint4(0, 0, 0, 0);
    if (cb < ncb)
      v = __ldg(reinterpret_cast<const uint4*>(blocked + (win.rb * ncb + cb) * kScaleTileBytes + rr * kChunkBytes));
    stage[rr * kWindowWords + t] = v.x;
    stage[(rr + 32) * kWindowWords + t] = v.y;
    stage[(rr + 64) * kWindowWords + t] = v.z;
    stage[(rr + 96) * kWindowWords + t] = v.w;
  }
  __syncthreads();
  const int r = tid / 2, h = tid % 2;
  const std::int64_t row = win.rb * kScaleTileRows + r, col = win.cb0 * kScaleTileCols + 16 * h;
  if (row >= rows || col >= cols) return;
  std::uint32_t w[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) w[i] = stage[r * kWindowWords + 4 * h + i];
  std::uint8_t* p = out + row * cols + col;
  if (col + 16 <= cols && (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0) {
    *reinterpret_cast<uint4*>(p) = make_uint4(w[0], w[1], w[2], w[3]);
    return;
  }
#pragma unroll
  for (int b = 0; b < 16; ++b)
    if (col + b < cols) p[b] = std::uint8_t(w[b / 4] >> (8 * (b % 4)));
}

// One thread per 4 columns of an output row: the 4 scales are contiguous in the blocked buffer.
__global__ void __launch_bounds__(kThreads) from_blocked_kernel(const std::uint8_t* __restrict__ blocked, std::int64_t rows,
                                                                std::int64_t cols, std::uint8_t* __restrict__ out) {
  const std::int64_t runs = (cols + 3) / 4, ncb = runs;
  const std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= rows * runs) return;
  const std::int64_t r = i / runs, c = (i % runs) * 4;
  const std::uint32_t w = __ldg(reinterpret_cast<const std::uint32_t*>(blocked + blocked_offset(r, c, ncb)));
  std::uint8_t* dst = out + r * cols + c;
  if (cols % 4 == 0) {
    *reinterpret_cast<std::uint32_t*>(dst) = w;
  } else {
    for (std::int64_t k = 0; k < 4 && c + k < cols; ++k) dst[k] = std::uint8_t(w >> (8 * k));
  }
}

// ----------------------------------------------------------------------------
// kernel launcher

void check_matrix(const ScaleMatrix& s, const char* what) {
  if (s.rows < 0 || s.cols < 0)
    throw std::invalid_argument(std::string(what) + ": negative shape (" + std::to_string(s.rows) + ", " +
                                std::to_string(s.cols) + ")");
  if (s.rows * s.cols != 0 && s.data == nullptr) throw std::invalid_argument(std::string(what) + ": null data for a non-empty matrix");
  if (s.rows > 1 && s.row_stride < s.cols)
    throw std::invalid_argument(std::string(what) + ": row_stride " + std::to_string(s.row_stride) + " < cols " +
                                std::to_string(s.cols));
}

template <class Tiles>
void launch(const Tiles& tiles, std::int64_t out_bytes, std::uint8_t* out, cudaStream_t stream) {
  if (out_bytes == 0) return;
  to_blocked_kernel<<<blocks_for((out_bytes + kChunkBytes - 1) / kChunkBytes, kThreads), kThreads, 0, stream>>>(
      tiles, out_bytes, out);
  check_launch();
}

// Grouped launch: the fused scan when the starts fit in shared memory, else scan then copy.
template <class Tiles>
void launch_grouped(Tiles tiles, std::int64_t alignment, std::int64_t out_bytes, std::uint8_t* out,
                    std::int64_t* group_starts, cudaStream_t stream) {
  if (tiles.groups > kFusedScanGroups) {
    layout_detail::padded_group_starts(tiles.offs, tiles.groups, alignment, group_starts, stream);
    tiles.starts = group_starts;
    launch(tiles, out_bytes, out, stream);
    return;
  }
  const std::int64_t chunks = (out_bytes + kChunkBytes - 1) / kChunkBytes;
  // One block even when the output is empty: it still writes the group starts.
  to_blocked_grouped_kernel<<<blocks_for(chunks, kThreads), kThreads, 0, stream>>>(tiles, alignment, out_bytes, out,
                                                                                  group_starts);
  check_launch();
}

}  // namespace

// Blocks of the window kernels for `experts` matrices of nrb x ncb tiles, or 0 when the count
// leaves 32-bit block arithmetic (the per-chunk kernels take those).
unsigned window_blocks(std::int64_t experts, std::int64_t nrb, std::int64_t ncb) {
  const std::int64_t b = experts * nrb * ((ncb + kWindowTiles - 1) / kWindowTiles);
  return b > 0x7FFFFFFF ? 0u : unsigned(b);
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// The plain and 3D forms: the window kernel when the output is 16-byte aligned, else per chunk.
void launch_plain(const std::uint8_t* s, std::int64_t experts, std::int64_t rows, std::int64_t cols,
                  std::int64_t row_stride, std::int64_t matrix_stride, std::uint8_t* out, cudaStream_t stream) {
  const std::int64_t hp = blocked_rows(rows), wp = blocked_cols(cols);
  const std::int64_t nrb = hp / kScaleTileRows, ncb = wp / kScaleTileCols, tiles = nrb * ncb;
  if (experts * tiles == 0) return;
  const unsigned blocks = window_blocks(experts, nrb, ncb);
  if (blocks != 0 && aligned16(out)) {
    to_blocked_window_kernel<<<blocks, kThreads, 0, stream>>>(s, rows, cols, row_stride, matrix_stride, ncb, nrb, out);
    check_launch();
    return;
  }
  launch(PlainTiles{s, rows, cols, row_stride, ncb, tiles, matrix_stride}, experts * hp * wp, out, stream);
}

void to_blocked(ScaleMatrix s, std::uint8_t* out, cudaStream_t stream) {
  check_matrix(s, "scales");
  launch_plain(s.data, 1, s.rows, s.cols, s.row_stride, 0, out, stream);
}

void to_blocked_per_group_3d(const std::uint8_t* s, std::int64_t experts, std::int64_t rows, std::int64_t cols,
                             std::uint8_t* out, cudaStream_t stream) {
  if (experts < 0 || rows < 0 || cols < 0)
    throw std::invalid_argument("scales: negative shape (" + std::to_string(experts) + ", " + std::to_string(rows) +
                                ", " + std::to_string(cols) + ")");
  if (experts * rows * cols != 0 && s == nullptr) throw std::invalid_argument("scales: null data for a non-empty tensor");
  launch_plain(s, experts, rows, cols, cols, rows * cols, out, stream);
}

void from_blocked(const std::uint8_t* blocked, std::int64_t rows, std::int64_t cols, std::uint8_t* out,
                  cudaStream_t stream) {
  if (rows < 0 || cols < 0)
    throw std::invalid_argument("from_blocked: negative shape (" + std::to_string(rows) + ", " + std::to_string(cols) + ")");
  const std::int64_t items = rows * ((cols + 3) / 4);
  if (items == 0) return;
  const std::int64_t nrb = blocked_rows(rows) / kScaleTileRows, ncb = blocked_cols(cols) / kScaleTileCols;
  const unsigned blocks = window_blocks(1, nrb, ncb);
  if (blocks != 0 && aligned16(blocked)) {
    from_blocked_window_kernel<<<blocks, kThreads, 0, stream>>>(blocked, rows, cols, ncb, nrb, out);
    check_launch();
    return;
  }
  from_blocked_kernel<<<blocks_for(items, kThreads), kThreads, 0, stream>>>(blocked, rows, cols, out);
  check_launch();
}

void to_blocked_m_groups(ScaleMatrix s, const std::int64_t* offs, std::int64_t groups, std::uint8_t* out,
                         std::int64_t* group_starts, cudaStream_t stream) {
  check_matrix(s, "scales");
  if (groups < 0) throw std::invalid_argument("offs: negative group count");
  const std::int64_t wp = blocked_cols(s.cols), ncb = wp / kScaleTileCols;
  // The window kernels where the group ends fit in shared memory and the output is 16-byte aligned
  // (the input-window kernel also wants 32-bit offsets).
  const std::int64_t out_bytes = (s.rows + kScaleTileRows * groups) * wp;
  const std::int64_t windows = std::max<std::int64_t>(1, (ncb + kWindowTiles - 1) / kWindowTiles);
  const std::int64_t in_row_blocks = std::max<std::int64_t>(1, (s.rows + kScaleTileRows - 1) / kScaleTileRows);
  const std::int64_t out_row_blocks = in_row_blocks + 1;  // the one-group kernel: its rows and the padding
  if (groups == 1 && aligned16(out) && windows * out_row_blocks < 0x7FFFFFFF) {
    to_blocked_m_one_group_window_kernel<<<unsigned(windows * out_row_blocks), kThreads, 0, stream>>>(
        s.data, s.rows, s.cols, s.row_stride, ncb, unsigned(windows), offs, out_bytes, out, group_starts);
    check_launch();
    return;
  }
  if (groups <= kFusedScanGroups && aligned16(out) && out_bytes < kInputKernelBytes &&
      s.rows * std::max(s.row_stride, s.cols) < kInputKernelBytes) {
    to_blocked_m_groups_input_kernel<<<unsigned(windows * in_row_blocks), kThreads, 0, stream>>>(
        s.data, int(s.rows), int(s.cols), int(s.row_stride), int(ncb), unsigned(windows), offs, int(groups),
        int(out_bytes), out, group_starts);
    check_launch();
    return;
  }
  launch_grouped(MGroupTiles{s.data, s.cols, s.row_stride, ncb, offs, nullptr, groups}, kScaleTileRows, out_bytes,
                 out, group_starts, stream);
}

void to_blocked_k_groups(ScaleMatrix s, const std::int64_t* scale_offs, std::int64_t groups, std::uint8_t* out,
                         std::int64_t* group_starts, cudaStream_t stream) {
  check_matrix(s, "scales");
  if (groups < 0) throw std::invalid_argument("scale_offs: negative group count");
  const std::int64_t np = blocked_rows(s.rows), nrb = np / kScaleTileRows;
  // The window kernels where the group ends fit in shared memory and the output is 16-byte aligned
  // (the input-window kernel also wants 32-bit offsets).
  const std::int64_t out_bytes = np * (s.cols + kScaleTileCols * groups);
  const std::int64_t tile_cols = (s.cols + kScaleTileCols * groups + kScaleTileCols - 1) / kScaleTileCols;
  const std::int64_t out_windows = std::max<std::int64_t>(1, (tile_cols + kWindowTiles - 1) / kWindowTiles);
  const std::int64_t in_windows = std::max<std::int64_t>(1, (s.cols + kWindowCols - 1) / kWindowCols);
  const std::int64_t row_blocks = std::max<std::int64_t>(1, nrb);  // one block at least: the starts
  if (groups == 1 && aligned16(out) && out_windows * row_blocks < 0x7FFFFFFF) {
    to_blocked_k_one_group_window_kernel<<<unsigned(out_windows * row_blocks), kThreads, 0, stream>>>(
        s.data, s.rows, s.cols, s.row_stride, nrb, unsigned(out_windows), scale_offs, out_bytes, out, group_starts);
    check_launch();
    return;
  }
  if (groups <= kFusedScanGroups && aligned16(out) && out_bytes < kInputKernelBytes &&
      np * std::max(s.row_stride, s.cols) < kInputKernelBytes) {
    to_blocked_k_groups_input_kernel<<<unsigned(in_windows * row_blocks), kThreads, 0, stream>>>(
        s.data, int(s.rows), int(s.cols), int(s.row_stride), int(nrb), unsigned(in_windows), scale_offs, int(groups),
        int(tile_cols), int(out_bytes), out, group_starts);
    check_launch();
    return;
  }
  launch_grouped(KGroupTiles{s.data, s.rows, s.row_stride, nrb, scale_offs, nullptr, groups}, kScaleTileCols,
                 out_bytes, out, group_starts, stream);
}

}  // namespace octet::cuda
