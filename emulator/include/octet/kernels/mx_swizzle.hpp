// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// mx_swizzle.hpp — the blocked ("swizzled") layout in which tcgen05 / cuBLAS read MX scale
// factors, and its grouped variants for MoE GEMMs (reference/kernels.md §5).
//
// Reproduces torchao `torchao/prototype/mx_formats/utils.py::to_blocked` (and its Triton
// `_dest_indices_for_block`) and, from `torchao/prototype/moe_training/kernels/mxfp8/quant.py`,
// `torch_to_blocked_2d_M_groups`, `torch_to_blocked_2d_K_groups` (after pytorch/ao PRs
// #3600/#3603) and `torch_to_blocked_per_group_3d` together with their Triton kernels
// `triton_mx_block_rearrange_{2d_M_groups,2d_K_groups,per_group_3d}`. cuBLAS calls the layout
// "1D block scaling factors layout"; TE's mxfp8.rst describes the same 128×4 tiles.
//
// Units: one scale code per byte (e8m0, or any other 1-byte scale). A scale matrix S (H, W) is
// padded to Hp = 128·⌈H/128⌉ rows and Wp = 4·⌈W/4⌉ columns with byte 0 (= e8m0 2^-127, as the
// torch reference pads with zeros). Each 128×4 tile is 512 contiguous bytes; tile (rb, cb) is
// tile number rb·(Wp/4) + cb, and inside a tile row r, column c sits at (r%32)·16 + (r/32)·4 + c,
// so the rows of a tile are interleaved 0, 32, 64, 96, 1, 33, … Outputs are plain row-major
// byte buffers; torch views them as (32·⌈H/128⌉, 16·⌈W/4⌉) or (Hp, Wp) — the bytes are the same.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "octet/tensor.hpp"

namespace octet {

inline constexpr std::int64_t kScaleTileRows = 128;  // BLOCK_ROWS of the torchao kernels
inline constexpr std::int64_t kScaleTileCols = 4;    // BLOCK_COLS
inline constexpr std::int64_t kScaleTileBytes = kScaleTileRows * kScaleTileCols;  // 512

constexpr std::int64_t blocked_rows(std::int64_t rows) { return (rows + kScaleTileRows - 1) / kScaleTileRows * kScaleTileRows; }
constexpr std::int64_t blocked_cols(std::int64_t cols) { return (cols + kScaleTileCols - 1) / kScaleTileCols * kScaleTileCols; }

// Byte offset of scale (r, c) inside the blocked buffer of a matrix with `n_col_blocks` = Wp/4
// tile columns (the closed form of kernels.md §5).
constexpr std::int64_t blocked_offset(std::int64_t r, std::int64_t c, std::int64_t n_col_blocks) {
  return ((r / 128) * n_col_blocks + c / 4) * 512 + (r % 32) * 16 + ((r % 128) / 32) * 4 + (c % 4);
}

// The inverse (derived in kernels.md §5): the padded (row, col) whose scale lands at `flat`.
struct ScalePosition {
  std::int64_t row = 0, col = 0;
  friend constexpr bool operator==(const ScalePosition&, const ScalePosition&) = default;
};
constexpr ScalePosition blocked_position(std::int64_t flat, std::int64_t n_col_blocks) {
  const std::int64_t tile = flat / 512, w = flat % 512;
  return {(tile / n_col_blocks) * 128 + ((w % 16) / 4) * 32 + w / 16, (tile % n_col_blocks) * 4 + w % 4};
}

// ---- whole matrix ----------------------------------------------------------------------------

// S (H, W), any strides -> Hp·Wp bytes. Pad bytes are 0.
std::vector<std::uint8_t> to_blocked(View2D<const std::uint8_t> scales);
// The same into a caller buffer of exactly Hp·Wp bytes (every byte is written).
void to_blocked(View2D<const std::uint8_t> scales, std::span<std::uint8_t> out);

// Hp·Wp blocked bytes -> S (rows, cols), row-major; the padding is dropped.
std::vector<std::uint8_t> from_blocked(std::span<const std::uint8_t> blocked, std::int64_t rows, std::int64_t cols);

// ---- grouped layouts ---------------------------------------------------------------------------

// A grouped blocked buffer: `rows`×`cols` bytes, row-major, zero where no group wrote.
// `group_starts` has G+1 entries: where each group starts after padding to whole tiles — a row
// for M-groups, a scale column for K-groups — and, last, where the last group ends
// (torchao's `start_row_after_padding` / `start_cols_after_padding`).
struct BlockedScaleGroups {
  std::vector<std::uint8_t> bytes;
  std::int64_t rows = 0, cols = 0;
  std::vector<std::int64_t> group_starts;
};

// M-groups (forward / dgrad LHS): S (H, W) with token groups along the rows, `offs` the
// inclusive group ends over H (rows past offs[-1] belong to no group and are not written).
// Output (H + 128·G, Wp): group g's bytes are to_blocked(S[start_g:end_g]), at flat offset
// R_g·Wp with R_g = Σ_{h<g} 128·⌈size_h/128⌉. Empty groups take no rows.
BlockedScaleGroups to_blocked_m_groups(View2D<const std::uint8_t> scales, std::span<const std::int32_t> offs);
BlockedScaleGroups to_blocked_m_groups(View2D<const std::uint8_t> scales, std::span<const std::int64_t> offs);

// K-groups (wgrad, groups along the contraction): S (N, Mb) with Mb = M_total/32 scale columns,
// `scale_offs` the inclusive group ends over Mb (offs//32; see k_group_scale_offsets).
// Output (Np, Mb + 4·G) with Np = 128·⌈N/128⌉: group g's region starts at flat offset C_g·Np,
// C_g = Σ_{h<g} 4·⌈cols_h/4⌉, and holds to_blocked(S[:, start_g:end_g]) tile by tile.
BlockedScaleGroups to_blocked_k_groups(View2D<const std::uint8_t> scales, std::span<const std::int32_t> scale_offs);
BlockedScaleGroups to_blocked_k_groups(View2D<const std::uint8_t> scales, std::span<const std::int64_t> scale_offs);

// Token offsets -> scale-column offsets for K-groups: offs[g] / block_size, after checking that
// every group size is a multiple of block_size (torchao floors silently; pytorch/ao #3636).
std::vector<std::int64_t> k_group_scale_offsets(std::span<const std::int32_t> offs, std::int64_t block_size = 32);
std::vector<std::int64_t> k_group_scale_offsets(std::span<const std::int64_t> offs, std::int64_t block_size = 32);

// Per-group 3D (expert weights): S (E, H, W) -> (E, Hp·Wp), each expert through to_blocked.
std::vector<std::uint8_t> to_blocked_per_group_3d(View3D<const std::uint8_t> scales);

}  // namespace octet
