// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// The registry: one section per family, in the order of reference/kernels.md. Each entry's
// peer is what its implementation file cites.
#include "octet/registry.hpp"

#include <array>
#include <vector>

namespace octet {

std::string_view name(EntryKind k) {
  constexpr std::array<std::string_view, 3> names{"kernel", "recipe", "gemm_model"};
  return names[std::size_t(k)];
}

namespace {
using K = EntryKind;

// ---- scale recipes (emulator/src/scale.cpp) ----
const std::vector<RegistryEntry> kRecipes = {
};

// ---- family 1-3: rowwise / per-group / blockwise quantisers ----
const std::vector<RegistryEntry> kFp8Kernels = {
};

// ---- family 4: MX quantisers, dequantisation, scale swizzles ----
const std::vector<RegistryEntry> kMxKernels = {
};

// ---- family 5: token padding and permutation ----
const std::vector<RegistryEntry> kLayoutKernels = {
};

// ---- family 6: scaling-aware transpose ----
const std::vector<RegistryEntry> kTransposeKernels = {
};

// ---- family 7-8: fused SwiGLU + quantisation, all-to-all emulation ----
const std::vector<RegistryEntry> kFusedKernels = {
};

std::vector<RegistryEntry> build() {
  std::vector<RegistryEntry> all;
  for (const auto* section : {&kRecipes, &kFp8Kernels, &kMxKernels, &kLayoutKernels, &kTransposeKernels, &kFusedKernels})
    all.insert(all.end(), section->begin(), section->end());
  return all;
}
}  // namespace

std::span<const RegistryEntry> registry() {
  static const std::vector<RegistryEntry> all = build();
  return all;
}

}  // namespace octet
