// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// registry.hpp — every kernel, scale recipe and GEMM model of the emulator, with the peer it
// reproduces (`octet kernels [--json]`).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace octet {

enum class EntryKind : std::uint8_t { kernel, recipe, gemm_model };
std::string_view name(EntryKind k);  // "kernel", "recipe", "gemm_model"

struct RegistryEntry {
  std::string_view name;     // "mx_quantize_dim0"
  EntryKind kind;
  std::string_view peer;     // the peer implementation or spec section it reproduces
  std::string_view summary;  // one line
};

std::span<const RegistryEntry> registry();

}  // namespace octet
