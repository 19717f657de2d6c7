// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// sm90_bf16_fp8_blockwise_quant.cu — blockwise FP8 quantisation, DeepSeek-V3 style: 1x128 blocks
// along K (activations, LHS), 128x1 blocks along M (activations, RHS; dense or restarting at every
// token group) and 128x128 tiles (weights, 2D and 3D expert stacks), plus the 128x128 scale padding.
// Peer:     pytorch/ao torchao/prototype/blockwise_fp8_training/kernels.py::
//           triton_fp8_blockwise_act_quant_lhs, _act_quant_rhs, _act_quant_transposed_lhs,
//           triton_fp8_blockwise_weight_quant_rhs, _weight_quant_transposed_rhs;
//           grouped_kernels.py::triton_fp8_blockwise_weight_quant_grouped_rhs,
//           _grouped_transposed_rhs, _prepare_grouped_128x128_scale; deepgemm_quant.py::
//           triton_fp8_blockwise_act_quant_k_grouped_deepgemm (default recipe torchao_blockwise;
//           te_blockwise and the DeepGEMM recipes run through scale_core.hpp as well);
//           deepseek-ai/DeepGEMM deep_gemm/utils/math.py::per_token_cast_to_fp8,
//           per_channel_cast_to_fp8, per_block_cast_to_fp8 (recipe deepgemm).
// Equals:   the emulator function of the same name (emulator/src/kernels/fp8_blockwise.cpp; the
//           token-group kernels as specified in fp8_blockwise.hpp), bytes of codes and scales.
// Kernels:  act lhs, per_token: row_stream_kernel (sm90_quant_row_stream.cuh) over 128-column
//           blocks, fixed-recipe scale code for torchao_blockwise / deepgemm (sm90_fixed_core.hpp);
//           where it does not apply (unaligned pointers, a row length not a multiple of 8),
//           row_segments_kernel with 4 lanes per block holding four 16-byte chunks each. Codes
//           row-major, scales column-major (lhs) or row-major (per_token).
//           act rhs, act transposed lhs (the same bytes): column_stream_kernel
//           (sm90_quant_column_stream.cuh), 128-row ranges (the last may be partial) x 128
//           columns, the CTA copying whole row pieces into shared memory by cp.async into two
//           ~32 KB stages; fixed-recipe scale code for torchao_blockwise. column_tiles_kernel where it
//           does not apply (unaligned input, K % 8 != 0).
//           token-group rhs / transposed lhs / DeepGEMM k-grouped: the same kernels, one range
//           per entry of the list of the groups' 128-row blocks (a scan of ceil(size/128) over
//           offs; sized for the worst case, unused entries are empty items). Up to 256 token
//           groups, or 131072 rows for k-grouped, every CTA of column_stream_kernel builds what it
//           needs of the list in its shared memory; beyond, a one-CTA kernel writes the list to a
//           device table first (a programmatic dependent launch, sm90_pdl.cuh, and so is the
//           k-grouped stream kernel after it). Token-group items in tile-major
//           order (kTileMajor).
//           weight rhs, grouped rhs (per-expert column-major input read as (E*N, K) row-major):
//           the same kernels over 128x128 tiles, one amax per tile. These read each element once
//           and write the codes column-major, 8 rows of a column per store (8x8 byte transposes
//           in registers).
//           Row-major codes with 128-row blocks (weight transposed rhs, grouped transposed rhs,
//           DeepGEMM per_channel / per_block): column_stream_kernel too (RowMajorBlockMap), the
//           codes through the thread's own shared-memory slots and out a row piece per warp
//           instruction; row_major_blocks_kernel below (one CTA per (128-row block, 128-column
//           tile), 8-byte code stores straight from registers) where it does not apply.
//           pad scales: a grid-stride copy.
// Bytes:    M*K*sizeof(in) read, M*K codes + 4 bytes per block written.
#include "quant.hpp"
#include "sm90_quant_column_stream.cuh"
#include "sm90_quant_row_stream.cuh"

namespace octet::cuda {
namespace {

constexpr std::int64_t kBlock = 128;

__host__ __device__ constexpr std::int64_t min64(std::int64_t a, std::int64_t b) { return a < b ? a : b; }

void require_multiple(std::int64_t value, const std::string& what, const std::string& peer_assert) {
  require(value % kBlock == 0, what + " = " + std::to_string(value) + " is not a multiple of 128 (" + peer_assert + ")");
}
void require_shape(std::int64_t rows, std::int64_t cols, const std::string& what) {
  require(rows >= 0 && cols >= 0,
          what + ": negative shape (" + std::to_string(rows) + ", " + std::to_string(cols) + ")");
}

// act lhs: block (m, kb) = x[m, 128kb .. 128kb+128), scale at kb*M + m.
struct LhsScale {
  std::int64_t M;
  __device__ std::int64_t operator()(std::int64_t m, int kb) const { return kb * M + m; }
};

// The 128-row block b of `rows` rows: [128b, min(128b + 128, rows)), the last one partial.
__device__ __forceinline__ quant::RowRange row_block(std::int64_t b, std::int64_t rows) {
  const std::int64_t r1 = (b + 1) * kBlock;
  return {b * kBlock, r1 < rows ? r1 : rows, false};
}

// act rhs: range b = rows [128b, min(128b + 128, M)); scale (b, k) at b*K + k.
struct RhsMap {
  std::int64_t M, K;
  __device__ quant::RowRange range(std::int64_t b) const { return row_block(b, M); }
  __device__ std::int64_t scale_index(std::int64_t b, std::int64_t k) const { return b * K + k; }
  __device__ std::int64_t out_offset(std::int64_t m, std::int64_t k) const { return k * M + m; }
};

// DeepGEMM per_token: block (m, nb) = x[m, 128nb .. min(128nb + 128, N)) (the last one partial:
// DeepGEMM pads with zeros, which cannot change an amax), scale at m*Nb + nb (row-major).
struct TokenScale {
  std::int64_t Nb;
  __device__ std::int64_t operator()(std::int64_t m, int nb) const { return m * Nb + nb; }
};

// weight rhs, E stacked (M, N) matrices as (E*M, N) rows: range i = tile row mb = i % Mb of
// expert e = i / Mb; scale (e, mb, nb) at e*Mb*Nb + nb*Mb + mb; codes of expert e column-major.
// The expert of a row by FastDiv (E*M < 2^32, checked on the host): out_offset runs once per 8
// codes, and a 64-bit division there cost more than the cast.
struct WeightMap {
  std::int64_t M, N, Mb, Nb;
  quant::FastDiv m_div, mb_div;  // by M, by Mb
  __device__ quant::RowRange range(std::int64_t i) const { return {i * kBlock, (i + 1) * kBlock, false}; }
  __device__ std::int64_t scale_index(std::int64_t i, std::int64_t n) const {
    const std::int64_t e = mb_div.div(std::uint32_t(i));
    return e * Mb * Nb + (n / kBlock) * Mb + (i - e * Mb);
  }
  __device__ std::int64_t out_offset(std::int64_t row, std::int64_t n) const {
    const std::int64_t e = m_div.div(std::uint32_t(row));
    return e * M * N + n * M + (row - e * M);
  }
};

// ---------------------------------------------------------------------------------------------
// Token groups: the 128-row blocks of every group, in group order (block b of the whole list owns
// scale row b): group g's blocks are entries first(g) .. first(g + 1) - 1 of the list, first(g) the
// sum of ceil(size / 128) over the groups before it, and its block k covers rows
// [begin + 128k, min(begin + 128k + 128, end)). The host cannot know the list's length without
// reading offs, so the maps have ranges for the worst case, ceil(M/128) + G entries (each group
// adds at most one partial block); entries past the last block are empty (r0 == r1) and become
// empty column-tile items.

struct GroupBlock {
  std::int64_t r0 = 0, r1 = 0;                    // rows of the block; r0 == r1: no block
  std::int64_t group_begin = 0, group_end = 0;    // rows of its group
};

std::int64_t group_block_capacity(std::int64_t M, std::int64_t G) { return (M + kBlock - 1) / kBlock + G; }

// Where the token-group map finds the list. SharedGroupBlocks (at most kSharedGroups groups): each
// CTA of the stream kernel loads offs into its shared memory, scans the block counts and finds
// entry i by a binary search over first(g); nothing runs before the stream kernel.
// TableGroupBlocks (any G): the list in a device table that group_blocks_kernel writes first, in a
// workspace of its own (the k-grouped map's KGroupedTable reads the same table). What the table
// costs: H100, one binary, three runs each, % of copy at 1 / 16 / 64 / 128 groups with the table's
// kernel and allocation left out of the timed launches (the table kept from an earlier call):
// token-grouped rhs 88.2-89.0 / 85.3-86.0 / 86.2-86.8 / 69.7-70.1 against 83.1-83.3 / 81.4-81.8 /
// 82.9-83.3 / 67.5-68.0, k-grouped 85.8-86.3 / 88.3-88.9 / 87.6-87.9 / 84.9-85.5 against
// 81.7-82.0 / 85.2-85.5 / 84.2-84.8 / 81.9-82.6.
inline constexpr int kSharedGroups = quant::kStreamThreads;  // one group per thread in load_shared

struct SharedGroupBlocks {
  struct Storage {
    std::int64_t ends[kSharedGroups];
    std::int32_t first[kSharedGroups + 1];  // first[G]: the list's length (< 2^31: the kernel's items are)
    std::int32_t warp_blocks[quant::kStreamThreads / 32];
  };
  static constexpr std::uint32_t kSharedBytes = sizeof(Storage);
  const std::int64_t* offs;
  int G;  // <= kSharedGroups

  __device__ static Storage& storage() { return *reinterpret_cast<Storage*>(quant::map_shared()); }
  // Thread tid takes group tid: its end, its block count, and an exclusive scan of the counts
  // (warp shuffles, then the warps' sums). Every thread of the CTA calls it; a barrier follows.
  __device__ void load_shared(int tid) const {
    Storage& s = storage();
    const std::int64_t end = tid < G ? offs[tid] : 0;
    const std::int64_t begin = tid > 0 && tid < G ? offs[tid - 1] : 0;
    const int count = int((end - begin + kBlock - 1) / kBlock);
    const int lane = tid % 32, warp = tid / 32;
    int incl = count;
#pragma unroll
    for (int o = 1; o < 32; o *= 2) {
      const int v = __shfl_up_sync(0xffffffffu, incl, o);
      if (lane >= o) incl += v;
    }
    if (lane == 31) s.warp_blocks[warp] = incl;
    if (tid < G) s.ends[tid] = end;
    __syncthreads();
    int before = 0;
    for (int w = 0; w < warp; ++w) before += s.warp_blocks[w];
    const int excl = before + incl - count;
    if (tid < G) s.first[tid] = excl;
    if (tid == (G > 0 ? G - 1 : 0)) s.first[G] = excl + count;
  }
  // The list's length (after load_shared).
  __device__ int count() const { return storage().first[G]; }
  __device__ GroupBlock block(std::int64_t i) const {
    const Storage& s = storage();
    if (i >= s.first[G]) return {};
    int g = 0;  // the last group with first(g) <= i (first(0) = 0): the one holding entry i
#pragma unroll
    for (int step = kSharedGroups / 2; step > 0; step /= 2)
      if (g + step < G && s.first[g + step] <= i) g += step;
    const std::int64_t begin = g == 0 ? 0 : s.ends[g - 1], end = s.ends[g];
    const std::int64_t r0 = begin + (i - s.first[g]) * kBlock;
    return {r0, min64(r0 + kBlock, end), begin, end};
  }
};

constexpr int kScanThreads = 256;

// One CTA: thread t counts the blocks of a contiguous run of groups, a shared-memory scan gives
// each run its first table entry, then every thread writes its blocks and the empty entries.
__global__ void __launch_bounds__(kScanThreads)
    group_blocks_kernel(const std::int64_t* __restrict__ offs, std::int64_t G, GroupBlock* __restrict__ blocks,
                        std::int64_t capacity) {
  __shared__ std::int64_t run_blocks[kScanThreads];
  pdl_wait();               // launched by launch_pdl: whatever wrote offs has completed
  pdl_launch_dependents();  // the stream kernel's blocks may come in and wait for the table
  const int t = int(threadIdx.x);
  const std::int64_t per = (G + kScanThreads - 1) / kScanThreads;
  const std::int64_t g0 = min64(G, t * per), g1 = min64(G, g0 + per);
  const auto begin_of = [&](std::int64_t g) { return g == 0 ? std::int64_t(0) : offs[g - 1]; };
  std::int64_t count = 0;
  for (std::int64_t g = g0; g < g1; ++g) count += (offs[g] - begin_of(g) + kBlock - 1) / kBlock;
  run_blocks[t] = count;
  __syncthreads();
  for (int o = 1; o < kScanThreads; o *= 2) {  // inclusive scan (Hillis-Steele)
    const std::int64_t v = t >= o ? run_blocks[t - o] : 0;
    __syncthreads();
    run_blocks[t] += v;
    __syncthreads();
  }
  const std::int64_t total = run_blocks[kScanThreads - 1];
  std::int64_t b = run_blocks[t] - count;
  for (std::int64_t g = g0; g < g1; ++g) {
    const std::int64_t begin = begin_of(g), end = offs[g];
    for (std::int64_t r0 = begin; r0 < end; r0 += kBlock) blocks[b++] = {r0, min64(r0 + kBlock, end), begin, end};
  }
  for (std::int64_t i = total + t; i < capacity; i += kScanThreads) blocks[i] = GroupBlock{};
}

// The block table of `offs` in a stream-ordered workspace, freed by the destructor (stream-ordered
// as well, after the launches that read it).
class GroupBlockTable {
 public:
  GroupBlockTable(const std::int64_t* offs, std::int64_t G, std::int64_t M, cudaStream_t stream)
      : capacity_(group_block_capacity(M, G)), stream_(stream) {
    if (capacity_ == 0) return;
    OCTET_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&blocks_), std::size_t(capacity_) * sizeof(GroupBlock),
                                     stream));
    launch_pdl(group_blocks_kernel, 1, kScanThreads, 0, stream, offs, G, blocks_, capacity_);
  }
  ~GroupBlockTable() {
    if (blocks_ != nullptr) (void)cudaFreeAsync(blocks_, stream_);
  }
  GroupBlockTable(const GroupBlockTable&) = delete;
  GroupBlockTable& operator=(const GroupBlockTable&) = delete;
  const GroupBlock* blocks() const { return blocks_; }

 private:
  std::int64_t capacity_;
  cudaStream_t stream_;
  GroupBlock* blocks_ = nullptr;
};

struct TableGroupBlocks {
  static constexpr std::uint32_t kSharedBytes = 0;
  const GroupBlock* table;  // capacity entries
  __device__ GroupBlock block(std::int64_t i) const { return table[i]; }
};

__device__ __forceinline__ quant::RowRange block_range(const GroupBlock& b) {
  if (b.r0 == b.r1) return {0, 0, true, false};  // no block: nothing to read, write or scale
  return {b.r0, b.r1, false, true};
}

// Token-group rhs (and transposed lhs, the same bytes): ranges 0 .. capacity-1 are the list's
// blocks, range `capacity` the rows past offs[-1] (codes 0x00, no scale). Scale (block b, d) at
// b*D + d; codes (m, d) at d*M + m. column_stream_kernel's traits: items tile-major.
template <class Blocks>
struct TokenGroupMap {
  static constexpr bool kTileMajor = true;
  static constexpr std::uint32_t kSharedBytes = Blocks::kSharedBytes;
  // With the list in shared memory the stream kernel knows its length: items over its entries and
  // the rows past offs[-1] only, not over all capacity + 1 ranges. H100, % of copy at 1 / 16 / 64 /
  // 128 groups, one binary, three runs each: 86.9-87.1 / 85.8-86.0 / 85.6-86.3 / 80.5-80.6 against
  // 86.7-86.9 / 85.6-85.9 / 85.7-86.2 / 68.1-68.8 over all ranges.
  static constexpr bool kLiveRanges = Blocks::kSharedBytes > 0;
  // Not kProgrammaticLaunch after the table's kernel: H100, one binary, three runs each, % of copy
  // at 1 / 16 / 64 / 128 groups: 83.8-84.0 / 83.2-83.5 / 83.2-83.9 / 65.0-65.1 with it,
  // 83.1-83.4 / 82.7-83.1 / 81.9-82.6 / 67.1-67.5 without.
  std::int64_t M, D, G, capacity;
  const std::int64_t* offs;
  Blocks blocks;
  __device__ void load_shared(int tid) const { blocks.load_shared(tid); }
  __device__ quant::RowRange range(std::int64_t i) const {
    if (i == capacity) return {G > 0 ? offs[G - 1] : 0, M, true, false};
    return block_range(blocks.block(i));
  }
  __device__ std::int64_t scale_index(std::int64_t b, std::int64_t d) const { return b * D + d; }
  __device__ std::int64_t out_offset(std::int64_t m, std::int64_t d) const { return d * M + m; }
  // kLiveRanges: the list's entries, then the rows past offs[-1].
  __device__ std::uint32_t live_count() const { return std::uint32_t(blocks.count()) + 1; }
  __device__ std::int64_t live_range(std::uint32_t c) const {
    return c < std::uint32_t(blocks.count()) ? std::int64_t(c) : capacity;
  }
};

// DeepGEMM k-grouped: every group a multiple of 128 rows (the caller's contract), so list entry b
// is rows [128b, 128b + 128) and names the group of those rows. Codes (m, d) of group [s, e) at
// s*D + d*(e - s) + (m - s); scale (d, b) at d*(offs[-1]/128) + b. Rows past offs[-1] are not
// written (the output holds offs[-1]*D codes). The group of a row comes from Rows:
// KGroupedTable (the list's table) or KGroupedShared (a group per 128-row block in shared memory).
struct GroupRows {
  std::int64_t begin, end;
};

struct KGroupedTable : TableGroupBlocks {
  __device__ quant::RowRange range(std::int64_t i) const { return block_range(block(i)); }
  __device__ GroupRows group(std::int64_t m) const {
    const GroupBlock b = block(m / kBlock);
    return {b.group_begin, b.group_end};
  }
};

// At most kSharedRowBlocks 128-row blocks (any number of groups): each block's group as one shared
// word, its first block and its block count in 16 bits each, written while the stream kernel's
// first copies are in flight (ranges need offs[-1] only). One shared read gives a row's group.
// H100, % of copy at 1 / 16 / 64 / 128 groups: with a byte per block naming the group (and the
// group ends, two dependent reads) 85.3-85.5 / 85.0-85.4 / 84.7-84.8 / 82.3 against 81.7-82.0 /
// 85.2-85.5 / 84.4-84.8 / 82.5-82.6 with the table (one binary, two runs each); this word per
// block against that byte, two binaries alternating, three runs each: 85.4-86.0 / 84.9-85.5 /
// 84.1-85.3 / 82.4-82.9 against 84.9-85.8 / 84.7-85.7 / 84.0-86.3 / 82.6-83.0, and it takes any
// number of groups. As a programmatic dependent launch the byte form measured 85.7-85.9 /
// 84.7-85.0 / 83.6-83.7 / 81.7-82.3.
inline constexpr std::int64_t kSharedRowBlocks = 1024;

struct KGroupedShared {
  static constexpr std::uint32_t kSharedBytes = sizeof(std::uint32_t) * kSharedRowBlocks;
  static_assert(kSharedRowBlocks <= 65535, "block counts in 16 bits");
  const std::int64_t* offs;
  std::int64_t G;  // >= 1
  __device__ static std::uint32_t* block_group() { return reinterpret_cast<std::uint32_t*>(quant::map_shared()); }
  // Thread t writes the blocks of groups t, t + 256, ...
  __device__ void load_shared(int tid) const {
    std::uint32_t* bg = block_group();
    for (std::int64_t g = tid; g < G; g += quant::kStreamThreads) {
      const std::int64_t b0 = (g > 0 ? offs[g - 1] : 0) / kBlock, b1 = offs[g] / kBlock;
      const std::uint32_t word = std::uint32_t(b0) | std::uint32_t(b1 - b0) << 16;
      for (std::int64_t b = b0; b < b1 && b < kSharedRowBlocks; ++b) bg[b] = word;
    }
  }
  __device__ quant::RowRange range(std::int64_t i) const {
    const std::int64_t r0 = i * kBlock;
    if (r0 >= offs[G - 1]) return {0, 0, true, false};  // past the last group: no block
    return {r0, r0 + kBlock, false, true};
  }
  __device__ GroupRows group(std::int64_t m) const {
    const std::uint32_t word = block_group()[m / kBlock];
    const std::int64_t begin = std::int64_t(word & 0xffffu) * kBlock;
    return {begin, begin + std::int64_t(word >> 16) * kBlock};
  }
};

template <class Rows>
struct KGroupedMap {
  // column_stream_kernel's traits. After group_blocks_kernel. H100, one binary, three runs each, %
  // of copy at 1 / 16 / 64 / 128 groups: 80.4-81.0 / 84.6-85.0 / 83.5-84.2 / 81.6-81.9 with it,
  // 79.9-80.6 / 84.2-84.5 / 82.9-83.1 / 80.9-81.3 without.
  static constexpr bool kProgrammaticLaunch = Rows::kSharedBytes == 0;
  static constexpr std::uint32_t kSharedBytes = Rows::kSharedBytes;
  static constexpr bool kSharedRanges = false;
  std::int64_t D, G;
  const std::int64_t* offs;
  Rows rows;
  __device__ void load_shared(int tid) const { rows.load_shared(tid); }
  __device__ quant::RowRange range(std::int64_t i) const { return rows.range(i); }
  __device__ std::int64_t scale_index(std::int64_t b, std::int64_t d) const { return d * (offs[G - 1] / kBlock) + b; }
  __device__ std::int64_t out_offset(std::int64_t m, std::int64_t d) const {
    const GroupRows g = rows.group(m);
    return g.begin * D + d * (g.end - g.begin) + (m - g.begin);
  }
};

// ---------------------------------------------------------------------------------------------
// Row-major blocks: the codes keep the input's row-major (rows, cols) layout, q[row*cols + col];
// a block is 128 rows x kAmaxCols columns (1: one block per column of a 128-row block, DeepGEMM
// per_channel; 128: 128x128 tiles), partial at the bottom and right edges (the amax over the
// elements present). Block (rb, col / kAmaxCols) stores its scale at
// scales[rb*scale_cols + col / kAmaxCols]. column_tiles_kernel writes its codes transposed, so
// these blocks take their own kernel, built from the same chunk, key, scale and cast code.
//
// One CTA works on one (128-row block, 128-column tile) item at a time: thread (cx, ry) holds the
// 8-column chunk cx of rows r0 + ry + 16i (i < 8), the first kCache row steps in registers (all
// eight for bf16). Pass 1 reduces per-column keys (through shared memory across the 16 row lanes)
// or one tile key (warp shuffles, then shared memory across the 8 warps); pass 2 casts every chunk
// and stores its 8 codes with one 8-byte store (a row's 16 threads write 128 contiguous bytes).

constexpr int kRowTileCols = 128;
constexpr int kRowColChunks = kRowTileCols / quant::kChunk;      // 16 chunks of 8 columns
constexpr int kRowLanes = quant::kThreads / kRowColChunks;        // 16 rows per step
constexpr int kRowSteps = int(kBlock) / kRowLanes;                // 8 steps per 128-row block

struct RowMajorShared {
  std::uint32_t keys[kRowLanes][kRowTileCols + 1];
  std::uint32_t alls[kRowLanes][kRowTileCols + 1];  // the `all` words (sm90_quant_common.cuh)
  std::uint32_t warp_keys[quant::kThreads / 32], warp_alls[quant::kThreads / 32];
  BlockScale scale[kRowTileCols];
  bool fast[kRowTileCols];
};

template <class In, quant::CastPath P, int kAmaxCols>
__global__ void __launch_bounds__(quant::kThreads, quant::kMinCtasPerSm<quant::kCacheChunks<In, 32> * quant::RawChunk<In>::kWords>)
    row_major_blocks_kernel(const In* __restrict__ x, std::int64_t rows, std::int64_t cols,
                            std::uint8_t* __restrict__ q, std::uint32_t* __restrict__ scales, std::int64_t scale_cols,
                            RecipeCore r, quant::CastBounds bounds, bool vec_ok) {
  static_assert(kAmaxCols == 1 || kAmaxCols == kRowTileCols, "per-column blocks or whole 128x128 tiles");
  using quant::kChunk;
  using Raw = quant::RawChunk<In>;
  constexpr int kWords = Raw::kWords;
  constexpr int kCache = quant::kCacheChunks<In, 32> < kRowSteps ? quant::kCacheChunks<In, 32> : kRowSteps;
  // Raw storage: BlockScale's member initialisers would ask for a dynamic initialisation.
  __shared__ alignas(16) unsigned char shared_bytes[sizeof(RowMajorShared)];
  RowMajorShared& sh = *reinterpret_cast<RowMajorShared*>(shared_bytes);
  const int cx = int(threadIdx.x) % kRowColChunks, ry = int(threadIdx.x) / kRowColChunks;
  const bool drop_nan = r.amax_nan == AmaxNan::Drop;
  const std::int64_t col_tiles = (cols + kRowTileCols - 1) / kRowTileCols;
  const std::int64_t items = (rows + kBlock - 1) / kBlock * col_tiles;

  for (std::int64_t item = blockIdx.x; item < items; item += gridDim.x) {
    const std::int64_t rb = item / col_tiles, tile = item % col_tiles;
    const std::int64_t r0 = rb * kBlock, r1 = min64(r0 + kBlock, rows);
    const std::int64_t tile_c0 = tile * kRowTileCols, c0 = tile_c0 + cx * kChunk;
    const bool vec = vec_ok && c0 + kChunk <= cols;
    // Row `row` of this thread's chunk (zeros for columns past `cols`).
    const auto load_row = [&](std::int64_t row) -> Raw {
      const std::int64_t i = row * cols + c0;
      if (vec) return quant::load_vec(x, i);
      return quant::load_masked(x, i, i, row * cols + cols);
    };
    const auto row_of = [&](int step) { return r0 + ry + std::int64_t(step) * kRowLanes; };

    // Pass 1: the key and `all` words of this thread's 8 columns over its rows (the key words of
    // sm90_quant_common.cuh; `all` differs from the key only for recipes that drop NaN).
    Raw cache[kCache];
    std::uint32_t key[kChunk], all[kChunk];
    const auto reduce = [&](auto drop) {
      constexpr bool kDrop = decltype(drop)::value;
      std::uint32_t acc[kWords], acc_all[kWords];
#pragma unroll
      for (int k = 0; k < kWords; ++k) acc[k] = acc_all[k] = 0;
#pragma unroll
      for (int i = 0; i < kRowSteps; ++i) {
        if (row_of(i) >= r1 || c0 >= cols) continue;
        const Raw c = load_row(row_of(i));
        if (i < kCache) cache[i < kCache ? i : 0] = c;
#pragma unroll
        for (int k = 0; k < kWords; ++k) {
          acc[k] = quant::key_word<In, kDrop>(acc[k], c.w[k]);
          if constexpr (kDrop) acc_all[k] = quant::key_word<In, false>(acc_all[k], c.w[k]);
        }
      }
#pragma unroll
      for (int j = 0; j < kChunk; ++j) {
        key[j] = quant::column_key<In>(acc, j);
        all[j] = quant::column_key<In>(kDrop ? acc_all : acc, j);
      }
    };
    if (drop_nan) reduce(std::true_type{});
    else reduce(std::false_type{});

    // The block casts (columns past `cols` hold key 0, which cannot change a maximum).
    if constexpr (kAmaxCols == 1) {
#pragma unroll
      for (int j = 0; j < kChunk; ++j) {
        sh.keys[ry][cx * kChunk + j] = key[j];
        sh.alls[ry][cx * kChunk + j] = all[j];
      }
      __syncthreads();
      if (threadIdx.x < kRowTileCols) {
        std::uint32_t k = 0, a = 0;
        for (int y = 0; y < kRowLanes; ++y) {
          k = max(k, sh.keys[y][threadIdx.x]);
          a = max(a, sh.alls[y][threadIdx.x]);
        }
        const quant::BlockCast bc = quant::block_cast<P>(r, bounds, k, a);
        sh.scale[threadIdx.x] = bc.scale;
        sh.fast[threadIdx.x] = bc.fast;
        const std::int64_t col = tile_c0 + threadIdx.x;
        if (col < cols) scales[rb * scale_cols + col] = bc.scale.stored;
      }
    } else {
      std::uint32_t k = 0, a = 0;
#pragma unroll
      for (int j = 0; j < kChunk; ++j) {
        k = max(k, key[j]);
        a = max(a, all[j]);
      }
      k = quant::group_max<32>(k);
      a = quant::group_max<32>(a);
      if (threadIdx.x % 32 == 0) {
        sh.warp_keys[threadIdx.x / 32] = k;
        sh.warp_alls[threadIdx.x / 32] = a;
      }
      __syncthreads();
      if (threadIdx.x == 0) {
        for (int w = 0; w < quant::kThreads / 32; ++w) {
          k = max(k, sh.warp_keys[w]);
          a = max(a, sh.warp_alls[w]);
        }
        const quant::BlockCast bc = quant::block_cast<P>(r, bounds, k, a);
        sh.scale[0] = bc.scale;
        sh.fast[0] = bc.fast;
        scales[rb * scale_cols + tile] = bc.scale.stored;
      }
    }
    __syncthreads();

    // Pass 2: the codes, row-major, 8 per store.
    constexpr int kScales = kAmaxCols == 1 ? kChunk : 1;  // distinct scales of a thread's chunk
    float enc[kChunk];
    bool fast = true;
#pragma unroll
    for (int j = 0; j < kChunk; ++j) {
      const int s = kScales == 1 ? 0 : cx * kChunk + j;
      enc[j] = sh.scale[s].encode;
      fast = fast && sh.fast[s];
    }
    const auto enc_of = [&](int j) { return enc[j]; };
    const auto scale_of = [&](int j) -> const BlockScale& { return sh.scale[kScales == 1 ? 0 : cx * kChunk + j]; };
#pragma unroll
    for (int i = 0; i < kRowSteps; ++i) {
      const std::int64_t row = row_of(i);
      if (row >= r1 || c0 >= cols) continue;
      const Raw c = i < kCache ? cache[i < kCache ? i : 0] : load_row(row);
      const uint2 codes = quant::quantize_chunk<P>(r, bounds, fast, enc_of, scale_of, c.unpack());
      const std::int64_t first = row * cols + c0;
      if (vec) *reinterpret_cast<uint2*>(q + first) = codes;
      else quant::store_masked(q, first, first, row * cols + cols, codes);
    }
    // The next item rewrites sh.keys, sh.scale and sh.fast: every thread must be done with this one.
    __syncthreads();
  }
}

// The same blocks for the column stream kernel: range i = rows [128i, min(128i + 128, rows)), codes
// row-major as the input, scale (i, col >> col_shift) at i*scale_cols + (col >> col_shift).
struct RowMajorBlockMap {
  static constexpr bool kRowMajorCodes = true;
  std::int64_t rows, cols, scale_cols;
  int col_shift;  // 0 (one column per block) or 7 (128 columns)
  __device__ quant::RowRange range(std::int64_t i) const { return row_block(i, rows); }
  __device__ std::int64_t scale_index(std::int64_t i, std::int64_t col) const {
    return i * scale_cols + (col >> col_shift);
  }
  __device__ std::int64_t out_offset(std::int64_t row, std::int64_t col) const { return row * cols + col; }
  __device__ std::int64_t code_row_stride() const { return cols; }
};

// Launches column_stream_kernel (sm_90, aligned input, cols % 8 == 0) or else row_major_blocks_kernel
// over a row-major (rows, cols) input.
template <int kAmaxCols>
void launch_row_major_blocks(SourceType src, const void* x, std::int64_t rows, std::int64_t cols, std::uint8_t* q,
                             std::uint32_t* scales, std::int64_t scale_cols, const Recipe& r, cudaStream_t stream) {
  static_assert(kAmaxCols == 1 || kAmaxCols == kBlock, "blocks of one column or of 128");
  const RowMajorBlockMap map{rows, cols, scale_cols, kAmaxCols == 1 ? 0 : 7};
  if (quant::launch_column_stream<128, kAmaxCols, TorchaoBlockwiseCore, DeepGemmCore>(
          src, x, cols, q, scales, false, quant::aligned(q, 8), r, map, (rows + kBlock - 1) / kBlock, stream))
    return;
  const std::int64_t items = (rows + kBlock - 1) / kBlock * ((cols + kRowTileCols - 1) / kRowTileCols);
  if (items == 0) return;
  const quant::Device d = quant::device();
  const RecipeCore core = make_core(r);
  const bool vec_ok = quant::aligned(x, 16) && quant::aligned(q, 8) && cols % quant::kChunk == 0;
  quant::with_source(src, [&](auto in) {
    using In = decltype(in);
    quant::with_path(quant::cast_path(r, d), [&](auto path) {
      auto* kernel = &row_major_blocks_kernel<In, decltype(path)::value, kAmaxCols>;
      static const int per_sm = quant::occupancy(kernel);
      kernel<<<quant::grid_for(per_sm, items, d), quant::kThreads, 0, stream>>>(
          static_cast<const In*>(x), rows, cols, q, scales, scale_cols, core, quant::cast_bounds(r), vec_ok);
      OCTET_CUDA_CHECK(cudaGetLastError());
    });
  });
}

// ---------------------------------------------------------------------------------------------
// 128x128 scale padding: (E, Nb, Kb) k-block-major -> (E, Nb, Kp), the new entries pad_bits.
__global__ void pad_scales_kernel(const std::uint32_t* __restrict__ scales, std::int64_t Kb, std::int64_t Kp,
                                  std::int64_t count, std::uint32_t pad_bits, std::uint32_t* __restrict__ padded) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t o = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; o < count; o += stride) {
    const std::int64_t i = o % Kp, column = o / Kp;  // column = e*Nb + n-block
    padded[o] = i < Kb ? scales[column * Kb + i] : pad_bits;
  }
}

void require_groups(std::int64_t G, const std::int64_t* offs) {
  require(G >= 0, "offs: negative group count " + std::to_string(G));
  require(G == 0 || offs != nullptr, "offs: null device pointer for " + std::to_string(G) + " groups");
}

}  // namespace

void fp8_blockwise_act_quant_lhs(SourceType src, const void* x, std::int64_t M, std::int64_t K, const Recipe& r,
                                 std::uint8_t* q, std::uint32_t* scales, cudaStream_t stream) {
  require_shape(M, K, "x_m_k");
  require_multiple(K, "x_m_k: K", "torchao triton_fp8_blockwise_act_quant_lhs asserts x.size(-1) % 128 == 0");
  quant::launch_row_blocks<4, 16, 1, TorchaoBlockwiseCore>(src, x, q, scales, false, r,
                                                           quant::BlockColumns<LhsScale>{M, K, kBlock, LhsScale{M}}, stream);
}

void deepgemm_per_token_cast_to_fp8(SourceType src, const void* x, std::int64_t M, std::int64_t N, const Recipe& r,
                                    std::uint8_t* q, std::uint32_t* scales, cudaStream_t stream) {
  require_shape(M, N, "x_m_n");
  const std::int64_t Nb = (N + kBlock - 1) / kBlock;
  quant::launch_row_blocks<4, 16, 1, DeepGemmCore>(src, x, q, scales, false, r,
                                                   quant::BlockColumns<TokenScale>{M, N, kBlock, TokenScale{Nb}}, stream);
}

void fp8_blockwise_act_quant_rhs(SourceType src, const void* x, std::int64_t M, std::int64_t K, const Recipe& r,
                                 std::uint8_t* q, std::uint32_t* scales, cudaStream_t stream) {
  require_shape(M, K, "x_m_k");
  require_multiple(K, "x_m_k: K", "torchao triton_fp8_blockwise_act_quant_rhs asserts x.size(-1) % 128 == 0");
  const std::int64_t Mb = (M + kBlock - 1) / kBlock;
  quant::launch_column_blocks<128, 1, 128, 32, TorchaoBlockwiseCore>(src, x, K, q, scales, false, M % 8 == 0, r,
                                                                     RhsMap{M, K}, Mb, stream);
}

void fp8_blockwise_weight_quant_rhs(SourceType src, const void* x, std::int64_t M, std::int64_t N, const Recipe& r,
                                    std::uint8_t* q, std::uint32_t* scales, cudaStream_t stream) {
  fp8_blockwise_weight_quant_rhs_experts(src, x, 1, M, N, r, q, scales, stream);
}

void fp8_blockwise_weight_quant_rhs_experts(SourceType src, const void* x, std::int64_t E, std::int64_t M,
                                            std::int64_t N, const Recipe& r, std::uint8_t* q, std::uint32_t* scales,
                                            cudaStream_t stream) {
  require_shape(M, N, "x_m_n");
  require(E >= 0, "x_m_n: negative expert count " + std::to_string(E));
  const std::string peer = "torchao triton_fp8_blockwise_weight_quant_rhs asserts both dims % 128 == 0";
  require_multiple(M, "x_m_n: M", peer);
  require_multiple(N, "x_m_n: N", peer);
  const std::int64_t Mb = M / kBlock, Nb = N / kBlock;
  require(E * M < (std::int64_t(1) << 32), "x_m_n: E*M = " + std::to_string(E * M) + " rows, at most 2^32 - 1");
  const WeightMap map{M, N, Mb, Nb, quant::FastDiv(std::uint32_t(M)), quant::FastDiv(std::uint32_t(Mb))};
  quant::launch_column_blocks<128, 128, 128, 32, TorchaoBlockwiseCore>(src, x, N, q, scales, false, true, r, map,
                                                                       E * Mb, stream);
}

}  // namespace octet::cuda

namespace octet::cuda {

void fp8_blockwise_act_quant_transposed_lhs(SourceType src, const void* x, std::int64_t M, std::int64_t K,
                                            const Recipe& r, std::uint8_t* q, std::uint32_t* scales,
                                            cudaStream_t stream) {
  require_shape(M, K, "x_m_k");
  require_multiple(M, "x_m_k: M", "torchao triton_fp8_blockwise_act_quant_transposed_lhs asserts x.size(0) % 128 == 0");
  // Codes (k, m) at k*M + m and scales (k, b) at b*K + k: act rhs's bytes.
  quant::launch_column_blocks<128, 1, 128, 32, TorchaoBlockwiseCore>(
      src, x, K, q, scales, false, M % 8 == 0, r, RhsMap{M, K}, M / kBlock, stream);
}

void fp8_blockwise_act_quant_rhs_grouped(SourceType src, const void* x, std::int64_t M, std::int64_t D,
                                         const std::int64_t* offs, std::int64_t G, const Recipe& r, std::uint8_t* q,
                                         std::uint32_t* scales, cudaStream_t stream) {
  require_shape(M, D, "x_m_d");
  require_groups(G, offs);
  const std::int64_t capacity = group_block_capacity(M, G);
  const auto map_of = [&](auto blocks) { return TokenGroupMap<decltype(blocks)>{M, D, G, capacity, offs, blocks}; };
  const auto stream_over = [&](auto map) {
    return quant::launch_column_stream<128, 1, TorchaoBlockwiseCore>(src, x, D, q, scales, false, M % 8 == 0, r, map,
                                                                      capacity + 1, stream);
  };
  if (G <= kSharedGroups) {
    const SharedGroupBlocks blocks{offs, int(G)};
    if (stream_over(map_of(blocks))) return;
  }
  const GroupBlockTable table(offs, G, M, stream);
  const auto launch = [&](auto map) {
    quant::launch_column_blocks<128, 1, 128, 32, TorchaoBlockwiseCore>(src, x, D, q, scales, false, M % 8 == 0, r, map,
                                                                       capacity + 1, stream);
  };
  launch(map_of(TableGroupBlocks{table.blocks()}));
}

void fp8_blockwise_act_quant_transposed_lhs_grouped(SourceType src, const void* x, std::int64_t M, std::int64_t D,
                                                    const std::int64_t* offs, std::int64_t G, const Recipe& r,
                                                    std::uint8_t* q, std::uint32_t* scales, cudaStream_t stream) {
  fp8_blockwise_act_quant_rhs_grouped(src, x, M, D, offs, G, r, q, scales, stream);
}

void fp8_blockwise_act_quant_k_grouped_deepgemm(SourceType src, const void* x, std::int64_t M, std::int64_t D,
                                                const std::int64_t* offs, std::int64_t G, const Recipe& r,
                                                std::uint8_t* q, std::uint32_t* scales, cudaStream_t stream) {
  require_shape(M, D, "x_m_d");
  require_groups(G, offs);
  if (G == 0) return;  // offs[-1] = 0: no codes, no scales
  const std::int64_t capacity = group_block_capacity(M, G);
  if ((M + kBlock - 1) / kBlock <= kSharedRowBlocks &&
      quant::launch_column_stream<128, 1, TorchaoBlockwiseCore>(
          src, x, D, q, scales, false, true, r, KGroupedMap<KGroupedShared>{D, G, offs, {offs, G}}, capacity,
          stream))
    return;
  const GroupBlockTable table(offs, G, M, stream);
  const KGroupedMap<KGroupedTable> map{D, G, offs, {{table.blocks()}}};
  quant::launch_column_blocks<128, 1, 128, 32, TorchaoBlockwiseCore>(src, x, D, q, scales, false, true, r, map, capacity,
                                                                     stream);
}

void fp8_blockwise_weight_quant_transposed_rhs(SourceType src, const void* x, std::int64_t M, std::int64_t N,
                                               const Recipe& r, std::uint8_t* q, std::uint32_t* scales,
                                               cudaStream_t stream) {
  require_shape(M, N, "x_m_n");
  const std::string peer = "torchao triton_fp8_blockwise_weight_quant_transposed_rhs asserts both dims % 128 == 0";
  require_multiple(M, "x_m_n: M", peer);
  require_multiple(N, "x_m_n: N", peer);
  // Codes (n, m) at m*N + n (the input's layout), tile (i, j)'s scale at i*Nb + j.
  launch_row_major_blocks<128>(src, x, M, N, q, scales, N / kBlock, r, stream);
}

void fp8_blockwise_weight_quant_grouped_transposed_rhs(SourceType src, const void* x, std::int64_t E, std::int64_t K,
                                                       std::int64_t N, const Recipe& r, std::uint8_t* q,
                                                       std::uint32_t* scales, cudaStream_t stream) {
  require_shape(K, N, "w_e_k_n");
  require(E >= 0, "w_e_k_n: negative expert count " + std::to_string(E));
  const std::string peer = "torchao triton_fp8_blockwise_weight_quant_grouped_transposed_rhs asserts K and N % 128 == 0";
  require_multiple(K, "w_e_k_n: K", peer);
  require_multiple(N, "w_e_k_n: N", peer);
  // Per-expert column-major (E, K, N) is row-major (E*N, K) in memory, and so are the codes; tile
  // (e, k-block i, n-block j) stores its scale at e*Kb*Nb + j*Kb + i = (e*Nb + j)*Kb + i.
  launch_row_major_blocks<128>(src, x, E * N, K, q, scales, K / kBlock, r, stream);
}

void fp8_blockwise_weight_quant_grouped_rhs(SourceType src, const void* x, std::int64_t E, std::int64_t K,
                                            std::int64_t N, const Recipe& r, std::uint8_t* q, std::uint32_t* scales,
                                            cudaStream_t stream) {
  require_shape(K, N, "w_e_k_n");
  require(E >= 0, "w_e_k_n: negative expert count " + std::to_string(E));
  const std::string peer = "torchao triton_fp8_blockwise_weight_quant_grouped_rhs asserts K and N % 128 == 0";
  require_multiple(K, "w_e_k_n: K", peer);
  require_multiple(N, "w_e_k_n: N", peer);
  // In memory each expert is an (N, K) row-major matrix; codes (e, n, k) at e*N*K + k*N + n and
  // scales (e, j, i) at e*Nb*Kb + i*Nb + j are weight rhs's layout for that matrix.
  fp8_blockwise_weight_quant_rhs_experts(src, x, E, N, K, r, q, scales, stream);
}

void fp8_blockwise_pad_scales_128x128(const std::uint32_t* scales, std::int64_t E, std::int64_t Kb, std::int64_t Nb,
                                      std::uint32_t* padded, std::uint32_t pad_bits, cudaStream_t stream) {
  require(E >= 0 && Kb >= 0 && Nb >= 0, "scale_inv: negative shape (" + std::to_string(E) + ", " +
                                             std::to_string(Kb) + ", " + std::to_string(Nb) + ")");
  const std::int64_t Kp = (Kb + 3) / 4 * 4, count = E * Nb * Kp;
  if (count == 0) return;
  constexpr int kThreads = 256;
  const std::int64_t ctas = std::min<std::int64_t>((count + kThreads - 1) / kThreads, std::int64_t(quant::device().sms) * 8);
  pad_scales_kernel<<<unsigned(ctas), kThreads, 0, stream>>>(scales, Kb, Kp, count, pad_bits, padded);
  OCTET_CUDA_CHECK(cudaGetLastError());
}

void deepgemm_per_channel_cast_to_fp8(SourceType src, const void* x, std::int64_t M, std::int64_t N, const Recipe& r,
                                      std::uint8_t* q, std::uint32_t* scales, cudaStream_t stream) {
  require_shape(M, N, "x_m_n");
  require_multiple(M, "x_m_n: m", "DeepGEMM per_channel_cast_to_fp8 asserts x.size(0) % 128 == 0");
  launch_row_major_blocks<1>(src, x, M, N, q, scales, N, r, stream);
}

void deepgemm_per_block_cast_to_fp8(SourceType src, const void* x, std::int64_t M, std::int64_t N, const Recipe& r,
                                    std::uint8_t* q, std::uint32_t* scales, cudaStream_t stream) {
  require_shape(M, N, "x_m_n");
  launch_row_major_blocks<128>(src, x, M, N, q, scales, (N + kBlock - 1) / kBlock, r, stream);
}

}  // namespace octet::cuda
