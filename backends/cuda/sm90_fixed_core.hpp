// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// sm90_fixed_core.hpp — recipes with compile-time scale rules, for the CUDA quantisers.
//
// A RecipeCore whose enum fields (the switches of scale_core.hpp) are compile-time constants: the
// static members hide the base's fields of the same names, so scale_core's functions, templates
// over the recipe type, fold their switches. The numbers (max_pos, eps, ...) stay the runtime
// recipe's. The host launches a kernel with a FixedCore only when matches() holds for the recipe,
// so every function returns what it returns for the RecipeCore itself.
#pragma once

#include "octet/scale_core.hpp"

namespace octet::cuda {

template <ScaleStorage kStorage, ScaleFormula kFormula, AmaxNan kNan, AmaxFloor kFloor, Pow2Rounding kPow2,
          E8m0Reciprocal kRcp, ClampBeforeCast kClamp>
struct FixedCore : RecipeCore {
  static constexpr ScaleStorage storage = kStorage;
  static constexpr ScaleFormula formula = kFormula;
  static constexpr AmaxNan amax_nan = kNan;
  static constexpr AmaxFloor amax_floor = kFloor;
  static constexpr Pow2Rounding pow2 = kPow2;
  static constexpr E8m0Reciprocal e8m0_reciprocal = kRcp;
  static constexpr ClampBeforeCast clamp = kClamp;
  static bool matches(const RecipeCore& r) {
    return r.storage == kStorage && r.formula == kFormula && r.amax_nan == kNan && r.amax_floor == kFloor &&
           r.pow2 == kPow2 && r.e8m0_reciprocal == kRcp && r.clamp == kClamp;
  }
  static FixedCore of(const RecipeCore& r) {
    FixedCore f;
    static_cast<RecipeCore&>(f) = r;
    return f;
  }
};

// The production recipes of the peers (emulator/src/scale.cpp):
// TE MXFP8 (te_mxfp8), torchao MX RCEIL (torchao_mx_rceil), TE Float8BlockScaling (te_blockwise),
// DeepEP LL dispatch (deepep): the fused and a2a kernels'.
using TeMxfp8Core = FixedCore<ScaleStorage::E8m0, ScaleFormula::RceilSat, AmaxNan::Drop, AmaxFloor::None,
                              Pow2Rounding::None, E8m0Reciprocal::Exp2fRcp, ClampBeforeCast::None>;
using TorchaoMxRceilCore = FixedCore<ScaleStorage::E8m0, ScaleFormula::RceilNoSat, AmaxNan::Propagate,
                                     AmaxFloor::None, Pow2Rounding::None, E8m0Reciprocal::TorchaoMain,
                                     ClampBeforeCast::None>;
using TeBlockwiseCore = FixedCore<ScaleStorage::DecodeFp32, ScaleFormula::DivFp32Te, AmaxNan::Drop,
                                  AmaxFloor::LessFp32, Pow2Rounding::MaskMantissa, E8m0Reciprocal::None,
                                  ClampBeforeCast::None>;
using DeepEpCore = FixedCore<ScaleStorage::DecodeFp32, ScaleFormula::DeepEpPair, AmaxNan::Drop, AmaxFloor::InitFp32,
                             Pow2Rounding::None, E8m0Reciprocal::None, ClampBeforeCast::None>;
// torchao FP8 rowwise with power-of-two scales (torchao_fp8_rowwise_pow2: the MoE rowwise and
// per-group kernels), torchao blockwise 1x128 / 128x128 (torchao_blockwise), DeepGEMM per-token /
// per-block (deepgemm): the quantisers' defaults.
using TorchaoRowwisePow2Core = FixedCore<ScaleStorage::EncodeFp32, ScaleFormula::DivFp64, AmaxNan::Propagate,
                                         AmaxFloor::ClampFp64, Pow2Rounding::FloorLog2, E8m0Reciprocal::None,
                                         ClampBeforeCast::Propagate>;
using TorchaoBlockwiseCore = FixedCore<ScaleStorage::DecodeFp32, ScaleFormula::DivFp64, AmaxNan::Drop,
                                       AmaxFloor::ClampFp32, Pow2Rounding::None, E8m0Reciprocal::None,
                                       ClampBeforeCast::NanToMax>;
using DeepGemmCore = FixedCore<ScaleStorage::DecodeFp32, ScaleFormula::DivDecodeFp32, AmaxNan::Propagate,
                               AmaxFloor::ClampFp32, Pow2Rounding::None, E8m0Reciprocal::None, ClampBeforeCast::None>;

}  // namespace octet::cuda
