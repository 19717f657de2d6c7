// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// sm90_fp8flow_transpose_table.cpp — the ideal variant's element table for the CUDA transpose
// (sm90_fp8flow_transpose.cu), built on the host from octet::fp8flow_ideal_code, the function the
// emulator's table is built from. A host translation unit: nvcc would compile the function for the
// device as well, where its namespace-scope Format constant is not addressable.
#include <cstdint>
#include <vector>

#include "sm90_fp8flow_transpose.hpp"

namespace octet::cuda {

std::vector<std::uint8_t> fp8flow_ideal_table() {
  std::vector<std::uint8_t> t(std::size_t(kFp8FlowTableRows) * 256);
  for (int k = 0; k < kFp8FlowTableRows; ++k)
    for (int c = 0; c < 256; ++c) t[std::size_t(k * 256 + c)] = fp8flow_ideal_code(std::uint8_t(c), k);
  return t;
}

}  // namespace octet::cuda
