// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// sm90_bf16_fp8_blockwise_quant.cu — blockwise FP8 quantisation, DeepSeek-V3 style: 1x128 blocks
// along K (activations, LHS), 128x1 blocks along M (activations, RHS) and 128x128 tiles (weights).
// Peer:     pytorch/ao torchao/prototype/blockwise_fp8_training/kernels.py::
//           triton_fp8_blockwise_act_quant_lhs, triton_fp8_blockwise_act_quant_rhs,
//           triton_fp8_blockwise_weight_quant_rhs (default recipe torchao_blockwise; te_blockwise
//           and the DeepGEMM recipes run through scale_core.hpp as well); deepseek-ai/DeepGEMM
//           deep_gemm/utils/math.py::per_token_cast_to_fp8 (recipe deepgemm).
// Equals:   octet::fp8_blockwise_act_quant_lhs / _act_quant_rhs / _weight_quant_rhs,
//           octet::deepgemm_per_token_cast_to_fp8 (emulator/src/kernels/fp8_blockwise.cpp), bytes of
//           codes and scales.
// Kernels:  act lhs, per_token: row_segments_kernel, 16 lanes per 128-element block (a warp reads
//           two blocks, 512 contiguous bytes of bf16, per instruction; four blocks per lane group
//           in flight), codes row-major, scales column-major (lhs) or row-major (per_token).
//           act rhs: column_tiles_kernel, 128-row ranges (the last may be partial) x 128 columns.
//           weight rhs: column_tiles_kernel, 128x128 tiles (16 row lanes x 16 column chunks), one
//           amax per tile. Both read each element once (128 rows cached in registers for bf16)
//           and write the codes column-major through a shared-memory transpose.
// Bytes:    M*K*sizeof(in) read, M*K codes + 4 bytes per block written.
#include "quant.hpp"
#include "sm90_quant_common.cuh"

namespace octet::cuda {
namespace {

constexpr std::int64_t kBlock = 128;

void require_multiple(std::int64_t value, const std::string& what, const std::string& peer_assert) {
  require(value % kBlock == 0, what + " = " + std::to_string(value) + " is not a multiple of 128 (" + peer_assert + ")");
}
void require_shape(std::int64_t rows, std::int64_t cols, const std::string& what) {
  require(rows >= 0 && cols >= 0,
          what + ": negative shape (" + std::to_string(rows) + ", " + std::to_string(cols) + ")");
}

// act lhs: block (m, kb) = x[m, 128kb .. 128kb+128), scale at kb*M + m.
struct LhsMap {
  std::int64_t M, Kb;
  __device__ quant::Segment operator()(std::int64_t id) const {
    const std::int64_t m = id / Kb, kb = id % Kb;
    return {id * kBlock, kBlock, kb * M + m, false};
  }
};

// act rhs: range b = rows [128b, min(128b + 128, M)); scale (b, k) at b*K + k.
struct RhsMap {
  std::int64_t M, K;
  __device__ quant::RowRange range(std::int64_t b) const {
    const std::int64_t r1 = (b + 1) * kBlock;
    return {b * kBlock, r1 < M ? r1 : M, false};
  }
  __device__ std::int64_t scale_index(std::int64_t b, std::int64_t k) const { return b * K + k; }
  __device__ std::int64_t out_offset(std::int64_t m, std::int64_t k) const { return k * M + m; }
};

// DeepGEMM per_token: block (m, nb) = x[m, 128nb .. min(128nb + 128, N)) (the last one partial:
// DeepGEMM pads with zeros, which cannot change an amax), scale at m*Nb + nb (row-major).
struct TokenMap {
  std::int64_t N, Nb;
  __device__ quant::Segment operator()(std::int64_t id) const {
    const std::int64_t m = id / Nb, c0 = (id % Nb) * kBlock;
    return {m * N + c0, N - c0 < kBlock ? N - c0 : kBlock, id, false};
  }
};

// weight rhs, E stacked (M, N) matrices as (E*M, N) rows: range i = tile row mb = i % Mb of
// expert e = i / Mb; scale (e, mb, nb) at e*Mb*Nb + nb*Mb + mb; codes of expert e column-major.
struct WeightMap {
  std::int64_t M, N, Mb, Nb;
  __device__ quant::RowRange range(std::int64_t i) const { return {i * kBlock, (i + 1) * kBlock, false}; }
  __device__ std::int64_t scale_index(std::int64_t i, std::int64_t n) const {
    return (i / Mb) * Mb * Nb + (n / kBlock) * Mb + i % Mb;
  }
  __device__ std::int64_t out_offset(std::int64_t row, std::int64_t n) const {
    const std::int64_t e = row / M;
    return e * M * N + n * M + (row - e * M);
  }
};

}  // namespace

void fp8_blockwise_act_quant_lhs(SourceType src, const void* x, std::int64_t M, std::int64_t K, const Recipe& r,
                                 std::uint8_t* q, std::uint32_t* scales, cudaStream_t stream) {
  require_shape(M, K, "x_m_k");
  require_multiple(K, "x_m_k: K", "torchao triton_fp8_blockwise_act_quant_lhs asserts x.size(-1) % 128 == 0");
  quant::launch_row_segments<16, 4, 4>(src, x, q, scales, false, r, LhsMap{M, K / kBlock}, M * (K / kBlock), stream);
}

void deepgemm_per_token_cast_to_fp8(SourceType src, const void* x, std::int64_t M, std::int64_t N, const Recipe& r,
                                    std::uint8_t* q, std::uint32_t* scales, cudaStream_t stream) {
  require_shape(M, N, "x_m_n");
  const std::int64_t Nb = (N + kBlock - 1) / kBlock;
  quant::launch_row_segments<16, 4, 4>(src, x, q, scales, false, r, TokenMap{N, Nb}, M * Nb, stream);
}

void fp8_blockwise_act_quant_rhs(SourceType src, const void* x, std::int64_t M, std::int64_t K, const Recipe& r,
                                 std::uint8_t* q, std::uint32_t* scales, cudaStream_t stream) {
  require_shape(M, K, "x_m_k");
  require_multiple(K, "x_m_k: K", "torchao triton_fp8_blockwise_act_quant_rhs asserts x.size(-1) % 128 == 0");
  const std::int64_t Mb = (M + kBlock - 1) / kBlock;
  quant::launch_column_tiles<128, 1, 32>(src, x, K, q, scales, false, M % 8 == 0, r, RhsMap{M, K}, Mb, stream);
}

void fp8_blockwise_weight_quant_rhs(SourceType src, const void* x, std::int64_t M, std::int64_t N, const Recipe& r,
                                    std::uint8_t* q, std::uint32_t* scales, cudaStream_t stream) {
  fp8_blockwise_weight_quant_rhs_experts(src, x, 1, M, N, r, q, scales, stream);
}

void fp8_blockwise_weight_quant_rhs_experts(SourceType src, const void* x, std::int64_t E, std::int64_t M,
                                            std::int64_t N, const Recipe& r, std::uint8_t* q, std::uint32_t* scales,
                                            cudaStream_t stream) {
  require_shape(M, N, "x_m_n");
  require(E >= 0, "x_m_n: negative expert count " + std::to_string(E));
  const std::string peer = "torchao triton_fp8_blockwise_weight_quant_rhs asserts both dims % 128 == 0";
  require_multiple(M, "x_m_n: M", peer);
  require_multiple(N, "x_m_n: N", peer);
  const std::int64_t Mb = M / kBlock, Nb = N / kBlock;
  quant::launch_column_tiles<128, 128, 32>(src, x, N, q, scales, false, true, r, WeightMap{M, N, Mb, Nb}, E * Mb,
                                            stream);
}

}  // namespace octet::cuda
