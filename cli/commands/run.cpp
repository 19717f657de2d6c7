// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// octet run — every case of an input file through the emulator kernel its `kernel` attribute (or
// --kernel) names: the expected outputs for a kernel author's own tensors, in the golden schema.
// The output is written under a temporary name and renamed only when every case succeeded.
#include <cstdio>

#include "commands/commands.hpp"
#include "octet/golden/suite.hpp"

namespace octet::cli {

int run_run(const RunOptions& o) {
  const std::size_t n = golden::run_file(o.input, o.output, o.kernel, o.recipe, o.profile);
  std::printf("wrote %s (%zu case%s)\n", o.output.c_str(), n, n == 1 ? "" : "s");
  return 0;
}

}  // namespace octet::cli
