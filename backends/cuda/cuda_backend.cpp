// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// cuda_backend.cpp — the CUDA backend's kernel table: each entry launches the automatic variant
// on the default stream and waits for it, so that it behaves as the emulator function it
// replaces.
#include "backend.hpp"
#include "cuda_cast.hpp"
#include "cuda_check.hpp"

namespace octet::cuda {
namespace {

void backend_cast(SourceType src, const void* in, std::size_t n, const Format& dst, const CastSpec& spec,
                  void* out, const std::uint32_t* rbits) {
  cast(src, in, n, dst, spec, out, rbits, CastVariant::automatic, nullptr);
  OCTET_CUDA_CHECK(cudaStreamSynchronize(nullptr));
}

}  // namespace

const Backend& backend() {
  static constexpr Backend kCuda{
      .name = "cuda",
      .memory = MemorySpace::device,
      .cast = &backend_cast,
  };
  return kCuda;
}

}  // namespace octet::cuda
