// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// cases/fused.cpp — (being written)
#include "octet/golden/suite.hpp"

namespace octet::golden {
std::vector<CaseSpec> fused_cases(Suite) { return {}; }
}  // namespace octet::golden
