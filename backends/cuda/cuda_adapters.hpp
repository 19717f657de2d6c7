// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// cuda_adapters.hpp — the CUDA backend's kernels behind the golden runner's signature
// (golden/include/octet/golden/runner.hpp): each entry takes the same KernelCall as the emulator
// adapter of the same name and returns the same datasets (names, dtypes, shapes, layout), so the
// GPU tests compare the two case by case, byte for byte.
#pragma once

#include <functional>
#include <initializer_list>
#include <stdexcept>
#include <utility>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "octet/golden/runner.hpp"
#include "octet/golden/suite.hpp"

namespace octet::cuda {

// Every CUDA adapter (quantisers, then layout / transpose / fused / a2a kernels).
std::span<const golden::KernelAdapter> kernel_adapters();
const golden::KernelAdapter* find_kernel_adapter(std::string_view kernel);

// CUDA adapters from (kernel name, CUDA run function) pairs: every other field (default recipe,
// the inputs/params/outputs documentation) is the emulator twin's, since the datasets must be
// the same. std::logic_error when a name has no emulator adapter.
using RunFn = golden::Tensors (*)(const golden::KernelCall&);
std::vector<golden::KernelAdapter> twin_adapters(std::initializer_list<std::pair<std::string_view, RunFn>> runs);

std::span<const golden::KernelAdapter> quant_adapters();   // adapters_quant.cpp
std::span<const golden::KernelAdapter> layout_adapters();  // adapters_layout.cpp
std::span<const golden::KernelAdapter> blockwise_adapters();  // adapters_blockwise.cpp
std::span<const golden::KernelAdapter> mx_adapters();  // adapters_mx.cpp

// Cases at production shapes (16640x5120 bf16 with 1..128 groups; E=8 5120x8192 and E=64
// 2048x1408 weights), run by the GPU tests in addition to every golden catalogue case. Built on
// demand: their inputs are hundreds of MB.
struct LargeCase {
  std::string name;                     // unique, [A-Za-z0-9_]
  std::function<golden::CaseSpec()> make;
};
std::vector<LargeCase> large_quant_cases();
std::vector<LargeCase> large_layout_cases();
std::vector<LargeCase> large_blockwise_cases();
std::vector<LargeCase> large_mx_cases();

}  // namespace octet::cuda
