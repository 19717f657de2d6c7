// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// adapters/adapter_io.hpp — kernel parameters that several adapter families read the same way:
// 0/1 flags, and the combine kernels' summation order and fma (fused_unpermute_unpad in
// adapters/layout.cpp, a2a_combine in adapters/a2a.cpp). Private to the golden library.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "octet/golden/runner.hpp"
#include "octet/kernels/layout_pad_permute.hpp"

namespace octet::golden {

// The elements of integer input `name` (int_list / int_matrix values) as the int32 the kernel
// takes; an element outside int32 is a KernelInputError.
std::vector<std::int32_t> narrow_int32(const std::vector<std::int64_t>& values, const std::string& name);

// The 0/1 int parameter `key` (absent: `fallback`); any other value is a KernelInputError.
bool flag_param(const KernelCall& call, const std::string& key, bool fallback);

// Parameters `combine_order` ("slot_ascending" (default) | "row_descending") and `fma` (0 (default)
// | 1) of the combine kernels.
CombineSpec combine_spec(const KernelCall& call);

}  // namespace octet::golden
