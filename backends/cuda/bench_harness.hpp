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
#include <cstdlib>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "cuda_check.hpp"
#include "device_buffer.hpp"

namespace octet::cuda::bench {

// OCTET_BENCH_FILTER: validate and time only the kernels whose name contains one of its
// comma-separated parts (tuning sweeps); every kernel when it is unset.
inline bool selected(const std::string& kernel) {
  static const char* filter = std::getenv("OCTET_BENCH_FILTER");
  if (filter == nullptr) return true;
  const std::string f = filter;
  for (std::size_t b = 0; b <= f.size();) {
    const std::size_t e = std::min(f.find(',', b), f.size());
    if (e > b && kernel.find(f.substr(b, e - b)) != std::string::npos) return true;
    b = e + 1;
  }
  return false;
}

// How median_ms times: queued (default) or, with OCTET_BENCH_TIMING=sync, each launch waited for
// before the next is queued (the method of the tables before 2026-11-26, for comparisons).
inline bool synced_timing() {
  static const bool synced = [] {
    const char* v = std::getenv("OCTET_BENCH_TIMING");
    return v != nullptr && std::string(v) == "sync";
  }();
  return synced;
}

// Keeps the GPU busy for `ns` nanoseconds (%globaltimer), so that the host can queue the timed
// launches behind it.
__global__ inline void hold_gpu_kernel(unsigned long long ns) {
  unsigned long long t0 = 0, t = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
}

// Median of `reps` launches, each between two CUDA events on the default stream, after `warmups`
// untimed launches. Milliseconds.
// The timed launches are queued behind a kernel that holds the GPU for 50 us per launch, and no
// launch waits for the one before it. An event pair then times the GPU's work alone. If the host
// waited for every launch, each pair would also hold the host's launch latency: the GPU runs the
// start event at once and idles until the kernel arrives, several microseconds for the argument
// set-up and the driver call (a few % of a 100 us kernel). The L2 holds what the previous launch
// left there, as before. OCTET_BENCH_REPS=n times n launches after at most n warm-ups (profiler
// runs, which want few launches per row).
template <class Launch>
double median_ms(Launch&& launch, int reps = 50, int warmups = 5) {
  static const int forced_reps = [] {
    const char* v = std::getenv("OCTET_BENCH_REPS");
    return v == nullptr ? 0 : std::atoi(v);
  }();
  if (forced_reps > 0) {
    reps = forced_reps;
    warmups = std::min(warmups, forced_reps);
  }
  reps = std::max(reps, 1);
  std::vector<cudaEvent_t> events(2 * std::size_t(reps));
  for (cudaEvent_t& e : events) OCTET_CUDA_CHECK(cudaEventCreate(&e));
  for (int i = 0; i < warmups; ++i) launch();
  OCTET_CUDA_CHECK(cudaDeviceSynchronize());
  const bool synced = synced_timing();
  if (!synced) hold_gpu_kernel<<<1, 1>>>(50000ull * unsigned(reps));
  for (int i = 0; i < reps; ++i) {
    OCTET_CUDA_CHECK(cudaEventRecord(events[2 * i]));
    launch();
    OCTET_CUDA_CHECK(cudaEventRecord(events[2 * i + 1]));
    if (synced) OCTET_CUDA_CHECK(cudaEventSynchronize(events[2 * i + 1]));
  }
  OCTET_CUDA_CHECK(cudaDeviceSynchronize());
  OCTET_CUDA_CHECK(cudaGetLastError());
  std::vector<float> ms;
  for (int i = 0; i < reps; ++i) {
    float t = 0.0f;
    OCTET_CUDA_CHECK(cudaEventElapsedTime(&t, events[2 * i], events[2 * i + 1]));
    ms.push_back(t);
  }
  for (cudaEvent_t& e : events) OCTET_CUDA_CHECK(cudaEventDestroy(e));
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

// A plain copy, one 16-byte load and store per thread: the other half of the small-copy ceiling.
__global__ inline void copy16_kernel(const uint4* __restrict__ src, uint4* __restrict__ dst, std::size_t n) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = src[i];
}

// The ceiling of a launch-bound kernel (a few MB) that reads `bytes` from buffers outside the L2
// and writes `bytes`: GB/s (read + write bytes per second) of the faster of cudaMemcpyAsync and
// copy16_kernel, each reading one of 32 sources in turn (more than the L2, as the benchmarks'
// inputs of such kernels) into one destination. Not copy_gbs of the same size: at a few MB
// cudaMemcpyAsync's time depends on the byte count by more than the bytes (H100, 2026-11-28:
// 4.7 us for 2,662,400 bytes, 6.9 us for 2,672,656, from one L2-resident source; 5.6 us for
// either by copy16_kernel from rotating sources), and a source read again and again sits in the L2.
inline double small_copy_gbs(std::size_t bytes, int reps = 50) {
  constexpr int kSources = 32;
  const std::size_t n16 = (bytes + 15) / 16;
  std::vector<DeviceBuffer<std::uint8_t>> src;
  for (int i = 0; i < kSources; ++i) {
    src.emplace_back(n16 * 16);
    src.back().fill_bytes(0x3c);
  }
  DeviceBuffer<std::uint8_t> dst(n16 * 16);
  int next = 0;
  const double memcpy_ms = median_ms([&] {
    const auto* s = src[std::size_t(next++ % kSources)].get();
    OCTET_CUDA_CHECK(cudaMemcpyAsync(dst.get(), s, bytes, cudaMemcpyDeviceToDevice));
  }, reps);
  const unsigned blocks = unsigned((n16 + 255) / 256);
  const double kernel_ms = median_ms([&] {
    const auto* s = reinterpret_cast<const uint4*>(src[std::size_t(next++ % kSources)].get());
    copy16_kernel<<<blocks, 256>>>(s, reinterpret_cast<uint4*>(dst.get()), n16);
  }, reps);
  return 2.0 * double(bytes) / (std::min(memcpy_ms, kernel_ms) * 1e-3) * 1e-9;
}

// The write-only rate: cudaMemsetAsync of `bytes` (GB/s of bytes written). A kernel that mostly
// writes (a gather whose sources sit in L2) is bounded by it rather than by the copy rate.
inline double write_gbs(std::size_t bytes, int reps = 50) {
  DeviceBuffer<std::uint8_t> a(bytes);
  const double ms = median_ms([&] { OCTET_CUDA_CHECK(cudaMemsetAsync(a.get(), 0x3c, bytes)); }, reps);
  return double(bytes) / (ms * 1e-3) * 1e-9;
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
