// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// adapters/fused.cpp — fused SwiGLU + rowwise quantisation behind the runner's signature:
// swiglu_quantize_forward / swiglu_quantize_backward (TransformerEngine
// common/cast/mxfp8/gated_mxfp8.cuh::quantize_gated_mxfp8_kernel, nvte_swiglu / nvte_dswiglu into
// an MXFP8 (1x32 e8m0) or a 1x128 fp32-scale output). Kernel: emulator/include/octet/kernels/swiglu_quant.hpp.
//
// Datasets: x (M, 2H) = [a | g] row-major, bf16 or fp32; grad (M, H) of the same dtype; optional
// probs (M,) float32 (forward) and sigmoid (M, H) float32, the device's recorded sigmoid(a)
// values that replace octet's expf. Outputs: the input-dtype values that were quantised (`y`
// forward, `dx` = [d_a | d_g] backward), their element codes `q`, and the block scales named by
// the recipe's storage: `scale` (float8_e8m0fnu, 1x32 blocks; float32 encode multipliers for
// encode-storing 1x128 recipes) or `scale_inv` (float32 dequantisation multipliers, 1x128 blocks).
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "../scale_io.hpp"
#include "octet/golden/adapter_io.hpp"
#include "octet/format.hpp"
#include "octet/golden/runner.hpp"
#include "octet/kernels/swiglu_quant.hpp"

namespace octet::golden {
namespace {

constexpr std::string_view kDefaultRecipe = "te_mxfp8";

template <class T>
Tensor matrix(std::string_view dtype, std::int64_t rows, std::int64_t cols, const std::vector<T>& v) {
  return make_tensor(dtype, {rows, cols}, v, "row_major", {cols, 1});
}

// The outputs of one call; `values_name` is "y" (forward) or "dx" (backward).
template <class In>
Tensors outputs(const SwigluQuantized<In>& o, const Recipe& r, std::string_view input_dtype, const char* values_name) {
  const std::int64_t M = o.rows, N = o.cols, NB = o.block > 0 ? N / o.block : 0;
  Tensors out;
  out.emplace(values_name, matrix(input_dtype, M, N, o.y));
  std::vector<std::uint8_t> codes = o.data;
  codes.resize(std::size_t(M * N), 0);  // empty outputs come back without storage
  out.emplace("q", matrix(dtype_name(element_format(r)), M, N, codes));
  std::vector<std::uint32_t> scales = o.scales;
  scales.resize(std::size_t(M * NB), 0);
  out.emplace(stored_scale_name(r), stored_scale_tensor(r, {M, NB}, scales, "row_major", {NB, 1}));
  return out;
}

// The optional recorded sigmoid (M, H) float32 input.
std::optional<std::vector<float>> recorded_sigmoid(const Tensors& inputs, std::int64_t M, std::int64_t H) {
  if (!has_input(inputs, "sigmoid")) return std::nullopt;
  const Tensor& s = input(inputs, "sigmoid");
  expect_dtype(s, "sigmoid", {"float32"}, 2);
  if (s.shape[0] != M || s.shape[1] != H)
    throw KernelInputError("input 'sigmoid': shape (" + std::to_string(s.shape[0]) + ", " + std::to_string(s.shape[1]) +
                           "), expected (M, H) = (" + std::to_string(M) + ", " + std::to_string(H) + ")");
  return values_of<float>(s);
}

// x (M, 2H): the rank-2 check, and H (the kernel checks the parity and the block multiple).
std::int64_t half_width(const FloatInput& x) { return x.dim(1) / 2; }

Tensors run_forward(const KernelCall& call) {
  const Recipe& r = call_recipe(call, kDefaultRecipe);
  const FloatInput x = float_input(call.inputs, "x", 2);
  std::vector<float> probs;
  if (has_input(call.inputs, "probs")) {
    const Tensor& p = input(call.inputs, "probs");
    expect_dtype(p, "probs", {"float32"}, 1);
    probs = values_of<float>(p);
  }
  const std::int64_t M = x.dim(0), H = half_width(x);
  const std::optional<std::vector<float>> sig = recorded_sigmoid(call.inputs, M, H);
  const auto run = [&](const auto& v) {
    using In = typename std::decay_t<decltype(v)>::value_type;
    const auto xv = view2d(v, M, x.dim(1));
    if (sig) return swiglu_quantize_forward<In>(xv, view2d(*sig, M, H), r, probs);
    return swiglu_quantize_forward<In>(xv, r, probs);
  };
  if (x.type == InputType::bf16) return outputs(run(x.bf16), r, x.dtype(), "y");
  return outputs(run(x.f32), r, x.dtype(), "y");
}

Tensors run_backward(const KernelCall& call) {
  const Recipe& r = call_recipe(call, kDefaultRecipe);
  const bool dact_fma = flag_param(call, "dact_fma", false);
  const FloatInput x = float_input(call.inputs, "x", 2);
  const FloatInput grad = float_input(call.inputs, "grad", 2);
  if (grad.type != x.type)
    throw KernelInputError("input 'grad': dtype '" + std::string(grad.dtype()) + "' differs from x's '" +
                           std::string(x.dtype()) + "'");
  const std::int64_t M = x.dim(0), H = half_width(x);
  const std::optional<std::vector<float>> sig = recorded_sigmoid(call.inputs, M, H);
  const auto run = [&](const auto& gv, const auto& xv_data) {
    using In = typename std::decay_t<decltype(xv_data)>::value_type;
    const auto g = view2d(gv, grad.dim(0), grad.dim(1));
    const auto xv = view2d(xv_data, M, x.dim(1));
    if (sig) return swiglu_quantize_backward<In>(g, xv, view2d(*sig, M, H), r, dact_fma);
    return swiglu_quantize_backward<In>(g, xv, r, SwigluOptions{.dact_fma = dact_fma});
  };
  if (x.type == InputType::bf16) return outputs(run(grad.bf16, x.bf16), r, x.dtype(), "dx");
  return outputs(run(grad.f32, x.f32), r, x.dtype(), "dx");
}

const std::array<KernelAdapter, 2> kAdapters{{
    {"swiglu_quantize_forward", kDefaultRecipe,
     "x: bfloat16|float32 (M, 2H) = [a | g], H % block == 0; probs: float32 (M,) optional (router weights, "
     "multiplied last); sigmoid: float32 (M, H) optional (recorded sigmoid(a), replaces octet's expf)",
     "recipe (e8m0 recipes: 1x32 blocks; fp32-scale recipes: 1x128 blocks)",
     "y: <x dtype> (M, H) row_major, (a*sigmoid(a))*g [*p] rounded to x's dtype; q: <element> (M, H) row_major; "
     "scale: float8_e8m0fnu (M, H/32) for e8m0 recipes | scale_inv: float32 (M, H/128) for decode-storing fp32 "
     "recipes | scale: float32 (M, H/128) for encode-storing fp32 recipes",
     run_forward},
    {"swiglu_quantize_backward", kDefaultRecipe,
     "grad: bfloat16|float32 (M, H); x: same dtype (M, 2H) = [a | g], H % block == 0; sigmoid: float32 (M, H) "
     "optional (recorded sigmoid(a))",
     "recipe (as forward); dact_fma (int 0/1, default 0: dact = ((a*s)*(1-s)) + s; 1: fma(a*s, 1-s, s))",
     "dx: <x dtype> (M, 2H) row_major = [dact*grad*g | silu(a)*grad] rounded to x's dtype; q: <element> (M, 2H) "
     "row_major; scale: float8_e8m0fnu (M, 2H/32) | scale_inv: float32 (M, 2H/128) | scale: float32 (M, 2H/128), "
     "d_a blocks first, then d_g blocks",
     run_backward},
}};

}  // namespace

std::span<const KernelAdapter> fused_adapters() { return kAdapters; }

}  // namespace octet::golden
