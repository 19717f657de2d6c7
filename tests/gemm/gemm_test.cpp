// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// Scaled (grouped) GEMMs (emulator/src/kernels/gemm.cpp): hand-computed tiny cases, the exact
// model against a Boost.Multiprecision rational dot product, every model against exact within
// its own a-priori bound, the tiled fp32 paths against a scalar transcription of their
// definitions (bit for bit), grouped against a loop of dense GEMMs, empty groups, and misuse.
#include <gtest/gtest.h>

#include <boost/multiprecision/cpp_int.hpp>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "octet/cast.hpp"
#include "octet/format.hpp"
#include "octet/gemm.hpp"
#include "octet/kernels/fp8_blockwise.hpp"
#include "octet/kernels/mx_quantize.hpp"
#include "octet/registry.hpp"
#include "octet/scale.hpp"

namespace octet {
namespace {

using boost::multiprecision::cpp_rational;

// ---------------------------------------------------------------------------------------------
// Operands

std::int64_t nblocks(std::int64_t extent, std::int64_t block) { return block == 0 ? 1 : (extent + block - 1) / block; }

// A stored operand: codes (row-major, or per-expert-style column-major for B) and stored scales.
struct Operand {
  const Recipe* r = nullptr;
  std::int64_t rows = 0, cols = 0, srows = 0, scols = 0;
  bool col_major = false;
  std::vector<std::uint8_t> data;
  std::vector<std::uint32_t> s32;
  std::vector<std::uint8_t> s8;
  ScaleBlock block;
  float global = 1.0f;

  ScaledOperand view() const {
    ScaledOperand o;
    o.recipe = r;
    o.data = col_major ? View2D<const std::uint8_t>::col_major(data.data(), rows, cols)
                       : View2D<const std::uint8_t>::row_major(data.data(), rows, cols);
    o.scales = s32.empty() ? ScaleView::of(View2D<const std::uint8_t>::row_major(s8.data(), srows, scols))
                           : ScaleView::of(View2D<const std::uint32_t>::row_major(s32.data(), srows, scols));
    o.block = block;
    o.global_decode = global;
    return o;
  }
};

std::uint8_t random_code(const Recipe& r, std::mt19937_64& rng) {
  const Format& f = format_of(element_format(r));
  const int n = 1 << (f.exponent_bits + f.mantissa_bits + 1);
  for (;;) {
    const auto c = std::uint8_t(rng() % std::uint64_t(n));
    if (std::isfinite(decode(f, c))) return c;
  }
}

std::uint32_t random_scale(const Recipe& r, std::mt19937_64& rng) {
  switch (storage(r)) {
    case ScaleStorage::E8m0: return 127u + std::uint32_t(rng() % 17) - 8u;
    case ScaleStorage::E4m3: return 0x20u + std::uint32_t(rng() % 0x48);
    default: {
      const float amax = float(std::exp(std::uniform_real_distribution<double>(-4.0, 4.0)(rng)));
      return scale_from_amax(r, amax).stored;
    }
  }
}

Operand random_operand(const Recipe& r, std::int64_t rows, std::int64_t cols, std::int64_t srows, std::int64_t scols,
                       ScaleBlock b, std::mt19937_64& rng, bool col_major = false) {
  Operand o;
  o.r = &r;
  o.rows = rows;
  o.cols = cols;
  o.srows = srows;
  o.scols = scols;
  o.block = b;
  o.col_major = col_major;
  o.data.resize(std::size_t(rows * cols));
  for (auto& c : o.data) c = random_code(r, rng);
  const bool bytes = storage(r) == ScaleStorage::E8m0 || storage(r) == ScaleStorage::E4m3;
  for (std::int64_t i = 0; i < srows * scols; ++i) {
    const std::uint32_t s = random_scale(r, rng);
    if (bytes) o.s8.push_back(std::uint8_t(s)); else o.s32.push_back(s);
  }
  if (storage(r) == ScaleStorage::E4m3) o.global = 0x1.8p-7f;  // NVFP4 per-tensor decode
  return o;
}
Operand lhs(const Recipe& r, std::int64_t m, std::int64_t k, ScaleBlock b, std::mt19937_64& rng) {
  return random_operand(r, m, k, nblocks(m, b.outer), b.k == 0 ? 1 : k / b.k, b, rng);
}
Operand rhs(const Recipe& r, std::int64_t k, std::int64_t n, ScaleBlock b, std::mt19937_64& rng, bool col_major = false) {
  return random_operand(r, k, n, b.k == 0 ? 1 : k / b.k, nblocks(n, b.outer), b, rng, col_major);
}

// The scale recipes of the issue, one pair (A granularity, B granularity) each.
struct Case {
  const char* name;
  const char* recipe;
  ScaleBlock a, b;
};
const std::vector<Case> kCases = {
    {"tensorwise_te_current", "te_current", ScaleBlock::tensorwise(), ScaleBlock::tensorwise()},
    {"tensorwise_e5m2", "te_current_e5m2", ScaleBlock::tensorwise(), ScaleBlock::tensorwise()},
    {"rowwise_torchao_pow2", "torchao_fp8_rowwise_pow2", ScaleBlock::rowwise(), ScaleBlock::rowwise()},
    {"rowwise_torchao", "torchao_fp8_rowwise", ScaleBlock::rowwise(), ScaleBlock::rowwise()},
    {"blockwise_1x128_128x128", "torchao_blockwise", ScaleBlock::block_1x128(), ScaleBlock::block_128x128()},
    {"blockwise_1x128_128x1", "deepgemm", ScaleBlock::block_1x128(), ScaleBlock::block_1x128()},
    {"mx_1x32", "torchao_mx_rceil", ScaleBlock::mx_1x32(), ScaleBlock::mx_1x32()},
    {"nvfp4_1x16", "nvfp4", ScaleBlock::nvfp4_1x16(), ScaleBlock::nvfp4_1x16()},
};

std::vector<float> random_c(std::int64_t n, std::mt19937_64& rng) {
  std::vector<float> c(static_cast<std::size_t>(n));
  for (auto& x : c) x = float(std::uniform_real_distribution<double>(-4.0, 4.0)(rng));
  return c;
}

// ---------------------------------------------------------------------------------------------
// Tiny hand-computed cases (e4m3fn codes: 1 = 0x38, 2 = 0x40, 3 = 0x44, 0.5 = 0x30, 4 = 0x48,
// 16 = 0x58, 8 = 0x50, 1.5 = 0x3C, 0.875 = 0x36, 2^-9 = 0x01; sign 0x80).

TEST(GemmTiny, TensorwiseAllModelsHandComputed) {
  // A = [[1, 2, 3], [-1, 0.5, 4]] · 0.5;  B = [[1, 0], [2, 1], [0.5, -2]] · 4.
  // A·B = [[6.5, -4], [2, -7.5]], times 2 -> [[13, -8], [4, -15]]: representable in bf16.
  const std::vector<std::uint8_t> a = {0x38, 0x40, 0x44, 0xB8, 0x30, 0x48};
  const std::vector<std::uint8_t> b = {0x38, 0x00, 0x40, 0x38, 0x30, 0xC0};
  const std::vector<std::uint32_t> sa = {0x3F000000u}, sb = {0x40800000u};  // decode 0.5, 4 (te_current scale_inv)
  const Recipe& r = recipe("te_current");
  const ScaledOperand A{&r, View2D<const std::uint8_t>::row_major(a.data(), 2, 3),
                        ScaleView::of(View2D<const std::uint32_t>::row_major(sa.data(), 1, 1)), ScaleBlock::tensorwise()};
  const ScaledOperand B{&r, View2D<const std::uint8_t>::row_major(b.data(), 3, 2),
                        ScaleView::of(View2D<const std::uint32_t>::row_major(sb.data(), 1, 1)), ScaleBlock::tensorwise()};
  for (GemmModel m : {GemmModel::exact, GemmModel::fp32_seq, GemmModel::fp32_promote, GemmModel::hopper_fast_accum})
    for (OutDtype d : {OutDtype::bf16, OutDtype::fp32}) {
      const GemmOutput o = scaled_mm(A, B, GemmConfig{.model = m, .out = d});
      EXPECT_EQ(o.to_double(), (std::vector<double>{13, -8, 4, -15})) << name(m) << " " << name(d);
    }
  const GemmOutput ob = scaled_mm(A, B, GemmConfig{.model = GemmModel::exact, .out = OutDtype::bf16});
  EXPECT_EQ(ob.bf16_bits(), (std::vector<std::uint16_t>{0x4150, 0xC100, 0x4080, 0xC170}));  // 13, -8, 4, -15
}

TEST(GemmTiny, ExactRoundsOnceFp32SeqRoundsTwice) {
  // products 16·16 = 256, 1·1 = 1, 2^-9·2^-9 = 2^-18: exact 257 + 2^-18.
  // exact -> bf16: above the tie 257 -> 258. fp32_seq: fl32 drops 2^-18 -> 257, a bf16 tie -> 256.
  const std::vector<std::uint8_t> a = {0x58, 0x38, 0x01}, b = {0x58, 0x38, 0x01};
  const std::vector<std::uint32_t> one = {0x3F800000u};
  const Recipe& r = recipe("te_current");
  const ScaledOperand A{&r, View2D<const std::uint8_t>::row_major(a.data(), 1, 3),
                        ScaleView::of(View2D<const std::uint32_t>::row_major(one.data(), 1, 1)), ScaleBlock::tensorwise()};
  const ScaledOperand B{&r, View2D<const std::uint8_t>::row_major(b.data(), 3, 1),
                        ScaleView::of(View2D<const std::uint32_t>::row_major(one.data(), 1, 1)), ScaleBlock::tensorwise()};
  EXPECT_EQ(scaled_mm(A, B, {.model = GemmModel::exact, .out = OutDtype::bf16}).at(0), 258.0);
  EXPECT_EQ(scaled_mm(A, B, {.model = GemmModel::exact, .out = OutDtype::fp32}).at(0), 257.0);
  EXPECT_EQ(scaled_mm(A, B, {.model = GemmModel::exact, .out = OutDtype::fp64}).at(0), 257.0 + std::ldexp(1.0, -18));
  EXPECT_EQ(scaled_mm(A, B, {.model = GemmModel::fp32_seq, .out = OutDtype::bf16}).at(0), 256.0);
  // With C = -257 (DeepGEMM D = C + A·B): exact keeps 2^-18.
  const std::vector<float> c = {-257.0f};
  EXPECT_EQ(scaled_mm(A, B, {.model = GemmModel::exact, .out = OutDtype::fp32}, c).at(0), std::ldexp(1.0, -18));
  EXPECT_EQ(scaled_mm(A, B, {.model = GemmModel::fp32_seq, .out = OutDtype::fp32}, c).at(0), 0.0);
}

TEST(GemmTiny, HopperTruncatesToMantissaBits) {
  // products 8·1 = 8 and 1·0.875: with 4 bits aligned to 2^3 the grid is 1, so 0.875 -> 0.
  const std::vector<std::uint8_t> a = {0x50, 0x38}, b = {0x38, 0x36};
  const std::vector<std::uint32_t> one = {0x3F800000u};
  const Recipe& r = recipe("te_current");
  const ScaledOperand A{&r, View2D<const std::uint8_t>::row_major(a.data(), 1, 2),
                        ScaleView::of(View2D<const std::uint32_t>::row_major(one.data(), 1, 1)), ScaleBlock::tensorwise()};
  const ScaledOperand B{&r, View2D<const std::uint8_t>::row_major(b.data(), 2, 1),
                        ScaleView::of(View2D<const std::uint32_t>::row_major(one.data(), 1, 1)), ScaleBlock::tensorwise()};
  GemmConfig cfg{.model = GemmModel::hopper_fast_accum, .out = OutDtype::fp32};
  cfg.hopper.mantissa_bits = 4;
  EXPECT_EQ(scaled_mm(A, B, cfg).at(0), 8.0);
  cfg.hopper.group = 1;  // the accumulator truncates too: 8 + T(0.875 at 2^3) = 8
  EXPECT_EQ(scaled_mm(A, B, cfg).at(0), 8.0);
  cfg.hopper.mantissa_bits = 7;  // grid 2^-3: 0.875 survives
  EXPECT_EQ(scaled_mm(A, B, cfg).at(0), 8.875);
  cfg.hopper.mantissa_bits = 14;
  EXPECT_EQ(scaled_mm(A, B, cfg).at(0), 8.875);
  EXPECT_EQ(scaled_mm(A, B, {.model = GemmModel::exact, .out = OutDtype::fp32}).at(0), 8.875);
}

TEST(GemmTiny, NanCodePropagates) {
  const std::vector<std::uint8_t> a = {0x7F, 0x38}, b = {0x38, 0x38};  // 0x7F: e4m3fn NaN
  const std::vector<std::uint32_t> one = {0x3F800000u};
  const Recipe& r = recipe("te_current");
  const ScaledOperand A{&r, View2D<const std::uint8_t>::row_major(a.data(), 1, 2),
                        ScaleView::of(View2D<const std::uint32_t>::row_major(one.data(), 1, 1)), ScaleBlock::tensorwise()};
  const ScaledOperand B{&r, View2D<const std::uint8_t>::row_major(b.data(), 2, 1),
                        ScaleView::of(View2D<const std::uint32_t>::row_major(one.data(), 1, 1)), ScaleBlock::tensorwise()};
  for (GemmModel m : {GemmModel::exact, GemmModel::fp32_seq, GemmModel::fp32_promote, GemmModel::hopper_fast_accum})
    EXPECT_TRUE(std::isnan(scaled_mm(A, B, {.model = m, .out = OutDtype::bf16}).at(0))) << name(m);
}

// ---------------------------------------------------------------------------------------------
// exact against a rational dot product

cpp_rational rational_dot(const std::vector<double>& a, const std::vector<double>& b, std::int64_t i, std::int64_t j,
                          std::int64_t k, std::int64_t n, double c) {
  cpp_rational s = c;
  for (std::int64_t q = 0; q < k; ++q) s += cpp_rational(a[std::size_t(i * k + q)]) * cpp_rational(b[std::size_t(q * n + j)]);
  return s;
}

// y is the RNE rounding of r among the neighbours lo < y < hi of its format.
bool is_rne(const cpp_rational& r, double y, double lo, double hi, bool y_even) {
  const cpp_rational dy = abs(r - cpp_rational(y));
  const cpp_rational dl = abs(r - cpp_rational(lo)), dh = abs(r - cpp_rational(hi));
  if (dy > dl || dy > dh) return false;
  if ((dy == dl || dy == dh) && !y_even) return false;
  return true;
}
double bf16_step(double y, int dir) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(float(y)) >> 16;
  const bool neg = bits & 0x8000u;
  std::uint32_t mag = bits & 0x7FFFu;
  if (mag == 0 && dir < 0) return -bf16_to_float(0x0001);
  if (mag == 0) return bf16_to_float(0x0001);
  mag = ((dir > 0) != neg) ? mag + 1 : mag - 1;
  return bf16_to_float(std::uint16_t((neg ? 0x8000u : 0u) | mag));
}

TEST(GemmExact, MatchesRationalDotProduct) {
  std::mt19937_64 rng(20260501);
  const std::int64_t m = 5, k = 256, n = 7;
  for (const Case& cs : kCases) {
    const Recipe& r = recipe(cs.recipe);
    const Operand a = lhs(r, m, k, cs.a, rng), b = rhs(r, k, n, cs.b, rng);
    const std::vector<float> c = random_c(m * n, rng);
    const std::vector<double> ad = dequantize_lhs(a.view()), bd = dequantize_rhs(b.view());
    const GemmOutput y64 = scaled_mm(a.view(), b.view(), {.model = GemmModel::exact, .out = OutDtype::fp64}, c);
    const GemmOutput y16 = scaled_mm(a.view(), b.view(), {.model = GemmModel::exact, .out = OutDtype::bf16}, c);
    const GemmOutput y32 = scaled_mm(a.view(), b.view(), {.model = GemmModel::exact, .out = OutDtype::fp32}, c);
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        const cpp_rational ex = rational_dot(ad, bd, i, j, k, n, c[std::size_t(i * n + j)]);
        const double v = y64.at(i * n + j);
        EXPECT_TRUE(is_rne(ex, v, std::nextafter(v, -INFINITY), std::nextafter(v, INFINITY),
                           (std::bit_cast<std::uint64_t>(v) & 1) == 0))
            << cs.name << " fp64 (" << i << ", " << j << ") = " << v;
        const double f = y32.at(i * n + j);
        EXPECT_TRUE(is_rne(ex, f, std::nextafter(float(f), -INFINITY), std::nextafter(float(f), INFINITY),
                           (std::bit_cast<std::uint32_t>(float(f)) & 1) == 0))
            << cs.name << " fp32 (" << i << ", " << j << ") = " << f;
        const double h = y16.at(i * n + j);
        EXPECT_TRUE(is_rne(ex, h, bf16_step(h, -1), bf16_step(h, +1), ((std::bit_cast<std::uint32_t>(float(h)) >> 16) & 1) == 0))
            << cs.name << " bf16 (" << i << ", " << j << ") = " << h;
      }
  }
}

TEST(GemmExact, WideExponentRangeUsesBigAccumulator) {
  // 1x32 e8m0 scales from 2^-127 to 2^127 on alternating blocks: the fixed point spans > 500 bits.
  const Recipe& r = recipe("torchao_mx_rceil");
  std::mt19937_64 rng(7);
  Operand a = lhs(r, 2, 128, ScaleBlock::mx_1x32(), rng), b = rhs(r, 128, 3, ScaleBlock::mx_1x32(), rng);
  for (std::size_t i = 0; i < a.s8.size(); ++i) a.s8[i] = i % 2 ? 0 : 254;
  const std::vector<double> ad = dequantize_lhs(a.view()), bd = dequantize_rhs(b.view());
  const GemmOutput y = scaled_mm(a.view(), b.view(), {.model = GemmModel::exact, .out = OutDtype::fp64});
  for (std::int64_t i = 0; i < 2; ++i)
    for (std::int64_t j = 0; j < 3; ++j) {
      const cpp_rational ex = rational_dot(ad, bd, i, j, 128, 3, 0.0);
      const double v = y.at(i * 3 + j);
      EXPECT_TRUE(is_rne(ex, v, std::nextafter(v, -INFINITY), std::nextafter(v, INFINITY),
                         (std::bit_cast<std::uint64_t>(v) & 1) == 0));
    }
}

// ---------------------------------------------------------------------------------------------
// Every model against exact, within its own a-priori bound

std::vector<GemmConfig> approx_configs(OutDtype d) {
  std::vector<GemmConfig> v = {{.model = GemmModel::fp32_seq, .out = d}, {.model = GemmModel::fp32_promote, .out = d},
                               {.model = GemmModel::hopper_fast_accum, .out = d}};
  GemmConfig promoted{.model = GemmModel::hopper_fast_accum, .out = d};
  promoted.hopper.promote_interval = 128;
  v.push_back(promoted);
  return v;
}

TEST(GemmBound, EveryModelWithinItsBound) {
  std::mt19937_64 rng(99);
  const std::int64_t m = 9, k = 1024, n = 11;
  for (const Case& cs : kCases) {
    const Recipe& r = recipe(cs.recipe);
    const Operand a = lhs(r, m, k, cs.a, rng), b = rhs(r, k, n, cs.b, rng);
    const std::vector<float> c = random_c(m * n, rng);
    const std::vector<double> y = scaled_mm(a.view(), b.view(), {.model = GemmModel::exact, .out = OutDtype::fp64}, c).to_double();
    const std::vector<double> s = abs_product_sum(a.view(), b.view(), c);
    const std::int64_t seg = scale_segment(cs.a, cs.b, k);
    double fa = 0, fb = 0, fc = 0;
    for (double x : dequantize_lhs(a.view())) fa += x * x;
    for (double x : dequantize_rhs(b.view())) fb += x * x;
    for (float x : c) fc += double(x) * x;
    for (OutDtype d : {OutDtype::bf16, OutDtype::fp32}) {
      std::vector<GemmConfig> cfgs = approx_configs(d);
      cfgs.push_back({.model = GemmModel::exact, .out = d});
      for (const GemmConfig& cfg : cfgs) {
        const GemmOutput o = scaled_mm(a.view(), b.view(), cfg, c);
        const ErrorBound eb = gemm_error_bound(cfg, k, seg);
        double err2 = 0;
        for (std::int64_t i = 0; i < m * n; ++i) {
          const double e = std::abs(o.at(i) - y[std::size_t(i)]);
          err2 += e * e;
          EXPECT_LE(e, eb.rel * s[std::size_t(i)] + eb.abs + std::ldexp(std::abs(y[std::size_t(i)]), -52))
              << cs.name << " " << name(cfg.model) << " promote " << cfg.hopper.promote_interval << " " << name(d)
              << " at " << i << ": got " << o.at(i) << " want " << y[std::size_t(i)] << " S " << s[std::size_t(i)];
        }
        EXPECT_LE(std::sqrt(err2), normwise_bound(eb, std::sqrt(fa), std::sqrt(fb), std::sqrt(fc), m * n) * (1 + 1e-12));
        const double q = sqnr_db(y, o.to_double());
        std::printf("%-26s %-18s promote=%-4lld out=%-4s sqnr_db=%7.2f bound_rel=%.3g\n", cs.name,
                    std::string(name(cfg.model)).c_str(), (long long)cfg.hopper.promote_interval,
                    std::string(name(d)).c_str(), q, eb.rel);
        if (cfg.model != GemmModel::hopper_fast_accum) {
          EXPECT_GT(q, d == OutDtype::bf16 ? 40.0 : 100.0);
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The tiled fp32 paths equal a scalar transcription of their definition, bit for bit

std::vector<double> fp32_reference(const Operand& a, const Operand& b, const GemmConfig& cfg, const std::vector<float>& c) {
  const ScaledOperand av = a.view(), bv = b.view();
  const std::int64_t m = a.rows, k = a.cols, n = b.cols;
  const Format& fa = format_of(element_format(*a.r));
  const Format& fb = format_of(element_format(*b.r));
  const std::int64_t seg = scale_segment(a.block, b.block, k);
  const std::int64_t nc = cfg.model == GemmModel::fp32_promote ? cfg.promote_chunk : 0;
  std::vector<double> out(std::size_t(m * n));
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      float tot = 0.0f, part = 0.0f;
      for (std::int64_t q = 0; q < k; ++q) {
        part = part + float(decode(fa, av.data(i, q))) * float(decode(fb, bv.data(q, j)));
        const bool end = q + 1 == k || (q + 1) % seg == 0 || (nc > 0 && (q + 1) % nc == 0);
        if (end) {
          const std::int64_t ab = a.block.k == 0 ? 0 : q / a.block.k, bb = b.block.k == 0 ? 0 : q / b.block.k;
          const float sa = scale_from_stored(*a.r, av.scales(a.block.outer == 0 ? 0 : i / a.block.outer, ab)).decode;
          const float sb = scale_from_stored(*b.r, bv.scales(bb, b.block.outer == 0 ? 0 : j / b.block.outer)).decode;
          tot = std::fma(part, sa * sb, tot);
          part = 0.0f;
        }
      }
      if (a.global != 1.0f || b.global != 1.0f) tot = tot * (a.global * b.global);
      if (!c.empty()) tot = tot + c[std::size_t(i * n + j)];
      out[std::size_t(i * n + j)] =
          cfg.out == OutDtype::fp32 ? tot : bf16_to_float(std::uint16_t(encode(bf16_format, CastSpec{.overflow = Overflow::Ieee}, tot)));
    }
  return out;
}

TEST(GemmFp32, TiledEqualsScalarDefinitionBitForBit) {
  std::mt19937_64 rng(5);
  const std::int64_t m = 13, k = 384, n = 37;  // edges in both tile dimensions
  for (const Case& cs : kCases) {
    const Recipe& r = recipe(cs.recipe);
    const Operand a = lhs(r, m, k, cs.a, rng), b = rhs(r, k, n, cs.b, rng, /*col_major=*/true);
    const std::vector<float> c = random_c(m * n, rng);
    for (OutDtype d : {OutDtype::bf16, OutDtype::fp32})
      for (GemmModel model : {GemmModel::fp32_seq, GemmModel::fp32_promote}) {
        const GemmConfig cfg{.model = model, .out = d};
        for (bool with_c : {false, true}) {
          const std::vector<float> cc = with_c ? c : std::vector<float>{};
          const GemmOutput o = scaled_mm(a.view(), b.view(), cfg, cc);
          const std::vector<double> want = fp32_reference(a, b, cfg, cc);
          for (std::int64_t i = 0; i < m * n; ++i)
            ASSERT_EQ(std::bit_cast<std::uint64_t>(o.at(i)), std::bit_cast<std::uint64_t>(want[std::size_t(i)]))
                << cs.name << " " << name(model) << " " << name(d) << " at (" << i / n << ", " << i % n << "): got "
                << o.at(i) << " want " << want[std::size_t(i)];
        }
      }
  }
}

// ---------------------------------------------------------------------------------------------
// Grouped GEMMs against a loop of dense GEMMs

TEST(GemmGrouped, TwoDThreeDMatchesDenseLoopWithEmptyGroups) {
  std::mt19937_64 rng(11);
  const std::int64_t m = 70, k = 256, n = 19, e = 6;
  const std::vector<std::int32_t> offs = {0, 16, 16, 40, 64, 64};  // empty first, middle, last; rows 64..69 unused
  for (const Case& cs : kCases) {
    if (cs.a.outer > 1) continue;
    const Recipe& r = recipe(cs.recipe);
    const Operand a = lhs(r, m, k, cs.a, rng);
    // B (E, K, N) per-expert column-major, scales (E, K/k, N/outer) row-major per expert.
    std::vector<Operand> experts;
    for (std::int64_t g = 0; g < e; ++g) experts.push_back(rhs(r, k, n, cs.b, rng, true));
    std::vector<std::uint8_t> bdata;
    std::vector<std::uint32_t> s32;
    std::vector<std::uint8_t> s8;
    for (const Operand& x : experts) {
      bdata.insert(bdata.end(), x.data.begin(), x.data.end());
      s32.insert(s32.end(), x.s32.begin(), x.s32.end());
      s8.insert(s8.end(), x.s8.begin(), x.s8.end());
    }
    const Operand& b0 = experts[0];
    ScaledOperand3D b3{&r, View3D<const std::uint8_t>::col_major_per_expert(bdata.data(), e, k, n), {}, cs.b, b0.global};
    b3.scales.first = s32.empty() ? ScaleView::of(View2D<const std::uint8_t>::row_major(s8.data(), b0.srows, b0.scols))
                                  : ScaleView::of(View2D<const std::uint32_t>::row_major(s32.data(), b0.srows, b0.scols));
    b3.scales.experts = e;
    b3.scales.expert_stride = b0.srows * b0.scols;
    const std::vector<float> c = random_c(m * n, rng);
    for (const GemmConfig& cfg : {GemmConfig{.model = GemmModel::exact, .out = OutDtype::bf16},
                                  GemmConfig{.model = GemmModel::fp32_promote, .out = OutDtype::fp32}}) {
      const GemmOutput o = scaled_grouped_mm_2d3d(a.view(), b3, offs, cfg, c);
      ASSERT_EQ(o.rows, m);
      for (std::int64_t g = 0; g < e; ++g) {
        const std::int64_t s = g == 0 ? 0 : offs[std::size_t(g - 1)], t = offs[std::size_t(g)];
        if (s == t) continue;
        ScaledOperand ag = a.view();
        ag.data.data += s * k;
        ag.data.rows = t - s;
        if (cs.a.outer == 1) {
          if (ag.scales.words) {
            ag.scales.words += s * ag.scales.row_stride;
          } else {
            ag.scales.bytes += s * ag.scales.row_stride;
          }
          ag.scales.rows = t - s;
        }
        const std::vector<float> cg(c.begin() + s * n, c.begin() + t * n);
        const GemmOutput d = scaled_mm(ag, experts[std::size_t(g)].view(), cfg, cg);
        for (std::int64_t i = 0; i < (t - s) * n; ++i) ASSERT_EQ(o.at(s * n + i), d.at(i)) << cs.name << " group " << g;
      }
      for (std::int64_t i = 64 * n; i < m * n; ++i) ASSERT_EQ(o.at(i), 0.0) << "row past offs[-1]";
    }
  }
}

TEST(GemmGrouped, TwoDTwoDMatchesDenseLoopEmptyGroupIsZero) {
  std::mt19937_64 rng(13);
  const std::int64_t m = 10, n = 9;
  const std::vector<std::int32_t> offs = {128, 128, 384, 512};  // group 1 empty
  const std::int64_t k = 512, e = 4;
  struct W {
    const char* name;
    const char* recipe;
    ScaleBlock blk;
  };
  for (const W& w : {W{"per_group_rowwise", "torchao_fp8_rowwise_pow2", ScaleBlock::rowwise()},
                     W{"blockwise_1x128_128x1", "torchao_blockwise", ScaleBlock::block_1x128()},
                     W{"mx_32x1", "torchao_mx_rceil", ScaleBlock::mx_1x32()}}) {
    const Recipe& r = recipe(w.recipe);
    const std::int64_t sk = w.blk.k == 0 ? e : k / w.blk.k;
    const Operand a = random_operand(r, m, k, m, sk, w.blk, rng);
    const Operand b = random_operand(r, k, n, sk, n, w.blk, rng, true);
    for (const GemmConfig& cfg : {GemmConfig{.model = GemmModel::exact, .out = OutDtype::bf16},
                                  GemmConfig{.model = GemmModel::fp32_seq, .out = OutDtype::fp32}}) {
      const GemmOutput o = scaled_grouped_mm_2d2d(a.view(), b.view(), offs, cfg);
      ASSERT_EQ(o.batches, e);
      for (std::int64_t g = 0; g < e; ++g) {
        const std::int64_t s = g == 0 ? 0 : offs[std::size_t(g - 1)], t = offs[std::size_t(g)];
        if (s == t) {
          for (std::int64_t i = 0; i < m * n; ++i) ASSERT_EQ(o.at(g * m * n + i), 0.0) << w.name << " empty group";
          continue;
        }
        // Dense operands of the group: columns / rows [s, t) and their scale columns / rows.
        ScaledOperand ag = a.view(), bg = b.view();
        ag.data.data += s * ag.data.col_stride;
        ag.data.cols = t - s;
        bg.data.data += s * bg.data.row_stride;
        bg.data.rows = t - s;
        const std::int64_t c0 = w.blk.k == 0 ? g : s / w.blk.k, cn = w.blk.k == 0 ? 1 : (t - s) / w.blk.k;
        if (ag.scales.words) { ag.scales.words += c0; bg.scales.words += c0 * n; } else { ag.scales.bytes += c0; bg.scales.bytes += c0 * n; }
        ag.scales.cols = cn;
        bg.scales.rows = cn;
        const GemmOutput d = scaled_mm(ag, bg, cfg);
        for (std::int64_t i = 0; i < m * n; ++i) ASSERT_EQ(o.at(g * m * n + i), d.at(i)) << w.name << " group " << g;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Operands from octet's quantisers (the stored bytes and scales the peers hand to the GEMM)

std::vector<float> randn(std::int64_t n, std::mt19937_64& rng) {
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = d(rng);
  return v;
}

TEST(GemmQuantised, BlockwiseForward2d3dFromQuantisers) {
  // torchao blockwise MoE forward: A 1x128 (act_quant_lhs), B (E, K, N) per-expert column-major
  // 128x128 (weight_quant_grouped_transposed_rhs); offs over M with an empty group.
  std::mt19937_64 rng(17);
  const std::int64_t m = 200, k = 256, n = 256, e = 3;
  const std::vector<float> x = randn(m * k, rng), w = randn(e * k * n, rng);
  const Recipe& r = recipe("torchao_blockwise");
  const Fp8Quantized qa = fp8_blockwise_act_quant_lhs<float>(View2D<const float>::row_major(x.data(), m, k), r);
  const Fp8Quantized qb =
      fp8_blockwise_weight_quant_grouped_transposed_rhs<float>(View3D<const float>::col_major_per_expert(w.data(), e, k, n), r);
  const auto& sl = qa.scale_layout;
  const ScaledOperand A{&r, View2D<const std::uint8_t>::row_major(qa.data.data(), m, k),
                        ScaleView::of(View2D<const std::uint32_t>{qa.scales.data(), sl.shape[0], sl.shape[1], sl.strides[0], sl.strides[1]}),
                        ScaleBlock::block_1x128()};
  const auto& bl = qb.data_layout;
  const auto& bs = qb.scale_layout;
  ScaledOperand3D B{&r, View3D<const std::uint8_t>{qb.data.data(), e, k, n, bl.strides[0], bl.strides[1], bl.strides[2]}, {},
                    ScaleBlock::block_128x128()};
  B.scales.first = ScaleView::of(View2D<const std::uint32_t>{qb.scales.data(), bs.shape[1], bs.shape[2], bs.strides[1], bs.strides[2]});
  B.scales.experts = e;
  B.scales.expert_stride = bs.strides[0];
  const std::vector<std::int32_t> offs = {80, 80, 200};
  // The unquantised reference in double.
  std::vector<double> ref(std::size_t(m * n), 0.0);
  for (std::int64_t g = 0, s = 0; g < e; s = offs[std::size_t(g)], ++g)
    for (std::int64_t i = s; i < offs[std::size_t(g)]; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (std::int64_t q = 0; q < k; ++q) acc += double(x[std::size_t(i * k + q)]) * w[std::size_t(g * k * n + j * k + q)];
        ref[std::size_t(i * n + j)] = acc;
      }
  const GemmOutput ex = scaled_grouped_mm_2d3d(A, B, offs, {.model = GemmModel::exact, .out = OutDtype::bf16});
  const GemmOutput pr = scaled_grouped_mm_2d3d(A, B, offs, {.model = GemmModel::fp32_promote, .out = OutDtype::bf16});
  GemmConfig hc{.model = GemmModel::hopper_fast_accum, .out = OutDtype::bf16};
  hc.hopper.promote_interval = 128;
  const GemmOutput ho = scaled_grouped_mm_2d3d(A, B, offs, hc);
  const double q_ex = sqnr_db(ref, ex.to_double()), q_pr = sqnr_db(ref, pr.to_double()), q_ho = sqnr_db(ref, ho.to_double());
  std::printf("blockwise fwd vs fp64 unquantised: exact %.2f dB, fp32_promote %.2f dB, hopper(128) %.2f dB; "
              "calc_diff(exact, promote) %.3g; max ulp %lld\n",
              q_ex, q_pr, q_ho, calc_diff(ex.to_double(), pr.to_double()), (long long)max_ulp_distance(ex, pr));
  EXPECT_GT(q_ex, 27.0);  // torchao's fp8 grouped GEMM threshold (kernels.md §11)
  EXPECT_GT(q_pr, 27.0);
  EXPECT_LT(calc_diff(ex.to_double(), pr.to_double()), 1e-3);  // DeepGEMM's FP8xFP8 threshold
}

TEST(GemmQuantised, MxDenseFromQuantisers) {
  // A 1x32 (mx_quantize_dim0), B (K, N) 32x1 along K (mx_quantize_dim1 of the (K, N) matrix).
  std::mt19937_64 rng(19);
  const std::int64_t m = 64, k = 256, n = 96;
  const std::vector<float> x = randn(m * k, rng), w = randn(k * n, rng);
  const Recipe& r = recipe("torchao_mx_rceil");
  const MxOutput2D qa = mx_quantize_dim0(r, View2D<const float>::row_major(x.data(), m, k));
  const MxOutput2D qb = mx_quantize_dim1(r, View2D<const float>::row_major(w.data(), k, n));
  const ScaledOperand A{&r, qa.data_view(), ScaleView::of(qa.scale_view()), ScaleBlock::mx_1x32()};
  // dim1 scales are (N, K/32): B's (K/32, N) is their transpose.
  const View2D<const std::uint8_t> sbt = qb.scale_view();
  const ScaledOperand B{&r, qb.data_view(),
                        ScaleView::of(View2D<const std::uint8_t>{sbt.data, sbt.cols, sbt.rows, sbt.col_stride, sbt.row_stride}),
                        ScaleBlock::mx_1x32()};
  std::vector<double> ref(std::size_t(m * n), 0.0);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t q = 0; q < k; ++q) ref[std::size_t(i * n + j)] += double(x[std::size_t(i * k + q)]) * w[std::size_t(q * n + j)];
  for (GemmModel model : {GemmModel::exact, GemmModel::fp32_seq, GemmModel::fp32_promote, GemmModel::hopper_fast_accum}) {
    const GemmOutput o = scaled_mm(A, B, {.model = model, .out = OutDtype::bf16});
    const double q = sqnr_db(ref, o.to_double());
    std::printf("mx dense vs fp64 unquantised: %-18s %.2f dB\n", std::string(name(model)).c_str(), q);
    EXPECT_GT(q, 27.0) << name(model);  // torchao MXFP8 grouped GEMM threshold
  }
}

// ---------------------------------------------------------------------------------------------
// Misuse

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(GemmMisuse, ClearErrors) {
  std::mt19937_64 rng(3);
  const Recipe& r = recipe("torchao_blockwise");
  const Operand a = lhs(r, 4, 256, ScaleBlock::block_1x128(), rng), b = rhs(r, 256, 8, ScaleBlock::block_128x128(), rng);
  const GemmConfig cfg{.model = GemmModel::exact};
  // K not divisible by the block.
  Operand a2 = lhs(r, 4, 200, ScaleBlock::block_1x128(), rng);
  a2.block.k = 128;
  EXPECT_NE(error_of([&] { scaled_mm(a2.view(), b.view(), cfg); }).find("not divisible by the scale block"), std::string::npos);
  // Scale shape mismatch.
  ScaledOperand bad = a.view();
  bad.scales.cols = 1;
  EXPECT_NE(error_of([&] { scaled_mm(bad, b.view(), cfg); }).find("A scales: expected shape (4, 2)"), std::string::npos);
  // Contraction mismatch.
  const Operand b3 = rhs(r, 128, 8, ScaleBlock::block_128x128(), rng);
  EXPECT_NE(error_of([&] { scaled_mm(a.view(), b3.view(), cfg); }).find("B rows"), std::string::npos);
  // fp32 scales passed as bytes.
  ScaledOperand bytes = a.view();
  bytes.scales.words = nullptr;
  bytes.scales.bytes = reinterpret_cast<const std::uint8_t*>(a.s32.data());
  EXPECT_NE(error_of([&] { scaled_mm(bytes, b.view(), cfg); }).find("32-bit words"), std::string::npos);
  // offs beyond M, non-monotonic, wrong length.
  ScaledOperand3D b3d{&r, View3D<const std::uint8_t>::row_major(b.data.data(), 1, 256, 8),
                      {ScaleView::of(View2D<const std::uint32_t>::row_major(b.s32.data(), 2, 1)), 1, 2}, ScaleBlock::block_128x128()};
  const std::vector<std::int32_t> beyond = {5}, two = {2, 4}, ok = {4};
  EXPECT_NE(error_of([&] { scaled_grouped_mm_2d3d(a.view(), b3d, beyond, cfg); }).find("beyond the grouped dimension"), std::string::npos);
  EXPECT_NE(error_of([&] { scaled_grouped_mm_2d3d(a.view(), b3d, two, cfg); }).find("len(offs)"), std::string::npos);
  EXPECT_EQ(error_of([&] { scaled_grouped_mm_2d3d(a.view(), b3d, ok, cfg); }), "");
  // 2Dx2D: a group not a multiple of the K block.
  const Operand wa = random_operand(r, 4, 256, 4, 2, ScaleBlock::block_1x128(), rng);
  const Operand wb = random_operand(r, 256, 8, 2, 8, ScaleBlock::block_1x128(), rng);
  const std::vector<std::int32_t> odd = {100, 256};
  EXPECT_NE(error_of([&] { scaled_grouped_mm_2d2d(wa.view(), wb.view(), odd, cfg); }).find("not a multiple of 128"), std::string::npos);
  const std::vector<std::int32_t> down = {128, 0};
  EXPECT_NE(error_of([&] { scaled_grouped_mm_2d2d(wa.view(), wb.view(), down, cfg); }).find("not monotonic"), std::string::npos);
  EXPECT_NE(error_of([&] { parse_gemm_model("fast"); }).find("valid: exact"), std::string::npos);
  EXPECT_NE(error_of([&] { scaled_mm(a.view(), b.view(), {.model = GemmModel::fp32_seq, .out = OutDtype::fp64}); }).find("fp64"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// Registry and metrics

TEST(GemmRegistry, ModelsListedAsGemmModel) {
  std::vector<std::string> names;
  for (const RegistryEntry& e : registry())
    if (e.kind == EntryKind::gemm_model) names.emplace_back(e.name);
  EXPECT_EQ(names, (std::vector<std::string>{"exact", "fp32_seq", "fp32_promote", "hopper_fast_accum"}));
  for (const auto& n : names) EXPECT_EQ(name(parse_gemm_model(n)), n);
}

TEST(GemmMetrics, SqnrCalcDiffUlp) {
  const std::vector<double> ref = {3, 4}, x = {3, 4.5};
  EXPECT_NEAR(sqnr_db(ref, x), 20 * std::log10(5 / 0.5), 1e-12);
  EXPECT_EQ(sqnr_db(ref, ref), INFINITY);
  EXPECT_NEAR(calc_diff(ref, x), 1 - 2 * (9 + 18.0) / (9 + 16 + 9 + 20.25), 1e-15);
  GemmOutput p{.dtype = OutDtype::bf16, .batches = 1, .rows = 1, .cols = 2, .values = {1.0f, -1.0f}, .values64 = {}};
  GemmOutput q = p;
  q.values = {1.0078125f, 1.0f};  // +1 ulp; -1 -> +1 crosses zero: 2·0x3F80 codes
  EXPECT_EQ(max_ulp_distance(p, q), 2 * 0x3F80);
  q.values = {1.0078125f, -1.0f};
  EXPECT_EQ(max_ulp_distance(p, q), 1);
}

}  // namespace
}  // namespace octet
