// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// adapter_util.hpp — what the CUDA adapters (adapters_*.cpp) share: the emulator adapters' recipe
// rule for FP8 kernels, uploading golden inputs to the device, poisoned output buffers (0xA5, so
// a byte a kernel fails to write shows as a mismatch), downloading a strided buffer into the
// logical row-major tensors the golden runner compares, and the builders of production-shape
// cases (16640x5120 bf16 activations, group ends, 3D expert weights).
#pragma once

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

// cuda_runtime.h (not only _api.h): device_buffer.hpp calls the typed cudaMalloc(T**) overload.
#include <cuda_runtime.h>

#include "cuda_adapters.hpp"
#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "octet/format.hpp"
#include "octet/golden/adapter_io.hpp"
#include "octet/golden/inputs.hpp"
#include "octet/golden/tensor_io.hpp"
#include "octet/tensor.hpp"

namespace octet::cuda::adapter_util {

using golden::flag_param;
using golden::format_param;
using golden::fp8_recipe;
using golden::to_expert_col_major;
using golden::KernelCall;
using golden::KernelInputError;
using golden::Tensor;
using golden::Tensors;
using Shape = std::vector<std::int64_t>;

inline constexpr std::uint8_t kPoison = 0xA5;

// ---- recipes (the emulator adapters' rules and messages: golden/adapter_io.hpp) -------------------

inline std::string scale_name(const Recipe& r) { return storage(r) == ScaleStorage::EncodeFp32 ? "scale" : "scale_inv"; }

// ---- device inputs and outputs --------------------------------------------------------------------

struct DeviceInput {
  SourceType src = SourceType::bf16;
  DeviceBuffer<std::uint8_t> bytes;
  std::int64_t rows = 0, cols = 0;
};

inline DeviceInput upload(const golden::FloatInput& in) {
  DeviceInput d;
  d.rows = in.dim(0);
  d.cols = in.dim(1);
  std::vector<std::uint8_t> raw;
  if (in.type == InputType::bf16) {
    d.src = SourceType::bf16;
    raw.resize(in.bf16.size() * 2);
    if (!raw.empty()) std::memcpy(raw.data(), in.bf16.data(), raw.size());
  } else {
    d.src = SourceType::fp32;
    raw.resize(in.f32.size() * 4);
    if (!raw.empty()) std::memcpy(raw.data(), in.f32.data(), raw.size());
  }
  d.bytes = DeviceBuffer<std::uint8_t>(raw);
  return d;
}

template <class T>
DeviceBuffer<T> poisoned(std::int64_t n) {
  DeviceBuffer<T> b{std::size_t(n)};
  b.fill_bytes(kPoison);
  return b;
}

// The elements of a buffer laid out with `strides`, in logical row-major order of `shape`.
template <class T>
std::vector<T> logical(const std::vector<T>& buffer, const Shape& shape, const Shape& strides) {
  std::int64_t n = 1;
  for (const std::int64_t d : shape) n *= d;
  std::vector<T> out;
  out.reserve(std::size_t(n));
  Shape index(shape.size(), 0);
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t offset = 0;
    for (std::size_t d = 0; d < shape.size(); ++d) offset += index[d] * strides[d];
    out.push_back(buffer.at(std::size_t(offset)));
    for (std::size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

inline Tensor codes_tensor(const Recipe& r, const DeviceBuffer<std::uint8_t>& q, Shape shape, Shape strides,
                    std::string layout) {
  std::vector<std::uint8_t> values = logical(q.download(), shape, strides);
  return golden::make_tensor(dtype_name(element_format(r)), std::move(shape), values, std::move(layout),
                             std::move(strides));
}

inline Tensor fp32_scale_tensor(const DeviceBuffer<std::uint32_t>& s, Shape shape, Shape strides, std::string layout) {
  std::vector<float> values;
  for (const std::uint32_t bits : logical(s.download(), shape, strides)) values.push_back(std::bit_cast<float>(bits));
  return golden::make_tensor("float32", std::move(shape), values, std::move(layout), std::move(strides));
}

// "row_major" / "col_major" from a 2D layout, as golden/src/adapters/mx.cpp names it.
inline std::string layout_2d(std::int64_t rows, std::int64_t cols, std::int64_t row_stride, std::int64_t col_stride) {
  if (col_stride == 1 && (row_stride == cols || rows <= 1)) return "row_major";
  if (row_stride == 1 && (col_stride == rows || cols <= 1)) return "col_major";
  return "strided";
}

inline Tensor e8m0_tensor(std::string_view dtype, const DeviceBuffer<std::uint8_t>& b, std::int64_t rows, std::int64_t cols,
                   std::int64_t row_stride, std::int64_t col_stride) {
  const Shape shape{rows, cols}, strides{row_stride, col_stride};
  return golden::make_tensor(dtype, shape, logical(b.download(), shape, strides),
                             layout_2d(rows, cols, row_stride, col_stride), strides);
}

inline void synchronize() { OCTET_CUDA_CHECK(cudaDeviceSynchronize()); }

// The weights `w` (E, K, N), uploaded per-expert column-major or row-major.
inline DeviceInput upload_experts(const golden::FloatInput& w, bool expert_col_major) {
  golden::FloatInput stored = w;
  const std::int64_t E = w.dim(0), K = w.dim(1), N = w.dim(2);
  if (expert_col_major) {
    if (w.type == InputType::bf16) stored.bf16 = to_expert_col_major(w.bf16, E, K, N);
    else stored.f32 = to_expert_col_major(w.f32, E, K, N);
  }
  stored.shape = {E * K, N};
  return upload(stored);
}

// ---- production-shape cases ---------------------------------------------------------------------

inline constexpr std::int64_t kTokens = 16640, kHidden = 5120;

// G inclusive group ends over `extent`, random sizes in multiples of `align` (16 unless given;
// empty groups possible), the last at `extent`.
inline std::vector<std::int64_t> group_ends(std::int64_t extent, std::int64_t G, std::uint64_t seed,
                                            std::int64_t align = 16) {
  std::vector<std::int64_t> ends;
  for (std::int64_t g = 0; g + 1 < G; ++g)
    ends.push_back(golden::uniform_int(seed, std::uint64_t(g), extent / align + 1) * align);
  std::sort(ends.begin(), ends.end());
  ends.push_back(extent);
  return ends;
}

// G inclusive group ends over `total`, each a multiple of `align`: group g's size in proportion to a
// random weight 1..1000 (the last end is (total / align) * align), group 1 empty for G >= 16.
// The layout kernels' cases and benchmark (MoE token counts per expert).
inline std::vector<std::int64_t> weighted_group_ends(std::int64_t total, std::int64_t groups, std::uint64_t seed,
                                                     std::int64_t align = 1) {
  std::vector<std::int64_t> w(static_cast<std::size_t>(groups));
  std::int64_t sum = 0;
  for (std::int64_t g = 0; g < groups; ++g) sum += w[static_cast<std::size_t>(g)] = 1 + golden::uniform_int(seed, std::uint64_t(g), 1000);
  if (groups >= 16) sum -= w[1], w[1] = 0;
  std::vector<std::int64_t> ends(static_cast<std::size_t>(groups));
  std::int64_t cum = 0;
  for (std::int64_t g = 0; g < groups; ++g) {
    cum += w[static_cast<std::size_t>(g)];
    ends[static_cast<std::size_t>(g)] = (total / align) * cum / sum * align;
  }
  return ends;
}

// One production-shape case: bf16 input `x` of `shape` (and `offs` when G > 0).
inline golden::CaseSpec large_case(const std::string& name, std::string_view kernel, Shape shape, golden::Distribution dist,
                            std::int64_t G, std::int64_t grouped_extent, std::int64_t group_align = 16) {
  const std::uint64_t seed = 2026;
  const golden::InputSpec spec{dist, seed};
  golden::CaseSpec c;
  c.name = name;
  c.call.kernel = std::string(kernel);
  c.call.attrs.strings["distribution"] = golden::describe(spec);
  c.call.attrs.strings["dtype"] = "bfloat16";
  c.call.attrs.ints["seed"] = std::int64_t(seed);
  c.call.attrs.int_arrays["shape"] = shape;
  c.call.inputs.emplace("x", golden::generate_tensor(spec, shape, "bfloat16"));
  if (G > 0) {
    const std::vector<std::int64_t> ends = group_ends(grouped_extent, G, seed + std::uint64_t(G), group_align);
    c.call.inputs.emplace("offs", golden::make_tensor("int64", ends));
  }
  return c;
}

// A 3D weight case: bf16 `input` (E, R, C), normal; `block` for mx_quantize_3d.
inline LargeCase weights_case(std::string_view kernel, std::string input, Shape shape, std::string block) {
  std::string name = std::string(kernel) + "_" + std::to_string(shape[0]) + "x" + std::to_string(shape[1]) + "x" +
                     std::to_string(shape[2]) + (block.empty() ? "" : "_" + block);
  return {name, [=] {
            golden::CaseSpec c = large_case(name, kernel, {shape[0] * shape[1], shape[2]}, golden::Distribution::normal,
                                            0, 0);
            golden::Tensor x = c.call.inputs.at("x");
            x.shape = shape;
            if (!x.strides.empty()) x.strides = {shape[1] * shape[2], shape[2], 1};
            c.call.inputs.clear();
            c.call.inputs.emplace(input, std::move(x));
            c.call.attrs.int_arrays["shape"] = shape;
            if (!block.empty()) c.call.attrs.strings["block"] = block;
            return c;
          }};
}

}  // namespace octet::cuda::adapter_util
