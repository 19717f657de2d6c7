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
// single IEEE operations: the same bits on host and device), and the block scale of scale_core.hpp
// (sm90_row_chunks_device.cuh: the block amax as an integer maximum of magnitudes, then
// amax_update / scale_from_amax once per chunk, the PTX cvt where it equals the recipe's CastSpec,
// octet::encode_bits otherwise and for NaN). The rounding to the input dtype: cvt.rn.bf16x2.f32
// for finite values (RNE, overflow to Inf, as octet's converter), and for a chunk holding an Inf or
// NaN octet::encode_bits (canonical NaN 0x7FFF); fp32 keeps the value, NaN -> 0x7FFFFFFF.
//
// The sigmoid of bf16 inputs: the compact table of sm90_bf16_swiglu_fp8.hpp (8448 fp32 values by
// the sign and clamped magnitude of a), filled on the device from the full 2^16 table of the
// per-element formula (the emulator memoises the same way), checked against it for every input on
// first use, and copied into shared memory by each (persistent) block: one shared load per element,
// no branch, no binary64 arithmetic and no fp32 division in the hot loop. fp32 inputs evaluate
// swiglu_sigmoid per element; recorded sigmoid values are read with 16-byte loads.
//
// Launch: persistent blocks of 512 threads, as many as are resident; a thread walks 8-element
// chunks of the (M, H) output grid with a grid stride, kItems chunks per step with all their
// 16-byte loads issued first (a, g, and grad backward), so that 32-48 bytes per chunk are in
// flight. A quantisation block is 4 (1x32) or 16 (1x128) neighbouring lanes, whose key is combined
// with shuffles; the first lane of a block writes its scale. The backward chunk writes 8 d_a and 8
// d_g values (two blocks). Bytes moved: forward M·2H·in + M·H·(in + 1) + scales; backward
// M·3H·in + M·2H·(in + 1) + scales (in = 2 for bf16).
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
#include "sm90_row_chunks_device.cuh"

namespace octet::cuda {
namespace {

using layout_detail::check_launch;
using row_chunks::Chunk;
using row_chunks::ChunkCursor;
using row_chunks::ElementCast;
using row_chunks::kChunk;

// ----------------------------------------------------------------------------
// The sigmoid tables

// s = swiglu_sigmoid(a) for every bf16 a, indexed by a's 16 bits (4 * 2^16 bytes), and its compact
// form (swiglu_sigmoid_slot), with the count of non-NaN inputs whose slot holds other bits.
constexpr int kBf16Values = 1 << 16;
constexpr int kFillThreads = 256;
__device__ float g_bf16_sigmoid[kBf16Values];
__device__ float g_sigmoid_slots[kSigmoidSlots];
__device__ unsigned g_sigmoid_slot_mismatches;

__global__ void __launch_bounds__(kFillThreads) fill_bf16_sigmoid_kernel() {
  const int i = int(blockIdx.x) * kFillThreads + int(threadIdx.x);
  g_bf16_sigmoid[i] = swiglu_sigmoid(__uint_as_float(std::uint32_t(i) << 16));
}

__global__ void __launch_bounds__(kFillThreads) fill_sigmoid_slots_kernel() {
  const std::uint32_t slot = blockIdx.x * kFillThreads + threadIdx.x;
  if (slot < kSigmoidSlots) g_sigmoid_slots[slot] = g_bf16_sigmoid[swiglu_sigmoid_slot_bits(slot)];
}

__global__ void __launch_bounds__(kFillThreads) check_sigmoid_slots_kernel() {
  const std::uint32_t b = blockIdx.x * kFillThreads + threadIdx.x;
  if ((b & 0x7FFFu) > 0x7F80u) return;  // NaN: its sigmoid never reaches an output
  if (__float_as_uint(g_bf16_sigmoid[b]) != __float_as_uint(g_sigmoid_slots[swiglu_sigmoid_slot(b)]))
    atomicAdd(&g_sigmoid_slot_mismatches, 1u);
}

struct SigmoidTables {
  const float* full = nullptr;
  const float* slots = nullptr;
};

// Both tables of the current device, filled and checked on first use (synchronously, once: later
// calls on any stream see complete tables).
SigmoidTables sigmoid_tables(cudaStream_t stream) {
  static std::mutex mutex;
  static std::vector<SigmoidTables> filled;  // per device ordinal
  int device = 0;
  OCTET_CUDA_CHECK(cudaGetDevice(&device));
  const std::lock_guard<std::mutex> lock(mutex);
  if (filled.size() <= std::size_t(device)) filled.resize(std::size_t(device) + 1);
  SigmoidTables& t = filled[std::size_t(device)];
  if (t.full == nullptr) {
    const unsigned zero = 0;
    OCTET_CUDA_CHECK(cudaMemcpyToSymbolAsync(g_sigmoid_slot_mismatches, &zero, sizeof zero, 0,
                                             cudaMemcpyHostToDevice, stream));
    fill_bf16_sigmoid_kernel<<<kBf16Values / kFillThreads, kFillThreads, 0, stream>>>();
    check_launch();
    fill_sigmoid_slots_kernel<<<(kSigmoidSlots + kFillThreads - 1) / kFillThreads, kFillThreads, 0, stream>>>();
    check_launch();
    check_sigmoid_slots_kernel<<<kBf16Values / kFillThreads, kFillThreads, 0, stream>>>();
    check_launch();
    unsigned mismatches = 0;
    OCTET_CUDA_CHECK(cudaMemcpyFromSymbolAsync(&mismatches, g_sigmoid_slot_mismatches, sizeof mismatches, 0,
                                               cudaMemcpyDeviceToHost, stream));
    OCTET_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (mismatches != 0)
      throw std::logic_error("swiglu: the compact bf16 sigmoid table differs from the full one for " +
                             std::to_string(mismatches) + " inputs");
    void* full = nullptr;
    void* slots = nullptr;
    OCTET_CUDA_CHECK(cudaGetSymbolAddress(&full, g_bf16_sigmoid));
    OCTET_CUDA_CHECK(cudaGetSymbolAddress(&slots, g_sigmoid_slots));
    t.slots = static_cast<const float*>(slots);
    t.full = static_cast<const float*>(full);
  }
  return t;
}

}  // namespace

const float* swiglu_bf16_sigmoid_table(cudaStream_t stream) { return sigmoid_tables(stream).full; }

namespace {

// ----------------------------------------------------------------------------
// GPU kernels

// Where the sigmoid comes from: the compact bf16 table (in shared memory), recorded values
// (sigmoid_m_h), or the formula per element (fp32 inputs).
enum class SigmoidFrom : int { table, recorded, formula };

struct SwigluParams {
  const void* x = nullptr;     // (M, 2H) In
  const void* grad = nullptr;  // (M, H) In, backward
  std::int64_t rows = 0, h = 0;
  const float* probs = nullptr;    // (M,) or nullptr (forward)
  const float* sigmoid = nullptr;  // (M, H) recorded values (SigmoidFrom::recorded)
  const float* slots = nullptr;    // compact table (SigmoidFrom::table)
  bool dact_fma = false;
  std::uint32_t nan_code = 0;  // row_chunks::nan_code_of(recipe)
  void* y = nullptr;
  std::uint8_t* q = nullptr;
  void* scales = nullptr;
};

constexpr int kThreads = 512;
// Chunks per thread and step, all loads first: forward 2 (4 x 16-byte loads of bf16 in flight),
// backward 1 (3 loads; two outputs per chunk already need twice the registers).
template <bool kBackward>
constexpr int kItems = kBackward ? 1 : 2;

// The values rounded to the input dtype (swiglu_quant.cpp round_to_input), as fp32 bits.
// bf16: cvt.rn.bf16x2.f32 rounds finite values exactly as octet's converter (RNE, overflow to
// Inf). kBf16Round maps +-Inf to +-Inf (0x7F80 / 0xFF80) and every NaN to 0x7FFF (what
// octet::encode_bits returns for all 2^24 non-finite fp32 patterns: docs/gpu-notes.md, swiglu/a2a
// round); a chunk holding one takes those bits explicitly. fp32: the value, NaN -> 0x7FFFFFFF.
template <class In>
__device__ __forceinline__ Chunk round_to_input(const float v[kChunk]) {
  Chunk r;
  if constexpr (std::is_same_v<In, std::uint16_t>) {
    bool finite = true;
#pragma unroll
    for (int e = 0; e < kChunk; e += 2) {
      const __nv_bfloat162 pair = __floats2bfloat162_rn(v[e], v[e + 1]);  // .x = v[e] in the low half
      r.v[e] = std::uint32_t(__bfloat16_as_ushort(pair.x)) << 16;
      r.v[e + 1] = std::uint32_t(__bfloat16_as_ushort(pair.y)) << 16;
      finite &= fabsf(v[e]) <= 0x1.fffffep127f && fabsf(v[e + 1]) <= 0x1.fffffep127f;
    }
    if (!finite) {
#pragma unroll
      for (int e = 0; e < kChunk; ++e) {
        const std::uint32_t b = __float_as_uint(v[e]);
        if ((b & 0x7F800000u) != 0x7F800000u) continue;
        r.v[e] = (b & 0x007FFFFFu) != 0 ? 0x7FFF0000u : (b & 0x80000000u) | 0x7F800000u;
      }
    }
  } else {
#pragma unroll
    for (int e = 0; e < kChunk; ++e) r.v[e] = v[e] != v[e] ? 0x7FFFFFFFu : __float_as_uint(v[e]);
  }
  return r;
}

// The sigmoid of the chunk's 8 activation inputs a.
template <SigmoidFrom S>
__device__ __forceinline__ void sigmoid8(const Chunk& a, const float* slots, const float4* recorded, float s[kChunk]) {
  if constexpr (S == SigmoidFrom::table) {
#pragma unroll
    for (int e = 0; e < kChunk; ++e) s[e] = slots[swiglu_sigmoid_slot(a.v[e] >> 16)];
  } else if constexpr (S == SigmoidFrom::recorded) {
    const float4 lo = recorded[0], hi = recorded[1];
    s[0] = lo.x, s[1] = lo.y, s[2] = lo.z, s[3] = lo.w, s[4] = hi.x, s[5] = hi.y, s[6] = hi.z, s[7] = hi.w;
  } else {
#pragma unroll
    for (int e = 0; e < kChunk; ++e) s[e] = swiglu_sigmoid(row_chunks::value(a, e));
  }
}

// Quantises one chunk of y (block of B/8 lanes: every lane of the warp calls it) and stores
// y, its codes and (first lane of the block) the scale.
template <class In, int B, ElementCast kCast, class R>
__device__ __forceinline__ void quantize_store(const R& rec, std::uint32_t nan_key, std::uint32_t nan_code,
                                               const Chunk& y, bool active,
                                               In* y_out, std::uint8_t* q_out, void* scales, std::int64_t scale_index) {
  const std::uint32_t key = row_chunks::group_max<B / kChunk>(row_chunks::chunk_key(y, nan_key));
  if (!active) return;
  const BlockScale s = row_chunks::scale_of_key(rec, key);
  const uint2 codes = row_chunks::quantize_chunk<kCast>(rec, s, y, nan_code);
  row_chunks::store_chunk(y_out, y);
  *reinterpret_cast<uint2*>(q_out) = codes;
  if (threadIdx.x % (B / kChunk) == 0) row_chunks::store_scale<B>(scales, scale_index, s.stored);
}

template <class In, int B, bool kBackward, ElementCast kCast, SigmoidFrom S, class R>
__global__ void __launch_bounds__(kThreads, 2) swiglu_kernel(const SwigluParams p, const R rec) {
  constexpr int kItemsPer = kItems<kBackward>;
  extern __shared__ float slots[];  // kSigmoidSlots floats for SigmoidFrom::table
  if constexpr (S == SigmoidFrom::table) {
    for (int t = int(threadIdx.x); t < int(kSigmoidSlots); t += kThreads) slots[t] = __ldg(p.slots + t);
    __syncthreads();
  }
  const In* x = static_cast<const In*>(p.x);
  const In* grad = static_cast<const In*>(p.grad);
  In* y = static_cast<In*>(p.y);
  const std::int64_t h = p.h, per_row = h / kChunk, total = p.rows * per_row;
  const std::int64_t n = kBackward ? 2 * h : h, blocks_per_row = n / B;
  const std::uint32_t nan_key = row_chunks::nan_key_of(rec);
  const bool has_p = p.probs != nullptr;
  // Chunk index i = first + k·step (k = 0, 1, ...); the cursor tracks (row, chunk) of i.
  const std::int64_t step = std::int64_t(gridDim.x) * kThreads;
  const std::int64_t step_rows = step / per_row, step_chunks = step % per_row;
  std::int64_t first = std::int64_t(blockIdx.x) * kThreads + threadIdx.x;
  ChunkCursor cur{first / per_row, first % per_row};
  // Every lane of a warp runs the same steps (the shuffles need the whole warp); lanes past the end
  // (whole quantisation blocks: per_row is a multiple of B/8) read row 0 and store nothing.
  const std::int64_t lane = threadIdx.x % 32;
  for (; first - lane < total; first += kItemsPer * step) {
    ChunkCursor at[kItemsPer];
    row_chunks::RawChunk<In> a[kItemsPer], g[kItemsPer], dy[kItemsPer];
    float4 rec_s[kItemsPer][2];
#pragma unroll
    for (int k = 0; k < kItemsPer; ++k) {
      at[k] = cur;
      cur.advance(step_rows, step_chunks, per_row);
      const bool active = at[k].row < p.rows;
      const std::int64_t m = active ? at[k].row : 0, j = active ? at[k].chunk * kChunk : 0;
      a[k].load(x + m * 2 * h + j);
      g[k].load(x + m * 2 * h + h + j);
      if constexpr (kBackward) dy[k].load(grad + m * h + j);
      if constexpr (S == SigmoidFrom::recorded) {
        const float4* sp = reinterpret_cast<const float4*>(p.sigmoid + m * h + j);
        rec_s[k][0] = __ldg(sp);
        rec_s[k][1] = __ldg(sp + 1);
      }
    }
#pragma unroll
    for (int k = 0; k < kItemsPer; ++k) {
      const bool active = at[k].row < p.rows;
      const std::int64_t m = active ? at[k].row : 0, j = active ? at[k].chunk * kChunk : 0;
      const Chunk ca = a[k].chunk(), cg = g[k].chunk();
      float s[kChunk];
      sigmoid8<S>(ca, slots, rec_s[k], s);
      if constexpr (!kBackward) {
        const float pm = has_p ? __ldg(p.probs + m) : 1.0f;
        float v[kChunk];
#pragma unroll
        for (int e = 0; e < kChunk; ++e)
          v[e] = swiglu_forward_value(row_chunks::value(ca, e), row_chunks::value(cg, e), s[e], has_p, pm);
        const Chunk yv = round_to_input<In>(v);
        quantize_store<In, B, kCast>(rec, nan_key, p.nan_code, yv, active, y + m * h + j, p.q + m * h + j, p.scales,
                                     m * blocks_per_row + j / B);
      } else {
        const Chunk cd = dy[k].chunk();
        float va[kChunk], vg[kChunk];
#pragma unroll
        for (int e = 0; e < kChunk; ++e) {
          const SwigluGrads d = swiglu_backward_values(row_chunks::value(ca, e), row_chunks::value(cg, e),
                                                       row_chunks::value(cd, e), s[e], p.dact_fma);
          va[e] = d.d_act;
          vg[e] = d.d_gate;
        }
        const Chunk ya = round_to_input<In>(va), yg = round_to_input<In>(vg);
        quantize_store<In, B, kCast>(rec, nan_key, p.nan_code, ya, active, y + m * n + j, p.q + m * n + j, p.scales,
                                     m * blocks_per_row + j / B);
        quantize_store<In, B, kCast>(rec, nan_key, p.nan_code, yg, active, y + m * n + h + j, p.q + m * n + h + j,
                                     p.scales, m * blocks_per_row + (h + j) / B);
      }
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
  const std::int64_t chunks = rows * (h / kChunk);
  if (chunks == 0) return;
  constexpr bool kBf16 = std::is_same_v<In, std::uint16_t>;
  SwigluParams p;
  p.x = x, p.grad = grad, p.rows = rows, p.h = h, p.probs = probs, p.sigmoid = sigmoid, p.dact_fma = dact_fma;
  p.y = out.y, p.q = out.q, p.scales = out.scales;
  const bool use_table = kBf16 && sigmoid == nullptr;
  if (use_table) p.slots = sigmoid_tables(stream).slots;
  const std::size_t smem = use_table ? kSigmoidSlots * sizeof(float) : 0;
  const RecipeCore core = make_core(r);
  p.nan_code = row_chunks::nan_code_of(core);
  auto run = [&](auto kernel, const auto& rec) {
    // Persistent blocks: as many as are resident (the compact table is copied once per block), no
    // more than the chunks need.
    const unsigned blocks =
        row_chunks::persistent_grid(kernel, kThreads, smem, chunks, std::int64_t(kThreads) * kItems<kBackward>);
    kernel<<<blocks, kThreads, smem, stream>>>(p, rec);
    check_launch();
  };
  // The kernels: the bf16 table path with every cast, and with compile-time scale rules for the
  // production recipes (te_mxfp8, te_blockwise); the recorded-sigmoid and fp32 paths (reference
  // runs, not the production hot path) with the generic cast, which is exact for every recipe.
  const ElementCast cast = rowwise::element_cast_of(r);
  auto by_block = [&](auto kernel32, auto kernel128) { block == 32 ? run(kernel32, core) : run(kernel128, core); };
  if constexpr (kBf16) {
    using row_chunks::TeBlockwiseCore;
    using row_chunks::TeMxfp8Core;
    if (!use_table) {
      by_block(swiglu_kernel<In, 32, kBackward, ElementCast::generic, SigmoidFrom::recorded, RecipeCore>,
               swiglu_kernel<In, 128, kBackward, ElementCast::generic, SigmoidFrom::recorded, RecipeCore>);
    } else if (cast == ElementCast::cvt_e4m3 && block == 32 && TeMxfp8Core::matches(core)) {
      run(swiglu_kernel<In, 32, kBackward, ElementCast::cvt_e4m3, SigmoidFrom::table, TeMxfp8Core>,
          TeMxfp8Core::of(core));
    } else if (cast == ElementCast::cvt_e4m3 && block == 128 && TeBlockwiseCore::matches(core)) {
      run(swiglu_kernel<In, 128, kBackward, ElementCast::cvt_e4m3, SigmoidFrom::table, TeBlockwiseCore>,
          TeBlockwiseCore::of(core));
    } else if (cast == ElementCast::cvt_e4m3) {
      by_block(swiglu_kernel<In, 32, kBackward, ElementCast::cvt_e4m3, SigmoidFrom::table, RecipeCore>,
               swiglu_kernel<In, 128, kBackward, ElementCast::cvt_e4m3, SigmoidFrom::table, RecipeCore>);
    } else if (cast == ElementCast::cvt_e5m2) {
      by_block(swiglu_kernel<In, 32, kBackward, ElementCast::cvt_e5m2, SigmoidFrom::table, RecipeCore>,
               swiglu_kernel<In, 128, kBackward, ElementCast::cvt_e5m2, SigmoidFrom::table, RecipeCore>);
    } else {
      by_block(swiglu_kernel<In, 32, kBackward, ElementCast::generic, SigmoidFrom::table, RecipeCore>,
               swiglu_kernel<In, 128, kBackward, ElementCast::generic, SigmoidFrom::table, RecipeCore>);
    }
  } else {
    if (sigmoid != nullptr)
      by_block(swiglu_kernel<In, 32, kBackward, ElementCast::generic, SigmoidFrom::recorded, RecipeCore>,
               swiglu_kernel<In, 128, kBackward, ElementCast::generic, SigmoidFrom::recorded, RecipeCore>);
    else
      by_block(swiglu_kernel<In, 32, kBackward, ElementCast::generic, SigmoidFrom::formula, RecipeCore>,
               swiglu_kernel<In, 128, kBackward, ElementCast::generic, SigmoidFrom::formula, RecipeCore>);
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
