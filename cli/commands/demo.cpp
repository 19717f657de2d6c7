// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// octet [demo] [--no-sweep] — the default work: the format table, every decode checked against
// the CLI's own decoder, casts of boundary values under every profile and a few overflow policies
// and roundings (each cell checked against the CLI reference), then one exhaustive fp32 sweep
// with every output checked. Ends with a key=value summary and Disposition: Passed|Failed.
#include <array>
#include <bit>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <omp.h>

#include "commands/commands.hpp"
#include "common.hpp"
#include "octet/profile.hpp"
#include "octet/sweep.hpp"
#include "octet/version.hpp"
#include "reference.hpp"
#include "value_parser.hpp"

namespace octet::cli {
namespace {

// Boundary values of the fp8 formats and e8m0fnu, as fp32 VALUEs: the e4m3fn max 448, its RNE
// tie 464 and the first value past it, e5m2's max 57344 and tie 61440, the fnuz maxima 240 / 57344
// and 248, specials, e4m3fn's subnormal range, e5m2's half-min-subnormal tie 2^-17, e8m0's tie
// 1.5 and its smallest value 2^-127.
constexpr std::array<const char*, 22> kDemoValues{
    "448", "464", "465",       "480",     "1e9", "inf", "-inf", "nan",  "-nan", "-0",  "0x1p-10",
    "0x1.8p-10", "3.0", "57344", "61440", "240", "248", "0x1p-17", "0.3", "-2.75", "1.5", "0x1p-127"};

constexpr std::array<FormatId, 5> kDemoFormats{FormatId::e4m3fn, FormatId::e4m3fnuz, FormatId::e5m2,
                                               FormatId::e5m2fnuz, FormatId::e8m0fnu};

struct Variant {
  std::string header;
  CastSpec spec;
};

std::string overflow_header(Overflow o) {
  return o == Overflow::CompareBeforeRound ? std::string("+cbr") : std::string("+").append(name(o));
}

// Every profile, then the default profile with each other overflow policy and each other
// deterministic rounding; a column whose spec repeats an earlier one is left out.
std::vector<Variant> variants_for(const Format& f) {
  std::vector<Variant> out;
  const auto add = [&](std::string header, const CastSpec& spec) {
    for (const Variant& v : out)
      if (v.spec == spec) return;
    out.push_back({std::move(header), spec});
  };
  for (const Profile& p : profiles()) add(std::string(p.name), p.spec_for(f.id));
  const CastSpec base = default_profile().spec_for(f.id);
  for (const Overflow o : kAllOverflows) {
    CastSpec s = base;
    s.overflow = o;
    add(overflow_header(o), s);
  }
  for (const Rounding r : kAllRoundings) {
    if (r == Rounding::Stochastic) continue;  // needs random bits
    CastSpec s = base;
    s.rounding = r;
    add(std::string("+").append(name(r)), s);
  }
  return out;
}

std::string code_and_value(const Format& f, std::uint32_t code) {
  return hex_code(code, f.bits()) + " (" + format_double(decode(f, code)) + ")";
}

struct Tally {
  std::uint64_t decoded_codes = 0, decode_mismatches = 0, cast_cells = 0, cast_mismatches = 0;
};

// Every code of every target format: octet::decode / classify against the CLI's decoder.
void check_decoders(Tally& t) {
  for (const Format& f : target_formats) {
    std::uint64_t bad = 0;
    for (std::uint32_t c = 0; c < f.code_count(); ++c) {
      const double got = decode(f, c), want = ref_decode(f, c);
      const bool same = (std::isnan(got) && std::isnan(want)) ||
                        std::bit_cast<std::uint64_t>(got) == std::bit_cast<std::uint64_t>(want);
      if (!same || f.classify(c) != ref_classify(f, c)) {
        if (bad++ < 3)
          std::printf("  decode/%s: mismatch at %s: got %s %s want %s %s\n", std::string(name(f.id)).c_str(),
                      hex_code(c, f.bits()).c_str(), format_double(got).c_str(),
                      std::string(name(f.classify(c))).c_str(), format_double(want).c_str(),
                      std::string(name(ref_classify(f, c))).c_str());
      }
    }
    t.decoded_codes += f.code_count();
    t.decode_mismatches += bad;
  }
  std::printf("decode: %" PRIu64 " codes of %zu target formats, %" PRIu64 " mismatches against the CLI decoder\n",
              t.decoded_codes, target_formats.size(), t.decode_mismatches);
}

void cast_table(const Format& f, Tally& t) {
  const std::vector<Variant> variants = variants_for(f);
  std::vector<Reference> refs;
  for (const Variant& v : variants) refs.emplace_back(f, v.spec);

  std::vector<std::string> header{"input", "fp32", variants[0].header, "value", "class"};
  for (std::size_t k = 1; k < variants.size(); ++k) header.push_back(variants[k].header);
  std::vector<std::vector<std::string>> rows{header};
  std::vector<std::string> failures;
  int rows_differing = 0;
  for (const char* text : kDemoValues) {
    const std::uint32_t x = std::uint32_t(parse_value(text, SourceType::fp32).bits);
    std::vector<std::uint32_t> codes;
    for (std::size_t k = 0; k < variants.size(); ++k) {
      const std::uint32_t got = encode(f, variants[k].spec, std::bit_cast<float>(x));
      const std::uint32_t want = refs[k].encode(x);
      ++t.cast_cells;
      if (got != want) {
        ++t.cast_mismatches;
        failures.push_back("cast/" + std::string(name(f.id)) + ": mismatch at input " + text + " (fp32 " +
                           hex_code(x, 32) + "): got " + code_and_value(f, got) + " want " +
                           code_and_value(f, want) + " [" + variants[k].header + "]");
      }
      codes.push_back(got);
    }
    std::vector<std::string> row{text, hex_code(x, 32), hex_code(codes[0], f.bits()),
                                 format_double(decode(f, codes[0])), std::string(name(f.classify(codes[0])))};
    bool differs = false;
    for (std::size_t k = 1; k < codes.size(); ++k) {
      differs |= codes[k] != codes[0];
      row.push_back(hex_code(codes[k], f.bits()) + (codes[k] != codes[0] ? "*" : ""));
    }
    rows_differing += differs;
    rows.push_back(std::move(row));
  }
  std::printf("\n%s (%s)\n%s", std::string(name(f.id)).c_str(), std::string(dtype_name(f.id)).c_str(),
              render_table(rows, "  ").c_str());
  std::printf("  %d of %zu inputs differ between columns\n", rows_differing, kDemoValues.size());
  for (const std::string& s : failures) std::printf("  %s\n", s.c_str());
}

}  // namespace

int run_demo(const DemoOptions& o) {
  std::printf("octet %s (git %s): formats, casts of boundary values under every profile, one exhaustive sweep\n",
              kVersion, kGitRevision);
  std::printf("threads=%d profiles=", omp_get_max_threads());
  for (std::size_t i = 0; i < profiles().size(); ++i)
    std::printf("%s%s", i ? "," : "", std::string(profiles()[i].name).c_str());
  std::printf(" default=%s\n", std::string(default_profile().name).c_str());
  std::vector<std::vector<std::string>> profile_rows;
  for (const Profile& p : profiles())
    profile_rows.push_back({std::string(p.name), std::string(p.reproduces) + " [" + std::string(p.source) + "]"});
  std::printf("%s", render_table(profile_rows, "  ").c_str());

  std::printf("\n== formats ==\n");
  print_format_table();

  Tally t;
  std::printf("\n== decode ==\n");
  check_decoders(t);

  std::printf("\n== casts from fp32 ==\n");
  std::printf("columns: each profile's rules, then profile %s with another --overflow (+satfinite, +ieee,\n"
              "+satfinite-only, +cbr = compare-before-round, +nonsat) or --rounding (+rna, +rtz, +ru, +rd, +rto);\n"
              "a column equal to an earlier one is left out. * marks a code that differs from the first column.\n"
              "Every cell is checked against the CLI reference.\n",
              std::string(default_profile().name).c_str());
  for (const FormatId id : kDemoFormats) cast_table(format_of(id), t);

  // Where the profiles disagree (quick mode: boundary points + a 2^24 sample per target).
  std::printf("\n== conformance: profile pairs that differ, fp32 sources (octet conformance for examples) ==\n");
  std::fflush(stdout);
  print_conformance_summary(conformance_reports(ConformanceArgs{}), false);

  // One exhaustive sweep: e4m3fn under the default profile, every output checked.
  const Format& sf = e4m3fn_format;
  const CastSpec sspec = default_profile().spec_for(sf.id);
  const std::string sweep_name = std::string(name(sf.id)) + "/" + std::string(name(sspec.rounding)) + "/" +
                                 std::string(name(sspec.overflow));
  std::uint64_t sweep_mismatches = 0;
  std::string sweep_summary = " sweep=skipped";
  if (!o.no_sweep) {
    std::printf("\n== sweep: %s, profile %s, all 2^32 fp32 inputs, every output checked ==\n", sweep_name.c_str(),
                std::string(default_profile().name).c_str());
    std::fflush(stdout);
    SweepChecker checker(sf, sspec, 0);
    const SweepResult r = sweep_fp32(sf, sspec, 0, std::uint64_t(1) << 32, 0,
                                     [&](std::uint64_t first, std::span<const std::uint8_t> codes) {
                                       checker.check_block(first, codes);
                                     });
    sweep_mismatches = checker.mismatches() + (checker.checked() != r.inputs ? 1 : 0);
    char digest[24];
    std::snprintf(digest, sizeof digest, "%016" PRIx64, r.digest);
    std::printf("inputs=%" PRIu64 " threads=%d seconds=%.3f conversions_per_second=%.0f (%.2f G/s, with the check) "
                "digest=%s\n",
                r.inputs, r.threads, r.seconds, r.conversions_per_second, r.conversions_per_second * 1e-9, digest);
    for (const auto& m : checker.first_mismatches()) std::printf("  %s\n", checker.describe(m).c_str());
    std::printf("check: %" PRIu64 " mismatches in %" PRIu64 " inputs\n", checker.mismatches(), checker.checked());
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  " sweep=%s sweep_inputs=%" PRIu64 " sweep_mismatches=%" PRIu64
                  " sweep_digest=%s conversions_per_second=%.0f",
                  sweep_name.c_str(), r.inputs, sweep_mismatches, digest, r.conversions_per_second);
    sweep_summary = buf;
  }

  const bool passed = t.decode_mismatches == 0 && t.cast_mismatches == 0 && sweep_mismatches == 0;
  std::printf("\ndemo formats=%zu decoded_codes=%" PRIu64 " decode_mismatches=%" PRIu64 " cast_cells=%" PRIu64
              " cast_mismatches=%" PRIu64 "%s\n",
              all_formats.size(), t.decoded_codes, t.decode_mismatches, t.cast_cells, t.cast_mismatches,
              sweep_summary.c_str());
  std::printf("Disposition: %s\n", passed ? "Passed" : "Failed");
  return passed ? 0 : 1;
}

}  // namespace octet::cli
