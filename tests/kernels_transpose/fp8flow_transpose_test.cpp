// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// fp8flow_transpose_test.cpp — the FP8-Flow-MoE scaling-aware transpose (reference/kernels.md §8).
//
// * The published variant is compared byte for byte with a second implementation written here as
//   plain per-element loops straight from the five steps of kernels.md §8 (no tables, no views).
// * Properties: q_t * S == q * si exactly wherever E - k >= 1 (published, ideal); the ideal variant
//   is exact wherever the value is representable and otherwise the RNE neighbour (independent
//   rounding in double); the naive variant equals a TE-style 128x1 requantisation written here.
// * Inputs: 1x128 pow2 quantisation of random bf16 data (a helper written here with TE's
//   compute_scale_from_amax), and adversarial raw codes and scales (subnormals, -0, NaN, E - k
//   exactly 0 and 1, pad rows with scale_inv 0, empty and one-row groups, partial tiles).
// * DoubleQuantReport prints inexact counts, max abs error and SQNR per variant.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "octet/cast.hpp"
#include "octet/format.hpp"
#include "octet/kernels/fp8flow_transpose.hpp"

namespace {

using octet::Fp8FlowResult;
using octet::Fp8FlowVariant;
using octet::View2D;

constexpr std::int64_t kB = 128;

// Repetition scaler for sanitizer / debug builds (highway AdjustedReps).
int adjusted_reps(int n) {
#if defined(__SANITIZE_ADDRESS__) || !defined(NDEBUG)
  return std::max(1, n / 8);
#else
  return n;
#endif
}

double e4m3(std::uint8_t q) { return octet::decode(octet::e4m3fn_format, q); }
bool is_nan_code(std::uint8_t q) { return (q & 0x7F) == 0x7F; }

std::string hex8(unsigned v) {
  char b[8];
  std::snprintf(b, sizeof b, "0x%02X", v & 0xFF);
  return b;
}
std::string hex32f(float f) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08X", std::bit_cast<std::uint32_t>(f));
  return b;
}

// ---------------------------------------------------------------------------------------------
// Test inputs: a rowwise 1x128-quantised tensor and its group offsets.

struct Rowwise {
  std::int64_t m = 0, cols = 0, cb = 0;
  std::vector<std::uint8_t> q;    // (m, cols) e4m3fn codes
  std::vector<float> si;          // (m, cb) scale_inv
  std::vector<std::int32_t> offs;
  std::vector<float> x;           // the bf16 source values, when quantised from data

  View2D<const std::uint8_t> qv() const { return View2D<const std::uint8_t>::row_major(q.data(), m, cols); }
  View2D<const float> siv() const { return View2D<const float>::row_major(si.data(), m, cb); }
  Fp8FlowResult run(Fp8FlowVariant v) const { return octet::fp8flow_transpose(v, qv(), siv(), offs); }
};

std::vector<std::int32_t> offs_from_sizes(const std::vector<std::int64_t>& sizes) {
  std::vector<std::int32_t> offs;
  std::int64_t end = 0;
  for (auto s : sizes) offs.push_back(std::int32_t(end += s));
  return offs;
}

Rowwise empty_input(std::int64_t cols, const std::vector<std::int64_t>& sizes) {
  Rowwise in;
  in.offs = offs_from_sizes(sizes);
  in.m = in.offs.empty() ? 0 : in.offs.back();
  in.cols = cols;
  in.cb = (cols + kB - 1) / kB;
  in.q.assign(std::size_t(in.m * in.cols), 0);
  in.si.assign(std::size_t(in.m * in.cb), 0.0f);
  return in;
}

float bf16_round(float x) {
  return octet::bf16_to_float(std::uint16_t(octet::encode(octet::bf16_format, octet::CastSpec{}, x)));
}

// TE compute_scale_from_amax for e4m3 with pow2 scales (recipes.md §4.1), for bf16 input:
// amax Inf/0/NaN -> 1; s = fl32(448 / amax); Inf -> bf16 max; mantissa masked off.
float te_pow2_scale(float amax) {
  if (std::isinf(amax) || amax == 0.0f || std::isnan(amax)) return 1.0f;
  float s = 448.0f / amax;
  if (std::isinf(s)) s = std::bit_cast<float>(0x7F7F0000u);
  return std::bit_cast<float>(std::bit_cast<std::uint32_t>(s) & 0xFF800000u);
}
// fl32(x * s), then __nv_cvt_float_to_fp8(…, __NV_SATFINITE): RNE, satfinite, and NaN as the
// canonical 0x7F (the float NaN is made 0x7FFFFFFF first, so -NaN loses its sign).
std::uint8_t te_cast(float x, float scale) {
  constexpr octet::CastSpec kTeCast{.nan = octet::NanPolicy::Canonical};
  return std::uint8_t(octet::encode(octet::e4m3fn_format, kTeCast, x * scale));
}

// Random "activations": N(0,1) per element, times 2^N(0, row_sigma) per row (tokens differ) and
// 2^N(0, 0.5) per column, 0.1% outliers x 64, rounded to bf16.
std::vector<float> random_activations(std::int64_t m, std::int64_t cols, std::uint64_t seed, double row_sigma = 2.0) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> n01(0.0, 1.0);
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  std::vector<double> row(static_cast<std::size_t>(m)), col(static_cast<std::size_t>(cols));
  for (auto& v : row) v = std::exp2(row_sigma * n01(rng));
  for (auto& v : col) v = std::exp2(0.5 * n01(rng));
  std::vector<float> x(std::size_t(m * cols));
  for (std::int64_t r = 0; r < m; ++r)
    for (std::int64_t c = 0; c < cols; ++c) {
      double v = n01(rng) * row[std::size_t(r)] * col[std::size_t(c)];
      if (u01(rng) < 1e-3) v *= 64.0;
      x[std::size_t(r * cols + c)] = bf16_round(float(v));
    }
  return x;
}

// 1x128 rowwise quantisation of x (m, cols), TE Float8BlockScaling with pow2 scales.
Rowwise quantize_rowwise(std::vector<float> x, std::int64_t cols, const std::vector<std::int64_t>& sizes) {
  Rowwise in = empty_input(cols, sizes);
  for (std::int64_t r = 0; r < in.m; ++r)
    for (std::int64_t j = 0; j < in.cb; ++j) {
      const std::int64_t c0 = j * kB, c1 = std::min(c0 + kB, cols);
      float amax = 0.0f;
      for (std::int64_t c = c0; c < c1; ++c) amax = std::fmax(amax, std::fabs(x[std::size_t(r * cols + c)]));
      const float s = te_pow2_scale(amax);
      in.si[std::size_t(r * in.cb + j)] = 1.0f / s;
      for (std::int64_t c = c0; c < c1; ++c) in.q[std::size_t(r * cols + c)] = te_cast(x[std::size_t(r * cols + c)], s);
    }
  in.x = std::move(x);
  return in;
}

Rowwise realistic_input(std::int64_t cols, const std::vector<std::int64_t>& sizes, std::uint64_t seed,
                        double row_sigma = 2.0) {
  std::int64_t m = 0;
  for (auto s : sizes) m += s;
  return quantize_rowwise(random_activations(m, cols, seed, row_sigma), cols, sizes);
}

// Raw codes (all 256, NaN, subnormals and -0 included) and scales 2^e, e in [-20, 4] with the
// extremes 2^-127 / 2^127 at 0.3% each; 8% pad rows (si = +0, codes 0) and 2% "dirty" pad rows
// (si = +0 with non-zero codes), so E - k lands on 0 and 1 often.
Rowwise adversarial_input(std::int64_t cols, const std::vector<std::int64_t>& sizes, std::uint64_t seed) {
  Rowwise in = empty_input(cols, sizes);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> byte(0, 255), expo(-20, 4);
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  for (std::int64_t r = 0; r < in.m; ++r) {
    const double kind = u01(rng);
    const bool pad = kind < 0.10, dirty = kind < 0.02;
    for (std::int64_t c = 0; c < cols; ++c)
      in.q[std::size_t(r * cols + c)] = pad && !dirty ? 0 : std::uint8_t(byte(rng));
    for (std::int64_t j = 0; j < in.cb; ++j) {
      const double u = u01(rng);
      const int e = u < 0.003 ? -127 : u < 0.006 ? 127 : expo(rng);
      in.si[std::size_t(r * in.cb + j)] = pad ? 0.0f : std::ldexp(1.0f, e);
    }
  }
  return in;
}

// ---------------------------------------------------------------------------------------------
// The second implementation: kernels.md §8 steps 1-5 as plain loops, with its own output offsets
// (groups packed back to back: qt (cols, m_g), csi (ceil(m_g/128), cols), sit (cb, m_g)).

struct Outputs {
  std::vector<std::uint8_t> qt;
  std::vector<float> csi, sit;
};

int exp_of(float v) { return int((std::bit_cast<std::uint32_t>(v) >> 23) & 0xFF) - 127; }

Outputs reference_published(const Rowwise& in) {
  Outputs o;
  std::int64_t tile_rows = 0, begin = 0;
  for (auto end : in.offs) tile_rows += (end - begin + kB - 1) / kB, begin = end;
  o.qt.assign(std::size_t(in.m * in.cols), 0xAA);
  o.csi.assign(std::size_t(tile_rows * in.cols), -1.0f);
  o.sit.assign(std::size_t(in.cb * in.m), -1.0f);
  begin = 0;
  std::int64_t tile_row0 = 0;
  for (const std::int64_t end : in.offs) {
    const std::int64_t mg = end - begin, nb = (mg + kB - 1) / kB;
    for (std::int64_t i = 0; i < nb; ++i)
      for (std::int64_t j = 0; j < in.cb; ++j) {
        const std::int64_t r0 = begin + i * kB, r1 = std::min(r0 + kB, end);
        const std::int64_t c0 = j * kB, c1 = std::min(c0 + kB, in.cols);
        // 1. S = max over the tile's rows
        float S = 0.0f;
        for (std::int64_t r = r0; r < r1; ++r) S = std::max(S, in.si[std::size_t(r * in.cb + j)]);
        for (std::int64_t c = c0; c < c1; ++c) o.csi[std::size_t((tile_row0 + i) * in.cols + c)] = S;
        for (std::int64_t r = r0; r < r1; ++r) {
          const float si = in.si[std::size_t(r * in.cb + j)];
          o.sit[std::size_t(in.cb * begin + j * mg + (r - begin))] = si;
          const int k = exp_of(S) - exp_of(si);  // 2.
          for (std::int64_t c = c0; c < c1; ++c) {
            const unsigned q = in.q[std::size_t(r * in.cols + c)];
            const unsigned s = q >> 7, E = (q >> 3) & 0xF, M = q & 7;  // 3.
            int Ep = int(E) - k;                                       // 4.
            if (Ep < 1) Ep = 0;
            const unsigned out = E == 0 ? 0u : (s << 7 | unsigned(Ep) << 3 | M);  // 5.
            o.qt[std::size_t(in.cols * begin + c * mg + (r - begin))] = std::uint8_t(out);
          }
        }
      }
    tile_row0 += nb;
    begin = end;
  }
  return o;
}

// Locates a flat qt index: group, column, row within the group.
struct Where {
  std::int64_t g, c, r_local, r;
};
Where locate_qt(const Rowwise& in, std::int64_t idx) {
  std::int64_t begin = 0;
  for (std::int64_t g = 0; g < std::int64_t(in.offs.size()); ++g) {
    const std::int64_t end = in.offs[std::size_t(g)], mg = end - begin;
    if (idx < in.cols * end) {
      const std::int64_t local = idx - in.cols * begin;
      return {g, local / mg, local % mg, begin + local % mg};
    }
    begin = end;
  }
  return {-1, -1, -1, -1};
}

::testing::AssertionResult same_outputs(const Rowwise& in, const Fp8FlowResult& got, const Outputs& want,
                                        const std::string& what) {
  if (got.qt.size() != want.qt.size() || got.csi.size() != want.csi.size() || got.sit.size() != want.sit.size())
    return ::testing::AssertionFailure() << what << ": output sizes differ: qt " << got.qt.size() << " vs "
                                         << want.qt.size() << ", csi " << got.csi.size() << " vs " << want.csi.size()
                                         << ", sit " << got.sit.size() << " vs " << want.sit.size();
  for (std::size_t i = 0; i < want.qt.size(); ++i)
    if (got.qt[i] != want.qt[i]) {
      const Where w = locate_qt(in, std::int64_t(i));
      const std::int64_t j = w.c / kB;
      const std::uint8_t q = in.q[std::size_t(w.r * in.cols + w.c)];
      const float si = in.si[std::size_t(w.r * in.cb + j)];
      return ::testing::AssertionFailure()
             << what << ": qt mismatch at flat " << i << " (group " << w.g << ", col " << w.c << ", row " << w.r_local
             << " = input row " << w.r << "): got " << hex8(got.qt[i]) << " (" << e4m3(got.qt[i]) << ") want "
             << hex8(want.qt[i]) << " (" << e4m3(want.qt[i]) << "); input q " << hex8(q) << " (" << e4m3(q)
             << "), si " << si << " " << hex32f(si);
    }
  for (std::size_t i = 0; i < want.csi.size(); ++i)
    if (std::bit_cast<std::uint32_t>(got.csi[i]) != std::bit_cast<std::uint32_t>(want.csi[i]))
      return ::testing::AssertionFailure() << what << ": csi mismatch at flat " << i << ": got " << hex32f(got.csi[i])
                                           << " want " << hex32f(want.csi[i]);
  for (std::size_t i = 0; i < want.sit.size(); ++i)
    if (std::bit_cast<std::uint32_t>(got.sit[i]) != std::bit_cast<std::uint32_t>(want.sit[i]))
      return ::testing::AssertionFailure() << what << ": sit mismatch at flat " << i << ": got " << hex32f(got.sit[i])
                                           << " want " << hex32f(want.sit[i]);
  return ::testing::AssertionSuccess();
}

// Calls fn(g, r, c, q, si, S, q_t) for every element, from a variant's outputs.
void for_each_element(const Rowwise& in, const Fp8FlowResult& res,
                      const std::function<void(std::int64_t, std::int64_t, std::int64_t, std::uint8_t, float, float,
                                               std::uint8_t)>& fn) {
  const auto& L = res.layout;
  for (std::int64_t g = 0; g < L.groups(); ++g) {
    const auto qt = L.qt(res.qt.data(), g);
    const auto csi = L.csi(res.csi.data(), g);
    for (std::int64_t rl = 0; rl < L.group_rows(g); ++rl) {
      const std::int64_t r = L.row_begin[std::size_t(g)] + rl;
      for (std::int64_t c = 0; c < in.cols; ++c)
        fn(g, r, c, in.q[std::size_t(r * in.cols + c)], in.si[std::size_t(r * in.cb + c / kB)], csi(rl / kB, c),
           qt(c, rl));
    }
  }
}

// The correctly rounded shift of t = decode(q) * 2^-k, written independently of the converter:
// |t| >= 2^-6 is exact (a 4-bit significand in the normal range); below, RNE to a multiple of 2^-9.
double rne_e4m3_small(double t) {
  const double a = std::fabs(t);
  if (a >= 0x1p-6) return t;
  const double n = a * 512.0, fl = std::floor(n), frac = n - fl;
  const double j = frac > 0.5 ? fl + 1 : frac < 0.5 ? fl : (std::fmod(fl, 2.0) == 0.0 ? fl : fl + 1);
  return std::copysign(j / 512.0, t);
}

// Checks the ideal variant against rne_e4m3_small per element; returns (exact, rounded) counts.
std::pair<std::int64_t, std::int64_t> check_ideal(const Rowwise& in, const Fp8FlowResult& res) {
  std::int64_t exact = 0, rounded = 0, failures = 0;
  for_each_element(in, res, [&](auto g, auto r, auto c, std::uint8_t q, float si, float S, std::uint8_t qt) {
    if (failures > 10) return;
    if (is_nan_code(q)) {
      if (qt != q) ++failures, ADD_FAILURE() << "ideal: NaN " << hex8(q) << " became " << hex8(qt) << " at row " << r;
      return;
    }
    // The value in units of S; a pad row (si = +0) holds q * 0 = ±0.
    const double t = si == 0.0f ? std::copysign(0.0, e4m3(q)) : e4m3(q) * double(si) / double(S);
    const double want = rne_e4m3_small(t);
    const double got = e4m3(qt);
    if (got != want || std::signbit(got) != std::signbit(want)) {
      ++failures;
      ADD_FAILURE() << "ideal: group " << g << " row " << r << " col " << c << ": q " << hex8(q) << " si " << si
                    << " S " << S << ": got " << hex8(qt) << " (" << got << ") want " << want;
      return;
    }
    if (want == t) {
      ++exact;
      if (si != 0.0f) {
        EXPECT_EQ(got * S, e4m3(q) * si);  // dequantised values agree exactly
      }
    } else {
      ++rounded;
      EXPECT_LE(std::fabs(got - t), 0x1p-10) << "more than half an ulp at row " << r << " col " << c;
    }
  });
  return {exact, rounded};
}

struct Shape {
  const char* name;
  std::int64_t cols;
  std::vector<std::int64_t> sizes;
};
const std::vector<Shape>& shapes() {
  static const std::vector<Shape> s{
      {"aligned", 256, {128, 256, 128}},
      {"jagged_empty_one_row", 384, {1, 0, 200, 129, 0, 77}},
      {"cols_not_multiple_of_128", 300, {130, 64, 1}},
      {"tiny", 5, {3}},
      {"empty_first_and_last", 256, {0, 300, 0}},
      {"all_groups_empty", 128, {0, 0}},
      {"one_row_groups", 200, {1, 1, 1, 0, 1}},
      {"larger", 1024, {517, 1000, 0, 255, 128}},
  };
  return s;
}

// ---------------------------------------------------------------------------------------------
// Element rules: named hazards (kernels.md §8 corner cases) and an exhaustive (code, k) sweep.

TEST(Fp8FlowElement, ExactShiftChangesOnlyTheExponent) {
  EXPECT_EQ(octet::fp8flow_published_code(0x3B, 6), 0x0B);  // 0.0111.011 = 1.375 -> 0.0001.011 = 1.375 * 2^-6
  EXPECT_EQ(octet::fp8flow_ideal_code(0x3B, 6), 0x0B);
  EXPECT_EQ(octet::fp8flow_published_code(0xFE, 3), 0xE6);  // -448 -> -56
}

TEST(Fp8FlowElement, CaseA_KeepMantissaBelowExponentOne) {
  // 1.375 * 2^-7 = 5.5 * 2^-9: published keeps M = 3 (3 * 2^-9), ideal rounds 5.5 to even 6.
  EXPECT_EQ(octet::fp8flow_published_code(0x3B, 7), 0x03);
  EXPECT_EQ(octet::fp8flow_ideal_code(0x3B, 7), 0x06);
  // 1.125 * 2^-7 = 4.5 * 2^-9: a tie, to even 4.
  EXPECT_EQ(octet::fp8flow_ideal_code(0x39, 7), 0x04);
}

TEST(Fp8FlowElement, CaseA_EkZeroMantissaZeroGivesZero) {
  EXPECT_EQ(octet::fp8flow_published_code(0x38, 7), 0x00);  // 1.0 * 2^-7 -> 0
  EXPECT_EQ(octet::fp8flow_ideal_code(0x38, 7), 0x04);      // 2^-7 = 4 * 2^-9
}

TEST(Fp8FlowElement, CaseB_SubnormalsAndNegativeZeroBecomePlusZero) {
  EXPECT_EQ(octet::fp8flow_published_code(0x05, 0), 0x00);
  EXPECT_EQ(octet::fp8flow_published_code(0x85, 0), 0x00);
  EXPECT_EQ(octet::fp8flow_published_code(0x80, 0), 0x00);
  EXPECT_EQ(octet::fp8flow_ideal_code(0x05, 0), 0x05);
  EXPECT_EQ(octet::fp8flow_ideal_code(0x85, 0), 0x85);
  EXPECT_EQ(octet::fp8flow_ideal_code(0x80, 0), 0x80);
  EXPECT_EQ(octet::fp8flow_ideal_code(0x05, 1), 0x02);  // 2.5 -> 2
  EXPECT_EQ(octet::fp8flow_ideal_code(0x07, 1), 0x04);  // 3.5 -> 4
  EXPECT_EQ(octet::fp8flow_ideal_code(0x81, 1), 0x80);  // -0.5 * 2^-9 -> -0
}

TEST(Fp8FlowElement, CaseC_NanBecomesFinite) {
  EXPECT_EQ(octet::fp8flow_published_code(0x7F, 0), 0x7F);
  EXPECT_EQ(octet::fp8flow_published_code(0x7F, 1), 0x77);  // 0.1110.111 = 240
  EXPECT_EQ(octet::fp8flow_published_code(0xFF, 2), 0xEF);  // -120
  EXPECT_EQ(octet::fp8flow_ideal_code(0x7F, 1), 0x7F);
  EXPECT_EQ(octet::fp8flow_ideal_code(0xFF, 40), 0xFF);
}

TEST(Fp8FlowElement, ScaleExponent) {
  EXPECT_EQ(octet::fp8flow_scale_exponent(0.0f), -127);
  EXPECT_EQ(octet::fp8flow_scale_exponent(0x1p-127f), -127);  // fp32 subnormal 0x00400000
  EXPECT_EQ(octet::fp8flow_scale_exponent(0x1p-126f), -126);
  EXPECT_EQ(octet::fp8flow_scale_exponent(1.0f), 0);
  EXPECT_EQ(octet::fp8flow_scale_exponent(0x1p127f), 127);
}

TEST(Fp8FlowElement, AllCodesAllShifts) {
  for (int k = 0; k <= 300; ++k)
    for (unsigned q = 0; q < 256; ++q) {
      const unsigned E = (q >> 3) & 0xF;
      const int Ep = std::max(int(E) - k, 0);
      const unsigned want = E == 0 ? 0u : ((q & 0x80) | unsigned(Ep < 1 ? 0 : Ep) << 3 | (q & 7));
      ASSERT_EQ(octet::fp8flow_published_code(std::uint8_t(q), k), want) << "q " << hex8(q) << " k " << k;
      const std::uint8_t ideal = octet::fp8flow_ideal_code(std::uint8_t(q), k);
      if (is_nan_code(std::uint8_t(q))) {
        ASSERT_EQ(ideal, q);
        continue;
      }
      const double t = std::ldexp(e4m3(std::uint8_t(q)), -k);
      const double w = rne_e4m3_small(t);
      ASSERT_TRUE(e4m3(ideal) == w && std::signbit(e4m3(ideal)) == std::signbit(w))
          << "ideal q " << hex8(q) << " k " << k << ": got " << hex8(ideal) << " want " << w;
      if (E >= 1 && int(E) - k >= 1) {
        ASSERT_EQ(ideal, want) << "exact case differs";
      }
    }
}

// ---------------------------------------------------------------------------------------------
// The published kernel against the five-step loops.

TEST(Fp8FlowPublished, MatchesReferenceForQuantisedRandomData) {
  std::uint64_t seed = 1;
  for (const auto& s : shapes())
    for (int rep = 0; rep < adjusted_reps(2); ++rep) {
      const Rowwise in = realistic_input(s.cols, s.sizes, seed++);
      EXPECT_TRUE(same_outputs(in, in.run(Fp8FlowVariant::published), reference_published(in),
                               std::string("published/") + s.name));
    }
}

TEST(Fp8FlowPublished, MatchesReferenceForAdversarialCodes) {
  std::uint64_t seed = 100;
  for (const auto& s : shapes())
    for (int rep = 0; rep < adjusted_reps(4); ++rep) {
      const Rowwise in = adversarial_input(s.cols, s.sizes, seed++);
      EXPECT_TRUE(same_outputs(in, in.run(Fp8FlowVariant::published), reference_published(in),
                               std::string("published/") + s.name));
    }
}

// Counts what the adversarial inputs exercise, so the test cannot pass vacuously.
TEST(Fp8FlowPublished, AdversarialInputsHitEveryCorner) {
  const Rowwise in = adversarial_input(1024, {517, 1000, 0, 255, 128, 1}, 7);
  const Fp8FlowResult res = in.run(Fp8FlowVariant::published);
  std::int64_t ek0 = 0, ek1 = 0, subnormal = 0, neg_zero = 0, nan = 0, pad = 0, huge_k = 0;
  for_each_element(in, res, [&](auto, auto, auto, std::uint8_t q, float si, float S, std::uint8_t) {
    const int E = (q >> 3) & 0xF, k = exp_of(S) - exp_of(si);
    ek0 += E >= 1 && E - k == 0;
    ek1 += E >= 1 && E - k == 1;
    subnormal += E == 0 && (q & 7) != 0;
    neg_zero += q == 0x80;
    nan += is_nan_code(q);
    pad += si == 0.0f;
    huge_k += k >= 32;
  });
  std::printf("adversarial corners: E-k==0 %lld, E-k==1 %lld, subnormal %lld, -0 %lld, NaN %lld, pad %lld, k>=32 %lld\n",
              (long long)ek0, (long long)ek1, (long long)subnormal, (long long)neg_zero, (long long)nan,
              (long long)pad, (long long)huge_k);
  EXPECT_GT(ek0, 100);
  EXPECT_GT(ek1, 100);
  EXPECT_GT(subnormal, 100);
  EXPECT_GT(neg_zero, 10);
  EXPECT_GT(nan, 10);
  EXPECT_GT(pad, 100);
  EXPECT_GT(huge_k, 100);
}

TEST(Fp8FlowPublished, PadRowsDoNotRaiseTheTileScale) {
  Rowwise in = empty_input(128, {3});
  in.si = {0.125f, 0.0f, 0.0f};  // row 1: clean pad row; row 2: pad row with non-zero codes
  for (int c = 0; c < 128; ++c) in.q[std::size_t(c)] = 0x38, in.q[std::size_t(2 * 128 + c)] = 0x3B;
  const Fp8FlowResult res = in.run(Fp8FlowVariant::published);
  EXPECT_EQ(res.csi[0], 0.125f);
  const auto qt = res.layout.qt(res.qt.data(), 0);
  EXPECT_EQ(qt(5, 0), 0x38);
  EXPECT_EQ(qt(5, 1), 0x00);  // (d): zero codes stay 0
  EXPECT_EQ(qt(5, 2), 0x03);  // k = -3 + 127 = 124: (a) keeps M
  const Fp8FlowResult ideal = in.run(Fp8FlowVariant::ideal);
  EXPECT_EQ(ideal.layout.qt(ideal.qt.data(), 0)(5, 2), 0x00);  // q * 0 = +0
}

// "No double quantisation error": wherever E - k >= 1, q_t * S == q * si exactly.
TEST(Fp8FlowPublished, ExactWhereExponentStaysNormal) {
  std::int64_t checked = 0, corner = 0, total = 0;
  std::uint64_t seed = 200;
  for (const auto& s : shapes())
    for (int kind = 0; kind < 2; ++kind) {
      const Rowwise in = kind == 0 ? realistic_input(s.cols, s.sizes, seed++) : adversarial_input(s.cols, s.sizes, seed++);
      for (auto v : {Fp8FlowVariant::published, Fp8FlowVariant::ideal}) {
        const Fp8FlowResult res = in.run(v);
        for_each_element(in, res, [&](auto, auto r, auto c, std::uint8_t q, float si, float S, std::uint8_t qt) {
          ++total;
          const int E = (q >> 3) & 0xF, k = exp_of(S) - exp_of(si);
          if (E == 0 || E - k < 1 || is_nan_code(q)) return void(++corner);
          ++checked;
          ASSERT_EQ(e4m3(qt) * double(S), e4m3(q) * double(si))
              << name(v) << " row " << r << " col " << c << " q " << hex8(q) << " qt " << hex8(qt);
        });
      }
    }
  std::printf("E-k>=1 property: %lld of %lld elements checked exact (%lld corner elements skipped)\n",
              (long long)checked, (long long)total, (long long)corner);
  EXPECT_GT(checked, 100000);
}

// ---------------------------------------------------------------------------------------------
// The ideal variant.

TEST(Fp8FlowIdeal, ExactWhenRepresentableElseHalfUlp) {
  std::uint64_t seed = 300;
  std::int64_t exact = 0, rounded = 0;
  for (const auto& s : shapes())
    for (int kind = 0; kind < 2; ++kind) {
      const Rowwise in = kind == 0 ? realistic_input(s.cols, s.sizes, seed++) : adversarial_input(s.cols, s.sizes, seed++);
      const auto [e, r] = check_ideal(in, in.run(Fp8FlowVariant::ideal));
      exact += e, rounded += r;
    }
  std::printf("ideal: %lld elements exact, %lld correctly rounded\n", (long long)exact, (long long)rounded);
  EXPECT_GT(rounded, 1000);
}

TEST(Fp8FlowIdeal, SameScalesAsPublished) {
  const Rowwise in = adversarial_input(300, {130, 64, 1}, 11);
  const Fp8FlowResult a = in.run(Fp8FlowVariant::published), b = in.run(Fp8FlowVariant::ideal);
  EXPECT_EQ(a.csi, b.csi);
  EXPECT_EQ(a.sit, b.sit);
}

// ---------------------------------------------------------------------------------------------
// The naive variant: dequantise, then a fresh 128x1 TE quantisation per column within the group.

TEST(Fp8FlowNaive, MatchesTeStyleColumnwiseRequantisation) {
  std::uint64_t seed = 400;
  for (const auto& s : shapes())
    for (int kind = 0; kind < 2; ++kind) {
      const Rowwise in = kind == 0 ? realistic_input(s.cols, s.sizes, seed++) : adversarial_input(s.cols, s.sizes, seed++);
      const Fp8FlowResult res = in.run(Fp8FlowVariant::naive);
      const auto& L = res.layout;
      int failures = 0;
      for (std::int64_t g = 0; g < L.groups() && failures < 5; ++g) {
        const auto qt = L.qt(res.qt.data(), g);
        const auto csi = L.csi(res.csi.data(), g);
        const std::int64_t begin = L.row_begin[std::size_t(g)], mg = L.group_rows(g);
        for (std::int64_t i = 0; i * kB < mg; ++i)
          for (std::int64_t c = 0; c < in.cols; ++c) {
            const std::int64_t r0 = begin + i * kB, r1 = std::min(r0 + kB, begin + mg);
            std::vector<float> x;
            float amax = 0.0f;
            for (std::int64_t r = r0; r < r1; ++r) {
              // q * si exactly, then bf16 (exact here: these values are fp32-normal or zero)
              const double v = e4m3(in.q[std::size_t(r * in.cols + c)]) * in.si[std::size_t(r * in.cb + c / kB)];
              x.push_back(std::fabs(v) < 0x1p-126 && v != 0.0 ? bf16_round(float(v)) : float(v));
              amax = std::fmax(amax, std::fabs(x.back()));  // NaN dropped, as TE's fmaxf
            }
            const float scale = te_pow2_scale(amax);
            if (std::bit_cast<std::uint32_t>(csi(i, c)) != std::bit_cast<std::uint32_t>(1.0f / scale)) {
              ADD_FAILURE() << s.name << ": naive csi group " << g << " tile row " << i << " col " << c << ": got "
                            << hex32f(csi(i, c)) << " want " << hex32f(1.0f / scale) << " (amax " << amax << ")";
              if (++failures >= 5) break;
            }
            for (std::int64_t r = r0; r < r1; ++r) {
              const std::uint8_t want = te_cast(x[std::size_t(r - r0)], scale);
              if (qt(c, r - begin) != want) {
                ADD_FAILURE() << s.name << ": naive qt group " << g << " col " << c << " row " << r - begin << ": got "
                              << hex8(qt(c, r - begin)) << " want " << hex8(want) << " (x " << x[std::size_t(r - r0)]
                              << ")";
                if (++failures >= 5) break;
              }
            }
          }
      }
    }
}

// ---------------------------------------------------------------------------------------------
// All variants: determinism, strides, validation, empty groups.

TEST(Fp8FlowAll, SameBytesForAnyThreadCount) {
  const Rowwise in = adversarial_input(384, {1, 0, 200, 129, 0, 77, 300}, 21);
  const int saved = omp_get_max_threads();
  for (auto v : {Fp8FlowVariant::published, Fp8FlowVariant::ideal, Fp8FlowVariant::naive}) {
    omp_set_num_threads(1);
    const Fp8FlowResult one = in.run(v);
    for (int t : {2, 3, 5}) {
      omp_set_num_threads(t);
      const Fp8FlowResult many = in.run(v);
      EXPECT_EQ(one.qt, many.qt) << name(v) << " with " << t << " threads";
      EXPECT_TRUE(std::equal(one.csi.begin(), one.csi.end(), many.csi.begin(), many.csi.end(),
                             [](float a, float b) { return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b); }));
      EXPECT_EQ(one.sit, many.sit);
    }
  }
  omp_set_num_threads(saved);
}

TEST(Fp8FlowAll, StridedInputsGiveTheSameResult) {
  const Rowwise in = adversarial_input(300, {130, 64, 1}, 31);
  const std::int64_t qs = in.cols + 17, ss = in.cb + 3;
  std::vector<std::uint8_t> q(std::size_t(in.m * qs), 0xEE);
  std::vector<float> si(std::size_t(in.m * ss), 3.0f);  // junk in the gaps is never read
  for (std::int64_t r = 0; r < in.m; ++r) {
    std::copy_n(&in.q[std::size_t(r * in.cols)], in.cols, &q[std::size_t(r * qs)]);
    std::copy_n(&in.si[std::size_t(r * in.cb)], in.cb, &si[std::size_t(r * ss)]);
  }
  const View2D<const std::uint8_t> qv{q.data(), in.m, in.cols, qs, 1};
  const View2D<const float> sv{si.data(), in.m, in.cb, ss, 1};
  for (auto v : {Fp8FlowVariant::published, Fp8FlowVariant::ideal, Fp8FlowVariant::naive}) {
    const Fp8FlowResult a = in.run(v), b = octet::fp8flow_transpose(v, qv, sv, in.offs);
    EXPECT_EQ(a.qt, b.qt) << name(v);
  }
}

TEST(Fp8FlowAll, EmptyGroupsHaveEmptyOutputs) {
  const Rowwise in = realistic_input(256, {0, 130, 0, 1, 0}, 41);
  const Fp8FlowResult res = in.run(Fp8FlowVariant::published);
  const auto& L = res.layout;
  ASSERT_EQ(L.groups(), 5);
  for (std::int64_t g : {0, 2, 4}) {
    EXPECT_EQ(L.group_rows(g), 0);
    EXPECT_EQ(L.group_tile_rows(g), 0);
  }
  EXPECT_EQ(L.group_tile_rows(1), 2);
  EXPECT_EQ(L.group_tile_rows(3), 1);
  EXPECT_EQ(L.csi_size(), 3 * 256);
  EXPECT_EQ(L.sit_size(), 2 * 131);
}

void expect_invalid(const std::function<void()>& fn, const std::string& needle) {
  try {
    fn();
    ADD_FAILURE() << "no exception; expected one mentioning '" << needle << "'";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << "message: " << e.what();
  }
}

TEST(Fp8FlowAll, ValidationNamesTheArgument) {
  const Rowwise in = realistic_input(256, {100, 28}, 51);
  const auto run = [&](const Rowwise& r, std::vector<std::int32_t> offs) {
    octet::fp8flow_transpose(Fp8FlowVariant::published, r.qv(), r.siv(), offs);
  };
  expect_invalid([&] { run(in, {}); }, "offs is empty");
  expect_invalid([&] { run(in, {100, 50, 128}); }, "offs is not monotonic");
  expect_invalid([&] { run(in, {100}); }, "must equal the rows of q_m_c");
  expect_invalid([&] { run(in, {100, 129}); }, "beyond the grouped dimension");
  expect_invalid(
      [&] {
        octet::fp8flow_transpose(Fp8FlowVariant::published, in.qv(),
                                 View2D<const float>::row_major(in.si.data(), in.m - 1, in.cb), in.offs);
      },
      "si_m_cb rows");
  expect_invalid(
      [&] {
        octet::fp8flow_transpose(Fp8FlowVariant::published, in.qv(),
                                 View2D<const float>::row_major(in.si.data(), in.m, in.cb - 1), in.offs);
      },
      "si_m_cb cols");
  for (float bad : {1.5f, -0.5f, -0.0f, 0x1p-128f, std::numeric_limits<float>::infinity(),
                    std::numeric_limits<float>::quiet_NaN()}) {
    Rowwise b = in;
    b.si[3 * std::size_t(b.cb) + 1] = bad;
    for (auto v : {Fp8FlowVariant::published, Fp8FlowVariant::ideal, Fp8FlowVariant::naive})
      expect_invalid([&] { octet::fp8flow_transpose(v, b.qv(), b.siv(), b.offs); }, "si_m_cb[3, 1]");
  }
  for (float ok : {0.0f, 0x1p-127f, 0x1p127f}) {
    Rowwise b = in;
    b.si[3 * std::size_t(b.cb) + 1] = ok;
    EXPECT_NO_THROW(run(b, b.offs)) << ok;
  }
  const auto L = octet::fp8flow_layout(in.offs, in.m, in.cols);
  std::vector<std::uint8_t> qt(std::size_t(L.qt_size()));
  std::vector<float> csi(std::size_t(L.csi_size())), sit(std::size_t(L.sit_size()));
  const auto run_out = [&](std::size_t dq, std::size_t dc, std::size_t ds) {
    octet::fp8flow_transpose(Fp8FlowVariant::published, in.qv(), in.siv(), in.offs,
                             {std::span(qt).first(qt.size() - dq), std::span(csi).first(csi.size() - dc),
                              std::span(sit).first(sit.size() - ds)});
  };
  expect_invalid([&] { run_out(1, 0, 0); }, "out.qt size");
  expect_invalid([&] { run_out(0, 1, 0); }, "out.csi size");
  expect_invalid([&] { run_out(0, 0, 1); }, "out.sit size");
  EXPECT_NO_THROW(run_out(0, 0, 0));
  EXPECT_EQ(octet::parse_fp8flow_variant("ideal"), Fp8FlowVariant::ideal);
  EXPECT_FALSE(octet::parse_fp8flow_variant("exact").has_value());
}

// ---------------------------------------------------------------------------------------------
// The double-quantisation experiment (results.md §5): error of each columnwise copy against the
// rowwise dequantised values q * si it was made from, and against the bf16 source.

struct ErrorStats {
  std::int64_t n = 0, inexact = 0;
  double max_abs = 0, sig = 0, noise = 0;
  void add(double ref, double got) {
    ++n;
    inexact += ref != got;
    max_abs = std::max(max_abs, std::fabs(ref - got));
    sig += ref * ref;
    noise += (ref - got) * (ref - got);
  }
  double sqnr_db() const { return noise == 0 ? INFINITY : 10.0 * std::log10(sig / noise); }
};

// Row spreads: sigma = 2 (tokens 2^±2 apart on average; the tile scale sits far above most row
// scales) and sigma = 0.5 (close row scales).
class Fp8FlowReport : public ::testing::TestWithParam<double> {};

TEST_P(Fp8FlowReport, DoubleQuantReport) {
  const double sigma = GetParam();
  const std::vector<std::int64_t> sizes{517, 1000, 0, 255, 128, 300, 1, 1895};  // 4096 rows, 8 groups
  const Rowwise in = realistic_input(2048, sizes, 61, sigma);
  ErrorStats rowwise_vs_source;  // the rowwise copy itself vs the bf16 source
  for (std::int64_t r = 0; r < in.m; ++r)
    for (std::int64_t c = 0; c < in.cols; ++c)
      rowwise_vs_source.add(in.x[std::size_t(r * in.cols + c)],
                            e4m3(in.q[std::size_t(r * in.cols + c)]) * in.si[std::size_t(r * in.cb + c / kB)]);
  std::printf("data: %lld x %lld bf16, N(0,1) x 2^N(0,%.1f) per row x 2^N(0,0.5) per column, 0.1%% outliers x64; "
              "1x128 pow2 rowwise (TE); %zu groups\n",
              (long long)in.m, (long long)in.cols, sigma, sizes.size());
  std::printf("rowwise copy vs bf16 source: SQNR %.2f dB\n", rowwise_vs_source.sqnr_db());
  ErrorStats stats[3], vs_source[3];
  std::int64_t case_a = 0, case_b = 0;
  for (auto v : {Fp8FlowVariant::published, Fp8FlowVariant::ideal, Fp8FlowVariant::naive}) {
    const Fp8FlowResult res = in.run(v);
    for_each_element(in, res, [&](auto, auto r, auto c, std::uint8_t q, float si, float S, std::uint8_t qt) {
      const double want = e4m3(q) * double(si), got = e4m3(qt) * double(S);
      stats[int(v)].add(want, got);
      vs_source[int(v)].add(in.x[std::size_t(r * in.cols + c)], got);
      if (v == Fp8FlowVariant::published && want != got) {
        const int E = (q >> 3) & 0xF;
        (E == 0 ? case_b : case_a) += 1;
      }
    });
    std::printf("%-9s vs rowwise q*si: inexact %8lld / %lld (%.3f%%), max_abs %.4g, SQNR %6.2f dB | vs bf16 source: "
                "SQNR %.3f dB\n",
                std::string(name(v)).c_str(), (long long)stats[int(v)].inexact, (long long)stats[int(v)].n,
                100.0 * double(stats[int(v)].inexact) / double(stats[int(v)].n), stats[int(v)].max_abs,
                stats[int(v)].sqnr_db(), vs_source[int(v)].sqnr_db());
  }
  std::printf("published inexact by corner: (a) E-k<1 %lld, (b) subnormal input %lld\n", (long long)case_a,
              (long long)case_b);
  EXPECT_EQ(case_a + case_b, stats[0].inexact);
  // The ideal copy is never worse than the published one.
  EXPECT_LE(stats[1].inexact, stats[0].inexact);
  EXPECT_LE(stats[1].noise, stats[0].noise);
  EXPECT_LE(stats[1].max_abs, stats[0].max_abs);
}
INSTANTIATE_TEST_SUITE_P(RowSpread, Fp8FlowReport, ::testing::Values(2.0, 0.5),
                         [](const auto& info) { return info.param == 2.0 ? std::string("sigma2") : std::string("sigma0_5"); });

}  // namespace
