// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// cases/a2a.cpp — (being written)
#include "octet/golden/suite.hpp"

namespace octet::golden {
std::vector<CaseSpec> a2a_cases(Suite) { return {}; }
}  // namespace octet::golden
