// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// suite.hpp — golden suites: the case families (one file each), how a kernel case is computed and
// stored, and `run_file` (octet run): the same computation on a user's inputs.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "octet/golden/runner.hpp"

namespace octet::golden {

enum class Suite : std::uint8_t { default_suite, full };
Suite parse_suite(std::string_view s);  // "default" | "full"; std::invalid_argument otherwise
std::string_view name(Suite s);

// Called as cases complete: (cases done, cases in the family). Called under a lock, from any thread.
using Progress = std::function<void(std::size_t done, std::size_t total)>;

// One kernel case before it is computed. `call.attrs` holds everything but provenance and the
// inputs/outputs lists, which the writer adds.
struct CaseSpec {
  std::string name;         // the group name: [A-Za-z0-9_.-]+
  KernelCall call;
  bool expect_error = false;  // a misuse case: the kernel must reject the inputs
};

// Case catalogues, one per kernel family (golden/src/cases/*.cpp).
std::vector<CaseSpec> fp8_cases(Suite s);
std::vector<CaseSpec> mx_cases(Suite s);
std::vector<CaseSpec> layout_cases(Suite s);
std::vector<CaseSpec> transpose_cases(Suite s);
std::vector<CaseSpec> fused_cases(Suite s);
std::vector<CaseSpec> a2a_cases(Suite s);
std::vector<CaseSpec> gemm_cases(Suite s);
std::vector<CaseSpec> recipe_cases(Suite s);

// The formats family is data about formats, not kernel calls: written directly.
std::size_t write_formats(const std::filesystem::path& path, Suite s, const Provenance& p, const Progress& progress);

struct Family {
  std::string file;  // "kernels_fp8.h5"
  // Writes the family's file at `path` (temporary + rename); returns the number of cases.
  std::function<std::size_t(const std::filesystem::path& path, Suite, const Provenance&, const Progress&)> write;
};
std::vector<Family> suite_families(Suite s);

// A computed case: attributes (with `inputs`, `outputs` or `expected_error`) and its datasets.
struct ComputedCase {
  std::string name;
  CaseAttributes attrs;
  std::vector<std::pair<std::string, Tensor>> datasets;  // inputs first, then outputs
};
// Runs one case. A case with expect_error must throw KernelInputError (its message is stored);
// any other case's KernelInputError propagates, and so does a KernelInputError saying that a
// misuse case was accepted. write_cases names the case in the error.
ComputedCase compute_case(const CaseSpec& c, const Provenance& p);

// Computes `cases` (in parallel: the bytes do not depend on the thread count) and writes them to
// `path` in order. Returns the number of cases. `parameters_json` becomes creation_parameters.
std::size_t write_cases(const std::filesystem::path& path, const std::string& parameters_json,
                        const std::vector<CaseSpec>& cases, const Provenance& p, const Progress& progress = {});

// octet run: every case of `input` (attribute `kernel`; input datasets from the `inputs`
// attribute, or every dataset) is run and written to `output` with its inputs and outputs.
// Returns the number of cases; throws GoldenError / KernelInputError (nothing is written then).
std::size_t run_file(const std::filesystem::path& input, const std::filesystem::path& output,
                     const std::string& kernel_override = {}, const std::string& recipe_override = {},
                     const std::string& profile_override = {});

}  // namespace octet::golden
