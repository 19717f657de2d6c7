// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// adapters/fp8.cpp — the golden runner's adapters for the FP8 quantisers, families 1–3:
// torchao FP8-rowwise and jagged per-group kernels (kernels/fp8_rowwise.hpp, fp8_per_group.hpp),
// torchao blockwise and DeepGEMM reference casts (kernels/fp8_blockwise.hpp). The peers are
// cited there; this file only maps datasets to the emulator calls and back.
//
// Datasets (golden/schema.md §kernels_fp8):
//   inputs   x (bfloat16 | float32), logical row-major, rank 2; w (E, K, N) expert weights, given
//            in logical order and laid out here as the kernel requires (per-expert column-major
//            where the peer asserts it); x1, x2 (the dual kernel); offs (int32 | int64, inclusive
//            cumulative group ends); scale_inv (float32 128x128 scales, the pad kernel).
//   outputs  q: element codes in the recipe's element dtype (float8_e4m3fn, float8_e4m3fnuz or
//            float8_e5m2); then the stored scales as float32, named after what they hold:
//              `scale`     the encode multiplier s (q = cast(x * s)): recipes storing EncodeFp32,
//                          i.e. torchao_fp8_rowwise*, whose GEMM receives 1/s;
//              `scale_inv` the dequantisation multiplier (x ≈ q * scale_inv): every other fp8
//                          recipe (torchao_blockwise*, te_*, deepgemm*, deepep*).
//            The dual kernel suffixes both with 1 and 2 (q1, scale1, q2, scale2). Every output is
//            stored in logical row-major order; `layout` and `strides` (elements) record the
//            buffer the kernel writes: row_major, col_major (2D, strides (1, rows)),
//            expert_col_major (3D, strides (R*C, 1, R)), or per_group_row_major (the DeepGEMM
//            k-grouped flat buffer).
#include <bit>
#include <string>
#include <type_traits>
#include <vector>

#include "../scale_io.hpp"
#include "octet/format.hpp"
#include "octet/golden/adapter_io.hpp"
#include "octet/golden/runner.hpp"
#include "octet/kernels/fp8_blockwise.hpp"
#include "octet/kernels/fp8_per_group.hpp"
#include "octet/kernels/fp8_rowwise.hpp"

namespace octet::golden {
namespace {

constexpr std::string_view kRowwiseRecipe = "torchao_fp8_rowwise_pow2";
constexpr std::string_view kBlockwiseRecipe = "torchao_blockwise";
constexpr std::string_view kDeepGemmRecipe = "deepgemm";

// ---- recipe and output naming -------------------------------------------------------------------

// ---- outputs ------------------------------------------------------------------------------------

bool is_row_major(const Fp8Layout& l) {
  std::int64_t expected = 1;
  for (std::size_t d = l.shape.size(); d-- > 0;) {
    if (l.shape[d] > 1 && l.strides[d] != expected) return false;
    expected *= l.shape[d];
  }
  return true;
}

// Whether `l` is the named layout (dimensions of extent <= 1 may carry any stride, as in torch).
bool has_layout(const Fp8Layout& l, std::string_view layout) {
  const auto at = [&](std::size_t d, std::int64_t stride) { return l.shape[d] <= 1 || l.strides[d] == stride; };
  if (layout == "row_major" || layout == "per_group_row_major") return is_row_major(l);
  if (layout == "col_major") return l.shape.size() == 2 && at(0, 1) && at(1, l.shape[0]);
  if (layout == "expert_col_major")
    return l.shape.size() == 3 && at(0, l.shape[1] * l.shape[2]) && at(1, 1) && at(2, l.shape[1]);
  return false;
}

// The elements of `buffer`, laid out as `l`, in logical row-major order.
template <class T>
std::vector<T> logical_elements(const std::vector<T>& buffer, const Fp8Layout& l) {
  const std::size_t rank = l.shape.size();
  const std::int64_t n = l.numel();
  std::vector<T> out;
  out.reserve(std::size_t(n));
  std::vector<std::int64_t> index(rank, 0);
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t offset = 0;
    for (std::size_t d = 0; d < rank; ++d) offset += index[d] * l.strides[d];
    if (offset < 0 || offset >= std::int64_t(buffer.size()))
      throw std::logic_error("fp8 adapter: layout offset " + std::to_string(offset) + " outside a buffer of " +
                             std::to_string(buffer.size()) + " elements");
    out.push_back(buffer[std::size_t(offset)]);
    for (std::size_t d = rank; d-- > 0;) {  // odometer, last dimension fastest
      if (++index[d] < l.shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

void check_layout(const Fp8Layout& l, std::string_view layout, std::size_t buffer_size, const char* what) {
  if (!has_layout(l, layout) || std::int64_t(buffer_size) != l.numel())
    throw std::logic_error(std::string("fp8 adapter: the kernel's ") + what + " buffer is not " + std::string(layout));
}

Tensor codes_tensor(const Recipe& r, const std::vector<std::uint8_t>& data, const Fp8Layout& l,
                    std::string_view layout) {
  check_layout(l, layout, data.size(), "data");
  return make_tensor(dtype_name(element_format(r)), l.shape, logical_elements(data, l), std::string(layout),
                     l.strides);
}

Tensor scales_tensor(const std::vector<std::uint32_t>& scales, const Fp8Layout& l, std::string_view layout) {
  check_layout(l, layout, scales.size(), "scale");
  std::vector<float> values;
  values.reserve(scales.size());
  for (const std::uint32_t bits : logical_elements(scales, l)) values.push_back(std::bit_cast<float>(bits));
  return make_tensor("float32", l.shape, values, std::string(layout), l.strides);
}

struct Layouts {
  std::string_view data, scales;
};

// q and the scales of one result, with `suffix` appended to both names.
void add_result(Tensors& out, const Recipe& r, const Fp8Quantized& q, Layouts l, const std::string& suffix = "") {
  out.emplace("q" + suffix, codes_tensor(r, q.data, q.data_layout, l.data));
  out.emplace(std::string(stored_scale_name(r)) + suffix, scales_tensor(q.scales, q.scale_layout, l.scales));
}

// ---- inputs -------------------------------------------------------------------------------------

// Calls kernel(view, r) with the 2D input `name` as a row-major view of its stored element type.
template <class Kernel>
Tensors run_matrix(const KernelCall& call, std::string_view default_recipe, Layouts l, Kernel kernel,
                   const std::string& name = "x") {
  const Recipe& r = fp8_recipe(call, default_recipe);
  const FloatInput in = float_input(call.inputs, name, 2);
  Fp8Quantized q = in.type == InputType::bf16 ? kernel(view2d(in.bf16, in.dim(0), in.dim(1)), r)
                                              : kernel(view2d(in.f32, in.dim(0), in.dim(1)), r);
  Tensors out;
  add_result(out, r, q, l);
  return out;
}

// The same with the group ends `offs`: kernel(view, offs, r).
template <class Kernel>
Tensors run_grouped_matrix(const KernelCall& call, std::string_view default_recipe, Layouts l, Kernel kernel) {
  const Recipe& r = fp8_recipe(call, default_recipe);
  const FloatInput in = float_input(call.inputs, "x", 2);
  const std::vector<std::int64_t> offs_values = int_list(call.inputs, "offs");
  const std::span<const std::int64_t> offs(offs_values);
  Fp8Quantized q = in.type == InputType::bf16 ? kernel(view2d(in.bf16, in.dim(0), in.dim(1)), offs, r)
                                              : kernel(view2d(in.f32, in.dim(0), in.dim(1)), offs, r);
  Tensors out;
  add_result(out, r, q, l);
  return out;
}

// Calls kernel(view, r) with the 3D input `w` (E, K, N), per-expert column-major when the kernel
// requires it (the peers assert it), row-major otherwise.
template <class Kernel>
Tensors run_experts(const KernelCall& call, std::string_view default_recipe, bool expert_col_major, Layouts l,
                    Kernel kernel) {
  const Recipe& r = fp8_recipe(call, default_recipe);
  const FloatInput in = float_input(call.inputs, "w", 3);
  const std::int64_t E = in.dim(0), K = in.dim(1), N = in.dim(2);
  const auto run = [&](const auto& values) {
    if (!expert_col_major) return kernel(view3d(values, E, K, N), r);
    const auto stored = to_expert_col_major(values, E, K, N);
    using T = typename std::decay_t<decltype(values)>::value_type;
    return kernel(View3D<const T>::col_major_per_expert(stored.data(), E, K, N), r);
  };
  const Fp8Quantized q = in.type == InputType::bf16 ? run(in.bf16) : run(in.f32);
  Tensors out;
  add_result(out, r, q, l);
  return out;
}

// ---- family 1: torchao FP8 rowwise ---------------------------------------------------------------

Tensors rowwise_2d(const KernelCall& c) {
  return run_matrix(c, kRowwiseRecipe, {"row_major", "row_major"},
                    [](auto x, const Recipe& r) { return fp8_rowwise_2d_scale_and_cast(x, r); });
}
Tensors colwise_3d(const KernelCall& c) {
  return run_experts(c, kRowwiseRecipe, true, {"expert_col_major", "row_major"},
                     [](auto w, const Recipe& r) { return fp8_colwise_3d_scale_and_cast(w, r); });
}
Tensors rowwise_3d_transpose_rhs(const KernelCall& c) {
  return run_experts(c, kRowwiseRecipe, false, {"expert_col_major", "row_major"},
                     [](auto w, const Recipe& r) { return fp8_rowwise_3d_transpose_rhs(w, r); });
}

// ---- family 2: torchao jagged per-group ----------------------------------------------------------

Tensors per_group_rowwise(const KernelCall& c) {
  return run_grouped_matrix(c, kRowwiseRecipe, {"row_major", "row_major"}, [](auto x, auto offs, const Recipe& r) {
    return fp8_per_group_rowwise_scales(x, offs, r);
  });
}
Tensors per_group_colwise(const KernelCall& c) {
  return run_grouped_matrix(c, kRowwiseRecipe, {"col_major", "row_major"}, [](auto x, auto offs, const Recipe& r) {
    return fp8_per_group_colwise_scales(x, offs, r);
  });
}

Tensors per_group_colwise_dual(const KernelCall& c) {
  const Recipe& r = fp8_recipe(c, kRowwiseRecipe);
  const FloatInput x1 = float_input(c.inputs, "x1", 2), x2 = float_input(c.inputs, "x2", 2);
  if (x1.type != x2.type)
    throw KernelInputError("inputs 'x1' (" + std::string(x1.dtype()) + ") and 'x2' (" + std::string(x2.dtype()) +
                           ") must have the same dtype");
  const std::vector<std::int64_t> offs_values = int_list(c.inputs, "offs");
  const std::span<const std::int64_t> offs(offs_values);
  const auto run = [&](const auto& v1, const auto& v2) {
    return fp8_per_group_colwise_scales_dual(view2d(v1, x1.dim(0), x1.dim(1)), view2d(v2, x2.dim(0), x2.dim(1)), offs,
                                             r);
  };
  const auto [q1, q2] = x1.type == InputType::bf16 ? run(x1.bf16, x2.bf16) : run(x1.f32, x2.f32);
  Tensors out;
  add_result(out, r, q1, {"col_major", "row_major"}, "1");
  add_result(out, r, q2, {"col_major", "row_major"}, "2");
  return out;
}

// ---- family 3: blockwise -------------------------------------------------------------------------

Tensors act_quant_lhs(const KernelCall& c) {
  return run_matrix(c, kBlockwiseRecipe, {"row_major", "col_major"},
                    [](auto x, const Recipe& r) { return fp8_blockwise_act_quant_lhs(x, r); });
}
Tensors act_quant_rhs(const KernelCall& c) {
  return run_matrix(c, kBlockwiseRecipe, {"col_major", "row_major"},
                    [](auto x, const Recipe& r) { return fp8_blockwise_act_quant_rhs(x, r); });
}
Tensors act_quant_transposed_lhs(const KernelCall& c) {
  return run_matrix(c, kBlockwiseRecipe, {"row_major", "col_major"},
                    [](auto x, const Recipe& r) { return fp8_blockwise_act_quant_transposed_lhs(x, r); });
}
Tensors weight_quant_rhs(const KernelCall& c) {
  return run_matrix(c, kBlockwiseRecipe, {"col_major", "col_major"},
                    [](auto x, const Recipe& r) { return fp8_blockwise_weight_quant_rhs(x, r); });
}
Tensors weight_quant_transposed_rhs(const KernelCall& c) {
  return run_matrix(c, kBlockwiseRecipe, {"col_major", "col_major"},
                    [](auto x, const Recipe& r) { return fp8_blockwise_weight_quant_transposed_rhs(x, r); });
}
Tensors weight_quant_grouped_transposed_rhs(const KernelCall& c) {
  return run_experts(c, kBlockwiseRecipe, true, {"expert_col_major", "expert_col_major"},
                     [](auto w, const Recipe& r) { return fp8_blockwise_weight_quant_grouped_transposed_rhs(w, r); });
}
Tensors weight_quant_grouped_rhs(const KernelCall& c) {
  return run_experts(c, kBlockwiseRecipe, true, {"expert_col_major", "expert_col_major"},
                     [](auto w, const Recipe& r) { return fp8_blockwise_weight_quant_grouped_rhs(w, r); });
}

// scale_inv (Kb, Nb) or (E, Kb, Nb) in logical order, laid out k-block-major as the 128x128
// kernels write it, then padded along Kb to a multiple of 4 with 1.0.
Tensors pad_scales_128x128(const KernelCall& c) {
  const Tensor& t = input(c.inputs, "scale_inv");
  expect_dtype(t, "scale_inv", {"float32"});
  const std::size_t rank = t.shape.size();
  if (rank != 2 && rank != 3)
    throw KernelInputError("input 'scale_inv': rank " + std::to_string(rank) +
                           ", expected rank 2 (k_blocks, n_blocks) or 3 (experts, k_blocks, n_blocks)");
  const std::int64_t E = rank == 3 ? t.shape[0] : 1, Kb = t.shape[rank - 2], Nb = t.shape[rank - 1];
  std::vector<std::uint32_t> bits;
  for (const float v : values_of<float>(t)) bits.push_back(std::bit_cast<std::uint32_t>(v));
  Fp8Quantized q;
  q.scales = to_expert_col_major(bits, E, Kb, Nb);
  q.scale_layout = rank == 3 ? Fp8Layout{{E, Kb, Nb}, {Kb * Nb, 1, Kb}} : Fp8Layout{{Kb, Nb}, {1, Kb}};
  q = fp8_blockwise_pad_scales_128x128(std::move(q));
  Tensors out;
  out.emplace("scale_inv_padded", scales_tensor(q.scales, q.scale_layout, rank == 3 ? "expert_col_major" : "col_major"));
  return out;
}

Tensors act_quant_k_grouped_deepgemm(const KernelCall& c) {
  return run_grouped_matrix(c, kBlockwiseRecipe, {"per_group_row_major", "row_major"},
                            [](auto x, auto offs, const Recipe& r) {
                              return fp8_blockwise_act_quant_k_grouped_deepgemm(x, offs, r);
                            });
}
Tensors act_quant_rhs_grouped(const KernelCall& c) {
  return run_grouped_matrix(c, kBlockwiseRecipe, {"col_major", "row_major"}, [](auto x, auto offs, const Recipe& r) {
    return fp8_blockwise_act_quant_rhs_grouped(x, offs, r);
  });
}
Tensors act_quant_transposed_lhs_grouped(const KernelCall& c) {
  return run_grouped_matrix(c, kBlockwiseRecipe, {"row_major", "col_major"}, [](auto x, auto offs, const Recipe& r) {
    return fp8_blockwise_act_quant_transposed_lhs_grouped(x, offs, r);
  });
}

Tensors per_token_cast(const KernelCall& c) {
  return run_matrix(c, kDeepGemmRecipe, {"row_major", "row_major"},
                    [](auto x, const Recipe& r) { return deepgemm_per_token_cast_to_fp8(x, r); });
}
Tensors per_channel_cast(const KernelCall& c) {
  return run_matrix(c, kDeepGemmRecipe, {"row_major", "row_major"},
                    [](auto x, const Recipe& r) { return deepgemm_per_channel_cast_to_fp8(x, r); });
}
Tensors per_block_cast(const KernelCall& c) {
  return run_matrix(c, kDeepGemmRecipe, {"row_major", "row_major"},
                    [](auto x, const Recipe& r) { return deepgemm_per_block_cast_to_fp8(x, r); });
}

// ---- the table -----------------------------------------------------------------------------------

constexpr std::string_view kX = "x: bfloat16|float32 (M, K)";
constexpr std::string_view kXOffsRows = "x: bfloat16|float32 (M, D); offs: int32|int64 (G,) over M";
constexpr std::string_view kW = "w: bfloat16|float32 (E, K, N), logical order";

constexpr KernelAdapter kAdapters[] = {
    {"fp8_rowwise_2d_scale_and_cast", kRowwiseRecipe, kX, "",
     "q: recipe element dtype (M, K) row_major; scale|scale_inv: float32 (M, 1) row_major", rowwise_2d},
    {"fp8_colwise_3d_scale_and_cast", kRowwiseRecipe, kW, "",
     "q: recipe element dtype (E, K, N) expert_col_major strides (K*N, 1, K); scale|scale_inv: float32 (E, 1, N) "
     "row_major",
     colwise_3d},
    {"fp8_rowwise_3d_transpose_rhs", kRowwiseRecipe, kW, "",
     "q: recipe element dtype (E, N, K) expert_col_major strides (N*K, 1, N); scale|scale_inv: float32 (E, K) "
     "row_major",
     rowwise_3d_transpose_rhs},
    {"fp8_per_group_rowwise_scales", kRowwiseRecipe, "x: bfloat16|float32 (M, K); offs: int32|int64 (G,) over K", "",
     "q: recipe element dtype (M, K) row_major; scale|scale_inv: float32 (G*M,) group-major [g][m]",
     per_group_rowwise},
    {"fp8_per_group_colwise_scales", kRowwiseRecipe, "x: bfloat16|float32 (K, N); offs: int32|int64 (G,) over K", "",
     "q: recipe element dtype (K, N) col_major strides (1, K), rows past offs[-1] 0x00; scale|scale_inv: float32 "
     "(G*N,) group-major [g][n]",
     per_group_colwise},
    {"fp8_per_group_colwise_scales_dual", kRowwiseRecipe,
     "x1: bfloat16|float32 (K, N1); x2: same dtype (K, N2); offs: int32|int64 (G,) over K", "",
     "q1, q2: recipe element dtype (K, N1), (K, N2) col_major; scale1|scale_inv1, scale2|scale_inv2: float32 "
     "(G*N1,), (G*N2,) group-major",
     per_group_colwise_dual},
    {"fp8_blockwise_act_quant_lhs", kBlockwiseRecipe, "x: bfloat16|float32 (M, K), K % 128 == 0", "",
     "q: recipe element dtype (M, K) row_major; scale_inv: float32 (M, K/128) col_major strides (1, M)",
     act_quant_lhs},
    {"fp8_blockwise_act_quant_rhs", kBlockwiseRecipe, "x: bfloat16|float32 (M, K), K % 128 == 0", "",
     "q: recipe element dtype (M, K) col_major strides (1, M); scale_inv: float32 (ceil(M/128), K) row_major",
     act_quant_rhs},
    {"fp8_blockwise_act_quant_transposed_lhs", kBlockwiseRecipe, "x: bfloat16|float32 (M, K), M % 128 == 0", "",
     "q: recipe element dtype (K, M) row_major; scale_inv: float32 (K, M/128) col_major strides (1, K)",
     act_quant_transposed_lhs},
    {"fp8_blockwise_weight_quant_rhs", kBlockwiseRecipe, "x: bfloat16|float32 (M, N), M, N % 128 == 0", "",
     "q: recipe element dtype (M, N) col_major strides (1, M); scale_inv: float32 (M/128, N/128) col_major",
     weight_quant_rhs},
    {"fp8_blockwise_weight_quant_transposed_rhs", kBlockwiseRecipe, "x: bfloat16|float32 (M, N), M, N % 128 == 0", "",
     "q: recipe element dtype (N, M) col_major strides (1, N); scale_inv: float32 (N/128, M/128) col_major",
     weight_quant_transposed_rhs},
    {"fp8_blockwise_weight_quant_grouped_transposed_rhs", kBlockwiseRecipe,
     "w: bfloat16|float32 (E, K, N), K, N % 128 == 0, logical order", "",
     "q: recipe element dtype (E, K, N) expert_col_major strides (K*N, 1, K); scale_inv: float32 (E, K/128, N/128) "
     "expert_col_major",
     weight_quant_grouped_transposed_rhs},
    {"fp8_blockwise_weight_quant_grouped_rhs", kBlockwiseRecipe,
     "w: bfloat16|float32 (E, K, N), K, N % 128 == 0, logical order", "",
     "q: recipe element dtype (E, N, K) expert_col_major strides (N*K, 1, N); scale_inv: float32 (E, N/128, K/128) "
     "expert_col_major",
     weight_quant_grouped_rhs},
    {"fp8_blockwise_pad_scales_128x128", "", "scale_inv: float32 (Kb, Nb) or (E, Kb, Nb), logical order", "",
     "scale_inv_padded: float32 (Kp, Nb) col_major or (E, Kp, Nb) expert_col_major, Kp = ceil(Kb/4)*4, pad 1.0",
     pad_scales_128x128},
    {"fp8_blockwise_act_quant_k_grouped_deepgemm", kBlockwiseRecipe,
     "x: bfloat16|float32 (M, D); offs: int32|int64 (G,) over M, group sizes % 128 == 0", "",
     "q: recipe element dtype (offs[-1]*D,) per_group_row_major: group g is (D, size_g) row-major at start_g*D; "
     "scale_inv: float32 (D, offs[-1]/128) row_major",
     act_quant_k_grouped_deepgemm},
    {"fp8_blockwise_act_quant_rhs_grouped", kBlockwiseRecipe, kXOffsRows, "",
     "q: recipe element dtype (M, D) col_major strides (1, M), rows past offs[-1] 0x00; scale_inv: float32 (B, D) "
     "row_major, B = sum_g ceil(size_g/128)",
     act_quant_rhs_grouped},
    {"fp8_blockwise_act_quant_transposed_lhs_grouped", kBlockwiseRecipe, kXOffsRows, "",
     "q: recipe element dtype (D, M) row_major, columns past offs[-1] 0x00; scale_inv: float32 (D, B) col_major "
     "strides (1, D), B = sum_g ceil(size_g/128)",
     act_quant_transposed_lhs_grouped},
    {"deepgemm_per_token_cast_to_fp8", kDeepGemmRecipe, "x: bfloat16|float32 (m, n)", "",
     "q: recipe element dtype (m, n) row_major; scale_inv: float32 (m, ceil(n/128)) row_major", per_token_cast},
    {"deepgemm_per_channel_cast_to_fp8", kDeepGemmRecipe, "x: bfloat16|float32 (m, n), m % 128 == 0", "",
     "q: recipe element dtype (m, n) row_major; scale_inv: float32 (m/128, n) row_major", per_channel_cast},
    {"deepgemm_per_block_cast_to_fp8", kDeepGemmRecipe, "x: bfloat16|float32 (m, n)", "",
     "q: recipe element dtype (m, n) row_major; scale_inv: float32 (ceil(m/128), ceil(n/128)) row_major",
     per_block_cast},
};

}  // namespace

std::span<const KernelAdapter> fp8_adapters() { return kAdapters; }

}  // namespace octet::golden
