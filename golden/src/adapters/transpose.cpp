// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// adapters/transpose.cpp — (being written)
#include "octet/golden/runner.hpp"

namespace octet::golden {
std::span<const KernelAdapter> transpose_adapters() { return {}; }
}  // namespace octet::golden
