// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// cases/fp8.cpp — (being written)
#include "octet/golden/suite.hpp"

namespace octet::golden {
std::vector<CaseSpec> fp8_cases(Suite) { return {}; }
}  // namespace octet::golden
