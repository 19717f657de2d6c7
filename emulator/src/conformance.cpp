// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// conformance.cpp — pairwise profile differences.
//
// Exhaustive fp32: the inputs are walked in buckets of 2^16 consecutive bit patterns. Every
// profile's codes for the bucket come from the array API, one code per input. Inside a bucket a
// profile's code changes at most once (cast.cpp, Fp32Memo); that is verified element by element
// for every profile and bucket (the codes equal to the first one, plus those equal to the last,
// cover the bucket). With it, two profiles' codes are constant between the cut points {0, 1,
// change_a, change_b, 2^16} (1: where 0 -> subnormal, Inf -> NaN and max -> beyond max), so every
// pair is compared and classified segment by segment, exactly.
#include "octet/conformance.hpp"

#include <omp.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

#include "octet/sweep.hpp"

namespace octet {

std::string_view name(DiffClass c) {
  constexpr std::array<std::string_view, kDiffClassCount> k{
      "nan", "inf", "unsigned_input", "overflow", "negative_zero", "subnormal", "tie", "rounding"};
  return k[std::size_t(c)];
}

namespace {

// The input's exact value as a double (all sources here are exact in double).
double value_of(SourceType src, std::uint64_t bits) {
  switch (src) {
    case SourceType::fp32: return double(std::bit_cast<float>(std::uint32_t(bits)));
    case SourceType::fp64: return std::bit_cast<double>(bits);
    case SourceType::bf16: return double(std::bit_cast<float>(bf16_to_fp32_bits(std::uint16_t(bits))));
    case SourceType::fp16: return double(std::bit_cast<float>(fp16_to_fp32_bits(std::uint16_t(bits))));
  }
  return 0;
}

std::uint32_t encode_one(SourceType src, std::uint64_t bits, const Format& f, const CastSpec& s) {
  switch (src) {
    case SourceType::fp32: return encode_bits<Fp32Source>(f, s, std::uint32_t(bits));
    case SourceType::fp64: return encode_bits<Fp64Source>(f, s, bits);
    case SourceType::bf16: return encode_bits<Fp32Source>(f, s, bf16_to_fp32_bits(std::uint16_t(bits)));
    case SourceType::fp16: return encode_bits<Fp32Source>(f, s, fp16_to_fp32_bits(std::uint16_t(bits)));
  }
  return 0;
}

// Neighbouring input bit patterns of the same source (by value), for the tie rule.
std::uint64_t next_up(SourceType src, std::uint64_t bits) {
  const int width = int(8 * size_of(src));
  const std::uint64_t sign = std::uint64_t(1) << (width - 1);
  if (bits == sign) return 1;                      // -0 -> smallest positive
  return (bits & sign) ? bits - 1 : bits + 1;      // magnitude down for negatives
}
std::uint64_t next_down(SourceType src, std::uint64_t bits) {
  const int width = int(8 * size_of(src));
  const std::uint64_t sign = std::uint64_t(1) << (width - 1);
  if (bits == 0) return sign | 1;
  return (bits & sign) ? bits + 1 : bits - 1;
}

// What kind of input x is, for the target format; decided once per input.
enum class InputKind : std::uint8_t { nan, inf, unsigned_input, overflow, subnormal, tie, other };

struct Classifier {
  const Format& f;
  SourceType src;
  double max = max_finite(f);
  // e8m0fnu has no subnormals; its "subnormal" inputs are the fp32 subnormals (< 2^-126), where
  // c10 and ml_dtypes round differently.
  double subnormal_limit = f.has_zero ? min_normal(f) : 0x1p-126;
  CastSpec rtz{.rounding = Rounding::TowardZero, .overflow = Overflow::SatFinite,
               .unsigned_negative = UnsignedNegative::Abs};
  CastSpec ru{.rounding = Rounding::TowardPositive, .overflow = Overflow::SatFinite,
              .unsigned_negative = UnsignedNegative::Abs};

  InputKind kind(std::uint64_t bits) const {
    const double x = value_of(src, bits);
    if (std::isnan(x)) return InputKind::nan;
    if (std::isinf(x)) return InputKind::inf;
    if (!f.is_signed && (x == 0 || std::signbit(x))) return InputKind::unsigned_input;
    const double a = std::fabs(x);
    if (a > max) return InputKind::overflow;
    if (a < subnormal_limit) return InputKind::subnormal;
    const double lo = std::fabs(decode(f, encode(f, rtz, a)));
    const double hi = std::fabs(decode(f, encode(f, ru, a)));
    return (lo != hi && 2 * a == lo + hi) ? InputKind::tie : InputKind::other;
  }

  // The class of a difference between codes a and b on an input of this kind. A tie counts as
  // `tie` only when the two profiles agree on both neighbouring inputs (`agree_around`, asked
  // lazily): a tie inside a wider disagreement (RU vs RD) is `rounding`.
  template <class AgreeAround>
  DiffClass classify(InputKind k, std::uint32_t a, std::uint32_t b, AgreeAround agree_around) const {
    switch (k) {
      case InputKind::nan: return DiffClass::nan;
      case InputKind::inf: return DiffClass::inf;
      case InputKind::unsigned_input: return DiffClass::unsigned_input;
      case InputKind::overflow: return DiffClass::overflow;
      default: break;
    }
    if (f.is_nan(a) || f.is_nan(b) || f.is_inf(a) || f.is_inf(b)) return DiffClass::overflow;
    if (f.has_zero && (a & f.magnitude_mask()) == 0 && (b & f.magnitude_mask()) == 0) return DiffClass::negative_zero;
    if (k == InputKind::subnormal) return DiffClass::subnormal;
    if (k == InputKind::tie && agree_around()) return DiffClass::tie;
    return DiffClass::rounding;
  }
};

struct Tally {
  std::uint64_t differences = 0;
  std::array<std::uint64_t, kDiffClassCount> classes{};
  std::array<std::vector<DiffExample>, kDiffClassCount> examples;

  void add(DiffClass c, std::uint64_t count, const DiffExample& e) {
    differences += count;
    classes[std::size_t(c)] += count;
    keep_example(examples[std::size_t(c)], e);
  }
  // Keep the 3 smallest inputs per class: deterministic for any thread count.
  static void keep_example(std::vector<DiffExample>& ex, const DiffExample& e) {
    if (ex.size() == 3 && e.input_bits >= ex.back().input_bits) return;
    ex.insert(std::upper_bound(ex.begin(), ex.end(), e,
                               [](const DiffExample& l, const DiffExample& r) { return l.input_bits < r.input_bits; }),
              e);
    if (ex.size() > 3) ex.pop_back();
  }
  void merge(const Tally& o) {
    differences += o.differences;
    for (int c = 0; c < kDiffClassCount; ++c) {
      classes[c] += o.classes[c];
      for (const auto& e : o.examples[c]) keep_example(examples[c], e);
    }
  }
};

std::vector<CastSpec> specs_of(FormatId format, SourceType source, std::span<const Profile* const> profiles) {
  std::vector<CastSpec> specs;
  for (const Profile* p : profiles) specs.push_back(p->spec_for(format, source));
  return specs;
}

// Exhaustive fp32, by buckets (see the file comment).
std::vector<Tally> exhaustive_fp32(const Format& f, const std::vector<CastSpec>& specs, const Classifier& cls) {
  const std::size_t np = specs.size();
  const std::size_t pairs = np * (np - 1) / 2;
  std::vector<Tally> total(pairs);
#pragma omp parallel
  {
    std::vector<Tally> local(pairs);
    std::vector<std::uint8_t> codes(np << 16);
#pragma omp for schedule(dynamic, 16)
    for (std::int64_t hi = 0; hi < (1 << 16); ++hi) {
      const std::uint32_t base = std::uint32_t(hi) << 16;
      std::vector<std::uint32_t> change(np);  // first lo whose code differs from lo = 0; 65536: none
      for (std::size_t p = 0; p < np; ++p) {
        std::uint8_t* c = codes.data() + (p << 16);
        cast_fp32_range(base, 1u << 16, f, specs[p], c);
        // One code change at most: the codes equal to c[0] form a prefix, those equal to the
        // last code the rest.
        std::uint32_t prefix = 0, suffix = 0;
        const std::uint8_t first = c[0], last = c[(1u << 16) - 1];
        for (std::uint32_t i = 0; i < (1u << 16); ++i) {
          prefix += c[i] == first;
          suffix += c[i] == last;
        }
        const bool one_change = first == last ? prefix == (1u << 16) : prefix + suffix == (1u << 16);
        for (std::uint32_t i = 0; one_change && i < prefix; ++i)
          if (c[i] != first) throw std::logic_error("conformance: codes are not a prefix and a suffix");
        if (!one_change) throw std::logic_error("conformance: a profile changes code twice within 2^16 fp32 inputs");
        change[p] = prefix;
      }
      std::size_t k = 0;
      for (std::size_t pa = 0; pa < np; ++pa)
        for (std::size_t pb = pa + 1; pb < np; ++pb, ++k) {
          const std::uint8_t* a = codes.data() + (pa << 16);
          const std::uint8_t* b = codes.data() + (pb << 16);
          std::array<std::uint32_t, 5> cut{0, 1, change[pa], change[pb], 1u << 16};
          std::sort(cut.begin(), cut.end());
          for (int s = 0; s + 1 < 5; ++s) {
            const std::uint32_t lo = cut[s], end = cut[s + 1];
            if (lo == end || a[lo] == b[lo]) continue;
            const auto agree_around = [&] {
              return (lo == 0 || a[lo - 1] == b[lo - 1]) && (lo + 1 >= (1u << 16) || a[lo + 1] == b[lo + 1]) &&
                     end - lo == 1;
            };
            const DiffClass c = cls.classify(cls.kind(base | lo), a[lo], b[lo], agree_around);
            local[k].add(c, end - lo, DiffExample{base | lo, a[lo], b[lo]});
          }
        }
    }
#pragma omp critical
    for (std::size_t k = 0; k < pairs; ++k) total[k].merge(local[k]);
  }
  return total;
}

// Every representable value and midpoint of `f` (and the virtual value past max), with their
// neighbours in the source, both signs; zeros, infinities, NaNs; e8m0's 2^-127 region.
std::vector<std::uint64_t> boundary_inputs(const Format& f, SourceType src) {
  std::vector<double> values;
  for (std::uint32_t code = 0; code < f.code_count(); ++code) {
    const double v = decode(f, code);
    if (std::isfinite(v) && v >= 0) values.push_back(v);
  }
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  values.push_back(2 * values.back() - values[values.size() - 2]);
  std::vector<double> points;
  for (std::size_t i = 0; i < values.size(); ++i) {
    points.push_back(values[i]);
    if (i + 1 < values.size()) points.push_back(0.5 * (values[i] + values[i + 1]));
  }
  for (const double v : {0x1p-127, 0x1.8p-127, 0x1p-126, 0x1p-149, 1e-30, 1e30, 3.0, 0.1})
    points.push_back(v);
  std::vector<std::uint64_t> in;
  const auto push = [&](double v) {
    switch (src) {
      case SourceType::fp64: in.push_back(std::bit_cast<std::uint64_t>(v)); break;
      case SourceType::fp32: in.push_back(std::bit_cast<std::uint32_t>(float(v))); break;
      default: in.push_back(encode(src == SourceType::bf16 ? bf16_format : fp16_format,
                                   CastSpec{.overflow = Overflow::Ieee}, v));
    }
  };
  for (const double p : points)
    for (const double sgn : {1.0, -1.0}) {
      push(sgn * p);
      const std::uint64_t b = in.back();
      in.push_back(next_up(src, b));
      in.push_back(next_down(src, b));
    }
  const int width = int(8 * size_of(src));
  const std::uint64_t sign = std::uint64_t(1) << (width - 1);
  const int mant_bits = src == SourceType::fp64 ? 52 : src == SourceType::fp32 ? 23 : src == SourceType::bf16 ? 7 : 10;
  const std::uint64_t exp_all = (sign - 1) & ~((std::uint64_t(1) << mant_bits) - 1);
  for (const std::uint64_t s : {std::uint64_t(0), sign}) {
    in.push_back(s);                                             // +-0
    in.push_back(s | exp_all);                                   // +-Inf
    in.push_back(s | exp_all | (std::uint64_t(1) << (mant_bits - 1)));  // quiet NaN
    in.push_back(s | exp_all | 1);                               // signalling NaN, payload 1
    in.push_back(s | (sign - 1));                                // NaN, all payload bits
  }
  std::sort(in.begin(), in.end());
  in.erase(std::unique(in.begin(), in.end()), in.end());
  return in;
}

// Per-input comparison of a list of inputs: each profile's codes through the array API, the
// inputs' kinds once, then every pair.
std::vector<Tally> compare_inputs(const Format& f, SourceType src, const std::vector<CastSpec>& specs,
                                  const std::vector<std::uint64_t>& inputs, const Classifier& cls) {
  const std::size_t np = specs.size(), n = inputs.size();
  const std::size_t pairs = np * (np - 1) / 2;
  // The inputs as an array of the source type.
  std::vector<std::uint8_t> packed(n * size_of(src));
  for (std::size_t i = 0; i < n; ++i) {
    switch (size_of(src)) {
      case 8: reinterpret_cast<std::uint64_t*>(packed.data())[i] = inputs[i]; break;
      case 4: reinterpret_cast<std::uint32_t*>(packed.data())[i] = std::uint32_t(inputs[i]); break;
      default: reinterpret_cast<std::uint16_t*>(packed.data())[i] = std::uint16_t(inputs[i]); break;
    }
  }
  std::vector<std::vector<std::uint8_t>> codes(np, std::vector<std::uint8_t>(n));
  for (std::size_t p = 0; p < np; ++p) cast(src, packed.data(), n, f, specs[p], codes[p].data());

  std::vector<Tally> total(pairs);
#pragma omp parallel
  {
    std::vector<Tally> local(pairs);
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < std::int64_t(n); ++i) {
      const std::uint64_t x = inputs[std::size_t(i)];
      bool kind_known = false;
      InputKind kind = InputKind::other;
      std::size_t k = 0;
      for (std::size_t pa = 0; pa < np; ++pa)
        for (std::size_t pb = pa + 1; pb < np; ++pb, ++k) {
          const std::uint32_t a = codes[pa][std::size_t(i)], b = codes[pb][std::size_t(i)];
          if (a == b) continue;
          if (!kind_known) kind = cls.kind(x), kind_known = true;
          const auto agree_around = [&] {
            for (const std::uint64_t y : {next_up(src, x), next_down(src, x)})
              if (encode_one(src, y, f, specs[pa]) != encode_one(src, y, f, specs[pb])) return false;
            return true;
          };
          local[k].add(cls.classify(kind, a, b, agree_around), 1, DiffExample{x, a, b});
        }
    }
#pragma omp critical
    for (std::size_t k = 0; k < pairs; ++k) total[k].merge(local[k]);
  }
  return total;
}

}  // namespace

ConformanceReport compare_profiles(FormatId format, SourceType source, bool exhaustive,
                                   std::span<const Profile* const> profiles) {
  const Format& f = format_of(format);
  if (f.bits() > 8) throw std::invalid_argument("conformance: the target must have at most 8 bits");
  if (profiles.size() < 2) throw std::invalid_argument("conformance: needs at least two profiles");
  const std::vector<CastSpec> specs = specs_of(format, source, profiles);
  const Classifier cls{f, source};

  ConformanceReport report{format, source, exhaustive, {}};
  std::vector<Tally> tallies;
  std::uint64_t inputs = 0;
  if (source == SourceType::fp32 && exhaustive) {
    tallies = exhaustive_fp32(f, specs, cls);
    inputs = std::uint64_t(1) << 32;
  } else {
    std::vector<std::uint64_t> in;
    if (source == SourceType::bf16 || source == SourceType::fp16) {
      for (std::uint64_t b = 0; b < (1u << 16); ++b) in.push_back(b);
      report.exhaustive = true;
    } else {
      in = boundary_inputs(f, source);  // sorted, unique; the sample may repeat a few of them
      // 2^24 seeded samples: fp32 bit patterns uniformly; fp64 with exponents near the format's.
      for (std::uint64_t i = 0; i < (std::uint64_t(1) << 24); ++i) {
        const std::uint64_t r = (std::uint64_t(counter_rbits(0x0C7E7, 2 * i)) << 32) | counter_rbits(0x0C7E7, 2 * i + 1);
        if (source == SourceType::fp32) {
          in.push_back(r & 0xFFFFFFFFu);
        } else {
          const std::uint64_t exponent = 1023 + std::uint64_t(int(r >> 52 & 0xFF) - 160);  // 2^-160 .. 2^95
          in.push_back((r & 0x800FFFFFFFFFFFFFull) | (exponent << 52));
        }
      }
      report.exhaustive = false;
    }
    tallies = compare_inputs(f, source, specs, in, cls);
    inputs = in.size();
  }
  std::size_t k = 0;
  for (std::size_t pa = 0; pa < profiles.size(); ++pa)
    for (std::size_t pb = pa + 1; pb < profiles.size(); ++pb, ++k) {
      PairDiff d{profiles[pa]->name, profiles[pb]->name, inputs, tallies[k].differences, tallies[k].classes,
                 std::move(tallies[k].examples)};
      report.pairs.push_back(std::move(d));
    }
  return report;
}

}  // namespace octet
