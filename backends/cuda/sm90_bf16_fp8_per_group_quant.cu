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
//           by cp.async into three stages (four where groups average more than 768 rows); a
//           group that fits the stages is read once, a larger one twice (the second read mostly
//           from L2); codes transposed in registers, 8 rows of a column per store; whole 8-row
//           blocks without per-row tests (kWholeBlockPaths). column_tiles_kernel where it does
//           not apply (unaligned input, N % 8 != 0).
//           With groups of more than 2048 rows on average (G = 1 at K = 16640) each group is
//           split into ~256-row parts: a key pass (atomicMax of integer keys into a G*N workspace)
//           then a cast pass, each over (G+1)*S*tiles items (column_stream_kernel's KeyMode::Store
//           and Load, column_tiles_kernel's where it does not apply); the input is read twice, so
//           at most 3/5 of the copy rate in the counted bytes (170 MB of the 16640x5120 input do
//           not fit the 50 MB L2 between the passes).
// Bytes:    K_total*N*sizeof(in) read, the same count of codes + 4*G*(rows or cols) written.

#include "quant.hpp"
#include "sm90_quant_column_stream.cuh"
#include "sm90_quant_row_stream.cuh"

namespace octet::cuda {
namespace {

// Average group size (rows) above which the colwise kernel splits groups over several CTAs.
constexpr std::int64_t kSplitRows = 2048;

using layout_detail::group_begin;

// Colwise: G + 1 row ranges, the last one the zero-filled rows [offs[G-1], K); kStages ~32 KB
// stages per CTA (a group of up to kStages pieces is read once).
template <int kStages>
struct GroupColMap {
  static constexpr bool kWholeBlockPaths = true;  // column_stream_kernel's traits
  static constexpr int kStreamStages = kStages;
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
    // 64-column tiles of 256-row pieces. Groups of up to `stages` pieces are read once, larger
    // ones (up to kSplitRows on average) once from HBM and again from L2 for the cast: three
    // stages (two CTAs per SM), four (one CTA per SM) where the groups average more than three
    // pieces. H100, % of copy, two runs each (2026-11-26): at 16 groups (1040 rows on average)
    // three stages 56.8-56.9, four 61.1-62.0; at 64 groups three 67.1, four 54.8-55.0. 128-column
    // tiles (128-row pieces, once taken below 192 rows on average) measured 56.5-56.6 against
    // 58.9 at 128 groups and 49-53 against 56-67 at 16 and 64 groups.
    const auto launch = [&](auto map) {
      quant::launch_column_blocks<64, 1, 64, 32, TorchaoRowwisePow2Core>(src, x, N, q, scales, false, out_vec, r, map,
                                                                         G + 1, stream);
    };
    // Items in groups of 4 tiles where the groups average 256 rows or more (H100, % of copy at
    // 16 / 64 groups: 64.7-64.9 / 74.1-74.2 against 62.0-62.5 / 66.8 range-major), range-major
    // below (128 groups, 130 rows: 58.7 against 56.7-56.8).
    const int tile_group_log2 = G > 0 && K / G >= 256 ? 2 : 0;
    if (G > 0 && K / G > 3 * 256) launch(GroupColMap<4>{K, N, G, offs, tile_group_log2});
    else launch(GroupColMap<3>{K, N, G, offs, tile_group_log2});
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
