// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// sm90_fp8flow_transpose.hpp — host API of the FP8-Flow-MoE scaling-aware fp8 transpose on device
// pointers (sm90_fp8flow_transpose.cu): octet::fp8flow_transpose, variants published / ideal /
// naive (emulator/include/octet/kernels/fp8flow_transpose.hpp, reference/kernels.md §8).
//
// The group layout is host data, as in the peer (TE's m_splits is a Python list): `layout` comes
// from octet::fp8flow_layout(offs, m, cols), which validates the offsets. q_m_c (m, cols) e4m3fn
// codes and si_m_cb (m, ceil(cols/128)) fp32 scale_inv are row-major contiguous device buffers;
// the scale_inv values must be valid (+0 or a power of two in [2^-127, 2^127]; the adapter checks
// them on the host as the emulator does). Outputs (device, sizes of the layout) are written
// completely. At most kFp8FlowMaxGroups groups (the group table travels as a kernel parameter).
// Asynchronous on `stream`.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "octet/kernels/fp8flow_transpose.hpp"

namespace octet::cuda {

inline constexpr std::int64_t kFp8FlowMaxGroups = 1024;

struct Fp8FlowGpuOutputs {
  std::uint8_t* qt = nullptr;  // layout.qt_size() codes
  float* csi = nullptr;        // layout.csi_size()
  float* sit = nullptr;        // layout.sit_size()
};

void fp8flow_transpose(Fp8FlowVariant variant, const std::uint8_t* q_m_c, const float* si_m_cb,
                       const Fp8FlowLayout& layout, const Fp8FlowGpuOutputs& out, cudaStream_t stream = nullptr);

}  // namespace octet::cuda
