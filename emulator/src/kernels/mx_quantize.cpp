// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// mx_quantize.cpp — MXFP8 quantisers (1x32, 32x1, 32x32, 3D weights) and the dim0 dequantiser,
// bit-exact CPU references for (reference/kernels.md §2):
//   torchao  mx_formats/kernels.py::triton_to_mxfp8_dim0        -> mx_quantize_dim0
//            mx_formats/kernels.py::triton_to_mxfp8_dim1        -> mx_quantize_dim1
//            mx_formats/kernels.py::mxfp8_quantize_cuda,
//            csrc/cuda/mx_kernels/mxfp8_quantize.cuh            -> mx_quantize_2d
//            moe_training/kernels/mxfp8: mxfp8_quantize_cuda_3d
//            (-> mxfp8_quantize_cutedsl_3d, scale_block_dim1=32,
//            scale_block_dim2 ∈ {1, 32})                         -> mx_quantize_3d
//            mx_formats/kernels.py::triton_mxfp8_dequant_dim0   -> mx_dequantize_dim0_{bf16,fp32}
//            mx_formats/mx_tensor.py::to_mx (block 32; 1024 over 32x32 tiles) for all of them
//   TE       common/cast/mxfp8/quantize_mxfp8.cuh (rowwise and columnwise, both from the
//            high-precision input)                              -> mx_quantize_2d
// The scale arithmetic and the element cast are the recipe's (scale.hpp; reference/recipes.md
// §2, §2.7, §4.5, §6, §7): this file only walks blocks and lays out bytes.
//
// Units: every shape and stride is in elements; a block is 32 elements along one dimension
// (or a 32x32 tile); scales are e8m0 bytes, d = 2^(b − 127), 255 = NaN.
//
// Structure: one block walker over a logical (rows, cols) matrix split into BR x BC blocks
// (1x32, 32x1, 32x32), one block row at a time: each block's amax and BlockScale once, its e8m0
// byte, then the element casts. For bf16 inputs, a BlockScale used by many blocks gets a
// 65536-entry table of quantize_element over every bf16 bit pattern: a memo of the recipe's own
// function, so it is exact by construction. OpenMP runs over block rows; every output byte is a
// function of its block alone, so the result does not depend on the thread count.
#include "octet/kernels/mx_quantize.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "octet/cast.hpp"
#include "octet/kernels/mx_swizzle.hpp"

namespace octet {
namespace {

// ---------------------------------------------------------------------------------------------
// Arguments

std::string str(std::string_view s) { return std::string(s); }

void require_mx_recipe(const Recipe& r, const char* kernel) {
  require(storage(r) == ScaleStorage::E8m0, std::string(kernel) + ": recipe '" + str(name(r)) +
                                                "' is not an MX recipe (its scales are " + str(name(storage(r))) +
                                                ", an MX kernel needs e8m0)");
  const Format& f = format_of(element_format(r));
  require(f.bits() == 8, std::string(kernel) + ": recipe '" + str(name(r)) + "' has a " +
                             std::to_string(f.bits()) + "-bit element format; MX kernels write one byte per element");
}

template <class T>
void require_view(const View2D<T>& v, const char* kernel, const char* what) {
  require(v.rows >= 0 && v.cols >= 0, std::string(kernel) + ": " + what + " has a negative shape (" +
                                          std::to_string(v.rows) + ", " + std::to_string(v.cols) + ")");
  require(v.data != nullptr || v.rows * v.cols == 0, std::string(kernel) + ": " + what + ".data is null");
}
template <class T>
void require_view(const View3D<T>& v, const char* kernel, const char* what) {
  require(v.experts >= 0 && v.rows >= 0 && v.cols >= 0,
          std::string(kernel) + ": " + what + " has a negative shape (" + std::to_string(v.experts) + ", " +
              std::to_string(v.rows) + ", " + std::to_string(v.cols) + ")");
  require(v.data != nullptr || v.experts * v.rows * v.cols == 0, std::string(kernel) + ": " + what + ".data is null");
}

// "<kernel>: x.cols (K) = 100 is not a multiple of the MX block size 32"
void require_block_multiple(std::int64_t extent, const char* kernel, const char* what) {
  require(extent % kMxBlockSize == 0, std::string(kernel) + ": " + what + " = " + std::to_string(extent) +
                                          " is not a multiple of the MX block size " + std::to_string(kMxBlockSize));
}

// ---------------------------------------------------------------------------------------------
// Element access

inline float widen(float v) { return v; }
inline float widen(std::uint16_t b) { return bf16_to_float(b); }

// |x| as an unsigned integer: for non-NaN values its order is the order of |x| (subnormals and
// Inf included); NaNs lie above kInfMagnitude.
inline std::uint32_t magnitude(float v) { return std::bit_cast<std::uint32_t>(v) & 0x7FFFFFFFu; }
inline std::uint32_t magnitude(std::uint16_t b) { return b & 0x7FFFu; }
template <class T>
constexpr std::uint32_t kInfMagnitude = std::is_same_v<T, float> ? 0x7F800000u : 0x7F80u;
template <class T>
inline float from_magnitude(std::uint32_t m) {
  if constexpr (std::is_same_v<T, float>) return std::bit_cast<float>(m);
  else return bf16_to_float(std::uint16_t(m));
}

bool same_scale(const BlockScale& a, const BlockScale& b) {
  return std::bit_cast<std::uint32_t>(a.encode) == std::bit_cast<std::uint32_t>(b.encode) &&
         std::bit_cast<std::uint32_t>(a.decode) == std::bit_cast<std::uint32_t>(b.decode) && a.stored == b.stored;
}

// ---------------------------------------------------------------------------------------------
// bf16 memo, one per thread: once a BlockScale has been seen in blocks totalling
// kMemoMinElements elements, the code of every bf16 bit pattern under it (65536
// quantize_element calls) replaces the per-element calls.

constexpr std::int64_t kMemoMinElements = 16384;

class Bf16Memo {
 public:
  Bf16Memo(const Recipe& r, std::int64_t block_elements) : r_(r), block_elements_(block_elements) {}

  // The table for this scale, or nullptr (then call quantize_element).
  const std::uint8_t* find(const BlockScale& s) {
    auto& bucket = buckets_[s.stored & 0xFFu];
    auto it = std::find_if(bucket.begin(), bucket.end(), [&](const Entry& e) { return same_scale(e.scale, s); });
    if (it == bucket.end()) it = bucket.insert(bucket.end(), Entry{s, 0, {}});
    if (it->codes.empty() && (it->elements += block_elements_) >= kMemoMinElements) {
      it->codes.resize(65536);
      for (std::uint32_t bits = 0; bits < 65536; ++bits)
        it->codes[bits] = std::uint8_t(quantize_element(r_, s, bf16_to_float(std::uint16_t(bits))));
    }
    return it->codes.empty() ? nullptr : it->codes.data();
  }

 private:
  struct Entry {
    BlockScale scale;
    std::int64_t elements;
    std::vector<std::uint8_t> codes;
  };
  const Recipe& r_;
  std::int64_t block_elements_;
  std::array<std::vector<Entry>, 256> buckets_;
};

// ---------------------------------------------------------------------------------------------
// The block walker. The logical matrix is (rows, cols) with BR x BC blocks; rows % BR == 0 and
// cols % BC == 0 are the caller's checks. Element (r, c) is read at in_row(r)[c·in_cs] and its
// code written at q[out_row(r) + c·out_cs]; block (br, bc)'s byte at s[scale_row(br) + bc·scale_cs].
// One block row at a time (1 or 32 input rows, which stay in cache between the two steps).

struct OutMap {
  std::uint8_t* base;
  std::int64_t col_stride;
};

template <int BR, int BC, class T, class InRow, class OutRow, class ScaleRow>
void quantize_blocks(const Recipe& r, std::int64_t rows, std::int64_t cols, InRow in_row, std::int64_t in_cs,
                     OutMap q, OutRow out_row, OutMap s, ScaleRow scale_row) {
  constexpr bool kBf16 = std::is_same_v<T, std::uint16_t>;
  const std::int64_t nbr = rows / BR, nbc = cols / BC;
  if (nbr == 0 || nbc == 0) return;
#pragma omp parallel
  {
    std::vector<std::uint32_t> mag(static_cast<std::size_t>(nbc));
    std::vector<BlockScale> scales(static_cast<std::size_t>(nbc));
    std::vector<const std::uint8_t*> tables(static_cast<std::size_t>(nbc), nullptr);
    std::optional<Bf16Memo> memo;
    if constexpr (kBf16) memo.emplace(r, std::int64_t(BR) * BC);
#pragma omp for schedule(static)
    for (std::int64_t br = 0; br < nbr; ++br) {
      // 1. amax of each block, then its scale, once. amax_update is the amax (max of |x|) under
      // the recipe's NaN rule (scale.hpp), so a NaN-free block's amax is amax_update of the
      // initial value and its largest magnitude, found with integer compares; a block holding a
      // NaN is folded element by element, so that the recipe's NaN rule decides.
      std::fill(mag.begin(), mag.end(), 0u);
      for (int i = 0; i < BR; ++i) {
        const T* p = in_row(br * BR + i);
        for (std::int64_t bc = 0; bc < nbc; ++bc) {
          std::uint32_t m = mag[std::size_t(bc)];
          for (int j = 0; j < BC; ++j) m = std::max(m, magnitude(p[(bc * BC + j) * in_cs]));
          mag[std::size_t(bc)] = m;
        }
      }
      std::uint8_t* srow = s.base + scale_row(br);
      for (std::int64_t bc = 0; bc < nbc; ++bc) {
        float amax = amax_init(r);
        if (mag[std::size_t(bc)] <= kInfMagnitude<T>) {
          amax = amax_update(r, amax, from_magnitude<T>(mag[std::size_t(bc)]));
        } else {
          for (int i = 0; i < BR; ++i) {
            const T* p = in_row(br * BR + i);
            for (int j = 0; j < BC; ++j) amax = amax_update(r, amax, widen(p[(bc * BC + j) * in_cs]));
          }
        }
        const BlockScale sc = scale_from_amax(r, amax);
        scales[std::size_t(bc)] = sc;
        srow[bc * s.col_stride] = std::uint8_t(sc.stored);
        if constexpr (kBf16) tables[std::size_t(bc)] = memo->find(sc);
      }

      // 2. The element casts, column by column inside the block row: the outputs of the 32x1 and
      // 32x32 kernels are column-major, so each column's BR codes are contiguous.
      std::array<const T*, BR> p;
      std::array<std::uint8_t*, BR> o;
      for (int i = 0; i < BR; ++i) {
        p[std::size_t(i)] = in_row(br * BR + i);
        o[std::size_t(i)] = q.base + out_row(br * BR + i);
      }
      for (std::int64_t bc = 0; bc < nbc; ++bc) {
        [[maybe_unused]] const std::uint8_t* t = tables[std::size_t(bc)];
        const BlockScale& sc = scales[std::size_t(bc)];
        for (std::int64_t c = bc * BC; c < (bc + 1) * BC; ++c) {
          const std::int64_t ic = c * in_cs, oc = c * q.col_stride;
          if constexpr (kBf16) {
            if (t != nullptr) {
              for (int i = 0; i < BR; ++i) o[std::size_t(i)][oc] = t[p[std::size_t(i)][ic]];
              continue;
            }
          }
          for (int i = 0; i < BR; ++i)
            o[std::size_t(i)][oc] = std::uint8_t(quantize_element(r, sc, widen(p[std::size_t(i)][ic])));
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Kernels

// Row-major data (rows, cols) and scales (rows, cols/32): 1x32 along cols.
template <class T>
MxOutput2D rowwise_1x32(const Recipe& r, View2D<const T> x) {
  MxOutput2D out;
  out.rows = x.rows, out.cols = x.cols;
  out.data.assign(std::size_t(x.rows * x.cols), 0);
  out.data_row_stride = x.cols, out.data_col_stride = 1;
  out.scale_rows = x.rows, out.scale_cols = x.cols / kMxBlockSize;
  out.scale.assign(std::size_t(out.scale_rows * out.scale_cols), 0);
  out.scale_row_stride = out.scale_cols, out.scale_col_stride = 1;
  const std::int64_t K = x.cols, KB = out.scale_cols;
  quantize_blocks<1, 32, T>(
      r, x.rows, x.cols, [&](std::int64_t m) { return x.data + m * x.row_stride; }, x.col_stride,
      OutMap{out.data.data(), 1}, [K](std::int64_t m) { return m * K; }, OutMap{out.scale.data(), 1},
      [KB](std::int64_t m) { return m * KB; });
  return out;
}

// Column-major data (rows, cols) with strides (1, rows): 32x1 along rows. Scales either
// (cols, rows/32) row-major (torchao dim1) or (cols, rows/32) with strides (1, cols) (CUDA colwise).
enum class ColScales : std::uint8_t { RowMajor, Transposed };

template <class T>
MxOutput2D colwise_32x1(const Recipe& r, View2D<const T> x, ColScales layout) {
  MxOutput2D out;
  const std::int64_t M = x.rows, K = x.cols, MB = M / kMxBlockSize;
  out.rows = M, out.cols = K;
  out.data.assign(std::size_t(M * K), 0);
  out.data_row_stride = 1, out.data_col_stride = M;
  out.scale_rows = K, out.scale_cols = MB;
  out.scale.assign(std::size_t(K * MB), 0);
  if (layout == ColScales::RowMajor) out.scale_row_stride = MB, out.scale_col_stride = 1;
  else out.scale_row_stride = 1, out.scale_col_stride = K;
  // Block (mb, k) is scale element (k, mb): offset k·scale_row_stride + mb·scale_col_stride.
  const std::int64_t srs = out.scale_row_stride, scs = out.scale_col_stride;
  quantize_blocks<32, 1, T>(
      r, M, K, [&](std::int64_t m) { return x.data + m * x.row_stride; }, x.col_stride, OutMap{out.data.data(), M},
      [](std::int64_t m) { return m; }, OutMap{out.scale.data(), srs}, [scs](std::int64_t mb) { return mb * scs; });
  return out;
}

template <class T>
MxOutput2D dim0(const Recipe& r, View2D<const T> x) {
  constexpr const char* kKernel = "mx_quantize_dim0";
  require_mx_recipe(r, kKernel);
  require_view(x, kKernel, "x");
  require_block_multiple(x.cols, kKernel, "x.cols (K)");
  return rowwise_1x32(r, x);
}

template <class T>
MxOutput2D dim1(const Recipe& r, View2D<const T> x) {
  constexpr const char* kKernel = "mx_quantize_dim1";
  require_mx_recipe(r, kKernel);
  require_view(x, kKernel, "x");
  require_block_multiple(x.rows, kKernel, "x.rows (M)");
  return colwise_32x1(r, x, ColScales::RowMajor);
}

template <class T>
MxQuantized2D quantize_2d(const Recipe& r, View2D<const T> x, bool rowwise, bool colwise) {
  constexpr const char* kKernel = "mx_quantize_2d";
  require_mx_recipe(r, kKernel);
  require(rowwise || colwise, std::string(kKernel) + ": rowwise and colwise are both false; ask for at least one");
  require_view(x, kKernel, "x");
  require_block_multiple(x.rows, kKernel, "x.rows");
  require_block_multiple(x.cols, kKernel, "x.cols");
  MxQuantized2D out;
  if (rowwise) out.rowwise = rowwise_1x32(r, x);
  if (colwise) out.colwise = colwise_32x1(r, x, ColScales::Transposed);
  return out;
}

// (E, N, K) as a logical (E·N, K) matrix: N % 32 == 0 keeps every block inside one expert.
template <class T>
MxOutput3D quantize_3d(const Recipe& r, View3D<const T> x, MxBlock3D block) {
  constexpr const char* kKernel = "mx_quantize_3d";
  require_mx_recipe(r, kKernel);
  require(block == MxBlock3D::Block32x1 || block == MxBlock3D::Block32x32,
          std::string(kKernel) + ": block is not Block32x1 or Block32x32");
  require_view(x, kKernel, "x");
  require_block_multiple(x.rows, kKernel, "x.rows (N)");
  if (block == MxBlock3D::Block32x32) require_block_multiple(x.cols, kKernel, "x.cols (K)");

  const std::int64_t E = x.experts, N = x.rows, K = x.cols, NB = N / kMxBlockSize;
  MxOutput3D out;
  out.block = block;
  out.experts = E, out.rows = N, out.cols = K;
  out.data.assign(std::size_t(E * N * K), 0);
  out.data_expert_stride = N * K, out.data_row_stride = 1, out.data_col_stride = N;
  out.scale_rows = NB;
  out.scale_cols = block == MxBlock3D::Block32x1 ? K : K / kMxBlockSize;
  out.scale.assign(std::size_t(E * out.scale_rows * out.scale_cols), 0);
  out.scale_expert_stride = out.scale_rows * out.scale_cols, out.scale_row_stride = out.scale_cols,
  out.scale_col_stride = 1;

  const auto in_row = [&](std::int64_t en) { return x.data + (en / N) * x.expert_stride + (en % N) * x.row_stride; };
  const auto out_row = [N, K](std::int64_t en) { return (en / N) * N * K + en % N; };
  const std::int64_t SC = out.scale_cols;
  const auto scale_row = [SC](std::int64_t ebn) { return ebn * SC; };  // block row e·NB + nb
  if (block == MxBlock3D::Block32x1)
    quantize_blocks<32, 1, T>(r, E * N, K, in_row, x.col_stride, OutMap{out.data.data(), N}, out_row,
                              OutMap{out.scale.data(), 1}, scale_row);
  else
    quantize_blocks<32, 32, T>(r, E * N, K, in_row, x.col_stride, OutMap{out.data.data(), N}, out_row,
                               OutMap{out.scale.data(), 1}, scale_row);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Dequantisation: one table of 256 outputs per e8m0 byte that occurs.

inline std::uint16_t round_to_bf16(double v) {
  static constexpr CastSpec kSpec{.rounding = Rounding::NearestEven, .overflow = Overflow::Ieee,
                                  .nan = NanPolicy::Canonical};
  return std::uint16_t(encode(bf16_format, kSpec, v));
}
inline float round_to_fp32(double v) {
  return std::isnan(v) ? std::numeric_limits<float>::quiet_NaN() : float(v);  // RNE
}

template <class Out, class Round>
std::vector<Out> dequantize_dim0(const Recipe& r, View2D<const std::uint8_t> q, View2D<const std::uint8_t> scale,
                                 const char* kernel, Round round) {
  require_mx_recipe(r, kernel);
  require_view(q, kernel, "q");
  require_view(scale, kernel, "scale");
  require_block_multiple(q.cols, kernel, "q.cols (K)");
  require_equal(scale.rows, q.rows, std::string(kernel) + ": scale.rows (M)");
  require_equal(scale.cols, q.cols / kMxBlockSize, std::string(kernel) + ": scale.cols (K/32)");

  const std::int64_t M = q.rows, K = q.cols, KB = K / kMxBlockSize;
  std::array<bool, 256> used{};
  for (std::int64_t m = 0; m < M; ++m)
    for (std::int64_t kb = 0; kb < KB; ++kb) used[scale(m, kb)] = true;
  std::vector<int> bytes;
  for (int b = 0; b < 256; ++b)
    if (used[std::size_t(b)]) bytes.push_back(b);

  std::vector<Out> lut(std::size_t(256) * 256);
  const std::int64_t n = std::int64_t(bytes.size()) * 256;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const int b = bytes[std::size_t(i / 256)];
    const auto code = std::uint32_t(i % 256);
    lut[std::size_t(b) * 256 + code] = round(dequantize_element(r, scale_from_stored(r, std::uint32_t(b)), code));
  }

  std::vector<Out> out(std::size_t(M * K));
#pragma omp parallel for schedule(static)
  for (std::int64_t m = 0; m < M; ++m)
    for (std::int64_t kb = 0; kb < KB; ++kb) {
      const Out* row = lut.data() + std::size_t(scale(m, kb)) * 256;
      for (std::int64_t k = kb * kMxBlockSize; k < (kb + 1) * kMxBlockSize; ++k) out[std::size_t(m * K + k)] = row[q(m, k)];
    }
  return out;
}

}  // namespace

MxOutput2D mx_quantize_dim0(const Recipe& r, View2D<const float> x) { return dim0(r, x); }
MxOutput2D mx_quantize_dim0(const Recipe& r, View2D<const std::uint16_t> x) { return dim0(r, x); }
MxOutput2D mx_quantize_dim1(const Recipe& r, View2D<const float> x) { return dim1(r, x); }
MxOutput2D mx_quantize_dim1(const Recipe& r, View2D<const std::uint16_t> x) { return dim1(r, x); }
MxQuantized2D mx_quantize_2d(const Recipe& r, View2D<const float> x, bool rowwise, bool colwise) {
  return quantize_2d(r, x, rowwise, colwise);
}
MxQuantized2D mx_quantize_2d(const Recipe& r, View2D<const std::uint16_t> x, bool rowwise, bool colwise) {
  return quantize_2d(r, x, rowwise, colwise);
}
MxOutput3D mx_quantize_3d(const Recipe& r, View3D<const float> x, MxBlock3D block) { return quantize_3d(r, x, block); }
MxOutput3D mx_quantize_3d(const Recipe& r, View3D<const std::uint16_t> x, MxBlock3D block) {
  return quantize_3d(r, x, block);
}

std::vector<std::uint8_t> mx_blocked_scales(const MxOutput2D& q) { return to_blocked(q.scale_view()); }

std::vector<std::uint8_t> mx_blocked_scales(const MxOutput3D& q) {
  const std::int64_t E = q.experts, NB = q.scale_rows, K = q.cols;
  // Per expert (N/32, K) row-major; for 32x32 tiles each scale repeated for its 32 k.
  std::vector<std::uint8_t> per_k;
  const std::uint8_t* s = q.scale.data();
  if (q.block == MxBlock3D::Block32x32) {
    per_k.resize(std::size_t(E * NB * K));
    for (std::int64_t i = 0; i < E * NB; ++i)
      for (std::int64_t k = 0; k < K; ++k)
        per_k[std::size_t(i * K + k)] = q.scale[std::size_t(i * q.scale_cols + k / kMxBlockSize)];
    s = per_k.data();
  }
  // The (E, K, N/32) view of those bytes: strides (N/32·K, 1, K).
  return to_blocked_per_group_3d(View3D<const std::uint8_t>{s, E, K, NB, NB * K, 1, K});
}

std::vector<std::uint16_t> mx_dequantize_dim0_bf16(const Recipe& r, View2D<const std::uint8_t> q,
                                                   View2D<const std::uint8_t> scale) {
  return dequantize_dim0<std::uint16_t>(r, q, scale, "mx_dequantize_dim0_bf16", round_to_bf16);
}
std::vector<float> mx_dequantize_dim0_fp32(const Recipe& r, View2D<const std::uint8_t> q,
                                           View2D<const std::uint8_t> scale) {
  return dequantize_dim0<float>(r, q, scale, "mx_dequantize_dim0_fp32", round_to_fp32);
}

}  // namespace octet
