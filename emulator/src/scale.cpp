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
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr std::uint32_t kCanonicalNan = 0x7FFFFFFFu;  // PTX arithmetic NaN

float f32(std::uint32_t b) { return std::bit_cast<float>(b); }
std::uint32_t bits(float f) { return std::bit_cast<std::uint32_t>(f); }
float canonical(float v) { return std::isnan(v) ? f32(kCanonicalNan) : v; }

// CUDA fmaxf / PTX max.f32: a NaN operand (quiet or signalling) is ignored; two NaNs give NaN.
// (glibc fmaxf returns NaN for a signalling NaN, as IEEE 754-2008 maxNum does.)
float device_fmax(float a, float b) {
  if (std::isnan(a)) return std::isnan(b) ? f32(kCanonicalNan) : b;
  if (std::isnan(b)) return a;
  return a > b ? a : b;
}

// ---------------------------------------------------------------------------------------------
// Power-of-two steps.

// exp2(floor(log2 s)) for s >= 0, floor(log2 s) by exponent extraction (exact): 0 -> 0 (log2 0 =
// -inf), Inf and NaN unchanged; an fp32-subnormal s keeps its top bit.
float pow2_floor(float s) {
  if (!(s > 0.0f) || std::isinf(s)) return s;
  const std::uint32_t b = bits(s);
  if (b >= 0x00800000u) return f32(b & 0xFF800000u);
  return f32(1u << (31 - std::countl_zero(b)));
}

// DeepGEMM ceil_to_ue8m0: exp = e(d) + (m(d) != 0), bits = clamp(exp, 1, 254) << 23 (NaN and Inf:
// 2^127, as the bit formula gives).
float ceil_ue8m0(float d) {
  const std::uint32_t b = bits(d) & 0x7FFFFFFFu;
  const int exp = int(b >> 23) + ((b & 0x7FFFFFu) != 0 ? 1 : 0);
  return f32(std::uint32_t(std::clamp(exp, 1, 254)) << 23);
}

// ceil(log2 d) for a finite d > 0, exactly.
int ceil_log2(float d) {
  int e = 0;
  const float m = std::frexp(d, &e);  // d = m * 2^e, m in [0.5, 1)
  return m == 0.5f ? e - 1 : e;
}

// ---------------------------------------------------------------------------------------------
// e8m0 scale bytes.

// torchao FLOOR / CEIL (and OCP): b = clamp(e(a) - 127 - emax_elem [+ (m != 0)], -127, 128) + 127;
// a non-finite amax gives 255.
std::uint32_t exponent_byte(const Recipe& r, float a, bool ceil) {
  if (!std::isfinite(a)) return 255;
  const std::uint32_t b = bits(a) & 0x7FFFFFFFu;
  const int unbiased = int(b >> 23) - 127 - r.emax_elem + ((ceil && (b & 0x7FFFFFu) != 0) ? 1 : 0);
  return std::uint32_t(std::clamp(unbiased, -127, 128) + 127);
}

// torchao EVEN: round amax to the element's mantissa bits (ties away in the bit add), keep the
// exponent field only, then FLOOR. A NaN amax stays NaN (torch restores it); an amax that rounds
// to Inf (>= 0x7F7C0000 for e4m3) gives 255 like FLOOR of Inf.
std::uint32_t even_byte(const Recipe& r, float a) {
  if (std::isnan(a)) return 255;
  const int mbits = format_of(r.element).mantissa_bits;
  const std::uint32_t rounded = (bits(a) + (1u << (23 - mbits - 1))) & 0xFF800000u;
  return exponent_byte(r, f32(rounded), false);
}

// torchao <= v0.18 torch RCEIL: d = amax / max_pos; NaN -> 255, Inf -> 254, otherwise
// clamp(ceil(log2 d), -127, 127) + 127 (d = 0: log2 = -inf -> 0).
std::uint32_t rceil_v018_byte(const Recipe& r, float amax) {
  const float d = amax / r.max_pos;
  if (std::isnan(d)) return 255;
  if (std::isinf(d)) return 254;
  if (d == 0.0f) return 0;
  return std::uint32_t(std::clamp(ceil_log2(d), -127, 127) + 127);
}

// ---------------------------------------------------------------------------------------------
// The fp32 scale formulas. Each returns (encode, decode) as the recipe computes them.

struct Pair {
  float encode;
  float decode;
};

float apply_pow2(const Recipe& r, float s) {
  switch (r.pow2) {
    case Pow2Rounding::FloorLog2: return pow2_floor(s);
    case Pow2Rounding::MaskMantissa: return f32(bits(s) & 0xFF800000u);
    default: return s;
  }
}

// The amax floor, in the recipe's precision; the fp64 result feeds DivFp64.
double floored_amax(const Recipe& r, float amax) {
  switch (r.amax_floor) {
    case AmaxFloor::None: return amax;
    case AmaxFloor::ClampFp64: return std::isnan(amax) ? double(amax) : std::max(double(amax), r.eps);
    case AmaxFloor::ClampFp32: return std::isnan(amax) ? amax : std::max(amax, float(r.eps));
    case AmaxFloor::LessFp32: return amax < float(r.eps) ? float(r.eps) : amax;
    case AmaxFloor::InitFp32: return device_fmax(amax, float(r.eps));
  }
  return amax;
}

// TE compute_scale_from_amax (recipes.md §4.1), steps 1-5, then scale_inv = 1/scale.
Pair te_scale(const Recipe& r, float amax) {
  const float a = float(floored_amax(r, amax));
  float s = 1.0f;
  if (!(std::isinf(a) || a == 0.0f || std::isnan(a))) {
    s = r.max_pos / a;  // __fdiv_rn
    if (std::isinf(s)) s = r.value_for_inf;
    s = apply_pow2(r, s);
  }
  return {s, 1.0f / s};
}

// DeepEP calculate_fp8_scales: the amax already includes kFP8Margin (fmaxf from 1e-4).
Pair deepep_scale(const Recipe& r, float amax) {
  const float a = float(floored_amax(r, amax));
  const float rcp = f32(r.rcp448_bits);
  if (r.pow2 == Pow2Rounding::CeilLog2Bits) {
    // fast_log2_ceil(amax * R) and fast_pow2(+-e), as bit formulas: exact for every normal d
    // (every finite amax >= 1e-4); an Inf amax gives e = 128, so scale = bits(0xFF800000) = -Inf
    // and scale_inv = +Inf, which the source's wrapping shifts produce.
    const std::uint32_t db = bits(a * rcp);
    const int e = int((db >> 23) & 0xFF) - 127 + ((db & 0x7FFFFFu) != 0 ? 1 : 0);
    return {f32(std::uint32_t(-e + 127) << 23), f32(std::uint32_t(e + 127) << 23)};
  }
  return {r.max_pos / a, a * rcp};
}

BlockScale from_pair(const Recipe& r, Pair p) {
  BlockScale s;
  s.encode = canonical(p.encode);
  s.decode = canonical(p.decode);
  s.stored = bits(r.storage == ScaleStorage::EncodeFp32 ? s.encode : s.decode);
  return s;
}

BlockScale from_e8m0(const Recipe& r, std::uint32_t b) {
  BlockScale s;
  s.stored = b;
  s.encode = e8m0_encode_multiplier(r, b);
  s.decode = e8m0_decode(b);
  return s;
}

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

std::uint8_t e8m0_rp(float d, bool satfinite) {
  if (std::isnan(d)) return 255;
  if (std::isinf(d)) return satfinite ? 254 : 255;
  const std::uint32_t b = bits(d) & 0x7FFFFFFFu;
  const std::uint32_t e = b >> 23, m = b & 0x7FFFFFu;
  // RP with the implicit bit as the LSB: an fp32 subnormal rounds up to 2^-126 only above 2^-127.
  const std::uint32_t up = e == 0 ? (m > 0x400000u ? 1u : 0u) : (m != 0 ? 1u : 0u);
  const std::uint32_t byte = e + up;
  if (byte == 255) return satfinite ? 254 : 255;
  return std::uint8_t(byte);
}

float e8m0_decode(std::uint32_t b) {
  b &= 0xFFu;
  if (b == 255) return f32(kCanonicalNan);
  if (b == 0) return f32(0x00400000u);
  return f32(b << 23);
}

float e8m0_encode_multiplier(const Recipe& r, std::uint32_t b) {
  b &= 0xFFu;
  // 2^(127 - b) for b <= 253 has the biased exponent 254 - b; b = 254 gives 2^-127 = 0x00400000.
  const auto exact = [](std::uint32_t byte) { return byte == 254 ? f32(0x00400000u) : f32((254u - byte) << 23); };
  switch (r.e8m0_reciprocal) {
    case E8m0Reciprocal::TorchaoMain: return b == 255 ? f32(0x7F800001u) : exact(b);
    case E8m0Reciprocal::Exp2fRcp: return b == 255 ? f32(0x7FFFFFFFu) : exact(b);
    case E8m0Reciprocal::V018Rceil: return b == 255 ? f32(kCanonicalNan) : b == 0 ? 1.0f : exact(b);
    case E8m0Reciprocal::V018FloorDiv: return b == 255 ? f32(kCanonicalNan) : b == 0 ? 0x1p126f : exact(b);
    case E8m0Reciprocal::Exact: return b == 255 ? f32(kCanonicalNan) : exact(b);
    case E8m0Reciprocal::None: break;
  }
  throw std::invalid_argument("e8m0_encode_multiplier: recipe " + std::string(r.name) + " has no e8m0 scale");
}

float amax_init(const Recipe& r) { return r.amax_floor == AmaxFloor::InitFp32 ? float(r.eps) : 0.0f; }

float amax_update(const Recipe& r, float amax, float x) {
  float a = std::fabs(x);
  switch (r.amax_nan) {
    case AmaxNan::Propagate:
      if (std::isnan(amax) || std::isnan(a)) return f32(kCanonicalNan);
      return std::max(amax, a);
    case AmaxNan::Drop: return device_fmax(amax, a);
    case AmaxNan::AsInf:
      if (std::isnan(a)) a = kInf;
      return std::isnan(amax) ? a : std::max(amax, a);
  }
  return amax;
}

BlockScale scale_from_amax(const Recipe& r, float amax) {
  switch (r.formula) {
    case ScaleFormula::DivFp64: {
      const double a = floored_amax(r, amax);
      const float s = apply_pow2(r, float(double(r.max_pos) / a));
      return from_pair(r, {s, 1.0f / s});  // blockwise: tl.div_rn(1.0, s)
    }
    case ScaleFormula::DivFp32Te: return from_pair(r, te_scale(r, amax));
    case ScaleFormula::TeDelayed: {
      const float history[1] = {amax};
      return te_delayed_scale(r, history, 1.0f);
    }
    case ScaleFormula::DivDecodeFp32: {
      float d = float(floored_amax(r, amax)) / r.max_pos;
      if (r.pow2 == Pow2Rounding::CeilUe8m0) d = ceil_ue8m0(d);
      return from_pair(r, {1.0f / d, d});
    }
    case ScaleFormula::DeepEpPair: return from_pair(r, deepep_scale(r, amax));
    case ScaleFormula::ExpFloor: return from_e8m0(r, exponent_byte(r, amax, false));
    case ScaleFormula::ExpCeil: return from_e8m0(r, exponent_byte(r, amax, true));
    case ScaleFormula::ExpEven: return from_e8m0(r, even_byte(r, amax));
    case ScaleFormula::RceilNoSat: return from_e8m0(r, e8m0_rp(amax * f32(r.rcp448_bits), false));
    case ScaleFormula::RceilSat: return from_e8m0(r, e8m0_rp(amax * f32(r.rcp448_bits), true));
    case ScaleFormula::RceilV018: return from_e8m0(r, rceil_v018_byte(r, amax));
    case ScaleFormula::Nvfp4: return nvfp4_block_scale(r, nvfp4_global_encode(amax), amax);
  }
  throw std::logic_error("scale_from_amax: unknown formula");
}

std::uint32_t quantize_element(const Recipe& r, const BlockScale& s, float x) {
  float y = canonical(x * s.encode);
  switch (r.clamp) {
    case ClampBeforeCast::None: break;
    case ClampBeforeCast::Propagate:
      if (!std::isnan(y)) y = std::clamp(y, -r.max_pos, r.max_pos);
      break;
    case ClampBeforeCast::NanToMax:
      y = std::isnan(y) ? (std::signbit(y) ? -r.max_pos : r.max_pos) : std::clamp(y, -r.max_pos, r.max_pos);
      break;
  }
  return element_encoder(r)(y);
}

double dequantize_element(const Recipe& r, const BlockScale& s, std::uint32_t code) {
  return decode(format_of(r.element), code) * double(s.decode);
}

BlockScale scale_from_stored(const Recipe& r, std::uint32_t stored) {
  switch (r.storage) {
    case ScaleStorage::EncodeFp32: {
      const float s = f32(stored);
      return from_pair(r, {s, 1.0f / s});
    }
    case ScaleStorage::DecodeFp32: {
      // The recipes compute s from amax, not from d: fl32(1/d) is exact for power-of-two scales
      // (and for DeepGEMM, which computes 1/sf itself); otherwise it can be 1 ulp from the s used.
      const float d = f32(stored);
      BlockScale s = from_pair(r, {1.0f / d, d});
      s.stored = stored;
      return s;
    }
    case ScaleStorage::E8m0: return from_e8m0(r, stored);
    case ScaleStorage::E4m3: return nvfp4_scale_from_stored(r, 1.0f, stored);
  }
  throw std::logic_error("scale_from_stored: unknown storage");
}

BlockScale te_delayed_scale(const Recipe& r, std::span<const float> amax_history, float previous_scale,
                            bool most_recent, int margin) {
  float amax = 0.0f;
  if (most_recent) {
    if (!amax_history.empty()) amax = amax_history[0];
  } else {
    for (const float h : amax_history) amax = device_fmax(amax, h);
  }
  const float scaled_max = std::ldexp(r.max_pos, -margin);
  float s = previous_scale;
  if (std::isfinite(amax) && amax > 0.0f) s = scaled_max / amax;
  if (std::isinf(s)) s = kFltMax;
  return from_pair(r, {s, 1.0f / s});
}

float nvfp4_global_encode(float global_amax) {
  if (global_amax == 0.0f) return 1.0f;
  const float g = (448.0f * 6.0f) / global_amax;
  return std::isnan(g) ? canonical(g) : std::min(g, kFltMax);
}

BlockScale nvfp4_block_scale(const Recipe& r, float global_encode, float block_amax) {
  const float t = global_encode * (1.0f / 6.0f);
  float u = block_amax * t;
  if (!std::isnan(u)) u = std::clamp(std::min(u, kFltMax), -448.0f, 448.0f);
  const std::uint32_t code = encode(e4m3fn_format, find_profile("torch")->spec_for(FormatId::e4m3fn), canonical(u));
  return nvfp4_scale_from_stored(r, global_encode, code);
}

BlockScale nvfp4_scale_from_stored(const Recipe&, float global_encode, std::uint32_t stored) {
  const float decode_f32 = float(decode(e4m3fn_format, stored & 0xFFu));
  const float w = decode_f32 * (1.0f / global_encode);
  float enc = 1.0f / w;
  if (!std::isnan(enc)) enc = std::min(enc, kFltMax);
  BlockScale s;
  s.encode = canonical(enc);
  s.decode = canonical(w);
  s.stored = stored & 0xFFu;
  return s;
}

}  // namespace octet
