// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// adapters/a2a.cpp — runner adapters of the single-process all-to-all emulation
// (octet/kernels/a2a_emulation.hpp; reference/kernels.md §7, §10): torchao to_mxfp8_a2a_dequant
// (a2a_exchange_mxfp8), DeepEP low-latency FP8 dispatch (a2a_exchange_fp8_blockwise), the bf16
// all_to_all_single (a2a_exchange_passthrough) and the top-k weighted combine (a2a_combine).
//
// The R ranks' buffers are stacked rank-major into one (N, H) matrix; `send_splits` (R, R) holds
// send_splits[src, dst] = rows rank src sends to rank dst (all_to_all_single's input split sizes,
// one row per rank). Exchange outputs are in the receive layout (receiver-major concatenation of
// the senders' chunks).
#include <cstdint>
#include <string>
#include <vector>

#include "../scale_io.hpp"
#include "octet/golden/adapter_io.hpp"
#include "octet/format.hpp"
#include "octet/golden/runner.hpp"
#include "octet/kernels/a2a_emulation.hpp"

namespace octet::golden {

namespace {

// The plan of `send_splits` (R, R), checked against the optional `rows_per_rank` (R,).
A2aPlan plan_input(const Tensors& inputs) {
  const IntMatrix s = int_matrix(inputs, "send_splits");
  if (s.rows != s.cols)
    throw KernelInputError("input 'send_splits': shape (" + std::to_string(s.rows) + ", " + std::to_string(s.cols) +
                           ") is not square (ranks, ranks)");
  std::vector<std::int64_t> rows_per_rank;
  if (has_input(inputs, "rows_per_rank")) rows_per_rank = int_list(inputs, "rows_per_rank");
  return A2aPlan(s.values, s.rows, rows_per_rank);
}

// The recipe of a quantised payload: attribute `recipe`, else the payload's default.
const Recipe& payload_recipe(const KernelCall& call, A2aPayload payload) {
  return call_recipe(call, name(*default_recipe(payload)));
}

template <class In>
Tensor rows_tensor(const FloatInput& x, std::int64_t rows, std::int64_t cols, const std::vector<In>& v) {
  return make_tensor(x.dtype(), {rows, cols}, v);
}

template <class In>
Tensors exchange(const KernelCall& call, const FloatInput& x, const std::vector<In>& values, A2aPayload payload) {
  const A2aPlan plan = plan_input(call.inputs);
  const auto view = view2d(values, x.dim(0), x.dim(1));
  Tensors out;
  if (payload == A2aPayload::passthrough) {
    const A2aExchanged<In> e = a2a_exchange(view, plan, payload);
    out["y"] = rows_tensor(x, e.rows, e.cols, e.out);
    return out;
  }
  const Recipe& r = payload_recipe(call, payload);
  const A2aExchanged<In> e = a2a_exchange(view, plan, payload, r);
  out["y"] = rows_tensor(x, e.rows, e.cols, e.out);
  out["q"] = make_tensor(dtype_name(element_format(r)), {e.rows, e.cols}, e.data);
  // mxfp8: e8m0 `scale`; fp8 1x128: fp32 `scale_inv` (DecodeFp32 recipes) or `scale` (EncodeFp32).
  out[std::string(stored_scale_name(r))] = stored_scale_tensor(r, {e.rows, e.cols / e.block}, e.scales);
  return out;
}

template <A2aPayload kPayload>
Tensors run_exchange(const KernelCall& call) {
  const FloatInput x = float_input(call.inputs, "x", 2);
  return x.type == InputType::bf16 ? exchange(call, x, x.bf16, kPayload) : exchange(call, x, x.f32, kPayload);
}

A2aPayload payload_param(const KernelCall& call) {
  const std::string p = call.string_param("payload", "passthrough");
  for (const A2aPayload v : {A2aPayload::passthrough, A2aPayload::mxfp8, A2aPayload::fp8_blockwise})
    if (p == name(v)) return v;
  throw KernelInputError("kernel " + call.kernel + ": payload '" + p + "' is not passthrough, mxfp8 or fp8_blockwise");
}

template <class In>
Tensors combine(const KernelCall& call, const FloatInput& x, const std::vector<In>& values) {
  const A2aPlan plan = plan_input(call.inputs);
  const std::vector<std::int64_t> tokens_per_rank = int_list(call.inputs, "tokens_per_rank");
  const IntMatrix rows = int_matrix(call.inputs, "route_rows");
  std::vector<float> weights;
  if (has_input(call.inputs, "weights")) {
    const Tensor& w = input(call.inputs, "weights");
    expect_dtype(w, "weights", {"float32"}, 2);
    if (w.shape[0] != rows.rows || w.shape[1] != rows.cols)
      throw KernelInputError("input 'weights': shape (" + std::to_string(w.shape[0]) + ", " + std::to_string(w.shape[1]) +
                             ") differs from route_rows' (" + std::to_string(rows.rows) + ", " +
                             std::to_string(rows.cols) + ")");
    weights = values_of<float>(w);
  }
  std::int64_t tokens = 0;
  for (const std::int64_t t : tokens_per_rank) tokens += t;
  if (rows.rows != tokens)
    throw KernelInputError("input 'route_rows': " + std::to_string(rows.rows) + " rows, but tokens_per_rank sums to " +
                           std::to_string(tokens));
  const A2aRoutes routes{tokens_per_rank, rows.cols, rows.values, weights};
  const A2aPayload payload = payload_param(call);
  const CombineSpec spec = combine_spec(call);
  const auto view = view2d(values, x.dim(0), x.dim(1));
  const std::vector<In> y = payload == A2aPayload::passthrough
                                ? a2a_combine(view, plan, routes, payload, spec)
                                : a2a_combine(view, plan, routes, payload, payload_recipe(call, payload), spec);
  return {{"y", rows_tensor(x, tokens, x.dim(1), y)}};
}

Tensors run_combine(const KernelCall& call) {
  const FloatInput x = float_input(call.inputs, "x", 2);
  return x.type == InputType::bf16 ? combine(call, x, x.bf16) : combine(call, x, x.f32);
}

#define OCTET_A2A_SEND                                                                                    \
  "x: bfloat16|float32 (N, H) send layout (ranks stacked); send_splits: int32|int64 (R, R), [src, dst] rows; " \
  "rows_per_rank (optional): int32|int64 (R,), checked against the row sums"

const KernelAdapter kAdapters[] = {
    {"a2a_exchange_mxfp8", "torchao_mx_rceil", OCTET_A2A_SEND ", H % 32 == 0",
     "recipe (string, an e8m0 recipe, default torchao_mx_rceil)",
     "y: x's dtype (N, H) received rows dequantised; q: recipe element dtype (N, H) received codes; "
     "scale: float8_e8m0fnu (N, H/32) received scales",
     run_exchange<A2aPayload::mxfp8>},
    {"a2a_exchange_fp8_blockwise", "deepep", OCTET_A2A_SEND ", H % 128 == 0",
     "recipe (string, an fp32-scale recipe, default deepep)",
     "y: x's dtype (N, H) received rows, code*scale_inv rounded once; q: recipe element dtype (N, H); "
     "scale_inv: float32 (N, H/128) (recipes storing the multiplier: scale)",
     run_exchange<A2aPayload::fp8_blockwise>},
    {"a2a_exchange_passthrough", "", OCTET_A2A_SEND, "",
     "y: x's dtype (N, H) received rows, bit for bit", run_exchange<A2aPayload::passthrough>},
    {"a2a_combine", "",
     "x: bfloat16|float32 (N, H) expert outputs in the dispatch's receive layout; send_splits: int32|int64 (R, R) "
     "the dispatch plan; tokens_per_rank: int32|int64 (R,); route_rows: int32|int64 (T, K) send-layout row of each "
     "route (in the token's rank's send range) or -1; weights (optional): float32 (T, K)",
     "payload (string: passthrough | mxfp8 | fp8_blockwise, default passthrough); recipe (string, payload's "
     "default); combine_order (string: slot_ascending | row_descending); fma (int 0|1, default 0)",
     "y: x's dtype (T, H) per token fp32 sum of weighted returned rows, rounded once; NaN as 0x7FC0 / 0x7FC00000",
     run_combine},
};
#undef OCTET_A2A_SEND

}  // namespace

std::span<const KernelAdapter> a2a_adapters() { return kAdapters; }

}  // namespace octet::golden
