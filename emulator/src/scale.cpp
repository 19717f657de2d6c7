// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// scale.cpp — the scale recipes of reference/recipes.md: a block's amax -> the stored scale and
// the multiplier applied before the element cast, bit for bit, special values (§8) included.
// Each recipe is one row of the table at the bottom; its fields select the steps below. The
// element casts are the named profiles of profile.cpp (Recipe::cast_profile), never a second
// converter.
//
// Peers, per recipe (the versions of recipes.md):
//   torchao_fp8_rowwise{,_pow2}{,_e4m3fnuz}  pytorch/ao@36027d82d1ad torchao/float8/float8_utils.py::
//                                            amax_to_scale, tensor_to_amax, to_fp8_saturated (§1)
//   torchao_mx_{floor,rceil,ceil,even}       torchao/prototype/mx_formats/mx_tensor.py::to_mx
//                                            (main after PR #4725, 5d73a0c10) (§2.2, §2.3)
//   torchao_mx_{floor,rceil}_v018            torchao/prototype/mx_formats/mx_tensor.py::to_mx at
//                                            v0.18.0 (before PR #4725), torch path (§2.7)
//   torchao_blockwise{,_e4m3fnuz}            torchao/prototype/blockwise_fp8_training/kernels.py (§3)
//   te_current{,_pow2}{,_e5m2}, te_blockwise{,_fp32}
//                                            NVIDIA/TransformerEngine@d0067d0da transformer_engine/
//                                            common/recipe/recipe_common.cuh::compute_scale_from_amax,
//                                            recipe/current_scaling.cu, transpose/quantize_transpose_
//                                            vector_blockwise.cu (§4.1, §4.3, §4.4)
//   te_delayed{,_e5m2}                       transformer_engine/common/recipe/delayed_scaling.cu (§4.2)
//   te_mxfp8                                 transformer_engine/common/cast/mxfp8/quantize_mxfp8.cuh,
//                                            util/ptx_arch_spec.cuh::float_to_e8m0, exp2f_rcp (§4.5)
//   nvfp4                                    transformer_engine/pytorch/custom_recipes/reference_nvfp4.py (§4.6)
//   deepgemm{,_ue8m0}                        deepseek-ai/DeepGEMM@54e2261 deep_gemm/utils/math.py::
//                                            per_token_cast_to_fp8, ceil_to_ue8m0 (§5.1)
//   deepep{,_round}                          deepseek-ai/DeepEP csrc/kernels/legacy/internode_ll.cu,
//                                            utils.cuh::calculate_fp8_scales (§5.2)
//   ocp_mx                                   OCP MX v1.0 §6.3; microxcaling mx/mx_ops.py::
//                                            _shared_exponents; gfloat src/gfloat/block.py (§6)
//   nvidia_rceil_rcp_approx                  __nv_cvt_float_to_e8m0(amax * rcp.approx.ftz.f32(448.f),
//                                            __NV_SATFINITE, cudaRoundPosInf) (§7)
//
// Device arithmetic: every fp32 step is one IEEE operation rounded to nearest even (no FMA
// contraction, no flush to zero); a NaN produced by a device multiply is the canonical
// 0x7FFFFFFF (PTX), so octet makes every NaN product and NaN scale canonical and the result does
// not depend on the host CPU's default NaN.
#include "octet/scale.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "octet/profile.hpp"

namespace octet {

std::string_view name(ScaleStorage s) {
  switch (s) {
    case ScaleStorage::EncodeFp32: return "encode_fp32";
    case ScaleStorage::DecodeFp32: return "decode_fp32";
    case ScaleStorage::E8m0: return "e8m0";
    case ScaleStorage::E4m3: return "e4m3";
  }
  return "?";
}

namespace {

constexpr float kFltMax = std::numeric_limits<float>::max();

// The arithmetic itself lives in scale_core.hpp (shared with the CUDA kernels).
namespace core = scale_core;
using core::bits;
using core::f32;

// ---------------------------------------------------------------------------------------------
// The recipes.

static_assert(std::bit_cast<std::uint32_t>(1.0f / 448.0f) == 0x3B124925u, "R = fl32(1/448)");

Recipe torchao_rowwise(std::string_view name, FormatId element, float max_pos, bool pow2) {
  Recipe r;
  r.name = name;
  r.peer = "pytorch/ao@36027d82d1ad torchao/float8/float8_utils.py::amax_to_scale, to_fp8_saturated "
           "(torchao/prototype/moe_training/kernels/float8_rowwise.py)";
  r.summary = pow2 ? "FP8 rowwise (MoE): s = exp2(floor(log2 fl32(max/fl64(max(amax, 1e-12))))), stores s"
                   : "FP8 rowwise: s = fl32(max/fl64(max(amax, 1e-12))), stores s; clamp(fl32(x*s)) then c10 cast";
  // The Triton kernels differ on specials (recipes.md §8): tl.max drops NaN and tl.clamp maps
  // NaN to +-max; this recipe records the torch reference (NaN-propagating amax and clamp).
  r.specials = "zero block: s = 0x57CBBA10 (pow2 2^48); NaN amax -> s NaN -> row NaN; Inf amax -> s = 0 "
               "(Inf*0 = NaN, finite -> 0)";
  r.element = element;
  r.storage = ScaleStorage::EncodeFp32;
  r.max_pos = max_pos;
  r.amax_nan = AmaxNan::Propagate;
  r.amax_floor = AmaxFloor::ClampFp64;
  r.eps = 1e-12;
  r.formula = ScaleFormula::DivFp64;
  r.pow2 = pow2 ? Pow2Rounding::FloorLog2 : Pow2Rounding::None;
  r.clamp = ClampBeforeCast::Propagate;
  r.cast_profile = "torch";
  return r;
}

Recipe torchao_mx(std::string_view name, ScaleFormula formula, std::string_view summary) {
  Recipe r;
  r.name = name;
  r.peer = "pytorch/ao torchao/prototype/mx_formats/mx_tensor.py::to_mx (main after PR #4725, 5d73a0c10)";
  r.summary = summary;
  r.specials = "zero block: byte 0 (2^-127), data 0; NaN or Inf in block: byte 255, whole block NaN";
  r.element = FormatId::e4m3fn;
  r.storage = ScaleStorage::E8m0;
  r.max_pos = 448.0f;
  r.emax_elem = 8;  // F8E4M3_MAX_POW2
  // torch.amax propagates NaN; the Triton kernels map NaN to Inf: both give byte 255 on main.
  r.amax_nan = AmaxNan::Propagate;
  r.formula = formula;
  r.e8m0_reciprocal = E8m0Reciprocal::TorchaoMain;
  // e4m3 saturates natively (PyTorch >= 2.13, Triton cvt.rn.satfinite): no clamp; NaN stays NaN.
  r.cast_profile = "cuda_satfinite";
  return r;
}

Recipe torchao_mx_v018(std::string_view name, ScaleFormula formula, E8m0Reciprocal rcp, std::string_view summary) {
  Recipe r = torchao_mx(name, formula, summary);
  r.peer = "pytorch/ao v0.18.0 torchao/prototype/mx_formats/mx_tensor.py::to_mx (torch path, before PR #4725)";
  r.specials = rcp == E8m0Reciprocal::V018Rceil
                   ? "zero block: byte 0, reciprocal 1.0; NaN: 255, block NaN; Inf: 254, reciprocal 2^-127 "
                     "(Inf -> 448, finite -> ~0)"
                   : "zero block: byte 0 applied as 2^-126; NaN or Inf: 255, block NaN";
  r.e8m0_reciprocal = rcp;
  r.clamp = ClampBeforeCast::Propagate;  // data clamped to +-max_pos, then the c10 cast
  r.cast_profile = "torch";
  return r;
}

Recipe torchao_blockwise(std::string_view name, FormatId element, float max_pos) {
  Recipe r;
  r.name = name;
  r.peer = "pytorch/ao torchao/prototype/blockwise_fp8_training/kernels.py (Triton quant kernels)";
  r.summary = "FP8 blockwise 1x128/128x128: s = fl32(max/fl64(max(amax, 1e-12))), no pow2; stores div_rn(1, s)";
  r.specials = "zero block: s = 0x57CBBA10, stored 2.2321429389771845e-15; tl.max drops NaN; NaN and "
               "Inf*0 -> +max (tl.clamp = fmin.xorsign.abs); Inf amax -> s = 0, stored Inf";
  r.element = element;
  r.storage = ScaleStorage::DecodeFp32;
  r.max_pos = max_pos;
  r.amax_nan = AmaxNan::Drop;
  r.amax_floor = AmaxFloor::ClampFp32;  // clamp(tl.max(|x|), EPS, inf) in fp32, then .to(fp64)
  r.eps = 1e-12;
  r.formula = ScaleFormula::DivFp64;
  r.clamp = ClampBeforeCast::NanToMax;
  // After the clamp every value is finite and within +-max_pos: any RNE profile gives the same
  // codes. cvt.rn.satfinite on CUDA; e4m3fnuz (MI300) has no CUDA profile, c10's rules stand in.
  r.cast_profile = element == FormatId::e4m3fnuz ? "torch" : "cuda_satfinite";
  return r;
}

Recipe te_per_tensor(std::string_view name, FormatId element, float max_pos, bool pow2) {
  Recipe r;
  r.name = name;
  r.peer = "NVIDIA/TransformerEngine@d0067d0da transformer_engine/common/recipe/recipe_common.cuh::"
           "compute_scale_from_amax, recipe/current_scaling.cu";
  r.summary = pow2 ? "TE Float8CurrentScaling, NVTE_FP8_CURRENT_SCALING_POWER_2_SCALES=1: "
                     "__fdiv_rn(max, amax) & 0xFF800000; stores scale_inv"
                   : "TE Float8CurrentScaling: s = __fdiv_rn(max, amax); stores scale_inv = 1/s";
  r.specials = "amax < eps -> eps (0); amax 0/Inf/NaN -> scale 1, scale_inv 1.0; Inf scale -> FLT_MAX; "
               "amax drops NaN, the NaN element -> NaN";
  r.element = element;
  r.storage = ScaleStorage::DecodeFp32;
  r.max_pos = max_pos;
  r.amax_nan = AmaxNan::Drop;
  r.amax_floor = AmaxFloor::LessFp32;
  r.eps = 0.0;  // amax_epsilon
  r.formula = ScaleFormula::DivFp32Te;
  r.pow2 = pow2 ? Pow2Rounding::MaskMantissa : Pow2Rounding::None;
  r.value_for_inf = kFltMax;
  r.cast_profile = "cuda_satfinite";
  return r;
}

Recipe te_delayed(std::string_view name, FormatId element, float max_pos) {
  Recipe r = te_per_tensor(name, element, max_pos, false);
  r.peer = "NVIDIA/TransformerEngine@d0067d0da transformer_engine/common/recipe/delayed_scaling.cu";
  r.summary = "TE DelayedScaling: s = (max*2^-margin)/amax over the amax history; stores scale_inv";
  r.specials = "amax 0/Inf/NaN -> previous scale kept (scale_from_amax: 1); Inf scale -> FLT_MAX";
  r.amax_floor = AmaxFloor::None;
  r.formula = ScaleFormula::TeDelayed;
  return r;
}

Recipe te_blockwise(std::string_view name, bool pow2) {
  Recipe r = te_per_tensor(name, FormatId::e4m3fn, 448.0f, pow2);
  r.peer = "NVIDIA/TransformerEngine@d0067d0da transformer_engine/common/transpose/"
           "quantize_transpose_vector_blockwise.cu, quantize_transpose_square_blockwise.cu "
           "(compute_scale_from_types -> recipe_common.cuh::compute_scale_from_amax)";
  r.summary = pow2 ? "TE Float8BlockScaling (default): __fdiv_rn(448, amax) & 0xFF800000, value_for_inf = FLT_MAX"
                   : "TE Float8BlockScaling, NVTE_FP8_BLOCK_SCALING_FP32_SCALES=1: __fdiv_rn(448, amax)";
  // value_for_inf is the input dtype's max: FLT_MAX for fp32 inputs. For bf16 inputs it is 0x7F7F
  // (3.3895e38), which masks to the same 2^127; without pow2 a bf16 caller sets value_for_inf.
  r.value_for_inf = kFltMax;
  return r;
}

Recipe mx_rceil_sat(std::string_view name) {
  Recipe r;
  r.name = name;
  r.element = FormatId::e4m3fn;
  r.storage = ScaleStorage::E8m0;
  r.max_pos = 448.0f;
  r.emax_elem = 8;
  r.amax_nan = AmaxNan::Drop;  // fmaxf(thread_amax, fabsf(elt))
  r.formula = ScaleFormula::RceilSat;
  r.e8m0_reciprocal = E8m0Reciprocal::Exp2fRcp;
  r.cast_profile = "cuda_satfinite";
  return r;
}

Recipe deepgemm(std::string_view name, bool ue8m0) {
  Recipe r;
  r.name = name;
  r.peer = "deepseek-ai/DeepGEMM@54e2261 deep_gemm/utils/math.py::per_token_cast_to_fp8, per_block_cast_to_fp8"
           ", ceil_to_ue8m0";
  r.summary = ue8m0 ? "DeepGEMM use_ue8m0: sf = ceil_to_ue8m0(fl32(max(amax, 1e-4)/448)); q = (x*(1/sf)).to(e4m3fn)"
                    : "DeepGEMM: sf = fl32(max(amax, 1e-4)/448); q = (x*(1/sf)).to(e4m3fn), no saturation";
  r.specials = ue8m0 ? "zero block: sf = 2^-22; NaN amax: sf bits clamp to 2^127; overflow past 448 -> NaN"
                     : "zero block: sf = fl32(1e-4)/448 = 2.2321428616578487e-07; NaN/Inf propagate; "
                       "overflow past 448 -> NaN";
  r.element = FormatId::e4m3fn;
  r.storage = ScaleStorage::DecodeFp32;  // SM100 packs the ue8m0 exponent bytes (bits >> 23)
  r.max_pos = 448.0f;
  r.amax_nan = AmaxNan::Propagate;
  r.amax_floor = AmaxFloor::ClampFp32;
  r.eps = 1e-4;
  r.formula = ScaleFormula::DivDecodeFp32;
  r.pow2 = ue8m0 ? Pow2Rounding::CeilUe8m0 : Pow2Rounding::None;
  r.cast_profile = "torch";
  return r;
}

Recipe deepep(std::string_view name, bool round) {
  Recipe r;
  r.name = name;
  r.peer = "deepseek-ai/DeepEP csrc/kernels/legacy/internode_ll.cu, utils.cuh::calculate_fp8_scales";
  r.summary = round ? "DeepEP LL dispatch round_scale: e = fast_log2_ceil(amax*R), scale = 2^-e, scale_inv = 2^e"
                    : "DeepEP LL dispatch: scale = 448/amax, scale_inv = amax*R (not reciprocals), amax from 1e-4";
  r.specials = round ? "amax starts at 1e-4 (fmaxf drops NaN); Inf amax: scale = -Inf (fast_pow2(-128)), "
                       "scale_inv = +Inf"
                     : "amax starts at 1e-4 (fmaxf drops NaN); Inf amax: scale 0, scale_inv Inf";
  r.element = FormatId::e4m3fn;
  r.storage = ScaleStorage::DecodeFp32;
  r.max_pos = 448.0f;
  r.amax_nan = AmaxNan::Drop;
  r.amax_floor = AmaxFloor::InitFp32;
  r.eps = 1e-4;  // kFP8Margin
  r.formula = ScaleFormula::DeepEpPair;
  r.pow2 = round ? Pow2Rounding::CeilLog2Bits : Pow2Rounding::None;
  r.cast_profile = "cuda_satfinite";
  return r;
}

std::vector<Recipe> build_recipes() {
  using F = ScaleFormula;
  std::vector<Recipe> v;
  v.push_back(torchao_rowwise("torchao_fp8_rowwise", FormatId::e4m3fn, 448.0f, false));
  v.push_back(torchao_rowwise("torchao_fp8_rowwise_pow2", FormatId::e4m3fn, 448.0f, true));
  v.push_back(torchao_rowwise("torchao_fp8_rowwise_e4m3fnuz", FormatId::e4m3fnuz, 240.0f, false));
  v.push_back(torchao_rowwise("torchao_fp8_rowwise_pow2_e4m3fnuz", FormatId::e4m3fnuz, 240.0f, true));

  v.push_back(torchao_mx("torchao_mx_floor", F::ExpFloor,
                         "MXFP8 FLOOR: b = clamp(e(amax) - 135, -127, 128) + 127; saturates for amax in (448, 512)*2^k"));
  v.push_back(torchao_mx("torchao_mx_rceil", F::RceilNoSat,
                         "MXFP8 RCEIL (default): b = RP(fl32(amax*R)) to e8m0, 255 if not finite or > 2^127"));
  v.push_back(torchao_mx("torchao_mx_ceil", F::ExpCeil, "MX CEIL: 2^(ceil(log2 amax) - 8) by exponent extraction"));
  v.push_back(torchao_mx("torchao_mx_even", F::ExpEven, "MX EVEN: amax rounded to 3 mantissa bits, then FLOOR"));
  v.push_back(torchao_mx_v018("torchao_mx_floor_v018", F::ExpFloor, E8m0Reciprocal::V018FloorDiv,
                              "MXFP8 FLOOR v0.18: data = clamp(x / max(2^(b-127), 2^-126), +-448)"));
  v.push_back(torchao_mx_v018("torchao_mx_rceil_v018", F::RceilV018, E8m0Reciprocal::V018Rceil,
                              "MXFP8 RCEIL v0.18: ceil(log2(amax/448)), Inf -> 254, reciprocal of byte 0 is 1.0"));

  v.push_back(torchao_blockwise("torchao_blockwise", FormatId::e4m3fn, 448.0f));
  v.push_back(torchao_blockwise("torchao_blockwise_e4m3fnuz", FormatId::e4m3fnuz, 240.0f));

  v.push_back(te_per_tensor("te_current", FormatId::e4m3fn, 448.0f, false));
  v.push_back(te_per_tensor("te_current_pow2", FormatId::e4m3fn, 448.0f, true));
  v.push_back(te_per_tensor("te_current_e5m2", FormatId::e5m2, 57344.0f, false));
  v.push_back(te_per_tensor("te_current_pow2_e5m2", FormatId::e5m2, 57344.0f, true));
  v.push_back(te_delayed("te_delayed", FormatId::e4m3fn, 448.0f));
  v.push_back(te_delayed("te_delayed_e5m2", FormatId::e5m2, 57344.0f));
  v.push_back(te_blockwise("te_blockwise", true));
  v.push_back(te_blockwise("te_blockwise_fp32", false));

  {
    Recipe r = mx_rceil_sat("te_mxfp8");
    r.peer = "NVIDIA/TransformerEngine@d0067d0da transformer_engine/common/cast/mxfp8/quantize_mxfp8.cuh, "
             "util/ptx_arch_spec.cuh::float_to_e8m0, exp2f_rcp";
    r.summary = "TE MXFP8: b = float_to_e8m0(amax*R) (RP, satfinite), x*exp2f_rcp(b) -> RNE satfinite";
    r.specials = "zero block: 0x00, data 0; amax drops NaN (fmaxf); NaN amax -> 0xFF, block NaN; Inf -> 0xFE, "
                 "multiplier 2^-127 (Inf -> +-448)";
    v.push_back(r);
  }

  v.push_back(deepgemm("deepgemm", false));
  v.push_back(deepgemm("deepgemm_ue8m0", true));
  v.push_back(deepep("deepep", false));
  v.push_back(deepep("deepep_round", true));

  {
    Recipe r;
    r.name = "ocp_mx";
    r.peer = "OCP MX v1.0 §6.3; microsoft/microxcaling mx/mx_ops.py::_shared_exponents; "
             "graphcore-research/gfloat src/gfloat/block.py";
    r.summary = "OCP MX: X = 2^(floor(log2 amax) - emax_elem) clamped to e8m0, NaN above; P = RNE(V/X), saturating";
    r.specials = "zero block: 2^-127; NaN/Inf: implementation-defined, here NaN propagates (byte 255)";
    r.element = FormatId::e4m3fn;
    r.storage = ScaleStorage::E8m0;
    r.max_pos = 448.0f;
    r.emax_elem = 8;
    r.amax_nan = AmaxNan::Propagate;
    r.formula = F::ExpFloor;
    r.e8m0_reciprocal = E8m0Reciprocal::Exact;
    r.cast_profile = "ocp";
    v.push_back(r);
  }
  {
    Recipe r = mx_rceil_sat("nvidia_rceil_rcp_approx");
    r.peer = "cuda_fp8.hpp __nv_cvt_float_to_e8m0(amax * rcp.approx.ftz.f32(448.f), __NV_SATFINITE, "
             "cudaRoundPosInf) (TensorRT-LLM-style MX quantisers; recipes.md §7)";
    r.summary = "NVIDIA production RCEIL: RP satfinite e8m0 of amax * rcp448 (rcp448_bits measured per GPU)";
    r.specials = "zero block: 0x00; Inf -> 0xFE (SATFINITE); NaN unverified (amax drops NaN, as TE)";
    v.push_back(r);
  }
  {
    Recipe r;
    r.name = "nvfp4";
    r.peer = "NVIDIA/TransformerEngine@d0067d0da transformer_engine/pytorch/custom_recipes/reference_nvfp4.py";
    r.summary = "NVFP4: e2m1 in 1x16 blocks, e4m3 block decode scale, fp32 global encode 2688/global_amax";
    r.specials = "global_amax 0 -> global_encode 1; decode 0 -> encode FLT_MAX";
    r.element = FormatId::e2m1fn;
    r.storage = ScaleStorage::E4m3;
    r.max_pos = 6.0f;
    r.emax_elem = 2;
    r.amax_nan = AmaxNan::Propagate;  // torch.amax in the reference
    r.formula = F::Nvfp4;
    r.clamp = ClampBeforeCast::Propagate;
    r.cast_profile = "cuda_satfinite";  // cvt.rn.satfinite.e2m1x2
    v.push_back(r);
  }

  for (Recipe& r : v) {
    const Profile* p = find_profile(r.cast_profile);
    if (p == nullptr) throw std::logic_error("scale recipe " + std::string(r.name) + ": unknown profile");
    r.cast = p->spec_for(r.element);
  }
  return v;
}

const std::vector<Recipe>& all_recipes() {
  static const std::vector<Recipe> v = build_recipes();
  return v;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Public API.

std::span<const Recipe> recipes() { return all_recipes(); }

namespace {
// The element cast of each table recipe, compiled once (Fp32Encoder); a recipe built by the
// caller (a modified copy) gets its own encoder per call.
const Fp32Encoder& element_encoder(const Recipe& r) {
  static const std::vector<Fp32Encoder> encoders = [] {
    std::vector<Fp32Encoder> v;
    for (const Recipe& t : all_recipes()) v.emplace_back(format_of(t.element), t.cast);
    return v;
  }();
  const std::span<const Recipe> table = all_recipes();
  if (&r >= table.data() && &r < table.data() + table.size()) return encoders[std::size_t(&r - table.data())];
  // A caller-built recipe: one encoder per thread, rebuilt only when the cast changes.
  thread_local std::unique_ptr<Fp32Encoder> own;
  thread_local FormatId own_format{};
  thread_local CastSpec own_spec{};
  if (!own || own_format != r.element || !(own_spec == r.cast)) {
    own = std::make_unique<Fp32Encoder>(format_of(r.element), r.cast);
    own_format = r.element;
    own_spec = r.cast;
  }
  return *own;
}
}  // namespace

const Recipe* find_recipe(std::string_view name) {
  for (const Recipe& r : all_recipes())
    if (r.name == name) return &r;
  return nullptr;
}

const Recipe& recipe(std::string_view name) {
  if (const Recipe* r = find_recipe(name)) return *r;
  std::string msg = "unknown recipe '" + std::string(name) + "'; valid:";
  for (const Recipe& r : all_recipes()) msg.append(" ").append(r.name);
  throw std::invalid_argument(msg);
}

std::string_view name(const Recipe& r) { return r.name; }
FormatId element_format(const Recipe& r) { return r.element; }
ScaleStorage storage(const Recipe& r) { return r.storage; }
const CastSpec& element_cast(const Recipe& r) { return r.cast; }

RecipeCore make_core(const Recipe& r) {
  RecipeCore c;
  c.element = r.element;
  c.storage = r.storage;
  c.max_pos = r.max_pos;
  c.emax_elem = r.emax_elem;
  c.amax_nan = r.amax_nan;
  c.amax_floor = r.amax_floor;
  c.eps = r.eps;
  c.formula = r.formula;
  c.pow2 = r.pow2;
  c.e8m0_reciprocal = r.e8m0_reciprocal;
  c.rcp448_bits = r.rcp448_bits;
  c.value_for_inf = r.value_for_inf;
  c.clamp = r.clamp;
  c.cast = r.cast;
  c.nvfp4_scale_cast = nvfp4_scale_cast(r);
  return c;
}

const CastSpec& nvfp4_scale_cast(const Recipe&) {
  static const CastSpec spec = find_profile("torch")->spec_for(FormatId::e4m3fn);
  return spec;
}

std::uint8_t e8m0_rp(float d, bool satfinite) { return std::uint8_t(core::e8m0_rp(d, satfinite)); }

float e8m0_decode(std::uint32_t b) { return core::e8m0_decode(b); }

float e8m0_encode_multiplier(const Recipe& r, std::uint32_t b) {
  if (r.e8m0_reciprocal == E8m0Reciprocal::None)
    throw std::invalid_argument("e8m0_encode_multiplier: recipe " + std::string(r.name) + " has no e8m0 scale");
  return core::e8m0_encode_multiplier(r, b);
}

float amax_init(const Recipe& r) { return core::amax_init(r); }

float amax_update(const Recipe& r, float amax, float x) { return core::amax_update(r, amax, x); }

BlockScale scale_from_amax(const Recipe& r, float amax) { return core::scale_from_amax(r, amax); }

// The element cast goes through the recipe's compiled encoder (the same codes as encode_bits).
std::uint32_t quantize_element(const Recipe& r, const BlockScale& s, float x) {
  return element_encoder(r)(core::scaled_element(r, s, x));
}

double dequantize_element(const Recipe& r, const BlockScale& s, std::uint32_t code) {
  return core::dequantize_element(r, s, code);
}

BlockScale scale_from_stored(const Recipe& r, std::uint32_t stored) { return core::scale_from_stored(r, stored); }

BlockScale te_delayed_scale(const Recipe& r, std::span<const float> amax_history, float previous_scale,
                            bool most_recent, int margin) {
  float amax = 0.0f;
  if (most_recent) {
    if (!amax_history.empty()) amax = amax_history[0];
  } else {
    for (const float h : amax_history) amax = core::device_fmax(amax, h);
  }
  return core::from_pair(r, core::te_delayed_pair(r, amax, previous_scale, std::ldexp(r.max_pos, -margin)));
}

float nvfp4_global_encode(float global_amax) { return core::nvfp4_global_encode(global_amax); }

BlockScale nvfp4_block_scale(const Recipe& r, float global_encode, float block_amax) {
  return core::nvfp4_block_scale(r, global_encode, block_amax);
}

BlockScale nvfp4_scale_from_stored(const Recipe& r, float global_encode, std::uint32_t stored) {
  return core::nvfp4_scale_from_stored(r, global_encode, stored);
}

}  // namespace octet
