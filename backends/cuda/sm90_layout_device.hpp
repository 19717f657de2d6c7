// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// sm90_layout_device.hpp — device functions shared by the layout, transpose, fused and a2a kernels
// (sm90_e8m0_scale_swizzle.cu, sm90_token_pad_permute.cu, sm90_fp8flow_transpose.cu,
// sm90_bf16_swiglu_fp8.cu, sm90_a2a_emulation.cu); included by .cu files only.
//
//   * group arithmetic on device: offs are the inclusive cumulative group ends of
//     reference/kernels.md §0, as int64 in device memory; `padded_group_starts` turns them into
//     the exclusive prefix sum of round_up(size_g, alignment) (G + 1 entries), the one scan
//     behind torchao's start_row_after_padding, start_cols_after_padding and padded_starts;
//   * stream-ordered scratch buffers (cudaMallocAsync) for such small index arrays;
//   * the launch check and grid sizing.
// Every index is 64-bit: row counts times row bytes exceed 2^31 at the production shapes.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cub/block/block_scan.cuh>
#include <cuda_runtime_api.h>

#include "cuda_check.hpp"

namespace octet::cuda::layout_detail {

inline constexpr int kThreads = 256;

// Last-error check after a launch (configuration errors surface here, asynchronous faults at the
// next synchronising call).
inline void check_launch() { OCTET_CUDA_CHECK(cudaGetLastError()); }

// Blocks for `items` work items at `per_block` items per block, at least 1, at most 2^31 - 1.
inline unsigned blocks_for(std::int64_t items, std::int64_t per_block) {
  const std::int64_t b = (items + per_block - 1) / per_block;
  return unsigned(b < 1 ? 1 : (b > 0x7FFFFFFF ? 0x7FFFFFFF : b));
}

// Multiprocessors of the current device, read once per device (host overhead counts in the
// launch-bound kernels: one attribute query per call is avoidable).
inline int multiprocessors() {
  constexpr int kMaxDevices = 64;
  static std::atomic<int> count[kMaxDevices] = {};  // 0: not read yet (host threads may race: same value)
  int dev = 0;
  OCTET_CUDA_CHECK(cudaGetDevice(&dev));
  const int cached = dev >= 0 && dev < kMaxDevices ? count[dev].load(std::memory_order_relaxed) : 0;
  if (cached != 0) return cached;
  int sms = 0;
  OCTET_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  if (dev >= 0 && dev < kMaxDevices) count[dev].store(sms, std::memory_order_relaxed);
  return sms;
}

// A device allocation freed in stream order when it leaves scope (index arrays of a launch).
template <class T>
class StreamScratch {
 public:
  StreamScratch(std::size_t n, cudaStream_t stream) : stream_(stream) {
    if (n) OCTET_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&p_), n * sizeof(T), stream));
  }
  StreamScratch(const StreamScratch&) = delete;
  StreamScratch& operator=(const StreamScratch&) = delete;
  ~StreamScratch() {
    if (p_) cudaFreeAsync(p_, stream_);  // no throw from a destructor; the next call reports
  }
  T* get() const { return p_; }

 private:
  T* p_ = nullptr;
  cudaStream_t stream_;
};

// ----------------------------------------------------------------------------
// Device functions

// First g in [0, n) with ends[g] > x, or n when none (upper bound over a non-decreasing array).
__device__ inline std::int64_t upper_bound(const std::int64_t* ends, std::int64_t n, std::int64_t x) {
  std::int64_t lo = 0, hi = n;
  while (lo < hi) {
    const std::int64_t mid = (lo + hi) / 2;
    if (__ldg(ends + mid) > x) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

// The same with plain loads: `ends` may be in shared memory. I: int64, or int32 for kernels
// whose every index fits.
template <class I>
__device__ inline I first_above(const I* ends, std::type_identity_t<I> n, std::type_identity_t<I> x) {
  I lo = 0, hi = n;
  while (lo < hi) {
    const I mid = (lo + hi) / 2;
    if (ends[mid] > x) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

__device__ inline std::int64_t group_begin(const std::int64_t* offs, std::int64_t g) {
  return g == 0 ? 0 : __ldg(offs + g - 1);
}

// starts[0] = 0, starts[g + 1] = starts[g] + round_up(size_of(g), alignment) for g < groups, by
// one whole block of kBlock threads (every thread must call it): groups in rounds of kBlock,
// each round one block scan plus the running carry. starts may be global or shared memory. I:
// the index and sum type (int64; int32 where the caller knows every sum fits).
template <int kBlock = kThreads, class I = std::int64_t, class SizeOf>
__device__ void padded_scan(SizeOf size_of, std::type_identity_t<I> groups, std::type_identity_t<I> alignment,
                            I* starts) {
  using Sum = std::conditional_t<sizeof(I) == 8, long long, int>;
  using Scan = cub::BlockScan<Sum, kBlock>;
  __shared__ typename Scan::TempStorage tmp;
  __shared__ Sum carry;
  if (threadIdx.x == 0) {
    carry = 0;
    starts[0] = 0;
  }
  __syncthreads();
  for (I base = 0; base < groups; base += kBlock) {
    const I g = base + I(threadIdx.x);
    Sum v = 0;
    if (g < groups) v = (size_of(g) + alignment - 1) / alignment * alignment;
    Sum inclusive = 0, total = 0;
    Scan(tmp).InclusiveSum(v, inclusive, total);
    if (g < groups) starts[g + 1] = carry + inclusive;
    __syncthreads();
    if (threadIdx.x == 0) carry += total;
    __syncthreads();
  }
}

// padded_scan over the group sizes of inclusive ends offs (device int64, G entries).
__device__ inline void padded_scan_offs(const std::int64_t* offs, std::int64_t groups, std::int64_t alignment,
                                        std::int64_t* starts) {
  padded_scan([offs](std::int64_t g) { return __ldg(offs + g) - group_begin(offs, g); }, groups, alignment, starts);
}

// ----------------------------------------------------------------------------
// Host launchers (defined in sm90_token_pad_permute.cu)

// starts[0] = 0, starts[g + 1] = starts[g] + round_up(offs[g] - offs[g-1], alignment), for g < G.
// offs: device int64 (G,), valid (monotonic, non-negative); starts: device int64 (G + 1,).
void padded_group_starts(const std::int64_t* offs, std::int64_t groups, std::int64_t alignment,
                         std::int64_t* starts, cudaStream_t stream);

// Fills n int64 with `value` (index maps start at -1).
void fill_int64(std::int64_t* p, std::int64_t n, std::int64_t value, cudaStream_t stream);

}  // namespace octet::cuda::layout_detail
