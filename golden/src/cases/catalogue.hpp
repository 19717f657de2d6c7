// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// cases/catalogue.hpp — what the case catalogues (golden/src/cases/*.cpp) share: the catalogue
// under construction (case names `<stem>_<n>` and the attributes that describe a case's input),
// the labels that case names are made of, seeds derived from names, and input makers (bf16 from
// fp32 values, rows quantised with a recipe, random group ends). Private to the golden library.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "octet/golden/inputs.hpp"
#include "octet/golden/suite.hpp"
#include "octet/scale.hpp"

namespace octet::golden {

using Ints = std::vector<std::int64_t>;

// ---- labels and seeds -----------------------------------------------------------------------------

// The shape part of a case name: the extents joined by 'x' ("32x448", "2x16x8"; "" for rank 0).
std::string dims_label(const Ints& dims);

// The dtype part of a case name: bf16, fp16, fp32, fp64 for the float dtypes (any other dtype
// as it is named).
std::string short_dtype(std::string_view dtype);

// A seed that depends on `name` alone (the low 31 bits of its 32-bit FNV-1a), so that a case's
// inputs do not move when cases are added elsewhere in the catalogue.
std::int64_t seed_from_name(std::string_view name);

// ---- inputs ---------------------------------------------------------------------------------------

// fp32 values as a row-major tensor of `dtype`: float32 as they are, bfloat16 rounded to nearest
// even (overflow to ±Inf).
Tensor float_tensor(std::string_view dtype, Ints shape, const std::vector<float>& values);

// `groups` inclusive group ends over [0, total - tail], multiples of `unit`: sorted uniform cut
// points (uniform_int draws 0 .. groups-2 of `seed`), so a group is empty where two cuts
// coincide; the last group ends at total - tail (rows past it belong to no group).
Ints random_offs(std::uint64_t seed, std::int64_t groups, std::int64_t total, std::int64_t unit = 1,
                 std::int64_t tail = 0);

// Rows of `cols` values from `spec`, quantised in 1 x `block` runs along each row with recipe `r`
// (the last run of a row may be partial): `q` the codes in the recipe's element dtype (rows, cols),
// `scale` one stored scale per run (rows, ceil(cols/block)) in the recipe's storage.
struct QuantisedRows {
  Tensor q, scale;
};
QuantisedRows quantise_rows(const InputSpec& spec, std::int64_t rows, std::int64_t cols, const Recipe& r,
                            std::int64_t block);

// ---- the catalogue --------------------------------------------------------------------------------

// The case attributes that describe the main input: `distribution` (InputSpec's describe() or a
// hand-made generator's description), `dtype` and `shape`.
void describe_input(CaseSpec& c, const std::string& distribution, std::string_view dtype, const Ints& shape);

// The cases of one family, in order. A case is named `<stem>_<n>`, n counting the cases of the
// stem from 0, or by hand (misuse cases); every name must be new.
class Catalogue {
 public:
  // The n the next case of `stem` gets.
  int next_index(const std::string& stem) const;
  // `<stem>_<n>`, the name of the next case of `stem` (which it counts).
  std::string numbered(const std::string& stem);
  // Appends `c`; std::logic_error when its name is taken. The reference lives until the next case.
  CaseSpec& push(CaseSpec c);

  // A case `<stem>_<n>` of `kernel` on `inputs` generated from `spec`: attributes `distribution`
  // and `seed` from `spec`, `dtype` and `shape` of input `x` where there is one.
  CaseSpec& add(const std::string& kernel, const std::string& stem, const InputSpec& spec, Tensors inputs);
  // The same for a misuse case named `name` (the kernel must reject its inputs).
  CaseSpec& misuse(const std::string& kernel, const std::string& name, const InputSpec& spec, Tensors inputs);

  std::vector<CaseSpec> take() { return std::move(cases_); }

 private:
  CaseSpec& add_named(const std::string& kernel, std::string name, const InputSpec& spec, Tensors inputs);

  std::vector<CaseSpec> cases_;
  std::map<std::string, int> count_;
  std::set<std::string> names_;
};

}  // namespace octet::golden
