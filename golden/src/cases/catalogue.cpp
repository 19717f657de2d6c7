// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// cases/catalogue.cpp — what the case catalogues share (catalogue.hpp).
#include "catalogue.hpp"

#include <algorithm>
#include <span>
#include <stdexcept>

#include "../scale_io.hpp"
#include "octet/cast.hpp"
#include "octet/format.hpp"

namespace octet::golden {

std::string dims_label(const Ints& dims) {
  std::string s;
  for (const std::int64_t d : dims) {
    if (!s.empty()) s += 'x';
    s += std::to_string(d);
  }
  return s;
}

std::string short_dtype(std::string_view dtype) {
  if (dtype == "bfloat16") return "bf16";
  if (dtype == "float16") return "fp16";
  if (dtype == "float32") return "fp32";
  if (dtype == "float64") return "fp64";
  return std::string(dtype);
}

std::int64_t seed_from_name(std::string_view name) {
  std::uint32_t h = 2166136261u;
  for (const char c : name) h = (h ^ std::uint8_t(c)) * 16777619u;
  return std::int64_t(h & 0x7FFFFFFFu);
}

Tensor float_tensor(std::string_view dtype, Ints shape, const std::vector<float>& values) {
  if (dtype == "float32") return make_tensor("float32", std::move(shape), values);
  std::vector<std::uint16_t> b(values.size());
  cast(std::span<const float>(values), bf16_format, CastSpec{.overflow = Overflow::Ieee}, std::span<std::uint16_t>(b));
  return make_tensor("bfloat16", std::move(shape), b);
}

Ints random_offs(std::uint64_t seed, std::int64_t groups, std::int64_t total, std::int64_t unit, std::int64_t tail) {
  Ints cuts;
  const std::int64_t units = (total - tail) / unit;
  for (std::int64_t g = 0; g + 1 < groups; ++g) cuts.push_back(uniform_int(seed, std::uint64_t(g), units + 1) * unit);
  std::sort(cuts.begin(), cuts.end());
  cuts.push_back(total - tail);
  return cuts;
}

QuantisedRows quantise_rows(const InputSpec& spec, std::int64_t rows, std::int64_t cols, const Recipe& r,
                            std::int64_t block) {
  const std::vector<float> x = generate_fp32(spec, rows * cols);
  const std::int64_t runs = (cols + block - 1) / block;
  std::vector<std::uint8_t> q(std::size_t(rows * cols));
  std::vector<std::uint32_t> stored(std::size_t(rows * runs));
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < runs; ++j) {
      const std::int64_t c0 = i * cols + j * block, c1 = i * cols + std::min(cols, (j + 1) * block);
      float amax = amax_init(r);
      for (std::int64_t c = c0; c < c1; ++c) amax = amax_update(r, amax, x[std::size_t(c)]);
      const BlockScale s = scale_from_amax(r, amax);
      stored[std::size_t(i * runs + j)] = s.stored;
      for (std::int64_t c = c0; c < c1; ++c) q[std::size_t(c)] = std::uint8_t(quantize_element(r, s, x[std::size_t(c)]));
    }
  return {make_tensor(dtype_name(element_format(r)), {rows, cols}, q), stored_scale_tensor(r, {rows, runs}, stored)};
}

void describe_input(CaseSpec& c, const std::string& distribution, std::string_view dtype, const Ints& shape) {
  CaseAttributes& a = c.call.attrs;
  a.strings["distribution"] = distribution;
  a.strings["dtype"] = std::string(dtype);
  a.int_arrays["shape"] = shape;
}

int Catalogue::next_index(const std::string& stem) const {
  const auto it = count_.find(stem);
  return it == count_.end() ? 0 : it->second;
}

std::string Catalogue::numbered(const std::string& stem) { return stem + "_" + std::to_string(count_[stem]++); }

CaseSpec& Catalogue::push(CaseSpec c) {
  if (!names_.insert(c.name).second) throw std::logic_error("golden cases: duplicate case name " + c.name);
  cases_.push_back(std::move(c));
  return cases_.back();
}

CaseSpec& Catalogue::add(const std::string& kernel, const std::string& stem, const InputSpec& spec, Tensors inputs) {
  return add_named(kernel, numbered(stem), spec, std::move(inputs));
}

CaseSpec& Catalogue::misuse(const std::string& kernel, const std::string& name, const InputSpec& spec, Tensors inputs) {
  CaseSpec& c = add_named(kernel, name, spec, std::move(inputs));
  c.expect_error = true;
  return c;
}

CaseSpec& Catalogue::add_named(const std::string& kernel, std::string name, const InputSpec& spec, Tensors inputs) {
  CaseSpec c;
  c.name = std::move(name);
  c.call.kernel = kernel;
  c.call.inputs = std::move(inputs);
  CaseAttributes& a = c.call.attrs;
  a.strings["distribution"] = describe(spec);
  a.ints["seed"] = std::int64_t(spec.seed);
  if (const auto x = c.call.inputs.find("x"); x != c.call.inputs.end()) {
    a.strings["dtype"] = x->second.dtype;
    a.int_arrays["shape"] = x->second.shape;
  }
  return push(std::move(c));
}

}  // namespace octet::golden
