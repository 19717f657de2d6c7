// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// fp8_rowwise.cpp — family 1, torchao FP8-rowwise MoE quantisers. Shapes, layouts and peers are in
// include/octet/kernels/fp8_rowwise.hpp. Scale arithmetic and element casts come from the recipe
// API (scale.hpp) only.
#include "octet/kernels/fp8_rowwise.hpp"

#include "fp8_quant_detail.hpp"

namespace octet {

using fp8_detail::ceil_div;
using fp8_detail::kPanel;
using fp8_detail::layout;

// ---------------------------------------------------------------------------------------------
// A (M, K) -> data (M, K) row-major, scales (M, 1): one block per row.

template <class In>
Fp8Quantized fp8_rowwise_2d_scale_and_cast(View2D<const In> a_m_k, const Recipe& r) {
  fp8_detail::begin_call();
  fp8_detail::require_view(a_m_k, "a_m_k");
  const std::int64_t M = a_m_k.rows, K = a_m_k.cols;
  Fp8Quantized out;
  out.data.assign(std::size_t(M * K), 0);
  out.data_layout = layout({M, K}, {K, 1});
  out.scales.assign(std::size_t(M), 0);
  out.scale_layout = layout({M, 1}, {1, 1});

  const std::int64_t chunks = ceil_div(M, kPanel);
#pragma omp parallel for schedule(static)
  for (std::int64_t c = 0; c < chunks; ++c) {
    const std::int64_t m0 = c * kPanel, count = std::min(kPanel, M - m0);
    fp8_detail::quantize_runs(r, a_m_k.data + m0 * a_m_k.row_stride, count, K, a_m_k.row_stride, a_m_k.col_stride,
                              out.data.data() + m0 * K, K, 1, out.scales.data() + m0, 1);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// B_t (E, K, N) per-expert column-major -> same layout, scales (E, 1, N): one block per (e, n),
// a contiguous run over k.

template <class In>
Fp8Quantized fp8_colwise_3d_scale_and_cast(View3D<const In> b_e_k_n, const Recipe& r) {
  fp8_detail::begin_call();
  fp8_detail::require_view(b_e_k_n, "b_e_k_n");
  fp8_detail::require_col_major_per_expert(b_e_k_n, "b_e_k_n",
                                           "the forward weight B_t must be per-expert column-major");
  const std::int64_t E = b_e_k_n.experts, K = b_e_k_n.rows, N = b_e_k_n.cols;
  Fp8Quantized out;
  out.data.assign(std::size_t(E * K * N), 0);
  out.data_layout = layout({E, K, N}, {K * N, 1, K});
  out.scales.assign(std::size_t(E * N), 0);
  out.scale_layout = layout({E, 1, N}, {N, N, 1});

  const std::int64_t chunks_per_expert = ceil_div(N, kPanel), chunks = E * chunks_per_expert;
#pragma omp parallel for schedule(static)
  for (std::int64_t c = 0; c < chunks; ++c) {
    const std::int64_t e = c / chunks_per_expert, n0 = (c % chunks_per_expert) * kPanel;
    const std::int64_t count = std::min(kPanel, N - n0);
    const In* x = b_e_k_n.data + e * b_e_k_n.expert_stride + n0 * b_e_k_n.col_stride;
    fp8_detail::quantize_runs(r, x, count, K, b_e_k_n.col_stride, b_e_k_n.row_stride,
                              out.data.data() + e * K * N + n0 * K, K, 1, out.scales.data() + e * N + n0, 1);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// B_t (E, K, N) -> data (E, N, K) strides (N*K, 1, N), scales (E, K): one block per (e, k), a run
// over n. Output element (e, n, k) sits at e*N*K + k*N + n, so each block's run is contiguous in
// the output.

template <class In>
Fp8Quantized fp8_rowwise_3d_transpose_rhs(View3D<const In> b_e_k_n, const Recipe& r) {
  fp8_detail::begin_call();
  fp8_detail::require_view(b_e_k_n, "b_e_k_n");
  const std::int64_t E = b_e_k_n.experts, K = b_e_k_n.rows, N = b_e_k_n.cols;
  Fp8Quantized out;
  out.data.assign(std::size_t(E * N * K), 0);
  out.data_layout = layout({E, N, K}, {N * K, 1, N});
  out.scales.assign(std::size_t(E * K), 0);
  out.scale_layout = layout({E, K}, {K, 1});

  const std::int64_t chunks_per_expert = ceil_div(K, kPanel), chunks = E * chunks_per_expert;
#pragma omp parallel for schedule(static)
  for (std::int64_t c = 0; c < chunks; ++c) {
    const std::int64_t e = c / chunks_per_expert, k0 = (c % chunks_per_expert) * kPanel;
    const std::int64_t count = std::min(kPanel, K - k0);
    const In* x = b_e_k_n.data + e * b_e_k_n.expert_stride + k0 * b_e_k_n.row_stride;
    fp8_detail::quantize_runs(r, x, count, N, b_e_k_n.row_stride, b_e_k_n.col_stride,
                              out.data.data() + e * N * K + k0 * N, N, 1, out.scales.data() + e * K + k0, 1);
  }
  return out;
}

#define OCTET_INSTANTIATE(In)                                                               \
  template Fp8Quantized fp8_rowwise_2d_scale_and_cast<In>(View2D<const In>, const Recipe&); \
  template Fp8Quantized fp8_colwise_3d_scale_and_cast<In>(View3D<const In>, const Recipe&); \
  template Fp8Quantized fp8_rowwise_3d_transpose_rhs<In>(View3D<const In>, const Recipe&);
OCTET_INSTANTIATE(float)
OCTET_INSTANTIATE(std::uint16_t)
#undef OCTET_INSTANTIATE

}  // namespace octet
