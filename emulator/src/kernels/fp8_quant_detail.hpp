// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// fp8_quant_detail.hpp — private building blocks of the FP8 quantiser families 1–3
// (fp8_rowwise.cpp, fp8_per_group.cpp, fp8_blockwise.cpp). Not installed.
//
// Every kernel is a set of independent blocks. A block's scale comes from the recipe API only:
//   amax = amax_init(r); amax = amax_update(r, amax, x) over the block; s = scale_from_amax(r, amax);
//   code = quantize_element(r, s, x).
// The elements of a block are visited in one fixed order, the block's logical order (increasing
// reduction index; row-major inside a 2D tile), so that a NaN-propagating amax keeps the same
// payload whatever the tiling. Work is split over blocks only, so the bytes do not depend on the
// OpenMP thread count.
//
// Two shortcuts keep the per-element recipe calls off the common path without knowing any recipe:
//   * amax_update is a maximum: it returns amax unchanged whenever |x| <= amax (x not NaN, amax not
//     NaN). Those calls are skipped; every other element (larger, NaN, or any x once amax is NaN)
//     goes through amax_update, which alone decides the NaN rule.
//   * quantize_element is a pure function of (recipe, BlockScale, x). For bf16 inputs a per-thread
//     memo keeps its 2^16 results under each of the last four (recipe, BlockScale) pairs (LRU
//     ways, entries tagged by a generation counter so that recycling a way costs O(1)), filled on
//     first use and forgotten at the next kernel call (begin_call). Power-of-two recipes repeat a
//     handful of scales across rows and blocks, so almost every element is a table hit (2-3x
//     faster on 16640 x 5120); where every 128-element block has its own fp32 scale
//     (torchao_blockwise, deepgemm) the kernels call quantize_element directly.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "octet/kernels/fp8_rowwise.hpp"
#include "octet/scale.hpp"
#include "octet/tensor.hpp"

namespace octet::fp8_detail {

// Number of adjacent blocks one panel processes side by side (see panel_amax).
inline constexpr std::int64_t kPanel = 64;

// fp32 value of one input element: fp32 as is, bf16 bits widened exactly.
inline float load(float v) { return v; }
inline float load(std::uint16_t b) { return bf16_to_float(b); }

inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// ---------------------------------------------------------------------------------------------
// Blocks as strided runs. A panel is P blocks of L elements each; element l of block b is
// x[b*bs + l*ls]. Iterating l outer and b inner keeps every block's own order (increasing l)
// while reading memory along whichever of bs/ls is the contiguous one.

// amax_update(r, a, x), skipped where it cannot change a (see the file comment).
inline float amax_step(const Recipe& r, float a, float v) { return std::fabs(v) <= a ? a : amax_update(r, a, v); }

// Kernel calls, counted. A memo entry never outlives the call that made it: a Recipe may be a
// caller's temporary, or edited in place, at the address of an earlier one.
inline std::atomic<std::uint64_t>& call_epoch() {
  static std::atomic<std::uint64_t> epoch{1};
  return epoch;
}
// Every quantising kernel calls this first, on the calling thread (the OpenMP fork that follows
// publishes the new value to the workers).
inline void begin_call() { call_epoch().fetch_add(1, std::memory_order_relaxed); }

// bf16 memo of quantize_element under the last few (recipe, BlockScale) pairs; one per thread.
class CastMemo {
 public:
  static CastMemo& local() {
    thread_local CastMemo memo;
    return memo;
  }
  // Makes (r, s) current: an existing way if one holds it, else the least recently used way, which
  // starts a new generation (its old entries become stale in O(1)).
  void use(const Recipe& r, const BlockScale& s) {
    const std::uint64_t epoch = call_epoch().load(std::memory_order_relaxed);
    if (epoch != epoch_) {  // a new kernel call: no way matches any more
      epoch_ = epoch;
      for (Way& way : ways_) way.recipe = nullptr;
      hits_ = misses_ = 0;
    }
    Way* w = &ways_[current_];
    if (w->recipe == &r && same(s, w->scale)) return;
    std::size_t pick = 0;
    for (std::size_t i = 0; i < kWays; ++i) {
      if (ways_[i].recipe == &r && same(s, ways_[i].scale)) {
        current_ = i;
        ways_[i].last_use = ++clock_;
        return;
      }
      if (ways_[i].last_use < ways_[pick].last_use) pick = i;
    }
    w = &ways_[pick];
    w->recipe = &r;
    w->scale = s;
    w->last_use = ++clock_;
    if (++w->generation == (1u << 24)) {  // tag overflow: forget this way
      std::fill(w->slot.begin(), w->slot.end(), 0u);
      w->generation = 1;
    }
    current_ = pick;
  }
  // Whether (r, s) is already held (its entries may be warm).
  bool holds(const Recipe& r, const BlockScale& s) const {
    if (call_epoch().load(std::memory_order_relaxed) != epoch_) return false;
    for (const Way& way : ways_)
      if (way.recipe == &r && same(s, way.scale)) return true;
    return false;
  }
  std::uint8_t code(std::uint16_t bits) {
    Way& w = ways_[current_];
    const std::uint32_t e = w.slot[bits];
    if ((e >> 8) == w.generation) {
      ++hits_;
      return std::uint8_t(e);
    }
    ++misses_;
    const std::uint8_t c = std::uint8_t(quantize_element(*w.recipe, w.scale, bf16_to_float(bits)));
    w.slot[bits] = (w.generation << 8) | c;
    return c;
  }
  // Whether the memo pays in this kernel call: a miss costs a direct cast plus the table update, so
  // once scales stop repeating (e.g. every row at its own magnitude) casting directly is faster.
  bool paying() const {
    return call_epoch().load(std::memory_order_relaxed) != epoch_ || misses_ < kProbe || hits_ >= misses_;
  }
  static bool same(const BlockScale& a, const BlockScale& b) {
    return std::bit_cast<std::uint32_t>(a.encode) == std::bit_cast<std::uint32_t>(b.encode) &&
           std::bit_cast<std::uint32_t>(a.decode) == std::bit_cast<std::uint32_t>(b.decode) && a.stored == b.stored;
  }

  static constexpr std::size_t kWays = 4;
  static constexpr std::uint64_t kProbe = 1u << 14;  // misses before paying() judges

 private:
  struct Way {
    std::vector<std::uint32_t> slot = std::vector<std::uint32_t>(std::size_t(1) << 16, 0u);  // (generation << 8) | code
    std::uint32_t generation = 0;  // entries of generation 0 are never current
    const Recipe* recipe = nullptr;
    BlockScale scale{};
    std::uint64_t last_use = 0;
  };
  CastMemo() = default;
  Way ways_[kWays];
  std::uint64_t epoch_ = 0;
  std::size_t current_ = 0;
  std::uint64_t clock_ = 0;
  std::uint64_t hits_ = 0, misses_ = 0;  // code() lookups in this kernel call
};

template <class In>
void panel_amax(const Recipe& r, const In* x, std::int64_t P, std::int64_t L, std::int64_t bs, std::int64_t ls,
                float* amax) {
  for (std::int64_t b = 0; b < P; ++b) amax[b] = amax_init(r);
  if (P == 1) {
    float a = amax[0];
    for (std::int64_t l = 0; l < L; ++l) a = amax_step(r, a, load(x[l * ls]));
    amax[0] = a;
    return;
  }
  for (std::int64_t l = 0; l < L; ++l) {
    const In* row = x + l * ls;
    for (std::int64_t b = 0; b < P; ++b) amax[b] = amax_step(r, amax[b], load(row[b * bs]));
  }
}

template <class In>
void panel_cast(const Recipe& r, const BlockScale* s, const In* x, std::int64_t P, std::int64_t L, std::int64_t bs,
                std::int64_t ls, std::uint8_t* q, std::int64_t qbs, std::int64_t qls) {
  const auto direct = [&] {
    for (std::int64_t l = 0; l < L; ++l) {
      const In* row = x + l * ls;
      std::uint8_t* out = q + l * qls;
      for (std::int64_t b = 0; b < P; ++b) out[b * qbs] = std::uint8_t(quantize_element(r, s[b], load(row[b * bs])));
    }
  };
  if constexpr (!std::is_same_v<In, std::uint16_t>) {
    direct();
  } else {
    // Few distinct scales (power-of-two recipes): block by block in chunks of kChunk elements, so
    // the panel's cache lines stay in L1 and the memo's ways keep every scale. Many distinct
    // scales: whole blocks, when they are long enough for the memo to pay off.
    constexpr std::int64_t kChunk = 256, kMinRun = 512;
    std::size_t distinct = 0;
    BlockScale seen[CastMemo::kWays];
    for (std::int64_t b = 0; b < P && distinct <= CastMemo::kWays; ++b) {
      bool found = false;
      for (std::size_t i = 0; i < distinct && i < CastMemo::kWays; ++i) found = found || CastMemo::same(seen[i], s[b]);
      if (!found && distinct++ < CastMemo::kWays) seen[distinct - 1] = s[b];
    }
    const bool few = distinct <= CastMemo::kWays;
    if (!few && L < kMinRun) return direct();
    CastMemo& memo = CastMemo::local();
    if (!memo.paying()) return direct();
    const std::int64_t chunk = few ? kChunk : L;
    for (std::int64_t l0 = 0; l0 < L; l0 += chunk) {
      const std::int64_t lc = std::min(chunk, L - l0);
      for (std::int64_t b = 0; b < P; ++b) {
        // A short block under a scale the memo does not hold yet is cheaper to cast directly; the
        // scale is still recorded, so that the next block under it hits.
        const bool warm = L >= kMinRun || memo.holds(r, s[b]);
        memo.use(r, s[b]);
        const In* xb = x + b * bs + l0 * ls;
        std::uint8_t* qb = q + b * qbs + l0 * qls;
        if (warm)
          for (std::int64_t l = 0; l < lc; ++l) qb[l * qls] = memo.code(xb[l * ls]);
        else
          for (std::int64_t l = 0; l < lc; ++l) qb[l * qls] = std::uint8_t(quantize_element(r, s[b], load(xb[l * ls])));
      }
    }
  }
}

// Quantises P adjacent 1D blocks (a panel): amax, scale, cast. Writes the stored scale of block b
// to scales[b * sbs] and returns nothing else.
template <class In>
void quantize_panel(const Recipe& r, const In* x, std::int64_t P, std::int64_t L, std::int64_t bs, std::int64_t ls,
                    std::uint8_t* q, std::int64_t qbs, std::int64_t qls, std::uint32_t* scales, std::int64_t sbs) {
  float amax[kPanel];
  BlockScale s[kPanel];
  panel_amax(r, x, P, L, bs, ls, amax);
  for (std::int64_t b = 0; b < P; ++b) {
    s[b] = scale_from_amax(r, amax[b]);
    scales[b * sbs] = s[b].stored;
  }
  panel_cast(r, s, x, P, L, bs, ls, q, qbs, qls);
}

// Quantises `count` 1D blocks in panels of kPanel (block b starts at x + b*bs, q + b*qbs and
// stores its scale at scales[b*sbs]). Serial; callers parallelise over independent calls.
template <class In>
void quantize_runs(const Recipe& r, const In* x, std::int64_t count, std::int64_t L, std::int64_t bs, std::int64_t ls,
                   std::uint8_t* q, std::int64_t qbs, std::int64_t qls, std::uint32_t* scales, std::int64_t sbs) {
  // A contiguous run streams best alone; strided runs go side by side along the block stride.
  const std::int64_t panel = ls == 1 ? 1 : kPanel;
  for (std::int64_t b0 = 0; b0 < count; b0 += panel) {
    const std::int64_t P = count - b0 < panel ? count - b0 : panel;
    quantize_panel(r, x + b0 * bs, P, L, bs, ls, q + b0 * qbs, qbs, qls, scales + b0 * sbs, sbs);
  }
}

// A 2D tile (rows x cols), visited row-major: amax, then the cast. Returns the block scale.
template <class In>
BlockScale quantize_tile(const Recipe& r, const In* x, std::int64_t rows, std::int64_t cols, std::int64_t rs,
                         std::int64_t cs, std::uint8_t* q, std::int64_t qrs, std::int64_t qcs) {
  float amax = amax_init(r);
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) amax = amax_step(r, amax, load(x[i * rs + j * cs]));
  const BlockScale s = scale_from_amax(r, amax);
  if constexpr (std::is_same_v<In, std::uint16_t>) {
    CastMemo& memo = CastMemo::local();
    memo.use(r, s);
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j) q[i * qrs + j * qcs] = memo.code(x[i * rs + j * cs]);
  } else {
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j)
        q[i * qrs + j * qcs] = std::uint8_t(quantize_element(r, s, load(x[i * rs + j * cs])));
  }
  return s;
}

// ---------------------------------------------------------------------------------------------
// Argument checks (std::invalid_argument naming the argument).

template <class T>
void require_view(const View2D<T>& v, const std::string& what) {
  require(v.rows >= 0 && v.cols >= 0,
          what + ": negative shape (" + std::to_string(v.rows) + ", " + std::to_string(v.cols) + ")");
  require(v.data != nullptr || v.rows * v.cols == 0, what + ": null data for a non-empty view");
}
template <class T>
void require_view(const View3D<T>& v, const std::string& what) {
  require(v.experts >= 0 && v.rows >= 0 && v.cols >= 0, what + ": negative shape (" + std::to_string(v.experts) + ", " +
                                                            std::to_string(v.rows) + ", " + std::to_string(v.cols) +
                                                            ")");
  require(v.data != nullptr || v.experts * v.rows * v.cols == 0, what + ": null data for a non-empty view");
}

// torch's is_contiguous rule: a dimension of size 1 may carry any stride.
template <class T>
bool is_row_major(const View2D<T>& v) {
  return (v.cols <= 1 || v.col_stride == 1) && (v.rows <= 1 || v.row_stride == v.cols);
}
template <class T>
void require_row_major(const View2D<T>& v, const std::string& what, const std::string& why) {
  require(is_row_major(v), what + ": expected a row-major (contiguous) view, strides (" + std::to_string(v.cols) +
                               ", 1); got (" + std::to_string(v.row_stride) + ", " + std::to_string(v.col_stride) +
                               ") — " + why);
}
// Per-expert column-major (E, K, N): strides (K*N, 1, K).
template <class T>
bool is_col_major_per_expert(const View3D<T>& v) {
  return (v.experts <= 1 || v.expert_stride == v.rows * v.cols) && (v.rows <= 1 || v.row_stride == 1) &&
         (v.cols <= 1 || v.col_stride == v.rows);
}
template <class T>
void require_col_major_per_expert(const View3D<T>& v, const std::string& what, const std::string& why) {
  require(is_col_major_per_expert(v),
          what + ": expected per-expert column-major strides (" + std::to_string(v.rows * v.cols) + ", 1, " +
              std::to_string(v.rows) + "); got (" + std::to_string(v.expert_stride) + ", " +
              std::to_string(v.row_stride) + ", " + std::to_string(v.col_stride) + ") — " + why);
}

inline Fp8Layout layout(std::vector<std::int64_t> shape, std::vector<std::int64_t> strides) {
  return Fp8Layout{std::move(shape), std::move(strides)};
}

}  // namespace octet::fp8_detail
