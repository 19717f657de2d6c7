// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// families.cpp — the files of a suite, in the order they are generated.
#include "octet/golden/suite.hpp"

namespace octet::golden {

std::vector<Family> suite_families(Suite s) {
  (void)s;  // every family is in both suites; the catalogues size their cases by suite
  const auto kernels = [](std::string family, std::vector<CaseSpec> (*cases)(Suite)) {
    return [family, cases](const std::filesystem::path& path, Suite suite, const Provenance& p, const Progress& progress) {
      const std::string json = "{\"family\":\"" + family + "\",\"suite\":\"" + std::string(name(suite)) + "\"}";
      return write_cases(path, json, cases(suite), p, progress);
    };
  };
  return {
      {"formats.h5", write_formats},
      {"recipes.h5", kernels("recipes", recipe_cases)},
      {"kernels_fp8.h5", kernels("kernels_fp8", fp8_cases)},
      {"kernels_mx.h5", kernels("kernels_mx", mx_cases)},
      {"kernels_layout.h5", kernels("kernels_layout", layout_cases)},
      {"kernels_transpose.h5", kernels("kernels_transpose", transpose_cases)},
      {"kernels_fused.h5", kernels("kernels_fused", fused_cases)},
      {"kernels_a2a.h5", kernels("kernels_a2a", a2a_cases)},
      {"gemm.h5", kernels("gemm", gemm_cases)},
  };
}

}  // namespace octet::golden
