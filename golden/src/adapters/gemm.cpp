// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// adapters/gemm.cpp — the scaled (grouped) GEMMs of emulator/include/octet/gemm.hpp as golden
// kernels, one per accumulation model of the registry (exact, fp32_seq, fp32_promote,
// hopper_fast_accum). Peer semantics: torch `_scaled_mm` / `_scaled_grouped_mm` (2Dx3D, 2Dx2D),
// DeepGEMM m-/k-grouped contiguous GEMMs (reference/kernels.md §4; docs/gemm-accumulation.md).
//
// Parameter `op` picks the operation (default: from the inputs):
//   scaled_mm               a (M, K) · b (K, N) -> y (M, N)
//   scaled_grouped_mm_2d3d  a (M, K), b (E, K, N), offs (E,) over M -> y (M, N)
//   scaled_grouped_mm_2d2d  a (M, K), b (K, N), offs (E,) over K -> y (E, M, N)
// Operands are stored codes of the recipe's element format with the recipe's stored scales
// (`scale_a`, `scale_b`: fp32 bits as float32, or e8m0fnu / e4m3fn codes), scale blocks given by
// block_a_outer / block_a_k / block_b_outer / block_b_k (0 = the whole dimension; gemm.hpp).
//
// Beside y the adapter stores the a-priori bounds of gemm.hpp, made relative to y itself:
//   y_bound (float32, y's shape): |out − y| <= y_bound for every out within the model's
//     elementwise bound rel·Σ|a·b| + abs of the exact product: y_bound = rel·S + abs + |y − exact|
//     (exact: the exact model in fp64, plus its own rounding), rounded up to fp32. 0 where y, S or
//     the exact value is not finite: there the comparison is bit for bit.
//   y_normwise_bound (float64, (1,)): the same for ||Out − y||_F: sqrt(Σ_groups nb_g²) +
//     ||y − exact||_F, nb_g = normwise_bound of each dense product; +Inf when not finite.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "../scale_io.hpp"
#include "octet/golden/adapter_io.hpp"
#include "octet/format.hpp"
#include "octet/gemm.hpp"
#include "octet/golden/runner.hpp"
#include "octet/scale.hpp"

namespace octet::golden {
namespace {

enum class Op : std::uint8_t { dense, grouped_2d3d, grouped_2d2d };

Op parse_op(const KernelCall& call) {
  const std::optional<std::string> op = call.string_param("op");
  if (!op) {
    if (has_input(call.inputs, "b") && input(call.inputs, "b").shape.size() == 3) return Op::grouped_2d3d;
    return has_input(call.inputs, "offs") ? Op::grouped_2d2d : Op::dense;
  }
  if (*op == "scaled_mm") return Op::dense;
  if (*op == "scaled_grouped_mm_2d3d") return Op::grouped_2d3d;
  if (*op == "scaled_grouped_mm_2d2d") return Op::grouped_2d2d;
  throw KernelInputError("attribute 'op' = '" + *op +
                         "'; valid: scaled_mm, scaled_grouped_mm_2d3d, scaled_grouped_mm_2d2d");
}

OutDtype parse_out(const KernelCall& call, GemmModel model) {
  const std::string out = call.string_param("out_dtype", "bfloat16");
  if (out == "bfloat16") return OutDtype::bf16;
  if (out == "float32") return OutDtype::fp32;
  if (out == "float64" && model == GemmModel::exact) return OutDtype::fp64;
  throw KernelInputError("attribute 'out_dtype' = '" + out + "'; valid: bfloat16, float32" +
                         (model == GemmModel::exact ? ", float64" : ""));
}

// An operand's stored codes and scales, kept alive for the views.
struct StoredOperand {
  const Recipe* recipe = nullptr;
  std::vector<std::int64_t> shape, scale_shape;
  std::vector<std::uint8_t> codes;
  std::vector<std::uint32_t> scale_words;  // fp32 storages
  std::vector<std::uint8_t> scale_bytes;   // e8m0 / e4m3 storages
  ScaleBlock block;
  float global_decode = 1.0f;

  std::int64_t dim(std::size_t i) const { return shape.at(i); }
  bool word_scales() const {
    return storage(*recipe) == ScaleStorage::EncodeFp32 || storage(*recipe) == ScaleStorage::DecodeFp32;
  }
  // The 2-D scale matrix (of expert `e` when the scales have rank 3).
  ScaleView scales(std::int64_t e = 0) const {
    const std::size_t r = scale_shape.size();
    const std::int64_t rows = scale_shape[r - 2], cols = scale_shape[r - 1];
    if (word_scales())
      return ScaleView::of(View2D<const std::uint32_t>::row_major(scale_words.data() + e * rows * cols, rows, cols));
    return ScaleView::of(View2D<const std::uint8_t>::row_major(scale_bytes.data() + e * rows * cols, rows, cols));
  }
  ScaledOperand operand() const {
    return {recipe, View2D<const std::uint8_t>::row_major(codes.data(), dim(0), dim(1)), scales(), block, global_decode};
  }
  ScaledOperand3D operand3d() const {
    const std::int64_t e = dim(0), k = dim(1), n = dim(2);
    ScaledOperand3D o;
    o.recipe = recipe;
    o.data = View3D<const std::uint8_t>::row_major(codes.data(), e, k, n);
    o.scales.first = scales();
    o.scales.experts = scale_shape[0];
    o.scales.expert_stride = scale_shape[1] * scale_shape[2];
    o.block = block;
    o.global_decode = global_decode;
    return o;
  }
};

// Reads operand `name` (codes `name`, scales `scale_<name>`, optional `global_decode_<name>`).
StoredOperand read_operand(const KernelCall& call, const std::string& name, const Recipe& r, int rank) {
  StoredOperand o;
  o.recipe = &r;
  const Tensor& data = input(call.inputs, name);
  expect_dtype(data, name, {dtype_name(element_format(r))}, rank);
  o.shape = data.shape;
  o.codes = values_of<std::uint8_t>(data);
  const std::string scale_name = "scale_" + name;
  const Tensor& scales = input(call.inputs, scale_name);
  const std::string_view sd = stored_scale_dtype(r);
  expect_dtype(scales, scale_name, {sd}, rank);
  o.scale_shape = scales.shape;
  if (sd == "float32") {
    for (const float f : values_of<float>(scales)) o.scale_words.push_back(std::bit_cast<std::uint32_t>(f));
  } else {
    o.scale_bytes = values_of<std::uint8_t>(scales);
  }
  o.block = {call.int_param("block_" + name + "_outer", 0), call.int_param("block_" + name + "_k", 0)};
  const std::string global_name = "global_decode_" + name;
  if (has_input(call.inputs, global_name)) {
    const Tensor& g = input(call.inputs, global_name);
    expect_dtype(g, global_name, {"float32"}, 1);
    const std::vector<float> v = values_of<float>(g);
    if (v.size() != 1) throw KernelInputError("input '" + global_name + "': expected 1 element");
    o.global_decode = v[0];
  }
  return o;
}

// The optional fp32 C (accumulator / bias), `elements` values.
std::vector<float> read_c(const KernelCall& call, const std::vector<std::int64_t>& shape) {
  if (!has_input(call.inputs, "c")) return {};
  const Tensor& c = input(call.inputs, "c");
  expect_dtype(c, "c", {"float32"}, int(shape.size()));
  if (c.shape != shape) throw KernelInputError("input 'c': shape differs from the output's");
  return values_of<float>(c);
}

// One dense product of the operation: A and B of the group, its C, where its outputs start.
struct DenseProduct {
  ScaledOperand a, b;
  const float* c = nullptr;
  std::int64_t out_offset = 0;
};

void shift(ScaleView& v, std::int64_t elements) {
  if (v.words) v.words += elements;
  else v.bytes += elements;
}

std::int64_t blocks_of(std::int64_t extent, std::int64_t block) { return block == 0 ? 1 : (extent + block - 1) / block; }

// The dense products a grouped GEMM consists of (gemm.cpp's drivers slice the operands the same
// way); empty groups have none.
std::vector<DenseProduct> products_2d3d(const ScaledOperand& a, const ScaledOperand3D& b, const Groups& groups,
                                        const std::vector<float>& c) {
  std::vector<DenseProduct> out;
  const std::int64_t n = b.data.cols, ob = a.block.outer;
  for (std::int64_t g = 0; g < groups.count(); ++g) {
    const std::int64_t s = groups.begin(g), e = groups.end(g);
    if (s == e) continue;
    DenseProduct p{a, b.expert(g), c.empty() ? nullptr : c.data() + s * n, s * n};
    p.a.data.data += s * a.data.row_stride;
    p.a.data.rows = e - s;
    if (ob > 0) {
      shift(p.a.scales, (s / ob) * a.scales.row_stride);
      p.a.scales.rows = blocks_of(e - s, ob);
    }
    out.push_back(p);
  }
  return out;
}

std::vector<DenseProduct> products_2d2d(const ScaledOperand& a, const ScaledOperand& b, const Groups& groups,
                                        const std::vector<float>& c) {
  std::vector<DenseProduct> out;
  const std::int64_t mn = a.data.rows * b.data.cols;
  for (std::int64_t g = 0; g < groups.count(); ++g) {
    const std::int64_t s = groups.begin(g), t = groups.end(g);
    if (s == t) continue;
    DenseProduct p{a, b, c.empty() ? nullptr : c.data() + g * mn, g * mn};
    p.a.data.data += s * a.data.col_stride;
    p.a.data.cols = t - s;
    p.b.data.data += s * b.data.row_stride;
    p.b.data.rows = t - s;
    shift(p.a.scales, (a.block.k == 0 ? g : s / a.block.k) * a.scales.col_stride);
    p.a.scales.cols = a.block.k == 0 ? 1 : (t - s) / a.block.k;
    shift(p.b.scales, (b.block.k == 0 ? g : s / b.block.k) * b.scales.row_stride);
    p.b.scales.rows = b.block.k == 0 ? 1 : (t - s) / b.block.k;
    out.push_back(p);
  }
  return out;
}

double sum_squares(const std::vector<double>& v) {
  double s = 0.0;
  for (const double x : v) s += x * x;
  return s;
}

// Rounds a non-negative double up to fp32.
float round_up_f32(double v) {
  float f = float(v);
  if (double(f) < v) f = std::nextafter(f, std::numeric_limits<float>::infinity());
  return f;
}

// y_bound and y_normwise_bound (header comment) from the model's output y, the exact output in
// fp64 and the dense products of the operation.
Tensors bound_tensors(const GemmConfig& cfg, const GemmOutput& y, const GemmOutput& exact,
                      const std::vector<DenseProduct>& products, const std::vector<std::int64_t>& shape) {
  const std::int64_t size = y.size();
  // The elementwise a-priori part; zero outside every product (rows past offs[-1], empty groups:
  // y is then C or zero, rounded as the exact value is).
  std::vector<double> apriori(std::size_t(size), 0.0);
  double normwise_sq = 0.0;
  for (const DenseProduct& p : products) {
    const std::int64_t m = p.a.data.rows, k = p.a.data.cols, n = p.b.data.cols;
    const ErrorBound eb = gemm_error_bound(cfg, k, scale_segment(p.a.block, p.b.block, k));
    const std::vector<double> s =
        abs_product_sum(p.a, p.b, p.c ? std::span<const float>(p.c, std::size_t(m * n)) : std::span<const float>());
    for (std::int64_t i = 0; i < m * n; ++i) apriori[std::size_t(p.out_offset + i)] = eb.rel * s[std::size_t(i)] + eb.abs;
    double fro_c = 0.0;
    for (std::int64_t i = 0; p.c && i < m * n; ++i) fro_c += double(p.c[i]) * double(p.c[i]);
    const double nb = normwise_bound(eb, std::sqrt(sum_squares(dequantize_lhs(p.a))),
                                     std::sqrt(sum_squares(dequantize_rhs(p.b))), std::sqrt(fro_c), m * n);
    normwise_sq += nb * nb;
  }
  // The exact value in fp64 is itself rounded once: add 2^-52·|exact| (and the last subnormal);
  // the double arithmetic of the sums adds a relative 2^-50 at most.
  constexpr double kSlack = 1.0 + 0x1p-50;
  std::vector<float> elementwise(static_cast<std::size_t>(size));
  double diff_sq = 0.0;
  bool finite = std::isfinite(normwise_sq);
  for (std::int64_t i = 0; i < size; ++i) {
    const double yi = y.at(i), xi = exact.at(i), ai = apriori[std::size_t(i)];
    if (!std::isfinite(yi) || !std::isfinite(xi) || !std::isfinite(ai)) {
      elementwise[std::size_t(i)] = 0.0f;
      finite = false;
      continue;
    }
    const double diff = std::fabs(yi - xi) + std::fabs(xi) * 0x1p-52 + 0x1p-1074;
    elementwise[std::size_t(i)] = round_up_f32((ai + diff) * kSlack);
    diff_sq += diff * diff;
  }
  const double normwise = finite ? (std::sqrt(normwise_sq) + std::sqrt(diff_sq)) * kSlack
                                 : std::numeric_limits<double>::infinity();
  return {{"y_bound", make_tensor("float32", shape, elementwise)},
          {"y_normwise_bound", make_tensor("float64", {1}, std::vector<double>{normwise})}};
}

Tensor output_tensor(const GemmOutput& o, const std::vector<std::int64_t>& shape) {
  switch (o.dtype) {
    case OutDtype::bf16: return make_tensor("bfloat16", shape, o.bf16_bits());
    case OutDtype::fp32: return make_tensor("float32", shape, o.values);
    case OutDtype::fp64: break;
  }
  return make_tensor("float64", shape, o.values64);
}

// The int32 offs the emulator takes (torch's dtype); int64 inputs must fit.
std::vector<std::int32_t> offs_input(const KernelCall& call) { return narrow_int32(int_list(call.inputs, "offs"), "offs"); }

Tensors run_gemm(const KernelCall& call, GemmModel model) {
  const Op op = parse_op(call);
  const Recipe& ra = call_recipe(call, "");
  const std::string rb_name = call.string_param("recipe_b", ra.name);
  const Recipe* rb = find_recipe(rb_name);
  if (!rb) throw KernelInputError("unknown recipe_b '" + rb_name + "'");

  GemmConfig cfg;
  cfg.model = model;
  cfg.out = parse_out(call, model);
  cfg.promote_chunk = call.int_param("promote_chunk", cfg.promote_chunk);
  cfg.hopper.mantissa_bits = int(call.int_param("mantissa_bits", cfg.hopper.mantissa_bits));
  cfg.hopper.group = int(call.int_param("group", cfg.hopper.group));
  cfg.hopper.promote_interval = call.int_param("promote_interval", cfg.hopper.promote_interval);
  if (cfg.hopper.mantissa_bits < 2 || cfg.hopper.mantissa_bits > 24 || cfg.hopper.group < 1)
    throw KernelInputError("attributes 'mantissa_bits' (2..24) / 'group' (>= 1) out of range");
  GemmConfig exact_cfg = cfg;
  exact_cfg.model = GemmModel::exact;
  exact_cfg.out = OutDtype::fp64;

  const StoredOperand a = read_operand(call, "a", ra, 2);
  const StoredOperand b = read_operand(call, "b", *rb, op == Op::grouped_2d3d ? 3 : 2);
  const ScaledOperand a_op = a.operand();
  const std::int64_t m = a.dim(0);

  GemmOutput y, exact;
  std::vector<std::int64_t> shape;
  switch (op) {
    case Op::dense: {
      shape = {m, b.dim(1)};
      const std::vector<float> c = read_c(call, shape);
      const ScaledOperand b_op = b.operand();
      y = scaled_mm(a_op, b_op, cfg, c);
      exact = scaled_mm(a_op, b_op, exact_cfg, c);
      const std::vector<DenseProduct> products{{a_op, b_op, c.empty() ? nullptr : c.data(), 0}};
      Tensors t = bound_tensors(cfg, y, exact, products, shape);
      t.emplace("y", output_tensor(y, shape));
      return t;
    }
    case Op::grouped_2d3d: {
      shape = {m, b.dim(2)};
      const std::vector<float> c = read_c(call, shape);
      const std::vector<std::int32_t> offs = offs_input(call);
      if (b.scale_shape[0] != b.dim(0))
        throw KernelInputError("input 'scale_b': " + std::to_string(b.scale_shape[0]) + " experts, b has " +
                               std::to_string(b.dim(0)));
      const ScaledOperand3D b_op = b.operand3d();
      y = scaled_grouped_mm_2d3d(a_op, b_op, offs, cfg, c);
      exact = scaled_grouped_mm_2d3d(a_op, b_op, offs, exact_cfg, c);
      const Groups groups(std::span<const std::int32_t>(offs), m);
      Tensors t = bound_tensors(cfg, y, exact, products_2d3d(a_op, b_op, groups, c), shape);
      t.emplace("y", output_tensor(y, shape));
      return t;
    }
    case Op::grouped_2d2d: {
      const std::vector<std::int32_t> offs = offs_input(call);
      shape = {std::int64_t(offs.size()), m, b.dim(1)};
      const std::vector<float> c = read_c(call, shape);
      const ScaledOperand b_op = b.operand();
      y = scaled_grouped_mm_2d2d(a_op, b_op, offs, cfg, c);
      exact = scaled_grouped_mm_2d2d(a_op, b_op, offs, exact_cfg, c);
      const Groups groups(std::span<const std::int32_t>(offs), a.dim(1));
      Tensors t = bound_tensors(cfg, y, exact, products_2d2d(a_op, b_op, groups, c), shape);
      t.emplace("y", output_tensor(y, shape));
      return t;
    }
  }
  throw std::logic_error("run_gemm: unknown op");
}

template <GemmModel M>
Tensors run_model(const KernelCall& call) {
  return run_gemm(call, M);
}

constexpr std::string_view kInputs =
    "a: recipe element dtype (M, K); scale_a: float32 (fp32 bits) | float8_e8m0fnu | float8_e4m3fn "
    "(ceil(M/block_a_outer), K/block_a_k; 2Dx2D with block_a_k = 0: (.., E)); b: (K, N), 2Dx3D (E, K, N); scale_b: "
    "(K/block_b_k, ceil(N/block_b_outer)), 2Dx3D (E, ., .); offs: int32|int64 (E,) for grouped ops; c: float32 "
    "(output shape), optional; global_decode_a / global_decode_b: float32 (1,), optional (NVFP4)";
constexpr std::string_view kCommonParams =
    "op (string: scaled_mm | scaled_grouped_mm_2d3d | scaled_grouped_mm_2d2d; default from the inputs); recipe_b "
    "(string, default recipe); block_a_outer, block_a_k, block_b_outer, block_b_k (int, default 0 = whole); "
    "out_dtype (string: bfloat16 | float32, default bfloat16)";
constexpr std::string_view kOutputs =
    "y: bfloat16|float32 (M, N) or (E, M, N) for 2Dx2D; y_bound: float32 (y's shape); y_normwise_bound: float64 "
    "(1,)";

const KernelAdapter kAdapters[] = {
    {"exact", "", kInputs, "as fp32_seq; out_dtype may also be float64", kOutputs, run_model<GemmModel::exact>},
    {"fp32_seq", "", kInputs, kCommonParams, kOutputs, run_model<GemmModel::fp32_seq>},
    {"fp32_promote", "", kInputs, "as fp32_seq; promote_chunk (int, default 128)", kOutputs,
     run_model<GemmModel::fp32_promote>},
    {"hopper_fast_accum", "", kInputs,
     "as fp32_seq; mantissa_bits (int, default 14); group (int, default 32); promote_interval (int, default 0)",
     kOutputs, run_model<GemmModel::hopper_fast_accum>},
};

}  // namespace

std::span<const KernelAdapter> gemm_adapters() { return kAdapters; }

}  // namespace octet::golden
