// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// adapters_quant.cpp — the CUDA quantisers (quant.hpp) behind the golden runner's signature, and
// their production-shape cases. Each adapter takes the KernelCall of the emulator adapter of the
// same name (golden/src/adapters/fp8.cpp, mx.cpp) and returns the same datasets: names, dtypes,
// logical shapes, layout names and strides, codes in logical row-major order.
//
//   kernel                          outputs (layout; strides in elements)
//   fp8_rowwise_2d_scale_and_cast   q (M, K) row_major (K, 1); scale|scale_inv (M, 1) row_major (1, 1)
//   fp8_colwise_3d_scale_and_cast   q (E, K, N) expert_col_major (K*N, 1, K); scale|scale_inv (E, 1, N) (N, N, 1)
//   fp8_rowwise_3d_transpose_rhs    q (E, N, K) expert_col_major (N*K, 1, N); scale|scale_inv (E, K) (K, 1)
//   fp8_per_group_rowwise_scales    q (M, K) row_major; scale|scale_inv (G*M,) row_major (1)
//   fp8_per_group_colwise_scales    q (K, N) col_major (1, K); scale|scale_inv (G*N,) row_major (1)
//   fp8_blockwise_act_quant_lhs     q (M, K) row_major; scale_inv (M, K/128) col_major (1, M)
//   fp8_blockwise_act_quant_rhs     q (M, K) col_major (1, M); scale_inv (ceil(M/128), K) row_major (K, 1)
//   fp8_blockwise_weight_quant_rhs  q (M, N) col_major (1, M); scale_inv (M/128, N/128) col_major (1, M/128)
//   deepgemm_per_token_cast_to_fp8  q (m, n) row_major; scale_inv (m, ceil(n/128)) row_major
//   mx_quantize_dim0                q (M, K) row_major (K, 1); scale e8m0 (M, K/32) row_major (K/32, 1)
//   mx_quantize_dim1                q (M, K) col_major (1, M); scale e8m0 (K, M/32) row_major (M/32, 1)
//   mx_quantize_3d                  q (E, N, K) expert_col_major (N*K, 1, N); scale e8m0 (E, N/32, K or K/32)
//                                   row_major (attribute block: 32x1 or 32x32)
// The scale dataset of an FP8 kernel is `scale` for recipes that store the encode multiplier and
// `scale_inv` otherwise, as golden/src/adapters/fp8.cpp names it. Outputs are poisoned (0xA5)
// before each launch, so a byte the kernel fails to write shows as a mismatch.
#include <string>
#include <vector>

#include "adapter_util.hpp"
#include "cuda_adapters.hpp"
#include "quant.hpp"

namespace octet::cuda {

using namespace adapter_util;

namespace {

constexpr std::string_view kRowwiseRecipe = "torchao_fp8_rowwise_pow2";
constexpr std::string_view kBlockwiseRecipe = "torchao_blockwise";
constexpr std::string_view kDeepGemmRecipe = "deepgemm";
constexpr std::string_view kMxRecipe = "torchao_mx_rceil";

// ---- FP8 adapters -------------------------------------------------------------------------------

using Fp8Launch = void (*)(SourceType, const void*, std::int64_t, std::int64_t, const Recipe&, std::uint8_t*,
                           std::uint32_t*, cudaStream_t);

struct Fp8Layouts {
  Shape q_strides;
  std::string q_layout;
  Shape scale_shape, scale_strides;
  std::string scale_layout;
};

// One 2D FP8 kernel without groups: `layouts(M, K)` gives the output layouts (emulator's).
template <class Layouts>
Tensors run_fp8_matrix(const KernelCall& call, std::string_view default_recipe, Fp8Launch launch, Layouts layouts) {
  const Recipe& r = fp8_recipe(call, default_recipe);
  const DeviceInput x = upload(golden::float_input(call.inputs, "x", 2));
  const std::int64_t M = x.rows, K = x.cols;
  const Fp8Layouts l = layouts(M, K);
  std::int64_t scale_count = 1;
  for (const std::int64_t d : l.scale_shape) scale_count *= d;
  DeviceBuffer<std::uint8_t> q = poisoned<std::uint8_t>(M * K);
  DeviceBuffer<std::uint32_t> s = poisoned<std::uint32_t>(scale_count);
  launch(x.src, x.bytes.get(), M, K, r, q.get(), s.get(), nullptr);
  synchronize();
  Tensors out;
  out.emplace("q", codes_tensor(r, q, {M, K}, l.q_strides, l.q_layout));
  out.emplace(scale_name(r), fp32_scale_tensor(s, l.scale_shape, l.scale_strides, l.scale_layout));
  return out;
}

Tensors rowwise_2d(const KernelCall& c) {
  return run_fp8_matrix(c, kRowwiseRecipe, fp8_rowwise_2d_scale_and_cast, [](std::int64_t M, std::int64_t K) {
    return Fp8Layouts{{K, 1}, "row_major", {M, 1}, {1, 1}, "row_major"};
  });
}
Tensors act_quant_lhs(const KernelCall& c) {
  return run_fp8_matrix(c, kBlockwiseRecipe, fp8_blockwise_act_quant_lhs, [](std::int64_t M, std::int64_t K) {
    return Fp8Layouts{{K, 1}, "row_major", {M, K / 128}, {1, M}, "col_major"};
  });
}
Tensors per_token_cast(const KernelCall& c) {
  return run_fp8_matrix(c, kDeepGemmRecipe, deepgemm_per_token_cast_to_fp8, [](std::int64_t M, std::int64_t N) {
    const std::int64_t Nb = (N + 127) / 128;
    return Fp8Layouts{{N, 1}, "row_major", {M, Nb}, {Nb, 1}, "row_major"};
  });
}
Tensors act_quant_rhs(const KernelCall& c) {
  return run_fp8_matrix(c, kBlockwiseRecipe, fp8_blockwise_act_quant_rhs, [](std::int64_t M, std::int64_t K) {
    return Fp8Layouts{{1, M}, "col_major", {(M + 127) / 128, K}, {K, 1}, "row_major"};
  });
}
Tensors weight_quant_rhs(const KernelCall& c) {
  return run_fp8_matrix(c, kBlockwiseRecipe, fp8_blockwise_weight_quant_rhs, [](std::int64_t M, std::int64_t N) {
    return Fp8Layouts{{1, M}, "col_major", {M / 128, N / 128}, {1, M / 128}, "col_major"};
  });
}

using GroupedLaunch = void (*)(SourceType, const void*, std::int64_t, std::int64_t, const std::int64_t*, std::int64_t,
                               const Recipe&, std::uint8_t*, std::uint32_t*, cudaStream_t);

// A per-group kernel: groups along dim `grouped_dim` of x (1: columns, rowwise; 0: rows,
// colwise); scales flat (G * other extent,).
Tensors run_fp8_grouped(const KernelCall& call, GroupedLaunch launch, int grouped_dim, Shape q_strides_of_mk,
                        const std::string& q_layout) {
  const Recipe& r = fp8_recipe(call, kRowwiseRecipe);
  const golden::FloatInput in = golden::float_input(call.inputs, "x", 2);
  const std::vector<std::int64_t> offs = golden::int_list(call.inputs, "offs");
  // The emulator's validation and messages (octet::Groups), before anything is launched.
  const Groups groups(std::span<const std::int64_t>(offs), in.dim(grouped_dim), 1, "offs");
  const DeviceInput x = upload(in);
  const std::int64_t R = x.rows, C = x.cols, G = groups.count();
  const std::int64_t other = grouped_dim == 1 ? R : C;
  DeviceBuffer<std::int64_t> offs_dev(offs);
  DeviceBuffer<std::uint8_t> q = poisoned<std::uint8_t>(R * C);
  DeviceBuffer<std::uint32_t> s = poisoned<std::uint32_t>(G * other);
  launch(x.src, x.bytes.get(), R, C, offs_dev.get(), G, r, q.get(), s.get(), nullptr);
  synchronize();
  Tensors out;
  out.emplace("q", codes_tensor(r, q, {R, C}, std::move(q_strides_of_mk), q_layout));
  out.emplace(scale_name(r), fp32_scale_tensor(s, {G * other}, {1}, "row_major"));
  return out;
}

Tensors per_group_rowwise(const KernelCall& c) {
  const golden::FloatInput in = golden::float_input(c.inputs, "x", 2);
  return run_fp8_grouped(c, fp8_per_group_rowwise_scales, 1, {in.dim(1), 1}, "row_major");
}
Tensors per_group_colwise(const KernelCall& c) {
  const golden::FloatInput in = golden::float_input(c.inputs, "x", 2);
  return run_fp8_grouped(c, fp8_per_group_colwise_scales, 0, {1, in.dim(0)}, "col_major");
}

// ---- 3D FP8 weight adapters ----------------------------------------------------------------------

Tensors colwise_3d(const KernelCall& c) {
  const Recipe& r = fp8_recipe(c, kRowwiseRecipe);
  const golden::FloatInput w = golden::float_input(c.inputs, "w", 3);
  const std::int64_t E = w.dim(0), K = w.dim(1), N = w.dim(2);
  const DeviceInput x = upload_experts(w, true);
  DeviceBuffer<std::uint8_t> q = poisoned<std::uint8_t>(E * K * N);
  DeviceBuffer<std::uint32_t> s = poisoned<std::uint32_t>(E * N);
  fp8_colwise_3d_scale_and_cast(x.src, x.bytes.get(), E, K, N, r, q.get(), s.get());
  synchronize();
  Tensors out;
  out.emplace("q", codes_tensor(r, q, {E, K, N}, {K * N, 1, K}, "expert_col_major"));
  out.emplace(scale_name(r), fp32_scale_tensor(s, {E, 1, N}, {N, N, 1}, "row_major"));
  return out;
}

Tensors rowwise_3d_transpose_rhs(const KernelCall& c) {
  const Recipe& r = fp8_recipe(c, kRowwiseRecipe);
  const golden::FloatInput w = golden::float_input(c.inputs, "w", 3);
  const std::int64_t E = w.dim(0), K = w.dim(1), N = w.dim(2);
  const DeviceInput x = upload_experts(w, false);
  DeviceBuffer<std::uint8_t> q = poisoned<std::uint8_t>(E * K * N);
  DeviceBuffer<std::uint32_t> s = poisoned<std::uint32_t>(E * K);
  fp8_rowwise_3d_transpose_rhs(x.src, x.bytes.get(), E, K, N, r, q.get(), s.get());
  synchronize();
  Tensors out;
  out.emplace("q", codes_tensor(r, q, {E, N, K}, {N * K, 1, N}, "expert_col_major"));
  out.emplace(scale_name(r), fp32_scale_tensor(s, {E, K}, {K, 1}, "row_major"));
  return out;
}

// ---- MX adapters --------------------------------------------------------------------------------

Tensors run_mx(const KernelCall& call, bool dim1) {
  const Recipe& r = golden::call_recipe(call, kMxRecipe);
  const DeviceInput x = upload(golden::float_input(call.inputs, "x", 2));
  const std::int64_t M = x.rows, K = x.cols;
  DeviceBuffer<std::uint8_t> q = poisoned<std::uint8_t>(M * K);
  // The kernel checks the recipe and the block multiple first; the scale count needs them.
  DeviceBuffer<std::uint8_t> s = poisoned<std::uint8_t>(dim1 ? K * (M / 32) : M * (K / 32));
  if (dim1) mx_quantize_dim1(x.src, x.bytes.get(), M, K, r, q.get(), s.get());
  else mx_quantize_dim0(x.src, x.bytes.get(), M, K, r, q.get(), s.get());
  synchronize();
  Tensors out;
  const std::string_view element = dtype_name(element_format(r));
  if (dim1) {
    out.emplace("q", e8m0_tensor(element, q, M, K, 1, M));
    out.emplace("scale", e8m0_tensor("float8_e8m0fnu", s, K, M / 32, M / 32, 1));
  } else {
    out.emplace("q", e8m0_tensor(element, q, M, K, K, 1));
    out.emplace("scale", e8m0_tensor("float8_e8m0fnu", s, M, K / 32, K / 32, 1));
  }
  return out;
}
// The 3D block shape: attribute `block`, "32x1" (default) or "32x32" (golden/src/adapters/mx.cpp).
Tensors mx_3d(const KernelCall& call) {
  const Recipe& r = golden::call_recipe(call, kMxRecipe);
  const std::string block = call.string_param("block", "32x1");
  if (block != "32x1" && block != "32x32")
    throw KernelInputError("kernel " + call.kernel + ": attribute 'block' = '" + block + "', expected 32x1 or 32x32");
  const bool b32x32 = block == "32x32";
  const golden::FloatInput w = golden::float_input(call.inputs, "x", 3);
  const std::int64_t E = w.dim(0), N = w.dim(1), K = w.dim(2);
  const DeviceInput x = upload_experts(w, false);
  const std::int64_t NB = N / 32, SC = b32x32 ? K / 32 : K;
  DeviceBuffer<std::uint8_t> q = poisoned<std::uint8_t>(E * N * K);
  DeviceBuffer<std::uint8_t> s = poisoned<std::uint8_t>(E * NB * SC);
  mx_quantize_3d(x.src, x.bytes.get(), E, N, K, b32x32, r, q.get(), s.get());
  synchronize();
  const Shape q_shape{E, N, K}, q_strides{N * K, 1, N}, s_shape{E, NB, SC}, s_strides{NB * SC, SC, 1};
  Tensors out;
  out.emplace("q", golden::make_tensor(dtype_name(element_format(r)), q_shape, logical(q.download(), q_shape, q_strides),
                                       "expert_col_major", q_strides));
  out.emplace("scale", golden::make_tensor("float8_e8m0fnu", s_shape, logical(s.download(), s_shape, s_strides),
                                           "row_major", s_strides));
  return out;
}

Tensors mx_dim0(const KernelCall& c) { return run_mx(c, false); }
Tensors mx_dim1(const KernelCall& c) { return run_mx(c, true); }

// Documentation (default recipe, inputs, params, outputs) is the emulator twin's: the datasets
// must be the same, so they are written once (cuda_adapters.hpp, twin_adapters).
const std::vector<golden::KernelAdapter>& table() {
  static const std::vector<golden::KernelAdapter> adapters = twin_adapters({
    {"fp8_rowwise_2d_scale_and_cast", rowwise_2d},
    {"fp8_colwise_3d_scale_and_cast", colwise_3d},
    {"fp8_rowwise_3d_transpose_rhs", rowwise_3d_transpose_rhs},
    {"fp8_per_group_rowwise_scales", per_group_rowwise},
    {"fp8_per_group_colwise_scales", per_group_colwise},
    {"fp8_blockwise_act_quant_lhs", act_quant_lhs},
    {"fp8_blockwise_act_quant_rhs", act_quant_rhs},
    {"fp8_blockwise_weight_quant_rhs", weight_quant_rhs},
    {"deepgemm_per_token_cast_to_fp8", per_token_cast},
    {"mx_quantize_dim0", mx_dim0},
    {"mx_quantize_dim1", mx_dim1},
    {"mx_quantize_3d", mx_3d},
  });
  return adapters;
}

}  // namespace

std::span<const golden::KernelAdapter> quant_adapters() { return table(); }

std::vector<LargeCase> large_quant_cases() {
  using golden::Distribution;
  std::vector<LargeCase> out;
  const auto add = [&](std::string_view kernel, Shape shape, Distribution dist, std::int64_t G = 0,
                       std::int64_t grouped_extent = 0, std::int64_t group_align = 16) {
    std::string name = std::string(kernel) + "_" + std::to_string(shape[0]) + "x" + std::to_string(shape[1]) + "_" +
                       std::string(golden::name(dist));
    if (group_align != 16) name += "_unaligned";
    if (G > 0) name += "_g" + std::to_string(G);
    out.push_back({name, [=] { return large_case(name, kernel, shape, dist, G, grouped_extent, group_align); }});
  };
  const Shape act{kTokens, kHidden};
  for (const Distribution d : {Distribution::normal, Distribution::outliers}) {
    add("fp8_rowwise_2d_scale_and_cast", act, d);
    add("mx_quantize_dim0", act, d);
    add("mx_quantize_dim1", act, d);
    add("fp8_blockwise_act_quant_lhs", act, d);
    add("fp8_blockwise_act_quant_rhs", act, d);
    for (const std::int64_t G : {1, 16, 64, 128}) {
      add("fp8_per_group_rowwise_scales", act, d, G, kHidden);   // groups over the hidden columns
      add("fp8_per_group_colwise_scales", act, d, G, kTokens);  // groups over the token rows
    }
  }
  // Per-group colwise with group ends at any row (8-row blocks across groups), NaN, Inf and
  // 448 * 2^k inputs, and a last column tile of 8 columns: 4 groups (about 1030 rows on average:
  // three 512-row stages), 7 (about 590 rows each: three 256-row stages; those beyond the stages
  // read twice) and 1200 (about 3 rows each, some empty).
  for (const std::int64_t G : {4, 7, 1200})
    add("fp8_per_group_colwise_scales", {4104, 1032}, Distribution::specials, G, 4104, 1);
  // Groups of more than 2048 rows on average (the one-read cluster kernel): unaligned group ends,
  // K % 8 != 0 with rows past offs[G-1] (codes 0x00), and a whole K.
  add("fp8_per_group_colwise_scales", {8203, 1032}, Distribution::specials, 3, 8199, 1);
  add("fp8_per_group_colwise_scales", {8200, 1032}, Distribution::specials, 2, 8200, 1);
  // ... and empty groups (the first and the third: their scales are written) with 10 rows past the
  // last group end.
  out.push_back({"fp8_per_group_colwise_scales_8200x1032_specials_empty_groups", [] {
                   golden::CaseSpec c = large_case("fp8_per_group_colwise_scales_8200x1032_specials_empty_groups",
                                                   "fp8_per_group_colwise_scales", {8200, 1032}, Distribution::specials,
                                                   0, 0);
                   const std::vector<std::int64_t> offs{0, 5000, 5000, 8190};
                   c.call.inputs.emplace("offs", golden::make_tensor("int64", offs));
                   return c;
                 }});
  // Expert weights, one expert at a time for the 2D weight kernel: E=8 5120x8192, E=64 2048x1408.
  add("fp8_blockwise_weight_quant_rhs", {5120, 8192}, Distribution::normal);
  add("fp8_blockwise_weight_quant_rhs", {2048, 1408}, Distribution::outliers);
  // 3D weights: E=8 x 5120x8192 and E=64 x 2048x1408 (K x N for the fp8 kernels, N x K for MX).
  for (const Shape& w : {Shape{8, 5120, 8192}, Shape{64, 2048, 1408}}) {
    out.push_back(weights_case("fp8_colwise_3d_scale_and_cast", "w", w, ""));
    out.push_back(weights_case("fp8_rowwise_3d_transpose_rhs", "w", w, ""));
    out.push_back(weights_case("mx_quantize_3d", "x", w, "32x1"));
    out.push_back(weights_case("mx_quantize_3d", "x", w, "32x32"));
  }
  // 64-bit indexing: 2^31 + 2^20 elements (4 GiB of bf16 input on the device).
  add("fp8_rowwise_2d_scale_and_cast", {(std::int64_t(1) << 31) / 4096 + 256, 4096}, Distribution::normal);
  return out;
}

}  // namespace octet::cuda
