// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// adapters_layout.cpp — (being written)
#include "cuda_adapters.hpp"

namespace octet::cuda {
std::span<const golden::KernelAdapter> layout_adapters() { return {}; }
std::vector<LargeCase> large_layout_cases() { return {}; }
}  // namespace octet::cuda
