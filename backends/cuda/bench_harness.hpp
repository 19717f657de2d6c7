// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// bench_harness.hpp — what every CUDA kernel benchmark shares: the median of CUDA-event times,
// the device's copy bandwidth measured in the same run, and one table row per measurement.
//
// Bytes counted: each input read once and each output written once (scales and offsets
// included), whatever the kernel re-reads; GB/s = bytes / median time; %copy = GB/s over the
// bandwidth of a device-to-device cudaMemcpy of a buffer of similar size (read + write bytes).
// Rows print as
//   kernel <name> | <shape> | groups <G> | <us> us | <GB/s> GB/s | <pct>% copy | torch <ratio>
// so scripts/gpu/run.sh can collect them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "cuda_check.hpp"
#include "device_buffer.hpp"

namespace octet::cuda::bench {

// Median of `reps` launches, each between two CUDA events on the default stream, after
// `warmups` untimed launches. Milliseconds.
template <class Launch>
double median_ms(Launch&& launch, int reps = 50, int warmups = 5) {
  cudaEvent_t start, stop;
  OCTET_CUDA_CHECK(cudaEventCreate(&start));
  OCTET_CUDA_CHECK(cudaEventCreate(&stop));
  for (int i = 0; i < warmups; ++i) launch();
  OCTET_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> ms(std::size_t(std::max(reps, 1)));
  for (float& t : ms) {
    OCTET_CUDA_CHECK(cudaEventRecord(start));
    launch();
    OCTET_CUDA_CHECK(cudaEventRecord(stop));
    OCTET_CUDA_CHECK(cudaEventSynchronize(stop));
    OCTET_CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
  }
  OCTET_CUDA_CHECK(cudaGetLastError());
  OCTET_CUDA_CHECK(cudaEventDestroy(start));
  OCTET_CUDA_CHECK(cudaEventDestroy(stop));
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// Workspaces of the kernels (token-group block tables, key buffers, index arrays) come from the
// stream-ordered pool; with its default release threshold (0) the pool returns its memory at every
// synchronisation and the next launch maps it again, which the timing would count (tens of us).
// Frameworks keep such memory cached; so do the benchmarks.
inline void keep_pool_memory() {
  cudaMemPool_t pool;
  OCTET_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
  std::uint64_t keep = ~std::uint64_t(0);
  OCTET_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
}

// Copy bandwidth in GB/s (read + write bytes per second) of a device-to-device cudaMemcpy of
// `bytes` bytes: the ceiling the kernels are measured against.
inline double copy_gbs(std::size_t bytes, int reps = 50) {
  DeviceBuffer<std::uint8_t> a(bytes), b(bytes);
  a.fill_bytes(0x3c);
  const double ms = median_ms([&] { OCTET_CUDA_CHECK(cudaMemcpyAsync(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice)); }, reps);
  return 2.0 * double(bytes) / (ms * 1e-3) * 1e-9;
}

struct Row {
  std::string kernel;  // registry name, plus "/variant" when several
  std::string shape;   // "16640x5120 bf16"
  long groups = 1;
  double ms = 0;       // median
  double bytes = 0;    // read once + written once
  double torch_ms = 0; // the torch.compile reference's median, 0 when not measured
};

inline double gbs(const Row& r) { return r.bytes / (r.ms * 1e-3) * 1e-9; }

inline void print_row(const Row& r, double copy) {
  std::printf("kernel %-48s | %-22s | groups %4ld | %9.1f us | %7.1f GB/s | %5.1f%% copy", r.kernel.c_str(),
              r.shape.c_str(), r.groups, r.ms * 1e3, gbs(r), 100.0 * gbs(r) / copy);
  if (r.torch_ms > 0) std::printf(" | torch %.2fx", r.torch_ms / r.ms);
  std::printf("\n");
  std::fflush(stdout);
}

}  // namespace octet::cuda::bench
