// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// cuda_headers_test.cpp — octet's cuda_satfinite / cuda_nosat profiles against NVIDIA's own
// conversion functions: cuda_fp8.h, cuda_fp6.h and cuda_fp4.h compile as host C++, so their
// __nv_cvt_* functions run here, on the CPU, with no GPU. Every fp32 input (2^32), both
// saturation modes, every interpretation (E4M3, E5M2, E8M0 with RZ and RP, E2M3, E3M2, E2M1
// with RN and RZ); all 2^16 fp16 and bf16 inputs; a fp64 boundary set. Expected: zero
// differences.
#include <cuda_fp4.h>
#include <cuda_fp6.h>
#include <cuda_fp8.h>
#include <gtest/gtest.h>

#include <atomic>
#include <bit>
#include <cmath>
#include <cstdio>
#include <functional>
#include <ostream>
#include <mutex>
#include <string>
#include <vector>

#include "octet/profile.hpp"
#include "octet/sweep.hpp"

namespace {

using namespace octet;

using CudaFn = std::function<std::uint8_t(float)>;

struct Config {
  std::string name;
  FormatId format;
  const char* profile;
  Rounding rounding;  // the CUDA rounding argument, mapped
  CudaFn cuda;
};

void PrintTo(const Config& c, std::ostream* os) { *os << c.name; }

cudaRoundMode cuda_mode(Rounding r) {
  switch (r) {
    case Rounding::TowardZero: return cudaRoundZero;
    case Rounding::TowardPositive: return cudaRoundPosInf;
    default: return cudaRoundNearest;
  }
}

std::vector<Config> configs() {
  std::vector<Config> c;
  for (const bool sat : {true, false}) {
    const auto s = sat ? __NV_SATFINITE : __NV_NOSAT;
    const char* profile = sat ? "cuda_satfinite" : "cuda_nosat";
    const std::string tag = sat ? "satfinite" : "nosat";
    c.push_back({"e4m3_" + tag, FormatId::e4m3fn, profile, Rounding::NearestEven,
                 [s](float x) { return std::uint8_t(__nv_cvt_float_to_fp8(x, s, __NV_E4M3)); }});
    c.push_back({"e5m2_" + tag, FormatId::e5m2, profile, Rounding::NearestEven,
                 [s](float x) { return std::uint8_t(__nv_cvt_float_to_fp8(x, s, __NV_E5M2)); }});
    for (const Rounding r : {Rounding::TowardZero, Rounding::TowardPositive}) {
      c.push_back({"e8m0_" + std::string(name(r)) + "_" + tag, FormatId::e8m0fnu, profile, r,
                   [s, r](float x) { return std::uint8_t(__nv_cvt_float_to_e8m0(x, s, cuda_mode(r))); }});
    }
  }
  // cuda_fp6.h / cuda_fp4.h always saturate (no saturation argument).
  for (const Rounding r : {Rounding::NearestEven, Rounding::TowardZero}) {
    const std::string tag = std::string(name(r));
    c.push_back({"e2m3_" + tag, FormatId::e2m3fn, "cuda_satfinite", r,
                 [r](float x) { return std::uint8_t(__nv_cvt_float_to_fp6(x, __NV_E2M3, cuda_mode(r))); }});
    c.push_back({"e3m2_" + tag, FormatId::e3m2fn, "cuda_satfinite", r,
                 [r](float x) { return std::uint8_t(__nv_cvt_float_to_fp6(x, __NV_E3M2, cuda_mode(r))); }});
    c.push_back({"e2m1_" + tag, FormatId::e2m1fn, "cuda_satfinite", r,
                 [r](float x) { return std::uint8_t(__nv_cvt_float_to_fp4(x, __NV_E2M1, cuda_mode(r))); }});
  }
  return c;
}

CastSpec spec_of(const Config& c, SourceType src = SourceType::fp32) {
  CastSpec s = find_profile(c.profile)->spec_for(c.format, src);
  s.rounding = c.rounding;
  return s;
}

// Collects mismatches from many threads and prints the first ones with both codes decoded.
class Mismatches {
 public:
  explicit Mismatches(const Format& f) : f_(f) {}
  void add(std::uint64_t input_bits, const char* source, std::uint32_t want, std::uint32_t got) {
    if (count_.fetch_add(1) >= 10) return;
    const std::lock_guard<std::mutex> lock(mutex_);
    char line[256];
    std::snprintf(line, sizeof line, "  %s input 0x%llx: cuda 0x%02x (%g) octet 0x%02x (%g)\n", source,
                  static_cast<unsigned long long>(input_bits), want, decode(f_, want), got, decode(f_, got));
    text_ += line;
  }
  std::uint64_t count() const { return count_.load(); }
  const std::string& text() const { return text_; }

 private:
  const Format& f_;
  std::atomic<std::uint64_t> count_{0};
  std::mutex mutex_;
  std::string text_;
};

// The configurations a test applies to: all (fp32), the fp8 ones (fp16 / bf16 sources, which
// cuda_fp8.h converts to E4M3 / E5M2 only), fp8 and e8m0 (the double paths of cuda_fp8.h).
std::vector<Config> configs_where(bool (*keep)(FormatId)) {
  std::vector<Config> out;
  for (const Config& c : configs())
    if (keep(c.format)) out.push_back(c);
  return out;
}
bool is_fp8(FormatId f) { return f == FormatId::e4m3fn || f == FormatId::e5m2; }
bool is_fp8_or_e8m0(FormatId f) { return is_fp8(f) || f == FormatId::e8m0fnu; }

class CudaHeaders : public ::testing::TestWithParam<Config> {};
class CudaHeadersFp8 : public ::testing::TestWithParam<Config> {};
class CudaHeadersFp64 : public ::testing::TestWithParam<Config> {};

TEST_P(CudaHeaders, AllFp32Inputs) {
  const Config& c = GetParam();
  const Format& f = format_of(c.format);
  Mismatches bad(f);
  sweep_fp32(f, spec_of(c), 0, std::uint64_t(1) << 32, 0,
             [&](std::uint64_t first, std::span<const std::uint8_t> codes) {
               for (std::size_t i = 0; i < codes.size(); ++i) {
                 const std::uint32_t bits = std::uint32_t(first + i);
                 const std::uint8_t want = c.cuda(std::bit_cast<float>(bits));
                 if (want != codes[i]) bad.add(bits, "fp32", want, codes[i]);
               }
             });
  EXPECT_EQ(bad.count(), 0u) << c.name << " (profile " << c.profile << "), first mismatches:\n" << bad.text();
}

TEST_P(CudaHeadersFp8, AllFp16AndBf16Inputs) {
  const Config& c = GetParam();
  const bool sat = std::string(c.profile) == "cuda_satfinite";
  const auto s = sat ? __NV_SATFINITE : __NV_NOSAT;
  const auto interp = c.format == FormatId::e4m3fn ? __NV_E4M3 : __NV_E5M2;
  const Format& f = format_of(c.format);
  Mismatches bad(f);
  std::vector<std::uint16_t> in(1 << 16);
  for (std::uint32_t i = 0; i < in.size(); ++i) in[i] = std::uint16_t(i);
  std::vector<std::uint8_t> half_codes(in.size()), bf16_codes(in.size());
  cast(SourceType::fp16, in.data(), in.size(), f, spec_of(c, SourceType::fp16), half_codes.data());
  cast(SourceType::bf16, in.data(), in.size(), f, spec_of(c, SourceType::bf16), bf16_codes.data());
  for (std::uint32_t i = 0; i < in.size(); ++i) {
    __half_raw h; h.x = std::uint16_t(i);
    __nv_bfloat16_raw b; b.x = std::uint16_t(i);
    const std::uint8_t want_h = __nv_cvt_halfraw_to_fp8(h, s, interp);
    const std::uint8_t want_b = __nv_cvt_bfloat16raw_to_fp8(b, s, interp);
    if (want_h != half_codes[i]) bad.add(i, "fp16", want_h, half_codes[i]);
    if (want_b != bf16_codes[i]) bad.add(i, "bf16", want_b, bf16_codes[i]);
  }
  EXPECT_EQ(bad.count(), 0u) << c.name << ", first mismatches:\n" << bad.text();
}

// fp64: every fp8 midpoint and representable value with its fp64 neighbours, max + ½ulp, the
// subnormal midpoints, NaN of both signs with several payloads, Inf, zeros.
TEST_P(CudaHeadersFp64, Fp64BoundarySet) {
  const Config& c = GetParam();
  const bool fp8 = is_fp8(c.format);
  const bool sat = std::string(c.profile) == "cuda_satfinite";
  const auto s = sat ? __NV_SATFINITE : __NV_NOSAT;
  const Format& f = format_of(c.format);
  std::vector<double> in;
  std::vector<double> values;
  for (std::uint32_t code = 0; code < f.code_count(); ++code) {
    const double v = decode(f, code);
    if (std::isfinite(v)) values.push_back(std::fabs(v));
  }
  std::sort(values.begin(), values.end());
  values.push_back(2 * values.back() - values[values.size() - 2]);  // max + ulp, as if finite
  for (std::size_t i = 0; i + 1 < values.size(); ++i) {
    for (const double p : {values[i], 0.5 * (values[i] + values[i + 1])}) {
      for (const double q : {p, std::nextafter(p, 0.0), std::nextafter(p, HUGE_VAL)})
        for (const double sign : {1.0, -1.0}) in.push_back(sign * q);
    }
  }
  for (const std::uint64_t nan : {0x7FF8000000000000ull, 0x7FF4000000000000ull, 0x7FFC000000000001ull,
                                  0xFFF8000000000000ull, 0xFFF4000000000000ull, 0x7FF0000000000001ull})
    in.push_back(std::bit_cast<double>(nan));
  for (const double v : {HUGE_VAL, -HUGE_VAL, 0.0, -0.0, 1e300, -1e300, 1e-300, 0x1p-127, 0x1.8p-127, 3.0, -3.0})
    in.push_back(v);
  std::vector<std::uint8_t> got(in.size());
  cast(std::span<const double>(in), f, spec_of(c, SourceType::fp64), std::span<std::uint8_t>(got));
  Mismatches bad(f);
  for (std::size_t i = 0; i < in.size(); ++i) {
    const std::uint8_t want =
        fp8 ? __nv_cvt_double_to_fp8(in[i], s, c.format == FormatId::e4m3fn ? __NV_E4M3 : __NV_E5M2)
            : __nv_cvt_double_to_e8m0(in[i], s, cuda_mode(c.rounding));
    if (want != got[i]) bad.add(std::bit_cast<std::uint64_t>(in[i]), "fp64", want, got[i]);
  }
  EXPECT_EQ(bad.count(), 0u) << c.name << " over " << in.size() << " fp64 inputs, first mismatches:\n"
                             << bad.text();
}

const auto kName = [](const ::testing::TestParamInfo<Config>& i) { return i.param.name; };
INSTANTIATE_TEST_SUITE_P(Conformance, CudaHeaders, ::testing::ValuesIn(configs()), kName);
INSTANTIATE_TEST_SUITE_P(Conformance, CudaHeadersFp8, ::testing::ValuesIn(configs_where(is_fp8)), kName);
INSTANTIATE_TEST_SUITE_P(Conformance, CudaHeadersFp64, ::testing::ValuesIn(configs_where(is_fp8_or_e8m0)), kName);

}  // namespace
