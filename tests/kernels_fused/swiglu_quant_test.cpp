// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// swiglu_quant_test.cpp — family 7 (emulator/src/kernels/swiglu_quant.cpp) against a deliberately
// naive second implementation: plain loops, the formulas of reference/kernels.md §9 written out
// again, the bf16 rounding by octet::encode and the block quantisation by the recipe API
// (amax_init / amax_update / scale_from_amax / quantize_element). Every output byte is compared.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "fused_test_util.hpp"
#include "octet/kernels/swiglu_quant.hpp"
#include "octet/scale.hpp"

namespace {

using namespace fused_test;
using octet::Recipe;
using octet::View2D;

// ---------------------------------------------------------------------------------------------
// The naive reference

template <class In>
struct Naive {
  std::vector<In> y;
  std::vector<std::uint8_t> data;
  std::vector<std::uint32_t> scales;
};

// RNE to the input dtype; every NaN becomes the canonical NaN (bf16 0x7FFF, fp32 0x7FFFFFFF).
template <class In>
In naive_round(float v) {
  if constexpr (std::is_same_v<In, float>) {
    return std::isnan(v) ? std::bit_cast<float>(0x7FFFFFFFu) : v;
  } else {
    if (std::isnan(v)) return std::uint16_t(0x7FFF);
    return std::uint16_t(octet::encode(octet::bf16_format, octet::CastSpec{.overflow = octet::Overflow::Ieee}, v));
  }
}

// Quantises the fp32 values v (M, N) rowwise in blocks of B with the recipe.
template <class In>
void naive_quantize(const Recipe& r, std::int64_t B, const std::vector<float>& v, std::int64_t M, std::int64_t N,
                    Naive<In>& o) {
  o.data.assign(std::size_t(M * N), 0);
  o.scales.assign(std::size_t(M * (N / B)), 0);
  for (std::int64_t m = 0; m < M; ++m)
    for (std::int64_t b = 0; b < N / B; ++b) {
      float amax = octet::amax_init(r);
      for (std::int64_t j = b * B; j < (b + 1) * B; ++j) amax = octet::amax_update(r, amax, v[std::size_t(m * N + j)]);
      const octet::BlockScale s = octet::scale_from_amax(r, amax);
      o.scales[std::size_t(m * (N / B) + b)] = s.stored;
      for (std::int64_t j = b * B; j < (b + 1) * B; ++j)
        o.data[std::size_t(m * N + j)] = std::uint8_t(octet::quantize_element(r, s, v[std::size_t(m * N + j)]));
    }
}

// x (M, 2H) row-major [a | g]. sig: recorded sigmoid (M, H) or empty (then 1/(1 + expf(-a))).
// round_intermediate = false is the hazard variant that skips the bf16 rounding (quantises fp32 y).
template <class In>
Naive<In> naive_forward(const std::vector<In>& x, std::int64_t M, std::int64_t H, const Recipe& r,
                        const std::vector<float>& probs, octet::ExpfFn expf, const std::vector<float>& sig,
                        bool round_intermediate = true) {
  const std::int64_t B = octet::swiglu_block_size(r);
  Naive<In> o;
  std::vector<float> v(std::size_t(M * H));
  o.y.resize(std::size_t(M * H));
  for (std::int64_t m = 0; m < M; ++m)
    for (std::int64_t j = 0; j < H; ++j) {
      const float a = load(x[std::size_t(m * 2 * H + j)]);
      const float g = load(x[std::size_t(m * 2 * H + H + j)]);
      float s;
      if (sig.empty()) {
        const float e = expf(-a);
        const float den = 1.0f + e;
        s = 1.0f / den;
      } else {
        s = sig[std::size_t(m * H + j)];
      }
      const float silu = a * s;
      float y = silu * g;
      if (!probs.empty()) y = y * probs[std::size_t(m)];
      if (round_intermediate || std::is_same_v<In, float>) {
        o.y[std::size_t(m * H + j)] = naive_round<In>(y);
        v[std::size_t(m * H + j)] = load(o.y[std::size_t(m * H + j)]);
      } else {
        o.y[std::size_t(m * H + j)] = naive_round<In>(y);  // reported, but not what is quantised
        v[std::size_t(m * H + j)] = y;
      }
    }
  naive_quantize(r, B, v, M, H, o);
  return o;
}

template <class In>
Naive<In> naive_backward(const std::vector<In>& grad, const std::vector<In>& x, std::int64_t M, std::int64_t H,
                         const Recipe& r, bool dact_fma, octet::ExpfFn expf, const std::vector<float>& sig) {
  const std::int64_t B = octet::swiglu_block_size(r), N = 2 * H;
  Naive<In> o;
  std::vector<float> v(std::size_t(M * N));
  o.y.resize(std::size_t(M * N));
  for (std::int64_t m = 0; m < M; ++m)
    for (std::int64_t j = 0; j < H; ++j) {
      const float a = load(x[std::size_t(m * N + j)]);
      const float g = load(x[std::size_t(m * N + H + j)]);
      const float dy = load(grad[std::size_t(m * H + j)]);
      float s;
      if (sig.empty()) {
        const float e = expf(-a);
        const float den = 1.0f + e;
        s = 1.0f / den;
      } else {
        s = sig[std::size_t(m * H + j)];
      }
      const float xs = a * s;
      const float oms = 1.0f - s;
      float dact;
      if (dact_fma) {
        dact = std::fma(xs, oms, s);
      } else {
        const float prod = xs * oms;
        dact = prod + s;
      }
      const float t = dact * dy;
      const float d_act = t * g;
      const float d_gate = xs * dy;
      o.y[std::size_t(m * N + j)] = naive_round<In>(d_act);
      o.y[std::size_t(m * N + H + j)] = naive_round<In>(d_gate);
      v[std::size_t(m * N + j)] = load(o.y[std::size_t(m * N + j)]);
      v[std::size_t(m * N + H + j)] = load(o.y[std::size_t(m * N + H + j)]);
    }
  naive_quantize(r, B, v, M, N, o);
  return o;
}

template <class In>
::testing::AssertionResult same(const octet::SwigluQuantized<In>& got, const Naive<In>& want, const std::string& what) {
  const std::int64_t B = got.block;
  if (auto r = bits_equal<In>(what + " y", got.y, want.y, got.cols, show_input<In>()); !r) return r;
  if (auto r = bits_equal<std::uint8_t>(what + " data", got.data, want.data, got.cols); !r) return r;
  if (auto r = bits_equal<std::uint32_t>(what + " scales", got.scales, want.scales, B > 0 ? got.cols / B : 1); !r)
    return r;
  return ::testing::AssertionSuccess();
}

float glibc_expf(float v) { return std::exp(v); }  // libm's expf: a plugged transcendental

const char* const kRecipes[] = {"te_mxfp8", "te_blockwise", "torchao_mx_rceil", "te_blockwise_fp32",
                                "torchao_blockwise", "deepep"};

std::vector<float> random_probs(Rng& rng, std::int64_t M, bool specials) {
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::vector<float> p(static_cast<std::size_t>(M));
  for (auto& e : p) e = u(rng);
  if (M > 0) p[0] = 0.0f;
  if (specials && M > 3) {
    p[1] = std::numeric_limits<float>::quiet_NaN();
    p[2] = std::numeric_limits<float>::infinity();
    p[3] = 1e-40f;
  }
  return p;
}

// ---------------------------------------------------------------------------------------------
// Typed suites: fp32 and bf16 inputs

template <class In>
class SwigluTest : public ::testing::Test {};
using Inputs = ::testing::Types<float, std::uint16_t>;
struct InputNames {
  template <class T>
  static std::string GetName(int) {
    return type_name<T>();
  }
};
TYPED_TEST_SUITE(SwigluTest, Inputs, InputNames);

TYPED_TEST(SwigluTest, ForwardMatchesNaive) {
  using In = TypeParam;
  Rng rng(7001);
  for (const char* name : kRecipes) {
    const Recipe& r = octet::recipe(name);
    for (const bool adversarial : {false, true})
      for (const bool with_probs : {false, true}) {
        const std::int64_t M = 37, H = 256;
        std::vector<In> x = random_matrix<In>(rng, M, 2 * H, 2.0f);
        if (adversarial) sprinkle_specials(rng, x, M, 2 * H);
        const std::vector<float> probs = with_probs ? random_probs(rng, M, adversarial) : std::vector<float>{};
        const auto got = octet::swiglu_quantize_forward<In>(View2D<const In>::row_major(x.data(), M, 2 * H), r, probs);
        const auto want = naive_forward<In>(x, M, H, r, probs, &octet::expf_octet, {});
        EXPECT_TRUE(same(got, want, std::string(name) + (adversarial ? " adversarial" : " random") +
                                        (with_probs ? " probs" : "")));
        EXPECT_EQ(got.rows, M);
        EXPECT_EQ(got.cols, H);
      }
  }
}

TYPED_TEST(SwigluTest, BackwardMatchesNaive) {
  using In = TypeParam;
  Rng rng(7002);
  for (const char* name : kRecipes) {
    const Recipe& r = octet::recipe(name);
    for (const bool adversarial : {false, true})
      for (const bool fma : {false, true}) {
        const std::int64_t M = 29, H = 128;
        std::vector<In> x = random_matrix<In>(rng, M, 2 * H, 3.0f);
        std::vector<In> grad = random_matrix<In>(rng, M, H);
        if (adversarial) {
          sprinkle_specials(rng, x, M, 2 * H);
          sprinkle_specials(rng, grad, M, H);
        }
        const auto got = octet::swiglu_quantize_backward<In>(View2D<const In>::row_major(grad.data(), M, H),
                                                             View2D<const In>::row_major(x.data(), M, 2 * H), r,
                                                             {.dact_fma = fma});
        const auto want = naive_backward<In>(grad, x, M, H, r, fma, &octet::expf_octet, {});
        EXPECT_TRUE(same(got, want, std::string(name) + (adversarial ? " adversarial" : " random") +
                                        (fma ? " dact_fma" : "")));
        EXPECT_EQ(got.cols, 2 * H);
      }
  }
}

// Large enough that the quantisers' per-scale memo tables are used; y takes the exact values
// 0.5 (a = 1 and g = 0.5 / s(1) is not exact, so the gate is chosen with a = 40, s = 1), 1 and 448.
TYPED_TEST(SwigluTest, LargeMatchesNaive) {
  using In = TypeParam;
  Rng rng(7007);
  const std::int64_t M = 1024, H = 512;
  std::vector<In> x = random_matrix<In>(rng, M, 2 * H);
  const float gates[] = {0.5f / 40.0f, 1.0f / 40.0f, 448.0f / 40.0f, 0.25f / 40.0f};
  for (std::int64_t m = 0; m < M; ++m)
    for (std::int64_t j = 0; j < H; ++j)
      if (rng() % 13 == 0) {
        x[std::size_t(m * 2 * H + j)] = from_float<In>(40.0f);  // expf(-40) vanishes next to 1: s = 1
        x[std::size_t(m * 2 * H + H + j)] = from_float<In>(gates[rng() % std::size(gates)]);
      }
  const std::vector<In> grad = random_matrix<In>(rng, M, H);
  for (const char* name : {"te_mxfp8", "te_blockwise", "torchao_mx_rceil"}) {
    const Recipe& r = octet::recipe(name);
    const auto xv = View2D<const In>::row_major(x.data(), M, 2 * H);
    EXPECT_TRUE(same(octet::swiglu_quantize_forward<In>(xv, r),
                     naive_forward<In>(x, M, H, r, {}, &octet::expf_octet, {}), std::string(name) + " large forward"));
    EXPECT_TRUE(same(octet::swiglu_quantize_backward<In>(View2D<const In>::row_major(grad.data(), M, H), xv, r),
                     naive_backward<In>(grad, x, M, H, r, false, &octet::expf_octet, {}),
                     std::string(name) + " large backward"));
  }
}

// Any strides: a padded row-major view and a column-major copy give the contiguous result.
TYPED_TEST(SwigluTest, StridedViewsMatchContiguous) {
  using In = TypeParam;
  Rng rng(7003);
  const std::int64_t M = 19, H = 128, P = 2 * H + 9;
  const std::vector<In> x = random_matrix<In>(rng, M, 2 * H);
  const std::vector<In> grad = random_matrix<In>(rng, M, H);
  std::vector<In> padded(std::size_t(M * P)), colmajor(std::size_t(M * 2 * H)), grad_cm(std::size_t(M * H));
  for (std::int64_t m = 0; m < M; ++m)
    for (std::int64_t c = 0; c < 2 * H; ++c) {
      padded[std::size_t(m * P + c)] = x[std::size_t(m * 2 * H + c)];
      colmajor[std::size_t(c * M + m)] = x[std::size_t(m * 2 * H + c)];
    }
  for (std::int64_t m = 0; m < M; ++m)
    for (std::int64_t c = 0; c < H; ++c) grad_cm[std::size_t(c * M + m)] = grad[std::size_t(m * H + c)];
  for (const char* name : {"te_mxfp8", "te_blockwise"}) {
    const Recipe& r = octet::recipe(name);
    const auto x_rm = View2D<const In>::row_major(x.data(), M, 2 * H);
    const View2D<const In> x_pad{padded.data(), M, 2 * H, P, 1};
    const auto x_cm = View2D<const In>::col_major(colmajor.data(), M, 2 * H);
    const auto ref = octet::swiglu_quantize_forward<In>(x_rm, r);
    const Naive<In> want{ref.y, ref.data, ref.scales};
    EXPECT_TRUE(same(octet::swiglu_quantize_forward<In>(x_pad, r), want, std::string(name) + " padded rows"));
    EXPECT_TRUE(same(octet::swiglu_quantize_forward<In>(x_cm, r), want, std::string(name) + " column-major"));
    const auto g_rm = View2D<const In>::row_major(grad.data(), M, H);
    const auto g_cm = View2D<const In>::col_major(grad_cm.data(), M, H);
    const auto bref = octet::swiglu_quantize_backward<In>(g_rm, x_rm, r);
    EXPECT_TRUE(same(octet::swiglu_quantize_backward<In>(g_cm, x_cm, r), Naive<In>{bref.y, bref.data, bref.scales},
                     std::string(name) + " backward column-major"));
  }
}

// The recorded-sigmoid overloads reproduce the default when given the default's sigmoid values,
// and they do read them: one perturbed value changes the output.
TYPED_TEST(SwigluTest, RecordedSigmoidReproducesDefault) {
  using In = TypeParam;
  Rng rng(7004);
  const std::int64_t M = 23, H = 256;
  std::vector<In> x = random_matrix<In>(rng, M, 2 * H, 4.0f);
  sprinkle_specials(rng, x, M, 2 * H);
  const std::vector<In> grad = random_matrix<In>(rng, M, H);
  const auto xv = View2D<const In>::row_major(x.data(), M, 2 * H);
  const auto gv = View2D<const In>::row_major(grad.data(), M, H);
  std::vector<float> sig = octet::swiglu_sigmoid_values<In>(xv);
  const auto sv = View2D<const float>::row_major(sig.data(), M, H);
  const std::vector<float> probs = random_probs(rng, M, false);
  for (const char* name : {"te_mxfp8", "te_blockwise"}) {
    const Recipe& r = octet::recipe(name);
    const auto f = octet::swiglu_quantize_forward<In>(xv, r, probs);
    EXPECT_TRUE(same(octet::swiglu_quantize_forward<In>(xv, sv, r, probs), Naive<In>{f.y, f.data, f.scales},
                     std::string(name) + " forward"));
    for (const bool fma : {false, true}) {
      const auto b = octet::swiglu_quantize_backward<In>(gv, xv, r, {.dact_fma = fma});
      EXPECT_TRUE(same(octet::swiglu_quantize_backward<In>(gv, xv, sv, r, fma), Naive<In>{b.y, b.data, b.scales},
                       std::string(name) + " backward"));
    }
  }
  // An element with a = 1.5 (sigmoid not 0, 1 or 1/2): nudge its sigmoid by one ulp upward
  // repeatedly until y changes; the overload must follow the recorded value, not recompute it.
  x[5] = from_float<In>(1.5f);
  x[std::size_t(H + 5)] = from_float<In>(3.0f);
  sig = octet::swiglu_sigmoid_values<In>(xv);
  const Recipe& r = octet::recipe("te_mxfp8");
  const auto base = octet::swiglu_quantize_forward<In>(xv, View2D<const float>::row_major(sig.data(), M, H), r);
  std::vector<float> moved = sig;
  for (int i = 0; i < 4096; ++i) {
    moved[5] = std::nextafter(moved[5], 2.0f);
    const auto y = octet::swiglu_quantize_forward<In>(xv, View2D<const float>::row_major(moved.data(), M, H), r);
    if (y.y[5] != base.y[5]) {
      const auto want = naive_forward<In>(x, M, H, r, {}, &octet::expf_octet, moved);
      EXPECT_TRUE(same(y, want, "perturbed sigmoid"));
      return;
    }
  }
  ADD_FAILURE() << "the recorded sigmoid value never reached y";
}

// A plugged transcendental (libm's expf) equals the recorded-sigmoid path fed with the sigmoid of
// that expf, and the naive reference using it.
TYPED_TEST(SwigluTest, PluggedExpfMatchesRecordedAndNaive) {
  using In = TypeParam;
  Rng rng(7005);
  const std::int64_t M = 31, H = 128;
  const std::vector<In> x = random_matrix<In>(rng, M, 2 * H, 8.0f);
  const std::vector<In> grad = random_matrix<In>(rng, M, H);
  const auto xv = View2D<const In>::row_major(x.data(), M, 2 * H);
  const auto gv = View2D<const In>::row_major(grad.data(), M, H);
  const std::vector<float> sig = octet::swiglu_sigmoid_values<In>(xv, &glibc_expf);
  const auto sv = View2D<const float>::row_major(sig.data(), M, H);
  const Recipe& r = octet::recipe("te_mxfp8");
  const auto f = octet::swiglu_quantize_forward<In>(xv, r, {}, {.expf = &glibc_expf});
  EXPECT_TRUE(same(f, naive_forward<In>(x, M, H, r, {}, &glibc_expf, {}), "forward, libm expf vs naive"));
  EXPECT_TRUE(same(octet::swiglu_quantize_forward<In>(xv, sv, r), Naive<In>{f.y, f.data, f.scales},
                   "forward, libm expf vs recorded"));
  const auto b = octet::swiglu_quantize_backward<In>(gv, xv, r, {.expf = &glibc_expf});
  EXPECT_TRUE(same(b, naive_backward<In>(grad, x, M, H, r, false, &glibc_expf, {}), "backward, libm expf vs naive"));
}

TYPED_TEST(SwigluTest, ThreadCountDoesNotChangeBytes) {
  using In = TypeParam;
  Rng rng(7006);
  const std::int64_t M = 301, H = 512;
  std::vector<In> x = random_matrix<In>(rng, M, 2 * H);
  sprinkle_specials(rng, x, M, 2 * H);
  const std::vector<In> grad = random_matrix<In>(rng, M, H);
  const auto xv = View2D<const In>::row_major(x.data(), M, 2 * H);
  const auto gv = View2D<const In>::row_major(grad.data(), M, H);
  for (const char* name : {"te_mxfp8", "te_blockwise"}) {
    const Recipe& r = octet::recipe(name);
    octet::SwigluQuantized<In> f1, b1, f2, b2;
    {
      Threads t(1);
      f1 = octet::swiglu_quantize_forward<In>(xv, r);
      b1 = octet::swiglu_quantize_backward<In>(gv, xv, r);
    }
    {
      Threads t(2);
      f2 = octet::swiglu_quantize_forward<In>(xv, r);
      b2 = octet::swiglu_quantize_backward<In>(gv, xv, r);
    }
    EXPECT_TRUE(same(f2, Naive<In>{f1.y, f1.data, f1.scales}, std::string(name) + " forward 2 vs 1 threads"));
    EXPECT_TRUE(same(b2, Naive<In>{b1.y, b1.data, b1.scales}, std::string(name) + " backward 2 vs 1 threads"));
  }
}

TYPED_TEST(SwigluTest, EmptyRows) {
  using In = TypeParam;
  const auto x = View2D<const In>::row_major(nullptr, 0, 64);
  const auto f = octet::swiglu_quantize_forward<In>(x, octet::recipe("te_mxfp8"));
  EXPECT_EQ(f.rows, 0);
  EXPECT_TRUE(f.y.empty() && f.data.empty() && f.scales.empty());
  const auto b = octet::swiglu_quantize_backward<In>(View2D<const In>::row_major(nullptr, 0, 32), x,
                                                     octet::recipe("te_mxfp8"));
  EXPECT_EQ(b.cols, 64);
  EXPECT_TRUE(b.data.empty());
}

TYPED_TEST(SwigluTest, MisuseNamesTheArgument) {
  using In = TypeParam;
  std::vector<In> buf(4096, from_float<In>(1.0f));
  const Recipe& mx = octet::recipe("te_mxfp8");
  const Recipe& bw = octet::recipe("te_blockwise");
  const auto x = [&](std::int64_t M, std::int64_t C) { return View2D<const In>::row_major(buf.data(), M, C); };
  EXPECT_TRUE(throws_naming([&] { octet::swiglu_quantize_forward<In>(x(2, 65), mx); }, {"x_m_2h.cols", "odd"}));
  EXPECT_TRUE(throws_naming([&] { octet::swiglu_quantize_forward<In>(x(2, 2 * 48), mx); }, {"H", "48", "32"}));
  EXPECT_TRUE(throws_naming([&] { octet::swiglu_quantize_forward<In>(x(2, 2 * 96), bw); }, {"H", "96", "128"}));
  EXPECT_TRUE(throws_naming([&] { octet::swiglu_quantize_backward<In>(x(2, 40), x(2, 2 * 40), mx); }, {"H", "40"}));
  EXPECT_TRUE(throws_naming([&] { octet::swiglu_quantize_forward<In>(x(2, 64), mx, std::vector<float>(3)); },
                            {"probs_m", "3"}));
  EXPECT_TRUE(throws_naming([&] { octet::swiglu_quantize_backward<In>(x(3, 32), x(2, 64), mx); }, {"grad_m_h.rows"}));
  EXPECT_TRUE(throws_naming([&] { octet::swiglu_quantize_backward<In>(x(2, 64), x(2, 64), mx); }, {"grad_m_h.cols"}));
  std::vector<float> s(64, 0.5f);
  EXPECT_TRUE(throws_naming(
      [&] { octet::swiglu_quantize_forward<In>(x(2, 64), View2D<const float>::row_major(s.data(), 2, 31), mx); },
      {"sigmoid_m_h.cols"}));
  EXPECT_TRUE(throws_naming(
      [&] { octet::swiglu_quantize_forward<In>(x(2, 64), View2D<const float>::row_major(s.data(), 1, 32), mx); },
      {"sigmoid_m_h.rows"}));
  EXPECT_TRUE(throws_naming([&] { octet::swiglu_quantize_forward<In>(x(2, 64), octet::recipe("nvfp4")); },
                            {"recipe", "nvfp4"}));
  EXPECT_TRUE(throws_naming([&] { octet::swiglu_quantize_forward<In>(x(2, 64), mx, {}, {.expf = nullptr}); },
                            {"expf"}));
  EXPECT_TRUE(throws_naming([&] { octet::swiglu_quantize_forward<In>(View2D<const In>{nullptr, 2, 64, 64, 1}, mx); },
                            {"x_m_2h.data"}));
}

// ---------------------------------------------------------------------------------------------
// Named hazards

// TE's layout: the first half of each row is the silu input, the second half the gate.
TEST(SwigluLayout, ActivationHalfFirst) {
  const std::int64_t H = 32;
  std::vector<std::uint16_t> row(2 * H, to_bf16(1.0f));
  row[0] = to_bf16(2.0f);  // a = 2, g = 1
  const auto f = octet::swiglu_quantize_forward<std::uint16_t>(
      View2D<const std::uint16_t>::row_major(row.data(), 1, 2 * H), octet::recipe("te_mxfp8"));
  const float s2 = 1.0f / (1.0f + octet::expf_octet(-2.0f)), s1 = 1.0f / (1.0f + octet::expf_octet(-1.0f));
  EXPECT_EQ(f.y[0], to_bf16((2.0f * s2) * 1.0f)) << "y(0) = silu(a)·g with a = x[0], g = x[H]";
  EXPECT_NE(f.y[0], to_bf16((1.0f * s1) * 2.0f));
}

// kernels.md §9: y is rounded to bf16 BEFORE amax and quantisation. Block 0 holds
// y = 35·12.8125 = 448.4375 (s = 1 exactly: expf(-35) vanishes next to 1), which bf16 rounds to
// 448: the scale is that of amax 448, not 448.4375 (te_mxfp8: 127, not 128; te_blockwise: scale_inv
// 1, not 2). Block 1 holds amax 448 exactly (28·16) and y = 27.25·10 = 272.5, which bf16 rounds to
// the e4m3 midpoint 272, so RNE gives 256 (0x78) where the fp32 value gives 288 (0x79).
TEST(SwigluHazard, Bf16RoundingBeforeAmaxChangesScaleAndCode) {
  for (const char* name : {"te_mxfp8", "te_blockwise"}) {
    const Recipe& r = octet::recipe(name);
    const std::int64_t B = octet::swiglu_block_size(r), H = 2 * B;
    std::vector<std::uint16_t> x(std::size_t(2 * H), to_bf16(0.0f));
    auto set = [&](std::int64_t j, float a, float g) {
      x[std::size_t(j)] = to_bf16(a);
      x[std::size_t(H + j)] = to_bf16(g);
      ASSERT_EQ(octet::bf16_to_float(x[std::size_t(j)]), a);
      ASSERT_EQ(octet::bf16_to_float(x[std::size_t(H + j)]), g);
    };
    set(0, 35.0f, 12.8125f);
    set(B, 28.0f, 16.0f);
    set(B + 1, 27.25f, 10.0f);
    const auto got = octet::swiglu_quantize_forward<std::uint16_t>(
        View2D<const std::uint16_t>::row_major(x.data(), 1, 2 * H), r);
    const auto want = naive_forward<std::uint16_t>(x, 1, H, r, {}, &octet::expf_octet, {});
    const auto skipped = naive_forward<std::uint16_t>(x, 1, H, r, {}, &octet::expf_octet, {}, false);
    EXPECT_TRUE(same(got, want, name));
    EXPECT_EQ(octet::bf16_to_float(got.y[0]), 448.0f);
    EXPECT_EQ(octet::bf16_to_float(got.y[std::size_t(B + 1)]), 272.0f);
    // The scale of block 0 is the scale of amax 448, and differs from the unrounded one.
    EXPECT_EQ(got.scales[0], octet::scale_from_amax(r, 448.0f).stored) << name;
    EXPECT_EQ(skipped.scales[0], octet::scale_from_amax(r, 448.4375f).stored) << name;
    EXPECT_NE(got.scales[0], skipped.scales[0]) << name << ": skipping the rounding must change the scale";
    if (std::string(name) == "te_mxfp8") {
      EXPECT_EQ(got.scales[0], 127u);      // 2^0
      EXPECT_EQ(skipped.scales[0], 128u);  // 2^1
    } else {
      EXPECT_EQ(got.scales[0], 0x3F800000u);      // scale_inv 1.0
      EXPECT_EQ(skipped.scales[0], 0x40000000u);  // scale_inv 2.0
    }
    // Same scale in block 1, different code for 272.5.
    EXPECT_EQ(got.scales[1], skipped.scales[1]);
    EXPECT_EQ(got.data[std::size_t(B + 1)], 0x78) << name << ": 272 (bf16) ties to 256";  // 0.1111.000
    EXPECT_EQ(skipped.data[std::size_t(B + 1)], 0x79) << name << ": 272.5 (fp32) rounds to 288";  // 0.1111.001
  }
}

// A NaN y is written as the device's canonical NaN whatever NaN the host arithmetic produced:
// NaN input, 0·Inf (x86 yields 0xFFC00000), -NaN·NaN.
TYPED_TEST(SwigluTest, NanYIsCanonical) {
  using In = TypeParam;
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::int64_t H = 128;
  std::vector<In> x(std::size_t(2 * H), from_float<In>(1.0f));
  const float cases[][2] = {{nan, 1.0f}, {-nan, 1.0f}, {0.0f, inf}, {-nan, nan}, {1.0f, -nan}, {inf, 0.0f}};
  for (std::size_t i = 0; i < std::size(cases); ++i) {
    x[i] = from_float<In>(cases[i][0]);
    x[std::size_t(H) + i] = from_float<In>(cases[i][1]);
  }
  for (const char* name : {"te_mxfp8", "te_blockwise"}) {
    const auto f = octet::swiglu_quantize_forward<In>(View2D<const In>::row_major(x.data(), 1, 2 * H),
                                                      octet::recipe(name));
    for (std::size_t i = 0; i < std::size(cases); ++i) {
      if constexpr (std::is_same_v<In, float>) EXPECT_EQ(std::bit_cast<std::uint32_t>(f.y[i]), 0x7FFFFFFFu) << i;
      else EXPECT_EQ(f.y[i], 0x7FFF) << i;
    }
  }
}

// Backward: d_act and d_gate get separate scale columns. d_act is large (gate 100) and d_gate
// small, so the two halves of the scale row differ.
TEST(SwigluHazard, GateHalfHasItsOwnScaleColumns) {
  for (const char* name : {"te_mxfp8", "te_blockwise"}) {
    const Recipe& r = octet::recipe(name);
    const std::int64_t B = octet::swiglu_block_size(r), H = B, M = 2;
    std::vector<std::uint16_t> x(std::size_t(M * 2 * H)), grad(std::size_t(M * H), to_bf16(0.25f));
    for (std::int64_t m = 0; m < M; ++m)
      for (std::int64_t j = 0; j < H; ++j) {
        x[std::size_t(m * 2 * H + j)] = to_bf16(0.5f + 0.01f * float(j));
        x[std::size_t(m * 2 * H + H + j)] = to_bf16(100.0f);
      }
    const auto got = octet::swiglu_quantize_backward<std::uint16_t>(
        View2D<const std::uint16_t>::row_major(grad.data(), M, H),
        View2D<const std::uint16_t>::row_major(x.data(), M, 2 * H), r);
    EXPECT_TRUE(same(got, naive_backward<std::uint16_t>(grad, x, M, H, r, false, &octet::expf_octet, {}), name));
    ASSERT_EQ(got.scales.size(), std::size_t(M * 2));
    EXPECT_NE(got.scales[0], got.scales[1]) << name;
  }
}

}  // namespace
