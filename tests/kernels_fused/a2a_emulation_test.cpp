// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// a2a_emulation_test.cpp — family 8 (emulator/src/kernels/a2a_emulation.cpp) against a naive
// second implementation: the all_to_all_single order written out as loops over (dst, src, row),
// per-row quantisation by the recipe API (amax_init / amax_update / scale_from_amax /
// quantize_element), dequantisation by scale_from_stored / dequantize_element and octet::encode,
// and the combine as a plain fp32 loop over the top-k slots. Every output byte is compared.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "fused_test_util.hpp"
#include "octet/kernels/a2a_emulation.hpp"
#include "octet/scale.hpp"

namespace {

using namespace fused_test;
using octet::A2aPayload;
using octet::A2aPlan;
using octet::Recipe;
using octet::View2D;

// ---------------------------------------------------------------------------------------------
// The naive reference

// Receive-layout row i comes from send-layout row gather[i].
std::vector<std::int64_t> naive_gather(const std::vector<std::int64_t>& splits, std::int64_t R) {
  std::vector<std::int64_t> send_start(std::size_t(R), 0);
  for (std::int64_t s = 1; s < R; ++s) {
    std::int64_t rows = 0;
    for (std::int64_t d = 0; d < R; ++d) rows += splits[std::size_t((s - 1) * R + d)];
    send_start[std::size_t(s)] = send_start[std::size_t(s - 1)] + rows;
  }
  std::vector<std::int64_t> g;
  for (std::int64_t d = 0; d < R; ++d)
    for (std::int64_t s = 0; s < R; ++s) {
      std::int64_t chunk = send_start[std::size_t(s)];
      for (std::int64_t e = 0; e < d; ++e) chunk += splits[std::size_t(s * R + e)];
      for (std::int64_t i = 0; i < splits[std::size_t(s * R + d)]; ++i) g.push_back(chunk + i);
    }
  return g;
}

std::vector<std::int64_t> transpose(const std::vector<std::int64_t>& splits, std::int64_t R) {
  std::vector<std::int64_t> t(splits.size());
  for (std::int64_t s = 0; s < R; ++s)
    for (std::int64_t d = 0; d < R; ++d) t[std::size_t(d * R + s)] = splits[std::size_t(s * R + d)];
  return t;
}

template <class T>
std::vector<T> gather_rows(const std::vector<T>& v, std::int64_t cols, const std::vector<std::int64_t>& g) {
  std::vector<T> out;
  out.reserve(g.size() * std::size_t(cols));
  for (const std::int64_t r : g)
    for (std::int64_t c = 0; c < cols; ++c) out.push_back(v[std::size_t(r * cols + c)]);
  return out;
}

template <class In>
In naive_dequant_round(double v) {
  if constexpr (std::is_same_v<In, float>) return std::isnan(v) ? std::numeric_limits<float>::quiet_NaN() : float(v);
  else
    return std::uint16_t(octet::encode(octet::bf16_format,
                                       octet::CastSpec{.overflow = octet::Overflow::Ieee, .nan = octet::NanPolicy::Canonical},
                                       v));
}

template <class In>
struct NaiveExchange {
  std::vector<In> out;
  std::vector<std::uint8_t> data;
  std::vector<std::uint32_t> scales;
};

// Local quantise -> exchange rows -> dequantise, all by hand.
template <class In>
NaiveExchange<In> naive_exchange(const std::vector<In>& x, std::int64_t H, const std::vector<std::int64_t>& splits,
                                 std::int64_t R, A2aPayload p, const Recipe& r) {
  const std::vector<std::int64_t> g = naive_gather(splits, R);
  NaiveExchange<In> o;
  if (p == A2aPayload::passthrough) {
    o.out = gather_rows(x, H, g);
    return o;
  }
  const std::int64_t B = p == A2aPayload::mxfp8 ? 32 : 128, N = std::int64_t(x.size()) / std::max<std::int64_t>(H, 1);
  std::vector<std::uint8_t> data(x.size());
  std::vector<std::uint32_t> scales(std::size_t(N * (H / B)));
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t b = 0; b < H / B; ++b) {
      float amax = octet::amax_init(r);
      for (std::int64_t c = b * B; c < (b + 1) * B; ++c) amax = octet::amax_update(r, amax, load(x[std::size_t(n * H + c)]));
      const octet::BlockScale s = octet::scale_from_amax(r, amax);
      scales[std::size_t(n * (H / B) + b)] = s.stored;
      for (std::int64_t c = b * B; c < (b + 1) * B; ++c)
        data[std::size_t(n * H + c)] = std::uint8_t(octet::quantize_element(r, s, load(x[std::size_t(n * H + c)])));
    }
  o.data = gather_rows(data, H, g);
  o.scales = gather_rows(scales, H / B, g);
  o.out.resize(o.data.size());
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t c = 0; c < H; ++c) {
      const octet::BlockScale s = octet::scale_from_stored(r, o.scales[std::size_t(n * (H / B) + c / B)]);
      o.out[std::size_t(n * H + c)] =
          naive_dequant_round<In>(octet::dequantize_element(r, s, o.data[std::size_t(n * H + c)]));
    }
  return o;
}

template <class In>
::testing::AssertionResult same(const octet::A2aExchanged<In>& got, const NaiveExchange<In>& want, const std::string& what) {
  if (auto r = bits_equal<In>(what + " out", got.out, want.out, got.cols, show_input<In>()); !r) return r;
  if (auto r = bits_equal<std::uint8_t>(what + " data", got.data, want.data, got.cols); !r) return r;
  if (auto r = bits_equal<std::uint32_t>(what + " scales", got.scales, want.scales, got.block ? got.cols / got.block : 1);
      !r)
    return r;
  return ::testing::AssertionSuccess();
}

// Random splits over R ranks: zeros, a rank that sends nothing, a rank that receives nothing.
std::vector<std::int64_t> random_splits(Rng& rng, std::int64_t R, std::int64_t max_count) {
  std::vector<std::int64_t> s(std::size_t(R * R));
  for (auto& e : s) e = rng() % 4 == 0 ? 0 : std::int64_t(rng() % std::uint64_t(max_count + 1));
  if (R >= 3) {
    for (std::int64_t d = 0; d < R; ++d) s[std::size_t(1 * R + d)] = 0;  // rank 1 sends nothing
    for (std::int64_t k = 0; k < R; ++k) s[std::size_t(k * R + 2)] = 0;  // rank 2 receives nothing
  }
  return s;
}

const struct PayloadCase {
  A2aPayload payload;
  const char* recipe;
} kPayloads[] = {
    {A2aPayload::passthrough, "torchao_mx_rceil"}, {A2aPayload::mxfp8, "torchao_mx_rceil"},
    {A2aPayload::mxfp8, "te_mxfp8"},               {A2aPayload::fp8_blockwise, "deepep"},
    {A2aPayload::fp8_blockwise, "deepep_round"},   {A2aPayload::fp8_blockwise, "te_blockwise"},
};

std::string label(const PayloadCase& c, std::int64_t R) {
  return std::string(octet::name(c.payload)) + "/" + c.recipe + " R=" + std::to_string(R);
}

// ---------------------------------------------------------------------------------------------
// Plan

TEST(A2aPlan, GatherIsReceiverMajorConcatenationOfSenderChunks) {
  // Rank 0 sends 1 row to itself and 2 to rank 1; rank 1 sends 3 rows to rank 0 and none to itself.
  // Send layout: [r0->0: row 0 | r0->1: rows 1, 2 | r1->0: rows 3, 4, 5].
  const std::vector<std::int64_t> splits = {1, 2, 3, 0};
  const A2aPlan plan(splits, 2);
  EXPECT_EQ(plan.gather(), (std::vector<std::int64_t>{0, 3, 4, 5, 1, 2}));
  EXPECT_EQ(std::vector<std::int64_t>(plan.recv_offsets().begin(), plan.recv_offsets().end()),
            (std::vector<std::int64_t>{0, 4, 6}));
  EXPECT_EQ(std::vector<std::int64_t>(plan.send_offsets().begin(), plan.send_offsets().end()),
            (std::vector<std::int64_t>{0, 3, 6}));
  // The reverse plan undoes it.
  const std::vector<std::int64_t> back = plan.reversed().gather(), g = plan.gather();
  for (std::size_t i = 0; i < g.size(); ++i) EXPECT_EQ(g[std::size_t(back[i])], std::int64_t(i));
}

TEST(A2aPlan, RandomPlansMatchNaiveOrder) {
  Rng rng(7201);
  for (const std::int64_t R : {1, 2, 3, 5, 8}) {
    for (int rep = 0; rep < 20; ++rep) {
      const auto splits = random_splits(rng, R, 9);
      const A2aPlan plan(splits, R);
      EXPECT_EQ(plan.gather(), naive_gather(splits, R)) << "R=" << R;
      EXPECT_EQ(plan.reversed().gather(), naive_gather(transpose(splits, R), R)) << "R=" << R;
    }
  }
}

TEST(A2aPlan, MisuseNamesTheArgument) {
  const std::vector<std::int64_t> ok = {1, 2, 3, 4};
  EXPECT_TRUE(throws_naming([&] { A2aPlan(ok, 0); }, {"ranks", "0"}));
  EXPECT_TRUE(throws_naming([&] { A2aPlan(std::vector<std::int64_t>{1, 2, 3}, 2); }, {"send_splits_r_r", "3", "4"}));
  EXPECT_TRUE(throws_naming([&] { A2aPlan(std::vector<std::int64_t>{1, 2, -3, 4}, 2); },
                            {"send_splits_r_r[src=1][dst=0]", "-3", "negative"}));
  EXPECT_TRUE(throws_naming([&] { A2aPlan(ok, 2, std::vector<std::int64_t>{3, 6}); }, {"rows_per_rank[1]", "7"}));
  EXPECT_TRUE(throws_naming([&] { A2aPlan(ok, 2, std::vector<std::int64_t>{3}); }, {"rows_per_rank"}));
  EXPECT_NO_THROW(A2aPlan(ok, 2, std::vector<std::int64_t>{3, 7}));
}

// ---------------------------------------------------------------------------------------------
// Exchange (typed: fp32, bf16)

template <class In>
class A2aTest : public ::testing::Test {};
using Inputs = ::testing::Types<float, std::uint16_t>;
struct InputNames {
  template <class T>
  static std::string GetName(int) {
    return type_name<T>();
  }
};
TYPED_TEST_SUITE(A2aTest, Inputs, InputNames);

TYPED_TEST(A2aTest, ExchangeMatchesNaive) {
  using In = TypeParam;
  Rng rng(7202);
  for (const std::int64_t R : {1, 2, 3, 5}) {
    for (const bool adversarial : {false, true}) {
      const auto splits = random_splits(rng, R, 7);
      const A2aPlan plan(splits, R);
      const std::int64_t N = plan.rows(), H = 256;
      std::vector<In> x = random_matrix<In>(rng, N, H, 4.0f);
      if (adversarial) sprinkle_specials(rng, x, N, H);
      for (const auto& c : kPayloads) {
        const Recipe& r = octet::recipe(c.recipe);
        const auto got = octet::a2a_exchange<In>(View2D<const In>::row_major(x.data(), N, H), plan, c.payload, r);
        EXPECT_TRUE(same(got, naive_exchange<In>(x, H, splits, R, c.payload, r),
                         label(c, R) + (adversarial ? " adversarial" : " random")));
        EXPECT_EQ(got.rows, N);
      }
    }
  }
}

// Large enough that the quantisers' per-scale memo tables are used (thousands of blocks share a
// scale); includes the exact values 0.5, 1, 448 and their negatives.
TYPED_TEST(A2aTest, LargeExchangeMatchesNaive) {
  using In = TypeParam;
  Rng rng(7209);
  const std::int64_t R = 3;
  const std::vector<std::int64_t> splits = {300, 200, 100, 0, 250, 350, 400, 0, 448};
  const A2aPlan plan(splits, R);
  const std::int64_t N = plan.rows(), H = 512;
  std::vector<In> x = random_matrix<In>(rng, N, H);
  const float exact[] = {0.5f, -0.5f, 1.0f, -1.0f, 448.0f, 0.25f};
  for (auto& e : x)
    if (rng() % 17 == 0) e = from_float<In>(exact[rng() % std::size(exact)]);
  for (const auto& c : kPayloads) {
    const Recipe& r = octet::recipe(c.recipe);
    const auto got = octet::a2a_exchange<In>(View2D<const In>::row_major(x.data(), N, H), plan, c.payload, r);
    EXPECT_TRUE(same(got, naive_exchange<In>(x, H, splits, R, c.payload, r), label(c, R) + " large"));
  }
}

// The bf16 (passthrough) exchange is a pure permutation: out = x[gather], and the reverse plan
// brings x back bit for bit.
TYPED_TEST(A2aTest, PassthroughRoundTripIsIdentity) {
  using In = TypeParam;
  Rng rng(7203);
  for (const std::int64_t R : {1, 2, 4, 7}) {
    const auto splits = random_splits(rng, R, 11);
    const A2aPlan plan(splits, R);
    const std::int64_t N = plan.rows(), H = 40;  // passthrough has no block constraint
    std::vector<In> x = random_matrix<In>(rng, N, H);
    sprinkle_specials(rng, x, N, H);
    const auto there = octet::a2a_exchange<In>(View2D<const In>::row_major(x.data(), N, H), plan, A2aPayload::passthrough);
    EXPECT_TRUE(bits_equal<In>("dispatch", there.out, gather_rows(x, H, plan.gather()), H, show_input<In>()));
    EXPECT_TRUE(there.data.empty() && there.scales.empty());
    const auto back = octet::a2a_exchange<In>(View2D<const In>::row_major(there.out.data(), N, H), plan.reversed(),
                                              A2aPayload::passthrough);
    EXPECT_TRUE(bits_equal<In>("round trip, R=" + std::to_string(R), back.out, x, H, show_input<In>()));
  }
}

// The quantised exchange is exact: dispatching over R ranks equals quantise -> dequantise on one
// rank (the identity plan), permuted; data and scales travel with their rows.
TYPED_TEST(A2aTest, QuantisedDispatchEqualsLocalQuantiseDequantise) {
  using In = TypeParam;
  Rng rng(7204);
  for (const std::int64_t R : {2, 4, 6}) {
    const auto splits = random_splits(rng, R, 13);
    const A2aPlan plan(splits, R);
    const std::int64_t N = plan.rows(), H = 384;
    std::vector<In> x = random_matrix<In>(rng, N, H, 2.0f);
    sprinkle_specials(rng, x, N, H);
    const A2aPlan local(std::vector<std::int64_t>{N}, 1);
    const std::vector<std::int64_t> g = plan.gather();
    for (const auto& c : kPayloads) {
      if (c.payload == A2aPayload::passthrough) continue;
      const Recipe& r = octet::recipe(c.recipe);
      const auto xv = View2D<const In>::row_major(x.data(), N, H);
      const auto dist = octet::a2a_exchange<In>(xv, plan, c.payload, r);
      const auto here = octet::a2a_exchange<In>(xv, local, c.payload, r);
      const std::int64_t NB = H / dist.block;
      EXPECT_TRUE(bits_equal<In>(label(c, R) + " out", dist.out, gather_rows(here.out, H, g), H, show_input<In>()));
      EXPECT_TRUE(bits_equal<std::uint8_t>(label(c, R) + " data", dist.data, gather_rows(here.data, H, g), H));
      EXPECT_TRUE(bits_equal<std::uint32_t>(label(c, R) + " scales", dist.scales, gather_rows(here.scales, NB, g), NB));
    }
  }
}

TYPED_TEST(A2aTest, EmptyAndDegenerateSplits) {
  using In = TypeParam;
  // Nobody sends anything.
  const A2aPlan none(std::vector<std::int64_t>(9, 0), 3);
  for (const auto& c : kPayloads) {
    const auto out = octet::a2a_exchange<In>(View2D<const In>::row_major(nullptr, 0, 128), none, c.payload,
                                             octet::recipe(c.recipe));
    EXPECT_EQ(out.rows, 0);
    EXPECT_TRUE(out.out.empty());
  }
  // One rank: the identity.
  Rng rng(7205);
  const std::vector<In> x = random_matrix<In>(rng, 5, 128);
  const auto one = octet::a2a_exchange<In>(View2D<const In>::row_major(x.data(), 5, 128),
                                           A2aPlan(std::vector<std::int64_t>{5}, 1), A2aPayload::passthrough);
  EXPECT_TRUE(bits_equal<In>("one rank", one.out, x, 128, show_input<In>()));
}

TYPED_TEST(A2aTest, ThreadCountDoesNotChangeBytes) {
  using In = TypeParam;
  Rng rng(7206);
  const std::int64_t R = 4;
  const auto splits = random_splits(rng, R, 120);
  const A2aPlan plan(splits, R);
  const std::int64_t N = plan.rows(), H = 512;
  std::vector<In> x = random_matrix<In>(rng, N, H);
  sprinkle_specials(rng, x, N, H);
  for (const auto& c : kPayloads) {
    octet::A2aExchanged<In> one, two;
    {
      Threads t(1);
      one = octet::a2a_exchange<In>(View2D<const In>::row_major(x.data(), N, H), plan, c.payload, octet::recipe(c.recipe));
    }
    {
      Threads t(2);
      two = octet::a2a_exchange<In>(View2D<const In>::row_major(x.data(), N, H), plan, c.payload, octet::recipe(c.recipe));
    }
    EXPECT_TRUE(same(two, NaiveExchange<In>{one.out, one.data, one.scales}, label(c, R) + " 2 vs 1 threads"));
  }
}

TYPED_TEST(A2aTest, MisuseNamesTheArgument) {
  using In = TypeParam;
  std::vector<In> buf(4096, from_float<In>(1.0f));
  const A2aPlan plan(std::vector<std::int64_t>{2, 1, 0, 3}, 2);  // N = 6
  const auto x = [&](std::int64_t N, std::int64_t H) { return View2D<const In>::row_major(buf.data(), N, H); };
  const Recipe& rceil = octet::recipe("torchao_mx_rceil");
  EXPECT_TRUE(throws_naming([&] { octet::a2a_exchange<In>(x(5, 64), plan, A2aPayload::mxfp8, rceil); },
                            {"x_n_h.rows", "5", "6"}));
  EXPECT_TRUE(throws_naming([&] { octet::a2a_exchange<In>(x(6, 48), plan, A2aPayload::mxfp8, rceil); },
                            {"H", "48", "32"}));
  EXPECT_TRUE(throws_naming([&] { octet::a2a_exchange<In>(x(6, 192), plan, A2aPayload::fp8_blockwise); },
                            {"H", "192", "128"}));
  EXPECT_TRUE(throws_naming([&] { octet::a2a_exchange<In>(x(6, 128), plan, A2aPayload::fp8_blockwise, rceil); },
                            {"fp8_blockwise", "torchao_mx_rceil"}));
  EXPECT_TRUE(throws_naming(
      [&] { octet::a2a_exchange<In>(x(6, 128), plan, A2aPayload::mxfp8, octet::recipe("deepep")); },
      {"mxfp8", "deepep"}));
  EXPECT_TRUE(throws_naming(
      [&] { octet::a2a_exchange<In>(x(6, 64), plan, A2aPayload::mxfp8, octet::recipe("nvfp4")); }, {"nvfp4"}));
  EXPECT_TRUE(throws_naming(
      [&] { octet::a2a_exchange<In>(View2D<const In>{buf.data(), 6, 64, 70, 1}, plan, A2aPayload::passthrough); },
      {"x_n_h", "contiguous"}));
  EXPECT_TRUE(throws_naming(
      [&] { octet::a2a_exchange<In>(View2D<const In>{nullptr, 6, 64, 64, 1}, plan, A2aPayload::passthrough); },
      {"x_n_h.data"}));
  EXPECT_TRUE(throws_naming(
      [&] { octet::a2a_exchange<In>(x(6, 64), plan, static_cast<A2aPayload>(9), rceil); }, {"payload"}));
}

// ---------------------------------------------------------------------------------------------
// Combine

// A dispatch of T tokens per rank with top-k routes: token t of rank s sends one row per used slot
// to a random destination. Builds the splits and the send layout's row of every route.
struct Routing {
  std::int64_t R = 0, K = 0;
  std::vector<std::int64_t> tokens_per_rank, splits, row_t_k;
  std::vector<float> weight_t_k;
};
Routing random_routing(Rng& rng, std::int64_t R, std::int64_t K, bool weights) {
  Routing rt;
  rt.R = R, rt.K = K;
  rt.splits.assign(std::size_t(R * R), 0);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::int64_t send_start = 0;
  for (std::int64_t s = 0; s < R; ++s) {
    const std::int64_t T = rng() % 5 == 0 ? 0 : std::int64_t(rng() % 9);
    rt.tokens_per_rank.push_back(T);
    // dst of each route; -1 marks an unused slot.
    std::vector<std::int64_t> dst(std::size_t(T * K));
    for (auto& d : dst) d = rng() % 6 == 0 ? -1 : std::int64_t(rng() % std::uint64_t(R));
    for (const auto d : dst)
      if (d >= 0) ++rt.splits[std::size_t(s * R + d)];
    // The send buffer is grouped by destination; within one, routes in (t, k) order.
    std::vector<std::int64_t> next(std::size_t(R), send_start);
    for (std::int64_t d = 1; d < R; ++d) next[std::size_t(d)] = next[std::size_t(d - 1)] + rt.splits[std::size_t(s * R + d - 1)];
    for (std::int64_t i = 0; i < T * K; ++i) {
      const std::int64_t d = dst[std::size_t(i)];
      rt.row_t_k.push_back(d < 0 ? -1 : next[std::size_t(d)]++);
      rt.weight_t_k.push_back(u(rng));
    }
    for (std::int64_t d = 0; d < R; ++d) send_start += rt.splits[std::size_t(s * R + d)];
  }
  if (!weights) rt.weight_t_k.clear();
  return rt;
}

template <class In>
std::vector<In> naive_combine(const std::vector<In>& y, std::int64_t H, const Routing& rt, A2aPayload p,
                              const Recipe& r) {
  // Back along the transposed splits: receive layout -> send layout.
  const NaiveExchange<In> back = naive_exchange<In>(y, H, transpose(rt.splits, rt.R), rt.R, p, r);
  const std::int64_t T = std::accumulate(rt.tokens_per_rank.begin(), rt.tokens_per_rank.end(), std::int64_t(0));
  std::vector<In> out(std::size_t(T * H));
  for (std::int64_t t = 0; t < T; ++t)
    for (std::int64_t c = 0; c < H; ++c) {
      float acc = 0.0f;
      for (std::int64_t k = 0; k < rt.K; ++k) {
        const std::int64_t row = rt.row_t_k[std::size_t(t * rt.K + k)];
        if (row < 0) continue;
        const float w = rt.weight_t_k.empty() ? 1.0f : rt.weight_t_k[std::size_t(t * rt.K + k)];
        const float prod = load(back.out[std::size_t(row * H + c)]) * w;
        acc = acc + prod;
      }
      // A NaN sum is written as the quiet NaN (the host's NaN sign after Inf - Inf or NaN + NaN is
      // not reproducible: C++ leaves the operand order of the add to the compiler).
      if constexpr (std::is_same_v<In, float>)
        out[std::size_t(t * H + c)] = std::isnan(acc) ? std::numeric_limits<float>::quiet_NaN() : acc;
      else
        out[std::size_t(t * H + c)] = std::isnan(acc) ? std::uint16_t(0x7FC0) : to_bf16(acc);
    }
  return out;
}

TYPED_TEST(A2aTest, CombineMatchesNaive) {
  using In = TypeParam;
  Rng rng(7207);
  for (const std::int64_t R : {1, 2, 3, 6}) {
    for (const bool weights : {true, false}) {
      const Routing rt = random_routing(rng, R, 4, weights);
      const A2aPlan plan(rt.splits, R);
      const std::int64_t N = plan.rows(), H = 256;
      std::vector<In> y = random_matrix<In>(rng, N, H);
      if (weights) sprinkle_specials(rng, y, N, H);
      const octet::A2aRoutes routes{rt.tokens_per_rank, rt.K, rt.row_t_k, rt.weight_t_k};
      for (const auto& c : kPayloads) {
        const Recipe& r = octet::recipe(c.recipe);
        const auto got = octet::a2a_combine<In>(View2D<const In>::row_major(y.data(), N, H), plan, routes, c.payload, r);
        EXPECT_TRUE(bits_equal<In>(label(c, R) + (weights ? " weighted" : " unweighted") + " combine", got,
                                   naive_combine<In>(y, H, rt, c.payload, r), H, show_input<In>()));
      }
    }
  }
}

// Dispatch then combine with passthrough and weights 1 on a single route per token returns the
// tokens' rows unchanged (bf16: fp32 sum of one bf16 value, rounded once, is the value).
TYPED_TEST(A2aTest, PassthroughDispatchCombineSingleRouteIsIdentity) {
  using In = TypeParam;
  Rng rng(7208);
  const std::int64_t R = 4, H = 96;
  const Routing rt = random_routing(rng, R, 1, false);  // some slots unused (-1): those tokens get +0
  const A2aPlan plan(rt.splits, R);
  const std::int64_t N = plan.rows();
  std::vector<In> send = random_matrix<In>(rng, N, H);
  const auto there = octet::a2a_exchange<In>(View2D<const In>::row_major(send.data(), N, H), plan, A2aPayload::passthrough);
  const octet::A2aRoutes routes{rt.tokens_per_rank, 1, rt.row_t_k, {}};
  const auto got = octet::a2a_combine<In>(View2D<const In>::row_major(there.out.data(), N, H), plan, routes);
  const std::int64_t T = std::int64_t(rt.row_t_k.size());
  for (std::int64_t t = 0; t < T; ++t) {
    const std::int64_t row = rt.row_t_k[std::size_t(t)];
    for (std::int64_t c = 0; c < H; ++c) {
      const In want = row < 0 ? from_float<In>(0.0f) : send[std::size_t(row * H + c)];
      const In g = got[std::size_t(t * H + c)];
      if (load(want) == 0.0f) {
        EXPECT_EQ(load(g), 0.0f);  // +0 + (-0) is +0
      } else if (!std::isnan(load(want))) {
        ASSERT_EQ(g, want) << "token " << t << " col " << c;
      }
    }
  }
}

TYPED_TEST(A2aTest, CombineMisuseNamesTheArgument) {
  using In = TypeParam;
  const std::vector<std::int64_t> splits = {1, 1, 1, 1};  // rank 0 send rows [0, 2), rank 1 [2, 4)
  const A2aPlan plan(splits, 2);
  std::vector<In> y(4 * 32, from_float<In>(1.0f));
  const auto yv = View2D<const In>::row_major(y.data(), 4, 32);
  const std::vector<std::int64_t> tpr = {1, 1};
  const std::vector<std::int64_t> rows_ok = {0, 1, 2, 3}, rows_foreign = {0, 2, 2, 3}, rows_short = {0, 1, 2};
  const std::vector<float> w3(3, 1.0f);
  EXPECT_NO_THROW(octet::a2a_combine<In>(yv, plan, {tpr, 2, rows_ok, {}}));
  EXPECT_TRUE(throws_naming([&] { octet::a2a_combine<In>(yv, plan, {tpr, 2, rows_foreign, {}}); },
                            {"routes.row_t_k[t=0][k=1]", "rank 0"}));
  EXPECT_TRUE(throws_naming([&] { octet::a2a_combine<In>(yv, plan, {tpr, 2, rows_short, {}}); }, {"routes.row_t_k", "3"}));
  EXPECT_TRUE(throws_naming([&] { octet::a2a_combine<In>(yv, plan, {tpr, 2, rows_ok, w3}); }, {"routes.weight_t_k"}));
  EXPECT_TRUE(throws_naming([&] { octet::a2a_combine<In>(yv, plan, {std::vector<std::int64_t>{2}, 2, rows_ok, {}}); },
                            {"routes.tokens_per_rank"}));
  EXPECT_TRUE(throws_naming([&] { octet::a2a_combine<In>(yv, plan, {std::vector<std::int64_t>{-1, 3}, 2, rows_ok, {}}); },
                            {"routes.tokens_per_rank[0]", "negative"}));
  EXPECT_TRUE(throws_naming(
      [&] { octet::a2a_combine<In>(View2D<const In>::row_major(y.data(), 3, 32), plan, {tpr, 2, rows_ok, {}}); },
      {"y_n_h.rows"}));
}

}  // namespace
