// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// The registry: one section per family, in the order of reference/kernels.md. Each entry's
// peer is what its implementation file cites.
#include "octet/registry.hpp"

#include <array>
#include <vector>

namespace octet {

std::string_view name(EntryKind k) {
  constexpr std::array<std::string_view, 3> names{"kernel", "recipe", "gemm_model"};
  return names[std::size_t(k)];
}

namespace {
using K = EntryKind;

// ---- scale recipes (emulator/src/scale.cpp) ----
const std::vector<RegistryEntry> kRecipes = {
    {"torchao_fp8_rowwise", K::recipe,
     "pytorch/ao@36027d82d1ad torchao/float8/float8_utils.py::amax_to_scale, to_fp8_saturated (torchao/prototype/moe_training/kernels/float8_rowwise.py)",
     "FP8 rowwise: s = fl32(max/fl64(max(amax, 1e-12))), stores s; clamp(fl32(x*s)) then c10 cast"},
    {"torchao_fp8_rowwise_pow2", K::recipe,
     "pytorch/ao@36027d82d1ad torchao/float8/float8_utils.py::amax_to_scale, to_fp8_saturated (torchao/prototype/moe_training/kernels/float8_rowwise.py)",
     "FP8 rowwise (MoE): s = exp2(floor(log2 fl32(max/fl64(max(amax, 1e-12))))), stores s"},
    {"torchao_fp8_rowwise_e4m3fnuz", K::recipe,
     "pytorch/ao@36027d82d1ad torchao/float8/float8_utils.py::amax_to_scale, to_fp8_saturated (torchao/prototype/moe_training/kernels/float8_rowwise.py)",
     "FP8 rowwise: s = fl32(max/fl64(max(amax, 1e-12))), stores s; clamp(fl32(x*s)) then c10 cast"},
    {"torchao_fp8_rowwise_pow2_e4m3fnuz", K::recipe,
     "pytorch/ao@36027d82d1ad torchao/float8/float8_utils.py::amax_to_scale, to_fp8_saturated (torchao/prototype/moe_training/kernels/float8_rowwise.py)",
     "FP8 rowwise (MoE): s = exp2(floor(log2 fl32(max/fl64(max(amax, 1e-12))))), stores s"},
    {"torchao_mx_floor", K::recipe,
     "pytorch/ao torchao/prototype/mx_formats/mx_tensor.py::to_mx (main after PR #4725, 5d73a0c10)",
     "MXFP8 FLOOR: b = clamp(e(amax) - 135, -127, 128) + 127; saturates for amax in (448, 512)*2^k"},
    {"torchao_mx_rceil", K::recipe,
     "pytorch/ao torchao/prototype/mx_formats/mx_tensor.py::to_mx (main after PR #4725, 5d73a0c10)",
     "MXFP8 RCEIL (default): b = RP(fl32(amax*R)) to e8m0, 255 if not finite or > 2^127"},
    {"torchao_mx_ceil", K::recipe,
     "pytorch/ao torchao/prototype/mx_formats/mx_tensor.py::to_mx (main after PR #4725, 5d73a0c10)",
     "MX CEIL: 2^(ceil(log2 amax) - 8) by exponent extraction"},
    {"torchao_mx_even", K::recipe,
     "pytorch/ao torchao/prototype/mx_formats/mx_tensor.py::to_mx (main after PR #4725, 5d73a0c10)",
     "MX EVEN: amax rounded to 3 mantissa bits, then FLOOR"},
    {"torchao_mx_floor_v018", K::recipe,
     "pytorch/ao v0.18.0 torchao/prototype/mx_formats/mx_tensor.py::to_mx (torch path, before PR #4725)",
     "MXFP8 FLOOR v0.18: data = clamp(x / max(2^(b-127), 2^-126), +-448)"},
    {"torchao_mx_rceil_v018", K::recipe,
     "pytorch/ao v0.18.0 torchao/prototype/mx_formats/mx_tensor.py::to_mx (torch path, before PR #4725)",
     "MXFP8 RCEIL v0.18: ceil(log2(amax/448)), Inf -> 254, reciprocal of byte 0 is 1.0"},
    {"torchao_blockwise", K::recipe,
     "pytorch/ao torchao/prototype/blockwise_fp8_training/kernels.py (Triton quant kernels)",
     "FP8 blockwise 1x128/128x128: s = fl32(max/fl64(max(amax, 1e-12))), no pow2; stores div_rn(1, s)"},
    {"torchao_blockwise_e4m3fnuz", K::recipe,
     "pytorch/ao torchao/prototype/blockwise_fp8_training/kernels.py (Triton quant kernels)",
     "FP8 blockwise 1x128/128x128: s = fl32(max/fl64(max(amax, 1e-12))), no pow2; stores div_rn(1, s)"},
    {"te_current", K::recipe,
     "NVIDIA/TransformerEngine@d0067d0da transformer_engine/common/recipe/recipe_common.cuh::compute_scale_from_amax, recipe/current_scaling.cu",
     "TE Float8CurrentScaling: s = __fdiv_rn(max, amax); stores scale_inv = 1/s"},
    {"te_current_pow2", K::recipe,
     "NVIDIA/TransformerEngine@d0067d0da transformer_engine/common/recipe/recipe_common.cuh::compute_scale_from_amax, recipe/current_scaling.cu",
     "TE Float8CurrentScaling, NVTE_FP8_CURRENT_SCALING_POWER_2_SCALES=1: __fdiv_rn(max, amax) & 0xFF800000; stores scale_inv"},
    {"te_current_e5m2", K::recipe,
     "NVIDIA/TransformerEngine@d0067d0da transformer_engine/common/recipe/recipe_common.cuh::compute_scale_from_amax, recipe/current_scaling.cu",
     "TE Float8CurrentScaling: s = __fdiv_rn(max, amax); stores scale_inv = 1/s"},
    {"te_current_pow2_e5m2", K::recipe,
     "NVIDIA/TransformerEngine@d0067d0da transformer_engine/common/recipe/recipe_common.cuh::compute_scale_from_amax, recipe/current_scaling.cu",
     "TE Float8CurrentScaling, NVTE_FP8_CURRENT_SCALING_POWER_2_SCALES=1: __fdiv_rn(max, amax) & 0xFF800000; stores scale_inv"},
    {"te_delayed", K::recipe,
     "NVIDIA/TransformerEngine@d0067d0da transformer_engine/common/recipe/delayed_scaling.cu",
     "TE DelayedScaling: s = (max*2^-margin)/amax over the amax history; stores scale_inv"},
    {"te_delayed_e5m2", K::recipe,
     "NVIDIA/TransformerEngine@d0067d0da transformer_engine/common/recipe/delayed_scaling.cu",
     "TE DelayedScaling: s = (max*2^-margin)/amax over the amax history; stores scale_inv"},
    {"te_blockwise", K::recipe,
     "NVIDIA/TransformerEngine@d0067d0da transformer_engine/common/transpose/quantize_transpose_vector_blockwise.cu, quantize_transpose_square_blockwise.cu (compute_scale_from_types -> recipe_common.cuh::compute_scale_from_amax)",
     "TE Float8BlockScaling (default): __fdiv_rn(448, amax) & 0xFF800000, value_for_inf = FLT_MAX"},
    {"te_blockwise_fp32", K::recipe,
     "NVIDIA/TransformerEngine@d0067d0da transformer_engine/common/transpose/quantize_transpose_vector_blockwise.cu, quantize_transpose_square_blockwise.cu (compute_scale_from_types -> recipe_common.cuh::compute_scale_from_amax)",
     "TE Float8BlockScaling, NVTE_FP8_BLOCK_SCALING_FP32_SCALES=1: __fdiv_rn(448, amax)"},
    {"te_mxfp8", K::recipe,
     "NVIDIA/TransformerEngine@d0067d0da transformer_engine/common/cast/mxfp8/quantize_mxfp8.cuh, util/ptx_arch_spec.cuh::float_to_e8m0, exp2f_rcp",
     "TE MXFP8: b = float_to_e8m0(amax*R) (RP, satfinite), x*exp2f_rcp(b) -> RNE satfinite"},
    {"deepgemm", K::recipe,
     "deepseek-ai/DeepGEMM@54e2261 deep_gemm/utils/math.py::per_token_cast_to_fp8, per_block_cast_to_fp8, ceil_to_ue8m0",
     "DeepGEMM: sf = fl32(max(amax, 1e-4)/448); q = (x*(1/sf)).to(e4m3fn), no saturation"},
    {"deepgemm_ue8m0", K::recipe,
     "deepseek-ai/DeepGEMM@54e2261 deep_gemm/utils/math.py::per_token_cast_to_fp8, per_block_cast_to_fp8, ceil_to_ue8m0",
     "DeepGEMM use_ue8m0: sf = ceil_to_ue8m0(fl32(max(amax, 1e-4)/448)); q = (x*(1/sf)).to(e4m3fn)"},
    {"deepep", K::recipe,
     "deepseek-ai/DeepEP csrc/kernels/legacy/internode_ll.cu, utils.cuh::calculate_fp8_scales",
     "DeepEP LL dispatch: scale = 448/amax, scale_inv = amax*R (not reciprocals), amax from 1e-4"},
    {"deepep_round", K::recipe,
     "deepseek-ai/DeepEP csrc/kernels/legacy/internode_ll.cu, utils.cuh::calculate_fp8_scales",
     "DeepEP LL dispatch round_scale: e = fast_log2_ceil(amax*R), scale = 2^-e, scale_inv = 2^e"},
    {"ocp_mx", K::recipe,
     "OCP MX v1.0 §6.3; microsoft/microxcaling mx/mx_ops.py::_shared_exponents; graphcore-research/gfloat src/gfloat/block.py",
     "OCP MX: X = 2^(floor(log2 amax) - emax_elem) clamped to e8m0, NaN above; P = RNE(V/X), saturating"},
    {"nvidia_rceil_rcp_approx", K::recipe,
     "cuda_fp8.hpp __nv_cvt_float_to_e8m0(amax * rcp.approx.ftz.f32(448.f), __NV_SATFINITE, cudaRoundPosInf) (TensorRT-LLM-style MX quantisers; recipes.md §7)",
     "NVIDIA production RCEIL: RP satfinite e8m0 of amax * rcp448 (rcp448_bits measured per GPU)"},
    {"nvfp4", K::recipe,
     "NVIDIA/TransformerEngine@d0067d0da transformer_engine/pytorch/custom_recipes/reference_nvfp4.py",
     "NVFP4: e2m1 in 1x16 blocks, e4m3 block decode scale, fp32 global encode 2688/global_amax"},
};

// ---- family 1-3: rowwise / per-group / blockwise quantisers ----
const std::vector<RegistryEntry> kFp8Kernels = {
    // family 1: emulator/src/kernels/fp8_rowwise.cpp
    {"fp8_rowwise_2d_scale_and_cast", K::kernel,
     "pytorch/ao torchao/prototype/moe_training/kernels/float8_rowwise.py::triton_fp8_rowwise_2d_scale_and_cast",
     "A (M,K) any strides -> e4m3 (M,K) row-major + fp32 s (M,1), amax over K; default torchao_fp8_rowwise_pow2"},
    {"fp8_colwise_3d_scale_and_cast", K::kernel,
     "pytorch/ao torchao/prototype/moe_training/kernels/float8_rowwise.py::triton_fp8_colwise_3d_scale_and_cast",
     "B_t (E,K,N) per-expert column-major -> same strides + s (E,1,N), amax over K per (e,n)"},
    {"fp8_rowwise_3d_transpose_rhs", K::kernel,
     "pytorch/ao torchao/prototype/moe_training/kernels/float8_rowwise.py::triton_fp8_rowwise_3d_transpose_rhs "
     "(atomic_min over 128x128 tiles; = _fused_reduction)",
     "B_t (E,K,N) -> (E,N,K) strides (N*K,1,N) + s (E,K) over N; min over tiles = scale of the row amax"},
    // family 2: emulator/src/kernels/fp8_per_group.cpp
    {"fp8_per_group_rowwise_scales", K::kernel,
     "pytorch/ao torchao/prototype/moe_training/kernels/jagged_float8_scales.py::triton_fp8_per_group_rowwise_scales",
     "x (M,K_total), groups along columns -> (M,K) row-major + flat s (M*G) [g][m]; K2 mask bug not reproduced"},
    {"fp8_per_group_colwise_scales", K::kernel,
     "pytorch/ao torchao/prototype/moe_training/kernels/jagged_float8_scales.py::triton_fp8_per_group_colwise_scales",
     "x (K,N), groups along rows -> (K,N) strides (1,K) + flat s (N*G) [g][n]; K1/K2 peer bugs not reproduced"},
    {"fp8_per_group_colwise_scales_dual", K::kernel,
     "pytorch/ao torchao/prototype/moe_training/kernels/jagged_float8_scales.py::triton_fp8_per_group_colwise_scales_dual",
     "two tensors (K,N1), (K,N2) sharing offs -> two per-group colwise results (wgrad grad_out and A)"},
    // family 3: emulator/src/kernels/fp8_blockwise.cpp
    {"fp8_blockwise_act_quant_lhs", K::kernel,
     "pytorch/ao torchao/prototype/blockwise_fp8_training/kernels.py::triton_fp8_blockwise_act_quant_lhs",
     "1x128: x (M,K) contiguous, K%128 -> (M,K) row-major + scales (M,K/128) strides (1,M); stores div_rn(1,s)"},
    {"fp8_blockwise_act_quant_rhs", K::kernel,
     "pytorch/ao torchao/prototype/blockwise_fp8_training/kernels.py::triton_fp8_blockwise_act_quant_rhs",
     "128x1: x (M,K) contiguous, K%128 -> (M,K) strides (1,M) + scales (ceil(M/128),K) row-major"},
    {"fp8_blockwise_act_quant_transposed_lhs", K::kernel,
     "pytorch/ao torchao/prototype/blockwise_fp8_training/kernels.py::triton_fp8_blockwise_act_quant_transposed_lhs",
     "x (M,K), M%128 -> (K,M) row-major, 1x128 along M + scales (K,M/128) strides (1,K)"},
    {"fp8_blockwise_weight_quant_rhs", K::kernel,
     "pytorch/ao torchao/prototype/blockwise_fp8_training/kernels.py::triton_fp8_blockwise_weight_quant_rhs",
     "128x128: x (M,N), both %128 -> (M,N) strides (1,M) + scales (M/128,N/128) strides (1,M/128)"},
    {"fp8_blockwise_weight_quant_transposed_rhs", K::kernel,
     "pytorch/ao torchao/prototype/blockwise_fp8_training/kernels.py::triton_fp8_blockwise_weight_quant_transposed_rhs",
     "128x128: x (M,N) -> (N,M) strides (1,N) + scales (N/128,M/128) strides (1,N/128)"},
    {"fp8_blockwise_weight_quant_grouped_transposed_rhs", K::kernel,
     "pytorch/ao torchao/prototype/blockwise_fp8_training/grouped_kernels.py::triton_fp8_blockwise_weight_quant_grouped_transposed_rhs",
     "128x128 experts: w (E,K,N) per-expert column-major -> same layout + scales (E,K/128,N/128) k-major"},
    {"fp8_blockwise_weight_quant_grouped_rhs", K::kernel,
     "pytorch/ao torchao/prototype/blockwise_fp8_training/grouped_kernels.py::triton_fp8_blockwise_weight_quant_grouped_rhs",
     "128x128 experts: w (E,K,N) -> (E,N,K) strides (N*K,1,N) + scales (E,N/128,K/128) strides (.,1,N/128)"},
    {"fp8_blockwise_pad_scales_128x128", K::kernel,
     "pytorch/ao torchao/prototype/blockwise_fp8_training/grouped_kernels.py::_prepare_grouped_128x128_scale "
     "(2D: kernels.py::_prepare_blockwise_scaled_mm_rhs_scale)",
     "128x128 scales: k-block dim padded to a multiple of 4 with 1.0"},
    {"fp8_blockwise_act_quant_k_grouped_deepgemm", K::kernel,
     "pytorch/ao torchao/prototype/blockwise_fp8_training/deepgemm_quant.py::triton_fp8_blockwise_act_quant_k_grouped_deepgemm",
     "128x1 per token group (sizes %128): per-expert (D,size_g) row-major blocks + scales (D,offs[-1]/128)"},
    {"fp8_blockwise_act_quant_rhs_grouped", K::kernel,
     "generalises torchao blockwise_fp8_training/kernels.py::triton_fp8_blockwise_act_quant_rhs to token groups "
     "(torchao moe_training/blockwise_fp8 pads groups to 128)",
     "128x1 blocks restarting at each group start, partial last block; (M,D) strides (1,M) + scales (B,D)"},
    {"fp8_blockwise_act_quant_transposed_lhs_grouped", K::kernel,
     "generalises torchao blockwise_fp8_training/kernels.py::triton_fp8_blockwise_act_quant_transposed_lhs to "
     "token groups",
     "1x128 along tokens per group, partial last block -> (D,M) row-major + scales (D,B) strides (1,D)"},
    {"deepgemm_per_token_cast_to_fp8", K::kernel, "deepseek-ai/DeepGEMM deep_gemm/utils/math.py::per_token_cast_to_fp8",
     "1x128, n zero-padded to 128 -> (m,n) row-major + sf (m,ceil(n/128)); default recipe deepgemm"},
    {"deepgemm_per_channel_cast_to_fp8", K::kernel,
     "deepseek-ai/DeepGEMM deep_gemm/utils/math.py::per_channel_cast_to_fp8",
     "128x1, m%128 -> (m,n) row-major + sf (m/128,n)"},
    {"deepgemm_per_block_cast_to_fp8", K::kernel, "deepseek-ai/DeepGEMM deep_gemm/utils/math.py::per_block_cast_to_fp8",
     "128x128, m and n zero-padded to 128 -> (m,n) row-major + sf (ceil(m/128),ceil(n/128))"},
};

// ---- family 4: MX quantisers, dequantisation, scale swizzles ----
const std::vector<RegistryEntry> kMxKernels = {
    {"mx_quantize_dim0", K::kernel, "torchao mx_formats/kernels.py:triton_to_mxfp8_dim0",
     "MX 1x32 along K: x (M,K) bf16/fp32 -> elements (M,K) row-major + e8m0 (M,K/32); K % 32"},
    {"mx_quantize_dim1", K::kernel, "torchao mx_formats/kernels.py:triton_to_mxfp8_dim1",
     "MX 32x1 along M: x (M,K) -> elements (M,K) column-major + e8m0 (K,M/32); M % 32"},
    {"mx_quantize_2d", K::kernel,
     "torchao csrc/cuda/mx_kernels/mxfp8_quantize.cuh:mxfp8_quantize_cuda; TE common/cast/mxfp8/quantize_mxfp8.cuh",
     "MX rowwise (1x32) and/or colwise (32x1, scales (cols,rows/32) strides (1,cols)), both from the input"},
    {"mx_quantize_3d", K::kernel, "torchao moe_training/kernels/mxfp8:mxfp8_quantize_cuda_3d (cutedsl_3d)",
     "MX weights (E,N,K) -> (E,N,K) strides (N*K,1,N); e8m0 (E,N/32,K) for 32x1 or (E,N/32,K/32) for 32x32"},
    {"mx_dequantize_dim0", K::kernel, "torchao mx_formats/kernels.py:triton_mxfp8_dequant_dim0",
     "MX 1x32 dequantisation: code * 2^(b-127) exact, one rounding to bf16 or fp32; 255 -> NaN"},
    {"mx_blocked_scales", K::kernel,
     "torchao moe_training/kernels/mxfp8:mxfp8_quantize_2d_1x32_cutedsl, _2d_32x1_cutedsl, mxfp8_quantize_cuda_3d (blocked)",
     "the quantisers' e8m0 scales in the blocked layout (to_blocked; 3D: per expert (K,N/32), 32x32 repeated x32)"},
};

// ---- family 5: token padding and permutation ----
const std::vector<RegistryEntry> kLayoutKernels = {
    {"pad_token_groups", K::kernel,
     "pytorch/ao torchao/prototype/moe_training/kernels/mxfp8/quant.py::torch_pad_token_groups",
     "pad each token group to a multiple of the alignment; upper-bound rows, zero padding, padded starts/ends"},
    {"unpad_token_groups", K::kernel,
     "pytorch/ao torchao/prototype/moe_training/kernels/mxfp8/quant.py::torch_unpad_token_groups",
     "gather the token groups back out of the padded rows (data and scale rows)"},
    {"permute_tokens", K::kernel,
     "pytorch/ao torchao/prototype/moe_training/ep/permute.py::_PermuteMXFP8FwdHPBwd.forward (x_padded[permuted_indices])",
     "gather data rows with their scale rows by index, bit for bit; index -1 selects a zero row"},
    {"unpermute_tokens", K::kernel,
     "pytorch/ao torchao/prototype/moe_training/ep/permute.py::_triton_permute_bwd",
     "scatter permuted rows (and scale rows) back to their tokens; uncovered tokens are zero"},
    {"permute_and_pad", K::kernel,
     "pytorch/ao torchao/prototype/moe_training/ep/permute.py::permute_and_pad + ep/kernels.py::generate_permute_indices",
     "EP rank-major -> expert-major permutation, groups padded to the alignment (empty experts get one block)"},
    {"fused_permute_pad", K::kernel,
     "NVIDIA/TransformerEngine PR #1921 transformer_engine/common/triton/permutation.py::_permute_kernel (pad_offsets)",
     "top-k permutation with padding per expert: data, fp32/e8m0 scale rows and probs; pad rows zero"},
    {"fused_unpermute_unpad", K::kernel,
     "NVIDIA/TransformerEngine PR #1921 transformer_engine/common/triton/permutation.py::_unpermute_kernel (pad_offsets)",
     "combine: fp32 sum of prob-weighted routed rows in routing order, one rounding to bf16"},
    {"to_blocked", K::kernel,
     "pytorch/ao torchao/prototype/mx_formats/utils.py::to_blocked",
     "scale matrix -> 128x4-tile blocked (swizzled) layout, padded with byte 0"},
    {"from_blocked", K::kernel,
     "reference/kernels.md §5 inverse map (derived from torchao to_blocked)",
     "blocked layout -> scale matrix, padding dropped"},
    {"to_blocked_m_groups", K::kernel,
     "pytorch/ao torchao/prototype/moe_training/kernels/mxfp8/quant.py::torch_to_blocked_2d_M_groups",
     "blocked scales per token group along M; group g at padded row R_g of an (H + 128G, Wp) buffer"},
    {"to_blocked_k_groups", K::kernel,
     "pytorch/ao torchao/prototype/moe_training/kernels/mxfp8/quant.py::torch_to_blocked_2d_K_groups",
     "blocked scales per group along the contraction (wgrad); (Np, M/32 + 4G) buffer, group regions at C_g*Np"},
    {"to_blocked_per_group_3d", K::kernel,
     "pytorch/ao torchao/prototype/moe_training/kernels/mxfp8/quant.py::torch_to_blocked_per_group_3d",
     "blocked scales of each expert's weight scales -> (E, Hp*Wp)"},
};

// ---- family 6: scaling-aware transpose ----
const std::vector<RegistryEntry> kTransposeKernels = {
    {"fp8flow_transpose_published", K::kernel,
     "021ai/TransformerEngine-FP8FlowMoe transformer_engine/pytorch/triton/blockwise_scaling_aware_fp8_transpose.py "
     "(TE PR #2544); reference/kernels.md §8",
     "rowwise 1x128 e4m3 + pow2 si -> per-group (cols, m_g) copy with one max-si scale per 128x128 tile by exponent "
     "shift; corner cases (a)-(d) bit for bit"},
    {"fp8flow_transpose_ideal", K::kernel, "reference/kernels.md §8 (octet: correctly rounded shift)",
     "same tile scale; E - k < 1 and subnormal codes rounded RNE into the e4m3 subnormal range, -0 and NaN kept"},
    {"fp8flow_transpose_naive", K::kernel,
     "021ai/TransformerEngine-FP8FlowMoe transformer_engine/pytorch/module/grouped_linear.py fallback "
     "(dequantize + tex.split_quantize); reference/kernels.md §8, recipes.md §4.4",
     "double-quant baseline: dequantise to bf16, fresh 128x1 te_blockwise amax per column per group, RNE"},
};

// ---- family 7-8: fused SwiGLU + quantisation, all-to-all emulation ----
const std::vector<RegistryEntry> kFusedKernels = {
    // family 7: emulator/src/kernels/swiglu_quant.cpp
    {"swiglu_quantize_forward", K::kernel,
     "NVIDIA/TransformerEngine transformer_engine/common/cast/mxfp8/gated_mxfp8.cuh:quantize_gated_mxfp8_kernel "
     "(IS_BWD=false, util/math.h:silu); tests/cpp/operator/test_cast_mxfp8_gated_swiglu.cu:scale_block",
     "x (M,2H) [a|g] -> y = (a*sigmoid(a))*g [*p] in fp32, bf16-rounded before amax; rowwise 1x32 e8m0 or 1x128 fp32"},
    {"swiglu_quantize_backward", K::kernel,
     "NVIDIA/TransformerEngine transformer_engine/common/cast/mxfp8/gated_mxfp8.cuh:quantize_gated_mxfp8_kernel "
     "(IS_BWD=true, silu/dsilu branch with sigmoidf)",
     "grad (M,H), x (M,2H) -> [dact*grad*g | silu(a)*grad] (M,2H) bf16-rounded; separate scale columns per half"},
    // family 8: emulator/src/kernels/a2a_emulation.cpp
    {"a2a_exchange_mxfp8", K::kernel,
     "pytorch/ao torchao/prototype/moe_training/kernels/mxfp8/comms.py:to_mxfp8_a2a_dequant (ToMXFP8AllToAllVDequant)",
     "R simulated ranks: triton_to_mxfp8_dim0 RCEIL -> all_to_all_single of data and e8m0 rows -> dequant to input dtype"},
    {"a2a_exchange_fp8_blockwise", K::kernel,
     "deepseek-ai/DeepEP csrc/kernels/legacy/internode_ll.cu:dispatch (FP8, 1x128, kFP8Margin 1e-4)",
     "R simulated ranks: 1x128 e4m3 + fp32 scale_inv (deepep recipe) -> exchange -> code*scale_inv rounded once"},
    {"a2a_exchange_passthrough", K::kernel,
     "torch.distributed all_to_all_single (bf16 dispatch; DeepEP BF16 combine payload)",
     "receiver-major concatenation of the senders' chunks, rows copied bit for bit"},
    {"a2a_combine", K::kernel,
     "deepseek-ai/DeepEP csrc/kernels/legacy/internode_ll.cu:combine (BF16, top-k weighted fp32 reduction)",
     "reverse exchange, then per token fp32 sum of weighted expert rows in routing order, one rounding"},
};

// ---- the recipes themselves as kernels (emulator/src/scale.cpp), for golden cases ----
const std::vector<RegistryEntry> kRecipeKernels = {
    {"recipe_scale_from_amax", K::kernel, "recipes.md",
     "per amax: the recipe's stored scale, encode and decode multipliers (scale_from_amax, specials of recipes.md §8)"},
    {"recipe_quantize_blocks", K::kernel, "recipes.md",
     "x (N,K) in blocks along rows: amax (recipe NaN rule) -> scale_from_amax -> quantize_element; codes + stored scales"},
    {"cast", K::kernel, "formats.md; the profile's peer (profile.hpp)",
     "elementwise octet::cast of fp32/bf16/fp16 values to a format under a conversion profile"},
    {"decode", K::kernel, "formats.md", "every code of a format: exact value (float64) and class"},
};

// ---- scaled (grouped) GEMM accumulation models (emulator/src/kernels/gemm.cpp) ----
const std::vector<RegistryEntry> kGemmModels = {
    {"exact", K::gemm_model,
     "torch _scaled_mm/_scaled_grouped_mm semantics; DeepGEMM m_grouped_fp8_gemm_nt_contiguous, "
     "k_grouped_fp8_gemm_tn_contiguous; reference/kernels.md §4.3 mode 1",
     "exact sum of dequantised products (int128 / cpp_int fixed point) (+ C), rounded once (RNE) to bf16/fp32"},
    {"fp32_seq", K::gemm_model, "reference/kernels.md §4.3 mode 2 (fp32 sequential accumulation)",
     "per scale segment: fp32 sum of unscaled products in k order, folded by fma(P, fl32(sa*sb), acc)"},
    {"fp32_promote", K::gemm_model,
     "DeepSeek-V3 (arXiv:2412.19437) §3.3 promotion; DeepGEMM CUDA-core two-level accumulation",
     "as fp32_seq with partials cut every N_C = 128 elements, each promoted into fp32 with its block scales"},
    {"hopper_fast_accum", K::gemm_model,
     "DeepSeek-V3 §3.3 (Hopper fp8 accumulation keeps ~14 bits); torch use_fast_accum=True; uncalibrated",
     "per 32-product group: align to max exponent, truncate to 14 bits, add to a 14-bit truncating accumulator"},
};

std::vector<RegistryEntry> build() {
  std::vector<RegistryEntry> all;
  for (const auto* section : {&kRecipes, &kFp8Kernels, &kMxKernels, &kLayoutKernels, &kTransposeKernels, &kFusedKernels,
                              &kRecipeKernels, &kGemmModels})
    all.insert(all.end(), section->begin(), section->end());
  return all;
}
}  // namespace

std::span<const RegistryEntry> registry() {
  static const std::vector<RegistryEntry> all = build();
  return all;
}

}  // namespace octet
