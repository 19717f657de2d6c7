// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// A second, naive implementation of every recipe's scale (recipes.md §1-§7), written from the
// document with doubles, frexp/ldexp and plain ifs, and compared with scale_from_amax on the
// stored bits. The amax of a one-element block {x} goes through amax_update, so the NaN rules are
// swept too. Inputs: every bf16 bit pattern, every fp32 within +-3000 ulps of c*2^k for
// c in {448 (so 57344), 240, 1, 1.9375, 2688} (where the power-of-two decisions flip, §9), and
// random fp32 patterns.
//
// Conventions of the comparison: a NaN scale is stored as the canonical device NaN 0x7FFFFFFF.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "octet/scale.hpp"
#include "scale_test_util.hpp"

namespace {

using namespace scale_test;

constexpr std::uint32_t kNan = 0x7FFFFFFFu;
constexpr double kR = 0.002232142956927418709;  // fl32(1/448) = 0x3B124925, exactly

// ---- naive helpers (doubles; an fp32 value is exact in double) ----

std::uint32_t store(double v) {
  const float f = float(v);  // one rounding from double; v is exact or correctly rounded below
  return std::isnan(f) ? kNan : fbits(f);
}
int floor_log2(double a) {  // a > 0, finite
  int e = 0;
  std::frexp(a, &e);
  return e - 1;
}
int ceil_log2(double a) {  // a > 0, finite
  int e = 0;
  const double m = std::frexp(a, &e);
  return m == 0.5 ? e - 1 : e;
}
double floor_pow2(double s) {
  if (std::isnan(s) || std::isinf(s) || s == 0.0) return s;
  return std::ldexp(1.0, floor_log2(s));
}
// fl32(a*b) and fl32(a/b) of fp32 operands: the double product is exact, and a double quotient
// rounded again to fp32 is the correctly rounded fp32 quotient (53 >= 2*24 + 2).
float mul32(float a, double b) { return float(double(a) * b); }
float div32(double a, double b) { return float(a / b); }

// e8m0 byte by rounding d up to 2^k (RP): d <= 2^-127 -> 0; k > 127 -> 255 (or 254 satfinite).
std::uint32_t rp_byte(float d, bool sat) {
  if (std::isnan(d)) return 255;
  if (std::isinf(d)) return sat ? 254 : 255;
  if (d == 0.0f) return 0;
  const int k = ceil_log2(d);
  if (k <= -127) return 0;
  if (k > 127) return sat ? 254 : 255;
  return std::uint32_t(k + 127);
}
std::uint32_t floor_byte(float a, int emax) {
  if (!std::isfinite(a)) return 255;
  if (a == 0.0f) return 0;
  const int x = floor_log2(a) - emax;
  if (x < -127) return 0;
  if (x > 127) return 255;
  return std::uint32_t(x + 127);
}
std::uint32_t ceil_byte(float a, int emax) {
  if (!std::isfinite(a)) return 255;
  if (a == 0.0f) return 0;
  const int x = ceil_log2(a) - emax;
  if (x < -127) return 0;
  if (x > 127) return 255;
  return std::uint32_t(x + 127);
}
// EVEN: the exponent goes up where the significand rounds (3 mantissa bits, half up) to 2.
std::uint32_t even_byte(float a, int emax) {
  if (!std::isfinite(a)) return 255;
  if (a == 0.0f) return 0;
  int e = 0;
  const double m = std::frexp(double(a), &e);  // a = m * 2^e, m in [0.5, 1)
  const bool up = 2.0 * m >= 1.9375;
  if (a >= std::ldexp(1.9375, 127)) return 255;  // rounds to Inf
  if (double(a) < std::ldexp(1.0, -126)) return 0;
  const int x = (e - 1) + (up ? 1 : 0) - emax;
  if (x < -127) return 0;
  return std::uint32_t(x + 127);
}
std::uint32_t rceil_v018_byte(float a) {
  const float d = div32(a, 448.0);
  if (std::isnan(d)) return 255;
  if (std::isinf(d)) return 254;
  if (d == 0.0f) return 0;
  return std::uint32_t(std::clamp(ceil_log2(d), -127, 127) + 127);
}

// e4m3fn RNE of u in [-448, 448]: the nearest of the finite codes 0x00..0x7E (values written out
// from the format, ascending), ties to the even code.
std::uint32_t e4m3_nearest(float u) {
  static const std::vector<double> values = [] {
    std::vector<double> v;
    for (int c = 0; c < 0x7F; ++c) {
      const int e = c >> 3, m = c & 7;
      v.push_back(e == 0 ? std::ldexp(m / 8.0, -6) : std::ldexp(1.0 + m / 8.0, e - 7));
    }
    return v;
  }();
  if (std::isnan(u)) return 0x7F;
  const double a = std::fabs(double(u));
  const auto hi = std::lower_bound(values.begin(), values.end(), a);
  std::uint32_t code = std::uint32_t(hi - values.begin());
  if (hi == values.end()) {
    code = 0x7E;
  } else if (hi != values.begin()) {
    const double below = a - *(hi - 1), above = *hi - a;
    if (below < above || (below == above && ((code - 1) & 1) == 0)) code -= 1;
  }
  return (std::signbit(u) ? 0x80u : 0u) | code;
}

// ---- the reference, per recipe name ----

enum class Amax { propagate, drop, deepep };
float ref_amax(Amax rule, float x) {
  const float a = std::fabs(x);
  switch (rule) {
    case Amax::propagate: return a;
    case Amax::drop: return std::isnan(a) ? 0.0f : a;
    case Amax::deepep: return std::isnan(a) ? float(1e-4) : std::max(a, float(1e-4));
  }
  return a;
}

struct Reference {
  std::string name;
  double max;
  std::uint32_t (*stored)(double max, float x);
};

std::uint32_t torchao_rowwise(double max, float x, bool pow2) {
  const float a = ref_amax(Amax::propagate, x);
  if (std::isnan(a)) return kNan;
  const double ac = std::max(double(a), 1e-12);
  double s = float(max / ac);
  if (pow2) s = floor_pow2(s);
  return store(s);
}
std::uint32_t torchao_blockwise(double max, float x) {
  const float a = std::max(ref_amax(Amax::drop, x), float(1e-12));
  const float s = div32(max, a);
  return store(1.0 / double(s));
}
std::uint32_t te_per_tensor(double max, float x, bool pow2) {
  const float a = ref_amax(Amax::drop, x);
  double s = 1.0;
  if (a != 0.0f && !std::isinf(a)) {
    s = div32(max, a);
    if (std::isinf(s)) s = FLT_MAX;
    if (pow2) s = floor_pow2(s);
  }
  return store(1.0 / s);
}
std::uint32_t deepgemm(float x, bool ue8m0) {
  const float a = ref_amax(Amax::propagate, x);
  if (std::isnan(a)) return ue8m0 ? fbits(std::ldexp(1.0f, 127)) : kNan;
  const float d = div32(std::max(a, float(1e-4)), 448.0);
  if (!ue8m0) return store(d);
  if (std::isinf(d)) return fbits(std::ldexp(1.0f, 127));
  return store(std::ldexp(1.0, std::clamp(ceil_log2(d), -126, 127)));
}
std::uint32_t deepep(float x, bool round) {
  const float d = mul32(ref_amax(Amax::deepep, x), kR);
  if (!round || std::isinf(d)) return store(d);
  return store(std::ldexp(1.0, ceil_log2(d)));
}
std::uint32_t nvfp4(float x) {
  const float a = ref_amax(Amax::propagate, x);
  if (std::isnan(a)) return 0x7F;
  float ge = 1.0f;
  if (a != 0.0f) ge = std::min(div32(2688.0, a), FLT_MAX);
  const float t = mul32(ge, double(float(1.0 / 6.0)));
  const float u = std::min(mul32(a, double(t)), 448.0f);
  return e4m3_nearest(u);
}

std::vector<Reference> references() {
  std::vector<Reference> v;
  v.push_back({"torchao_fp8_rowwise", 448, [](double m, float x) { return torchao_rowwise(m, x, false); }});
  v.push_back({"torchao_fp8_rowwise_pow2", 448, [](double m, float x) { return torchao_rowwise(m, x, true); }});
  v.push_back({"torchao_fp8_rowwise_e4m3fnuz", 240, [](double m, float x) { return torchao_rowwise(m, x, false); }});
  v.push_back({"torchao_fp8_rowwise_pow2_e4m3fnuz", 240, [](double m, float x) { return torchao_rowwise(m, x, true); }});
  v.push_back({"torchao_mx_floor", 448, [](double, float x) { return floor_byte(std::fabs(x), 8); }});
  v.push_back({"torchao_mx_ceil", 448, [](double, float x) { return ceil_byte(std::fabs(x), 8); }});
  v.push_back({"torchao_mx_even", 448, [](double, float x) { return even_byte(std::fabs(x), 8); }});
  v.push_back({"torchao_mx_rceil", 448, [](double, float x) { return rp_byte(mul32(std::fabs(x), kR), false); }});
  v.push_back({"torchao_mx_floor_v018", 448, [](double, float x) { return floor_byte(std::fabs(x), 8); }});
  v.push_back({"torchao_mx_rceil_v018", 448, [](double, float x) { return rceil_v018_byte(std::fabs(x)); }});
  v.push_back({"torchao_blockwise", 448, [](double m, float x) { return torchao_blockwise(m, x); }});
  v.push_back({"torchao_blockwise_e4m3fnuz", 240, [](double m, float x) { return torchao_blockwise(m, x); }});
  v.push_back({"te_current", 448, [](double m, float x) { return te_per_tensor(m, x, false); }});
  v.push_back({"te_current_pow2", 448, [](double m, float x) { return te_per_tensor(m, x, true); }});
  v.push_back({"te_current_e5m2", 57344, [](double m, float x) { return te_per_tensor(m, x, false); }});
  v.push_back({"te_current_pow2_e5m2", 57344, [](double m, float x) { return te_per_tensor(m, x, true); }});
  v.push_back({"te_delayed", 448, [](double m, float x) { return te_per_tensor(m, x, false); }});
  v.push_back({"te_delayed_e5m2", 57344, [](double m, float x) { return te_per_tensor(m, x, false); }});
  v.push_back({"te_blockwise", 448, [](double m, float x) { return te_per_tensor(m, x, true); }});
  v.push_back({"te_blockwise_fp32", 448, [](double m, float x) { return te_per_tensor(m, x, false); }});
  v.push_back({"te_mxfp8", 448, [](double, float x) { return rp_byte(mul32(ref_amax(Amax::drop, x), kR), true); }});
  v.push_back({"nvidia_rceil_rcp_approx", 448,
               [](double, float x) { return rp_byte(mul32(ref_amax(Amax::drop, x), kR), true); }});
  v.push_back({"deepgemm", 448, [](double, float x) { return deepgemm(x, false); }});
  v.push_back({"deepgemm_ue8m0", 448, [](double, float x) { return deepgemm(x, true); }});
  v.push_back({"deepep", 448, [](double, float x) { return deepep(x, false); }});
  v.push_back({"deepep_round", 448, [](double, float x) { return deepep(x, true); }});
  v.push_back({"ocp_mx", 448, [](double, float x) { return floor_byte(std::fabs(x), 8); }});
  v.push_back({"nvfp4", 6, [](double, float x) { return nvfp4(x); }});
  return v;
}

// ---- the sweep ----

std::vector<std::uint32_t> sweep_inputs() {
  std::vector<std::uint32_t> in;
  for (std::uint32_t b = 0; b < 0x10000u; ++b) in.push_back(b << 16);  // every bf16
  for (const double c : {448.0, 240.0, 1.0, 1.9375, 2688.0}) {
    for (int k = -160; k <= 130; ++k) {
      const double center = std::ldexp(c, k);
      if (center > FLT_MAX || float(center) == 0.0f || double(float(center)) != center) continue;
      const std::int64_t mid = fbits(float(center));
      for (std::int64_t d = -3000; d <= 3000; ++d) {
        const std::int64_t b = mid + d;
        if (b < 0 || b > 0x7F7FFFFF) continue;
        in.push_back(std::uint32_t(b));
      }
    }
  }
  std::mt19937 rng(20260821);
  for (int i = 0; i < (1 << 18); ++i) in.push_back(rng());
  std::sort(in.begin(), in.end());
  in.erase(std::unique(in.begin(), in.end()), in.end());
  return in;
}

class ScaleReference : public ::testing::TestWithParam<std::string> {};

TEST_P(ScaleReference, StoredBitsMatchNaiveFormula) {
  static const std::vector<std::uint32_t> inputs = sweep_inputs();
  static const std::vector<Reference> refs = references();
  const auto it = std::find_if(refs.begin(), refs.end(), [&](const Reference& r) { return r.name == GetParam(); });
  ASSERT_NE(it, refs.end()) << "no reference for recipe " << GetParam();
  const octet::Recipe& r = octet::recipe(GetParam());
  std::int64_t mismatches = 0;
  for (const std::uint32_t xb : inputs) {
    const float x = fval(xb);
    const float amax = octet::amax_update(r, octet::amax_init(r), x);
    const std::uint32_t got = octet::scale_from_amax(r, amax).stored;
    const std::uint32_t want = it->stored(it->max, x);
    if (got != want && ++mismatches <= 8)
      std::printf("%s: x=0x%08x (%.9g) amax=0x%08x stored got 0x%08x want 0x%08x\n", std::string(r.name).c_str(), xb, double(x),
                  fbits(amax), got, want);
  }
  EXPECT_EQ(mismatches, 0) << r.name << ": " << mismatches << " of " << inputs.size() << " inputs differ";
}

std::vector<std::string> recipe_names() {
  std::vector<std::string> v;
  for (const auto& r : octet::recipes()) v.emplace_back(r.name);
  return v;
}

INSTANTIATE_TEST_SUITE_P(AllRecipes, ScaleReference, ::testing::ValuesIn(recipe_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// The MX multipliers, from the byte tables of §2.3, §2.7, §4.5 and §6.
TEST(ScaleReferenceMx, EncodeMultipliers) {
  for (const auto& r : octet::recipes()) {
    if (r.storage != octet::ScaleStorage::E8m0) continue;
    for (std::uint32_t b = 0; b < 256; ++b) {
      const float got = octet::scale_from_stored(r, b).encode;
      double want = std::ldexp(1.0, 127 - int(b));
      if (b == 255) want = NAN;
      if (r.name == "torchao_mx_rceil_v018" && b == 0) want = 1.0;
      if (r.name == "torchao_mx_floor_v018" && b == 0) want = std::ldexp(1.0, 126);
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got)) << r.name << " b=" << b;
      } else {
        EXPECT_EQ(double(got), want) << r.name << " b=" << b;
      }
      const float dec = octet::scale_from_stored(r, b).decode;
      if (b == 255) EXPECT_TRUE(std::isnan(dec));
      else EXPECT_EQ(double(dec), std::ldexp(1.0, int(b) - 127)) << r.name << " b=" << b;
    }
  }
}

}  // namespace
