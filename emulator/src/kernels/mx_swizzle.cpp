// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// mx_swizzle.cpp — blocked scale layouts: to_blocked / from_blocked and the M-group, K-group and
// per-group-3D variants of torchao (`mx_formats/utils.py::to_blocked`,
// `moe_training/kernels/mxfp8/quant.py::torch_to_blocked_*`); reference/kernels.md §5.
// Every output tile is produced whole by one iteration, so the bytes do not depend on the
// OpenMP thread count.
#include "octet/kernels/mx_swizzle.hpp"

#include <algorithm>
#include <string>

namespace octet {
namespace {

void check_view(const View2D<const std::uint8_t>& v, const char* what) {
  require(v.rows >= 0 && v.cols >= 0, std::string(what) + ": negative shape (" + std::to_string(v.rows) + ", " +
                                          std::to_string(v.cols) + ")");
  require(v.data != nullptr || v.rows * v.cols == 0, std::string(what) + ": null data for a non-empty matrix");
}

// Writes one 512-byte tile: the scales S[row0 + r, col0 + c] for r < 128, c < 4, where rows at or
// past `row_end` and columns at or past `col_end` are padding (byte 0). Walks the tile in
// output order through the inverse map.
void write_tile(const View2D<const std::uint8_t>& s, std::int64_t row0, std::int64_t row_end, std::int64_t col0,
                std::int64_t col_end, std::uint8_t* tile) {
  for (std::int64_t w = 0; w < kScaleTileBytes; ++w) {
    const std::int64_t r = row0 + ((w % 16) / 4) * 32 + w / 16;
    const std::int64_t c = col0 + w % 4;
    tile[w] = (r < row_end && c < col_end) ? s(r, c) : std::uint8_t{0};
  }
}

template <class Int>
BlockedScaleGroups m_groups(View2D<const std::uint8_t> s, std::span<const Int> offs) {
  check_view(s, "scales");
  const Groups groups(offs, s.rows, 1, "offs");
  const std::int64_t G = groups.count();
  const std::int64_t wp = blocked_cols(s.cols), ncb = wp / kScaleTileCols;

  BlockedScaleGroups out;
  out.rows = s.rows + kScaleTileRows * G;
  out.cols = wp;
  out.bytes.assign(std::size_t(out.rows * out.cols), 0);
  out.group_starts.assign(std::size_t(G + 1), 0);

  // One task per (group, row block): R_g + 128·rb is where its 128 padded rows start.
  struct Task { std::int64_t first_row, row_end, out_row; };
  std::vector<Task> tasks;
  for (std::int64_t g = 0; g < G; ++g) {
    const std::int64_t padded = blocked_rows(groups.size(g));
    for (std::int64_t rb = 0; rb * kScaleTileRows < padded; ++rb)
      tasks.push_back({groups.begin(g) + rb * kScaleTileRows, groups.end(g), out.group_starts[g] + rb * kScaleTileRows});
    out.group_starts[g + 1] = out.group_starts[g] + padded;
  }
  const std::int64_t n_tasks = std::int64_t(tasks.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t t = 0; t < n_tasks; ++t) {
    std::uint8_t* dst = out.bytes.data() + tasks[t].out_row * wp;
    for (std::int64_t cb = 0; cb < ncb; ++cb)
      write_tile(s, tasks[t].first_row, tasks[t].row_end, cb * kScaleTileCols, s.cols, dst + cb * kScaleTileBytes);
  }
  return out;
}

template <class Int>
BlockedScaleGroups k_groups(View2D<const std::uint8_t> s, std::span<const Int> scale_offs) {
  check_view(s, "scales");
  const Groups groups(scale_offs, s.cols, 1, "scale_offs");
  const std::int64_t G = groups.count();
  const std::int64_t np = blocked_rows(s.rows), nrb = np / kScaleTileRows;

  BlockedScaleGroups out;
  out.rows = np;
  out.cols = s.cols + kScaleTileCols * G;
  out.bytes.assign(std::size_t(out.rows * out.cols), 0);
  out.group_starts.assign(std::size_t(G + 1), 0);
  for (std::int64_t g = 0; g < G; ++g) out.group_starts[g + 1] = out.group_starts[g] + blocked_cols(groups.size(g));

  // One task per (group, row block); inside a group's region (at C_g·Np) tile (rb, cb) sits at
  // rb·(ncb_g·512) + cb·512.
#pragma omp parallel for collapse(2) schedule(static)
  for (std::int64_t g = 0; g < G; ++g) {
    for (std::int64_t rb = 0; rb < nrb; ++rb) {
      const std::int64_t ncb_g = blocked_cols(groups.size(g)) / kScaleTileCols;
      std::uint8_t* region = out.bytes.data() + out.group_starts[g] * np;
      for (std::int64_t cb = 0; cb < ncb_g; ++cb)
        write_tile(s, rb * kScaleTileRows, s.rows, groups.begin(g) + cb * kScaleTileCols, groups.end(g),
                   region + (rb * ncb_g + cb) * kScaleTileBytes);
    }
  }
  return out;
}

template <class Int>
std::vector<std::int64_t> scale_offsets(std::span<const Int> offs, std::int64_t block_size) {
  require(block_size >= 1, "block_size must be >= 1, got " + std::to_string(block_size));
  // The grouped dimension's extent is unknown here; only monotonicity and alignment are checked.
  std::int64_t total = 0;
  for (const Int o : offs) total = std::max<std::int64_t>(total, std::int64_t(o));
  const Groups groups(offs, total, block_size, "offs");
  std::vector<std::int64_t> out(std::size_t(groups.count()));
  for (std::int64_t g = 0; g < groups.count(); ++g) {
    require(groups.end(g) >= 0, "offs[" + std::to_string(g) + "] is negative");
    out[std::size_t(g)] = groups.end(g) / block_size;
  }
  return out;
}

}  // namespace

void to_blocked(View2D<const std::uint8_t> scales, std::span<std::uint8_t> out) {
  check_view(scales, "scales");
  const std::int64_t hp = blocked_rows(scales.rows), wp = blocked_cols(scales.cols);
  require_equal(std::int64_t(out.size()), hp * wp, "to_blocked: out size (Hp·Wp bytes)");
  const std::int64_t nrb = hp / kScaleTileRows, ncb = wp / kScaleTileCols;
#pragma omp parallel for collapse(2) schedule(static)
  for (std::int64_t rb = 0; rb < nrb; ++rb)
    for (std::int64_t cb = 0; cb < ncb; ++cb)
      write_tile(scales, rb * kScaleTileRows, scales.rows, cb * kScaleTileCols, scales.cols,
                 out.data() + (rb * ncb + cb) * kScaleTileBytes);
}

std::vector<std::uint8_t> to_blocked(View2D<const std::uint8_t> scales) {
  check_view(scales, "scales");
  std::vector<std::uint8_t> out(std::size_t(blocked_rows(scales.rows) * blocked_cols(scales.cols)));
  to_blocked(scales, std::span<std::uint8_t>(out));
  return out;
}

std::vector<std::uint8_t> from_blocked(std::span<const std::uint8_t> blocked, std::int64_t rows, std::int64_t cols) {
  require(rows >= 0 && cols >= 0,
          "from_blocked: negative shape (" + std::to_string(rows) + ", " + std::to_string(cols) + ")");
  const std::int64_t ncb = blocked_cols(cols) / kScaleTileCols;
  require_equal(std::int64_t(blocked.size()), blocked_rows(rows) * blocked_cols(cols),
                "from_blocked: blocked size (Hp·Wp bytes)");
  std::vector<std::uint8_t> out(std::size_t(rows * cols));
#pragma omp parallel for schedule(static)
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) out[std::size_t(r * cols + c)] = blocked[std::size_t(blocked_offset(r, c, ncb))];
  return out;
}

BlockedScaleGroups to_blocked_m_groups(View2D<const std::uint8_t> scales, std::span<const std::int32_t> offs) {
  return m_groups(scales, offs);
}
BlockedScaleGroups to_blocked_m_groups(View2D<const std::uint8_t> scales, std::span<const std::int64_t> offs) {
  return m_groups(scales, offs);
}
BlockedScaleGroups to_blocked_k_groups(View2D<const std::uint8_t> scales, std::span<const std::int32_t> scale_offs) {
  return k_groups(scales, scale_offs);
}
BlockedScaleGroups to_blocked_k_groups(View2D<const std::uint8_t> scales, std::span<const std::int64_t> scale_offs) {
  return k_groups(scales, scale_offs);
}

std::vector<std::int64_t> k_group_scale_offsets(std::span<const std::int32_t> offs, std::int64_t block_size) {
  return scale_offsets(offs, block_size);
}
std::vector<std::int64_t> k_group_scale_offsets(std::span<const std::int64_t> offs, std::int64_t block_size) {
  return scale_offsets(offs, block_size);
}

std::vector<std::uint8_t> to_blocked_per_group_3d(View3D<const std::uint8_t> scales) {
  require(scales.experts >= 0 && scales.rows >= 0 && scales.cols >= 0,
          "scales: negative shape (" + std::to_string(scales.experts) + ", " + std::to_string(scales.rows) + ", " +
              std::to_string(scales.cols) + ")");
  require(scales.data != nullptr || scales.experts * scales.rows * scales.cols == 0,
          "scales: null data for a non-empty tensor");
  const std::int64_t hp = blocked_rows(scales.rows), wp = blocked_cols(scales.cols);
  const std::int64_t nrb = hp / kScaleTileRows, ncb = wp / kScaleTileCols, per_expert = hp * wp;
  std::vector<std::uint8_t> out(std::size_t(scales.experts * per_expert));
#pragma omp parallel for collapse(3) schedule(static)
  for (std::int64_t e = 0; e < scales.experts; ++e)
    for (std::int64_t rb = 0; rb < nrb; ++rb)
      for (std::int64_t cb = 0; cb < ncb; ++cb)
        write_tile(scales.expert(e), rb * kScaleTileRows, scales.rows, cb * kScaleTileCols, scales.cols,
                   out.data() + e * per_expert + (rb * ncb + cb) * kScaleTileBytes);
  return out;
}

}  // namespace octet
