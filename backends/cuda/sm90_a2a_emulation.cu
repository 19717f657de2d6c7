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
// Exchange, quantised payloads: a thread quantises 8-element chunks of received rows n, reading
// send row gather[n] directly (rows are independent, so quantise-then-exchange equals this
// gather-then-quantise, as the emulator notes); kItems chunks per thread and step, their gather
// entries loaded first, then all their 16-byte row loads (64 bytes of bf16 in flight per thread).
// The block key is combined over B/8 lanes (sm90_row_chunks_device.cuh: integer amax, the
// recipe's scale_core scale once per chunk, the PTX cvt where exact), then each code is
// dequantised as the emulator does: dequantize_element under scale_from_stored of the stored
// scale, rounded once to the input dtype (bf16 RNE, IEEE overflow, NaN -> 0x7FC0; fp32 RNE,
// NaN -> 0x7FC00000). e4m3fn / e5m2 codes do it in fp32 (dequantize_cvt, proved equal below),
// decoding two codes per cvt.rn.f16x2.{e4m3x2,e5m2x2} (exact: every such value is an fp16);
// a chunk with a code outside the fast path's range takes the emulator's binary64 path.
// Passthrough: the row gather of sm90_token_pad_permute.cu.
// Combine: fused_unpermute_unpad's kernel (sm90_token_pad_permute.cu; every CombineSpec order and
// arithmetic, NaN written as the quiet NaN) on the rows exchanged back (quantised payloads), or
// for passthrough straight on y's rows (the returned rows are bit copies of them) through the
// reversed plan composed into a (T, K) row map by one small kernel.
// Bytes moved (exchange): N·H·in read, N·H·(in + 1) + scales written; combine: T·K·H·in read,
// T·H·in written.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "octet/cast.hpp"
#include "octet/scale_core.hpp"
#include "sm90_a2a_emulation.hpp"
#include "sm90_layout_device.hpp"
#include "sm90_row_chunks_device.cuh"
#include "sm90_token_pad_permute.hpp"

namespace octet::cuda {
namespace {

using layout_detail::blocks_for;
using layout_detail::check_launch;
using layout_detail::StreamScratch;
using row_chunks::Chunk;
using row_chunks::ChunkCursor;
using row_chunks::ElementCast;
using row_chunks::kChunk;

constexpr int kThreads = 512;

// ----------------------------------------------------------------------------
// GPU kernels: the exchange

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

// The emulator's dequantisation of 8 codes, in binary64 (the generic path, and the fast path's
// out-of-range chunks): round(decode(code) · decode_multiplier), packed as stored.
template <class In>
__device__ __noinline__ Chunk dequantize_exact(FormatId element, float decode_multiplier, uint2 codes) {
  const Format& f = format_of(element);
  Chunk out;
#pragma unroll
  for (int e = 0; e < kChunk; ++e) {
    const In v = round_dequantized(decode(f, row_chunks::code_byte(codes, e)) * double(decode_multiplier), In{});
    if constexpr (std::is_same_v<In, float>) out.v[e] = __float_as_uint(v);
    else out.v[e] = std::uint32_t(v) << 16;
  }
  return out;
}

// dequantize_exact, stored (out of line: the fast path's caller keeps its registers).
template <class In>
__device__ __noinline__ void dequantize_exact_store(FormatId element, float decode_multiplier, uint2 codes, In* y) {
  row_chunks::store_chunk(y, dequantize_exact<In>(element, decode_multiplier, codes));
}

// Whether the fast paths below hold for all 8 codes: none is NaN or Inf (e4m3fn: |code| = 0x7F;
// e5m2: |code| >= 0x7C; tested on the four bytes of a word at once, the bias carrying into bit 7
// of exactly those bytes), and the decode multiplier d keeps every finite nonzero product a·d in
// [2^-100, 2^126]: |a| lies in [2^-9, 2^9) for e4m3fn and [2^-16, 2^16) for e5m2 (smallest
// subnormal, above the largest finite value). Checked once per chunk, not per element.
template <ElementCast kCast>
__device__ __forceinline__ bool products_in_range(float decode_multiplier, uint2 codes) {
  constexpr bool kE4m3 = kCast == ElementCast::cvt_e4m3;
  constexpr std::uint32_t kSpecialBias = kE4m3 ? 0x01010101u : 0x04040404u;
  constexpr float kMinDecode = kE4m3 ? 0x1p-91f : 0x1p-84f, kMaxDecode = kE4m3 ? 0x1p117f : 0x1p110f;
  const std::uint32_t special =
      (((codes.x & 0x7F7F7F7Fu) + kSpecialBias) | ((codes.y & 0x7F7F7F7Fu) + kSpecialBias)) & 0x80808080u;
  const float d = fabsf(decode_multiplier);
  return special == 0 && d >= kMinDecode && d <= kMaxDecode;  // false for a NaN or infinite d
}

// The same dequantisation for e4m3fn / e5m2 codes without binary64 arithmetic, for chunks that
// pass products_in_range. a = the code's value (exact: at most 4 significant bits), P = a·decode
// is exact in binary64 (<= 4 + 24 bits) and the emulator rounds it once.
// fp32: fl32(P) = __fmul_rn(a, decode) for every a and decode (one rounding of the exact product,
// subnormals kept); NaN -> 0x7FC00000.
// bf16, decode a power of two: P is exact in fp32 (normal range) and has at most 4 significant
// bits, so it is a bf16 value: the upper half of fl32(P) (its lower half is zero).
// bf16, any other decode: P rounded to odd in fp32, then RNE to bf16. hi = P rounded towards zero
// (__fmul_rz) is normal and far from under/overflow (2^-100 <= |hi| <= 2^126); P has at most 28
// significant bits, all above 2^-129, so lo = P - hi (same sign as P, or 0) is exact through one
// fma, and hi with its last bit set when lo != 0 is P rounded to odd. fp32 carries 24 >= 2·8 + 2
// bits, so its RNE rounding to bf16 equals the RNE rounding of P (Boldo & Melquiond,
// round-to-odd). a = 0 gives P = ±0 = hi, lo = 0: the same formula.
// Out: the bf16 words as stored (element 2k in the low half of word k).
// The checks were once per element (|hi| in range or a = 0), the round-to-odd step went from a
// round-to-nearest product, and the words were widened to fp32 bits and packed again for the
// store: the exchange was bound by the integer pipe (ncu, H100, DeepEP 1x128 payload: ALU 83%
// busy, 43 thread instructions per element, DRAM 57%).
template <ElementCast kCast>
__device__ __forceinline__ bool dequantize_cvt(float decode_multiplier, uint2 codes, uint4& out) {
  if (!products_in_range<kCast>(decode_multiplier, codes)) return false;
  const std::uint32_t words[2] = {codes.x, codes.y};
  std::uint32_t packed[4];
  if ((__float_as_uint(decode_multiplier) & 0x007FFFFFu) == 0) {  // a power of two (d is normal)
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const float2 a = rowwise::decode_pair<kCast>(std::uint16_t(words[k / 2] >> (16 * (k % 2))));
      packed[k] = __float_as_uint(__fmul_rn(a.x, decode_multiplier)) >> 16 |
                  __float_as_uint(__fmul_rn(a.y, decode_multiplier));
    }
  } else {
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const float2 a = rowwise::decode_pair<kCast>(std::uint16_t(words[k / 2] >> (16 * (k % 2))));
      const float av[2] = {a.x, a.y};
      float odd[2];
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        const float hi = __fmul_rz(av[i], decode_multiplier), lo = __fmaf_rn(av[i], decode_multiplier, -hi);
        odd[i] = __uint_as_float(__float_as_uint(hi) | (lo != 0.0f ? 1u : 0u));
      }
      const __nv_bfloat162 pair = __floats2bfloat162_rn(odd[0], odd[1]);
      std::memcpy(&packed[k], &pair, 4);
    }
  }
  out = make_uint4(packed[0], packed[1], packed[2], packed[3]);
  return true;
}
template <ElementCast kCast>
__device__ __forceinline__ bool dequantize_cvt(float decode_multiplier, uint2 codes, Chunk& out) {  // fp32
  const std::uint32_t words[2] = {codes.x, codes.y};
#pragma unroll
  for (int e = 0; e < kChunk; e += 2) {
    const float2 a = rowwise::decode_pair<kCast>(std::uint16_t(words[e / 4] >> (8 * (e % 4))));
    const float v0 = __fmul_rn(a.x, decode_multiplier), v1 = __fmul_rn(a.y, decode_multiplier);
    out.v[e] = v0 != v0 ? 0x7FC00000u : __float_as_uint(v0);
    out.v[e + 1] = v1 != v1 ? 0x7FC00000u : __float_as_uint(v1);
  }
  return true;
}

// scale_core::scale_from_stored(r, stored).decode, without computing the encode multiplier (a
// division) where the stored scale is the decode multiplier itself or its e8m0 exponent.
template <class R>
__device__ __forceinline__ float decode_of_stored(const R& r, std::uint32_t stored) {
  switch (r.storage) {
    case ScaleStorage::DecodeFp32: return scale_core::canonical(scale_core::f32(stored));
    case ScaleStorage::E8m0: return scale_core::e8m0_decode(stored);
    default: return scale_core::scale_from_stored(r, stored).decode;
  }
}

struct ExchangeParams {
  const void* x = nullptr;  // (rows of the send layout, H) In
  std::int64_t rows = 0, h = 0;
  const std::int64_t* gather = nullptr;  // (N,)
  std::uint32_t nan_code = 0;            // row_chunks::nan_code_of(recipe)
  void* y = nullptr;                     // (N, H) In
  std::uint8_t* q = nullptr;             // (N, H)
  void* scales = nullptr;                // (N, H/B)
};

// Chunks per thread and step: all gather entries, then all 16-byte row loads, first. One: the
// kernel is capped at 64 registers (two 512-thread CTAs per SM), and more chunks in flight spill
// (H100, % of copy, mxfp8 / fp8_blockwise payloads, two runs each: 1 chunk 90.3-90.4 / 88.1-88.2,
// 2 chunks 88.9-89.1 / 85.8, 3 chunks 81.5-81.6 / 76.7-77.0, 4 chunks 71.1 / 69.1-69.7). With two,
// the e8m0 kernel had needed a power-of-two-only dequantisation (without the round-to-odd branch)
// to reach 88-89%; with one, both forms measured 90.1-90.2%.
constexpr int kExchangeItems = 1;

template <class In, int B, ElementCast kCast, class R>
__global__ void __launch_bounds__(kThreads, 2) exchange_kernel(const ExchangeParams p, const R rec) {
  const In* x = static_cast<const In*>(p.x);
  In* y = static_cast<In*>(p.y);
  const std::int64_t h = p.h, per_row = h / kChunk, total = p.rows * per_row, blocks_per_row = h / B;
  const std::uint32_t nan_key = row_chunks::nan_key_of(rec);
  const std::int64_t step = std::int64_t(gridDim.x) * kThreads;
  const std::int64_t step_rows = step / per_row, step_chunks = step % per_row;
  std::int64_t first = std::int64_t(blockIdx.x) * kThreads + threadIdx.x;
  ChunkCursor cur{first / per_row, first % per_row};
  // Every lane of a warp runs the same steps (the shuffles need the whole warp); lanes past the end
  // (whole quantisation blocks) read row gather[0] and store nothing.
  const std::int64_t lane = threadIdx.x % 32;
  for (; first - lane < total; first += kExchangeItems * step) {
    ChunkCursor at[kExchangeItems];
    std::int64_t src[kExchangeItems];
#pragma unroll
    for (int k = 0; k < kExchangeItems; ++k) {
      at[k] = cur;
      cur.advance(step_rows, step_chunks, per_row);
      src[k] = __ldg(p.gather + (at[k].row < p.rows ? at[k].row : 0));
    }
    row_chunks::RawChunk<In> raw[kExchangeItems];
#pragma unroll
    for (int k = 0; k < kExchangeItems; ++k)
      raw[k].load(x + src[k] * h + (at[k].row < p.rows ? at[k].chunk * kChunk : 0));
#pragma unroll
    for (int k = 0; k < kExchangeItems; ++k) {
      std::uint32_t key = 0;
      bool any_nan = true;  // not known for fp32 chunks
      if constexpr (std::is_same_v<In, std::uint16_t>) key = row_chunks::chunk_key(raw[k], nan_key, any_nan);
      else key = row_chunks::chunk_key(raw[k].chunk(), nan_key);
      key = row_chunks::group_max<B / kChunk>(key);
      if (at[k].row >= p.rows) continue;
      const Chunk c = raw[k].chunk();
      const std::int64_t n = at[k].row, j = at[k].chunk * kChunk;
      const BlockScale s = row_chunks::scale_of_key(rec, key);
      const uint2 codes = row_chunks::quantize_chunk<kCast>(rec, s, c, p.nan_code, !any_nan);
      *reinterpret_cast<uint2*>(p.q + n * h + j) = codes;
      if (threadIdx.x % (B / kChunk) == 0) row_chunks::store_scale<B>(p.scales, n * blocks_per_row + j / B, s.stored);
      const float decode_multiplier = decode_of_stored(rec, s.stored);
      if constexpr (std::is_same_v<In, std::uint16_t> && kCast != ElementCast::generic) {
        uint4 words;
        if (dequantize_cvt<kCast>(decode_multiplier, codes, words)) *reinterpret_cast<uint4*>(y + n * h + j) = words;
        else dequantize_exact_store(rec.element, decode_multiplier, codes, y + n * h + j);
      } else {
        Chunk out;
        bool fast = false;
        if constexpr (kCast != ElementCast::generic) fast = dequantize_cvt<kCast>(decode_multiplier, codes, out);
        if (!fast) out = dequantize_exact<In>(rec.element, decode_multiplier, codes);
        row_chunks::store_chunk(y + n * h + j, out);
      }
    }
  }
}

// ----------------------------------------------------------------------------
// GPU kernels: the combine

// rows_t_k[i] <- reverse_gather[route_rows[i]] (-1 stays -1).
__global__ void compose_kernel(const std::int64_t* route_rows, std::int64_t n, const std::int64_t* reverse_gather,
                               std::int64_t* out) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const std::int64_t r = __ldg(route_rows + i);
  out[i] = r < 0 ? -1 : __ldg(reverse_gather + r);
}

// ----------------------------------------------------------------------------
// kernel launchers

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
                     const Recipe& recipe, In* y, std::uint8_t* q, void* scales, cudaStream_t stream) {
  const std::int64_t chunks = rows * (h / kChunk);
  if (chunks == 0) return;
  const RecipeCore core = make_core(recipe);
  ExchangeParams p;
  p.x = x, p.rows = rows, p.h = h, p.gather = gather, p.nan_code = row_chunks::nan_code_of(core);
  p.y = y, p.q = q, p.scales = scales;
  auto run = [&](auto kernel, const auto& rec) {
    const unsigned blocks =
        row_chunks::persistent_grid(kernel, kThreads, 0, chunks, std::int64_t(kThreads) * kExchangeItems);
    kernel<<<blocks, kThreads, 0, stream>>>(p, rec);
    check_launch();
  };
  // Compile-time scale rules for the payloads' default recipes (torchao_mx_rceil, deepep) with the
  // e4m3 cvt; every other recipe with its runtime RecipeCore.
  using row_chunks::DeepEpCore;
  using row_chunks::TorchaoMxRceilCore;
  const ElementCast cast = rowwise::element_cast_of(recipe);
  if (payload == A2aPayload::mxfp8) {
    if (cast == ElementCast::cvt_e4m3 && TorchaoMxRceilCore::matches(core))
      run(exchange_kernel<In, 32, ElementCast::cvt_e4m3, TorchaoMxRceilCore>, TorchaoMxRceilCore::of(core));
    else if (cast == ElementCast::cvt_e4m3) run(exchange_kernel<In, 32, ElementCast::cvt_e4m3, RecipeCore>, core);
    else if (cast == ElementCast::cvt_e5m2) run(exchange_kernel<In, 32, ElementCast::cvt_e5m2, RecipeCore>, core);
    else run(exchange_kernel<In, 32, ElementCast::generic, RecipeCore>, core);
  } else {
    if (cast == ElementCast::cvt_e4m3 && DeepEpCore::matches(core))
      run(exchange_kernel<In, 128, ElementCast::cvt_e4m3, DeepEpCore>, DeepEpCore::of(core));
    else if (cast == ElementCast::cvt_e4m3) run(exchange_kernel<In, 128, ElementCast::cvt_e4m3, RecipeCore>, core);
    else if (cast == ElementCast::cvt_e5m2) run(exchange_kernel<In, 128, ElementCast::cvt_e5m2, RecipeCore>, core);
    else run(exchange_kernel<In, 128, ElementCast::generic, RecipeCore>, core);
  }
}

// The combine's sum over route rows of `rows` (through `reverse` when given: composed into a
// (T, K) row map first) by fused_unpermute_unpad's kernel, with the a2a combine's quiet NaN.
void combine_rows(InputType type, const void* rows, std::int64_t n, std::int64_t h, const std::int64_t* reverse,
                  const std::int64_t* route_rows, std::int64_t tokens, std::int64_t topk, const float* weights,
                  CombineSpec spec, void* out, cudaStream_t stream) {
  const std::int64_t in_bytes = type == InputType::bf16 ? 2 : 4;
  if (reverse == nullptr) {
    fused_unpermute_unpad({rows, n, h, in_bytes}, type, route_rows, tokens, topk, weights, spec, out, stream, true);
    return;
  }
  StreamScratch<std::int64_t> rows_t_k(static_cast<std::size_t>(tokens * topk), stream);
  if (tokens * topk > 0) {
    compose_kernel<<<blocks_for(tokens * topk, kThreads), kThreads, 0, stream>>>(route_rows, tokens * topk, reverse,
                                                                               rows_t_k.get());
    check_launch();
  }
  fused_unpermute_unpad({rows, n, h, in_bytes}, type, rows_t_k.get(), tokens, topk, weights, spec, out, stream, true);
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
  if (type == InputType::bf16)
    launch_exchange(static_cast<const std::uint16_t*>(x_n_h), rows, h, gather, payload, recipe,
                    static_cast<std::uint16_t*>(y), q, scales, stream);
  else
    launch_exchange(static_cast<const float*>(x_n_h), rows, h, gather, payload, recipe, static_cast<float*>(y), q,
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
    combine_rows(type, y_n_h, rows, h, reverse_gather, route_rows, tokens, topk, weights, spec, out, stream);
    return;
  }
  const std::int64_t block = payload_block(payload), scale_bytes = block == 32 ? 1 : 4;
  StreamScratch<std::uint8_t> back(static_cast<std::size_t>(rows * h * in_bytes), stream),
      codes(static_cast<std::size_t>(rows * h), stream),
      scales(static_cast<std::size_t>(rows * (h / block) * scale_bytes), stream);
  a2a_exchange(type, y_n_h, rows, h, reverse_gather, payload, recipe, back.get(), codes.get(), scales.get(), stream);
  combine_rows(type, back.get(), rows, h, nullptr, route_rows, tokens, topk, weights, spec, out, stream);
}

}  // namespace octet::cuda
