// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// layout_pad_permute.hpp — token-group padding and token permutation for MoE grouped GEMMs,
// carrying the scales of row-scaled tensors with their tokens bit for bit (reference/kernels.md
// §6, §7). Reproduces:
//   * torchao `torchao/prototype/moe_training/kernels/mxfp8/quant.py::torch_pad_token_groups` /
//     `torch_unpad_token_groups` (the CUDA `fused_pad_token_groups_cuda` must match them);
//   * torchao EP `torchao/prototype/moe_training/ep/permute.py::permute_and_pad` with
//     `ep/kernels.py::generate_permute_indices` (rank-major -> expert-major; -1 selects a zero
//     row), and its inverse scatter `ep/permute.py::_triton_permute_bwd` / `ep/unpermute.py`;
//   * TE PR #1921 fused permute+pad / unpermute+unpad (`transformer_engine/pytorch/triton/
//     permutation.py::permute_with_mask_map` / `unpermute_with_mask_map` with `pad_offsets`;
//     kernels `_permute_kernel` / `_unpermute_kernel` in `transformer_engine/common/triton/
//     permutation.py`), which Megatron runs under --moe-permute-fusion.
//
// Data are row-major rows of raw elements, `element_bytes` each (1: fp8 or e8m0, 2: bf16, 4:
// fp32), copied as bytes and never converted — except by fused_unpermute_unpad, which sums in
// fp32. Scales are the per-row chunks of a row-scaled tensor (1×32 e8m0: 1 byte each, 1×128 fp32
// scale_inv: 4 bytes each): scale row i belongs to data row i and moves with it. A scales view
// with 0 columns means "no scales"; the scales output then has 0 columns too.
// Rows that no group or route fills (padding, rows past offs[-1], unrouted tokens) are zero in
// data, scales and probs (kernels.md §12: octet defines them as zero).
// Offsets follow kernels.md §0: `offs` holds inclusive cumulative group ends; empty groups are
// legal. Arguments are validated; misuse throws std::invalid_argument naming the argument.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "octet/tensor.hpp"

namespace octet {

// ---- rows of raw elements ----------------------------------------------------------------------

// A non-owning (rows, cols) row-major matrix of `element_bytes`-byte elements.
struct RowsView {
  const std::uint8_t* data = nullptr;
  std::int64_t rows = 0, cols = 0;  // cols in elements
  std::int64_t element_bytes = 1;

  std::int64_t row_bytes() const { return cols * element_bytes; }
  template <class T>
  static RowsView of(std::span<T> values, std::int64_t rows, std::int64_t cols) {
    require(std::int64_t(values.size()) == rows * cols,
            "RowsView::of: " + std::to_string(values.size()) + " values for shape (" + std::to_string(rows) + ", " +
                std::to_string(cols) + ")");
    return {reinterpret_cast<const std::uint8_t*>(values.data()), rows, cols, std::int64_t(sizeof(T))};
  }
  template <class T>
  static RowsView of(const std::vector<T>& values, std::int64_t rows, std::int64_t cols) {
    return of(std::span<const T>(values), rows, cols);
  }
};

// An owning (rows, cols) row-major matrix of `element_bytes`-byte elements.
struct RowsBuffer {
  std::vector<std::uint8_t> bytes;
  std::int64_t rows = 0, cols = 0;
  std::int64_t element_bytes = 1;

  std::int64_t row_bytes() const { return cols * element_bytes; }
  RowsView view() const { return {bytes.data(), rows, cols, element_bytes}; }
  template <class T>  // a typed copy: T = std::uint16_t for bf16 bits, float for fp32, …
  std::vector<T> values() const {
    require_equal(std::int64_t(sizeof(T)), element_bytes, "RowsBuffer::values: element size");
    std::vector<T> out(bytes.size() / sizeof(T));
    if (!bytes.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
    return out;
  }
};

// Data rows and the scale rows that travel with them (scales.cols == 0: none).
struct TokenRows {
  RowsBuffer data, scales;
};

// ---- torchao token-group padding (kernels.md §6, §7) -------------------------------------------

// x (T, D) with token groups `offs` -> (round_up(T + G·alignment, alignment), D), the upper bound
// torchao allocates so that no device sync is needed. Group g is copied to rows
// [padded_starts[g], padded_starts[g] + size_g); padded_size_g = ⌈size_g/alignment⌉·alignment;
// everything else is zero. Rows of x past offs[-1] belong to no group and are dropped.
struct PaddedTokenGroups {
  RowsBuffer data, scales;
  std::vector<std::int64_t> padded_starts;  // (G,) cumsum(padded_size) - padded_size
  std::vector<std::int64_t> padded_offs;    // (G,) inclusive cumulative ends: cumsum(padded_size)
};
PaddedTokenGroups pad_token_groups(RowsView x, std::span<const std::int32_t> offs, std::int64_t alignment,
                                   RowsView scales = {});
PaddedTokenGroups pad_token_groups(RowsView x, std::span<const std::int64_t> offs, std::int64_t alignment,
                                   RowsView scales = {});

// The inverse gather: (num_tokens, D) with group g's rows read from padded rows
// [padded_starts[g], padded_starts[g] + size_g). num_tokens >= offs[-1]; rows past offs[-1] are 0.
TokenRows unpad_token_groups(RowsView padded, std::span<const std::int32_t> offs,
                             std::span<const std::int64_t> padded_starts, std::int64_t num_tokens,
                             RowsView padded_scales = {});
TokenRows unpad_token_groups(RowsView padded, std::span<const std::int64_t> offs,
                             std::span<const std::int64_t> padded_starts, std::int64_t num_tokens,
                             RowsView padded_scales = {});

// ---- index permutation (gather / scatter), with scales -------------------------------------------

// Gather: out row i = x row permuted_indices[i]; index -1 selects a zero row (data and scale),
// as torchao's appended zero row does. Output (permuted_indices.size(), ·).
TokenRows permute_tokens(RowsView x, std::span<const std::int32_t> permuted_indices, RowsView scales = {});
TokenRows permute_tokens(RowsView x, std::span<const std::int64_t> permuted_indices, RowsView scales = {});

// Scatter, the inverse of permute_tokens: out (num_tokens, ·) zero, then out row
// permuted_indices[i] = y row i for every index != -1. An index may appear only once.
TokenRows unpermute_tokens(RowsView y, std::span<const std::int32_t> permuted_indices, std::int64_t num_tokens,
                           RowsView scales = {});
TokenRows unpermute_tokens(RowsView y, std::span<const std::int64_t> permuted_indices, std::int64_t num_tokens,
                           RowsView scales = {});

// ---- torchao EP permute_and_pad ------------------------------------------------------------------

// `generate_permute_indices`: tokens_per_expert_group is (ep_degree · num_local_experts,), rank
// major (| rank 0: E0 E1 … | rank 1: E0 E1 … |), describing consecutive row ranges of the input.
// Output rows are expert major: for each local expert, its rows from rank 0, rank 1, …, then pad
// rows (index -1) up to m_sizes[e] = round_up(max(Σ_r count, alignment), alignment) — an expert
// with no tokens still gets `alignment` pad rows (torch.clamp_min). permuted_indices has max_len
// entries, -1 wherever nothing is written.
struct PermuteIndices {
  std::vector<std::int64_t> permuted_indices;  // (max_len,)
  std::vector<std::int64_t> m_sizes;           // (num_local_experts,)
  std::vector<std::int64_t> m_offsets;         // (num_local_experts,) inclusive cumulative ends
};
PermuteIndices generate_permute_indices(std::span<const std::int32_t> tokens_per_expert_group,
                                        std::int64_t ep_degree, std::int64_t num_local_experts,
                                        std::int64_t max_len, std::int64_t alignment);
PermuteIndices generate_permute_indices(std::span<const std::int64_t> tokens_per_expert_group,
                                        std::int64_t ep_degree, std::int64_t num_local_experts,
                                        std::int64_t max_len, std::int64_t alignment);

// `permute_and_pad` (and `_PermuteMXFP8FwdHPBwd.forward` for qdata + scales): max_len =
// round_up(T + num_local_experts·alignment, alignment) output rows, gathered with
// permute_tokens. The backward / `Unpermute` is unpermute_tokens(·, indices.permuted_indices, T).
struct PermutedAndPadded {
  TokenRows rows;
  PermuteIndices indices;
};
PermutedAndPadded permute_and_pad(RowsView x, std::span<const std::int32_t> tokens_per_expert_group,
                                  std::int64_t ep_degree, std::int64_t num_local_experts,
                                  std::int64_t alignment = 32, RowsView scales = {});
PermutedAndPadded permute_and_pad(RowsView x, std::span<const std::int64_t> tokens_per_expert_group,
                                  std::int64_t ep_degree, std::int64_t num_local_experts,
                                  std::int64_t alignment = 32, RowsView scales = {});

// ---- TE fused permute+pad / unpermute+unpad (TE PR #1921) -----------------------------------------

// Top-k routing of T tokens over E experts: route (t, k) sends token t to expert
// expert_t_k[t·K + k] (-1: slot unused) with weight prob_t_k[t·K + k]. A token may name an expert
// once. prob_t_k may be empty (no probs). TE's boolean routing_map (T, E) is the case where the
// routes of a token list its experts in ascending order: see routing_from_mask.
struct TokenRouting {
  std::int64_t tokens = 0, topk = 0, experts = 0;
  std::span<const std::int32_t> expert_t_k;  // (T, K)
  std::span<const float> prob_t_k;           // (T, K) or empty
};

// TE's mask form -> top-k form: K = the most experts any token is routed to; a token's routes
// are its experts in ascending order, then -1 slots. probs_t_e may be empty.
struct OwnedRouting {
  std::int64_t tokens = 0, topk = 0, experts = 0;
  std::vector<std::int32_t> expert_t_k;
  std::vector<float> prob_t_k;
  TokenRouting view() const { return {tokens, topk, experts, expert_t_k, prob_t_k}; }
};
OwnedRouting routing_from_mask(std::span<const std::uint8_t> routing_map_t_e, std::span<const float> probs_t_e,
                               std::int64_t tokens, std::int64_t experts);

// TE's row_id_map plus pad_offsets: expert-major permuted rows, tokens ascending inside an
// expert; expert e's rows start at padded_offs[e-1] (0 for e = 0) and its
// round_up(n_e, alignment) - n_e pad rows follow them (an expert with no tokens takes no rows).
// row_t_k = (unpadded expert-major row) + pad_offsets[e], the dst_row of TE PR #1921.
struct RowIdMap {
  std::int64_t tokens = 0, topk = 0, experts = 0, alignment = 1;
  std::int64_t rows = 0;                        // permuted rows: Σ_e round_up(n_e, alignment)
  std::vector<std::int64_t> row_t_k;            // (T, K) permuted row of each route; -1 = unused slot
  std::vector<std::int64_t> tokens_per_expert;  // (E,) n_e
  std::vector<std::int64_t> pad_offsets;        // (E,) pad rows inserted before expert e
  std::vector<std::int64_t> padded_offs;        // (E,) inclusive cumulative ends, the GEMM's offs
};
RowIdMap make_row_id_map(const TokenRouting& routing, std::int64_t alignment = 1);

// Permute + pad: data (rows, D), scales (rows, ·) and probs (rows,) are zero-initialised, so pad
// rows hold zero data, zero scale (scale_inv 0 / e8m0 byte 0) and prob 0; each route's data and
// scale rows are copied bit for bit. When probs are given, a route with prob == 0 (±0: a
// routing-map padding slot) gets a zero data row; its scale row and prob are still copied, as
// TE's `_permute_kernel` does. alignment = 1 is TE's plain moe_permute (mask map).
struct PermutedTokens {
  RowsBuffer data, scales;
  std::vector<float> probs;  // (rows,), empty when the routing has no probs
  RowIdMap map;
};
PermutedTokens fused_permute_pad(RowsView x, const TokenRouting& routing, std::int64_t alignment,
                                 RowsView scales = {});

// The combine's summation order and arithmetic. The reference (kernels.md §7) sums the routes of
// a token in routing order, k ascending, as acc = acc + fl32(x·p). Other orders are named
// variants: TE's `_unpermute_kernel` walks its row_id_map, which pass 3 argsorts descending, so
// it visits a token's routes by permuted row descending (= expert descending). Triton may also
// contract `inp *= p; acc += inp` into one fma (its fp fusion is on by default).
enum class CombineOrder : std::uint8_t {
  slot_ascending,  // k = 0, 1, …: kernels.md §7 reference
  row_descending,  // TE Triton row_id_map order
};
struct CombineSpec {
  CombineOrder order = CombineOrder::slot_ascending;
  bool fused_multiply_add = false;  // acc = fma(x, p, acc) instead of acc + fl32(x·p)
};

// The NaN a CUDA fp32 add, multiply or fma returns for every NaN result, whatever the operands'
// signs and payloads (PTX ISA: "canonical NaN"), and what cvt.rn.bf16.f32 makes of it. The
// combine's peer (TE's Triton `_unpermute_kernel`) sums on the GPU, so its NaN sums carry exactly
// these bits; a host sum's NaN sign and payload instead depend on the CPU and the compiler's
// operand order. canonical_nan_sum gives every NaN sum the GPU's bits.
inline constexpr std::uint32_t kCudaCanonicalNanFp32 = 0x7FFFFFFFu;
inline constexpr std::uint16_t kCudaCanonicalNanBf16 = 0x7FFFu;
inline float canonical_nan_sum(float v) {
  std::uint32_t b;
  std::memcpy(&b, &v, 4);
  if ((b & 0x7FFFFFFFu) > 0x7F800000u) std::memcpy(&v, &kCudaCanonicalNanFp32, 4);
  return v;
}

// Unpermute + unpad (combine): out (T, D) of `type` (bf16 or fp32), where for each token
// acc_fp32 = +0 + Σ_routes float(permuted[row_t_k])·merging_prob_t_k (merging probs empty: the
// unweighted sum), rounded once to the output type (bf16: octet's RNE converter, IEEE overflow).
// A NaN sum is written as the CUDA canonical NaN: fp32 0x7FFFFFFF, bf16 0x7FFF (see above), for
// any NaN input, Inf·0 or Inf - Inf, so the bytes do not depend on the host.
// Pad rows are never read; a token with no route gets +0.
RowsBuffer fused_unpermute_unpad(RowsView permuted, InputType type, const RowIdMap& map,
                                 std::span<const float> merging_prob_t_k, CombineSpec spec = {});

}  // namespace octet
