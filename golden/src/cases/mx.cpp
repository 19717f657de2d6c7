// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// cases/mx.cpp — (being written)
#include "octet/golden/suite.hpp"

namespace octet::golden {
std::vector<CaseSpec> mx_cases(Suite) { return {}; }
}  // namespace octet::golden
