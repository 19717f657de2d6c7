// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// octet sweep --format F [--rounding R] [--overflow O] [--profile P] [--seed N] [--range N|A:B]
//             [--check] [--json] — all 2^32 fp32 inputs through octet::sweep_fp32: throughput and
// the digest; --check compares every code with the CLI's independent reference.
#include <cinttypes>
#include <cstdio>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "commands/commands.hpp"
#include "common.hpp"
#include "json.hpp"
#include "octet/profile.hpp"
#include "octet/sweep.hpp"
#include "reference.hpp"

namespace octet::cli {
namespace {

constexpr std::uint64_t kBlocks = (std::uint64_t(1) << 32) / kSweepBlock;  // 4096

// --range N (the first N blocks of 2^20 inputs) or A:B (blocks A..B-1); empty: all 2^32.
void parse_range(const std::string& s, std::uint64_t& first, std::uint64_t& count) {
  first = 0;
  count = std::uint64_t(1) << 32;
  if (s.empty()) return;
  const auto colon = s.find(':');
  std::uint64_t a = 0, b = 0;
  if (colon == std::string::npos) {
    b = parse_uint(s, kBlocks, "--range block count");
  } else {
    a = parse_uint(s.substr(0, colon), kBlocks, "--range first block");
    b = parse_uint(s.substr(colon + 1), kBlocks, "--range end block");
  }
  if (b <= a)
    throw UsageError("--range '" + s + "' is empty; valid: N or A:B with 0 <= A < B <= 4096 (blocks of 2^20 inputs)");
  first = a * kSweepBlock;
  count = (b - a) * kSweepBlock;
}

}  // namespace

int run_sweep(const SweepOptions& o) {
  const Format& f = parse_sweep_target_arg(o.format);
  const Profile& profile = parse_profile_arg(o.profile);
  const CastSpec spec = effective_spec(profile, f, SourceType::fp32, o.rounding, o.overflow);
  const std::uint64_t seed = parse_uint(o.seed, ~std::uint64_t(0), "--seed");
  std::uint64_t first = 0, count = 0;
  parse_range(o.range, first, count);

  std::unique_ptr<SweepChecker> checker;
  if (o.check) checker = std::make_unique<SweepChecker>(f, spec, seed);
  const std::string fname(name(f.id)), rname(name(spec.rounding)), oname(name(spec.overflow));
  if (!o.json) {
    std::printf("sweep format=%s profile=%s rounding=%s overflow=%s seed=%" PRIu64 " inputs=[0x%08" PRIx64
                ", 0x%08" PRIx64 "] check=%s\n",
                fname.c_str(), std::string(profile.name).c_str(), rname.c_str(), oname.c_str(), seed, first,
                first + count - 1, o.check ? "yes" : "no");
    std::fflush(stdout);
  }

  std::function<void(std::uint64_t, std::span<const std::uint8_t>)> on_block;
  if (checker)
    on_block = [&](std::uint64_t block_first, std::span<const std::uint8_t> codes) {
      checker->check_block(block_first, codes);
    };
  const SweepResult r = sweep_fp32(f, spec, first, count, seed, on_block);
  if (checker && checker->checked() != r.inputs)
    throw std::runtime_error("sweep --check saw " + std::to_string(checker->checked()) + " of " +
                             std::to_string(r.inputs) + " inputs");
  const std::uint64_t mismatches = checker ? checker->mismatches() : 0;
  char digest[24];
  std::snprintf(digest, sizeof digest, "%016" PRIx64, r.digest);

  if (o.json) {
    json::Object obj;
    obj.str("format", fname)
        .str("rounding", rname)
        .str("overflow", oname)
        .raw("threads", json::number(r.threads))
        .raw("seconds", json::number(r.seconds))
        .raw("conversions_per_second", json::number(r.conversions_per_second))
        .str("digest", digest);
    if (checker) obj.raw("mismatches", json::number(mismatches));
    std::printf("%s\n", obj.dump(2).c_str());
    if (checker)  // stdout stays one JSON object; the first mismatches go to stderr
      for (const auto& m : checker->first_mismatches()) std::fprintf(stderr, "octet: %s\n", checker->describe(m).c_str());
  } else {
    // Napkin math: 1 byte of codes written per input (4 GiB for a full sweep), digested per block.
    std::printf("inputs=%" PRIu64 " threads=%d seconds=%.3f conversions_per_second=%.0f (%.2f G/s) digest=%s\n",
                r.inputs, r.threads, r.seconds, r.conversions_per_second, r.conversions_per_second * 1e-9, digest);
    if (checker) {
      for (const auto& m : checker->first_mismatches()) std::printf("  %s\n", checker->describe(m).c_str());
      std::printf("check: %" PRIu64 " mismatches in %" PRIu64
                  " inputs against the CLI reference (sorted table, exact midpoints; the timing includes the check)\n",
                  mismatches, r.inputs);
      std::printf("Disposition: %s\n", mismatches == 0 ? "Passed" : "Failed");
    }
  }
  return mismatches == 0 ? 0 : 1;
}

}  // namespace octet::cli
