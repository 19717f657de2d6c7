// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// array_api_test.cpp — the array API returns the bytes that scalar encode() returns, for every
// source type and target, and identical bytes for 1, 2, 3 and 7 OpenMP threads (the work is
// chunked by 2^16 elements; the sizes here are not multiples of that). Misuse throws
// std::invalid_argument with a message that names the problem.
#include <bit>
#include <cstdint>
#include <cstring>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <omp.h>

#include "octet/cast.hpp"
#include "reference/ref_format.hpp"
#include "test_util.hpp"

namespace {

using octet::CastSpec;
using octet::Format;
using octet::FormatId;
using octet::Overflow;
using octet::Rounding;
using octet::SourceType;

constexpr std::size_t kCount = 3 * (std::size_t(1) << 16) + 4321;  // several chunks and a tail

// Random inputs: half uniformly random bit patterns (NaN, Inf and subnormals included), half
// values spread over the targets' ranges, so that every rounding path is exercised.
struct Data {
  std::vector<float> f32;
  std::vector<double> f64;
  std::vector<std::uint16_t> bf16, fp16;
  std::vector<std::uint32_t> rbits;
};

const Data& data() {
  static const Data d = [] {
    Data d;
    std::mt19937_64 rng(0x5EED0005u);
    std::uniform_int_distribution<int> exp_dist(-140, 130);
    std::uniform_real_distribution<double> mant(1.0, 2.0);
    for (std::size_t i = 0; i < kCount; ++i) {
      const bool raw = (i & 1) != 0;
      const double spread = std::ldexp(mant(rng), exp_dist(rng)) * ((rng() & 1) ? -1 : 1);
      d.f32.push_back(raw ? std::bit_cast<float>(std::uint32_t(rng())) : float(spread));
      d.f64.push_back(raw ? std::bit_cast<double>(rng()) : spread);
      d.bf16.push_back(std::uint16_t(rng()));
      d.fp16.push_back(std::uint16_t(rng()));
      d.rbits.push_back(std::uint32_t(rng()));
    }
    return d;
  }();
  return d;
}

std::vector<CastSpec> specs() {
  std::vector<CastSpec> out;
  for (Rounding r : octet_test::kAllRoundings) {  // alternating SatFinite / Ieee + canonical NaN
    CastSpec s;
    s.rounding = r;
    if (out.size() % 2) {
      s.overflow = Overflow::Ieee;
      s.nan = octet::NanPolicy::Canonical;
    }
    out.push_back(s);
  }
  CastSpec s;
  s.overflow = Overflow::CompareBeforeRound;
  s.subnormals = octet::Subnormals::Flush;
  s.unsigned_negative = octet::UnsignedNegative::Abs;
  s.ieee_nan = octet::IeeeNanCode::Payload;
  out.push_back(s);
  s.overflow = Overflow::SatFiniteOnly;
  s.nanless_nan = octet::NanlessNan::NegZero;
  s.ties_to_even_code = true;
  s.nan = octet::NanPolicy::ToMax;
  out.push_back(s);
  s = CastSpec{};
  s.rounding = Rounding::TowardZero;
  s.overflow = Overflow::NonSat;
  s.e8m0_subnormal_above_min_rounds_up = true;
  s.unsigned_zero = octet::UnsignedZero::Nan;
  s.ieee_nan = octet::IeeeNanCode::AllOnes;
  out.push_back(s);
  return out;
}

// fp16 bits to fp32 with the suite's own decoder (exact, NaN payload kept).
float widen_fp16(std::uint16_t h) { return octet_ref::fp16_to_float(h); }

// The scalar encode of element i of source `src`.
std::uint32_t scalar(SourceType src, std::size_t i, const Format& f, const CastSpec& s) {
  const Data& d = data();
  const std::uint32_t r = d.rbits[i];
  switch (src) {
    case SourceType::fp32: return octet::encode(f, s, d.f32[i], r);
    case SourceType::fp64: return octet::encode(f, s, d.f64[i], r);
    case SourceType::bf16: return octet::encode(f, s, std::bit_cast<float>(std::uint32_t(d.bf16[i]) << 16), r);
    case SourceType::fp16: return octet::encode(f, s, widen_fp16(d.fp16[i]), r);
  }
  return 0;
}

std::uint64_t input_bits(SourceType src, std::size_t i) {
  const Data& d = data();
  switch (src) {
    case SourceType::fp32: return std::bit_cast<std::uint32_t>(d.f32[i]);
    case SourceType::fp64: return std::bit_cast<std::uint64_t>(d.f64[i]);
    case SourceType::bf16: return d.bf16[i];
    case SourceType::fp16: return d.fp16[i];
  }
  return 0;
}

double input_value(SourceType src, std::size_t i) {
  const Data& d = data();
  switch (src) {
    case SourceType::fp32: return d.f32[i];
    case SourceType::fp64: return d.f64[i];
    case SourceType::bf16: return std::bit_cast<float>(std::uint32_t(d.bf16[i]) << 16);
    case SourceType::fp16: return widen_fp16(d.fp16[i]);
  }
  return 0;
}

// The array API, through the typed overloads where one exists for (source, output width), else
// the type-erased one. Codes widened to uint32 for comparison.
std::vector<std::uint32_t> array_cast(SourceType src, const Format& f, const CastSpec& s) {
  const Data& d = data();
  const std::span<const std::uint32_t> rb(d.rbits);
  std::vector<std::uint32_t> out(kCount);
  if (f.bits() <= 8) {
    std::vector<std::uint8_t> o(kCount);
    const std::span<std::uint8_t> os(o);
    switch (src) {
      case SourceType::fp32: octet::cast(std::span<const float>(d.f32), f, s, os, rb); break;
      case SourceType::fp64: octet::cast(std::span<const double>(d.f64), f, s, os, rb); break;
      case SourceType::bf16:
        octet::cast(std::span<const octet::bf16_bits>(reinterpret_cast<const octet::bf16_bits*>(d.bf16.data()), kCount),
                    f, s, os, rb);
        break;
      case SourceType::fp16:
        octet::cast(std::span<const octet::fp16_bits>(reinterpret_cast<const octet::fp16_bits*>(d.fp16.data()), kCount),
                    f, s, os, rb);
        break;
    }
    for (std::size_t i = 0; i < kCount; ++i) out[i] = o[i];
  } else {
    std::vector<std::uint16_t> o(kCount);
    const std::span<std::uint16_t> os(o);
    switch (src) {
      case SourceType::fp32: octet::cast(std::span<const float>(d.f32), f, s, os, rb); break;
      case SourceType::fp64: octet::cast(std::span<const double>(d.f64), f, s, os, rb); break;
      case SourceType::bf16: octet::cast(src, d.bf16.data(), kCount, f, s, o.data(), d.rbits.data()); break;
      case SourceType::fp16: octet::cast(src, d.fp16.data(), kCount, f, s, o.data(), d.rbits.data()); break;
    }
    for (std::size_t i = 0; i < kCount; ++i) out[i] = o[i];
  }
  return out;
}

std::string source_name(SourceType t) {
  constexpr const char* k[] = {"fp32", "fp64", "bf16", "fp16"};
  return k[int(t)];
}

struct Case {
  SourceType source;
  FormatId target;
};

class ArrayApi : public ::testing::TestWithParam<Case> {};

// Every spec at the default thread count; the first three specs also at 1, 2, 3 and 7 threads.
TEST_P(ArrayApi, MatchesScalarEncodeForAnyThreadCount) {
  const Case c = GetParam();
  const Format& f = octet::format_of(c.target);
  const octet_ref::RefFormat& rf = octet_ref::ref_format(c.target);
  const int saved_threads = omp_get_max_threads();
  int failed = 0;
  const std::vector<CastSpec> all = specs();
  for (std::size_t k = 0; k < all.size(); ++k) {
    const CastSpec& s = all[k];
    std::vector<std::uint32_t> want(kCount);
    for (std::size_t i = 0; i < kCount; ++i) want[i] = scalar(c.source, i, f, s);
    const std::vector<int> thread_counts = k < 3 ? std::vector<int>{1, 2, 3, 7} : std::vector<int>{saved_threads};
    for (int threads : thread_counts) {
      omp_set_num_threads(threads);
      const std::vector<std::uint32_t> got = array_cast(c.source, f, s);
      octet_test::MismatchLog log;
      for (std::size_t i = 0; i < kCount; ++i)
        if (got[i] != want[i])
          log.add({i, input_bits(c.source, i), octet_test::input_digits(c.source), input_value(c.source, i), want[i],
                   got[i]});
      if (!log.empty() && ++failed <= 10)
        ADD_FAILURE() << log.report(rf, source_name(c.source) + " array vs scalar, " + std::to_string(threads) +
                                            " threads [" + octet_test::spec_name(s) + "]");
    }
  }
  omp_set_num_threads(saved_threads);
  EXPECT_EQ(failed, 0);
}

std::vector<Case> all_cases() {
  std::vector<Case> out;
  for (SourceType s : {SourceType::fp32, SourceType::fp64, SourceType::bf16, SourceType::fp16})
    for (FormatId t : octet_test::kTargets) out.push_back({s, t});
  return out;
}

INSTANTIATE_TEST_SUITE_P(All, ArrayApi, ::testing::ValuesIn(all_cases()), [](const auto& info) {
  return source_name(info.param.source) + "_to_" + std::string(octet_ref::ref_format(info.param.target).name);
});

// fp32 arrays of at least 2^20 elements take a memoised path of their own (8-bit targets,
// deterministic roundings but RTO): the specs it serves at the default thread count, the first
// one also at 1, 2, 3 and 7 threads.
TEST(ArrayApiLarge, Fp32MemoPathMatchesScalar) {
  const std::size_t n = 17 * (std::size_t(1) << 16) + 4321;  // > 2^20, not a multiple of 2^16
  std::mt19937 rng(0x5EED0006u);
  std::vector<float> in(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t bits = rng();
    // Half raw patterns, half patterns near the fp8/fp6/fp4/e8m0 ranges.
    in[i] = (i & 1) ? std::bit_cast<float>(bits)
                    : std::ldexp(1.0f + float(bits & 0xFFFFFF) * 0x1p-24f, int((bits >> 24) % 48) - 24) *
                          ((bits & 0x80000000u) ? -1.0f : 1.0f);
  }
  const int saved_threads = omp_get_max_threads();
  std::vector<std::uint8_t> out(n);
  int failed = 0;
  for (FormatId id : {FormatId::e4m3fn, FormatId::e4m3fnuz, FormatId::e5m2, FormatId::e5m2fnuz, FormatId::e8m0fnu,
                      FormatId::e2m3fn, FormatId::e3m2fn, FormatId::e2m1fn}) {
    std::vector<CastSpec> memo_specs;
    for (Rounding r : {Rounding::NearestEven, Rounding::NearestAway, Rounding::TowardZero, Rounding::TowardPositive,
                       Rounding::TowardNegative})
      for (Overflow o : {Overflow::SatFinite, Overflow::Ieee}) {
        CastSpec s;
        s.rounding = r;
        s.overflow = o;
        memo_specs.push_back(s);
      }
    CastSpec s;
    s.overflow = Overflow::CompareBeforeRound;
    memo_specs.push_back(s);
    s.rounding = Rounding::TowardZero;
    s.overflow = Overflow::NonSat;
    s.e8m0_subnormal_above_min_rounds_up = true;
    memo_specs.push_back(s);
    const Format& f = octet::format_of(id);
    for (std::size_t k = 0; k < memo_specs.size(); ++k) {
      std::vector<std::uint8_t> want(n);
      for (std::size_t i = 0; i < n; ++i) want[i] = std::uint8_t(octet::encode(f, memo_specs[k], in[i]));
      const std::vector<int> thread_counts = k == 0 ? std::vector<int>{1, 2, 3, 7} : std::vector<int>{saved_threads};
      for (int threads : thread_counts) {
        omp_set_num_threads(threads);
        octet::cast(std::span<const float>(in), f, memo_specs[k], std::span<std::uint8_t>(out));
        octet_test::MismatchLog log;
        for (std::size_t i = 0; i < n; ++i)
          if (out[i] != want[i]) log.add({i, std::bit_cast<std::uint32_t>(in[i]), 8, in[i], want[i], out[i]});
        if (!log.empty() && ++failed <= 10)
          ADD_FAILURE() << log.report(octet_ref::ref_format(id), "fp32 array (memo path) vs scalar, " +
                                                                     std::to_string(threads) + " threads [" +
                                                                     octet_test::spec_name(memo_specs[k]) + "]");
      }
    }
  }
  omp_set_num_threads(saved_threads);
  EXPECT_EQ(failed, 0);
}

// cast_fp32_range (the sweep's inner loop) equals scalar encode around zero and subnormals,
// and from the largest finite values through Inf into the NaNs, for both signs.
TEST(ArrayApiRange, Fp32RangeMatchesScalar) {
  constexpr std::uint32_t kFirsts[] = {0x00000000u, 0x7F7F8000u, 0x80000000u, 0xFF7F8000u};
  const std::size_t n = (std::size_t(1) << 17) + 1234;
  std::vector<std::uint8_t> out(n);
  for (FormatId id : {FormatId::e4m3fn, FormatId::e5m2, FormatId::e8m0fnu, FormatId::e2m1fn})
    for (Rounding r : octet_test::kDeterministicRoundings)
      for (std::uint32_t first : kFirsts) {
        CastSpec s;
        s.rounding = r;
        s.overflow = Overflow::Ieee;
        const Format& f = octet::format_of(id);
        octet::cast_fp32_range(first, n, f, s, out.data());
        octet_test::MismatchLog log;
        for (std::size_t i = 0; i < n; ++i) {
          const std::uint32_t bits = first + std::uint32_t(i);
          const std::uint32_t want = octet::encode(f, s, std::bit_cast<float>(bits));
          if (out[i] != want) log.add({i, bits, 8, std::bit_cast<float>(bits), want, out[i]});
        }
        EXPECT_TRUE(log.empty()) << log.report(octet_ref::ref_format(id), "cast_fp32_range from " +
                                                                              octet_test::hex(first, 8) + " [" +
                                                                              octet_test::spec_name(s) + "]");
      }
}

// ---------------------------------------------------------------------------------------------
// Misuse.

// Runs fn, expects std::invalid_argument whose message contains every word of `words`.
template <class Fn>
void expect_invalid(Fn fn, std::initializer_list<const char*> words, const char* what) {
  try {
    fn();
    ADD_FAILURE() << what << ": no exception";
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    for (const char* w : words) EXPECT_NE(msg.find(w), std::string::npos) << what << ": message \"" << msg << "\" lacks \"" << w << "\"";
  } catch (...) {
    ADD_FAILURE() << what << ": threw something other than std::invalid_argument";
  }
}

TEST(ArrayApiMisuse, WrongOutputWidth) {
  std::vector<float> in(10, 1.0f);
  std::vector<std::uint16_t> wide(10);
  std::vector<std::uint8_t> narrow(10);
  expect_invalid([&] { octet::cast(std::span<const float>(in), octet::e4m3fn_format, CastSpec{}, std::span<std::uint16_t>(wide)); },
                 {"e4m3fn", "uint8"}, "e4m3fn into uint16");
  expect_invalid([&] { octet::cast(std::span<const float>(in), octet::bf16_format, CastSpec{}, std::span<std::uint8_t>(narrow)); },
                 {"bf16", "uint16"}, "bf16 into uint8");
}

TEST(ArrayApiMisuse, SizeMismatch) {
  std::vector<double> in(10, 1.0);
  std::vector<std::uint8_t> out(9);
  expect_invalid([&] { octet::cast(std::span<const double>(in), octet::e5m2_format, CastSpec{}, std::span<std::uint8_t>(out)); },
                 {"output", "9", "10"}, "output shorter than input");
  std::vector<std::uint8_t> out10(10);
  std::vector<std::uint32_t> rbits(11);
  CastSpec sr;
  sr.rounding = Rounding::Stochastic;
  expect_invalid([&] { octet::cast(std::span<const double>(in), octet::e5m2_format, sr, std::span<std::uint8_t>(out10), rbits); },
                 {"rbits", "11", "10"}, "rbits longer than input");
}

TEST(ArrayApiMisuse, StochasticWithoutRandomBits) {
  std::vector<float> in(10, 1.0f);
  std::vector<std::uint8_t> out(10);
  CastSpec sr;
  sr.rounding = Rounding::Stochastic;
  expect_invalid([&] { octet::cast(std::span<const float>(in), octet::e4m3fn_format, sr, std::span<std::uint8_t>(out)); },
                 {"sr", "rbits"}, "typed SR without rbits");
  expect_invalid([&] { octet::cast(SourceType::fp32, in.data(), in.size(), octet::e4m3fn_format, sr, out.data(), nullptr); },
                 {"sr", "rbits"}, "type-erased SR without rbits");
  expect_invalid([&] { octet::cast_fp32_range(0, 16, octet::e4m3fn_format, sr, out.data()); }, {"sr", "rbits"},
                 "cast_fp32_range with SR");
}

TEST(ArrayApiMisuse, SrBitsOutOfRange) {
  std::vector<float> in(10, 1.0f);
  std::vector<std::uint8_t> out(10);
  std::vector<std::uint32_t> rbits(10);
  CastSpec sr;
  sr.rounding = Rounding::Stochastic;
  sr.sr.bits = 33;
  expect_invalid([&] { octet::cast(std::span<const float>(in), octet::e4m3fn_format, sr, std::span<std::uint8_t>(out), rbits); },
                 {"SrRule::bits"}, "k = 33");
}

TEST(ArrayApiMisuse, Fp32TargetRejected) {
  std::vector<float> in(10, 1.0f);
  std::vector<std::uint16_t> wide(10);
  std::vector<std::uint8_t> narrow(10);
  std::vector<std::uint32_t> raw(10);
  expect_invalid([&] { octet::cast(SourceType::fp32, in.data(), in.size(), octet::fp32_format, CastSpec{}, raw.data()); },
                 {"fp32", "source only"}, "type-erased fp32 target");
  expect_invalid([&] { octet::cast(SourceType::fp32, in.data(), in.size(), octet::fp64_format, CastSpec{}, raw.data()); },
                 {"fp64", "source only"}, "type-erased fp64 target");
  expect_invalid([&] { octet::cast(std::span<const float>(in), octet::fp32_format, CastSpec{}, std::span<std::uint16_t>(wide)); },
                 {"fp32", "source only"}, "typed fp32 target, uint16 output");
  // Whatever the output span, the problem is the target, not the span width.
  expect_invalid([&] { octet::cast(std::span<const float>(in), octet::fp32_format, CastSpec{}, std::span<std::uint8_t>(narrow)); },
                 {"fp32", "source only"}, "typed fp32 target, uint8 output");
}

}  // namespace
