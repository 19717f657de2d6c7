// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// commands.hpp — one options struct and one run function per subcommand. main.cpp fills the
// structs from the command line; each run_* returns the process exit code and throws UsageError
// (exit code 2) for bad names and values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "octet/conformance.hpp"

namespace octet::cli {

struct FormatsOptions {
  bool json = false;
};
int run_formats(const FormatsOptions& o);
// The format table as text (also printed by the demo).
void print_format_table();

struct CastOptions {
  std::string format, from = "fp32", rounding, overflow, profile = "ocp", random_bits;
  bool json = false;
  std::vector<std::string> values;
};
int run_cast(const CastOptions& o);

struct DecodeOptions {
  std::string format;
  bool json = false;
  std::vector<std::string> codes;  // empty: every code of a format of at most 8 bits
};
int run_decode(const DecodeOptions& o);

struct SweepOptions {
  std::string format, rounding, overflow, profile = "ocp", seed = "0", range;
  bool json = false, check = false;
};
int run_sweep(const SweepOptions& o);

struct ConformanceArgs {
  std::vector<std::string> formats, sources, profiles;  // empty: fp8 + e8m0 targets, fp32, all profiles
  bool exhaustive = false, json = false;
};
int run_conformance(const ConformanceArgs& o);
std::vector<ConformanceReport> conformance_reports(const ConformanceArgs& o);
void print_conformance_summary(const std::vector<ConformanceReport>& reports, bool with_examples);

struct KernelsOptions {
  bool json = false;
};
int run_kernels(const KernelsOptions& o);

struct QuantizeOptions {
  std::string kernel, recipe, offs, dtype = "bf16", seed = "0", distribution = "normal";
  std::int64_t rows = -1, cols = -1;  // required
  bool json = false;
};
// Throws UsageError for bad names and values; the emulator's std::invalid_argument for kernel
// misuse (non-monotonic offs, dims not divisible by the block), which main also maps to exit 2.
int run_quantize(const QuantizeOptions& o);

// octet golden gen|list|verify: `dir` is --out for gen, --dir for list and verify.
struct GoldenOptions {
  std::string suite = "default", dir = "golden-data";
};
int run_golden_gen(const GoldenOptions& o);
int run_golden_list(const GoldenOptions& o);     // exit 2: manifest missing or corrupt
int run_golden_verify(const GoldenOptions& o);   // exit 1: a mismatch; 2: manifest missing or corrupt

struct RunOptions {
  std::string kernel, recipe, profile, input, output;
};
int run_run(const RunOptions& o);  // exit 2: bad input file or kernel inputs (nothing written)

struct CheckOptions {
  std::string golden, candidate;
  std::int64_t max_mismatches = 8;
  bool json = false;
};
int run_check(const CheckOptions& o);  // exit 0: every case passes; 1: a mismatch; 2: bad input

struct DemoOptions {
  bool no_sweep = false;
};
int run_demo(const DemoOptions& o);

}  // namespace octet::cli
