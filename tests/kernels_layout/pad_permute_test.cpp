// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// pad_permute_test.cpp — token padding and permutation (reference/kernels.md §6, §7) against
// deliberately naive references: torchao's torch code (`torch_pad_token_groups`,
// `x_padded[permuted_indices]`, `fill_indices_cpu`) and TE's row_id_map passes written out as
// plain loops, plus an independent fp32 -> bf16 RNE for the combine. Byte-for-byte comparisons;
// pad rows are checked to be zero explicitly.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "layout_test_util.hpp"
#include "octet/cast.hpp"
#include "octet/kernels/layout_pad_permute.hpp"

namespace {

using namespace layout_test;
using octet::RowsView;

// ----------------------------------------------------------------------------
// Naive references

struct Mat {  // (rows, row_bytes) raw bytes
  std::vector<std::uint8_t> bytes;
  std::int64_t rows = 0, row_bytes = 0;
  const std::uint8_t* row(std::int64_t r) const { return bytes.data() + r * row_bytes; }
  std::uint8_t* row(std::int64_t r) { return bytes.data() + r * row_bytes; }
};
Mat zeros(std::int64_t rows, std::int64_t row_bytes) {
  return {std::vector<std::uint8_t>(std::size_t(rows * row_bytes), 0), rows, row_bytes};
}
Mat random_mat(Rng& rng, std::int64_t rows, std::int64_t row_bytes) {
  return {random_bytes(rng, std::size_t(rows * row_bytes)), rows, row_bytes};
}
RowsView view_of(const Mat& m, std::int64_t element_bytes) {
  return {m.bytes.data(), m.rows, m.row_bytes / element_bytes, element_bytes};
}
std::int64_t round_up(std::int64_t x, std::int64_t a) { return (x + a - 1) / a * a; }

// torchao quant.py::torch_pad_token_groups (chunks copied at cumsum(padded) - padded).
struct RefPadded {
  Mat data;
  std::vector<std::int64_t> starts, ends;
};
RefPadded torch_pad(const Mat& x, const std::vector<std::int64_t>& offs, std::int64_t alignment) {
  const std::int64_t G = std::int64_t(offs.size());
  RefPadded out;
  std::int64_t prev = 0, cum = 0;
  std::vector<std::int64_t> sizes;
  for (const auto o : offs) {
    sizes.push_back(o - prev);
    prev = o;
    cum += (sizes.back() + alignment - 1) / alignment * alignment;
    out.ends.push_back(cum);
  }
  for (std::int64_t g = 0; g < G; ++g)
    out.starts.push_back(out.ends[std::size_t(g)] - (sizes[std::size_t(g)] + alignment - 1) / alignment * alignment);
  std::int64_t out_rows = x.rows + G * alignment;
  out_rows = (out_rows + alignment - 1) / alignment * alignment;
  out.data = zeros(out_rows, x.row_bytes);
  std::int64_t src = 0;
  for (std::int64_t g = 0; g < G; ++g)
    for (std::int64_t i = 0; i < sizes[std::size_t(g)]; ++i, ++src)
      std::memcpy(out.data.row(out.starts[std::size_t(g)] + i), x.row(src), std::size_t(x.row_bytes));
  return out;
}

// torch_unpad_token_groups: torch.cat of the chunks, then zero rows up to num_tokens.
Mat torch_unpad(const Mat& padded, const std::vector<std::int64_t>& offs, const std::vector<std::int64_t>& starts,
                std::int64_t num_tokens) {
  Mat out = zeros(num_tokens, padded.row_bytes);
  std::int64_t prev = 0, dst = 0;
  for (std::size_t g = 0; g < offs.size(); ++g) {
    for (std::int64_t i = 0; i < offs[g] - prev; ++i, ++dst)
      std::memcpy(out.row(dst), padded.row(starts[g] + i), std::size_t(padded.row_bytes));
    prev = offs[g];
  }
  return out;
}

// x_padded = torch.vstack((x, zeros)); x_padded[permuted_indices] — Python's -1 is the last row.
Mat torch_index_select(const Mat& x, const std::vector<std::int64_t>& idx) {
  Mat padded = x;
  padded.bytes.resize(padded.bytes.size() + std::size_t(x.row_bytes), 0);
  padded.rows += 1;
  Mat out = zeros(std::int64_t(idx.size()), x.row_bytes);
  for (std::size_t i = 0; i < idx.size(); ++i) {
    const std::int64_t src = idx[i] < 0 ? padded.rows + idx[i] : idx[i];
    std::memcpy(out.row(std::int64_t(i)), padded.row(src), std::size_t(x.row_bytes));
  }
  return out;
}

// out_padded = zeros(T + 1); out_padded[permuted_indices] = y; out_padded[:-1].
Mat torch_index_put(const Mat& y, const std::vector<std::int64_t>& idx, std::int64_t num_tokens) {
  Mat out = zeros(num_tokens + 1, y.row_bytes);
  for (std::size_t i = 0; i < idx.size(); ++i) {
    const std::int64_t dst = idx[i] < 0 ? out.rows + idx[i] : idx[i];
    std::memcpy(out.row(dst), y.row(std::int64_t(i)), std::size_t(y.row_bytes));
  }
  out.rows -= 1;
  out.bytes.resize(std::size_t(out.rows * out.row_bytes));
  return out;
}

// ep/kernels.py::generate_permute_indices with fill_indices_cpu.
octet::PermuteIndices torchao_permute_indices(const std::vector<std::int64_t>& counts, std::int64_t ranks,
                                              std::int64_t experts, std::int64_t max_len, std::int64_t alignment) {
  std::vector<std::int64_t> start(counts.size());
  for (std::size_t i = 1; i < counts.size(); ++i) start[i] = start[i - 1] + counts[i - 1];
  octet::PermuteIndices out;
  std::vector<std::int64_t> write_offsets;
  std::int64_t cum = 0;
  for (std::int64_t e = 0; e < experts; ++e) {
    std::int64_t total = 0;
    for (std::int64_t r = 0; r < ranks; ++r) total += counts[std::size_t(r * experts + e)];
    total = std::max(total, alignment);  // torch.clamp_min
    const std::int64_t m = (total + alignment - 1) / alignment * alignment;
    out.m_sizes.push_back(m);
    cum += m;
    out.m_offsets.push_back(cum);
    write_offsets.push_back(cum - m);
  }
  out.permuted_indices.assign(std::size_t(max_len), -1);
  for (std::int64_t e = 0; e < experts; ++e) {
    std::int64_t write_start = write_offsets[std::size_t(e)];
    for (std::int64_t r = 0; r < ranks; ++r) {
      const std::size_t i = std::size_t(r * experts + e);
      if (counts[i] > 0 && write_start < max_len) {
        const std::int64_t end = std::min(write_start + counts[i], max_len);
        for (std::int64_t d = write_start; d < end; ++d) out.permuted_indices[std::size_t(d)] = start[i] + (d - write_start);
      }
      write_start += counts[i];
    }
  }
  return out;
}

// An independent fp32 -> bf16 RNE (the classic add-and-truncate; Inf on overflow).
std::uint16_t bf16_rne(float f) {
  std::uint32_t b = std::bit_cast<std::uint32_t>(f);
  if ((b & 0x7FFFFFFFu) > 0x7F800000u) return std::uint16_t((b >> 16) | 0x40);
  b += 0x7FFFu + ((b >> 16) & 1u);
  return std::uint16_t(b >> 16);
}
float bf16_value(std::uint16_t h) { return std::bit_cast<float>(std::uint32_t(h) << 16); }

// TE's mask-map permutation, pass by pass. routing_map (T, E) from the top-k routes.
struct TeRef {
  std::vector<std::vector<std::int64_t>> row_id;  // [t][e]: pass 2 row (unpadded), -1 = not routed
  std::vector<std::int64_t> pad_offsets;
  std::int64_t rows = 0;
};
TeRef te_row_id_map(const std::vector<std::int32_t>& expert_t_k, std::int64_t T, std::int64_t K, std::int64_t E,
                    std::int64_t alignment) {
  std::vector<std::vector<int>> mask(std::size_t(T), std::vector<int>(std::size_t(E), 0));
  for (std::int64_t t = 0; t < T; ++t)
    for (std::int64_t k = 0; k < K; ++k)
      if (expert_t_k[std::size_t(t * K + k)] >= 0) mask[std::size_t(t)][std::size_t(expert_t_k[std::size_t(t * K + k)])] = 1;
  TeRef ref;
  ref.row_id.assign(std::size_t(T), std::vector<std::int64_t>(std::size_t(E), -1));
  std::int64_t tokens_before = 0, padding_before = 0;
  for (std::int64_t e = 0; e < E; ++e) {
    std::int64_t cumsum = 0;  // pass 1: cumsum over tokens, times the mask
    for (std::int64_t t = 0; t < T; ++t) {
      cumsum += mask[std::size_t(t)][std::size_t(e)];
      const std::int64_t within = cumsum * mask[std::size_t(t)][std::size_t(e)];
      ref.row_id[std::size_t(t)][std::size_t(e)] = within == 0 ? -1 : within + tokens_before - 1;  // pass 2
    }
    ref.pad_offsets.push_back(padding_before);
    padding_before += round_up(cumsum, alignment) - cumsum;
    tokens_before += cumsum;
  }
  ref.rows = tokens_before + padding_before;
  return ref;
}

struct TeRefPermuted {
  Mat data, scales;
  std::vector<float> probs;
};
TeRefPermuted te_permute(const Mat& x, const Mat& scales, const std::vector<std::int32_t>& expert_t_k,
                         const std::vector<float>& prob_t_k, std::int64_t K, std::int64_t E, std::int64_t alignment) {
  const std::int64_t T = x.rows;
  const TeRef ref = te_row_id_map(expert_t_k, T, K, E, alignment);
  TeRefPermuted out{zeros(ref.rows, x.row_bytes), zeros(ref.rows, scales.row_bytes),
                    prob_t_k.empty() ? std::vector<float>{} : std::vector<float>(std::size_t(ref.rows), 0.0f)};
  for (std::int64_t t = 0; t < T; ++t)
    for (std::int64_t k = 0; k < K; ++k) {
      const std::int32_t e = expert_t_k[std::size_t(t * K + k)];
      if (e < 0) continue;
      const std::int64_t dst = ref.row_id[std::size_t(t)][std::size_t(e)] + ref.pad_offsets[std::size_t(e)];
      std::memcpy(out.scales.row(dst), scales.row(t), std::size_t(scales.row_bytes));
      bool zero_data = false;
      if (!prob_t_k.empty()) {
        const float p = prob_t_k[std::size_t(t * K + k)];
        std::memcpy(&out.probs[std::size_t(dst)], &p, 4);
        zero_data = p == 0.0f;
      }
      if (!zero_data) std::memcpy(out.data.row(dst), x.row(t), std::size_t(x.row_bytes));
    }
  return out;
}

// The combine: per token, its routes in the chosen order; acc = acc + x·p (or fma); one rounding.
Mat te_unpermute(const Mat& permuted, bool bf16, const std::vector<std::int32_t>& expert_t_k,
                 const std::vector<float>& prob_t_k, std::int64_t T, std::int64_t K, std::int64_t E,
                 std::int64_t alignment, octet::CombineSpec spec) {
  const TeRef ref = te_row_id_map(expert_t_k, T, K, E, alignment);
  const std::int64_t eb = bf16 ? 2 : 4, D = permuted.row_bytes / eb;
  Mat out = zeros(T, permuted.row_bytes);
  for (std::int64_t t = 0; t < T; ++t) {
    std::vector<std::pair<std::int64_t, std::int64_t>> routes;  // (permuted row, slot)
    for (std::int64_t k = 0; k < K; ++k) {
      const std::int32_t e = expert_t_k[std::size_t(t * K + k)];
      if (e >= 0) routes.push_back({ref.row_id[std::size_t(t)][std::size_t(e)] + ref.pad_offsets[std::size_t(e)], k});
    }
    if (spec.order == octet::CombineOrder::row_descending)  // pass 3 argsort, descending
      std::sort(routes.begin(), routes.end(), [](auto a, auto b) { return a.first > b.first; });
    for (std::int64_t h = 0; h < D; ++h) {
      float acc = 0.0f;
      for (const auto& [row, k] : routes) {
        float v;
        if (bf16) {
          std::uint16_t b;
          std::memcpy(&b, permuted.row(row) + 2 * h, 2);
          v = bf16_value(b);
        } else {
          std::memcpy(&v, permuted.row(row) + 4 * h, 4);
        }
        const float p = prob_t_k.empty() ? 1.0f : prob_t_k[std::size_t(t * K + k)];
        if (spec.fused_multiply_add) {
          acc = std::fma(v, p, acc);
        } else {
          const float prod = v * p;
          acc = acc + prod;
        }
      }
      // TE sums on the GPU, whose fp32 arithmetic returns the canonical NaN 0x7FFFFFFF for every
      // NaN result; its bf16 cast keeps that NaN's top half.
      if (acc != acc) acc = std::bit_cast<float>(0x7FFFFFFFu);
      if (bf16) {
        const std::uint16_t b = bf16_rne(acc);
        std::memcpy(out.row(t) + 2 * h, &b, 2);
      } else {
        std::memcpy(out.row(t) + 4 * h, &acc, 4);
      }
    }
  }
  return out;
}

// Random top-k routing: K distinct experts per token, some slots unused (-1), probs in [0, 1)
// with exact zeros (routing-map padding) and -0.
struct Routing {
  std::int64_t T, K, E;
  std::vector<std::int32_t> expert_t_k;
  std::vector<float> prob_t_k;
  octet::TokenRouting view() const { return {T, K, E, expert_t_k, prob_t_k}; }
};
Routing random_routing(Rng& rng, std::int64_t T, std::int64_t K, std::int64_t E, bool probs, bool skewed) {
  Routing r{T, K, E, std::vector<std::int32_t>(std::size_t(T * K), -1), {}};
  if (probs) r.prob_t_k.assign(std::size_t(T * K), 0.0f);
  std::vector<std::int32_t> perm(static_cast<std::size_t>(E));
  for (std::int64_t t = 0; t < T; ++t) {
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    if (skewed && E > 2 && rng() % 4 != 0) {  // most tokens go to experts 1 and 2: others stay empty
      perm[0] = 1;
      perm[1] = 2;
      for (std::size_t i = 2; i < perm.size(); ++i) perm[i] = std::int32_t(i + 1 < perm.size() ? i + 1 : 0);
    }
    for (std::int64_t k = 0; k < K; ++k) {
      if (rng() % 8 == 0) continue;  // unused slot
      r.expert_t_k[std::size_t(t * K + k)] = perm[std::size_t(k)];
      if (probs) {
        const auto pick = rng() % 16;
        r.prob_t_k[std::size_t(t * K + k)] =
            pick == 0 ? 0.0f : pick == 1 ? -0.0f : float(std::uniform_real_distribution<double>(0, 1)(rng));
      }
    }
  }
  return r;
}

// Random bf16 bits without NaN (Inf, subnormals and both zeros included).
Mat random_bf16(Rng& rng, std::int64_t rows, std::int64_t cols, bool allow_negative_zero = true) {
  Mat m = zeros(rows, cols * 2);
  for (std::int64_t i = 0; i < rows * cols; ++i) {
    std::uint16_t b;
    do {
      const auto pick = rng() % 64;
      b = pick == 0 ? 0x7F80 : pick == 1 ? 0xFF80 : pick == 2 ? 0x0001 : std::uint16_t(rng() >> 48);
      if ((rng() % 4) != 0) b = std::uint16_t((b & 0x807F) | ((0x3C + rng() % 8) << 7));  // mostly |x| in [2^-3, 2^4]
    } while ((b & 0x7FFF) > 0x7F80 || (!allow_negative_zero && b == 0x8000));
    std::memcpy(m.bytes.data() + 2 * i, &b, 2);
  }
  return m;
}

std::vector<std::uint8_t> probs_bytes(const std::vector<float>& p) {
  std::vector<std::uint8_t> out(p.size() * 4);
  if (!p.empty()) std::memcpy(out.data(), p.data(), out.size());
  return out;
}

// ----------------------------------------------------------------------------
// pad / unpad

struct PadCase {
  std::int64_t groups, max_small, extra_rows, cols, element_bytes, scale_cols, scale_bytes;
  bool huge;
};
const std::vector<PadCase> kPadCases{
    {1, 200, 0, 7, 2, 0, 0, false},   {3, 100, 0, 64, 1, 2, 1, false}, {4, 300, 5, 33, 2, 2, 4, true},
    {8, 60, 0, 16, 4, 1, 4, false},   {16, 400, 9, 10, 2, 1, 1, true}, {32, 80, 0, 96, 1, 3, 1, false},
    {64, 50, 31, 5, 2, 1, 4, false},  {128, 40, 0, 4, 1, 1, 1, false}, {5, 100, 2, 8, 1, 1, 1, true},
    {3, 50, 0, 3, 2, 0, 0, false}};

TEST(PadTokenGroups, MatchesTorchReference) {
  Rng rng(21);
  for (const std::int64_t alignment : {16, 32, 128}) {
    for (const auto& pc : kPadCases) {
      const auto sizes = adversarial_sizes(rng, pc.groups, pc.max_small, pc.huge);
      const auto offs = offs_from_sizes<std::int32_t>(sizes);
      std::vector<std::int64_t> offs64(offs.begin(), offs.end());
      const std::int64_t T = offs.back() + pc.extra_rows;
      const Mat x = random_mat(rng, T, pc.cols * pc.element_bytes);
      const Mat s = random_mat(rng, T, pc.scale_cols * pc.scale_bytes);
      const RowsView sv = pc.scale_cols ? view_of(s, pc.scale_bytes) : RowsView{};
      const auto got = octet::pad_token_groups(view_of(x, pc.element_bytes), std::span<const std::int32_t>(offs), alignment, sv);
      const auto want = torch_pad(x, offs64, alignment);
      const auto want_s = torch_pad(s, offs64, alignment);
      const std::string what = "pad G=" + std::to_string(pc.groups) + " align=" + std::to_string(alignment);
      EXPECT_EQ(got.data.rows, want.data.rows) << what;
      EXPECT_TRUE(bytes_equal(got.data.bytes, want.data.bytes, matrix_coords(pc.cols, pc.element_bytes), what + " data"));
      EXPECT_TRUE(bytes_equal(got.scales.bytes, want_s.data.bytes, matrix_coords(pc.scale_cols, pc.scale_bytes), what + " scales"));
      EXPECT_EQ(got.padded_starts, want.starts) << what;
      EXPECT_EQ(got.padded_offs, want.ends) << what;
      const auto got64 = octet::pad_token_groups(view_of(x, pc.element_bytes), std::span<const std::int64_t>(offs64), alignment, sv);
      EXPECT_EQ(got64.data.bytes, got.data.bytes) << what << " (int64 offs)";
    }
  }
}

TEST(PadTokenGroups, PadRowsAreZeroInDataAndScales) {
  Rng rng(22);
  const std::vector<std::int64_t> sizes{0, 1, 33, 0, 4100, 31, 0};
  const auto offs = offs_from_sizes<std::int64_t>(sizes);
  const std::int64_t T = offs.back() + 7, D = 12;
  Mat x = zeros(T, D * 2), s = zeros(T, 4);
  std::fill(x.bytes.begin(), x.bytes.end(), 0xFF);  // no real byte is zero
  std::fill(s.bytes.begin(), s.bytes.end(), 0xFF);
  const auto got = octet::pad_token_groups(view_of(x, 2), std::span<const std::int64_t>(offs), 32, view_of(s, 4));
  std::vector<bool> real(std::size_t(got.data.rows), false);
  for (std::size_t g = 0; g < sizes.size(); ++g)
    for (std::int64_t i = 0; i < sizes[g]; ++i) real[std::size_t(got.padded_starts[g] + i)] = true;
  for (std::int64_t r = 0; r < got.data.rows; ++r) {
    const std::uint8_t want = real[std::size_t(r)] ? 0xFF : 0x00;
    for (std::int64_t b = 0; b < D * 2; ++b) ASSERT_EQ(got.data.bytes[std::size_t(r * D * 2 + b)], want) << "data row " << r;
    for (std::int64_t b = 0; b < 4; ++b) ASSERT_EQ(got.scales.bytes[std::size_t(r * 4 + b)], want) << "scale row " << r;
  }
  EXPECT_EQ(got.data.rows, round_up(T + 7 * 32, 32));
  for (std::size_t g = 0; g < sizes.size(); ++g) EXPECT_EQ(got.padded_starts[g] % 32, 0) << g;
}

TEST(PadTokenGroups, PadThenUnpadIsIdentity) {
  Rng rng(23);
  for (const std::int64_t alignment : {16, 32, 128}) {
    for (const auto& pc : kPadCases) {
      const auto sizes = adversarial_sizes(rng, pc.groups, pc.max_small, pc.huge);
      const auto offs = offs_from_sizes<std::int64_t>(sizes);
      const std::int64_t T = offs.back();
      const Mat x = random_mat(rng, T, pc.cols * pc.element_bytes);
      const Mat s = random_mat(rng, T, pc.scale_cols * pc.scale_bytes);
      const RowsView sv = pc.scale_cols ? view_of(s, pc.scale_bytes) : RowsView{};
      const auto padded = octet::pad_token_groups(view_of(x, pc.element_bytes), std::span<const std::int64_t>(offs), alignment, sv);
      const auto back = octet::unpad_token_groups(padded.data.view(), std::span<const std::int64_t>(offs),
                                                  padded.padded_starts, T, padded.scales.view());
      const std::string what = "pad+unpad G=" + std::to_string(pc.groups) + " align=" + std::to_string(alignment);
      EXPECT_TRUE(bytes_equal(back.data.bytes, x.bytes, matrix_coords(pc.cols, pc.element_bytes), what));
      EXPECT_TRUE(bytes_equal(back.scales.bytes, s.bytes, matrix_coords(pc.scale_cols, pc.scale_bytes), what + " scales"));
    }
  }
}

TEST(UnpadTokenGroups, MatchesTorchReferenceWithTailRowsZero) {
  Rng rng(24);
  const auto sizes = adversarial_sizes(rng, 9, 90, true);
  const auto offs = offs_from_sizes<std::int32_t>(sizes);
  std::vector<std::int64_t> offs64(offs.begin(), offs.end());
  const std::int64_t T = offs.back() + 11;  // 11 rows past offs[-1]: dropped by pad, zero after unpad
  const Mat x = random_mat(rng, T, 10);
  const auto padded = octet::pad_token_groups(view_of(x, 2), std::span<const std::int32_t>(offs), 32);
  const Mat padded_mat{padded.data.bytes, padded.data.rows, 10};
  const auto got = octet::unpad_token_groups(padded.data.view(), std::span<const std::int32_t>(offs), padded.padded_starts, T);
  const Mat want = torch_unpad(padded_mat, offs64, padded.padded_starts, T);
  EXPECT_TRUE(bytes_equal(got.data.bytes, want.bytes, matrix_coords(5, 2), "unpad"));
  for (std::int64_t b = offs.back() * 10; b < T * 10; ++b) ASSERT_EQ(got.data.bytes[std::size_t(b)], 0) << "tail byte " << b;
}

// ----------------------------------------------------------------------------
// index permutation

std::vector<std::int64_t> random_bijection_with_pads(Rng& rng, std::int64_t tokens, std::int64_t pads) {
  std::vector<std::int64_t> idx(static_cast<std::size_t>(tokens));
  std::iota(idx.begin(), idx.end(), 0);
  idx.insert(idx.end(), std::size_t(pads), -1);
  std::shuffle(idx.begin(), idx.end(), rng);
  return idx;
}

TEST(PermuteTokens, MatchesIndexSelectAndScatter) {
  Rng rng(31);
  for (const auto& [T, D, eb, sc, sb] : std::vector<std::array<std::int64_t, 5>>{
           {1, 3, 1, 1, 1}, {100, 64, 1, 2, 1}, {257, 33, 2, 1, 4}, {1000, 8, 4, 2, 4}, {0, 5, 2, 0, 0}}) {
    const Mat x = random_mat(rng, T, D * eb), s = random_mat(rng, T, sc * sb);
    const RowsView sv = sc ? view_of(s, sb) : RowsView{};
    const auto idx = random_bijection_with_pads(rng, T, 1 + T / 7);
    const auto got = octet::permute_tokens(view_of(x, eb), std::span<const std::int64_t>(idx), sv);
    const std::string what = "T=" + std::to_string(T) + " elem=" + std::to_string(eb);
    EXPECT_TRUE(bytes_equal(got.data.bytes, torch_index_select(x, idx).bytes, matrix_coords(D, eb), what + " permute data"));
    EXPECT_TRUE(bytes_equal(got.scales.bytes, torch_index_select(s, idx).bytes, matrix_coords(sc, sb), what + " permute scales"));
    const Mat y{got.data.bytes, got.data.rows, D * eb};
    const auto back = octet::unpermute_tokens(got.data.view(), std::span<const std::int64_t>(idx), T, got.scales.view());
    EXPECT_TRUE(bytes_equal(back.data.bytes, torch_index_put(y, idx, T).bytes, matrix_coords(D, eb), what + " unpermute"));
    EXPECT_TRUE(bytes_equal(back.data.bytes, x.bytes, matrix_coords(D, eb), what + " round trip"));
    EXPECT_TRUE(bytes_equal(back.scales.bytes, s.bytes, matrix_coords(sc, sb), what + " round trip scales"));
    std::vector<std::int32_t> idx32(idx.begin(), idx.end());
    EXPECT_EQ(octet::permute_tokens(view_of(x, eb), std::span<const std::int32_t>(idx32), sv).data.bytes, got.data.bytes);
  }
}

TEST(PermuteTokens, MinusOneSelectsZeroRowAndUncoveredTokensAreZero) {
  Mat x = zeros(4, 2);
  std::fill(x.bytes.begin(), x.bytes.end(), 0xEE);
  const std::vector<std::int64_t> idx{2, -1, 0, -1};
  const auto got = octet::permute_tokens(view_of(x, 1), std::span<const std::int64_t>(idx));
  EXPECT_EQ(got.data.bytes, (std::vector<std::uint8_t>{0xEE, 0xEE, 0, 0, 0xEE, 0xEE, 0, 0}));
  const auto back = octet::unpermute_tokens(got.data.view(), std::span<const std::int64_t>(idx), 4);
  EXPECT_EQ(back.data.bytes, (std::vector<std::uint8_t>{0xEE, 0xEE, 0, 0, 0xEE, 0xEE, 0, 0}));  // tokens 1, 3 uncovered
}

// ----------------------------------------------------------------------------
// torchao permute_and_pad

TEST(PermuteAndPad, MatchesTorchaoReference) {
  Rng rng(41);
  struct EpCase {
    std::int64_t ranks, experts, alignment, max_count, extra_rows;
  };
  for (const auto& c : std::vector<EpCase>{{1, 1, 32, 100, 0}, {2, 4, 32, 70, 0}, {4, 8, 16, 50, 3},
                                           {2, 16, 128, 300, 0}, {8, 2, 32, 40, 10}, {1, 64, 32, 20, 0}}) {
    std::vector<std::int64_t> counts(std::size_t(c.ranks * c.experts));
    for (auto& n : counts) n = rng() % 3 == 0 ? 0 : std::int64_t(rng() % std::uint64_t(c.max_count));
    counts.front() = 0;
    if (c.experts > 1)
      for (std::int64_t r = 0; r < c.ranks; ++r) counts[std::size_t(r * c.experts + 1)] = 0;  // expert 1 empty
    std::int64_t total = 0;
    for (auto n : counts) total += n;
    const std::int64_t T = total + c.extra_rows;
    const Mat x = random_mat(rng, T, 48), s = random_mat(rng, T, 3);
    const auto got = octet::permute_and_pad(view_of(x, 1), std::span<const std::int64_t>(counts), c.ranks, c.experts,
                                            c.alignment, view_of(s, 1));
    const std::int64_t max_len = round_up(T + c.experts * c.alignment, c.alignment);
    const auto want = torchao_permute_indices(counts, c.ranks, c.experts, max_len, c.alignment);
    const std::string what = "ranks=" + std::to_string(c.ranks) + " E=" + std::to_string(c.experts);
    EXPECT_EQ(got.indices.permuted_indices, want.permuted_indices) << what;
    EXPECT_EQ(got.indices.m_sizes, want.m_sizes) << what;
    EXPECT_EQ(got.indices.m_offsets, want.m_offsets) << what;
    if (c.experts > 1) {
      EXPECT_EQ(got.indices.m_sizes[1], c.alignment) << what << ": an empty expert keeps one block";
    }
    EXPECT_TRUE(bytes_equal(got.rows.data.bytes, torch_index_select(x, want.permuted_indices).bytes, matrix_coords(48), what));
    EXPECT_TRUE(bytes_equal(got.rows.scales.bytes, torch_index_select(s, want.permuted_indices).bytes, matrix_coords(3),
                            what + " scales"));
    // The backward scatter brings every routed row back; rows past Σ counts stay zero.
    const auto back = octet::unpermute_tokens(got.rows.data.view(), std::span<const std::int64_t>(got.indices.permuted_indices), T);
    Mat want_back = x;
    std::fill(want_back.bytes.begin() + total * 48, want_back.bytes.end(), 0);
    EXPECT_TRUE(bytes_equal(back.data.bytes, want_back.bytes, matrix_coords(48), what + " unpermute"));
    std::vector<std::int32_t> counts32(counts.begin(), counts.end());
    EXPECT_EQ(octet::generate_permute_indices(std::span<const std::int32_t>(counts32), c.ranks, c.experts, max_len, c.alignment)
                  .permuted_indices, want.permuted_indices) << what;
  }
}

// ----------------------------------------------------------------------------
// TE fused permute+pad / unpermute+unpad

struct TeCase {
  std::int64_t T, K, E, D, element_bytes, scale_cols, scale_bytes;
  bool probs, skewed;
};
const std::vector<TeCase> kTeCases{
    {1, 1, 1, 8, 2, 1, 4, true, false},     {50, 1, 4, 16, 1, 1, 1, true, false},  {200, 2, 8, 32, 2, 1, 4, true, true},
    {300, 4, 16, 24, 1, 2, 4, false, false}, {100, 8, 64, 8, 1, 1, 1, true, true},  {64, 8, 128, 4, 2, 0, 0, true, false},
    {513, 6, 32, 40, 4, 1, 4, true, true},   {0, 2, 4, 8, 2, 1, 4, true, false}};

TEST(FusedPermutePad, MatchesTeReference) {
  Rng rng(51);
  for (const std::int64_t alignment : {1, 16, 32, 128}) {
    for (const auto& c : kTeCases) {
      const Routing r = random_routing(rng, c.T, c.K, c.E, c.probs, c.skewed);
      const Mat x = random_mat(rng, c.T, c.D * c.element_bytes), s = random_mat(rng, c.T, c.scale_cols * c.scale_bytes);
      const RowsView sv = c.scale_cols ? view_of(s, c.scale_bytes) : RowsView{};
      const auto got = octet::fused_permute_pad(view_of(x, c.element_bytes), r.view(), alignment, sv);
      const auto want = te_permute(x, s, r.expert_t_k, r.prob_t_k, c.K, c.E, alignment);
      const std::string what = "T=" + std::to_string(c.T) + " K=" + std::to_string(c.K) + " E=" + std::to_string(c.E) +
                               " align=" + std::to_string(alignment);
      EXPECT_EQ(got.map.rows, want.data.rows) << what;
      EXPECT_TRUE(bytes_equal(got.data.bytes, want.data.bytes, matrix_coords(c.D, c.element_bytes), what + " data"));
      EXPECT_TRUE(bytes_equal(got.scales.bytes, want.scales.bytes, matrix_coords(c.scale_cols, c.scale_bytes), what + " scales"));
      EXPECT_TRUE(bytes_equal(probs_bytes(got.probs), probs_bytes(want.probs), matrix_coords(1, 4), what + " probs"));
      for (std::int64_t e = 0; e < c.E; ++e) {
        const std::int64_t start = e == 0 ? 0 : got.map.padded_offs[std::size_t(e - 1)];
        EXPECT_EQ(start % alignment, 0) << what << " expert " << e;
      }
    }
  }
}

TEST(FusedPermutePad, PadRowsAreZeroDataZeroScaleZeroProb) {
  Rng rng(52);
  const Routing r = random_routing(rng, 300, 3, 8, true, true);
  Mat x = zeros(300, 16), s = zeros(300, 8);
  std::fill(x.bytes.begin(), x.bytes.end(), 0xFF);
  std::fill(s.bytes.begin(), s.bytes.end(), 0xFF);
  const auto got = octet::fused_permute_pad(view_of(x, 2), r.view(), 32, view_of(s, 4));
  std::vector<std::int64_t> route_of_row(std::size_t(got.map.rows), -1);
  for (std::size_t i = 0; i < got.map.row_t_k.size(); ++i)
    if (got.map.row_t_k[i] >= 0) route_of_row[std::size_t(got.map.row_t_k[i])] = std::int64_t(i);
  std::int64_t pad_rows = 0, zero_prob_rows = 0;
  for (std::int64_t row = 0; row < got.map.rows; ++row) {
    const std::int64_t route = route_of_row[std::size_t(row)];
    const bool pad = route < 0;
    const bool zero_prob = !pad && r.prob_t_k[std::size_t(route)] == 0.0f;
    pad_rows += pad;
    zero_prob_rows += zero_prob;
    for (std::int64_t b = 0; b < 16; ++b)
      ASSERT_EQ(got.data.bytes[std::size_t(row * 16 + b)], pad || zero_prob ? 0x00 : 0xFF) << "data row " << row;
    for (std::int64_t b = 0; b < 8; ++b)  // scale rows of prob-0 routes are still copied (TE)
      ASSERT_EQ(got.scales.bytes[std::size_t(row * 8 + b)], pad ? 0x00 : 0xFF) << "scale row " << row;
    if (pad) {
      ASSERT_EQ(std::bit_cast<std::uint32_t>(got.probs[std::size_t(row)]), 0u) << "prob row " << row;
    }
  }
  EXPECT_GT(pad_rows, 0);
  EXPECT_GT(zero_prob_rows, 0);
}

TEST(FusedUnpermuteUnpad, MatchesTeReferenceAllVariants) {
  Rng rng(53);
  for (const std::int64_t alignment : {1, 32, 128}) {
    for (const auto& c : kTeCases) {
      if (c.element_bytes == 1) continue;  // the combine reads bf16 or fp32
      const bool bf16 = c.element_bytes == 2;
      const Routing r = random_routing(rng, c.T, c.K, c.E, c.probs, c.skewed);
      const auto map = octet::make_row_id_map(r.view(), alignment);
      Mat permuted = bf16 ? random_bf16(rng, map.rows, c.D) : zeros(map.rows, c.D * 4);
      if (!bf16)
        for (std::int64_t i = 0; i < map.rows * c.D; ++i) {
          const float v = float(std::normal_distribution<double>(0, 8)(rng));
          std::memcpy(permuted.bytes.data() + 4 * i, &v, 4);
        }
      for (const auto order : {octet::CombineOrder::slot_ascending, octet::CombineOrder::row_descending})
        for (const bool fma : {false, true}) {
          const octet::CombineSpec spec{order, fma};
          const auto got = octet::fused_unpermute_unpad(view_of(permuted, c.element_bytes),
                                                        bf16 ? octet::InputType::bf16 : octet::InputType::fp32, map,
                                                        r.prob_t_k, spec);
          const Mat want = te_unpermute(permuted, bf16, r.expert_t_k, r.prob_t_k, c.T, c.K, c.E, alignment, spec);
          const std::string what = "T=" + std::to_string(c.T) + " K=" + std::to_string(c.K) + " align=" +
                                   std::to_string(alignment) + (order == octet::CombineOrder::slot_ascending ? " slot_ascending" : " row_descending") +
                                   (fma ? " fma" : " mul+add");
          EXPECT_TRUE(bytes_equal(got.bytes, want.bytes, matrix_coords(c.D, c.element_bytes), what));
        }
    }
  }
}

TEST(FusedPermutePad, PermuteThenUnpermuteIsIdentity) {  // prob 1, one route per token
  Rng rng(54);
  for (const std::int64_t alignment : {1, 16, 32, 128}) {
    for (const std::int64_t E : {1, 5, 64}) {
      const std::int64_t T = 777, D = 24;
      Routing r{T, 1, E, std::vector<std::int32_t>(T), std::vector<float>(T, 1.0f)};
      for (auto& e : r.expert_t_k) e = std::int32_t(rng() % std::uint64_t(E));
      const Mat x = random_bf16(rng, T, D, /*allow_negative_zero=*/false);
      const Mat s = random_mat(rng, T, 1);
      const auto permuted = octet::fused_permute_pad(view_of(x, 2), r.view(), alignment, view_of(s, 1));
      const auto back = octet::fused_unpermute_unpad(permuted.data.view(), octet::InputType::bf16, permuted.map, r.prob_t_k);
      EXPECT_TRUE(bytes_equal(back.bytes, x.bytes, matrix_coords(D, 2), "E=" + std::to_string(E) + " align=" + std::to_string(alignment)));
      const auto unweighted = octet::fused_unpermute_unpad(permuted.data.view(), octet::InputType::bf16, permuted.map, {});
      EXPECT_EQ(unweighted.bytes, x.bytes);
    }
  }
}

TEST(FusedUnpermuteUnpad, NegativeZeroCombinesToPositiveZero) {  // acc starts at +0 (tl.zeros)
  const std::vector<std::int32_t> experts{0};
  const std::vector<float> probs{1.0f};
  const auto map = octet::make_row_id_map({1, 1, 1, experts, probs});
  const std::vector<std::uint16_t> x{0x8000, 0x3F80};  // -0, 1
  const auto got = octet::fused_unpermute_unpad(RowsView::of(x, 1, 2), octet::InputType::bf16, map, probs);
  EXPECT_EQ(got.values<std::uint16_t>(), (std::vector<std::uint16_t>{0x0000, 0x3F80}));
}

TEST(FusedUnpermuteUnpad, SummationOrderIsANamedVariant) {
  // Routes of token 0 to experts 0, 1, 2 in slot order; rows ascending with the expert.
  const std::vector<std::int32_t> experts{0, 1, 2};
  const auto map = octet::make_row_id_map({1, 3, 3, experts, {}});
  const std::vector<float> x{16777216.0f, 1.0f, 1.0f};  // 2^24, 1, 1
  const auto view = RowsView::of(x, 3, 1);
  const auto asc = octet::fused_unpermute_unpad(view, octet::InputType::fp32, map, {});
  const auto desc = octet::fused_unpermute_unpad(view, octet::InputType::fp32, map, {}, {octet::CombineOrder::row_descending});
  EXPECT_EQ(asc.values<float>()[0], 16777216.0f);   // (2^24 + 1) + 1: each tie rounds to even
  EXPECT_EQ(desc.values<float>()[0], 16777218.0f);  // (1 + 1) + 2^24
}

TEST(FusedUnpermuteUnpad, FusedMultiplyAddIsANamedVariant) {
  const float a = -(1.0f + 0x1p-7f + 0x1p-23f), b = 1.0f + 0x1p-7f, p = 1.0f + 0x1p-23f;
  const std::vector<std::int32_t> experts{0, 1};
  const std::vector<float> probs{1.0f, p};
  const auto map = octet::make_row_id_map({1, 2, 2, experts, probs});
  const std::vector<float> x{a, b};
  const auto view = RowsView::of(x, 2, 1);
  const auto two_roundings = octet::fused_unpermute_unpad(view, octet::InputType::fp32, map, probs);
  const auto one_rounding = octet::fused_unpermute_unpad(view, octet::InputType::fp32, map, probs, {.fused_multiply_add = true});
  EXPECT_EQ(two_roundings.values<float>()[0], 0.0f);      // fl(b·p) = -a exactly cancels
  EXPECT_EQ(one_rounding.values<float>()[0], 0x1p-30f);   // the product's low bit survives
}

TEST(FusedUnpermuteUnpad, RoundsOnceToBf16WithIeeeOverflow) {
  // Column 0: 1·(1 + 2^-8) is a bf16 tie on its own (-> 1.0); plus 2^-20 from the second route
  // the single rounding of the fp32 sum goes up to 1 + 2^-7 (0x3F81).
  // Column 1: max_bf16·(1 + 2^-8) = (2 - 2^-15)·2^127 is finite in fp32 and rounds to +Inf in
  // bf16 under IEEE overflow (SatFinite would give 0x7F7F).
  const std::vector<std::int32_t> experts{0, 1};
  const std::vector<float> probs{1.0f + 0x1p-8f, 1.0f};
  const auto map = octet::make_row_id_map({1, 2, 2, experts, probs});
  const std::vector<std::uint16_t> x{0x3F80, 0x7F7F,   // row 0 (expert 0): 1, max
                                     0x3580, 0x0000};  // row 1 (expert 1): 2^-20, 0
  const auto got = octet::fused_unpermute_unpad(RowsView::of(x, 2, 2), octet::InputType::bf16, map, probs);
  EXPECT_EQ(got.values<std::uint16_t>(), (std::vector<std::uint16_t>{0x3F81, 0x7F80}));
}

TEST(FusedUnpermuteUnpad, Bf16RoundingIsOctetsEncodeForEveryTopHalf) {
  // One route per token, x = 1.0, prob = an fp32 pattern f: acc = +0 + 1·f is f (or +0 for -0),
  // so the output is the bf16 rounding of f. Every top half, with low halves at and around each
  // rounding-class boundary; want = octet::encode (the converter) and the independent RNE.
  const std::vector<std::uint32_t> lows{0x0000, 0x0001, 0x1234, 0x7FFF, 0x8000, 0x8001, 0xC000, 0xFFFF};
  const std::int64_t T = 65536 * std::int64_t(lows.size());
  std::vector<std::int32_t> experts(static_cast<std::size_t>(T), 0);
  std::vector<float> probs;
  for (std::uint32_t hi = 0; hi < 65536; ++hi)
    for (const auto lo : lows) probs.push_back(std::bit_cast<float>(hi << 16 | lo));
  const auto map = octet::make_row_id_map({T, 1, 1, experts, probs});
  std::vector<std::uint16_t> ones(static_cast<std::size_t>(T), 0x3F80);
  const auto got = octet::fused_unpermute_unpad(RowsView::of(ones, T, 1), octet::InputType::bf16, map, probs)
                       .values<std::uint16_t>();
  constexpr octet::CastSpec kSpec{.overflow = octet::Overflow::Ieee};
  std::int64_t mismatches = 0;
  for (std::int64_t t = 0; t < T; ++t) {
    const float acc = 0.0f + 1.0f * probs[std::size_t(t)];
    // A NaN sum is the CUDA canonical NaN, not the converter's NaN code.
    const auto want = std::isnan(acc) ? octet::kCudaCanonicalNanBf16
                                      : std::uint16_t(octet::encode(octet::bf16_format, kSpec, acc));
    if (got[std::size_t(t)] != want && ++mismatches <= 8)
      ADD_FAILURE() << "fp32 0x" << std::hex << std::bit_cast<std::uint32_t>(acc) << ": got 0x" << got[std::size_t(t)]
                    << " want 0x" << want;
    if (!std::isnan(acc)) {
      ASSERT_EQ(want, bf16_rne(acc)) << std::hex << std::bit_cast<std::uint32_t>(acc);
    }
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(FusedUnpermuteUnpad, NanSumsAreTheCudaCanonicalNan) {
  // Permuted rows (one column): -qNaN with payload, sNaN, +Inf, -Inf, 1. Token sums (topk 2):
  // t0 = the -qNaN, t1 = the sNaN, t2 = Inf + -Inf, t3 = Inf·0, t4 = 1 + 1 (finite control).
  // The GPU returns 0x7FFFFFFF for every NaN result whatever the operands; the emulator writes
  // those bits (fp32) and 0x7FFF (bf16) in both summation orders, with and without fma.
  const std::vector<std::uint32_t> x32{0xFFC10000u, 0x7F810000u, 0x7F800000u, 0xFF800000u, 0x3F800000u};
  std::vector<std::uint16_t> x16;  // the same values in bf16 (their low halves are zero)
  for (const auto b : x32) x16.push_back(std::uint16_t(b >> 16));
  octet::RowIdMap map;
  map.tokens = 5, map.topk = 2, map.rows = 5;
  map.row_t_k = {0, -1, 1, -1, 2, 3, 2, -1, 4, 4};
  const std::vector<float> probs{1, 0, 1, 0, 1, 1, 0, 0, 1, 1};
  const std::vector<std::uint32_t> want32{0x7FFFFFFFu, 0x7FFFFFFFu, 0x7FFFFFFFu, 0x7FFFFFFFu, 0x40000000u};
  const std::vector<std::uint16_t> want16{0x7FFF, 0x7FFF, 0x7FFF, 0x7FFF, 0x4000};
  for (const auto order : {octet::CombineOrder::slot_ascending, octet::CombineOrder::row_descending})
    for (const bool fma : {false, true}) {
      const octet::CombineSpec spec{order, fma};
      EXPECT_EQ(octet::fused_unpermute_unpad(RowsView::of(x32, 5, 1), octet::InputType::fp32, map, probs, spec)
                    .values<std::uint32_t>(),
                want32);
      EXPECT_EQ(octet::fused_unpermute_unpad(RowsView::of(x16, 5, 1), octet::InputType::bf16, map, probs, spec)
                    .values<std::uint16_t>(),
                want16);
    }
}

TEST(RoutingFromMask, AscendingExpertSlots) {
  const std::vector<std::uint8_t> mask{0, 1, 1, 0,  //
                                       1, 0, 0, 0,  //
                                       0, 0, 0, 0};
  const std::vector<float> probs{0, 0.25f, 0.75f, 0, 1, 0, 0, 0, 0, 0, 0, 0};
  const auto r = octet::routing_from_mask(mask, probs, 3, 4);
  EXPECT_EQ(r.topk, 2);
  EXPECT_EQ(r.expert_t_k, (std::vector<std::int32_t>{1, 2, 0, -1, -1, -1}));
  EXPECT_EQ(r.prob_t_k, (std::vector<float>{0.25f, 0.75f, 1.0f, 0, 0, 0}));
  const auto map = octet::make_row_id_map(r.view(), 16);
  EXPECT_EQ(map.tokens_per_expert, (std::vector<std::int64_t>{1, 1, 1, 0}));
  EXPECT_EQ(map.padded_offs, (std::vector<std::int64_t>{16, 32, 48, 48}));
  EXPECT_EQ(map.pad_offsets, (std::vector<std::int64_t>{0, 15, 30, 45}));
  EXPECT_EQ(map.row_t_k, (std::vector<std::int64_t>{16, 32, 0, -1, -1, -1}));
}

// ----------------------------------------------------------------------------
// Determinism and misuse

TEST(PadPermute, SameBytesForAnyThreadCount) {
  Rng rng(61);
  const Routing r = random_routing(rng, 1000, 4, 16, true, true);
  const Mat x = random_bf16(rng, 1000, 40), s = random_mat(rng, 1000, 4);
  const auto sizes = adversarial_sizes(rng, 16, 120, false);
  const auto offs = offs_from_sizes<std::int64_t>(sizes);
  const Mat xp = random_mat(rng, offs.back(), 40);
  const int saved = omp_get_max_threads();
  std::vector<std::vector<std::uint8_t>> runs;
  for (const int n : kThreadCounts) {
    omp_set_num_threads(n);
    auto p = octet::fused_permute_pad(view_of(x, 2), r.view(), 32, view_of(s, 4));
    auto out = octet::fused_unpermute_unpad(p.data.view(), octet::InputType::bf16, p.map, r.prob_t_k).bytes;
    out.insert(out.end(), p.data.bytes.begin(), p.data.bytes.end());
    const auto padded = octet::pad_token_groups(view_of(xp, 1), std::span<const std::int64_t>(offs), 32);
    out.insert(out.end(), padded.data.bytes.begin(), padded.data.bytes.end());
    runs.push_back(std::move(out));
  }
  omp_set_num_threads(saved);
  for (std::size_t i = 1; i < runs.size(); ++i)
    EXPECT_TRUE(bytes_equal(runs[i], runs[0], matrix_coords(1), std::to_string(kThreadCounts[i]) + " threads"));
}

TEST(PadPermute, MisuseNamesTheArgument) {
  const Mat x = zeros(10, 4);
  const RowsView xv = view_of(x, 2);
  const std::vector<std::int64_t> offs{4, 2, 10}, beyond{4, 11}, good{4, 10};
  EXPECT_TRUE(throws_naming([&] { octet::pad_token_groups(xv, std::span<const std::int64_t>(offs), 32); }, "offs is not monotonic"));
  EXPECT_TRUE(throws_naming([&] { octet::pad_token_groups(xv, std::span<const std::int64_t>(beyond), 32); }, "offs[1]"));
  EXPECT_TRUE(throws_naming([&] { octet::pad_token_groups(xv, std::span<const std::int64_t>(good), 0); }, "alignment"));
  EXPECT_TRUE(throws_naming([&] { octet::pad_token_groups({x.bytes.data(), 10, 4, 3}, std::span<const std::int64_t>(good), 32); },
                            "x: element_bytes"));
  const Mat s = zeros(9, 1);
  EXPECT_TRUE(throws_naming([&] { octet::pad_token_groups(xv, std::span<const std::int64_t>(good), 32, view_of(s, 1)); },
                            "scales: rows"));
  EXPECT_TRUE(throws_naming([&] { octet::pad_token_groups(xv, std::span<const std::int64_t>(good), 32, {s.bytes.data(), 9, 1, 2}); },
                            "scales: element_bytes"));
  const std::vector<std::int64_t> starts{0};
  EXPECT_TRUE(throws_naming([&] { octet::unpad_token_groups(xv, std::span<const std::int64_t>(good), starts, 10); }, "padded_starts"));
  const std::vector<std::int64_t> bad_starts{0, 8};
  EXPECT_TRUE(throws_naming([&] { octet::unpad_token_groups(xv, std::span<const std::int64_t>(good), bad_starts, 10); },
                            "padded_starts[1]"));
  const std::vector<std::int64_t> idx{0, 10};
  EXPECT_TRUE(throws_naming([&] { octet::permute_tokens(xv, std::span<const std::int64_t>(idx)); }, "permuted_indices[1]"));
  const std::vector<std::int64_t> dup{3, 3, -1, -1, -1, -1, -1, -1, -1, -1};
  EXPECT_TRUE(throws_naming([&] { octet::unpermute_tokens(xv, std::span<const std::int64_t>(dup), 10); }, "permuted_indices[1] = 3 repeats"));
  EXPECT_TRUE(throws_naming([&] { octet::unpermute_tokens(xv, std::span<const std::int64_t>(idx), 10); }, "permuted_indices: size"));
  const std::vector<std::int64_t> counts{3, 4, 5};
  EXPECT_TRUE(throws_naming([&] { octet::permute_and_pad(xv, std::span<const std::int64_t>(counts), 2, 2); }, "tokens_per_expert_group"));
  const std::vector<std::int64_t> negative{3, -1};
  EXPECT_TRUE(throws_naming([&] { octet::permute_and_pad(xv, std::span<const std::int64_t>(negative), 1, 2); },
                            "tokens_per_expert_group[1]"));

  const std::vector<std::int32_t> bad_expert{0, 4};
  EXPECT_TRUE(throws_naming([&] { octet::make_row_id_map({2, 1, 4, bad_expert, {}}); }, "routing.expert_t_k[1, 0] = 4"));
  const std::vector<std::int32_t> below{-2, 0};
  EXPECT_TRUE(throws_naming([&] { octet::make_row_id_map({2, 1, 4, below, {}}); }, "routing.expert_t_k[0, 0]"));
  const std::vector<std::int32_t> twice{1, 1};
  EXPECT_TRUE(throws_naming([&] { octet::make_row_id_map({1, 2, 4, twice, {}}); }, "twice"));
  const std::vector<std::int32_t> ok{0, 1};
  const std::vector<float> short_probs{1.0f};
  EXPECT_TRUE(throws_naming([&] { octet::make_row_id_map({2, 1, 4, ok, short_probs}); }, "routing.prob_t_k"));
  EXPECT_TRUE(throws_naming([&] { octet::make_row_id_map({3, 1, 4, ok, {}}); }, "routing.expert_t_k: size"));
  EXPECT_TRUE(throws_naming([&] { octet::fused_permute_pad(view_of(zeros(3, 4), 2), {2, 1, 4, ok, {}}, 32); }, "routing.tokens"));
  const auto map = octet::make_row_id_map({2, 1, 4, ok, {}}, 16);
  EXPECT_TRUE(throws_naming([&] { octet::fused_unpermute_unpad(view_of(zeros(32, 4), 4), octet::InputType::bf16, map, {}); },
                            "permuted.element_bytes"));
  EXPECT_TRUE(throws_naming([&] { octet::fused_unpermute_unpad(view_of(zeros(31, 4), 2), octet::InputType::bf16, map, {}); },
                            "permuted.rows"));
  EXPECT_TRUE(throws_naming([&] { octet::fused_unpermute_unpad(view_of(zeros(32, 4), 2), octet::InputType::bf16, map, short_probs); },
                            "merging_prob_t_k"));
  const std::vector<std::uint8_t> not_bool{0, 2};
  EXPECT_TRUE(throws_naming([&] { octet::routing_from_mask(not_bool, {}, 1, 2); }, "routing_map_t_e[0, 1]"));
}

}  // namespace
