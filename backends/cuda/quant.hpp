// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// quant.hpp — host API of the CUDA quantisers (sm90_bf16_fp8_rowwise_quant.cu,
// sm90_bf16_fp8_per_group_quant.cu, sm90_bf16_fp8_blockwise_quant.cu, sm90_bf16_mx_quant.cu).
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

}  // namespace octet::cuda
