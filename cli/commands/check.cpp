// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// octet check — (being written)
#include "commands/commands.hpp"
#include "common.hpp"

namespace octet::cli {
int run_check(const CheckOptions&) { throw UsageError("check: not built yet"); }
}  // namespace octet::cli
