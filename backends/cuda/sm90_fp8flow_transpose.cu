// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// sm90_fp8flow_transpose.cu — the FP8-Flow-MoE scaling-aware fp8 transpose on the GPU: grouped
// 128x128 tiles of e4m3fn codes transposed through shared memory with their scales re-encoded.
// Reference: octet::fp8flow_transpose (emulator/src/kernels/fp8flow_transpose.cpp), variants
//            published / ideal / naive; reference/kernels.md §8.
// Peer:      021ai/TransformerEngine-FP8FlowMoe transformer_engine/pytorch/triton/
//            blockwise_scaling_aware_fp8_transpose.py::_scaling_aware_fp8_transpose_kernel (TE PR
//            #2544); naive = TE's dequantise-to-bf16 then te_blockwise 128x1 requantisation.
//
// A persistent grid of 256-thread blocks (as many as are resident at once), each walking tiles
// (group g, tile row i, column block j; tile rows fastest) blockIdx.x, + gridDim.x, ... Thread
// (vec, rg) = (t % 8, t / 8) owns rows 4·rg..4·rg+3 of the tile's columns 16·vec..16·vec+15. Per tile:
//   0. (kStages − 1 tiles ahead) its codes by 16-byte cp.async into a shared-memory stage (a warp
//      instruction reads four whole 128-byte row segments; each thread later reads back only what
//      its own copies wrote, so a stage needs no barrier), and its scale_inv values; tiles whose
//      rows are not 16-byte aligned or whose column block is partial fill the thread's slots by
//      byte loads instead;
//   1. scale_inv -> scale_inv_t; published / ideal: S = the max of the tile's scale_inv (all
//      >= +0) -> col_scale_inv (one barrier); where the tile lies (tile_pos) is found once, by
//      thread 0, a tile ahead of the tile's copies;
//   2. the variant's element rule on the thread's 64 codes, with k = exp(S) − exp(si) of each
//      of its rows (ideal: a pad row si = +0 takes k = 31): published by byte arithmetic
//      (published_word, eight instructions per four codes); ideal by decode, exact shift and RNE
//      re-encode with the packed cvt instructions (ideal_word); naive: dequantise (fl32(q·si),
//      bf16 below 2^-126, as TE's dequantize()), column amax over the tile's rows (shuffles, then
//      shared memory across warps), te_blockwise scale per column (scale_core.hpp: the emulator's
//      own arithmetic, its rules as compile-time constants: TeBlockwiseCore) -> col_scale_inv,
//      dequantise again and cast (the packed PTX cvt where element_cast_of proves it equal); a
//      thread whose rows have no tiny scale_inv does all of it in plain fp32 (kNaivePlainPath);
//      then 16 column words of 4 rows (byte_perm) to a
//      [column][row] shared buffer whose 16-byte groups are XOR-swizzled (buf_group:
//      conflict-free word stores here, 16-byte loads below);
//   3. each output column run (m_g-long in qt) is cut at 16-byte-aligned addresses; 8 lanes per
//      column: whole chunks are one 16-byte load (two and a byte shift where the run starts
//      unaligned) and one 16-byte store; the partial chunks at the two ends of the run (the group
//      length m_g makes most runs start unaligned) are written byte by byte, two bytes per lane.
// Edge tiles (last rows of a group, last column block) are masked as in the peer.
// Bytes moved: m·cols codes read and written, m·cb scale_inv read and written (scale_inv_t),
// Σ ceil(m_g/128)·cols fp32 written (col_scale_inv).
#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <cuda_fp16.h>

#include "octet/scale.hpp"
#include "octet/scale_core.hpp"
#include "sm90_cp_async.cuh"
#include "sm90_fixed_core.hpp"
#include "sm90_fp8flow_transpose.hpp"
#include "sm90_layout_device.hpp"
#include "sm90_rowwise_blocks_device.hpp"

namespace octet::cuda {
namespace {

using layout_detail::check_launch;
using layout_detail::kThreads;

constexpr int kBlock = int(kFp8FlowBlock);  // 128
constexpr int kMaxShift = 31;              // shifts k >= 31 act as 31 under both rules (exact)

// The group table, a kernel parameter (no host-to-device copy per call).
struct GroupTable {
  std::int64_t groups = 0;
  std::int64_t row_begin[kFp8FlowMaxGroups + 1];
  std::int32_t tile_row_begin[kFp8FlowMaxGroups + 1];
};

// ----------------------------------------------------------------------------
// GPU kernels

// RNE of an fp32 subnormal to bf16 (encode_bits, the emulator's cast). Out of line: the rare path
// of dequantize_to_bf16 would otherwise be inlined 64 times into the naive kernel.
__device__ __noinline__ float subnormal_to_bf16(float x) {
  constexpr Format bf16 = bf16_format;
  return __uint_as_float(encode(bf16, CastSpec{}, x) << 16);
}

// TE's dequantize() to bf16 of one decoded code: fl32(q·si) (one rounding of the exact product,
// as the emulator's double product rounded to float), then RNE to bf16 below 2^-126.
__device__ inline float dequantize_to_bf16(float q, float si) {
  const float x = __fmul_rn(q, si);
  if (!(fabsf(x) < 0x1p-126f) || x == 0.0f) return x;
  return subnormal_to_bf16(x);
}

// Two e4m3fn codes (low byte first) as floats (rowwise::decode_pair: exact). A NaN code gives a NaN
// of some payload, which every use below multiplies (mul.rn.f32 returns the canonical NaN, as for
// scale_core::e4m3fn_value's NaN).
__device__ inline void decode_pair(std::uint16_t pair, float& lo, float& hi) {
  const float2 v = rowwise::decode_pair<rowwise::ElementCast::cvt_e4m3>(pair);
  lo = v.x, hi = v.y;
}

// The published rule for four codes of one row, with that row's shift k >= 0 given as
// published_add(k). Per byte, with the exponent field kept in place (bits 3..6, x = E·8 <= 0x78):
//   d = x + (16 − min(k, 16))·8 <= 0xF8 (no carry into the next byte), and d >= 0x80 iff E >= k;
//   then E'·8 = d & 0x78 where E >= k and 0 elsewhere (E' = max(E − k, 0): k >= 16 gives 0);
//   x + 0x78 >= 0x80 iff E >= 1 (E == 0: the whole byte becomes 0).
// prmt's sign mode (selector nibbles 8..B) turns each byte's bit 7 into a 0x00 / 0xFF byte mask.
// This is fp8flow_published_code byte by byte for every 0 <= k <= 31, in eight instructions.
__device__ inline std::uint32_t published_add(int k) { return std::uint32_t(16 - (k < 16 ? k : 16)) * 0x08080808u; }
__device__ inline std::uint32_t byte_sign_mask(std::uint32_t v) {
  std::uint32_t m;
  asm("prmt.b32 %0, %1, 0, 0xBA98;" : "=r"(m) : "r"(v));
  return m;
}
__device__ inline std::uint32_t published_word(std::uint32_t w, std::uint32_t add) {
  const std::uint32_t x = w & 0x78787878u;
  const std::uint32_t d = x + add;
  const std::uint32_t ge = byte_sign_mask(d), nonzero = byte_sign_mask(x + 0x78787878u);
  return (w & 0x87878787u & nonzero) | (d & ge & 0x78787878u);
}

// The ideal rule for four codes of one row, 0 <= k <= 31, in arithmetic: fp8flow_ideal_code is
// RNE(decode(q)·2^-k) in e4m3fn under CastSpec{} (RNE, satfinite, subnormals kept, NaN keeps its
// sign). Here: decode_pair (exact), multiply by 2^-k (exact: |v| >= 2^-9·2^-31 = 2^-40 stays an
// fp32 normal), round by the packed cvt.rn.satfinite.e4m3x2.f32 — RNE to e4m3fn with subnormals
// and signed zeros, the cast that element_cast_of proves equal to encode_bits under CastSpec{} for
// every non-NaN value (|v| <= 448: saturation never applies). NaN codes (S.1111.111) keep their byte.
__device__ inline std::uint32_t ideal_word(std::uint32_t w, int k) {
  const float shift = __uint_as_float(std::uint32_t(127 - k) << 23);  // 2^-k
  std::uint32_t out = 0;
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    float lo, hi;
    decode_pair(std::uint16_t(w >> (16 * half)), lo, hi);
    out |= std::uint32_t(rowwise::cvt_pair<rowwise::ElementCast::cvt_e4m3>(__fmul_rn(hi, shift), __fmul_rn(lo, shift)))
           << (16 * half);
  }
  const std::uint32_t nan = __vcmpeq4(w & 0x7F7F7F7Fu, 0x7F7F7F7Fu);
  return (out & ~nan) | (w & nan);
}

// The tile buffer: column c holds its 128 rows as 8 groups of 16 bytes (rows 16g..16g+15, little
// endian), group g at 16-byte slot 8c + (g ^ (c / 16 % 8)). Step 2's word stores (8 lanes with
// columns 16 apart x 4 row words) then hit 32 different banks, and step 3's 16-byte loads (8 lanes
// on the 8 groups of one column) are conflict-free as well.
__device__ inline int buf_group(int c, int g) { return 8 * c + (g ^ ((c >> 4) & 7)); }
__device__ inline int buf_word(int c, int w) { return 4 * buf_group(c, w >> 2) + (w & 3); }
__device__ inline int buf_byte(int c, int r) { return 4 * buf_word(c, r >> 2) + (r & 3); }

// Where tile `tile` lies: tile row tr (tile rows fastest) of group g, column block j. Tile
// indices are 32-bit (the launcher checks the count): a 64-bit division here would cost ~100
// instructions per thread and tile.
struct TilePos {
  std::int64_t base, m_g, r0;  // the group's first row and row count; the tile's first row
  int tr, j, c0;
  int nr, nc;                  // rows and columns of the tile inside the matrix
};
__device__ inline TilePos tile_pos(const GroupTable& table, std::uint32_t tile, std::uint32_t tile_rows,
                                   std::int64_t cols) {
  TilePos p;
  p.j = int(tile / tile_rows);
  p.tr = int(tile - std::uint32_t(p.j) * tile_rows);
  int lo = 0, hi = int(table.groups);  // the group of tile row tr
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (table.tile_row_begin[mid + 1] > p.tr) hi = mid;
    else lo = mid + 1;
  }
  p.base = table.row_begin[lo];
  p.m_g = table.row_begin[lo + 1] - p.base;
  const std::int64_t rr = std::int64_t(p.tr - table.tile_row_begin[lo]) * kBlock;  // row inside the group
  p.r0 = p.base + rr;
  p.nr = int(p.m_g - rr < kBlock ? p.m_g - rr : kBlock);
  p.c0 = p.j * kBlock;
  p.nc = int(cols - p.c0 < kBlock ? cols - p.c0 : kBlock);
  return p;
}

// Whole 128-column tiles of 16-byte aligned rows are copied by 16-byte cp.async (step 0).
__device__ inline bool is_vector_tile(const TilePos& p, std::int64_t cols, const std::uint8_t* q) {
  return p.nc == kBlock && cols % 16 == 0 && (reinterpret_cast<std::uintptr_t>(q) & 15u) == 0;
}

// Tiles in flight per block: step 0 copies tile i + kStages − 1 while the block works on tile i.
// H100, % of copy at 1 / 16 / 64 / 128 groups (published): 2 stages 77 / 46 / 41 / 47.5, 3 stages
// 76.5 / 48 / 43 / 48, 4 stages 77 / 47 / 43.5 / 49.5 (naive 7.4% at one group: 2 blocks per SM).
inline constexpr int kStages = 3;

// One stage of the dynamic shared memory: the tile's codes as loaded (row-major, 128 bytes a row)
// and its scale_inv values. Every thread reads back only what its own copies wrote, so a stage
// needs no barrier: wait_group orders this thread's copies before its loads.
struct Stage {
  alignas(16) std::uint8_t codes[kBlock][kBlock];
  float si[kBlock];
};

// Where a stage's tile lies; valid = false past the last tile.
struct StagePos {
  TilePos pos;
  bool valid;
};

// Step 0: the copies of the tile at `sp` into `st`, one commit group (empty past the last tile, so
// that every thread always has kStages − 1 groups behind the current one). `sp` is taken by value:
// read from shared memory once, not again after each copy (the copies clobber memory).
__device__ inline void issue_tile(const std::uint8_t* q, const float* si, std::int64_t cols, std::int64_t col_blocks,
                                  const StagePos sp, Stage& st, int tid, int vec, int rg) {
  if (sp.valid) {
    const TilePos& p = sp.pos;
    // Every address first, then the copies (after an asm with a memory clobber the compiler would
    // reload and recompute them).
    const std::uint8_t* src[4];
    const std::uint8_t* const row0 = q + (p.r0 + 4 * rg) * cols + p.c0 + 16 * vec;
#pragma unroll
    for (int r = 0; r < 4; ++r) src[r] = row0 + r * cols;
    const float* const si_src = si + (p.r0 + tid) * col_blocks + p.j;
    const int rows = p.nr - 4 * rg;  // of this thread's four, inside the tile
    std::uint8_t* const dst = &st.codes[4 * rg][16 * vec];
    if (is_vector_tile(p, cols, q)) {
#pragma unroll
      for (int r = 0; r < 4; ++r)
        if (r < rows) cp_async_16(dst + r * kBlock, src[r]);
    }
    if (tid < p.nr) cp_async_4(&st.si[tid], si_src);
  }
  cp_async_commit();
}

// A tile that is not a vector tile: thread (vec, rg) fills its slots of the stage (rows 4·rg ..
// 4·rg + 3, columns 16·vec .. 16·vec + 15; 0 outside the tile) by byte loads from q, a compact
// loop (such tiles are rare).
__device__ inline void fill_scalar_tile(const std::uint8_t* q, std::int64_t cols, const TilePos& p, Stage& st, int vec,
                                        int rg) {
  const std::uint8_t* q_tile = q + p.r0 * cols + p.c0;
#pragma unroll 1
  for (int e = 0; e < 64; ++e) {
    const int row = 4 * rg + e / 16, col = 16 * vec + e % 16;
    st.codes[row][col] = row < p.nr && col < p.nc ? q_tile[row * cols + col] : std::uint8_t(0);
  }
}

// Row `row` of thread (vec, rg)'s slots: columns 16·vec .. 16·vec + 15 as four words (0 past the
// tile's rows: a vector tile's copies skip them, and the slots hold an older tile's codes).
__device__ inline uint4 slot_row(const Stage& st, int row, int nr, int vec) {
  return row < nr ? *reinterpret_cast<const uint4*>(&st.codes[row][16 * vec]) : make_uint4(0, 0, 0, 0);
}

// Shared memory of the naive variant's column scales.
struct NaiveShared {
  float amax[kThreads / 32][kBlock];  // per warp and column: the amax of the warp's 16 rows
  alignas(16) float encode[kBlock];   // per column: BlockScale::encode (read as float4 too)
};

// The naive variant's common case in plain fp32 arithmetic (plain_rows): no row of the thread has
// a scale_inv si with 0 < |si| < 2^-117. Then, under te_blockwise's rules (TeBlockwiseCore) with a
// finite value_for_inf and the hardware's NaN code as the recipe's (the launcher checks both):
//   - dequantize_to_bf16(q, si) = fl32(q·si): |q·si| >= 2^-9·2^-117 = 2^-126 wherever q and si are
//     not 0, so no product is an fp32 subnormal;
//   - amax_update (AmaxNan::Drop) from amax_init's +0 is fmaxf of the magnitudes: both drop a NaN,
//     and the amax itself is never NaN;
//   - the column's encode is finite and > 0 (te_scale: 1, fl32(448 / amax) or value_for_inf, then
//     the mantissa mask) and no clamp applies, so scaled_element is fl32(x·encode), NaN only where
//     x is; cvt.rn.satfinite.e4m3x2.f32 gives 0x7F for every NaN (GpuCast.HardwareNan) and the
//     emulator's code for every other value (element_cast_of).
// A thread with a tiny scale_inv takes the general path (the same barriers, other arithmetic).
template <class Core>
inline constexpr bool kNaivePlainPath = std::is_same_v<Core, TeBlockwiseCore>;
static_assert(TeBlockwiseCore::amax_nan == AmaxNan::Drop && TeBlockwiseCore::amax_floor != AmaxFloor::InitFp32 &&
                  TeBlockwiseCore::formula == ScaleFormula::DivFp32Te && TeBlockwiseCore::clamp == ClampBeforeCast::None,
              "the plain path's argument above");
inline constexpr std::uint32_t kCvtNanCode = 0x7F;  // cvt.rn.satfinite.e4m3x2.f32's code for any NaN

// Two partial column amaxes of the naive variant, combined. Under TeBlockwiseCore both are >= +0
// and never NaN (amax_update with AmaxNan::Drop from +0 drops every NaN), where amax_update is
// fmaxf.
template <class Core>
__device__ inline float combine_amax(const Core& rec, float a, float b) {
  if constexpr (kNaivePlainPath<Core>) return fmaxf(a, b);
  else return scale_core::amax_update(rec, a, b);
}

__device__ inline bool plain_rows(const float (&si)[4]) {
  bool plain = true;
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    const float m = fabsf(si[r]);
    plain = plain && !(m > 0.0f && m < 0x1p-117f);
  }
  return plain;
}

// Step 2 of the naive variant: te_blockwise over the dequantised values of each column. Reads the
// thread's slots of the stage; returns its 16 column words (column 16·vec + i, rows 4·rg .. 4·rg
// + 3) already transposed. All threads of the block take part (two barriers). The general path's
// row loops stay rolled: unrolled, the 64 inlined copies of its amax and cast arithmetic overflow
// the instruction cache.
template <rowwise::ElementCast kCast, class Core>
__device__ inline void naive_requantize(const Core& rec, const Stage& st, const float* si_s, int nr, int nc,
                                        int vec, int rg, NaiveShared& sh, float* csi_tile, std::uint32_t col[16]) {
  // The thread's rows (0 past nr, their scale_inv 0 as well: si_s holds 0 there).
  std::uint32_t w[4][4];
  float si_r[4];
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    const uint4 v4 = slot_row(st, 4 * rg + r, nr, vec);
    w[r][0] = v4.x, w[r][1] = v4.y, w[r][2] = v4.z, w[r][3] = v4.w;
    si_r[r] = si_s[4 * rg + r];
  }
  bool plain = false;
  if constexpr (kNaivePlainPath<Core>) plain = plain_rows(si_r);

  // Per column of this thread (i = 4x + b): the amax of its rows inside the tile.
  float amax[16];
#pragma unroll
  for (int i = 0; i < 16; ++i) amax[i] = scale_core::amax_init(rec);
  if (plain) {
#pragma unroll
    for (int r = 0; r < 4; ++r)
#pragma unroll
      for (int x = 0; x < 4; ++x)
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          float lo, hi;
          decode_pair(std::uint16_t(w[r][x] >> (16 * half)), lo, hi);
          const int i = 4 * x + 2 * half;
          amax[i] = fmaxf(amax[i], fabsf(__fmul_rn(lo, si_r[r])));
          amax[i + 1] = fmaxf(amax[i + 1], fabsf(__fmul_rn(hi, si_r[r])));
        }
  } else {
#pragma unroll 1
    for (int row = 4 * rg; row < 4 * rg + 4 && row < nr; ++row) {
      const uint4 v4 = slot_row(st, row, nr, vec);
      const std::uint32_t words[4] = {v4.x, v4.y, v4.z, v4.w};
      const float si_row = si_s[row];
#pragma unroll
      for (int x = 0; x < 4; ++x)
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          float lo, hi;
          decode_pair(std::uint16_t(words[x] >> (16 * half)), lo, hi);
          const int i = 4 * x + 2 * half;
          amax[i] = scale_core::amax_update(rec, amax[i], dequantize_to_bf16(lo, si_row));
          amax[i + 1] = scale_core::amax_update(rec, amax[i + 1], dequantize_to_bf16(hi, si_row));
        }
    }
  }
  // amax_update is a max under the recipe's NaN rule: partial amaxes combine in any order. The
  // four row groups of a warp (lanes 8 apart), then the eight warps.
#pragma unroll
  for (int i = 0; i < 16; ++i) {
    amax[i] = combine_amax(rec, amax[i], __shfl_xor_sync(0xFFFFFFFFu, amax[i], 8));
    amax[i] = combine_amax(rec, amax[i], __shfl_xor_sync(0xFFFFFFFFu, amax[i], 16));
  }
  if (rg % 4 == 0)
#pragma unroll
    for (int i = 0; i < 16; ++i) sh.amax[rg / 4][16 * vec + i] = amax[i];
  __syncthreads();
  const int tid = threadIdx.x;
  if (tid < kBlock) {
    float a = sh.amax[0][tid];
#pragma unroll
    for (int k = 1; k < kThreads / 32; ++k) a = combine_amax(rec, a, sh.amax[k][tid]);
    const BlockScale s = scale_core::scale_from_amax(rec, a);
    sh.encode[tid] = s.encode;
    if (tid < nc) csi_tile[tid] = __uint_as_float(s.stored);
  }
  __syncthreads();
  // The codes of rows (r, r + 1) of each column by one cast of a pair: bytes r and r + 1 of the
  // column word. Rows past nr are cast too (their codes are 0) and never stored.
  if (plain) {
    float enc[16];
#pragma unroll
    for (int q4 = 0; q4 < 4; ++q4) {
      const float4 e = reinterpret_cast<const float4*>(&sh.encode[16 * vec])[q4];
      enc[4 * q4] = e.x, enc[4 * q4 + 1] = e.y, enc[4 * q4 + 2] = e.z, enc[4 * q4 + 3] = e.w;
    }
#pragma unroll
    for (int r = 0; r < 4; r += 2)
#pragma unroll
      for (int x = 0; x < 4; ++x)
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          float a[2], b[2];  // rows r, r + 1 of columns i, i + 1
          decode_pair(std::uint16_t(w[r][x] >> (16 * half)), a[0], a[1]);
          decode_pair(std::uint16_t(w[r + 1][x] >> (16 * half)), b[0], b[1]);
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const int i = 4 * x + 2 * half + e;
            const std::uint16_t pair = rowwise::cvt_pair<kCast>(__fmul_rn(__fmul_rn(b[e], si_r[r + 1]), enc[i]),
                                                                __fmul_rn(__fmul_rn(a[e], si_r[r]), enc[i]));
            col[i] = r == 0 ? std::uint32_t(pair) : col[i] | std::uint32_t(pair) << 16;
          }
        }
    return;
  }
#pragma unroll
  for (int i = 0; i < 16; ++i) col[i] = 0;
#pragma unroll 1
  for (int r = 0; r < 4; r += 2) {
    const uint4 a4 = slot_row(st, 4 * rg + r, nr, vec), b4 = slot_row(st, 4 * rg + r + 1, nr, vec);
    const std::uint32_t wa[4] = {a4.x, a4.y, a4.z, a4.w}, wb[4] = {b4.x, b4.y, b4.z, b4.w};
    const float si_a = si_s[4 * rg + r], si_b = si_s[4 * rg + r + 1];
#pragma unroll
    for (int x = 0; x < 4; ++x) {
      float va[4], vb[4];
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        decode_pair(std::uint16_t(wa[x] >> (16 * half)), va[2 * half], va[2 * half + 1]);
        decode_pair(std::uint16_t(wb[x] >> (16 * half)), vb[2 * half], vb[2 * half + 1]);
      }
#pragma unroll
      for (int b = 0; b < 4; ++b) {
        BlockScale s;
        s.encode = sh.encode[16 * vec + 4 * x + b];
        const std::uint16_t pair =
            rowwise::code_pair<kCast>(rec, s, dequantize_to_bf16(va[b], si_a), dequantize_to_bf16(vb[b], si_b));
        col[4 * x + b] |= std::uint32_t(pair) << (8 * r);
      }
    }
  }
}

// Resident blocks per SM the register allocation must allow: what the shared memory allows
// (kStages x 16.5 KB of stages and ~17 KB of buffers per block: 3 blocks with 3 stages), at most
// 4 (64 registers); naive at most 3 (80: its 16 column amaxes and 16 values per word).
inline constexpr int kBlocksBySharedMemory = int((227u << 10) / (kStages * sizeof(Stage) + (17u << 10)));
template <Fp8FlowVariant V>
inline constexpr int kMinBlocksPerSm =
    kBlocksBySharedMemory < (V == Fp8FlowVariant::naive ? 3 : 4) ? kBlocksBySharedMemory : (V == Fp8FlowVariant::naive ? 3 : 4);

template <Fp8FlowVariant V, rowwise::ElementCast kCast, class Core>
__global__ void __launch_bounds__(kThreads, kMinBlocksPerSm<V>)
    fp8flow_kernel(const __grid_constant__ GroupTable table, const std::uint8_t* __restrict__ q,
                   const float* __restrict__ si, std::int64_t cols, std::int64_t col_blocks, const Core rec,
                   std::uint8_t* __restrict__ qt, float* __restrict__ csi, float* __restrict__ sit) {
  __shared__ alignas(16) std::uint32_t buf[kBlock * kBlock / 4];  // see buf_group
  __shared__ float si_s[kBlock];
  __shared__ float warp_max[kBlock / 32];
  __shared__ NaiveShared naive_s;
  __shared__ StagePos stage_pos[kStages];  // where each stage's tile lies (written by thread 0)
  extern __shared__ Stage stages[];        // kStages, dynamic
  const uint4* const buf4 = reinterpret_cast<const uint4*>(buf);
  const std::uint8_t* const buf_bytes = reinterpret_cast<const std::uint8_t*>(buf);

  // Persistent: the block walks tiles blockIdx.x, + gridDim.x, ... with the copies of the next
  // kStages − 1 tiles in flight (step 0). Thread 0 finds where a tile lies (tile_pos: a division
  // and a search over the groups) once, a tile ahead of its copies; the others read it from
  // stage_pos after a barrier.
  const int tid = threadIdx.x;
  const int vec = tid % 8, rg = tid / 8;
  const std::uint32_t tile_rows = std::uint32_t(table.tile_row_begin[table.groups]);
  const std::uint32_t tiles = tile_rows * std::uint32_t(col_blocks);
  const std::uint32_t stride = gridDim.x;
  auto locate = [&](std::uint32_t t, int stage) {
    StagePos& sp = stage_pos[stage];
    sp.valid = t < tiles;
    if (sp.valid) sp.pos = tile_pos(table, t, tile_rows, cols);
  };
  auto issue = [&](int stage) { issue_tile(q, si, cols, col_blocks, stage_pos[stage], stages[stage], tid, vec, rg); };
  if (tid == 0)
#pragma unroll 1
    for (int s = 0; s < kStages; ++s) locate(blockIdx.x + std::uint32_t(s) * stride, s);
  __syncthreads();
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) issue(s);
  int stage = 0;
  for (std::uint32_t tile = blockIdx.x; tile < tiles; tile += stride, stage = stage + 1 < kStages ? stage + 1 : 0) {
    // 0. Tile + (kStages − 1)·stride goes to the stage read last (thread 0 located it in the
    //    previous iteration, or before the loop).
    issue(stage > 0 ? stage - 1 : kStages - 1);
    cp_async_wait<kStages - 1>();
    const TilePos pos = stage_pos[stage].pos;
    const std::int64_t base = pos.base, m_g = pos.m_g, r0 = pos.r0;
    const int tr = pos.tr, c0 = pos.c0, j = pos.j, nr = pos.nr, nc = pos.nc;
    if (!is_vector_tile(pos, cols, q)) fill_scalar_tile(q, cols, pos, stages[stage], vec, rg);
    const float si_v = tid < nr ? stages[stage].si[tid] : 0.0f;
    float* const csi_tile = csi + std::int64_t(tr) * cols + c0;

    // 1. scales: scale_inv_t and (published / ideal) the tile's S = the max of its scale_inv.
    if (tid < kBlock) {
      si_s[tid] = si_v;
      if (tid < nr) sit[col_blocks * base + j * m_g + (r0 - base) + tid] = si_v;
      if constexpr (V != Fp8FlowVariant::naive) {
        float m = si_v;
#pragma unroll
        for (int s = 16; s > 0; s /= 2) m = fmaxf(m, __shfl_xor_sync(0xFFFFFFFFu, m, s));
        if (tid % 32 == 0) warp_max[tid / 32] = m;
      }
    }
    __syncthreads();
    // stage_pos[stage] has been read by every thread: thread 0 locates the tile that will come
    // into this stage (its copies are issued in kStages − 1 tiles' time, after a barrier).
    if (tid == 0) locate(tile + std::uint32_t(kStages) * stride, stage);
    float s_tile = 0.0f;
    if constexpr (V != Fp8FlowVariant::naive) {
      s_tile = fmaxf(fmaxf(warp_max[0], warp_max[1]), fmaxf(warp_max[2], warp_max[3]));
      if (tid < nc) csi_tile[tid] = s_tile;
    }

    // 2. The element rule on the thread's codes, then the transpose into buf: column 16·vec + b
    //    gets word rg (rows 4·rg..4·rg+3), at the same offset from this thread's first column for
    //    every b (the swizzle depends on c / 16 = vec only). A warp whose 16 rows all lie past the
    //    tile skips it (naive excepted: its column scales need every thread): the stores below
    //    never read those rows.
    std::uint32_t* const col_words = buf + buf_word(16 * vec, rg);
    if constexpr (V == Fp8FlowVariant::naive) {
      std::uint32_t col[16];
      naive_requantize<kCast>(rec, stages[stage], si_s, nr, nc, vec, rg, naive_s, csi_tile, col);
#pragma unroll
      for (int b = 0; b < 16; ++b) col_words[b * (kBlock / 4)] = col[b];
    } else if (16 * (tid / 32) < nr) {
      std::uint32_t w[4][4];  // w[r][x]: row 4·rg + r, columns 16·vec + 4x .. + 3
      const int exp_tile = fp8flow_scale_exponent(s_tile);
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        // k = exp(S) − exp(si), 0 past the tile (codes 0 map to 0 under both rules); k >= 0 for
        // valid scale_inv (S is their max), and the clamp keeps the rules inside their domain
        // whatever the input.
        const int row = 4 * rg + r;
        const float v = si_s[row];
        int k = exp_tile - fp8flow_scale_exponent(v);
        if (V == Fp8FlowVariant::ideal && __float_as_uint(v) == 0u) k = kMaxShift;
        k = row >= nr || k < 0 ? 0 : k < kMaxShift ? k : kMaxShift;
        const uint4 c = slot_row(stages[stage], row, nr, vec);
        const std::uint32_t add = published_add(k);
        w[r][0] = c.x, w[r][1] = c.y, w[r][2] = c.z, w[r][3] = c.w;
#pragma unroll
        for (int x = 0; x < 4; ++x)
          w[r][x] = V == Fp8FlowVariant::published ? published_word(w[r][x], add) : ideal_word(w[r][x], k);
      }
#pragma unroll
      for (int b = 0; b < 16; ++b) {
        const int x = b / 4;
        const unsigned sel = unsigned(b % 4) | unsigned(b % 4 + 4) << 4;  // byte b%4 of both operands
        const std::uint32_t r01 = __byte_perm(w[0][x], w[1][x], sel), r23 = __byte_perm(w[2][x], w[3][x], sel);
        col_words[b * (kBlock / 4)] = __byte_perm(r01, r23, 0x5410);
      }
    }
    __syncthreads();

    // 3. Output column runs: column c0 + col of the group is m_g bytes at qt_group + (c0 + col)·m_g,
    // this tile's rows [0, nr) of it. Seen from the 16-byte aligned address below its first byte,
    // the run covers span bytes [mis, mis + nr) of at most 9 aligned chunks. 8 lanes per column:
    //   - lane s writes chunk s when the run covers it whole: rows [16s − mis, 16s − mis + 16),
    //     one 16-byte group of buf, or bytes o..o+15 of two neighbouring groups (o = (−mis) % 16,
    //     the same for every chunk of the column), then one 16-byte store;
    //   - the (at most two) chunks the run covers in part, the first and the last, take byte
    //     stores, lane s bytes 2s and 2s + 1 of each: two predicated stores per chunk and lane,
    //     no lane loops alone while the others wait (the rest of such a chunk belongs to the
    //     neighbouring tile or column and is merged in L2).
    const int sub = tid % 8;
    std::uint8_t* qt_group = qt + cols * base + (r0 - base);
    // A whole tile whose column runs all start 16-byte aligned (m_g % 16 == 0 and an aligned first
    // run: one group at M % 16 == 0, for example) is 8 whole chunks per column: lane s stores
    // group s of its columns, the address stepped by 32 columns, without the per-column span and
    // edge arithmetic below (H100, one group at 16640x5120, % of copy: published 77.3 to 79.3,
    // ideal 73.7 to 77.1, naive 66.5 to 68.4; this loop is latency-bound per instruction).
    const bool whole_aligned = nr == kBlock && nc == kBlock && m_g % 16 == 0 &&
                               (reinterpret_cast<std::uintptr_t>(qt_group + std::int64_t(c0) * m_g) & 15u) == 0;
    if (whole_aligned) {
      std::uint8_t* dst = qt_group + std::int64_t(c0 + tid / 8) * m_g + 16 * sub;
      const std::int64_t step = std::int64_t(kThreads / 8) * m_g;
#pragma unroll
      for (int i = 0; i < kBlock / (kThreads / 8); ++i, dst += step)
        *reinterpret_cast<uint4*>(dst) = buf4[buf_group(tid / 8 + i * (kThreads / 8), sub)];
    }
    for (int col = whole_aligned ? nc : tid / 8; col < nc; col += kThreads / 8) {
      std::uint8_t* dst = qt_group + std::int64_t(c0 + col) * m_g;
      const int mis = int(reinterpret_cast<std::uintptr_t>(dst) & 15u);
      std::uint8_t* const span = dst - mis;
      const int end = mis + nr;  // span bytes [mis, end) are the run's
      if (16 * sub >= mis && 16 * sub + 16 <= end) {
        const int rs = 16 * sub - mis;  // first row of the chunk, >= 0
        const int o = rs & 15;
        const uint4 a = buf4[buf_group(col, rs >> 4)];
        uint4 out = a;
        if (o != 0) {
          // Bytes o..o+15 of groups a, b (rs + 16 <= nr <= 128: group rs / 16 + 1 exists).
          const uint4 b4 = buf4[buf_group(col, (rs >> 4) + 1)];
          const std::uint32_t v[8] = {a.x, a.y, a.z, a.w, b4.x, b4.y, b4.z, b4.w};
          std::uint32_t t[6], u[5];
#pragma unroll
          for (int i = 0; i < 6; ++i) t[i] = (o & 8) ? v[i + 2] : v[i];
#pragma unroll
          for (int i = 0; i < 5; ++i) u[i] = (o & 4) ? t[i + 1] : t[i];
          const unsigned shift = 8u * unsigned(o & 3);
          out = make_uint4(__funnelshift_r(u[0], u[1], shift), __funnelshift_r(u[1], u[2], shift),
                           __funnelshift_r(u[2], u[3], shift), __funnelshift_r(u[3], u[4], shift));
        }
        *reinterpret_cast<uint4*>(span + 16 * sub) = out;
      }
      const int last = (end - 1) / 16;  // the run's last chunk
      const bool first_partial = mis != 0 || end < 16, last_partial = last > 0 && end % 16 != 0;
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        if (!(e == 0 ? first_partial : last_partial)) continue;
        const int chunk = e == 0 ? 0 : last;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int p = 16 * chunk + 2 * sub + h;
          if (p >= mis && p < end) span[p] = buf_bytes[buf_byte(col, p - mis)];
        }
      }
    }
    __syncthreads();  // buf, si_s, warp_max and naive_s are rewritten for the next tile
  }
}

// ----------------------------------------------------------------------------
// kernel launcher

// Persistent grid: as many blocks as are resident at once (occupancy read once per kernel), at
// most one per tile.
template <Fp8FlowVariant V, rowwise::ElementCast kCast = rowwise::ElementCast::generic, class Core = RecipeCore>
void launch(const GroupTable& table, const std::uint8_t* q, const float* si, const Fp8FlowLayout& L,
            const Core& rec, const Fp8FlowGpuOutputs& out, cudaStream_t stream) {
  constexpr std::size_t smem = kStages * sizeof(Stage);
  static const int per_sm = [] {
    OCTET_CUDA_CHECK(cudaFuncSetAttribute(fp8flow_kernel<V, kCast, Core>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    int n = 0;
    OCTET_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, fp8flow_kernel<V, kCast, Core>, kThreads, smem));
    return n < 1 ? 1 : n;
  }();
  const std::int64_t tiles = L.tile_row_begin.back() * L.col_blocks;  // < 2^31 (checked by the caller)
  const std::int64_t resident = std::int64_t(layout_detail::multiprocessors()) * per_sm;
  const unsigned grid = unsigned(tiles < resident ? tiles : resident);
  fp8flow_kernel<V, kCast, Core><<<grid, kThreads, smem, stream>>>(table, q, si, L.cols, L.col_blocks, rec, out.qt, out.csi,
                                                          out.sit);
  check_launch();
}

}  // namespace

void fp8flow_transpose(Fp8FlowVariant variant, const std::uint8_t* q_m_c, const float* si_m_cb,
                       const Fp8FlowLayout& L, const Fp8FlowGpuOutputs& out, cudaStream_t stream) {
  if (L.groups() > kFp8FlowMaxGroups)
    throw std::invalid_argument("offs: " + std::to_string(L.groups()) + " groups; the CUDA kernel takes at most " +
                                std::to_string(kFp8FlowMaxGroups));
  if (L.col_blocks > 65535) throw std::invalid_argument("q_m_c: more than 65535 column blocks");
  if (L.tile_row_begin.back() == 0 || L.col_blocks == 0) return;  // nothing to write
  if (L.tile_row_begin.back() * L.col_blocks >= (std::int64_t(1) << 31))
    throw std::invalid_argument("q_m_c: 2^31 or more 128x128 tiles");
  auto table = std::make_unique<GroupTable>();
  table->groups = L.groups();
  for (std::int64_t g = 0; g <= L.groups(); ++g) {
    table->row_begin[g] = L.row_begin[std::size_t(g)];
    table->tile_row_begin[g] = std::int32_t(L.tile_row_begin[std::size_t(g)]);
  }
  switch (variant) {
    case Fp8FlowVariant::published:
      return launch<Fp8FlowVariant::published>(*table, q_m_c, si_m_cb, L, RecipeCore{}, out, stream);
    case Fp8FlowVariant::ideal:
      return launch<Fp8FlowVariant::ideal>(*table, q_m_c, si_m_cb, L, RecipeCore{}, out, stream);
    case Fp8FlowVariant::naive: {
      // te_blockwise's rules as compile-time constants (TeBlockwiseCore) and its cast by cvt; the
      // runtime recipe and the generic cast where either does not hold.
      const Recipe& r = recipe("te_blockwise");
      const RecipeCore core = make_core(r);
      if (rowwise::element_cast_of(r) == rowwise::ElementCast::cvt_e4m3 && TeBlockwiseCore::matches(core) &&
          std::isfinite(core.value_for_inf) &&
          encode_bits<Fp32Source>(format_of(core.element), core.cast, scale_core::kCanonicalNan) == kCvtNanCode)
        return launch<Fp8FlowVariant::naive, rowwise::ElementCast::cvt_e4m3>(*table, q_m_c, si_m_cb, L,
                                                                            TeBlockwiseCore::of(core), out, stream);
      return launch<Fp8FlowVariant::naive>(*table, q_m_c, si_m_cb, L, core, out, stream);
    }
  }
  throw std::invalid_argument("variant: unknown value");
}

}  // namespace octet::cuda
