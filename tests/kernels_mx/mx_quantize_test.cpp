// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// mx_quantize_test.cpp — the MX quantisers and the dim0 dequantiser (emulator/src/kernels/mx_quantize.cpp).
//
//   Contract/*       torchao's 18-case special-value contract (reference/recipes.md §10), expected
//                    bytes typed in from the published table, × every layout × {fp32, bf16} × {floor, rceil}
//   VsNaive/*        every kernel against a deliberately naive per-block loop over the scale.hpp
//                    API, byte for byte, on random and adversarial inputs, for every MX recipe
//   Threads/*        1 vs 2 OpenMP threads give the same bytes
//   Dequant*         exactness against an independent decode × 2^(b−127) in double, 255 → NaN,
//                    and dequantize(quantize(x)) within half an element ulp × scale
//   Misuse*          std::invalid_argument naming the argument
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "octet/kernels/mx_quantize.hpp"
#include "octet/registry.hpp"

namespace {

using octet::BlockScale;
using octet::InputType;
using octet::MxBlock3D;
using octet::Recipe;
using octet::View2D;
using octet::View3D;

// ---------------------------------------------------------------------------------------------
// Independent value helpers (OCP OFP8 / MX definitions, not octet's tables).

std::uint32_t f32_bits(float f) { return std::bit_cast<std::uint32_t>(f); }
float f32_of(std::uint32_t b) { return std::bit_cast<float>(b); }
float bf16_value(std::uint16_t b) { return f32_of(std::uint32_t(b) << 16); }

// fp32 -> bf16 RNE by the classic bit trick (finite inputs; NaN -> 0x7FC0).
std::uint16_t bf16_rne(float f) {
  const std::uint32_t u = f32_bits(f);
  if (std::isnan(f)) return 0x7FC0;
  return std::uint16_t((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

// Element code -> value. e4m3fn: S.EEEE.MMM, bias 7, NaN S.1111.111, no Inf. e5m2: IEEE-like.
double decode_e4m3fn(std::uint8_t c) {
  const double sign = (c & 0x80) ? -1.0 : 1.0;
  const int e = (c >> 3) & 0xF, m = c & 7;
  if (e == 15 && m == 7) return std::nan("");
  return sign * (e == 0 ? std::ldexp(m, -9) : std::ldexp(8 + m, e - 10));
}
double decode_e5m2(std::uint8_t c) {
  const double sign = (c & 0x80) ? -1.0 : 1.0;
  const int e = (c >> 2) & 0x1F, m = c & 3;
  if (e == 31) return m == 0 ? sign * INFINITY : std::nan("");
  return sign * (e == 0 ? std::ldexp(m, -16) : std::ldexp(4 + m, e - 17));
}
bool have_decoder(octet::FormatId f) { return f == octet::FormatId::e4m3fn || f == octet::FormatId::e5m2; }
double decode_elem(octet::FormatId f, std::uint8_t c) {
  if (f == octet::FormatId::e4m3fn) return decode_e4m3fn(c);
  if (f == octet::FormatId::e5m2) return decode_e5m2(c);
  return octet::decode(octet::format_of(f), c);  // for messages only
}
// e8m0: 2^(b − 127), 255 = NaN.
double decode_e8m0(std::uint8_t b) { return b == 255 ? std::nan("") : std::ldexp(1.0, int(b) - 127); }

std::string hex(std::uint32_t v, int digits) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%0*x", digits, v);
  return buf;
}
std::string num(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

// ---------------------------------------------------------------------------------------------
// Recipes under test: every recipe with e8m0 scales.

std::vector<std::string> mx_recipe_names() {
  std::vector<std::string> v;
  for (const Recipe& r : octet::recipes())
    if (octet::storage(r) == octet::ScaleStorage::E8m0) v.emplace_back(octet::name(r));
  return v;
}

// ---------------------------------------------------------------------------------------------
// Inputs: a logical (E, R, C) row-major tensor of fp32 values or bf16 bits.

struct Input {
  InputType type = InputType::fp32;
  std::int64_t E = 1, R = 0, C = 0;
  std::vector<float> f32;
  std::vector<std::uint16_t> b16;

  std::int64_t size() const { return E * R * C; }
  std::int64_t flat(std::int64_t e, std::int64_t r, std::int64_t c) const { return (e * R + r) * C + c; }
  float value(std::int64_t i) const { return type == InputType::fp32 ? f32[std::size_t(i)] : bf16_value(b16[std::size_t(i)]); }
  std::string describe(std::int64_t i) const {
    return type == InputType::fp32 ? hex(f32_bits(f32[std::size_t(i)]), 8) + " (" + num(value(i)) + ")"
                                   : hex(b16[std::size_t(i)], 4) + " (" + num(value(i)) + ")";
  }
  // Set element i from raw bits of the input type (fp32 bits, or bf16 bits in the low half).
  void set_bits(std::int64_t i, std::uint32_t bits) {
    if (type == InputType::fp32) f32[std::size_t(i)] = f32_of(bits);
    else b16[std::size_t(i)] = std::uint16_t(bits);
  }
  void set_value(std::int64_t i, float v) { set_bits(i, type == InputType::fp32 ? f32_bits(v) : bf16_rne(v)); }
};

Input make_input(InputType t, std::int64_t E, std::int64_t R, std::int64_t C) {
  Input in;
  in.type = t, in.E = E, in.R = R, in.C = C;
  if (t == InputType::fp32) in.f32.assign(std::size_t(E * R * C), 0.0f);
  else in.b16.assign(std::size_t(E * R * C), 0);
  return in;
}

// ---------------------------------------------------------------------------------------------
// The kernels' documented layouts, written out independently of the output structs.

enum class Kind { Dim0, Dim1, Row2d, Col2d, W32x1, W32x32 };
const char* kind_name(Kind k) {
  switch (k) {
    case Kind::Dim0: return "dim0";
    case Kind::Dim1: return "dim1";
    case Kind::Row2d: return "2d_rowwise";
    case Kind::Col2d: return "2d_colwise";
    case Kind::W32x1: return "3d_32x1";
    case Kind::W32x32: return "3d_32x32";
  }
  return "?";
}
constexpr std::array<Kind, 6> kAllKinds{Kind::Dim0, Kind::Dim1, Kind::Row2d, Kind::Col2d, Kind::W32x1, Kind::W32x32};

struct Geometry {
  Kind kind;
  std::int64_t E, R, C;
  int BR() const { return kind == Kind::Dim0 || kind == Kind::Row2d ? 1 : 32; }
  int BC() const { return kind == Kind::Dim0 || kind == Kind::Row2d || kind == Kind::W32x32 ? 32 : 1; }
  std::int64_t nbr() const { return R / BR(); }
  std::int64_t nbc() const { return C / BC(); }
  std::int64_t n_scales() const { return E * nbr() * nbc(); }
  // Flat offset of element (e, r, c) in the data buffer.
  std::int64_t data_index(std::int64_t e, std::int64_t r, std::int64_t c) const {
    switch (kind) {
      case Kind::Dim0:
      case Kind::Row2d: return r * C + c;                        // (M, K) row-major
      case Kind::Dim1:
      case Kind::Col2d: return c * R + r;                        // (M, K) column-major
      case Kind::W32x1:
      case Kind::W32x32: return e * R * C + c * R + r;           // (E, N, K) strides (N·K, 1, N)
    }
    return -1;
  }
  // Flat offset of the scale of block (e, br, bc).
  std::int64_t scale_index(std::int64_t e, std::int64_t br, std::int64_t bc) const {
    switch (kind) {
      case Kind::Dim0:
      case Kind::Row2d: return br * (C / 32) + bc;               // (M, K/32) row-major
      case Kind::Dim1: return bc * (R / 32) + br;                // (K, M/32) row-major
      case Kind::Col2d: return br * C + bc;                      // (cols, rows/32) strides (1, cols)
      case Kind::W32x1: return (e * (R / 32) + br) * C + bc;     // (E, N/32, K)
      case Kind::W32x32: return (e * (R / 32) + br) * (C / 32) + bc;  // (E, N/32, K/32)
    }
    return -1;
  }
};

struct Bytes {
  std::vector<std::uint8_t> data, scale;
};

// Runs the kernel for `g` and checks that its stride fields are the documented ones.
Bytes run_kernel(const Recipe& r, const Geometry& g, const Input& in) {
  Bytes out;
  const auto take2 = [&](const octet::MxOutput2D& o, std::int64_t drs, std::int64_t dcs, std::int64_t sr,
                         std::int64_t sc, std::int64_t srs, std::int64_t scs) {
    EXPECT_EQ(o.rows, g.R);
    EXPECT_EQ(o.cols, g.C);
    EXPECT_EQ(o.data_row_stride, drs);
    EXPECT_EQ(o.data_col_stride, dcs);
    EXPECT_EQ(o.scale_rows, sr);
    EXPECT_EQ(o.scale_cols, sc);
    EXPECT_EQ(o.scale_row_stride, srs);
    EXPECT_EQ(o.scale_col_stride, scs);
    out.data = o.data;
    out.scale = o.scale;
  };
  const auto run2 = [&](auto view) {
    const std::int64_t M = g.R, K = g.C;
    switch (g.kind) {
      case Kind::Dim0: take2(octet::mx_quantize_dim0(r, view), K, 1, M, K / 32, K / 32, 1); break;
      case Kind::Dim1: take2(octet::mx_quantize_dim1(r, view), 1, M, K, M / 32, M / 32, 1); break;
      case Kind::Row2d: {
        const auto q = octet::mx_quantize_2d(r, view, true, false);
        EXPECT_FALSE(q.colwise.has_value());
        take2(*q.rowwise, K, 1, M, K / 32, K / 32, 1);
        break;
      }
      case Kind::Col2d: {
        const auto q = octet::mx_quantize_2d(r, view, false, true);
        EXPECT_FALSE(q.rowwise.has_value());
        take2(*q.colwise, 1, M, K, M / 32, 1, K);
        break;
      }
      default: break;
    }
  };
  const auto run3 = [&](auto view) {
    const bool tile = g.kind == Kind::W32x32;
    const auto o = octet::mx_quantize_3d(r, view, tile ? MxBlock3D::Block32x32 : MxBlock3D::Block32x1);
    const std::int64_t N = g.R, K = g.C, SC = tile ? K / 32 : K;
    EXPECT_EQ(o.block, tile ? MxBlock3D::Block32x32 : MxBlock3D::Block32x1);
    EXPECT_EQ(o.experts, g.E);
    EXPECT_EQ(o.rows, N);
    EXPECT_EQ(o.cols, K);
    EXPECT_EQ(o.data_expert_stride, N * K);
    EXPECT_EQ(o.data_row_stride, 1);
    EXPECT_EQ(o.data_col_stride, N);
    EXPECT_EQ(o.scale_rows, N / 32);
    EXPECT_EQ(o.scale_cols, SC);
    EXPECT_EQ(o.scale_expert_stride, N / 32 * SC);
    EXPECT_EQ(o.scale_row_stride, SC);
    EXPECT_EQ(o.scale_col_stride, 1);
    out.data = o.data;
    out.scale = o.scale;
  };
  const bool is3d = g.kind == Kind::W32x1 || g.kind == Kind::W32x32;
  if (in.type == InputType::fp32) {
    if (is3d) run3(View3D<const float>::row_major(in.f32.data(), g.E, g.R, g.C));
    else run2(View2D<const float>::row_major(in.f32.data(), g.R, g.C));
  } else {
    if (is3d) run3(View3D<const std::uint16_t>::row_major(in.b16.data(), g.E, g.R, g.C));
    else run2(View2D<const std::uint16_t>::row_major(in.b16.data(), g.R, g.C));
  }
  return out;
}

// The naive reference: plain loops, one block at a time, through the scale.hpp API.
Bytes naive(const Recipe& r, const Geometry& g, const Input& in) {
  Bytes out;
  out.data.assign(std::size_t(in.size()), 0);
  out.scale.assign(std::size_t(g.n_scales()), 0);
  for (std::int64_t e = 0; e < g.E; ++e)
    for (std::int64_t br = 0; br < g.nbr(); ++br)
      for (std::int64_t bc = 0; bc < g.nbc(); ++bc) {
        float amax = octet::amax_init(r);
        for (int i = 0; i < g.BR(); ++i)
          for (int j = 0; j < g.BC(); ++j)
            amax = octet::amax_update(r, amax, in.value(in.flat(e, br * g.BR() + i, bc * g.BC() + j)));
        const BlockScale s = octet::scale_from_amax(r, amax);
        out.scale[std::size_t(g.scale_index(e, br, bc))] = std::uint8_t(s.stored);
        for (int i = 0; i < g.BR(); ++i)
          for (int j = 0; j < g.BC(); ++j) {
            const std::int64_t rr = br * g.BR() + i, cc = bc * g.BC() + j;
            out.data[std::size_t(g.data_index(e, rr, cc))] =
                std::uint8_t(octet::quantize_element(r, s, in.value(in.flat(e, rr, cc))));
          }
      }
  return out;
}

// First mismatches, with flat index, coordinates, both codes in hex and decoded, and the input.
// Returns the number of mismatching bytes.
std::int64_t compare(const Recipe& r, const Geometry& g, const Input& in, const Bytes& got, const Bytes& want,
                     const std::string& context) {
  std::int64_t bad = 0;
  std::string log;
  const octet::FormatId f = octet::element_format(r);
  if (got.scale.size() != want.scale.size() || got.data.size() != want.data.size()) {
    ADD_FAILURE() << context << ": sizes differ: data " << got.data.size() << " vs " << want.data.size() << ", scale "
                  << got.scale.size() << " vs " << want.scale.size();
    return 1;
  }
  for (std::int64_t e = 0; e < g.E; ++e)
    for (std::int64_t br = 0; br < g.nbr(); ++br)
      for (std::int64_t bc = 0; bc < g.nbc(); ++bc) {
        const std::int64_t i = g.scale_index(e, br, bc);
        const std::uint8_t a = got.scale[std::size_t(i)], b = want.scale[std::size_t(i)];
        if (a != b && ++bad <= 8)
          log += "  scale mismatch at flat " + std::to_string(i) + " (expert " + std::to_string(e) + ", block row " +
                 std::to_string(br) + ", block col " + std::to_string(bc) + "): got " + hex(a, 2) + " (" +
                 num(decode_e8m0(a)) + ") want " + hex(b, 2) + " (" + num(decode_e8m0(b)) + ")\n";
      }
  for (std::int64_t e = 0; e < g.E; ++e)
    for (std::int64_t rr = 0; rr < g.R; ++rr)
      for (std::int64_t cc = 0; cc < g.C; ++cc) {
        const std::int64_t i = g.data_index(e, rr, cc);
        const std::uint8_t a = got.data[std::size_t(i)], b = want.data[std::size_t(i)];
        if (a != b && ++bad <= 8)
          log += "  data mismatch at flat " + std::to_string(i) + " (expert " + std::to_string(e) + ", row " +
                 std::to_string(rr) + ", col " + std::to_string(cc) + "): got " + hex(a, 2) + " (" +
                 num(decode_elem(f, a)) + ") want " + hex(b, 2) + " (" + num(decode_elem(f, b)) + "); input " +
                 in.describe(in.flat(e, rr, cc)) + "\n";
      }
  if (bad != 0)
    ADD_FAILURE() << context << " [recipe " << octet::name(r) << ", " << kind_name(g.kind) << ", "
                  << (in.type == InputType::fp32 ? "fp32" : "bf16") << " input, shape (" << g.E << ", " << g.R << ", "
                  << g.C << ")]: " << bad << " mismatching bytes; first:\n"
                  << log;
  return bad;
}

// ---------------------------------------------------------------------------------------------
// 1. torchao special-value contract (recipes.md §10). Each case is one 32-element block: x0 and
//    31 copies of `rest`. Expected bytes per (mode, input type), typed in from the table.

struct Expect {
  std::uint8_t scale, c0, rest;
};
struct ContractCase {
  const char* name;
  std::uint32_t f32_x0, f32_rest;
  std::uint16_t b16_x0, b16_rest;
  Expect rceil_f32, rceil_b16, floor_f32, floor_b16;
};

// 0x3F800000 = 1.0; 0x7F7FFFFF / 0x7F7F = finfo.max; 0x00000001 / 0x0001 = smallest subnormal
// (fp32 2^-149, bf16 2^-133); e4m3 codes: 0x7E = 448, 0x78 = 256, 0x77 = 240, 0x76 = 224,
// 0x40 = 2.0, 0x08 = 2^-6, 0x7F = NaN.
const std::vector<ContractCase>& contract_cases() {
  static const std::vector<ContractCase> k = {
      //  name                                 fp32 x0     fp32 rest   bf16 x0 bf16 rest  rceil fp32        rceil bf16        floor fp32        floor bf16
      {"zero",                                 0x00000000, 0x00000000, 0x0000, 0x0000, {0, 0x00, 0x00},   {0, 0x00, 0x00},   {0, 0x00, 0x00},   {0, 0x00, 0x00}},
      {"smallest_normal",                      0x00800000, 0x00800000, 0x0080, 0x0080, {0, 0x40, 0x40},   {0, 0x40, 0x40},   {0, 0x40, 0x40},   {0, 0x40, 0x40}},
      {"mixed_inf",                            0x7F800000, 0x3F800000, 0x7F80, 0x3F80, {255, 0x7F, 0x7F}, {255, 0x7F, 0x7F}, {255, 0x7F, 0x7F}, {255, 0x7F, 0x7F}},
      {"mixed_nan",                            0x7FC00000, 0x3F800000, 0x7FC0, 0x3F80, {255, 0x7F, 0x7F}, {255, 0x7F, 0x7F}, {255, 0x7F, 0x7F}, {255, 0x7F, 0x7F}},
      {"pos_fp8_max",                          0x43E00000, 0x43E00000, 0x43E0, 0x43E0, {127, 0x7E, 0x7E}, {127, 0x7E, 0x7E}, {127, 0x7E, 0x7E}, {127, 0x7E, 0x7E}},
      {"neg_fp8_max",                          0xC3E00000, 0xC3E00000, 0xC3E0, 0xC3E0, {127, 0xFE, 0xFE}, {127, 0xFE, 0xFE}, {127, 0xFE, 0xFE}, {127, 0xFE, 0xFE}},
      {"pos_dtype_max",                        0x7F7FFFFF, 0x7F7FFFFF, 0x7F7F, 0x7F7F, {247, 0x78, 0x78}, {247, 0x78, 0x78}, {246, 0x7E, 0x7E}, {246, 0x7E, 0x7E}},
      {"neg_dtype_max",                        0xFF7FFFFF, 0xFF7FFFFF, 0xFF7F, 0xFF7F, {247, 0xF8, 0xF8}, {247, 0xF8, 0xF8}, {246, 0xFE, 0xFE}, {246, 0xFE, 0xFE}},
      {"pos_smallest_subnormal",               0x00000001, 0x00000001, 0x0001, 0x0001, {0, 0x00, 0x00},   {0, 0x08, 0x08},   {0, 0x00, 0x00},   {0, 0x08, 0x08}},
      {"neg_smallest_subnormal",               0x80000001, 0x80000001, 0x8001, 0x8001, {0, 0x80, 0x80},   {0, 0x88, 0x88},   {0, 0x80, 0x80},   {0, 0x88, 0x88}},
      {"mixed_pos_underflow",                  0x00000001, 0x3F800000, 0x0001, 0x3F80, {119, 0x00, 0x78}, {119, 0x00, 0x78}, {119, 0x00, 0x78}, {119, 0x00, 0x78}},
      {"mixed_neg_underflow",                  0x80000001, 0x3F800000, 0x8001, 0x3F80, {119, 0x80, 0x78}, {119, 0x80, 0x78}, {119, 0x80, 0x78}, {119, 0x80, 0x78}},
      {"mixed_saturation_and_underflow",       0x7F7FFFFF, 0x3F800000, 0x7F7F, 0x3F80, {247, 0x78, 0x00}, {247, 0x78, 0x00}, {246, 0x7E, 0x00}, {246, 0x7E, 0x00}},
      {"rceil_premature_bf16_lowers_scale",    0x40600001, 0x40600001, 0x4060, 0x4060, {121, 0x76, 0x76}, {120, 0x7E, 0x7E}, {120, 0x7E, 0x7E}, {120, 0x7E, 0x7E}},
      {"floor_premature_bf16_raises_scale",    0x43FFFFFF, 0x43FFFFFF, 0x4400, 0x4400, {128, 0x78, 0x78}, {128, 0x78, 0x78}, {127, 0x7E, 0x7E}, {128, 0x78, 0x78}},
      {"all_nan",                              0x7FC00000, 0x7FC00000, 0x7FC0, 0x7FC0, {255, 0x7F, 0x7F}, {255, 0x7F, 0x7F}, {255, 0x7F, 0x7F}, {255, 0x7F, 0x7F}},
      {"pos_satfinite",                        0x43F00000, 0x43F00000, 0x43F0, 0x43F0, {128, 0x77, 0x77}, {128, 0x77, 0x77}, {127, 0x7E, 0x7E}, {127, 0x7E, 0x7E}},
      {"neg_satfinite",                        0xC3F00000, 0xC3F00000, 0xC3F0, 0xC3F0, {128, 0xF7, 0xF7}, {128, 0xF7, 0xF7}, {127, 0xFE, 0xFE}, {127, 0xFE, 0xFE}},
  };
  return k;
}

struct ContractParam {
  Kind kind;
  InputType type;
  bool rceil;
};

void PrintTo(const ContractParam& p, std::ostream* os) {
  *os << kind_name(p.kind) << (p.type == InputType::fp32 ? " fp32" : " bf16") << (p.rceil ? " rceil" : " floor");
}
class Contract : public ::testing::TestWithParam<ContractParam> {};

// Every case occupies its own block of one tensor; the blocks not used by a case hold the zero case.
// dim0 / 2d rowwise: block (i, 0) of (32, 32); dim1 / 2d colwise: block (0, i) of (32, 32);
// 3d 32x1: block (e, 0, k) of (2, 32, 9); 3d 32x32: expert i is one 32x32 tile (x0 at (0, 0)).
TEST_P(Contract, TorchaoSpecialValues) {
  const ContractParam p = GetParam();
  const Recipe& r = octet::recipe(p.rceil ? "torchao_mx_rceil" : "torchao_mx_floor");
  const auto& cases = contract_cases();
  const std::int64_t n = std::int64_t(cases.size());
  Geometry g{p.kind, 1, 32, 32};
  if (p.kind == Kind::W32x1) g = {p.kind, 2, 32, 9};
  if (p.kind == Kind::W32x32) g = {p.kind, n, 32, 32};
  Input in = make_input(p.type, g.E, g.R, g.C);
  const bool fp32 = p.type == InputType::fp32;

  // Block b of the layout -> (expert, block row, block col); element j of the block -> (e, r, c).
  struct Where {
    std::int64_t e, br, bc;
  };
  const auto where = [&](std::int64_t b) -> Where {
    switch (p.kind) {
      case Kind::Dim0:
      case Kind::Row2d: return {0, b, 0};
      case Kind::Dim1:
      case Kind::Col2d: return {0, 0, b};
      case Kind::W32x1: return {b / 9, 0, b % 9};
      case Kind::W32x32: return {b, 0, 0};
    }
    return {};
  };
  const std::int64_t block_elems = std::int64_t(g.BR()) * g.BC();
  const auto element = [&](const Where& w, std::int64_t j) {
    const std::int64_t rr = w.br * g.BR() + j / g.BC(), cc = w.bc * g.BC() + j % g.BC();
    return std::array<std::int64_t, 3>{w.e, rr, cc};
  };
  for (std::int64_t b = 0; b < n; ++b) {
    const ContractCase& k = cases[std::size_t(b)];
    for (std::int64_t j = 0; j < block_elems; ++j) {
      const auto [e, rr, cc] = element(where(b), j);
      in.set_bits(in.flat(e, rr, cc), j == 0 ? (fp32 ? k.f32_x0 : k.b16_x0) : (fp32 ? k.f32_rest : k.b16_rest));
    }
  }

  const Bytes got = run_kernel(r, g, in);
  std::int64_t bad = 0;
  for (std::int64_t b = 0; b < n; ++b) {
    const ContractCase& k = cases[std::size_t(b)];
    const Expect want = p.rceil ? (fp32 ? k.rceil_f32 : k.rceil_b16) : (fp32 ? k.floor_f32 : k.floor_b16);
    const Where w = where(b);
    const std::uint8_t s = got.scale[std::size_t(g.scale_index(w.e, w.br, w.bc))];
    std::string log;
    if (s != want.scale)
      log += "  scale: got " + hex(s, 2) + " (" + num(decode_e8m0(s)) + ") want " + hex(want.scale, 2) + " (" +
             num(decode_e8m0(want.scale)) + ")\n";
    int shown = 0;
    for (std::int64_t j = 0; j < block_elems; ++j) {
      const auto [e, rr, cc] = element(w, j);
      const std::int64_t i = g.data_index(e, rr, cc);
      const std::uint8_t c = got.data[std::size_t(i)], c_want = j == 0 ? want.c0 : want.rest;
      if (c != c_want && ++shown <= 4)
        log += "  data element " + std::to_string(j) + " at flat " + std::to_string(i) + " (expert " +
               std::to_string(e) + ", row " + std::to_string(rr) + ", col " + std::to_string(cc) + "): got " +
               hex(c, 2) + " (" + num(decode_e4m3fn(c)) + ") want " + hex(c_want, 2) + " (" +
               num(decode_e4m3fn(c_want)) + "); input " + in.describe(in.flat(e, rr, cc)) + "\n";
    }
    if (!log.empty()) {
      ++bad;
      ADD_FAILURE() << "case " << k.name << " [" << octet::name(r) << ", " << kind_name(p.kind) << ", "
                    << (fp32 ? "fp32" : "bf16") << "]:\n"
                    << log;
    }
  }
  // The zero-filled padding blocks of the 2D layouts (cases 18..31) must give the zero case.
  if (g.kind != Kind::W32x1 && g.kind != Kind::W32x32)
    for (std::int64_t b = n; b < 32; ++b) {
      const Where w = where(b);
      EXPECT_EQ(got.scale[std::size_t(g.scale_index(w.e, w.br, w.bc))], 0) << "zero block " << b;
    }
  EXPECT_EQ(bad, 0);
}

std::vector<ContractParam> contract_params() {
  std::vector<ContractParam> v;
  for (Kind k : kAllKinds)
    for (InputType t : {InputType::fp32, InputType::bf16})
      for (bool rceil : {false, true}) v.push_back({k, t, rceil});
  return v;
}
INSTANTIATE_TEST_SUITE_P(MxKernels, Contract, ::testing::ValuesIn(contract_params()),
                         [](const ::testing::TestParamInfo<ContractParam>& i) {
                           return std::string(kind_name(i.param.kind)) + "_" +
                                  (i.param.type == InputType::fp32 ? "fp32" : "bf16") + "_" +
                                  (i.param.rceil ? "rceil" : "floor");
                         });

// ---------------------------------------------------------------------------------------------
// 2. Naive reference vs every kernel on random and adversarial inputs.

// Next representable value of the input type below / above |v| (v > 0, exact in the type).
float next_down(float v, InputType t) {
  return t == InputType::fp32 ? std::nextafter(v, 0.0f) : bf16_value(std::uint16_t(bf16_rne(v) - 1));
}
float next_up(float v, InputType t) {
  return t == InputType::fp32 ? std::nextafter(v, INFINITY) : bf16_value(std::uint16_t(bf16_rne(v) + 1));
}

enum Pattern : int {
  kNormal, kWideNormal, kZero, kOneNan, kOneInf, kSubnormal, kBelowPow2, kNear448, kNearMax, kRandomBits,
  kTies, kPatternCount
};

// Fills the n elements of one block (indices `at[j]`) with pattern p.
void fill_block(Input& in, const std::vector<std::int64_t>& at, int p, std::mt19937_64& rng) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> exp_dist(-40, 40);
  const InputType t = in.type;
  const std::size_t n = at.size();
  const auto sgn = [&]() { return (rng() & 1) ? -1.0f : 1.0f; };
  const int k = exp_dist(rng);
  switch (p) {
    case kNormal:
      for (std::size_t j = 0; j < n; ++j) in.set_value(at[j], normal(rng) * std::ldexp(1.0f, k / 4));
      break;
    case kWideNormal:  // every element at its own scale
      for (std::size_t j = 0; j < n; ++j) in.set_value(at[j], normal(rng) * std::ldexp(1.0f, exp_dist(rng) * 3));
      break;
    case kZero:
      for (std::size_t j = 0; j < n; ++j) in.set_value(at[j], (rng() & 1) ? -0.0f : 0.0f);
      break;
    case kOneNan:
    case kOneInf:
      for (std::size_t j = 0; j < n; ++j) in.set_value(at[j], normal(rng));
      in.set_value(at[rng() % n], p == kOneNan ? sgn() * NAN : sgn() * INFINITY);
      break;
    case kSubnormal:  // subnormals of the input type (fp32 exponent field 0 / bf16 exponent field 0)
      for (std::size_t j = 0; j < n; ++j)
        in.set_bits(at[j], (rng() & 1 ? 0x80000000u : 0u) >> (t == InputType::fp32 ? 0 : 16) |
                               std::uint32_t(rng() & (t == InputType::fp32 ? 0x7FFFFFu : 0x7Fu)));
      break;
    case kBelowPow2: {  // amax one ulp below 2^k (and other elements below it)
      const float amax = next_down(std::ldexp(1.0f, k * 3), t);
      for (std::size_t j = 0; j < n; ++j) in.set_value(at[j], sgn() * amax * float(rng() % 1000) / 1000.0f);
      in.set_value(at[rng() % n], sgn() * amax);
      break;
    }
    case kNear448: {  // amax at 448·2^k, 480·2^k, 512·2^k and one ulp around them
      const float bases[] = {448.0f, 480.0f, 512.0f, 256.0f};
      float a = std::ldexp(bases[rng() % 4], k);
      const int d = int(rng() % 3);
      if (d == 1) a = next_down(a, t);
      if (d == 2) a = next_up(a, t);
      for (std::size_t j = 0; j < n; ++j) in.set_value(at[j], sgn() * a * float(rng() % 1024) / 1024.0f);
      in.set_value(at[rng() % n], sgn() * a);
      break;
    }
    case kNearMax: {  // around finfo.max, and the smallest normals
      const float big = t == InputType::fp32 ? f32_of(0x7F7FFFFFu) : bf16_value(0x7F7F);
      for (std::size_t j = 0; j < n; ++j)
        in.set_value(at[j], (rng() & 1) ? sgn() * big / float(1 + rng() % 8) : sgn() * std::ldexp(1.0f, -126 + int(rng() % 4)));
      break;
    }
    case kRandomBits:  // any bit pattern: NaN payloads, Inf, subnormals
      for (std::size_t j = 0; j < n; ++j)
        in.set_bits(at[j], t == InputType::fp32 ? std::uint32_t(rng()) : std::uint32_t(rng() & 0xFFFF));
      break;
    case kTies: {  // amax 448·2^k: the other elements scale to exact e4m3 midpoints (RNE ties)
      const float a = std::ldexp(448.0f, k);
      for (std::size_t j = 0; j < n; ++j) {
        const int m = int(rng() % 8), e = int(rng() % 8);  // (8 + m + 0.5)·2^(e−3) in e4m3 units
        in.set_value(at[j], sgn() * std::ldexp(float(2 * (8 + m) + 1), e - 4 + k));
      }
      in.set_value(at[rng() % n], a);
      break;
    }
    default: break;
  }
}

// A tensor for geometry g whose blocks take patterns from `patterns` (chosen at random).
Input adversarial(const Geometry& g, InputType t, std::uint64_t seed, const std::vector<int>& patterns) {
  std::mt19937_64 rng(seed);
  Input in = make_input(t, g.E, g.R, g.C);
  std::vector<std::int64_t> at;
  for (std::int64_t e = 0; e < g.E; ++e)
    for (std::int64_t br = 0; br < g.nbr(); ++br)
      for (std::int64_t bc = 0; bc < g.nbc(); ++bc) {
        at.clear();
        for (int i = 0; i < g.BR(); ++i)
          for (int j = 0; j < g.BC(); ++j) at.push_back(in.flat(e, br * g.BR() + i, bc * g.BC() + j));
        fill_block(in, at, patterns[rng() % patterns.size()], rng);
      }
  return in;
}

std::vector<int> all_patterns() {
  std::vector<int> v;
  for (int p = 0; p < kPatternCount; ++p) v.push_back(p);
  return v;
}

struct NaiveParam {
  std::string recipe;
  InputType type;
};
void PrintTo(const NaiveParam& p, std::ostream* os) {
  *os << p.recipe << (p.type == InputType::fp32 ? " fp32" : " bf16");
}
class VsNaive : public ::testing::TestWithParam<NaiveParam> {};

Geometry shape_for(Kind k, std::int64_t a, std::int64_t b, std::int64_t experts = 3) {
  if (k == Kind::W32x1 || k == Kind::W32x32) return {k, experts, a, b};
  return {k, 1, a, b};
}

// Adversarial blocks, every kernel, several shapes (dims that are not multiples of 32 where the
// kernel allows it: K for dim1 and 3d 32x1).
TEST_P(VsNaive, AdversarialBlocks) {
  const Recipe& r = octet::recipe(GetParam().recipe);
  const InputType t = GetParam().type;
  std::uint64_t seed = 0x5EED0001;
  for (Kind k : kAllKinds) {
    std::vector<std::pair<std::int64_t, std::int64_t>> shapes = {{64, 96}, {96, 64}, {32, 32}};
    if (k == Kind::Dim1 || k == Kind::W32x1) shapes.push_back({64, 37});
    if (k == Kind::Dim0) shapes.push_back({7, 64});
    for (const auto& [a, b] : shapes) {
      const Geometry g = shape_for(k, a, b);
      const Input in = adversarial(g, t, ++seed, all_patterns());
      compare(r, g, in, run_kernel(r, g, in), naive(r, g, in), "adversarial seed " + std::to_string(seed));
    }
  }
}

// Large enough that every kernel's bf16 table path runs (a BlockScale shared by many blocks):
// every block's amax is 1.5 and the other elements are arbitrary bit patterns of magnitude ≤ 1.5,
// so each bf16 pattern in that range passes through the table.
TEST_P(VsNaive, SharedScaleAllPatterns) {
  const Recipe& r = octet::recipe(GetParam().recipe);
  const InputType t = GetParam().type;
  std::mt19937_64 rng(0x5EED0002);
  for (Kind k : kAllKinds) {
    const Geometry g = shape_for(k, 256, 256, 2);
    Input in = make_input(t, g.E, g.R, g.C);
    for (std::int64_t i = 0; i < in.size(); ++i) {
      std::uint32_t bits;
      if (t == InputType::fp32) {
        do bits = std::uint32_t(rng()) & 0x7FFFFFFFu;
        while (bits > 0x3FC00000u);
        bits |= std::uint32_t(rng() & 1) << 31;
      } else {
        do bits = std::uint32_t(rng()) & 0x7FFFu;
        while (bits > 0x3FC0u);
        bits |= std::uint32_t(rng() & 1) << 15;
      }
      in.set_bits(i, bits);
    }
    for (std::int64_t e = 0; e < g.E; ++e)  // one ±1.5 per block
      for (std::int64_t br = 0; br < g.nbr(); ++br)
        for (std::int64_t bc = 0; bc < g.nbc(); ++bc)
          in.set_value(in.flat(e, br * g.BR(), bc * g.BC()), (rng() & 1) ? -1.5f : 1.5f);
    compare(r, g, in, run_kernel(r, g, in), naive(r, g, in), "shared scale");
  }
}

// Gaussian data at many scales (the typical activation / weight case).
TEST_P(VsNaive, RandomNormal) {
  const Recipe& r = octet::recipe(GetParam().recipe);
  const InputType t = GetParam().type;
  std::uint64_t seed = 0x5EED0100;
  for (Kind k : kAllKinds) {
    const Geometry g = shape_for(k, 128, 160, 2);
    const Input in = adversarial(g, t, ++seed, {kNormal, kWideNormal});
    compare(r, g, in, run_kernel(r, g, in), naive(r, g, in), "random normal seed " + std::to_string(seed));
  }
}

// rowwise + colwise in one call equal the single-direction calls; any input strides give the
// same bytes as the contiguous copy.
TEST_P(VsNaive, BothDirectionsAndStridedInput) {
  const Recipe& r = octet::recipe(GetParam().recipe);
  const InputType t = GetParam().type;
  const Geometry g{Kind::Dim0, 1, 64, 96};
  const Input in = adversarial(g, t, 0x5EED0200, all_patterns());
  // The same matrix stored column-major.
  Input col = make_input(t, 1, g.R, g.C);
  std::vector<float> cf(std::size_t(in.size()));
  std::vector<std::uint16_t> cb(std::size_t(in.size()));
  for (std::int64_t m = 0; m < g.R; ++m)
    for (std::int64_t k = 0; k < g.C; ++k) {
      if (t == InputType::fp32) cf[std::size_t(k * g.R + m)] = in.f32[std::size_t(m * g.C + k)];
      else cb[std::size_t(k * g.R + m)] = in.b16[std::size_t(m * g.C + k)];
    }
  const auto check = [&](auto row_view, auto col_view) {
    const auto both = octet::mx_quantize_2d(r, row_view, true, true);
    const auto row_only = octet::mx_quantize_2d(r, row_view, true, false);
    const auto col_only = octet::mx_quantize_2d(r, row_view, false, true);
    ASSERT_TRUE(both.rowwise && both.colwise);
    EXPECT_EQ(both.rowwise->data, row_only.rowwise->data);
    EXPECT_EQ(both.rowwise->scale, row_only.rowwise->scale);
    EXPECT_EQ(both.colwise->data, col_only.colwise->data);
    EXPECT_EQ(both.colwise->scale, col_only.colwise->scale);
    const auto d0 = octet::mx_quantize_dim0(r, row_view), d0s = octet::mx_quantize_dim0(r, col_view);
    const auto d1 = octet::mx_quantize_dim1(r, row_view), d1s = octet::mx_quantize_dim1(r, col_view);
    EXPECT_EQ(d0.data, d0s.data);
    EXPECT_EQ(d0.scale, d0s.scale);
    EXPECT_EQ(d1.data, d1s.data);
    EXPECT_EQ(d1.scale, d1s.scale);
    EXPECT_EQ(d0.data, both.rowwise->data);  // 2d rowwise is dim0
    EXPECT_EQ(d1.data, both.colwise->data);  // 2d colwise data is dim1's; only the scale layout differs
    for (std::int64_t k = 0; k < g.C; ++k)
      for (std::int64_t mb = 0; mb < g.R / 32; ++mb)
        EXPECT_EQ(d1.scale[std::size_t(k * (g.R / 32) + mb)], both.colwise->scale[std::size_t(mb * g.C + k)]);
  };
  if (t == InputType::fp32)
    check(View2D<const float>::row_major(in.f32.data(), g.R, g.C), View2D<const float>::col_major(cf.data(), g.R, g.C));
  else
    check(View2D<const std::uint16_t>::row_major(in.b16.data(), g.R, g.C),
          View2D<const std::uint16_t>::col_major(cb.data(), g.R, g.C));
}

// 3. Determinism: 1 vs 2 OpenMP threads, every kernel (shapes with many block rows).
TEST_P(VsNaive, OneVsTwoThreads) {
  const Recipe& r = octet::recipe(GetParam().recipe);
  const InputType t = GetParam().type;
  const int saved = omp_get_max_threads();
  std::uint64_t seed = 0x5EED0300;
  for (Kind k : kAllKinds) {
    const Geometry g = shape_for(k, 256, 128, 2);
    const Input in = adversarial(g, t, ++seed, all_patterns());
    omp_set_num_threads(1);
    const Bytes one = run_kernel(r, g, in);
    omp_set_num_threads(2);
    const Bytes two = run_kernel(r, g, in);
    compare(r, g, in, two, one, std::string("2 threads vs 1"));
  }
  omp_set_num_threads(saved);
}

std::vector<NaiveParam> naive_params() {
  std::vector<NaiveParam> v;
  for (const std::string& n : mx_recipe_names())
    for (InputType t : {InputType::fp32, InputType::bf16}) v.push_back({n, t});
  return v;
}
INSTANTIATE_TEST_SUITE_P(MxKernels, VsNaive, ::testing::ValuesIn(naive_params()),
                         [](const ::testing::TestParamInfo<NaiveParam>& i) {
                           return i.param.recipe + (i.param.type == InputType::fp32 ? "_fp32" : "_bf16");
                         });

// Blocked scales: the closed form of kernels.md §5 applied to the kernel's own scale bytes,
// with zero padding, for every layout (shapes that need padding in both directions).
TEST_P(VsNaive, BlockedScalesFollowTheClosedForm) {
  const Recipe& r = octet::recipe(GetParam().recipe);
  const InputType t = GetParam().type;
  const auto closed_form = [](std::int64_t row, std::int64_t col, std::int64_t n_col_blocks) {
    return ((row / 128) * n_col_blocks + col / 4) * 512 + (row % 32) * 16 + ((row % 128) / 32) * 4 + (col % 4);
  };
  // want: H x W matrix S(h, w) laid out per expert at e·Hp·Wp.
  const auto expect_blocked = [&](const std::vector<std::uint8_t>& got, std::int64_t E, std::int64_t H, std::int64_t W,
                                  const std::function<std::uint8_t(std::int64_t, std::int64_t, std::int64_t)>& S,
                                  const char* what) {
    const std::int64_t Hp = (H + 127) / 128 * 128, Wp = (W + 3) / 4 * 4;
    std::vector<std::uint8_t> want(std::size_t(E * Hp * Wp), 0);
    for (std::int64_t e = 0; e < E; ++e)
      for (std::int64_t h = 0; h < H; ++h)
        for (std::int64_t w = 0; w < W; ++w) want[std::size_t(e * Hp * Wp + closed_form(h, w, Wp / 4))] = S(e, h, w);
    ASSERT_EQ(got.size(), want.size()) << what;
    std::int64_t bad = 0;
    for (std::size_t i = 0; i < want.size(); ++i)
      if (got[i] != want[i] && ++bad <= 8)
        ADD_FAILURE() << what << ": blocked byte " << i << " got " << hex(got[i], 2) << " want " << hex(want[i], 2);
    EXPECT_EQ(bad, 0) << what;
  };
  for (Kind k : kAllKinds) {
    const Geometry g = shape_for(k, 160, 224, 2);  // scale matrices 160x7, 224x5, 5x224, ...
    const Input in = adversarial(g, t, 0x5EED0600, all_patterns());
    const Bytes b = run_kernel(r, g, in);
    const std::int64_t M = g.R, K = g.C;
    const auto sc = [&](std::int64_t e, std::int64_t br, std::int64_t bc) { return b.scale[std::size_t(g.scale_index(e, br, bc))]; };
    if (k == Kind::W32x1 || k == Kind::W32x32) {
      const auto q = t == InputType::fp32
                         ? octet::mx_quantize_3d(r, View3D<const float>::row_major(in.f32.data(), g.E, M, K),
                                                 k == Kind::W32x1 ? MxBlock3D::Block32x1 : MxBlock3D::Block32x32)
                         : octet::mx_quantize_3d(r, View3D<const std::uint16_t>::row_major(in.b16.data(), g.E, M, K),
                                                 k == Kind::W32x1 ? MxBlock3D::Block32x1 : MxBlock3D::Block32x32);
      // Per expert (K, N/32): S(k, nb) is the scale of block (nb, k) (32x1) or (nb, k/32) (32x32).
      expect_blocked(octet::mx_blocked_scales(q), g.E, K, M / 32,
                     [&](std::int64_t e, std::int64_t kk, std::int64_t nb) {
                       return sc(e, nb, k == Kind::W32x1 ? kk : kk / 32);
                     },
                     kind_name(k));
      continue;
    }
    octet::MxOutput2D q;
    const auto run = [&](auto view) {
      switch (k) {
        case Kind::Dim0: q = octet::mx_quantize_dim0(r, view); break;
        case Kind::Dim1: q = octet::mx_quantize_dim1(r, view); break;
        case Kind::Row2d: q = *octet::mx_quantize_2d(r, view, true, false).rowwise; break;
        default: q = *octet::mx_quantize_2d(r, view, false, true).colwise; break;
      }
    };
    if (t == InputType::fp32) run(View2D<const float>::row_major(in.f32.data(), M, K));
    else run(View2D<const std::uint16_t>::row_major(in.b16.data(), M, K));
    if (k == Kind::Dim0 || k == Kind::Row2d)  // (M, K/32)
      expect_blocked(octet::mx_blocked_scales(q), 1, M, K / 32,
                     [&](std::int64_t, std::int64_t m, std::int64_t kb) { return sc(0, m, kb); }, kind_name(k));
    else  // (K, M/32)
      expect_blocked(octet::mx_blocked_scales(q), 1, K, M / 32,
                     [&](std::int64_t, std::int64_t kk, std::int64_t mb) { return sc(0, mb, kk); }, kind_name(k));
  }
}

// ---------------------------------------------------------------------------------------------
// 4. Dequantisation.

class Dequant : public ::testing::TestWithParam<std::string> {};

// Every (code, scale byte) pair: fp32 output is the exact product (NaN canonical), bf16 output is
// its RNE (independent bit trick), 255 → NaN.
TEST_P(Dequant, ExactVsDoubleProduct) {
  const Recipe& r = octet::recipe(GetParam());
  const octet::FormatId f = octet::element_format(r);
  if (!have_decoder(f)) GTEST_SKIP() << "no independent decoder for this element format";
  const std::int64_t M = 256, K = 256;  // row m uses scale byte m in all its blocks; code = column
  std::vector<std::uint8_t> q(std::size_t(M * K)), s(std::size_t(M * K / 32));
  for (std::int64_t m = 0; m < M; ++m) {
    for (std::int64_t k = 0; k < K; ++k) q[std::size_t(m * K + k)] = std::uint8_t(k);
    for (std::int64_t kb = 0; kb < K / 32; ++kb) s[std::size_t(m * (K / 32) + kb)] = std::uint8_t(m);
  }
  const auto qv = View2D<const std::uint8_t>::row_major(q.data(), M, K);
  const auto sv = View2D<const std::uint8_t>::row_major(s.data(), M, K / 32);
  const std::vector<float> out32 = octet::mx_dequantize_dim0_fp32(r, qv, sv);
  const std::vector<std::uint16_t> out16 = octet::mx_dequantize_dim0_bf16(r, qv, sv);
  int bad = 0;
  for (std::int64_t m = 0; m < M; ++m)
    for (std::int64_t k = 0; k < K; ++k) {
      const std::size_t i = std::size_t(m * K + k);
      const double exact = decode_elem(f, std::uint8_t(k)) * decode_e8m0(std::uint8_t(m));
      const float as_f32 = float(exact);  // exact: every such product is an fp32 value (or overflows)
      const std::uint32_t want32 = std::isnan(exact) ? 0x7FC00000u : f32_bits(as_f32);
      const std::uint16_t want16 = std::isnan(exact) ? std::uint16_t(0x7FC0) : bf16_rne(as_f32);
      if ((f32_bits(out32[i]) != want32 || out16[i] != want16) && ++bad <= 8)
        ADD_FAILURE() << "dequant mismatch at flat " << i << " (row " << m << ", col " << k << "): code " << hex(k, 2)
                      << ", scale " << hex(m, 2) << "; exact " << num(exact) << "; fp32 got "
                      << hex(f32_bits(out32[i]), 8) << " want " << hex(want32, 8) << "; bf16 got " << hex(out16[i], 4)
                      << " (" << num(bf16_value(out16[i])) << ") want " << hex(want16, 4) << " ("
                      << num(bf16_value(want16)) << ")";
    }
  EXPECT_EQ(bad, 0);
  // Scale byte 255: the whole block is NaN whatever the codes.
  for (std::int64_t k = 0; k < K; ++k) {
    EXPECT_TRUE(std::isnan(out32[std::size_t(255 * K + k)]));
    EXPECT_EQ(out16[std::size_t(255 * K + k)], 0x7FC0);
  }
}

// dequantize(quantize(x)) within half an element ulp × decode scale, for elements the scale does
// not saturate; fp32 and bf16 inputs, fp32 output.
TEST_P(Dequant, RoundTripWithinHalfUlp) {
  const Recipe& r = octet::recipe(GetParam());
  const octet::Format& ef = octet::format_of(octet::element_format(r));
  for (InputType t : {InputType::fp32, InputType::bf16}) {
    const Geometry g{Kind::Dim0, 1, 64, 256};
    const Input in = adversarial(g, t, 0x5EED0400 + int(t), {kNormal, kWideNormal, kTies, kBelowPow2});
    const auto q = t == InputType::fp32
                       ? octet::mx_quantize_dim0(r, View2D<const float>::row_major(in.f32.data(), g.R, g.C))
                       : octet::mx_quantize_dim0(r, View2D<const std::uint16_t>::row_major(in.b16.data(), g.R, g.C));
    const std::vector<float> x_hat = octet::mx_dequantize_dim0_fp32(r, q.data_view(), q.scale_view());
    int bad = 0, checked = 0;
    for (std::int64_t m = 0; m < g.R; ++m)
      for (std::int64_t k = 0; k < g.C; ++k) {
        const std::uint8_t b = q.scale[std::size_t(m * (g.C / 32) + k / 32)];
        if (b == 0 || b == 255) continue;  // byte 0's multiplier differs from 2^127 in the v0.18 recipes
        const double x = in.value(in.flat(0, m, k)), d = decode_e8m0(b);
        const double y = std::fabs(x) / d;  // the scaled element, exact
        if (!std::isfinite(y) || y > octet::decode(ef, ef.max_finite_code())) continue;  // saturated by the scale rule
        const int e = y == 0 ? ef.emin() : std::max(int(std::floor(std::log2(y))), ef.emin());
        const double bound = 0.5 * std::ldexp(1.0, e - ef.mantissa_bits) * d;
        const double err = std::fabs(x - double(x_hat[std::size_t(m * g.C + k)]));
        ++checked;
        if (!(err <= bound) && ++bad <= 8)
          ADD_FAILURE() << (t == InputType::fp32 ? "fp32" : "bf16") << " input, flat " << m * g.C + k << " (row " << m
                        << ", col " << k << "): x " << in.describe(in.flat(0, m, k)) << " code "
                        << hex(q.data[std::size_t(m * g.C + k)], 2) << " scale " << hex(b, 2) << " x_hat "
                        << num(x_hat[std::size_t(m * g.C + k)]) << " |err| " << num(err) << " > " << num(bound);
      }
    EXPECT_EQ(bad, 0);
    EXPECT_GT(checked, g.R * g.C / 2);
  }
}

// Any strides of q and scale: the dequantisation of the dim1 output read through its transpose
// (K, M) equals dequantize_dim0 of the same bytes made contiguous.
TEST_P(Dequant, StridedViews) {
  const Recipe& r = octet::recipe(GetParam());
  const Geometry g{Kind::Dim1, 1, 96, 64};
  const Input in = adversarial(g, InputType::bf16, 0x5EED0500, all_patterns());
  const auto q = octet::mx_quantize_dim1(r, View2D<const std::uint16_t>::row_major(in.b16.data(), g.R, g.C));
  // The (K, M) row-major views of q's column-major bytes and of the (K, M/32) scales.
  const auto qt = View2D<const std::uint8_t>::row_major(q.data.data(), g.C, g.R);
  const auto st = View2D<const std::uint8_t>::row_major(q.scale.data(), g.C, g.R / 32);
  const std::vector<std::uint16_t> a = octet::mx_dequantize_dim0_bf16(r, qt, st);
  // The same through a strided view: data as (K, M) with strides (1, K) of a transposed copy.
  std::vector<std::uint8_t> copy(q.data.size());
  for (std::int64_t k = 0; k < g.C; ++k)
    for (std::int64_t m = 0; m < g.R; ++m) copy[std::size_t(m * g.C + k)] = q.data[std::size_t(k * g.R + m)];
  const View2D<const std::uint8_t> strided{copy.data(), g.C, g.R, 1, g.C};
  EXPECT_EQ(octet::mx_dequantize_dim0_bf16(r, strided, st), a);
}

INSTANTIATE_TEST_SUITE_P(MxKernels, Dequant, ::testing::ValuesIn(mx_recipe_names()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

// ---------------------------------------------------------------------------------------------
// 5. Misuse: std::invalid_argument whose message names the argument.

void expect_invalid(const std::function<void()>& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected std::invalid_argument mentioning '" << needle << "'";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << "message: " << e.what();
  } catch (...) {
    ADD_FAILURE() << "wrong exception type; expected std::invalid_argument mentioning '" << needle << "'";
  }
}

TEST(MxKernelsMisuse, DimsNotMultipleOf32NameTheDim) {
  const Recipe& r = octet::recipe("torchao_mx_rceil");
  std::vector<std::uint16_t> x(64 * 64);
  std::vector<float> xf(64 * 64);
  const auto v = [&](std::int64_t a, std::int64_t b) { return View2D<const std::uint16_t>::row_major(x.data(), a, b); };
  const auto v3 = [&](std::int64_t a, std::int64_t b) {
    return View3D<const std::uint16_t>::row_major(x.data(), 1, a, b);
  };
  expect_invalid([&] { octet::mx_quantize_dim0(r, v(32, 33)); }, "(K) = 33");
  expect_invalid([&] { octet::mx_quantize_dim0(r, View2D<const float>::row_major(xf.data(), 2, 48)); }, "x.cols (K)");
  expect_invalid([&] { octet::mx_quantize_dim1(r, v(48, 32)); }, "x.rows (M) = 48");
  expect_invalid([&] { octet::mx_quantize_2d(r, v(40, 32), true, false); }, "x.rows = 40");
  expect_invalid([&] { octet::mx_quantize_2d(r, v(32, 40), false, true); }, "x.cols = 40");
  expect_invalid([&] { octet::mx_quantize_3d(r, v3(40, 32), MxBlock3D::Block32x1); }, "x.rows (N) = 40");
  expect_invalid([&] { octet::mx_quantize_3d(r, v3(32, 40), MxBlock3D::Block32x32); }, "x.cols (K) = 40");
  // Dims the block does not run along may be anything.
  EXPECT_NO_THROW(octet::mx_quantize_dim0(r, v(7, 32)));
  EXPECT_NO_THROW(octet::mx_quantize_dim1(r, v(32, 7)));
  EXPECT_NO_THROW(octet::mx_quantize_3d(r, v3(32, 40), MxBlock3D::Block32x1));
  const std::vector<std::uint8_t> q(64 * 64), s(64 * 2);
  const auto qv = [&](std::int64_t a, std::int64_t b) { return View2D<const std::uint8_t>::row_major(q.data(), a, b); };
  const auto sv = [&](std::int64_t a, std::int64_t b) { return View2D<const std::uint8_t>::row_major(s.data(), a, b); };
  expect_invalid([&] { octet::mx_dequantize_dim0_fp32(r, qv(2, 33), sv(2, 1)); }, "q.cols (K) = 33");
  expect_invalid([&] { octet::mx_dequantize_dim0_bf16(r, qv(2, 64), sv(3, 2)); }, "scale.rows (M)");
  expect_invalid([&] { octet::mx_dequantize_dim0_bf16(r, qv(2, 64), sv(2, 3)); }, "scale.cols (K/32)");
}

TEST(MxKernelsMisuse, NonMxRecipeNullDataNegativeShapeNoDirection) {
  const Recipe& mx = octet::recipe("torchao_mx_rceil");
  std::vector<std::uint16_t> x(64 * 64);
  const auto v = View2D<const std::uint16_t>::row_major(x.data(), 64, 64);
  for (const Recipe& r : octet::recipes()) {
    if (octet::storage(r) == octet::ScaleStorage::E8m0) continue;
    expect_invalid([&] { octet::mx_quantize_dim0(r, v); }, "recipe '" + std::string(octet::name(r)) + "'");
    expect_invalid([&] { octet::mx_quantize_dim1(r, v); }, "recipe");
    expect_invalid([&] { octet::mx_quantize_2d(r, v, true, true); }, "recipe");
    expect_invalid([&] { octet::mx_quantize_3d(r, View3D<const std::uint16_t>::row_major(x.data(), 1, 64, 64),
                                               MxBlock3D::Block32x1); },
                   "recipe");
    const std::vector<std::uint8_t> q(64 * 64), s(64 * 2);
    expect_invalid([&] { octet::mx_dequantize_dim0_fp32(r, View2D<const std::uint8_t>::row_major(q.data(), 64, 64),
                                                        View2D<const std::uint8_t>::row_major(s.data(), 64, 2)); },
                   "recipe");
  }
  expect_invalid([&] { octet::mx_quantize_dim0(mx, View2D<const float>::row_major(nullptr, 4, 32)); }, "x.data is null");
  expect_invalid([&] { octet::mx_quantize_dim1(mx, View2D<const std::uint16_t>{x.data(), -32, 32, 32, 1}); },
                 "x has a negative shape");
  expect_invalid([&] { octet::mx_quantize_2d(mx, v, false, false); }, "rowwise and colwise");
  expect_invalid([&] { octet::mx_quantize_3d(mx, View3D<const std::uint16_t>::row_major(x.data(), 1, 64, 64),
                                             MxBlock3D(7)); },
                 "block");
}

TEST(MxKernelsMisuse, EmptyShapesGiveEmptyOutputs) {
  const Recipe& r = octet::recipe("torchao_mx_rceil");
  const auto a = octet::mx_quantize_dim0(r, View2D<const float>::row_major(nullptr, 0, 64));
  EXPECT_TRUE(a.data.empty());
  EXPECT_TRUE(a.scale.empty());
  const auto b = octet::mx_quantize_dim1(r, View2D<const float>::row_major(nullptr, 0, 64));
  EXPECT_EQ(b.scale_rows, 64);
  EXPECT_EQ(b.scale_cols, 0);
  const auto c = octet::mx_quantize_3d(r, View3D<const float>::row_major(nullptr, 0, 32, 32), MxBlock3D::Block32x32);
  EXPECT_TRUE(c.data.empty());
}

TEST(MxKernelsRegistry, EveryKernelIsListedWithItsPeer) {
  for (const char* name : {"mx_quantize_dim0", "mx_quantize_dim1", "mx_quantize_2d", "mx_quantize_3d",
                           "mx_dequantize_dim0", "mx_blocked_scales"}) {
    const auto all = octet::registry();
    const auto it = std::find_if(all.begin(), all.end(), [&](const octet::RegistryEntry& e) { return e.name == name; });
    ASSERT_NE(it, all.end()) << name;
    EXPECT_EQ(it->kind, octet::EntryKind::kernel);
    EXPECT_FALSE(it->peer.empty());
    EXPECT_FALSE(it->summary.empty());
  }
}

}  // namespace
