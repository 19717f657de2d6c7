// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// sm90_bf16_fp8_rowwise_quant.cu — FP8 rowwise quantisation of a 2D activation, one scale per row.
// Peer:     pytorch/ao torchao/prototype/moe_training/kernels/float8_rowwise.py::
//           triton_fp8_rowwise_2d_scale_and_cast (recipe torchao_fp8_rowwise_pow2 by default;
//           any recipe runs, through scale_core.hpp).
// Equals:   octet::fp8_rowwise_2d_scale_and_cast (emulator/src/kernels/fp8_rowwise.cpp), bytes of
//           codes and scales.
// Kernel:   row_segments_kernel (sm90_quant_common.cuh): 16, 64 or 128 lanes per row by its
//           length, each keeping up to ten 16-byte chunks in registers (a whole row of up to 10240
//           bf16 elements is read from HBM once; longer rows re-read the rest from L2), grid-stride
//           over rows.
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
  static constexpr bool kEqualLengths = true;
  std::int64_t K;
  __device__ quant::Segment operator()(std::int64_t m) const { return {m * K, K, m, false}; }
};

// `count` rows of `len` elements, each lane holding up to ten 16-byte chunks (40 words) in
// registers: the fixed cost of an iteration (the map, the reduction, the scale) is paid per lane,
// so few lanes with many chunks each beat many lanes with few (H200, 16640x5120: 64 lanes x 10
// chunks 90 us, 128 x 6 106 us, 256 x 4 128 us, 128 x 10 122 us).
void launch_rows(SourceType src, const void* x, std::int64_t len, std::int64_t count, const Recipe& r, std::uint8_t* q,
                 std::uint32_t* scales, cudaStream_t stream) {
  const std::int64_t chunks = (len + quant::kChunk - 1) / quant::kChunk;  // rows start on the 8-element grid
  if (chunks > 640)
    quant::launch_row_segments<128, 40>(src, x, q, scales, false, r, RowMap{len}, count, stream);
  else if (chunks > 192)
    quant::launch_row_segments<64, 40>(src, x, q, scales, false, r, RowMap{len}, count, stream);
  else
    quant::launch_row_segments<16, 40>(src, x, q, scales, false, r, RowMap{len}, count, stream);
}

}  // namespace

void fp8_rowwise_2d_scale_and_cast(SourceType src, const void* x, std::int64_t M, std::int64_t K, const Recipe& r,
                                   std::uint8_t* q, std::uint32_t* scales, cudaStream_t stream) {
  require(M >= 0 && K >= 0, "a_m_k: negative shape (" + std::to_string(M) + ", " + std::to_string(K) + ")");
  launch_rows(src, x, K, M, r, q, scales, stream);
}

// B_t (E, K, N) per-expert column-major: column n of expert e is the contiguous run x[(e*N + n)*K,
// + K), and the codes keep that layout: the row kernel over E*N runs of K.
void fp8_colwise_3d_scale_and_cast(SourceType src, const void* x, std::int64_t E, std::int64_t K, std::int64_t N,
                                   const Recipe& r, std::uint8_t* q, std::uint32_t* scales, cudaStream_t stream) {
  require(E >= 0 && K >= 0 && N >= 0, "b_e_k_n: negative shape (" + std::to_string(E) + ", " + std::to_string(K) +
                                          ", " + std::to_string(N) + ")");
  launch_rows(src, x, K, E * N, r, q, scales, stream);
}

// B_t (E, K, N) row-major: row k of expert e is the run x[(e*K + k)*N, + N); the codes (E, N, K)
// with strides (N*K, 1, N) sit at the same offsets: the row kernel over E*K runs of N.
void fp8_rowwise_3d_transpose_rhs(SourceType src, const void* x, std::int64_t E, std::int64_t K, std::int64_t N,
                                  const Recipe& r, std::uint8_t* q, std::uint32_t* scales, cudaStream_t stream) {
  require(E >= 0 && K >= 0 && N >= 0, "b_e_k_n: negative shape (" + std::to_string(E) + ", " + std::to_string(K) +
                                          ", " + std::to_string(N) + ")");
  launch_rows(src, x, N, E * K, r, q, scales, stream);
}

}  // namespace octet::cuda
