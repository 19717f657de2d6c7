// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// gpu_cast_test_kernels.cu — device side of gpu_cast_test.hpp: grid-stride fills with 64-bit
// indices.
#include <algorithm>

#include "cuda_check.hpp"
#include "gpu_cast_test.hpp"

namespace octet::gpu_test {
namespace {

constexpr int kThreads = 256;
constexpr unsigned kMaxBlocks = 65536;

__global__ void iota_kernel(std::uint32_t* out, std::size_t n, std::uint32_t first) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = first + std::uint32_t(i);
}

__global__ void large_pattern_kernel(std::uint32_t* out, std::size_t n, std::uint64_t seed) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = large_pattern(seed, i);
}

unsigned blocks_for(std::size_t n) {
  return unsigned(std::clamp<std::size_t>((n + kThreads - 1) / kThreads, 1, kMaxBlocks));
}

// PTX rcp.approx.ftz.f32 of each input (the reciprocal NVIDIA's production MX quantisers use for
// 1/448; reference/recipes.md §7).
__global__ void rcp_approx_kernel(const float* in, float* out, int n) {
  const int i = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) {
    float r;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(in[i]));
    out[i] = r;
  }
}

}  // namespace

void rcp_approx_ftz(const float* in, float* out, int n) {
  if (n == 0) return;
  rcp_approx_kernel<<<(n + 255) / 256, 256>>>(in, out, n);
  OCTET_CUDA_CHECK(cudaGetLastError());
}

void fill_iota(std::uint32_t* out, std::size_t n, std::uint32_t first) {
  if (n == 0) return;
  iota_kernel<<<blocks_for(n), kThreads>>>(out, n, first);
  OCTET_CUDA_CHECK(cudaGetLastError());
}

void fill_large_pattern(std::uint32_t* out, std::size_t n, std::uint64_t seed) {
  if (n == 0) return;
  large_pattern_kernel<<<blocks_for(n), kThreads>>>(out, n, seed);
  OCTET_CUDA_CHECK(cudaGetLastError());
}

}  // namespace octet::gpu_test
