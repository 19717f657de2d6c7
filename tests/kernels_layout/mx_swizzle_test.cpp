// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// mx_swizzle_test.cpp — the blocked scale layouts (reference/kernels.md §5) against deliberately
// naive references: torchao's torch code written out with index loops, i.e. pad, then
// `padded.view(nrb,128,ncb,4).permute(0,2,1,3)`, `.reshape(-1,4,32,4).transpose(1,2)
// .reshape(-1,32,16)`, flatten — each view op a generic strided copy, with no closed-form index.
// Every comparison is byte for byte.
#include <gtest/gtest.h>
#include <omp.h>

#include <numeric>

#include "layout_test_util.hpp"
#include "octet/kernels/mx_swizzle.hpp"

namespace {

using namespace layout_test;
using octet::View2D;
using octet::View3D;

// ----------------------------------------------------------------------------
// Naive reference: a contiguous n-d array with torch's view / permute / transpose.

template <class T>
struct Nd {
  std::vector<std::int64_t> shape;
  std::vector<T> v;
};

template <class T>
Nd<T> view(Nd<T> a, std::vector<std::int64_t> shape) {
  std::int64_t known = 1, infer = -1;
  for (std::size_t i = 0; i < shape.size(); ++i)
    if (shape[i] == -1) infer = std::int64_t(i);
    else known *= shape[i];
  if (infer >= 0) shape[std::size_t(infer)] = known == 0 ? 0 : std::int64_t(a.v.size()) / known;
  std::int64_t n = 1;
  for (const auto s : shape) n *= s;
  EXPECT_EQ(n, std::int64_t(a.v.size())) << "view: element count";
  a.shape = shape;
  return a;
}

// out[i0, i1, …] = a[i_{dims^-1}…]: out dimension d is a's dimension dims[d]. Materialised.
template <class T>
Nd<T> permute(const Nd<T>& a, const std::vector<int>& dims) {
  const std::size_t n = a.shape.size();
  std::vector<std::int64_t> a_stride(n, 1);
  for (std::size_t d = n - 1; d-- > 0;) a_stride[d] = a_stride[d + 1] * a.shape[d + 1];
  Nd<T> out;
  for (const int d : dims) out.shape.push_back(a.shape[std::size_t(d)]);
  out.v.resize(a.v.size());
  std::vector<std::int64_t> idx(n, 0);
  for (std::size_t flat = 0; flat < out.v.size(); ++flat) {
    std::int64_t src = 0;
    for (std::size_t d = 0; d < n; ++d) src += idx[d] * a_stride[std::size_t(dims[d])];
    out.v[flat] = a.v[std::size_t(src)];
    for (std::size_t d = n; d-- > 0;) {  // odometer over the output's index
      if (++idx[d] < out.shape[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

template <class T>
Nd<T> transpose(const Nd<T>& a, int d0, int d1) {
  std::vector<int> dims(a.shape.size());
  std::iota(dims.begin(), dims.end(), 0);
  std::swap(dims[std::size_t(d0)], dims[std::size_t(d1)]);
  return permute(a, dims);
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// torchao mx_formats/utils.py::to_blocked, op for op. `in` is (rows, cols) row-major.
template <class T>
std::vector<T> torch_to_blocked(const std::vector<T>& in, std::int64_t rows, std::int64_t cols) {
  const std::int64_t nrb = ceil_div(rows, 128), ncb = ceil_div(cols, 4);
  const std::int64_t prow = nrb * 128, pcol = ncb * 4;
  if (prow * pcol == 0) return {};
  Nd<T> padded{{prow, pcol}, std::vector<T>(std::size_t(prow * pcol), T{0})};
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) padded.v[std::size_t(r * pcol + c)] = in[std::size_t(r * cols + c)];
  const Nd<T> blocks = permute(view(padded, {nrb, 128, ncb, 4}), {0, 2, 1, 3});
  const Nd<T> rearranged = view(transpose(view(blocks, {-1, 4, 32, 4}), 1, 2), {-1, 32, 16});
  return rearranged.v;  // .flatten()
}

std::vector<std::uint8_t> slice_rows(const std::vector<std::uint8_t>& s, std::int64_t cols, std::int64_t r0,
                                     std::int64_t r1) {
  return {s.begin() + r0 * cols, s.begin() + r1 * cols};
}
std::vector<std::uint8_t> slice_cols(const std::vector<std::uint8_t>& s, std::int64_t rows, std::int64_t cols,
                                     std::int64_t c0, std::int64_t c1) {
  std::vector<std::uint8_t> out;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = c0; c < c1; ++c) out.push_back(s[std::size_t(r * cols + c)]);
  return out;
}

struct RefGroups {
  std::vector<std::uint8_t> bytes;
  std::vector<std::int64_t> starts;
};

// quant.py::torch_to_blocked_2d_M_groups, with the output width Wp of the Triton kernel (the
// torch code reshapes to the unpadded width, which only works when W % 4 == 0).
RefGroups torch_m_groups(const std::vector<std::uint8_t>& s, std::int64_t rows, std::int64_t cols,
                         const std::vector<std::int64_t>& offs) {
  const std::int64_t G = std::int64_t(offs.size()), wp = ceil_div(cols, 4) * 4;
  RefGroups out{std::vector<std::uint8_t>(std::size_t((rows + G * 128) * wp), 0), {0}};
  std::int64_t group_start = 0;
  for (std::int64_t g = 0; g < G; ++g) {
    const std::int64_t group_end = offs[std::size_t(g)], size = group_end - group_start;
    const std::int64_t prev = out.starts[std::size_t(g)];
    if (size == 0) {
      out.starts.push_back(prev);
      continue;
    }
    const auto blocked = torch_to_blocked(slice_rows(s, cols, group_start, group_end), size, cols);
    out.starts.push_back(prev + std::int64_t(blocked.size()) / wp);
    std::copy(blocked.begin(), blocked.end(), out.bytes.begin() + prev * wp);  // rows [prev, prev + padded)
    group_start = group_end;
  }
  return out;
}

// quant.py::torch_to_blocked_2d_K_groups (fixed in pytorch/ao #3600/#3603): tile by tile.
RefGroups torch_k_groups(const std::vector<std::uint8_t>& s, std::int64_t rows, std::int64_t cols,
                         const std::vector<std::int64_t>& offs) {
  const std::int64_t G = std::int64_t(offs.size()), padded_m = ceil_div(rows, 128) * 128;
  RefGroups out{std::vector<std::uint8_t>(std::size_t(padded_m * (cols + G * 4)), 0), {0}};
  std::int64_t group_start = 0;
  for (std::int64_t g = 0; g < G; ++g) {
    const std::int64_t group_end = offs[std::size_t(g)], size = group_end - group_start;
    const std::int64_t prev = out.starts[std::size_t(g)];
    if (size == 0) {
      out.starts.push_back(prev);
      continue;
    }
    const auto blocked = torch_to_blocked(slice_cols(s, rows, cols, group_start, group_end), rows, size);
    const std::int64_t cols_after = ceil_div(size, 4) * 4, nrb = ceil_div(rows, 128), ncb = cols_after / 4;
    const std::int64_t base = prev * padded_m;
    for (std::int64_t rb = 0; rb < nrb; ++rb)
      for (std::int64_t cb = 0; cb < ncb; ++cb) {
        const auto src = blocked.begin() + (rb * ncb + cb) * 512;  // view(nrb, ncb, -1)[rb, cb]
        std::copy(src, src + 512, out.bytes.begin() + base + rb * ncb * 512 + cb * 512);
      }
    out.starts.push_back(prev + cols_after);
    group_start = group_end;
  }
  return out;
}

// Coordinates inside a blocked buffer: tile and in-tile offset.
std::function<std::string(std::size_t)> blocked_coords() {
  return [](std::size_t f) { return "tile " + std::to_string(f / 512) + ", byte " + std::to_string(f % 512); };
}

struct Shape {
  std::int64_t rows, cols;
};
const std::vector<Shape> kShapes{{1, 1},   {1, 4},     {5, 3},   {31, 2},   {127, 4},  {128, 4},  {129, 5},
                                 {256, 8}, {300, 7},   {33, 161}, {1000, 13}, {520, 160}, {0, 5},  {5, 0}};

std::string shape_str(Shape s) {
  std::string out = "(";  // appended piecewise: GCC 12 -Wrestrict misfires on "(" + std::string
  out += std::to_string(s.rows);
  out += ", ";
  out += std::to_string(s.cols);
  return out + ")";
}

// ----------------------------------------------------------------------------
// Whole-matrix layout

TEST(ToBlocked, ClosedFormIndexMatchesNaiveReshape) {
  for (const Shape s : kShapes) {
    const std::int64_t hp = octet::blocked_rows(s.rows), wp = octet::blocked_cols(s.cols), ncb = wp / 4;
    std::vector<std::int64_t> where(std::size_t(hp * wp));  // every padded position labels itself
    std::iota(where.begin(), where.end(), 0);
    const auto moved = torch_to_blocked(where, hp, wp);
    ASSERT_EQ(std::int64_t(moved.size()), hp * wp) << shape_str(s);
    for (std::int64_t f = 0; f < hp * wp; ++f) {
      const std::int64_t r = moved[std::size_t(f)] / wp, c = moved[std::size_t(f)] % wp;
      ASSERT_EQ(octet::blocked_offset(r, c, ncb), f) << shape_str(s) << " forward map at (" << r << ", " << c << ")";
      ASSERT_EQ(octet::blocked_position(f, ncb), (octet::ScalePosition{r, c})) << shape_str(s) << " inverse at " << f;
    }
  }
}

TEST(ToBlocked, RowInterleaveOfOneTile) {  // TE mxfp8.rst: rows 0, 32, 64, 96, 1, 33, … per 16 bytes
  EXPECT_EQ(octet::blocked_offset(0, 0, 1), 0);
  EXPECT_EQ(octet::blocked_offset(32, 0, 1), 4);
  EXPECT_EQ(octet::blocked_offset(64, 0, 1), 8);
  EXPECT_EQ(octet::blocked_offset(96, 3, 1), 15);
  EXPECT_EQ(octet::blocked_offset(1, 0, 1), 16);
  EXPECT_EQ(octet::blocked_offset(127, 3, 1), 511);
  EXPECT_EQ(octet::blocked_offset(0, 4, 2), 512);    // next tile column
  EXPECT_EQ(octet::blocked_offset(128, 0, 2), 1024);  // next tile row
}

TEST(ToBlocked, MatchesTorchReference) {
  Rng rng(20260101);
  for (const Shape s : kShapes) {
    const auto in = random_bytes(rng, std::size_t(s.rows * s.cols));
    const auto got = octet::to_blocked(View2D<const std::uint8_t>::row_major(in.data(), s.rows, s.cols));
    EXPECT_TRUE(bytes_equal(got, torch_to_blocked(in, s.rows, s.cols), blocked_coords(), "to_blocked " + shape_str(s)));
  }
}

TEST(ToBlocked, PadBytesAreZero) {
  const std::int64_t rows = 130, cols = 5, wp = 8, ncb = 2;
  const std::vector<std::uint8_t> in(std::size_t(rows * cols), 0xFF);
  const auto got = octet::to_blocked(View2D<const std::uint8_t>::row_major(in.data(), rows, cols));
  ASSERT_EQ(got.size(), std::size_t(256 * wp));
  for (std::size_t f = 0; f < got.size(); ++f) {
    const auto p = octet::blocked_position(std::int64_t(f), ncb);
    const bool real = p.row < rows && p.col < cols;
    ASSERT_EQ(got[f], real ? 0xFF : 0x00) << "flat " << f << " (row " << p.row << ", col " << p.col << ")";
  }
}

TEST(ToBlocked, StridedViewEqualsContiguous) {
  Rng rng(7);
  const std::int64_t rows = 300, cols = 7;
  const auto in = random_bytes(rng, std::size_t(rows * cols));
  std::vector<std::uint8_t> col_major(in.size());
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) col_major[std::size_t(c * rows + r)] = in[std::size_t(r * cols + c)];
  const auto a = octet::to_blocked(View2D<const std::uint8_t>::row_major(in.data(), rows, cols));
  const auto b = octet::to_blocked(View2D<const std::uint8_t>::col_major(col_major.data(), rows, cols));
  EXPECT_TRUE(bytes_equal(b, a, blocked_coords(), "column-major view"));
}

TEST(ToBlocked, CallerBufferOverload) {
  Rng rng(8);
  const auto in = random_bytes(rng, 129 * 5);
  const auto view = View2D<const std::uint8_t>::row_major(in.data(), 129, 5);
  std::vector<std::uint8_t> out(256 * 8, 0xAB);  // every byte must be overwritten
  octet::to_blocked(view, std::span<std::uint8_t>(out));
  EXPECT_TRUE(bytes_equal(out, octet::to_blocked(view), blocked_coords(), "caller buffer"));
}

TEST(FromBlocked, InvertsToBlocked) {
  Rng rng(9);
  for (const Shape s : kShapes) {
    const auto in = random_bytes(rng, std::size_t(s.rows * s.cols));
    const auto blocked = octet::to_blocked(View2D<const std::uint8_t>::row_major(in.data(), s.rows, s.cols));
    EXPECT_TRUE(bytes_equal(octet::from_blocked(blocked, s.rows, s.cols), in, matrix_coords(s.cols),
                            "from_blocked(to_blocked(x)) " + shape_str(s)));
  }
}

TEST(FromBlocked, MatchesNaiveInverse) {  // the inverse taken from the naive reshape of position labels
  Rng rng(10);
  for (const Shape s : kShapes) {
    const std::int64_t hp = octet::blocked_rows(s.rows), wp = octet::blocked_cols(s.cols);
    std::vector<std::int64_t> label(std::size_t(s.rows * s.cols));  // 1 + row-major index; padding 0
    std::iota(label.begin(), label.end(), 1);
    const auto where = torch_to_blocked(label, s.rows, s.cols);
    const auto blocked = random_bytes(rng, std::size_t(hp * wp));
    std::vector<std::uint8_t> want(std::size_t(s.rows * s.cols));
    for (std::size_t f = 0; f < where.size(); ++f)
      if (where[f] != 0) want[std::size_t(where[f] - 1)] = blocked[f];
    EXPECT_TRUE(bytes_equal(octet::from_blocked(blocked, s.rows, s.cols), want, matrix_coords(s.cols),
                            "from_blocked " + shape_str(s)));
  }
}

// ----------------------------------------------------------------------------
// Grouped layouts

struct GroupCase {
  std::int64_t groups, cols, max_small, extra_rows;
  bool huge;
};

TEST(ToBlockedMGroups, MatchesTorchReference) {
  Rng rng(11);
  const std::vector<GroupCase> cases{{1, 4, 300, 0, false},  {2, 3, 200, 5, false},  {3, 7, 130, 0, true},
                                     {7, 160, 300, 17, false}, {16, 5, 260, 0, true}, {64, 12, 200, 3, false},
                                     {128, 4, 150, 129, false}, {128, 1, 40, 0, false}};
  for (const auto& gc : cases) {
    const auto sizes = adversarial_sizes(rng, gc.groups, gc.max_small, gc.huge);
    const auto offs = offs_from_sizes<std::int64_t>(sizes);
    const std::int64_t rows = offs.back() + gc.extra_rows;  // rows past offs[-1] belong to no group
    const auto s = random_bytes(rng, std::size_t(rows * gc.cols));
    const auto view = View2D<const std::uint8_t>::row_major(s.data(), rows, gc.cols);
    const auto want = torch_m_groups(s, rows, gc.cols, offs);
    const auto got = octet::to_blocked_m_groups(view, std::span<const std::int64_t>(offs));
    const std::string what = "M-groups G=" + std::to_string(gc.groups) + " W=" + std::to_string(gc.cols);
    EXPECT_EQ(got.rows, rows + 128 * gc.groups) << what;
    EXPECT_EQ(got.cols, octet::blocked_cols(gc.cols)) << what;
    EXPECT_TRUE(bytes_equal(got.bytes, want.bytes, matrix_coords(got.cols), what));
    EXPECT_EQ(got.group_starts, want.starts) << what;
    const auto offs32 = offs_from_sizes<std::int32_t>(sizes);  // the int32 overload agrees
    EXPECT_EQ(octet::to_blocked_m_groups(view, std::span<const std::int32_t>(offs32)).bytes, got.bytes) << what;
  }
}

TEST(ToBlockedMGroups, EmptyGroupsTakeNoRowsAndTailRowsAreIgnored) {
  const std::int64_t cols = 4;
  const std::vector<std::int64_t> offs{0, 1, 1, 130, 130};  // empty first, middle, last; a one-row group
  const std::int64_t rows = 200;                             // 70 rows past offs[-1]
  const std::vector<std::uint8_t> s(std::size_t(rows * cols), 0x7F);
  const auto got = octet::to_blocked_m_groups(View2D<const std::uint8_t>::row_major(s.data(), rows, cols),
                                              std::span<const std::int64_t>(offs));
  EXPECT_EQ(got.group_starts, (std::vector<std::int64_t>{0, 0, 128, 128, 384, 384}));
  // Nonzero bytes: the one real row of group 1 (4 bytes) and the 129 rows of group 3.
  std::int64_t nonzero = 0;
  for (const auto b : got.bytes) nonzero += b != 0;
  EXPECT_EQ(nonzero, 4 * (1 + 129));
  for (std::int64_t f = 384 * 4; f < std::int64_t(got.bytes.size()); ++f) ASSERT_EQ(got.bytes[std::size_t(f)], 0) << f;
}

TEST(ToBlockedMGroups, MultiplesOf128EqualWholeMatrix) {  // why the CuTeDSL kernel asserts % 128 (§5)
  Rng rng(12);
  const std::vector<std::int64_t> offs{128, 384, 384, 1024};
  const std::int64_t cols = 10;
  const auto s = random_bytes(rng, std::size_t(1024 * cols));
  const auto view = View2D<const std::uint8_t>::row_major(s.data(), 1024, cols);
  const auto grouped = octet::to_blocked_m_groups(view, std::span<const std::int64_t>(offs));
  const auto whole = octet::to_blocked(view);
  const std::vector<std::uint8_t> prefix(grouped.bytes.begin(), grouped.bytes.begin() + std::int64_t(whole.size()));
  EXPECT_TRUE(bytes_equal(prefix, whole, blocked_coords(), "M-groups prefix vs whole matrix"));
}

TEST(ToBlockedKGroups, MatchesTorchReference) {
  Rng rng(13);
  struct KCase {
    std::int64_t rows, groups, max_small, extra_cols;
  };
  const std::vector<KCase> cases{{1, 1, 20, 0},    {100, 2, 30, 3},  {128, 4, 9, 0},   {300, 7, 40, 2},
                                 {256, 16, 200, 0}, {33, 64, 12, 5}, {129, 128, 10, 0}, {512, 8, 160, 0}};
  for (const auto& kc : cases) {
    const auto sizes = adversarial_sizes(rng, kc.groups, kc.max_small, false);
    const auto offs = offs_from_sizes<std::int64_t>(sizes);
    const std::int64_t cols = offs.back() + kc.extra_cols;
    const auto s = random_bytes(rng, std::size_t(kc.rows * cols));
    const auto view = View2D<const std::uint8_t>::row_major(s.data(), kc.rows, cols);
    const auto want = torch_k_groups(s, kc.rows, cols, offs);
    const auto got = octet::to_blocked_k_groups(view, std::span<const std::int64_t>(offs));
    const std::string what = "K-groups N=" + std::to_string(kc.rows) + " G=" + std::to_string(kc.groups);
    EXPECT_EQ(got.rows, octet::blocked_rows(kc.rows)) << what;
    EXPECT_EQ(got.cols, cols + 4 * kc.groups) << what;
    EXPECT_TRUE(bytes_equal(got.bytes, want.bytes, matrix_coords(got.cols), what));
    EXPECT_EQ(got.group_starts, want.starts) << what;
  }
}

TEST(ToBlockedKGroups, GroupsAbove4096TokensAndTokenOffsets) {
  Rng rng(14);
  // Token groups of 0, 4128, 32, 0, 5120 and 0 rows -> scale columns 0, 129, 1, 0, 160, 0.
  const std::vector<std::int32_t> token_offs{0, 4128, 4160, 4160, 9280, 9280};
  const auto scale_offs = octet::k_group_scale_offsets(std::span<const std::int32_t>(token_offs));
  EXPECT_EQ(scale_offs, (std::vector<std::int64_t>{0, 129, 130, 130, 290, 290}));
  const std::int64_t rows = 200, cols = 290;
  const auto s = random_bytes(rng, std::size_t(rows * cols));
  const auto got = octet::to_blocked_k_groups(View2D<const std::uint8_t>::row_major(s.data(), rows, cols),
                                              std::span<const std::int64_t>(scale_offs));
  const auto want = torch_k_groups(s, rows, cols, scale_offs);
  EXPECT_TRUE(bytes_equal(got.bytes, want.bytes, matrix_coords(got.cols), "K-groups > 4096 tokens"));
  EXPECT_EQ(got.group_starts, (std::vector<std::int64_t>{0, 0, 132, 136, 136, 296, 296}));
}

TEST(ToBlockedKGroups, TokenOffsetsNotMultipleOf32AreRejected) {  // pytorch/ao #3636: a group of 44
  const std::vector<std::int32_t> token_offs{64, 108};
  EXPECT_TRUE(throws_naming([&] { octet::k_group_scale_offsets(std::span<const std::int32_t>(token_offs)); }, "offs"));
  EXPECT_TRUE(throws_naming([&] { octet::k_group_scale_offsets(std::span<const std::int32_t>(token_offs), 0); },
                            "block_size"));
}

TEST(ToBlockedPerGroup3d, MatchesTorchReference) {
  Rng rng(15);
  const std::vector<std::array<std::int64_t, 3>> shapes{{1, 128, 4}, {3, 129, 5}, {8, 40, 160}, {2, 300, 7}, {4, 0, 3}};
  for (const auto& [e, rows, cols] : shapes) {
    const auto s = random_bytes(rng, std::size_t(e * rows * cols));
    std::vector<std::uint8_t> want;
    for (std::int64_t i = 0; i < e; ++i) {
      const std::vector<std::uint8_t> one(s.begin() + i * rows * cols, s.begin() + (i + 1) * rows * cols);
      const auto b = torch_to_blocked(one, rows, cols);
      want.insert(want.end(), b.begin(), b.end());  // torch.stack(...).reshape(E, -1)
    }
    const auto got = octet::to_blocked_per_group_3d(View3D<const std::uint8_t>::row_major(s.data(), e, rows, cols));
    const std::int64_t per = octet::blocked_rows(rows) * octet::blocked_cols(cols);
    EXPECT_TRUE(bytes_equal(got, want, matrix_coords(per), "per-group 3D E=" + std::to_string(e)));
  }
}

// ----------------------------------------------------------------------------
// Determinism and misuse

TEST(MxSwizzle, SameBytesForAnyThreadCount) {
  Rng rng(16);
  const auto sizes = adversarial_sizes(rng, 16, 700, true);
  const auto offs = offs_from_sizes<std::int64_t>(sizes);
  const std::int64_t rows = offs.back() + 3, cols = 37;
  const auto s = random_bytes(rng, std::size_t(rows * cols));
  const auto view = View2D<const std::uint8_t>::row_major(s.data(), rows, cols);
  const std::vector<std::int64_t> koffs{0, 9, 9, 30, 37};
  const int saved = omp_get_max_threads();
  std::vector<std::vector<std::uint8_t>> runs;
  for (const int n : kThreadCounts) {
    omp_set_num_threads(n);
    auto out = octet::to_blocked(view);
    const auto m = octet::to_blocked_m_groups(view, std::span<const std::int64_t>(offs)).bytes;
    const auto k = octet::to_blocked_k_groups(view, std::span<const std::int64_t>(koffs)).bytes;
    out.insert(out.end(), m.begin(), m.end());
    out.insert(out.end(), k.begin(), k.end());
    runs.push_back(std::move(out));
  }
  omp_set_num_threads(saved);
  for (std::size_t i = 1; i < runs.size(); ++i)
    EXPECT_TRUE(bytes_equal(runs[i], runs[0], blocked_coords(), std::to_string(kThreadCounts[i]) + " threads"));
}

TEST(MxSwizzle, MisuseNamesTheArgument) {
  const std::vector<std::uint8_t> s(100 * 8, 1);
  const auto view = View2D<const std::uint8_t>::row_major(s.data(), 100, 8);
  const std::vector<std::int64_t> non_monotonic{50, 40, 100};
  const std::vector<std::int64_t> beyond{50, 101};
  EXPECT_TRUE(throws_naming([&] { octet::to_blocked_m_groups(view, std::span<const std::int64_t>(non_monotonic)); },
                            "offs is not monotonic"));
  EXPECT_TRUE(throws_naming([&] { octet::to_blocked_m_groups(view, std::span<const std::int64_t>(beyond)); }, "offs[1]"));
  const std::vector<std::int64_t> kbeyond{4, 9};
  EXPECT_TRUE(throws_naming([&] { octet::to_blocked_k_groups(view, std::span<const std::int64_t>(kbeyond)); },
                            "scale_offs[1]"));
  EXPECT_TRUE(throws_naming([&] { octet::from_blocked(std::vector<std::uint8_t>(100), 100, 8); }, "blocked size"));
  EXPECT_TRUE(throws_naming([&] { octet::from_blocked(std::vector<std::uint8_t>(0), -1, 8); }, "negative shape"));
  std::vector<std::uint8_t> small(10);
  EXPECT_TRUE(throws_naming([&] { octet::to_blocked(view, std::span<std::uint8_t>(small)); }, "out size"));
  EXPECT_TRUE(throws_naming(
      [&] { octet::to_blocked(View2D<const std::uint8_t>::row_major(nullptr, 4, 4)); }, "scales: null data"));
}

}  // namespace
