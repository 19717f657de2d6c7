// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// adapters/transpose.cpp — runner adapters of the FP8-Flow-MoE scaling-aware fp8 transpose
// (octet/kernels/fp8flow_transpose.hpp; reference/kernels.md §8; peer 021ai/TransformerEngine-
// FP8FlowMoe blockwise_scaling_aware_fp8_transpose.py, TE PR #2544): the published kernel, the
// correctly rounded `ideal` shift and the `naive` double-quant baseline, one adapter each.
//
// The kernel writes its per-group outputs packed back to back in one buffer each; `qt` and
// `scale_inv_t` are stored as those flat buffers (layout "group_packed": group g of rows
// [b_g, e_g) is elements [cols·b_g, cols·e_g) of qt as a row-major (cols, m_g) matrix, and
// [cb·b_g, cb·e_g) of scale_inv_t as (cb, m_g)). `col_scale_inv` is the row-major stack of the
// groups' (ceil(m_g/128), cols) matrices.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "octet/golden/runner.hpp"
#include "octet/kernels/fp8flow_transpose.hpp"

namespace octet::golden {
namespace {

template <Fp8FlowVariant kVariant>
Tensors run_fp8flow(const KernelCall& call) {
  const Tensor& q = input(call.inputs, "q");
  expect_dtype(q, "q", {"float8_e4m3fn"}, 2);
  const Tensor& si = input(call.inputs, "scale_inv");
  expect_dtype(si, "scale_inv", {"float32"}, 2);
  std::vector<std::int32_t> offs;
  for (const std::int64_t o : int_list(call.inputs, "offs")) {
    if (o < 0 || o > std::numeric_limits<std::int32_t>::max())
      throw KernelInputError("input 'offs': " + std::to_string(o) + " is outside [0, 2^31) (the kernel takes int32 offs)");
    offs.push_back(std::int32_t(o));
  }
  const std::vector<std::uint8_t> codes = values_of<std::uint8_t>(q);
  const std::vector<float> scale_inv = values_of<float>(si);
  const Fp8FlowResult r = fp8flow_transpose(kVariant, view2d(codes, q.shape[0], q.shape[1]),
                                            view2d(scale_inv, si.shape[0], si.shape[1]), offs);
  const Fp8FlowLayout& L = r.layout;
  Tensors out;
  out["qt"] = make_tensor("float8_e4m3fn", {L.qt_size()}, r.qt, "group_packed");
  out["col_scale_inv"] = make_tensor("float32", {L.tile_row_begin.back(), L.cols}, r.csi);
  out["scale_inv_t"] = make_tensor("float32", {L.sit_size()}, r.sit, "group_packed");
  return out;
}

constexpr std::string_view kInputs =
    "q: float8_e4m3fn (m, cols) rowwise codes; scale_inv: float32 (m, ceil(cols/128)), each +0 or a power of two in "
    "[2^-127, 2^127]; offs: int32|int64 (G >= 1,) inclusive group ends, offs[-1] == m";
constexpr std::string_view kOutputs =
    "qt: float8_e4m3fn (m*cols,) layout group_packed, group g = qt[cols*b_g : cols*e_g] as (cols, m_g); "
    "col_scale_inv: float32 (sum_g ceil(m_g/128), cols) columnwise scale_inv, groups stacked; "
    "scale_inv_t: float32 (ceil(cols/128)*m,) layout group_packed, group g = [cb*b_g : cb*e_g] as (cb, m_g)";

const KernelAdapter kAdapters[] = {
    {"fp8flow_transpose_published", "", kInputs, "", kOutputs, run_fp8flow<Fp8FlowVariant::published>},
    {"fp8flow_transpose_ideal", "", kInputs, "", kOutputs, run_fp8flow<Fp8FlowVariant::ideal>},
    {"fp8flow_transpose_naive", "", kInputs, "", kOutputs, run_fp8flow<Fp8FlowVariant::naive>},
};

}  // namespace

std::span<const KernelAdapter> transpose_adapters() { return kAdapters; }

}  // namespace octet::golden
