// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// sm90_bf16_mx_quant.cu — MX quantisation (e8m0 scale per 32 elements) along dim 0 (1x32 blocks
// along K) and dim 1 (32x1 blocks along M, column-major codes).
// Peer:     pytorch/ao torchao/prototype/mx_formats/kernels.py::triton_to_mxfp8_dim0,
//           triton_to_mxfp8_dim1 (recipes torchao_mx_{floor,rceil,ceil,even}, and every other MX
//           recipe: te_mxfp8, ocp_mx, nvidia_rceil_rcp_approx, the v0.18 ones).
// Equals:   octet::mx_quantize_dim0 / mx_quantize_dim1 (emulator/src/kernels/mx_quantize.cpp),
//           bytes of codes and e8m0 scales.
// Also:     mx_quantize_3d (torchao moe_training mxfp8_quantize_cuda_3d; octet::mx_quantize_3d):
//           x (E, N, K) -> codes (E, N, K) strides (N*K, 1, N), 32x1 or 32x32 blocks along N.
// Kernels:  dim0: row_segments_kernel, 4 lanes x 8 elements per 32-element block (a warp reads
//           eight blocks, 512 contiguous bytes of bf16, per instruction), four blocks per lane
//           group in flight (four independent 16-byte loads per thread before the first shuffle).
//           dim1: column_tiles_kernel, 32-row ranges x 128 columns per CTA item (16 row lanes x 16
//           column chunks, two row steps per thread in flight), each element read once, codes
//           transposed through shared memory into 8-byte column runs, one barrier pair per batch
//           of four row steps.
//           3d: column_tiles_kernel over the (E*N, K) rows, 32-row ranges; 32x1: 128-column tiles,
//           32x32: 128-column tiles with one amax per 32 columns.
// Bytes:    M*K*sizeof(in) read, M*K codes + M*K/32 scale bytes written.
#include "quant.hpp"
#include "sm90_quant_common.cuh"

namespace octet::cuda {
namespace {

constexpr std::int64_t kMxBlock = 32;

// Same messages as emulator/src/kernels/mx_quantize.cpp.
void require_mx(const Recipe& r, const char* kernel, std::int64_t M, std::int64_t K) {
  require(storage(r) == ScaleStorage::E8m0, std::string(kernel) + ": recipe '" + std::string(name(r)) +
                                                "' is not an MX recipe (its scales are " +
                                                std::string(name(storage(r))) + ", an MX kernel needs e8m0)");
  const Format& f = all_formats[std::size_t(element_format(r))];
  require(f.bits() == 8, std::string(kernel) + ": recipe '" + std::string(name(r)) + "' has a " +
                             std::to_string(f.bits()) + "-bit element format; MX kernels write one byte per element");
  require(M >= 0 && K >= 0, std::string(kernel) + ": x has a negative shape (" + std::to_string(M) + ", " +
                                std::to_string(K) + ")");
}
void require_block_multiple(std::int64_t extent, const char* kernel, const char* what) {
  require(extent % kMxBlock == 0, std::string(kernel) + ": " + what + " = " + std::to_string(extent) +
                                      " is not a multiple of the MX block size " + std::to_string(kMxBlock));
}

// dim0: block i = x[32i, 32i + 32) of the flat row-major input; scale i.
struct Dim0Map {
  __device__ quant::Segment operator()(std::int64_t i) const { return {i * kMxBlock, kMxBlock, i, false}; }
};

// dim1: range b = rows [32b, 32b + 32); scale (k, b) at k*(M/32) + b.
struct Dim1Map {
  std::int64_t M, Mb;
  __device__ quant::RowRange range(std::int64_t b) const { return {b * kMxBlock, (b + 1) * kMxBlock, false}; }
  __device__ std::int64_t scale_index(std::int64_t b, std::int64_t k) const { return k * Mb + b; }
  __device__ std::int64_t out_offset(std::int64_t m, std::int64_t k) const { return k * M + m; }
};

// 3D (E, N, K) as (E*N, K) rows: range i = rows [32i, 32i + 32) of expert e = i / Nb, block row
// nb = i % Nb; scale (e, nb, c) at i*scale_cols + c with c = k (32x1) or k/32 (32x32); codes of
// expert e column-major: e*N*K + k*N + n.
struct Mx3dMap {
  std::int64_t N, K, scale_cols;
  int scale_col_shift;  // 0 (32x1) or 5 (32x32)
  __device__ quant::RowRange range(std::int64_t i) const { return {i * kMxBlock, (i + 1) * kMxBlock, false}; }
  __device__ std::int64_t scale_index(std::int64_t i, std::int64_t k) const {
    return i * scale_cols + (k >> scale_col_shift);
  }
  __device__ std::int64_t out_offset(std::int64_t row, std::int64_t k) const {
    const std::int64_t e = row / N, n = row % N;
    return e * N * K + k * N + n;
  }
};

}  // namespace

void mx_quantize_dim0(SourceType src, const void* x, std::int64_t M, std::int64_t K, const Recipe& r,
                      std::uint8_t* q, std::uint8_t* scales, cudaStream_t stream) {
  require_mx(r, "mx_quantize_dim0", M, K);
  require_block_multiple(K, "mx_quantize_dim0", "x.cols (K)");
  quant::launch_row_segments<4, 4, 4>(src, x, q, scales, true, r, Dim0Map{}, M * (K / kMxBlock), stream);
}

void mx_quantize_dim1(SourceType src, const void* x, std::int64_t M, std::int64_t K, const Recipe& r,
                      std::uint8_t* q, std::uint8_t* scales, cudaStream_t stream) {
  require_mx(r, "mx_quantize_dim1", M, K);
  require_block_multiple(M, "mx_quantize_dim1", "x.rows (M)");
  quant::launch_column_tiles<128, 1, 8>(src, x, K, q, scales, true, M % 8 == 0, r, Dim1Map{M, M / kMxBlock},
                                            M / kMxBlock, stream);
}

void mx_quantize_3d(SourceType src, const void* x, std::int64_t E, std::int64_t N, std::int64_t K, bool block32x32,
                    const Recipe& r, std::uint8_t* q, std::uint8_t* scales, cudaStream_t stream) {
  constexpr const char* kKernel = "mx_quantize_3d";
  require_mx(r, kKernel, N, K);
  require(E >= 0, std::string(kKernel) + ": x has a negative shape (" + std::to_string(E) + ", " + std::to_string(N) +
                      ", " + std::to_string(K) + ")");
  require_block_multiple(N, kKernel, "x.rows (N)");
  if (block32x32) require_block_multiple(K, kKernel, "x.cols (K)");
  const std::int64_t ranges = E * (N / kMxBlock);
  if (block32x32)
    quant::launch_column_tiles<128, 32, 8>(src, x, K, q, scales, true, true, r, Mx3dMap{N, K, K / kMxBlock, 5},
                                            ranges, stream);
  else
    quant::launch_column_tiles<128, 1, 8>(src, x, K, q, scales, true, true, r, Mx3dMap{N, K, K, 0}, ranges,
                                              stream);
}

}  // namespace octet::cuda
