// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// adapters/fp8.cpp — (being written)
#include "octet/golden/runner.hpp"

namespace octet::golden {
std::span<const KernelAdapter> fp8_adapters() { return {}; }
}  // namespace octet::golden
