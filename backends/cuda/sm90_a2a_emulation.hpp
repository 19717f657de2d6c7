// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// sm90_a2a_emulation.hpp — host API of the single-GPU all-to-all emulation on device pointers
// (sm90_a2a_emulation.cu): octet::a2a_exchange (payloads passthrough, mxfp8, fp8_blockwise) and
// octet::a2a_combine (emulator/include/octet/kernels/a2a_emulation.hpp, reference/kernels.md §7, §10).
//
// The exchange plan is host data, as all_to_all_single's split sizes are: `gather` (N,) is
// octet::A2aPlan::gather() in device memory (receive row n <- send row gather[n]). x (N, H) is
// row-major contiguous, bf16 bits or fp32. Exchange outputs (receive layout, row-major): y (N, H)
// in the input dtype, and for the quantised payloads q (N, H) codes and the scales (N, H/B): e8m0
// bytes (mxfp8, B = 32) or fp32 bits (fp8_blockwise, B = 128). The combine takes the gather of the
// reversed plan and the routes (T, K) of send-layout rows (-1: unused) with optional weights.
// Recipe / shape errors throw std::invalid_argument before any launch. Asynchronous on `stream`.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "octet/kernels/a2a_emulation.hpp"

namespace octet::cuda {

void a2a_exchange(InputType type, const void* x_n_h, std::int64_t rows, std::int64_t h, const std::int64_t* gather,
                  A2aPayload payload, const Recipe& recipe, void* y, std::uint8_t* q, void* scales,
                  cudaStream_t stream = nullptr);

// out (T, H): per token the fp32 sum over its routes (order and arithmetic of `spec`) of the
// returned rows times the weights, rounded once; a NaN sum is written as 0x7FC0 / 0x7FC00000.
void a2a_combine(InputType type, const void* y_n_h, std::int64_t rows, std::int64_t h,
                 const std::int64_t* reverse_gather, const std::int64_t* route_rows, std::int64_t tokens,
                 std::int64_t topk, const float* weights, A2aPayload payload, const Recipe& recipe, CombineSpec spec,
                 void* out, cudaStream_t stream = nullptr);

}  // namespace octet::cuda
