// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// octet check — a candidate's outputs (a backend's, in the golden schema) against a golden file,
// case by case: bit for bit, GEMM outputs within their golden bound, each mismatch classified
// (golden/include/octet/golden/check.hpp). Exit 0 when every case passes, 1 on a mismatch, 2 when
// a file cannot be read or does not validate (GoldenError, mapped by main).
#include <cstdio>

#include "commands/commands.hpp"
#include "common.hpp"
#include "octet/golden/check.hpp"

namespace octet::cli {

int run_check(const CheckOptions& o) {
  if (o.max_mismatches < 0) throw UsageError("--max-mismatches must be >= 0");
  const golden::CheckReport report = golden::check_files(o.golden, o.candidate, o.max_mismatches);
  if (o.json) {
    std::fputs(golden::to_json(report).c_str(), stdout);
    return report.pass() ? 0 : 1;
  }
  std::size_t passed = 0;
  for (const golden::CaseReport& c : report.cases) {
    passed += c.pass;
    std::printf("%s\n", golden::format_text(c).c_str());
  }
  const std::size_t n = report.cases.size();
  std::printf("%zu case%s: %zu passed, %zu failed\n", n, n == 1 ? "" : "s", passed, n - passed);
  return report.pass() ? 0 : 1;
}

}  // namespace octet::cli
