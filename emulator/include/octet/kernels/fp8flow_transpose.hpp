// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// fp8flow_transpose.hpp — the FP8-Flow-MoE scaling-aware fp8 transpose (reference/kernels.md §8).
//
// Turns a rowwise 1x128-scaled e4m3fn tensor into its columnwise (token-scaled) copy for the wgrad
// GEMM without going back to high precision. Peer: 021ai/TransformerEngine-FP8FlowMoe
// `transformer_engine/pytorch/triton/blockwise_scaling_aware_fp8_transpose.py` (TE PR #2544,
// `_scaling_aware_fp8_transpose_kernel` + `blockwise_scaling_aware_fp8_transpose`), called from
// `Float8BlockwiseQTensor.split_scaling_aware_fp8_transpose` with the COMPACT rowwise layout.
//
// Inputs (m = total tokens, cols = hidden, cb = ceil(cols/128)):
//   q_m_c   (m, cols)  e4m3fn codes, one byte each, rowwise quantised;
//   si_m_cb (m, cb)    fp32 scale_inv (dequantisation multiplier) per row per 128-column block,
//                      each +0 (a pad row) or a power of two in [2^-127, 2^127] (TE pow2 scales);
//   offs    (G)        int32 inclusive cumulative group ends, offs[G-1] == m (kernels.md §0).
// Outputs, per group g of m_g rows (packed back to back, see Fp8FlowLayout):
//   qt_c_mg  (cols, m_g)             e4m3fn codes of the transposed group (column-major data);
//   csi_mb_c (ceil(m_g/128), cols)   fp32 columnwise scale_inv; the published and ideal variants
//                                    store one value per 128x128 tile, broadcast over its columns;
//   sit_cb_mg (cb, m_g)              fp32 si transposed (`rowwise_scale_inv_t`, GEMM_READY); a
//                                    plain copy in every variant.
// Tiles are 128 rows x 128 columns inside one group: tile rows start at each group's first row and
// the last tile row of a group (and the last tile column when cols % 128 != 0) may be partial. The
// peer masks those tiles the same way (`valid_r`, `valid_c`, and rows past the group load si = 0,
// which never raises the max). Empty groups produce empty outputs (the wrapper drops them before
// the launch and returns (cols, 0) / (0, cols) / (cb, 0) tensors).
//
// Per tile, with exp(v) = ((bits(v) >> 23) & 0xFF) - 127 (kernels.md §8):
//   1. S = max over the tile's rows of si[r, j]             -> csi for the tile's columns;
//   2. k[r] = exp(S) - exp(si[r, j]) >= 0;
//   3. E = (q >> 3) & 0xF, M = q & 7, s = q >> 7;
//   4. E' = E - k; if E' < 1 then E' = 0 and M is kept;
//   5. q_t = (E == 0) ? 0x00 : (s << 7 | E' << 3 | M).
// Where E - k >= 1 only the exponent changes, so q_t * S == q * si exactly. Corner cases of the
// published kernel (reproduced bit for bit by Fp8FlowVariant::published):
//   (a) E - k < 1: exponent 0 with M kept, i.e. M/8 * 2^-6 instead of (1 + M/8) * 2^(E-k-7);
//       E - k == 0, M == 0 gives 0 instead of 2^-7;
//   (b) subnormal codes (E == 0) become +0 even for k == 0; -0 becomes +0;
//   (c) NaN (0x7F / 0xFF) with k > 0 becomes a finite number;
//   (d) pad rows (si = +0, exp = -127) do not raise S; their k is exp(S) + 127 and their zero codes
//       give 0 (non-zero codes in a pad row follow (a)).
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "octet/cast.hpp"
#include "octet/format.hpp"
#include "octet/tensor.hpp"

namespace octet {

enum class Fp8FlowVariant : std::uint8_t {
  // The peer kernel bit for bit, corner cases (a)-(d) included.
  published,
  // Same tile scale S; where E - k < 1 the exact value q * si / S is rounded to nearest-even into
  // the e4m3fn subnormal range, subnormal codes are shifted the same way, -0 stays -0, NaN stays
  // NaN, and a pad row (si = +0) gives signed zeros. Exact wherever the value is representable.
  ideal,
  // The "double quant" baseline (TE fallback in grouped_linear.py): dequantise to the bf16
  // nominal dtype, then per group quantise each column in 128-row blocks with a fresh amax under
  // the te_blockwise recipe (recipes.md §4.4; RNE, satfinite). csi is then per column, not per tile.
  naive,
};
std::string_view name(Fp8FlowVariant v);                          // "published", "ideal", "naive"
std::optional<Fp8FlowVariant> parse_fp8flow_variant(std::string_view s);

inline constexpr std::int64_t kFp8FlowBlock = 128;  // tile rows and columns, and the si column block

// exp(v) of step 2: the biased fp32 exponent field minus 127. +0 (and the fp32 subnormal
// 2^-127, the smallest TE pow2 scale_inv) give -127.
OCTET_HD constexpr int fp8flow_scale_exponent(float si) {
  return int((std::bit_cast<std::uint32_t>(si) >> 23) & 0xFFu) - 127;
}

// Steps 3-5 for one code and shift k >= 0 (the published rule).
OCTET_HD constexpr std::uint8_t fp8flow_published_code(std::uint8_t q, int k) {
  const int s = q >> 7, e = (q >> 3) & 0xF, m = q & 7;
  int e_new = e - k;
  if (e_new < 1) e_new = 0;
  return e == 0 ? std::uint8_t(0) : std::uint8_t(s << 7 | e_new << 3 | m);
}

// The correctly rounded shift: RNE(decode(q) * 2^-k) in e4m3fn, signs of zeros and NaN kept.
// Equal to fp8flow_published_code whenever E >= 1 and E - k >= 1.
OCTET_HD constexpr std::uint8_t fp8flow_ideal_code(std::uint8_t q, int k) {
  double v = decode(e4m3fn_format, q);
  for (int i = 0; i < k; ++i) v *= 0.5;  // exact: |v| >= 2^-9 * 2^-k stays far inside double
  return std::uint8_t(encode(e4m3fn_format, CastSpec{}, v));  // RNE, satfinite, NaN keeps its sign
}

// Where each group's outputs sit in the packed output buffers.
struct Fp8FlowLayout {
  std::int64_t rows = 0, cols = 0, col_blocks = 0;
  std::vector<std::int64_t> row_begin;       // G + 1 entries: group g is rows [row_begin[g], row_begin[g+1])
  std::vector<std::int64_t> tile_row_begin;  // G + 1 entries: group g's first row of csi

  std::int64_t groups() const { return std::int64_t(row_begin.size()) - 1; }
  std::int64_t group_rows(std::int64_t g) const { return row_begin[std::size_t(g + 1)] - row_begin[std::size_t(g)]; }
  std::int64_t group_tile_rows(std::int64_t g) const {
    return tile_row_begin[std::size_t(g + 1)] - tile_row_begin[std::size_t(g)];
  }
  // Element counts of the three packed outputs.
  std::int64_t qt_size() const { return rows * cols; }
  std::int64_t csi_size() const { return tile_row_begin.back() * cols; }
  std::int64_t sit_size() const { return col_blocks * rows; }
  // Group g's tensors inside the packed buffers (row-major views).
  template <class T>
  View2D<T> qt(T* base, std::int64_t g) const {  // (cols, m_g)
    return View2D<T>::row_major(base + cols * row_begin[std::size_t(g)], cols, group_rows(g));
  }
  template <class T>
  View2D<T> csi(T* base, std::int64_t g) const {  // (ceil(m_g/128), cols)
    return View2D<T>::row_major(base + cols * tile_row_begin[std::size_t(g)], group_tile_rows(g), cols);
  }
  template <class T>
  View2D<T> sit(T* base, std::int64_t g) const {  // (cb, m_g)
    return View2D<T>::row_major(base + col_blocks * row_begin[std::size_t(g)], col_blocks, group_rows(g));
  }
};

// Validates offs against m (non-empty, monotonic, offs[G-1] == m) and returns the layout.
Fp8FlowLayout fp8flow_layout(std::span<const std::int32_t> offs, std::int64_t m, std::int64_t cols);

// Caller-allocated packed outputs; sizes must equal the layout's.
struct Fp8FlowOutputs {
  std::span<std::uint8_t> qt;  // layout.qt_size()
  std::span<float> csi;        // layout.csi_size()
  std::span<float> sit;        // layout.sit_size()
};

// Validates every argument (std::invalid_argument naming it) and runs the variant. OpenMP over
// tiles; every tile writes its own outputs only, so the result is the same for any thread count.
// q_m_c and si_m_cb may have any strides.
void fp8flow_transpose(Fp8FlowVariant variant, View2D<const std::uint8_t> q_m_c, View2D<const float> si_m_cb,
                       std::span<const std::int32_t> offs, const Fp8FlowOutputs& out);

struct Fp8FlowResult {
  Fp8FlowLayout layout;
  std::vector<std::uint8_t> qt;
  std::vector<float> csi, sit;
};
Fp8FlowResult fp8flow_transpose(Fp8FlowVariant variant, View2D<const std::uint8_t> q_m_c,
                                View2D<const float> si_m_cb, std::span<const std::int32_t> offs);

}  // namespace octet
