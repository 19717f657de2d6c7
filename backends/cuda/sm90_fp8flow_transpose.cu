// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// sm90_fp8flow_transpose.cu — the FP8-Flow-MoE scaling-aware fp8 transpose on the GPU: grouped
// 128x128 tiles of e4m3fn codes transposed through shared memory with their scales re-encoded.
// Reference: octet::fp8flow_transpose (emulator/src/kernels/fp8flow_transpose.cpp), variants
//            published / ideal / naive; reference/kernels.md §8.
// Peer:      021ai/TransformerEngine-FP8FlowMoe transformer_engine/pytorch/triton/
//            blockwise_scaling_aware_fp8_transpose.py::_scaling_aware_fp8_transpose_kernel (TE PR
//            #2544); naive = TE's dequantise-to-bf16 then te_blockwise 128x1 requantisation.
//
// One block (256 threads) per tile (group g, tile row i, column block j); grid (tile rows,
// column blocks). Per tile:
//   1. the tile's 128 scale_inv values (column block j of rows r0..r1) -> shared memory, copied to
//      scale_inv_t; published/ideal: S = their max (all >= +0) -> col_scale_inv, and per row
//      k = exp(S) - exp(si) (ideal: a pad row si = +0 takes the table's last row, 31);
//   2. the 128x128 codes: each thread four independent 16-byte loads (rows 4t..4t+3 of 16
//      columns; a warp instruction reads four whole 128-byte row segments), four bytes at a time
//      through the variant's element rule (published: the header's bit rule in SIMD byte
//      arithmetic; ideal: the same where it is exact, else the emulator's 32x256 table of
//      fp8flow_ideal_code, built from the same function), transposed in registers (byte_perm)
//      into 16 column words of 4 rows, stored to a [column][row] shared buffer with an XOR swizzle
//      (buf_word: no bank conflicts on either side);
//   naive: the raw codes go to the buffer; two threads per column (64 rows each) dequantise
//      (fl32(q·si), then bf16 below 2^-126, as TE's dequantize()), take the te_blockwise amax
//      (halves combined through shared memory), scale and codes of scale_core.hpp (the emulator's
//      own arithmetic; the packed PTX cvt where element_cast_of proves it equal) in place;
//   3. each output column run (m_g-long in qt) is cut at 16-byte-aligned addresses; 8 lanes per
//      column, each a 16-byte chunk assembled from the buffer by funnel shifts and written with
//      one 16-byte store, byte stores only for the partial chunks at the two ends of the run (the
//      group length m_g makes most runs start unaligned).
// Edge tiles (last rows of a group, last column block) are masked as in the peer.
// Bytes moved: m·cols codes read and written, m·cb scale_inv read and written (scale_inv_t),
// Σ ceil(m_g/128)·cols fp32 written (col_scale_inv).
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "octet/scale.hpp"
#include "octet/scale_core.hpp"
#include "sm90_fp8flow_transpose.hpp"
#include "sm90_layout_device.hpp"
#include "sm90_rowwise_blocks_device.hpp"

namespace octet::cuda {
namespace {

using layout_detail::check_launch;
using layout_detail::kThreads;

constexpr int kBlock = int(kFp8FlowBlock);  // 128
constexpr int kLutRows = kFp8FlowTableRows;

// The group table, a kernel parameter (no host-to-device copy per call).
struct GroupTable {
  std::int64_t groups = 0;
  std::int64_t row_begin[kFp8FlowMaxGroups + 1];
  std::int64_t tile_row_begin[kFp8FlowMaxGroups + 1];
};

// ----------------------------------------------------------------------------
// GPU kernels

// TE's dequantize() to bf16 of one code: fl32(q·si) (one rounding of the exact product, as the
// emulator's double product rounded to float), then RNE to bf16 below 2^-126.
__device__ inline float dequantize_to_bf16(std::uint8_t q, float si) {
  const float x = __fmul_rn(scale_core::e4m3fn_value(q), si);
  if (!(fabsf(x) < 0x1p-126f) || x == 0.0f) return x;
  constexpr Format bf16 = bf16_format;
  return __uint_as_float(encode(bf16, CastSpec{}, x) << 16);
}

// Four codes of one row through the published rule at once: per byte E' = max(E − k, 0) by an
// unsigned saturating byte subtraction, sign and mantissa kept, E = 0 -> 0. This is
// fp8flow_published_code byte by byte for 0 <= k <= 31 (E' <= 15 stays inside its field).
__device__ inline std::uint32_t published_word(std::uint32_t w, int k) {
  const std::uint32_t e = (w >> 3) & 0x0F0F0F0Fu;
  const std::uint32_t e_new = __vsubus4(e, 0x01010101u * std::uint32_t(k));
  return ((w & 0x87878787u) | (e_new << 3)) & ~__vcmpeq4(e, 0u);
}

// The ideal rule for four codes of one row, 0 <= k <= 31: where E >= 1, E − k >= 1 and the code
// is not NaN the shift by 2^-k is exact and keeps the mantissa, so fp8flow_ideal_code equals the
// published rule; the other bytes (zeros, subnormals, results below the normal range, NaN) read the
// emulator's table.
__device__ inline std::uint32_t ideal_word(std::uint32_t w, int k, const std::uint8_t* __restrict__ lut) {
  const std::uint32_t e = (w >> 3) & 0x0F0F0F0Fu;
  const std::uint32_t table_bytes =
      __vcmpleu4(e, 0x01010101u * std::uint32_t(k)) | __vcmpeq4(w & 0x7F7F7F7Fu, 0x7F7F7F7Fu);
  std::uint32_t out = published_word(w, k);
  if (table_bytes != 0) {
#pragma unroll
    for (int b = 0; b < 4; ++b)
      if ((table_bytes >> (8 * b)) & 0xFFu) {
        const std::uint32_t code = __ldg(lut + k * 256 + ((w >> (8 * b)) & 0xFFu));
        out = (out & ~(0xFFu << (8 * b))) | code << (8 * b);
      }
  }
  return out;
}

// The tile buffer: column c holds its 128 rows as 32 little-endian words (rows 4w..4w+3 in word w),
// word w stored at c·32 + (w ^ swizzle(c)). The swizzle keeps every access pattern below free of
// bank conflicts: bits 2..4 from c / 16 (the 8 lanes of a row segment in step 2 write columns 16
// apart), bits 0, 1, 3, 4 from c % 16 (32 consecutive columns read the same word in the naive step).
__device__ inline int buf_word(int c, int w) {
  const int swizzle = (4 * ((c >> 4) & 7)) ^ ((c & 3) | (((c >> 2) & 3) << 3));
  return c * (kBlock / 4) + (w ^ swizzle);
}
__device__ inline int buf_byte(int c, int r) { return 4 * buf_word(c, r >> 2) + (r & 3); }

template <Fp8FlowVariant V, rowwise::ElementCast kCast>
__global__ void __launch_bounds__(kThreads)
    fp8flow_kernel(const __grid_constant__ GroupTable table, const std::uint8_t* __restrict__ q,
                   const float* __restrict__ si, std::int64_t cols, std::int64_t col_blocks,
                   const std::uint8_t* __restrict__ ideal_lut, const RecipeCore rec, std::uint8_t* __restrict__ qt,
                   float* __restrict__ csi, float* __restrict__ sit) {
  __shared__ alignas(16) std::uint32_t buf[kBlock * kBlock / 4];  // see buf_word
  __shared__ float si_s[kBlock];
  __shared__ int k_s[kBlock];
  __shared__ float warp_max[kBlock / 32];
  __shared__ float amax_s[kThreads];  // naive: per-half column amax
  std::uint8_t* const buf_bytes = reinterpret_cast<std::uint8_t*>(buf);

  const std::int64_t tr = blockIdx.x, j = blockIdx.y;
  std::int64_t lo = 0, hi = table.groups;  // the group of tile row tr
  while (lo < hi) {
    const std::int64_t mid = (lo + hi) / 2;
    if (table.tile_row_begin[mid + 1] > tr) hi = mid;
    else lo = mid + 1;
  }
  const std::int64_t g = lo;
  const std::int64_t base = table.row_begin[g], m_g = table.row_begin[g + 1] - base;
  const std::int64_t r0 = base + (tr - table.tile_row_begin[g]) * kBlock;
  const int nr = int(m_g - (r0 - base) < kBlock ? m_g - (r0 - base) : kBlock);
  const std::int64_t c0 = j * kBlock;
  const int nc = int(cols - c0 < kBlock ? cols - c0 : kBlock);
  const int tid = threadIdx.x;

  // 1. scales
  if (tid < kBlock) {
    const float v = tid < nr ? si[(r0 + tid) * col_blocks + j] : 0.0f;
    si_s[tid] = v;
    if (tid < nr) sit[col_blocks * base + j * m_g + (r0 - base) + tid] = v;
    if constexpr (V != Fp8FlowVariant::naive) {
      float m = v;
#pragma unroll
      for (int s = 16; s > 0; s /= 2) m = fmaxf(m, __shfl_xor_sync(0xFFFFFFFFu, m, s));
      if (tid % 32 == 0) warp_max[tid / 32] = m;
    }
  }
  __syncthreads();
  if constexpr (V != Fp8FlowVariant::naive) {
    const float s_tile = fmaxf(fmaxf(warp_max[0], warp_max[1]), fmaxf(warp_max[2], warp_max[3]));
    if (tid < nc) csi[tr * cols + c0 + tid] = s_tile;
    if (tid < nr) {
      const float v = si_s[tid];
      int k = fp8flow_scale_exponent(s_tile) - fp8flow_scale_exponent(v);
      if (V == Fp8FlowVariant::ideal && __float_as_uint(v) == 0u) k = kLutRows - 1;
      k_s[tid] = k < kLutRows - 1 ? k : kLutRows - 1;
    }
    __syncthreads();
  }

  // 2. codes -> buf, through the element rule
  auto rule = [&](std::uint8_t code, int row) -> std::uint8_t {
    if constexpr (V == Fp8FlowVariant::published) return fp8flow_published_code(code, k_s[row]);
    else if constexpr (V == Fp8FlowVariant::ideal) return __ldg(ideal_lut + k_s[row] * 256 + code);
    else return code;
  };
  const std::uint8_t* q_tile = q + r0 * cols + c0;
  if (nc == kBlock && cols % 16 == 0) {
    // Thread: rows 4·rg..4·rg+3 of the 16 columns 16·vec..16·vec+15 (four independent 16-byte
    // loads, each warp instruction 4 whole 128-byte row segments), transposed in registers into
    // 16 column words.
    const int vec = tid % 8, rg = tid / 8;
    std::uint32_t w[4][4];
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const int row = 4 * rg + r;
      const uint4 v = row < nr ? __ldg(reinterpret_cast<const uint4*>(q_tile + row * cols) + vec) : make_uint4(0, 0, 0, 0);
      w[r][0] = v.x, w[r][1] = v.y, w[r][2] = v.z, w[r][3] = v.w;
    }
    if constexpr (V != Fp8FlowVariant::naive) {
#pragma unroll
      for (int r = 0; r < 4; ++r)
#pragma unroll
        for (int x = 0; x < 4; ++x) {
          const int row = 4 * rg + r;
          if (row >= nr) continue;  // k_s is not set there
          const int k = k_s[row];
          if (k >= 0) {  // k < 0 only for a NaN scale_inv: byte by byte
            w[r][x] = V == Fp8FlowVariant::published ? published_word(w[r][x], k) : ideal_word(w[r][x], k, ideal_lut);
            continue;
          }
          std::uint32_t out = 0;
#pragma unroll
          for (int b = 0; b < 4; ++b) out |= std::uint32_t(rule(std::uint8_t(w[r][x] >> (8 * b)), row)) << (8 * b);
          w[r][x] = out;
        }
    }
#pragma unroll
    for (int b = 0; b < 16; ++b) {
      const int x = b / 4;
      const unsigned sel = unsigned(b % 4) | unsigned(b % 4 + 4) << 4;  // byte b%4 of both operands
      const std::uint32_t r01 = __byte_perm(w[0][x], w[1][x], sel), r23 = __byte_perm(w[2][x], w[3][x], sel);
      buf[buf_word(16 * vec + b, rg)] = __byte_perm(r01, r23, 0x5410);
    }
  } else {
    for (int e = tid; e < kBlock * kBlock; e += kThreads) {
      const int col = e % kBlock, row = e / kBlock;
      if (col < nc && row < nr) buf_bytes[buf_byte(col, row)] = rule(q_tile[row * cols + col], row);
    }
  }
  __syncthreads();

  // naive: per column, te_blockwise over the dequantised values; two threads per column (rows
  // [0, 64) and [64, 128)), 32 consecutive columns per warp; amax_update is a max under the
  // recipe's NaN rule, so the two halves combine in any order.
  if constexpr (V == Fp8FlowVariant::naive) {
    const int col = tid % kBlock, half = tid / kBlock;
    const int r_begin = half * (kBlock / 2), r_end = nr < r_begin + kBlock / 2 ? nr : r_begin + kBlock / 2;
    auto dequantized8 = [&](int r, float v[8]) {
      const std::uint32_t w0 = buf[buf_word(col, r / 4)], w1 = buf[buf_word(col, r / 4 + 1)];
#pragma unroll
      for (int e = 0; e < 8; ++e)
        v[e] = dequantize_to_bf16(std::uint8_t((e < 4 ? w0 : w1) >> (8 * (e % 4))), si_s[r + e]);
    };
    float amax = scale_core::amax_init(rec);
    if (col < nc)
      for (int r = r_begin; r < r_end; r += 8) {
        float v[8];
        dequantized8(r, v);
#pragma unroll
        for (int e = 0; e < 8; ++e)
          if (r + e < r_end) amax = scale_core::amax_update(rec, amax, v[e]);
      }
    amax_s[tid] = amax;
    __syncthreads();
    if (col < nc) {
      const BlockScale s = scale_core::scale_from_amax(rec, scale_core::amax_update(rec, amax_s[col], amax_s[col + kBlock]));
      if (half == 0) csi[tr * cols + c0 + col] = __uint_as_float(s.stored);
      // Rows past nr are cast too (si_s is +0 there) and never stored.
      for (int r = r_begin; r < r_end; r += 8) {
        float v[8];
        dequantized8(r, v);
        std::uint8_t c[8];
        rowwise::codes8<kCast>(rec, s, v, c);
        buf[buf_word(col, r / 4)] = c[0] | std::uint32_t(c[1]) << 8 | std::uint32_t(c[2]) << 16 | std::uint32_t(c[3]) << 24;
        buf[buf_word(col, r / 4 + 1)] = c[4] | std::uint32_t(c[5]) << 8 | std::uint32_t(c[6]) << 16 | std::uint32_t(c[7]) << 24;
      }
    }
    __syncthreads();
  }

  // 3. Output column runs: qt[c0 + col] of the group is m_g bytes at qt_group + (c0 + col)·m_g, this
  // tile's rows [0, nr) of it. The run is cut at 16-byte-aligned addresses into at most 9 chunks;
  // 8 lanes per column, lane k writes chunk k (and chunk 8): rows [16k − mis, 16k − mis + 16),
  // assembled from five words of the column by funnel shifts; whole chunks are one 16-byte store,
  // the (at most two) partial ones byte stores of their rows inside the run.
  const int sub = tid % 8;
  std::uint8_t* qt_group = qt + cols * base + (r0 - base);
  for (int slot = tid / 8; slot < nc; slot += kThreads / 8) {
    const int col = slot;
    std::uint8_t* dst = qt_group + (c0 + col) * m_g;
    const int mis = int(reinterpret_cast<std::uintptr_t>(dst) & 15u);
    const int chunks = (mis + nr + 15) / 16;
    for (int k = sub; k < chunks; k += 8) {
      const int rs = 16 * k - mis;  // first row of the chunk (>= -15)
      const int wbase = rs >> 2, shift = 8 * (rs & 3);
      std::uint32_t x[5];
#pragma unroll
      for (int i = 0; i < 5; ++i) {
        const int wi = wbase + i;
        x[i] = wi >= 0 && wi < kBlock / 4 ? buf[buf_word(col, wi)] : 0u;
      }
      std::uint32_t o[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) o[i] = __funnelshift_r(x[i], x[i + 1], unsigned(shift));
      std::uint8_t* chunk = dst + rs;
      if (rs >= 0 && rs + 16 <= nr) {
        *reinterpret_cast<uint4*>(chunk) = make_uint4(o[0], o[1], o[2], o[3]);
      } else {
#pragma unroll
        for (int b = 0; b < 16; ++b)
          if (rs + b >= 0 && rs + b < nr) chunk[b] = std::uint8_t(o[b / 4] >> (8 * (b % 4)));
      }
    }
  }
}

// ----------------------------------------------------------------------------
// kernel launcher

// The ideal rule's table on the device, uploaded once (fp8flow_ideal_table).
const std::uint8_t* ideal_lut_device() {
  static const std::uint8_t* lut = [] {
    const std::vector<std::uint8_t> t = fp8flow_ideal_table();
    std::uint8_t* p = nullptr;
    OCTET_CUDA_CHECK(cudaMalloc(&p, t.size()));
    OCTET_CUDA_CHECK(cudaMemcpy(p, t.data(), t.size(), cudaMemcpyHostToDevice));
    return p;
  }();
  return lut;
}

template <Fp8FlowVariant V, rowwise::ElementCast kCast = rowwise::ElementCast::generic>
void launch(const GroupTable& table, const std::uint8_t* q, const float* si, const Fp8FlowLayout& L,
            const RecipeCore& rec, const std::uint8_t* lut, const Fp8FlowGpuOutputs& out, cudaStream_t stream) {
  const dim3 grid(unsigned(L.tile_row_begin.back()), unsigned(L.col_blocks));
  fp8flow_kernel<V, kCast><<<grid, kThreads, 0, stream>>>(table, q, si, L.cols, L.col_blocks, lut, rec, out.qt, out.csi,
                                                   out.sit);
  check_launch();
}

}  // namespace

void fp8flow_transpose(Fp8FlowVariant variant, const std::uint8_t* q_m_c, const float* si_m_cb,
                       const Fp8FlowLayout& L, const Fp8FlowGpuOutputs& out, cudaStream_t stream) {
  if (L.groups() > kFp8FlowMaxGroups)
    throw std::invalid_argument("offs: " + std::to_string(L.groups()) + " groups; the CUDA kernel takes at most " +
                                std::to_string(kFp8FlowMaxGroups));
  if (L.col_blocks > 65535) throw std::invalid_argument("q_m_c: more than 65535 column blocks");
  if (L.tile_row_begin.back() == 0 || L.col_blocks == 0) return;  // nothing to write
  auto table = std::make_unique<GroupTable>();
  table->groups = L.groups();
  for (std::int64_t g = 0; g <= L.groups(); ++g) {
    table->row_begin[g] = L.row_begin[std::size_t(g)];
    table->tile_row_begin[g] = L.tile_row_begin[std::size_t(g)];
  }
  switch (variant) {
    case Fp8FlowVariant::published:
      return launch<Fp8FlowVariant::published>(*table, q_m_c, si_m_cb, L, RecipeCore{}, nullptr, out, stream);
    case Fp8FlowVariant::ideal:
      return launch<Fp8FlowVariant::ideal>(*table, q_m_c, si_m_cb, L, RecipeCore{}, ideal_lut_device(), out, stream);
    case Fp8FlowVariant::naive: {
      const Recipe& r = recipe("te_blockwise");
      if (rowwise::element_cast_of(r) == rowwise::ElementCast::cvt_e4m3)
        return launch<Fp8FlowVariant::naive, rowwise::ElementCast::cvt_e4m3>(*table, q_m_c, si_m_cb, L, make_core(r),
                                                                            nullptr, out, stream);
      return launch<Fp8FlowVariant::naive>(*table, q_m_c, si_m_cb, L, make_core(r), nullptr, out, stream);
    }
  }
  throw std::invalid_argument("variant: unknown value");
}

}  // namespace octet::cuda
