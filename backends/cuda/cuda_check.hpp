// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// cuda_check.hpp — OCTET_CUDA_CHECK(expr): a CUDA runtime call whose failure throws
// octet::cuda::Error naming file:line, the call, and the CUDA error's name and string.
#pragma once

#include <stdexcept>
#include <string>

#include <cuda_runtime_api.h>

namespace octet::cuda {

class Error : public std::runtime_error {
 public:
  Error(cudaError_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

[[noreturn]] inline void throw_error(cudaError_t code, const char* expr, const char* file, int line) {
  throw Error(code, std::string(file) + ":" + std::to_string(line) + ": " + expr + " failed: " +
                        cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ")");
}

inline void check(cudaError_t code, const char* expr, const char* file, int line) {
  if (code != cudaSuccess) throw_error(code, expr, file, line);
}

}  // namespace octet::cuda

#define OCTET_CUDA_CHECK(expr) ::octet::cuda::check((expr), #expr, __FILE__, __LINE__)
