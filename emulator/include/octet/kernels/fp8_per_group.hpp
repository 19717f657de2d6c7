// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// fp8_per_group.hpp — family 2: torchao "jagged" FP8-rowwise quantisers with one scale per
// (group, row) or (group, column), for the MoE wgrad (reference/kernels.md §1, recipes.md §1).
//
// Peers, pytorch/ao `torchao/prototype/moe_training/kernels/jagged_float8_scales.py`:
//   fp8_per_group_rowwise_scales       ::triton_fp8_per_group_rowwise_scales
//   fp8_per_group_colwise_scales       ::triton_fp8_per_group_colwise_scales
//   fp8_per_group_colwise_scales_dual  ::triton_fp8_per_group_colwise_scales_dual (PR #4069)
// and the torch references in `torchao/prototype/moe_training/utils.py`
// (torch_to_float8_per_group_rowwise / _colwise), which loop over offs.tolist().
//
// `offs` (int32 or int64) holds the inclusive cumulative group ends (kernels.md §0); empty groups
// are legal; offs[-1] may be below the grouped extent. Default recipe: torchao_fp8_rowwise_pow2
// (the autograd passes round_scales_to_power_of_2=True).
//
// Kernels and layouts (strides in elements):
//   fp8_per_group_rowwise_scales       x (M, K_total), any strides; groups along the columns
//                                      (offs over dim 1) -> data (M, K_total) row-major (K_total, 1);
//                                      scales flat (M*G,): [g0r0 .. g0r(M-1), g1r0, ..]; one block
//                                      per (g, m) = row m restricted to group g's columns.
//   fp8_per_group_colwise_scales       x (K, N), any strides; groups along the rows (offs over
//                                      dim 0) -> data (K, N) column-major (1, K); scales flat
//                                      (N*G,): [g0c0 .. g0c(N-1), g1c0, ..]; one block per (g, n).
//   fp8_per_group_colwise_scales_dual  x1 (K, N1) and x2 (K, N2) sharing offs -> two results as
//                                      above (both inputs must have the same K).
//
// Defined behaviour where the peer leaves memory undefined or has a bug:
//   * Empty group: its scales are written, as the peer writes them (the peer's amax stays at its
//     zero initial value): scale_from_amax(r, amax_init(r)), i.e. 448/EPS rounded (2^48 with pow2).
//     It owns no data bytes.
//   * Rows (colwise) or columns (rowwise) at or past offs[-1] belong to no group: the peer never
//     writes them (torch.empty); octet leaves them 0x00.
//   * K1 (kernels.md §12, jagged_float8_scales.py:313-316 at 36027d82d1ad): the single-tensor
//     colwise kernel may pick a fused single-pass path that loads only next_pow2(ceil(K/G)) rows per
//     group, so a group larger than that has its tail rows ignored by the amax and left unwritten.
//     That is a peer bug; octet always covers every row of every group (the intended semantics,
//     which the production _dual kernel implements).
//   * K2 (kernels.md §12, L231/L470/L572): the peer's scale-store masks compare the lane index,
//     tl.arange(0, BLOCK_SIZE) < M (or < N), with the extent instead of the global index, so when M
//     (or N) is not a multiple of BLOCK_SIZE the last block stores scales past its group's slice
//     (into the next group's, or past the buffer). That is a peer bug; octet writes exactly the
//     M (N) scales of each group.
// NaN/Inf follow the recipe's amax_update / scale_from_amax / quantize_element (recipes.md §8).
// Each block's elements are visited in increasing index; bytes do not depend on the OpenMP thread
// count. Errors (std::invalid_argument, naming the argument): non-monotonic offs, offs past the
// grouped extent, x1/x2 row-count mismatch, a negative shape or null data.
#pragma once

#include <cstdint>
#include <span>
#include <utility>

#include "octet/kernels/fp8_rowwise.hpp"

namespace octet {

// In: float (fp32) or std::uint16_t (bf16 bits). Int: std::int32_t or std::int64_t.

template <class In, class Int>
Fp8Quantized fp8_per_group_rowwise_scales(View2D<const In> x_m_k, std::span<const Int> offs,
                                          const Recipe& r = recipe("torchao_fp8_rowwise_pow2"));

template <class In, class Int>
Fp8Quantized fp8_per_group_colwise_scales(View2D<const In> x_k_n, std::span<const Int> offs,
                                          const Recipe& r = recipe("torchao_fp8_rowwise_pow2"));

template <class In, class Int>
std::pair<Fp8Quantized, Fp8Quantized> fp8_per_group_colwise_scales_dual(
    View2D<const In> x1_k_n1, View2D<const In> x2_k_n2, std::span<const Int> offs,
    const Recipe& r = recipe("torchao_fp8_rowwise_pow2"));

}  // namespace octet
