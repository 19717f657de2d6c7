// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// scale_io.cpp — a recipe's stored scales as golden datasets (scale_io.hpp).
#include "scale_io.hpp"

#include <bit>

#include "octet/format.hpp"

namespace octet::golden {

std::string_view stored_scale_dtype(const Recipe& r) {
  switch (storage(r)) {
    case ScaleStorage::E8m0: return dtype_name(FormatId::e8m0fnu);
    case ScaleStorage::E4m3: return dtype_name(FormatId::e4m3fn);
    case ScaleStorage::EncodeFp32:
    case ScaleStorage::DecodeFp32: break;
  }
  return "float32";
}

std::string_view stored_scale_name(const Recipe& r) {
  return storage(r) == ScaleStorage::DecodeFp32 ? "scale_inv" : "scale";
}

Tensor stored_scale_tensor(const Recipe& r, std::vector<std::int64_t> shape, const std::vector<std::uint32_t>& stored,
                           std::string layout, std::vector<std::int64_t> strides) {
  const std::string_view dtype = stored_scale_dtype(r);
  if (dtype == "float32") {
    std::vector<float> words(stored.size());
    for (std::size_t i = 0; i < stored.size(); ++i) words[i] = std::bit_cast<float>(stored[i]);
    return make_tensor(dtype, std::move(shape), words, std::move(layout), std::move(strides));
  }
  return make_tensor(dtype, std::move(shape), std::vector<std::uint8_t>(stored.begin(), stored.end()), std::move(layout),
                     std::move(strides));
}

Tensor stored_scale_tensor(const Recipe& r, std::vector<std::int64_t> shape, const std::vector<BlockScale>& scales) {
  std::vector<std::uint32_t> stored;
  stored.reserve(scales.size());
  for (const BlockScale& s : scales) stored.push_back(s.stored);
  return stored_scale_tensor(r, std::move(shape), stored);
}

}  // namespace octet::golden
