// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// sm90_bf16_swiglu_fp8.hpp — host API of the fused SwiGLU + rowwise quantisation on device
// pointers (sm90_bf16_swiglu_fp8.cu): octet::swiglu_quantize_forward / swiglu_quantize_backward
// (emulator/include/octet/kernels/swiglu_quant.hpp, reference/kernels.md §9).
//
// x (M, 2H) = [a | g] row-major contiguous, bf16 bits or fp32; grad (M, H) likewise (backward).
// H must be a multiple of the recipe's block (32 for e8m0 recipes, 128 for fp32-scale recipes;
// octet::swiglu_block_size). Outputs, row-major: y (M, N) in the input dtype (the values that were
// quantised; N = H forward, 2H backward = [d_a | d_g]), q (M, N) element codes, and the block
// scales (M, N/block): e8m0 bytes for block 32, fp32 bits (4 bytes) for block 128. probs_m (M,)
// or nullptr; sigmoid_m_h (M, H) recorded sigmoid values or nullptr (then octet's expf_octet).
// Shape and recipe errors throw std::invalid_argument before any launch. Asynchronous on `stream`.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "octet/scale.hpp"
#include "octet/tensor.hpp"

namespace octet::cuda {

struct SwigluGpuOutputs {
  void* y = nullptr;       // (M, N) input dtype
  std::uint8_t* q = nullptr;  // (M, N) codes
  void* scales = nullptr;  // (M, N/block): uint8 (block 32) or uint32 fp32 bits (block 128)
};

void swiglu_quantize_forward(InputType type, const void* x_m_2h, std::int64_t rows, std::int64_t h,
                             const Recipe& recipe, const float* probs_m, const float* sigmoid_m_h,
                             const SwigluGpuOutputs& out, cudaStream_t stream = nullptr);

void swiglu_quantize_backward(InputType type, const void* grad_m_h, const void* x_m_2h, std::int64_t rows,
                              std::int64_t h, const Recipe& recipe, bool dact_fma, const float* sigmoid_m_h,
                              const SwigluGpuOutputs& out, cudaStream_t stream = nullptr);

// The device table of the sigmoid of every bf16 value: 2^16 fp32 values, entry b =
// octet::swiglu_sigmoid(the bf16 value with bits b), filled on the device with the same function on
// first use per device (that first call synchronises `stream`).
const float* swiglu_bf16_sigmoid_table(cudaStream_t stream = nullptr);

// The compact form the bf16 kernels keep in shared memory (33 KB instead of 256 KB): per sign, the
// magnitude bits |a| (exponent and mantissa, 15 bits) clamped to the range of biased exponents
// [kSigmoidExpLo, kSigmoidExpHi]. Outside that range the sigmoid of a bf16 value does not depend
// on its magnitude (exhaustively, for every non-NaN bf16 a): biased exponent <= 103 gives 0.5
// (<= 102 for a > 0), a >= 2^5 gives 1.0 and a <= -2^7 gives +0; so every value maps to a slot
// holding its own sigmoid's bits. The sigmoid of a NaN never reaches an output (a·s is NaN whatever
// s is). The first use per device checks this on the device against the full table for all 2^16
// inputs and throws std::logic_error on a mismatch.
inline constexpr std::uint32_t kSigmoidExpLo = 102, kSigmoidExpHi = 134;
inline constexpr std::uint32_t kSigmoidMagLo = kSigmoidExpLo << 7, kSigmoidMagHi = kSigmoidExpHi << 7 | 127u;
inline constexpr std::uint32_t kSigmoidSlotsPerSign = kSigmoidMagHi - kSigmoidMagLo + 1;
inline constexpr std::uint32_t kSigmoidSlots = 2 * kSigmoidSlotsPerSign;  // 8448 fp32 values

OCTET_HD constexpr std::uint32_t swiglu_sigmoid_slot(std::uint32_t bf16_bits) {
  const std::uint32_t mag = bf16_bits & 0x7FFFu;
  const std::uint32_t clamped = mag < kSigmoidMagLo ? kSigmoidMagLo : mag > kSigmoidMagHi ? kSigmoidMagHi : mag;
  return ((bf16_bits >> 15) & 1u) * kSigmoidSlotsPerSign + (clamped - kSigmoidMagLo);
}
// The bf16 value whose sigmoid a slot holds (the inverse of swiglu_sigmoid_slot on the clamped range).
OCTET_HD constexpr std::uint32_t swiglu_sigmoid_slot_bits(std::uint32_t slot) {
  return (slot / kSigmoidSlotsPerSign) << 15 | (kSigmoidMagLo + slot % kSigmoidSlotsPerSign);
}

}  // namespace octet::cuda
