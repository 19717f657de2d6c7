// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// a2a_emulation.cpp — family 8: all-to-all dispatch / combine over simulated ranks
// (reference/kernels.md §7, §10), a bit-exact CPU reference for
//   torchao   torchao/prototype/moe_training/kernels/mxfp8/comms.py::to_mxfp8_a2a_dequant
//             (ToMXFP8AllToAllVDequant.forward / .backward)          -> a2a_exchange(mxfp8)
//   DeepEP    csrc/kernels/legacy/internode_ll.cu low-latency dispatch, FP8 1x128 (use_fp8,
//             round_scale) and its BF16 combine (top-k weighted fp32 reduction)
//                                                                    -> a2a_exchange(fp8_blockwise),
//                                                                       a2a_combine(passthrough)
//   torch     torch.distributed all_to_all_single (input/output split sizes) -> A2aPlan
// Shapes and semantics: a2a_emulation.hpp.
//
// Structure: quantise with the existing rowwise quantisers (mx_quantize_dim0 on the send buffer, then
// exchange data rows with their scale rows by permute_tokens (layout_pad_permute.hpp, a bit-for-bit
// gather along A2aPlan::gather); fp8_blockwise: the 1x128 blocks of fp8_blockwise_act_quant_lhs,
// each received row quantised from its gathered source row — rows are independent, so quantising
// before or after the exchange is the same), dequantise (mx_dequantize_dim0_*, or dequantize_element
// of the recipe for fp32 scales, memoised per stored scale). The combine's reduction is
// fused_unpermute_unpad. This file holds no scale or cast arithmetic of its own.
#include "octet/kernels/a2a_emulation.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "octet/cast.hpp"
#include "octet/kernels/fp8_blockwise.hpp"
#include "octet/kernels/mx_quantize.hpp"
#include "fp8_quant_detail.hpp"

namespace octet {
namespace {

std::string str(std::string_view s) { return std::string(s); }
std::string num(std::int64_t v) { return std::to_string(v); }

// bf16 rounding of a dequantised value: as mx_dequantize_dim0_bf16 (torch's cast: RNE, IEEE
// overflow, NaN -> 0x7FC0).
constexpr CastSpec kBf16Dequant{.rounding = Rounding::NearestEven, .overflow = Overflow::Ieee,
                                .nan = NanPolicy::Canonical};

template <class In>
In round_dequantized(double v) {
  if constexpr (std::is_same_v<In, float>) return std::isnan(v) ? std::numeric_limits<float>::quiet_NaN() : float(v);
  else return std::uint16_t(encode(bf16_format, kBf16Dequant, v));
}

std::int64_t payload_block(A2aPayload p) {
  switch (p) {
    case A2aPayload::mxfp8: return kMxBlockSize;
    case A2aPayload::fp8_blockwise: return kFp8BlockSize;
    default: return 0;
  }
}

void check_recipe(A2aPayload p, const Recipe& r, const std::string& kernel) {
  if (p == A2aPayload::passthrough) return;
  const Format& f = format_of(element_format(r));
  require(f.bits() == 8, kernel + ": recipe '" + str(name(r)) + "' has " + num(f.bits()) +
                             "-bit elements; the a2a payload is one byte per element");
  if (p == A2aPayload::mxfp8)
    require(storage(r) == ScaleStorage::E8m0, kernel + ": payload mxfp8 needs an e8m0 recipe; recipe '" +
                                                  str(name(r)) + "' stores " + str(name(storage(r))) + " scales");
  else
    require(storage(r) == ScaleStorage::DecodeFp32 || storage(r) == ScaleStorage::EncodeFp32,
            kernel + ": payload fp8_blockwise needs an fp32-scale recipe; recipe '" + str(name(r)) + "' stores " +
                str(name(storage(r))) + " scales");
}

template <class T>
void check_contiguous(View2D<T> v, const std::string& kernel, const char* what) {
  require(v.rows >= 0 && v.cols >= 0, kernel + ": " + what + " has a negative shape (" + num(v.rows) + ", " +
                                          num(v.cols) + ")");
  require(v.data != nullptr || v.rows * v.cols == 0, kernel + ": " + what + ".data is null");
  require(v.rows <= 1 || v.cols == 0 || (v.col_stride == 1 && v.row_stride == v.cols),
          kernel + ": " + what + " must be row-major contiguous (strides (" + num(v.cols) + ", 1)), got (" +
              num(v.row_stride) + ", " + num(v.col_stride) + "); all_to_all_single takes contiguous tensors");
  require(v.rows != 1 || v.cols <= 1 || v.col_stride == 1,
          kernel + ": " + what + " must be row-major contiguous (col_stride 1), got " + num(v.col_stride));
}

// The e4m3 data and stored fp32 scales of the received rows, row-major.
struct Quantised {
  std::vector<std::uint8_t> data;      // (N, H)
  std::vector<std::uint32_t> scale32;  // (N, H/128) fp32 bits
};

// fp8_blockwise_act_quant_lhs (1x128 blocks along each row, fp32 scales) of the received rows:
// row n is quantised straight from x's row gather[n] into row n of the output. Rows are
// independent, so this equals quantise-then-permute, without the send buffer, the scale transpose
// and the permute copy (three passes and two zero-filled 85 MB buffers on the benchmark shape).
template <class In>
Quantised quantise_gathered(View2D<const In> x, const std::vector<std::int64_t>& gather, const Recipe& r) {
  const std::int64_t N = std::int64_t(gather.size()), H = x.cols, B = kFp8BlockSize, NB = H / B;
  Quantised q;
  q.data.resize(std::size_t(N * H));
  q.scale32.resize(std::size_t(N * NB));
  fp8_detail::begin_call();
#pragma omp parallel for schedule(dynamic, 16)  // rows of equal cost, but the 2 cores are shared
  for (std::int64_t n = 0; n < N; ++n)
    fp8_detail::quantize_runs(r, x.data + gather[std::size_t(n)] * x.row_stride, NB, B, B, 1, q.data.data() + n * H, B,
                              1, q.scale32.data() + n * NB, 1);
  return q;
}

template <class T>
std::vector<T> take(const RowsBuffer& b) {
  return b.values<T>();
}

// Dequantisation of 1xB blocks with fp32 stored scales: element (n, c) is
// round(dequantize_element(r, scale_from_stored(r, scales[n][c / B]), data[n][c])). A memo of exactly
// that function: every stored scale that covers at least kLutMinElements elements gets a table of its
// 256 results (activations are bf16, so block amaxes, and with them the scales, repeat); rarer scales
// call the recipe per element.
constexpr std::int64_t kLutMinElements = 1024;

template <class In>
std::vector<In> dequantize_fp32_scaled(const Recipe& r, const std::vector<std::uint8_t>& data,
                                       const std::vector<std::uint32_t>& scales, std::int64_t N, std::int64_t H,
                                       std::int64_t B) {
  const std::int64_t NB = H / B;
  std::vector<std::uint32_t> keys(scales);
  std::sort(keys.begin(), keys.end());
  std::vector<std::uint32_t> lut_keys;  // sorted distinct scales with a table
  for (std::size_t i = 0; i < keys.size();) {
    std::size_t j = i;
    while (j < keys.size() && keys[j] == keys[i]) ++j;
    if (std::int64_t(j - i) * B >= kLutMinElements) lut_keys.push_back(keys[i]);
    i = j;
  }
  std::vector<In> lut(lut_keys.size() * 256);
  const std::int64_t entries = std::int64_t(lut.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t e = 0; e < entries; ++e) {
    const BlockScale s = scale_from_stored(r, lut_keys[std::size_t(e / 256)]);
    lut[std::size_t(e)] = round_dequantized<In>(dequantize_element(r, s, std::uint32_t(e % 256)));
  }
  std::vector<In> out(std::size_t(N * H));
#pragma omp parallel for schedule(dynamic, 16)  // rows of equal cost, but the 2 cores are shared
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t kb = 0; kb < NB; ++kb) {
      const std::uint32_t key = scales[std::size_t(n * NB + kb)];
      const auto it = std::lower_bound(lut_keys.begin(), lut_keys.end(), key);
      const std::size_t i0 = std::size_t(n * H + kb * B);
      if (it != lut_keys.end() && *it == key) {
        const In* table = lut.data() + (it - lut_keys.begin()) * 256;
        for (std::int64_t c = 0; c < B; ++c) out[i0 + std::size_t(c)] = table[data[i0 + std::size_t(c)]];
      } else {
        const BlockScale s = scale_from_stored(r, key);
        for (std::int64_t c = 0; c < B; ++c)
          out[i0 + std::size_t(c)] = round_dequantized<In>(dequantize_element(r, s, data[i0 + std::size_t(c)]));
      }
    }
  return out;
}

}  // namespace

std::string_view name(A2aPayload p) {
  constexpr std::array<std::string_view, 3> names{"passthrough", "mxfp8", "fp8_blockwise"};
  return std::size_t(p) < names.size() ? names[std::size_t(p)] : std::string_view("unknown");
}

const Recipe* default_recipe(A2aPayload p) {
  switch (p) {
    case A2aPayload::mxfp8: return &recipe("torchao_mx_rceil");
    case A2aPayload::fp8_blockwise: return &recipe("deepep");
    default: return nullptr;
  }
}

// ---------------------------------------------------------------------------------------------
// A2aPlan

A2aPlan::A2aPlan(std::span<const std::int64_t> splits, std::int64_t ranks, std::span<const std::int64_t> rows_per_rank)
    : ranks_(ranks) {
  const std::string k = "A2aPlan";
  require(ranks >= 1, k + ": ranks = " + num(ranks) + "; at least one rank is needed");
  require(std::int64_t(splits.size()) == ranks * ranks,
          k + ": send_splits_r_r has " + num(std::int64_t(splits.size())) + " entries; expected ranks·ranks = " +
              num(ranks * ranks) + " (row src, column dst)");
  for (std::int64_t s = 0; s < ranks; ++s)
    for (std::int64_t d = 0; d < ranks; ++d) {
      const std::int64_t c = splits[std::size_t(s * ranks + d)];
      require(c >= 0, k + ": send_splits_r_r[src=" + num(s) + "][dst=" + num(d) + "] = " + num(c) + " is negative");
    }
  require(rows_per_rank.empty() || std::int64_t(rows_per_rank.size()) == ranks,
          k + ": rows_per_rank has " + num(std::int64_t(rows_per_rank.size())) + " entries; expected 0 or ranks = " +
              num(ranks));
  splits_.assign(splits.begin(), splits.end());
  send_offsets_.assign(std::size_t(ranks + 1), 0);
  recv_offsets_.assign(std::size_t(ranks + 1), 0);
  for (std::int64_t s = 0; s < ranks; ++s) {
    std::int64_t sum = 0;
    for (std::int64_t d = 0; d < ranks; ++d) sum += send(s, d);
    if (!rows_per_rank.empty())
      require(rows_per_rank[std::size_t(s)] == sum,
              k + ": rows_per_rank[" + num(s) + "] = " + num(rows_per_rank[std::size_t(s)]) +
                  ", but row " + num(s) + " of send_splits_r_r sums to " + num(sum) +
                  " (all_to_all_single: input_split_sizes must sum to the rank's rows)");
    send_offsets_[std::size_t(s + 1)] = send_offsets_[std::size_t(s)] + sum;
  }
  for (std::int64_t d = 0; d < ranks; ++d) {
    std::int64_t sum = 0;
    for (std::int64_t s = 0; s < ranks; ++s) sum += send(s, d);
    recv_offsets_[std::size_t(d + 1)] = recv_offsets_[std::size_t(d)] + sum;
  }
  rows_ = send_offsets_.back();
}

std::vector<std::int64_t> A2aPlan::gather() const {
  std::vector<std::int64_t> g;
  g.reserve(std::size_t(rows_));
  // chunk_start[src]: where rank src's chunk for the current dst begins (dst ascending).
  std::vector<std::int64_t> chunk_start(send_offsets_.begin(), send_offsets_.end() - 1);
  for (std::int64_t d = 0; d < ranks_; ++d)
    for (std::int64_t s = 0; s < ranks_; ++s) {
      const std::int64_t c = send(s, d);
      for (std::int64_t i = 0; i < c; ++i) g.push_back(chunk_start[std::size_t(s)] + i);
      chunk_start[std::size_t(s)] += c;
    }
  return g;
}

A2aPlan A2aPlan::reversed() const {
  std::vector<std::int64_t> t(splits_.size());
  for (std::int64_t s = 0; s < ranks_; ++s)
    for (std::int64_t d = 0; d < ranks_; ++d) t[std::size_t(d * ranks_ + s)] = send(s, d);
  return A2aPlan(t, ranks_);
}

// ---------------------------------------------------------------------------------------------
// Exchange

template <class In>
A2aExchanged<In> a2a_exchange(View2D<const In> x, const A2aPlan& plan, A2aPayload payload, const Recipe& r) {
  const std::string kernel = "a2a_exchange";
  require(payload == A2aPayload::passthrough || payload == A2aPayload::mxfp8 || payload == A2aPayload::fp8_blockwise,
          kernel + ": payload is not passthrough, mxfp8 or fp8_blockwise");
  check_contiguous(x, kernel, "x_n_h");
  require(x.rows == plan.rows(), kernel + ": x_n_h.rows (N) = " + num(x.rows) + ", but the send splits sum to " +
                                     num(plan.rows()) + " rows");
  check_recipe(payload, r, kernel);
  const std::int64_t N = x.rows, H = x.cols, B = payload_block(payload);
  if (B != 0)
    require(H % B == 0, kernel + ": H = x_n_h.cols = " + num(H) + " is not a multiple of the " + str(name(payload)) +
                            " block size " + num(B));

  A2aExchanged<In> out;
  out.payload = payload, out.rows = N, out.cols = H, out.block = B;
  if (N == 0) return out;
  const std::vector<std::int64_t> gather = plan.gather();

  if (payload == A2aPayload::passthrough) {
    const std::span<const In> xs(x.data, std::size_t(N * H));
    out.out = take<In>(permute_tokens(RowsView::of(xs, N, H), gather).data);
    return out;
  }

  const std::int64_t NB = H / B;
  if (payload == A2aPayload::mxfp8) {
    const MxOutput2D q = mx_quantize_dim0(r, x);
    TokenRows t = permute_tokens(RowsView::of(q.data, N, H), gather, RowsView::of(q.scale, N, NB));
    out.data = std::move(t.data.bytes);
    const std::vector<std::uint8_t> s8 = std::move(t.scales.bytes);
    const auto qv = View2D<const std::uint8_t>::row_major(out.data.data(), N, H);
    const auto sv = View2D<const std::uint8_t>::row_major(s8.data(), N, NB);
    if constexpr (std::is_same_v<In, float>) out.out = mx_dequantize_dim0_fp32(r, qv, sv);
    else out.out = mx_dequantize_dim0_bf16(r, qv, sv);
    out.scales.assign(s8.begin(), s8.end());
    return out;
  }

  Quantised q = quantise_gathered(x, gather, r);
  out.data = std::move(q.data);
  out.scales = std::move(q.scale32);
  out.out = dequantize_fp32_scaled<In>(r, out.data, out.scales, N, H, B);
  return out;
}

template <class In>
A2aExchanged<In> a2a_exchange(View2D<const In> x, const A2aPlan& plan, A2aPayload payload) {
  const Recipe* r = default_recipe(payload);
  return a2a_exchange(x, plan, payload, r != nullptr ? *r : recipe("torchao_mx_rceil"));
}

// ---------------------------------------------------------------------------------------------
// Combine

template <class In>
std::vector<In> a2a_combine(View2D<const In> y, const A2aPlan& plan, const A2aRoutes& routes, A2aPayload payload,
                            const Recipe& r, CombineSpec spec) {
  const std::string kernel = "a2a_combine";
  check_contiguous(y, kernel, "y_n_h");
  require(y.rows == plan.rows(), kernel + ": y_n_h.rows (N) = " + num(y.rows) + ", but the dispatch splits sum to " +
                                     num(plan.rows()) + " rows");
  const std::int64_t R = plan.ranks(), K = routes.topk;
  require(std::int64_t(routes.tokens_per_rank.size()) == R,
          kernel + ": routes.tokens_per_rank has " + num(std::int64_t(routes.tokens_per_rank.size())) +
              " entries; expected ranks = " + num(R));
  require(K >= 0, kernel + ": routes.topk = " + num(K) + " is negative");
  std::int64_t T = 0;
  for (std::int64_t s = 0; s < R; ++s) {
    const std::int64_t c = routes.tokens_per_rank[std::size_t(s)];
    require(c >= 0, kernel + ": routes.tokens_per_rank[" + num(s) + "] = " + num(c) + " is negative");
    T += c;
  }
  require(std::int64_t(routes.row_t_k.size()) == T * K,
          kernel + ": routes.row_t_k has " + num(std::int64_t(routes.row_t_k.size())) + " entries; expected T·K = " +
              num(T) + "·" + num(K));
  require(routes.weight_t_k.empty() || std::int64_t(routes.weight_t_k.size()) == T * K,
          kernel + ": routes.weight_t_k has " + num(std::int64_t(routes.weight_t_k.size())) +
              " entries; expected 0 or T·K = " + num(T * K));
  for (std::int64_t s = 0, t0 = 0; s < R; t0 += routes.tokens_per_rank[std::size_t(s)], ++s)
    for (std::int64_t t = t0; t < t0 + routes.tokens_per_rank[std::size_t(s)]; ++t)
      for (std::int64_t k = 0; k < K; ++k) {
        const std::int64_t row = routes.row_t_k[std::size_t(t * K + k)];
        require(row == -1 || (row >= plan.send_offset(s) && row < plan.send_offset(s + 1)),
                kernel + ": routes.row_t_k[t=" + num(t) + "][k=" + num(k) + "] = " + num(row) +
                    " is not -1 and not a row that rank " + num(s) + " sent ([" + num(plan.send_offset(s)) + ", " +
                    num(plan.send_offset(s + 1)) + "))");
      }

  const A2aExchanged<In> back = a2a_exchange(y, plan.reversed(), payload, r);
  RowIdMap map;
  map.tokens = T, map.topk = K, map.rows = plan.rows();
  map.row_t_k.assign(routes.row_t_k.begin(), routes.row_t_k.end());
  const InputType type = std::is_same_v<In, float> ? InputType::fp32 : InputType::bf16;
  const RowsBuffer sum =
      fused_unpermute_unpad(RowsView::of(back.out, back.rows, back.cols), type, map, routes.weight_t_k, spec);
  std::vector<In> out = sum.values<In>();
  // A NaN sum becomes the quiet NaN the dequantisation writes (bf16 0x7FC0, fp32 0x7FC00000): the
  // sign and payload an fp32 sum of NaNs returns on the host depends on the compiler's operand order.
  for (In& v : out) {
    if constexpr (std::is_same_v<In, float>) {
      if (v != v) v = std::numeric_limits<float>::quiet_NaN();
    } else {
      if ((v & 0x7FFFu) > 0x7F80u) v = 0x7FC0u;
    }
  }
  return out;
}

template <class In>
std::vector<In> a2a_combine(View2D<const In> y, const A2aPlan& plan, const A2aRoutes& routes, A2aPayload payload,
                            CombineSpec spec) {
  const Recipe* r = default_recipe(payload);
  return a2a_combine(y, plan, routes, payload, r != nullptr ? *r : recipe("torchao_mx_rceil"), spec);
}

#define OCTET_INSTANTIATE(In)                                                                                      \
  template A2aExchanged<In> a2a_exchange<In>(View2D<const In>, const A2aPlan&, A2aPayload, const Recipe&);          \
  template A2aExchanged<In> a2a_exchange<In>(View2D<const In>, const A2aPlan&, A2aPayload);                         \
  template std::vector<In> a2a_combine<In>(View2D<const In>, const A2aPlan&, const A2aRoutes&, A2aPayload,          \
                                           const Recipe&, CombineSpec);                                             \
  template std::vector<In> a2a_combine<In>(View2D<const In>, const A2aPlan&, const A2aRoutes&, A2aPayload,          \
                                           CombineSpec);
OCTET_INSTANTIATE(float)
OCTET_INSTANTIATE(std::uint16_t)
#undef OCTET_INSTANTIATE

}  // namespace octet
