// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// swiglu_quant.hpp — family 7: fused SwiGLU + quantisation, forward and backward
// (reference/kernels.md §9, recipes.md §4.4, §4.5). Implementation: emulator/src/kernels/swiglu_quant.cpp.
//
// Reproduces TransformerEngine `transformer_engine/common/cast/mxfp8/gated_mxfp8.cuh::
// quantize_gated_mxfp8_kernel` (nvte_swiglu / nvte_dswiglu into an MXFP8 output, rowwise 1x32),
// with the elementwise math of `common/util/math.h::silu, sigmoid, sigmoidf`; TE's CPU reference
// is `tests/cpp/operator/test_cast_mxfp8_gated_swiglu.cu::scale_block`. The same elementwise
// step followed by a 1x128 quantiser gives the blockwise (Float8BlockScaling, te_blockwise) form.
//
// Layout (TE's convention, `quantize_gated`: the activation tensor map starts at column 0, the
// gate map at column `cols`): x (M, 2H) row-major rows [a | g], a = x[:, :H] is the input of
// silu, g = x[:, H:] the linear gate (Megatron's `torch.chunk(y, 2, -1)` order as well).
//
// Forward, per element, in fp32 (each `·` one fp32 multiply, RNE):
//   s = sigmoid(a) = 1 / (1 + expf(−a))        (math.h::sigmoid: `1.f / (1.f + expf(-cval))`)
//   y = (a·s)·g                                  (silu(a)·g, silu(x) = x·sigmoid(x))
//   y = y·p[m]                                   (optional router probs, one fp32 value per row, multiplied
//                                                 last, before the rounding: octet's definition of the
//                                                 "weighted by router probs" variant; with no probs the
//                                                 step is skipped, which equals p = 1 bit for bit)
//   y = fp32(bf16(y))                            (input dtype bf16: rounded to bf16 and back BEFORE amax and
//                                                 quantisation, as the kernel's "numerical truncation" step;
//                                                 fp32 inputs: no rounding). RNE, overflow to Inf; a NaN y
//                                                 becomes the canonical NaN, bf16 0x7FFF / fp32 0x7FFFFFFF
//                                                 (what the GPU writes; unverified on hardware), so that
//                                                 y does not depend on the host's NaN propagation
// then y (M, H) is quantised rowwise with the recipe: amax_init/amax_update over each block,
// scale_from_amax, quantize_element (scale.hpp); blocks of 32 for e8m0 (MX) recipes, 128 for fp32-
// scale recipes.
//
// Backward (nvte_dswiglu), grad (M, H), x (M, 2H) as above, in fp32:
//   s     = sigmoid(a)                           (the kernel's `sigmoidf` = __frcp_rn(1 + __expf(−x)): the
//                                                 same formula as the forward's, but with the fast __expf)
//   act   = a·s
//   dact  = ((a·s)·(1 − s)) + s                  (`x * s * (1 - s) + s`, left to right; dact_fma = true
//                                                 gives fma(a·s, 1 − s, s), what nvcc's default -fmad=true
//                                                 may emit for it — unverified on hardware)
//   d_a   = (dact·grad)·g                        (after_dsilu)
//   d_g   = act·grad                             (after_dgate)
// both rounded to the input dtype (bf16) and back, then quantised. octet follows the kernel where
// TE's CPU reference (test_cast_mxfp8_gated_swiglu.cu, as read) differs: that reference quantises the
// unrounded fp32 values and evaluates dsilu as a·(s·(1 − s)) + s. Output (M, 2H) = [d_a | d_g]; since
// H is a multiple of the block, the scales (M, 2H/B) hold the d_a blocks in columns [0, H/B) and the
// d_g blocks in [H/B, 2H/B): TE's separate gate scale columns (`gate_scale_idx_offset_rowwise`).
//
// Transcendental policy. CUDA's expf (forward) and __expf (backward) are not correctly rounded, and
// a libm expf may differ from them by an ulp before the bf16 rounding (kernels.md §9). octet therefore
// (a) fixes its own expf, `expf_octet` below, a header-only OCTET_HD function that host and device code
// share: every floating-point step is a single correctly rounded IEEE operation (fma, subtraction,
// double -> float conversion) and nothing is left for a compiler to contract, so it returns the same
// bits on every IEEE-754 machine; and (b) lets the caller plug in another expf (ExpfFn), or bypass the
// transcendental entirely by passing the device's recorded sigmoid values (the `sigmoid_m_h`
// overloads): s(m, j) is then used as is for a(m, j). Bit-exact goldens of a GPU run use (b).
// For bf16 inputs the kernel evaluates the sigmoid once per distinct bf16 value of a (a 2^16 table
// of the plugged function): a memo, so the bits are those of the per-element formula.
//
// Units: every shape and stride in elements; scales as the recipe stores them (scale.hpp:
// e8m0 byte zero-extended, or fp32 bits). Errors: std::invalid_argument naming the argument
// (x_m_2h, grad_m_h, sigmoid_m_h, probs_m, recipe) and, for block divisibility, the dimension H.
// Bytes do not depend on the OpenMP thread count.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "octet/format.hpp"
#include "octet/scale.hpp"
#include "octet/tensor.hpp"

namespace octet {

// ---------------------------------------------------------------------------------------------
// The shared transcendental (host and device)

namespace detail {

// e^x for a binary32 x, evaluated in binary64; finite for -104 <= x <= 89 (the caller's range).
//   1. k = nearest integer to x/ln2 (the 1.5·2^52 shift, inside one fma), r = x − k·ln2 with ln2
//      split in two doubles; |r| <= ln2/2 (plus an ulp).
//   2. e^r = 1 + r·(1 + r·(1/2! + r·(1/3! + … + r/13!))) by Horner, every step one fma; the
//      truncation error r^14/14! is below 2^-57 relative.
//   3. scale by 2^k, exact in binary64 for these k.
// Each step is one IEEE operation on explicit operands, so the result does not depend on
// FMA contraction settings: it is the same on every conforming host and device.
OCTET_HD inline double exp_octet_double(float x) {
  constexpr double kInvLn2 = 0x1.71547652b82fep+0;
  constexpr double kLn2Hi = 0x1.62e42fefa39efp-1;
  constexpr double kLn2Lo = 0x1.abc9e3b39803fp-56;
  constexpr double kShift = 0x1.8p52;
  const double xd = double(x);
  const double kd = std::fma(xd, kInvLn2, kShift) - kShift;  // round(x / ln2); |kd| <= 151
  double r = std::fma(-kd, kLn2Hi, xd);
  r = std::fma(-kd, kLn2Lo, r);
  double q = 1.0 / 6227020800.0;  // 1/13!
  q = std::fma(q, r, 1.0 / 479001600.0);
  q = std::fma(q, r, 1.0 / 39916800.0);
  q = std::fma(q, r, 1.0 / 3628800.0);
  q = std::fma(q, r, 1.0 / 362880.0);
  q = std::fma(q, r, 1.0 / 40320.0);
  q = std::fma(q, r, 1.0 / 5040.0);
  q = std::fma(q, r, 1.0 / 720.0);
  q = std::fma(q, r, 1.0 / 120.0);
  q = std::fma(q, r, 1.0 / 24.0);
  q = std::fma(q, r, 1.0 / 6.0);
  q = std::fma(q, r, 0.5);
  q = std::fma(q, r, 1.0);
  const double er = std::fma(q, r, 1.0);
  const auto k = std::int64_t(kd);
  return er * std::bit_cast<double>(std::uint64_t(k + 1023) << 52);
}

}  // namespace detail

// octet's expf: e^x rounded once (RNE) from the binary64 value above. NaN -> quiet NaN, +Inf and
// x > 89 -> +Inf, -Inf and x < -104 -> +0 (e^-104 is below half the smallest fp32 subnormal).
// Accuracy: correctly rounded for all 2^32 binary32 inputs. An exhaustive comparison with x87 expl
// (64-bit significand) rounded once to binary32 found no difference, and no input where expl itself
// lies within 2^-60 of a binary32 midpoint (tests/kernels_fused/expf_octet_test.cpp,
// ExpfOctetExhaustive, label `exhaustive`). The closest the binary64 value comes to a binary32
// rounding boundary is 2^-52.98 relative (x = -0x1.d2259ap+3). For comparison, on the machine of that
// scan glibc's expf differed from the correctly rounded result on 170,648 inputs, while glibc's
// double exp rounded to binary32 agreed everywhere.
OCTET_HD inline float expf_octet(float x) {
  if (x != x) return x + x;
  if (x > 89.0f) return std::bit_cast<float>(0x7F800000u);
  if (x < -104.0f) return 0.0f;
  return float(detail::exp_octet_double(x));
}

// A pluggable expf (host code): the kernels call it once per distinct input of a (bf16) or per
// element (fp32). expf_octet by default.
using ExpfFn = float (*)(float);

// ---------------------------------------------------------------------------------------------
// The elementwise steps (host and device), in the order of the file comment. Each line is one
// fp32 operation; the callers round to the input dtype afterwards.

// a·b rounded on its own, never fused with a following add: __fmul_rn in device code (nvcc's
// default -fmad=true would otherwise contract `a * b + c`); host code is built with
// -ffp-contract=off (octet's CMakeLists.txt).
OCTET_HD inline float mul_rn(float a, float b) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}

// s = 1 / (1 + e), e = expf(−x).
OCTET_HD inline float swiglu_sigmoid_from_exp(float e_neg_x) { return 1.0f / (1.0f + e_neg_x); }
OCTET_HD inline float swiglu_sigmoid(float x) { return swiglu_sigmoid_from_exp(expf_octet(-x)); }

// Forward: (a·s)·g, times p when probs are given (has_p).
OCTET_HD inline float swiglu_forward_value(float a, float g, float s, bool has_p, float p) {
  const float act = a * s;
  const float y = act * g;
  return has_p ? y * p : y;
}

// Backward: d_a = (dact·grad)·g, d_g = (a·s)·grad, dact = ((a·s)·(1 − s)) + s or its fma form.
struct SwigluGrads {
  float d_act;   // after_dsilu
  float d_gate;  // after_dgate
};
OCTET_HD inline SwigluGrads swiglu_backward_values(float a, float g, float grad, float s, bool dact_fma) {
  const float act = a * s;
  const float one_minus_s = 1.0f - s;
  float dact;
  if (dact_fma) {
    dact = std::fma(act, one_minus_s, s);
  } else {
    const float t = mul_rn(act, one_minus_s);
    dact = t + s;
  }
  const float dg = dact * grad;
  return {dg * g, act * grad};
}

// ---------------------------------------------------------------------------------------------
// Kernels (host)

// In: float (fp32 input) or std::uint16_t (bf16 bits).
template <class In>
struct SwigluQuantized {
  std::int64_t rows = 0, cols = 0;  // forward (M, H); backward (M, 2H) = [d_a | d_g]
  std::int64_t block = 0;           // 32 (e8m0 recipes) or 128 (fp32-scale recipes)
  std::vector<In> y;                // (rows, cols) row-major: the input-dtype values that were quantised
  std::vector<std::uint8_t> data;   // (rows, cols) row-major element codes
  std::vector<std::uint32_t> scales;  // (rows, cols/block) row-major stored scales (storage(recipe))
};

struct SwigluOptions {
  ExpfFn expf = &expf_octet;  // the transcendental; unused by the sigmoid_m_h overloads
  bool dact_fma = false;      // backward only: dact = fma(a·s, 1 − s, s)
};

// Forward. x (M, 2H), any strides; H % block == 0; probs_m empty or (M,).
template <class In>
SwigluQuantized<In> swiglu_quantize_forward(View2D<const In> x_m_2h, const Recipe& r,
                                            std::span<const float> probs_m = {}, SwigluOptions opt = {});
// Forward with recorded sigmoid values: sigmoid_m_h (M, H), any strides, s for each a(m, j).
template <class In>
SwigluQuantized<In> swiglu_quantize_forward(View2D<const In> x_m_2h, View2D<const float> sigmoid_m_h,
                                            const Recipe& r, std::span<const float> probs_m = {});

// Backward. grad (M, H), x (M, 2H), any strides; H % block == 0.
template <class In>
SwigluQuantized<In> swiglu_quantize_backward(View2D<const In> grad_m_h, View2D<const In> x_m_2h, const Recipe& r,
                                             SwigluOptions opt = {});
template <class In>
SwigluQuantized<In> swiglu_quantize_backward(View2D<const In> grad_m_h, View2D<const In> x_m_2h,
                                             View2D<const float> sigmoid_m_h, const Recipe& r,
                                             bool dact_fma = false);

// The sigmoid values the default path uses, s(m, j) = 1 / (1 + expf(−a(m, j))) with the given expf:
// (M, H) row-major. What a recording of the device's values replaces.
template <class In>
std::vector<float> swiglu_sigmoid_values(View2D<const In> x_m_2h, ExpfFn expf = &expf_octet);

// The block size a recipe quantises with here: 32 for e8m0 storage, 128 for fp32 storage.
// Throws for recipes whose elements are not one byte (nvfp4) or whose scales are e4m3.
std::int64_t swiglu_block_size(const Recipe& r);

}  // namespace octet
