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
// (group g, tile row i, column block j; tile rows fastest) blockIdx.x, + gridDim.x, ... Per tile:
//   1. the tile's 128 scale_inv values (column block j of rows r0..r1) -> shared memory, copied to
//      scale_inv_t; published/ideal: S = their max (all >= +0) -> col_scale_inv, and per row
//      k = exp(S) - exp(si) (ideal: a pad row si = +0 takes k = 31);
//   2. the 128x128 codes (loaded before step 1, or during the previous tile's step 3): each
//      thread four independent 16-byte loads (rows 4t..4t+3 of 16 columns; a warp instruction
//      reads four whole 128-byte row segments), four bytes at a time through the variant's element
//      rule (published: the header's bit rule in SIMD byte arithmetic; ideal: decode, exact
//      shift and RNE re-encode by the packed cvt instructions, NaN codes kept — see ideal_word; the
//      scalar path of unaligned tiles reads the emulator's 32x256 table of fp8flow_ideal_code),
//      transposed in registers (byte_perm) into 16 column words of 4 rows, stored to a
//      [column][row] shared buffer with an XOR swizzle (buf_word: no bank conflicts either side);
//   naive: the raw codes go to the buffer; two threads per column (64 rows each) dequantise
//      (fl32(q·si), then bf16 below 2^-126, as TE's dequantize()), take the te_blockwise amax
//      (halves combined through shared memory), scale and codes of scale_core.hpp (the emulator's
//      own arithmetic; the packed PTX cvt where element_cast_of proves it equal) in place;
//   4. the next tile's codes are loaded into the registers that step 2 freed;
//   3. each output column run (m_g-long in qt) is cut at 16-byte-aligned addresses; 8 lanes per
//      column, each a 16-byte chunk assembled from the buffer by funnel shifts and written with
//      one 16-byte store; the partial chunks at the two ends of the run (the group length m_g
//      makes most runs start unaligned) take the widest aligned 8/4/2/1-byte stores that fit.
// Edge tiles (last rows of a group, last column block) are masked as in the peer.
// Bytes moved: m·cols codes read and written, m·cb scale_inv read and written (scale_inv_t),
// Σ ceil(m_g/128)·cols fp32 written (col_scale_inv).
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_fp16.h>

#include "octet/scale.hpp"
#include "octet/scale_core.hpp"
#include "sm90_fp8flow_transpose.hpp"
#include "sm90_layout_device.hpp"
#include "sm90_rowwise_blocks_device.hpp"

namespace octet::cuda {
namespace {

using layout_detail::check_launch;
using layout_detail::kThreads;

constexpr int kBlock = int(kFp8FlowBlock);  // 128
constexpr int kLutRows = kFp8FlowTableRows;

// The group table, a kernel parameter (no host-to-device copy per call).
struct GroupTable {
  std::int64_t groups = 0;
  std::int64_t row_begin[kFp8FlowMaxGroups + 1];
  std::int64_t tile_row_begin[kFp8FlowMaxGroups + 1];
};

// ----------------------------------------------------------------------------
// GPU kernels

// RNE of an fp32 subnormal to bf16 (encode_bits, the emulator's cast). Out of line: the rare path
// of dequantize_to_bf16 would otherwise be inlined 16 times into the naive kernel's column loops
// (~19 K instructions of code for an instruction cache of a few K).
__device__ __noinline__ float subnormal_to_bf16(float x) {
  constexpr Format bf16 = bf16_format;
  return __uint_as_float(encode(bf16, CastSpec{}, x) << 16);
}

// TE's dequantize() to bf16 of one code: fl32(q·si) (one rounding of the exact product, as the
// emulator's double product rounded to float), then RNE to bf16 below 2^-126.
__device__ inline float dequantize_to_bf16(std::uint8_t q, float si) {
  const float x = __fmul_rn(scale_core::e4m3fn_value(q), si);
  if (!(fabsf(x) < 0x1p-126f) || x == 0.0f) return x;
  return subnormal_to_bf16(x);
}

// Four codes of one row through the published rule at once: per byte E' = max(E − k, 0) by an
// unsigned saturating byte subtraction, sign and mantissa kept, E = 0 -> 0. This is
// fp8flow_published_code byte by byte for 0 <= k <= 31 (E' <= 15 stays inside its field).
__device__ inline std::uint32_t published_word(std::uint32_t w, int k) {
  const std::uint32_t e = (w >> 3) & 0x0F0F0F0Fu;
  const std::uint32_t e_new = __vsubus4(e, 0x01010101u * std::uint32_t(k));
  return ((w & 0x87878787u) | (e_new << 3)) & ~__vcmpeq4(e, 0u);
}

// The ideal rule for four codes of one row, 0 <= k <= 31, in arithmetic (no per-byte table load):
// fp8flow_ideal_code is RNE(decode(q)·2^-k) in e4m3fn under CastSpec{} (RNE, satfinite,
// subnormals kept, NaN keeps its sign). Here: decode by the packed cvt.rn.f16x2.e4m3x2 (exact:
// every e4m3fn value, subnormals included, is an fp16 normal), widen to fp32 (exact), multiply by
// 2^-k (exact: |v| >= 2^-9·2^-31 = 2^-40 stays an fp32 normal), round by the packed
// cvt.rn.satfinite.e4m3x2.f32 — RNE to e4m3fn with subnormals and signed zeros, the cast that
// element_cast_of proves equal to encode_bits under CastSpec{} for every non-NaN value (|v| <= 448:
// saturation never applies). NaN codes (S.1111.111) give NaN with their sign, i.e. their own byte.
__device__ inline std::uint32_t ideal_word(std::uint32_t w, int k) {
  const float shift = __uint_as_float(std::uint32_t(127 - k) << 23);  // 2^-k
  std::uint32_t out = 0;
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const std::uint16_t pair = std::uint16_t(w >> (16 * half));
    std::uint32_t h2;
    asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(h2) : "h"(pair));
    const float lo = __fmul_rn(__half2float(__ushort_as_half(std::uint16_t(h2 & 0xFFFFu))), shift);
    const float hi = __fmul_rn(__half2float(__ushort_as_half(std::uint16_t(h2 >> 16))), shift);
    out |= std::uint32_t(rowwise::cvt_pair<rowwise::ElementCast::cvt_e4m3>(hi, lo)) << (16 * half);
  }
  const std::uint32_t nan = __vcmpeq4(w & 0x7F7F7F7Fu, 0x7F7F7F7Fu);
  return (out & ~nan) | (w & nan);
}

// The tile buffer: column c holds its 128 rows as 32 little-endian words (rows 4w..4w+3 in word w),
// word w stored at c·32 + (w ^ swizzle(c)). The swizzle keeps every access pattern below free of
// bank conflicts: bits 2..4 from c / 16 (the 8 lanes of a row segment in step 2 write columns 16
// apart), bits 0, 1, 3, 4 from c % 16 (32 consecutive columns read the same word in the naive step).
__device__ inline int buf_word(int c, int w) {
  const int swizzle = (4 * ((c >> 4) & 7)) ^ ((c & 3) | (((c >> 2) & 3) << 3));
  return c * (kBlock / 4) + (w ^ swizzle);
}
__device__ inline int buf_byte(int c, int r) { return 4 * buf_word(c, r >> 2) + (r & 3); }

// Where tile `tile` lies: tile row tr (tile rows fastest) of group g, column block j.
struct TilePos {
  std::int64_t tr, j, base, m_g, r0, c0;  // base, m_g: the group's first row and row count
  int nr, nc;                             // rows and columns of the tile inside the matrix
};
__device__ inline TilePos tile_pos(const GroupTable& table, std::int64_t tile, std::int64_t tile_rows,
                                   std::int64_t cols) {
  TilePos p;
  p.tr = tile % tile_rows;
  p.j = tile / tile_rows;
  std::int64_t lo = 0, hi = table.groups;  // the group of tile row tr
  while (lo < hi) {
    const std::int64_t mid = (lo + hi) / 2;
    if (table.tile_row_begin[mid + 1] > p.tr) hi = mid;
    else lo = mid + 1;
  }
  p.base = table.row_begin[lo];
  p.m_g = table.row_begin[lo + 1] - p.base;
  p.r0 = p.base + (p.tr - table.tile_row_begin[lo]) * kBlock;
  p.nr = int(p.m_g - (p.r0 - p.base) < kBlock ? p.m_g - (p.r0 - p.base) : kBlock);
  p.c0 = p.j * kBlock;
  p.nc = int(cols - p.c0 < kBlock ? cols - p.c0 : kBlock);
  return p;
}

// Whole 128-column tiles of 16-byte aligned rows take the vector path (step 2).
__device__ inline bool is_vector_tile(const TilePos& p, std::int64_t cols, const std::uint8_t* q) {
  return p.nc == kBlock && cols % 16 == 0 && (reinterpret_cast<std::uintptr_t>(q) & 15u) == 0;
}

// The vector path's loads: thread (vec, rg) reads rows 4·rg..4·rg+3 of the 16 columns
// 16·vec..16·vec+15 (four independent 16-byte loads; a warp instruction reads 4 whole 128-byte
// row segments); rows past the tile are 0.
__device__ inline void load_codes(const std::uint8_t* q, std::int64_t cols, const TilePos& p, int vec, int rg,
                                  std::uint32_t w[4][4]) {
  const std::uint8_t* q_tile = q + p.r0 * cols + p.c0;
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    const int row = 4 * rg + r;
    const uint4 v = row < p.nr ? __ldg(reinterpret_cast<const uint4*>(q_tile + row * cols) + vec) : make_uint4(0, 0, 0, 0);
    w[r][0] = v.x, w[r][1] = v.y, w[r][2] = v.z, w[r][3] = v.w;
  }
}

// Resident blocks per SM the register allocation must allow: published / ideal 5 (<= 51
// registers, no spills: 5 x 16 KB of codes in flight per SM; at 6 they spill), naive 4 (<= 64:
// its column arithmetic would otherwise take ~110 registers and leave 2 blocks).
template <Fp8FlowVariant V>
inline constexpr int kMinBlocksPerSm = V == Fp8FlowVariant::naive ? 4 : 5;

template <Fp8FlowVariant V, rowwise::ElementCast kCast>
__global__ void __launch_bounds__(kThreads, kMinBlocksPerSm<V>)
    fp8flow_kernel(const __grid_constant__ GroupTable table, const std::uint8_t* __restrict__ q,
                   const float* __restrict__ si, std::int64_t cols, std::int64_t col_blocks,
                   const std::uint8_t* __restrict__ ideal_lut, const RecipeCore rec, std::uint8_t* __restrict__ qt,
                   float* __restrict__ csi, float* __restrict__ sit) {
  __shared__ alignas(16) std::uint32_t buf[kBlock * kBlock / 4];  // see buf_word
  __shared__ float si_s[kBlock];
  __shared__ int k_s[kBlock];
  __shared__ float warp_max[kBlock / 32];
  __shared__ float amax_s[kThreads];  // naive: per-half column amax
  std::uint8_t* const buf_bytes = reinterpret_cast<std::uint8_t*>(buf);

  // Persistent: the block walks tiles blockIdx.x, + gridDim.x, ... The codes of a vector tile are
  // loaded before its scales are read and reduced (two barriers), and the next tile's codes
  // (step 4) before this tile's stores (step 3): a block keeps one tile's loads in flight while
  // it transposes and stores, instead of one load round trip per block lifetime.
  const int tid = threadIdx.x;
  const int vec = tid % 8, rg = tid / 8;
  const std::int64_t tile_rows = table.tile_row_begin[table.groups], tiles = tile_rows * col_blocks;
  std::int64_t tile = blockIdx.x;
  TilePos pos = tile_pos(table, tile, tile_rows, cols);
  bool vector_tile = is_vector_tile(pos, cols, q);
  std::uint32_t w[4][4];
  if (vector_tile) load_codes(q, cols, pos, vec, rg, w);
  for (; tile < tiles; tile += gridDim.x) {
    const std::int64_t tr = pos.tr, j = pos.j, base = pos.base, m_g = pos.m_g, r0 = pos.r0, c0 = pos.c0;
    const int nr = pos.nr, nc = pos.nc;
    const std::uint8_t* q_tile = q + r0 * cols + c0;

    // 1. scales
    if (tid < kBlock) {
      const float v = tid < nr ? si[(r0 + tid) * col_blocks + j] : 0.0f;
      si_s[tid] = v;
      if (tid < nr) sit[col_blocks * base + j * m_g + (r0 - base) + tid] = v;
      if constexpr (V != Fp8FlowVariant::naive) {
        float m = v;
#pragma unroll
        for (int s = 16; s > 0; s /= 2) m = fmaxf(m, __shfl_xor_sync(0xFFFFFFFFu, m, s));
        if (tid % 32 == 0) warp_max[tid / 32] = m;
      }
    }
    __syncthreads();
    if constexpr (V != Fp8FlowVariant::naive) {
      const float s_tile = fmaxf(fmaxf(warp_max[0], warp_max[1]), fmaxf(warp_max[2], warp_max[3]));
      if (tid < nc) csi[tr * cols + c0 + tid] = s_tile;
      if (tid < nr) {
        const float v = si_s[tid];
        int k = fp8flow_scale_exponent(s_tile) - fp8flow_scale_exponent(v);
        if (V == Fp8FlowVariant::ideal && __float_as_uint(v) == 0u) k = kLutRows - 1;
        k_s[tid] = k < kLutRows - 1 ? k : kLutRows - 1;
      }
      __syncthreads();
    }

    // 2. codes -> buf, through the element rule
    auto rule = [&](std::uint8_t code, int row) -> std::uint8_t {
      if constexpr (V == Fp8FlowVariant::published) return fp8flow_published_code(code, k_s[row]);
      else if constexpr (V == Fp8FlowVariant::ideal) return __ldg(ideal_lut + k_s[row] * 256 + code);
      else return code;
    };
    if (vector_tile) {
      // The loaded rows through the element rule, transposed in registers into 16 column words.
      if constexpr (V != Fp8FlowVariant::naive) {
#pragma unroll
        for (int r = 0; r < 4; ++r)
#pragma unroll
          for (int x = 0; x < 4; ++x) {
            const int row = 4 * rg + r;
            if (row >= nr) continue;  // k_s is not set there
            const int k = k_s[row];
            if (k >= 0) {  // k < 0 only for a NaN scale_inv: byte by byte
              w[r][x] = V == Fp8FlowVariant::published ? published_word(w[r][x], k) : ideal_word(w[r][x], k);
              continue;
            }
            std::uint32_t out = 0;
#pragma unroll
            for (int b = 0; b < 4; ++b) out |= std::uint32_t(rule(std::uint8_t(w[r][x] >> (8 * b)), row)) << (8 * b);
            w[r][x] = out;
          }
      }
#pragma unroll
      for (int b = 0; b < 16; ++b) {
        const int x = b / 4;
        const unsigned sel = unsigned(b % 4) | unsigned(b % 4 + 4) << 4;  // byte b%4 of both operands
        const std::uint32_t r01 = __byte_perm(w[0][x], w[1][x], sel), r23 = __byte_perm(w[2][x], w[3][x], sel);
        buf[buf_word(16 * vec + b, rg)] = __byte_perm(r01, r23, 0x5410);
      }
    } else {
      for (int e = tid; e < kBlock * kBlock; e += kThreads) {
        const int col = e % kBlock, row = e / kBlock;
        if (col < nc && row < nr) buf_bytes[buf_byte(col, row)] = rule(q_tile[row * cols + col], row);
      }
    }
    __syncthreads();

    // naive: per column, te_blockwise over the dequantised values; two threads per column (rows
    // [0, 64) and [64, 128)), 32 consecutive columns per warp; amax_update is a max under the
    // recipe's NaN rule, so the two halves combine in any order.
    if constexpr (V == Fp8FlowVariant::naive) {
      const int col = tid % kBlock, half = tid / kBlock;
      const int r_begin = half * (kBlock / 2), r_end = nr < r_begin + kBlock / 2 ? nr : r_begin + kBlock / 2;
      auto dequantized8 = [&](int r, float v[8]) {
        const std::uint32_t w0 = buf[buf_word(col, r / 4)], w1 = buf[buf_word(col, r / 4 + 1)];
#pragma unroll
        for (int e = 0; e < 8; ++e)
          v[e] = dequantize_to_bf16(std::uint8_t((e < 4 ? w0 : w1) >> (8 * (e % 4))), si_s[r + e]);
      };
      float amax = scale_core::amax_init(rec);
      if (col < nc)
        for (int r = r_begin; r < r_end; r += 8) {
          float v[8];
          dequantized8(r, v);
#pragma unroll
          for (int e = 0; e < 8; ++e)
            if (r + e < r_end) amax = scale_core::amax_update(rec, amax, v[e]);
        }
      amax_s[tid] = amax;
      __syncthreads();
      if (col < nc) {
        const BlockScale s = scale_core::scale_from_amax(rec, scale_core::amax_update(rec, amax_s[col], amax_s[col + kBlock]));
        if (half == 0) csi[tr * cols + c0 + col] = __uint_as_float(s.stored);
        // Rows past nr are cast too (si_s is +0 there) and never stored.
        for (int r = r_begin; r < r_end; r += 8) {
          float v[8];
          dequantized8(r, v);
          std::uint8_t c[8];
          rowwise::codes8<kCast>(rec, s, v, c);
          buf[buf_word(col, r / 4)] = c[0] | std::uint32_t(c[1]) << 8 | std::uint32_t(c[2]) << 16 | std::uint32_t(c[3]) << 24;
          buf[buf_word(col, r / 4 + 1)] = c[4] | std::uint32_t(c[5]) << 8 | std::uint32_t(c[6]) << 16 | std::uint32_t(c[7]) << 24;
        }
      }
      __syncthreads();
    }

    // 4. The next tile's codes (w is free: step 2 moved this tile's codes into buf).
    TilePos next = pos;
    bool next_vector = false;
    if (tile + gridDim.x < tiles) {
      next = tile_pos(table, tile + gridDim.x, tile_rows, cols);
      next_vector = is_vector_tile(next, cols, q);
      if (next_vector) load_codes(q, cols, next, vec, rg, w);
    }

    // 3. Output column runs: qt[c0 + col] of the group is m_g bytes at qt_group + (c0 + col)·m_g, this
    // tile's rows [0, nr) of it. The run is cut at 16-byte-aligned addresses into at most 9 chunks;
    // 8 lanes per column, lane k writes chunk k (and chunk 8): rows [16k − mis, 16k − mis + 16),
    // assembled from five words of the column by funnel shifts; whole chunks are one 16-byte store,
    // the (at most two) partial ones byte stores of their rows inside the run.
    const int sub = tid % 8;
    std::uint8_t* qt_group = qt + cols * base + (r0 - base);
    for (int slot = tid / 8; slot < nc; slot += kThreads / 8) {
      const int col = slot;
      std::uint8_t* dst = qt_group + (c0 + col) * m_g;
      const int mis = int(reinterpret_cast<std::uintptr_t>(dst) & 15u);
      const int chunks = (mis + nr + 15) / 16;
      for (int k = sub; k < chunks; k += 8) {
        const int rs = 16 * k - mis;  // first row of the chunk (>= -15)
        const int wbase = rs >> 2, shift = 8 * (rs & 3);
        std::uint32_t x[5];
#pragma unroll
        for (int i = 0; i < 5; ++i) {
          const int wi = wbase + i;
          x[i] = wi >= 0 && wi < kBlock / 4 ? buf[buf_word(col, wi)] : 0u;
        }
        std::uint32_t o[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) o[i] = __funnelshift_r(x[i], x[i + 1], unsigned(shift));
        std::uint8_t* chunk = dst + rs;
        if (rs >= 0 && rs + 16 <= nr) {
          *reinterpret_cast<uint4*>(chunk) = make_uint4(o[0], o[1], o[2], o[3]);
        } else {
          // Bytes [lo, hi) of the (16-byte aligned) chunk lie inside the run: the widest aligned
          // stores that fit (at most 6 instead of up to 15 byte stores; the rest of the chunk's
          // bytes belong to the neighbouring tile or column, merged in L2).
          const int lo = rs < 0 ? -rs : 0, hi = nr - rs < 16 ? nr - rs : 16;
          const unsigned long long v0 = o[0] | (static_cast<unsigned long long>(o[1]) << 32);
          const unsigned long long v1 = o[2] | (static_cast<unsigned long long>(o[3]) << 32);
          for (int b = lo; b < hi;) {
            const unsigned long long v = (b < 8 ? v0 : v1) >> (8 * (b & 7));
            if (b % 8 == 0 && b + 8 <= hi) {
              *reinterpret_cast<unsigned long long*>(chunk + b) = v;
              b += 8;
            } else if (b % 4 == 0 && b + 4 <= hi) {
              *reinterpret_cast<std::uint32_t*>(chunk + b) = std::uint32_t(v);
              b += 4;
            } else if (b % 2 == 0 && b + 2 <= hi) {
              *reinterpret_cast<std::uint16_t*>(chunk + b) = std::uint16_t(v);
              b += 2;
            } else {
              chunk[b] = std::uint8_t(v);
              b += 1;
            }
          }
        }
      }
    }
    __syncthreads();  // buf, si_s, k_s, warp_max and amax_s are rewritten for the next tile
    pos = next;
    vector_tile = next_vector;
  }
}

// ----------------------------------------------------------------------------
// kernel launcher

// The ideal rule's table on the device, uploaded once (fp8flow_ideal_table).
const std::uint8_t* ideal_lut_device() {
  static const std::uint8_t* lut = [] {
    const std::vector<std::uint8_t> t = fp8flow_ideal_table();
    std::uint8_t* p = nullptr;
    OCTET_CUDA_CHECK(cudaMalloc(&p, t.size()));
    OCTET_CUDA_CHECK(cudaMemcpy(p, t.data(), t.size(), cudaMemcpyHostToDevice));
    return p;
  }();
  return lut;
}

// Persistent grid: as many blocks as are resident at once (occupancy read once per kernel), at
// most one per tile.
template <Fp8FlowVariant V, rowwise::ElementCast kCast = rowwise::ElementCast::generic>
void launch(const GroupTable& table, const std::uint8_t* q, const float* si, const Fp8FlowLayout& L,
            const RecipeCore& rec, const std::uint8_t* lut, const Fp8FlowGpuOutputs& out, cudaStream_t stream) {
  static const int per_sm = [] {
    int n = 0;
    OCTET_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, fp8flow_kernel<V, kCast>, kThreads, 0));
    return n < 1 ? 1 : n;
  }();
  const std::int64_t tiles = L.tile_row_begin.back() * L.col_blocks;
  const std::int64_t resident = std::int64_t(layout_detail::multiprocessors()) * per_sm;
  const unsigned grid = unsigned(tiles < resident ? tiles : resident);
  fp8flow_kernel<V, kCast><<<grid, kThreads, 0, stream>>>(table, q, si, L.cols, L.col_blocks, lut, rec, out.qt, out.csi,
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
  auto table = std::make_unique<GroupTable>();
  table->groups = L.groups();
  for (std::int64_t g = 0; g <= L.groups(); ++g) {
    table->row_begin[g] = L.row_begin[std::size_t(g)];
    table->tile_row_begin[g] = L.tile_row_begin[std::size_t(g)];
  }
  switch (variant) {
    case Fp8FlowVariant::published:
      return launch<Fp8FlowVariant::published>(*table, q_m_c, si_m_cb, L, RecipeCore{}, nullptr, out, stream);
    case Fp8FlowVariant::ideal:
      return launch<Fp8FlowVariant::ideal>(*table, q_m_c, si_m_cb, L, RecipeCore{}, ideal_lut_device(), out, stream);
    case Fp8FlowVariant::naive: {
      const Recipe& r = recipe("te_blockwise");
      if (rowwise::element_cast_of(r) == rowwise::ElementCast::cvt_e4m3)
        return launch<Fp8FlowVariant::naive, rowwise::ElementCast::cvt_e4m3>(*table, q_m_c, si_m_cb, L, make_core(r),
                                                                            nullptr, out, stream);
      return launch<Fp8FlowVariant::naive>(*table, q_m_c, si_m_cb, L, make_core(r), nullptr, out, stream);
    }
  }
  throw std::invalid_argument("variant: unknown value");
}

}  // namespace octet::cuda
