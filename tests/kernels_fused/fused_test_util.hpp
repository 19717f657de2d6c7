// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// fused_test_util.hpp — shared pieces of the family 7-8 tests: seeded inputs (random and
// adversarial, bf16 bits or fp32), the byte-exact comparison whose failure names the first
// mismatches (flat index, coordinates, both sides in hex, decoded values), an exception-message
// check, and a thread-count guard.
#pragma once

#include <gtest/gtest.h>
#include <omp.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "octet/cast.hpp"
#include "octet/tensor.hpp"

namespace fused_test {

using Rng = std::mt19937_64;

// fp32 -> bf16 bits by octet's converter (RNE), the way every input is made.
inline std::uint16_t to_bf16(float v) {
  return std::uint16_t(octet::encode(octet::bf16_format, octet::CastSpec{.overflow = octet::Overflow::Ieee}, v));
}
inline float load(float v) { return v; }
inline float load(std::uint16_t b) { return octet::bf16_to_float(b); }

template <class In>
In from_float(float v) {
  if constexpr (std::is_same_v<In, float>) return v;
  else return to_bf16(v);
}
template <class In>
const char* type_name() {
  return std::is_same_v<In, float> ? "fp32" : "bf16";
}

// Gaussian values, each row at its own power-of-two magnitude 2^[-8, 8).
template <class In>
std::vector<In> random_matrix(Rng& rng, std::int64_t rows, std::int64_t cols, float sigma = 1.0f) {
  std::normal_distribution<float> normal(0.0f, sigma);
  std::vector<In> v(std::size_t(rows * cols));
  for (std::int64_t r = 0; r < rows; ++r) {
    const float scale = std::ldexp(1.0f, int(rng() % 16) - 8);
    for (std::int64_t c = 0; c < cols; ++c) v[std::size_t(r * cols + c)] = from_float<In>(normal(rng) * scale);
  }
  return v;
}

// Special values sprinkled over a matrix: NaN (both signs), ±Inf, subnormals of the dtype, ±0,
// values near the dtype's max; some rows entirely zero (zero blocks) and some rows tiny.
template <class In>
void sprinkle_specials(Rng& rng, std::vector<In>& v, std::int64_t rows, std::int64_t cols) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const float sub = std::is_same_v<In, float> ? std::numeric_limits<float>::denorm_min() : std::ldexp(1.0f, -133);
  const float big = std::is_same_v<In, float> ? 3.0e38f : 3.3e38f;
  const float specials[] = {nan, -nan, inf, -inf, sub, -sub, 7 * sub, 0.0f, -0.0f, big, -big, 1e-30f, 448.0f, 480.0f};
  for (auto& e : v)
    if (rng() % 23 == 0) e = from_float<In>(specials[rng() % std::size(specials)]);
  for (std::int64_t r = 0; r < rows; ++r) {
    const auto pick = rng() % 7;
    if (pick == 0)
      for (std::int64_t c = 0; c < cols; ++c) v[std::size_t(r * cols + c)] = from_float<In>(0.0f);
    else if (pick == 1)
      for (std::int64_t c = 0; c < cols; ++c) v[std::size_t(r * cols + c)] = from_float<In>(sub * float(1 + rng() % 5));
  }
}

inline std::string hex(std::uint64_t v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%0*llX", digits, static_cast<unsigned long long>(v));
  return buf;
}

// Element-wise bit comparison. `cols` turns a flat index into (row, col); `decode` renders a value.
// Prints at most 10 mismatches (index, coordinates, hex on both sides, decoded values) and the
// number of mismatches; returns true when every element matches.
template <class T>
::testing::AssertionResult bits_equal(const std::string& what, const std::vector<T>& got, const std::vector<T>& want,
                                      std::int64_t cols, std::function<std::string(T)> decode = {}) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << what << ": size " << got.size() << " != " << want.size();
  std::ostringstream msg;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    std::uint64_t g = 0, w = 0;
    if constexpr (std::is_same_v<T, float>) {
      g = std::bit_cast<std::uint32_t>(got[i]), w = std::bit_cast<std::uint32_t>(want[i]);
    } else {
      g = std::uint64_t(got[i]), w = std::uint64_t(want[i]);
    }
    if (g == w) continue;
    if (++bad <= 10) {
      const std::int64_t row = cols > 0 ? std::int64_t(i) / cols : 0, col = cols > 0 ? std::int64_t(i) % cols : 0;
      msg << "\n  " << what << ": mismatch at flat " << i << " (row " << row << ", col " << col << "): got "
          << hex(g, int(2 * sizeof(T))) << " want " << hex(w, int(2 * sizeof(T)));
      if (decode) msg << " (" << decode(got[i]) << " vs " << decode(want[i]) << ")";
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << got.size() << " elements differ" << msg.str();
}

inline std::string show_float(float v) {
  std::ostringstream s;
  s << v;
  return s.str();
}
inline std::string show_bf16(std::uint16_t b) { return show_float(octet::bf16_to_float(b)); }
template <class In>
std::function<std::string(In)> show_input() {
  if constexpr (std::is_same_v<In, float>) return show_float;
  else return show_bf16;
}

// Runs f and checks that it throws std::invalid_argument whose message contains every needle.
template <class F>
::testing::AssertionResult throws_naming(F&& f, std::initializer_list<const char*> needles) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    const std::string m = e.what();
    for (const char* n : needles)
      if (m.find(n) == std::string::npos)
        return ::testing::AssertionFailure() << "message '" << m << "' does not name '" << n << "'";
    return ::testing::AssertionSuccess();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw a different exception: " << e.what();
  }
  return ::testing::AssertionFailure() << "did not throw";
}

// Sets the OpenMP thread count for a scope.
class Threads {
 public:
  explicit Threads(int n) : saved_(omp_get_max_threads()) { omp_set_num_threads(n); }
  ~Threads() { omp_set_num_threads(saved_); }

 private:
  int saved_;
};

}  // namespace fused_test
