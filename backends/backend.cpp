// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// backend.cpp — the list of backends compiled into this build.
#include <array>

#include "backend.hpp"

namespace octet {

std::span<const Backend* const> backends() {
#if OCTET_BACKEND_CUDA
  static const std::array<const Backend*, 2> kAll{&cpu_backend(), &cuda::backend()};
#else
  static const std::array<const Backend*, 1> kAll{&cpu_backend()};
#endif
  return kAll;
}

const Backend* find_backend(std::string_view name) {
  for (const Backend* b : backends())
    if (b->name == name) return b;
  return nullptr;
}

}  // namespace octet
