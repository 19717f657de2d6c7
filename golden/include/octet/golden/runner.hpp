// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// runner.hpp — every emulator kernel and GEMM model behind one signature, so that a golden case
// (kernel name + attributes + input datasets) can be run without knowing the kernel's C++ API.
// `octet golden gen` runs it on generated inputs, `octet run` on a user's inputs, and the GPU
// tests on the same inputs as the CUDA backend: one home for "what does kernel K output here".
//
// Case conventions (golden/schema.md §Kernel cases):
//   * case attribute `kernel`: the registry name (octet kernels --json);
//   * `recipe` / `profile` (strings): when absent, the kernel's default;
//   * every other int64 / string attribute may be a kernel parameter (`alignment`, `variant`, ...);
//   * case attribute `inputs` / `outputs`: comma-separated dataset names, in the kernel's order;
//   * a case whose inputs must be rejected stores `expected_error` (the message) and no outputs.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "octet/golden/h5.hpp"
#include "octet/golden/tensor_io.hpp"
#include "octet/scale.hpp"

namespace octet::golden {

struct KernelCall {
  std::string kernel;
  CaseAttributes attrs;  // recipe, profile, parameters (and provenance, ignored)
  Tensors inputs;

  // Parameter accessors; a missing required one, or one of the wrong type, is a KernelInputError.
  std::optional<std::string> string_param(const std::string& key) const;
  std::string string_param(const std::string& key, std::string_view fallback) const;
  std::optional<std::int64_t> int_param(const std::string& key) const;
  std::int64_t int_param(const std::string& key, std::int64_t fallback) const;
  std::int64_t required_int(const std::string& key) const;
};

struct KernelAdapter {
  std::string_view name;            // the registry name
  std::string_view default_recipe;  // "" when the kernel takes no recipe
  std::string_view inputs;          // for --help / errors: "x: bfloat16|float32 (M, K); offs: int32|int64 (G,)"
  std::string_view params;          // "" or "alignment (int, default 16); ..."
  std::string_view outputs;         // "q: float8_e4m3fn (M, K); scale_inv: float32 (M, 1)"
  Tensors (*run)(const KernelCall&);  // throws KernelInputError / std::invalid_argument on bad input
};

// Every adapter, in registry order: quantisers, layout, transposes, fused, a2a, GEMM models.
std::span<const KernelAdapter> kernel_adapters();
const KernelAdapter* find_adapter(std::string_view kernel);

// The recipe a call uses: attribute `recipe`, else the adapter's default (KernelInputError when
// neither names a known recipe).
const Recipe& call_recipe(const KernelCall& call, std::string_view default_recipe);

// Runs the call's kernel. Unknown kernel, bad inputs or parameters, or the kernel's own
// std::invalid_argument all surface as KernelInputError with the kernel's name in the message.
Tensors run_kernel(const KernelCall& call);

// The adapter tables, one per kernel family (golden/src/adapters/*.cpp).
std::span<const KernelAdapter> fp8_adapters();        // fp8_rowwise, fp8_per_group, fp8_blockwise, deepgemm casts
std::span<const KernelAdapter> mx_adapters();         // mx_quantize*, mx_dequantize, mx_blocked_scales, scale swizzles
std::span<const KernelAdapter> layout_adapters();     // pad/permute family
std::span<const KernelAdapter> transpose_adapters();  // fp8flow_transpose_*
std::span<const KernelAdapter> fused_adapters();      // swiglu_quantize_*
std::span<const KernelAdapter> a2a_adapters();        // a2a_exchange_*, a2a_combine
std::span<const KernelAdapter> gemm_adapters();       // scaled_mm / grouped GEMMs per model
std::span<const KernelAdapter> format_adapters();     // cast, decode (the formats family)
std::span<const KernelAdapter> recipe_adapters();     // recipe_scale_from_amax, recipe_quantize_blocks

// Case-attribute helpers for the inputs/outputs convention.
std::vector<std::string> split_names(std::string_view comma_separated);
std::string join_names(const std::vector<std::string>& names);

}  // namespace octet::golden
