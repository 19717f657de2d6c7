// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// gpu_swiglu_expf_test.cpp — exhaustive check of the device sigmoid table that the bf16 SwiGLU
// kernels (sm90_bf16_swiglu_fp8.cu) read: for every one of the 2^16 bf16 values a, the table entry
// must have the bits of octet::swiglu_sigmoid(a) (1 / (1 + expf_octet(−a)), swiglu_quant.hpp)
// evaluated on the host by the emulator's own function. NaN inputs only need a NaN entry: the host
// may carry a NaN payload the device does not (the kernels canonicalise every NaN result anyway).
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstdio>
#include <vector>

#include <cuda_runtime_api.h>

#include "octet/kernels/swiglu_quant.hpp"
#include "sm90_bf16_swiglu_fp8.hpp"

namespace {

bool is_nan_bits(std::uint32_t b) { return (b & 0x7FFFFFFFu) > 0x7F800000u; }

TEST(GpuSwigluSigmoid, Bf16TableEqualsEmulatorForAllInputs) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) GTEST_SKIP() << "no CUDA device";
  constexpr std::uint32_t kValues = 1u << 16;
  const float* table = octet::cuda::swiglu_bf16_sigmoid_table();
  std::vector<std::uint32_t> got(kValues);
  ASSERT_EQ(cudaMemcpy(got.data(), table, kValues * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
  std::uint32_t mismatches = 0;
  for (std::uint32_t b = 0; b < kValues; ++b) {
    const float a = std::bit_cast<float>(b << 16);
    const std::uint32_t want = std::bit_cast<std::uint32_t>(octet::swiglu_sigmoid(a));
    const bool equal = is_nan_bits(want) ? is_nan_bits(got[b]) : got[b] == want;
    if (!equal && ++mismatches <= 10)
      std::printf("mismatch: bf16 a = 0x%04x (%a): device 0x%08x, emulator 0x%08x\n", b, double(a), got[b], want);
  }
  EXPECT_EQ(mismatches, 0u) << "of " << kValues << " bf16 inputs";
}

}  // namespace
