// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// adapters/mx.cpp — the MX family behind the runner's signature: the e8m0 quantisers
// (mx_quantize_dim0/_dim1/_2d/_3d, torchao triton_to_mxfp8_dim0/dim1, mxfp8_quantize_cuda(_3d),
// TE quantize_mxfp8), the dim0 dequantiser, the quantisers' scales in the blocked 128x4 layout
// (mx_blocked_scales, the CuTeDSL kernels) and the scale swizzles of torchao mx_formats/utils.py
// and moe_training/kernels/mxfp8/quant.py (to_blocked, from_blocked, to_blocked_{m,k}_groups,
// to_blocked_per_group_3d). Kernels: emulator/include/octet/kernels/mx_quantize.hpp, mx_swizzle.hpp.
//
// Dataset conventions (golden/schema.md, kernels_mx): element codes `q` in the recipe's element
// dtype, e8m0 scales `scale` (float8_e8m0fnu), both in logical row-major order with the kernel's
// memory layout in `layout` / `strides`; blocked scale buffers `scale_blocked` hold the bytes the
// kernel writes (padding included) with layout blocked_128x4 (per-group variants: _m_groups,
// _k_groups) and row-major strides of their stored shape.
#include <array>
#include <string>
#include <vector>

#include "octet/golden/adapter_io.hpp"
#include "octet/format.hpp"
#include "octet/golden/runner.hpp"
#include "octet/kernels/mx_quantize.hpp"
#include "octet/kernels/mx_swizzle.hpp"

namespace octet::golden {
namespace {

constexpr std::string_view kDefaultRecipe = "torchao_mx_rceil";
constexpr std::string_view kE8m0 = "float8_e8m0fnu";

std::vector<std::int64_t> row_major_strides(const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> s(shape.size(), 1);
  for (std::size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

// A row-major byte tensor with explicit strides (what the reader returns, so that a stored and a
// recomputed Tensor compare equal).
Tensor byte_tensor(std::string_view dtype, std::vector<std::int64_t> shape, const std::vector<std::uint8_t>& bytes,
                   std::string layout = "row_major") {
  std::vector<std::int64_t> strides = row_major_strides(shape);
  return make_tensor(dtype, std::move(shape), bytes, std::move(layout), std::move(strides));
}

// "row_major" / "col_major" from a 2D view's strides (the MX outputs use only these two).
std::string layout_2d(std::int64_t rows, std::int64_t cols, std::int64_t row_stride, std::int64_t col_stride) {
  if (col_stride == 1 && (row_stride == cols || rows <= 1)) return "row_major";
  if (row_stride == 1 && (col_stride == rows || cols <= 1)) return "col_major";
  return "strided";
}

Tensor view_tensor(std::string_view dtype, View2D<const std::uint8_t> v) {
  return make_tensor(dtype, {v.rows, v.cols}, logical_order(v), layout_2d(v.rows, v.cols, v.row_stride, v.col_stride),
                     {v.row_stride, v.col_stride});
}

std::string_view element_dtype(const Recipe& r) { return dtype_name(element_format(r)); }

// q (elements) and scale (e8m0) of one quantised 2D operand, under `suffix` ("", "_rowwise", ...).
void add_2d(Tensors& out, const Recipe& r, const MxOutput2D& o, const std::string& suffix = "") {
  out.emplace("q" + suffix, view_tensor(element_dtype(r), o.data_view()));
  out.emplace("scale" + suffix, view_tensor(kE8m0, o.scale_view()));
}

// The 3D data (E, N, K) keeps its per-expert column-major strides (N·K, 1, N).
Tensor data_3d(const Recipe& r, const MxOutput3D& o) {
  return make_tensor(element_dtype(r), {o.experts, o.rows, o.cols}, logical_order(o.data_view()), "expert_col_major",
                     {o.data_expert_stride, o.data_row_stride, o.data_col_stride});
}
Tensor scale_3d(const MxOutput3D& o) {
  return make_tensor(kE8m0, {o.experts, o.scale_rows, o.scale_cols}, logical_order(o.scale_view()), "row_major",
                     {o.scale_expert_stride, o.scale_row_stride, o.scale_col_stride});
}

// Calls f(view) with a row-major 2D view of the float input (fp32 or bf16 bits).
template <class F>
auto with_view2d(const FloatInput& in, F&& f) {
  if (in.type == InputType::bf16) return f(view2d(in.bf16, in.dim(0), in.dim(1)));
  return f(view2d(in.f32, in.dim(0), in.dim(1)));
}
template <class F>
auto with_view3d(const FloatInput& in, F&& f) {
  if (in.type == InputType::bf16) return f(view3d(in.bf16, in.dim(0), in.dim(1), in.dim(2)));
  return f(view3d(in.f32, in.dim(0), in.dim(1), in.dim(2)));
}

// The 3D block shape: attribute `block`, "32x1" (default) or "32x32".
MxBlock3D block_3d(const KernelCall& call) {
  const std::string b = call.string_param("block", "32x1");
  if (b == "32x1") return MxBlock3D::Block32x1;
  if (b == "32x32") return MxBlock3D::Block32x32;
  throw KernelInputError("kernel " + call.kernel + ": attribute 'block' = '" + b + "', expected 32x1 or 32x32");
}

// A scale-byte input: any dtype of one-byte elements (e8m0 codes, or e4m3 / uint8), kept as bytes.
struct ByteInput {
  std::string dtype;
  std::vector<std::int64_t> shape;
  std::vector<std::uint8_t> bytes;
};
ByteInput byte_input(const Tensors& inputs, const std::string& name, int rank) {
  const Tensor& t = input(inputs, name);
  expect_dtype(t, name, {"float8_e8m0fnu", "uint8", "float8_e4m3fn"}, rank);
  return {t.dtype, t.shape, t.bytes};
}

// ---- quantisers -----------------------------------------------------------------------------------

// The 1-D block quantisers of a 2D x: 1x32 blocks along the rows (mx_quantize_dim0) or 32x1
// blocks down the columns (mx_quantize_dim1).
enum class BlockDim : std::uint8_t { dim0, dim1 };
MxOutput2D quantize_1d(const Recipe& r, const FloatInput& x, BlockDim dim) {
  return with_view2d(x, [&](auto v) { return dim == BlockDim::dim0 ? mx_quantize_dim0(r, v) : mx_quantize_dim1(r, v); });
}

template <BlockDim kDim>
Tensors run_1d(const KernelCall& call) {
  const Recipe& r = call_recipe(call, kDefaultRecipe);
  const FloatInput x = float_input(call.inputs, "x", 2);
  Tensors out;
  add_2d(out, r, quantize_1d(r, x, kDim));
  return out;
}

Tensors run_2d(const KernelCall& call) {
  const Recipe& r = call_recipe(call, kDefaultRecipe);
  const bool rowwise = flag_param(call, "rowwise", true), colwise = flag_param(call, "colwise", true);
  const FloatInput x = float_input(call.inputs, "x", 2);
  const MxQuantized2D q = with_view2d(x, [&](auto v) { return mx_quantize_2d(r, v, rowwise, colwise); });
  Tensors out;
  if (q.rowwise) add_2d(out, r, *q.rowwise, "_rowwise");
  if (q.colwise) add_2d(out, r, *q.colwise, "_colwise");
  return out;
}

Tensors run_3d(const KernelCall& call) {
  const Recipe& r = call_recipe(call, kDefaultRecipe);
  const MxBlock3D block = block_3d(call);
  const FloatInput x = float_input(call.inputs, "x", 3);
  const MxOutput3D q = with_view3d(x, [&](auto v) { return mx_quantize_3d(r, v, block); });
  return {{"q", data_3d(r, q)}, {"scale", scale_3d(q)}};
}

Tensors run_dequantize(const KernelCall& call) {
  const Recipe& r = call_recipe(call, kDefaultRecipe);
  const std::string out_dtype = call.string_param("out_dtype", "bfloat16");
  if (out_dtype != "bfloat16" && out_dtype != "float32")
    throw KernelInputError("kernel " + call.kernel + ": attribute 'out_dtype' = '" + out_dtype +
                           "', expected bfloat16 or float32");
  const Tensor& q = input(call.inputs, "q");
  expect_dtype(q, "q", {element_dtype(r)}, 2);
  const Tensor& scale = input(call.inputs, "scale");
  expect_dtype(scale, "scale", {kE8m0}, 2);
  const std::vector<std::uint8_t> q_bytes = values_of<std::uint8_t>(q), s_bytes = values_of<std::uint8_t>(scale);
  const auto qv = view2d(q_bytes, q.shape[0], q.shape[1]);
  const auto sv = view2d(s_bytes, scale.shape[0], scale.shape[1]);
  const std::vector<std::int64_t> shape{q.shape[0], q.shape[1]};
  if (out_dtype == "float32")
    return {{"y", make_tensor("float32", shape, mx_dequantize_dim0_fp32(r, qv, sv), "row_major", row_major_strides(shape))}};
  return {{"y", make_tensor("bfloat16", shape, mx_dequantize_dim0_bf16(r, qv, sv), "row_major", row_major_strides(shape))}};
}

// The quantiser's codes plus its scales in the blocked layout: for 2D x, `block` 1x32
// (mx_quantize_dim0, scales (M, K/32)) or 32x1 (mx_quantize_dim1, scales (K, M/32)), blocked as one
// (Hp·Wp,) buffer; for 3D x, `block` 32x1 or 32x32, (E, Hp·Wp) with the per-expert (K, N/32) scales.
Tensors run_blocked_scales(const KernelCall& call) {
  const Recipe& r = call_recipe(call, kDefaultRecipe);
  const Tensor& xt = input(call.inputs, "x");
  Tensors out;
  if (xt.shape.size() == 3) {
    const MxBlock3D block = block_3d(call);
    const FloatInput x = float_input(call.inputs, "x", 3);
    const MxOutput3D q = with_view3d(x, [&](auto v) { return mx_quantize_3d(r, v, block); });
    const std::int64_t per_expert = blocked_rows(q.cols) * blocked_cols(q.scale_rows);
    out.emplace("q", data_3d(r, q));
    out.emplace("scale_blocked", byte_tensor(kE8m0, {q.experts, per_expert}, mx_blocked_scales(q), "blocked_128x4"));
    return out;
  }
  const FloatInput x = float_input(call.inputs, "x", 2);
  const std::string block = call.string_param("block", "1x32");
  if (block != "1x32" && block != "32x1")
    throw KernelInputError("kernel " + call.kernel + ": attribute 'block' = '" + block +
                           "', expected 1x32 or 32x1 for a 2D x (32x1 or 32x32 for a 3D x)");
  const MxOutput2D q = quantize_1d(r, x, block == "1x32" ? BlockDim::dim0 : BlockDim::dim1);
  const std::vector<std::uint8_t> blocked = mx_blocked_scales(q);
  out.emplace("q", view_tensor(element_dtype(r), q.data_view()));
  out.emplace("scale_blocked", byte_tensor(kE8m0, {std::int64_t(blocked.size())}, blocked, "blocked_128x4"));
  return out;
}

// ---- scale swizzles -------------------------------------------------------------------------------

Tensors run_to_blocked(const KernelCall& call) {
  const ByteInput s = byte_input(call.inputs, "scale", 2);
  const std::vector<std::uint8_t> b = to_blocked(view2d(s.bytes, s.shape[0], s.shape[1]));
  return {{"scale_blocked", byte_tensor(s.dtype, {std::int64_t(b.size())}, b, "blocked_128x4")}};
}

Tensors run_from_blocked(const KernelCall& call) {
  const std::int64_t rows = call.required_int("rows"), cols = call.required_int("cols");
  const ByteInput b = byte_input(call.inputs, "scale_blocked", -1);
  if (b.shape.empty()) throw KernelInputError("input 'scale_blocked': rank 0, expected a byte buffer of rank >= 1");
  return {{"scale", byte_tensor(b.dtype, {rows, cols}, from_blocked(b.bytes, rows, cols))}};
}

Tensors grouped_outputs(const std::string& dtype, const BlockedScaleGroups& g, const char* layout) {
  return {{"scale_blocked", byte_tensor(dtype, {g.rows, g.cols}, g.bytes, layout)},
          {"group_starts", make_tensor("int64", {std::int64_t(g.group_starts.size())}, g.group_starts, "row_major", {1})}};
}

Tensors run_m_groups(const KernelCall& call) {
  const ByteInput s = byte_input(call.inputs, "scale", 2);
  const std::vector<std::int64_t> offs = int_list(call.inputs, "offs");
  const BlockedScaleGroups g = to_blocked_m_groups(view2d(s.bytes, s.shape[0], s.shape[1]), std::span(offs));
  return grouped_outputs(s.dtype, g, "blocked_128x4_m_groups");
}

Tensors run_k_groups(const KernelCall& call) {
  const ByteInput s = byte_input(call.inputs, "scale", 2);
  const std::vector<std::int64_t> offs = int_list(call.inputs, "offs");
  const std::int64_t block_size = call.int_param("block_size", kMxBlockSize);
  const std::vector<std::int64_t> scale_offs = k_group_scale_offsets(std::span(offs), block_size);
  const BlockedScaleGroups g = to_blocked_k_groups(view2d(s.bytes, s.shape[0], s.shape[1]), std::span(scale_offs));
  return grouped_outputs(s.dtype, g, "blocked_128x4_k_groups");
}

Tensors run_per_group_3d(const KernelCall& call) {
  const ByteInput s = byte_input(call.inputs, "scale", 3);
  const std::int64_t E = s.shape[0], H = s.shape[1], W = s.shape[2];
  const std::vector<std::uint8_t> b = to_blocked_per_group_3d(view3d(s.bytes, E, H, W));
  return {{"scale_blocked", byte_tensor(s.dtype, {E, blocked_rows(H) * blocked_cols(W)}, b, "blocked_128x4")}};
}

const std::array<KernelAdapter, 11> kAdapters{{
    {"mx_quantize_dim0", kDefaultRecipe, "x: bfloat16|float32 (M, K), K % 32 == 0", "recipe (an MX recipe)",
     "q: <element> (M, K) row_major; scale: float8_e8m0fnu (M, K/32) row_major", run_1d<BlockDim::dim0>},
    {"mx_quantize_dim1", kDefaultRecipe, "x: bfloat16|float32 (M, K), M % 32 == 0", "recipe (an MX recipe)",
     "q: <element> (M, K) col_major, strides (1, M); scale: float8_e8m0fnu (K, M/32) row_major",
     run_1d<BlockDim::dim1>},
    {"mx_quantize_2d", kDefaultRecipe, "x: bfloat16|float32 (rows, cols), rows % 32 == 0 and cols % 32 == 0",
     "recipe (an MX recipe); rowwise (int 0/1, default 1); colwise (int 0/1, default 1)",
     "when rowwise: q_rowwise: <element> (rows, cols) row_major, scale_rowwise: float8_e8m0fnu (rows, cols/32) "
     "row_major; when colwise: q_colwise: <element> (rows, cols) col_major, strides (1, rows), scale_colwise: "
     "float8_e8m0fnu (cols, rows/32) col_major, strides (1, cols)",
     run_2d},
    {"mx_quantize_3d", kDefaultRecipe, "x: bfloat16|float32 (E, N, K), N % 32 == 0 (and K % 32 == 0 for 32x32)",
     "recipe (an MX recipe); block (string 32x1 | 32x32, default 32x1)",
     "q: <element> (E, N, K) expert_col_major, strides (N*K, 1, N); scale: float8_e8m0fnu (E, N/32, K) for 32x1, "
     "(E, N/32, K/32) for 32x32, row_major",
     run_3d},
    {"mx_dequantize_dim0", kDefaultRecipe,
     "q: <recipe element dtype> (M, K), K % 32 == 0; scale: float8_e8m0fnu (M, K/32)",
     "recipe (an MX recipe); out_dtype (string bfloat16 | float32, default bfloat16)",
     "y: <out_dtype> (M, K) row_major", run_dequantize},
    {"mx_blocked_scales", kDefaultRecipe,
     "x: bfloat16|float32 (M, K) or (E, N, K)",
     "recipe (an MX recipe); block (string: 1x32 (default) | 32x1 for 2D x, 32x1 (default) | 32x32 for 3D x)",
     "q: as mx_quantize_dim0 (1x32), mx_quantize_dim1 (32x1) or mx_quantize_3d; scale_blocked: float8_e8m0fnu "
     "blocked_128x4, (Hp*Wp,) for 2D (scales (M, K/32) or (K, M/32)), (E, Hp*Wp) for 3D (per expert (K, N/32), "
     "a 32x32 scale repeated for its 32 k)",
     run_blocked_scales},
    {"to_blocked", "", "scale: float8_e8m0fnu|uint8|float8_e4m3fn (H, W)", "",
     "scale_blocked: <scale dtype> (Hp*Wp,) blocked_128x4, Hp = 128*ceil(H/128), Wp = 4*ceil(W/4), pad bytes 0",
     run_to_blocked},
    {"from_blocked", "", "scale_blocked: float8_e8m0fnu|uint8|float8_e4m3fn, Hp*Wp bytes (any rank)",
     "rows (int, required); cols (int, required)", "scale: <scale_blocked dtype> (rows, cols) row_major",
     run_from_blocked},
    {"to_blocked_m_groups", "",
     "scale: float8_e8m0fnu|uint8|float8_e4m3fn (H, W); offs: int32|int64 (G,) inclusive row ends over H", "",
     "scale_blocked: <scale dtype> (H + 128*G, Wp) blocked_128x4_m_groups; group_starts: int64 (G+1,) padded "
     "start rows, last = end",
     run_m_groups},
    {"to_blocked_k_groups", "",
     "scale: float8_e8m0fnu|uint8|float8_e4m3fn (N, M/32); offs: int32|int64 (G,) inclusive token ends over M, "
     "each group a multiple of block_size",
     "block_size (int, default 32)",
     "scale_blocked: <scale dtype> (Np, M/32 + 4*G) blocked_128x4_k_groups; group_starts: int64 (G+1,) padded "
     "start scale columns, last = end",
     run_k_groups},
    {"to_blocked_per_group_3d", "", "scale: float8_e8m0fnu|uint8|float8_e4m3fn (E, H, W)", "",
     "scale_blocked: <scale dtype> (E, Hp*Wp) blocked_128x4, each expert through to_blocked", run_per_group_3d},
}};

}  // namespace

std::span<const KernelAdapter> mx_adapters() { return kAdapters; }

}  // namespace octet::golden
