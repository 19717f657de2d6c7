// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// sm90_bf16_fp8_rowwise_quant.cu — FP8 rowwise quantisation of a 2D activation, one scale per row.
// Peer:     pytorch/ao torchao/prototype/moe_training/kernels/float8_rowwise.py::
//           triton_fp8_rowwise_2d_scale_and_cast (recipe torchao_fp8_rowwise_pow2 by default;
//           any recipe runs, through scale_core.hpp).
// Equals:   octet::fp8_rowwise_2d_scale_and_cast (emulator/src/kernels/fp8_rowwise.cpp), bytes of
//           codes and scales.
// Kernel:   row_segments_kernel (sm90_quant_common.cuh): one warp per row (32 lanes x 16-byte
//           chunks, 10 chunks per lane kept in registers, the rest of a row read four chunks at a
//           time and re-read from L2 for the cast: a register budget that lets several CTAs share
//           an SM), 256 threads per CTA, grid-stride over rows.
//           The 3D weight kernels (::triton_fp8_colwise_3d_scale_and_cast and
//           ::triton_fp8_rowwise_3d_transpose_rhs; octet::fp8_colwise_3d_scale_and_cast,
//           fp8_rowwise_3d_transpose_rhs) are the same kernel: each scale block is a contiguous run
//           of the input whose codes keep its offsets (see below).
// Bytes:    M*K*sizeof(in) read, M*K codes + 4*M scale bytes written.
#include "quant.hpp"
#include "sm90_quant_common.cuh"

namespace octet::cuda {
namespace {

// Segment m = row m.
struct RowMap {
  std::int64_t K;
  __device__ quant::Segment operator()(std::int64_t m) const { return {m * K, K, m, false}; }
};

}  // namespace

void fp8_rowwise_2d_scale_and_cast(SourceType src, const void* x, std::int64_t M, std::int64_t K, const Recipe& r,
                                   std::uint8_t* q, std::uint32_t* scales, cudaStream_t stream) {
  require(M >= 0 && K >= 0, "a_m_k: negative shape (" + std::to_string(M) + ", " + std::to_string(K) + ")");
  quant::launch_row_segments<32, 40>(src, x, q, scales, false, r, RowMap{K}, M, stream);
}

// B_t (E, K, N) per-expert column-major: column n of expert e is the contiguous run x[(e*N + n)*K,
// + K), and the codes keep that layout: the row kernel over E*N runs of K.
void fp8_colwise_3d_scale_and_cast(SourceType src, const void* x, std::int64_t E, std::int64_t K, std::int64_t N,
                                   const Recipe& r, std::uint8_t* q, std::uint32_t* scales, cudaStream_t stream) {
  require(E >= 0 && K >= 0 && N >= 0, "b_e_k_n: negative shape (" + std::to_string(E) + ", " + std::to_string(K) +
                                          ", " + std::to_string(N) + ")");
  quant::launch_row_segments<32, 40>(src, x, q, scales, false, r, RowMap{K}, E * N, stream);
}

// B_t (E, K, N) row-major: row k of expert e is the run x[(e*K + k)*N, + N); the codes (E, N, K)
// with strides (N*K, 1, N) sit at the same offsets: the row kernel over E*K runs of N.
void fp8_rowwise_3d_transpose_rhs(SourceType src, const void* x, std::int64_t E, std::int64_t K, std::int64_t N,
                                  const Recipe& r, std::uint8_t* q, std::uint32_t* scales, cudaStream_t stream) {
  require(E >= 0 && K >= 0 && N >= 0, "b_e_k_n: negative shape (" + std::to_string(E) + ", " + std::to_string(K) +
                                          ", " + std::to_string(N) + ")");
  quant::launch_row_segments<32, 40>(src, x, q, scales, false, r, RowMap{N}, E * K, stream);
}

}  // namespace octet::cuda
