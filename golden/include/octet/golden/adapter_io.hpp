// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// adapter_io.hpp — kernel parameters that several adapters read the same way: 0/1 flags, the
// element format of the format kernels, the fp8 recipe of the FP8 quantisers, and the combine
// kernels' summation order and fma (fused_unpermute_unpad, a2a_combine). The emulator adapters
// (golden/src/adapters) and every other backend's adapters (backends/cuda) read them here, so
// that a parameter means the same and fails with the same message everywhere.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "octet/format.hpp"
#include "octet/scale.hpp"

#include "octet/golden/runner.hpp"
#include "octet/kernels/layout_pad_permute.hpp"

namespace octet::golden {

// The elements of integer input `name` (int_list / int_matrix values) as the int32 the kernel
// takes; an element outside int32 is a KernelInputError.
std::vector<std::int32_t> narrow_int32(const std::vector<std::int64_t>& values, const std::string& name);

// The 0/1 int parameter `key` (absent: `fallback`); any other value is a KernelInputError.
bool flag_param(const KernelCall& call, const std::string& key, bool fallback);

// String parameter `format` (a format name); missing or unknown is a KernelInputError.
const Format& format_param(const KernelCall& call);

// The call's recipe (absent: `fallback`), which must have fp8 elements (e4m3fn, e4m3fnuz, e5m2) and
// float32 scales; any other is a KernelInputError naming the recipes that fit.
const Recipe& fp8_recipe(const KernelCall& call, std::string_view fallback);

// 3D weights (E, K, N) in logical order -> per-expert column-major storage, strides (K*N, 1, K).
template <class T>
std::vector<T> to_expert_col_major(const std::vector<T>& v, std::int64_t E, std::int64_t K, std::int64_t N) {
  std::vector<T> out(v.size());
  for (std::int64_t e = 0; e < E; ++e)
    for (std::int64_t k = 0; k < K; ++k)
      for (std::int64_t n = 0; n < N; ++n) out[std::size_t(e * K * N + n * K + k)] = v[std::size_t((e * K + k) * N + n)];
  return out;
}

// Parameters `combine_order` ("slot_ascending" (default) | "row_descending") and `fma` (0 (default)
// | 1) of the combine kernels.
CombineSpec combine_spec(const KernelCall& call);

}  // namespace octet::golden
