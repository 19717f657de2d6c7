// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// mx_quantize.hpp — MX (e8m0-scaled, 32-element block) quantisers and the dim0 dequantiser
// (reference/kernels.md §2). Implementation and peer citations: emulator/src/kernels/mx_quantize.cpp.
//
// Every kernel takes an MX recipe (scale storage e8m0: torchao_mx_{floor,rceil,ceil,even},
// torchao_mx_{floor,rceil}_v018, te_mxfp8, ocp_mx, nvidia_rceil_rcp_approx, and any element
// variant of them, e.g. e5m2) and quantises each block exactly as scale.hpp describes:
// amax_init/amax_update over the block, scale_from_amax once, quantize_element per element.
// The element format is the recipe's (element_format(r)).
//
// Inputs are views (any strides): fp32 values, or bf16 raw bits as std::uint16_t. Outputs are
// owned and carry their peers' shapes and strides, in elements:
//
//   kernel               data (shape; strides)                 scales (shape; strides)
//   mx_quantize_dim0     (M, K); (K, 1)        row-major        (M, K/32); (K/32, 1)
//   mx_quantize_dim1     (M, K); (1, M)        column-major     (K, M/32); (M/32, 1)
//   mx_quantize_2d row   (rows, cols); (cols, 1)                (rows, cols/32); (cols/32, 1)
//   mx_quantize_2d col   (rows, cols); (1, rows)                (cols, rows/32); (1, cols)
//   mx_quantize_3d 32x1  (E, N, K); (N·K, 1, N)                 (E, N/32, K); (N/32·K, K, 1)
//   mx_quantize_3d 32x32 (E, N, K); (N·K, 1, N)                 (E, N/32, K/32); (N/32·K/32, K/32, 1)
//
// A dimension that a block runs along must be a multiple of 32 (mx_quantize_2d: both, as the
// CUDA kernel); the others may be anything.
// Misuse throws std::invalid_argument naming the argument.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "octet/scale.hpp"
#include "octet/tensor.hpp"

namespace octet {

inline constexpr std::int64_t kMxBlockSize = 32;

// One quantised 2D operand: element codes (one byte each) and e8m0 scale bytes, each with its
// logical shape and strides in elements (like a torch tensor's).
struct MxOutput2D {
  std::vector<std::uint8_t> data;
  std::int64_t rows = 0, cols = 0;
  std::int64_t data_row_stride = 0, data_col_stride = 0;
  std::vector<std::uint8_t> scale;
  std::int64_t scale_rows = 0, scale_cols = 0;
  std::int64_t scale_row_stride = 0, scale_col_stride = 0;

  View2D<const std::uint8_t> data_view() const {
    return {data.data(), rows, cols, data_row_stride, data_col_stride};
  }
  View2D<const std::uint8_t> scale_view() const {
    return {scale.data(), scale_rows, scale_cols, scale_row_stride, scale_col_stride};
  }
};

// One quantised 3D operand (experts, rows, cols), same conventions.
enum class MxBlock3D : std::uint8_t { Block32x1, Block32x32 };
struct MxOutput3D {
  MxBlock3D block = MxBlock3D::Block32x1;
  std::vector<std::uint8_t> data;
  std::int64_t experts = 0, rows = 0, cols = 0;
  std::int64_t data_expert_stride = 0, data_row_stride = 0, data_col_stride = 0;
  std::vector<std::uint8_t> scale;
  std::int64_t scale_rows = 0, scale_cols = 0;  // per expert
  std::int64_t scale_expert_stride = 0, scale_row_stride = 0, scale_col_stride = 0;

  View3D<const std::uint8_t> data_view() const {
    return {data.data(), experts, rows, cols, data_expert_stride, data_row_stride, data_col_stride};
  }
  View3D<const std::uint8_t> scale_view() const {
    return {scale.data(), experts, scale_rows, scale_cols, scale_expert_stride, scale_row_stride, scale_col_stride};
  }
};

// 1x32 along K (torchao triton_to_mxfp8_dim0). x (M, K); K % 32 == 0.
MxOutput2D mx_quantize_dim0(const Recipe& r, View2D<const float> x_m_k);
MxOutput2D mx_quantize_dim0(const Recipe& r, View2D<const std::uint16_t> x_m_k_bf16);

// 32x1 along M (torchao triton_to_mxfp8_dim1). x (M, K); M % 32 == 0. The data is the
// column-major (M, K) tensor, i.e. the .t() of a row-major (K, M); scales (K, M/32) row-major.
// torchao's Triton kernel asserts M % 128 and K % 128; octet needs only M % 32.
MxOutput2D mx_quantize_dim1(const Recipe& r, View2D<const float> x_m_k);
MxOutput2D mx_quantize_dim1(const Recipe& r, View2D<const std::uint16_t> x_m_k_bf16);

// torchao mxfp8_quantize_cuda / TE MXFP8 cast: rowwise (1x32) and/or colwise (32x1) outputs,
// both quantised from the high-precision input. x (rows, cols); rows % 32 == 0 and
// cols % 32 == 0 (as the CUDA kernel requires); at least one direction.
struct MxQuantized2D {
  std::optional<MxOutput2D> rowwise;
  std::optional<MxOutput2D> colwise;
};
MxQuantized2D mx_quantize_2d(const Recipe& r, View2D<const float> x, bool rowwise, bool colwise);
MxQuantized2D mx_quantize_2d(const Recipe& r, View2D<const std::uint16_t> x_bf16, bool rowwise, bool colwise);

// 3D weights (torchao mxfp8_quantize_cuda_3d): x (E, N, K) -> q (E, N, K) with strides
// (N·K, 1, N). Block32x1: one scale per 32 consecutive n of a column, scales (E, N/32, K);
// N % 32 == 0. Block32x32: one scale per 32x32 (n, k) tile, amax over all 1024 elements,
// scales (E, N/32, K/32); N % 32 == 0 and K % 32 == 0.
MxOutput3D mx_quantize_3d(const Recipe& r, View3D<const float> x_e_n_k, MxBlock3D block);
MxOutput3D mx_quantize_3d(const Recipe& r, View3D<const std::uint16_t> x_e_n_k_bf16, MxBlock3D block);

// The scales in the blocked ("swizzled") layout that the CuTeDSL kernels emit and the scaled
// GEMMs read (kernels.md §2, §5), through mx_swizzle.hpp:
//   2D: to_blocked of scale_view() — dim0 / 2d rowwise (M, K/32) is mxfp8_quantize_2d_1x32_cutedsl's
//       (⌈M/128⌉·128)·(⌈K/32/4⌉·4) bytes; dim1 / 2d colwise (K, M/32) is
//       mxfp8_quantize_2d_32x1_cutedsl's (⌈K/128⌉·128)·(⌈M/32/4⌉·4) bytes.
//   3D: mxfp8_quantize_cuda_3d's blocked output (E, (⌈K/128⌉·128)·(⌈N/32/4⌉·4)): per expert the
//       (K, N/32) matrix through to_blocked_per_group_3d; a 32x32 scale is first repeated for each
//       of its 32 k (repeat_interleave(32)).
std::vector<std::uint8_t> mx_blocked_scales(const MxOutput2D& q);
std::vector<std::uint8_t> mx_blocked_scales(const MxOutput3D& q);

// Dequantisation along dim0 (torchao triton_mxfp8_dequant_dim0): q (M, K) element codes,
// scale (M, K/32) e8m0 bytes, any strides; K % 32 == 0. Each element is code · 2^(b − 127)
// (the recipe's decode of the stored byte; 255 → NaN), formed exactly in double and rounded ONCE
// to the target: bf16 by octet's converter (RNE, IEEE overflow to Inf, NaN → 0x7FC0 as c10),
// fp32 by RNE (exact except overflow to Inf; NaN → 0x7FC00000). Output row-major (M, K).
std::vector<std::uint16_t> mx_dequantize_dim0_bf16(const Recipe& r, View2D<const std::uint8_t> q_m_k,
                                                   View2D<const std::uint8_t> scale_m_kb);
std::vector<float> mx_dequantize_dim0_fp32(const Recipe& r, View2D<const std::uint8_t> q_m_k,
                                           View2D<const std::uint8_t> scale_m_kb);

}  // namespace octet
