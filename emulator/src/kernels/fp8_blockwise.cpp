// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// fp8_blockwise.cpp — family 3, blockwise FP8 quantisers (1x128, 128x1, 128x128; torchao and
// DeepGEMM). Shapes, layouts, peers, padding and error rules are in
// include/octet/kernels/fp8_blockwise.hpp. Scale arithmetic and element casts come from the recipe
// API (scale.hpp) only.
#include "octet/kernels/fp8_blockwise.hpp"

#include <string>

#include "fp8_quant_detail.hpp"

namespace octet {

using fp8_detail::ceil_div;
using fp8_detail::kPanel;
using fp8_detail::layout;
constexpr std::int64_t kB = kFp8BlockSize;

namespace {

void require_multiple(std::int64_t value, const std::string& what, const std::string& peer_assert) {
  require(value % kB == 0, what + " = " + std::to_string(value) + " is not a multiple of 128 (" + peer_assert + ")");
}

// ---------------------------------------------------------------------------------------------
// Shared block loops.

// 128x1 blocks of x (M, D): rows [r0, r1) cut into 128-row blocks starting at r0, one block per
// (row block, column). Block (b, d) writes its data at q[d*qds + m*qms] (m the absolute row) and
// its scale at scales[(b0 + b)*sbs + d*sds].
template <class In>
void quantize_row_blocks(const Recipe& r, View2D<const In> x, std::int64_t r0, std::int64_t r1, std::uint8_t* q,
                         std::int64_t qms, std::int64_t qds, std::uint32_t* scales, std::int64_t b0, std::int64_t sbs,
                         std::int64_t sds) {
  const std::int64_t D = x.cols, nb = ceil_div(r1 - r0, kB), panels = ceil_div(D, kPanel);
#pragma omp parallel for schedule(dynamic, 1) collapse(2)
  for (std::int64_t b = 0; b < nb; ++b)
    for (std::int64_t p = 0; p < panels; ++p) {
      const std::int64_t m0 = r0 + b * kB, rows = std::min(kB, r1 - m0), d0 = p * kPanel;
      const std::int64_t count = std::min(kPanel, D - d0);
      const In* src = x.data + m0 * x.row_stride + d0 * x.col_stride;
      float amax[kPanel];
      BlockScale s[kPanel];
      fp8_detail::panel_amax(r, src, count, rows, x.col_stride, x.row_stride, amax);
      for (std::int64_t j = 0; j < count; ++j) {
        s[j] = scale_from_amax(r, amax[j]);
        scales[(b0 + b) * sbs + (d0 + j) * sds] = s[j].stored;
      }
      fp8_detail::panel_cast(r, s, src, count, rows, x.col_stride, x.row_stride, q + d0 * qds + m0 * qms, qds, qms);
    }
}

// 128x128 tiles (partial at the edges) of x (M, N), tile (i, j) visited row-major. Element (m, n)
// goes to q[m*qms + n*qns]; tile (i, j)'s scale to scales[i*sis + j*sjs].
template <class In>
void quantize_tiles(const Recipe& r, View2D<const In> x, std::uint8_t* q, std::int64_t qms, std::int64_t qns,
                    std::uint32_t* scales, std::int64_t sis, std::int64_t sjs) {
  const std::int64_t Mb = ceil_div(x.rows, kB), Nb = ceil_div(x.cols, kB);
#pragma omp parallel for schedule(static) collapse(2)
  for (std::int64_t i = 0; i < Mb; ++i)
    for (std::int64_t j = 0; j < Nb; ++j) {
      const std::int64_t m0 = i * kB, n0 = j * kB;
      const BlockScale s = fp8_detail::quantize_tile(r, x.data + m0 * x.row_stride + n0 * x.col_stride,
                                                     std::min(kB, x.rows - m0), std::min(kB, x.cols - n0), x.row_stride,
                                                     x.col_stride, q + m0 * qms + n0 * qns, qms, qns);
      scales[i * sis + j * sjs] = s.stored;
    }
}

// 1x128 blocks along the columns of every row of x (M, N) (the last block of a row may be
// partial). Element (m, n) goes to q[m*qms + n]; block (m, b) scale to scales[m*sms + b*sbs].
template <class In>
void quantize_col_blocks(const Recipe& r, View2D<const In> x, std::uint8_t* q, std::int64_t qms, std::uint32_t* scales,
                         std::int64_t sms, std::int64_t sbs) {
  const std::int64_t M = x.rows, N = x.cols, full = N / kB, tail = N % kB;
#pragma omp parallel for schedule(static)
  for (std::int64_t m = 0; m < M; ++m) {
    const In* row = x.data + m * x.row_stride;
    fp8_detail::quantize_runs(r, row, full, kB, kB * x.col_stride, x.col_stride, q + m * qms, kB, 1, scales + m * sms,
                              sbs);
    if (tail != 0)
      fp8_detail::quantize_runs(r, row + full * kB * x.col_stride, 1, tail, 0, x.col_stride, q + m * qms + full * kB, 0,
                                1, scales + m * sms + full * sbs, 0);
  }
}

// Token-group 128x1 blocks: data (m, d) at m + d*M, scale (block b, d) at b*D + d.
template <class In>
Fp8Quantized quantize_token_groups(View2D<const In> x, const Groups& groups, const Recipe& r) {
  const std::int64_t M = x.rows, D = x.cols;
  std::int64_t blocks = 0;
  for (std::int64_t g = 0; g < groups.count(); ++g) blocks += ceil_div(groups.size(g), kB);
  Fp8Quantized out;
  out.data.assign(std::size_t(M * D), 0);
  out.scales.assign(std::size_t(blocks * D), 0);
  std::int64_t b0 = 0;
  for (std::int64_t g = 0; g < groups.count(); ++g) {
    quantize_row_blocks(r, x, groups.begin(g), groups.end(g), out.data.data(), 1, M, out.scales.data(), b0, D, 1);
    b0 += ceil_div(groups.size(g), kB);
  }
  out.scale_layout = layout({blocks, D}, {D, 1});
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// torchao dense kernels.

template <class In>
Fp8Quantized fp8_blockwise_act_quant_lhs(View2D<const In> x_m_k, const Recipe& r) {
  fp8_detail::begin_call();
  fp8_detail::require_view(x_m_k, "x_m_k");
  fp8_detail::require_row_major(x_m_k, "x_m_k", "torchao asserts x.is_contiguous()");
  require_multiple(x_m_k.cols, "x_m_k: K", "torchao triton_fp8_blockwise_act_quant_lhs asserts x.size(-1) % 128 == 0");
  const std::int64_t M = x_m_k.rows, K = x_m_k.cols;
  Fp8Quantized out;
  out.data.assign(std::size_t(M * K), 0);
  out.data_layout = layout({M, K}, {K, 1});
  out.scales.assign(std::size_t(M * (K / kB)), 0);
  out.scale_layout = layout({M, K / kB}, {1, M});
  quantize_col_blocks(r, x_m_k, out.data.data(), K, out.scales.data(), 1, M);
  return out;
}

template <class In>
Fp8Quantized fp8_blockwise_act_quant_rhs(View2D<const In> x_m_k, const Recipe& r) {
  fp8_detail::begin_call();
  fp8_detail::require_view(x_m_k, "x_m_k");
  fp8_detail::require_row_major(x_m_k, "x_m_k", "torchao asserts x.is_contiguous()");
  require_multiple(x_m_k.cols, "x_m_k: K", "torchao triton_fp8_blockwise_act_quant_rhs asserts x.size(-1) % 128 == 0");
  const std::int64_t M = x_m_k.rows, K = x_m_k.cols, Mb = ceil_div(M, kB);
  Fp8Quantized out;
  out.data.assign(std::size_t(M * K), 0);
  out.data_layout = layout({M, K}, {1, M});
  out.scales.assign(std::size_t(Mb * K), 0);
  out.scale_layout = layout({Mb, K}, {K, 1});
  quantize_row_blocks(r, x_m_k, 0, M, out.data.data(), 1, M, out.scales.data(), 0, K, 1);
  return out;
}

template <class In>
Fp8Quantized fp8_blockwise_act_quant_transposed_lhs(View2D<const In> x_m_k, const Recipe& r) {
  fp8_detail::begin_call();
  fp8_detail::require_view(x_m_k, "x_m_k");
  fp8_detail::require_row_major(x_m_k, "x_m_k", "torchao asserts x.is_contiguous()");
  require_multiple(x_m_k.rows, "x_m_k: M",
                   "torchao triton_fp8_blockwise_act_quant_transposed_lhs asserts x.size(0) % 128 == 0");
  const std::int64_t M = x_m_k.rows, K = x_m_k.cols, Mb = M / kB;
  Fp8Quantized out;
  out.data.assign(std::size_t(M * K), 0);
  out.data_layout = layout({K, M}, {M, 1});  // (k, m) at k*M + m
  out.scales.assign(std::size_t(K * Mb), 0);
  out.scale_layout = layout({K, Mb}, {1, K});  // (k, b) at b*K + k
  quantize_row_blocks(r, x_m_k, 0, M, out.data.data(), 1, M, out.scales.data(), 0, K, 1);
  return out;
}

template <class In>
Fp8Quantized fp8_blockwise_weight_quant_rhs(View2D<const In> x_m_n, const Recipe& r) {
  fp8_detail::begin_call();
  fp8_detail::require_view(x_m_n, "x_m_n");
  fp8_detail::require_row_major(x_m_n, "x_m_n", "torchao asserts x.is_contiguous()");
  const std::string peer = "torchao triton_fp8_blockwise_weight_quant_rhs asserts both dims % 128 == 0";
  require_multiple(x_m_n.rows, "x_m_n: M", peer);
  require_multiple(x_m_n.cols, "x_m_n: N", peer);
  const std::int64_t M = x_m_n.rows, N = x_m_n.cols, Mb = M / kB, Nb = N / kB;
  Fp8Quantized out;
  out.data.assign(std::size_t(M * N), 0);
  out.data_layout = layout({M, N}, {1, M});
  out.scales.assign(std::size_t(Mb * Nb), 0);
  out.scale_layout = layout({Mb, Nb}, {1, Mb});
  quantize_tiles(r, x_m_n, out.data.data(), 1, M, out.scales.data(), 1, Mb);
  return out;
}

template <class In>
Fp8Quantized fp8_blockwise_weight_quant_transposed_rhs(View2D<const In> x_m_n, const Recipe& r) {
  fp8_detail::begin_call();
  fp8_detail::require_view(x_m_n, "x_m_n");
  fp8_detail::require_row_major(x_m_n, "x_m_n", "torchao asserts x.is_contiguous()");
  const std::string peer = "torchao triton_fp8_blockwise_weight_quant_transposed_rhs asserts both dims % 128 == 0";
  require_multiple(x_m_n.rows, "x_m_n: M", peer);
  require_multiple(x_m_n.cols, "x_m_n: N", peer);
  const std::int64_t M = x_m_n.rows, N = x_m_n.cols, Mb = M / kB, Nb = N / kB;
  Fp8Quantized out;
  out.data.assign(std::size_t(M * N), 0);
  out.data_layout = layout({N, M}, {1, N});  // (n, m) at m*N + n
  out.scales.assign(std::size_t(Mb * Nb), 0);
  out.scale_layout = layout({Nb, Mb}, {1, Nb});  // (j, i) at i*Nb + j
  quantize_tiles(r, x_m_n, out.data.data(), N, 1, out.scales.data(), Nb, 1);
  return out;
}

// ---------------------------------------------------------------------------------------------
// torchao 3D expert weights: tiles over (k, n) of each expert, visited row-major in (k, n).

namespace {
template <class In>
void check_expert_weights(const View3D<const In>& w, const char* peer) {
  fp8_detail::require_view(w, "w_e_k_n");
  fp8_detail::require_col_major_per_expert(w, "w_e_k_n", std::string("torchao ") + peer + " asserts it");
  const std::string why = std::string("torchao ") + peer + " asserts K and N % 128 == 0";
  require_multiple(w.rows, "w_e_k_n: K", why);
  require_multiple(w.cols, "w_e_k_n: N", why);
}
}  // namespace

template <class In>
Fp8Quantized fp8_blockwise_weight_quant_grouped_transposed_rhs(View3D<const In> w_e_k_n, const Recipe& r) {
  fp8_detail::begin_call();
  check_expert_weights(w_e_k_n, "triton_fp8_blockwise_weight_quant_grouped_transposed_rhs");
  const std::int64_t E = w_e_k_n.experts, K = w_e_k_n.rows, N = w_e_k_n.cols, Kb = K / kB, Nb = N / kB;
  Fp8Quantized out;
  out.data.assign(std::size_t(E * K * N), 0);
  out.data_layout = layout({E, K, N}, {K * N, 1, K});
  out.scales.assign(std::size_t(E * Kb * Nb), 0);
  out.scale_layout = layout({E, Kb, Nb}, {Kb * Nb, 1, Kb});
  for (std::int64_t e = 0; e < E; ++e)
    quantize_tiles(r, w_e_k_n.expert(e), out.data.data() + e * K * N, 1, K, out.scales.data() + e * Kb * Nb, 1, Kb);
  return out;
}

template <class In>
Fp8Quantized fp8_blockwise_weight_quant_grouped_rhs(View3D<const In> w_e_k_n, const Recipe& r) {
  fp8_detail::begin_call();
  check_expert_weights(w_e_k_n, "triton_fp8_blockwise_weight_quant_grouped_rhs");
  const std::int64_t E = w_e_k_n.experts, K = w_e_k_n.rows, N = w_e_k_n.cols, Kb = K / kB, Nb = N / kB;
  Fp8Quantized out;
  out.data.assign(std::size_t(E * N * K), 0);
  out.data_layout = layout({E, N, K}, {N * K, 1, N});  // (e, n, k) at e*N*K + k*N + n
  out.scales.assign(std::size_t(E * Nb * Kb), 0);
  out.scale_layout = layout({E, Nb, Kb}, {Nb * Kb, 1, Nb});  // (e, j, i) at e*Nb*Kb + i*Nb + j
  for (std::int64_t e = 0; e < E; ++e)
    quantize_tiles(r, w_e_k_n.expert(e), out.data.data() + e * N * K, N, 1, out.scales.data() + e * Nb * Kb, Nb, 1);
  return out;
}

Fp8Quantized fp8_blockwise_pad_scales_128x128(Fp8Quantized q, std::uint32_t pad_bits) {
  const Fp8Layout& in = q.scale_layout;
  const std::size_t rank = in.shape.size();
  require(rank == 2 || rank == 3,
          "q.scale_layout: expected 128x128 scales of rank 2 or 3, got rank " + std::to_string(rank));
  const std::int64_t E = rank == 3 ? in.shape[0] : 1, Kb = in.shape[rank - 2], Nb = in.shape[rank - 1];
  const bool k_major = (Kb <= 1 || in.strides[rank - 2] == 1) && (Nb <= 1 || in.strides[rank - 1] == Kb) &&
                       (rank == 2 || E <= 1 || in.strides[0] == Kb * Nb);
  require(k_major,
          "q.scale_layout: expected k-block-major strides (.., 1, k_blocks) as the torchao 128x128 "
          "kernels write them");
  require(std::int64_t(q.scales.size()) == E * Kb * Nb, "q.scales: size does not match q.scale_layout");
  const std::int64_t Kp = ceil_div(Kb, 4) * 4;
  std::vector<std::uint32_t> padded(std::size_t(E * Kp * Nb), pad_bits);
  for (std::int64_t e = 0; e < E; ++e)
    for (std::int64_t j = 0; j < Nb; ++j)
      for (std::int64_t i = 0; i < Kb; ++i)
        padded[std::size_t(e * Kp * Nb + j * Kp + i)] = q.scales[std::size_t(e * Kb * Nb + j * Kb + i)];
  q.scales = std::move(padded);
  q.scale_layout = rank == 3 ? layout({E, Kp, Nb}, {Kp * Nb, 1, Kp}) : layout({Kp, Nb}, {1, Kp});
  return q;
}

// ---------------------------------------------------------------------------------------------
// Token groups.

template <class In, class Int>
Fp8Quantized fp8_blockwise_act_quant_k_grouped_deepgemm(View2D<const In> x_m_d, std::span<const Int> offs,
                                                        const Recipe& r) {
  fp8_detail::begin_call();
  fp8_detail::require_view(x_m_d, "x_m_d");
  fp8_detail::require_row_major(x_m_d, "x_m_d", "torchao asserts x.is_contiguous()");
  const Groups groups(offs, x_m_d.rows, kB, "offs");  // the peer asserts group_size % 128 == 0
  const std::int64_t D = x_m_d.cols, T = groups.total(), VB = T / kB;
  Fp8Quantized out;
  out.data.assign(std::size_t(T * D), 0);
  out.data_layout = layout({T * D}, {1});
  out.scales.assign(std::size_t(D * VB), 0);
  out.scale_layout = layout({D, VB}, {VB, 1});
  for (std::int64_t g = 0; g < groups.count(); ++g) {
    const std::int64_t start = groups.begin(g), size = groups.size(g);
    // group g: (d, local m) at start*D + d*size + local m; block b of the group has scale column
    // start/128 + b.
    quantize_row_blocks(r, x_m_d, start, groups.end(g), out.data.data() + start * D - start, 1, size, out.scales.data(),
                        start / kB, 1, VB);
  }
  return out;
}

template <class In, class Int>
Fp8Quantized fp8_blockwise_act_quant_rhs_grouped(View2D<const In> x_m_d, std::span<const Int> offs, const Recipe& r) {
  fp8_detail::begin_call();
  fp8_detail::require_view(x_m_d, "x_m_d");
  const Groups groups(offs, x_m_d.rows, 1, "offs");
  Fp8Quantized out = quantize_token_groups(x_m_d, groups, r);
  out.data_layout = layout({x_m_d.rows, x_m_d.cols}, {1, x_m_d.rows});
  return out;
}

template <class In, class Int>
Fp8Quantized fp8_blockwise_act_quant_transposed_lhs_grouped(View2D<const In> x_m_d, std::span<const Int> offs,
                                                            const Recipe& r) {
  fp8_detail::begin_call();
  fp8_detail::require_view(x_m_d, "x_m_d");
  const Groups groups(offs, x_m_d.rows, 1, "offs");
  Fp8Quantized out = quantize_token_groups(x_m_d, groups, r);
  const std::int64_t blocks = out.scale_layout.shape[0], D = x_m_d.cols;
  out.data_layout = layout({D, x_m_d.rows}, {x_m_d.rows, 1});
  out.scale_layout = layout({D, blocks}, {1, D});
  return out;
}

// ---------------------------------------------------------------------------------------------
// DeepGEMM reference casts.

template <class In>
Fp8Quantized deepgemm_per_token_cast_to_fp8(View2D<const In> x_m_n, const Recipe& r) {
  fp8_detail::begin_call();
  fp8_detail::require_view(x_m_n, "x_m_n");
  const std::int64_t M = x_m_n.rows, N = x_m_n.cols, Nb = ceil_div(N, kB);
  Fp8Quantized out;
  out.data.assign(std::size_t(M * N), 0);
  out.data_layout = layout({M, N}, {N, 1});
  out.scales.assign(std::size_t(M * Nb), 0);
  out.scale_layout = layout({M, Nb}, {Nb, 1});
  quantize_col_blocks(r, x_m_n, out.data.data(), N, out.scales.data(), Nb, 1);
  return out;
}

template <class In>
Fp8Quantized deepgemm_per_channel_cast_to_fp8(View2D<const In> x_m_n, const Recipe& r) {
  fp8_detail::begin_call();
  fp8_detail::require_view(x_m_n, "x_m_n");
  require_multiple(x_m_n.rows, "x_m_n: m", "DeepGEMM per_channel_cast_to_fp8 asserts x.size(0) % 128 == 0");
  const std::int64_t M = x_m_n.rows, N = x_m_n.cols, Mb = M / kB;
  Fp8Quantized out;
  out.data.assign(std::size_t(M * N), 0);
  out.data_layout = layout({M, N}, {N, 1});
  out.scales.assign(std::size_t(Mb * N), 0);
  out.scale_layout = layout({Mb, N}, {N, 1});
  quantize_row_blocks(r, x_m_n, 0, M, out.data.data(), N, 1, out.scales.data(), 0, N, 1);
  return out;
}

template <class In>
Fp8Quantized deepgemm_per_block_cast_to_fp8(View2D<const In> x_m_n, const Recipe& r) {
  fp8_detail::begin_call();
  fp8_detail::require_view(x_m_n, "x_m_n");
  const std::int64_t M = x_m_n.rows, N = x_m_n.cols, Mb = ceil_div(M, kB), Nb = ceil_div(N, kB);
  Fp8Quantized out;
  out.data.assign(std::size_t(M * N), 0);
  out.data_layout = layout({M, N}, {N, 1});
  out.scales.assign(std::size_t(Mb * Nb), 0);
  out.scale_layout = layout({Mb, Nb}, {Nb, 1});
  quantize_tiles(r, x_m_n, out.data.data(), N, 1, out.scales.data(), Nb, 1);
  return out;
}

// ---------------------------------------------------------------------------------------------

#define OCTET_INSTANTIATE(In)                                                                                   \
  template Fp8Quantized fp8_blockwise_act_quant_lhs<In>(View2D<const In>, const Recipe&);                       \
  template Fp8Quantized fp8_blockwise_act_quant_rhs<In>(View2D<const In>, const Recipe&);                       \
  template Fp8Quantized fp8_blockwise_act_quant_transposed_lhs<In>(View2D<const In>, const Recipe&);            \
  template Fp8Quantized fp8_blockwise_weight_quant_rhs<In>(View2D<const In>, const Recipe&);                    \
  template Fp8Quantized fp8_blockwise_weight_quant_transposed_rhs<In>(View2D<const In>, const Recipe&);         \
  template Fp8Quantized fp8_blockwise_weight_quant_grouped_transposed_rhs<In>(View3D<const In>, const Recipe&); \
  template Fp8Quantized fp8_blockwise_weight_quant_grouped_rhs<In>(View3D<const In>, const Recipe&);            \
  template Fp8Quantized deepgemm_per_token_cast_to_fp8<In>(View2D<const In>, const Recipe&);                    \
  template Fp8Quantized deepgemm_per_channel_cast_to_fp8<In>(View2D<const In>, const Recipe&);                  \
  template Fp8Quantized deepgemm_per_block_cast_to_fp8<In>(View2D<const In>, const Recipe&);
#define OCTET_INSTANTIATE_GROUPED(In, Int)                                                                          \
  template Fp8Quantized fp8_blockwise_act_quant_k_grouped_deepgemm<In, Int>(View2D<const In>, std::span<const Int>, \
                                                                            const Recipe&);                         \
  template Fp8Quantized fp8_blockwise_act_quant_rhs_grouped<In, Int>(View2D<const In>, std::span<const Int>,        \
                                                                     const Recipe&);                                \
  template Fp8Quantized fp8_blockwise_act_quant_transposed_lhs_grouped<In, Int>(View2D<const In>,                   \
                                                                                std::span<const Int>, const Recipe&);
OCTET_INSTANTIATE(float)
OCTET_INSTANTIATE(std::uint16_t)
OCTET_INSTANTIATE_GROUPED(float, std::int32_t)
OCTET_INSTANTIATE_GROUPED(float, std::int64_t)
OCTET_INSTANTIATE_GROUPED(std::uint16_t, std::int32_t)
OCTET_INSTANTIATE_GROUPED(std::uint16_t, std::int64_t)
#undef OCTET_INSTANTIATE
#undef OCTET_INSTANTIATE_GROUPED

}  // namespace octet
