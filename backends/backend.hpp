// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// backend.hpp — the kernel table every backend fills. The CPU backend is the emulator itself
// (cpu_backend.cpp wraps octet::cast); the CUDA backend runs the kernels of backends/cuda/ on
// device pointers. A kernel has the semantics of its emulator function, bit for bit: the GPU
// tests check it against the emulator.
//
// To add a kernel: a function-pointer member here, its emulator function in cpu_backend.cpp,
// its launcher in each backend's table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "octet/cast.hpp"

namespace octet {

// Where the pointers that a backend's kernels take live.
enum class MemorySpace : std::uint8_t { host, device };

struct Backend {
  // Elementwise cast, octet::cast (cast.hpp): `in` holds n values of `src`; `out` n codes, one
  // byte each for targets of at most 8 bits, two for bf16/fp16; `rbits` n words for
  // Rounding::Stochastic, ignored otherwise. Synchronous: the codes are in `out` on return.
  // Throws std::invalid_argument as octet::cast does.
  using CastFn = void (*)(SourceType src, const void* in, std::size_t n, const Format& dst,
                          const CastSpec& spec, void* out, const std::uint32_t* rbits);

  std::string_view name;  // "cpu", "cuda"
  MemorySpace memory;     // of in, out and rbits
  CastFn cast;
};

const Backend& cpu_backend();

// The backends compiled in, cpu first; nullptr when `name` is not one of them.
std::span<const Backend* const> backends();
const Backend* find_backend(std::string_view name);

namespace cuda {
const Backend& backend();  // backends/cuda/cuda_backend.cpp; only in builds with CUDA
}

}  // namespace octet
