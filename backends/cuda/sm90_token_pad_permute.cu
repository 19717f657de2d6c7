// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// sm90_token_pad_permute.cu — token-group padding, index permutation and the TE fused
// permute+pad / unpermute+unpad on the GPU, rows with their scale rows, bit for bit.
// Reference: octet::pad_token_groups, unpad_token_groups, permute_tokens, unpermute_tokens,
//            make_row_id_map, fused_permute_pad, fused_unpermute_unpad
//            (emulator/src/kernels/layout_pad_permute.cpp), reference/kernels.md §6, §7.
// Peers:     torchao moe_training/kernels/mxfp8/quant.py::torch_{pad,unpad}_token_groups (and the
//            CUDA fused_pad_token_groups_cuda), ep/permute.py (gather / _triton_permute_bwd),
//            TransformerEngine PR #1921 common/triton/permutation.py::_permute_kernel /
//            _unpermute_kernel with pad_offsets.
//
// Structure: every copying kernel but the fused permute's data rows is one gather, dst row i <- src
// row src_of(i) (< 0: a zero row).
// pad / unpad find src_of(i) inside the gather (binary search over the padded starts / group
// ends, per row, not per element); pad scans its group sizes inside the gather launch (every
// block into shared memory), so both are one launch per matrix; permute_and_pad likewise builds
// generate_permute_indices' plan in every block and writes permuted_indices from the gather
// (PermutePadSource). The others read a map: the indices (identity), their inverse (a fill of -1
// and a scatter of i into map[idx[i]], two launches over the whole GPU), or, for the fused
// permute's scale rows, the routing's inverse (RouteSource; make_row_id_map writes it beside the
// row map when asked, else the permute computes it). The fused permute's data rows go by token
// instead: each token's row read once and written to the rows of its routes, the prob rule
// applied per route, then the rows of no route zeroed — by the bulk copy engine where the rows
// allow (permute_bulk_kernel), else by 16-byte stores (permute_scatter_kernel). Launch count
// matters: at ~100 us per gather, every extra launch and stream-ordered allocation is a few
// percent. The gather runs one warp per destination row, 16-byte loads and
// stores when the row bytes and pointers allow (4-byte, then 1-byte otherwise), four vectors in
// flight per lane. The combine (fused_unpermute_unpad) runs one block per token, its width picked
// so that the row's 16-byte runs split evenly (kCombineVecs runs per thread, the loads of
// kRoutesInFlight routes in flight together): the token's routes in summation order go to
// shared memory once, then each thread accumulates 8 (bf16) or 4 (fp32) columns per run over
// the routes in fp32 — __fmul_rn then __fadd_rn, or __fmaf_rn for the fma variant, the
// emulator's two arithmetics — and rounds once (bf16: cvt.rn for finite sums, octet::encode_bits for Inf; NaN sums: the CUDA
// canonical NaN, octet::kCudaCanonicalNanFp32 / Bf16). No atomics anywhere: every output byte has
// one writer. The routing row map (make_row_id_map) is two launches over blocks of routes: counts
// per (block, expert), then ranks by __match_any_sync against a warp x expert table of counts (and
// the inverse map, when asked: the route of each permuted row, -1 for the rest).
// The short kernels of the routing map, the inverse map and the fused permute's data kernel are
// programmatic dependent launches (launch_pdl, sm90_pdl.cuh): each one's launch overlaps the end
// of the one before, and each waits (griddepcontrol.wait) before it reads or writes global memory.
//
// Bytes moved: gather = rows read (copied rows only) + all rows written + index arrays;
// combine = T·K routed rows read + T rows written.
#include <cub/block/block_reduce.cuh>

#include <cuda_bf16.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "octet/cast.hpp"
#include "sm90_bulk_copy.cuh"
#include "sm90_layout_device.hpp"
#include "sm90_pdl.cuh"
#include "sm90_token_pad_permute.hpp"

namespace octet::cuda {

namespace layout_detail {

// ----------------------------------------------------------------------------
// Group scans (declared in sm90_layout_device.hpp)

__global__ void __launch_bounds__(kThreads) padded_starts_kernel(const std::int64_t* offs, std::int64_t groups,
                                                                 std::int64_t alignment, std::int64_t* starts) {
  padded_scan_offs(offs, groups, alignment, starts);
}

__global__ void fill_int64_kernel(std::int64_t* p, std::int64_t n, std::int64_t value) {
  pdl_wait();
  pdl_launch_dependents();
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) p[i] = value;
}

void padded_group_starts(const std::int64_t* offs, std::int64_t groups, std::int64_t alignment, std::int64_t* starts,
                         cudaStream_t stream) {
  padded_starts_kernel<<<1, kThreads, 0, stream>>>(offs, groups, alignment, starts);
  check_launch();
}

void fill_int64(std::int64_t* p, std::int64_t n, std::int64_t value, cudaStream_t stream) {
  if (n == 0) return;
  launch_pdl(fill_int64_kernel, blocks_for(n, kThreads), kThreads, 0, stream, p, n, value);
}

}  // namespace layout_detail

namespace {

using layout_detail::blocks_for;
using layout_detail::check_launch;
using layout_detail::first_above;
using layout_detail::group_begin;
using layout_detail::kThreads;
using layout_detail::StreamScratch;
using layout_detail::upper_bound;

constexpr int kWarpsPerBlock = kThreads / 32;
constexpr int kUnroll = 4;  // vectors in flight per lane
constexpr int kRoutesInFlight = 4;  // combine: route rows loaded before their sums
// Shared-memory route slots of the combine: topk rounded up to a whole group of kRoutesInFlight.
__host__ __device__ constexpr std::int64_t combine_route_slots(std::int64_t topk) {
  return (topk + kRoutesInFlight - 1) / kRoutesInFlight * kRoutesInFlight;
}
constexpr int kCombineVecs = 2;     // combine: 16-byte column runs per thread per pass

// ----------------------------------------------------------------------------
// GPU kernels: index maps

// Row sources of the gather: src_of(i) is the source row of destination row i, or -1 for a zero
// row. The group ones search the group table per row (G <= a few hundred: a handful of cached
// loads per warp), so pad and unpad need no index array and no extra launch.

// An explicit map (device, one entry per destination row).
struct MapSource {
  const std::int64_t* src_of_row;
  __device__ std::int64_t operator()(std::int64_t i) const { return __ldg(src_of_row + i); }
};

// pad: padded row i of group g (starts[g] <= i < starts[g+1]) is x row begin_g + (i - starts[g])
// when i - starts[g] < size_g; everything else is a zero row. starts: global or shared (plain loads).
struct PadSource {
  const std::int64_t* offs;
  std::int64_t groups;
  const std::int64_t* starts;
  __device__ std::int64_t operator()(std::int64_t i) const {
    const std::int64_t g = first_above(starts + 1, groups, i);
    if (g >= groups) return -1;
    const std::int64_t k = i - starts[g], begin = group_begin(offs, g);
    return k < __ldg(offs + g) - begin ? begin + k : -1;
  }
};

// unpad: token t of group g reads padded row padded_starts[g] + (t - begin_g); t >= offs[G-1]: 0.
struct UnpadSource {
  const std::int64_t* offs;
  std::int64_t groups;
  const std::int64_t* padded_starts;
  __device__ std::int64_t operator()(std::int64_t t) const {
    const std::int64_t g = upper_bound(offs, groups, t);
    return g < groups ? __ldg(padded_starts + g) + (t - group_begin(offs, g)) : -1;
  }
};

// inverse[index[i]] = i for index[i] >= 0 (indices are distinct: one writer per entry).
__global__ void scatter_inverse_kernel(const std::int64_t* index, std::int64_t n, std::int64_t* inverse) {
  pdl_wait();
  pdl_launch_dependents();
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const std::int64_t d = __ldg(index + i);
  if (d >= 0) inverse[d] = i;
}

// fused permute, the scale rows inside the gather: permuted row `row` filled by route (t·K + k)
// copies token t's scale row (whatever its prob), a row of no route is zero.
struct RouteSource {
  static constexpr bool kReusedRows = true;  // a token's scale row is read once per route
  const std::int64_t* route_of_row;
  std::int64_t topk;
  __device__ std::int64_t operator()(std::int64_t row) const {
    const std::int64_t route = __ldg(route_of_row + row);
    return route < 0 ? -1 : route / topk;
  }
};

// fused permute, data rows by token: item (t, s) is slice s of token t's row (32·kUnroll vectors:
// each lane kUnroll), read once and written to the rows of the token's routes (row_t_k[t·K + k];
// a ±0 prob writes zeros), slice 0 also their y_probs; then the rows no route fills
// (route_of_row < 0) get zeros and y_probs 0. Stores st.global.cs (evict-first). A gather by
// permuted row read a token's row once per route, from L2 at best (H100, 8 routes per token to
// 16 / 64 / 128 experts: 61.9 / 60.1 / 62.8% of copy, against 68.3 / 67.4 / 67.7% by token).
template <class V>
__global__ void __launch_bounds__(kThreads)
    permute_scatter_kernel(const V* __restrict__ src, V* __restrict__ dst, std::int64_t tokens, std::int64_t topk,
                           std::int64_t rows, std::int64_t row_vecs, const std::int64_t* __restrict__ row_t_k,
                           const float* __restrict__ probs, const std::int64_t* __restrict__ route_of_row,
                           float* __restrict__ y_probs) {
  constexpr std::int64_t kSliceVecs = 32 * kUnroll;
  pdl_wait();  // launched by launch_pdl after the inverse map
  const int lane = int(threadIdx.x) % 32;
  const std::int64_t warps = std::int64_t(gridDim.x) * kWarpsPerBlock;
  const std::int64_t warp0 = std::int64_t(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
  const std::int64_t slices = (row_vecs + kSliceVecs - 1) / kSliceVecs;
  for (std::int64_t item = warp0; item < tokens * slices; item += warps) {
    const std::int64_t t = item / slices, v0 = (item - t * slices) * kSliceVecs + lane;
    const std::int64_t* route = row_t_k + t * topk;
    const float* prob = probs != nullptr ? probs + t * topk : nullptr;
    if (v0 == lane && prob != nullptr && y_probs != nullptr)
      for (std::int64_t k = lane; k < topk; k += 32) {
        const std::int64_t r = __ldg(route + k);
        if (r >= 0 && r < rows) y_probs[r] = __ldg(prob + k);
      }
    const V* in = src + t * row_vecs;
    V buf[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (v0 + 32 * u < row_vecs) buf[u] = __ldg(in + v0 + 32 * u);
    for (std::int64_t k = 0; k < topk; ++k) {
      const std::int64_t r = __ldg(route + k);
      if (r < 0 || r >= rows) continue;
      const bool zero = prob != nullptr && __ldg(prob + k) == 0.0f;
      V* out = dst + r * row_vecs;
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
        if (v0 + 32 * u < row_vecs) __stcs(out + v0 + 32 * u, zero ? V{} : buf[u]);
    }
  }
  for (std::int64_t row = warp0; row < rows; row += warps) {
    if (__ldg(route_of_row + row) >= 0) continue;
    if (lane == 0 && probs != nullptr && y_probs != nullptr) y_probs[row] = 0.0f;
    V* out = dst + row * row_vecs;
    for (std::int64_t v = lane; v < row_vecs; v += 32) __stcs(out + v, V{});
  }
}

// fused permute, data rows by token through the bulk copy engine (rows of whole 16-byte vectors,
// 16-byte aligned; fused_permute_pad's data kernel): one warp per CTA, items (t, s) = slice s of
// token t's row (one slice up to kBulkSliceBytes), CTA c taking tokens c, c + grid, ..., `stages`
// items in flight. Lane 0 copies an item into its stage (bulk_copy_to_shared, an mbarrier per
// stage); once it has arrived, lane k copies it to the row of route k (a ±0 prob: a zero slice kept
// in shared memory), so the SM issues one instruction per route and slice instead of one 16-byte
// store per lane and vector, and the copy engine keeps the writes streaming while the next items
// load. Item j - 1's stage is refilled with item j - 1 + stages as soon as its copies have read it
// (bulk_wait_read<1> after item j's). The rows of no route (route_of_row < 0) get the zero slice
// and y_probs 0 first, a row per lane, while the staged rows arrive (H100, 8 routes per token to 64
// / 128 experts: +0.5-0.8 points against after the tokens). The kernel is launched only right
// after one of this file's kernels that waited for every kernel before it and writes no x (the
// inverse map's fill or scatter in fused_permute_pad, the routing map's rank kernel in
// route_permute_pad), so the first items' rows load before the grid dependency wait, while that
// kernel still runs (H100, 8 routes per token at 16 / 64 / 128 experts: 86.1-86.5 / 85.4-85.5 /
// 84.4-85.0% of copy, against 82.8-83.0 / 81.1-81.4 / 79.3-80.3 loading them after the wait).
// H100, fused_permute_pad with 8 routes per token (2080 x 5120 bf16), the routing map and the
// inverse map included: 75-76% of copy with 16-byte stores by every lane (permute_scatter_kernel,
// kept for rows the bulk copies cannot take), 79-80% by bulk copies (docs/performance.md,
// thirteenth).
constexpr int kBulkStages = 4;  // 4 x 10 KB rows (5120 bf16): 4 CTAs per SM. H100, 8 routes per token: 2
                                // stages 3-4 points slower; 8 (2 CTAs per SM) 11 points slower with one route
constexpr std::uint32_t kBulkSliceBytes = 16384;
struct BulkPermuteShape {
  std::uint32_t slice_bytes = 0, slot_bytes = 0;  // slot: the slice rounded up to 128 bytes
  std::int64_t slices = 1;
  // The mbarriers (128 bytes), the zero slice, the stages.
  std::size_t smem() const { return 128 + std::size_t(slot_bytes) * std::size_t(kBulkStages + 1); }
};
__global__ void __launch_bounds__(32)
    permute_bulk_kernel(const std::uint8_t* __restrict__ x, std::uint8_t* __restrict__ y, std::int64_t tokens,
                        std::int64_t topk, std::int64_t rows, std::int64_t row_bytes, BulkPermuteShape shape,
                        const std::int64_t* __restrict__ row_t_k, const float* __restrict__ probs,
                        const std::int64_t* __restrict__ route_of_row, float* __restrict__ y_probs) {
  constexpr int S = kBulkStages;
  extern __shared__ __align__(128) unsigned char bulk_smem[];
  std::uint64_t* bars = reinterpret_cast<std::uint64_t*>(bulk_smem);
  unsigned char* zeros = bulk_smem + 128;
  unsigned char* stages = zeros + shape.slot_bytes;
  const int lane = int(threadIdx.x);
  const std::int64_t slices = shape.slices, items = tokens * slices;
  const std::int64_t first = blockIdx.x, step = gridDim.x;
  const auto slice_len = [&](std::int64_t s) {
    return s + 1 < slices ? shape.slice_bytes : std::uint32_t(row_bytes - s * std::int64_t(shape.slice_bytes));
  };
  const auto load = [&](std::int64_t j) {  // (lane 0) item j of this CTA into its stage
    const std::int64_t item = first + j * step;
    if (item >= items) return;
    const std::int64_t t = item / slices, s = item - t * slices;
    bulk_copy_to_shared(stages + std::uint32_t(j % S) * shape.slot_bytes,
                        x + t * row_bytes + s * std::int64_t(shape.slice_bytes), slice_len(s), &bars[j % S]);
  };
  if (lane == 0) {
    for (int s = 0; s < S; ++s) mbarrier_init(&bars[s]);
    mbarrier_init_fence();
    for (int j = 0; j < S; ++j) load(j);
  }
  for (std::uint32_t o = std::uint32_t(lane) * 16u; o < shape.slice_bytes; o += 32u * 16u)
    *reinterpret_cast<uint4*>(zeros + o) = make_uint4(0, 0, 0, 0);
  fence_proxy_async();  // the zero slice, written by this lane, before any bulk copy reads it
  __syncwarp();
  pdl_wait();  // launched by launch_pdl after the routing map or the inverse map
  // The rows of no route first, while the staged rows are still arriving.
  for (std::int64_t row = first * 32 + lane; row < rows; row += step * 32) {
    if (__ldg(route_of_row + row) >= 0) continue;
    if (probs != nullptr && y_probs != nullptr) y_probs[row] = 0.0f;
    for (std::int64_t s = 0; s < slices; ++s)
      bulk_copy_to_global(y + row * row_bytes + s * std::int64_t(shape.slice_bytes), zeros, slice_len(s));
  }
  bulk_commit();
  for (std::int64_t j = 0; first + j * step < items; ++j) {
    const std::int64_t item = first + j * step, t = item / slices, s = item - t * slices;
    const std::uint32_t len = slice_len(s);
    const unsigned char* stage = stages + std::uint32_t(j % S) * shape.slot_bytes;
    // Route k to row r: the slice, or zeros for a ±0 prob; slice 0 also writes y_probs[r].
    const auto route_copy = [&](std::int64_t k) {
      const std::int64_t r = __ldg(row_t_k + t * topk + k);
      if (r < 0 || r >= rows) return;
      const float p = probs != nullptr ? __ldg(probs + t * topk + k) : 1.0f;
      if (s == 0 && probs != nullptr && y_probs != nullptr) y_probs[r] = p;
      bulk_copy_to_global(y + r * row_bytes + s * std::int64_t(shape.slice_bytes), p == 0.0f ? zeros : stage, len);
    };
    mbarrier_wait(&bars[j % S], std::uint32_t(j / S) & 1u);
    for (std::int64_t k = lane; k < topk; k += 32) route_copy(k);
    bulk_commit();
    if (j >= 1) {
      bulk_wait_read<1>();  // every lane's copies of item j - 1 have read its stage
      __syncwarp();
      if (lane == 0) load(j - 1 + S);
    }
  }
  bulk_commit();
  bulk_wait_all();  // the zero slice and the stages stay until the copies have read them
}

// fused permute: permuted row `row` filled by route (t·K + k) copies token t's scale row and prob;
// its data row too, unless the prob is ±0 (a routing-map padding slot: zero data row).
__global__ void permute_pad_map_kernel(const std::int64_t* route_of_row, std::int64_t rows, std::int64_t topk,
                                       const float* probs, std::int64_t* data_src, std::int64_t* scale_src,
                                       float* y_probs) {
  const std::int64_t row = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const std::int64_t route = __ldg(route_of_row + row);
  const std::int64_t token = route >= 0 ? route / topk : -1;
  std::int64_t data = token;
  if (probs != nullptr) {
    const float p = route >= 0 ? __ldg(probs + route) : 0.0f;
    y_probs[row] = p;
    if (p == 0.0f) data = -1;
  }
  data_src[row] = data;
  scale_src[row] = token;
}

// ----------------------------------------------------------------------------
// GPU kernels: the row gather

// kReusedRows sources (the fused permute's scale rows: a token's row is read once per route) write
// their destination rows with st.global.cs (evict-first in L2), so that the stream of written rows
// does not evict the source rows between their reads. (H100, the fused permute's data rows when they
// were gathered the same way, 8 routes per token to 16 / 64 / 128 experts: 57.4 / 56.9 / 59.8% of
// copy without, 61.9 / 60.1 / 62.8% with; evict-last loads of the source rows changed nothing.)
template <class S, class = void>
struct ReusedRows : std::false_type {};
template <class S>
struct ReusedRows<S, std::void_t<decltype(S::kReusedRows)>> : std::bool_constant<S::kReusedRows> {};

// One warp per destination row, V-sized accesses (uint4, uint32_t or uint8_t), kUnroll per lane
// in flight. row_vecs = row bytes / sizeof(V).
// A side output per destination row, called by lane 0 with (row, source row); none by default.
struct NoRowHook {
  __device__ void operator()(std::int64_t, std::int64_t) const {}
};

template <class V, class Source, class RowHook = NoRowHook>
__device__ void gather_rows_body(const V* __restrict__ src, V* __restrict__ dst, std::int64_t dst_rows,
                                 std::int64_t row_vecs, const Source& src_of, const RowHook& on_row = {}) {
  const int lane = threadIdx.x % 32;
  const std::int64_t warps = std::int64_t(gridDim.x) * kWarpsPerBlock;
  for (std::int64_t row = std::int64_t(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32; row < dst_rows; row += warps) {
    const std::int64_t s = src_of(row);
    if (lane == 0) on_row(row, s);
    V* out = dst + row * row_vecs;
    if (s < 0) {
      for (std::int64_t v = lane; v < row_vecs; v += 32) out[v] = V{};
      continue;
    }
    const V* in = src + s * row_vecs;
    for (std::int64_t v0 = lane; v0 < row_vecs; v0 += 32 * kUnroll) {
      V buf[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
        if (v0 + 32 * u < row_vecs) buf[u] = __ldg(in + v0 + 32 * u);
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
        if (v0 + 32 * u < row_vecs) {
          if constexpr (ReusedRows<Source>::value) __stcs(out + v0 + 32 * u, buf[u]);
          else out[v0 + 32 * u] = buf[u];
        }
    }
  }
}

template <class V, class Source, class RowHook>
__global__ void __launch_bounds__(kThreads) gather_rows_kernel(const V* __restrict__ src, V* __restrict__ dst,
                                                               std::int64_t dst_rows, std::int64_t row_vecs,
                                                               Source src_of, RowHook on_row) {
  gather_rows_body(src, dst, dst_rows, row_vecs, src_of, on_row);
}

// pad_token_groups in one launch: every block scans the G group sizes into shared memory (G + 1
// int64, a few hundred bytes of L2 reads: cheaper than a separate scan launch ahead of a ~100 us
// gather), block 0 also stores the starts for the caller (starts_out, nullptr: not stored), then
// the gather with PadSource on the shared starts.
constexpr std::int64_t kFusedScanGroups = 1024;
template <class V>
__global__ void __launch_bounds__(kThreads)
    pad_gather_kernel(const V* __restrict__ src, V* __restrict__ dst, std::int64_t dst_rows, std::int64_t row_vecs,
                      const std::int64_t* offs, std::int64_t groups, std::int64_t alignment, std::int64_t* starts_out) {
  __shared__ std::int64_t starts[kFusedScanGroups + 1];
  layout_detail::padded_scan_offs(offs, groups, alignment, starts);
  __syncthreads();
  if (blockIdx.x == 0 && starts_out != nullptr)
    for (std::int64_t g = threadIdx.x; g <= groups; g += kThreads) starts_out[g] = starts[g];
  gather_rows_body(src, dst, dst_rows, row_vecs, PadSource{offs, groups, starts});
}

// ----------------------------------------------------------------------------
// GPU kernels: the combine

// NaN sums: the CUDA canonical NaN (octet::kCudaCanonicalNanFp32 / kCudaCanonicalNanBf16, the
// emulator's rule for fused_unpermute_unpad: what the GPU's fp32 arithmetic returns for any NaN
// result), or with quiet_nan the quiet NaN of the a2a combine (bf16 0x7FC0, fp32 0x7FC00000).
template <InputType T> struct CombineElem;
template <> struct CombineElem<InputType::bf16> {
  using storage = std::uint16_t;
  static constexpr int kPerVec = 8;
  __device__ static float load(storage b) { return __uint_as_float(std::uint32_t(b) << 16); }
  // fp32 -> bf16, RNE, IEEE overflow: cvt.rn.bf16.f32 for finite sums (it rounds and overflows
  // to Inf exactly so), octet's converter for +-Inf, the NaN rule above for NaN.
  __device__ static storage store(float v, bool quiet_nan) {
    const std::uint32_t b = __float_as_uint(v);
    if ((b & 0x7F800000u) != 0x7F800000u) return __bfloat16_as_ushort(__float2bfloat16_rn(v));
    if ((b & 0x7FFFFFFFu) > 0x7F800000u) return quiet_nan ? std::uint16_t(0x7FC0u) : kCudaCanonicalNanBf16;
    constexpr Format f = bf16_format;
    return storage(encode_bits<Fp32Source>(f, CastSpec{.overflow = Overflow::Ieee}, b));
  }
};
template <> struct CombineElem<InputType::fp32> {
  using storage = float;
  static constexpr int kPerVec = 4;
  __device__ static float load(storage v) { return v; }
  __device__ static storage store(float v, bool quiet_nan) {
    if ((__float_as_uint(v) & 0x7FFFFFFFu) <= 0x7F800000u) return v;
    return __uint_as_float(quiet_nan ? 0x7FC00000u : kCudaCanonicalNanFp32);
  }
};

// One block per token, blockDim.x threads (a multiple of 32 the launcher picks so that the
// token's 16-byte column runs split evenly: kCombineVecs runs per thread per pass).
// Route list of the token, in summation order, in shared memory: rows (permuted row indices) and
// weights. Dynamic shared memory: K int64 + K float.
template <InputType T, bool kFma>
__global__ void __launch_bounds__(kThreads) combine_kernel(const typename CombineElem<T>::storage* __restrict__ permuted,
                                                           std::int64_t cols, const std::int64_t* __restrict__ row_t_k,
                                                           std::int64_t topk, const float* __restrict__ probs,
                                                           bool row_descending, bool vectorized, bool quiet_nan,
                                                           typename CombineElem<T>::storage* __restrict__ out) {
  using E = CombineElem<T>;
  using S = typename E::storage;
  // [slots] route rows, then float weights[slots]; slots = topk rounded up to kRoutesInFlight, so
  // that the unrolled route loop below may read a whole group (the compiler vectorises those
  // shared loads ahead of the `s0 + u >= n` test): the extra slots hold row 0, weight 0.
  extern __shared__ std::int64_t route_rows[];
  __shared__ int n_routes;
  const std::int64_t slots = combine_route_slots(topk);
  float* weights = reinterpret_cast<float*>(route_rows + slots);
  const std::int64_t t = blockIdx.x;
  // The token's K map entries and probs, loaded in parallel; then thread 0 compacts them in place
  // (entry k is read before slot n <= k is written) keeping slot order, or sorted by permuted row,
  // largest first (insertion sort, stable) for row_descending.
  for (std::int64_t k = threadIdx.x; k < slots; k += blockDim.x) {
    route_rows[k] = k < topk ? __ldg(row_t_k + t * topk + k) : 0;
    weights[k] = k >= topk ? 0.0f : probs != nullptr ? __ldg(probs + t * topk + k) : 1.0f;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    int n = 0;
    for (std::int64_t k = 0; k < topk; ++k) {
      const std::int64_t row = route_rows[k];
      const float w = weights[k];
      if (row < 0) continue;
      int at = n;
      if (row_descending)
        while (at > 0 && route_rows[at - 1] < row) {
          route_rows[at] = route_rows[at - 1];
          weights[at] = weights[at - 1];
          --at;
        }
      route_rows[at] = row;
      weights[at] = w;
      ++n;
    }
    n_routes = n;
  }
  __syncthreads();
  const int n = n_routes;
  constexpr int kPer = E::kPerVec;
  S* dst = out + t * cols;
  // Columns in runs of kPer (16 bytes) when every row starts 16-byte aligned; the rest (all
  // columns otherwise) one at a time. Per pass a thread owns runs v0 + j·blockDim.x, j < kCombineVecs.
  const std::int64_t runs = vectorized ? cols / kPer : 0;
  const std::int64_t stride = blockDim.x;
  for (std::int64_t v0 = threadIdx.x; v0 < runs; v0 += stride * kCombineVecs) {
    float acc[kCombineVecs][kPer];
#pragma unroll
    for (int c = 0; c < kCombineVecs; ++c)
#pragma unroll
      for (int j = 0; j < kPer; ++j) acc[c][j] = 0.0f;  // +0, as TE's tl.zeros
    // Routes in groups of kRoutesInFlight: all loads of the group first (independent), then the
    // sums in route order.
    for (int s0 = 0; s0 < n; s0 += kRoutesInFlight) {
      uint4 raw[kRoutesInFlight][kCombineVecs] = {};  // runs past the row stay 0 (their sums are dropped)
#pragma unroll
      for (int u = 0; u < kRoutesInFlight; ++u) {
        if (s0 + u >= n) break;
        const uint4* row = reinterpret_cast<const uint4*>(permuted + route_rows[s0 + u] * cols);
#pragma unroll
        for (int c = 0; c < kCombineVecs; ++c)
          if (v0 + c * stride < runs) raw[u][c] = __ldg(row + v0 + c * stride);
      }
#pragma unroll
      for (int u = 0; u < kRoutesInFlight; ++u) {
        if (s0 + u >= n) break;
        const float p = weights[s0 + u];
#pragma unroll
        for (int c = 0; c < kCombineVecs; ++c) {
          const S* x = reinterpret_cast<const S*>(&raw[u][c]);
#pragma unroll
          for (int j = 0; j < kPer; ++j) {
            const float xv = E::load(x[j]);
            acc[c][j] = kFma ? __fmaf_rn(xv, p, acc[c][j]) : __fadd_rn(acc[c][j], __fmul_rn(xv, p));
          }
        }
      }
    }
#pragma unroll
    for (int c = 0; c < kCombineVecs; ++c) {
      if (v0 + c * stride >= runs) break;
      uint4 packed;
      S* o = reinterpret_cast<S*>(&packed);
#pragma unroll
      for (int j = 0; j < kPer; ++j) o[j] = E::store(acc[c][j], quiet_nan);
      reinterpret_cast<uint4*>(dst)[v0 + c * stride] = packed;
    }
  }
  for (std::int64_t c = runs * kPer + threadIdx.x; c < cols; c += stride) {
    float acc = 0.0f;
    for (int s = 0; s < n; ++s) {
      const float xv = E::load(permuted[route_rows[s] * cols + c]);
      acc = kFma ? __fmaf_rn(xv, weights[s], acc) : __fadd_rn(acc, __fmul_rn(xv, weights[s]));
    }
    dst[c] = E::store(acc, quiet_nan);
  }
}

// Threads per combine block: the 16-byte runs of a row in as few passes of up to kThreads
// threads (kCombineVecs runs each) as possible, split evenly, rounded up to whole warps.
unsigned combine_threads(std::int64_t runs, std::int64_t cols) {
  if (runs == 0) return unsigned(cols >= kThreads ? kThreads : (cols + 31) / 32 * 32);  // scalar columns, cols >= 1
  const std::int64_t items = (runs + kCombineVecs - 1) / kCombineVecs;
  const std::int64_t passes = (items + kThreads - 1) / kThreads;
  const std::int64_t per_pass = (items + passes - 1) / passes;
  return unsigned((per_pass + 31) / 32 * 32);
}

// ----------------------------------------------------------------------------
// GPU kernels: torchao generate_permute_indices

// One block: per (rank r, expert e) the destination start of its rows in the expert-major output
// and the source start in the rank-major input; per expert
// m_size = round_up(max(Σ_r count, alignment), alignment) and the inclusive ends. Two block scans
// (source starts over the R·E counts, expert ends over the m_sizes), the rest per expert in
// parallel. src_start has R·E + 1 entries, expert_start E + 1 (scratch).
__global__ void __launch_bounds__(kThreads) permute_plan_kernel(const std::int64_t* counts, std::int64_t ranks,
                                                                std::int64_t experts, std::int64_t alignment,
                                                                std::int64_t* src_start, std::int64_t* expert_start,
                                                                std::int64_t* dst_start, std::int64_t* m_sizes,
                                                                std::int64_t* m_offsets) {
  layout_detail::padded_scan([counts](std::int64_t i) { return __ldg(counts + i); }, ranks * experts, 1, src_start);
  for (std::int64_t e = threadIdx.x; e < experts; e += blockDim.x) {
    std::int64_t total = 0;
    for (std::int64_t r = 0; r < ranks; ++r) total += __ldg(counts + r * experts + e);
    m_sizes[e] = ((total > alignment ? total : alignment) + alignment - 1) / alignment * alignment;
  }
  __syncthreads();
  layout_detail::padded_scan([m_sizes](std::int64_t e) { return m_sizes[e]; }, experts, 1, expert_start);
  __syncthreads();
  for (std::int64_t e = threadIdx.x; e < experts; e += blockDim.x) {
    m_offsets[e] = expert_start[e + 1];
    std::int64_t write = expert_start[e];
    for (std::int64_t r = 0; r < ranks; ++r) {
      dst_start[r * experts + e] = write;
      write += __ldg(counts + r * experts + e);
    }
  }
}

// Block i = (rank, expert) pair i: permuted_indices[dst + j] = src + j for j < count, dst + j < max_len.
// The -1 entries are written here too (no separate fill launch), each by one block: the last
// rank's block of expert e the padding of e (from its last row to expert_start[e + 1]), block 0
// also the rows past every expert (from expert_start[E] to max_len).
__global__ void __launch_bounds__(kThreads) permute_fill_kernel(const std::int64_t* counts, const std::int64_t* src_start,
                                                                const std::int64_t* dst_start,
                                                                const std::int64_t* expert_start, std::int64_t ranks,
                                                                std::int64_t experts, std::int64_t max_len,
                                                                std::int64_t* permuted_indices) {
  const std::int64_t i = blockIdx.x;
  const std::int64_t n = __ldg(counts + i), src = __ldg(src_start + i), dst = __ldg(dst_start + i);
  for (std::int64_t j = threadIdx.x; j < n && dst + j < max_len; j += kThreads) permuted_indices[dst + j] = src + j;
  const auto fill = [&](std::int64_t begin, std::int64_t end) {
    if (end > max_len) end = max_len;
    for (std::int64_t j = begin + threadIdx.x; j < end; j += kThreads) permuted_indices[j] = -1;
  };
  if (i / experts == ranks - 1) fill(dst + n, expert_start[i % experts + 1]);
  if (i == 0) fill(expert_start[experts], max_len);
}

// permute_and_pad in one launch per matrix: every block builds generate_permute_indices' plan in
// shared memory (the same two scans as permute_plan_kernel, R·E <= kPlanPairs), then gathers with
// the source of each row found by two binary searches (expert, then rank inside the expert); the
// data launch also writes permuted_indices (lane 0 per row), block 0 m_sizes and m_offsets. No
// index array round trip, no fill, no scratch allocation.
constexpr std::int64_t kPlanPairs = 1024;
struct PermutePlan {
  std::int64_t src_start[kPlanPairs + 1];     // rank-major exclusive prefix of the counts
  std::int64_t dst_start[kPlanPairs];         // expert-major: pair (r, e) at e·R + r
  std::int64_t expert_start[kPlanPairs + 1];  // E + 1 used: padded expert starts
};

__device__ void build_permute_plan(const std::int64_t* counts, std::int64_t ranks, std::int64_t experts,
                                   std::int64_t alignment, PermutePlan& plan) {
  layout_detail::padded_scan([counts](std::int64_t i) { return __ldg(counts + i); }, ranks * experts, 1, plan.src_start);
  __syncthreads();
  // m_size = round_up(max(Σ_r count, alignment), alignment), as permute_plan_kernel
  const auto expert_rows = [=](std::int64_t e) {
    std::int64_t total = 0;
    for (std::int64_t r = 0; r < ranks; ++r) total += __ldg(counts + r * experts + e);
    return total > alignment ? total : alignment;
  };
  layout_detail::padded_scan(expert_rows, experts, alignment, plan.expert_start);
  __syncthreads();
  for (std::int64_t e = threadIdx.x; e < experts; e += kThreads) {
    std::int64_t write = plan.expert_start[e];
    for (std::int64_t r = 0; r < ranks; ++r) {
      plan.dst_start[e * ranks + r] = write;
      write += __ldg(counts + r * experts + e);
    }
  }
  __syncthreads();
}

// Row i of expert e (expert_start[e] <= i < expert_start[e+1]) belongs to the last rank r whose
// destination start is <= i (ranks with no rows share the start of the next one and are skipped
// by "last"); it copies x row src_start[(r, e)] + (i − dst_start) when inside the count, else it
// is padding (-1), as are the rows past expert_start[E].
struct PermutePadSource {
  const PermutePlan* plan;
  const std::int64_t* counts;
  std::int64_t ranks, experts;
  __device__ std::int64_t operator()(std::int64_t i) const {
    const std::int64_t e = first_above(plan->expert_start + 1, experts, i);
    if (e >= experts) return -1;
    const std::int64_t* d = plan->dst_start + e * ranks;  // d[0] = expert_start[e] <= i
    const std::int64_t r = first_above(d, ranks, i) - 1;
    const std::int64_t pair = r * experts + e, k = i - d[r];
    return k < __ldg(counts + pair) ? plan->src_start[pair] + k : -1;
  }
};

struct IndexHook {
  std::int64_t* permuted_indices;
  __device__ void operator()(std::int64_t row, std::int64_t s) const { permuted_indices[row] = s; }
};

// permuted_indices == nullptr: the scale matrix's launch (indices and sizes written by the data's).
template <class V>
__global__ void __launch_bounds__(kThreads)
    permute_pad_gather_kernel(const V* __restrict__ src, V* __restrict__ dst, std::int64_t max_len,
                              std::int64_t row_vecs, const std::int64_t* counts, std::int64_t ranks,
                              std::int64_t experts, std::int64_t alignment, std::int64_t* permuted_indices,
                              std::int64_t* m_sizes, std::int64_t* m_offsets) {
  __shared__ PermutePlan plan;
  build_permute_plan(counts, ranks, experts, alignment, plan);
  const PermutePadSource src_of{&plan, counts, ranks, experts};
  if (permuted_indices == nullptr) {
    gather_rows_body(src, dst, max_len, row_vecs, src_of);
    return;
  }
  if (blockIdx.x == 0)
    for (std::int64_t e = threadIdx.x; e < experts; e += kThreads) {
      m_sizes[e] = plan.expert_start[e + 1] - plan.expert_start[e];
      m_offsets[e] = plan.expert_start[e + 1];
    }
  gather_rows_body(src, dst, max_len, row_vecs, src_of, IndexHook{permuted_indices});
}

// ----------------------------------------------------------------------------
// GPU kernels: the row map of the routing (make_row_id_map)

// The map in two launches over B blocks, the routes in flat order i = t·K + k (the emulator's
// order, so tokens ascend inside each expert) cut into sub-blocks of S = kT · kRoutesPerThread
// routes (kT threads a block: RouteBlock), block b taking the `subs` consecutive sub-blocks
// [b·subs, (b+1)·subs). In a sub-block each warp walks a contiguous slice of S / (kT / 32) routes,
// 32 per step:
// __match_any_sync on the expert gives each lane the mask of the lanes of its step with its expert,
// and the lowest of them speaks for them. B is at most kRouteMaxBlocks (more routes make more
// sub-blocks per block), so the B x E counts that every rank block reads stay bounded and the
// work grows linearly with the routes.
// 1. route_count_kernel: block b's count per warp and expert (warp-private rows of shared memory,
//    no atomics), summed into counts[b·E + e]; where every block is one sub-block (and the table
//    is at most kRouteWarpTableInts) the per-warp counts are stored too.
// 2. route_rank_kernel: every block reads the B x E counts: per expert its total and the count in
//    blocks before b; two block scans over the experts give the padded starts and the padding
//    before each expert (block 0 writes tokens_per_expert, pad_offsets and padded_offs). Then, per
//    sub-block, its warps count their slices per expert into a warp x expert table (or take the
//    stored per-warp counts, saving a walk and two barriers), the table becomes the routes before
//    each warp's slice (earlier blocks, earlier sub-blocks, earlier warps), and each warp walks its
//    slice again: a route's row is its expert's padded start, plus that count, plus the routes to
//    that expert in earlier steps, plus the lanes below it with the same expert.
// Entries that name no expert (< 0, or >= E) get row -1. The first version ran one block per
// expert over all T·K routes (H100, the fused permute's benchmark: 47 us for the map of 16640
// routes to one expert, 29 us for 16 experts); one block for the whole map spent 29 us on its
// serial steps.
// Block sizes: kT threads of one route each per sub-block (64 registers a thread; at 1024 threads
// ptxas spilled). H100, fused_permute_pad with 8 routes per token (16640 routes), % of copy at 16 /
// 64 / 128 experts: 512 threads (33 blocks) 83.5-83.7 / 83.6-83.8 / 83.3-83.5, 256 threads (66
// blocks) 86.1-86.6 / 85.2-85.5 / 81.9-82.7, 128 threads 83.1-83.7 / 80.5-80.9 / 70.6-71.0: smaller
// blocks shorten each block's chain of barriers, more blocks make more B x E counts for every rank
// block to read. So 256 threads up to kRouteSmallExperts experts, 512 beyond.
constexpr int kRoutesPerThread = 1;  // one step of 32 routes per warp and lane batch
template <int kT>
struct RouteBlock {
  static constexpr int kThreads = kT, kWarps = kT / 32;
  static constexpr int kRoutes = kT * kRoutesPerThread;  // routes per sub-block
  // The rank phase's shared memory (RouteShared).
  __host__ __device__ static constexpr std::size_t shared_bytes(std::int64_t experts) {
    return std::size_t(4 * experts + 2) * sizeof(std::int64_t) + std::size_t(kWarps) * std::size_t(experts) * sizeof(int);
  }
};
constexpr int kRouteSmallExperts = 64;
constexpr int kRouteMaxThreads = 512;
constexpr int kRouteMaxBlocks = 256;
constexpr int kCountBatch = 32;  // route_starts: (block, expert) counts a thread loads at once
constexpr std::size_t kRouteWarpTableInts = std::size_t(1) << 20;  // per-warp counts kept: at most 4 MB
constexpr std::size_t kRouteSharedBudget = 160 * 1024;
constexpr std::int64_t kRouteMaxExperts =
    std::int64_t((kRouteSharedBudget - 2 * sizeof(std::int64_t)) /
                 (4 * sizeof(std::int64_t) + RouteBlock<kRouteMaxThreads>::kWarps * sizeof(int)));

// step(i, in, e, same) for each route i of this warp's slice of the sub-block of routes [begin,
// begin + RouteBlock<kT>::kRoutes) ∩ [., end) (32-bit indices: the host refuses more than 2^31 - 1 -
// RouteBlock<kT>::kRoutes routes; `in`: i is before the slice's end, else e = -1), `same` the lanes of
// its step that name expert e. Whole warps; a __syncwarp after each step (the next lowest lane may
// differ).
template <int kT, class Step>
__device__ __forceinline__ void walk_routes(const std::int32_t* expert_t_k, int begin, int end, std::int64_t experts,
                                            Step step) {
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  constexpr int kWarpRoutes = RouteBlock<kT>::kRoutes / RouteBlock<kT>::kWarps;
  const int lo = begin + warp * kWarpRoutes;
  const int hi = lo + kWarpRoutes < end ? lo + kWarpRoutes : end;
  int e[kRoutesPerThread];
#pragma unroll
  for (int u = 0; u < kRoutesPerThread; ++u) {  // every load first
    const int i = lo + 32 * u + lane;
    e[u] = i < hi ? __ldg(expert_t_k + i) : -1;
    if (e[u] >= experts) e[u] = -1;
  }
#pragma unroll
  for (int u = 0; u < kRoutesPerThread; ++u) {
    const int i = lo + 32 * u + lane;
    step(i, i < hi, e[u], __match_any_sync(0xFFFFFFFFu, e[u]));
    __syncwarp();
  }
}

// The routes [begin, end) per warp and expert into table (RouteBlock<kT>::kWarps x E ints of shared
// memory: warp w's slices of every sub-block in row w; warp-private rows, no atomics). Every thread
// of the block calls it; the counts are complete after it.
template <int kT>
__device__ inline void count_routes(const std::int32_t* expert_t_k, int begin, int end, std::int64_t experts, int* table) {
  for (std::int64_t j = threadIdx.x; j < RouteBlock<kT>::kWarps * experts; j += kT) table[j] = 0;
  __syncthreads();
  const unsigned lanes_below = (1u << (threadIdx.x % 32)) - 1u;
  int* counts_w = table + (threadIdx.x / 32) * experts;
  for (int sub = begin; sub < end; sub += RouteBlock<kT>::kRoutes)
    walk_routes<kT>(expert_t_k, sub, end, experts, [&](int, bool, int e, unsigned same) {
      if (e >= 0 && (same & lanes_below) == 0u) counts_w[e] += __popc(same);
    });
  __syncthreads();
}

// The rank phase's shared memory (RouteBlock<kT>::shared_bytes(E)).
template <int kT>
struct RouteShared {
  std::int64_t* start;    // (E + 1) padded starts
  std::int64_t* padding;  // (E + 1) padding rows before each expert
  std::int64_t* total;    // (E) routes per expert
  std::int64_t* before;   // (E) routes per expert before this block's next route
  int* table;             // (RouteBlock<kT>::kWarps, E)
  __device__ RouteShared(void* base, std::int64_t E)
      : start(static_cast<std::int64_t*>(base)), padding(start + E + 1), total(padding + E + 1), before(total + E),
        table(reinterpret_cast<int*>(before + E)) {}
};

// total, before (the routes of blocks < b), start and padding from route_count_kernel's per-block
// counts (blocks x E), then block 0 stores the caller's per-expert outputs. Every thread of the
// block calls it.
template <int kT>
__device__ inline void route_starts(const int* counts, int blocks, int b, std::int64_t E, std::int64_t alignment,
                                    const RouteShared<kT>& sh, std::int64_t* tokens_per_expert, std::int64_t* pad_offsets,
                                    std::int64_t* padded_offs) {
  // Thread (g, e) of `groups` per expert sums the counts of blocks g, g + groups, ... in registers,
  // loading kCountBatch of them at a time, then adds its two sums into 32-bit shared counters (the
  // first 2E entries of the table, which rank_routes clears again). A loop of one load per expert
  // and block was a chain of round trips; shared atomics per entry contended (a thread's entries
  // are one expert's). H100, 8 routes per token to 128 experts, 512-thread blocks: 64-bit atomics
  // per entry 79.5% of copy, 32-bit ones 82.3-83.6%, these sums (8 at a time) 83.2-84.8%.
  const int tid = int(threadIdx.x);
  int* total_i = sh.table;
  int* before_i = sh.table + E;
  for (std::int64_t e = tid; e < 2 * E; e += kT) sh.table[e] = 0;
  __syncthreads();
  const int per = E < kT ? int(E) : kT;  // experts per pass
  const int groups = kT / per, g = tid / per;
  if (g < groups)
    for (int e = tid % per; e < int(E); e += per) {
      int sum = 0, sum_before = 0;
      for (int j0 = g; j0 < blocks; j0 += groups * kCountBatch) {
        int c[kCountBatch];
#pragma unroll
        for (int u = 0; u < kCountBatch; ++u) {  // every load first: one round trip per batch
          const int j = j0 + u * groups;
          c[u] = j < blocks ? __ldcg(counts + std::int64_t(j) * E + e) : 0;
        }
#pragma unroll
        for (int u = 0; u < kCountBatch; ++u) {
          sum += c[u];
          if (j0 + u * groups < b) sum_before += c[u];
        }
      }
      if (sum != 0) atomicAdd(total_i + e, sum);
      if (sum_before != 0) atomicAdd(before_i + e, sum_before);
    }
  __syncthreads();
  for (std::int64_t e = tid; e < E; e += kT) {
    sh.total[e] = total_i[e];
    sh.before[e] = before_i[e];
  }
  __syncthreads();
  const std::int64_t* total = sh.total;
  layout_detail::padded_scan<kT>([total](std::int64_t e) { return total[e]; }, E, alignment, sh.start);
  layout_detail::padded_scan<kT>(
      [total, alignment](std::int64_t e) { return (total[e] + alignment - 1) / alignment * alignment - total[e]; }, E, 1,
      sh.padding);
  if (b == 0)
    for (std::int64_t e = tid; e < E; e += kT) {
      tokens_per_expert[e] = sh.total[e];
      pad_offsets[e] = sh.padding[e];
      padded_offs[e] = sh.start[e + 1];
    }
}

// The rows of the routes [begin, end) (in sub-blocks of RouteBlock<kT>::kRoutes): row_t_k[i] =
// start[e] + the routes to e before i; route_of_row[row] = i when given (row < route_rows).
// `before` moves past them. Every thread of the block calls it.
// warp_counts (or null): the block's one sub-block counted per warp and expert by
// route_count_kernel (kWarps x E), which then replace this block's own first walk; where E <= kT
// the caller has loaded those of expert threadIdx.x into `loaded`.
template <int kT>
__device__ inline void rank_routes(const std::int32_t* expert_t_k, int begin, int end, std::int64_t E,
                                   const RouteShared<kT>& sh, const int* warp_counts,
                                   const int (&loaded)[RouteBlock<kT>::kWarps], std::int64_t* row_t_k,
                                   std::int64_t* route_of_row, std::int64_t route_rows) {
  constexpr int kWarps = RouteBlock<kT>::kWarps;
  const int tid = int(threadIdx.x), warp = tid / 32;
  const unsigned lanes_below = (1u << (tid % 32)) - 1u;
  int* table = sh.table;
  int* counts_w = table + std::int64_t(warp) * E;
  for (int sub = begin; sub < end; sub += RouteBlock<kT>::kRoutes) {
    // (count_routes' first barrier: every warp is done with the previous sub-block's table and
    // `before`)
    if (warp_counts == nullptr)
      count_routes<kT>(expert_t_k, sub, sub + RouteBlock<kT>::kRoutes < end ? sub + RouteBlock<kT>::kRoutes : end, E,
                       table);
    // table[w][e]: the routes to e before warp w's slice (< 2^31: 32-bit); before[e] moves past
    // this sub-block.
    for (std::int64_t e = tid; e < E; e += kT) {
      int c[kWarps];
#pragma unroll
      for (int w = 0; w < kWarps; ++w)  // every load first: one round trip
        c[w] = warp_counts == nullptr ? table[std::int64_t(w) * E + e]
               : E <= kT              ? loaded[w]
                                      : __ldcg(warp_counts + std::int64_t(w) * E + e);
      std::int64_t run = sh.before[e];
#pragma unroll
      for (int w = 0; w < kWarps; ++w) {
        table[std::int64_t(w) * E + e] = int(run);
        run += c[w];
      }
      sh.before[e] = run;
    }
    __syncthreads();
    walk_routes<kT>(expert_t_k, sub, end, E, [&](int i, bool in, int e, unsigned same) {
      const std::int64_t row = e >= 0 ? sh.start[e] + counts_w[e] + __popc(same & lanes_below) : -1;
      __syncwarp();
      if (e >= 0 && (same & lanes_below) == 0u) counts_w[e] += __popc(same);
      if (in) row_t_k[i] = row;
      if (in && route_of_row != nullptr && row >= 0 && row < route_rows) route_of_row[row] = i;
    });
    __syncthreads();
  }
}

// Block b's routes in make_row_id_map's two launches: sub-blocks b·subs .. (b + 1)·subs − 1.
template <int kT>
__device__ inline int2 block_routes(int routes, int subs) {
  const int begin = int(blockIdx.x) * subs * RouteBlock<kT>::kRoutes;
  const int end = begin + subs * RouteBlock<kT>::kRoutes < routes ? begin + subs * RouteBlock<kT>::kRoutes : routes;
  return make_int2(begin, end);
}

// counts[b·E + e]: block b's routes to e; warp_counts (or null, blocks of one sub-block only):
// block b's per-warp counts at warp_counts[(b·kWarps + w)·E + e].
template <int kT>
__global__ void __launch_bounds__(kT)
    route_count_kernel(const std::int32_t* expert_t_k, int routes, std::int64_t experts, int subs, int* counts,
                       int* warp_counts) {
  constexpr int kWarps = RouteBlock<kT>::kWarps;
  extern __shared__ int count_smem[];
  pdl_wait();
  pdl_launch_dependents();
  const int2 r = block_routes<kT>(routes, subs);
  count_routes<kT>(expert_t_k, r.x, r.y, experts, count_smem);
  const std::int64_t b = blockIdx.x;
  for (std::int64_t e = threadIdx.x; e < experts; e += kT) {
    int sum = 0;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
      const int c = count_smem[std::int64_t(w) * experts + e];
      sum += c;
      if (warp_counts != nullptr) warp_counts[(b * kWarps + w) * experts + e] = c;
    }
    counts[b * experts + e] = sum;
  }
}

template <int kT>
__global__ void __launch_bounds__(kT)
    route_rank_kernel(const std::int32_t* expert_t_k, int routes, std::int64_t experts, int subs,
                      std::int64_t alignment, const int* counts, const int* warp_counts, std::int64_t* row_t_k,
                      std::int64_t* tokens_per_expert, std::int64_t* pad_offsets, std::int64_t* padded_offs,
                      std::int64_t* route_of_row, std::int64_t route_rows) {
  extern __shared__ std::int64_t route_smem[];
  const int2 r = block_routes<kT>(routes, subs);
  // This thread's route of the block's first sub-block into L1 while route_count_kernel runs:
  // expert_t_k is no kernel's output in this chain (route_count_kernel waited for its producer
  // before it let this kernel start).
  if (r.x + int(threadIdx.x) < r.y) asm volatile("prefetch.global.L1 [%0];" ::"l"(expert_t_k + r.x + threadIdx.x));
  pdl_wait();
  pdl_launch_dependents();
  const std::int64_t E = experts;
  const RouteShared<kT> sh(route_smem, E);
  const int tid = int(threadIdx.x), blocks = int(gridDim.x), b = int(blockIdx.x);
  // The block's per-warp counts of expert tid (one expert per thread where E <= kT), loaded before
  // route_starts so that their round trip overlaps its own.
  constexpr int kWarps = RouteBlock<kT>::kWarps;
  const int* block_warp_counts = warp_counts != nullptr ? warp_counts + std::int64_t(b) * kWarps * E : nullptr;
  int loaded[kWarps] = {};
  if (block_warp_counts != nullptr && E <= kT && tid < E)
#pragma unroll
    for (int w = 0; w < kWarps; ++w) loaded[w] = __ldcg(block_warp_counts + std::int64_t(w) * E + tid);
  route_starts<kT>(counts, blocks, b, E, alignment, sh, tokens_per_expert, pad_offsets, padded_offs);
  // The inverse map's rows of no route: expert e's pad rows [start[e] + total[e], start[e + 1]) (by
  // block e % blocks) and the rows from start[E] on (by every block).
  if (route_of_row != nullptr) {
    for (std::int64_t e = b; e < E; e += blocks)
      for (std::int64_t row = sh.start[e] + sh.total[e] + tid; row < sh.start[e + 1] && row < route_rows;
           row += kT)
        route_of_row[row] = -1;
    for (std::int64_t row = sh.start[E] + std::int64_t(b) * kT + tid; row < route_rows;
         row += std::int64_t(blocks) * kT)
      route_of_row[row] = -1;
  }
  rank_routes<kT>(expert_t_k, r.x, r.y, E, sh, block_warp_counts, loaded, row_t_k, route_of_row, route_rows);
}

// ----------------------------------------------------------------------------
// kernel launcher

void check_rows(const DeviceRows& r, const char* what, bool scales) {
  if (r.rows < 0 || r.cols < 0)
    throw std::invalid_argument(std::string(what) + ": negative shape (" + std::to_string(r.rows) + ", " +
                                std::to_string(r.cols) + ")");
  const bool ok = scales ? (r.element_bytes == 1 || r.element_bytes == 4)
                         : (r.element_bytes == 1 || r.element_bytes == 2 || r.element_bytes == 4);
  if (!ok) throw std::invalid_argument(std::string(what) + ": element_bytes " + std::to_string(r.element_bytes) + " not supported");
  if (r.rows * r.cols != 0 && r.data == nullptr) throw std::invalid_argument(std::string(what) + ": null data for a non-empty matrix");
}

// Blocks of a grid-stride gather: one warp per row up to `per_sm` resident blocks per SM (8 blocks
// of 256 threads fill an SM; kernels with more shared memory pass their occupancy, so that every
// block is resident and no second wave repeats their start-up).
unsigned gather_blocks(std::int64_t rows, int per_sm = 8) {
  const int sms = layout_detail::multiprocessors();
  const std::int64_t wanted = (rows + kWarpsPerBlock - 1) / kWarpsPerBlock;
  const std::int64_t cap = std::int64_t(sms) * per_sm;
  return unsigned(wanted < 1 ? 1 : (wanted < cap ? wanted : cap));
}

// Calls launch(src, dst, row_vecs) with src and dst as pointers to the widest access type (uint4,
// uint32_t, uint8_t) that the row bytes and both pointers allow, then checks the launch.
template <class Launch>
void with_access_width(const void* src, void* dst, std::int64_t row_bytes, Launch launch) {
  const auto a = reinterpret_cast<std::uintptr_t>(src) | reinterpret_cast<std::uintptr_t>(dst);
  if (row_bytes % 16 == 0 && a % 16 == 0)
    launch(static_cast<const uint4*>(src), static_cast<uint4*>(dst), row_bytes / 16);
  else if (row_bytes % 4 == 0 && a % 4 == 0)
    launch(static_cast<const std::uint32_t*>(src), static_cast<std::uint32_t*>(dst), row_bytes / 4);
  else
    launch(static_cast<const std::uint8_t*>(src), static_cast<std::uint8_t*>(dst), row_bytes);
  check_launch();
}

// dst (dst_rows, row_bytes) <- src rows by src_of_row (a row source above); on_row(row, source) per
// row (lane 0) when given.
template <class Source, class RowHook = NoRowHook>
void gather_rows(const void* src, void* dst, std::int64_t dst_rows, std::int64_t row_bytes, Source src_of_row,
                 cudaStream_t stream, RowHook on_row = {}) {
  if (dst_rows == 0 || row_bytes == 0) return;
  const unsigned blocks = gather_blocks(dst_rows);
  with_access_width(src, dst, row_bytes, [&](const auto* in, auto* out, std::int64_t row_vecs) {
    using V = std::remove_cv_t<std::remove_pointer_t<decltype(in)>>;
    gather_rows_kernel<V, Source, RowHook><<<blocks, kThreads, 0, stream>>>(in, out, dst_rows, row_vecs, src_of_row,
                                                                             on_row);
  });
}

// pad_token_groups' gather of one matrix (data or scales) with the scan inside (pad_gather_kernel).
void pad_gather(const void* src, void* dst, std::int64_t dst_rows, std::int64_t row_bytes, const std::int64_t* offs,
                std::int64_t groups, std::int64_t alignment, std::int64_t* starts_out, cudaStream_t stream) {
  const unsigned blocks = gather_blocks(dst_rows);
  with_access_width(src, dst, row_bytes, [&](const auto* in, auto* out, std::int64_t row_vecs) {
    using V = std::remove_cv_t<std::remove_pointer_t<decltype(in)>>;
    pad_gather_kernel<V><<<blocks, kThreads, 0, stream>>>(in, out, dst_rows, row_vecs, offs, groups, alignment,
                                                          starts_out);
  });
}

// Data rows and (when present) scale rows through one map.
template <class Source>
void gather_with_scales(const DeviceRows& x, const DeviceRows& scales, void* y, void* y_scales, std::int64_t dst_rows,
                        Source src_of_row, cudaStream_t stream) {
  gather_rows(x.data, y, dst_rows, x.row_bytes(), src_of_row, stream);
  if (scales.cols > 0) gather_rows(scales.data, y_scales, dst_rows, scales.row_bytes(), src_of_row, stream);
}

// inverse (n_inverse,) = -1, then inverse[index[i]] = i for the n entries of index that are >= 0:
// one block when small, else a fill and a scatter launch.
void inverse_map(const std::int64_t* index, std::int64_t n, std::int64_t* inverse, std::int64_t n_inverse,
                 cudaStream_t stream) {
  if (n_inverse == 0) return;
  // The fill, then the scatter over the whole GPU. One block doing both (its barrier ordering
  // them, one launch less) took about 20 us of unpermute_tokens' 149 us on an H100 (16640 rows).
  layout_detail::fill_int64(inverse, n_inverse, -1, stream);
  if (n > 0) {
    launch_pdl(scatter_inverse_kernel, blocks_for(n, kThreads), kThreads, 0, stream, index, n, inverse);
  }
}

void check_scales(const DeviceRows& scales, std::int64_t rows, const char* what) {
  if (scales.cols == 0) return;
  check_rows(scales, what, true);
  if (scales.rows != rows)
    throw std::invalid_argument(std::string(what) + ": rows (one scale row per data row): expected " +
                                std::to_string(rows) + ", got " + std::to_string(scales.rows));
}

}  // namespace

std::int64_t padded_token_rows(std::int64_t tokens, std::int64_t groups, std::int64_t alignment) {
  return (tokens + groups * alignment + alignment - 1) / alignment * alignment;
}

void pad_token_groups(DeviceRows x, DeviceRows scales, const std::int64_t* offs, std::int64_t groups,
                      std::int64_t alignment, void* y, void* y_scales, std::int64_t* starts, cudaStream_t stream) {
  check_rows(x, "x", false);
  check_scales(scales, x.rows, "scales");
  if (alignment < 1) throw std::invalid_argument("alignment must be >= 1, got " + std::to_string(alignment));
  const std::int64_t out_rows = padded_token_rows(x.rows, groups, alignment);
  const bool data = out_rows > 0 && x.row_bytes() > 0, with_scales = scales.cols > 0 && out_rows > 0;
  if (groups > kFusedScanGroups || !data) {  // a separate scan launch, then the gathers
    layout_detail::padded_group_starts(offs, groups, alignment, starts, stream);
    gather_with_scales(x, scales, y, y_scales, out_rows, PadSource{offs, groups, starts}, stream);
    return;
  }
  // One launch per matrix, each scanning the groups itself; the data gather stores the starts.
  pad_gather(x.data, y, out_rows, x.row_bytes(), offs, groups, alignment, starts, stream);
  if (with_scales) pad_gather(scales.data, y_scales, out_rows, scales.row_bytes(), offs, groups, alignment, nullptr, stream);
}

void unpad_token_groups(DeviceRows padded, DeviceRows padded_scales, const std::int64_t* offs, std::int64_t groups,
                        const std::int64_t* padded_starts, std::int64_t num_tokens, void* y, void* y_scales,
                        cudaStream_t stream) {
  check_rows(padded, "padded", false);
  check_scales(padded_scales, padded.rows, "padded_scales");
  if (num_tokens < 0) throw std::invalid_argument("num_tokens must be >= 0, got " + std::to_string(num_tokens));
  gather_with_scales(padded, padded_scales, y, y_scales, num_tokens, UnpadSource{offs, groups, padded_starts}, stream);
}

void permute_tokens(DeviceRows x, DeviceRows scales, const std::int64_t* indices, std::int64_t n, void* y,
                    void* y_scales, cudaStream_t stream) {
  check_rows(x, "x", false);
  check_scales(scales, x.rows, "scales");
  gather_with_scales(x, scales, y, y_scales, n, MapSource{indices}, stream);
}

void unpermute_tokens(DeviceRows x, DeviceRows scales, const std::int64_t* indices, std::int64_t num_tokens, void* y,
                      void* y_scales, cudaStream_t stream) {
  check_rows(x, "y", false);
  check_scales(scales, x.rows, "scales");
  if (num_tokens < 0) throw std::invalid_argument("num_tokens must be >= 0, got " + std::to_string(num_tokens));
  StreamScratch<std::int64_t> map(std::size_t(num_tokens), stream);
  inverse_map(indices, x.rows, map.get(), num_tokens, stream);
  gather_with_scales(x, scales, y, y_scales, num_tokens, MapSource{map.get()}, stream);
}

void permute_and_pad(DeviceRows x, DeviceRows scales, const std::int64_t* tokens_per_expert_group,
                     std::int64_t ep_degree, std::int64_t num_local_experts, std::int64_t alignment, void* y,
                     void* y_scales, std::int64_t* permuted_indices, std::int64_t* m_sizes, std::int64_t* m_offsets,
                     cudaStream_t stream) {
  check_rows(x, "x", false);
  check_scales(scales, x.rows, "scales");
  if (alignment < 1) throw std::invalid_argument("alignment must be >= 1, got " + std::to_string(alignment));
  if (ep_degree < 1) throw std::invalid_argument("ep_degree must be >= 1, got " + std::to_string(ep_degree));
  if (num_local_experts < 1)
    throw std::invalid_argument("num_local_experts must be >= 1, got " + std::to_string(num_local_experts));
  const std::int64_t pairs = ep_degree * num_local_experts;
  const std::int64_t max_len = permute_and_pad_rows(x.rows, num_local_experts, alignment);
  if (pairs <= kPlanPairs && x.row_bytes() > 0) {  // one launch per matrix (permute_pad_gather_kernel)
    const auto gather = [&](const void* src, void* dst, std::int64_t row_bytes, bool data) {
      with_access_width(src, dst, row_bytes, [&](const auto* in, auto* out, std::int64_t row_vecs) {
        using V = std::remove_cv_t<std::remove_pointer_t<decltype(in)>>;
        static const int per_sm = [] {  // the plan's ~29 KB of shared memory allows 7, not 8
          int n = 0;
          OCTET_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, permute_pad_gather_kernel<V>, kThreads, 0));
          return n < 1 ? 1 : n;
        }();
        permute_pad_gather_kernel<V><<<gather_blocks(max_len, per_sm), kThreads, 0, stream>>>(
            in, out, max_len, row_vecs, tokens_per_expert_group, ep_degree, num_local_experts, alignment,
            data ? permuted_indices : nullptr, m_sizes, m_offsets);
      });
    };
    gather(x.data, y, x.row_bytes(), true);
    if (scales.cols > 0) gather(scales.data, y_scales, scales.row_bytes(), false);
    return;
  }
  StreamScratch<std::int64_t> src_start(static_cast<std::size_t>(pairs + 1), stream),
      dst_start(static_cast<std::size_t>(pairs), stream), expert_start(static_cast<std::size_t>(num_local_experts + 1), stream);
  permute_plan_kernel<<<1, kThreads, 0, stream>>>(tokens_per_expert_group, ep_degree, num_local_experts, alignment,
                                                  src_start.get(), expert_start.get(), dst_start.get(), m_sizes,
                                                  m_offsets);
  check_launch();
  permute_fill_kernel<<<unsigned(pairs), kThreads, 0, stream>>>(tokens_per_expert_group, src_start.get(), dst_start.get(),
                                                               expert_start.get(), ep_degree, num_local_experts, max_len,
                                                               permuted_indices);
  check_launch();
  gather_with_scales(x, scales, y, y_scales, max_len, MapSource{permuted_indices}, stream);
}

namespace {

// The bulk permute's slices: the row (row_bytes % 16 == 0) in equal slices of whole 16-byte
// vectors, at most kBulkSliceBytes each (the last one shorter).
BulkPermuteShape bulk_permute_shape(std::int64_t row_bytes) {
  BulkPermuteShape shape;
  shape.slices = (row_bytes + kBulkSliceBytes - 1) / kBulkSliceBytes;
  const std::int64_t vecs = row_bytes / 16;
  shape.slice_bytes = std::uint32_t((vecs + shape.slices - 1) / shape.slices * 16);
  shape.slices = (row_bytes + shape.slice_bytes - 1) / shape.slice_bytes;
  shape.slot_bytes = (shape.slice_bytes + 127u) / 128u * 128u;
  return shape;
}
// Whether x's rows and y take the bulk copies (16-byte sizes and addresses).
bool bulk_rows(const DeviceRows& x, const void* y) {
  return x.row_bytes() > 0 && x.row_bytes() % 16 == 0 &&
         (reinterpret_cast<std::uintptr_t>(x.data) | reinterpret_cast<std::uintptr_t>(y)) % 16 == 0;
}

// The fused permute's data and scale rows from the inverse map (route_of_row, `rows` entries),
// launched right after the kernel that wrote it (permute_bulk_kernel reads x before its wait).
void permute_by_inverse(DeviceRows x, DeviceRows scales, const std::int64_t* row_t_k, std::int64_t tokens,
                        std::int64_t topk, std::int64_t rows, const float* probs, void* y, void* y_scales,
                        float* y_probs, const std::int64_t* route_of_row, cudaStream_t stream) {
  if (bulk_rows(x, y)) {  // data rows by token through the bulk copy engine, probs inside; scale rows gathered
    const BulkPermuteShape shape = bulk_permute_shape(x.row_bytes());
    static const bool allowed = [] {  // the largest slices' shared memory (83 KB)
      OCTET_CUDA_CHECK(cudaFuncSetAttribute(permute_bulk_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            int(BulkPermuteShape{kBulkSliceBytes, kBulkSliceBytes, 1}.smem())));
      return true;
    }();
    (void)allowed;
    int resident = 0;
    OCTET_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, permute_bulk_kernel, 32, shape.smem()));
    const std::int64_t items = tokens * shape.slices;
    const std::int64_t cap = std::int64_t(layout_detail::multiprocessors()) * std::max(resident, 1);
    const unsigned grid = unsigned(std::max<std::int64_t>(1, std::min(items, cap)));
    launch_pdl(permute_bulk_kernel, grid, 32, shape.smem(), stream, static_cast<const std::uint8_t*>(x.data),
               static_cast<std::uint8_t*>(y), tokens, topk, rows, x.row_bytes(), shape, row_t_k, probs, route_of_row,
               y_probs);
    if (scales.cols > 0)
      gather_rows(scales.data, y_scales, rows, scales.row_bytes(), RouteSource{route_of_row, topk}, stream);
    return;
  }
  if (x.row_bytes() > 0) {  // data rows by token, probs inside; scale rows gathered
    with_access_width(x.data, y, x.row_bytes(), [&](const auto* in, auto* out, std::int64_t row_vecs) {
      using V = std::remove_cv_t<std::remove_pointer_t<decltype(in)>>;
      static const int per_sm = [] {  // resident blocks (62 registers a thread for 16-byte rows)
        int n = 0;
        OCTET_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, permute_scatter_kernel<V>, kThreads, 0));
        return n < 1 ? 1 : n;
      }();
      const std::int64_t items = tokens * ((row_vecs + 32 * kUnroll - 1) / (32 * kUnroll));
      launch_pdl(permute_scatter_kernel<V>, gather_blocks(std::max(rows, items), per_sm), kThreads, 0, stream, in, out,
                 tokens, topk, rows, row_vecs, row_t_k, probs, route_of_row, y_probs);
    });
    if (scales.cols > 0)
      gather_rows(scales.data, y_scales, rows, scales.row_bytes(), RouteSource{route_of_row, topk}, stream);
    return;
  }
  StreamScratch<std::int64_t> data_src(std::size_t(rows), stream), scale_src(std::size_t(rows), stream);
  permute_pad_map_kernel<<<blocks_for(rows, kThreads), kThreads, 0, stream>>>(route_of_row, rows, topk, probs,
                                                                            data_src.get(), scale_src.get(), y_probs);
  check_launch();
  gather_rows(x.data, y, rows, x.row_bytes(), MapSource{data_src.get()}, stream);
  if (scales.cols > 0) gather_rows(scales.data, y_scales, rows, scales.row_bytes(), MapSource{scale_src.get()}, stream);
}

}  // namespace

void fused_permute_pad(DeviceRows x, DeviceRows scales, const std::int64_t* row_t_k, std::int64_t tokens,
                       std::int64_t topk, std::int64_t rows, const float* probs, void* y, void* y_scales,
                       float* y_probs, cudaStream_t stream) {
  check_rows(x, "x", false);
  check_scales(scales, x.rows, "scales");
  if (tokens != x.rows)
    throw std::invalid_argument("routing.tokens (rows of x): expected " + std::to_string(x.rows) + ", got " +
                                std::to_string(tokens));
  if (rows == 0) return;
  const StreamScratch<std::int64_t> route_of_row(std::size_t(rows), stream);
  inverse_map(row_t_k, tokens * topk, route_of_row.get(), rows, stream);
  permute_by_inverse(x, scales, row_t_k, tokens, topk, rows, probs, y, y_scales, y_probs, route_of_row.get(), stream);
}

void route_permute_pad(const std::int32_t* expert_t_k, std::int64_t tokens, std::int64_t topk, std::int64_t experts,
                       std::int64_t alignment, DeviceRows x, DeviceRows scales, const float* probs, std::int64_t rows,
                       void* y, void* y_scales, float* y_probs, std::int64_t* row_t_k,
                       std::int64_t* tokens_per_expert, std::int64_t* pad_offsets, std::int64_t* padded_offs,
                       cudaStream_t stream) {
  check_rows(x, "x", false);
  check_scales(scales, x.rows, "scales");
  if (tokens != x.rows)
    throw std::invalid_argument("routing.tokens (rows of x): expected " + std::to_string(x.rows) + ", got " +
                                std::to_string(tokens));
  if (rows < 0) throw std::invalid_argument("route_permute_pad: negative row count " + std::to_string(rows));
  const StreamScratch<std::int64_t> route_of_row(std::size_t(rows), stream);
  make_row_id_map(expert_t_k, tokens, topk, experts, alignment, row_t_k, tokens_per_expert, pad_offsets, padded_offs,
                  route_of_row.get(), rows, stream);
  if (rows == 0) return;
  permute_by_inverse(x, scales, row_t_k, tokens, topk, rows, probs, y, y_scales, y_probs, route_of_row.get(), stream);
}

void fused_unpermute_unpad(DeviceRows permuted, InputType type, const std::int64_t* row_t_k, std::int64_t tokens,
                           std::int64_t topk, const float* merging_probs, CombineSpec spec, void* out,
                           cudaStream_t stream, bool quiet_nan) {
  check_rows(permuted, "permuted", false);
  const std::int64_t want = type == InputType::bf16 ? 2 : 4;
  if (permuted.element_bytes != want)
    throw std::invalid_argument(std::string("permuted.element_bytes (") + (type == InputType::bf16 ? "bf16" : "fp32") +
                                "): expected " + std::to_string(want) + ", got " + std::to_string(permuted.element_bytes));
  if (tokens == 0 || permuted.cols == 0) return;
  const bool vectorized = (reinterpret_cast<std::uintptr_t>(permuted.data) | reinterpret_cast<std::uintptr_t>(out)) % 16 == 0 &&
                          permuted.row_bytes() % 16 == 0;
  const std::size_t smem = std::size_t(combine_route_slots(topk)) * (sizeof(std::int64_t) + sizeof(float));
  const bool desc = spec.order == CombineOrder::row_descending;
  const unsigned blocks = unsigned(tokens);
  const std::int64_t per_vec = type == InputType::bf16 ? 8 : 4;
  const unsigned threads = combine_threads(vectorized ? permuted.cols / per_vec : 0, permuted.cols);
  auto run = [&](auto kernel, auto* in, auto* o) {
    if (smem > 48 * 1024) OCTET_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    kernel<<<blocks, threads, smem, stream>>>(in, permuted.cols, row_t_k, topk, merging_probs, desc, vectorized,
                                               quiet_nan, o);
    check_launch();
  };
  if (type == InputType::bf16) {
    auto* in = static_cast<const std::uint16_t*>(permuted.data);
    auto* o = static_cast<std::uint16_t*>(out);
    if (spec.fused_multiply_add) run(combine_kernel<InputType::bf16, true>, in, o);
    else run(combine_kernel<InputType::bf16, false>, in, o);
  } else {
    auto* in = static_cast<const float*>(permuted.data);
    auto* o = static_cast<float*>(out);
    if (spec.fused_multiply_add) run(combine_kernel<InputType::fp32, true>, in, o);
    else run(combine_kernel<InputType::fp32, false>, in, o);
  }
}

void make_row_id_map(const std::int32_t* expert_t_k, std::int64_t tokens, std::int64_t topk, std::int64_t experts,
                     std::int64_t alignment, std::int64_t* row_t_k, std::int64_t* tokens_per_expert,
                     std::int64_t* pad_offsets, std::int64_t* padded_offs, std::int64_t* route_of_row,
                     std::int64_t route_rows, cudaStream_t stream) {
  if (tokens < 0 || topk < 0) throw std::invalid_argument("routing: negative shape");
  if (experts < 1) throw std::invalid_argument("routing.experts must be >= 1, got " + std::to_string(experts));
  if (alignment < 1) throw std::invalid_argument("alignment must be >= 1, got " + std::to_string(alignment));
  // Two launches (route_count_kernel, route_rank_kernel) over blocks of kT routes (RouteBlock).
  const std::int64_t routes = tokens * topk;
  constexpr int kMostRoutes = std::numeric_limits<int>::max() - kRouteMaxThreads * kRoutesPerThread;
  if (routes > kMostRoutes)  // 32-bit counts and route indices
    throw std::invalid_argument("make_row_id_map: " + std::to_string(routes) + " routes; the CUDA kernels take at most " +
                                std::to_string(kMostRoutes));
  if (experts > kRouteMaxExperts)
    throw std::invalid_argument("make_row_id_map: " + std::to_string(experts) +
                                " experts; the CUDA kernels' shared tables hold at most " + std::to_string(kRouteMaxExperts));
  const auto launch = [&](auto block) {
    using Block = decltype(block);
    constexpr int kT = Block::kThreads;
    // At most kRouteMaxBlocks blocks of `subs` sub-blocks each.
    const std::int64_t sub_count = std::max<std::int64_t>(1, (routes + Block::kRoutes - 1) / Block::kRoutes);
    const std::int64_t subs = (sub_count + kRouteMaxBlocks - 1) / kRouteMaxBlocks;
    const unsigned blocks = unsigned((sub_count + subs - 1) / subs);
    // Blocks of one sub-block take their per-warp counts from route_count_kernel too (the rank
    // kernel then walks its routes once, not twice), where that table stays small.
    const std::size_t table_ints = std::size_t(Block::kWarps) * std::size_t(experts);
    const bool warp_table = subs == 1 && std::size_t(blocks) * table_ints <= kRouteWarpTableInts;
    const StreamScratch<int> counts(std::size_t(blocks) * (std::size_t(experts) + (warp_table ? table_ints : 0)), stream);
    int* warp_counts = warp_table ? counts.get() + std::size_t(blocks) * std::size_t(experts) : nullptr;
    const std::size_t count_smem = table_ints * sizeof(int), rank_smem = Block::shared_bytes(experts);
    if (count_smem > 48 * 1024)
      OCTET_CUDA_CHECK(cudaFuncSetAttribute(route_count_kernel<kT>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            int(count_smem)));
    if (rank_smem > 48 * 1024)
      OCTET_CUDA_CHECK(cudaFuncSetAttribute(route_rank_kernel<kT>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            int(rank_smem)));
    // Programmatic dependent launches (sm90_pdl.cuh): each kernel's launch overlaps the end of the
    // one before it.
    launch_pdl(route_count_kernel<kT>, blocks, kT, count_smem, stream, expert_t_k, int(routes), experts, int(subs),
               counts.get(), warp_counts);
    launch_pdl(route_rank_kernel<kT>, blocks, kT, rank_smem, stream, expert_t_k, int(routes), experts, int(subs),
               alignment, static_cast<const int*>(counts.get()), static_cast<const int*>(warp_counts), row_t_k,
               tokens_per_expert, pad_offsets, padded_offs, route_of_row, route_of_row != nullptr ? route_rows : 0);
  };
  if (experts <= kRouteSmallExperts) launch(RouteBlock<256>{});
  else launch(RouteBlock<kRouteMaxThreads>{});
}

}  // namespace octet::cuda
