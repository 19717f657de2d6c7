// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// scale_io.hpp — a recipe's stored scales as golden datasets (golden/schema.md), for the kernel
// adapters and the case catalogues alike: the dtype the storage is written in, the dataset name of
// fp32 scales, and the tensor of a block-scale list. Private to the golden library.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "octet/golden/tensor_io.hpp"
#include "octet/scale.hpp"

namespace octet::golden {

// The dtype of a recipe's stored scale: float8_e8m0fnu (E8m0 codes), float8_e4m3fn (E4m3 codes) or
// float32 (the fp32 bits of EncodeFp32 / DecodeFp32 recipes).
std::string_view stored_scale_dtype(const Recipe& r);

// The dataset name of a recipe's stored scales: `scale_inv` for DecodeFp32 recipes (the
// dequantisation multiplier, x ≈ q · scale_inv), `scale` for every other storage (the encode
// multiplier of EncodeFp32 recipes, the e8m0 / e4m3 codes).
std::string_view stored_scale_name(const Recipe& r);

// Stored scale words (BlockScale::stored: fp32 bits, or an e8m0 / e4m3 code) as a tensor of
// stored_scale_dtype(r) and `shape`.
Tensor stored_scale_tensor(const Recipe& r, std::vector<std::int64_t> shape, const std::vector<std::uint32_t>& stored,
                           std::string layout = "row_major", std::vector<std::int64_t> strides = {});
Tensor stored_scale_tensor(const Recipe& r, std::vector<std::int64_t> shape, const std::vector<BlockScale>& scales);

}  // namespace octet::golden
