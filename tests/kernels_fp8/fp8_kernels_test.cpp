// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// fp8_kernels_test.cpp — families 1-3 (FP8 rowwise, per-group, blockwise quantisers) against
// deliberately naive references: plain loops over the logical indices, one block at a time,
// calling only amax_init / amax_update / scale_from_amax / quantize_element, with the peer's
// output layout written out as index formulas. Every output byte (codes, scale bits, untouched
// bytes) must match. Also: round trips within half an element ulp times the scale, misuse errors
// that name the argument, and identical bytes for 1 and 2 OpenMP threads.
#include <gtest/gtest.h>
#include <omp.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "octet/format.hpp"
#include "octet/kernels/fp8_blockwise.hpp"
#include "octet/kernels/fp8_per_group.hpp"
#include "octet/kernels/fp8_rowwise.hpp"
#include "octet/scale.hpp"
#include "octet/tensor.hpp"

namespace {

using octet::Fp8Layout;
using octet::Fp8Quantized;
using octet::Recipe;
using octet::View2D;
using octet::View3D;
using i64 = std::int64_t;

constexpr i64 kB = 128;
i64 cdiv(i64 a, i64 b) { return (a + b - 1) / b; }

// ---------------------------------------------------------------------------------------------
// Inputs: logical values generated in fp32, stored as fp32 or as bf16 bits (RNE, NaN kept quiet),
// in a chosen layout. `at` reads back exactly what the kernel sees.

std::uint16_t to_bf16(float f) {
  const std::uint32_t b = std::bit_cast<std::uint32_t>(f);
  if (std::isnan(f)) return std::uint16_t((b >> 16) | 0x0040u);
  return std::uint16_t((b + 0x7FFFu + ((b >> 16) & 1u)) >> 16);
}
float widen(float v) { return v; }
float widen(std::uint16_t b) { return octet::bf16_to_float(b); }
template <class In>
In narrow(float v) {
  if constexpr (std::is_same_v<In, float>)
    return v;
  else
    return to_bf16(v);
}

enum class Dist { Normal, Adversarial };

struct Gen {
  std::mt19937_64 rng;
  explicit Gen(std::uint64_t seed) : rng(seed) {}
  double uniform() { return std::uniform_real_distribution<double>(0.0, 1.0)(rng); }
  int integer(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
  float normal() { return float(std::normal_distribution<double>(0.0, 1.0)(rng)); }

  // One element. `row_exp` gives each row its own magnitude so that blocks differ.
  float value(Dist d, int row_exp) {
    const float base = std::ldexp(normal(), row_exp);
    if (d == Dist::Normal) return base;
    const double u = uniform();
    const float sign = uniform() < 0.5 ? -1.0f : 1.0f;
    if (u < 0.03)
      return std::bit_cast<float>(0x7FC00000u | (uniform() < 0.5 ? 0x80000000u : 0u) |
                                  (std::uint32_t(integer(0, 0x3FFFFF)) & 0x3F0000u));  // NaN
    if (u < 0.05) return sign * std::numeric_limits<float>::infinity();
    if (u < 0.09) return sign * std::bit_cast<float>(std::uint32_t(integer(1, 0x7FFFFF)));  // fp32 subnormal
    if (u < 0.12) return sign * std::ldexp(float(integer(1, 127)), -133);                   // bf16 subnormal
    if (u < 0.20) return sign * 0.0f;
    if (u < 0.23) return sign * std::numeric_limits<float>::max();
    if (u < 0.30) {  // around 448 * 2^k and 2^k: the pow2 log2 window and the amax rounding edges
      const int k = integer(-30, 30);
      const float anchor = uniform() < 0.5 ? std::ldexp(448.0f, k) : std::ldexp(1.0f, k);
      std::uint32_t b = std::bit_cast<std::uint32_t>(anchor);
      b = uniform() < 0.5 ? b - std::uint32_t(integer(0, 40)) : b + std::uint32_t(integer(0, 40));
      return sign * std::bit_cast<float>(b);
    }
    return base;
  }
};

// A 2D tensor (rows, cols) in a given layout (strides rs, cs).
template <class In>
struct T2 {
  std::vector<In> buf;
  i64 rows = 0, cols = 0, rs = 0, cs = 1;
  View2D<const In> view() const { return {buf.data(), rows, cols, rs, cs}; }
  float at(i64 i, i64 j) const { return widen(buf[std::size_t(i * rs + j * cs)]); }
};
template <class In>
T2<In> make2(i64 rows, i64 cols, bool col_major, Dist dist, std::uint64_t seed, double zero_row_fraction = 0.05) {
  Gen g(seed);
  T2<In> t;
  t.rows = rows;
  t.cols = cols;
  t.rs = col_major ? 1 : cols;
  t.cs = col_major ? rows : 1;
  t.buf.assign(std::size_t(std::max<i64>(rows * cols, 1)), narrow<In>(0.0f));
  for (i64 i = 0; i < rows; ++i) {
    const int e = g.integer(-25, 25);
    const bool zero = g.uniform() < zero_row_fraction;
    for (i64 j = 0; j < cols; ++j) t.buf[std::size_t(i * t.rs + j * t.cs)] = narrow<In>(zero ? 0.0f : g.value(dist, e));
  }
  return t;
}

// A 3D tensor (E, R, C): per-expert column-major (R*C, 1, R) or row-major (R*C, C, 1).
template <class In>
struct T3 {
  std::vector<In> buf;
  i64 E = 0, R = 0, C = 0, es = 0, rs = 0, cs = 0;
  View3D<const In> view() const { return {buf.data(), E, R, C, es, rs, cs}; }
  float at(i64 e, i64 i, i64 j) const { return widen(buf[std::size_t(e * es + i * rs + j * cs)]); }
};
template <class In>
T3<In> make3(i64 E, i64 R, i64 C, bool col_major, Dist dist, std::uint64_t seed) {
  Gen g(seed);
  T3<In> t{{}, E, R, C, R * C, col_major ? 1 : C, col_major ? R : 1};
  t.buf.assign(std::size_t(std::max<i64>(E * R * C, 1)), narrow<In>(0.0f));
  for (i64 e = 0; e < E; ++e)
    for (i64 j = 0; j < C; ++j) {
      const int ex = g.integer(-25, 25);
      for (i64 i = 0; i < R; ++i) t.buf[std::size_t(e * t.es + i * t.rs + j * t.cs)] = narrow<In>(g.value(dist, ex));
    }
  return t;
}

// ---------------------------------------------------------------------------------------------
// The naive references.

struct Ref {
  std::vector<std::uint8_t> data;
  Fp8Layout data_layout;
  std::vector<std::uint32_t> scales;
  Fp8Layout scale_layout;
};
Ref make_ref(Fp8Layout dl, i64 data_size, Fp8Layout sl, i64 scale_size) {
  return {std::vector<std::uint8_t>(std::size_t(data_size), 0), std::move(dl),
          std::vector<std::uint32_t>(std::size_t(scale_size), 0), std::move(sl)};
}

// One block: its elements as (value, output offset), in visiting order; its scale goes to
// scales[scale_offset].
struct Block {
  std::vector<std::pair<float, i64>> elems;
  void add(float v, i64 off) { elems.emplace_back(v, off); }
};
void naive_block(const Recipe& r, const Block& b, Ref& out, i64 scale_offset) {
  float amax = octet::amax_init(r);
  for (const auto& [v, off] : b.elems) amax = octet::amax_update(r, amax, v);
  const octet::BlockScale s = octet::scale_from_amax(r, amax);
  out.scales.at(std::size_t(scale_offset)) = s.stored;
  for (const auto& [v, off] : b.elems) out.data.at(std::size_t(off)) = std::uint8_t(octet::quantize_element(r, s, v));
}

std::vector<i64> starts_of(const std::vector<i64>& offs) {
  std::vector<i64> s(offs.size(), 0);
  for (std::size_t g = 1; g < offs.size(); ++g) s[g] = offs[g - 1];
  return s;
}

template <class In>
Ref naive_rowwise_2d(const T2<In>& x, const Recipe& r) {
  const i64 M = x.rows, K = x.cols;
  Ref out = make_ref({{M, K}, {K, 1}}, M * K, {{M, 1}, {1, 1}}, M);
  for (i64 m = 0; m < M; ++m) {
    Block b;
    for (i64 k = 0; k < K; ++k) b.add(x.at(m, k), m * K + k);
    naive_block(r, b, out, m);
  }
  return out;
}
template <class In>
Ref naive_colwise_3d(const T3<In>& x, const Recipe& r) {
  const i64 E = x.E, K = x.R, N = x.C;
  Ref out = make_ref({{E, K, N}, {K * N, 1, K}}, E * K * N, {{E, 1, N}, {N, N, 1}}, E * N);
  for (i64 e = 0; e < E; ++e)
    for (i64 n = 0; n < N; ++n) {
      Block b;
      for (i64 k = 0; k < K; ++k) b.add(x.at(e, k, n), e * K * N + n * K + k);
      naive_block(r, b, out, e * N + n);
    }
  return out;
}
template <class In>
Ref naive_transpose_rhs(const T3<In>& x, const Recipe& r) {
  const i64 E = x.E, K = x.R, N = x.C;
  Ref out = make_ref({{E, N, K}, {N * K, 1, N}}, E * N * K, {{E, K}, {K, 1}}, E * K);
  for (i64 e = 0; e < E; ++e)
    for (i64 k = 0; k < K; ++k) {
      Block b;
      for (i64 n = 0; n < N; ++n) b.add(x.at(e, k, n), e * N * K + k * N + n);
      naive_block(r, b, out, e * K + k);
    }
  return out;
}
template <class In>
Ref naive_per_group_rowwise(const T2<In>& x, const std::vector<i64>& offs, const Recipe& r) {
  const i64 M = x.rows, K = x.cols, G = i64(offs.size());
  Ref out = make_ref({{M, K}, {K, 1}}, M * K, {{M * G}, {1}}, M * G);
  const auto starts = starts_of(offs);
  for (i64 g = 0; g < G; ++g)
    for (i64 m = 0; m < M; ++m) {
      Block b;
      for (i64 k = starts[std::size_t(g)]; k < offs[std::size_t(g)]; ++k) b.add(x.at(m, k), m * K + k);
      naive_block(r, b, out, g * M + m);
    }
  return out;
}
template <class In>
Ref naive_per_group_colwise(const T2<In>& x, const std::vector<i64>& offs, const Recipe& r) {
  const i64 K = x.rows, N = x.cols, G = i64(offs.size());
  Ref out = make_ref({{K, N}, {1, K}}, K * N, {{N * G}, {1}}, N * G);
  const auto starts = starts_of(offs);
  for (i64 g = 0; g < G; ++g)
    for (i64 n = 0; n < N; ++n) {
      Block b;
      for (i64 m = starts[std::size_t(g)]; m < offs[std::size_t(g)]; ++m) b.add(x.at(m, n), n * K + m);
      naive_block(r, b, out, g * N + n);
    }
  return out;
}
template <class In>
Ref naive_act_lhs(const T2<In>& x, const Recipe& r) {
  const i64 M = x.rows, K = x.cols, Kb = K / kB;
  Ref out = make_ref({{M, K}, {K, 1}}, M * K, {{M, Kb}, {1, M}}, M * Kb);
  for (i64 m = 0; m < M; ++m)
    for (i64 b = 0; b < Kb; ++b) {
      Block blk;
      for (i64 k = b * kB; k < (b + 1) * kB; ++k) blk.add(x.at(m, k), m * K + k);
      naive_block(r, blk, out, m + b * M);
    }
  return out;
}
// 128-row blocks of x over rows [r0, r1): data (m, d) at data_off(m, d), scale of block b and
// column d at scale_off(b, d) with b counted from b0.
template <class In, class DataOff, class ScaleOff>
void naive_row_blocks(const T2<In>& x, i64 r0, i64 r1, i64 b0, const Recipe& r, Ref& out, DataOff data_off,
                      ScaleOff scale_off) {
  for (i64 b = 0; r0 + b * kB < r1; ++b)
    for (i64 d = 0; d < x.cols; ++d) {
      Block blk;
      for (i64 m = r0 + b * kB; m < std::min(r1, r0 + (b + 1) * kB); ++m) blk.add(x.at(m, d), data_off(m, d));
      naive_block(r, blk, out, scale_off(b0 + b, d));
    }
}
template <class In>
Ref naive_act_rhs(const T2<In>& x, const Recipe& r) {
  const i64 M = x.rows, K = x.cols, Mb = cdiv(M, kB);
  Ref out = make_ref({{M, K}, {1, M}}, M * K, {{Mb, K}, {K, 1}}, Mb * K);
  naive_row_blocks(
      x, 0, M, 0, r, out, [&](i64 m, i64 k) { return m + k * M; }, [&](i64 b, i64 k) { return b * K + k; });
  return out;
}
template <class In>
Ref naive_act_transposed_lhs(const T2<In>& x, const Recipe& r) {
  const i64 M = x.rows, K = x.cols, Mb = M / kB;
  Ref out = make_ref({{K, M}, {M, 1}}, M * K, {{K, Mb}, {1, K}}, Mb * K);
  naive_row_blocks(
      x, 0, M, 0, r, out, [&](i64 m, i64 k) { return k * M + m; }, [&](i64 b, i64 k) { return k + b * K; });
  return out;
}
// 128x128 tiles (partial at the edges), visited row-major.
template <class At, class DataOff, class ScaleOff>
void naive_tiles(i64 M, i64 N, At at, const Recipe& r, Ref& out, DataOff data_off, ScaleOff scale_off) {
  for (i64 i = 0; i * kB < M; ++i)
    for (i64 j = 0; j * kB < N; ++j) {
      Block blk;
      for (i64 m = i * kB; m < std::min(M, (i + 1) * kB); ++m)
        for (i64 n = j * kB; n < std::min(N, (j + 1) * kB); ++n) blk.add(at(m, n), data_off(m, n));
      naive_block(r, blk, out, scale_off(i, j));
    }
}
template <class In>
Ref naive_weight_rhs(const T2<In>& x, const Recipe& r) {
  const i64 M = x.rows, N = x.cols, Mb = M / kB, Nb = N / kB;
  Ref out = make_ref({{M, N}, {1, M}}, M * N, {{Mb, Nb}, {1, Mb}}, Mb * Nb);
  naive_tiles(
      M, N, [&](i64 m, i64 n) { return x.at(m, n); }, r, out, [&](i64 m, i64 n) { return m + n * M; },
      [&](i64 i, i64 j) { return i + j * Mb; });
  return out;
}
template <class In>
Ref naive_weight_transposed_rhs(const T2<In>& x, const Recipe& r) {
  const i64 M = x.rows, N = x.cols, Mb = M / kB, Nb = N / kB;
  Ref out = make_ref({{N, M}, {1, N}}, M * N, {{Nb, Mb}, {1, Nb}}, Mb * Nb);
  naive_tiles(
      M, N, [&](i64 m, i64 n) { return x.at(m, n); }, r, out, [&](i64 m, i64 n) { return n + m * N; },
      [&](i64 i, i64 j) { return j + i * Nb; });
  return out;
}
template <class In>
Ref naive_grouped_transposed_rhs(const T3<In>& w, const Recipe& r) {
  const i64 E = w.E, K = w.R, N = w.C, Kb = K / kB, Nb = N / kB;
  Ref out = make_ref({{E, K, N}, {K * N, 1, K}}, E * K * N, {{E, Kb, Nb}, {Kb * Nb, 1, Kb}}, E * Kb * Nb);
  for (i64 e = 0; e < E; ++e)
    naive_tiles(
        K, N, [&](i64 k, i64 n) { return w.at(e, k, n); }, r, out, [&](i64 k, i64 n) { return e * K * N + k + n * K; },
        [&](i64 i, i64 j) { return e * Kb * Nb + i + j * Kb; });
  return out;
}
template <class In>
Ref naive_grouped_rhs(const T3<In>& w, const Recipe& r) {
  const i64 E = w.E, K = w.R, N = w.C, Kb = K / kB, Nb = N / kB;
  Ref out = make_ref({{E, N, K}, {N * K, 1, N}}, E * K * N, {{E, Nb, Kb}, {Nb * Kb, 1, Nb}}, E * Kb * Nb);
  for (i64 e = 0; e < E; ++e)
    naive_tiles(
        K, N, [&](i64 k, i64 n) { return w.at(e, k, n); }, r, out, [&](i64 k, i64 n) { return e * N * K + n + k * N; },
        [&](i64 i, i64 j) { return e * Nb * Kb + j + i * Nb; });
  return out;
}
template <class In>
Ref naive_k_grouped_deepgemm(const T2<In>& x, const std::vector<i64>& offs, const Recipe& r) {
  const i64 D = x.cols, T = offs.empty() ? 0 : offs.back(), VB = T / kB;
  Ref out = make_ref({{T * D}, {1}}, T * D, {{D, VB}, {VB, 1}}, D * VB);
  const auto starts = starts_of(offs);
  for (std::size_t g = 0; g < offs.size(); ++g) {
    const i64 s = starts[g], size = offs[g] - s;
    naive_row_blocks(
        x, s, offs[g], s / kB, r, out, [&](i64 m, i64 d) { return s * D + d * size + (m - s); },
        [&](i64 b, i64 d) { return d * VB + b; });
  }
  return out;
}
template <class In>
Ref naive_token_groups(const T2<In>& x, const std::vector<i64>& offs, const Recipe& r, bool transposed_lhs) {
  const i64 M = x.rows, D = x.cols;
  i64 B = 0;
  const auto starts = starts_of(offs);
  for (std::size_t g = 0; g < offs.size(); ++g) B += cdiv(offs[g] - starts[g], kB);
  Ref out = transposed_lhs ? make_ref({{D, M}, {M, 1}}, M * D, {{D, B}, {1, D}}, B * D)
                           : make_ref({{M, D}, {1, M}}, M * D, {{B, D}, {D, 1}}, B * D);
  i64 b0 = 0;
  for (std::size_t g = 0; g < offs.size(); ++g) {
    if (transposed_lhs)
      naive_row_blocks(
          x, starts[g], offs[g], b0, r, out, [&](i64 m, i64 d) { return d * M + m; },
          [&](i64 b, i64 d) { return d + b * D; });
    else
      naive_row_blocks(
          x, starts[g], offs[g], b0, r, out, [&](i64 m, i64 d) { return m + d * M; },
          [&](i64 b, i64 d) { return b * D + d; });
    b0 += cdiv(offs[g] - starts[g], kB);
  }
  return out;
}
template <class In>
Ref naive_per_token(const T2<In>& x, const Recipe& r) {
  const i64 M = x.rows, N = x.cols, Nb = cdiv(N, kB);
  Ref out = make_ref({{M, N}, {N, 1}}, M * N, {{M, Nb}, {Nb, 1}}, M * Nb);
  for (i64 m = 0; m < M; ++m)
    for (i64 b = 0; b < Nb; ++b) {
      Block blk;
      for (i64 n = b * kB; n < std::min(N, (b + 1) * kB); ++n) blk.add(x.at(m, n), m * N + n);
      naive_block(r, blk, out, m * Nb + b);
    }
  return out;
}
template <class In>
Ref naive_per_channel(const T2<In>& x, const Recipe& r) {
  const i64 M = x.rows, N = x.cols, Mb = M / kB;
  Ref out = make_ref({{M, N}, {N, 1}}, M * N, {{Mb, N}, {N, 1}}, Mb * N);
  naive_row_blocks(
      x, 0, M, 0, r, out, [&](i64 m, i64 n) { return m * N + n; }, [&](i64 b, i64 n) { return b * N + n; });
  return out;
}
template <class In>
Ref naive_per_block(const T2<In>& x, const Recipe& r) {
  const i64 M = x.rows, N = x.cols, Mb = cdiv(M, kB), Nb = cdiv(N, kB);
  Ref out = make_ref({{M, N}, {N, 1}}, M * N, {{Mb, Nb}, {Nb, 1}}, Mb * Nb);
  naive_tiles(
      M, N, [&](i64 m, i64 n) { return x.at(m, n); }, r, out, [&](i64 m, i64 n) { return m * N + n; },
      [&](i64 i, i64 j) { return i * Nb + j; });
  return out;
}
Ref naive_pad_128x128(const Ref& q) {
  const bool three = q.scale_layout.shape.size() == 3;
  const i64 E = three ? q.scale_layout.shape[0] : 1, Kb = q.scale_layout.shape[three ? 1 : 0],
            Nb = q.scale_layout.shape[three ? 2 : 1], Kp = cdiv(Kb, 4) * 4;
  Ref out = q;
  out.scales.assign(std::size_t(E * Kp * Nb), 0);
  out.scale_layout = three ? Fp8Layout{{E, Kp, Nb}, {Kp * Nb, 1, Kp}} : Fp8Layout{{Kp, Nb}, {1, Kp}};
  for (i64 e = 0; e < E; ++e)
    for (i64 j = 0; j < Nb; ++j)
      for (i64 i = 0; i < Kp; ++i)
        out.scales[std::size_t(e * Kp * Nb + j * Kp + i)] =
            i < Kb ? q.scales[std::size_t(e * Kb * Nb + j * Kb + i)] : 0x3F800000u;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Byte comparison with a report that explains itself.

std::string hexs(std::uint64_t v, int digits) {
  std::ostringstream os;
  os << "0x" << std::hex << std::uppercase;
  os.width(digits);
  os.fill('0');
  os << v;
  return os.str();
}
std::string coords(const Fp8Layout& l, i64 flat) {
  // Dense layouts only: peel dimensions in decreasing stride order.
  std::vector<std::size_t> order(l.shape.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return l.strides[a] > l.strides[b]; });
  std::vector<i64> idx(l.shape.size(), 0);
  for (auto d : order) {
    if (l.strides[d] == 0) continue;
    idx[d] = flat / l.strides[d];
    flat %= l.strides[d];
  }
  std::string s = "(";
  for (std::size_t i = 0; i < idx.size(); ++i) s += (i ? ", " : "") + std::to_string(idx[i]);
  return s + ")";
}
std::string code_value(const Recipe& r, std::uint32_t code) {
  std::ostringstream os;
  os << octet::decode(octet::format_of(octet::element_format(r)), code);
  return os.str();
}
std::string scale_value(const Recipe& r, std::uint32_t stored) {
  std::ostringstream os;
  os.precision(9);
  switch (octet::storage(r)) {
    case octet::ScaleStorage::E8m0:
      os << "2^" << int(stored) - 127;
      break;
    case octet::ScaleStorage::E4m3:
      os << octet::decode(octet::e4m3fn_format, stored);
      break;
    default:
      os << std::bit_cast<float>(stored);
  }
  return os.str();
}

void expect_same(const Fp8Quantized& got, const Ref& want, const Recipe& r, const std::string& what) {
  const std::string ctx = what + " [recipe " + std::string(octet::name(r)) + "]";
  EXPECT_EQ(got.data_layout.shape, want.data_layout.shape) << ctx << ": data shape";
  EXPECT_EQ(got.data_layout.strides, want.data_layout.strides) << ctx << ": data strides";
  EXPECT_EQ(got.scale_layout.shape, want.scale_layout.shape) << ctx << ": scale shape";
  EXPECT_EQ(got.scale_layout.strides, want.scale_layout.strides) << ctx << ": scale strides";
  ASSERT_EQ(got.data.size(), want.data.size()) << ctx << ": data bytes";
  ASSERT_EQ(got.scales.size(), want.scales.size()) << ctx << ": scale count";
  int shown = 0;
  i64 total = 0;
  std::string report;
  for (std::size_t i = 0; i < got.data.size(); ++i)
    if (got.data[i] != want.data[i]) {
      ++total;
      if (shown++ < 8)
        report += "  data flat " + std::to_string(i) + " " + coords(want.data_layout, i64(i)) + ": got " +
                  hexs(got.data[i], 2) + " (" + code_value(r, got.data[i]) + ") want " + hexs(want.data[i], 2) + " (" +
                  code_value(r, want.data[i]) + ")\n";
    }
  for (std::size_t i = 0; i < got.scales.size(); ++i)
    if (got.scales[i] != want.scales[i]) {
      ++total;
      if (shown++ < 16)
        report += "  scale flat " + std::to_string(i) + " " + coords(want.scale_layout, i64(i)) + ": got " +
                  hexs(got.scales[i], 8) + " (" + scale_value(r, got.scales[i]) + ") want " + hexs(want.scales[i], 8) +
                  " (" + scale_value(r, want.scales[i]) + ")\n";
    }
  EXPECT_EQ(total, 0) << ctx << ": " << total << " mismatching entries; first:\n" << report;
}

// Runs `fn` with 1 and with 2 OpenMP threads; the bytes must be identical.
Fp8Quantized both_thread_counts(const std::function<Fp8Quantized()>& fn, const std::string& what) {
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  Fp8Quantized one = fn();
  omp_set_num_threads(2);
  Fp8Quantized two = fn();
  omp_set_num_threads(saved);
  EXPECT_TRUE(one.data == two.data && one.scales == two.scales) << what << ": bytes differ between 1 and 2 threads";
  return two;
}

// Round trip: every finite x whose block scale is finite and nonzero comes back within half an
// element ulp (at |x * s|) times the decode scale, plus the fp32 rounding of x * s and of 1/s.
template <class At>
void expect_round_trip(const Fp8Quantized& q, const Recipe& r, At at_data_offset, const std::string& what) {
  const octet::Format& f = octet::format_of(octet::element_format(r));
  const double max_pos = octet::max_finite(f);
  int failures = 0;
  at_data_offset([&](float x, i64 data_off, i64 scale_off) {
    if (!std::isfinite(x) || failures > 5) return;
    const octet::BlockScale s = octet::scale_from_stored(r, q.scales[std::size_t(scale_off)]);
    if (!std::isfinite(s.encode) || !std::isfinite(s.decode) || s.decode == 0.0f || s.encode == 0.0f) return;
    const double y = std::fabs(double(x) * double(s.encode));
    if (y > max_pos) return;  // out of range: saturation (or the recipe's overflow rule) applies
    int e = 0;
    std::frexp(y, &e);  // y in [2^(e-1), 2^e)
    const int exp = std::max(e - 1, f.emin());
    const double half_ulp = std::ldexp(0.5, exp - f.mantissa_bits);
    const double bound = (half_ulp + y * 0x1p-22) * double(s.decode) + std::fabs(double(x)) * 0x1p-22;
    const double back = octet::dequantize_element(r, s, q.data[std::size_t(data_off)]);
    if (!(std::fabs(back - double(x)) <= bound)) {
      ++failures;
      ADD_FAILURE() << what << " [" << octet::name(r) << "]: x = " << x << " at data offset " << data_off
                    << " dequantises to " << back << " (bound " << bound << ", code "
                    << hexs(q.data[std::size_t(data_off)], 2) << ", stored scale " << hexs(s.stored, 8) << ")";
    }
  });
}

template <class Fn>
void expect_invalid(Fn fn, const std::string& needle, const std::string& what) {
  try {
    fn();
    ADD_FAILURE() << what << ": no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
        << what << ": message does not name '" << needle << "': " << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": wrong exception type: " << e.what();
  }
}

// ---------------------------------------------------------------------------------------------
// Group offsets (inclusive ends) with every shape the peers' tests miss.

struct OffsCase {
  const char* name;
  i64 extent;  // the grouped dimension
  std::vector<i64> offs;
};
std::vector<OffsCase> offs_cases() {
  return {
      {"one_group", 300, {300}},
      {"jagged", 300, {37, 100, 101, 250, 300}},
      {"empty_first_middle_last", 300, {0, 90, 90, 210, 300, 300}},
      {"one_row_groups", 12, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}},
      {"rows_beyond_offs", 300, {64, 64, 200, 263}},
      {"all_empty", 40, {0, 0, 0}},
      {"no_groups", 40, {}},
      {"huge_jagged_k1", 6000, {3, 5003, 5003, 5400, 5990}},  // one group > 4096 rows; K1
  };
}
std::vector<std::int32_t> to32(const std::vector<i64>& v) { return {v.begin(), v.end()}; }

std::vector<const Recipe*> rowwise_recipes() {
  return {&octet::recipe("torchao_fp8_rowwise_pow2"), &octet::recipe("torchao_fp8_rowwise"),
          &octet::recipe("torchao_fp8_rowwise_pow2_e4m3fnuz")};
}
std::vector<const Recipe*> blockwise_recipes() {
  return {&octet::recipe("torchao_blockwise"), &octet::recipe("te_blockwise"), &octet::recipe("deepgemm"),
          &octet::recipe("deepgemm_ue8m0"), &octet::recipe("torchao_mx_rceil")};
}
const std::vector<Dist> kDists{Dist::Normal, Dist::Adversarial};
const char* dist_name(Dist d) { return d == Dist::Normal ? "normal" : "adversarial"; }

template <class T>
class Fp8Kernels : public ::testing::Test {};
using InputTypes = ::testing::Types<float, std::uint16_t>;
struct InputNames {
  template <class T>
  static std::string GetName(int) {
    return std::is_same_v<T, float> ? "fp32" : "bf16";
  }
};
TYPED_TEST_SUITE(Fp8Kernels, InputTypes, InputNames);

// ---------------------------------------------------------------------------------------------
// Family 1.

TYPED_TEST(Fp8Kernels, Rowwise2d) {
  using In = TypeParam;
  for (const Recipe* r : rowwise_recipes())
    for (Dist d : kDists)
      for (bool col_major : {false, true}) {
        const auto x = make2<In>(333, 517, col_major, d, 11 + int(d) + 2 * col_major);
        const std::string what = std::string("rowwise_2d ") + dist_name(d) + (col_major ? " col-major" : " row-major");
        const auto q = both_thread_counts([&] { return octet::fp8_rowwise_2d_scale_and_cast(x.view(), *r); }, what);
        expect_same(q, naive_rowwise_2d(x, *r), *r, what);
        if (d == Dist::Normal)
          expect_round_trip(
              q, *r,
              [&](auto visit) {
                for (i64 m = 0; m < x.rows; ++m)
                  for (i64 k = 0; k < x.cols; ++k) visit(x.at(m, k), m * x.cols + k, m);
              },
              what);
      }
}

TYPED_TEST(Fp8Kernels, Rowwise2dDefaultRecipeAndEdges) {
  using In = TypeParam;
  const Recipe& pow2 = octet::recipe("torchao_fp8_rowwise_pow2");
  // Default recipe, an empty matrix, a single row, and all-zero rows.
  const auto x = make2<In>(70, 4097, false, Dist::Adversarial, 5, 0.3);
  expect_same(octet::fp8_rowwise_2d_scale_and_cast(x.view()), naive_rowwise_2d(x, pow2), pow2, "default recipe");
  const auto empty = make2<In>(0, 5, false, Dist::Normal, 1);
  expect_same(octet::fp8_rowwise_2d_scale_and_cast(empty.view(), pow2), naive_rowwise_2d(empty, pow2), pow2, "empty");
  const auto zero_k = make2<In>(3, 0, false, Dist::Normal, 1);
  expect_same(octet::fp8_rowwise_2d_scale_and_cast(zero_k.view(), pow2), naive_rowwise_2d(zero_k, pow2), pow2, "K = 0");
  // A zero row gives s = 2^48 under pow2 (recipes.md §1).
  const auto zeros = make2<In>(2, 64, false, Dist::Normal, 1, 1.0);
  const auto q = octet::fp8_rowwise_2d_scale_and_cast(zeros.view(), pow2);
  EXPECT_EQ(q.scales[0], std::bit_cast<std::uint32_t>(0x1p48f));
}

TYPED_TEST(Fp8Kernels, Colwise3d) {
  using In = TypeParam;
  for (const Recipe* r : rowwise_recipes())
    for (Dist d : kDists) {
      const auto w = make3<In>(3, 301, 130, true, d, 21 + int(d));
      const std::string what = std::string("colwise_3d ") + dist_name(d);
      const auto q = both_thread_counts([&] { return octet::fp8_colwise_3d_scale_and_cast(w.view(), *r); }, what);
      expect_same(q, naive_colwise_3d(w, *r), *r, what);
      if (d == Dist::Normal)
        expect_round_trip(
            q, *r,
            [&](auto visit) {
              for (i64 e = 0; e < w.E; ++e)
                for (i64 k = 0; k < w.R; ++k)
                  for (i64 n = 0; n < w.C; ++n) visit(w.at(e, k, n), e * w.R * w.C + n * w.R + k, e * w.C + n);
            },
            what);
    }
}

TYPED_TEST(Fp8Kernels, Rowwise3dTransposeRhs) {
  using In = TypeParam;
  for (const Recipe* r : rowwise_recipes())
    for (Dist d : kDists)
      for (bool col_major : {true, false}) {
        const auto w = make3<In>(2, 190, 259, col_major, d, 31 + int(d) + 2 * col_major);
        const std::string what =
            std::string("transpose_rhs ") + dist_name(d) + (col_major ? " col-major" : " row-major");
        const auto q = both_thread_counts([&] { return octet::fp8_rowwise_3d_transpose_rhs(w.view(), *r); }, what);
        expect_same(q, naive_transpose_rhs(w, *r), *r, what);
        if (d == Dist::Normal)
          expect_round_trip(
              q, *r,
              [&](auto visit) {
                for (i64 e = 0; e < w.E; ++e)
                  for (i64 k = 0; k < w.R; ++k)
                    for (i64 n = 0; n < w.C; ++n) visit(w.at(e, k, n), e * w.R * w.C + k * w.C + n, e * w.R + k);
              },
              what);
      }
}

// ---------------------------------------------------------------------------------------------
// Family 2.

TYPED_TEST(Fp8Kernels, PerGroupRowwise) {
  using In = TypeParam;
  for (const Recipe* r : rowwise_recipes())
    for (const OffsCase& oc : offs_cases())
      for (Dist d : kDists) {
        const i64 M = oc.extent > 1000 ? 9 : 67;
        const auto x = make2<In>(M, oc.extent, d == Dist::Adversarial, d, 41 + int(d));
        const std::string what = std::string("per_group_rowwise ") + oc.name + " " + dist_name(d);
        const auto offs32 = to32(oc.offs);
        const auto q = both_thread_counts(
            [&] { return octet::fp8_per_group_rowwise_scales(x.view(), std::span<const std::int32_t>(offs32), *r); },
            what);
        const Ref want = naive_per_group_rowwise(x, oc.offs, *r);
        expect_same(q, want, *r, what);
        expect_same(octet::fp8_per_group_rowwise_scales(x.view(), std::span<const i64>(oc.offs), *r), want, *r,
                    what + " int64 offs");
      }
}

TYPED_TEST(Fp8Kernels, PerGroupColwise) {
  using In = TypeParam;
  for (const Recipe* r : rowwise_recipes())
    for (const OffsCase& oc : offs_cases())
      for (Dist d : kDists) {
        const i64 N = oc.extent > 1000 ? 33 : 70;
        const auto x = make2<In>(oc.extent, N, d == Dist::Adversarial, d, 51 + int(d));
        const std::string what = std::string("per_group_colwise ") + oc.name + " " + dist_name(d);
        const auto offs32 = to32(oc.offs);
        const auto q = both_thread_counts(
            [&] { return octet::fp8_per_group_colwise_scales(x.view(), std::span<const std::int32_t>(offs32), *r); },
            what);
        const Ref want = naive_per_group_colwise(x, oc.offs, *r);
        expect_same(q, want, *r, what);
        expect_same(octet::fp8_per_group_colwise_scales(x.view(), std::span<const i64>(oc.offs), *r), want, *r,
                    what + " int64 offs");
        if (d == Dist::Normal) {
          const auto starts = starts_of(oc.offs);
          expect_round_trip(
              q, *r,
              [&](auto visit) {
                for (std::size_t g = 0; g < oc.offs.size(); ++g)
                  for (i64 m = starts[g]; m < oc.offs[g]; ++m)
                    for (i64 n = 0; n < N; ++n) visit(x.at(m, n), n * oc.extent + m, i64(g) * N + n);
              },
              what);
        }
      }
}

TYPED_TEST(Fp8Kernels, PerGroupColwiseDual) {
  using In = TypeParam;
  const Recipe& r = octet::recipe("torchao_fp8_rowwise_pow2");
  for (const OffsCase& oc : offs_cases()) {
    const auto x1 = make2<In>(oc.extent, 45, false, Dist::Adversarial, 61);
    const auto x2 = make2<In>(oc.extent, 130, true, Dist::Normal, 62);
    const std::string what = std::string("per_group_colwise_dual ") + oc.name;
    std::pair<Fp8Quantized, Fp8Quantized> one, two;
    omp_set_num_threads(1);
    one = octet::fp8_per_group_colwise_scales_dual(x1.view(), x2.view(), std::span<const i64>(oc.offs));
    omp_set_num_threads(2);
    const auto offs32 = to32(oc.offs);
    two = octet::fp8_per_group_colwise_scales_dual(x1.view(), x2.view(), std::span<const std::int32_t>(offs32));
    EXPECT_TRUE(one.first.data == two.first.data && one.second.scales == two.second.scales) << what << ": threads";
    expect_same(two.first, naive_per_group_colwise(x1, oc.offs, r), r, what + " first");
    expect_same(two.second, naive_per_group_colwise(x2, oc.offs, r), r, what + " second");
  }
}

// ---------------------------------------------------------------------------------------------
// Family 3: torchao dense kernels.

TYPED_TEST(Fp8Kernels, BlockwiseActivations) {
  using In = TypeParam;
  for (const Recipe* r : blockwise_recipes())
    for (Dist d : kDists) {
      const std::string sfx = std::string(" ") + dist_name(d);
      const auto x = make2<In>(300, 384, false, d, 71 + int(d));  // M not a multiple of 128
      auto q = both_thread_counts([&] { return octet::fp8_blockwise_act_quant_lhs(x.view(), *r); }, "lhs" + sfx);
      expect_same(q, naive_act_lhs(x, *r), *r, "act_quant_lhs" + sfx);
      if (d == Dist::Normal)
        expect_round_trip(
            q, *r,
            [&](auto visit) {
              for (i64 m = 0; m < x.rows; ++m)
                for (i64 k = 0; k < x.cols; ++k) visit(x.at(m, k), m * x.cols + k, m + (k / kB) * x.rows);
            },
            "act_quant_lhs");
      q = both_thread_counts([&] { return octet::fp8_blockwise_act_quant_rhs(x.view(), *r); }, "rhs" + sfx);
      expect_same(q, naive_act_rhs(x, *r), *r, "act_quant_rhs" + sfx);
      if (d == Dist::Normal)
        expect_round_trip(
            q, *r,
            [&](auto visit) {
              for (i64 m = 0; m < x.rows; ++m)
                for (i64 k = 0; k < x.cols; ++k) visit(x.at(m, k), m + k * x.rows, (m / kB) * x.cols + k);
            },
            "act_quant_rhs");
      const auto xt = make2<In>(256, 200, false, d, 73 + int(d));  // K not a multiple of 128: allowed here
      q = both_thread_counts([&] { return octet::fp8_blockwise_act_quant_transposed_lhs(xt.view(), *r); },
                             "tlhs" + sfx);
      expect_same(q, naive_act_transposed_lhs(xt, *r), *r, "act_quant_transposed_lhs" + sfx);
    }
}

TYPED_TEST(Fp8Kernels, BlockwiseWeights) {
  using In = TypeParam;
  for (const Recipe* r : blockwise_recipes())
    for (Dist d : kDists) {
      const std::string sfx = std::string(" ") + dist_name(d);
      const auto x = make2<In>(384, 256, false, d, 81 + int(d));
      auto q = both_thread_counts([&] { return octet::fp8_blockwise_weight_quant_rhs(x.view(), *r); }, "w" + sfx);
      Ref want = naive_weight_rhs(x, *r);
      expect_same(q, want, *r, "weight_quant_rhs" + sfx);
      expect_same(octet::fp8_blockwise_pad_scales_128x128(q), naive_pad_128x128(want), *r, "pad 2D" + sfx);
      if (d == Dist::Normal)
        expect_round_trip(
            q, *r,
            [&](auto visit) {
              for (i64 m = 0; m < x.rows; ++m)
                for (i64 n = 0; n < x.cols; ++n) visit(x.at(m, n), m + n * x.rows, m / kB + (n / kB) * (x.rows / kB));
            },
            "weight_quant_rhs");
      q = both_thread_counts([&] { return octet::fp8_blockwise_weight_quant_transposed_rhs(x.view(), *r); },
                             "wt" + sfx);
      want = naive_weight_transposed_rhs(x, *r);
      expect_same(q, want, *r, "weight_quant_transposed_rhs" + sfx);
      expect_same(octet::fp8_blockwise_pad_scales_128x128(q), naive_pad_128x128(want), *r, "pad 2D t" + sfx);

      const auto w = make3<In>(3, 640, 384, true, d, 83 + int(d));  // K/128 = 5: padded to 8
      q = both_thread_counts([&] { return octet::fp8_blockwise_weight_quant_grouped_transposed_rhs(w.view(), *r); },
                             "gw" + sfx);
      want = naive_grouped_transposed_rhs(w, *r);
      expect_same(q, want, *r, "weight_quant_grouped_transposed_rhs" + sfx);
      expect_same(octet::fp8_blockwise_pad_scales_128x128(q), naive_pad_128x128(want), *r, "pad 3D" + sfx);
      q = both_thread_counts([&] { return octet::fp8_blockwise_weight_quant_grouped_rhs(w.view(), *r); }, "gwr" + sfx);
      want = naive_grouped_rhs(w, *r);
      expect_same(q, want, *r, "weight_quant_grouped_rhs" + sfx);
      expect_same(octet::fp8_blockwise_pad_scales_128x128(q), naive_pad_128x128(want), *r, "pad 3D rhs" + sfx);
    }
}

TEST(Fp8Blockwise, PadScalesFillsOnePointZero) {
  // (E=1, Kb=1, Nb=2) -> (1, 4, 2): slots 1..3 of each column are 1.0f; a multiple of 4 is unchanged.
  Fp8Quantized q;
  q.scales = {0x11111111u, 0x22222222u};
  q.scale_layout = {{1, 1, 2}, {2, 1, 1}};
  const auto p = octet::fp8_blockwise_pad_scales_128x128(q);
  EXPECT_EQ(p.scale_layout.shape, (std::vector<i64>{1, 4, 2}));
  EXPECT_EQ(p.scale_layout.strides, (std::vector<i64>{8, 1, 4}));
  EXPECT_EQ(p.scales, (std::vector<std::uint32_t>{0x11111111u, 0x3F800000u, 0x3F800000u, 0x3F800000u, 0x22222222u,
                                                  0x3F800000u, 0x3F800000u, 0x3F800000u}));
  Fp8Quantized four;
  four.scales.assign(8, 7u);
  four.scale_layout = {{4, 2}, {1, 4}};
  EXPECT_EQ(octet::fp8_blockwise_pad_scales_128x128(four).scales, four.scales);
}

// ---------------------------------------------------------------------------------------------
// Family 3: token groups.

TYPED_TEST(Fp8Kernels, BlockwiseTokenGroups) {
  using In = TypeParam;
  for (const Recipe* r : blockwise_recipes())
    for (const OffsCase& oc : offs_cases())
      for (Dist d : kDists) {
        const i64 D = oc.extent > 1000 ? 20 : 70;
        const auto x = make2<In>(oc.extent, D, d == Dist::Adversarial, d, 91 + int(d));
        const std::string what = std::string(oc.name) + " " + dist_name(d);
        const auto q = both_thread_counts(
            [&] { return octet::fp8_blockwise_act_quant_rhs_grouped(x.view(), std::span<const i64>(oc.offs), *r); },
            "rhs_grouped " + what);
        expect_same(q, naive_token_groups(x, oc.offs, *r, false), *r, "act_quant_rhs_grouped " + what);
        const auto offs32 = to32(oc.offs);
        const auto t = both_thread_counts(
            [&] {
              return octet::fp8_blockwise_act_quant_transposed_lhs_grouped(x.view(),
                                                                           std::span<const std::int32_t>(offs32), *r);
            },
            "tlhs_grouped " + what);
        expect_same(t, naive_token_groups(x, oc.offs, *r, true), *r, "act_quant_transposed_lhs_grouped " + what);
      }
}

TYPED_TEST(Fp8Kernels, BlockwiseTokenGroupsAlignedEqualDense) {
  // 128-aligned groups covering all rows: the grouped kernels equal the dense ones byte for byte.
  using In = TypeParam;
  const Recipe& r = octet::recipe("torchao_blockwise");
  const auto x = make2<In>(640, 256, false, Dist::Adversarial, 97);
  const std::vector<i64> offs{128, 128, 512, 640};
  const auto g = octet::fp8_blockwise_act_quant_rhs_grouped(x.view(), std::span<const i64>(offs), r);
  const auto dense = octet::fp8_blockwise_act_quant_rhs(x.view(), r);
  EXPECT_EQ(g.data, dense.data);
  EXPECT_EQ(g.scales, dense.scales);
  const auto gt = octet::fp8_blockwise_act_quant_transposed_lhs_grouped(x.view(), std::span<const i64>(offs), r);
  const auto dt = octet::fp8_blockwise_act_quant_transposed_lhs(x.view(), r);
  EXPECT_EQ(gt.data, dt.data);
  EXPECT_EQ(gt.scales, dt.scales);
  EXPECT_EQ(gt.scale_layout.strides, dt.scale_layout.strides);
}

TYPED_TEST(Fp8Kernels, BlockwiseKGroupedDeepGemm) {
  using In = TypeParam;
  const std::vector<OffsCase> cases{
      {"aligned_with_empties", 700, {0, 128, 128, 512, 640, 640}},  // rows 640..699 past offs[-1]
      {"one_group", 256, {256}},
      {"large_group", 4608, {4352, 4608}},
      {"no_groups", 10, {}},
  };
  for (const Recipe* r : blockwise_recipes())
    for (const OffsCase& oc : cases)
      for (Dist d : kDists) {
        const auto x = make2<In>(oc.extent, oc.extent > 1000 ? 16 : 136, false, d, 101 + int(d));
        const std::string what = std::string("k_grouped_deepgemm ") + oc.name + " " + dist_name(d);
        const auto q = both_thread_counts(
            [&] {
              return octet::fp8_blockwise_act_quant_k_grouped_deepgemm(x.view(), std::span<const i64>(oc.offs), *r);
            },
            what);
        expect_same(q, naive_k_grouped_deepgemm(x, oc.offs, *r), *r, what);
      }
}

// ---------------------------------------------------------------------------------------------
// Family 3: DeepGEMM reference casts (zero padding of partial blocks).

TYPED_TEST(Fp8Kernels, DeepGemmCasts) {
  using In = TypeParam;
  for (const Recipe* r : blockwise_recipes())
    for (Dist d : kDists) {
      const std::string sfx = std::string(" ") + dist_name(d);
      const auto x = make2<In>(300, 333, d == Dist::Adversarial, d, 111 + int(d));
      auto q = both_thread_counts([&] { return octet::deepgemm_per_token_cast_to_fp8(x.view(), *r); }, "tok" + sfx);
      expect_same(q, naive_per_token(x, *r), *r, "per_token" + sfx);
      if (d == Dist::Normal)
        expect_round_trip(
            q, *r,
            [&](auto visit) {
              const i64 Nb = cdiv(x.cols, kB);
              for (i64 m = 0; m < x.rows; ++m)
                for (i64 n = 0; n < x.cols; ++n) visit(x.at(m, n), m * x.cols + n, m * Nb + n / kB);
            },
            "per_token");
      q = both_thread_counts([&] { return octet::deepgemm_per_block_cast_to_fp8(x.view(), *r); }, "blk" + sfx);
      expect_same(q, naive_per_block(x, *r), *r, "per_block" + sfx);
      const auto xc = make2<In>(384, 77, false, d, 113 + int(d));
      q = both_thread_counts([&] { return octet::deepgemm_per_channel_cast_to_fp8(xc.view(), *r); }, "ch" + sfx);
      expect_same(q, naive_per_channel(xc, *r), *r, "per_channel" + sfx);
    }
}

TYPED_TEST(Fp8Kernels, AllZeroBlocks) {
  // Rows 0..127 and the 128x128 tile (1, 1) are all zero (signs mixed): every block there gets the
  // scale of an empty amax, and its codes are the recipe's zeros.
  using In = TypeParam;
  auto x = make2<In>(384, 256, false, Dist::Normal, 121, 0.0);
  for (i64 m = 0; m < x.rows; ++m)
    for (i64 k = 0; k < x.cols; ++k)
      if (m < 128 || (m >= 128 && m < 256 && k >= 128))
        x.buf[std::size_t(m * x.cols + k)] = narrow<In>((m + k) % 2 ? -0.0f : 0.0f);
  for (const Recipe* r : blockwise_recipes()) {
    const std::uint32_t zero_scale = octet::scale_from_amax(*r, octet::amax_init(*r)).stored;
    auto q = octet::fp8_blockwise_act_quant_rhs(x.view(), *r);
    expect_same(q, naive_act_rhs(x, *r), *r, "zero blocks act_quant_rhs");
    EXPECT_EQ(q.scales[0], zero_scale) << octet::name(*r);
    q = octet::fp8_blockwise_weight_quant_rhs(x.view(), *r);
    expect_same(q, naive_weight_rhs(x, *r), *r, "zero blocks weight_quant_rhs");
    EXPECT_EQ(q.scales[0], zero_scale) << octet::name(*r);
    EXPECT_EQ(q.scales[1 + 3], zero_scale) << octet::name(*r);  // tile (1, 1), strides (1, Mb = 3)
    q = octet::fp8_blockwise_act_quant_lhs(x.view(), *r);
    expect_same(q, naive_act_lhs(x, *r), *r, "zero blocks act_quant_lhs");
    q = octet::deepgemm_per_block_cast_to_fp8(x.view(), *r);
    expect_same(q, naive_per_block(x, *r), *r, "zero blocks per_block");
  }
  for (const Recipe* r : rowwise_recipes()) {
    const std::vector<i64> offs{128, 200, 384};
    const auto q = octet::fp8_per_group_colwise_scales(x.view(), std::span<const i64>(offs), *r);
    expect_same(q, naive_per_group_colwise(x, offs, *r), *r, "zero blocks per_group_colwise");
    EXPECT_EQ(q.scales[0], octet::scale_from_amax(*r, octet::amax_init(*r)).stored) << octet::name(*r);
  }
}

TYPED_TEST(Fp8Kernels, DefaultRecipes) {
  using In = TypeParam;
  const auto x = make2<In>(256, 256, false, Dist::Adversarial, 7);
  const Recipe& tb = octet::recipe("torchao_blockwise");
  const Recipe& dg = octet::recipe("deepgemm");
  expect_same(octet::fp8_blockwise_act_quant_lhs(x.view()), naive_act_lhs(x, tb), tb, "lhs default");
  expect_same(octet::fp8_blockwise_weight_quant_rhs(x.view()), naive_weight_rhs(x, tb), tb, "weight default");
  expect_same(octet::deepgemm_per_block_cast_to_fp8(x.view()), naive_per_block(x, dg), dg, "per_block default");
  const std::vector<i64> offs{100, 256};
  const Recipe& p2 = octet::recipe("torchao_fp8_rowwise_pow2");
  expect_same(octet::fp8_per_group_colwise_scales(x.view(), std::span<const i64>(offs)),
              naive_per_group_colwise(x, offs, p2), p2, "colwise default");
}

// ---------------------------------------------------------------------------------------------
// Named cases.

TEST(Fp8KernelCases, EmptyGroupScaleIsTheZeroBlockScale) {
  // An empty group's scales are written as the peer writes them: 448/EPS rounded down to 2^48.
  const std::vector<float> x(4 * 6, 1.0f);
  const std::vector<i64> offs{0, 6, 6};
  const auto q =
      octet::fp8_per_group_colwise_scales(View2D<const float>::row_major(x.data(), 6, 4), std::span<const i64>(offs));
  ASSERT_EQ(q.scales.size(), 12u);
  for (int n = 0; n < 4; ++n) {
    EXPECT_EQ(q.scales[std::size_t(n)], std::bit_cast<std::uint32_t>(0x1p48f)) << "group 0 column " << n;
    EXPECT_EQ(q.scales[std::size_t(4 + n)], std::bit_cast<std::uint32_t>(256.0f)) << "group 1 column " << n;
    EXPECT_EQ(q.scales[std::size_t(8 + n)], std::bit_cast<std::uint32_t>(0x1p48f)) << "group 2 column " << n;
  }
}

TEST(Fp8KernelCases, RowsBeyondOffsAreZero) {
  const std::vector<float> x(8 * 3, 3.0f);
  const std::vector<i64> offs{2, 5};
  const auto q =
      octet::fp8_per_group_colwise_scales(View2D<const float>::row_major(x.data(), 8, 3), std::span<const i64>(offs));
  for (i64 n = 0; n < 3; ++n)
    for (i64 m = 0; m < 8; ++m)
      EXPECT_EQ(q.data[std::size_t(n * 8 + m)] == 0, m >= 5) << "(m, n) = (" << m << ", " << n << ")";
}

TEST(Fp8KernelCases, TransposeRhsEqualsMinimumOfTileScales) {
  // The peer's atomic_min over 128-wide n-tiles equals the scale of the row amax.
  const Recipe& r = octet::recipe("torchao_fp8_rowwise_pow2");
  std::vector<float> w(1 * 2 * 300);
  Gen g(3);
  for (auto& v : w) v = g.normal() * 7.0f;
  const auto q = octet::fp8_rowwise_3d_transpose_rhs(View3D<const float>::row_major(w.data(), 1, 2, 300), r);
  for (int k = 0; k < 2; ++k) {
    float tile_min = std::numeric_limits<float>::infinity();
    for (int t = 0; t * 128 < 300; ++t) {
      float amax = octet::amax_init(r);
      for (int n = t * 128; n < std::min(300, t * 128 + 128); ++n)
        amax = octet::amax_update(r, amax, w[std::size_t(k * 300 + n)]);
      tile_min = std::min(tile_min, octet::scale_from_amax(r, amax).encode);
    }
    EXPECT_EQ(q.scales[std::size_t(k)], std::bit_cast<std::uint32_t>(tile_min));
  }
}

TEST(Fp8KernelCases, RecipeEditedInPlaceIsNotServedStaleCodes) {
  // A caller's Recipe, edited between two calls at the same address: the second call must follow
  // the edited element cast (RTZ instead of RNE), not codes remembered from the first.
  Recipe r = octet::recipe("torchao_fp8_rowwise_pow2");
  auto x = make2<std::uint16_t>(4, 96, false, Dist::Normal, 131, 0.0);
  for (i64 m = 1; m < x.rows; ++m)  // equal rows share a scale, so the memo is warm from row 1 on
    for (i64 k = 0; k < x.cols; ++k) x.buf[std::size_t(m * x.cols + k)] = x.buf[std::size_t(k)];
  const auto rne = octet::fp8_rowwise_2d_scale_and_cast(x.view(), r);
  expect_same(rne, naive_rowwise_2d(x, r), r, "custom recipe, rne");
  r.cast.rounding = octet::Rounding::TowardZero;
  const auto rtz = octet::fp8_rowwise_2d_scale_and_cast(x.view(), r);
  expect_same(rtz, naive_rowwise_2d(x, r), r, "custom recipe edited to rtz");
  EXPECT_NE(rne.data, rtz.data);
}

// ---------------------------------------------------------------------------------------------
// Misuse: std::invalid_argument naming the argument.

TEST(Fp8KernelCases, Misuse) {
  std::vector<float> buf(1024 * 1024, 1.0f);
  const auto rm = [&](i64 r, i64 c) { return View2D<const float>::row_major(buf.data(), r, c); };
  const auto cm = [&](i64 r, i64 c) { return View2D<const float>::col_major(buf.data(), r, c); };
  const std::vector<i64> non_monotonic{10, 5, 20}, beyond{10, 400}, misaligned{128, 200};

  expect_invalid([&] { octet::fp8_per_group_colwise_scales(rm(300, 8), std::span<const i64>(non_monotonic)); }, "offs",
                 "non-monotonic offs");
  expect_invalid([&] { octet::fp8_per_group_rowwise_scales(rm(8, 300), std::span<const i64>(beyond)); }, "offs",
                 "offs beyond K_total");
  expect_invalid(
      [&] { octet::fp8_blockwise_act_quant_k_grouped_deepgemm(rm(256, 8), std::span<const i64>(misaligned)); }, "offs",
      "group size not a multiple of 128");
  expect_invalid(
      [&] { octet::fp8_per_group_colwise_scales_dual(rm(300, 8), rm(299, 8), std::span<const i64>(beyond)); },
      "x2_k_n2", "dual shape mismatch");
  expect_invalid([&] { octet::fp8_colwise_3d_scale_and_cast(View3D<const float>::row_major(buf.data(), 2, 16, 32)); },
                 "b_e_k_n", "colwise_3d wants per-expert column-major");
  expect_invalid(
      [&] { octet::fp8_blockwise_weight_quant_grouped_rhs(View3D<const float>::row_major(buf.data(), 2, 128, 128)); },
      "w_e_k_n", "grouped weights want per-expert column-major");
  expect_invalid(
      [&] {
        octet::fp8_blockwise_weight_quant_grouped_transposed_rhs(
            View3D<const float>::col_major_per_expert(buf.data(), 2, 128, 100));
      },
      "w_e_k_n", "N not a multiple of 128");
  expect_invalid([&] { octet::fp8_blockwise_act_quant_lhs(cm(128, 128)); }, "x_m_k", "lhs wants contiguous");
  expect_invalid([&] { octet::fp8_blockwise_act_quant_lhs(rm(128, 100)); }, "x_m_k", "lhs K % 128");
  expect_invalid([&] { octet::fp8_blockwise_act_quant_rhs(rm(100, 100)); }, "x_m_k", "rhs K % 128");
  expect_invalid([&] { octet::fp8_blockwise_act_quant_transposed_lhs(rm(100, 128)); }, "x_m_k",
                 "transposed_lhs M % 128");
  expect_invalid([&] { octet::fp8_blockwise_weight_quant_rhs(rm(128, 200)); }, "x_m_n", "weight N % 128");
  expect_invalid([&] { octet::fp8_blockwise_weight_quant_transposed_rhs(rm(200, 128)); }, "x_m_n", "weight M % 128");
  expect_invalid([&] { octet::deepgemm_per_channel_cast_to_fp8(rm(100, 128)); }, "x_m_n", "per_channel m % 128");
  expect_invalid(
      [&] {
        octet::fp8_rowwise_2d_scale_and_cast(View2D<const float>{nullptr, 4, 4, 4, 1});
      },
      "a_m_k", "null data");
  expect_invalid(
      [&] {
        octet::fp8_rowwise_3d_transpose_rhs(View3D<const float>{buf.data(), 1, -2, 4, 8, 4, 1});
      },
      "b_e_k_n", "negative shape");
  Fp8Quantized bad;
  bad.scale_layout = {{4}, {1}};
  expect_invalid([&] { octet::fp8_blockwise_pad_scales_128x128(bad); }, "scale_layout", "pad of a 1D layout");
  expect_invalid([&] { octet::recipe("no_such_recipe"); }, "no_such_recipe", "unknown recipe");
}

}  // namespace
