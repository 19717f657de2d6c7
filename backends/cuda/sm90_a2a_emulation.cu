// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// sm90_a2a_emulation.cu — expert-parallel all-to-all dispatch / combine emulated on one GPU:
// quantise, exchange rows along the plan, dequantise; the combine's weighted fp32 reduction.
// Reference: octet::a2a_exchange / a2a_combine (emulator/src/kernels/a2a_emulation.cpp);
//            reference/kernels.md §7, §10.
// Peers:     torchao moe_training/kernels/mxfp8/comms.py::to_mxfp8_a2a_dequant (mxfp8 payload,
//            1x32 e8m0), DeepEP csrc/kernels/legacy/internode_ll.cu low-latency FP8 dispatch
//            (fp8_blockwise payload, 1x128 fp32 scale_inv) and BF16 combine, torch
//            all_to_all_single (the plan).
//
// Exchange, quantised payloads: one thread per 8 elements of a received row n, reading send row
// gather[n] directly (rows are independent, so quantise-then-exchange equals this gather-then-
// quantise, as the emulator notes); block amax over B/8 lanes, scale, codes (scale_core.hpp), then
// each code dequantised as the emulator does: dequantize_element under scale_from_stored of the
// stored scale, rounded once to the input dtype (bf16 RNE, IEEE overflow, NaN -> 0x7FC0; fp32 RNE,
// NaN -> 0x7FC00000); e4m3fn codes do it in fp32 (dequantize_e4m3, proved equal below). Passthrough: the row gather of sm90_token_pad_permute.cu.
// Combine: passthrough composes the reversed plan's gather into the route rows (the returned rows
// are bit copies) and sums straight from y; the quantised payloads exchange back into a scratch
// buffer first. The sum is fused_unpermute_unpad's kernel with NaN written as the quiet NaN.
// Bytes moved (exchange): N·H·in read, N·H·(in + 1) + scales written.
#include <cuda_bf16.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "octet/cast.hpp"
#include "octet/scale_core.hpp"
#include "sm90_a2a_emulation.hpp"
#include "sm90_layout_device.hpp"
#include "sm90_rowwise_blocks_device.hpp"
#include "sm90_token_pad_permute.hpp"

namespace octet::cuda {
namespace {

using layout_detail::blocks_for;
using layout_detail::check_launch;
using layout_detail::kThreads;
using layout_detail::StreamScratch;
using rowwise::Elem;
using rowwise::kPerThread;

// ----------------------------------------------------------------------------
// GPU kernels

// The dequantised value rounded to the input dtype (a2a_emulation.cpp round_dequantized,
// mx_quantize.cpp round_to_bf16 / round_to_fp32).
__device__ inline std::uint16_t round_dequantized(double v, std::uint16_t) {
  constexpr Format f = bf16_format;
  constexpr CastSpec spec{.rounding = Rounding::NearestEven, .overflow = Overflow::Ieee, .nan = NanPolicy::Canonical};
  return std::uint16_t(encode(f, spec, v));
}
__device__ inline float round_dequantized(double v, float) {
  return scale_core::is_nan(v) ? __uint_as_float(0x7FC00000u) : float(v);
}

// The same rounding for e4m3fn codes without binary64 arithmetic (the cvt_e4m3 path).
// P = code·decode is exact in binary64 (4 + 24 significant bits); the emulator rounds it once.
// fp32: hi = fl32(P) is that rounding (__fmul_rn rounds the exact product once, subnormals kept).
// bf16: where hi is normal and far from under/overflow (2^-100 <= |hi| <= 2^126), lo = P - hi is
// exact through one fma (|decode| >= 2^-109, so every bit of P lies above 2^-149), and hi with its
// last bit forced to 1 when lo != 0 (after a step towards zero when lo points inwards) is P rounded
// to odd in fp32; fp32 carries 24 >= 2·8 + 2 bits, so its RNE rounding to bf16 equals the RNE
// rounding of P (Boldo & Melquiond, round-to-odd). Zero, tiny, huge, infinite and NaN products take
// the emulator's binary64 path above.
__device__ inline std::uint16_t dequantize_e4m3(const RecipeCore& rec, const BlockScale& back, std::uint8_t code,
                                                std::uint16_t) {
  const float a = scale_core::e4m3fn_value(code), hi = __fmul_rn(a, back.decode);
  const float mag = fabsf(hi);
  if (mag >= 0x1p-100f && mag <= 0x1p+126f) {
    const float lo = __fmaf_rn(a, back.decode, -hi);
    std::uint32_t b = __float_as_uint(hi);
    if (lo != 0.0f) {
      if ((__float_as_uint(lo) ^ b) >> 31) b -= 1;  // |P| < |hi|: truncate towards zero
      b |= 1u;
    }
    return __bfloat16_as_ushort(__float2bfloat16_rn(__uint_as_float(b)));
  }
  return round_dequantized(scale_core::dequantize_element(rec, back, code), std::uint16_t{});
}
__device__ inline float dequantize_e4m3(const RecipeCore&, const BlockScale& back, std::uint8_t code, float) {
  const float v = __fmul_rn(scale_core::e4m3fn_value(code), back.decode);
  return scale_core::is_nan(v) ? __uint_as_float(0x7FC00000u) : v;
}

template <class In, int B, rowwise::ElementCast kCast>
__global__ void __launch_bounds__(kThreads)
    exchange_kernel(const In* __restrict__ x, std::int64_t rows, std::int64_t h, const std::int64_t* __restrict__ gather,
                    const RecipeCore rec, In* __restrict__ y, std::uint8_t* __restrict__ q, void* __restrict__ scales) {
  using E = Elem<In>;
  const std::int64_t chunks = h / kPerThread;
  std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x;
  const bool active = i < rows * chunks;  // inactive lanes: whole blocks, on row 0, no stores
  if (!active) i = 0;
  const std::int64_t n = i / chunks, j = (i % chunks) * kPerThread;
  float v[8];
  E::load8(x + __ldg(gather + n) * h + j, v);
  const BlockScale s = rowwise::block_scale8<B>(rec, v);
  if (!active) return;
  std::uint8_t c[8];
  rowwise::codes8<kCast>(rec, s, v, c);
  rowwise::store_codes8(q + n * h + j, c);
  rowwise::store_scale<B>(scales, n * (h / B) + j / B, s);
  const BlockScale back = scale_core::scale_from_stored(rec, s.stored);
  In out[8];
#pragma unroll
  for (int e = 0; e < kPerThread; ++e) {
    if constexpr (kCast == rowwise::ElementCast::cvt_e4m3) out[e] = dequantize_e4m3(rec, back, c[e], In{});
    else out[e] = round_dequantized(scale_core::dequantize_element(rec, back, c[e]), In{});
  }
  E::store8(y + n * h + j, out);
}

// rows_t_k[i] <- reverse_gather[route_rows[i]] (-1 stays -1).
__global__ void compose_kernel(const std::int64_t* route_rows, std::int64_t n, const std::int64_t* reverse_gather,
                               std::int64_t* out) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const std::int64_t r = __ldg(route_rows + i);
  out[i] = r < 0 ? -1 : __ldg(reverse_gather + r);
}

// ----------------------------------------------------------------------------
// kernel launcher

std::int64_t payload_block(A2aPayload p) {
  return p == A2aPayload::mxfp8 ? 32 : p == A2aPayload::fp8_blockwise ? 128 : 0;
}

void check_recipe(A2aPayload p, const Recipe& r, std::int64_t h, const char* kernel) {
  if (p == A2aPayload::passthrough) return;
  const std::string k = kernel;
  if (format_of(element_format(r)).bits() != 8)
    throw std::invalid_argument(k + ": recipe '" + std::string(name(r)) + "' does not have 8-bit elements");
  if (p == A2aPayload::mxfp8 && storage(r) != ScaleStorage::E8m0)
    throw std::invalid_argument(k + ": payload mxfp8 needs an e8m0 recipe; recipe '" + std::string(name(r)) + "'");
  if (p == A2aPayload::fp8_blockwise && storage(r) != ScaleStorage::DecodeFp32 && storage(r) != ScaleStorage::EncodeFp32)
    throw std::invalid_argument(k + ": payload fp8_blockwise needs an fp32-scale recipe; recipe '" +
                                std::string(name(r)) + "'");
  if (h % payload_block(p) != 0)
    throw std::invalid_argument(k + ": H = " + std::to_string(h) + " is not a multiple of the " +
                                std::string(name(p)) + " block size " + std::to_string(payload_block(p)));
}

template <class In>
void launch_exchange(const In* x, std::int64_t rows, std::int64_t h, const std::int64_t* gather, A2aPayload payload,
                     const RecipeCore& rec, rowwise::ElementCast cast, In* y, std::uint8_t* q, void* scales,
                     cudaStream_t stream) {
  const std::int64_t threads = rows * (h / kPerThread);
  if (threads == 0) return;
  const unsigned blocks = blocks_for(threads, kThreads);
  auto run = [&](auto kernel) {
    kernel<<<blocks, kThreads, 0, stream>>>(x, rows, h, gather, rec, y, q, scales);
    check_launch();
  };
  using rowwise::ElementCast;
  if (payload == A2aPayload::mxfp8) {
    if (cast == ElementCast::cvt_e4m3) run(exchange_kernel<In, 32, ElementCast::cvt_e4m3>);
    else if (cast == ElementCast::cvt_e5m2) run(exchange_kernel<In, 32, ElementCast::cvt_e5m2>);
    else run(exchange_kernel<In, 32, ElementCast::generic>);
  } else {
    if (cast == ElementCast::cvt_e4m3) run(exchange_kernel<In, 128, ElementCast::cvt_e4m3>);
    else if (cast == ElementCast::cvt_e5m2) run(exchange_kernel<In, 128, ElementCast::cvt_e5m2>);
    else run(exchange_kernel<In, 128, ElementCast::generic>);
  }
}

}  // namespace

void a2a_exchange(InputType type, const void* x_n_h, std::int64_t rows, std::int64_t h, const std::int64_t* gather,
                  A2aPayload payload, const Recipe& recipe, void* y, std::uint8_t* q, void* scales,
                  cudaStream_t stream) {
  if (rows < 0 || h < 0) throw std::invalid_argument("a2a_exchange: x_n_h has a negative shape");
  const std::int64_t in_bytes = type == InputType::bf16 ? 2 : 4;
  if (payload == A2aPayload::passthrough) {
    permute_tokens({x_n_h, rows, h, in_bytes}, {}, gather, rows, y, nullptr, stream);
    return;
  }
  check_recipe(payload, recipe, h, "a2a_exchange");
  const RecipeCore rec = make_core(recipe);
  const rowwise::ElementCast cast = rowwise::element_cast_of(recipe);
  if (type == InputType::bf16)
    launch_exchange(static_cast<const std::uint16_t*>(x_n_h), rows, h, gather, payload, rec, cast,
                    static_cast<std::uint16_t*>(y), q, scales, stream);
  else
    launch_exchange(static_cast<const float*>(x_n_h), rows, h, gather, payload, rec, cast, static_cast<float*>(y), q,
                    scales, stream);
}

void a2a_combine(InputType type, const void* y_n_h, std::int64_t rows, std::int64_t h,
                 const std::int64_t* reverse_gather, const std::int64_t* route_rows, std::int64_t tokens,
                 std::int64_t topk, const float* weights, A2aPayload payload, const Recipe& recipe, CombineSpec spec,
                 void* out, cudaStream_t stream) {
  if (rows < 0 || h < 0 || tokens < 0 || topk < 0) throw std::invalid_argument("a2a_combine: negative shape");
  const std::int64_t in_bytes = type == InputType::bf16 ? 2 : 4;
  check_recipe(payload, recipe, h, "a2a_combine");
  if (tokens == 0) return;
  if (payload == A2aPayload::passthrough) {
    StreamScratch<std::int64_t> rows_t_k(static_cast<std::size_t>(tokens * topk), stream);
    if (tokens * topk > 0) {
      compose_kernel<<<blocks_for(tokens * topk, kThreads), kThreads, 0, stream>>>(route_rows, tokens * topk,
                                                                                 reverse_gather, rows_t_k.get());
      check_launch();
    }
    fused_unpermute_unpad({y_n_h, rows, h, in_bytes}, type, rows_t_k.get(), tokens, topk, weights, spec, out, stream,
                          true);
    return;
  }
  const std::int64_t block = payload_block(payload), scale_bytes = block == 32 ? 1 : 4;
  StreamScratch<std::uint8_t> back(static_cast<std::size_t>(rows * h * in_bytes), stream),
      codes(static_cast<std::size_t>(rows * h), stream), scales(static_cast<std::size_t>(rows * (h / block) * scale_bytes), stream);
  a2a_exchange(type, y_n_h, rows, h, reverse_gather, payload, recipe, back.get(), codes.get(), scales.get(), stream);
  fused_unpermute_unpad({back.get(), rows, h, in_bytes}, type, route_rows, tokens, topk, weights, spec, out, stream,
                        true);
}

}  // namespace octet::cuda
