// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// tensor_io.hpp — typed access to golden Tensors (raw little-endian bytes + ml_dtypes name): build
// one from a vector, read one back as a vector or a row-major view after checking its dtype and
// rank. Every check failure is a KernelInputError naming the dataset, so `octet run` on a user's
// file says which input is wrong and why.
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <map>
#include <stdexcept>
#include <type_traits>
#include <string>
#include <string_view>
#include <vector>

#include "octet/golden/h5.hpp"
#include "octet/tensor.hpp"

namespace octet::golden {

// Bad kernel inputs (wrong dtype, rank, shape; invalid offsets; ...): the CLI exits with code 2.
class KernelInputError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

using Tensors = std::map<std::string, Tensor>;  // by dataset name

// The C++ element type that holds one stored element of a dtype.
template <class T>
constexpr bool is_storage_type_v = std::is_same_v<T, std::uint8_t> || std::is_same_v<T, std::uint16_t> ||
                                   std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t> ||
                                   std::is_same_v<T, float> || std::is_same_v<T, double>;

// A row-major tensor of `dtype` (canonical spelling; must exist and store sizeof(T)-byte elements).
template <class T>
Tensor make_tensor(std::string_view dtype, std::vector<std::int64_t> shape, const std::vector<T>& values,
                   std::string layout = "row_major", std::vector<std::int64_t> strides = {});
template <class T>
Tensor make_tensor(std::string_view dtype, const std::vector<T>& values) {  // 1-D
  return make_tensor(dtype, {std::int64_t(values.size())}, values);
}

// The elements of `t` as T (sizeof(T) must equal the dtype's element size).
template <class T>
std::vector<T> values_of(const Tensor& t);

// The named input, or a KernelInputError "missing input dataset 'x'".
const Tensor& input(const Tensors& inputs, const std::string& name);
// True when the named input exists.
inline bool has_input(const Tensors& inputs, const std::string& name) { return inputs.count(name) != 0; }

// Checks `t` (dataset `name`) has one of `dtypes` and rank `rank` (-1: any); throws otherwise.
// Returns the dtype.
const std::string& expect_dtype(const Tensor& t, const std::string& name, std::initializer_list<std::string_view> dtypes,
                                int rank = -1);

// Integer list input (offs, splits, indices, ...): int32 or int64, rank 1, widened to int64.
std::vector<std::int64_t> int_list(const Tensors& inputs, const std::string& name);

// Integer matrix input (routing tables, split matrices, row maps): int32 or int64, rank 2,
// widened to int64.
struct IntMatrix {
  std::int64_t rows = 0, cols = 0;
  std::vector<std::int64_t> values;  // row-major
};
IntMatrix int_matrix(const Tensors& inputs, const std::string& name);

// The converse of int_list / int_matrix: int64 values stored as `dtype` "int32" (every value must
// fit; the peers' torch offsets are int32) or "int64", row-major of `shape` (1-D: its length).
Tensor int_tensor(std::string_view dtype, std::vector<std::int64_t> shape, const std::vector<std::int64_t>& values);
inline Tensor int_tensor(std::string_view dtype, const std::vector<std::int64_t>& values) {
  return int_tensor(dtype, {std::int64_t(values.size())}, values);
}

// A floating input of dtype bfloat16 or float32 and rank `rank` (2 or 3), kept as stored bits:
// bf16 as uint16, fp32 as float. `type` tells which.
struct FloatInput {
  InputType type = InputType::fp32;
  std::vector<std::int64_t> shape;
  std::vector<float> f32;
  std::vector<std::uint16_t> bf16;
  std::string_view dtype() const { return type == InputType::bf16 ? "bfloat16" : "float32"; }
  std::int64_t dim(int i) const { return shape.at(std::size_t(i)); }
};
FloatInput float_input(const Tensors& inputs, const std::string& name, int rank);

// Row-major views of a FloatInput (the caller keeps it alive).
template <class T>
View2D<const T> view2d(const std::vector<T>& v, std::int64_t rows, std::int64_t cols) {
  return View2D<const T>::row_major(v.data(), rows, cols);
}
template <class T>
View3D<const T> view3d(const std::vector<T>& v, std::int64_t e, std::int64_t rows, std::int64_t cols) {
  return View3D<const T>::row_major(v.data(), e, rows, cols);
}

// Copies a strided 2-D view into a row-major vector (logical order), for storing a kernel's
// output whatever layout it used; `strides` of the stored tensor then record the original one.
template <class T>
std::vector<T> logical_order(View2D<const T> v) {
  std::vector<T> out(std::size_t(v.rows * v.cols));
  for (std::int64_t r = 0; r < v.rows; ++r)
    for (std::int64_t c = 0; c < v.cols; ++c) out[std::size_t(r * v.cols + c)] = v(r, c);
  return out;
}
template <class T>
std::vector<T> logical_order(View3D<const T> v) {
  std::vector<T> out(std::size_t(v.experts * v.rows * v.cols));
  for (std::int64_t e = 0; e < v.experts; ++e)
    for (std::int64_t r = 0; r < v.rows; ++r)
      for (std::int64_t c = 0; c < v.cols; ++c) out[std::size_t((e * v.rows + r) * v.cols + c)] = v(e, r, c);
  return out;
}

// ---- definitions --------------------------------------------------------------------------------

void check_element_size(std::string_view dtype, std::size_t size, const char* what);

template <class T>
Tensor make_tensor(std::string_view dtype, std::vector<std::int64_t> shape, const std::vector<T>& values,
                   std::string layout, std::vector<std::int64_t> strides) {
  static_assert(is_storage_type_v<T>);
  check_element_size(dtype, sizeof(T), "make_tensor");
  Tensor t;
  t.dtype = std::string(dtype);
  t.shape = std::move(shape);
  t.strides = std::move(strides);
  t.layout = std::move(layout);
  if (t.numel() != std::int64_t(values.size()))
    throw std::logic_error("make_tensor: " + std::to_string(values.size()) + " values for " +
                           std::to_string(t.numel()) + " elements");
  t.bytes.resize(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(t.bytes.data(), values.data(), t.bytes.size());  // little-endian host
  return t;
}

template <class T>
std::vector<T> values_of(const Tensor& t) {
  static_assert(is_storage_type_v<T>);
  check_element_size(t.dtype, sizeof(T), "values_of");
  std::vector<T> v(t.bytes.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), t.bytes.data(), v.size() * sizeof(T));
  return v;
}

}  // namespace octet::golden
