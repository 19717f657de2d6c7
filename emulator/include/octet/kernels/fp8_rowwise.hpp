// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// fp8_rowwise.hpp — family 1: torchao FP8-rowwise MoE quantisers (reference/kernels.md §1,
// recipes.md §1), plus the result type shared by families 1–3 (fp8_per_group.hpp,
// fp8_blockwise.hpp).
//
// Peers, pytorch/ao `torchao/prototype/moe_training/kernels/float8_rowwise.py`:
//   fp8_rowwise_2d_scale_and_cast   ::triton_fp8_rowwise_2d_scale_and_cast
//                                   (_triton_fp8_rowwise_2d_fused_scale_and_cast_kernel)
//   fp8_colwise_3d_scale_and_cast   ::triton_fp8_colwise_3d_scale_and_cast (PR #4311)
//   fp8_rowwise_3d_transpose_rhs    ::triton_fp8_rowwise_3d_transpose_rhs (scale kernel with
//                                   tl.atomic_min over 128x128 tiles, then the cast kernel) and
//                                   ::triton_fp8_rowwise_3d_transpose_rhs_fused_reduction
//
// Inputs are bf16 (std::uint16_t bit patterns) or fp32, as View2D/View3D in elements. Outputs are
// owned (Fp8Quantized): element codes, one byte each, and the recipe's stored scales (fp32 bits,
// or an e8m0/e4m3 byte zero-extended; see storage(recipe)). The default recipe is the one the MoE
// autograd `_Float8GroupedMM` uses: torchao_fp8_rowwise_pow2 (round_scales_to_power_of_2=True).
// The torchao kernels return the encode multiplier s; the GEMM receives 1/s.
//
// Kernels and layouts (strides in elements, outermost first):
//   fp8_rowwise_2d_scale_and_cast   A (M, K), any strides -> data (M, K) row-major (K, 1),
//                                   scales (M, 1) strides (1, 1); one scale per row (amax over K).
//                                   Forward A and backward grad_out.
//   fp8_colwise_3d_scale_and_cast   B_t (E, K, N) per-expert column-major (K*N, 1, K), required
//                                   (the autograd asserts it) -> data (E, K, N) with the same
//                                   strides, scales (E, 1, N) strides (N, N, 1); amax over K per
//                                   (e, n). Forward weights.
//   fp8_rowwise_3d_transpose_rhs    B_t (E, K, N), any strides -> data (E, N, K) strides
//                                   (N*K, 1, N), scales (E, K) row-major; amax over N per (e, k).
//                                   dgrad RHS. The peer takes the minimum over 128x128 tiles of the
//                                   per-tile scale (atomic_min into +inf); scale_from_amax is
//                                   monotone non-increasing in amax, so that minimum is the scale of
//                                   the row amax, which is what octet computes (bit-identical to
//                                   the fused-reduction variant). With N == 0 the atomic kernel
//                                   leaves +inf; octet writes the scale of an empty row
//                                   (scale_from_amax(amax_init)), as the fused variant does.
//
// Every block's elements are visited in increasing reduction index (so the NaN rule of the recipe's
// amax_update sees them in one fixed order), and the bytes do not depend on the OpenMP thread
// count. Errors: std::invalid_argument naming the argument.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "octet/scale.hpp"
#include "octet/tensor.hpp"

namespace octet {

// A strided layout in elements: shape and strides, outermost dimension first.
struct Fp8Layout {
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;

  std::int64_t numel() const {
    std::int64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
  }
  // Flat offset of a logical index (one entry per dimension).
  std::int64_t offset(std::initializer_list<std::int64_t> index) const {
    std::int64_t off = 0;
    std::size_t d = 0;
    for (auto i : index) off += i * strides[d++];
    return off;
  }
};

// The output of one quantiser. `data` holds every byte of the output storage (its size is the
// storage extent of data_layout, padding included); bytes the peer never writes (rows past
// offs[-1], columns of no group) are 0x00 here. `scales` likewise for scale_layout.
struct Fp8Quantized {
  std::vector<std::uint8_t> data;
  Fp8Layout data_layout;
  std::vector<std::uint32_t> scales;  // stored scale bits, per storage(recipe)
  Fp8Layout scale_layout;
};

// Template parameter In of every kernel in families 1–3: float (fp32) or std::uint16_t (bf16 bits).

template <class In>
Fp8Quantized fp8_rowwise_2d_scale_and_cast(View2D<const In> a_m_k,
                                           const Recipe& r = recipe("torchao_fp8_rowwise_pow2"));

template <class In>
Fp8Quantized fp8_colwise_3d_scale_and_cast(View3D<const In> b_e_k_n,
                                           const Recipe& r = recipe("torchao_fp8_rowwise_pow2"));

template <class In>
Fp8Quantized fp8_rowwise_3d_transpose_rhs(View3D<const In> b_e_k_n,
                                          const Recipe& r = recipe("torchao_fp8_rowwise_pow2"));

}  // namespace octet
