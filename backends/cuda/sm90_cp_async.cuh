// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// sm90_cp_async.cuh — asynchronous copies from global to shared memory (PTX ISA 7.0, sm_80:
// cp.async, cp.async.commit_group, cp.async.wait_group). A thread's copies are tracked in its own
// commit groups; wait_group N returns when at most N of this thread's groups are pending, after
// which this thread (and, past a barrier, the whole CTA) may read what they wrote.
#pragma once

#include <cstdint>

namespace octet::cuda {

// The shared-window address of a generic pointer into shared memory (PTX operands in .shared).
__device__ __forceinline__ std::uint32_t smem_address(const void* p) {
  return std::uint32_t(__cvta_generic_to_shared(p));
}

// 16 bytes, L1 bypassed (.cg: data streamed once).
__device__ __forceinline__ void cp_async_16(void* dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem_address(dst)), "l"(src) : "memory");
}
// 4 bytes (.ca: the only cache mode for copies under 16 bytes).
__device__ __forceinline__ void cp_async_4(void* dst, const void* src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(smem_address(dst)), "l"(src) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }

// Waits until at most kPending of this thread's groups are pending.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(kPending) : "memory");
}
// The same with the count known at run time only (0 .. 7).
__device__ __forceinline__ void cp_async_wait(int pending) {
  switch (pending) {
    case 0: cp_async_wait<0>(); break;
    case 1: cp_async_wait<1>(); break;
    case 2: cp_async_wait<2>(); break;
    case 3: cp_async_wait<3>(); break;
    case 4: cp_async_wait<4>(); break;
    case 5: cp_async_wait<5>(); break;
    case 6: cp_async_wait<6>(); break;
    case 7: cp_async_wait<7>(); break;
    default: break;
  }
}

}  // namespace octet::cuda
