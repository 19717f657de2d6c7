// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// cpu_backend.cpp — the CPU backend is the emulator: its table points at the emulator's own
// functions.
#include "backend.hpp"

namespace octet {

const Backend& cpu_backend() {
  static constexpr Backend kCpu{
      .name = "cpu",
      .memory = MemorySpace::host,
      .cast = static_cast<Backend::CastFn>(&octet::cast),
  };
  return kCpu;
}

}  // namespace octet
