// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// sm90_e8m0_scale_swizzle.hpp — host API of the blocked ("swizzled") MX scale layouts on device
// pointers (sm90_e8m0_scale_swizzle.cu): octet::to_blocked, from_blocked, to_blocked_m_groups,
// to_blocked_k_groups and to_blocked_per_group_3d (emulator/include/octet/kernels/mx_swizzle.hpp,
// reference/kernels.md §5), the same bytes, padding included.
//
// Scales are one byte each (e8m0 or any 1-byte scale). Every output byte is written (pad bytes
// and rows no group reaches get 0), so outputs need no zero-fill. Group offsets are device int64
// arrays that the caller has validated (octet::Groups: non-decreasing, within the grouped
// dimension); shape errors throw std::invalid_argument before any launch. Asynchronous on `stream`.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace octet::cuda {

// A (rows, cols) matrix of 1-byte scales in device memory, `row_stride` bytes between rows
// (columns contiguous).
struct ScaleMatrix {
  const std::uint8_t* data = nullptr;
  std::int64_t rows = 0, cols = 0, row_stride = 0;
};

// S (H, W) -> Hp·Wp bytes (Hp = 128·⌈H/128⌉, Wp = 4·⌈W/4⌉).
void to_blocked(ScaleMatrix s, std::uint8_t* out, cudaStream_t stream = nullptr);

// Hp·Wp blocked bytes -> S (rows, cols) row-major, padding dropped.
void from_blocked(const std::uint8_t* blocked, std::int64_t rows, std::int64_t cols, std::uint8_t* out,
                  cudaStream_t stream = nullptr);

// S (E, H, W) row-major -> (E, Hp·Wp), each expert through to_blocked.
void to_blocked_per_group_3d(const std::uint8_t* s, std::int64_t experts, std::int64_t rows, std::int64_t cols,
                             std::uint8_t* out, cudaStream_t stream = nullptr);

// M-groups: offs (G,) inclusive group ends over the rows of s. out: (H + 128·G)·Wp bytes;
// group_starts (G + 1,) receives R_g (padded row starts), as octet::BlockedScaleGroups.
void to_blocked_m_groups(ScaleMatrix s, const std::int64_t* offs, std::int64_t groups, std::uint8_t* out,
                         std::int64_t* group_starts, cudaStream_t stream = nullptr);

// K-groups: scale_offs (G,) inclusive group ends over the columns of s. out: Np·(Mb + 4·G) bytes
// (Np = 128·⌈N/128⌉, Mb = s.cols); group_starts (G + 1,) receives C_g (padded column starts).
void to_blocked_k_groups(ScaleMatrix s, const std::int64_t* scale_offs, std::int64_t groups, std::uint8_t* out,
                         std::int64_t* group_starts, cudaStream_t stream = nullptr);

}  // namespace octet::cuda
