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
//           64- or 128-column tile), the CTA copying whole row pieces into shared memory by
//           cp.async up to three pieces ahead; groups of up to three pieces (768 rows at 64
//           columns) are read
//           once, larger ones twice (the second read mostly from L2); codes transposed in
//           registers, 8 rows of a column per store; whole 8-row blocks without per-row tests
//           (kWholeBlockPaths). column_tiles_kernel where it does not apply (unaligned input,
//           N % 8 != 0).
//           With groups of more than 2048 rows on average (G = 1 at K = 16640) each group is
//           split into ~256-row parts: a key pass (atomicMax of integer keys into a G*N workspace)
//           then a cast pass, each over (G+1)*S*tiles items (column_stream_kernel's KeyMode::Store
//           and Load, column_tiles_kernel's where it does not apply); the input is read twice, so
//           at most 3/5 of the copy rate in the counted bytes (170 MB of the 16640x5120 input do
//           not fit the 50 MB L2 between the passes).
//           OCTET_CUDA_PER_GROUP_COLWISE_TILE=64|128 forces the tile width (tuning sweeps).
// Bytes:    K_total*N*sizeof(in) read, the same count of codes + 4*G*(rows or cols) written.
#include <cstdlib>

#include "quant.hpp"
#include "sm90_quant_column_stream.cuh"
#include "sm90_quant_row_stream.cuh"

namespace octet::cuda {
namespace {

// Average group size (rows) above which the colwise kernel splits groups over several CTAs.
constexpr std::int64_t kSplitRows = 2048;

using layout_detail::group_begin;

// Colwise: G + 1 row ranges, the last one the zero-filled rows [offs[G-1], K).
struct GroupColMap {
  static constexpr bool kWholeBlockPaths = true;  // column_stream_kernel's traits
  static constexpr int kStreamStages = 3;         // groups of up to three pieces read once
  std::int64_t K, N, G;
  const std::int64_t* offs;
  __device__ quant::RowRange range(std::int64_t g) const {
    return {group_begin(offs, g), g < G ? offs[g] : K, g == G};
  }
  __device__ std::int64_t scale_index(std::int64_t g, std::int64_t n) const { return g * N + n; }
  __device__ std::int64_t out_offset(std::int64_t k, std::int64_t n) const { return n * K + k; }
};

// Colwise with large groups: every range (group or tail) split into S parts of about
// size / S rows; the scale block stays the group (key and scale index g*N + n).
struct GroupPartMap {
  static constexpr bool kWholeBlockPaths = true;  // column_stream_kernel's traits
  static constexpr int kStreamStages = 3;
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
    // Groups of up to three ~32 KB stages (768 rows of 64 columns, 384 of 128) are read once, larger
    // ones (up to kSplitRows on average) once from HBM and again from L2 for the cast. Small groups
    // take 128-column tiles (two 128-row pieces), larger ones 64-column tiles.
    const GroupColMap map{K, N, G, offs};
    // OCTET_CUDA_PER_GROUP_COLWISE_TILE = 64 or 128 forces the width (tuning sweeps), read once.
    static const int forced_tile = [] {
      const char* v = std::getenv("OCTET_CUDA_PER_GROUP_COLWISE_TILE");
      return v != nullptr ? std::atoi(v) : 0;
    }();
    const bool narrow = forced_tile != 0 ? forced_tile == 128 : G > 0 && K / G < 192;
    if (narrow)
      quant::launch_column_blocks<128, 1, 64, 32, TorchaoRowwisePow2Core>(
          src, x, N, q, scales, false, out_vec, r, map, G + 1, stream);
    else
      quant::launch_column_blocks<64, 1, 64, 32, TorchaoRowwisePow2Core>(
          src, x, N, q, scales, false, out_vec, r, map, G + 1, stream);
    return;
  }
  // Large groups: few (group, tile) items would leave SMs idle; split each group into S parts of
  // about 256 rows, reduce the keys of all parts into a workspace, then cast. Reads the input twice.
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
