// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// sm90_recipe_format_kernels.cu — the recipe and format kernels of the golden runner on the GPU:
//   recipe_scale_from_amax   octet::scale_from_amax per element (golden/src/adapters/recipe.cpp);
//   recipe_quantize_blocks   amax_init / amax_update, scale_from_amax, quantize_element over
//                            blocks along the rows (golden/src/adapters/recipe.cpp);
//   decode                   octet::decode and Format::classify per code (golden/src/adapters/
//                            formats.cpp).
// Reference: reference/recipes.md (every recipe's scale arithmetic, §8 special values) and
//            formats.md; the device code is the emulator's own: scale_core.hpp (scale_from_amax,
//            the block quantiser's amax and element cast through sm90_quant_common.cuh) and
//            format.hpp (decode, classify), all OCTET_HD.
// Kernels:   scale_from_amax and decode: grid-stride elementwise (decode: two codes per thread and
//            step, one 16-byte store of their values); quantize_blocks: row_segments_kernel with
//            one segment per block (4 lanes x 4 blocks in flight for blocks of up to 64 elements,
//            32 lanes per block otherwise).
#include <algorithm>
#include <cstdint>
#include <string>

#include "quant.hpp"
#include "sm90_layout_device.hpp"
#include "sm90_quant_common.cuh"

namespace octet::cuda {
namespace {

using layout_detail::blocks_for;
using layout_detail::check_launch;
using layout_detail::kThreads;

// Grid-stride grids: at most 8 CTAs of kThreads per SM, no more than the items need.
unsigned grid_for(std::int64_t items) {
  const std::int64_t cap = std::int64_t(quant::device().sms) * 8;
  return unsigned(std::min<std::int64_t>(cap, blocks_for(items, kThreads)));
}

__global__ void __launch_bounds__(kThreads)
    scale_from_amax_kernel(const float* __restrict__ amax, std::int64_t n, RecipeCore r,
                           std::uint32_t* __restrict__ stored, float* __restrict__ encode,
                           float* __restrict__ decode) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const BlockScale s = scale_core::scale_from_amax(r, amax[i]);
    stored[i] = s.stored;
    encode[i] = s.encode;
    decode[i] = s.decode;
  }
}

// Block i of the flat row-major input: x[i*block, (i+1)*block); stored word i.
struct BlockMap {
  std::int64_t block;
  __device__ quant::Segment operator()(std::int64_t i) const { return {i * block, block, i, false}; }
};

// Code storage: one byte up to 8 bits, two otherwise.
template <class Code>
__global__ void __launch_bounds__(kThreads)
    decode_kernel(FormatId format, const Code* __restrict__ codes, std::int64_t n, double* __restrict__ values,
                  std::uint8_t* __restrict__ classes, bool vec) {
  const Format& f = format_of(format);
  const std::int64_t pairs = (n + 1) / 2, stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t p = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; p < pairs; p += stride) {
    const std::int64_t i = 2 * p;
    if (vec && i + 2 <= n) {
      const std::uint32_t c0 = codes[i], c1 = codes[i + 1];
      *reinterpret_cast<double2*>(values + i) = make_double2(decode(f, c0), decode(f, c1));
      *reinterpret_cast<uchar2*>(classes + i) =
          make_uchar2(static_cast<unsigned char>(f.classify(c0)), static_cast<unsigned char>(f.classify(c1)));
    } else {
      for (std::int64_t j = i; j < i + 2 && j < n; ++j) {
        values[j] = decode(f, codes[j]);
        classes[j] = std::uint8_t(f.classify(codes[j]));
      }
    }
  }
}

}  // namespace

void recipe_scale_from_amax(const float* amax, std::int64_t n, const Recipe& r, std::uint32_t* stored, float* encode,
                            float* decode, cudaStream_t stream) {
  require(n >= 0, "amax: negative length " + std::to_string(n));
  if (n == 0) return;
  scale_from_amax_kernel<<<grid_for(n), kThreads, 0, stream>>>(amax, n, make_core(r), stored, encode, decode);
  check_launch();
}

void recipe_quantize_blocks(SourceType src, const void* x, std::int64_t rows, std::int64_t cols, std::int64_t block,
                            const Recipe& r, std::uint8_t* q, std::uint32_t* stored, cudaStream_t stream) {
  require(rows >= 0 && cols >= 0,
          "x: negative shape (" + std::to_string(rows) + ", " + std::to_string(cols) + ")");
  require(block > 0, "attribute 'block' = " + std::to_string(block) + " must be > 0");
  require(cols % block == 0, "input 'x': " + std::to_string(cols) + " columns are not a multiple of block = " +
                                 std::to_string(block));
  const std::int64_t count = rows * (cols / block);
  if (block <= 64)
    quant::launch_row_segments<4, 4, 4>(src, x, q, stored, false, r, BlockMap{block}, count, stream);
  else
    quant::launch_row_segments<32, 40>(src, x, q, stored, false, r, BlockMap{block}, count, stream);
}

void decode_codes(FormatId format, const void* codes, std::int64_t n, double* values, std::uint8_t* classes,
                  cudaStream_t stream) {
  require(n >= 0, "codes: negative length " + std::to_string(n));
  const Format& f = all_formats[std::size_t(format)];
  require(f.bits() <= 16, "decode: format '" + std::string(name(format)) + "' has no codes of at most 16 bits");
  if (n == 0) return;
  const std::int64_t pairs = (n + 1) / 2;
  const bool vec = quant::aligned(values, 16) && quant::aligned(classes, 2);
  if (f.bits() <= 8)
    decode_kernel<<<grid_for(pairs), kThreads, 0, stream>>>(format, static_cast<const std::uint8_t*>(codes), n, values,
                                                            classes, vec);
  else
    decode_kernel<<<grid_for(pairs), kThreads, 0, stream>>>(format, static_cast<const std::uint16_t*>(codes), n,
                                                            values, classes, vec);
  check_launch();
}

}  // namespace octet::cuda
