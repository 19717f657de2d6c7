// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// cast.cpp — the array API over encode_bits: OpenMP over fixed chunks (elementwise, so the
// result cannot depend on the thread count), plus the fp32 fast path below.
#include <algorithm>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "octet/cast.hpp"

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
// Runtime ISA dispatch (GCC function multiversioning): never a compile-time assumption.
#define OCTET_MULTIVERSION __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define OCTET_MULTIVERSION
#endif

namespace octet {
namespace {

constexpr std::int64_t kChunk = 1 << 16;  // elements per OpenMP work item

// ---------------------------------------------------------------------------------------------
// Fp32Memo: encode_bits<Fp32Source> memoised over buckets of 2^16 consecutive fp32 bit patterns.
//
// Within a bucket the sign and exponent are fixed and the value grows with the bit pattern, and
// a deterministic rounding is monotone, so the code can only move forward: it changes where the
// value crosses a rounding boundary (a midpoint for the nearest modes, a representable value for
// the directed ones, max for compare-before-round, Inf -> NaN). Boundaries of one kind lie a
// quantum, 2^(23 - M) patterns, apart, so for targets with at most 7 mantissa bits (every target
// of at most 8 bits, and bf16) a bucket of 2^16 holds at most one change: the whole bucket is
// (threshold, code below, code at or above). fp16 (M = 10) has eight per bucket and is not
// memoised. Round-to-odd alternates at every representable value and stochastic rounding
// depends on the random bits: neither is memoised. The table is built by calling encode_bits, so
// the semantics stay in one place; the build bisects each change and checks it is the only one,
// and the exhaustive sweeps in tests/ check every 8-bit entry against an independent reference.
class Fp32Memo {
 public:
  static bool applies(const Format& f, const CastSpec& s) {
    return f.mantissa_bits <= 7 && f.bits() <= 16 && s.rounding != Rounding::ToOdd &&
           s.rounding != Rounding::Stochastic;
  }

  Fp32Memo(const Format& f, const CastSpec& s) : format_(f), spec_(s) {
    const bool wide = f.bits() > 8;
    if (wide) wide_.resize(1u << 16); else entry_.resize(1u << 16);
    for (std::uint32_t hi = 0; hi < (1u << 16); ++hi) {
      const auto code = [&](std::uint32_t lo) { return encode_bits<Fp32Source>(f, s, hi << 16 | lo); };
      const std::uint32_t below = code(0), last = code(0xFFFF);
      std::uint32_t threshold = 0;  // first lo whose code differs from `below`; 0: none
      if (last != below) {
        std::uint32_t lo = 1, hi_lo = 0xFFFF;  // code(lo - 1) == below, code(hi_lo) != below
        while (lo < hi_lo) {
          const std::uint32_t mid = lo + (hi_lo - lo) / 2;
          if (code(mid) == below) lo = mid + 1; else hi_lo = mid;
        }
        threshold = lo;
        if (code(threshold) != last)
          throw std::logic_error("Fp32Memo: two code changes in one bucket of 2^16 fp32 patterns");
      }
      if (wide) wide_[hi] = threshold | std::uint64_t(below) << 16 | std::uint64_t(last) << 32;
      else entry_[hi] = threshold | below << 16 | last << 24;
    }
  }

  bool matches(const Format& f, const CastSpec& s) const { return format_.id == f.id && spec_ == s; }
  const std::uint32_t* table() const { return entry_.empty() ? nullptr : entry_.data(); }      // 8-bit targets
  const std::uint64_t* wide_table() const { return wide_.empty() ? nullptr : wide_.data(); }  // bf16

 private:
  Format format_;
  CastSpec spec_;
  std::vector<std::uint32_t> entry_;  // threshold | below << 16 | at_or_above << 24
  std::vector<std::uint64_t> wide_;   // threshold | below << 16 | at_or_above << 32
};

// A few memos are kept; a caller holds its own reference while it uses one.
std::shared_ptr<const Fp32Memo> memo_for(const Format& f, const CastSpec& s) {
  static std::mutex mutex;
  static std::vector<std::shared_ptr<const Fp32Memo>> cache;
  const std::lock_guard<std::mutex> lock(mutex);
  for (const auto& m : cache)
    if (m->matches(f, s)) return m;
  if (cache.size() >= 32) cache.erase(cache.begin());
  cache.push_back(std::make_shared<const Fp32Memo>(f, s));
  return cache.back();
}

inline std::uint8_t memo_lookup(const std::uint32_t* __restrict table, std::uint32_t x) {
  const std::uint32_t e = table[x >> 16];
  return std::uint8_t((x & 0xFFFFu) >= (e & 0xFFFFu) ? e >> 24 : e >> 16);
}

OCTET_MULTIVERSION void memo_range(const std::uint32_t* __restrict table, std::uint32_t first, std::size_t n,
                                   std::uint8_t* __restrict out) {
  for (std::size_t i = 0; i < n; ++i) out[i] = memo_lookup(table, first + std::uint32_t(i));
}

OCTET_MULTIVERSION void memo_array(const std::uint32_t* __restrict table, const std::uint32_t* __restrict in,
                                   std::size_t n, std::uint8_t* __restrict out) {
  for (std::size_t i = 0; i < n; ++i) out[i] = memo_lookup(table, in[i]);
}

// ---------------------------------------------------------------------------------------------

void check_target(const Format& dst, const CastSpec& spec, bool have_rbits) {
  if (dst.id == FormatId::fp32 || dst.id == FormatId::fp64)
    throw std::invalid_argument(std::string("cast: target format ") + std::string(name(dst.id)) +
                                " is a source only; valid targets: e4m3fn e4m3fnuz e5m2 e5m2fnuz "
                                "e8m0fnu e2m3fn e3m2fn e2m1fn bf16 fp16");
  if (spec.rounding == Rounding::Stochastic && !have_rbits)
    throw std::invalid_argument("cast: rounding sr needs one word of random bits per element (rbits)");
  if (spec.sr.bits > 32) throw std::invalid_argument("cast: SrRule::bits must be in 0..32");
}

template <class Encode, class Out>
void parallel_encode(std::int64_t n, Encode encode, Out* out) {
#pragma omp parallel for schedule(static)
  for (std::int64_t c = 0; c < (n + kChunk - 1) / kChunk; ++c) {
    const std::int64_t end = std::min(n, (c + 1) * kChunk);
    for (std::int64_t i = c * kChunk; i < end; ++i) out[i] = Out(encode(i));
  }
}

}  // namespace

void cast(SourceType src, const void* in, std::size_t n, const Format& dst, const CastSpec& spec,
          void* out, const std::uint32_t* rbits) {
  check_target(dst, spec, rbits != nullptr);
  const std::int64_t count = std::int64_t(n);

  // fp32 -> 8-bit, large enough to amortise the memo (about 1.4e5 encode_bits calls).
  if (src == SourceType::fp32 && Fp32Memo::applies(dst, spec) && dst.bits() <= 8 && count >= (std::int64_t(1) << 20)) {
    const auto memo = memo_for(dst, spec);
    const auto* in32 = static_cast<const std::uint32_t*>(in);
    auto* out8 = static_cast<std::uint8_t*>(out);
#pragma omp parallel for schedule(static)
    for (std::int64_t c = 0; c < (count + kChunk - 1) / kChunk; ++c) {
      const std::int64_t begin = c * kChunk, end = std::min(count, begin + kChunk);
      memo_array(memo->table(), in32 + begin, std::size_t(end - begin), out8 + begin);
    }
    return;
  }

  const auto encode = [&](std::int64_t i) -> std::uint32_t {
    const std::uint32_t r = rbits ? rbits[i] : 0u;
    switch (src) {
      case SourceType::fp32: return encode_bits<Fp32Source>(dst, spec, static_cast<const std::uint32_t*>(in)[i], r);
      case SourceType::fp64: return encode_bits<Fp64Source>(dst, spec, static_cast<const std::uint64_t*>(in)[i], r);
      case SourceType::bf16:
        return encode_bits<Fp32Source>(dst, spec, bf16_to_fp32_bits(static_cast<const std::uint16_t*>(in)[i]), r);
      case SourceType::fp16:
        return encode_bits<Fp32Source>(dst, spec, fp16_to_fp32_bits(static_cast<const std::uint16_t*>(in)[i]), r);
    }
    return 0u;
  };
  if (dst.bits() > 8) parallel_encode(count, encode, static_cast<std::uint16_t*>(out));
  else parallel_encode(count, encode, static_cast<std::uint8_t*>(out));
}

namespace {
template <class T, class Out>
void cast_span(SourceType src, std::span<const T> in, const Format& dst, const CastSpec& spec,
               std::span<Out> out, std::span<const std::uint32_t> rbits) {
  check_target(dst, spec, !rbits.empty());
  const bool wide = dst.bits() > 8;
  if (wide != (sizeof(Out) == 2))
    throw std::invalid_argument(std::string("cast: target ") + std::string(name(dst.id)) + " needs a " +
                                (wide ? "uint16" : "uint8") + " output span");
  if (out.size() != in.size())
    throw std::invalid_argument("cast: output has " + std::to_string(out.size()) + " elements, input has " +
                                std::to_string(in.size()));
  if (!rbits.empty() && rbits.size() != in.size())
    throw std::invalid_argument("cast: rbits has " + std::to_string(rbits.size()) + " words, input has " +
                                std::to_string(in.size()));
  cast(src, in.data(), in.size(), dst, spec, out.data(), rbits.empty() ? nullptr : rbits.data());
}
}  // namespace

void cast(std::span<const float> in, const Format& dst, const CastSpec& spec, std::span<std::uint8_t> out,
          std::span<const std::uint32_t> rbits) { cast_span(SourceType::fp32, in, dst, spec, out, rbits); }
void cast(std::span<const double> in, const Format& dst, const CastSpec& spec, std::span<std::uint8_t> out,
          std::span<const std::uint32_t> rbits) { cast_span(SourceType::fp64, in, dst, spec, out, rbits); }
void cast(std::span<const bf16_bits> in, const Format& dst, const CastSpec& spec, std::span<std::uint8_t> out,
          std::span<const std::uint32_t> rbits) { cast_span(SourceType::bf16, in, dst, spec, out, rbits); }
void cast(std::span<const fp16_bits> in, const Format& dst, const CastSpec& spec, std::span<std::uint8_t> out,
          std::span<const std::uint32_t> rbits) { cast_span(SourceType::fp16, in, dst, spec, out, rbits); }
void cast(std::span<const float> in, const Format& dst, const CastSpec& spec, std::span<std::uint16_t> out,
          std::span<const std::uint32_t> rbits) { cast_span(SourceType::fp32, in, dst, spec, out, rbits); }
void cast(std::span<const double> in, const Format& dst, const CastSpec& spec, std::span<std::uint16_t> out,
          std::span<const std::uint32_t> rbits) { cast_span(SourceType::fp64, in, dst, spec, out, rbits); }
void cast(std::span<const bf16_bits> in, const Format& dst, const CastSpec& spec, std::span<std::uint16_t> out,
          std::span<const std::uint32_t> rbits) { cast_span(SourceType::bf16, in, dst, spec, out, rbits); }
void cast(std::span<const fp16_bits> in, const Format& dst, const CastSpec& spec, std::span<std::uint16_t> out,
          std::span<const std::uint32_t> rbits) { cast_span(SourceType::fp16, in, dst, spec, out, rbits); }

Fp32Encoder::Fp32Encoder(const Format& f, const CastSpec& s) : format_(f), spec_(s) {
  if (Fp32Memo::applies(f, s)) {
    auto memo = memo_for(f, s);
    table_ = memo->table();
    wide_table_ = memo->wide_table();
    owner_ = std::move(memo);
  }
}

void cast_fp32_range(std::uint32_t first, std::size_t n, const Format& dst, const CastSpec& spec,
                     std::uint8_t* out) {
  check_target(dst, spec, false);
  if (dst.bits() > 8) throw std::invalid_argument("cast_fp32_range: the target must have at most 8 bits");
  if (Fp32Memo::applies(dst, spec) && dst.bits() <= 8 && n >= (std::size_t(1) << 16)) {
    memo_range(memo_for(dst, spec)->table(), first, n, out);
    return;
  }
  for (std::size_t i = 0; i < n; ++i)
    out[i] = std::uint8_t(encode_bits<Fp32Source>(dst, spec, first + std::uint32_t(i)));
}

}  // namespace octet
