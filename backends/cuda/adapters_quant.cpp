// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// adapters_quant.cpp — (being written)
#include "cuda_adapters.hpp"

namespace octet::cuda {
std::span<const golden::KernelAdapter> quant_adapters() { return {}; }
std::vector<LargeCase> large_quant_cases() { return {}; }
}  // namespace octet::cuda
