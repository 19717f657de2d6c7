// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// reference_vs_rational_test.cpp — the table reference, the exact-rational reference and
// octet::encode agree on every boundary point of every target (each midpoint between adjacent
// values, its fp64 and fp32 neighbours, the values themselves, max + ulp/2, max + ulp, the
// 2^-127 region of e8m0fnu) and on 10^6 seeded random fp64 inputs (10^5 per target, exponents
// across the target's range +-4 binades), for every deterministic rounding x overflow policy.
// A table/rational disagreement is a reference bug; an octet/reference one is an emulator bug.
// Stochastic rounding, which the rational reference does not model, is checked against the
// table reference on random full-width fp64 and fp32 inputs.
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "octet/cast.hpp"
#include "reference/rational_reference.hpp"
#include "reference/table_reference.hpp"
#include "test_util.hpp"

namespace {

using octet::CastSpec;
using octet::FormatId;
using octet::Overflow;
using octet::Rounding;
using octet_test::MismatchLog;

// Every deterministic rounding x overflow policy; the policy variants that touch the rounding
// path (subnormal flush; e8m0fnu |x| for negatives, ties to the even code, the fp32-subnormal
// rule) under every deterministic rounding with SatFinite and Ieee.
std::vector<CastSpec> deterministic_specs(const octet_ref::RefFormat& f) {
  std::vector<CastSpec> out;
  for (Rounding r : octet_test::kDeterministicRoundings) {
    for (Overflow o : octet_test::kAllOverflows) {
      CastSpec s;
      s.rounding = r;
      s.overflow = o;
      if (!f.has_zero()) s.unsigned_negative = octet::UnsignedNegative::Abs;  // negatives reach the rounding
      out.push_back(s);
    }
    for (Overflow o : {Overflow::SatFinite, Overflow::Ieee}) {
      CastSpec s;
      s.rounding = r;
      s.overflow = o;
      if (f.has_zero()) {
        s.subnormals = octet::Subnormals::Flush;
        out.push_back(s);
      } else {
        out.push_back(s);  // UnsignedNegative::Nan
        s.unsigned_negative = octet::UnsignedNegative::Abs;
        CastSpec t = s;
        t.ties_to_even_code = true;
        out.push_back(t);
        t = s;
        t.e8m0_subnormal_above_min_rounds_up = true;
        out.push_back(t);
      }
    }
  }
  return out;
}

// The three-way comparison over a point set, for every deterministic spec.
void check_points(FormatId id, const std::vector<double>& points, const std::string& what) {
  const octet::Format& fmt = octet::format_of(id);
  const octet_ref::TableReference& table = octet_ref::table_reference(id);
  const octet_ref::RefFormat& f = table.format();
  const std::int64_t n = std::int64_t(points.size());

  // Spec-independent parts of both references, once per point.
  std::vector<octet_ref::TableReference::Neighbours> located(points.size());
  std::vector<octet_ref::RationalDecision> decided(points.size());
#pragma omp parallel for schedule(dynamic, 256)
  for (std::int64_t i = 0; i < n; ++i) {
    const double x = points[std::size_t(i)];
    if (!std::isfinite(x) || x == 0) continue;
    located[std::size_t(i)] = table.locate(std::fabs(x));
    decided[std::size_t(i)] = octet_ref::rational_decide(f, x);
  }

  int failed = 0;
  for (const CastSpec& s : deterministic_specs(f)) {
    MismatchLog refs, vs64, vs32;
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
      const std::size_t k = std::size_t(i);
      const double x = points[k];
      const bool finite_nonzero = std::isfinite(x) && x != 0;
      const auto* nb = finite_nonzero ? &located[k] : nullptr;
      const auto* dec = finite_nonzero ? &decided[k] : nullptr;
      const std::uint32_t t = table.encode(s, octet_ref::Source::fp64, x, 0, nb);
      const std::uint32_t r = octet_ref::rational_encode(f, s, octet_ref::Source::fp64, x, dec);
      const std::uint64_t bits = std::bit_cast<std::uint64_t>(x);
      if (t != r) refs.add({std::uint64_t(i), bits, 16, x, r, t});  // "want" = rational
      const std::uint32_t got = octet::encode(fmt, s, x);
      if (got != t) vs64.add({std::uint64_t(i), bits, 16, x, t, got});
      const float xf = float(x);
      if (double(xf) == x || std::isnan(x)) {
        // The source path matters only to the fp32-subnormal e8m0 rule.
        std::uint32_t t32 = t;
        if (s.e8m0_subnormal_above_min_rounds_up) {
          t32 = table.encode(s, octet_ref::Source::fp32, x, 0, nb);
          const std::uint32_t r32 = octet_ref::rational_encode(f, s, octet_ref::Source::fp32, x, dec);
          if (t32 != r32) refs.add({std::uint64_t(i), bits, 16, x, r32, t32});
        }
        const std::uint32_t got32 = octet::encode(fmt, s, xf);
        if (got32 != t32) vs32.add({std::uint64_t(i), std::bit_cast<std::uint32_t>(xf), 8, x, t32, got32});
      }
    }
    const std::string ctx = what + " [" + octet_test::spec_name(s) + "]";
    if (!refs.empty() && ++failed <= 20) ADD_FAILURE() << refs.report(f, ctx + " table (got) vs rational (want)");
    if (!vs64.empty() && ++failed <= 20) ADD_FAILURE() << vs64.report(f, ctx + " octet fp64 vs reference");
    if (!vs32.empty() && ++failed <= 20) ADD_FAILURE() << vs32.report(f, ctx + " octet fp32 vs reference");
  }
  EXPECT_EQ(failed, 0);
}

std::vector<double> boundary_points(const octet_ref::TableReference& table) {
  const octet_ref::RefFormat& f = table.format();
  std::vector<double> mags;
  const auto add_with_neighbours = [&](double v) {
    mags.push_back(v);
    mags.push_back(std::nextafter(v, 0.0));
    mags.push_back(std::nextafter(v, INFINITY));
    const float vf = float(v);
    if (double(vf) == v && std::isfinite(vf)) {
      mags.push_back(std::nextafter(vf, 0.0f));
      mags.push_back(std::nextafter(vf, INFINITY));
    }
  };
  const std::vector<double>& values = table.values();
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double lo = values[i];
    const double hi = i + 1 < values.size() ? values[i + 1] : table.next_after_max();  // max + ulp
    mags.push_back(lo);
    add_with_neighbours((lo + hi) / 2);  // the last one is max + ulp/2
  }
  add_with_neighbours(table.next_after_max());
  add_with_neighbours(2 * table.next_after_max());
  if (f.has_zero()) {
    add_with_neighbours(values[1] / 4);                              // far below the smallest subnormal
  } else {
    // e8m0fnu: the 2^-127 region, in fp64 and as fp32 subnormals.
    for (double v : {0x1p-127, 0x1p-128, 0x1.8p-128, 0x1.8p-127, 0x1p-126, 0x1p-149, 0x1p-200,
                     std::numeric_limits<double>::denorm_min()})
      add_with_neighbours(v);
    for (std::uint32_t b : {0x00400000u, 0x00400001u, 0x003FFFFFu, 0x00600000u, 0x00600001u, 0x005FFFFFu,
                            0x00200000u, 0x00000001u, 0x007FFFFFu, 0x00800000u})
      mags.push_back(double(std::bit_cast<float>(b)));
  }
  std::vector<double> points;
  points.reserve(2 * mags.size() + 4);
  for (double m : mags) {
    points.push_back(m);
    points.push_back(-m);
  }
  for (double v : {0.0, -0.0, double(INFINITY), -double(INFINITY), std::numeric_limits<double>::quiet_NaN(),
                   -std::numeric_limits<double>::quiet_NaN()})
    points.push_back(v);
  return points;
}

class ThreeWay : public ::testing::TestWithParam<FormatId> {};

TEST_P(ThreeWay, BoundaryPoints) {
  const octet_ref::TableReference& table = octet_ref::table_reference(GetParam());
  check_points(GetParam(), boundary_points(table), "boundary points");
}

// 10^5 random fp64 inputs per target: exponent uniform over [exponent of the smallest value - 4,
// exponent of max + 4], 52 random mantissa bits of which a random number are kept (short
// mantissas land on midpoints and values), random sign.
TEST_P(ThreeWay, RandomFp64) {
  const octet_ref::TableReference& table = octet_ref::table_reference(GetParam());
  const int lo_exp = std::ilogb(table.format().has_zero() ? table.values()[1] : table.values()[0]) - 4;
  const int hi_exp = std::ilogb(table.max()) + 4;
  std::mt19937_64 rng(0x5EED0003u + unsigned(GetParam()));
  std::uniform_int_distribution<int> exp_dist(lo_exp, hi_exp), keep_dist(0, 52);
  std::vector<double> points(100000);
  for (double& x : points) {
    const int keep = keep_dist(rng);
    std::uint64_t mant = rng() >> 12;                                       // 52 bits
    mant &= ~((std::uint64_t(1) << (52 - keep)) - 1);
    x = std::ldexp(1.0 + std::ldexp(double(mant), -52), exp_dist(rng));   // exact
    if (rng() & 1) x = -x;
  }
  check_points(GetParam(), points, "random fp64");
}

// Stochastic rounding is not a deterministic mode, so only the table reference decides it:
// random fp64 and fp32 inputs with full-width mantissas (the fraction below the quantum has
// many bits, unlike bf16/fp16 inputs), random words, k = HIP rule, 8, 16, 32.
TEST_P(ThreeWay, StochasticRandomFp64AndFp32) {
  const octet::Format& fmt = octet::format_of(GetParam());
  const octet_ref::TableReference& table = octet_ref::table_reference(GetParam());
  const octet_ref::RefFormat& f = table.format();
  const int lo_exp = std::ilogb(f.has_zero() ? table.values()[1] : table.values()[0]) - 4;
  const int hi_exp = std::ilogb(table.max()) + 4;
  std::mt19937_64 rng(0x5EED0007u + unsigned(GetParam()));
  std::uniform_int_distribution<int> exp_dist(lo_exp, hi_exp);
  int failed = 0;
  for (std::uint8_t k : {0, 8, 16, 32})
    for (Overflow o : {Overflow::SatFinite, Overflow::Ieee, Overflow::CompareBeforeRound}) {
      CastSpec s;
      s.rounding = Rounding::Stochastic;
      s.overflow = o;
      s.sr.bits = k;
      s.unsigned_negative = octet::UnsignedNegative::Abs;
      octet_test::MismatchLog log64, log32;
      for (std::uint64_t i = 0; i < 20000; ++i) {
        const double x = std::ldexp(1.0 + std::ldexp(double(rng() >> 12), -52), exp_dist(rng)) * ((rng() & 1) ? -1 : 1);
        const std::uint32_t rbits = std::uint32_t(rng());
        const std::uint32_t want64 = table.encode(s, octet_ref::Source::fp64, x, rbits);
        const std::uint32_t got64 = octet::encode(fmt, s, x, rbits);
        if (got64 != want64) log64.add({i, std::bit_cast<std::uint64_t>(x), 16, x, want64, got64});
        const float xf = float(x);
        const std::uint32_t want32 = table.encode(s, octet_ref::Source::fp32, double(xf), rbits);
        const std::uint32_t got32 = octet::encode(fmt, s, xf, rbits);
        if (got32 != want32) log32.add({i, std::bit_cast<std::uint32_t>(xf), 8, xf, want32, got32});
      }
      const std::string ctx = "stochastic [" + octet_test::spec_name(s) + "]";
      if (!log64.empty() && ++failed <= 10) ADD_FAILURE() << log64.report(f, ctx + " fp64");
      if (!log32.empty() && ++failed <= 10) ADD_FAILURE() << log32.report(f, ctx + " fp32");
    }
  EXPECT_EQ(failed, 0);
}

INSTANTIATE_TEST_SUITE_P(Formats, ThreeWay, ::testing::ValuesIn(octet_test::kTargets),
                         [](const auto& info) { return std::string(octet_ref::ref_format(info.param).name); });

}  // namespace
