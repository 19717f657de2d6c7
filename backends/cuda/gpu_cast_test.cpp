// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// gpu_cast_test.cpp — the CUDA cast kernels (sm90_cast.cu) against the emulator, bit for bit.
// Run:   ctest --test-dir build -L gpu, or build/backends/octet_gpu_tests. Every test that needs
//        a device is skipped without one. OCTET_GPU_TEST_REDUCED=1 cuts the sweeps to a few
//        million inputs and skips LargeCount (for compute-sanitizer runs).
// Tests: Variant1Matrix  variant 1 vs octet::cast, every target x rounding (SR with seeded
//                        rbits) x overflow policy, plus NaN / subnormal / unsigned / SR-width
//                        variants: fp32 windows of 2048 inputs around every multiple of 2^16
//                        (1/32 of all inputs, every tie and boundary of the 8-bit formats), all
//                        2^16 bf16 and fp16 inputs, 2^20 random fp64 inputs.
//                        Every profile's spec for each target too.
//        FullSweep       variants 1 and 2 vs octet::sweep_fp32 over all 2^32 fp32 inputs:
//                        e4m3fn / e5m2 under the cuda_satfinite profile (RNE, SatFinite, NaN
//                        made canonical) and the ocp profile (RNE, SatFinite, NaN sign kept).
//        HardwareCvt16   variant 2 vs octet::cast, all 2^16 bf16 and fp16 inputs.
//        HardwareNan     the cvt instruction's own code for every NaN input (recorded).
//        LargeCount      2^31 + 12345 fp32 -> e4m3fn, both variants (64-bit indexing).
//        Misaligned, BackendTable, BadArguments.
// A mismatch prints the input (hex and value), both codes (hex and value) and the spec.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "backend.hpp"
#include "cuda_cast.hpp"
#include "cuda_check.hpp"
#include "gpu_cast_test.hpp"
#include "octet/cast.hpp"
#include "octet/profile.hpp"
#include "octet/scale.hpp"
#include "octet/sweep.hpp"

namespace octet {
namespace {

using cuda::CastVariant;

constexpr std::uint64_t kSrSeed = 20261122;
constexpr std::size_t kMaxShown = 10;

bool reduced() {
  static const bool r = [] {
    const char* e = std::getenv("OCTET_GPU_TEST_REDUCED");
    return e != nullptr && *e != '\0' && std::string_view(e) != "0";
  }();
  return r;
}

bool have_device() {
  static const bool d = [] {
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
  }();
  return d;
}

#define OCTET_REQUIRE_DEVICE() \
  if (!have_device()) GTEST_SKIP() << "no CUDA device"

template <class T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t n) : n_(n) {
    OCTET_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&p_), std::max<std::size_t>(n, 1) * sizeof(T)));
  }
  ~DeviceBuffer() { cudaFree(p_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  T* get() const { return p_; }
  std::size_t size() const { return n_; }
  void upload(const T* host, std::size_t count, std::size_t offset = 0) {
    OCTET_CUDA_CHECK(cudaMemcpy(p_ + offset, host, count * sizeof(T), cudaMemcpyHostToDevice));
  }
  void download(T* host, std::size_t count, std::size_t offset = 0) const {
    OCTET_CUDA_CHECK(cudaMemcpy(host, p_ + offset, count * sizeof(T), cudaMemcpyDeviceToHost));
  }
  void fill_bytes(int byte) { OCTET_CUDA_CHECK(cudaMemset(p_, byte, std::max<std::size_t>(n_, 1) * sizeof(T))); }

 private:
  T* p_ = nullptr;
  std::size_t n_;
};

// ----------------------------------------------------------------------------
// Reporting

const Format& fmt(FormatId id) { return format_of(id); }

std::string hex(std::uint64_t v, int digits) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%0*" PRIx64, digits, v);
  return b;
}

std::string value_of(SourceType src, std::uint64_t bits) {
  char b[64];
  switch (src) {
    case SourceType::fp32: std::snprintf(b, sizeof b, "%.9g", double(std::bit_cast<float>(std::uint32_t(bits)))); break;
    case SourceType::fp64: std::snprintf(b, sizeof b, "%.17g", std::bit_cast<double>(bits)); break;
    case SourceType::bf16: std::snprintf(b, sizeof b, "%.9g", decode(bf16_format, std::uint32_t(bits))); break;
    case SourceType::fp16: std::snprintf(b, sizeof b, "%.9g", decode(fp16_format, std::uint32_t(bits))); break;
  }
  return b;
}

std::string code_of(const Format& f, std::uint32_t code) {
  char b[64];
  std::snprintf(b, sizeof b, "%s (%g)", hex(code, f.bits() > 8 ? 4 : 2).c_str(), decode(f, code));
  return b;
}

std::string describe(const Format& f, const CastSpec& s) {
  std::string d = std::string(name(f.id)) + " " + std::string(name(s.rounding)) + " " + std::string(name(s.overflow));
  d += s.nan == NanPolicy::Canonical ? " nan=canonical"
       : s.nan == NanPolicy::KeepSign ? " nan=keep-sign"
                                      : " nan=" + std::to_string(int(s.nan));
  if (s.nanless_nan == NanlessNan::NegZero) d += " nanless=-0";
  if (s.subnormals == Subnormals::Flush) d += " subnormals=flush";
  if (s.unsigned_negative == UnsignedNegative::Abs) d += " unsigned-negative=abs";
  if (s.unsigned_negative == UnsignedNegative::Min) d += " unsigned-negative=min";
  if (s.unsigned_zero == UnsignedZero::Nan) d += " unsigned-zero=nan";
  if (s.rounding == Rounding::Stochastic)
    d += " sr.bits=" + std::to_string(s.sr.bits) + " seed=" + std::to_string(kSrSeed);
  return d;
}

struct Mismatch {
  std::size_t index;
  std::uint64_t input;
  std::uint32_t got, want;
};

struct Comparison {
  std::uint64_t count = 0;
  std::vector<Mismatch> first;  // the lowest indices, at most kMaxShown

  void merge(const Comparison& o) {
    count += o.count;
    first.insert(first.end(), o.first.begin(), o.first.end());
    std::sort(first.begin(), first.end(), [](const Mismatch& a, const Mismatch& b) { return a.index < b.index; });
    if (first.size() > kMaxShown) first.resize(kMaxShown);
  }

  std::string report(SourceType src, const Format& f, const CastSpec& s, std::string_view what) const {
    std::string r = std::string(what) + " [" + describe(f, s) + "]: " + std::to_string(count) + " mismatches";
    for (const Mismatch& m : first)
      r += "\n  at " + std::to_string(m.index) + ": " + std::string(name(src)) + " " +
           hex(m.input, int(size_of(src)) * 2) + " (" + value_of(src, m.input) + "): gpu " + code_of(f, m.got) +
           ", emulator " + code_of(f, m.want);
    return r;
  }
};

// Codes got[i] vs want[i], i < n; input_of(i) gives the input bits for the report.
template <class Code, class InputOf>
Comparison compare(const Code* got, const Code* want, std::size_t n, InputOf input_of) {
  Comparison total;
  std::mutex m;
  const std::int64_t chunks = std::int64_t((n + (1u << 20) - 1) >> 20);
#pragma omp parallel for schedule(dynamic)
  for (std::int64_t c = 0; c < chunks; ++c) {
    Comparison local;
    const std::size_t end = std::min(n, std::size_t(c + 1) << 20);
    for (std::size_t i = std::size_t(c) << 20; i < end; ++i) {
      if (got[i] == want[i]) continue;
      ++local.count;
      if (local.first.size() < kMaxShown) local.first.push_back({i, input_of(i), got[i], want[i]});
    }
    if (local.count != 0) {
      std::lock_guard<std::mutex> lock(m);
      total.merge(local);
    }
  }
  return total;
}

// ----------------------------------------------------------------------------
// Inputs shared by the tests: built once, freed by the environment's TearDown (before the CUDA
// runtime unloads, so that no cudaFree fails under compute-sanitizer).

// fp32 windows: `width` consecutive bit patterns centred on every multiple of 2^spacing_log2,
// the centre moved by (w & 15) << 12 for the 16-bit targets (whose ties lie below bit 16).
struct Windows {
  std::vector<std::uint32_t> inputs, rbits;
  std::unique_ptr<DeviceBuffer<std::uint32_t>> inputs_d, rbits_d;
};

std::unique_ptr<Windows> g_windows8, g_windows16;

Windows& windows(bool wide) {
  std::unique_ptr<Windows>& w = wide ? g_windows16 : g_windows8;
  if (w) return *w;
  w = std::make_unique<Windows>();
  const int spacing_log2 = reduced() ? 22 : 16;
  const std::uint32_t width = reduced() ? 256 : wide ? 256 : 2048;
  const std::size_t count = (std::size_t(1) << (32 - spacing_log2)) * width;
  w->inputs.resize(count);
  w->rbits.resize(count);
  const std::int64_t nw = std::int64_t(1) << (32 - spacing_log2);
#pragma omp parallel for
  for (std::int64_t k = 0; k < nw; ++k) {
    std::uint32_t centre = std::uint32_t(k) << spacing_log2;
    if (wide) centre += std::uint32_t(k & 15) << 12;
    for (std::uint32_t j = 0; j < width; ++j) {
      const std::uint32_t x = centre - width / 2 + j;
      w->inputs[std::size_t(k) * width + j] = x;
      w->rbits[std::size_t(k) * width + j] = counter_rbits(kSrSeed, x);
    }
  }
  w->inputs_d = std::make_unique<DeviceBuffer<std::uint32_t>>(count);
  w->inputs_d->upload(w->inputs.data(), count);
  w->rbits_d = std::make_unique<DeviceBuffer<std::uint32_t>>(count);
  w->rbits_d->upload(w->rbits.data(), count);
  return *w;
}

class SharedInputs : public ::testing::Environment {
 public:
  void TearDown() override {
    g_windows8.reset();
    g_windows16.reset();
  }
};
[[maybe_unused]] const auto* const g_env = ::testing::AddGlobalTestEnvironment(new SharedInputs);

// ----------------------------------------------------------------------------
// One source on the GPU (variant v) and on the emulator; returns the comparison.

// Host result buffers reused across tests (slot 0: gpu, 1: emulator), so that each case does
// not pay for fresh pages.
template <class Code>
Code* scratch(int slot, std::size_t n) {
  static std::vector<std::uint64_t> buffers[2];
  std::vector<std::uint64_t>& b = buffers[slot];
  if (b.size() * 8 < n * sizeof(Code)) b.resize((n * sizeof(Code) + 7) / 8);
  return reinterpret_cast<Code*>(b.data());
}

template <class Storage, class Code>
Comparison run_and_compare(SourceType src, const std::vector<Storage>& in, const Storage* in_d,
                           const std::vector<std::uint32_t>* rbits, const std::uint32_t* rbits_d,
                           const Format& f, const CastSpec& s, CastVariant v) {
  const std::size_t n = in.size();
  DeviceBuffer<Code> out_d(n);
  out_d.fill_bytes(0xA5);
  cuda::cast(src, in_d, n, f, s, out_d.get(), rbits_d, v);
  Code* got = scratch<Code>(0, n);
  Code* want = scratch<Code>(1, n);
  out_d.download(got, n);
  octet::cast(src, in.data(), n, f, s, want, rbits ? rbits->data() : nullptr);
  return compare(got, want, n, [&](std::size_t i) { return std::uint64_t(in[i]); });
}

template <class Storage>
Comparison run_and_compare_any(SourceType src, const std::vector<Storage>& in, const Storage* in_d,
                               const std::vector<std::uint32_t>* rbits, const std::uint32_t* rbits_d,
                               const Format& f, const CastSpec& s, CastVariant v) {
  if (f.bits() > 8) return run_and_compare<Storage, std::uint16_t>(src, in, in_d, rbits, rbits_d, f, s, v);
  return run_and_compare<Storage, std::uint8_t>(src, in, in_d, rbits, rbits_d, f, s, v);
}

// Every 16-bit pattern, and its SR words (counter_rbits of the pattern).
template <class Storage = std::uint16_t>
std::vector<Storage> all16() {
  std::vector<Storage> v(1u << 16);
  for (std::uint32_t i = 0; i < v.size(); ++i) v[i] = Storage(i);
  return v;
}
std::vector<std::uint32_t> rbits_of_index(std::size_t n) {
  std::vector<std::uint32_t> r(n);
  for (std::size_t i = 0; i < n; ++i) r[i] = counter_rbits(kSrSeed, i);
  return r;
}

// Random fp64 patterns: half uniform bits, half with exponents within 2^-160 .. 2^160.
std::vector<std::uint64_t> random_fp64(std::size_t n) {
  std::vector<std::uint64_t> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t b = (std::uint64_t(counter_rbits(kSrSeed + 1, 2 * i)) << 32) | counter_rbits(kSrSeed + 1, 2 * i + 1);
    if (i & 1) b = (b & 0x800FFFFFFFFFFFFFull) | (std::uint64_t(1023 - 160 + (b >> 52) % 321) << 52);
    v[i] = b;
  }
  return v;
}

// ----------------------------------------------------------------------------
// Variant1Matrix

struct MatrixCase {
  FormatId dst;
  CastSpec spec;
  std::string label;
};

// Every rounding and overflow policy the emulator knows, by name.
std::vector<Rounding> all_roundings() {
  std::vector<Rounding> v;
  for (const char* n : {"rne", "rna", "rtz", "ru", "rd", "rto", "sr"})
    if (const auto r = parse_rounding(n)) v.push_back(*r);
  return v;
}
std::vector<Overflow> all_overflows() {
  std::vector<Overflow> v;
  for (const char* n : {"satfinite", "ieee", "satfinite-only", "compare-before-round", "nonsat"})
    if (const auto o = parse_overflow(n)) v.push_back(*o);
  return v;
}

std::string identifier(std::string_view text) {
  std::string id(text);
  std::replace(id.begin(), id.end(), '-', '_');
  return id;
}

std::vector<MatrixCase> matrix_cases() {
  std::vector<MatrixCase> cases;
  for (const Format& f : target_formats) {
    const std::string fn(name(f.id));
    for (Rounding r : all_roundings())
      for (Overflow o : all_overflows()) {
        CastSpec s;
        s.rounding = r;
        s.overflow = o;
        cases.push_back({f.id, s, fn + "_" + std::string(name(r)) + "_" + identifier(name(o))});
      }
    const CastSpec base{};
    CastSpec s = base;
    s.nan = NanPolicy::Canonical;
    cases.push_back({f.id, s, fn + "_rne_satfinite_nan_canonical"});
    s = base;
    s.subnormals = Subnormals::Flush;
    cases.push_back({f.id, s, fn + "_rne_satfinite_flush"});
    s = base;
    s.overflow = Overflow::Ieee;
    s.nanless_nan = NanlessNan::NegZero;
    cases.push_back({f.id, s, fn + "_rne_ieee_nanless_negzero"});
    s = base;
    s.unsigned_negative = UnsignedNegative::Abs;
    cases.push_back({f.id, s, fn + "_rne_satfinite_unsigned_abs"});
    s = base;
    s.rounding = Rounding::TowardPositive;
    s.unsigned_negative = UnsignedNegative::Min;
    s.unsigned_zero = UnsignedZero::Nan;
    cases.push_back({f.id, s, fn + "_ru_satfinite_unsigned_min_zero_nan"});
    for (int k : {8, 32}) {
      s = base;
      s.rounding = Rounding::Stochastic;
      s.sr.bits = std::uint8_t(k);
      cases.push_back({f.id, s, fn + "_sr_k" + std::to_string(k) + "_satfinite"});
    }
    for (const Profile& p : profiles()) cases.push_back({f.id, p.spec_for(f.id), fn + "_profile_" + identifier(p.name)});
  }
  return cases;
}

class Variant1Matrix : public ::testing::TestWithParam<MatrixCase> {};

TEST_P(Variant1Matrix, MatchesEmulator) {
  OCTET_REQUIRE_DEVICE();
  const MatrixCase& c = GetParam();
  const Format& f = fmt(c.dst);
  const CastSpec& s = c.spec;
  const bool sr = s.rounding == Rounding::Stochastic;

  {  // fp32: the windows
    Windows& w = windows(f.bits() > 8);
    const Comparison r = run_and_compare_any<std::uint32_t>(SourceType::fp32, w.inputs, w.inputs_d->get(),
                                                            sr ? &w.rbits : nullptr, sr ? w.rbits_d->get() : nullptr,
                                                            f, s, CastVariant::generic);
    EXPECT_EQ(r.count, 0u) << r.report(SourceType::fp32, f, s, "variant 1, fp32 windows (" + std::to_string(w.inputs.size()) + " inputs)");
  }
  // bf16 and fp16: all 2^16 inputs.
  const std::vector<std::uint16_t> in16 = all16();
  const std::vector<std::uint32_t> r16 = rbits_of_index(in16.size());
  DeviceBuffer<std::uint16_t> in16_d(in16.size());
  in16_d.upload(in16.data(), in16.size());
  DeviceBuffer<std::uint32_t> r16_d(r16.size());
  r16_d.upload(r16.data(), r16.size());
  for (SourceType src : {SourceType::bf16, SourceType::fp16}) {
    const Comparison r = run_and_compare_any<std::uint16_t>(src, in16, in16_d.get(), sr ? &r16 : nullptr,
                                                            sr ? r16_d.get() : nullptr, f, s, CastVariant::generic);
    EXPECT_EQ(r.count, 0u) << r.report(src, f, s, std::string("variant 1, all ") + std::string(name(src)));
  }
  {  // fp64: random patterns
    const std::vector<std::uint64_t> in64 = random_fp64(reduced() ? 1u << 14 : 1u << 20);
    const std::vector<std::uint32_t> r64 = rbits_of_index(in64.size());
    DeviceBuffer<std::uint64_t> in64_d(in64.size());
    in64_d.upload(in64.data(), in64.size());
    DeviceBuffer<std::uint32_t> r64_d(r64.size());
    r64_d.upload(r64.data(), r64.size());
    const Comparison r = run_and_compare_any<std::uint64_t>(SourceType::fp64, in64, in64_d.get(), sr ? &r64 : nullptr,
                                                            sr ? r64_d.get() : nullptr, f, s, CastVariant::generic);
    EXPECT_EQ(r.count, 0u) << r.report(SourceType::fp64, f, s, "variant 1, random fp64");
  }
}

INSTANTIATE_TEST_SUITE_P(GpuCast, Variant1Matrix, ::testing::ValuesIn(matrix_cases()),
                         [](const ::testing::TestParamInfo<MatrixCase>& i) { return i.param.label; });

// ----------------------------------------------------------------------------
// FullSweep: every fp32 input, both variants, against octet::sweep_fp32.

// The variant-2 configurations: a target and a named profile whose fp8 spec is RNE + SatFinite.
// cuda_satfinite is the cvt's own (NaN made canonical first, as cuda_fp8.h does for a float
// source); ocp keeps the NaN sign.
struct SweepCase {
  FormatId dst;
  const char* profile;
};

CastSpec profile_spec(std::string_view profile, FormatId id) {
  if (const Profile* p = find_profile(profile)) return p->spec_for(id);
  CastSpec s;  // RNE, SatFinite
  if (profile == "cuda_satfinite") s.nan = NanPolicy::Canonical;
  return s;
}

const auto kSweepCases = ::testing::Values(SweepCase{FormatId::e4m3fn, "cuda_satfinite"},
                                           SweepCase{FormatId::e5m2, "cuda_satfinite"},
                                           SweepCase{FormatId::e4m3fn, "ocp"}, SweepCase{FormatId::e5m2, "ocp"});

std::string sweep_case_name(const ::testing::TestParamInfo<SweepCase>& i) {
  return std::string(name(i.param.dst)) + "_" + i.param.profile;
}

class FullSweep : public ::testing::TestWithParam<SweepCase> {};

TEST_P(FullSweep, BothVariantsMatchEmulator) {
  OCTET_REQUIRE_DEVICE();
  const Format& f = fmt(GetParam().dst);
  const CastSpec s = profile_spec(GetParam().profile, f.id);
  ASSERT_FALSE(cuda::hardware_cvt_unsupported(SourceType::fp32, f, s).has_value());

  struct Range { std::uint64_t first, count; };
  std::vector<Range> ranges{{0, std::uint64_t(1) << 32}};
  if (reduced())
    ranges = {{0x00000000u, 1u << 20},                // zero and fp32 subnormals
              {0x43800000u, 1u << 23},                // [256, 512): e4m3fn max 448, tie 464
              {0x47600000u, 1u << 22},                // [57344, ...): e5m2 max, tie 61440
              {0x7F800000u - (1u << 20), 1u << 22},   // huge, +Inf, +NaN
              {0xFF800000u - (1u << 20), 1u << 21}};  // -huge, -Inf, -NaN

  constexpr std::size_t kChunk = std::size_t(1) << 28;
  DeviceBuffer<std::uint32_t> in_d(kChunk);
  DeviceBuffer<std::uint8_t> out1_d(kChunk), out2_d(kChunk);
  for (const Range& range : ranges) {
    const std::unique_ptr<std::uint8_t[]> got1(new std::uint8_t[range.count]), got2(new std::uint8_t[range.count]);
    for (std::uint64_t off = 0; off < range.count; off += kChunk) {
      const std::size_t n = std::size_t(std::min<std::uint64_t>(kChunk, range.count - off));
      gpu_test::fill_iota(in_d.get(), n, std::uint32_t(range.first + off));
      cuda::cast(SourceType::fp32, in_d.get(), n, f, s, out1_d.get(), nullptr, CastVariant::generic);
      cuda::cast(SourceType::fp32, in_d.get(), n, f, s, out2_d.get(), nullptr, CastVariant::hardware_cvt);
      out1_d.download(got1.get() + off, n);
      out2_d.download(got2.get() + off, n);
    }
    Comparison c1, c2;
    std::mutex m;
    const SweepResult sweep = sweep_fp32(
        f, s, range.first, range.count, 0, [&](std::uint64_t base, std::span<const std::uint8_t> want) {
          const std::uint64_t at = base - range.first;
          const auto input_of = [&](std::size_t i) { return base + i; };
          Comparison l1 = compare(got1.get() + at, want.data(), want.size(), input_of);
          Comparison l2 = compare(got2.get() + at, want.data(), want.size(), input_of);
          for (Mismatch& x : l1.first) x.index += at;
          for (Mismatch& x : l2.first) x.index += at;
          std::lock_guard<std::mutex> lock(m);
          c1.merge(l1);
          c2.merge(l2);
        });
    std::printf("sweep %s fp32 [%s, +%" PRIu64 "): emulator %.2f G/s on %d threads, digest %016" PRIx64
                "; variant 1: %" PRIu64 " mismatches, variant 2: %" PRIu64 " mismatches\n",
                describe(f, s).c_str(), hex(range.first, 8).c_str(), range.count,
                sweep.conversions_per_second * 1e-9, sweep.threads, sweep.digest, c1.count, c2.count);
    EXPECT_EQ(c1.count, 0u) << c1.report(SourceType::fp32, f, s, "variant 1, all fp32");
    EXPECT_EQ(c2.count, 0u) << c2.report(SourceType::fp32, f, s, "variant 2 (cvt), all fp32");
  }
}

INSTANTIATE_TEST_SUITE_P(GpuCast, FullSweep, kSweepCases, sweep_case_name);

// ----------------------------------------------------------------------------
// HardwareCvt16: variant 2 (and the automatic choice) on every bf16 and fp16 input.

class HardwareCvt16 : public ::testing::TestWithParam<SweepCase> {};

TEST_P(HardwareCvt16, MatchesEmulator) {
  OCTET_REQUIRE_DEVICE();
  const Format& f = fmt(GetParam().dst);
  const CastSpec s = profile_spec(GetParam().profile, f.id);
  const std::vector<std::uint16_t> in = all16();
  DeviceBuffer<std::uint16_t> in_d(in.size());
  in_d.upload(in.data(), in.size());
  for (SourceType src : {SourceType::bf16, SourceType::fp16})
    for (CastVariant v : {CastVariant::hardware_cvt, CastVariant::automatic}) {
      const Comparison r = run_and_compare<std::uint16_t, std::uint8_t>(src, in, in_d.get(), nullptr, nullptr, f, s, v);
      EXPECT_EQ(r.count, 0u) << r.report(src, f, s, "variant " + std::string(cuda::name(v)) + ", all " + std::string(name(src)));
    }
}

INSTANTIATE_TEST_SUITE_P(GpuCast, HardwareCvt16, kSweepCases, sweep_case_name);

// ----------------------------------------------------------------------------
// HardwareNan: what the cvt itself gives for NaN inputs (variant 2 replaces it with the
// emulator's NaN code). Recorded, not asserted beyond "a NaN code of the target".

TEST(GpuCast, HardwareNan) {
  OCTET_REQUIRE_DEVICE();
  for (SourceType src : {SourceType::fp32, SourceType::bf16, SourceType::fp16}) {
    // Every NaN pattern of the source, positive then negative.
    std::vector<std::uint32_t> nan32;
    std::vector<std::uint16_t> nan16;
    const int mbits = src == SourceType::fp32 ? 23 : src == SourceType::bf16 ? 7 : 10;
    const std::uint64_t inf = src == SourceType::fp32 ? 0x7F800000u : src == SourceType::bf16 ? 0x7F80u : 0x7C00u;
    const std::uint64_t sign = src == SourceType::fp32 ? 0x80000000u : 0x8000u;
    for (std::uint64_t neg : {std::uint64_t(0), sign})
      for (std::uint64_t m = 1; m < (std::uint64_t(1) << mbits); ++m) {
        if (src == SourceType::fp32) nan32.push_back(std::uint32_t(neg | inf | m));
        else nan16.push_back(std::uint16_t(neg | inf | m));
      }
    const std::size_t n = src == SourceType::fp32 ? nan32.size() : nan16.size();
    const std::size_t half = n / 2;
    for (FormatId id : {FormatId::e4m3fn, FormatId::e5m2}) {
      const Format& f = fmt(id);
      std::vector<std::uint8_t> got(n);
      DeviceBuffer<std::uint8_t> out_d(n);
      if (src == SourceType::fp32) {
        DeviceBuffer<std::uint32_t> in_d(n);
        in_d.upload(nan32.data(), n);
        cuda::cast_cvt_raw(src, in_d.get(), n, f, out_d.get());
      } else {
        DeviceBuffer<std::uint16_t> in_d(n);
        in_d.upload(nan16.data(), n);
        cuda::cast_cvt_raw(src, in_d.get(), n, f, out_d.get());
      }
      out_d.download(got.data(), n);
      const CastSpec canonical = profile_spec("cuda_satfinite", id), keep = profile_spec("ocp", id);
      for (int negative = 0; negative < 2; ++negative) {
        std::map<std::uint32_t, std::uint64_t> histogram;
        for (std::size_t i = negative * half; i < (negative + 1) * half; ++i) ++histogram[got[i]];
        const std::uint32_t want_canonical = encode_bits<Fp32Source>(f, canonical, negative ? 0xFFC00000u : 0x7FC00000u);
        const std::uint32_t want_keep = encode_bits<Fp32Source>(f, keep, negative ? 0xFFC00000u : 0x7FC00000u);
        std::string codes;
        for (const auto& [code, count] : histogram) {
          codes.append(" ").append(hex(code, 2)).append(" x").append(std::to_string(count));
          EXPECT_TRUE(f.is_nan(code)) << "cvt gave " << hex(code, 2) << " for a " << name(src) << " NaN -> " << name(id);
        }
        const bool is_canonical = histogram.size() == 1 && histogram.begin()->first == want_canonical;
        const bool is_keep = histogram.size() == 1 && histogram.begin()->first == want_keep;
        std::printf("hw-nan src=%s dst=%s sign=%c inputs=%zu codes:%s | emulator cuda_satfinite %s ocp %s | "
                    "hardware = %s\n",
                    std::string(name(src)).c_str(), std::string(name(id)).c_str(), negative ? '-' : '+', half,
                    codes.c_str(), hex(want_canonical, 2).c_str(), hex(want_keep, 2).c_str(),
                    is_canonical && is_keep ? "both" : is_canonical ? "cuda_satfinite" : is_keep ? "ocp" : "neither");
      }
    }
  }
}

// ----------------------------------------------------------------------------
// LargeCount: more than 2^31 elements (64-bit indices); both variants agree everywhere, and
// agree with the emulator on a sample, the first and the last elements.

TEST(GpuCast, LargeCount) {
  OCTET_REQUIRE_DEVICE();
  if (reduced()) GTEST_SKIP() << "OCTET_GPU_TEST_REDUCED";
  const std::size_t n = (std::size_t(1) << 31) + 12345;
  std::size_t free_bytes = 0, total_bytes = 0;
  OCTET_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (free_bytes < n * 6 + (std::size_t(1) << 30)) GTEST_SKIP() << "needs " << n * 6 << " bytes of device memory";
  constexpr std::uint64_t kSeed = 7;
  const Format& f = e4m3fn_format;
  const CastSpec s = profile_spec("cuda_satfinite", f.id);
  std::vector<std::uint8_t> got1(n), got2(n);
  {
    DeviceBuffer<std::uint32_t> in_d(n);
    DeviceBuffer<std::uint8_t> out_d(n);
    gpu_test::fill_large_pattern(in_d.get(), n, kSeed);
    // The fill itself used 64-bit indices: spot-check its far end.
    for (std::size_t i : {std::size_t(0), (std::size_t(1) << 31) - 1, std::size_t(1) << 31, n - 1}) {
      std::uint32_t x = 0;
      in_d.download(&x, 1, i);
      ASSERT_EQ(x, gpu_test::large_pattern(kSeed, i)) << "input fill at " << i;
    }
    out_d.fill_bytes(0xA5);
    cuda::cast(SourceType::fp32, in_d.get(), n, f, s, out_d.get(), nullptr, CastVariant::generic);
    out_d.download(got1.data(), n);
    out_d.fill_bytes(0x5A);
    cuda::cast(SourceType::fp32, in_d.get(), n, f, s, out_d.get(), nullptr, CastVariant::hardware_cvt);
    out_d.download(got2.data(), n);
  }
  const auto input_of = [&](std::size_t i) { return std::uint64_t(gpu_test::large_pattern(kSeed, i)); };
  const Comparison agree = compare(got2.data(), got1.data(), n, input_of);
  EXPECT_EQ(agree.count, 0u) << agree.report(SourceType::fp32, f, s, "variant 2 vs variant 1 (as 'emulator'), 2^31 + 12345 elements");

  std::vector<std::size_t> sample;
  for (std::size_t i = 0; i < 4096; ++i) {
    sample.push_back(i);
    sample.push_back(n - 1 - i);
    sample.push_back((std::size_t(1) << 31) - 2048 + i);
  }
  for (std::size_t k = 0; k < (std::size_t(1) << 20); ++k)
    sample.push_back(((std::size_t(counter_rbits(kSeed + 1, k)) << 32) | counter_rbits(kSeed + 2, k)) % n);
  Comparison c1, c2;
  for (std::size_t i : sample) {
    const std::uint32_t x = gpu_test::large_pattern(kSeed, i);
    const std::uint32_t want = encode_bits<Fp32Source>(f, s, x);
    if (got1[i] != want) c1.merge({1, {{i, x, got1[i], want}}});
    if (got2[i] != want) c2.merge({1, {{i, x, got2[i], want}}});
  }
  EXPECT_EQ(c1.count, 0u) << c1.report(SourceType::fp32, f, s, "variant 1, large count, sampled");
  EXPECT_EQ(c2.count, 0u) << c2.report(SourceType::fp32, f, s, "variant 2, large count, sampled");
  std::printf("large-count n=%zu: variants agree on all, %zu sampled positions checked against the emulator\n", n,
              sample.size());
}

// ----------------------------------------------------------------------------
// Misaligned pointers and a tail (n % 16 != 0): variant 2 takes its scalar paths.

TEST(GpuCast, MisalignedAndTail) {
  OCTET_REQUIRE_DEVICE();
  constexpr std::size_t kN = (1u << 20) + 13;
  std::vector<std::uint32_t> in32(kN + 4);
  for (std::size_t i = 0; i < in32.size(); ++i) in32[i] = gpu_test::large_pattern(99, i);
  std::vector<std::uint16_t> in16(kN + 4);
  for (std::size_t i = 0; i < in16.size(); ++i) in16[i] = std::uint16_t(counter_rbits(98, i));
  DeviceBuffer<std::uint32_t> in32_d(in32.size());
  in32_d.upload(in32.data(), in32.size());
  DeviceBuffer<std::uint16_t> in16_d(in16.size());
  in16_d.upload(in16.data(), in16.size());
  DeviceBuffer<std::uint8_t> out_d(kN + 16);
  for (FormatId id : {FormatId::e4m3fn, FormatId::e5m2})
    for (SourceType src : {SourceType::fp32, SourceType::bf16, SourceType::fp16})
      for (std::size_t in_off : {0, 1})
        for (std::size_t out_off : {0, 3})
          for (CastVariant v : {CastVariant::generic, CastVariant::hardware_cvt}) {
            const Format& f = fmt(id);
            const CastSpec s = profile_spec("cuda_satfinite", id);
            const bool wide_src = src == SourceType::fp32;
            const void* in_ptr = wide_src ? static_cast<const void*>(in32_d.get() + in_off)
                                          : static_cast<const void*>(in16_d.get() + in_off);
            out_d.fill_bytes(0xA5);
            cuda::cast(src, in_ptr, kN, f, s, out_d.get() + out_off, nullptr, v);
            std::vector<std::uint8_t> got(kN + 16), want(kN);
            out_d.download(got.data(), kN + 16);
            if (wide_src) octet::cast(src, in32.data() + in_off, kN, f, s, want.data());
            else octet::cast(src, in16.data() + in_off, kN, f, s, want.data());
            const Comparison r = compare(got.data() + out_off, want.data(), kN, [&](std::size_t i) {
              return wide_src ? std::uint64_t(in32[i + in_off]) : std::uint64_t(in16[i + in_off]);
            });
            EXPECT_EQ(r.count, 0u) << r.report(src, f, s, "variant " + std::string(cuda::name(v)) + " in+" +
                                                              std::to_string(in_off) + " out+" + std::to_string(out_off));
            // Nothing written outside [out_off, out_off + kN).
            for (std::size_t i = 0; i < out_off; ++i) EXPECT_EQ(got[i], 0xA5) << "byte before the output written";
            for (std::size_t i = out_off + kN; i < got.size(); ++i) EXPECT_EQ(got[i], 0xA5) << "byte after the output written";
          }
}

// ----------------------------------------------------------------------------
// The kernel table: the cuda entry against the cpu entry (the emulator).

TEST(GpuCast, BackendTable) {
  ASSERT_NE(find_backend("cpu"), nullptr);
  const Backend* gpu = find_backend("cuda");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->memory, MemorySpace::device);
  OCTET_REQUIRE_DEVICE();
  // Named hazards: 448 = 0.1111.110 (e4m3fn max), 464 (tie to 448), 480 (overflow), Inf, NaN,
  // -0, 2^-10 (tie at half the smallest e4m3fn subnormal), 57344 and 61440 (e5m2 max and tie),
  // fp32 subnormals.
  const std::vector<float> values{448.f, 464.f, 480.f, -464.f, 1e9f, std::bit_cast<float>(0x7F800000u),
                                  std::bit_cast<float>(0xFF800000u), std::bit_cast<float>(0x7FC00000u),
                                  std::bit_cast<float>(0xFFC00001u), -0.f, 0.f, 0x1p-10f, 0x1p-9f, 0x1.8p-10f,
                                  57344.f, 61440.f, 61439.f, std::bit_cast<float>(0x00000001u),
                                  std::bit_cast<float>(0x80400000u), 1.f, -3.25f, 0.3f, 1e-30f, 2.5e-3f};
  const std::size_t n = values.size();
  std::vector<std::uint32_t> rbits(n);
  for (std::size_t i = 0; i < n; ++i) rbits[i] = counter_rbits(kSrSeed, i);
  DeviceBuffer<float> in_d(n);
  in_d.upload(values.data(), n);
  DeviceBuffer<std::uint32_t> rbits_d(n);
  rbits_d.upload(rbits.data(), n);
  DeviceBuffer<std::uint16_t> out_d(n);
  for (const Format& f : target_formats)
    for (Rounding r : {Rounding::NearestEven, Rounding::TowardZero, Rounding::Stochastic})
      for (Overflow o : {Overflow::SatFinite, Overflow::Ieee}) {
        CastSpec s;
        s.rounding = r;
        s.overflow = o;
        std::vector<std::uint8_t> want(2 * n), got(2 * n);
        cpu_backend().cast(SourceType::fp32, values.data(), n, f, s, want.data(), rbits.data());
        gpu->cast(SourceType::fp32, in_d.get(), n, f, s, out_d.get(), rbits_d.get());
        OCTET_CUDA_CHECK(cudaMemcpy(got.data(), out_d.get(), (f.bits() > 8 ? 2 : 1) * n, cudaMemcpyDeviceToHost));
        for (std::size_t i = 0; i < n; ++i) {
          const std::uint32_t w = f.bits() > 8 ? want[2 * i] | (want[2 * i + 1] << 8) : want[i];
          const std::uint32_t g = f.bits() > 8 ? got[2 * i] | (got[2 * i + 1] << 8) : got[i];
          EXPECT_EQ(g, w) << describe(f, s) << ": fp32 " << hex(std::bit_cast<std::uint32_t>(values[i]), 8) << " ("
                          << value_of(SourceType::fp32, std::bit_cast<std::uint32_t>(values[i])) << "): gpu "
                          << code_of(f, g) << ", emulator " << code_of(f, w);
        }
      }
}

// ----------------------------------------------------------------------------
// Argument errors are thrown before anything touches the device (no GPU needed).

TEST(GpuCast, BadArguments) {
  const CastSpec rne{};
  CastSpec sr;
  sr.rounding = Rounding::Stochastic;
  CastSpec rtz;
  rtz.rounding = Rounding::TowardZero;
  EXPECT_THROW(cuda::cast(SourceType::fp32, nullptr, 8, fp32_format, rne, nullptr), std::invalid_argument);
  EXPECT_THROW(cuda::cast(SourceType::fp32, nullptr, 8, e4m3fn_format, sr, nullptr), std::invalid_argument);
  EXPECT_THROW(cuda::cast(SourceType::fp32, nullptr, 8, e4m3fnuz_format, rne, nullptr, nullptr, CastVariant::hardware_cvt),
               std::invalid_argument);
  EXPECT_THROW(cuda::cast(SourceType::fp32, nullptr, 8, e4m3fn_format, rtz, nullptr, nullptr, CastVariant::hardware_cvt),
               std::invalid_argument);
  EXPECT_THROW(cuda::cast_cvt_raw(SourceType::fp64, nullptr, 8, e4m3fn_format, nullptr), std::invalid_argument);
  Format odd = e4m3fn_format;
  odd.bias = 8;
  EXPECT_THROW(cuda::cast(SourceType::fp32, nullptr, 8, odd, rne, nullptr), std::invalid_argument);
  EXPECT_FALSE(cuda::hardware_cvt_unsupported(SourceType::bf16, e5m2_format, rne).has_value());
  EXPECT_TRUE(cuda::hardware_cvt_unsupported(SourceType::fp64, e5m2_format, rne).has_value());
}

// ----------------------------------------------------------------------------
// The device, for the log.

// The constant of the nvidia_rceil_rcp_approx recipe: rcp.approx.ftz.f32(448.0f) on this GPU. The
// recipe's default is the correctly rounded fl32(1/448) = 0x3B124925; if the hardware differs,
// the recipe must be given the measured bits.
TEST(GpuConstants, RcpApproxFtz448) {
  OCTET_REQUIRE_DEVICE();
  const std::vector<float> in{448.0f, 240.0f, 57344.0f, 6.0f, 256.0f};
  float* d_in = nullptr;
  float* d_out = nullptr;
  OCTET_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&d_in), in.size() * sizeof(float)));
  OCTET_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&d_out), in.size() * sizeof(float)));
  OCTET_CUDA_CHECK(cudaMemcpy(d_in, in.data(), in.size() * sizeof(float), cudaMemcpyHostToDevice));
  gpu_test::rcp_approx_ftz(d_in, d_out, int(in.size()));
  std::vector<float> out(in.size());
  OCTET_CUDA_CHECK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
  OCTET_CUDA_CHECK(cudaFree(d_in));
  OCTET_CUDA_CHECK(cudaFree(d_out));
  for (std::size_t i = 0; i < in.size(); ++i) {
    const float exact = 1.0f / in[i];
    std::printf("rcp-approx x=%g bits=0x%08x correctly-rounded=0x%08x\n", double(in[i]), std::bit_cast<std::uint32_t>(out[i]),
                std::bit_cast<std::uint32_t>(exact));
  }
  EXPECT_EQ(std::bit_cast<std::uint32_t>(out[0]), octet::recipe("nvidia_rceil_rcp_approx").rcp448_bits)
      << "rcp.approx.ftz.f32(448) differs from the recipe's rcp448_bits";
}

TEST(GpuCast, DeviceInfo) {
  OCTET_REQUIRE_DEVICE();
  int dev = 0, driver = 0, runtime = 0;
  OCTET_CUDA_CHECK(cudaGetDevice(&dev));
  cudaDeviceProp p{};
  OCTET_CUDA_CHECK(cudaGetDeviceProperties(&p, dev));
  OCTET_CUDA_CHECK(cudaDriverGetVersion(&driver));
  OCTET_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  std::printf("device: %s sm_%d%d, %d SMs, %.1f GiB, L2 %d MiB; CUDA driver API %d.%d, runtime %d.%d; %s\n", p.name,
              p.major, p.minor, p.multiProcessorCount, double(p.totalGlobalMem) / double(1ull << 30),
              p.l2CacheSize >> 20, driver / 1000, (driver % 1000) / 10, runtime / 1000, (runtime % 1000) / 10,
              reduced() ? "reduced sizes" : "full sizes");
}

}  // namespace
}  // namespace octet
