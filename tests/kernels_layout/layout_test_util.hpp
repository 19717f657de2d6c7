// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// layout_test_util.hpp — shared pieces of the layout-kernel tests: a seeded RNG, adversarial
// group offsets, byte-exact comparison whose failure names the first mismatches (flat index,
// coordinates, both bytes in hex), and an exception-message matcher.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace layout_test {

using Rng = std::mt19937_64;

inline std::vector<std::uint8_t> random_bytes(Rng& rng, std::size_t n) {
  std::vector<std::uint8_t> v(n);
  for (auto& b : v) b = std::uint8_t(rng() >> 56);
  return v;
}

// Group sizes that exercise the edge cases: empty groups first / middle / last, one-row groups,
// groups above 4096 rows, and plain random ones.
inline std::vector<std::int64_t> adversarial_sizes(Rng& rng, std::int64_t groups, std::int64_t max_small,
                                                   bool allow_huge) {
  std::vector<std::int64_t> sizes(static_cast<std::size_t>(groups));
  for (auto& s : sizes) {
    const auto pick = rng() % 10;
    if (pick < 2) s = 0;
    else if (pick < 3) s = 1;
    else if (pick < 4 && allow_huge) s = 4097 + std::int64_t(rng() % 1500);
    else s = 2 + std::int64_t(rng() % std::uint64_t(max_small));
  }
  if (groups >= 3) {
    sizes.front() = 0;
    sizes[std::size_t(groups / 2)] = 0;
    sizes.back() = 0;
  }
  return sizes;
}

template <class Int>
std::vector<Int> offs_from_sizes(const std::vector<std::int64_t>& sizes) {
  std::vector<Int> offs;
  std::int64_t end = 0;
  for (const auto s : sizes) offs.push_back(Int(end += s));
  return offs;
}

inline std::string hex2(std::uint8_t b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02X", unsigned(b));
  return buf;
}

// Byte-for-byte comparison. `coords(flat)` describes where a flat byte index lies.
inline ::testing::AssertionResult bytes_equal(const std::vector<std::uint8_t>& got, const std::vector<std::uint8_t>& want,
                                              const std::function<std::string(std::size_t)>& coords,
                                              const std::string& what) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << what << ": size " << got.size() << " bytes, want " << want.size();
  std::size_t mismatches = 0;
  std::string report;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i] == want[i]) continue;
    if (++mismatches <= 8)
      report += "\n  flat " + std::to_string(i) + " (" + coords(i) + "): got " + hex2(got[i]) + " want " + hex2(want[i]);
  }
  if (mismatches == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": " << mismatches << " of " << got.size()
                                       << " bytes differ; first mismatches:" << report;
}

// Coordinates of a flat byte index in a (rows, cols) matrix of `element_bytes`-byte elements.
inline std::function<std::string(std::size_t)> matrix_coords(std::int64_t cols, std::int64_t element_bytes = 1) {
  return [=](std::size_t flat) {
    const std::int64_t row_bytes = cols * element_bytes;
    if (row_bytes == 0) return std::string("empty row");
    const std::int64_t r = std::int64_t(flat) / row_bytes, rem = std::int64_t(flat) % row_bytes;
    std::string s = "row " + std::to_string(r) + ", col " + std::to_string(rem / element_bytes);
    if (element_bytes > 1) s += ", byte " + std::to_string(rem % element_bytes);
    return s;
  };
}

// Runs `f`, which must throw std::invalid_argument whose message contains `needle`.
template <class F>
::testing::AssertionResult throws_naming(F&& f, const std::string& needle) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()).find(needle) != std::string::npos) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "message \"" << e.what() << "\" does not name \"" << needle << "\"";
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw a different exception: " << e.what();
  }
  return ::testing::AssertionFailure() << "did not throw (expected an error naming \"" << needle << "\")";
}

// Thread counts to check determinism with.
inline const std::vector<int> kThreadCounts{1, 2, 3};

}  // namespace layout_test
