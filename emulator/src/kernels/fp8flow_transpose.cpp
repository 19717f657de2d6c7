// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// fp8flow_transpose.cpp — the FP8-Flow-MoE scaling-aware fp8 transpose, three variants on one
// tile loop. Spec, shapes and corner cases: octet/kernels/fp8flow_transpose.hpp and
// reference/kernels.md §8. Peer: 021ai/TransformerEngine-FP8FlowMoe
// transformer_engine/pytorch/triton/blockwise_scaling_aware_fp8_transpose.py (TE PR #2544).
//
// Bit-exactness notes on the peer's Triton code:
// * exp_t and exp_s are computed on uint32 (`((bits & 0x7F800000) >> 23) - 127` wraps below 2^0),
//   but their difference cast to int32 is the true k; k >= 0 because S is the max.
// * E is uint8 and k int32, so E - k is int32 and the `< 1` test is signed; E' <= 15 always fits.
// * Masked rows load si = 0.0 and data 0 and are never stored; with every si >= +0 they cannot
//   change the max, so reading only the group's rows is equivalent.
//
// The published and ideal element rules depend only on (code, k), so each runs as a 32 x 256 byte
// table built by calling the rule functions of the header; k >= 31 uses row 31, which is exact
// for both (published: every E - k < 1 from k = 15 on; ideal: 448 * 2^-20 < 2^-10 rounds to 0).
#include "octet/kernels/fp8flow_transpose.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "octet/scale.hpp"

namespace octet {

std::string_view name(Fp8FlowVariant v) {
  constexpr std::array<std::string_view, 3> names{"published", "ideal", "naive"};
  return names[std::size_t(v)];
}

std::optional<Fp8FlowVariant> parse_fp8flow_variant(std::string_view s) {
  for (auto v : {Fp8FlowVariant::published, Fp8FlowVariant::ideal, Fp8FlowVariant::naive})
    if (s == name(v)) return v;
  return std::nullopt;
}

namespace {

constexpr std::int64_t kBlock = kFp8FlowBlock;
constexpr int kLutRows = 32;
using Lut = std::array<std::array<std::uint8_t, 256>, kLutRows>;

template <std::uint8_t (*Rule)(std::uint8_t, int)>
Lut build_lut() {
  Lut t{};
  for (int k = 0; k < kLutRows; ++k)
    for (int q = 0; q < 256; ++q) t[std::size_t(k)][std::size_t(q)] = Rule(std::uint8_t(q), k);
  return t;
}
const Lut& published_lut() {
  static const Lut t = build_lut<fp8flow_published_code>();
  return t;
}
const Lut& ideal_lut() {
  static const Lut t = build_lut<fp8flow_ideal_code>();
  return t;
}

std::string hex32(std::uint32_t v) {
  char buf[11];
  std::snprintf(buf, sizeof buf, "0x%08X", v);
  return buf;
}

// +0 or a power of two in [2^-127, 2^127]: a normal fp32 with a zero mantissa, or the subnormal
// 2^-127 (0x00400000), the smallest scale_inv TE's pow2 rule can store (scale <= 2^127).
bool valid_scale_inv(float si) {
  const std::uint32_t b = std::bit_cast<std::uint32_t>(si);
  if (b == 0u || b == 0x00400000u) return true;
  const std::uint32_t field = (b >> 23) & 0xFFu;
  return (b >> 31) == 0 && field != 0 && field != 0xFF && (b & 0x7FFFFFu) == 0;
}

// ---------------------------------------------------------------------------------------------
// The tile loop shared by the variants: one tile = (group g, tile row i, column block j).

struct TileCoord {
  std::int64_t g, i, j;
  std::int64_t r0, r1;  // global rows [r0, r1), inside group g
  std::int64_t c0, c1;  // columns [c0, c1)
};

struct Problem {
  View2D<const std::uint8_t> q;
  View2D<const float> si;
  const Fp8FlowLayout& layout;
  const Fp8FlowOutputs& out;
};

template <class TileFn>
void for_each_tile(const Fp8FlowLayout& L, TileFn&& fn) {
  const std::int64_t tile_rows = L.tile_row_begin.back();
  std::vector<std::int64_t> group_of(static_cast<std::size_t>(tile_rows));
  for (std::int64_t g = 0; g < L.groups(); ++g)
    for (std::int64_t t = L.tile_row_begin[std::size_t(g)]; t < L.tile_row_begin[std::size_t(g + 1)]; ++t)
      group_of[std::size_t(t)] = g;
  const std::int64_t n = tile_rows * L.col_blocks;
#pragma omp parallel for schedule(static)
  for (std::int64_t t = 0; t < n; ++t) {
    const std::int64_t tr = t / L.col_blocks, j = t % L.col_blocks;
    const std::int64_t g = group_of[std::size_t(tr)];
    const std::int64_t i = tr - L.tile_row_begin[std::size_t(g)];
    const std::int64_t r0 = L.row_begin[std::size_t(g)] + i * kBlock;
    const TileCoord c{g, i, j, r0, std::min(r0 + kBlock, L.row_begin[std::size_t(g + 1)]),
                      j * kBlock, std::min((j + 1) * kBlock, L.cols)};
    fn(c);
  }
}

// siᵀ for the tile's rows (each (row, column block) pair belongs to exactly one tile).
void write_sit(const Problem& p, const TileCoord& t) {
  const View2D<float> sit = p.layout.sit(p.out.sit.data(), t.g);
  const std::int64_t base = p.layout.row_begin[std::size_t(t.g)];
  for (std::int64_t r = t.r0; r < t.r1; ++r) sit(t.j, r - base) = p.si(r, t.j);
}

// Copies a tile buffer laid out [column][row] into the group's (cols, m_g) output.
void store_tile(const Problem& p, const TileCoord& t, const std::uint8_t (*buf)[kBlock]) {
  const View2D<std::uint8_t> qt = p.layout.qt(p.out.qt.data(), t.g);
  const std::int64_t base = p.layout.row_begin[std::size_t(t.g)];
  for (std::int64_t c = t.c0; c < t.c1; ++c)
    std::memcpy(&qt(c, t.r0 - base), buf[c - t.c0], std::size_t(t.r1 - t.r0));
}

// ---------------------------------------------------------------------------------------------
// published / ideal: steps 1-5 of the header, the element rule from a table.

void tile_shift(const Problem& p, const TileCoord& t, const Lut& lut, bool pad_rows_are_zero) {
  // 1. S = max of the tile's si (all >= +0, so the order does not matter; rows outside the group
  //    are not read, which is what the peer's si = 0 for masked rows amounts to).
  float s_tile = 0.0f;
  for (std::int64_t r = t.r0; r < t.r1; ++r) s_tile = std::max(s_tile, p.si(r, t.j));
  const View2D<float> csi = p.layout.csi(p.out.csi.data(), t.g);
  for (std::int64_t c = t.c0; c < t.c1; ++c) csi(t.i, c) = s_tile;
  write_sit(p, t);

  const int exp_t = fp8flow_scale_exponent(s_tile);
  alignas(64) std::uint8_t buf[kBlock][kBlock];  // [column][row]
  for (std::int64_t r = t.r0; r < t.r1; ++r) {
    const float si = p.si(r, t.j);
    // 2. k = exp(S) - exp(si) in [0, 254]. The ideal variant sends a pad row (si = +0, value
    //    q * 0 = ±0) to the last table row, which holds signed zeros (NaN stays NaN).
    int k = exp_t - fp8flow_scale_exponent(si);
    if (pad_rows_are_zero && std::bit_cast<std::uint32_t>(si) == 0u) k = kLutRows - 1;
    const std::uint8_t* rule = lut[std::size_t(std::min(k, kLutRows - 1))].data();
    const std::uint8_t* q = &p.q(r, 0);
    const std::int64_t cs = p.q.col_stride, rr = r - t.r0;
    // 3-5, element by element.
    for (std::int64_t c = t.c0; c < t.c1; ++c) buf[c - t.c0][rr] = rule[q[c * cs]];
  }
  store_tile(p, t, buf);
}

// ---------------------------------------------------------------------------------------------
// naive: dequantise to bf16, fresh 128x1 amax per column within the group, te_blockwise requant.

// TE's fallback `dequantize()` to the bf16 nominal dtype: fl32(q * si), exact (a 4-bit significand
// times a power of two; beyond FLT_MAX it is ±Inf, like the fp32 product), then RNE to bf16, the
// identity for |x| >= 2^-126; below (possible only for si < 2^-117) bf16 subnormals may round.
float dequantize_to_bf16(std::uint8_t q, float si) {
  static const std::array<double, 256> kDecode = [] {
    std::array<double, 256> t{};
    for (unsigned c = 0; c < 256; ++c) t[c] = decode(e4m3fn_format, c);
    return t;
  }();
  const float x = float(kDecode[q] * double(si));
  if (!(std::fabs(x) < 0x1p-126f) || x == 0.0f) return x;  // normal, zero, Inf, NaN: exact in bf16
  return bf16_to_float(std::uint16_t(encode(bf16_format, CastSpec{}, x)));
}

void tile_naive(const Problem& p, const TileCoord& t, const Recipe& rec) {
  write_sit(p, t);
  const std::int64_t nr = t.r1 - t.r0, nc = t.c1 - t.c0;
  std::vector<float> x(std::size_t(nr * nc));  // [row][column] of the tile
  for (std::int64_t r = t.r0; r < t.r1; ++r) {
    const float si = p.si(r, t.j);
    for (std::int64_t c = t.c0; c < t.c1; ++c)
      x[std::size_t((r - t.r0) * nc + (c - t.c0))] = dequantize_to_bf16(p.q(r, c), si);
  }
  const View2D<float> csi = p.layout.csi(p.out.csi.data(), t.g);
  alignas(64) std::uint8_t buf[kBlock][kBlock];
  for (std::int64_t c = 0; c < nc; ++c) {
    float amax = amax_init(rec);
    for (std::int64_t r = 0; r < nr; ++r) amax = amax_update(rec, amax, x[std::size_t(r * nc + c)]);
    const BlockScale s = scale_from_amax(rec, amax);
    csi(t.i, t.c0 + c) = std::bit_cast<float>(s.stored);  // te_blockwise stores fp32 scale_inv
    for (std::int64_t r = 0; r < nr; ++r)
      buf[c][r] = std::uint8_t(quantize_element(rec, s, x[std::size_t(r * nc + c)]));
  }
  store_tile(p, t, buf);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Entry points.

Fp8FlowLayout fp8flow_layout(std::span<const std::int32_t> offs, std::int64_t m, std::int64_t cols) {
  require(!offs.empty(), "offs is empty: at least one group is required (the peer asserts len(m_splits) > 0)");
  require(m >= 0 && cols >= 0, "q_m_c: negative shape");
  const Groups groups(offs, m, 1, "offs");
  require(groups.total() == m, "offs[" + std::to_string(offs.size() - 1) + "] = " + std::to_string(groups.total()) +
                                   ": must equal the rows of q_m_c (" + std::to_string(m) + ")");
  Fp8FlowLayout L;
  L.rows = m;
  L.cols = cols;
  L.col_blocks = (cols + kBlock - 1) / kBlock;
  L.row_begin.push_back(0);
  L.tile_row_begin.push_back(0);
  for (std::int64_t g = 0; g < groups.count(); ++g) {
    L.row_begin.push_back(groups.end(g));
    L.tile_row_begin.push_back(L.tile_row_begin.back() + (groups.size(g) + kBlock - 1) / kBlock);
  }
  return L;
}

void fp8flow_transpose(Fp8FlowVariant variant, View2D<const std::uint8_t> q_m_c, View2D<const float> si_m_cb,
                       std::span<const std::int32_t> offs, const Fp8FlowOutputs& out) {
  require(std::size_t(variant) <= std::size_t(Fp8FlowVariant::naive), "variant: unknown value");
  const Fp8FlowLayout L = fp8flow_layout(offs, q_m_c.rows, q_m_c.cols);
  require_equal(si_m_cb.rows, L.rows, "si_m_cb rows (one scale row per row of q_m_c)");
  require_equal(si_m_cb.cols, L.col_blocks, "si_m_cb cols (ceil(cols / 128), the COMPACT rowwise layout)");
  require(L.qt_size() == 0 || q_m_c.data != nullptr, "q_m_c: null data");
  require(L.sit_size() == 0 || si_m_cb.data != nullptr, "si_m_cb: null data");
  require_equal(std::int64_t(out.qt.size()), L.qt_size(), "out.qt size (m * cols)");
  require_equal(std::int64_t(out.csi.size()), L.csi_size(), "out.csi size (sum of ceil(m_g / 128) * cols)");
  require_equal(std::int64_t(out.sit.size()), L.sit_size(), "out.sit size (ceil(cols / 128) * m)");
  for (std::int64_t r = 0; r < si_m_cb.rows; ++r)
    for (std::int64_t j = 0; j < si_m_cb.cols; ++j)
      if (const float v = si_m_cb(r, j); !valid_scale_inv(v))
        throw std::invalid_argument("si_m_cb[" + std::to_string(r) + ", " + std::to_string(j) + "] = " +
                                    std::to_string(v) + " (" + hex32(std::bit_cast<std::uint32_t>(v)) +
                                    ") is not +0 or a power of two in [2^-127, 2^127]");

  const Problem p{q_m_c, si_m_cb, L, out};
  switch (variant) {
    case Fp8FlowVariant::published: {
      const Lut& lut = published_lut();
      for_each_tile(L, [&](const TileCoord& t) { tile_shift(p, t, lut, false); });
      break;
    }
    case Fp8FlowVariant::ideal: {
      const Lut& lut = ideal_lut();
      for_each_tile(L, [&](const TileCoord& t) { tile_shift(p, t, lut, true); });
      break;
    }
    case Fp8FlowVariant::naive: {
      const Recipe& rec = recipe("te_blockwise");
      require(storage(rec) == ScaleStorage::DecodeFp32, "te_blockwise: expected fp32 scale_inv storage");
      for_each_tile(L, [&](const TileCoord& t) { tile_naive(p, t, rec); });
      break;
    }
  }
}

Fp8FlowResult fp8flow_transpose(Fp8FlowVariant variant, View2D<const std::uint8_t> q_m_c,
                                View2D<const float> si_m_cb, std::span<const std::int32_t> offs) {
  Fp8FlowResult res;
  res.layout = fp8flow_layout(offs, q_m_c.rows, q_m_c.cols);
  res.qt.resize(std::size_t(res.layout.qt_size()));
  res.csi.resize(std::size_t(res.layout.csi_size()));
  res.sit.resize(std::size_t(res.layout.sit_size()));
  fp8flow_transpose(variant, q_m_c, si_m_cb, offs, Fp8FlowOutputs{res.qt, res.csi, res.sit});
  return res;
}

}  // namespace octet
