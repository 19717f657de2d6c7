// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// tensor_io.cpp — dtype and rank checks for golden Tensors, and the integer inputs' conversions.
#include "octet/golden/tensor_io.hpp"

#include <limits>

namespace octet::golden {

namespace {

// The elements of an int32 or int64 tensor, widened to int64.
std::vector<std::int64_t> widened_ints(const Tensor& t) {
  if (t.dtype == "int64") return values_of<std::int64_t>(t);
  const std::vector<std::int32_t> v = values_of<std::int32_t>(t);
  return {v.begin(), v.end()};
}

std::string shape_text(const std::vector<std::int64_t>& s) {
  std::string t = "(";
  for (std::size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + (s.size() == 1 ? ",)" : ")");
}
}  // namespace

void check_element_size(std::string_view dtype, std::size_t size, const char* what) {
  const auto info = lookup_dtype(dtype);
  if (!info) throw std::logic_error(std::string(what) + ": unknown dtype '" + std::string(dtype) + "'");
  if (std::size_t(info->element_size) != size)
    throw std::logic_error(std::string(what) + ": dtype '" + std::string(dtype) + "' stores " +
                           std::to_string(info->element_size) + "-byte elements, not " + std::to_string(size));
}

const Tensor& input(const Tensors& inputs, const std::string& name) {
  const auto it = inputs.find(name);
  if (it == inputs.end()) throw KernelInputError("missing input dataset '" + name + "'");
  return it->second;
}

const std::string& expect_dtype(const Tensor& t, const std::string& name, std::initializer_list<std::string_view> dtypes,
                                int rank) {
  bool ok = false;
  std::string list;
  for (const std::string_view d : dtypes) {
    ok = ok || t.dtype == d;
    list += (list.empty() ? "" : " or ") + std::string(d);
  }
  if (!ok) throw KernelInputError("input '" + name + "': dtype '" + t.dtype + "', expected " + list);
  if (rank >= 0 && std::int64_t(t.shape.size()) != rank)
    throw KernelInputError("input '" + name + "': rank " + std::to_string(t.shape.size()) + " (shape " +
                           shape_text(t.shape) + "), expected rank " + std::to_string(rank));
  return t.dtype;
}

std::vector<std::int64_t> int_list(const Tensors& inputs, const std::string& name) {
  const Tensor& t = input(inputs, name);
  expect_dtype(t, name, {"int32", "int64"}, 1);
  return widened_ints(t);
}

IntMatrix int_matrix(const Tensors& inputs, const std::string& name) {
  const Tensor& t = input(inputs, name);
  expect_dtype(t, name, {"int32", "int64"}, 2);
  return {t.shape[0], t.shape[1], widened_ints(t)};
}

Tensor int_tensor(std::string_view dtype, std::vector<std::int64_t> shape, const std::vector<std::int64_t>& values) {
  if (dtype == "int64") return make_tensor(dtype, std::move(shape), values);
  if (dtype != "int32") throw std::logic_error("int_tensor: dtype '" + std::string(dtype) + "' is not int32 or int64");
  std::vector<std::int32_t> narrow;
  narrow.reserve(values.size());
  for (const std::int64_t v : values) {
    if (v < std::numeric_limits<std::int32_t>::min() || v > std::numeric_limits<std::int32_t>::max())
      throw std::logic_error("int_tensor: " + std::to_string(v) + " does not fit int32");
    narrow.push_back(std::int32_t(v));
  }
  return make_tensor(dtype, std::move(shape), narrow);
}

FloatInput float_input(const Tensors& inputs, const std::string& name, int rank) {
  const Tensor& t = input(inputs, name);
  expect_dtype(t, name, {"bfloat16", "float32"}, rank);
  FloatInput in;
  in.shape = t.shape;
  if (t.dtype == "bfloat16") {
    in.type = InputType::bf16;
    in.bf16 = values_of<std::uint16_t>(t);
  } else {
    in.f32 = values_of<float>(t);
  }
  return in;
}

}  // namespace octet::golden
