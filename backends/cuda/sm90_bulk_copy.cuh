// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// sm90_bulk_copy.cuh — the bulk copy engine (sm_90; PTX ISA 8.0 "Data Movement and Conversion
// Instructions: cp.async.bulk") and its mbarrier, for the kernels that move whole rows:
//   - to shared memory: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes, whose
//     arrival completes a phase of an mbarrier (mbarrier.init / arrive.expect_tx /
//     try_wait.parity). A CTA launched without a cluster is a cluster of one, so its own shared
//     memory is a valid ::cluster destination;
//   - to global memory: cp.async.bulk.global.shared::cta.bulk_group, tracked in the issuing
//     thread's bulk async-groups (cp.async.bulk.commit_group; wait_group.read N returns when at
//     most N of its groups still read shared memory, wait_group N when at most N are incomplete).
// Sizes are multiples of 16 bytes, both addresses 16-byte aligned. Shared memory written by
// ordinary stores is made visible to the bulk copies (the async proxy) by fence_proxy_async().
#pragma once

#include <cstdint>

#include "sm90_cp_async.cuh"

namespace octet::cuda {

// The host launches the bulk-copy kernels on sm_90 and later only; older targets compile a trap.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define OCTET_BULK_COPY_ASM(...) __trap()
#else
#define OCTET_BULK_COPY_ASM(...) asm volatile(__VA_ARGS__)
#endif

__device__ __forceinline__ void mbarrier_init(std::uint64_t* bar) {
  OCTET_BULK_COPY_ASM("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_address(bar)) : "memory");
}

__device__ __forceinline__ void mbarrier_init_fence() {
  OCTET_BULK_COPY_ASM("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// Copies `bytes` to shared memory; the barrier's phase completes when they have arrived.
__device__ __forceinline__ void bulk_copy_to_shared(void* dst, const void* src, std::uint32_t bytes,
                                                    std::uint64_t* bar) {
  OCTET_BULK_COPY_ASM("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_address(bar)), "r"(bytes)
               : "memory");
  OCTET_BULK_COPY_ASM("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                   smem_address(dst)),
               "l"(src), "r"(bytes), "r"(smem_address(bar))
               : "memory");
}

__device__ __forceinline__ void mbarrier_wait(std::uint64_t* bar, std::uint32_t parity) {
  std::uint32_t done = 0;
  do {
    OCTET_BULK_COPY_ASM(
        "{\n\t.reg .pred p;\n\t"
        "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
        "selp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(done)
        : "r"(smem_address(bar)), "r"(parity)
        : "memory");
  } while (!done);
}

// Copies `bytes` of shared memory to global memory, in this thread's current bulk group.
__device__ __forceinline__ void bulk_copy_to_global(void* dst, const void* src, std::uint32_t bytes) {
  OCTET_BULK_COPY_ASM("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(smem_address(src)),
               "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void bulk_commit() { OCTET_BULK_COPY_ASM("cp.async.bulk.commit_group;" ::: "memory"); }
// At most kPending of this thread's bulk groups still read their shared memory.
template <int kPending>
__device__ __forceinline__ void bulk_wait_read() {
  OCTET_BULK_COPY_ASM("cp.async.bulk.wait_group.read %0;" ::"n"(kPending) : "memory");
}
// Every bulk group of this thread is complete (its writes performed).
__device__ __forceinline__ void bulk_wait_all() { OCTET_BULK_COPY_ASM("cp.async.bulk.wait_group 0;" ::: "memory"); }

// Orders this thread's earlier ordinary shared-memory accesses before its later bulk copies.
__device__ __forceinline__ void fence_proxy_async() {
  OCTET_BULK_COPY_ASM("fence.proxy.async.shared::cta;" ::: "memory");
}

}  // namespace octet::cuda
