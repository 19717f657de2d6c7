// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// sm90_bf16_swiglu_fp8.cu — fused SwiGLU (forward and backward) + rowwise fp8 quantisation on the
// GPU: 1x32 e8m0 blocks (MX recipes) or 1x128 fp32-scale blocks.
// Reference: octet::swiglu_quantize_forward / swiglu_quantize_backward
//            (emulator/src/kernels/swiglu_quant.cpp); reference/kernels.md §9.
// Peer:      TransformerEngine common/cast/mxfp8/gated_mxfp8.cuh::quantize_gated_mxfp8_kernel
//            (nvte_swiglu / nvte_dswiglu into MXFP8), util/math.h::silu / dsilu.
//
// Every arithmetic step is the emulator's own function, compiled for the device: the elementwise
// values (swiglu_forward_value / swiglu_backward_values, whose steps are single fp32 operations
// that nvcc cannot contract), the sigmoid through octet's expf_octet (a binary64 evaluation made of
// single IEEE operations: the same bits on host and device), and the block quantisation of
// scale_core.hpp (amax_update, scale_from_amax, quantize_element with the recipe's CastSpec through
// octet::encode_bits). The rounding to the input dtype: cvt.rn.bf16.f32 for finite values (RNE,
// overflow to Inf, as octet's converter), octet::encode_bits for Inf/NaN (canonical NaN 0x7FFF);
// fp32 keeps the value, NaN -> 0x7FFFFFFF.
//
// The sigmoid of bf16 inputs comes from a 2^16-entry table indexed by the bits of a, filled on the
// device with the same swiglu_sigmoid (expf_octet) once per device: the bits are those of the
// per-element formula (the emulator memoises the same way), and the hot loop does no binary64
// arithmetic and no fp32 division. Its hot part (2^-16 <= |a| < 2^16, 32 KB) is copied into shared
// memory by each block, and the blocks are persistent (grid-stride, as many as are resident), so the
// copy is paid once per block; other values read the global table. fp32 inputs evaluate
// swiglu_sigmoid per element.
//
// Launch: one thread per 8 consecutive columns of a row (16-byte bf16 loads of a, g and grad;
// 8-byte code stores); a quantisation block is 4 (1x32) or 16 (1x128) neighbouring lanes, whose
// amax is combined with shuffles (amax_update is order-independent: a max, with the recipe's NaN
// rule); the first lane of a block writes its scale. 256 threads per block; the backward thread
// writes its 8 d_a and 8 d_g values (two blocks). Bytes moved: forward M·2H·in + M·H·(in + 1) +
// scales; backward M·3H·in + M·2H·(in + 1) + scales (in = 2 for bf16).
#include <cuda_bf16.h>

#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "octet/cast.hpp"
#include "octet/kernels/swiglu_quant.hpp"
#include "octet/scale_core.hpp"
#include "sm90_bf16_swiglu_fp8.hpp"
#include "sm90_layout_device.hpp"
#include "sm90_rowwise_blocks_device.hpp"

namespace octet::cuda {
namespace {

using layout_detail::blocks_for;
using layout_detail::check_launch;
using layout_detail::kThreads;

// ----------------------------------------------------------------------------
// GPU kernels

using rowwise::Elem;
using rowwise::kPerThread;

// The rounding of an elementwise result to the input dtype (swiglu_quant.cpp round_to_input):
// bf16 RNE with IEEE overflow, NaN -> 0x7FFF (kBf16Round); fp32 kept, NaN -> 0x7FFFFFFF.
__device__ inline std::uint16_t round_to_input(float v, std::uint16_t) {
  const std::uint32_t b = __float_as_uint(v);
  if ((b & 0x7F800000u) != 0x7F800000u) return __bfloat16_as_ushort(__float2bfloat16_rn(v));
  constexpr Format f = bf16_format;
  constexpr CastSpec spec{.rounding = Rounding::NearestEven, .overflow = Overflow::Ieee, .nan = NanPolicy::Canonical,
                          .ieee_nan = IeeeNanCode::AllOnes};
  return std::uint16_t(encode_bits<Fp32Source>(f, spec, b));
}
__device__ inline float round_to_input(float v, float) {
  return scale_core::is_nan(v) ? __uint_as_float(0x7FFFFFFFu) : v;
}

// s = swiglu_sigmoid(a) for every bf16 a, indexed by a's 16 bits (4 * 2^16 bytes).
constexpr int kBf16Values = 1 << 16;
__device__ float g_bf16_sigmoid[kBf16Values];

__global__ void __launch_bounds__(kThreads) fill_bf16_sigmoid_kernel() {
  const int i = int(blockIdx.x) * kThreads + int(threadIdx.x);
  g_bf16_sigmoid[i] = swiglu_sigmoid(__uint_as_float(std::uint32_t(i) << 16));
}

}  // namespace

// The table's device address, filled on first use per device (synchronously, once: later calls on
// any stream see a complete table).
const float* swiglu_bf16_sigmoid_table(cudaStream_t stream) {
  static std::mutex mutex;
  static std::vector<const float*> filled;  // per device ordinal, nullptr until filled
  int device = 0;
  OCTET_CUDA_CHECK(cudaGetDevice(&device));
  const std::lock_guard<std::mutex> lock(mutex);
  if (filled.size() <= std::size_t(device)) filled.resize(std::size_t(device) + 1, nullptr);
  if (filled[std::size_t(device)] == nullptr) {
    fill_bf16_sigmoid_kernel<<<kBf16Values / kThreads, kThreads, 0, stream>>>();
    check_launch();
    OCTET_CUDA_CHECK(cudaStreamSynchronize(stream));
    void* p = nullptr;
    OCTET_CUDA_CHECK(cudaGetSymbolAddress(&p, g_bf16_sigmoid));
    filled[std::size_t(device)] = static_cast<const float*>(p);
  }
  return filled[std::size_t(device)];
}

namespace {

// The hot part of the table in shared memory: bf16 values with biased exponent in
// [kHotExpLo, kHotExpLo + kHotExps), i.e. 2^-16 <= |a| < 2^16 (both signs): 8192 entries, 32 KB,
// copied once per (persistent) block. Other values read the global table (L1 / L2).
constexpr std::uint32_t kHotExpLo = 127 - 16, kHotExps = 32;
constexpr int kHotEntries = 2 * int(kHotExps) * 128;
constexpr std::size_t kHotBytes = kHotEntries * sizeof(float);

// Hot-table slot t <-> bf16 bits: sign (t >> 12), biased exponent kHotExpLo + ((t >> 7) & 31),
// mantissa t & 127.
__device__ inline std::uint32_t hot_bits(int t) {
  return std::uint32_t(t >> 12) << 15 | (kHotExpLo + ((std::uint32_t(t) >> 7) & 31u)) << 7 | (std::uint32_t(t) & 127u);
}

// The sigmoid of element a: from the tables for bf16 inputs (bf16_table set), else the formula.
__device__ inline float sigmoid_of(float a, const float* __restrict__ bf16_table, const float* hot) {
  if (bf16_table == nullptr) return swiglu_sigmoid(a);
  const std::uint32_t b = __float_as_uint(a) >> 16;
  const std::uint32_t e = ((b >> 7) & 0xFFu) - kHotExpLo;  // wraps for exponents below the range
  if (e < kHotExps) return hot[(b >> 15) << 12 | e << 7 | (b & 127u)];
  return __ldg(bf16_table + b);
}

// Quantises this lane's 8 values (block of B/8 lanes): codes to q, the scale to scales[index].
template <int B, rowwise::ElementCast kCast>
__device__ void quantize8(const RecipeCore& rec, const float v[8], std::uint8_t* q, void* scales,
                          std::int64_t index, bool active) {
  const BlockScale s = rowwise::block_scale8<B>(rec, v);
  if (!active) return;
  std::uint8_t c[8];
  rowwise::codes8<kCast>(rec, s, v, c);
  rowwise::store_codes8(q, c);
  rowwise::store_scale<B>(scales, index, s);
}

template <class In, int B, bool kBackward, rowwise::ElementCast kCast>
__global__ void __launch_bounds__(kThreads)
    swiglu_kernel(const In* __restrict__ x, const In* __restrict__ grad, std::int64_t rows, std::int64_t h,
                  const RecipeCore rec, const float* __restrict__ probs, const float* __restrict__ sigmoid,
                  const float* __restrict__ bf16_table, bool dact_fma, In* __restrict__ y,
                  std::uint8_t* __restrict__ q, void* __restrict__ scales) {
  using E = Elem<In>;
  extern __shared__ float hot[];  // kHotEntries floats when bf16_table is set
  if (bf16_table != nullptr) {
    for (int t = int(threadIdx.x); t < kHotEntries; t += kThreads) hot[t] = __ldg(bf16_table + hot_bits(t));
    __syncthreads();
  }
  const std::int64_t chunks = h / kPerThread, total = rows * chunks;
  // Grid-stride over 8-element chunks; the stride is a whole number of blocks, so every warp runs
  // the same iterations. Lanes past the end still take part in the block shuffles (whole blocks
  // only: chunks is a multiple of B/8), on row 0, and store nothing.
  for (std::int64_t first = std::int64_t(blockIdx.x) * kThreads; first < total;
       first += std::int64_t(gridDim.x) * kThreads) {
    std::int64_t i = first + threadIdx.x;
    const bool active = i < total;
    if (!active) i = 0;
    const std::int64_t m = i / chunks, j = (i % chunks) * kPerThread;
    const In* xa = x + m * 2 * h + j;
    float a[8], g[8], s[8];
    E::load8(xa, a);
    E::load8(xa + h, g);
    if (sigmoid != nullptr) {
#pragma unroll
      for (int e = 0; e < 8; ++e) s[e] = __ldg(sigmoid + m * h + j + e);
    } else {
#pragma unroll
      for (int e = 0; e < 8; ++e) s[e] = sigmoid_of(a[e], bf16_table, hot);
    }
    if constexpr (!kBackward) {
      const bool has_p = probs != nullptr;
      const float p = has_p ? __ldg(probs + m) : 1.0f;
      In stored[8];
      float v[8];
#pragma unroll
      for (int e = 0; e < 8; ++e) {
        stored[e] = round_to_input(swiglu_forward_value(a[e], g[e], s[e], has_p, p), In{});
        v[e] = E::widen(stored[e]);
      }
      if (active) E::store8(y + m * h + j, stored);
      quantize8<B, kCast>(rec, v, q + m * h + j, scales, m * (h / B) + j / B, active);
    } else {
      float dy[8];
      E::load8(grad + m * h + j, dy);
      In st_a[8], st_g[8];
      float va[8], vg[8];
#pragma unroll
      for (int e = 0; e < 8; ++e) {
        const SwigluGrads d = swiglu_backward_values(a[e], g[e], dy[e], s[e], dact_fma);
        st_a[e] = round_to_input(d.d_act, In{});
        st_g[e] = round_to_input(d.d_gate, In{});
        va[e] = E::widen(st_a[e]);
        vg[e] = E::widen(st_g[e]);
      }
      const std::int64_t n = 2 * h, nb = n / B;
      if (active) {
        E::store8(y + m * n + j, st_a);
        E::store8(y + m * n + h + j, st_g);
      }
      quantize8<B, kCast>(rec, va, q + m * n + j, scales, m * nb + j / B, active);
      quantize8<B, kCast>(rec, vg, q + m * n + h + j, scales, m * nb + (h + j) / B, active);
    }
  }
}

// ----------------------------------------------------------------------------
// kernel launcher

template <class In, bool kBackward>
void launch(const In* x, const In* grad, std::int64_t rows, std::int64_t h, const Recipe& r, const float* probs,
            const float* sigmoid, bool dact_fma, const SwigluGpuOutputs& out, cudaStream_t stream) {
  const std::int64_t block = swiglu_block_size(r);
  if (rows < 0 || h < 0) throw std::invalid_argument("x_m_2h: negative shape");
  if (h % block != 0)
    throw std::invalid_argument("H = x_m_2h.cols / 2 = " + std::to_string(h) + " is not a multiple of the block size " +
                                std::to_string(block) + " of recipe '" + std::string(name(r)) + "'");
  const std::int64_t threads = rows * (h / kPerThread);
  if (threads == 0) return;
  const RecipeCore rec = make_core(r);
  In* y = static_cast<In*>(out.y);
  const float* bf16_table =
      std::is_same_v<In, std::uint16_t> && sigmoid == nullptr ? swiglu_bf16_sigmoid_table(stream) : nullptr;
  const std::size_t smem = bf16_table != nullptr ? kHotBytes : 0;
  auto run = [&](auto kernel) {
    // Persistent blocks when the hot table is copied (one copy per block): as many as fit at once.
    std::int64_t blocks = blocks_for(threads, kThreads);
    if (bf16_table != nullptr) {
      int device = 0, sms = 0, per_sm = 0;
      OCTET_CUDA_CHECK(cudaGetDevice(&device));
      OCTET_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
      OCTET_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, smem));
      const std::int64_t resident = std::int64_t(sms) * (per_sm > 0 ? per_sm : 1);
      if (blocks > resident) blocks = resident;
    }
    kernel<<<unsigned(blocks), kThreads, smem, stream>>>(x, grad, rows, h, rec, probs, sigmoid, bf16_table, dact_fma,
                                                         y, out.q, out.scales);
    check_launch();
  };
  using rowwise::ElementCast;
  const ElementCast cast = rowwise::element_cast_of(r);
  if (block == 32) {
    if (cast == ElementCast::cvt_e4m3) run(swiglu_kernel<In, 32, kBackward, ElementCast::cvt_e4m3>);
    else if (cast == ElementCast::cvt_e5m2) run(swiglu_kernel<In, 32, kBackward, ElementCast::cvt_e5m2>);
    else run(swiglu_kernel<In, 32, kBackward, ElementCast::generic>);
  } else {
    if (cast == ElementCast::cvt_e4m3) run(swiglu_kernel<In, 128, kBackward, ElementCast::cvt_e4m3>);
    else if (cast == ElementCast::cvt_e5m2) run(swiglu_kernel<In, 128, kBackward, ElementCast::cvt_e5m2>);
    else run(swiglu_kernel<In, 128, kBackward, ElementCast::generic>);
  }
}

}  // namespace

void swiglu_quantize_forward(InputType type, const void* x_m_2h, std::int64_t rows, std::int64_t h,
                             const Recipe& recipe, const float* probs_m, const float* sigmoid_m_h,
                             const SwigluGpuOutputs& out, cudaStream_t stream) {
  if (type == InputType::bf16)
    launch<std::uint16_t, false>(static_cast<const std::uint16_t*>(x_m_2h), nullptr, rows, h, recipe, probs_m,
                                 sigmoid_m_h, false, out, stream);
  else
    launch<float, false>(static_cast<const float*>(x_m_2h), nullptr, rows, h, recipe, probs_m, sigmoid_m_h, false, out,
                         stream);
}

void swiglu_quantize_backward(InputType type, const void* grad_m_h, const void* x_m_2h, std::int64_t rows,
                              std::int64_t h, const Recipe& recipe, bool dact_fma, const float* sigmoid_m_h,
                              const SwigluGpuOutputs& out, cudaStream_t stream) {
  if (type == InputType::bf16)
    launch<std::uint16_t, true>(static_cast<const std::uint16_t*>(x_m_2h), static_cast<const std::uint16_t*>(grad_m_h),
                                rows, h, recipe, nullptr, sigmoid_m_h, dact_fma, out, stream);
  else
    launch<float, true>(static_cast<const float*>(x_m_2h), static_cast<const float*>(grad_m_h), rows, h, recipe,
                        nullptr, sigmoid_m_h, dact_fma, out, stream);
}

}  // namespace octet::cuda
