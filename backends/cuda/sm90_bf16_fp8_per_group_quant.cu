// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// sm90_bf16_fp8_per_group_quant.cu — FP8 rowwise quantisation with one scale per (group, row) or
// (group, column), groups given by offs (the MoE wgrad operands).
// Peer:     pytorch/ao torchao/prototype/moe_training/kernels/jagged_float8_scales.py::
//           triton_fp8_per_group_rowwise_scales, triton_fp8_per_group_colwise_scales (default
//           recipe torchao_fp8_rowwise_pow2), without the peer bugs K1/K2 (fp8_per_group.hpp).
// Equals:   octet::fp8_per_group_rowwise_scales / fp8_per_group_colwise_scales
//           (emulator/src/kernels/fp8_per_group.cpp), bytes of codes and scales, 0x00 for the
//           elements past offs[-1], the scale of an empty group written.
// Kernels:  rowwise: row_stream_kernel (sm90_quant_row_stream.cuh) over GroupColumns: rows streamed
//           into shared memory, one scale block per (row m, group g) plus one zero-fill range per
//           row for the columns past offs[-1]; row_segments_kernel over the same blocks where the
//           stream kernel does not apply (unaligned pointers, K % 8 != 0).
//           colwise: column_stream_kernel (sm90_quant_column_stream.cuh), one item per (group,
//           64-column tile), taken in groups of four tiles (group, then tile) where the groups
//           average 256 rows or more, the CTA copying whole 256-row pieces into shared memory
//           by cp.async into three stages (512-row pieces where groups average more than 768
//           rows); a group that fits the stages is read once, a larger one twice (the second read mostly
//           from L2); codes transposed in registers, 8 rows of a column per store; whole 8-row
//           blocks without per-row tests. column_tiles_kernel where it does
//           not apply (unaligned input, N % 8 != 0).
//           With groups of more than 2048 rows on average (G = 1 at K = 16640):
//           per_group_col_cluster_kernel (bf16, sm_90, K up to ~24k rows): a cluster of 16 CTAs
//           per (range, 32-column strip) holds the range's rows in shared memory between them,
//           exchanges its column keys through distributed shared memory and casts from shared
//           memory, reading the input once. Otherwise each group is split into ~256-row parts: a
//           key pass (atomicMax of integer keys into a G*N workspace) then a cast pass, each over
//           (G+1)*S*tiles items (column_stream_kernel's KeyMode::Store and Load,
//           column_tiles_kernel's where it does not apply); the input is read twice, so at most 3/5
//           of the copy rate in the counted bytes (170 MB of the 16640x5120 input do not fit the
//           50 MB L2 between the passes).
// Bytes:    K_total*N*sizeof(in) read, the same count of codes + 4*G*(rows or cols) written.

#include <cooperative_groups.h>

#include <mutex>
#include <type_traits>

#include "quant.hpp"
#include "sm90_cp_async.cuh"
#include "sm90_quant_column_stream.cuh"
#include "sm90_quant_row_stream.cuh"

namespace octet::cuda {
namespace {

// Average group size (rows) above which the colwise kernel splits groups over several CTAs.
constexpr std::int64_t kSplitRows = 2048;

using layout_detail::group_begin;

// Colwise: G + 1 row ranges, the last one the zero-filled rows [offs[G-1], K); kStages stages of
// kStageBytes per CTA (a group of up to kStages pieces is read once; a piece of 32 KB holds 256
// rows of a 64-column tile).
template <int kStages, std::uint32_t kStageBytes = 32 * 1024>
struct GroupColMap {
  static constexpr int kStreamStages = kStages;  // column_stream_kernel's traits
  static constexpr std::uint32_t kStreamStageBytes = kStageBytes;
  static constexpr bool kTileGroups = true;
  std::int64_t K, N, G;
  const std::int64_t* offs;
  int tile_group_log2 = 0;  // items in groups of 2^n tiles (kTileGroups), 0: range-major
  __device__ quant::RowRange range(std::int64_t g) const {
    return {group_begin(offs, g), g < G ? offs[g] : K, g == G};
  }
  __device__ std::int64_t scale_index(std::int64_t g, std::int64_t n) const { return g * N + n; }
  __device__ std::int64_t out_offset(std::int64_t k, std::int64_t n) const { return n * K + k; }
};

// Colwise with large groups: every range (group or tail) split into S parts of about
// size / S rows; the scale block stays the group (key and scale index g*N + n).
struct GroupPartMap {
  static constexpr int kStreamStages = 3;  // column_stream_kernel's traits
  std::int64_t K, N, G, S;
  const std::int64_t* offs;
  __device__ quant::RowRange range(std::int64_t id) const {
    const std::int64_t g = id / S, s = id % S;
    const std::int64_t begin = group_begin(offs, g), size = (g < G ? offs[g] : K) - begin;
    const std::int64_t part = ((size + S - 1) / S + 7) / 8 * 8;  // multiples of 8 rows (whole blocks)
    const std::int64_t lo = s * part, hi = lo + part;
    const std::int64_t r0 = begin + (lo < size ? lo : size), r1 = begin + (hi < size ? hi : size);
    return {r0, r1, g == G, s == 0};
  }
  __device__ std::int64_t key_index(std::int64_t id, std::int64_t n) const { return (id / S) * N + n; }
  __device__ std::int64_t scale_index(std::int64_t id, std::int64_t n) const { return key_index(id, n); }
  __device__ std::int64_t out_offset(std::int64_t k, std::int64_t n) const { return n * K + k; }
};

using quant::BlockCast;
using quant::CastBounds;
using quant::CastPath;
using quant::Chunk;
using quant::block_cast;
using quant::code_byte;
using quant::key_bits;
using quant::key_word;
using quant::quantize_chunk;
using quant::store_scale;

// ---------------------------------------------------------------------------------------------
// Colwise in one read: a cluster of kClusterCtas CTAs per (range, 32-column strip).
//
// The split path below reads the input twice (keys, then casts), at most 3/5 of the copy rate in
// the counted bytes. Here the CTAs of a thread block cluster (sm_90, PTX ISA 7.8 "barrier.cluster",
// CUDA Programming Guide "Distributed Shared Memory") hold a range's rows of one strip between
// them: CTA i copies its share of 8-row blocks into shared memory (cp.async), reduces its column
// keys, the cluster exchanges them through distributed shared memory, every CTA derives the
// columns' scales from the same keys (block_cast: the column kernels' arithmetic) and casts its
// rows from shared memory. The input is read once. Taken where every range fits: a range of at
// most K rows spans ceil(K/8) + 1 blocks, kClusterCtas shares of at most kClusterMaxBlocks.
inline constexpr int kClusterCtas = 16;        // non-portable size (sm_90 allows up to 16)
inline constexpr int kStripCols = 32;          // bf16 columns per strip: 64-byte row pieces
inline constexpr int kClusterThreads = 256;
inline constexpr int kClusterMaxBlocks = 192;  // 8-row blocks per CTA: 96 KB of shared memory

// Where row r's 16-byte chunk cq of a strip sits in a CTA's buffer: two rows per 128-byte line,
// the line's eight chunks XOR-swizzled by the 8-row block (bit 0 of r / 8 picks the half, bits 1-2
// the chunk), so that the 16-byte reads of a quarter warp (two neighbouring blocks x four chunks)
// fall in different banks.
__device__ __forceinline__ std::uint32_t block_swizzle(int blk) {
  return std::uint32_t(((blk & 1) << 2) | ((blk >> 1) & 3));
}
__device__ __forceinline__ std::uint32_t strip_chunk(int r, int cq) {
  const std::uint32_t slot = std::uint32_t((r & 1) << 2) | std::uint32_t(cq);
  return std::uint32_t(r >> 1) * 128u + 16u * (slot ^ block_swizzle(r >> 3));
}

// The 16-byte chunk cq of the eight rows of block blk (strip_chunk with r = 8·blk + i).
__device__ __forceinline__ void load_block(const std::uint8_t* strip, int blk, int cq, std::uint32_t (&w)[8][4]) {
  const std::uint8_t* const line = strip + std::uint32_t(blk) * 512u;
  const std::uint32_t x = block_swizzle(blk);
  const std::uint32_t even = 16u * (std::uint32_t(cq) ^ x), odd = 16u * ((4u | std::uint32_t(cq)) ^ x);
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const uint4 v = *reinterpret_cast<const uint4*>(line + (i / 2) * 128 + (i % 2 ? odd : even));
    w[i][0] = v.x, w[i][1] = v.y, w[i][2] = v.z, w[i][3] = v.w;
  }
}

// Column j (0..7) of an 8x8 block of bf16 pairs (load_block) as fp32 bits, row i in element i.
__device__ __forceinline__ Chunk column_chunk(const std::uint32_t (&w)[8][4], int j) {
  Chunk ch;
#pragma unroll
  for (int i = 0; i < 8; ++i) ch.v[i] = j % 2 == 0 ? w[i][j / 2] << 16 : w[i][j / 2] & 0xFFFF0000u;
  return ch;
}

// The cast of one 8x8 block in general (rows outside [r0, r1), zero-fill ranges, blocks that do
// not take the cvt, outputs not 8-byte aligned): out of line, so that the common path stays short.
template <CastPath P, class R>
__device__ __noinline__ void cast_block_general(const std::uint8_t* strip, int blk, int cq, std::int64_t row,
                                                std::int64_t r0, std::int64_t r1, bool zero_fill, bool out_vec,
                                                std::uint8_t* q, std::int64_t K, int c0, const BlockScale* col_scale,
                                                const bool* col_fast, const R& rc, const CastBounds& b) {
  std::uint32_t w[8][4] = {};
  if (!zero_fill) load_block(strip, blk, cq, w);
  const bool whole = out_vec && row >= r0 && row + 8 <= r1;
#pragma unroll 1
  for (int j = 0; j < 8; ++j) {
    const int col = 8 * cq + j;
    uint2 codes = make_uint2(0, 0);
    if (!zero_fill) {
      const BlockScale sc = col_scale[col];
      codes = quantize_chunk<P>(rc, b, col_fast[col], [&](int) { return sc.encode; }, [&](int) { return sc; },
                                column_chunk(w, j));
    }
    std::uint8_t* const dst = q + std::int64_t(c0 + col) * K + row;
    if (whole) {
      *reinterpret_cast<uint2*>(dst) = codes;
    } else {
#pragma unroll 1
      for (int i = 0; i < 8; ++i)
        if (row + i >= r0 && row + i < r1) dst[i] = code_byte(codes, i);
    }
  }
}

// Loads come in kClusterLoadParts parts of whole 64-row runs, each folded into the keys as soon as
// it has arrived (one barrier per part) while the later parts are still in flight.
inline constexpr int kClusterLoadParts = 2;

template <CastPath P, class R, bool kDropNan>
__global__ void __launch_bounds__(kClusterThreads, 3)
    per_group_col_cluster_kernel(const std::uint16_t* __restrict__ x, std::int64_t K, std::int64_t N, std::int64_t G,
                                 const std::int64_t* __restrict__ offs, std::uint8_t* __restrict__ q,
                                 std::uint32_t* __restrict__ scales, const R rc, const CastBounds b, bool out_vec) {
  using In = std::uint16_t;
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  extern __shared__ __align__(128) std::uint8_t strip[];
  // Per warp, 8-column chunk and bf16 pair: the warp's maxima.
  __shared__ std::uint32_t warp_key[kClusterThreads / 32][4][4], warp_all[kClusterThreads / 32][4][4];
  __shared__ std::uint32_t part_key[kStripCols], part_all[kStripCols];  // this CTA's column maxima
  __shared__ BlockScale col_scale[kStripCols];
  __shared__ bool col_fast[kStripCols];

  const std::int64_t g = blockIdx.z;
  const std::int64_t r0 = group_begin(offs, g), r1 = g < G ? __ldg(offs + g) : K;
  const bool zero_fill = g == G;  // the rows past offs[G-1]: codes 0x00, no scale
  if (zero_fill && r0 >= r1) return;  // no rows past offs[G-1] (the whole cluster leaves: no barrier)
  const int tid = int(threadIdx.x), warp = tid / 32, lane = tid % 32;
  const int rank = int(cluster.block_rank());
  const std::int64_t base = r0 & ~std::int64_t(7);
  const std::int64_t blocks = r1 > r0 ? (r1 - base + 7) / 8 : 0;
  const std::int64_t share = (blocks + kClusterCtas - 1) / kClusterCtas;
  const std::int64_t b0 = std::min<std::int64_t>(rank * share, blocks);
  const int nb = int(std::min<std::int64_t>(b0 + share, blocks) - b0);  // this CTA's blocks
  const std::int64_t row0 = base + 8 * b0;
  const int c0 = int(blockIdx.y) * kStripCols;
  const int ncols = int(std::min<std::int64_t>(kStripCols, N - c0));  // a multiple of 8
  // Thread layout: the strip's 8-column chunk cq = tid % 4 (the same in every step) of rows
  // tid / 4 + 64k for the copies, of blocks tid / 4 + 64k for the keys and casts.
  const int cq = tid % 4;
  const bool chunk_in = 8 * cq < ncols;
  constexpr int kStep = kClusterThreads / 4;  // rows per copy step, blocks per fold or cast step

  if (!zero_fill) {
    // Parts of whole steps of 64 rows (8 blocks), the last part shorter.
    const int steps = (8 * nb + kStep - 1) / kStep;
    const int part_steps = (steps + kClusterLoadParts - 1) / kClusterLoadParts;
    {
      // Pointers stepped by 64 rows (strip_chunk: + 4096 bytes, block_swizzle repeats every 8 blocks).
      const std::uint16_t* src = x + (row0 + tid / 4) * N + c0 + 8 * cq;
      const std::int64_t src_step = kStep * N;
      std::uint32_t dst = smem_address(strip + strip_chunk(tid / 4, cq));
      const int copies = chunk_in ? int((std::min<std::int64_t>(8 * nb, K - row0) - tid / 4 + kStep - 1) / kStep) : 0;
      int k = 0;
#pragma unroll 1
      for (int part = 0; part < kClusterLoadParts; ++part) {
        const int k_end = std::min(copies, (part + 1) * part_steps);
#pragma unroll 1
        for (; k < k_end; ++k, src += src_step, dst += 4096u)
          asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
        cp_async_commit();
      }
    }
    // Keys of the CTA's rows inside the range (per bf16 pair of columns, as the column kernels),
    // part by part: blocks [8·part_steps·part, 8·part_steps·(part + 1)).
    std::uint32_t key[4] = {0, 0, 0, 0}, all[4] = {0, 0, 0, 0};
    const auto fold = [&](const std::uint32_t (&w)[4]) {
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        key[k] = key_word<In, kDropNan>(key[k], w[k]);
        if constexpr (kDropNan) all[k] = __vmaxu2(all[k], w[k] & 0x7FFF7FFFu);
      }
    };
#pragma unroll
    for (int part = 0; part < kClusterLoadParts; ++part) {
      cp_async_wait(kClusterLoadParts - 1 - part);
      __syncthreads();
      const int blk_end = std::min(nb, 8 * part_steps * (part + 1));
      if (chunk_in)
        for (int blk = 8 * part_steps * part + tid / 4; blk < blk_end; blk += kStep) {
          std::uint32_t w[8][4];
          load_block(strip, blk, cq, w);
          const std::int64_t row = row0 + 8 * blk;
          if (row >= r0 && row + 8 <= r1) {
#pragma unroll
            for (int i = 0; i < 8; ++i) fold(w[i]);
          } else {
#pragma unroll
            for (int i = 0; i < 8; ++i)
              if (row + i >= r0 && row + i < r1) fold(w[i]);
          }
        }
    }
    // Recipes that keep NaN: the key is the integer maximum of the magnitudes, the `all` word itself.
    if constexpr (!kDropNan)
#pragma unroll
      for (int k = 0; k < 4; ++k) all[k] = key[k];
#pragma unroll
    for (int k = 0; k < 4; ++k)
#pragma unroll
      for (int o = 4; o < 32; o *= 2) {  // the lanes of one cq: lane % 4 == cq
        key[k] = key_word<In, kDropNan>(key[k], __shfl_xor_sync(0xFFFFFFFFu, key[k], o));
        all[k] = __vmaxu2(all[k], __shfl_xor_sync(0xFFFFFFFFu, all[k], o));
      }
    if (lane < 4)
#pragma unroll
      for (int k = 0; k < 4; ++k) warp_key[warp][cq][k] = key[k], warp_all[warp][cq][k] = all[k];
    __syncthreads();
    if (tid < kStripCols) {  // column tid: chunk tid / 8, word tid % 8 / 2, half tid % 2
      const int c = tid / 8, word = tid % 8 / 2, half = tid % 2;
      std::uint32_t kw = warp_key[0][c][word], aw = warp_all[0][c][word];
#pragma unroll
      for (int w = 1; w < kClusterThreads / 32; ++w) {
        kw = key_word<In, kDropNan>(kw, warp_key[w][c][word]);
        aw = __vmaxu2(aw, warp_all[w][c][word]);
      }
      part_key[tid] = key_bits<In>(kw, half);
      part_all[tid] = key_bits<In>(aw, half);
    }
    // The cluster's keys: every CTA reads all shares' maxima (non-negative fp32 bits, NaN above
    // all: an integer maximum), then the scales; the second barrier keeps each CTA's shared memory
    // alive until the others have read it.
    cluster.sync();
    if (tid < kStripCols) {
      std::uint32_t k = 0, a = 0;
#pragma unroll 4
      for (int s = 0; s < kClusterCtas; ++s) {
        k = max(k, cluster.map_shared_rank(part_key, s)[tid]);
        a = max(a, cluster.map_shared_rank(part_all, s)[tid]);
      }
      const BlockCast bc = block_cast<P>(rc, b, k, a);
      col_scale[tid] = bc.scale;
      col_fast[tid] = bc.fast;
      if (rank == 0 && tid < ncols) store_scale(scales, g * N + c0 + tid, false, bc.scale.stored);
    }
    cluster.sync();
  }

  // Casts: column c0 + 8·cq + j of block blk as one 8-byte run of rows at q + column·K + row. The
  // thread's eight columns are the same for all its blocks: their encodes are read once, and where
  // all eight take the cvt (no NaN or Inf) a block wholly inside the range goes through
  // quantize_chunk's fast path with nothing else inlined beside it.
  if (!chunk_in) return;
  float enc[8];
  bool fast8 = P != CastPath::Generic && !zero_fill;
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    enc[j] = col_scale[8 * cq + j].encode;
    fast8 = fast8 && col_fast[8 * cq + j];
  }
  for (int blk = tid / 4; blk < nb; blk += kStep) {
    const std::int64_t row = row0 + 8 * blk;
    if (P == CastPath::Generic || !(fast8 && out_vec && row >= r0 && row + 8 <= r1)) {
      cast_block_general<P>(strip, blk, cq, row, r0, r1, zero_fill, out_vec, q, K, c0, col_scale, col_fast, rc, b);
      continue;
    }
    if constexpr (P == CastPath::Generic) continue;
    std::uint32_t w[8][4];
    load_block(strip, blk, cq, w);
    std::uint8_t* dst = q + std::int64_t(c0 + 8 * cq) * K + row;
#pragma unroll
    for (int j = 0; j < 8; ++j, dst += K) {
      const float e = enc[j];
      // fast == true: the scale_of branch is dead and folds away.
      *reinterpret_cast<uint2*>(dst) =
          quantize_chunk<P>(rc, b, true, [&](int) { return e; }, [&](int) { return BlockScale{}; }, column_chunk(w, j));
    }
  }
}

// Launches per_group_col_cluster_kernel where it applies (sm_90, bf16, N % 8 == 0, a 16-byte
// aligned input, K small enough for the shares, and a cluster of kClusterCtas CTAs of this size
// schedulable); false otherwise.
template <class... Cores>
bool launch_per_group_col_cluster(SourceType src, const void* x, std::int64_t K, std::int64_t N,
                                  const std::int64_t* offs, std::int64_t G, const Recipe& r, std::uint8_t* q,
                                  std::uint32_t* scales, cudaStream_t stream) {
  const quant::Device d = quant::device();
  if (d.cc < 90 || src != SourceType::bf16 || N % 8 != 0 || (reinterpret_cast<std::uintptr_t>(x) & 15u) != 0)
    return false;
  const std::int64_t share = ((K + 7) / 8 + 1 + kClusterCtas - 1) / kClusterCtas;
  if (share > kClusterMaxBlocks || G + 1 > 65535 || (N + kStripCols - 1) / kStripCols > 65535) return false;
  const std::size_t smem = std::size_t(share) * 8 * kStripCols * sizeof(std::uint16_t);
  const RecipeCore core = make_core(r);
  const CastBounds bounds = quant::cast_bounds(r);
  bool launched = false;
  quant::with_core<Cores...>(core, quant::cast_path(r, d), [&](auto p, const auto& rc) {
    using R = std::decay_t<decltype(rc)>;
    const auto go = [&](auto drop_nan) {
      constexpr auto kernel = &per_group_col_cluster_kernel<decltype(p)::value, R, decltype(drop_nan)::value>;
      cudaLaunchConfig_t cfg = {};
      cfg.gridDim = dim3(kClusterCtas, unsigned((N + kStripCols - 1) / kStripCols), unsigned(G + 1));
      cfg.blockDim = dim3(kClusterThreads);
      cfg.dynamicSmemBytes = smem;
      cfg.stream = stream;
      cudaLaunchAttribute attr[1];
      attr[0].id = cudaLaunchAttributeClusterDimension;
      attr[0].val.clusterDim.x = kClusterCtas;
      attr[0].val.clusterDim.y = 1;
      attr[0].val.clusterDim.z = 1;
      cfg.attrs = attr;
      cfg.numAttrs = 1;
      // Whether a cluster of this size fits at all, asked once per kernel and shared memory size
      // (a launch must not pay for attribute calls).
      static std::mutex mutex;
      static bool attributes_set = false;
      static std::size_t asked_smem = 0;
      static int clusters = 0;
      int fits = 0;
      {
        const std::lock_guard<std::mutex> lock(mutex);
        if (!attributes_set) {
          OCTET_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
          OCTET_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                int(kClusterMaxBlocks * 8 * kStripCols * sizeof(std::uint16_t))));
          attributes_set = true;
        }
        if (smem != asked_smem) {
          if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg) != cudaSuccess) {
            (void)cudaGetLastError();
            clusters = 0;
          }
          asked_smem = smem;
        }
        fits = clusters;
      }
      if (fits < 1) return;
      OCTET_CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel, static_cast<const std::uint16_t*>(x), K, N, G, offs, q, scales,
                                          rc, bounds, K % 8 == 0));
      launched = true;
    };
    if (core.amax_nan == AmaxNan::Drop) go(std::true_type{});
    else go(std::false_type{});
  });
  return launched;
}

void require_groups(std::int64_t G, const std::int64_t* offs) {
  require(G >= 0, "offs: negative group count " + std::to_string(G));
  require(G == 0 || offs != nullptr, "offs: null device pointer for " + std::to_string(G) + " groups");
}

}  // namespace

void fp8_per_group_rowwise_scales(SourceType src, const void* x, std::int64_t M, std::int64_t K,
                                  const std::int64_t* offs, std::int64_t G, const Recipe& r, std::uint8_t* q,
                                  std::uint32_t* scales, cudaStream_t stream) {
  require(M >= 0 && K >= 0, "x_m_k: negative shape (" + std::to_string(M) + ", " + std::to_string(K) + ")");
  require_groups(G, offs);
  // row_stream_kernel over GroupColumns (G + 1 column ranges per row, the last one the zero-filled
  // columns [offs[G-1], K)); where it does not apply, row_segments_kernel with lanes per segment
  // by the average group width (chunks of 8 elements, one more for a group that does not start on
  // the 8-element grid): wide groups 64 lanes holding up to ten chunks each, as the rowwise kernel;
  // narrow groups of random widths 16, 4 or 2 lanes of four chunks (in a warp the lane groups wait
  // for the widest segment, so fewer lanes per segment lose there).
  const std::int64_t chunks = G > 0 ? K / G / quant::kChunk + 1 : 1;
  const quant::GroupColumns map{M, K, G, offs};
  if (chunks > 192)
    quant::launch_row_blocks<64, 40, 1, TorchaoRowwisePow2Core>(src, x, q, scales, false, r, map, stream);
  else if (chunks > 16)
    quant::launch_row_blocks<16, 16, 1, TorchaoRowwisePow2Core>(src, x, q, scales, false, r, map, stream);
  else if (chunks > 8)
    quant::launch_row_blocks<4, 16, 1, TorchaoRowwisePow2Core>(src, x, q, scales, false, r, map, stream);
  else
    quant::launch_row_blocks<2, 16, 1, TorchaoRowwisePow2Core>(src, x, q, scales, false, r, map, stream);
}

void fp8_per_group_colwise_scales(SourceType src, const void* x, std::int64_t K, std::int64_t N,
                                  const std::int64_t* offs, std::int64_t G, const Recipe& r, std::uint8_t* q,
                                  std::uint32_t* scales, cudaStream_t stream) {
  require(K >= 0 && N >= 0, "x_k_n: negative shape (" + std::to_string(K) + ", " + std::to_string(N) + ")");
  require_groups(G, offs);
  const bool out_vec = K % 8 == 0;
  if (G == 0 || K / G <= kSplitRows) {
    // 64-column tiles of 256-row pieces. Groups of up to `stages` pieces are read once, larger
    // ones (up to kSplitRows on average) once from HBM and again from L2 for the cast: three
    // stages (two CTAs per SM); where the groups average more than three pieces, three stages of
    // 512-row pieces (64 KB, one CTA per SM: bf16 groups of up to 1536 rows read once). H100, % of
    // copy, two runs each (2026-11-26): at 16 groups (1040 rows on average) three stages
    // 56.8-56.9, four 61.1-62.0; at 64 groups three 67.1, four 54.8-55.0. Three or more runs
    // each (2026-11-28): at 16 groups three 64 KB stages 67.3-67.5 against 64.9-65.1 for four of
    // 32 KB (dual form 63.1-63.8 against 59.7-59.9), two of 96 KB 65.6-65.7; at 64 and 128 groups
    // 64 KB stages lose 12 and 18 points. 128-column tiles (128-row pieces, once taken below 192
    // rows on average) measured 56.5-56.6 against 58.9 at 128 groups and 49-53 against 56-67 at
    // 16 and 64 groups.
    const auto launch = [&](auto map) {
      quant::launch_column_blocks<64, 1, 64, 32, TorchaoRowwisePow2Core>(src, x, N, q, scales, false, out_vec, r, map,
                                                                         G + 1, stream);
    };
    // Items in groups of 4 tiles where the groups average 256 rows or more (H100, % of copy at
    // 16 / 64 groups: 64.7-64.9 / 74.1-74.2 against 62.0-62.5 / 66.8 range-major), range-major
    // below (128 groups, 130 rows: 58.7 against 56.7-56.8).
    const int tile_group_log2 = G > 0 && K / G >= 256 ? 2 : 0;
    if (G > 0 && K / G > 3 * 256) launch(GroupColMap<3, 64 * 1024>{K, N, G, offs, tile_group_log2});
    else launch(GroupColMap<3>{K, N, G, offs, tile_group_log2});
    return;
  }
  // Large groups: few (group, tile) items would leave SMs idle. Where a cluster holds every range,
  // one read (H100, % of copy at one group: 55.3 against 53.0 for the split path below, the dual
  // form 54.5 against 49.9).
  if (launch_per_group_col_cluster<TorchaoRowwisePow2Core>(src, x, K, N, offs, G, r, q, scales, stream)) return;
  // Otherwise split each group into S parts of about 256 rows, reduce the keys of all parts into a
  // workspace, then cast. Reads the input twice.
  const std::int64_t S = (K / G + 255) / 256;
  const GroupPartMap map{K, N, G, S, offs};
  std::uint32_t* keys = nullptr;
  const std::size_t key_bytes = std::size_t(G * N) * sizeof(std::uint32_t);
  if (key_bytes == 0) return;
  OCTET_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&keys), key_bytes, stream));
  OCTET_CUDA_CHECK(cudaMemsetAsync(keys, 0, key_bytes, stream));
  if (!quant::launch_column_stream_mode<64, 1, quant::KeyMode::Store, TorchaoRowwisePow2Core>(
          src, x, N, q, scales, false, out_vec, r, map, (G + 1) * S, stream, keys) ||
      !quant::launch_column_stream_mode<64, 1, quant::KeyMode::Load, TorchaoRowwisePow2Core>(
          src, x, N, q, scales, false, out_vec, r, map, (G + 1) * S, stream, keys)) {
    quant::launch_column_tiles<64, 1, 32, quant::KeyMode::Store>(src, x, N, q, scales, false, out_vec, r, map,
                                                                     (G + 1) * S, stream, keys);
    quant::launch_column_tiles<64, 1, 32, quant::KeyMode::Load>(src, x, N, q, scales, false, out_vec, r, map,
                                                                    (G + 1) * S, stream, keys);
  }
  OCTET_CUDA_CHECK(cudaFreeAsync(keys, stream));
}

}  // namespace octet::cuda
