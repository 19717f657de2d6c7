// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// fp8_blockwise.hpp — family 3: blockwise FP8 quantisers, 1x128 (along K), 128x1 (along M) and
// 128x128 (reference/kernels.md §3, recipes.md §3, §4.4, §5.1), DeepSeek-V3 style.
//
// Block size: kFp8BlockSize = 128 everywhere (the peers only use 128).
//
// Peers and layouts (shape, then strides in elements; "rm" = row-major):
//
// torchao `torchao/prototype/blockwise_fp8_training/kernels.py` (default recipe torchao_blockwise:
// s = fl32(448/fl64(max(amax, 1e-12))), stored div_rn(1, s)):
//   fp8_blockwise_act_quant_lhs             ::triton_fp8_blockwise_act_quant_lhs. x (M, K) rm,
//                                           K % 128 -> data (M, K) rm; scales (M, K/128) strides
//                                           (1, M) (column-major, for _scaled_mm).
//   fp8_blockwise_act_quant_rhs             ::triton_fp8_blockwise_act_quant_rhs. x (M, K) rm,
//                                           K % 128 (the peer asserts it although the blocks run
//                                           along M) -> data (M, K) strides (1, M); scales
//                                           (ceil(M/128), K) rm. One block per (128 rows, column).
//   fp8_blockwise_act_quant_transposed_lhs  ::triton_fp8_blockwise_act_quant_transposed_lhs.
//                                           x (M, K) rm, M % 128 -> data (K, M) rm; scales
//                                           (K, M/128) strides (1, K).
//   fp8_blockwise_weight_quant_rhs          ::triton_fp8_blockwise_weight_quant_rhs. x (M, N) rm,
//                                           M, N % 128 -> data (M, N) strides (1, M); scales
//                                           (M/128, N/128) strides (1, M/128).
//   fp8_blockwise_weight_quant_transposed_rhs  ::triton_fp8_blockwise_weight_quant_transposed_rhs.
//                                           x (M, N) rm -> data (N, M) strides (1, N); scales
//                                           (N/128, M/128) strides (1, N/128).
// torchao `torchao/prototype/blockwise_fp8_training/grouped_kernels.py` (3D expert weights):
//   fp8_blockwise_weight_quant_grouped_transposed_rhs
//                                           ::triton_fp8_blockwise_weight_quant_grouped_transposed_rhs.
//                                           w (E, K, N) per-expert column-major (K*N, 1, K),
//                                           K, N % 128 -> data (E, K, N) same strides; scales
//                                           (E, K/128, N/128) strides (Kb*Nb, 1, Kb). Forward B.
//   fp8_blockwise_weight_quant_grouped_rhs  ::triton_fp8_blockwise_weight_quant_grouped_rhs.
//                                           w (E, K, N) per-expert column-major -> data (E, N, K)
//                                           strides (N*K, 1, N); scales (E, N/128, K/128) strides
//                                           (Nb*Kb, 1, Nb). dgrad B.
//   fp8_blockwise_pad_scales_128x128        ::_prepare_grouped_128x128_scale (3D) and the 2D
//                                           _prepare_blockwise_scaled_mm_rhs_scale path: the k-block
//                                           dimension (dim -2, stride 1) padded to a multiple of 4
//                                           with the fp32 bits of 1.0, strides (Kp*Nb, 1, Kp) or
//                                           (1, Kp). Unchanged when already a multiple of 4.
// torchao `torchao/prototype/blockwise_fp8_training/deepgemm_quant.py`:
//   fp8_blockwise_act_quant_k_grouped_deepgemm  ::triton_fp8_blockwise_act_quant_k_grouped_deepgemm.
//                                           x (M, D) rm with offs over M, every group size % 128
//                                           (the peer asserts it; octet throws) -> flat data
//                                           (offs[-1]*D,): group g is a (D, size_g) rm block at
//                                           offset start_g*D; scales (D, offs[-1]/128) rm. One
//                                           block per (group's 128-row block, column). Rows past
//                                           offs[-1] are ignored (the peer allows them).
// Token-group blockwise (128-row blocks restart at every group start; the MoE wgrad operands,
// which torchao's blockwise MoE autograd pads to 128-row groups and then passes to
// act_quant_rhs / act_quant_transposed_lhs). With every group a multiple of 128 and
// offs[-1] == M these equal the dense kernels byte for byte; octet also defines the general case:
// a group's last block may be partial (amax over its rows only), and scale rows / columns are
// concatenated in group order, sum_g ceil(size_g/128) of them ("B"). Empty groups own nothing.
//   fp8_blockwise_act_quant_rhs_grouped     x (M, D), any strides, offs over M -> data (M, D)
//                                           strides (1, M); scales (B, D) rm.
//   fp8_blockwise_act_quant_transposed_lhs_grouped  x (M, D), any strides, offs over M ->
//                                           data (D, M) rm; scales (D, B) strides (1, D).
//   Rows at or past offs[-1]: data 0x00 (the peer's torch.empty leaves them undefined).
// DeepGEMM `deep_gemm/utils/math.py` (default recipe deepgemm: sf = fl32(max(amax, 1e-4)/448),
// q = (x * fl32(1/sf)).to(e4m3fn), no saturation; deepgemm_ue8m0 rounds sf up to 2^k):
//   deepgemm_per_token_cast_to_fp8          ::per_token_cast_to_fp8. x (m, n), any strides; n is
//                                           zero-padded to a multiple of 128 for the amax ->
//                                           data (m, n) rm (the padding is sliced off, as the peer
//                                           returns it); scales (m, ceil(n/128)) rm.
//   deepgemm_per_channel_cast_to_fp8        ::per_channel_cast_to_fp8. x (m, n), m % 128 (asserts)
//                                           -> data (m, n) rm; scales (m/128, n) rm.
//   deepgemm_per_block_cast_to_fp8          ::per_block_cast_to_fp8. x (m, n), any strides; m and n
//                                           zero-padded to multiples of 128 -> data (m, n) rm;
//                                           scales (ceil(m/128), ceil(n/128)) rm.
//   Zero padding adds |0| = 0 to a block's amax, which changes nothing (amax >= 0 under every
//   recipe's NaN rule), so octet takes the amax over the present elements only.
//
// Dims not divisible by 128 (K2-type cases): octet errors exactly where the peer asserts (the
// messages name the argument and the peer's assert), and otherwise computes the intended result.
// Peer bug: torchao act_quant_rhs loads a partial last 128-row block with mask but no `other=`,
// so the masked lanes hold undefined values that enter tl.max; octet takes the amax over the rows
// present. NaN/Inf: per the recipe (recipes.md §8). Inside a 128x128 tile the amax visits
// elements row-major over the tile's logical (row, column); 1D blocks in increasing index. Bytes
// do not depend on the OpenMP thread count. TE Float8BlockScaling's COMPACT / GEMM_READY layouts
// are not provided here; the 1x128 and 128x128 kernels accept recipe("te_blockwise") for its
// arithmetic.
#pragma once

#include <cstdint>
#include <span>

#include "octet/kernels/fp8_rowwise.hpp"

namespace octet {

inline constexpr std::int64_t kFp8BlockSize = 128;

// In: float (fp32) or std::uint16_t (bf16 bits). Int: std::int32_t or std::int64_t.

template <class In>
Fp8Quantized fp8_blockwise_act_quant_lhs(View2D<const In> x_m_k, const Recipe& r = recipe("torchao_blockwise"));
template <class In>
Fp8Quantized fp8_blockwise_act_quant_rhs(View2D<const In> x_m_k, const Recipe& r = recipe("torchao_blockwise"));
template <class In>
Fp8Quantized fp8_blockwise_act_quant_transposed_lhs(View2D<const In> x_m_k,
                                                    const Recipe& r = recipe("torchao_blockwise"));
template <class In>
Fp8Quantized fp8_blockwise_weight_quant_rhs(View2D<const In> x_m_n, const Recipe& r = recipe("torchao_blockwise"));
template <class In>
Fp8Quantized fp8_blockwise_weight_quant_transposed_rhs(View2D<const In> x_m_n,
                                                       const Recipe& r = recipe("torchao_blockwise"));

template <class In>
Fp8Quantized fp8_blockwise_weight_quant_grouped_transposed_rhs(View3D<const In> w_e_k_n,
                                                               const Recipe& r = recipe("torchao_blockwise"));
template <class In>
Fp8Quantized fp8_blockwise_weight_quant_grouped_rhs(View3D<const In> w_e_k_n,
                                                    const Recipe& r = recipe("torchao_blockwise"));

// Scales of a 128x128 kernel (2D or 3D, k-block dimension -2 with stride 1) padded for the GEMM.
// Returns the padded scales; `scale_layout` is updated to match. Throws if the layout is not one
// of those above.
Fp8Quantized fp8_blockwise_pad_scales_128x128(Fp8Quantized q, std::uint32_t pad_bits = 0x3F800000u);

template <class In, class Int>
Fp8Quantized fp8_blockwise_act_quant_k_grouped_deepgemm(View2D<const In> x_m_d, std::span<const Int> offs,
                                                        const Recipe& r = recipe("torchao_blockwise"));

template <class In, class Int>
Fp8Quantized fp8_blockwise_act_quant_rhs_grouped(View2D<const In> x_m_d, std::span<const Int> offs,
                                                 const Recipe& r = recipe("torchao_blockwise"));
template <class In, class Int>
Fp8Quantized fp8_blockwise_act_quant_transposed_lhs_grouped(View2D<const In> x_m_d, std::span<const Int> offs,
                                                            const Recipe& r = recipe("torchao_blockwise"));

template <class In>
Fp8Quantized deepgemm_per_token_cast_to_fp8(View2D<const In> x_m_n, const Recipe& r = recipe("deepgemm"));
template <class In>
Fp8Quantized deepgemm_per_channel_cast_to_fp8(View2D<const In> x_m_n, const Recipe& r = recipe("deepgemm"));
template <class In>
Fp8Quantized deepgemm_per_block_cast_to_fp8(View2D<const In> x_m_n, const Recipe& r = recipe("deepgemm"));

}  // namespace octet
