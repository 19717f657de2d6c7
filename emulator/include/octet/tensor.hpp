// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// tensor.hpp — the shapes, layouts and group offsets the kernels take (reference/kernels.md §0).
//
// Views are non-owning: a pointer, a shape and strides in elements. Names carry the layout
// (`x_m_k`, `w_e_k_n`). Kernels validate their arguments and throw std::invalid_argument with a
// message that names the argument; the CLI turns that into exit code 2.
#pragma once

#include <bit>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "octet/format.hpp"

namespace octet {

// Input element types of the kernels: raw bits for bf16, float for fp32.
enum class InputType : std::uint8_t { fp32, bf16 };

// A 2D view. Row-major (M, K): strides (K, 1). Column-major (M, K): strides (1, M).
template <class T>
struct View2D {
  T* data = nullptr;
  std::int64_t rows = 0, cols = 0;
  std::int64_t row_stride = 0, col_stride = 1;  // in elements

  T& operator()(std::int64_t r, std::int64_t c) const { return data[r * row_stride + c * col_stride]; }
  static View2D row_major(T* p, std::int64_t rows, std::int64_t cols) { return {p, rows, cols, cols, 1}; }
  static View2D col_major(T* p, std::int64_t rows, std::int64_t cols) { return {p, rows, cols, 1, rows}; }
};

// A 3D view (E, R, C). Per-expert column-major (E, K, N): strides (K·N, 1, K) (kernels.md §0).
template <class T>
struct View3D {
  T* data = nullptr;
  std::int64_t experts = 0, rows = 0, cols = 0;
  std::int64_t expert_stride = 0, row_stride = 0, col_stride = 1;

  T& operator()(std::int64_t e, std::int64_t r, std::int64_t c) const {
    return data[e * expert_stride + r * row_stride + c * col_stride];
  }
  View2D<T> expert(std::int64_t e) const { return {data + e * expert_stride, rows, cols, row_stride, col_stride}; }
  static View3D row_major(T* p, std::int64_t e, std::int64_t r, std::int64_t c) { return {p, e, r, c, r * c, c, 1}; }
  static View3D col_major_per_expert(T* p, std::int64_t e, std::int64_t r, std::int64_t c) {
    return {p, e, r, c, r * c, 1, r};
  }
};

// Group boundaries from `offs`, the inclusive cumulative group ends (torch `_scaled_grouped_mm`):
// group g covers [begin(g), end(g)); empty groups are legal. Validated on construction.
class Groups {
 public:
  // `total` is the extent of the grouped dimension; `offs` may end below it (rows past offs[-1]
  // belong to no group) but never above. `alignment` > 1 also requires every group size to be a
  // multiple of it. `what` names the argument in error messages (e.g. "offs").
  template <class Int>
  Groups(std::span<const Int> offs, std::int64_t total, std::int64_t alignment = 1, const char* what = "offs") {
    ends_.reserve(offs.size());
    std::int64_t prev = 0;
    for (std::size_t g = 0; g < offs.size(); ++g) {
      const std::int64_t end = std::int64_t(offs[g]);
      if (end < prev)
        throw std::invalid_argument(std::string(what) + " is not monotonic: " + what + "[" + std::to_string(g) +
                                    "] = " + std::to_string(end) + " < " + std::to_string(prev));
      if (end > total)
        throw std::invalid_argument(std::string(what) + "[" + std::to_string(g) + "] = " + std::to_string(end) +
                                    " is beyond the grouped dimension (" + std::to_string(total) + ")");
      if (alignment > 1 && (end - prev) % alignment != 0)
        throw std::invalid_argument(std::string(what) + ": group " + std::to_string(g) + " has " +
                                    std::to_string(end - prev) + " rows, not a multiple of " +
                                    std::to_string(alignment));
      ends_.push_back(end);
      prev = end;
    }
  }
  std::int64_t count() const { return std::int64_t(ends_.size()); }
  std::int64_t begin(std::int64_t g) const { return g == 0 ? 0 : ends_[std::size_t(g - 1)]; }
  std::int64_t end(std::int64_t g) const { return ends_[std::size_t(g)]; }
  std::int64_t size(std::int64_t g) const { return end(g) - begin(g); }
  std::int64_t total() const { return ends_.empty() ? 0 : ends_.back(); }  // offs[-1]

 private:
  std::vector<std::int64_t> ends_;
};

// Throws std::invalid_argument("<what>: expected <want>, got <got>") when a ≠ b.
inline void require_equal(std::int64_t got, std::int64_t want, const std::string& what) {
  if (got != want)
    throw std::invalid_argument(what + ": expected " + std::to_string(want) + ", got " + std::to_string(got));
}
inline void require(bool ok, const std::string& message) {
  if (!ok) throw std::invalid_argument(message);
}

// bf16 bits <-> float, exactly (bf16 -> fp32 is a shift; fp32 -> bf16 is RNE, octet's converter).
inline float bf16_to_float(std::uint16_t b) { return std::bit_cast<float>(std::uint32_t(b) << 16); }

}  // namespace octet
