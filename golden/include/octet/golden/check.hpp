// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// check.hpp — comparing a candidate's outputs with a golden file (`octet check`), case by case and
// dataset by dataset, bit for bit (GEMM outputs within their golden `<name>_bound`), and saying
// *why* they differ: every mismatching element gets a class (a NaN payload, saturation against
// NaN, a flushed subnormal, a power-of-two scale, an adjacent code, a rounding tie, a sign), and
// a failing dataset is tried against whole-tensor explanations (transposed, permuted rows,
// padding rows, one power-of-two factor). The GPU tests call compare_case in-process on a
// backend's outputs; the CLI calls check_files on two HDF5 files. golden/schema.md §octet check.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "octet/golden/h5.hpp"
#include "octet/golden/tensor_io.hpp"

namespace octet::golden {

// Why elements (or a whole dataset) differ. Element classes are tried in the order listed (the
// first that holds wins); the dataset-level explanations come after `other`.
enum class MismatchClass : std::uint8_t {
  // -- one element: golden code g against candidate code c, both of the dataset's dtype --
  nan_payload_sign,    // both NaN, different codes (payload or sign)
  saturation_vs_nan,   // one NaN or Inf, the other +-max finite or Inf
  tie_rounding,        // adjacent codes, and the cast's input x is exactly their midpoint
  subnormal_flush,     // one +-0, the other a subnormal of the dtype
  sign,                // same magnitude, opposite sign (+0 / -0 included)
  rounding_adjacent,   // adjacent codes of the same sign (finite)
  scale_pow2,          // both finite nonzero and c = g * 2^k, k != 0
  other,               // none of the above (and every mismatch of an integer dtype)
  tolerance_exceeded,  // a bounded dataset: |c - g| > bound, NaN against a number, or the
                       // normwise bound exceeded (then listed with the count of elementwise ones)
  // -- a whole dataset --
  transposed_layout,   // the candidate holds the golden transposed (per leading index for 3-D)
  permuted_rows,       // the same rows in another order
  padding_rows,        // every mismatch lies in rows that are one pad byte in the golden
};
inline constexpr int kMismatchClassCount = int(MismatchClass::padding_rows) + 1;
std::string_view name(MismatchClass c);  // "scale_pow2", ...

struct Mismatch {
  std::int64_t index;                // flat row-major element index
  std::vector<std::int64_t> coords;  // per dimension
  std::uint64_t golden_bits, candidate_bits;  // the stored elements (little-endian integers)
  double golden_value, candidate_value;       // decoded through the dtype (integers exactly)
};

struct DatasetReport {
  std::string dataset;
  bool pass = false;
  std::int64_t elements = 0, mismatching_elements = 0, mismatching_bytes = 0;
  std::vector<Mismatch> first;  // the first mismatches, up to max_mismatches
  // Class -> count. A dataset-level explanation (transposed_layout, permuted_rows, padding_rows,
  // scale_pow2 when every mismatch has the same factor), when one holds, comes first with the
  // number of mismatching elements it explains; the element classes follow in enum order (the
  // cause's own class, when it is one of them, only once: first).
  std::vector<std::pair<MismatchClass, std::int64_t>> classes;
  std::string detail;  // the primary cause in words; a missing dataset or shape/dtype difference
  std::string dtype;   // the golden dtype (for printing codes with their width)
};

struct CaseReport {
  std::string case_name, kernel;
  bool pass = false;
  std::vector<DatasetReport> datasets;
  std::string detail;  // case-level: missing case, expected error handling
};

// Compares one case's outputs. `golden_attrs` / `golden_inputs` give the context: `kernel`,
// `expected_error` (then the candidate must have no outputs: a rejected input), and for kernel
// "cast" the input `x` that tells a rounding tie. The GEMM tolerances in `golden_outputs` are not
// compared themselves: `<name>_bound` (elementwise: |c - g| <= bound, NaN only against NaN; the
// dataset's shape, or one element for all) and, beside it, `<name>_normwise_bound` (one float:
// ||c - g||_F over the elements finite on both sides <= bound).
CaseReport compare_case(const std::string& case_name, const CaseAttributes& golden_attrs, const Tensors& golden_inputs,
                        const Tensors& golden_outputs, const Tensors& candidate_outputs,
                        std::int64_t max_mismatches = 8);

struct CheckReport {
  std::string golden, candidate;
  std::vector<CaseReport> cases;  // in the golden file's case order
  bool pass() const;
};

// Every case of the golden file against the candidate's case of the same name. A golden case
// with `expected_error` passes when the candidate's case carries a string attribute `error` (or
// `expected_error`). A file that cannot be read, or a dataset that does not validate, throws
// GoldenError.
CheckReport check_files(const std::filesystem::path& golden, const std::filesystem::path& candidate,
                        std::int64_t max_mismatches = 8);

std::string format_text(const CaseReport& r);  // multi-line human report of one case
std::string to_json(const CheckReport& r);     // one JSON object, members in a fixed order

}  // namespace octet::golden
