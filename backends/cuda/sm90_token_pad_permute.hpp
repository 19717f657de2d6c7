// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// sm90_token_pad_permute.hpp — host API of the token-layout kernels on device pointers
// (sm90_token_pad_permute.cu): octet::pad_token_groups, unpad_token_groups, permute_tokens,
// unpermute_tokens, fused_permute_pad (route_permute_pad: with its routing map) and
// fused_unpermute_unpad
// (emulator/include/octet/kernels/layout_pad_permute.hpp, reference/kernels.md §6, §7).
//
// Rows are row-major, contiguous, `element_bytes` per element (1 fp8 / e8m0, 2 bf16, 4 fp32),
// copied as bytes; scale rows (1 or 4 bytes per element) travel with their data rows. A
// DeviceRows with cols == 0 means "no scales". Every output byte is written (rows that nothing
// fills get zeros), so outputs need no zero-fill. Index arrays are device int64 and must be
// valid (the adapters validate them on the host with the emulator's messages); shape errors
// throw std::invalid_argument before any launch. Asynchronous on `stream`.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "octet/kernels/layout_pad_permute.hpp"

namespace octet::cuda {

struct DeviceRows {
  const void* data = nullptr;
  std::int64_t rows = 0, cols = 0, element_bytes = 1;
  std::int64_t row_bytes() const { return cols * element_bytes; }
};

// torchao torch_pad_token_groups. x (T, ·) with groups offs (G,) -> y (round_up(T + G·alignment,
// alignment), ·); starts (G + 1,) receives the padded starts (padded_starts = starts[:G],
// padded_offs = starts[1:]).
void pad_token_groups(DeviceRows x, DeviceRows scales, const std::int64_t* offs, std::int64_t groups,
                      std::int64_t alignment, void* y, void* y_scales, std::int64_t* starts,
                      cudaStream_t stream = nullptr);
std::int64_t padded_token_rows(std::int64_t tokens, std::int64_t groups, std::int64_t alignment);

// torchao torch_unpad_token_groups: y (num_tokens, ·), group g's rows from padded rows
// [padded_starts[g], + size_g); rows past offs[G-1] are 0.
void unpad_token_groups(DeviceRows padded, DeviceRows padded_scales, const std::int64_t* offs, std::int64_t groups,
                        const std::int64_t* padded_starts, std::int64_t num_tokens, void* y, void* y_scales,
                        cudaStream_t stream = nullptr);

// y row i = x row indices[i], index -1 a zero row. y: (n, ·).
void permute_tokens(DeviceRows x, DeviceRows scales, const std::int64_t* indices, std::int64_t n, void* y,
                    void* y_scales, cudaStream_t stream = nullptr);

// y (num_tokens, ·) = 0, then y row indices[i] = x row i for indices[i] != -1 (no repeats).
void unpermute_tokens(DeviceRows x, DeviceRows scales, const std::int64_t* indices, std::int64_t num_tokens, void* y,
                      void* y_scales, cudaStream_t stream = nullptr);

// torchao EP permute_and_pad: generate_permute_indices on the GPU (counts (R·E,) rank-major, device
// int64) into permuted_indices (max_len,), m_sizes and m_offsets (E,), then the row gather of x
// (and scales). max_len = permute_and_pad_rows(x.rows, E, alignment).
void permute_and_pad(DeviceRows x, DeviceRows scales, const std::int64_t* tokens_per_expert_group,
                     std::int64_t ep_degree, std::int64_t num_local_experts, std::int64_t alignment, void* y,
                     void* y_scales, std::int64_t* permuted_indices, std::int64_t* m_sizes, std::int64_t* m_offsets,
                     cudaStream_t stream = nullptr);
// Output rows of permute_and_pad: round_up(T + E·alignment, alignment).
inline std::int64_t permute_and_pad_rows(std::int64_t tokens, std::int64_t experts, std::int64_t alignment) {
  return (tokens + experts * alignment + alignment - 1) / alignment * alignment;
}

// TE PR #1921 permute + pad with the row map of octet::make_row_id_map: row_t_k (T, K) device,
// `rows` permuted rows. probs (T·K) or nullptr; y_probs (rows,) written when probs are given.
void fused_permute_pad(DeviceRows x, DeviceRows scales, const std::int64_t* row_t_k, std::int64_t tokens,
                       std::int64_t topk, std::int64_t rows, const float* probs, void* y, void* y_scales,
                       float* y_probs, cudaStream_t stream = nullptr);

// TE moe_permute with pad in one call: make_row_id_map (its outputs as there), then
// fused_permute_pad with the map's inverse, which make_row_id_map writes beside the row map (two
// launches fewer than the two calls). `rows` is the permuted row count, padded_offs[E-1], known to
// the caller as TE's num_out_tokens is; routes whose rows lie past it are dropped.
void route_permute_pad(const std::int32_t* expert_t_k, std::int64_t tokens, std::int64_t topk, std::int64_t experts,
                       std::int64_t alignment, DeviceRows x, DeviceRows scales, const float* probs, std::int64_t rows,
                       void* y, void* y_scales, float* y_probs, std::int64_t* row_t_k,
                       std::int64_t* tokens_per_expert, std::int64_t* pad_offsets, std::int64_t* padded_offs,
                       cudaStream_t stream = nullptr);

// TE PR #1921 unpermute + unpad (combine): out (T, D) of the permuted rows' type (bf16 or fp32),
// per token the fp32 sum over its routes in the order and arithmetic of `spec`, rounded once.
// merging_probs (T·K) or nullptr (unweighted). A NaN sum is written as the CUDA canonical NaN
// 0x7FFF (bf16) / 0x7FFFFFFF (fp32), as octet::fused_unpermute_unpad does; with quiet_nan as the
// quiet NaN 0x7FC0 (bf16) / 0x7FC00000 (fp32), as octet::a2a_combine does.
void fused_unpermute_unpad(DeviceRows permuted, InputType type, const std::int64_t* row_t_k, std::int64_t tokens,
                           std::int64_t topk, const float* merging_probs, CombineSpec spec, void* out,
                           cudaStream_t stream = nullptr, bool quiet_nan = false);

// The device row map of TE's permutation (octet::make_row_id_map): from expert_t_k (T, K) device
// int32, computes row_t_k (T, K), tokens_per_expert, pad_offsets and padded_offs (E,) on the GPU
// (counts by expert, a scan over experts, then each route's rank among its expert's tokens).
// Returns nothing; the permuted row count is padded_offs[E-1]. route_of_row (route_rows,), when
// given, receives the inverse map (route_permute_pad's): the route t·K + k that fills each permuted
// row, -1 for a pad row and for rows at or past padded_offs[E-1]; rows at or past route_rows are
// left out (T·K + E·(alignment − 1) rows cover every map).
void make_row_id_map(const std::int32_t* expert_t_k, std::int64_t tokens, std::int64_t topk, std::int64_t experts,
                     std::int64_t alignment, std::int64_t* row_t_k, std::int64_t* tokens_per_expert,
                     std::int64_t* pad_offsets, std::int64_t* padded_offs, std::int64_t* route_of_row = nullptr,
                     std::int64_t route_rows = 0, cudaStream_t stream = nullptr);

}  // namespace octet::cuda
