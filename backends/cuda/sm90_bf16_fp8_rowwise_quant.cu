// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// sm90_bf16_fp8_rowwise_quant.cu — FP8 rowwise quantisation of a 2D activation, one scale per row.
// Peer:     pytorch/ao torchao/prototype/moe_training/kernels/float8_rowwise.py::
//           triton_fp8_rowwise_2d_scale_and_cast (recipe torchao_fp8_rowwise_pow2 by default;
//           any recipe runs, through scale_core.hpp).
// Equals:   octet::fp8_rowwise_2d_scale_and_cast (emulator/src/kernels/fp8_rowwise.cpp), bytes of
//           codes and scales.
// Kernel:   row_stream_kernel (sm90_quant_row_stream.cuh): runs of whole rows copied into shared
//           memory by the bulk copy engine, one scale block per row, fixed-recipe scale code for
//           torchao_fp8_rowwise_pow2 (sm90_fixed_core.hpp). Where it does not apply (unaligned
//           pointers, K % 8 != 0, rows over 48 KB): row_segments_kernel (sm90_quant_common.cuh), 16,
//           64 or 128 lanes per row, each keeping up to ten 16-byte chunks in registers.
//           The 3D weight kernels (::triton_fp8_colwise_3d_scale_and_cast and
//           ::triton_fp8_rowwise_3d_transpose_rhs; octet::fp8_colwise_3d_scale_and_cast,
//           fp8_rowwise_3d_transpose_rhs) are the same kernel: each scale block is a contiguous run
//           of the input whose codes keep its offsets (see below).
// Bytes:    M*K*sizeof(in) read, M*K codes + 4*M scale bytes written.
#include "quant.hpp"
#include "sm90_quant_row_stream.cuh"

namespace octet::cuda {
namespace {

// The scale of row m at m.
struct RowScale {
  __device__ std::int64_t operator()(std::int64_t m, int) const { return m; }
};

// `count` rows of `len` elements, one scale block each: row_stream_kernel where it applies.
// Otherwise each lane of row_segments_kernel holds up to ten 16-byte chunks (40 words) in
// registers: the fixed cost of an iteration (the map, the reduction, the scale) is paid per lane,
// so few lanes with many chunks each beat many lanes with few (H200, 16640x5120: 64 lanes x 10
// chunks 90 us, 128 x 6 106 us, 256 x 4 128 us, 128 x 10 122 us).
void launch_rows(SourceType src, const void* x, std::int64_t len, std::int64_t count, const Recipe& r, std::uint8_t* q,
                 std::uint32_t* scales, cudaStream_t stream) {
  const quant::BlockColumns<RowScale> map{count, len, len > 0 ? len : 1, RowScale{}, 1};
  const std::int64_t chunks = (len + quant::kChunk - 1) / quant::kChunk;  // rows start on the 8-element grid
  if (chunks > 640)
    quant::launch_row_blocks<128, 40, 1, TorchaoRowwisePow2Core>(src, x, q, scales, false, r, map, stream);
  else if (chunks > 192)
    quant::launch_row_blocks<64, 40, 1, TorchaoRowwisePow2Core>(src, x, q, scales, false, r, map, stream);
  else
    quant::launch_row_blocks<16, 40, 1, TorchaoRowwisePow2Core>(src, x, q, scales, false, r, map, stream);
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
