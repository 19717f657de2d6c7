// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// expect_tensor.hpp — the adapter tests' tensor comparison: equal dtype, shape, layout, strides
// and bytes, with the first mismatching elements printed (flat index, coordinates, hex).
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "octet/golden/h5.hpp"

namespace octet::golden::testing_util {

inline std::string hex(const std::vector<std::uint8_t>& bytes, std::size_t at, std::size_t size) {
  std::string s = "0x";
  char buf[4];
  for (std::size_t b = size; b-- > 0;) {  // little-endian element
    std::snprintf(buf, sizeof buf, "%02x", bytes[at + b]);
    s += buf;
  }
  return s;
}

inline std::string coords(std::int64_t i, const std::vector<std::int64_t>& shape) {
  std::string s;
  for (std::size_t k = shape.size(); k-- > 0;) {
    const std::int64_t d = shape[k] > 0 ? shape[k] : 1;
    s = std::to_string(i % d) + (s.empty() ? "" : ", ") + s;
    i /= d;
  }
  return "(" + s + ")";
}

// Equal dtype, shape, layout, strides and bytes; the first mismatching elements are printed.
inline void expect_tensor(const Tensor& got, const Tensor& want, const std::string& what) {
  EXPECT_EQ(got.dtype, want.dtype) << what;
  EXPECT_EQ(got.shape, want.shape) << what;
  EXPECT_EQ(got.layout, want.layout) << what;
  EXPECT_EQ(got.strides, want.strides) << what;
  ASSERT_EQ(got.bytes.size(), want.bytes.size()) << what;
  const std::size_t size = std::size_t(lookup_dtype(want.dtype)->element_size);
  int shown = 0;
  for (std::size_t i = 0; i < want.bytes.size() && shown < 8; i += size)
    if (std::memcmp(&got.bytes[i], &want.bytes[i], size) != 0) {
      ADD_FAILURE() << what << ": element " << i / size << " " << coords(std::int64_t(i / size), want.shape)
                    << ": got " << hex(got.bytes, i, size) << ", want " << hex(want.bytes, i, size);
      ++shown;
    }
}

}  // namespace octet::golden::testing_util
