// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// sm90_pdl.cuh — programmatic dependent launch (sm_90; CUDA C++ Programming Guide, "Programmatic
// Dependent Launch and Synchronization"; PTX ISA griddepcontrol). A kernel launched by launch_pdl
// may start while the kernel before it in the stream still runs, so its launch overlaps the end of
// the one before. Such a kernel calls pdl_wait() before its first access to global memory: it
// returns when the previous grid has completed and its writes are visible (at once for a kernel
// launched normally). pdl_launch_dependents() lets the next kernel's blocks be scheduled once every
// block of this one has called it (or exited); they then wait in their own pdl_wait().
// Included by .cu files only.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "cuda_check.hpp"

namespace octet::cuda {

__device__ __forceinline__ void pdl_wait() { asm volatile("griddepcontrol.wait;" ::: "memory"); }
__device__ __forceinline__ void pdl_launch_dependents() {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}

template <class... Params, class... Args>
void launch_pdl(void (*kernel)(Params...), unsigned grid, unsigned block, std::size_t smem, cudaStream_t stream,
                Args&&... args) {
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(grid);
  config.blockDim = dim3(block);
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  cudaLaunchAttribute attribute[1];
  attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute[0].val.programmaticStreamSerializationAllowed = 1;
  config.attrs = attribute;
  config.numAttrs = 1;
  OCTET_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
}

}  // namespace octet::cuda
