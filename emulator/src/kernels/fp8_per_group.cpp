// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// fp8_per_group.cpp — family 2, torchao jagged FP8-rowwise quantisers. Shapes, layouts, peers and
// the peer bugs octet does not reproduce (K1, K2) are in include/octet/kernels/fp8_per_group.hpp.
#include "octet/kernels/fp8_per_group.hpp"

#include "fp8_quant_detail.hpp"

namespace octet {

using fp8_detail::ceil_div;
using fp8_detail::kPanel;
using fp8_detail::layout;

namespace {

// Work items (group, first block of a panel): jagged groups make the items uneven, hence the
// dynamic schedule; the result does not depend on it.
struct Item {
  std::int64_t group, first;
};
std::vector<Item> items(std::int64_t groups, std::int64_t blocks_per_group) {
  std::vector<Item> out;
  const std::int64_t chunks = ceil_div(blocks_per_group, kPanel);
  out.reserve(std::size_t(groups * chunks));
  for (std::int64_t g = 0; g < groups; ++g)
    for (std::int64_t c = 0; c < chunks; ++c) out.push_back({g, c * kPanel});
  return out;
}

// One tensor of the colwise kernel: groups along rows, one block per (g, n).
template <class In>
Fp8Quantized colwise(View2D<const In> x, const Groups& groups, const Recipe& r) {
  const std::int64_t K = x.rows, N = x.cols, G = groups.count();
  Fp8Quantized out;
  out.data.assign(std::size_t(K * N), 0);
  out.data_layout = layout({K, N}, {1, K});
  out.scales.assign(std::size_t(N * G), 0);
  out.scale_layout = layout({N * G}, {1});

  const std::vector<Item> work = items(G, N);
  const std::int64_t n_items = std::int64_t(work.size());
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t i = 0; i < n_items; ++i) {
    const std::int64_t g = work[std::size_t(i)].group, n0 = work[std::size_t(i)].first;
    const std::int64_t count = std::min(kPanel, N - n0), begin = groups.begin(g), rows = groups.size(g);
    // block n: rows [begin, end) of column n; output (m, n) at n*K + m.
    fp8_detail::quantize_runs(r, x.data + begin * x.row_stride + n0 * x.col_stride, count, rows, x.col_stride,
                              x.row_stride, out.data.data() + n0 * K + begin, K, 1, out.scales.data() + g * N + n0, 1);
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

template <class In, class Int>
Fp8Quantized fp8_per_group_rowwise_scales(View2D<const In> x_m_k, std::span<const Int> offs, const Recipe& r) {
  fp8_detail::begin_call();
  fp8_detail::require_view(x_m_k, "x_m_k");
  const Groups groups(offs, x_m_k.cols, 1, "offs");
  const std::int64_t M = x_m_k.rows, K = x_m_k.cols, G = groups.count();
  Fp8Quantized out;
  out.data.assign(std::size_t(M * K), 0);
  out.data_layout = layout({M, K}, {K, 1});
  out.scales.assign(std::size_t(M * G), 0);
  out.scale_layout = layout({M * G}, {1});

  const std::vector<Item> work = items(G, M);
  const std::int64_t n_items = std::int64_t(work.size());
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t i = 0; i < n_items; ++i) {
    const std::int64_t g = work[std::size_t(i)].group, m0 = work[std::size_t(i)].first;
    const std::int64_t count = std::min(kPanel, M - m0), begin = groups.begin(g), cols = groups.size(g);
    // block m: columns [begin, end) of row m; output (m, k) at m*K + k.
    fp8_detail::quantize_runs(r, x_m_k.data + m0 * x_m_k.row_stride + begin * x_m_k.col_stride, count, cols,
                              x_m_k.row_stride, x_m_k.col_stride, out.data.data() + m0 * K + begin, K, 1,
                              out.scales.data() + g * M + m0, 1);
  }
  return out;
}

template <class In, class Int>
Fp8Quantized fp8_per_group_colwise_scales(View2D<const In> x_k_n, std::span<const Int> offs, const Recipe& r) {
  fp8_detail::begin_call();
  fp8_detail::require_view(x_k_n, "x_k_n");
  const Groups groups(offs, x_k_n.rows, 1, "offs");
  return colwise(x_k_n, groups, r);
}

template <class In, class Int>
std::pair<Fp8Quantized, Fp8Quantized> fp8_per_group_colwise_scales_dual(View2D<const In> x1_k_n1,
                                                                        View2D<const In> x2_k_n2,
                                                                        std::span<const Int> offs, const Recipe& r) {
  fp8_detail::begin_call();
  fp8_detail::require_view(x1_k_n1, "x1_k_n1");
  fp8_detail::require_view(x2_k_n2, "x2_k_n2");
  require_equal(x2_k_n2.rows, x1_k_n1.rows, "x2_k_n2: rows (K) must equal the rows of x1_k_n1");
  const Groups groups(offs, x1_k_n1.rows, 1, "offs");
  return {colwise(x1_k_n1, groups, r), colwise(x2_k_n2, groups, r)};
}

#define OCTET_INSTANTIATE(In, Int)                                                                                    \
  template Fp8Quantized fp8_per_group_rowwise_scales<In, Int>(View2D<const In>, std::span<const Int>, const Recipe&); \
  template Fp8Quantized fp8_per_group_colwise_scales<In, Int>(View2D<const In>, std::span<const Int>, const Recipe&); \
  template std::pair<Fp8Quantized, Fp8Quantized> fp8_per_group_colwise_scales_dual<In, Int>(                          \
      View2D<const In>, View2D<const In>, std::span<const Int>, const Recipe&);
OCTET_INSTANTIATE(float, std::int32_t)
OCTET_INSTANTIATE(float, std::int64_t)
OCTET_INSTANTIATE(std::uint16_t, std::int32_t)
OCTET_INSTANTIATE(std::uint16_t, std::int64_t)
#undef OCTET_INSTANTIATE

}  // namespace octet
