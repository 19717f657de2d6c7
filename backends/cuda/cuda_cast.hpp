// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// cuda_cast.hpp — host API of the CUDA cast kernels (sm90_cast.cu): octet::cast (cast.hpp) on
// device pointers, with a choice of kernel variant.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include <cuda_runtime_api.h>

#include "octet/cast.hpp"

namespace octet::cuda {

enum class CastVariant : std::uint8_t {
  automatic = 0,     // hardware_cvt where it applies and the device has it, else generic
  generic = 1,       // one thread per element running octet::encode_bits: any source, target, spec
  hardware_cvt = 2,  // PTX cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 / .f16x2, 16 codes per thread
};
std::string_view name(CastVariant v);  // "auto", "1", "2"

// Why variant 2 cannot reproduce octet::cast for this source, target and spec; nullopt when it
// can. It needs an fp32, bf16 or fp16 source, an e4m3fn or e5m2 target, Rounding::NearestEven,
// Overflow::SatFinite and Subnormals::Keep (either NanPolicy), and at launch a device of compute
// capability 8.9 or higher.
std::optional<std::string_view> hardware_cvt_unsupported(SourceType src, const Format& dst,
                                                         const CastSpec& spec);

// octet::cast on device pointers: `in` holds n values of `src`, `out` receives n codes (one byte
// each for targets of at most 8 bits, two for bf16/fp16), `rbits` n words of device memory for
// Rounding::Stochastic (ignored otherwise). `dst` must be one of octet's descriptors
// (format_of(id)). Asynchronous on `stream`. Argument errors throw std::invalid_argument before
// anything is launched; CUDA errors throw octet::cuda::Error.
void cast(SourceType src, const void* in, std::size_t n, const Format& dst, const CastSpec& spec,
          void* out, const std::uint32_t* rbits = nullptr,
          CastVariant variant = CastVariant::automatic, cudaStream_t stream = nullptr);

// Variant 2 without its NaN step: a NaN input gets whatever code the cvt instruction gives. For
// the test that records the hardware's NaN codes; every other input gets variant 2's code.
// dst: e4m3fn or e5m2; src: fp32, bf16 or fp16.
void cast_cvt_raw(SourceType src, const void* in, std::size_t n, const Format& dst, void* out,
                  cudaStream_t stream = nullptr);

}  // namespace octet::cuda
