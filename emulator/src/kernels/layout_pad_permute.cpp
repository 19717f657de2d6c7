// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// layout_pad_permute.cpp — token-group padding, index permutation, torchao permute_and_pad and
// the TE PR #1921 fused permute+pad / unpermute+unpad (reference/kernels.md §6, §7; peers in the
// header). Index bookkeeping runs sequentially; the row copies and the combine run in parallel
// over output rows / tokens, each written by exactly one iteration, so every byte is the same
// for any OpenMP thread count.
#include "octet/kernels/layout_pad_permute.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>

#include "octet/cast.hpp"
#include "octet/format.hpp"

namespace octet {
namespace {

using std::to_string;

std::int64_t round_up(std::int64_t x, std::int64_t a) { return (x + a - 1) / a * a; }

void check_rows(const RowsView& v, const std::string& what) {
  require(v.rows >= 0 && v.cols >= 0,
          what + ": negative shape (" + to_string(v.rows) + ", " + to_string(v.cols) + ")");
  require(v.element_bytes == 1 || v.element_bytes == 2 || v.element_bytes == 4,
          what + ": element_bytes must be 1 (fp8), 2 (bf16) or 4 (fp32), got " + to_string(v.element_bytes));
  require(v.data != nullptr || v.rows * v.cols == 0, what + ": null data for a non-empty matrix");
}

// Scales are optional (cols == 0); when present they must have one row per data row and be
// e8m0 bytes or fp32 scale_inv.
bool check_scales(const RowsView& s, std::int64_t data_rows, const std::string& what) {
  if (s.cols == 0) return false;
  require(s.cols > 0, what + ": negative column count " + to_string(s.cols));
  require(s.element_bytes == 1 || s.element_bytes == 4,
          what + ": element_bytes must be 1 (e8m0) or 4 (fp32), got " + to_string(s.element_bytes));
  require(s.data != nullptr || s.rows == 0, what + ": null data for a non-empty matrix");
  require_equal(s.rows, data_rows, what + ": rows (one scale row per data row)");
  return true;
}

void check_alignment(std::int64_t alignment) {
  require(alignment >= 1, "alignment must be >= 1, got " + to_string(alignment));
}

// A zero-filled buffer shaped like `like` with `rows` rows (0 columns for absent scales).
RowsBuffer zeros(std::int64_t rows, const RowsView& like) {
  RowsBuffer b;
  b.rows = rows;
  b.cols = like.cols;
  b.element_bytes = like.element_bytes;
  b.bytes.assign(std::size_t(rows * like.row_bytes()), 0);
  return b;
}

void copy_row(RowsBuffer& dst, std::int64_t dst_row, const RowsView& src, std::int64_t src_row) {
  const std::int64_t n = src.row_bytes();
  if (n > 0) std::memcpy(dst.bytes.data() + dst_row * n, src.data + src_row * n, std::size_t(n));
}

// Copies src row map_r[i] to dst row i for every i with map_r[i] >= 0 (rows with -1 stay zero).
void gather_rows(RowsBuffer& dst, const RowsView& src, const std::vector<std::int64_t>& map_r) {
  const std::int64_t n = std::int64_t(map_r.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i)
    if (map_r[std::size_t(i)] >= 0) copy_row(dst, i, src, map_r[std::size_t(i)]);
}

// ---- pad / unpad -------------------------------------------------------------------------------

template <class Int>
PaddedTokenGroups pad_impl(RowsView x, std::span<const Int> offs, std::int64_t alignment, RowsView scales) {
  check_rows(x, "x");
  check_alignment(alignment);
  const bool has_scales = check_scales(scales, x.rows, "scales");
  const Groups groups(offs, x.rows, 1, "offs");
  const std::int64_t G = groups.count();

  PaddedTokenGroups out;
  out.padded_starts.resize(std::size_t(G));
  out.padded_offs.resize(std::size_t(G));
  std::int64_t end = 0;
  for (std::int64_t g = 0; g < G; ++g) {
    out.padded_starts[std::size_t(g)] = end;
    end += round_up(groups.size(g), alignment);
    out.padded_offs[std::size_t(g)] = end;
  }
  const std::int64_t out_rows = round_up(x.rows + G * alignment, alignment);

  std::vector<std::int64_t> src_of_row(std::size_t(out_rows), -1);
  for (std::int64_t g = 0; g < G; ++g)
    for (std::int64_t i = 0; i < groups.size(g); ++i)
      src_of_row[std::size_t(out.padded_starts[std::size_t(g)] + i)] = groups.begin(g) + i;

  out.data = zeros(out_rows, x);
  gather_rows(out.data, x, src_of_row);
  out.scales = zeros(out_rows, has_scales ? scales : RowsView{});
  if (has_scales) gather_rows(out.scales, scales, src_of_row);
  return out;
}

template <class Int>
TokenRows unpad_impl(RowsView padded, std::span<const Int> offs, std::span<const std::int64_t> padded_starts,
                     std::int64_t num_tokens, RowsView padded_scales) {
  check_rows(padded, "padded");
  const bool has_scales = check_scales(padded_scales, padded.rows, "padded_scales");
  require(num_tokens >= 0, "num_tokens must be >= 0, got " + to_string(num_tokens));
  const Groups groups(offs, num_tokens, 1, "offs");
  const std::int64_t G = groups.count();
  require_equal(std::int64_t(padded_starts.size()), G, "padded_starts: size (one start per group)");

  std::vector<std::int64_t> src_of_row(std::size_t(num_tokens), -1);
  for (std::int64_t g = 0; g < G; ++g) {
    const std::int64_t start = padded_starts[std::size_t(g)];
    require(start >= 0 && start + groups.size(g) <= padded.rows,
            "padded_starts[" + to_string(g) + "] = " + to_string(start) + ": group of " + to_string(groups.size(g)) +
                " rows does not fit in the " + to_string(padded.rows) + " padded rows");
    for (std::int64_t i = 0; i < groups.size(g); ++i) src_of_row[std::size_t(groups.begin(g) + i)] = start + i;
  }
  TokenRows out;
  out.data = zeros(num_tokens, padded);
  gather_rows(out.data, padded, src_of_row);
  out.scales = zeros(num_tokens, has_scales ? padded_scales : RowsView{});
  if (has_scales) gather_rows(out.scales, padded_scales, src_of_row);
  return out;
}

// ---- gather / scatter ----------------------------------------------------------------------------

template <class Int>
TokenRows permute_impl(RowsView x, std::span<const Int> permuted_indices, RowsView scales) {
  check_rows(x, "x");
  const bool has_scales = check_scales(scales, x.rows, "scales");
  const std::int64_t n = std::int64_t(permuted_indices.size());
  std::vector<std::int64_t> src_of_row(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t src = std::int64_t(permuted_indices[std::size_t(i)]);
    require(src >= -1 && src < x.rows, "permuted_indices[" + to_string(i) + "] = " + to_string(src) +
                                           " is outside [-1, " + to_string(x.rows) + ")");
    src_of_row[std::size_t(i)] = src;
  }
  TokenRows out;
  out.data = zeros(n, x);
  gather_rows(out.data, x, src_of_row);
  out.scales = zeros(n, has_scales ? scales : RowsView{});
  if (has_scales) gather_rows(out.scales, scales, src_of_row);
  return out;
}

template <class Int>
TokenRows unpermute_impl(RowsView y, std::span<const Int> permuted_indices, std::int64_t num_tokens,
                         RowsView scales) {
  check_rows(y, "y");
  const bool has_scales = check_scales(scales, y.rows, "scales");
  require(num_tokens >= 0, "num_tokens must be >= 0, got " + to_string(num_tokens));
  require_equal(std::int64_t(permuted_indices.size()), y.rows, "permuted_indices: size (one index per row of y)");
  std::vector<std::int64_t> src_of_row(std::size_t(num_tokens), -1);
  for (std::int64_t i = 0; i < y.rows; ++i) {
    const std::int64_t dst = std::int64_t(permuted_indices[std::size_t(i)]);
    require(dst >= -1 && dst < num_tokens, "permuted_indices[" + to_string(i) + "] = " + to_string(dst) +
                                               " is outside [-1, " + to_string(num_tokens) + ")");
    if (dst < 0) continue;
    require(src_of_row[std::size_t(dst)] < 0, "permuted_indices[" + to_string(i) + "] = " + to_string(dst) +
                                                  " repeats permuted_indices[" +
                                                  to_string(src_of_row[std::size_t(dst)]) + "]: not invertible");
    src_of_row[std::size_t(dst)] = i;
  }
  TokenRows out;
  out.data = zeros(num_tokens, y);
  gather_rows(out.data, y, src_of_row);
  out.scales = zeros(num_tokens, has_scales ? scales : RowsView{});
  if (has_scales) gather_rows(out.scales, scales, src_of_row);
  return out;
}

// ---- torchao generate_permute_indices ------------------------------------------------------------

template <class Int>
PermuteIndices permute_indices_impl(std::span<const Int> counts, std::int64_t ep_degree, std::int64_t num_local_experts,
                                    std::int64_t max_len, std::int64_t alignment) {
  require(ep_degree >= 1, "ep_degree must be >= 1, got " + to_string(ep_degree));
  require(num_local_experts >= 1, "num_local_experts must be >= 1, got " + to_string(num_local_experts));
  require(max_len >= 0, "max_len must be >= 0, got " + to_string(max_len));
  check_alignment(alignment);
  require_equal(std::int64_t(counts.size()), ep_degree * num_local_experts,
                "tokens_per_expert_group: size (ep_degree · num_local_experts)");
  const std::int64_t E = num_local_experts;
  std::vector<std::int64_t> start(counts.size());  // exclusive cumsum: first input row of (rank, expert)
  std::int64_t sum = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    require(counts[i] >= 0, "tokens_per_expert_group[" + to_string(i) + "] = " + to_string(counts[i]) + " is negative");
    start[i] = sum;
    sum += std::int64_t(counts[i]);
  }
  PermuteIndices out;
  out.permuted_indices.assign(std::size_t(max_len), -1);
  out.m_sizes.resize(std::size_t(E));
  out.m_offsets.resize(std::size_t(E));
  std::int64_t end = 0;
  for (std::int64_t e = 0; e < E; ++e) {
    std::int64_t total = 0;
    for (std::int64_t r = 0; r < ep_degree; ++r) total += std::int64_t(counts[std::size_t(r * E + e)]);
    const std::int64_t m_size = round_up(std::max(total, alignment), alignment);  // clamp_min, then align
    std::int64_t write = end;
    for (std::int64_t r = 0; r < ep_degree; ++r) {
      const std::size_t i = std::size_t(r * E + e);
      for (std::int64_t j = 0; j < std::int64_t(counts[i]) && write + j < max_len; ++j)
        out.permuted_indices[std::size_t(write + j)] = start[i] + j;
      write += std::int64_t(counts[i]);
    }
    out.m_sizes[std::size_t(e)] = m_size;
    end += m_size;
    out.m_offsets[std::size_t(e)] = end;
  }
  return out;
}

template <class Int>
PermutedAndPadded permute_and_pad_impl(RowsView x, std::span<const Int> counts, std::int64_t ep_degree,
                                       std::int64_t num_local_experts, std::int64_t alignment, RowsView scales) {
  check_rows(x, "x");
  check_alignment(alignment);
  std::int64_t sum = 0;
  for (const Int c : counts) sum += std::int64_t(c);
  require(sum <= x.rows, "tokens_per_expert_group sums to " + to_string(sum) + ", more than the " +
                             to_string(x.rows) + " rows of x");
  require(num_local_experts >= 1, "num_local_experts must be >= 1, got " + to_string(num_local_experts));
  const std::int64_t max_len = round_up(x.rows + num_local_experts * alignment, alignment);
  PermutedAndPadded out;
  out.indices = permute_indices_impl(counts, ep_degree, num_local_experts, max_len, alignment);
  out.rows = permute_impl(x, std::span<const std::int64_t>(out.indices.permuted_indices), scales);
  return out;
}

// ---- TE fused permute+pad / unpermute+unpad -------------------------------------------------------

// acc[h] += float(row[h]) · p, either rounded twice (product, then sum) or once (fma). The
// library is compiled in ISO C++ mode, where GCC does not contract a·b + c on its own.
template <class Elem, bool kFma>
void accumulate(std::vector<float>& acc, const std::uint8_t* row, float p) {
  const std::size_t n = acc.size();
  for (std::size_t h = 0; h < n; ++h) {
    Elem e;
    std::memcpy(&e, row + h * sizeof(Elem), sizeof(Elem));
    float v;
    if constexpr (sizeof(Elem) == 2) v = bf16_to_float(e); else v = e;
    if constexpr (kFma) acc[h] = std::fma(v, p, acc[h]); else acc[h] = acc[h] + v * p;
  }
}

// fp32 -> bf16 with octet's converter (RNE, IEEE overflow: a sum beyond bf16's range becomes
// +-Inf, as the peer's fp32 -> bf16 cast does), through its memoised form (Fp32Encoder).
const Fp32Encoder& bf16_encoder() {
  static const Fp32Encoder encoder(bf16_format, CastSpec{.overflow = Overflow::Ieee});
  return encoder;
}

// A NaN sum becomes the CUDA canonical NaN (kCudaCanonicalNanBf16, what the peer's
// cvt.rn.bf16.f32 of the GPU's NaN sum writes), whatever the host's NaN bits.
void round_row_to_bf16(const Fp32Encoder& to_bf16, const float* acc, std::uint8_t* dst, std::int64_t n) {
  for (std::int64_t h = 0; h < n; ++h) {
    const std::uint16_t b = acc[h] != acc[h] ? kCudaCanonicalNanBf16 : std::uint16_t(to_bf16(acc[h]));
    std::memcpy(dst + 2 * h, &b, 2);
  }
}

// fp32 output: the sums as they are, a NaN sum as the CUDA canonical NaN (kCudaCanonicalNanFp32).
void store_row_fp32(const float* acc, std::uint8_t* dst, std::int64_t n) {
  for (std::int64_t h = 0; h < n; ++h) {
    const float v = canonical_nan_sum(acc[h]);
    std::memcpy(dst + 4 * h, &v, 4);
  }
}

void check_routing(const TokenRouting& r) {
  require(r.tokens >= 0 && r.topk >= 0, "routing: negative shape (tokens " + to_string(r.tokens) + ", topk " +
                                            to_string(r.topk) + ")");
  require(r.experts >= 1, "routing.experts must be >= 1, got " + to_string(r.experts));
  require_equal(std::int64_t(r.expert_t_k.size()), r.tokens * r.topk, "routing.expert_t_k: size (tokens · topk)");
  require(r.prob_t_k.empty() || std::int64_t(r.prob_t_k.size()) == r.tokens * r.topk,
          "routing.prob_t_k: size " + to_string(r.prob_t_k.size()) + ", expected 0 or tokens · topk = " +
              to_string(r.tokens * r.topk));
  for (std::int64_t t = 0; t < r.tokens; ++t)
    for (std::int64_t k = 0; k < r.topk; ++k) {
      const std::int64_t e = r.expert_t_k[std::size_t(t * r.topk + k)];
      require(e >= -1 && e < r.experts, "routing.expert_t_k[" + to_string(t) + ", " + to_string(k) + "] = " +
                                            to_string(e) + " is outside [-1, " + to_string(r.experts) + ")");
      for (std::int64_t j = 0; j < k && e >= 0; ++j)
        require(r.expert_t_k[std::size_t(t * r.topk + j)] != e,
                "routing.expert_t_k: token " + to_string(t) + " routes to expert " + to_string(e) + " twice (slots " +
                    to_string(j) + " and " + to_string(k) + ")");
    }
}

}  // namespace

PaddedTokenGroups pad_token_groups(RowsView x, std::span<const std::int32_t> offs, std::int64_t alignment,
                                   RowsView scales) {
  return pad_impl(x, offs, alignment, scales);
}
PaddedTokenGroups pad_token_groups(RowsView x, std::span<const std::int64_t> offs, std::int64_t alignment,
                                   RowsView scales) {
  return pad_impl(x, offs, alignment, scales);
}
TokenRows unpad_token_groups(RowsView padded, std::span<const std::int32_t> offs,
                             std::span<const std::int64_t> padded_starts, std::int64_t num_tokens,
                             RowsView padded_scales) {
  return unpad_impl(padded, offs, padded_starts, num_tokens, padded_scales);
}
TokenRows unpad_token_groups(RowsView padded, std::span<const std::int64_t> offs,
                             std::span<const std::int64_t> padded_starts, std::int64_t num_tokens,
                             RowsView padded_scales) {
  return unpad_impl(padded, offs, padded_starts, num_tokens, padded_scales);
}

TokenRows permute_tokens(RowsView x, std::span<const std::int32_t> permuted_indices, RowsView scales) {
  return permute_impl(x, permuted_indices, scales);
}
TokenRows permute_tokens(RowsView x, std::span<const std::int64_t> permuted_indices, RowsView scales) {
  return permute_impl(x, permuted_indices, scales);
}
TokenRows unpermute_tokens(RowsView y, std::span<const std::int32_t> permuted_indices, std::int64_t num_tokens,
                           RowsView scales) {
  return unpermute_impl(y, permuted_indices, num_tokens, scales);
}
TokenRows unpermute_tokens(RowsView y, std::span<const std::int64_t> permuted_indices, std::int64_t num_tokens,
                           RowsView scales) {
  return unpermute_impl(y, permuted_indices, num_tokens, scales);
}

PermuteIndices generate_permute_indices(std::span<const std::int32_t> tokens_per_expert_group, std::int64_t ep_degree,
                                        std::int64_t num_local_experts, std::int64_t max_len, std::int64_t alignment) {
  return permute_indices_impl(tokens_per_expert_group, ep_degree, num_local_experts, max_len, alignment);
}
PermuteIndices generate_permute_indices(std::span<const std::int64_t> tokens_per_expert_group, std::int64_t ep_degree,
                                        std::int64_t num_local_experts, std::int64_t max_len, std::int64_t alignment) {
  return permute_indices_impl(tokens_per_expert_group, ep_degree, num_local_experts, max_len, alignment);
}
PermutedAndPadded permute_and_pad(RowsView x, std::span<const std::int32_t> tokens_per_expert_group,
                                  std::int64_t ep_degree, std::int64_t num_local_experts, std::int64_t alignment,
                                  RowsView scales) {
  return permute_and_pad_impl(x, tokens_per_expert_group, ep_degree, num_local_experts, alignment, scales);
}
PermutedAndPadded permute_and_pad(RowsView x, std::span<const std::int64_t> tokens_per_expert_group,
                                  std::int64_t ep_degree, std::int64_t num_local_experts, std::int64_t alignment,
                                  RowsView scales) {
  return permute_and_pad_impl(x, tokens_per_expert_group, ep_degree, num_local_experts, alignment, scales);
}

OwnedRouting routing_from_mask(std::span<const std::uint8_t> routing_map_t_e, std::span<const float> probs_t_e,
                               std::int64_t tokens, std::int64_t experts) {
  require(tokens >= 0, "tokens must be >= 0, got " + to_string(tokens));
  require(experts >= 1, "experts must be >= 1, got " + to_string(experts));
  require_equal(std::int64_t(routing_map_t_e.size()), tokens * experts, "routing_map_t_e: size (tokens · experts)");
  require(probs_t_e.empty() || std::int64_t(probs_t_e.size()) == tokens * experts,
          "probs_t_e: size " + to_string(probs_t_e.size()) + ", expected 0 or tokens · experts = " +
              to_string(tokens * experts));
  OwnedRouting r;
  r.tokens = tokens;
  r.experts = experts;
  for (std::int64_t t = 0; t < tokens; ++t) {
    std::int64_t n = 0;
    for (std::int64_t e = 0; e < experts; ++e) {
      const std::uint8_t m = routing_map_t_e[std::size_t(t * experts + e)];
      require(m <= 1, "routing_map_t_e[" + to_string(t) + ", " + to_string(e) + "] = " + to_string(m) +
                          " is not a boolean (0 or 1)");
      n += m;
    }
    r.topk = std::max(r.topk, n);
  }
  r.expert_t_k.assign(std::size_t(tokens * r.topk), -1);
  if (!probs_t_e.empty()) r.prob_t_k.assign(std::size_t(tokens * r.topk), 0.0f);
  for (std::int64_t t = 0; t < tokens; ++t) {
    std::int64_t k = 0;
    for (std::int64_t e = 0; e < experts; ++e) {
      if (!routing_map_t_e[std::size_t(t * experts + e)]) continue;
      r.expert_t_k[std::size_t(t * r.topk + k)] = std::int32_t(e);
      if (!probs_t_e.empty()) r.prob_t_k[std::size_t(t * r.topk + k)] = probs_t_e[std::size_t(t * experts + e)];
      ++k;
    }
  }
  return r;
}

RowIdMap make_row_id_map(const TokenRouting& routing, std::int64_t alignment) {
  check_routing(routing);
  check_alignment(alignment);
  const std::int64_t T = routing.tokens, K = routing.topk, E = routing.experts;
  RowIdMap m;
  m.tokens = T;
  m.topk = K;
  m.experts = E;
  m.alignment = alignment;
  m.tokens_per_expert.assign(std::size_t(E), 0);
  for (const std::int32_t e : routing.expert_t_k)
    if (e >= 0) ++m.tokens_per_expert[std::size_t(e)];
  m.pad_offsets.resize(std::size_t(E));
  m.padded_offs.resize(std::size_t(E));
  std::vector<std::int64_t> next(static_cast<std::size_t>(E));  // next free permuted row of each expert
  std::int64_t unpadded = 0, padded = 0;
  for (std::int64_t e = 0; e < E; ++e) {
    const std::int64_t n = m.tokens_per_expert[std::size_t(e)];
    m.pad_offsets[std::size_t(e)] = padded - unpadded;
    next[std::size_t(e)] = padded;
    unpadded += n;
    padded += round_up(n, alignment);
    m.padded_offs[std::size_t(e)] = padded;
  }
  m.rows = padded;
  m.row_t_k.assign(std::size_t(T * K), -1);
  for (std::int64_t t = 0; t < T; ++t)  // tokens ascending inside each expert
    for (std::int64_t k = 0; k < K; ++k) {
      const std::int32_t e = routing.expert_t_k[std::size_t(t * K + k)];
      if (e >= 0) m.row_t_k[std::size_t(t * K + k)] = next[std::size_t(e)]++;
    }
  return m;
}

PermutedTokens fused_permute_pad(RowsView x, const TokenRouting& routing, std::int64_t alignment, RowsView scales) {
  check_rows(x, "x");
  const bool has_scales = check_scales(scales, x.rows, "scales");
  require_equal(routing.tokens, x.rows, "routing.tokens (rows of x)");
  PermutedTokens out;
  out.map = make_row_id_map(routing, alignment);
  const RowIdMap& m = out.map;
  const bool has_probs = !routing.prob_t_k.empty();

  // Per permuted row: the route (t·K + k) that fills it, or -1 for a pad row.
  std::vector<std::int64_t> route_of_row(std::size_t(m.rows), -1);
  for (std::int64_t i = 0; i < m.tokens * m.topk; ++i)
    if (m.row_t_k[std::size_t(i)] >= 0) route_of_row[std::size_t(m.row_t_k[std::size_t(i)])] = i;

  out.data = zeros(m.rows, x);
  out.scales = zeros(m.rows, has_scales ? scales : RowsView{});
  if (has_probs) out.probs.assign(std::size_t(m.rows), 0.0f);
  const std::int64_t K = m.topk;
#pragma omp parallel for schedule(static)
  for (std::int64_t row = 0; row < m.rows; ++row) {
    const std::int64_t route = route_of_row[std::size_t(row)];
    if (route < 0) continue;  // pad row: zero data, zero scale, zero prob
    const std::int64_t token = route / K;
    if (has_scales) copy_row(out.scales, row, scales, token);
    if (has_probs) {
      const float p = routing.prob_t_k[std::size_t(route)];
      out.probs[std::size_t(row)] = std::bit_cast<float>(std::bit_cast<std::uint32_t>(p));
      if (p == 0.0f) continue;  // routing-map padding slot: data row written as 0
    }
    copy_row(out.data, row, x, token);
  }
  return out;
}

RowsBuffer fused_unpermute_unpad(RowsView permuted, InputType type, const RowIdMap& map,
                                 std::span<const float> merging_prob_t_k, CombineSpec spec) {
  check_rows(permuted, "permuted");
  const std::int64_t want_bytes = type == InputType::bf16 ? 2 : 4;
  require_equal(permuted.element_bytes, want_bytes,
                std::string("permuted.element_bytes (") + (type == InputType::bf16 ? "bf16" : "fp32") + ")");
  require_equal(permuted.rows, map.rows, "permuted.rows (map.rows)");
  require(map.tokens >= 0 && map.topk >= 0, "map: negative shape");
  require_equal(std::int64_t(map.row_t_k.size()), map.tokens * map.topk, "map.row_t_k: size (tokens · topk)");
  require(merging_prob_t_k.empty() || std::int64_t(merging_prob_t_k.size()) == map.tokens * map.topk,
          "merging_prob_t_k: size " + to_string(merging_prob_t_k.size()) + ", expected 0 or tokens · topk = " +
              to_string(map.tokens * map.topk));
  for (std::size_t i = 0; i < map.row_t_k.size(); ++i)
    require(map.row_t_k[i] >= -1 && map.row_t_k[i] < map.rows,
            "map.row_t_k[" + to_string(i) + "] = " + to_string(map.row_t_k[i]) + " is outside [-1, " +
                to_string(map.rows) + ")");

  const std::int64_t T = map.tokens, K = map.topk, D = permuted.cols;
  const bool has_probs = !merging_prob_t_k.empty();
  RowsBuffer out;
  out.rows = T;
  out.cols = D;
  out.element_bytes = want_bytes;
  out.bytes.assign(std::size_t(T * D * want_bytes), 0);
  const Fp32Encoder* memo = type == InputType::bf16 ? &bf16_encoder() : nullptr;
#pragma omp parallel
  {
    std::vector<float> acc(static_cast<std::size_t>(D));
    std::vector<std::int64_t> slots(static_cast<std::size_t>(K));
#pragma omp for schedule(static)
    for (std::int64_t t = 0; t < T; ++t) {
      // The token's routes in summation order.
      std::int64_t n = 0;
      for (std::int64_t k = 0; k < K; ++k)
        if (map.row_t_k[std::size_t(t * K + k)] >= 0) slots[std::size_t(n++)] = k;
      if (spec.order == CombineOrder::row_descending)
        std::sort(slots.begin(), slots.begin() + n, [&](std::int64_t a, std::int64_t b) {
          return map.row_t_k[std::size_t(t * K + a)] > map.row_t_k[std::size_t(t * K + b)];
        });
      std::fill(acc.begin(), acc.end(), 0.0f);  // +0, as TE's tl.zeros
      for (std::int64_t s = 0; s < n; ++s) {
        const std::int64_t k = slots[std::size_t(s)];
        const std::uint8_t* row = permuted.data + map.row_t_k[std::size_t(t * K + k)] * permuted.row_bytes();
        const float p = has_probs ? merging_prob_t_k[std::size_t(t * K + k)] : 1.0f;
        if (type == InputType::bf16)
          spec.fused_multiply_add ? accumulate<std::uint16_t, true>(acc, row, p) : accumulate<std::uint16_t, false>(acc, row, p);
        else
          spec.fused_multiply_add ? accumulate<float, true>(acc, row, p) : accumulate<float, false>(acc, row, p);
      }
      std::uint8_t* dst = out.bytes.data() + t * D * want_bytes;
      if (type == InputType::bf16) {
        round_row_to_bf16(*memo, acc.data(), dst, D);
      } else {
        store_row_fp32(acc.data(), dst, D);
      }
    }
  }
  return out;
}

}  // namespace octet
