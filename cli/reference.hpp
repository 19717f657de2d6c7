// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// reference.hpp — the CLI's independent reference for fp32 -> target casts, used by
// `octet sweep --check` and the demo. It shares no code with the emulator's converter:
//   * its own decoder, written from each format's definition (E, M, bias, the special codes);
//   * the sorted table of the format's finite magnitudes, plus the overflow point max + quantum
//     (the next value the format would have with an unbounded exponent);
//   * rounding by exact comparison with the two neighbours and their midpoint in double (every
//     fp32 input, table entry and midpoint is exact there);
//   * the overflow, NaN, zero and unsigned-target rules as cast.hpp states them in words.
// For a fixed sign the rounded table index is monotone in the input's magnitude, and so in its
// fp32 bit pattern: the sweep checker turns the reference into intervals of patterns, found by
// binary search, and compares each block of codes against them.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "octet/cast.hpp"
#include "octet/format.hpp"

namespace octet::cli {

// Decode and classify from the format definition (targets only: at most 16 bits). NaN decodes to
// a NaN with the code's sign.
double ref_decode(const Format& f, std::uint32_t code);
ValueClass ref_classify(const Format& f, std::uint32_t code);

class Reference {
 public:
  Reference(const Format& f, const CastSpec& spec);

  // One fp32 input (its bits); `rbits` is read only under stochastic rounding.
  std::uint32_t encode(std::uint32_t x, std::uint32_t rbits = 0) const;

  // The reference over all 2^32 fp32 bit patterns, as contiguous intervals in pattern order.
  // Each has one `code`, or under stochastic rounding (sr_floor >= 0) the table index of the
  // truncated magnitude, from which sr_code() finishes per input.
  struct Interval {
    std::uint32_t first, last;
    std::uint32_t code;
    int sr_floor;   // -1: every pattern in [first, last] gives `code`
    bool negative;  // the sign the rounding sees (false for an unsigned target's |x|)
  };
  std::vector<Interval> intervals() const;
  std::uint32_t sr_code(int floor_index, bool negative, double magnitude, std::uint32_t rbits) const;

 private:
  int floor_index(double magnitude) const;                // largest table value <= |x|
  int round_index(double magnitude, bool negative) const;  // deterministic rounding modes
  int sr_index(int floor_index, double magnitude, std::uint32_t rbits) const;
  std::uint32_t code_for(int index, bool negative) const;  // index n_ is the overflow
  std::uint32_t overflow_code(bool negative, bool to_max) const;
  std::uint32_t nan_code(bool negative) const;
  bool finite_overflow_to_max(bool negative) const;

  Format f_;
  CastSpec s_;
  std::uint32_t sign_bit_ = 0;
  std::vector<double> values_;        // ascending finite magnitudes; values_[n_] = max + quantum
  std::vector<std::uint32_t> codes_;  // their magnitude codes
  std::vector<bool> odd_;             // integer significand odd (round to odd; RNE ties)
  std::vector<bool> tie_odd_;         // the parity RNE ties look at (odd_, or the code's LSB)
  int n_ = 0;
  bool virtual_zero_ = false;         // no zero code (e8m0fnu): values_[0] = 0 stands for "below
                                      // the smallest value", which casts clamp to that value
  bool neg_zero_is_nan_ = false;      // fnuz: -0 has no code of its own
  double min_normal_ = 0;
  std::uint32_t max_code_ = 0;
  std::uint32_t inf_magnitude_ = 0;
};

// Compares sweep_fp32 blocks of 8-bit codes against the reference. Thread-safe.
class SweepChecker {
 public:
  SweepChecker(const Format& f, const CastSpec& spec, std::uint64_t seed);

  void check_block(std::uint64_t first, std::span<const std::uint8_t> codes);

  struct Mismatch {
    std::uint32_t input;
    std::uint32_t got, want;
  };
  static constexpr std::size_t kKeep = 10;
  std::uint64_t mismatches() const { return mismatches_.load(); }
  std::uint64_t checked() const { return checked_.load(); }
  std::vector<Mismatch> first_mismatches() const;  // the lowest input patterns, at most kKeep
  // "mismatch at fp32 0x43e88000 (465): got 0x7f (nan) want 0x7e (448)"
  std::string describe(const Mismatch& m) const;

 private:
  Format f_;
  Reference ref_;
  std::vector<Reference::Interval> intervals_;
  std::uint64_t seed_;
  std::atomic<std::uint64_t> mismatches_{0}, checked_{0};
  mutable std::mutex mutex_;
  std::vector<Mismatch> kept_;
};

}  // namespace octet::cli
