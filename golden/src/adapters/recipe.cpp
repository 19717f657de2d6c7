// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// adapters/recipe.cpp — the scale recipes (emulator/src/scale.cpp, reference/recipes.md) as
// golden kernels:
//   recipe_scale_from_amax   amax -> scale_from_amax: the stored scale, encode and decode (§8
//                            special values included);
//   recipe_quantize_blocks   x in blocks along its rows -> amax_init / amax_update (the recipe's
//                            NaN rule), scale_from_amax, quantize_element: the codes and the
//                            stored scale of every block, exactly as every emulator kernel does.
// The stored scale keeps the recipe's storage: fp32 bits (a float32 dataset) for EncodeFp32 /
// DecodeFp32 recipes, or one e8m0fnu / e4m3fn code per scale.
#include <string>
#include <vector>

#include "../scale_io.hpp"
#include "octet/format.hpp"
#include "octet/golden/runner.hpp"
#include "octet/scale.hpp"

namespace octet::golden {
namespace {

Tensors run_scale_from_amax(const KernelCall& call) {
  const Recipe& r = call_recipe(call, "");
  const Tensor& t = input(call.inputs, "amax");
  expect_dtype(t, "amax", {"float32"}, 1);
  const std::vector<float> amax = values_of<float>(t);
  std::vector<BlockScale> scales;
  std::vector<float> encode, decode;
  for (const float a : amax) {
    scales.push_back(scale_from_amax(r, a));
    encode.push_back(scales.back().encode);
    decode.push_back(scales.back().decode);
  }
  const std::int64_t n = std::int64_t(amax.size());
  return {{"scale", stored_scale_tensor(r, {n}, scales)},
          {"encode", make_tensor("float32", {n}, encode)},
          {"decode", make_tensor("float32", {n}, decode)}};
}

Tensors run_quantize_blocks(const KernelCall& call) {
  const Recipe& r = call_recipe(call, "");
  const FloatInput x = float_input(call.inputs, "x", 2);
  const std::int64_t rows = x.dim(0), cols = x.dim(1);
  const std::int64_t block = call.int_param("block", cols);
  if (block <= 0) throw KernelInputError("attribute 'block' = " + std::to_string(block) + " must be > 0");
  if (cols % block != 0)
    throw KernelInputError("input 'x': " + std::to_string(cols) + " columns are not a multiple of block = " +
                           std::to_string(block));
  // bf16 inputs are widened exactly, as every kernel does before its amax.
  const auto value = [&](std::int64_t i) {
    return x.type == InputType::bf16 ? bf16_to_float(x.bf16[std::size_t(i)]) : x.f32[std::size_t(i)];
  };
  const std::int64_t blocks = cols / block;
  std::vector<std::uint8_t> q(std::size_t(rows * cols));
  std::vector<BlockScale> scales;
  for (std::int64_t row = 0; row < rows; ++row)
    for (std::int64_t b = 0; b < blocks; ++b) {
      const std::int64_t first = row * cols + b * block;
      float amax = amax_init(r);
      for (std::int64_t i = first; i < first + block; ++i) amax = amax_update(r, amax, value(i));
      const BlockScale s = scale_from_amax(r, amax);
      for (std::int64_t i = first; i < first + block; ++i) q[std::size_t(i)] = std::uint8_t(quantize_element(r, s, value(i)));
      scales.push_back(s);
    }
  return {{"q", make_tensor(dtype_name(element_format(r)), {rows, cols}, q)},
          {"scale", stored_scale_tensor(r, {rows, blocks}, scales)}};
}

const KernelAdapter kAdapters[] = {
    {"recipe_scale_from_amax", "", "amax: float32 (N,)", "recipe (string, required)",
     "scale: float32 (fp32 bits) | float8_e8m0fnu | float8_e4m3fn (N,), per the recipe's storage; encode: float32 "
     "(N,); decode: float32 (N,)",
     run_scale_from_amax},
    {"recipe_quantize_blocks", "", "x: bfloat16|float32 (N, K)",
     "recipe (string, required); block (int, default K: one block per row; K % block == 0)",
     "q: the recipe's element dtype (N, K); scale: float32 (fp32 bits) | float8_e8m0fnu | float8_e4m3fn "
     "(N, K/block)",
     run_quantize_blocks},
};

}  // namespace

std::span<const KernelAdapter> recipe_adapters() { return kAdapters; }

}  // namespace octet::golden
