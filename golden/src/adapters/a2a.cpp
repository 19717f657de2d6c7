// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// adapters/a2a.cpp — (being written)
#include "octet/golden/runner.hpp"

namespace octet::golden {
std::span<const KernelAdapter> a2a_adapters() { return {}; }
}  // namespace octet::golden
