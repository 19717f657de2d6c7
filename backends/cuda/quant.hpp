// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// quant.hpp — host API of the CUDA quantisers (sm90_bf16_fp8_rowwise_quant.cu,
// sm90_bf16_fp8_per_group_quant.cu, sm90_bf16_fp8_blockwise_quant.cu, sm90_bf16_mx_quant.cu,
// sm90_recipe_format_kernels.cu).
// Each function is the emulator kernel of the same name on device pointers and produces the same
// bytes: codes, scales and the 0x00 of elements that belong to no group.
//
// Conventions: `x` is a row-major (contiguous) device tensor of `src` (bf16 bits or fp32); `q`
// receives one code byte per element in the layout the emulator kernel documents; FP8 kernels
// write their scales as 32-bit words (the recipe's stored bits, as octet::Fp8Quantized holds
// them), MX kernels as e8m0 bytes. `offs` is a device array of G int64 inclusive group ends, which
// the caller has validated (octet::Groups: monotonic, at most the grouped extent). Every call is
// asynchronous on `stream`; argument errors throw std::invalid_argument before any launch, CUDA
// errors octet::cuda::Error. 64-bit indices throughout.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "octet/cast.hpp"
#include "octet/scale.hpp"

namespace octet::cuda {

// fp8_rowwise.hpp: x (M, K) -> q (M, K) row-major, scales (M,) words.
void fp8_rowwise_2d_scale_and_cast(SourceType src, const void* x, std::int64_t M, std::int64_t K, const Recipe& r,
                                   std::uint8_t* q, std::uint32_t* scales, cudaStream_t stream = nullptr);

// B_t (E, K, N) per-expert column-major (strides (K*N, 1, K)) -> q in the same layout, scales
// (E, N) [e*N + n] (the emulator's (E, 1, N)).
void fp8_colwise_3d_scale_and_cast(SourceType src, const void* x, std::int64_t E, std::int64_t K, std::int64_t N,
                                   const Recipe& r, std::uint8_t* q, std::uint32_t* scales,
                                   cudaStream_t stream = nullptr);
// B_t (E, K, N) row-major -> q (E, N, K) strides (N*K, 1, N), scales (E, K) row-major.
void fp8_rowwise_3d_transpose_rhs(SourceType src, const void* x, std::int64_t E, std::int64_t K, std::int64_t N,
                                  const Recipe& r, std::uint8_t* q, std::uint32_t* scales,
                                  cudaStream_t stream = nullptr);

// fp8_per_group.hpp: x (M, K), groups along K -> q (M, K) row-major, scales (G*M,) [g*M + m].
void fp8_per_group_rowwise_scales(SourceType src, const void* x, std::int64_t M, std::int64_t K,
                                  const std::int64_t* offs, std::int64_t G, const Recipe& r, std::uint8_t* q,
                                  std::uint32_t* scales, cudaStream_t stream = nullptr);
// x (K, N), groups along K -> q (K, N) column-major (q[n*K + k]), scales (G*N,) [g*N + n].
void fp8_per_group_colwise_scales(SourceType src, const void* x, std::int64_t K, std::int64_t N,
                                  const std::int64_t* offs, std::int64_t G, const Recipe& r, std::uint8_t* q,
                                  std::uint32_t* scales, cudaStream_t stream = nullptr);

// fp8_blockwise.hpp (K % 128 == 0 for the act kernels; M, N % 128 == 0 for the weight kernel):
// act lhs: x (M, K) -> q (M, K) row-major, scales (M, K/128) column-major [kb*M + m].
void fp8_blockwise_act_quant_lhs(SourceType src, const void* x, std::int64_t M, std::int64_t K, const Recipe& r,
                                 std::uint8_t* q, std::uint32_t* scales, cudaStream_t stream = nullptr);
// DeepGEMM per_token_cast_to_fp8: x (M, N) -> q (M, N) row-major, scales (M, ceil(N/128))
// row-major, 1x128 blocks (the last one of a row partial).
void deepgemm_per_token_cast_to_fp8(SourceType src, const void* x, std::int64_t M, std::int64_t N, const Recipe& r,
                                    std::uint8_t* q, std::uint32_t* scales, cudaStream_t stream = nullptr);
// act rhs: x (M, K) -> q (M, K) column-major [k*M + m], scales (ceil(M/128), K) row-major.
void fp8_blockwise_act_quant_rhs(SourceType src, const void* x, std::int64_t M, std::int64_t K, const Recipe& r,
                                 std::uint8_t* q, std::uint32_t* scales, cudaStream_t stream = nullptr);
// weight rhs: x (M, N) -> q (M, N) column-major [n*M + m], scales (M/128, N/128) strides (1, M/128).
void fp8_blockwise_weight_quant_rhs(SourceType src, const void* x, std::int64_t M, std::int64_t N, const Recipe& r,
                                    std::uint8_t* q, std::uint32_t* scales, cudaStream_t stream = nullptr);
// The same for E stacked expert matrices in one launch: x (E, M, N) row-major -> per expert e the
// codes at q + e*M*N and the scales at scales + e*(M/128)*(N/128), each as above.
void fp8_blockwise_weight_quant_rhs_experts(SourceType src, const void* x, std::int64_t E, std::int64_t M,
                                            std::int64_t N, const Recipe& r, std::uint8_t* q, std::uint32_t* scales,
                                            cudaStream_t stream = nullptr);
// act transposed lhs: x (M, K), M % 128 == 0 -> q (K, M) row-major [k*M + m], scales (K, M/128)
// strides (1, K) [b*K + k] (act rhs's bytes).
void fp8_blockwise_act_quant_transposed_lhs(SourceType src, const void* x, std::int64_t M, std::int64_t K,
                                            const Recipe& r, std::uint8_t* q, std::uint32_t* scales,
                                            cudaStream_t stream = nullptr);
// weight transposed rhs: x (M, N), M, N % 128 == 0 -> q (N, M) strides (1, N) [m*N + n], scales
// (N/128, M/128) strides (1, N/128) [i*(N/128) + j].
void fp8_blockwise_weight_quant_transposed_rhs(SourceType src, const void* x, std::int64_t M, std::int64_t N,
                                               const Recipe& r, std::uint8_t* q, std::uint32_t* scales,
                                               cudaStream_t stream = nullptr);
// 3D expert weights w (E, K, N) per-expert column-major (strides (K*N, 1, K)), K, N % 128 == 0:
// grouped transposed rhs -> q in the same layout, scales (E, K/128, N/128) strides (Kb*Nb, 1, Kb);
// grouped rhs -> q (E, N, K) strides (N*K, 1, N), scales (E, N/128, K/128) strides (Nb*Kb, 1, Nb).
void fp8_blockwise_weight_quant_grouped_transposed_rhs(SourceType src, const void* x, std::int64_t E, std::int64_t K,
                                                       std::int64_t N, const Recipe& r, std::uint8_t* q,
                                                       std::uint32_t* scales, cudaStream_t stream = nullptr);
void fp8_blockwise_weight_quant_grouped_rhs(SourceType src, const void* x, std::int64_t E, std::int64_t K,
                                            std::int64_t N, const Recipe& r, std::uint8_t* q, std::uint32_t* scales,
                                            cudaStream_t stream = nullptr);
// 128x128 scales (E, Kb, Nb) strides (Kb*Nb, 1, Kb) (E = 1: the 2D (Kb, Nb) strides (1, Kb)) ->
// padded (E, Kp, Nb) strides (Kp*Nb, 1, Kp), Kp = ceil(Kb/4)*4, the new entries pad_bits (1.0).
void fp8_blockwise_pad_scales_128x128(const std::uint32_t* scales, std::int64_t E, std::int64_t Kb, std::int64_t Nb,
                                      std::uint32_t* padded, std::uint32_t pad_bits = 0x3F800000u,
                                      cudaStream_t stream = nullptr);
// Token groups over the rows of x (M, D), 128-row blocks restarting at every group start (the last
// block of a group partial), B = sum_g ceil(size_g/128) blocks in group order. rhs grouped: q
// (M, D) column-major [d*M + m], rows past offs[-1] 0x00; scales (B, D) row-major. transposed lhs
// grouped: the same bytes, read as q (D, M) row-major and scales (D, B) strides (1, D). The caller
// sizes scales for B (the device reads offs; B <= ceil(M/128) + G).
void fp8_blockwise_act_quant_rhs_grouped(SourceType src, const void* x, std::int64_t M, std::int64_t D,
                                         const std::int64_t* offs, std::int64_t G, const Recipe& r, std::uint8_t* q,
                                         std::uint32_t* scales, cudaStream_t stream = nullptr);
void fp8_blockwise_act_quant_transposed_lhs_grouped(SourceType src, const void* x, std::int64_t M, std::int64_t D,
                                                    const std::int64_t* offs, std::int64_t G, const Recipe& r,
                                                    std::uint8_t* q, std::uint32_t* scales,
                                                    cudaStream_t stream = nullptr);
// DeepGEMM k-grouped: x (M, D), offs over M with every group size % 128 == 0 (validated by the
// caller: octet::Groups with alignment 128) -> q (offs[-1]*D,), group g's (D, size_g) row-major
// block at start_g*D; scales (D, offs[-1]/128) row-major. Rows past offs[-1] are not read.
void fp8_blockwise_act_quant_k_grouped_deepgemm(SourceType src, const void* x, std::int64_t M, std::int64_t D,
                                                const std::int64_t* offs, std::int64_t G, const Recipe& r,
                                                std::uint8_t* q, std::uint32_t* scales, cudaStream_t stream = nullptr);
// DeepGEMM per_channel_cast_to_fp8: x (M, N), M % 128 == 0 -> q (M, N) row-major, scales
// (M/128, N) row-major (128x1 blocks).
void deepgemm_per_channel_cast_to_fp8(SourceType src, const void* x, std::int64_t M, std::int64_t N, const Recipe& r,
                                      std::uint8_t* q, std::uint32_t* scales, cudaStream_t stream = nullptr);
// DeepGEMM per_block_cast_to_fp8: x (M, N) -> q (M, N) row-major, scales (ceil(M/128),
// ceil(N/128)) row-major (128x128 tiles, partial at the edges).
void deepgemm_per_block_cast_to_fp8(SourceType src, const void* x, std::int64_t M, std::int64_t N, const Recipe& r,
                                    std::uint8_t* q, std::uint32_t* scales, cudaStream_t stream = nullptr);

// mx_quantize.hpp (MX recipes: e8m0 scales, 8-bit elements):
// dim0: x (M, K), K % 32 == 0 -> q (M, K) row-major, scales (M, K/32) row-major bytes.
void mx_quantize_dim0(SourceType src, const void* x, std::int64_t M, std::int64_t K, const Recipe& r,
                      std::uint8_t* q, std::uint8_t* scales, cudaStream_t stream = nullptr);
// dim1: x (M, K), M % 32 == 0 -> q (M, K) column-major [k*M + m], scales (K, M/32) row-major bytes.
void mx_quantize_dim1(SourceType src, const void* x, std::int64_t M, std::int64_t K, const Recipe& r,
                      std::uint8_t* q, std::uint8_t* scales, cudaStream_t stream = nullptr);

// 3D weights: x (E, N, K) row-major, N % 32 == 0 (and K % 32 == 0 for 32x32) -> q (E, N, K)
// strides (N*K, 1, N); scales (E, N/32, K) (32x1) or (E, N/32, K/32) (32x32) row-major bytes.
void mx_quantize_3d(SourceType src, const void* x, std::int64_t E, std::int64_t N, std::int64_t K, bool block32x32,
                    const Recipe& r, std::uint8_t* q, std::uint8_t* scales, cudaStream_t stream = nullptr);

// Both directions from one input: x (rows, cols), rows % 32 == 0 and cols % 32 == 0, at least one
// of rowwise / colwise. rowwise: q_row (rows, cols) row-major, scales_row (rows, cols/32)
// row-major; colwise: q_col (rows, cols) column-major [c*rows + r], scales_col (cols, rows/32)
// strides (1, cols) [rb*cols + c]. The pointers of a direction not asked for are not used.
void mx_quantize_2d(SourceType src, const void* x, std::int64_t rows, std::int64_t cols, const Recipe& r,
                    bool rowwise, bool colwise, std::uint8_t* q_row, std::uint8_t* scales_row, std::uint8_t* q_col,
                    std::uint8_t* scales_col, cudaStream_t stream = nullptr);

// mx_blocked_scales: the quantiser's codes and its scales in the blocked 128x4 layout
// (octet::mx_blocked_scales). 2D: block 1x32 (block32x1 false) -> q as mx_quantize_dim0 and
// to_blocked of its (M, K/32) scales; 32x1 -> q as mx_quantize_dim1 and to_blocked of its
// (K, M/32) scales; scale_blocked Hp*Wp bytes. 3D: q as mx_quantize_3d; scale_blocked (E, Hp*Wp):
// per expert the (K, N/32) scales (a 32x32 scale repeated for its 32 k) through to_blocked. The
// plain scales live in stream-ordered scratch memory.
void mx_blocked_scales_2d(SourceType src, const void* x, std::int64_t M, std::int64_t K, bool block32x1,
                          const Recipe& r, std::uint8_t* q, std::uint8_t* scale_blocked, cudaStream_t stream = nullptr);
void mx_blocked_scales_3d(SourceType src, const void* x, std::int64_t E, std::int64_t N, std::int64_t K,
                          bool block32x32, const Recipe& r, std::uint8_t* q, std::uint8_t* scale_blocked,
                          cudaStream_t stream = nullptr);

// Dequantisation along dim 0 (octet::mx_dequantize_dim0_bf16 / _fp32): q (M, K) element codes
// row-major, K % 32 == 0; scales (M, K/32) e8m0 row-major -> y (M, K) row-major, bf16 bits
// (out_fp32 false) or fp32.
void mx_dequantize_dim0(const std::uint8_t* q, const std::uint8_t* scales, std::int64_t M, std::int64_t K,
                        const Recipe& r, bool out_fp32, void* y, cudaStream_t stream = nullptr);

// The recipe and format kernels of the golden runner (golden/src/adapters/recipe.cpp, formats.cpp):
// recipe_scale_from_amax: amax (n,) fp32 -> per element scale_from_amax: stored (n,) words
// (fp32 bits or the e8m0 / e4m3 code), encode (n,) and decode (n,) fp32.
void recipe_scale_from_amax(const float* amax, std::int64_t n, const Recipe& r, std::uint32_t* stored,
                            float* encode, float* decode, cudaStream_t stream = nullptr);
// recipe_quantize_blocks: x (rows, cols) row-major, blocks of `block` consecutive elements along
// each row (block > 0, cols % block == 0) -> q (rows, cols) row-major codes, stored
// (rows, cols/block) row-major words.
void recipe_quantize_blocks(SourceType src, const void* x, std::int64_t rows, std::int64_t cols, std::int64_t block,
                            const Recipe& r, std::uint8_t* q, std::uint32_t* stored, cudaStream_t stream = nullptr);
// decode: n codes of `format` (one byte each for formats of at most 8 bits, two otherwise; every
// code < code_count) -> values (n,) fp64 (octet::decode) and classes (n,) (Format::classify).
void decode_codes(FormatId format, const void* codes, std::int64_t n, double* values, std::uint8_t* classes,
                  cudaStream_t stream = nullptr);

}  // namespace octet::cuda
