// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// sm90_bf16_mx_quant.cu — MX quantisation (e8m0 scale per 32 elements) along dim 0 (1x32 blocks
// along K) and dim 1 (32x1 blocks along M, column-major codes), both at once (mx_quantize_2d),
// with the scales in the blocked 128x4 layout (mx_blocked_scales), and the dim0 dequantiser.
// Peer:     pytorch/ao torchao/prototype/mx_formats/kernels.py::triton_to_mxfp8_dim0,
//           triton_to_mxfp8_dim1, triton_mxfp8_dequant_dim0 (recipes torchao_mx_{floor,rceil,ceil,
//           even}, and every other MX recipe: te_mxfp8, ocp_mx, nvidia_rceil_rcp_approx, the v0.18
//           ones); torchao mxfp8_quantize_cuda / TE quantize_mxfp8 (2d: rowwise and colwise
//           outputs); the CuTeDSL mxfp8_quantize_2d_{1x32,32x1}_cutedsl and mxfp8_quantize_cuda_3d
//           blocked scale outputs (reference/kernels.md §2, §5).
// Equals:   octet::mx_quantize_dim0 / mx_quantize_dim1 / mx_quantize_2d / mx_quantize_3d,
//           mx_blocked_scales, mx_dequantize_dim0_{bf16,fp32} (emulator/src/kernels/mx_quantize.cpp),
//           bytes of codes, e8m0 scales, blocked scales (padding included) and dequantised values.
// Also:     mx_quantize_3d (torchao moe_training mxfp8_quantize_cuda_3d; octet::mx_quantize_3d):
//           x (E, N, K) -> codes (E, N, K) strides (N*K, 1, N), 32x1 or 32x32 blocks along N.
// Kernels:  dim0: row_stream_kernel (sm90_quant_row_stream.cuh) over 32-column blocks, fixed-recipe
//           scale code for torchao_mx_rceil / te_mxfp8 (sm90_fixed_core.hpp); where it does not
//           apply, row_segments_kernel with two lanes per block holding two 16-byte chunks each.
//           dim1: column_stream_kernel (sm90_quant_column_stream.cuh), four 32-row blocks per
//           128-row item of a 128-column tile (MergedRanges: a store instruction writes 128 bytes
//           of a column), the CTA copying whole row pieces into shared memory by cp.async up to
//           three items ahead, each element read once, codes transposed in registers (8 rows of
//           a column per store); column_tiles_kernel (256-column tiles, 32-row ranges) where it
//           does not apply.
//           3d: the same kernels over the (E*N, K) rows; 32x1: one amax per column, 32x32: one
//           amax per 32 columns (one key per 8-column chunk combined in shared memory).
//           2d: the dim1 kernel with the rowwise blocks as its second output (kRowBlockCols: each
//           128-row piece in shared memory is also cast along its rows, 1x32 blocks, after the
//           column cast), the input read once; colwise scales stored (cols, rows/32) with strides
//           (1, cols). Where the stream kernel does not apply, or one output only, the dim0 and
//           dim1 launches (the input read twice: at most 4/6 of copy in the counted bytes).
//           blocked scales: 1x32 and 32x1 with no padded tile (1x32: M % 128 == 0, (K/32) % 4 == 0;
//           32x1: K % 128 == 0, (M/32) % 4 == 0): the dim0 / dim1 kernel stores each scale
//           straight at its blocked offset (octet::blocked_offset, one pass). 3D: each expert's
//           scales spread to the (K, N/32) matrix (a 32x32 scale repeated for its 32 k, as the
//           emulator does), with no padded tile straight into its blocked layout (16 bytes of a
//           tile per thread). Otherwise the quantiser into a stream-ordered scratch of plain
//           scales, then the scale swizzle (sm90_e8m0_scale_swizzle.cu, which writes the padding).
//           dequant: 512 codes per warp and step, each lane 8 (fp32 output) or 16 (bf16) codes per
//           access, one load and two 16-byte stores (32 bytes, one sector, per lane), code values
//           by the PTX cvt of two e4m3 / e5m2 codes to f16x2 for bf16 output, else from a
//           256-entry shared table.
// Bytes:    quantisers: M*K*sizeof(in) read, M*K codes + M*K/32 scale bytes written; dequant: M*K
//           codes + M*K/32 scale bytes read, M*K*sizeof(out) written.
#include "octet/kernels/mx_swizzle.hpp"
#include "quant.hpp"
#include "sm90_e8m0_scale_swizzle.hpp"
#include "sm90_layout_device.hpp"
#include "sm90_quant_column_stream.cuh"
#include "sm90_quant_row_stream.cuh"
#include "sm90_rowwise_blocks_device.hpp"

namespace octet::cuda {
namespace {

constexpr std::int64_t kMxBlock = 32;

// Same messages as emulator/src/kernels/mx_quantize.cpp.
void require_mx(const Recipe& r, const char* kernel, std::int64_t M, std::int64_t K) {
  require(storage(r) == ScaleStorage::E8m0, std::string(kernel) + ": recipe '" + std::string(name(r)) +
                                                "' is not an MX recipe (its scales are " +
                                                std::string(name(storage(r))) + ", an MX kernel needs e8m0)");
  const Format& f = all_formats[std::size_t(element_format(r))];
  require(f.bits() == 8, std::string(kernel) + ": recipe '" + std::string(name(r)) + "' has a " +
                             std::to_string(f.bits()) + "-bit element format; MX kernels write one byte per element");
  require(M >= 0 && K >= 0, std::string(kernel) + ": x has a negative shape (" + std::to_string(M) + ", " +
                                std::to_string(K) + ")");
}
void require_block_multiple(std::int64_t extent, const char* kernel, const char* what) {
  require(extent % kMxBlock == 0, std::string(kernel) + ": " + what + " = " + std::to_string(extent) +
                                      " is not a multiple of the MX block size " + std::to_string(kMxBlock));
}

// dim0: block (m, kb) = x[m, 32kb .. 32kb + 32); scale at m*K/32 + kb (the flat block index).
struct Dim0Scale {
  std::int64_t Kb;
  __device__ std::int64_t operator()(std::int64_t m, int kb) const { return m * Kb + kb; }
};

// dim0 into the blocked layout of the (M, K/32) scale matrix, for matrices with no padded tile:
// scale (m, kb) at blocked_offset(m, kb) (mx_swizzle.hpp, torchao to_blocked).
struct Dim0BlockedScale {
  static constexpr int kSlotRanges = 4;  // a tile's 4 columns of one row together (quant::BlockColumns)
  std::int64_t n_col_blocks;  // K / 32 / 4
  __device__ std::int64_t operator()(std::int64_t m, int kb) const { return blocked_offset(m, kb, n_col_blocks); }
};

// dim1: range b = rows [32b, 32b + 32); scale (k, b) at k*k_stride + b*b_stride: (M/32, 1) for
// mx_quantize_dim1's (K, M/32) row-major scales, (1, K) for mx_quantize_2d's colwise ones.
struct Dim1Map {
  std::int64_t M, k_stride, b_stride;
  __device__ quant::RowRange range(std::int64_t b) const { return {b * kMxBlock, (b + 1) * kMxBlock, false}; }
  __device__ std::int64_t scale_index(std::int64_t b, std::int64_t k) const { return k * k_stride + b * b_stride; }
  __device__ std::int64_t out_offset(std::int64_t m, std::int64_t k) const { return k * M + m; }
};

// dim1 with its (K, M/32) scales stored straight into the blocked layout (no padded tile: K % 128
// == 0, (M/32) % 4 == 0): scale (k, b) at blocked_offset(k, b, n_col_blocks).
struct Dim1BlockedMap : Dim1Map {
  std::int64_t n_col_blocks;  // M / 32 / 4
  __device__ std::int64_t scale_index(std::int64_t b, std::int64_t k) const { return blocked_offset(k, b, n_col_blocks); }
};

// mx_quantize_2d in one launch: Dim1Map's colwise blocks, and the rowwise (dim0) blocks of the same
// stages (column_stream_kernel's kRowBlockCols): codes (M, K) row-major, scales (M, K/32).
struct Dim2Map : Dim1Map {
  static constexpr int kRowBlockCols = kMxBlock;
  quant::RowBlockOut rows_out;
  __device__ quant::RowBlockOut row_blocks() const { return rows_out; }
};

// 3D (E, N, K) as (E*N, K) rows: range i = rows [32i, 32i + 32) of expert e = i / Nb, block row
// nb = i % Nb; scale (e, nb, c) at i*scale_cols + c with c = k (32x1) or k/32 (32x32); codes of
// expert e column-major: e*N*K + k*N + n.
struct Mx3dMap {
  std::int64_t N, K, scale_cols;
  int scale_col_shift;  // 0 (32x1) or 5 (32x32)
  __device__ quant::RowRange range(std::int64_t i) const { return {i * kMxBlock, (i + 1) * kMxBlock, false}; }
  __device__ std::int64_t scale_index(std::int64_t i, std::int64_t k) const {
    return i * scale_cols + (k >> scale_col_shift);
  }
  __device__ std::int64_t out_offset(std::int64_t row, std::int64_t k) const {
    const std::int64_t e = row / N, n = row % N;
    return e * N * K + k * N + n;
  }
};

// The checks of each quantiser, before anything is allocated or launched.
void check_dim0(const Recipe& r, std::int64_t M, std::int64_t K) {
  require_mx(r, "mx_quantize_dim0", M, K);
  require_block_multiple(K, "mx_quantize_dim0", "x.cols (K)");
}
void check_dim1(const Recipe& r, std::int64_t M, std::int64_t K) {
  require_mx(r, "mx_quantize_dim1", M, K);
  require_block_multiple(M, "mx_quantize_dim1", "x.rows (M)");
}
void check_3d(const Recipe& r, std::int64_t E, std::int64_t N, std::int64_t K, bool block32x32) {
  constexpr const char* kKernel = "mx_quantize_3d";
  require_mx(r, kKernel, N, K);
  require(E >= 0, std::string(kKernel) + ": x has a negative shape (" + std::to_string(E) + ", " + std::to_string(N) +
                      ", " + std::to_string(K) + ")");
  require_block_multiple(N, kKernel, "x.rows (N)");
  if (block32x32) require_block_multiple(K, kKernel, "x.cols (K)");
}

// Scales at scale(m, kb): Dim0Scale (row-major) or Dim0BlockedScale.
template <class Scale>
void launch_dim0(SourceType src, const void* x, std::int64_t M, std::int64_t K, const Recipe& r, std::uint8_t* q,
                 std::uint8_t* scales, Scale scale, cudaStream_t stream) {
  quant::launch_row_blocks<2, 8, 2, TorchaoMxRceilCore, TeMxfp8Core>(src, x, q, scales, true, r,
                                                                     quant::BlockColumns<Scale>{M, K, kMxBlock, scale}, stream);
}
void launch_dim0(SourceType src, const void* x, std::int64_t M, std::int64_t K, const Recipe& r, std::uint8_t* q,
                 std::uint8_t* scales, cudaStream_t stream) {
  launch_dim0(src, x, M, K, r, q, scales, Dim0Scale{K / kMxBlock}, stream);
}
// Scale (k, b) at k*k_stride + b*b_stride.
void launch_dim1(SourceType src, const void* x, std::int64_t M, std::int64_t K, const Recipe& r, std::uint8_t* q,
                 std::uint8_t* scales, std::int64_t k_stride, std::int64_t b_stride, cudaStream_t stream) {
  quant::launch_column_blocks_merged<128, 1, kMxBlock, 256, 16, TorchaoMxRceilCore, TeMxfp8Core>(
      src, x, K, q, scales, true, M % 8 == 0, r, Dim1Map{M, k_stride, b_stride}, M / kMxBlock, stream);
}

// ---- blocked scales of the 3D quantiser ---------------------------------------------------------

// scales (E, N/32, SC) row-major (SC = K for 32x1, K/32 for 32x32: k >> col_shift) -> per expert
// the (K, N/32) matrix, row-major: out[(e*K + k)*NB + nb] = scales[(e*NB + nb)*SC + (k >> col_shift)].
// One output byte per thread (consecutive threads write consecutive nb); the volume is 1/32 of x.
__global__ void __launch_bounds__(layout_detail::kThreads)
    spread_3d_scales_kernel(const std::uint8_t* __restrict__ scales, std::int64_t K, std::int64_t NB,
                            std::int64_t SC, int col_shift, std::int64_t count, std::uint8_t* __restrict__ out) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    const std::int64_t nb = i % NB, ek = i / NB, e = ek / K, k = ek % K;
    out[i] = scales[(e * NB + nb) * SC + (k >> col_shift)];
  }
}

// The same spread straight into the blocked layout of each expert's (K, NB) matrix, for matrices
// with no padded tile (K % 128 == 0, NB % 4 == 0: the layout is a permutation, expert e's at
// e*K*NB): a thread writes 16 bytes, the scales (k + 32j, 4q + c) of a 512-byte tile (k % 128 < 32,
// j, c < 4), which sit at blocked_offset(k, 4q) + 4j + c; its lanes are consecutive in k, so that
// the byte reads of one (nb, j) are consecutive. Spread then to_blocked_per_group_3d took about 85 us
// of the 459 us of mx_blocked_scales 3D at 8x5120x8192 (H100).
__global__ void __launch_bounds__(layout_detail::kThreads)
    spread_3d_scales_blocked_kernel(const std::uint8_t* __restrict__ scales, std::int64_t K, std::int64_t NB,
                                    std::int64_t SC, int col_shift, std::int64_t count, std::uint8_t* __restrict__ out) {
  // Item i = ((e*(K/128) + kt) * (NB/4) + q) * 32 + k32: tile (kt, q) of expert e, row k32 of its
  // 32-row stripes.
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  const std::int64_t q_count = NB / kScaleTileCols, kt_count = K / kScaleTileRows;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    const std::int64_t k32 = i % 32, tile = i / 32, q = tile % q_count, ekt = tile / q_count;
    const std::int64_t kt = ekt % kt_count, e = ekt / kt_count, k0 = kt * kScaleTileRows + k32;
    std::uint32_t w[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const std::int64_t k = k0 + 32 * j;
      std::uint32_t v = 0;
#pragma unroll
      for (int c = 0; c < 4; ++c) v |= std::uint32_t(scales[(e * NB + 4 * q + c) * SC + (k >> col_shift)]) << (8 * c);
      w[j] = v;
    }
    *reinterpret_cast<uint4*>(out + e * K * NB + blocked_offset(k0, 4 * q, q_count)) = make_uint4(w[0], w[1], w[2], w[3]);
  }
}

// ---- dim0 dequantisation -------------------------------------------------------------------------

// Codes per warp and step; each lane takes accesses of dequant_lane_codes consecutive codes (one
// load), whose values fill 32 bytes (one sector: two 16-byte stores), the lanes of an access side
// by side. Chosen by measurement (H100, 16640x5120, % of copy): fp32 output 8 codes a lane 87.6%,
// against 76.4% with 4 (each store instruction writing 512 contiguous bytes) and 66% with 16 (four
// stores 64 bytes apart); bf16 output 16 codes a lane 82.9%, against 69.6% with 8.
constexpr int kDequantWarpCodes = 512;
template <bool kFp32Out>
inline constexpr int dequant_lane_codes = kFp32Out ? 8 : 16;

// The emulator's rounding of an exact value code·2^(b-127) (emulator/src/kernels/mx_quantize.cpp,
// round_to_bf16 / round_to_fp32), for the values the fast path below does not take: bf16 through
// octet's converter (RNE, IEEE overflow to Inf, NaN -> 0x7FC0), fp32 by RNE with NaN ->
// 0x7FC00000. Out of line: it runs only for NaN, Inf, overflow, subnormal or inexact results.
template <bool kFp32Out>
static __device__ __noinline__ std::uint32_t dequant_exact(RecipeCore r, float decode_multiplier, std::uint32_t code) {
  BlockScale s;
  s.decode = decode_multiplier;
  const double v = scale_core::dequantize_element(r, s, code);
  if constexpr (kFp32Out) {
    return scale_core::is_nan(v) ? 0x7FC00000u : __float_as_uint(__double2float_rn(v));
  } else {
    constexpr CastSpec kBf16Spec{.rounding = Rounding::NearestEven, .overflow = Overflow::Ieee,
                                 .nan = NanPolicy::Canonical};
    return encode(format_of(FormatId::bf16), kBf16Spec, v);
  }
}

// One output element from its code's value (the code's exact value for every code that is not
// NaN). The decode multiplier 2^(b-127) (b < 255) is a power of two, so the fp32 product is the
// exact value whenever it is a normal number or zero; then fp32 rounding is the identity, and so
// is bf16 rounding when the low 16 bits are zero. Everything else (NaN code or scale 0xFF, Inf,
// overflow, subnormal products, more than 8 significant bits) takes dequant_exact, the emulator's
// formula.
template <bool kFp32Out>
__device__ __forceinline__ std::uint32_t dequant_value(const RecipeCore& r, float value, float decode_multiplier,
                                                       std::uint32_t code) {
  const std::uint32_t b = __float_as_uint(__fmul_rn(value, decode_multiplier));
  const std::uint32_t field = (b >> 23) & 0xFFu;
  bool fast = (field != 0u && field != 0xFFu) || (b & 0x7FFFFFFFu) == 0u;
  if constexpr (!kFp32Out) fast = fast && (b & 0xFFFFu) == 0u;
  if (fast) return kFp32Out ? b : b >> 16;
  return dequant_exact<kFp32Out>(r, decode_multiplier, code);
}

// How the dequantiser gets a code's value: the PTX cvt of two e4m3 / e5m2 codes to f16x2 (sm_89;
// exact: every finite e4m3fn / e5m2 value is an f16 value, and NaN / Inf codes stay NaN / Inf, which
// dequant_value sends to the exact formula, as it does the table's), or a 256-entry table in shared
// memory (one lookup per code, lanes on random banks): the other element formats, and fp32 output,
// where the table measured faster (mx_dequantize_dim0 below).
enum class CodeDecode : int { Table, CvtE4m3, CvtE5m2 };

// The values of codes 2k and 2k + 1 of a word (k = 0, 1).
template <CodeDecode D>
__device__ __forceinline__ float2 cvt_code_pair(std::uint32_t word, int k) {
  constexpr rowwise::ElementCast kCast = D == CodeDecode::CvtE4m3 ? rowwise::ElementCast::cvt_e4m3 : rowwise::ElementCast::cvt_e5m2;
  return rowwise::decode_pair<kCast>(std::uint16_t(word >> (16 * k)));
}

// q (n codes, n % 32 == 0), scales (n/32 e8m0 bytes): y[i] from q[i] and scales[i / 32]. vec:
// q and y are 16-byte aligned (accesses of 4 or 8 codes in, 16 bytes out); otherwise one code at
// a time.
template <bool kFp32Out, CodeDecode D>
__global__ void __launch_bounds__(layout_detail::kThreads)
    mx_dequantize_dim0_kernel(const std::uint8_t* __restrict__ q, const std::uint8_t* __restrict__ scales,
                              std::int64_t n, RecipeCore r, void* __restrict__ y, bool vec) {
  using Out = std::conditional_t<kFp32Out, std::uint32_t, std::uint16_t>;
  constexpr int kCodes = dequant_lane_codes<kFp32Out>;          // codes per access: 8 or 16
  constexpr int kAccesses = kDequantWarpCodes / (32 * kCodes);  // per lane and step: 2 or 1
  constexpr int kStores = kCodes * int(sizeof(Out)) / 16;       // 16-byte stores per access: 2
  using CodeWord = std::conditional_t<kCodes == 8, uint2, uint4>;
  __shared__ float code_value[256];
  for (int c = int(threadIdx.x); c < 256; c += int(blockDim.x))
    code_value[c] = float(decode(format_of(r.element), std::uint32_t(c)));
  __syncthreads();
  Out* out = static_cast<Out*>(y);
  const auto decode_of = [&](std::int64_t i) {  // the decode multiplier of code i's block
    return scale_core::scale_from_stored(r, std::uint32_t(__ldg(scales + i / kMxBlock))).decode;
  };
  if (!vec) {
    const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
    for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
      out[i] = Out(dequant_value<kFp32Out>(r, code_value[q[i]], decode_of(i), q[i]));
    return;
  }
  const int lane = int(threadIdx.x) % 32;
  const std::int64_t warps = std::int64_t(gridDim.x) * (blockDim.x / 32);
  for (std::int64_t w = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32; w * kDequantWarpCodes < n;
       w += warps) {
    // Every access's codes and decode multiplier first (the loads in flight together), then the
    // values and the stores. An access lies inside one 32-code block, whole or absent (n % 32 == 0).
    std::int64_t i0[kAccesses];
    CodeWord word[kAccesses];
    float d[kAccesses];
#pragma unroll
    for (int k = 0; k < kAccesses; ++k) {
      i0[k] = w * kDequantWarpCodes + std::int64_t(k * 32 + lane) * kCodes;
      if (i0[k] < n) {
        word[k] = __ldg(reinterpret_cast<const CodeWord*>(q + i0[k]));
        d[k] = decode_of(i0[k]);
      }
    }
#pragma unroll
    for (int k = 0; k < kAccesses; ++k) {
      if (i0[k] >= n) continue;
      std::uint32_t code_words[kCodes / 4];
      static_assert(sizeof(code_words) == sizeof(CodeWord), "one load per access");
      memcpy(code_words, &word[k], sizeof(code_words));
      std::uint32_t v[kCodes];
#pragma unroll
      for (int j = 0; j < kCodes; j += 2) {
        const std::uint32_t c0 = (code_words[j / 4] >> (8 * (j % 4))) & 0xFFu;
        const std::uint32_t c1 = (code_words[j / 4] >> (8 * (j % 4 + 1))) & 0xFFu;
        float2 value;
        if constexpr (D == CodeDecode::Table) value = make_float2(code_value[c0], code_value[c1]);
        else value = cvt_code_pair<D>(code_words[j / 4], (j % 4) / 2);
        v[j] = dequant_value<kFp32Out>(r, value.x, d[k], c0);
        v[j + 1] = dequant_value<kFp32Out>(r, value.y, d[k], c1);
      }
      uint4* dst = reinterpret_cast<uint4*>(out + i0[k]);
#pragma unroll
      for (int st = 0; st < kStores; ++st) {
        if constexpr (kFp32Out) dst[st] = make_uint4(v[4 * st], v[4 * st + 1], v[4 * st + 2], v[4 * st + 3]);
        else
          dst[st] = make_uint4(v[8 * st] | (v[8 * st + 1] << 16), v[8 * st + 2] | (v[8 * st + 3] << 16),
                               v[8 * st + 4] | (v[8 * st + 5] << 16), v[8 * st + 6] | (v[8 * st + 7] << 16));
      }
    }
  }
}

}  // namespace

void mx_quantize_dim0(SourceType src, const void* x, std::int64_t M, std::int64_t K, const Recipe& r,
                      std::uint8_t* q, std::uint8_t* scales, cudaStream_t stream) {
  check_dim0(r, M, K);
  launch_dim0(src, x, M, K, r, q, scales, stream);
}

void mx_quantize_dim1(SourceType src, const void* x, std::int64_t M, std::int64_t K, const Recipe& r,
                      std::uint8_t* q, std::uint8_t* scales, cudaStream_t stream) {
  check_dim1(r, M, K);
  launch_dim1(src, x, M, K, r, q, scales, M / kMxBlock, 1, stream);
}

void mx_quantize_2d(SourceType src, const void* x, std::int64_t rows, std::int64_t cols, const Recipe& r,
                    bool rowwise, bool colwise, std::uint8_t* q_row, std::uint8_t* scales_row, std::uint8_t* q_col,
                    std::uint8_t* scales_col, cudaStream_t stream) {
  constexpr const char* kKernel = "mx_quantize_2d";
  require_mx(r, kKernel, rows, cols);
  require(rowwise || colwise, std::string(kKernel) + ": rowwise and colwise are both false; ask for at least one");
  require_block_multiple(rows, kKernel, "x.rows");
  require_block_multiple(cols, kKernel, "x.cols");
  // Both outputs: one launch that reads the input once, where the stream kernel applies.
  if (rowwise && colwise) {
    constexpr int kSubs = quant::kColumnPieceRows<128> / kMxBlock;
    const Dim2Map map{{rows, 1, cols}, {q_row, scales_row, cols / kMxBlock}};
    const quant::MergedRanges<Dim2Map, kMxBlock, kSubs> merged{map, rows / kMxBlock};
    if (quant::launch_column_stream<128, 1, TorchaoMxRceilCore, TeMxfp8Core>(
            src, x, cols, q_col, scales_col, true, rows % 8 == 0, r, merged, (rows / kMxBlock + kSubs - 1) / kSubs,
            stream))
      return;
  }
  if (rowwise) launch_dim0(src, x, rows, cols, r, q_row, scales_row, stream);
  if (colwise) launch_dim1(src, x, rows, cols, r, q_col, scales_col, 1, cols, stream);
}

void mx_quantize_3d(SourceType src, const void* x, std::int64_t E, std::int64_t N, std::int64_t K, bool block32x32,
                    const Recipe& r, std::uint8_t* q, std::uint8_t* scales, cudaStream_t stream) {
  check_3d(r, E, N, K, block32x32);
  const std::int64_t ranges = E * (N / kMxBlock);
  if (block32x32)
    quant::launch_column_blocks_merged<128, 32, kMxBlock, 256, 16, TorchaoMxRceilCore>(
        src, x, K, q, scales, true, true, r, Mx3dMap{N, K, K / kMxBlock, 5}, ranges, stream);
  else
    quant::launch_column_blocks_merged<128, 1, kMxBlock, 256, 16, TorchaoMxRceilCore>(
        src, x, K, q, scales, true, true, r, Mx3dMap{N, K, K, 0}, ranges, stream);
}

void mx_blocked_scales_2d(SourceType src, const void* x, std::int64_t M, std::int64_t K, bool block32x1,
                          const Recipe& r, std::uint8_t* q, std::uint8_t* scale_blocked, cudaStream_t stream) {
  if (block32x1) check_dim1(r, M, K);
  else check_dim0(r, M, K);
  // The plain scales: (M, K/32) for 1x32, (K, M/32) for 32x1, row-major.
  const std::int64_t rows = block32x1 ? K : M, cols = block32x1 ? M / kMxBlock : K / kMxBlock;
  if (!block32x1 && M % kScaleTileRows == 0 && cols % kScaleTileCols == 0) {
    launch_dim0(src, x, M, K, r, q, scale_blocked, Dim0BlockedScale{cols / kScaleTileCols}, stream);
    return;
  }
  if (block32x1 && rows % kScaleTileRows == 0 && cols % kScaleTileCols == 0) {
    const Dim1BlockedMap map{{M, 0, 0}, cols / kScaleTileCols};  // (Dim1Map's strides: unused)
    quant::launch_column_blocks_merged<128, 1, kMxBlock, 256, 16, TorchaoMxRceilCore, TeMxfp8Core>(
        src, x, K, q, scale_blocked, true, M % 8 == 0, r, map, M / kMxBlock, stream);
    return;
  }
  const layout_detail::StreamScratch<std::uint8_t> scales(std::size_t(rows * cols), stream);
  if (block32x1) launch_dim1(src, x, M, K, r, q, scales.get(), M / kMxBlock, 1, stream);
  else launch_dim0(src, x, M, K, r, q, scales.get(), stream);
  to_blocked(ScaleMatrix{scales.get(), rows, cols, cols}, scale_blocked, stream);
}

void mx_blocked_scales_3d(SourceType src, const void* x, std::int64_t E, std::int64_t N, std::int64_t K,
                          bool block32x32, const Recipe& r, std::uint8_t* q, std::uint8_t* scale_blocked,
                          cudaStream_t stream) {
  check_3d(r, E, N, K, block32x32);
  const std::int64_t NB = N / kMxBlock, SC = block32x32 ? K / kMxBlock : K;
  const layout_detail::StreamScratch<std::uint8_t> scales(std::size_t(E * NB * SC), stream);
  mx_quantize_3d(src, x, E, N, K, block32x32, r, q, scales.get(), stream);
  if (K % kScaleTileRows == 0 && NB % kScaleTileCols == 0 && quant::aligned(scale_blocked, 16)) {
    const std::int64_t items = E * K * NB / 16;
    if (items > 0) {
      spread_3d_scales_blocked_kernel<<<layout_detail::blocks_for(items, layout_detail::kThreads),
                                        layout_detail::kThreads, 0, stream>>>(scales.get(), K, NB, SC,
                                                                              block32x32 ? 5 : 0, items, scale_blocked);
      layout_detail::check_launch();
    }
    return;
  }
  const layout_detail::StreamScratch<std::uint8_t> per_k(std::size_t(E * K * NB), stream);
  const std::int64_t count = E * K * NB;
  if (count > 0) {
    spread_3d_scales_kernel<<<layout_detail::blocks_for(count, layout_detail::kThreads), layout_detail::kThreads, 0,
                              stream>>>(scales.get(), K, NB, SC, block32x32 ? 5 : 0, count, per_k.get());
    layout_detail::check_launch();
  }
  to_blocked_per_group_3d(per_k.get(), E, K, NB, scale_blocked, stream);
}

void mx_dequantize_dim0(const std::uint8_t* q, const std::uint8_t* scales, std::int64_t M, std::int64_t K,
                        const Recipe& r, bool out_fp32, void* y, cudaStream_t stream) {
  const char* kernel = out_fp32 ? "mx_dequantize_dim0_fp32" : "mx_dequantize_dim0_bf16";
  require_mx(r, kernel, M, K);
  require_block_multiple(K, kernel, "q.cols (K)");
  const std::int64_t n = M * K;
  if (n == 0) return;
  const RecipeCore core = make_core(r);
  const bool vec = quant::aligned(q, 16) && quant::aligned(y, 16);
  const quant::Device d = quant::device();
  // Grid-stride: at most 8 CTAs of 256 threads per SM, no more than the warp steps need.
  const std::int64_t warp_steps = (n + kDequantWarpCodes - 1) / kDequantWarpCodes;
  const unsigned grid = unsigned(std::min<std::int64_t>(
      std::int64_t(d.sms) * 8, (warp_steps * 32 + layout_detail::kThreads - 1) / layout_detail::kThreads));
  // The cvt decode for bf16 output only (H100, 16640x5120 e4m3fn codes, % of copy, three runs
  // each in one call): bf16 87.0 against 83.0 with the table, fp32 85.6-86.2 against 87.3-87.5.
  const auto launch = [&](auto fp32_out, auto decode) {
    mx_dequantize_dim0_kernel<decltype(fp32_out)::value, decltype(decode)::value>
        <<<grid, layout_detail::kThreads, 0, stream>>>(q, scales, n, core, y, vec);
  };
  using C = CodeDecode;
  const bool cvt = d.cc >= 89;
  if (out_fp32) launch(std::true_type{}, std::integral_constant<C, C::Table>{});
  else if (cvt && r.element == FormatId::e4m3fn) launch(std::false_type{}, std::integral_constant<C, C::CvtE4m3>{});
  else if (cvt && r.element == FormatId::e5m2) launch(std::false_type{}, std::integral_constant<C, C::CvtE5m2>{});
  else launch(std::false_type{}, std::integral_constant<C, C::Table>{});
  layout_detail::check_launch();
}

}  // namespace octet::cuda
