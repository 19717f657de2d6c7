// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// cuda_adapters.cpp — the CUDA adapter table: the concatenation of the per-family tables.
#include "cuda_adapters.hpp"

namespace octet::cuda {

std::span<const golden::KernelAdapter> kernel_adapters() {
  static const std::vector<golden::KernelAdapter> all = [] {
    std::vector<golden::KernelAdapter> v;
    for (const auto table : {quant_adapters(), layout_adapters(), blockwise_adapters(), mx_adapters()}) v.insert(v.end(), table.begin(), table.end());
    return v;
  }();
  return all;
}

std::vector<golden::KernelAdapter> twin_adapters(std::initializer_list<std::pair<std::string_view, RunFn>> runs) {
  std::vector<golden::KernelAdapter> v;
  for (const auto& [name, run] : runs) {
    const golden::KernelAdapter* emulator = golden::find_adapter(name);
    if (emulator == nullptr) throw std::logic_error("CUDA adapter '" + std::string(name) + "' has no emulator twin");
    golden::KernelAdapter a = *emulator;
    a.run = run;
    v.push_back(a);
  }
  return v;
}

const golden::KernelAdapter* find_kernel_adapter(std::string_view kernel) {
  for (const golden::KernelAdapter& a : kernel_adapters())
    if (a.name == kernel) return &a;
  return nullptr;
}

}  // namespace octet::cuda
