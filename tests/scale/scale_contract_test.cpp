// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// The literal contracts of reference/recipes.md as test vectors: every expected value below is
// a published number (or the arithmetic recipes.md writes out), never one computed by octet.
#include <gtest/gtest.h>

#include <array>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "octet/profile.hpp"
#include "octet/registry.hpp"
#include "octet/scale.hpp"
#include "scale_test_util.hpp"

namespace {

using namespace scale_test;
using octet::recipe;

constexpr std::uint32_t kR = 0x3B124925u;  // fl32(1/448)

// ---------------------------------------------------------------------------------------------
// §2.6 RCEIL boundary vectors (torchao _mxfp8_test_utils.py::make_f32_to_e8m0_rceil_cases), and
// TE's satfinite RP (§4.5), which differs on the three largest.

struct RceilVector {
  std::uint32_t d;
  std::uint8_t nosat;
  std::uint8_t satfinite;
};
constexpr std::array<RceilVector, 10> kRceilVectors{{
    {0x00400000u, 0, 0},      // 2^-127: byte 0 exactly
    {0x00400001u, 1, 1},      // just above 2^-127
    {0x007FFFFFu, 1, 1},      // largest subnormal
    {0x3F7FFFFFu, 127, 127},  // just below 1
    {0x3F800001u, 128, 128},  // just above 1
    {0x7F000000u, 254, 254},  // 2^127
    {0x7F000001u, 255, 254},  // above 2^127: NOSAT 255, SATFINITE 254
    {0x7F7FFFFFu, 255, 254},  // FLT_MAX
    {0x7F800000u, 255, 254},  // +Inf
    {0x7FC00000u, 255, 255},  // NaN
}};

TEST(RceilBoundary, TorchaoMainNoSat) {
  for (const auto& v : kRceilVectors)
    EXPECT_EQ(octet::e8m0_rp(fval(v.d), false), v.nosat) << std::hex << "d=0x" << v.d;
}

TEST(RceilBoundary, TeSatfinite) {
  for (const auto& v : kRceilVectors)
    EXPECT_EQ(octet::e8m0_rp(fval(v.d), true), v.satfinite) << std::hex << "d=0x" << v.d;
}

// The same vectors through the recipes: amax = d * 448 is exact in fp32 where it is finite and
// fl32(amax * R) gives d back only where the product is exact; so drive the byte rule through
// amaxes chosen so that fl32(amax*R) = d: amax = 448 * 2^k gives d = 2^k exactly (fl32(448 R) = 1).
TEST(RceilBoundary, Fl32Of448TimesRIsOne) {
  EXPECT_EQ(448.0f * fval(kR), 1.0f);
  EXPECT_EQ(octet::scale_from_amax(recipe("torchao_mx_rceil"), 448.0f).stored, 127u);
  EXPECT_EQ(octet::scale_from_amax(recipe("te_mxfp8"), 448.0f).stored, 127u);
  EXPECT_EQ(octet::scale_from_amax(recipe("torchao_mx_rceil"), INFINITY).stored, 255u);
  EXPECT_EQ(octet::scale_from_amax(recipe("te_mxfp8"), INFINITY).stored, 254u);
  EXPECT_EQ(octet::scale_from_amax(recipe("nvidia_rceil_rcp_approx"), INFINITY).stored, 254u);
}

// ---------------------------------------------------------------------------------------------
// §10 torchao special-value contract (make_mxfp8_semantic_cases): 18 blocks of 32, RCEIL and
// FLOOR, bf16 and fp32 inputs. Data codes are e4m3fn.

enum class Dtype { bf16, fp32 };
const char* dtype_name(Dtype d) { return d == Dtype::bf16 ? "bf16" : "fp32"; }

float dtype_max(Dtype d) { return d == Dtype::bf16 ? fval(0x7F7F0000u) : FLT_MAX; }
float dtype_min_subnormal(Dtype d) { return d == Dtype::bf16 ? std::ldexp(1.0f, -133) : std::ldexp(1.0f, -149); }

struct Expect {
  std::uint32_t scale;
  std::uint8_t x0;    // the code of element 0
  std::uint8_t rest;  // the code of elements 1..31
};

struct SemanticCase {
  const char* name;
  float x0;    // element 0 (fp32 value; rounded to bf16 for bf16 inputs)
  float rest;  // elements 1..31
  Expect rceil_bf16, rceil_fp32, floor_bf16, floor_fp32;
};

std::vector<SemanticCase> semantic_cases() {
  const float nan = NAN, inf = INFINITY;
  const float bmax = dtype_max(Dtype::bf16), fmax_ = dtype_max(Dtype::fp32);
  const float bsub = dtype_min_subnormal(Dtype::bf16), fsub = dtype_min_subnormal(Dtype::fp32);
  std::vector<SemanticCase> c;
  // Uniform blocks write x0 == rest; dtype-dependent inputs are listed per dtype below.
  c.push_back({"zero", 0.0f, 0.0f, {0, 0x00, 0x00}, {0, 0x00, 0x00}, {0, 0x00, 0x00}, {0, 0x00, 0x00}});
  const float sn = std::ldexp(1.0f, -126);
  c.push_back({"smallest_normal", sn, sn, {0, 0x40, 0x40}, {0, 0x40, 0x40}, {0, 0x40, 0x40}, {0, 0x40, 0x40}});
  c.push_back({"mixed_inf", inf, 1.0f, {255, 0x7F, 0x7F}, {255, 0x7F, 0x7F}, {255, 0x7F, 0x7F}, {255, 0x7F, 0x7F}});
  c.push_back({"mixed_nan", nan, 1.0f, {255, 0x7F, 0x7F}, {255, 0x7F, 0x7F}, {255, 0x7F, 0x7F}, {255, 0x7F, 0x7F}});
  c.push_back({"pos_fp8_max", 448.0f, 448.0f, {127, 0x7E, 0x7E}, {127, 0x7E, 0x7E}, {127, 0x7E, 0x7E}, {127, 0x7E, 0x7E}});
  c.push_back({"neg_fp8_max", -448.0f, -448.0f, {127, 0xFE, 0xFE}, {127, 0xFE, 0xFE}, {127, 0xFE, 0xFE}, {127, 0xFE, 0xFE}});
  c.push_back({"all_nan", nan, nan, {255, 0x7F, 0x7F}, {255, 0x7F, 0x7F}, {255, 0x7F, 0x7F}, {255, 0x7F, 0x7F}});
  c.push_back({"pos_satfinite", 480.0f, 480.0f, {128, 0x77, 0x77}, {128, 0x77, 0x77}, {127, 0x7E, 0x7E}, {127, 0x7E, 0x7E}});
  c.push_back({"neg_satfinite", -480.0f, -480.0f, {128, 0xF7, 0xF7}, {128, 0xF7, 0xF7}, {127, 0xFE, 0xFE}, {127, 0xFE, 0xFE}});
  // 0x40600001 = 3.5 + 1 ulp: bf16 rounds it to 3.5.
  const float p1 = fval(0x40600001u);
  c.push_back({"rceil_premature_bf16_lowers_scale", p1, p1, {120, 0x7E, 0x7E}, {121, 0x76, 0x76}, {120, 0x7E, 0x7E},
               {120, 0x7E, 0x7E}});
  // 0x43FFFFFF just below 512: bf16 rounds it to 512.
  const float p2 = fval(0x43FFFFFFu);
  c.push_back({"floor_premature_bf16_raises_scale", p2, p2, {128, 0x78, 0x78}, {128, 0x78, 0x78}, {128, 0x78, 0x78},
               {127, 0x7E, 0x7E}});
  (void)bmax, (void)fmax_, (void)bsub, (void)fsub;
  return c;
}

// The dtype-dependent cases: their input is the dtype's max or smallest subnormal.
struct DtypeCase {
  const char* name;
  float (*x0)(Dtype);
  float (*rest)(Dtype);
  Expect rceil_bf16, rceil_fp32, floor_bf16, floor_fp32;
};

std::vector<DtypeCase> dtype_cases() {
  auto pmax = [](Dtype d) { return dtype_max(d); };
  auto nmax = [](Dtype d) { return -dtype_max(d); };
  auto psub = [](Dtype d) { return dtype_min_subnormal(d); };
  auto nsub = [](Dtype d) { return -dtype_min_subnormal(d); };
  auto one = [](Dtype) { return 1.0f; };
  std::vector<DtypeCase> c;
  c.push_back({"pos_dtype_max", pmax, pmax, {247, 0x78, 0x78}, {247, 0x78, 0x78}, {246, 0x7E, 0x7E}, {246, 0x7E, 0x7E}});
  c.push_back({"neg_dtype_max", nmax, nmax, {247, 0xF8, 0xF8}, {247, 0xF8, 0xF8}, {246, 0xFE, 0xFE}, {246, 0xFE, 0xFE}});
  c.push_back({"pos_smallest_subnormal", psub, psub, {0, 0x08, 0x08}, {0, 0x00, 0x00}, {0, 0x08, 0x08}, {0, 0x00, 0x00}});
  c.push_back({"neg_smallest_subnormal", nsub, nsub, {0, 0x88, 0x88}, {0, 0x80, 0x80}, {0, 0x88, 0x88}, {0, 0x80, 0x80}});
  c.push_back({"mixed_pos_underflow", psub, one, {119, 0x00, 0x78}, {119, 0x00, 0x78}, {119, 0x00, 0x78}, {119, 0x00, 0x78}});
  c.push_back({"mixed_neg_underflow", nsub, one, {119, 0x80, 0x78}, {119, 0x80, 0x78}, {119, 0x80, 0x78}, {119, 0x80, 0x78}});
  c.push_back({"mixed_saturation_and_underflow", pmax, one, {247, 0x78, 0x00}, {247, 0x78, 0x00}, {246, 0x7E, 0x00},
               {246, 0x7E, 0x00}});
  return c;
}

void check_block(const char* case_name, const char* recipe_name, Dtype dt, float x0, float rest, const Expect& want) {
  std::vector<float> x(32, rest);
  x[0] = x0;
  if (dt == Dtype::bf16)
    for (float& v : x) v = round_to_bf16(v);
  const QuantizedBlock q = quantize_block(recipe(recipe_name), x);
  EXPECT_EQ(q.scale.stored, want.scale) << case_name << " [" << recipe_name << ", " << dtype_name(dt) << "] scale";
  for (int i = 0; i < 32; ++i) {
    const std::uint32_t w = i == 0 ? want.x0 : want.rest;
    if (q.codes[i] != w) {
      ADD_FAILURE() << case_name << " [" << recipe_name << ", " << dtype_name(dt) << "]: element " << i << " (x=0x"
                    << std::hex << fbits(x[i]) << ") got code 0x" << q.codes[i] << " want 0x" << w;
      break;
    }
  }
}

TEST(TorchaoSemanticCases, RceilAndFloor) {
  const auto uniform = semantic_cases();
  const auto per_dtype = dtype_cases();
  EXPECT_EQ(uniform.size() + per_dtype.size(), 18u);
  for (const auto& c : uniform) {
    check_block(c.name, "torchao_mx_rceil", Dtype::bf16, c.x0, c.rest, c.rceil_bf16);
    check_block(c.name, "torchao_mx_rceil", Dtype::fp32, c.x0, c.rest, c.rceil_fp32);
    check_block(c.name, "torchao_mx_floor", Dtype::bf16, c.x0, c.rest, c.floor_bf16);
    check_block(c.name, "torchao_mx_floor", Dtype::fp32, c.x0, c.rest, c.floor_fp32);
  }
  for (const auto& c : per_dtype) {
    for (const Dtype dt : {Dtype::bf16, Dtype::fp32}) {
      const bool b = dt == Dtype::bf16;
      check_block(c.name, "torchao_mx_rceil", dt, c.x0(dt), c.rest(dt), b ? c.rceil_bf16 : c.rceil_fp32);
      check_block(c.name, "torchao_mx_floor", dt, c.x0(dt), c.rest(dt), b ? c.floor_bf16 : c.floor_fp32);
    }
  }
}

// recipes.md §10 "checks of the arithmetic": 3.5 R = 2^-7 exactly; one ulp more is 0x3C000001.
TEST(TorchaoSemanticCases, ArithmeticChecks) {
  EXPECT_EQ(fbits(3.5f * fval(kR)), 0x3C000000u);
  EXPECT_EQ(fbits(fval(0x40600001u) * fval(kR)), 0x3C000001u);
}

// §2.3 reciprocal table: b = 0 -> 2^127, b = 254 -> 2^-127 (0x00400000), b = 255 -> NaN 0x7F800001.
TEST(MxReciprocal, TorchaoMain) {
  const auto& r = recipe("torchao_mx_rceil");
  EXPECT_EQ(fbits(octet::e8m0_encode_multiplier(r, 0)), 0x7F000000u);
  EXPECT_EQ(fbits(octet::e8m0_encode_multiplier(r, 127)), 0x3F800000u);
  EXPECT_EQ(fbits(octet::e8m0_encode_multiplier(r, 254)), 0x00400000u);
  EXPECT_EQ(fbits(octet::e8m0_encode_multiplier(r, 255)), 0x7F800001u);
  EXPECT_EQ(fbits(octet::e8m0_decode(0)), 0x00400000u);
  EXPECT_EQ(fbits(octet::e8m0_decode(254)), 0x7F000000u);
  EXPECT_TRUE(std::isnan(octet::e8m0_decode(255)));
}

// §4.5 exp2f_rcp: 255 -> 0x7FFFFFFF, 254 -> 2^-127, otherwise (254 - e) << 23.
TEST(MxReciprocal, TeExp2fRcp) {
  const auto& r = recipe("te_mxfp8");
  EXPECT_EQ(fbits(octet::e8m0_encode_multiplier(r, 255)), 0x7FFFFFFFu);
  EXPECT_EQ(fbits(octet::e8m0_encode_multiplier(r, 254)), 0x00400000u);
  EXPECT_EQ(fbits(octet::e8m0_encode_multiplier(r, 0)), 254u << 23);
  EXPECT_EQ(fbits(octet::e8m0_encode_multiplier(r, 100)), 154u << 23);
}

// §4.5 / §8: Inf -> 0xFE, multiplier 2^-127: Inf -> +-448, finite -> ~0; zero block 0x00.
TEST(TeMxfp8, SpecialBlocks) {
  const auto& r = recipe("te_mxfp8");
  std::vector<float> x(32, 1.0f);
  x[0] = INFINITY;
  x[1] = -INFINITY;
  const QuantizedBlock q = quantize_block(r, x);
  EXPECT_EQ(q.scale.stored, 0xFEu);
  EXPECT_EQ(q.codes[0], 0x7Eu);
  EXPECT_EQ(q.codes[1], 0xFEu);
  EXPECT_EQ(q.codes[2], 0x00u);
  const QuantizedBlock z = quantize_block(r, std::vector<float>(32, 0.0f));
  EXPECT_EQ(z.scale.stored, 0x00u);
  EXPECT_EQ(z.codes[0], 0x00u);
}

// §2.7: v0.18 RCEIL Inf -> 254, reciprocal 2^-127 (Inf -> 448, finite -> ~0); byte 0 -> reciprocal 1.0.
TEST(TorchaoMxV018, Specials) {
  const auto& rc = recipe("torchao_mx_rceil_v018");
  const auto inf = octet::scale_from_amax(rc, INFINITY);
  EXPECT_EQ(inf.stored, 254u);
  EXPECT_EQ(fbits(inf.encode), 0x00400000u);
  EXPECT_EQ(octet::quantize_element(rc, inf, INFINITY), 0x7Eu);
  EXPECT_EQ(octet::quantize_element(rc, inf, 1.0f), 0x00u);
  const auto zero = octet::scale_from_amax(rc, 0.0f);
  EXPECT_EQ(zero.stored, 0u);
  EXPECT_EQ(zero.encode, 1.0f);
  EXPECT_EQ(octet::scale_from_amax(rc, NAN).stored, 255u);
  // v0.18 torch FLOOR: byte 0 applied as 2^-126, i.e. data = x * 2^126.
  const auto& fl = recipe("torchao_mx_floor_v018");
  const auto fz = octet::scale_from_amax(fl, 0.0f);
  EXPECT_EQ(fz.stored, 0u);
  EXPECT_EQ(fz.encode, std::ldexp(1.0f, 126));
  EXPECT_EQ(fbits(fz.decode), 0x00400000u);  // stored 2^-127
}

// ---------------------------------------------------------------------------------------------
// §1 / §3 torchao FP8 rowwise and blockwise.

TEST(TorchaoRowwise, ZeroBlock) {
  const auto s = octet::scale_from_amax(recipe("torchao_fp8_rowwise"), 0.0f);
  EXPECT_EQ(s.stored, 0x57CBBA10u);  // fl32(448/1e-12) = 4.4799998558e14
  EXPECT_EQ(octet::scale_from_amax(recipe("torchao_fp8_rowwise_pow2"), 0.0f).stored, fbits(std::ldexp(1.0f, 48)));
  const QuantizedBlock q = quantize_block(recipe("torchao_fp8_rowwise"), std::vector<float>(32, 0.0f));
  for (const auto c : q.codes) EXPECT_EQ(c, 0u);
}

// §8: torch reference: NaN amax -> s NaN -> row NaN; Inf amax -> s = 0 -> Inf*0 = NaN, finite -> 0.
TEST(TorchaoRowwise, SpecialsTorchReference) {
  for (const char* name : {"torchao_fp8_rowwise", "torchao_fp8_rowwise_pow2"}) {
    const auto& r = recipe(name);
    std::vector<float> x(8, 1.0f);
    x[0] = NAN;
    QuantizedBlock q = quantize_block(r, x);
    EXPECT_TRUE(std::isnan(octet::scale_from_amax(r, NAN).encode)) << name;
    for (const auto c : q.codes) EXPECT_EQ(c & 0x7Fu, 0x7Fu) << name;
    x[0] = INFINITY;
    q = quantize_block(r, x);
    EXPECT_EQ(q.scale.encode, 0.0f) << name;
    EXPECT_EQ(q.codes[0] & 0x7Fu, 0x7Fu) << name;
    EXPECT_EQ(q.codes[1], 0x00u) << name;
  }
}

// §1: the c10 cast after the clamp; unrounded scale: double rounding through fp32 (x*s rounded to
// fp32 first). amax = 448 gives s = 1, so x -> fl32(x) -> e4m3.
TEST(TorchaoRowwise, ClampThenCast) {
  const auto& r = recipe("torchao_fp8_rowwise");
  const auto s = octet::scale_from_amax(r, 224.0f);  // s = 2
  EXPECT_EQ(s.encode, 2.0f);
  EXPECT_EQ(octet::quantize_element(r, s, 224.0f), 0x7Eu);   // 448
  EXPECT_EQ(octet::quantize_element(r, s, 300.0f), 0x7Eu);   // 600 clamps to 448
  EXPECT_EQ(octet::quantize_element(r, s, -300.0f), 0xFEu);
  const auto& fnuz = recipe("torchao_fp8_rowwise_e4m3fnuz");
  EXPECT_EQ(fnuz.max_pos, 240.0f);
  const auto sf = octet::scale_from_amax(fnuz, 240.0f);
  EXPECT_EQ(sf.encode, 1.0f);
  EXPECT_EQ(octet::quantize_element(fnuz, sf, 240.0f), 0x7Fu);  // e4m3fnuz max 240 = 0.1111.111
}

TEST(TorchaoBlockwise, ZeroBlockStoredReciprocal) {
  const auto s = octet::scale_from_amax(recipe("torchao_blockwise"), 0.0f);
  EXPECT_EQ(fbits(s.encode), 0x57CBBA10u);
  EXPECT_EQ(double(fval(s.stored)), 2.2321429389771845e-15);
}

// §8 (Triton reading): NaN and Inf*0 -> +448 (fmin.xorsign.abs, canonical NaN); Inf amax -> s = 0.
TEST(TorchaoBlockwise, SpecialsTriton) {
  const auto& r = recipe("torchao_blockwise");
  std::vector<float> x(8, 1.0f);
  x[0] = NAN;
  QuantizedBlock q = quantize_block(r, x);
  EXPECT_EQ(q.scale.encode, 448.0f);  // tl.max drops the NaN: amax 1
  EXPECT_EQ(q.codes[0], 0x7Eu);
  EXPECT_EQ(q.codes[1], 0x7Eu);
  x[0] = INFINITY;
  q = quantize_block(r, x);
  EXPECT_EQ(q.scale.encode, 0.0f);
  EXPECT_TRUE(std::isinf(fval(q.scale.stored)));
  EXPECT_EQ(q.codes[0], 0x7Eu);
  EXPECT_EQ(q.codes[1], 0x00u);
}

// ---------------------------------------------------------------------------------------------
// §4 TransformerEngine.

// §4.4: an all-zero tile gives scale_inv = 1.0; a tile of finfo(bf16|fp32).max gives
// 1/2^floor(log2(448/max)) (pow2) or 1/(448/max).
TEST(TransformerEngine, ZeroAndMaxBlocks) {
  for (const char* name : {"te_current", "te_current_pow2", "te_blockwise", "te_blockwise_fp32"}) {
    const auto z = octet::scale_from_amax(recipe(name), 0.0f);
    EXPECT_EQ(z.encode, 1.0f) << name;
    EXPECT_EQ(z.stored, 0x3F800000u) << name;
  }
  for (const float max : {fval(0x7F7F0000u), FLT_MAX}) {
    const double pow2 = std::exp2(std::floor(std::log2(448.0 / double(max))));
    const auto p = octet::scale_from_amax(recipe("te_blockwise"), max);
    EXPECT_EQ(double(fval(p.stored)), 1.0 / pow2) << max;
    EXPECT_EQ(double(p.encode), pow2) << max;
    const float s = float(448.0 / double(max));
    const auto f = octet::scale_from_amax(recipe("te_blockwise_fp32"), max);
    EXPECT_EQ(fval(f.stored), float(1.0 / double(s))) << max;
  }
}

// §4.1: amax Inf or NaN -> scale 1; Inf scale -> value_for_inf (FLT_MAX), masked to 2^127.
TEST(TransformerEngine, ComputeScaleFromAmaxSpecials) {
  for (const char* name : {"te_current", "te_current_pow2", "te_blockwise", "te_blockwise_fp32", "te_current_e5m2"}) {
    EXPECT_EQ(octet::scale_from_amax(recipe(name), INFINITY).encode, 1.0f) << name;
    EXPECT_EQ(octet::scale_from_amax(recipe(name), NAN).encode, 1.0f) << name;
  }
  const float tiny = std::ldexp(1.0f, -140);  // 448/tiny overflows
  EXPECT_EQ(octet::scale_from_amax(recipe("te_current"), tiny).encode, FLT_MAX);
  EXPECT_EQ(fbits(octet::scale_from_amax(recipe("te_blockwise"), tiny).encode), 0x7F000000u);
  // bf16 max (0x7F7F) as value_for_inf masks to the same 2^127.
  EXPECT_EQ(fbits(fval(0x7F7F0000u)) & 0xFF800000u, 0x7F000000u);
}

// §4.3: TE amax drops NaN (fmaxf / __hmax); the NaN element casts to NaN (0x7F).
TEST(TransformerEngine, AmaxDropsNan) {
  const auto& r = recipe("te_current");
  std::vector<float> x{NAN, 2.0f, -1.0f};
  const QuantizedBlock q = quantize_block(r, x);
  EXPECT_EQ(q.scale.encode, 224.0f);
  EXPECT_EQ(q.codes[0], 0x7Fu);
  EXPECT_EQ(q.codes[1], 0x7Eu);
}

// §4.2 delayed scaling: window max or most recent; amax 0/Inf/NaN keep the previous scale.
TEST(TransformerEngine, DelayedScaling) {
  const auto& r = recipe("te_delayed");
  const std::vector<float> hist{2.0f, 7.0f, 0.0f};
  EXPECT_EQ(octet::te_delayed_scale(r, hist, 5.0f).encode, 64.0f);                   // 448/7
  EXPECT_EQ(octet::te_delayed_scale(r, hist, 5.0f, true).encode, 224.0f);            // 448/2
  EXPECT_EQ(octet::te_delayed_scale(r, hist, 5.0f, false, 1).encode, 32.0f);         // 224/7
  const std::vector<float> zero{0.0f, 0.0f};
  EXPECT_EQ(octet::te_delayed_scale(r, zero, 5.0f).encode, 5.0f);
  const std::vector<float> inf{INFINITY};
  EXPECT_EQ(octet::te_delayed_scale(r, inf, 5.0f, true).encode, 5.0f);
  const std::vector<float> nan{NAN};
  EXPECT_EQ(octet::te_delayed_scale(r, nan, 5.0f, true).encode, 5.0f);
  EXPECT_EQ(fval(octet::te_delayed_scale(r, zero, 5.0f).stored), 0.2f);               // scale_inv = fl32(1/5)
  const std::vector<float> tiny{std::ldexp(1.0f, -140)};
  EXPECT_EQ(octet::te_delayed_scale(r, tiny, 5.0f).encode, FLT_MAX);
  EXPECT_EQ(octet::scale_from_amax(r, 0.0f).encode, 1.0f);  // one-entry history, previous scale 1
  EXPECT_EQ(octet::scale_from_amax(recipe("te_delayed_e5m2"), 57344.0f).encode, 1.0f);
}

// ---------------------------------------------------------------------------------------------
// §5 DeepSeek.

TEST(DeepGemm, ZeroBlockFloor) {
  const auto s = octet::scale_from_amax(recipe("deepgemm"), 0.0f);
  EXPECT_EQ(double(fval(s.stored)), 2.2321428616578487e-07);  // fl32(1e-4)/448
  const auto u = octet::scale_from_amax(recipe("deepgemm_ue8m0"), 0.0f);
  EXPECT_EQ(fval(u.stored), std::ldexp(1.0f, -22));
  EXPECT_EQ(u.encode, std::ldexp(1.0f, 22));
}

// §5.1: the torch cast does not saturate: a value rounding above 448 becomes NaN.
TEST(DeepGemm, NoSaturation) {
  const auto& r = recipe("deepgemm");
  octet::BlockScale s;  // sf = 1: q = x
  EXPECT_EQ(octet::quantize_element(r, s, 448.0f), 0x7Eu);
  EXPECT_EQ(octet::quantize_element(r, s, 464.0f), 0x7Eu);  // the 448/480 midpoint: ties to even 448
  EXPECT_EQ(octet::quantize_element(r, s, 470.0f), 0x7Fu);  // rounds to 480 > 448: NaN, no saturation
  EXPECT_EQ(octet::quantize_element(r, s, -470.0f), 0xFFu);
}

TEST(DeepEp, NonReciprocalPair) {
  const auto& r = recipe("deepep");
  EXPECT_EQ(octet::amax_init(r), float(1e-4));
  const float a = float(1e-4);
  const auto s = octet::scale_from_amax(r, 0.0f);
  EXPECT_EQ(s.encode, 448.0f / a);
  EXPECT_EQ(fval(s.stored), a * fval(kR));
  // The two are not reciprocals in general: count amaxes in [1, 2) where fl32(1/d) != s.
  int differ = 0;
  for (std::uint32_t b = 0x3F800000u; b < 0x3F800000u + 4096; ++b) {
    const auto p = octet::scale_from_amax(r, fval(b));
    EXPECT_EQ(p.encode, 448.0f / fval(b));
    EXPECT_EQ(fval(p.stored), fval(b) * fval(kR));
    differ += (1.0f / fval(p.stored)) != p.encode;
  }
  EXPECT_GT(differ, 0);
  const auto round = octet::scale_from_amax(recipe("deepep_round"), 448.0f);  // d = 1
  EXPECT_EQ(round.encode, 1.0f);
  EXPECT_EQ(fval(round.stored), 1.0f);
  const auto round3 = octet::scale_from_amax(recipe("deepep_round"), 449.0f);  // d just above 1
  EXPECT_EQ(round3.encode, 0.5f);
  EXPECT_EQ(fval(round3.stored), 2.0f);
}

// DeepEP's fast_pow2(-fast_log2_ceil(Inf)) wraps: scale = -Inf, scale_inv = +Inf.
TEST(DeepEp, RoundInfAmaxWraps) {
  const auto s = octet::scale_from_amax(recipe("deepep_round"), INFINITY);
  EXPECT_EQ(fbits(s.encode), 0xFF800000u);
  EXPECT_EQ(fbits(s.decode), 0x7F800000u);
  // The amax starts at 1e-4 and fmaxf drops NaN.
  const auto& r = recipe("deepep");
  EXPECT_EQ(octet::amax_update(r, octet::amax_init(r), NAN), float(1e-4));
}

// ---------------------------------------------------------------------------------------------
// §6 OCP MX, §7 NVIDIA, §4.6 NVFP4.

TEST(OcpMx, ZeroBlockAndSaturation) {
  const auto& r = recipe("ocp_mx");
  EXPECT_EQ(octet::scale_from_amax(r, 0.0f).stored, 0u);  // 2^-127
  const auto s = octet::scale_from_amax(r, 480.0f);         // floor(log2 480) - 8 = 0
  EXPECT_EQ(s.stored, 127u);
  EXPECT_EQ(octet::quantize_element(r, s, 480.0f), 0x7Eu);   // clamped to 448
  EXPECT_EQ(octet::scale_from_amax(r, NAN).stored, 255u);
}

TEST(NvidiaRceil, CoincidesWithTeWhenRcpIsR) {
  const auto& nv = recipe("nvidia_rceil_rcp_approx");
  EXPECT_EQ(nv.rcp448_bits, kR);
  octet::Recipe other = nv;
  other.rcp448_bits = kR + 1;  // a GPU whose rcp.approx(448) is one ulp above R
  // amax = 448 * 2^k: fl32(amax * (R + ulp)) is above 2^k, so RP goes one binade up.
  EXPECT_EQ(octet::scale_from_amax(nv, 448.0f).stored, 127u);
  EXPECT_EQ(octet::scale_from_amax(other, 448.0f).stored, 128u);
}

TEST(Nvfp4, GlobalAndBlockScale) {
  EXPECT_EQ(octet::nvfp4_global_encode(0.0f), 1.0f);
  EXPECT_EQ(octet::nvfp4_global_encode(2688.0f), 1.0f);
  EXPECT_EQ(octet::nvfp4_global_encode(INFINITY), 0.0f);
  const auto& r = recipe("nvfp4");
  // global_encode 1: decode = e4m3(vec_max / 6); vec_max = 6 -> decode 1.0 (0x38), encode 1.
  const auto s = octet::nvfp4_block_scale(r, 1.0f, 6.0f);
  EXPECT_EQ(s.stored, 0x38u);
  EXPECT_EQ(s.encode, 1.0f);
  // decode 0 -> encode FLT_MAX.
  EXPECT_EQ(octet::nvfp4_block_scale(r, 1.0f, 0.0f).encode, FLT_MAX);
}

// §4.6 E2M1 RNE midpoints: 0.25 -> 0, 0.75 -> 1, 1.25 -> 1, 1.75 -> 2, 2.5 -> 2, 3.5 -> 4, 5 -> 4.
TEST(Nvfp4, E2m1Midpoints) {
  const auto& r = recipe("nvfp4");
  octet::BlockScale unit;  // encode 1
  const std::array<std::pair<float, std::uint32_t>, 8> v{{{0.25f, 0x0}, {0.75f, 0x2}, {1.25f, 0x2}, {1.75f, 0x4},
                                                          {2.5f, 0x4}, {3.5f, 0x6}, {5.0f, 0x6}, {7.0f, 0x7}}};
  for (const auto& [x, code] : v) EXPECT_EQ(octet::quantize_element(r, unit, x), code) << x;
  EXPECT_EQ(octet::quantize_element(r, unit, -5.0f), 0xEu);
}

// ---------------------------------------------------------------------------------------------
// The recipe list.

TEST(Recipes, UnknownNameThrowsWithValidList) {
  try {
    (void)recipe("nope");
    FAIL() << "recipe(\"nope\") did not throw";
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("unknown recipe 'nope'"), std::string::npos) << msg;
    for (const auto& r : octet::recipes()) EXPECT_NE(msg.find(std::string(r.name)), std::string::npos) << r.name;
  }
  EXPECT_EQ(octet::find_recipe("nope"), nullptr);
}

TEST(Recipes, NamesOfTheIssue) {
  for (const char* name :
       {"torchao_fp8_rowwise", "torchao_fp8_rowwise_pow2", "torchao_mx_floor", "torchao_mx_rceil", "torchao_mx_ceil",
        "torchao_mx_even", "torchao_mx_floor_v018", "torchao_mx_rceil_v018", "torchao_blockwise", "te_current",
        "te_current_pow2", "te_delayed", "te_blockwise", "te_blockwise_fp32", "te_mxfp8", "deepgemm", "deepgemm_ue8m0",
        "deepep", "deepep_round", "ocp_mx", "nvidia_rceil_rcp_approx", "nvfp4", "torchao_fp8_rowwise_e4m3fnuz",
        "torchao_fp8_rowwise_pow2_e4m3fnuz", "torchao_blockwise_e4m3fnuz", "te_current_e5m2", "te_current_pow2_e5m2",
        "te_delayed_e5m2"})
    EXPECT_NE(octet::find_recipe(name), nullptr) << name;
}

TEST(Recipes, FieldsAreConsistent) {
  for (const auto& r : octet::recipes()) {
    const auto& f = octet::format_of(r.element);
    EXPECT_EQ(double(r.max_pos), octet::max_finite(f)) << r.name;
    EXPECT_EQ(octet::element_format(r), r.element);
    EXPECT_EQ(octet::storage(r), r.storage);
    EXPECT_EQ(octet::name(r), r.name);
    EXPECT_FALSE(r.peer.empty()) << r.name;
    EXPECT_FALSE(r.summary.empty()) << r.name;
    EXPECT_FALSE(r.specials.empty()) << r.name;
    EXPECT_EQ(r.cast, octet::find_profile(r.cast_profile)->spec_for(r.element)) << r.name;
    EXPECT_EQ(r.storage == octet::ScaleStorage::E8m0, r.e8m0_reciprocal != octet::E8m0Reciprocal::None) << r.name;
  }
}

// Each recipe has its registry entry, with the same peer and summary.
TEST(Recipes, RegistryEntries) {
  for (const auto& r : octet::recipes()) {
    int found = 0;
    for (const auto& e : octet::registry()) {
      if (e.name != r.name) continue;
      ++found;
      EXPECT_EQ(e.kind, octet::EntryKind::recipe) << r.name;
      EXPECT_EQ(e.peer, r.peer) << r.name;
      EXPECT_EQ(e.summary, r.summary) << r.name;
    }
    EXPECT_EQ(found, 1) << r.name;
  }
}

// scale_from_stored gives back the BlockScale for every recipe whose encode is a function of
// the stored value (e8m0, power-of-two fp32, DeepGEMM's 1/sf, the stored multiplier s).
TEST(Recipes, ScaleFromStoredRoundTrip) {
  for (const char* name : {"torchao_mx_rceil", "torchao_mx_floor", "torchao_mx_rceil_v018", "torchao_mx_floor_v018",
                           "te_mxfp8", "ocp_mx", "te_blockwise", "te_current_pow2", "deepgemm", "deepgemm_ue8m0",
                           "deepep_round", "torchao_fp8_rowwise", "torchao_fp8_rowwise_pow2"}) {
    const auto& r = recipe(name);
    for (const float amax : {0.0f, 1e-30f, 0.3f, 1.0f, 448.0f, 480.0f, 3.0e5f, 1e30f}) {
      const auto s = octet::scale_from_amax(r, amax);
      const auto t = octet::scale_from_stored(r, s.stored);
      EXPECT_EQ(t.stored, s.stored) << name << " " << amax;
      EXPECT_EQ(fbits(t.encode), fbits(s.encode)) << name << " " << amax;
      EXPECT_EQ(fbits(t.decode), fbits(s.decode)) << name << " " << amax;
    }
  }
}

}  // namespace
