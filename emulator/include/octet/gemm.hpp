// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// gemm.hpp — scaled (grouped) GEMMs with accumulation models and a-priori error bounds
// (reference/kernels.md §0, §4; recipes.md for the scale storage).
//
// Peer semantics:
//   torch `_scaled_mm` / `_scaled_grouped_mm` (pytorch/pytorch #106844, #130059, #158037):
//     out = (A·scale_a) @ (B·scale_b); 2Dx3D: A (M, K), B (E, K, N), `offs` over M -> (M, N);
//     2Dx2D: A (M, K_total), B (K_total, N), `offs` over the contraction -> (E, M, N).
//   DeepGEMM `m_grouped_fp8_gemm_nt_contiguous` (forward/dgrad, groups along M) and
//     `k_grouped_fp8_gemm_tn_contiguous` (wgrad, groups along K), `D = C + A·B`.
//   DeepSeek-V3 (arXiv:2412.19437) §3.3: Hopper fp8 tensor-core accumulation keeps ~14 bits;
//     promotion every N_C = 128 elements into fp32 with the block scales applied.
//
// Operands are stored codes (one byte per element; NVFP4 e2m1 unpacked, one code per byte) and
// stored scales exactly as the recipe stores them (Recipe::storage: fp32 multiplier s, fp32
// decode d, e8m0 byte, e4m3 byte). Every model dequantises a scale with scale_from_stored(r, ·)
// .decode (fp32), so a stored multiplier s enters as fl32(1/s), as torchao passes 1/s to torch.
//
// Granularity is the block extent of one scale, along the operand's outer dimension (rows of A,
// columns of B) and along the contraction K; 0 = the whole dimension:
//   tensorwise {0, 0}   rowwise {1, 0}   1x128 {1, 128}   128x128 {128, 128}   MX {1, 32}
//   NVFP4 {1, 16} (e4m3 block scales; the fp32 per-tensor decode goes in global_decode).
// The wgrad "1x128 x 128x1" pair is {1, 128} on both operands (blocks run along the contraction).
// A's scales are (ceil(M/outer), K/k); B's are (K/k, ceil(N/outer)); any strides.
// In 2Dx2D the K blocks restart at every group (every group size must be a multiple of k); with
// k = 0 ("whole K") there is one scale column of A / row of B per group: (M, E) and (E, N).
// (torch's flat per-group rowwise scale_a of E·M entries, group-major, is the (M, E) view with
// strides (1, M).) Blocked ("swizzled", kernels.md §5) MX scales are not accepted: pass the plain
// (rows, K/32) matrix.
//
// Accumulation models. Let p_k = qa_k·qb_k be the product of the unscaled element values (exact
// in fp32: at most 4+4 significant bits, e5m2 products >= 2^-32), and call a "scale segment" a
// K range on which both operands' scales are constant (length L = min of the two k extents).
//   exact             sum_k p_k·sa·sb (+ c) exactly (int64/__int128 per segment, then a fixed-point
//                     __int128 or boost cpp_int accumulator), rounded once (RNE) to the output.
//   fp32_seq          per scale segment, P = fp32 sum of p_k in increasing k from 0; then
//                     acc = fma(P, fl32(sa·sb), acc) in fp32 (acc starts at 0). For tensorwise /
//                     rowwise this is one sequential fp32 sum over K and one scale multiply.
//   fp32_promote      as fp32_seq, but partials restart also every `promote_chunk` (N_C = 128)
//                     elements of K (DeepGEMM / DeepSeek-V3 promotion).
//   hopper_fast_accum per partial span (scale segment, cut further every hopper.promote_interval
//                     elements if > 0): a limited-width accumulator of w = hopper.mantissa_bits
//                     significant bits. Per group of `hopper.group` (32, WGMMA k for fp8)
//                     products in k order: e = max exponent floor(log2|p|) of the group, each p
//                     truncated toward zero to the grid 2^(e-w+1), summed exactly into S; then
//                     acc and S are both truncated to the grid of max(exp(acc), exp(S)) and
//                     added, and the sum is truncated to w significant bits. The partial is then
//                     folded into fp32 as in fp32_seq. promote_interval = 0: torch
//                     use_fast_accum=True (no promotion; the per-tensor/row scales at the end);
//                     128: the DeepSeek-V3 / DeepGEMM promotion model (kernels.md §4.3).
//                     Assumptions (to be calibrated on hardware): truncation toward zero, no
//                     extra guard bits, the accumulator aligned together with each group sum,
//                     products in k order within a group.
// Common to the fp32-based models: the final value z = acc, then z = fl32(z·fl32(ga·gb)) if an
// operand has a global (NVFP4) decode != 1, then z = fl32(z + c) with the optional fp32 C; the
// output is z (fp32) or RNE(z) to bf16 (octet's converter). exact rounds sum + c once.
// Output rows past offs[-1] (2Dx3D) are zero; an empty group of 2Dx2D gives a zero (M, N) matrix.
// Non-finite codes or scales propagate as IEEE arithmetic would (exact: the dot is recomputed in
// double). Results do not depend on the OpenMP thread count.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "octet/scale.hpp"
#include "octet/tensor.hpp"

namespace octet {

enum class GemmModel : std::uint8_t { exact, fp32_seq, fp32_promote, hopper_fast_accum };
std::string_view name(GemmModel m);
GemmModel parse_gemm_model(std::string_view s);  // throws std::invalid_argument listing the names

enum class OutDtype : std::uint8_t { bf16, fp32, fp64 };  // fp64: for references (exact model)
std::string_view name(OutDtype d);

// Scale block extents (see the header comment); 0 = the whole dimension.
struct ScaleBlock {
  std::int64_t outer = 0;
  std::int64_t k = 0;
  static constexpr ScaleBlock tensorwise() { return {0, 0}; }
  static constexpr ScaleBlock rowwise() { return {1, 0}; }
  static constexpr ScaleBlock block_1x128() { return {1, 128}; }
  static constexpr ScaleBlock block_128x128() { return {128, 128}; }
  static constexpr ScaleBlock mx_1x32() { return {1, 32}; }
  static constexpr ScaleBlock nvfp4_1x16() { return {1, 16}; }
};

// Stored scales: fp32 bits (words) or one byte each (e8m0, e4m3), with strides in elements.
struct ScaleView {
  const std::uint32_t* words = nullptr;
  const std::uint8_t* bytes = nullptr;
  std::int64_t rows = 0, cols = 0, row_stride = 0, col_stride = 1;

  std::uint32_t operator()(std::int64_t r, std::int64_t c) const {
    const std::int64_t i = r * row_stride + c * col_stride;
    return words ? words[i] : std::uint32_t(bytes[i]);
  }
  static ScaleView of(View2D<const std::uint32_t> v) { return {v.data, nullptr, v.rows, v.cols, v.row_stride, v.col_stride}; }
  static ScaleView of(View2D<const std::uint8_t> v) { return {nullptr, v.data, v.rows, v.cols, v.row_stride, v.col_stride}; }
};

// (E, rows, cols) stored scales of a 3D operand.
struct ScaleView3D {
  ScaleView first;  // expert 0
  std::int64_t experts = 0, expert_stride = 0;
  ScaleView expert(std::int64_t e) const {
    ScaleView v = first;
    if (v.words) v.words += e * expert_stride; else v.bytes += e * expert_stride;
    return v;
  }
};

// A: data (M, K), scales (ceil(M/outer), K/k). B: data (K, N), scales (K/k, ceil(N/outer)).
struct ScaledOperand {
  const Recipe* recipe = nullptr;   // element format and scale storage
  View2D<const std::uint8_t> data;
  ScaleView scales;
  ScaleBlock block;
  float global_decode = 1.0f;       // NVFP4 per-tensor fp32 decode multiplier (1/global_encode)
};

// B of 2Dx3D: data (E, K, N) (row-major or View3D::col_major_per_expert), scales (E, K/k, ceil(N/outer)).
struct ScaledOperand3D {
  const Recipe* recipe = nullptr;
  View3D<const std::uint8_t> data;
  ScaleView3D scales;
  ScaleBlock block;
  float global_decode = 1.0f;
  ScaledOperand expert(std::int64_t e) const { return {recipe, data.expert(e), scales.expert(e), block, global_decode}; }
};

struct HopperAccum {
  int mantissa_bits = 14;              // significant bits kept (DeepSeek-V3 §3.3: "around 14")
  int group = 32;                      // products aligned together (WGMMA k = 32 for fp8)
  std::int64_t promote_interval = 0;   // 0: none (use_fast_accum); 128: DeepGEMM promotion
};

struct GemmConfig {
  GemmModel model = GemmModel::exact;
  OutDtype out = OutDtype::bf16;
  std::int64_t promote_chunk = 128;    // N_C of fp32_promote
  HopperAccum hopper{};
};

// Row-major (batches, rows, cols). values holds bf16/fp32 outputs as float (exactly);
// values64 holds fp64 outputs.
struct GemmOutput {
  OutDtype dtype = OutDtype::bf16;
  std::int64_t batches = 1, rows = 0, cols = 0;
  std::vector<float> values;
  std::vector<double> values64;
  std::int64_t size() const { return batches * rows * cols; }
  double at(std::int64_t i) const { return dtype == OutDtype::fp64 ? values64[std::size_t(i)] : double(values[std::size_t(i)]); }
  std::vector<double> to_double() const;
  std::vector<std::uint16_t> bf16_bits() const;  // dtype bf16 only
};

// Dense: D (M, N) = A·B (+ C). c_m_n: empty or M·N fp32 values, row-major.
GemmOutput scaled_mm(const ScaledOperand& a_m_k, const ScaledOperand& b_k_n, const GemmConfig& cfg,
                     std::span<const float> c_m_n = {});

// 2Dx3D (forward, dgrad): group g = rows [offs[g-1], offs[g]) of A times expert g of B -> (M, N).
// len(offs) == E. c_m_n: empty or M·N values.
GemmOutput scaled_grouped_mm_2d3d(const ScaledOperand& a_m_k, const ScaledOperand3D& b_e_k_n,
                                  std::span<const std::int32_t> offs, const GemmConfig& cfg,
                                  std::span<const float> c_m_n = {});

// 2Dx2D (wgrad): group g = K range [offs[g-1], offs[g]) -> out[g] (M, N); (E, M, N) in all.
// c_e_m_n: empty or E·M·N values (DeepGEMM k-grouped `c`).
GemmOutput scaled_grouped_mm_2d2d(const ScaledOperand& a_m_k, const ScaledOperand& b_k_n,
                                  std::span<const std::int32_t> offs, const GemmConfig& cfg,
                                  std::span<const float> c_e_m_n = {});

// ---------------------------------------------------------------------------------------------
// A-priori error bounds. For one output element with exact value y = sum_k a_k·b_k (+ c), where
// a_k, b_k are the dequantised operands, and S = sum_k |a_k·b_k| (+ |c|):
//   |out - y| <= rel·S + abs        (elementwise; out is the model's output in cfg.out)
//   ||Out - Y||_F <= rel·||A||_F·||B||_F (+ rel·||C||_F) + abs·sqrt(#elements)   (normwise)
// for a contraction of length k and scale segments of length `segment` (0 = k). Assumes no
// overflow, and fp32 scale products fl32(sa·sb) that are exact or normal (true for power-of-two
// scales >= 2^-149 and for every recipe's normal-range fp32 scales). Derivation in gemm.cpp.
struct ErrorBound {
  double rel = 0.0;
  double abs = 0.0;
};
ErrorBound gemm_error_bound(const GemmConfig& cfg, std::int64_t k, std::int64_t segment);
// The scale segment of an operand pair (min of the k extents, k when both are whole-K).
std::int64_t scale_segment(const ScaleBlock& a, const ScaleBlock& b, std::int64_t k);

// Dequantised operands (double, exact) and S = |A|·|B| (+|C|), for bounds and tests.
std::vector<double> dequantize_lhs(const ScaledOperand& a_m_k);  // (M, K) row-major: code·decode·global
std::vector<double> dequantize_rhs(const ScaledOperand& b_k_n);  // (K, N) row-major
std::vector<double> abs_product_sum(const ScaledOperand& a_m_k, const ScaledOperand& b_k_n,
                                    std::span<const float> c_m_n = {});  // (M, N), Eigen, rounded up
// rel·(||A||_F·||B||_F + ||C||_F) + abs·sqrt(elements).
double normwise_bound(const ErrorBound& b, double fro_a, double fro_b, double fro_c, std::int64_t elements);

// SQNR in dB, 20·log10(||ref|| / ||ref - x||) (torchao compute_error); +inf when equal.
double sqnr_db(std::span<const double> ref, std::span<const double> x);
// DeepGEMM calc_diff: 1 - 2·sum(x·y) / sum(x² + y²), in double.
double calc_diff(std::span<const double> x, std::span<const double> y);
// Largest distance in units in the last place of `dtype` (bf16 or fp32) between two outputs.
std::int64_t max_ulp_distance(const GemmOutput& x, const GemmOutput& y);

}  // namespace octet
