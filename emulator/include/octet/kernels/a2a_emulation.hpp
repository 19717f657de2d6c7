// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// a2a_emulation.hpp — family 8: expert-parallel all-to-all dispatch and combine, emulated on one
// host over R simulated ranks (reference/kernels.md §7, §10; recipes.md §2, §5.2).
// Implementation: emulator/src/kernels/a2a_emulation.cpp.
//
// Reproduces:
//   * torchao `torchao/prototype/moe_training/kernels/mxfp8/comms.py::to_mxfp8_a2a_dequant`
//     (ToMXFP8AllToAllVDequant.forward): triton_to_mxfp8_dim0 (1x32, RCEIL) -> all_to_all_single of
//     the e4m3 data and of the e8m0 scales (as uint8) with the same splits -> triton_mxfp8_dequant_dim0
//     back to the input dtype. Payload A2aPayload::mxfp8, recipe torchao_mx_rceil. (The Triton
//     quantiser takes bf16 only; fp32 inputs are quantised by the same rules, as torch `to_mx` does.)
//   * DeepEP `csrc/kernels/legacy/internode_ll.cu` low-latency dispatch with FP8: 1x128 channel
//     blocks, amax starting at kFP8Margin = 1e-4, scale = 448/amax and scale_inv = amax·R kept as two
//     values (recipes.md §5.2), cvt satfinite; the fp32 scale_inv travels with the data. Payload
//     A2aPayload::fp8_blockwise, recipe deepep (deepep_round for UE8M0-style scales). The receiver's
//     dequantisation (emulation only; DeepEP hands FP8 to the GEMM) is code·scale_inv formed exactly
//     and rounded once to the input dtype.
//   * the bf16 dispatch and DeepEP's BF16 combine: A2aPayload::passthrough, the rows copied bit for bit.
//   * the combine's reduction (DeepEP LL combine, TE unpermute): per token, the routed expert outputs
//     weighted by the top-k weights, summed in fp32 in routing order (k ascending), rounded once to
//     the output dtype — computed by fused_unpermute_unpad (layout_pad_permute.hpp), kernels.md §7.
//
// Ranks, splits and layouts (all_to_all_single semantics):
//   send_splits_r_r is (R, R) row-major, send_splits[src·R + dst] = rows rank src sends to rank dst.
//   Tensors are the R ranks' buffers stacked rank-major into one (N, H) row-major matrix:
//     send layout: rank src owns rows [send_offset(src), send_offset(src) + Σ_dst send(src, dst)), and
//                  within them the chunk for dst = 0, 1, … in order (the input of all_to_all_single);
//     receive layout: rank dst owns rows [recv_offset(dst), …), and within them the chunks from
//                  src = 0, 1, … in order ("receiver-major concatenation of the senders' chunks").
//   N = Σ all splits. The exchange is the row permutation send layout -> receive layout; row scales
//   (1x32 e8m0, 1x128 fp32) move with their rows, so it is exact (kernels.md §7).
//   The combine returns rows along the reverse plan (splits transposed), i.e. back to the send layout.
//
// Arguments are validated (split counts, negative entries, row sums, shapes, H divisible by the
// block, recipe storage); misuse throws std::invalid_argument naming the argument. Bytes do not
// depend on the OpenMP thread count.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "octet/kernels/layout_pad_permute.hpp"
#include "octet/scale.hpp"
#include "octet/tensor.hpp"

namespace octet {

// What travels through the all-to-all.
enum class A2aPayload : std::uint8_t {
  passthrough,    // the input dtype's bits (bf16 dispatch, BF16 combine)
  mxfp8,          // 1x32 e4m3 + e8m0 (torchao to_mxfp8_a2a_dequant); e8m0 recipes
  fp8_blockwise,  // 1x128 e4m3 + fp32 scale_inv (DeepEP LL FP8 dispatch); fp32-scale recipes
};
std::string_view name(A2aPayload p);  // "passthrough", "mxfp8", "fp8_blockwise"
// The default recipe of a payload: torchao_mx_rceil, deepep; passthrough has none (nullptr).
const Recipe* default_recipe(A2aPayload p);

// The all_to_all_single exchange plan of R ranks. Validated on construction.
class A2aPlan {
 public:
  // send_splits_r_r: (R, R) row-major counts, R >= 1, every count >= 0. rows_per_rank: empty, or
  // (R,) with rows_per_rank[src] == Σ_dst send(src, dst) (torch's input_split_sizes sum check).
  A2aPlan(std::span<const std::int64_t> send_splits_r_r, std::int64_t ranks,
          std::span<const std::int64_t> rows_per_rank = {});

  std::int64_t ranks() const { return ranks_; }
  std::int64_t rows() const { return rows_; }  // N
  std::int64_t send(std::int64_t src, std::int64_t dst) const { return splits_[std::size_t(src * ranks_ + dst)]; }
  std::int64_t send_offset(std::int64_t src) const { return send_offsets_[std::size_t(src)]; }  // R + 1 entries
  std::int64_t recv_offset(std::int64_t dst) const { return recv_offsets_[std::size_t(dst)]; }  // R + 1 entries
  std::span<const std::int64_t> send_offsets() const { return send_offsets_; }
  std::span<const std::int64_t> recv_offsets() const { return recv_offsets_; }
  std::span<const std::int64_t> splits() const { return splits_; }

  // The exchange as a gather: receive-layout row i is send-layout row gather()[i]. (N,)
  std::vector<std::int64_t> gather() const;
  // The combine's plan: splits transposed, so that its exchange maps this plan's receive layout
  // back onto its send layout (reversed().gather() is the inverse permutation of gather()).
  A2aPlan reversed() const;

 private:
  std::int64_t ranks_ = 0, rows_ = 0;
  std::vector<std::int64_t> splits_, send_offsets_, recv_offsets_;
};

// The result of one emulated exchange, in the receive layout.
template <class In>  // float (fp32) or std::uint16_t (bf16 bits)
struct A2aExchanged {
  A2aPayload payload = A2aPayload::passthrough;
  std::int64_t rows = 0, cols = 0;  // (N, H)
  std::int64_t block = 0;           // 32 (mxfp8), 128 (fp8_blockwise), 0 (passthrough)
  std::vector<In> out;              // (N, H) row-major: received rows, dequantised to the input dtype
  std::vector<std::uint8_t> data;   // (N, H) row-major e4m3 codes as received (empty for passthrough)
  std::vector<std::uint32_t> scales;  // (N, H/block) row-major stored scales as received (e8m0 byte
                                      // zero-extended, or fp32 bits); empty for passthrough
};

// Quantise (per the payload and recipe) -> exchange -> dequantise. x_n_h (N, H) in the send layout,
// row-major contiguous (all_to_all_single requires contiguous input). mxfp8: H % 32 == 0;
// fp8_blockwise: H % 128 == 0. The recipe must match the payload (e8m0 / fp32 storage) and is
// ignored for passthrough. Dequantisation: mxfp8 by mx_dequantize_dim0_{bf16,fp32}; fp8_blockwise by
// dequantize_element (exact code·decode) rounded once to the input dtype (bf16: RNE, IEEE overflow,
// NaN -> 0x7FC0, as torch's cast; fp32: RNE).
template <class In>
A2aExchanged<In> a2a_exchange(View2D<const In> x_n_h, const A2aPlan& plan, A2aPayload payload, const Recipe& r);
template <class In>
A2aExchanged<In> a2a_exchange(View2D<const In> x_n_h, const A2aPlan& plan, A2aPayload payload);  // default recipe

// Dispatch = a2a_exchange along the plan: tokens (already grouped by destination in each rank's send
// buffer) arrive at their expert ranks.
template <class In>
A2aExchanged<In> a2a_dispatch(View2D<const In> x_n_h, const A2aPlan& plan, A2aPayload payload, const Recipe& r) {
  return a2a_exchange(x_n_h, plan, payload, r);
}

// Top-k routes of the tokens for the combine. Tokens are stacked rank-major: rank src owns tokens
// [Σ_{r<src} tokens_per_rank[r], …). Route (t, k) names the send-layout row that carried token t to
// its k-th expert (row_t_k[t·K + k], -1: unused slot); that row must lie in the token's own rank's
// send range. weight_t_k (T, K) are the top-k weights (empty: all 1).
struct A2aRoutes {
  std::span<const std::int64_t> tokens_per_rank;  // (R,)
  std::int64_t topk = 0;                          // K
  std::span<const std::int64_t> row_t_k;          // (T, K)
  std::span<const float> weight_t_k;              // (T, K) or empty
};

// Combine: y_n_h (N, H) row-major expert outputs in the dispatch plan's receive layout ->
// exchange back along dispatch_plan.reversed() with the payload (passthrough: DeepEP's BF16
// combine; mxfp8 / fp8_blockwise: an FP8-combine counterfactual) -> per token
// acc = +0 + Σ_k fl32(float(row)·w) in k order (CombineSpec: the reference; other orders / fma are
// named variants), rounded once to the input dtype; a NaN result is written as the quiet NaN of the
// dequantisation (bf16 0x7FC0, fp32 0x7FC00000), whatever NaN the host's fp32 sum produced. Output
// (T, H) row-major, tokens stacked rank-major.
template <class In>
std::vector<In> a2a_combine(View2D<const In> y_n_h, const A2aPlan& dispatch_plan, const A2aRoutes& routes,
                            A2aPayload payload, const Recipe& r, CombineSpec spec = {});
template <class In>
std::vector<In> a2a_combine(View2D<const In> y_n_h, const A2aPlan& dispatch_plan, const A2aRoutes& routes,
                            A2aPayload payload = A2aPayload::passthrough, CombineSpec spec = {});

}  // namespace octet
