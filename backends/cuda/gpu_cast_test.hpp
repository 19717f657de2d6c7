// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// gpu_cast_test.hpp — input generators shared by the GPU tests (gpu_cast_test.cpp) and their
// device side (gpu_cast_test_kernels.cu): the device fills the large inputs, the host
// recomputes any element of them with the same function.
#pragma once

#include <cstddef>
#include <cstdint>

#include "octet/sweep.hpp"

namespace octet::gpu_test {

// fp32 bits of element i of the large-count input: random bits; every odd element gets an
// exponent in [2^-15, 2^16], where e4m3fn and e5m2 round, overflow and go subnormal.
OCTET_HD constexpr std::uint32_t large_pattern(std::uint64_t seed, std::uint64_t i) {
  std::uint32_t b = counter_rbits(seed, i);
  if (i & 1) b = (b & 0x807FFFFFu) | ((0x70u + ((b >> 23) & 0x1Fu)) << 23);
  return b;
}

// Device fills, asynchronous on the default stream. out has n words.
void rcp_approx_ftz(const float* in, float* out, int n);  // device pointers; PTX rcp.approx.ftz.f32
void fill_iota(std::uint32_t* out, std::size_t n, std::uint32_t first);          // first + i (mod 2^32)
void fill_large_pattern(std::uint32_t* out, std::size_t n, std::uint64_t seed);  // large_pattern(seed, i)

}  // namespace octet::gpu_test
