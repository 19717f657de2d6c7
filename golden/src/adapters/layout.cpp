// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// adapters/layout.cpp — runner adapters of the token padding / permutation kernels
// (octet/kernels/layout_pad_permute.hpp; reference/kernels.md §6, §7): torchao
// torch_pad_token_groups / torch_unpad_token_groups, index gather / scatter, EP permute_and_pad
// with generate_permute_indices, and TE PR #1921 fused permute+pad / unpermute+unpad.
//
// Dataset conventions of the family (golden/schema.md §kernels_layout):
//   * `x` (rows, D): the data rows, any 1-, 2- or 4-byte element dtype that the kernels copy as
//     bytes (fp8 codes, bfloat16, float16, float32); `y`: the output rows, same dtype.
//   * `x_scale` (rows, S), optional: the row scales that travel with the data rows (e8m0 bytes
//     `float8_e8m0fnu` or fp32 `float32`); `y_scale`: the moved scales, same dtype. Absent input,
//     absent output.
//   * index lists are int32 or int64 on input and int64 on output.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "octet/golden/adapter_io.hpp"
#include "octet/golden/runner.hpp"
#include "octet/kernels/layout_pad_permute.hpp"

namespace octet::golden {


namespace {

// Rows the kernels copy byte for byte.
RowsView rows_input(const Tensors& inputs, const std::string& name) {
  const Tensor& t = input(inputs, name);
  expect_dtype(t, name,
               {"bfloat16", "float16", "float32", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz"},
               2);
  return {t.bytes.data(), t.shape[0], t.shape[1], std::int64_t(lookup_dtype(t.dtype)->element_size)};
}

// The optional `x_scale` of `x`: one scale row per data row. An empty view when absent.
RowsView scale_input(const Tensors& inputs, const RowsView& x) {
  if (!has_input(inputs, "x_scale")) return {};
  const Tensor& t = input(inputs, "x_scale");
  expect_dtype(t, "x_scale", {"float8_e8m0fnu", "float32"}, 2);
  if (t.shape[0] != x.rows)
    throw KernelInputError("input 'x_scale': " + std::to_string(t.shape[0]) + " rows, expected one per row of 'x' (" +
                           std::to_string(x.rows) + ")");
  if (t.shape[1] == 0) throw KernelInputError("input 'x_scale': 0 columns (leave the dataset out for no scales)");
  return {t.bytes.data(), t.shape[0], t.shape[1], std::int64_t(lookup_dtype(t.dtype)->element_size)};
}

Tensor rows_tensor(RowsBuffer&& b, const std::string& dtype) {
  Tensor t;
  t.dtype = dtype;
  t.shape = {b.rows, b.cols};
  t.bytes = std::move(b.bytes);
  return t;
}

// `y` and, when the call has scales, `y_scale`.
Tensors rows_outputs(const KernelCall& call, RowsBuffer&& data, RowsBuffer&& scales) {
  Tensors out;
  out["y"] = rows_tensor(std::move(data), input(call.inputs, "x").dtype);
  if (has_input(call.inputs, "x_scale")) out["y_scale"] = rows_tensor(std::move(scales), input(call.inputs, "x_scale").dtype);
  return out;
}

Tensor int64_tensor(const std::vector<std::int64_t>& v) { return make_tensor("int64", v); }
Tensor int64_tensor(std::int64_t rows, std::int64_t cols, const std::vector<std::int64_t>& v) {
  return make_tensor("int64", {rows, cols}, v);
}

// The optional float32 input `name` of shape (rows, cols), flattened; empty when absent.
std::vector<float> optional_f32(const Tensors& inputs, const std::string& name, std::int64_t rows, std::int64_t cols) {
  if (!has_input(inputs, name)) return {};
  const Tensor& t = input(inputs, name);
  expect_dtype(t, name, {"float32"}, 2);
  if (t.shape[0] != rows || t.shape[1] != cols)
    throw KernelInputError("input '" + name + "': shape (" + std::to_string(t.shape[0]) + ", " +
                           std::to_string(t.shape[1]) + "), expected (" + std::to_string(rows) + ", " +
                           std::to_string(cols) + ")");
  return values_of<float>(t);
}

Tensors run_pad(const KernelCall& call) {
  const RowsView x = rows_input(call.inputs, "x");
  const RowsView scales = scale_input(call.inputs, x);
  const std::vector<std::int64_t> offs = int_list(call.inputs, "offs");
  PaddedTokenGroups p = pad_token_groups(x, offs, call.int_param("alignment", 32), scales);
  Tensors out = rows_outputs(call, std::move(p.data), std::move(p.scales));
  out["padded_starts"] = int64_tensor(p.padded_starts);
  out["padded_offs"] = int64_tensor(p.padded_offs);
  return out;
}

Tensors run_unpad(const KernelCall& call) {
  const RowsView x = rows_input(call.inputs, "x");
  const RowsView scales = scale_input(call.inputs, x);
  const std::vector<std::int64_t> offs = int_list(call.inputs, "offs");
  const std::vector<std::int64_t> starts = int_list(call.inputs, "padded_starts");
  const std::int64_t num_tokens = call.int_param("num_tokens", offs.empty() ? 0 : offs.back());
  TokenRows r = unpad_token_groups(x, offs, starts, num_tokens, scales);
  return rows_outputs(call, std::move(r.data), std::move(r.scales));
}

Tensors run_permute(const KernelCall& call) {
  const RowsView x = rows_input(call.inputs, "x");
  const RowsView scales = scale_input(call.inputs, x);
  const std::vector<std::int64_t> indices = int_list(call.inputs, "permuted_indices");
  TokenRows r = permute_tokens(x, indices, scales);
  return rows_outputs(call, std::move(r.data), std::move(r.scales));
}

Tensors run_unpermute(const KernelCall& call) {
  const RowsView x = rows_input(call.inputs, "x");
  const RowsView scales = scale_input(call.inputs, x);
  const std::vector<std::int64_t> indices = int_list(call.inputs, "permuted_indices");
  TokenRows r = unpermute_tokens(x, indices, call.required_int("num_tokens"), scales);
  return rows_outputs(call, std::move(r.data), std::move(r.scales));
}

Tensors run_permute_and_pad(const KernelCall& call) {
  const RowsView x = rows_input(call.inputs, "x");
  const RowsView scales = scale_input(call.inputs, x);
  const std::vector<std::int64_t> counts = int_list(call.inputs, "tokens_per_expert_group");
  PermutedAndPadded p = permute_and_pad(x, counts, call.required_int("ep_degree"), call.required_int("num_local_experts"),
                                        call.int_param("alignment", 32), scales);
  Tensors out = rows_outputs(call, std::move(p.rows.data), std::move(p.rows.scales));
  out["permuted_indices"] = int64_tensor(p.indices.permuted_indices);
  out["m_sizes"] = int64_tensor(p.indices.m_sizes);
  out["m_offsets"] = int64_tensor(p.indices.m_offsets);
  return out;
}

// fused_permute_pad takes the top-k form (`expert_t_k`, parameter num_experts) or TE's mask form
// (`routing_map` (T, E) uint8 0/1); `probs` has the routing's shape.
Tensors run_fused_permute_pad(const KernelCall& call) {
  const RowsView x = rows_input(call.inputs, "x");
  const RowsView scales = scale_input(call.inputs, x);
  const bool mask_form = has_input(call.inputs, "routing_map");
  if (mask_form == has_input(call.inputs, "expert_t_k"))
    throw KernelInputError("give exactly one of the inputs 'expert_t_k' (top-k form) and 'routing_map' (mask form)");
  OwnedRouting routing;
  if (mask_form) {
    const Tensor& map = input(call.inputs, "routing_map");
    expect_dtype(map, "routing_map", {"uint8"}, 2);
    const std::vector<float> probs = optional_f32(call.inputs, "probs", map.shape[0], map.shape[1]);
    routing = routing_from_mask(values_of<std::uint8_t>(map), probs, map.shape[0], map.shape[1]);
  } else {
    const IntMatrix e = int_matrix(call.inputs, "expert_t_k");
    routing.tokens = e.rows;
    routing.topk = e.cols;
    routing.experts = call.required_int("num_experts");
    routing.expert_t_k = narrow_int32(e.values, "expert_t_k");
    routing.prob_t_k = optional_f32(call.inputs, "probs", e.rows, e.cols);
  }
  PermutedTokens p = fused_permute_pad(x, routing.view(), call.int_param("alignment", 1), scales);
  Tensors out = rows_outputs(call, std::move(p.data), std::move(p.scales));
  if (has_input(call.inputs, "probs")) out["y_probs"] = make_tensor("float32", p.probs);
  out["row_id_map"] = int64_tensor(p.map.tokens, p.map.topk, p.map.row_t_k);
  out["tokens_per_expert"] = int64_tensor(p.map.tokens_per_expert);
  out["pad_offsets"] = int64_tensor(p.map.pad_offsets);
  out["padded_offs"] = int64_tensor(p.map.padded_offs);
  return out;
}

Tensors run_fused_unpermute_unpad(const KernelCall& call) {
  const Tensor& xt = input(call.inputs, "x");
  expect_dtype(xt, "x", {"bfloat16", "float32"}, 2);
  const RowsView x = rows_input(call.inputs, "x");
  const IntMatrix rows = int_matrix(call.inputs, "row_id_map");
  RowIdMap map;
  map.tokens = rows.rows;
  map.topk = rows.cols;
  map.rows = x.rows;
  map.row_t_k = rows.values;
  const std::vector<float> probs = optional_f32(call.inputs, "probs", rows.rows, rows.cols);
  const InputType type = xt.dtype == "bfloat16" ? InputType::bf16 : InputType::fp32;
  RowsBuffer y = fused_unpermute_unpad(x, type, map, probs, combine_spec(call));
  return {{"y", rows_tensor(std::move(y), xt.dtype)}};
}

// The data and scale inputs every copying kernel takes (string literal, for concatenation).
#define OCTET_LAYOUT_ROWS                                                                  \
  "x: float8_e4m3fn|float8_e4m3fnuz|float8_e5m2|float8_e5m2fnuz|bfloat16|float16|float32 " \
  "(T, D); x_scale (optional): float8_e8m0fnu|float32 (T, S)"

const KernelAdapter kAdapters[] = {
    {"pad_token_groups", "",
     OCTET_LAYOUT_ROWS "; offs: int32|int64 (G,) inclusive group ends, offs[-1] <= T",
     "alignment (int, default 32)",
     "y: x's dtype (round_up(T + G*alignment, alignment), D), group g at rows [padded_starts[g], +size_g), rest 0; "
     "y_scale: x_scale's dtype (same rows, S); padded_starts: int64 (G,); padded_offs: int64 (G,) inclusive padded ends",
     run_pad},
    {"unpad_token_groups", "",
     "x: padded rows (P, D) (dtypes as pad_token_groups), x_scale (optional, (P, S)); offs: int32|int64 (G,); "
     "padded_starts: int32|int64 (G,)",
     "num_tokens (int, default offs[-1])",
     "y: x's dtype (num_tokens, D), rows past offs[-1] 0; y_scale: x_scale's dtype (num_tokens, S)", run_unpad},
    {"permute_tokens", "", OCTET_LAYOUT_ROWS "; permuted_indices: int32|int64 (N,) in [-1, T)", "",
     "y: x's dtype (N, D), y[i] = x[permuted_indices[i]], index -1 a zero row; y_scale (N, S) likewise",
     run_permute},
    {"unpermute_tokens", "",
     "x: permuted rows (N, D), x_scale (optional, (N, S)); permuted_indices: int32|int64 (N,) in [-1, num_tokens), "
     "no repeats",
     "num_tokens (int, required)",
     "y: x's dtype (num_tokens, D), y[permuted_indices[i]] = x[i], other rows 0; y_scale (num_tokens, S) likewise",
     run_unpermute},
    {"permute_and_pad", "",
     OCTET_LAYOUT_ROWS "; tokens_per_expert_group: int32|int64 (ep_degree*num_local_experts,) rank-major counts",
     "ep_degree (int, required); num_local_experts (int, required); alignment (int, default 32)",
     "y: x's dtype (max_len, D), max_len = round_up(T + num_local_experts*alignment, alignment); y_scale (max_len, S); "
     "permuted_indices: int64 (max_len,) source row or -1; m_sizes: int64 (E,); m_offsets: int64 (E,) inclusive ends",
     run_permute_and_pad},
    {"fused_permute_pad", "",
     OCTET_LAYOUT_ROWS "; expert_t_k: int32|int64 (T, K) expert or -1, or routing_map: uint8 (T, E) 0/1; "
     "probs (optional): float32, the routing's shape",
     "num_experts (int, required with expert_t_k); alignment (int, default 1)",
     "y: x's dtype (rows, D), rows = sum_e round_up(n_e, alignment), pad rows 0; y_scale (rows, S); "
     "y_probs: float32 (rows,) when probs given; row_id_map: int64 (T, K) permuted row of each route or -1; "
     "tokens_per_expert, pad_offsets, padded_offs: int64 (E,)",
     run_fused_permute_pad},
    {"fused_unpermute_unpad", "",
     "x: bfloat16|float32 (rows, D) permuted rows; row_id_map: int32|int64 (T, K) in [-1, rows); "
     "probs (optional): float32 (T, K) merging weights",
     "combine_order (string: slot_ascending | row_descending, default slot_ascending); fma (int 0|1, default 0)",
     "y: x's dtype (T, D), fp32 sum of prob-weighted routed rows rounded once (bf16: RNE, IEEE overflow)",
     run_fused_unpermute_unpad},
};
#undef OCTET_LAYOUT_ROWS

}  // namespace

std::span<const KernelAdapter> layout_adapters() { return kAdapters; }

}  // namespace octet::golden
