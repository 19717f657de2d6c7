// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// cast.hpp — the one generic converter: a binary floating-point source (fp32 or fp64 bits;
// bf16 and fp16 are widened to fp32 exactly first) to any target Format, under an explicit
// rounding mode, overflow policy, NaN policy and subnormal policy.
//
// The algorithm is integer-only and follows IEEE 754-2019 §4.3 (rounding) and §7.4 (overflow):
//   1. unpack sign, exponent field and mantissa;
//   2. specials (NaN, zero, negative input to the unsigned e8m0fnu, Inf) per CastSpec;
//   3. normalise |x| = sig * 2^(e - kM); overflow beyond the largest binade;
//   4. shift sig so that its integer part counts the target's quantum 2^(max(e, emin) - M),
//      keeping the dropped bits as the remainder;
//   5. round the integer part by the mode (RNE, RNA, RTZ, RU, RD, RTO, SR);
//   6. pack with an integer add, so that a rounding carry walks into the exponent field, then
//      overflow past the largest finite code, subnormal flush and the sign.
// It is __host__ __device__ so that the CUDA and HIP kernels run the same code as the emulator.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>

#include "octet/format.hpp"

namespace octet {

enum class Rounding : std::uint8_t {
  NearestEven,    // rne: ties to the even significand (IEEE roundTiesToEven)
  NearestAway,    // rna: ties away from zero (IEEE roundTiesToAway; microxcaling "nearest")
  TowardZero,     // rtz: truncate (ml_dtypes kTruncate, CUDA e8m0 cudaRoundZero)
  TowardPositive, // ru
  TowardNegative, // rd
  ToOdd,          // rto: truncate, then set the LSB if inexact (Boldo–Melquiond)
  Stochastic,     // sr: see SrRule
};

enum class Overflow : std::uint8_t {
  // Round first; a result beyond max becomes +-max. Inf inputs become +-max too.
  // CUDA __NV_SATFINITE, PTX cvt.rn.satfinite, OCP saturating mode.
  SatFinite,
  // IEEE 754 §7.4: round first; an overflow becomes +-Inf (NaN where the format has no Inf,
  // +-max where it has neither), except that RTZ, and RU/RD away from the infinity, give +-max.
  // Inf stays Inf (NaN / max likewise). ml_dtypes and c10 default, CUDA __NV_NOSAT.
  Ieee,
  // Finite inputs clamp to +-max whatever the rounding; Inf is not saturated.
  // ml_dtypes kSaturate=true ("specials are not saturated"), HIP software path (newer revision).
  SatFiniteOnly,
  // |x| > max is compared exactly *before* rounding and overflows (+-Inf, or NaN, or +-max
  // where the format has neither); otherwise round. HIP internal::cast_to_f8 with clip=false
  // (from rocBLAS rocblas_hip_f8_impl.h): 449.0f -> e4m3fn NaN although RNE gives 448.
  CompareBeforeRound,
  // Round first; any result beyond max is +-Inf / NaN whatever the rounding direction (no IEEE
  // directed-rounding exception): ml_dtypes kTruncate=true (480.0f -> e4m3fn NaN although RTZ
  // gives 448 under ieee), c10. Identical to ieee under RNE and RNA.
  NonSat,
};

// NaN input, for targets that have a NaN.
enum class NanPolicy : std::uint8_t {
  KeepSign,   // the format's NaN code with the input's sign (ml_dtypes, c10); fnuz and e8m0fnu
              // have a single NaN code, so the sign is lost there
  Canonical,  // the positive NaN code (CUDA float source: NaN is made 0x7FFFFFFF first)
  ToMax,      // +-max with the input's sign (HIP software path, 2024-10, fnuz with clip);
              // targets without NaN follow NanlessNan
};

// Which NaN code an IEEE-style target (e5m2, bf16, fp16) gets; the sign follows NanPolicy.
enum class IeeeNanCode : std::uint8_t {
  Quiet,    // top mantissa bit only: e5m2 0x7E, bf16 0x7FC0 (ml_dtypes quiet_NaN())
  AllOnes,  // all mantissa bits: e5m2 0x7F (c10 `0x7F | sign`; CUDA float source, whose
            // canonical NaN 0x7FFFFFFF truncates to mantissa 11)
  Payload,  // quiet bit | the top M bits of the source mantissa (CUDA __nv_cvt_double_to_fp8:
            // `0x7E | truncated mantissa`)
};

// NaN input, for targets without NaN (e2m3fn, e3m2fn, e2m1fn).
enum class NanlessNan : std::uint8_t {
  PositiveMax,  // +max (cuda_fp4.h: "NaN input values result in positive MAXNORM")
  NegZero,      // ml_dtypes: quiet_NaN() is the sign-only code, then negated by the sign, so
                // +NaN -> -0 and -NaN -> +0
};

enum class Subnormals : std::uint8_t {
  Keep,
  // A result that (rounded with subnormals) is a nonzero subnormal becomes a zero of the
  // same sign (fnuz: +0). Subnormal *inputs* round as usual, so they usually give zero.
  Flush,
};

// Negative and zero inputs for an unsigned target without zero (e8m0fnu). -0 is a zero.
enum class UnsignedNegative : std::uint8_t {
  Nan,  // no representation: NaN (ml_dtypes)
  Abs,  // the sign is ignored (c10 Float8_e8m0fnu, CUDA __nv_cvt_*_to_e8m0)
  Min,  // the smallest value, code 0 (ml_dtypes kSaturate=true)
};
enum class UnsignedZero : std::uint8_t {
  Min,  // code 0x00 = 2^-127 (c10, CUDA)
  Nan,  // ml_dtypes non-saturating
};

// Stochastic rounding consumes caller-given random bits. The rule, in octet's words:
//   Let f in [0, 1) be the part of |x| below the truncated result, in units of the target's
//   quantum at that exponent. F = floor(f * 2^k) keeps the k most significant dropped bits
//   (any further dropped bits are truncated first). R = rbits & (2^k - 1), the k low bits of
//   the caller's 32-bit word. The magnitude rounds away from zero iff F + R >= 2^k.
// k = SrRule::bits, or when that is 0, the HIP software rule k = 23 - M (the fp32 mantissa
// bits dropped for a normal result; 20 for e4m3, 21 for e5m2): HIP `mantissa += rng &
// drop_mask`, with the extra bits of a denormal result truncated before the add. The PTX
// `cvt.rs` instructions give each operand a fixed slice of rbits; the caller extracts that
// slice and sets k to its width (for f16x2: 13, bf16x2: 16).
struct SrRule {
  std::uint8_t bits = 0;  // k in 1..32; 0 = HIP rule

  friend constexpr bool operator==(const SrRule&, const SrRule&) = default;
};

struct CastSpec {
  Rounding rounding = Rounding::NearestEven;
  Overflow overflow = Overflow::SatFinite;
  NanPolicy nan = NanPolicy::KeepSign;
  IeeeNanCode ieee_nan = IeeeNanCode::Quiet;
  NanlessNan nanless_nan = NanlessNan::PositiveMax;
  Subnormals subnormals = Subnormals::Keep;
  UnsignedNegative unsigned_negative = UnsignedNegative::Nan;
  UnsignedZero unsigned_zero = UnsignedZero::Min;
  SrRule sr{};
  // RNE ties pick the even *code* rather than the even significand. The two differ only where
  // M = 0 (e8m0fnu): 3.0 -> 0x80 (gfloat; ml_dtypes before PR #223) instead of 0x81.
  bool ties_to_even_code = false;
  // e8m0fnu from an fp32-subnormal input: code 1 iff |x| > 2^-127, else 0 (c10 and ml_dtypes
  // round the exponent field with the implicit bit, 0 here, as the LSB; reference/formats.md §2).
  bool e8m0_subnormal_above_min_rounds_up = false;

  friend constexpr bool operator==(const CastSpec&, const CastSpec&) = default;
};

std::string_view name(Rounding r);   // "rne", "rna", "rtz", "ru", "rd", "rto", "sr"
std::string_view name(Overflow o);   // "satfinite", "ieee", "satfinite-only", "compare-before-round", "nonsat"
std::optional<Rounding> parse_rounding(std::string_view s);
inline constexpr std::array<Rounding, 7> kAllRoundings{
    Rounding::NearestEven,    Rounding::NearestAway, Rounding::TowardZero, Rounding::TowardPositive,
    Rounding::TowardNegative, Rounding::ToOdd,       Rounding::Stochastic};
inline constexpr std::array<Overflow, 5> kAllOverflows{Overflow::SatFinite, Overflow::Ieee, Overflow::SatFiniteOnly,
                                                       Overflow::CompareBeforeRound, Overflow::NonSat};
std::optional<Overflow> parse_overflow(std::string_view s);

// ---------------------------------------------------------------------------------------------
// Source traits: the binary formats that the integer core reads directly.

template <class Bits, int kExponentBits, int kMantissaBits>
struct SourceTraits {
  using bits_type = Bits;
  static constexpr int kE = kExponentBits;
  static constexpr int kM = kMantissaBits;
  static constexpr int kBias = (1 << (kE - 1)) - 1;
  static constexpr int kExpAllOnes = (1 << kE) - 1;
  static constexpr Bits kMantMask = (Bits(1) << kM) - 1;
};
using Fp32Source = SourceTraits<std::uint32_t, 8, 23>;
using Fp64Source = SourceTraits<std::uint64_t, 11, 52>;

namespace detail {

// Index of the highest set bit of a nonzero integer of at most 53 bits. Goes through an exact
// int -> double conversion instead of count-leading-zeros, so that the vectoriser can use it on
// ISAs without a vector lzcnt.
template <class Bits>
OCTET_HD constexpr int top_bit(Bits v) {
  if constexpr (sizeof(Bits) <= 4) {
    const float d = float(std::int32_t(std::uint32_t(v) & 0xFFFFFFu));  // exact: octet passes v < 2^24
    return int((std::bit_cast<std::uint32_t>(d) >> 23) & 0xFF) - 127;
  } else {
    const double d = double(v);  // exact: v < 2^53
    return int((std::bit_cast<std::uint64_t>(d) >> 52) & 0x7FF) - 1023;
  }
}

}  // namespace detail

// Encode one value given as source bits. `rbits` is read only for Rounding::Stochastic.
// The result is the target code in the low f.bits() bits.
template <class Src>
OCTET_HD constexpr std::uint32_t encode_bits(const Format& f, const CastSpec& s,
                                             typename Src::bits_type x, std::uint32_t rbits = 0) {
  using Bits = typename Src::bits_type;
  using SBits = std::make_signed_t<Bits>;
  constexpr int kTotal = 1 + Src::kE + Src::kM;
  const int M = f.mantissa_bits;

  // 1. Unpack. An unsigned target (e8m0fnu) sees |x| once its negative-input rule has passed.
  const bool sign_bit = (x >> (kTotal - 1)) != 0;
  const int field = int((x >> Src::kM) & Bits(Src::kExpAllOnes));
  const Bits mant = x & Src::kMantMask;
  const bool negative = sign_bit && f.is_signed;
  const std::uint32_t sign = negative ? f.sign_mask() : 0u;
  const auto sig_above_half = [](Bits m) { return m > (Bits(1) << (Src::kM - 1)); };

  // 2. Specials. ------------------------------------------------------------------------------
  if (field == Src::kExpAllOnes && mant != 0) {  // NaN
    if (s.nan == NanPolicy::ToMax && f.nan != NanEncoding::None)
      return (sign_bit ? f.sign_mask() : 0u) | f.max_finite_code();
    const bool nan_negative = s.nan == NanPolicy::KeepSign && sign_bit;
    if (f.nan == NanEncoding::Ieee) {
      const std::uint32_t payload =
          s.ieee_nan == IeeeNanCode::Quiet ? 1u << (M - 1)
          : s.ieee_nan == IeeeNanCode::AllOnes ? f.mantissa_mask()
          : (1u << (M - 1)) | std::uint32_t(mant >> (Src::kM - M));
      return f.inf_code(nan_negative) | payload;
    }
    if (f.nan != NanEncoding::None) return f.nan_code(nan_negative);
    if (s.nanless_nan == NanlessNan::PositiveMax) return f.max_finite_code();
    return sign_bit ? 0u : f.sign_mask();  // ml_dtypes: the sign-only code, negated by the sign
  }
  if (field == 0 && mant == 0) {  // +-0: a zero, whatever its sign (IEEE 754 §6.3)
    if (f.has_zero) return f.nan == NanEncoding::NegZero ? 0u : sign;
    return s.unsigned_zero == UnsignedZero::Min ? 0u : f.nan_code(false);
  }
  if (sign_bit && !f.is_signed) {  // unsigned target: decides -Inf too
    if (s.unsigned_negative == UnsignedNegative::Nan) return f.nan_code(false);
    if (s.unsigned_negative == UnsignedNegative::Min) return 0u;
  }
  // +-max, or the unbounded result: +-Inf, else the NaN (fn: 0x7F with the sign; fnuz: 0x80),
  // else +-max for formats with neither (fp6, fp4).
  const std::uint32_t max_code = sign | f.max_finite_code();
  const std::uint32_t unbounded_code = f.has_inf ? f.inf_code(negative)
                                       : f.nan == NanEncoding::NegZero ? f.sign_mask()
                                       : f.nan == NanEncoding::None ? max_code
                                       : sign | f.magnitude_mask();
  if (field == Src::kExpAllOnes) return s.overflow == Overflow::SatFinite ? max_code : unbounded_code;  // Inf
  if (Src::kM == 23 && s.e8m0_subnormal_above_min_rounds_up && !f.has_zero && field == 0 && mant != 0)
    return sig_above_half(mant) ? 1u : 0u;

  // 3. Normalise: |x| = sig * 2^(e - kM), sig in [2^kM, 2^(kM+1)). (Source subnormals matter:
  // fp32 subnormals at and above 2^-127 are e8m0fnu values, and reach bf16's subnormals.)
  Bits sig = mant | (Bits(1) << Src::kM);
  int e = field - Src::kBias;
  if (field == 0) {
    const int lz = Src::kM - detail::top_bit(mant);
    sig = mant << lz;
    e = 1 - Src::kBias - lz;
  }

  // Overflow: +-max when the policy saturates or when the rounding direction points away from
  // this sign's infinity (IEEE 754 §7.4); the unbounded result otherwise.
  const bool directed_to_max =
      s.overflow == Overflow::Ieee &&
      (s.rounding == Rounding::TowardZero || (s.rounding == Rounding::TowardPositive && negative) ||
       (s.rounding == Rounding::TowardNegative && !negative));
  const bool saturates = s.overflow == Overflow::SatFinite || s.overflow == Overflow::SatFiniteOnly;
  const std::uint32_t overflow_code = (saturates || directed_to_max) ? max_code : unbounded_code;

  // Beyond the largest binade every rounding overflows: max < 2^(emax+1) <= |x|.
  if (e > f.emax()) return overflow_code;
  if (s.overflow == Overflow::CompareBeforeRound && e == f.emax()) {  // |x| > max, exactly
    const Bits max_sig = Bits((f.max_finite_code() & f.mantissa_mask()) | (1u << M)) << (Src::kM - M);
    if (sig > max_sig) return unbounded_code;
  }

  // 4. Align to the target quantum 2^(max(e, emin) - M): integer part r0, remainder rem.
  // Beyond kM + 2 the integer part is 0 and the remainder below half, so only stochastic
  // rounding needs the exact shift.
  const int emin = f.emin();
  const int shift_exact = Src::kM - M + (e < emin ? emin - e : 0);  // >= 13 for every target
  const int shift = shift_exact < Src::kM + 2 ? shift_exact : Src::kM + 2;
  const Bits r0 = sig >> shift;
  const Bits rem = sig & ((Bits(1) << shift) - 1);
  const Bits half = Bits(1) << (shift - 1);

  // 5. Round.
  Bits r = r0;
  switch (s.rounding) {
    case Rounding::NearestEven: {
      const int ebase_even = (e > f.emin() ? e : f.emin()) - f.emin();  // the lower code's parity
      const bool odd = s.ties_to_even_code && M == 0 ? (ebase_even & 1) != 0 : (r0 & 1) != 0;
      r += (rem > half || (rem == half && odd)) ? 1 : 0;
      break;
    }
    case Rounding::NearestAway: r += rem >= half ? 1 : 0; break;
    case Rounding::TowardZero: break;
    case Rounding::TowardPositive: r += (rem != 0 && !negative) ? 1 : 0; break;
    case Rounding::TowardNegative: r += (rem != 0 && negative) ? 1 : 0; break;
    case Rounding::ToOdd: r |= rem != 0 ? 1 : 0; break;
    case Rounding::Stochastic: {
      // F = floor(f * 2^k) with f = rem / 2^shift_exact (rem < 2^shift_exact); see SrRule.
      const int k = s.sr.bits != 0 ? s.sr.bits : 23 - M;
      const std::uint64_t k_mask = (std::uint64_t(1) << k) - 1;
      const int drop = shift_exact - k;
      std::uint64_t F = 0;
      if (drop < 0) F = std::uint64_t(rem) << -drop;
      else if (drop < int(8 * sizeof(Bits))) F = std::uint64_t(sig >> drop) & k_mask;
      r += (F + (std::uint64_t(rbits) & k_mask) > k_mask) ? 1 : 0;
      break;
    }
  }

  // 6. Pack: code = ((max(e, emin) - emin) << M) + r, minus the implicit bit where the format
  // has no zero (e8m0fnu: its code 0 already is a normal). A carry from r walks into the
  // exponent field, which is exactly the next binade.
  const int ebase = (e > emin ? e : emin) - emin;
  const SBits code = SBits(SBits(ebase) << M) + SBits(r) - (f.has_zero ? 0 : SBits(SBits(1) << M));
  if (code < 0) return 0u;  // e8m0fnu: a value rounded below 2^-127 clamps to the smallest code
  if (code > SBits(f.max_finite_code())) return overflow_code;
  std::uint32_t mag = std::uint32_t(code);
  if (s.subnormals == Subnormals::Flush && f.has_zero && mag < (1u << M)) mag = 0;
  if (f.nan == NanEncoding::NegZero && mag == 0) return 0u;  // fnuz: no -0
  return sign | mag;
}

// bf16 and fp16 sources: widen to fp32 bits, exactly (NaN payload and sign kept in the top
// mantissa bits).
OCTET_HD constexpr std::uint32_t bf16_to_fp32_bits(std::uint16_t b) { return std::uint32_t(b) << 16; }
OCTET_HD constexpr std::uint32_t fp16_to_fp32_bits(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  const std::uint32_t field = (h >> 10) & 0x1Fu;
  const std::uint32_t mant = h & 0x3FFu;
  if (field == 0x1F) return sign | 0x7F800000u | (mant << 13);
  if (field != 0) return sign | ((field + 127 - 15) << 23) | (mant << 13);
  if (mant == 0) return sign;
  // subnormal: mant * 2^-24, normalise
  const int top = detail::top_bit(mant);  // 0..9
  return sign | (std::uint32_t(top - 24 + 127) << 23) | ((mant << (23 - top)) & 0x7FFFFFu);
}

// Convenience for scalar use: fp32 / fp64 values.
OCTET_HD constexpr std::uint32_t encode(const Format& f, const CastSpec& s, float x, std::uint32_t rbits = 0) {
  return encode_bits<Fp32Source>(f, s, std::bit_cast<std::uint32_t>(x), rbits);
}
OCTET_HD constexpr std::uint32_t encode(const Format& f, const CastSpec& s, double x, std::uint32_t rbits = 0) {
  return encode_bits<Fp64Source>(f, s, std::bit_cast<std::uint64_t>(x), rbits);
}

}  // namespace octet

// ---------------------------------------------------------------------------------------------
// Array API. Elementwise, so the output is bit-identical for any OpenMP thread count.

namespace octet {

enum class SourceType : std::uint8_t { fp32, fp64, bf16, fp16 };
std::string_view name(SourceType t);
std::optional<SourceType> parse_source(std::string_view s);  // "fp32" or "float32", ...
constexpr std::size_t size_of(SourceType t) {
  return t == SourceType::fp64 ? 8 : t == SourceType::fp32 ? 4 : 2;
}

// Storage types for the 16-bit sources, so that overloads cannot confuse them.
struct bf16_bits { std::uint16_t bits; };
struct fp16_bits { std::uint16_t bits; };

// Type-erased core: `in` holds n values of `src`; `out` holds n codes, one byte each for
// targets of at most 8 bits (fp4/fp6 unpacked), two bytes for bf16/fp16. `rbits` (n words) is
// required for Rounding::Stochastic and ignored otherwise. Throws std::invalid_argument on a
// missing rbits or an fp32/fp64 target.
void cast(SourceType src, const void* in, std::size_t n, const Format& dst, const CastSpec& spec,
          void* out, const std::uint32_t* rbits = nullptr);

// Typed overloads.
void cast(std::span<const float> in, const Format& dst, const CastSpec& spec, std::span<std::uint8_t> out,
          std::span<const std::uint32_t> rbits = {});
void cast(std::span<const double> in, const Format& dst, const CastSpec& spec, std::span<std::uint8_t> out,
          std::span<const std::uint32_t> rbits = {});
void cast(std::span<const bf16_bits> in, const Format& dst, const CastSpec& spec, std::span<std::uint8_t> out,
          std::span<const std::uint32_t> rbits = {});
void cast(std::span<const fp16_bits> in, const Format& dst, const CastSpec& spec, std::span<std::uint8_t> out,
          std::span<const std::uint32_t> rbits = {});
void cast(std::span<const float> in, const Format& dst, const CastSpec& spec, std::span<std::uint16_t> out,
          std::span<const std::uint32_t> rbits = {});
void cast(std::span<const double> in, const Format& dst, const CastSpec& spec, std::span<std::uint16_t> out,
          std::span<const std::uint32_t> rbits = {});
void cast(std::span<const bf16_bits> in, const Format& dst, const CastSpec& spec, std::span<std::uint16_t> out,
          std::span<const std::uint32_t> rbits = {});
void cast(std::span<const fp16_bits> in, const Format& dst, const CastSpec& spec, std::span<std::uint16_t> out,
          std::span<const std::uint32_t> rbits = {});

// A compiled fp32 -> target cast for per-element use inside kernels: the memo of cast.cpp (a
// 65536-entry table built by calling encode_bits) where it applies (targets with at most 7
// mantissa bits, i.e. every 8-bit target and bf16, under deterministic rounding other than RTO),
// encode_bits itself otherwise. Same codes as encode(), cheaper.
class Fp32Encoder {
 public:
  Fp32Encoder(const Format& f, const CastSpec& s);
  std::uint32_t operator()(float x) const {
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
    const std::uint32_t lo = bits & 0xFFFFu;
    if (table_ != nullptr) {
      const std::uint32_t e = table_[bits >> 16];  // threshold | below << 16 | at_or_above << 24
      return lo >= (e & 0xFFFFu) ? e >> 24 : (e >> 16) & 0xFFu;
    }
    if (wide_table_ != nullptr) {
      const std::uint64_t e = wide_table_[bits >> 16];  // threshold | below << 16 | at_or_above << 32
      return std::uint32_t(lo >= (e & 0xFFFFu) ? e >> 32 : (e >> 16) & 0xFFFFu);
    }
    return encode_bits<Fp32Source>(format_, spec_, bits);
  }

 private:
  Format format_;
  CastSpec spec_;
  std::shared_ptr<const void> owner_;  // keeps the memo alive
  const std::uint32_t* table_ = nullptr;
  const std::uint64_t* wide_table_ = nullptr;
};

// The contiguous fp32 bit patterns [first, first + n) cast to 8-bit codes: the inner loop of the
// exhaustive sweeps, with no input array at all. Vectorised with runtime ISA dispatch.
void cast_fp32_range(std::uint32_t first, std::size_t n, const Format& dst, const CastSpec& spec,
                     std::uint8_t* out);

}  // namespace octet
