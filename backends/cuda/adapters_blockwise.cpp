// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// adapters_blockwise.cpp — the blockwise FP8 quantisers of quant.hpp that the emulator defines in
// kernels/fp8_blockwise.hpp (transposed, token-group and 3D expert variants, the 128x128 scale
// padding, DeepGEMM per_channel / per_block) behind the golden runner's signature, and their
// production-shape cases. Each adapter takes the KernelCall of the emulator adapter of the same
// name (golden/src/adapters/fp8.cpp) and returns the same datasets: names, dtypes, logical
// shapes, layout names and strides (elements), values in logical row-major order.
//
//   kernel                                             outputs (logical shape, strides, layout)
//   fp8_blockwise_act_quant_transposed_lhs             q (K, M) (M, 1) row_major; scale_inv (K, M/128) (1, K) col_major
//   fp8_blockwise_weight_quant_transposed_rhs          q (N, M) (1, N) col_major; scale_inv (N/128, M/128) (1, N/128)
//                                                      col_major
//   fp8_blockwise_weight_quant_grouped_transposed_rhs  q (E, K, N) (K*N, 1, K); scale_inv (E, Kb, Nb) (Kb*Nb, 1, Kb),
//                                                      both expert_col_major
//   fp8_blockwise_weight_quant_grouped_rhs             q (E, N, K) (N*K, 1, N); scale_inv (E, Nb, Kb) (Nb*Kb, 1, Nb),
//                                                      both expert_col_major
//   fp8_blockwise_pad_scales_128x128                   scale_inv_padded (Kp, Nb) (1, Kp) col_major or
//                                                      (E, Kp, Nb) (Kp*Nb, 1, Kp) expert_col_major
//   fp8_blockwise_act_quant_k_grouped_deepgemm         q (T*D,) (1) per_group_row_major; scale_inv (D, T/128)
//                                                      (T/128, 1) row_major; T = offs[-1]
//   fp8_blockwise_act_quant_rhs_grouped                q (M, D) (1, M) col_major; scale_inv (B, D) (D, 1) row_major
//   fp8_blockwise_act_quant_transposed_lhs_grouped     q (D, M) (M, 1) row_major; scale_inv (D, B) (1, D) col_major
//   deepgemm_per_channel_cast_to_fp8                   q (m, n) row_major; scale_inv (m/128, n) row_major
//   deepgemm_per_block_cast_to_fp8                     q (m, n) row_major; scale_inv (ceil(m/128), ceil(n/128))
//                                                      row_major
// B = sum_g ceil(size_g/128). The scale dataset is `scale` for recipes that store the encode
// multiplier and `scale_inv` otherwise. Outputs are poisoned (0xA5) before each launch.
#include <algorithm>
#include <bit>
#include <span>
#include <string>
#include <vector>

#include "adapter_util.hpp"
#include "cuda_adapters.hpp"
#include "quant.hpp"

namespace octet::cuda {

using namespace adapter_util;

namespace {

constexpr std::string_view kBlockwiseRecipe = "torchao_blockwise";
constexpr std::string_view kDeepGemmRecipe = "deepgemm";
constexpr std::int64_t kBlock = 128;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

std::int64_t numel(const Shape& shape) {
  std::int64_t n = 1;
  for (const std::int64_t d : shape) n *= d;
  return n;
}

// The codes and scales of one call as the emulator adapter lays them out.
struct Outputs {
  Shape q_shape, q_strides;
  std::string q_layout;
  Shape s_shape, s_strides;
  std::string s_layout;
};

// Device buffers for `o`, poisoned, and their download into the golden datasets.
struct OutputBuffers {
  DeviceBuffer<std::uint8_t> q;
  DeviceBuffer<std::uint32_t> s;
  explicit OutputBuffers(const Outputs& o)
      : q(poisoned<std::uint8_t>(numel(o.q_shape))), s(poisoned<std::uint32_t>(numel(o.s_shape))) {}
  Tensors download(const Recipe& r, const Outputs& o) const {
    synchronize();
    Tensors out;
    out.emplace("q", codes_tensor(r, q, o.q_shape, o.q_strides, o.q_layout));
    out.emplace(scale_name(r), fp32_scale_tensor(s, o.s_shape, o.s_strides, o.s_layout));
    return out;
  }
};

// ---- 2D kernels: x (rows, cols) ----------------------------------------------------------------

using MatrixLaunch = void (*)(SourceType, const void*, std::int64_t, std::int64_t, const Recipe&, std::uint8_t*,
                              std::uint32_t*, cudaStream_t);

template <class Layout>
Tensors run_matrix(const KernelCall& call, std::string_view default_recipe, MatrixLaunch launch, Layout layout) {
  const Recipe& r = fp8_recipe(call, default_recipe);
  const DeviceInput x = upload(golden::float_input(call.inputs, "x", 2));
  const Outputs o = layout(x.rows, x.cols);
  OutputBuffers b(o);
  launch(x.src, x.bytes.get(), x.rows, x.cols, r, b.q.get(), b.s.get(), nullptr);
  return b.download(r, o);
}

Tensors act_quant_transposed_lhs(const KernelCall& c) {
  return run_matrix(c, kBlockwiseRecipe, fp8_blockwise_act_quant_transposed_lhs, [](std::int64_t M, std::int64_t K) {
    return Outputs{{K, M}, {M, 1}, "row_major", {K, M / kBlock}, {1, K}, "col_major"};
  });
}
Tensors weight_quant_transposed_rhs(const KernelCall& c) {
  return run_matrix(c, kBlockwiseRecipe, fp8_blockwise_weight_quant_transposed_rhs,
                    [](std::int64_t M, std::int64_t N) {
                      const std::int64_t Mb = M / kBlock, Nb = N / kBlock;
                      return Outputs{{N, M}, {1, N}, "col_major", {Nb, Mb}, {1, Nb}, "col_major"};
                    });
}
Tensors per_channel_cast(const KernelCall& c) {
  return run_matrix(c, kDeepGemmRecipe, deepgemm_per_channel_cast_to_fp8, [](std::int64_t M, std::int64_t N) {
    return Outputs{{M, N}, {N, 1}, "row_major", {M / kBlock, N}, {N, 1}, "row_major"};
  });
}
Tensors per_block_cast(const KernelCall& c) {
  return run_matrix(c, kDeepGemmRecipe, deepgemm_per_block_cast_to_fp8, [](std::int64_t M, std::int64_t N) {
    const std::int64_t Mb = ceil_div(M, kBlock), Nb = ceil_div(N, kBlock);
    return Outputs{{M, N}, {N, 1}, "row_major", {Mb, Nb}, {Nb, 1}, "row_major"};
  });
}

// ---- 3D expert weights: w (E, K, N), uploaded per-expert column-major as the peers assert ---------

using ExpertsLaunch = void (*)(SourceType, const void*, std::int64_t, std::int64_t, std::int64_t, const Recipe&,
                               std::uint8_t*, std::uint32_t*, cudaStream_t);

template <class Layout>
Tensors run_experts(const KernelCall& call, ExpertsLaunch launch, Layout layout) {
  const Recipe& r = fp8_recipe(call, kBlockwiseRecipe);
  const golden::FloatInput w = golden::float_input(call.inputs, "w", 3);
  const std::int64_t E = w.dim(0), K = w.dim(1), N = w.dim(2);
  const DeviceInput x = upload_experts(w, true);
  const Outputs o = layout(E, K, N, K / kBlock, N / kBlock);
  OutputBuffers b(o);
  launch(x.src, x.bytes.get(), E, K, N, r, b.q.get(), b.s.get(), nullptr);
  return b.download(r, o);
}

Tensors weight_quant_grouped_transposed_rhs(const KernelCall& c) {
  return run_experts(c, fp8_blockwise_weight_quant_grouped_transposed_rhs,
                     [](std::int64_t E, std::int64_t K, std::int64_t N, std::int64_t Kb, std::int64_t Nb) {
                       return Outputs{{E, K, N},         {K * N, 1, K},      "expert_col_major",
                                      {E, Kb, Nb},       {Kb * Nb, 1, Kb},   "expert_col_major"};
                     });
}
Tensors weight_quant_grouped_rhs(const KernelCall& c) {
  return run_experts(c, fp8_blockwise_weight_quant_grouped_rhs,
                     [](std::int64_t E, std::int64_t K, std::int64_t N, std::int64_t Kb, std::int64_t Nb) {
                       return Outputs{{E, N, K},         {N * K, 1, N},      "expert_col_major",
                                      {E, Nb, Kb},       {Nb * Kb, 1, Nb},   "expert_col_major"};
                     });
}

// ---- token groups: x (M, D), offs over M ----------------------------------------------------------

using GroupedLaunch = void (*)(SourceType, const void*, std::int64_t, std::int64_t, const std::int64_t*, std::int64_t,
                               const Recipe&, std::uint8_t*, std::uint32_t*, cudaStream_t);

// `alignment`: the group-size multiple the kernel requires (octet::Groups validates it with the
// emulator's messages before anything is launched). layout(M, D, offs[-1], B).
template <class Layout>
Tensors run_grouped(const KernelCall& call, GroupedLaunch launch, std::int64_t alignment, Layout layout) {
  const Recipe& r = fp8_recipe(call, kBlockwiseRecipe);
  const golden::FloatInput in = golden::float_input(call.inputs, "x", 2);
  const std::vector<std::int64_t> offs = golden::int_list(call.inputs, "offs");
  const Groups groups(std::span<const std::int64_t>(offs), in.dim(0), alignment, "offs");
  std::int64_t blocks = 0;
  for (std::int64_t g = 0; g < groups.count(); ++g) blocks += ceil_div(groups.size(g), kBlock);
  const DeviceInput x = upload(in);
  const Outputs o = layout(x.rows, x.cols, groups.total(), blocks);
  const DeviceBuffer<std::int64_t> offs_dev(offs);
  OutputBuffers b(o);
  launch(x.src, x.bytes.get(), x.rows, x.cols, offs_dev.get(), groups.count(), r, b.q.get(), b.s.get(), nullptr);
  return b.download(r, o);
}

Tensors act_quant_k_grouped_deepgemm(const KernelCall& c) {
  return run_grouped(c, fp8_blockwise_act_quant_k_grouped_deepgemm, kBlock,
                     [](std::int64_t, std::int64_t D, std::int64_t T, std::int64_t) {
                       const std::int64_t VB = T / kBlock;
                       return Outputs{{T * D}, {1}, "per_group_row_major", {D, VB}, {VB, 1}, "row_major"};
                     });
}
Tensors act_quant_rhs_grouped(const KernelCall& c) {
  return run_grouped(c, fp8_blockwise_act_quant_rhs_grouped, 1,
                     [](std::int64_t M, std::int64_t D, std::int64_t, std::int64_t B) {
                       return Outputs{{M, D}, {1, M}, "col_major", {B, D}, {D, 1}, "row_major"};
                     });
}
Tensors act_quant_transposed_lhs_grouped(const KernelCall& c) {
  return run_grouped(c, fp8_blockwise_act_quant_transposed_lhs_grouped, 1,
                     [](std::int64_t M, std::int64_t D, std::int64_t, std::int64_t B) {
                       return Outputs{{D, M}, {M, 1}, "row_major", {D, B}, {1, D}, "col_major"};
                     });
}

// ---- 128x128 scale padding ---------------------------------------------------------------------

// scale_inv (Kb, Nb) or (E, Kb, Nb) in logical order, laid out k-block-major as the 128x128
// kernels write it (the emulator adapter's rules and messages).
Tensors pad_scales_128x128(const KernelCall& c) {
  const Tensor& t = golden::input(c.inputs, "scale_inv");
  golden::expect_dtype(t, "scale_inv", {"float32"});
  const std::size_t rank = t.shape.size();
  if (rank != 2 && rank != 3)
    throw KernelInputError("input 'scale_inv': rank " + std::to_string(rank) +
                           ", expected rank 2 (k_blocks, n_blocks) or 3 (experts, k_blocks, n_blocks)");
  const std::int64_t E = rank == 3 ? t.shape[0] : 1, Kb = t.shape[rank - 2], Nb = t.shape[rank - 1];
  const std::int64_t Kp = ceil_div(Kb, 4) * 4;
  std::vector<std::uint32_t> bits;
  for (const float v : golden::values_of<float>(t)) bits.push_back(std::bit_cast<std::uint32_t>(v));
  const DeviceBuffer<std::uint32_t> scales(to_expert_col_major(bits, E, Kb, Nb));
  DeviceBuffer<std::uint32_t> padded = poisoned<std::uint32_t>(E * Kp * Nb);
  fp8_blockwise_pad_scales_128x128(scales.get(), E, Kb, Nb, padded.get());
  synchronize();
  Tensors out;
  if (rank == 3)
    out.emplace("scale_inv_padded", fp32_scale_tensor(padded, {E, Kp, Nb}, {Kp * Nb, 1, Kp}, "expert_col_major"));
  else
    out.emplace("scale_inv_padded", fp32_scale_tensor(padded, {Kp, Nb}, {1, Kp}, "col_major"));
  return out;
}

const std::vector<golden::KernelAdapter>& table() {
  static const std::vector<golden::KernelAdapter> adapters = twin_adapters({
      {"fp8_blockwise_act_quant_transposed_lhs", act_quant_transposed_lhs},
      {"fp8_blockwise_act_quant_rhs_grouped", act_quant_rhs_grouped},
      {"fp8_blockwise_act_quant_transposed_lhs_grouped", act_quant_transposed_lhs_grouped},
      {"fp8_blockwise_act_quant_k_grouped_deepgemm", act_quant_k_grouped_deepgemm},
      {"fp8_blockwise_pad_scales_128x128", pad_scales_128x128},
      {"fp8_blockwise_weight_quant_transposed_rhs", weight_quant_transposed_rhs},
      {"fp8_blockwise_weight_quant_grouped_rhs", weight_quant_grouped_rhs},
      {"fp8_blockwise_weight_quant_grouped_transposed_rhs", weight_quant_grouped_transposed_rhs},
      {"deepgemm_per_channel_cast_to_fp8", per_channel_cast},
      {"deepgemm_per_block_cast_to_fp8", per_block_cast},
  });
  return adapters;
}

// G inclusive group ends over `extent` in multiples of 128 (the DeepGEMM k-grouped contract;
// empty groups possible), the last at `extent`.
std::vector<std::int64_t> group_ends_128(std::int64_t extent, std::int64_t G, std::uint64_t seed) {
  std::vector<std::int64_t> ends;
  for (std::int64_t g = 0; g + 1 < G; ++g)
    ends.push_back(golden::uniform_int(seed, std::uint64_t(g), extent / kBlock + 1) * kBlock);
  std::sort(ends.begin(), ends.end());
  ends.push_back(extent);
  return ends;
}

}  // namespace

std::span<const golden::KernelAdapter> blockwise_adapters() { return table(); }

std::vector<LargeCase> large_blockwise_cases() {
  using golden::Distribution;
  std::vector<LargeCase> out;
  // A 2D case; with G > 0 the group ends over the rows (multiples of 16, or of 128 for k-grouped).
  const auto add = [&](std::string_view kernel, Shape shape, Distribution dist, std::int64_t G = 0) {
    std::string name = std::string(kernel) + "_" + std::to_string(shape[0]) + "x" + std::to_string(shape[1]) + "_" +
                       std::string(golden::name(dist));
    if (G > 0) name += "_g" + std::to_string(G);
    const bool aligned_groups = kernel == "fp8_blockwise_act_quant_k_grouped_deepgemm";
    out.push_back({name, [=] {
                     golden::CaseSpec c = large_case(name, kernel, shape, dist, G, shape[0]);
                     if (aligned_groups)
                       c.call.inputs.insert_or_assign(
                           "offs", golden::make_tensor("int64", group_ends_128(shape[0], G, 2026 + std::uint64_t(G))));
                     return c;
                   }});
  };
  const Shape act{kTokens, kHidden};
  for (const Distribution d : {Distribution::normal, Distribution::outliers}) {
    add("fp8_blockwise_act_quant_transposed_lhs", act, d);
    add("deepgemm_per_channel_cast_to_fp8", act, d);
    add("deepgemm_per_block_cast_to_fp8", act, d);
    for (const std::int64_t G : {1, 16, 64, 128}) {
      add("fp8_blockwise_act_quant_rhs_grouped", act, d, G);
      add("fp8_blockwise_act_quant_k_grouped_deepgemm", act, d, G);
    }
  }
  // The token groups whose block list each CTA builds in shared memory (at most 256) and more (the
  // list in a device table); k-grouped with many groups, and with more rows than its shared table
  // holds (131072: the device table).
  for (const std::int64_t G : {256, 300}) {
    add("fp8_blockwise_act_quant_rhs_grouped", {kTokens, 1032}, Distribution::outliers, G);
    add("fp8_blockwise_act_quant_k_grouped_deepgemm", {kTokens, 1032}, Distribution::outliers, G);
  }
  add("fp8_blockwise_act_quant_k_grouped_deepgemm", {131200, 64}, Distribution::outliers, 16);
  // transposed lhs grouped writes rhs grouped's bytes: one distribution.
  for (const std::int64_t G : {1, 16, 64, 128}) add("fp8_blockwise_act_quant_transposed_lhs_grouped", act, Distribution::normal, G);
  // Partial tiles at the bottom and right edges.
  add("deepgemm_per_block_cast_to_fp8", {kTokens + 40, kHidden + 72}, Distribution::outliers);
  // Weights: one expert's matrix for the 2D kernel; E=8 5120x8192 and E=64 2048x1408 (K x N) in 3D.
  add("fp8_blockwise_weight_quant_transposed_rhs", {5120, 8192}, Distribution::normal);
  add("fp8_blockwise_weight_quant_transposed_rhs", {2048, 1408}, Distribution::outliers);
  for (const Shape& w : {Shape{8, 5120, 8192}, Shape{64, 2048, 1408}}) {
    out.push_back(weights_case("fp8_blockwise_weight_quant_grouped_rhs", "w", w, ""));
    out.push_back(weights_case("fp8_blockwise_weight_quant_grouped_transposed_rhs", "w", w, ""));
  }
  return out;
}

}  // namespace octet::cuda
