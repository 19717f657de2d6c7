// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// inputs.cpp — counter-based input generators (inputs.hpp).
#include "octet/golden/inputs.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>

#include "octet/cast.hpp"
#include "octet/format.hpp"
#include "octet/golden/tensor_io.hpp"
#include "octet/sweep.hpp"

namespace octet::golden {
namespace {

constexpr std::array<std::string_view, 7> kNames{"normal",          "student_t",   "outliers", "log_uniform",
                                                 "constant_blocks", "zero_blocks", "specials"};

// Counter streams: value i draws words (i * kWords + j) of the seed's stream.
constexpr std::uint64_t kWords = 32;

struct Draws {
  std::uint64_t seed, base;
  std::uint32_t j = 0;
  std::uint32_t word() { return counter_rbits(seed, base + j++); }
  // Uniform in [0, 1) with 24 bits: exact in float and double.
  double uniform() { return double(word() >> 8) * 0x1p-24; }
  // Irwin–Hall: the sum of 12 exact 24-bit uniforms is exact in double; mean 6, variance 1.
  double normal() {
    double s = 0;
    for (int k = 0; k < 12; ++k) s += uniform();
    return s - 6.0;
  }
};

Draws draws(const InputSpec& s, std::int64_t i) { return Draws{s.seed, std::uint64_t(i) * kWords}; }

double student_t3(Draws& d) {
  const double z = d.normal();
  double chi2 = 0;
  for (int k = 0; k < 3; ++k) {
    const double g = d.normal();
    chi2 += g * g;
  }
  return z / std::sqrt(chi2 / 3.0 + 1e-12);  // sqrt is correctly rounded; 1e-12 keeps it finite
}

float value(const InputSpec& s, std::int64_t i) {
  Draws d = draws(s, i);
  const double scale = s.scale;
  switch (s.distribution) {
    case Distribution::normal: return float(d.normal() * scale);
    case Distribution::student_t: return float(student_t3(d) * scale);
    case Distribution::outliers: {
      const double x = d.normal();
      if ((d.word() & 255u) == 0) return float(std::ldexp(x, 8 + int(d.word() % 5u)) * scale);
      return float(x * scale);
    }
    case Distribution::log_uniform: {
      const std::uint32_t w = d.word();
      const double m = 1.0 + d.uniform();
      const int e = int(w % 81u) - 40;
      return float(((w >> 31) ? -1.0 : 1.0) * std::ldexp(m, e) * scale);
    }
    case Distribution::constant_blocks: {
      const std::int64_t block = s.block > 0 ? s.block : 1;
      Draws b = draws(s, (i / block) * block);  // the block's first element's stream
      return float(b.normal() * scale);
    }
    case Distribution::zero_blocks: {
      const std::int64_t block = s.block > 0 ? s.block : 1;
      if ((i / block) % 2 == 1) return (d.word() & 1u) ? -0.0f : 0.0f;
      return float(d.normal() * scale);
    }
    case Distribution::specials: {
      const double x = d.normal();
      const std::uint32_t w = d.word();
      if ((w & 31u) != 0) return float(x * scale);
      switch ((w >> 5) % 8u) {
        case 0: return std::bit_cast<float>(0x7fc00000u);
        case 1: return std::bit_cast<float>(0xffc00000u);
        case 2: return std::numeric_limits<float>::infinity();
        case 3: return -std::numeric_limits<float>::infinity();
        case 4: return (w >> 8) & 1u ? -0.0f : 0.0f;
        case 5: return std::bit_cast<float>(((w >> 9) & 0x007fffffu) | (((w >> 8) & 1u) << 31));  // fp32 subnormal
        case 6: return float(std::ldexp(448.0, int((w >> 9) % 9u) - 4) * ((w >> 8) & 1u ? -1 : 1));
        default: return float(std::ldexp(1.0, int((w >> 9) % 64u) - 32));  // exact powers of two
      }
    }
  }
  return 0.0f;
}

}  // namespace

std::string_view name(Distribution d) { return kNames[std::size_t(d)]; }

bool parse_distribution(std::string_view s, Distribution& d) {
  for (std::size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == s) {
      d = Distribution(i);
      return true;
    }
  return false;
}

std::string describe(const InputSpec& s) {
  char scale[32];
  std::snprintf(scale, sizeof scale, "%.17g", s.scale);
  std::string p = "scale=" + std::string(scale);
  switch (s.distribution) {
    case Distribution::student_t: p = "nu=3," + p; break;
    case Distribution::outliers: p += ",rate=1/256,gain=2^8..2^12"; break;
    case Distribution::log_uniform: p += ",exponent=-40..40"; break;
    case Distribution::constant_blocks:
    case Distribution::zero_blocks: p += ",block=" + std::to_string(s.block); break;
    case Distribution::specials: p += ",rate=1/32"; break;
    case Distribution::normal: break;
  }
  return std::string(name(s.distribution)) + "(" + p + ")";
}

std::vector<float> generate_fp32(const InputSpec& s, std::int64_t n) {
  std::vector<float> v(std::size_t(n > 0 ? n : 0));
  // Threads only pay off on large tensors: the catalogues draw thousands of small ones, where
  // waking a team costs more than the values.
#pragma omp parallel for schedule(static) if (n >= 65536)
  for (std::int64_t i = 0; i < n; ++i) v[std::size_t(i)] = value(s, i);
  return v;
}

std::vector<std::uint16_t> generate_bf16(const InputSpec& s, std::int64_t n) {
  const std::vector<float> f = generate_fp32(s, n);
  std::vector<std::uint16_t> out(f.size());
  cast(std::span<const float>(f), bf16_format, CastSpec{.overflow = Overflow::Ieee}, std::span<std::uint16_t>(out));
  return out;
}

Tensor generate_tensor(const InputSpec& s, std::vector<std::int64_t> shape, std::string_view dtype) {
  std::int64_t n = 1;
  for (const std::int64_t d : shape) n *= d;
  if (dtype == "bfloat16") return make_tensor("bfloat16", std::move(shape), generate_bf16(s, n));
  if (dtype == "float32") return make_tensor("float32", std::move(shape), generate_fp32(s, n));
  throw std::logic_error("generate_tensor: dtype '" + std::string(dtype) + "' is not float32 or bfloat16");
}

std::int64_t uniform_int(std::uint64_t seed, std::uint64_t index, std::int64_t bound) {
  if (bound <= 1) return 0;
  // 64 random bits, reduced by multiply-high (bias < 2^-32 for the bounds used here).
  const std::uint64_t w = std::uint64_t(counter_rbits(seed ^ 0xA5A5A5A5u, 2 * index)) << 32 |
                          counter_rbits(seed ^ 0xA5A5A5A5u, 2 * index + 1);
  return std::int64_t((unsigned __int128)w * std::uint64_t(bound) >> 64);
}

}  // namespace octet::golden
