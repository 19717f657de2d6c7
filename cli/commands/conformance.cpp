// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// octet conformance — where the profiles disagree: for each (target format, source dtype), every
// pair of profiles with the number of inputs whose codes differ, split into classes, and up to 3
// examples per class. Quick by default (boundary points + a 2^24 sample for fp32/fp64; fp16 and
// bf16 are always exhaustive); --exhaustive walks all 2^32 fp32 inputs.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "../common.hpp"
#include "../json.hpp"
#include "commands.hpp"
#include "octet/conformance.hpp"

namespace octet::cli {
namespace {

std::vector<const Profile*> selected_profiles(const std::vector<std::string>& names) {
  std::vector<const Profile*> out;
  if (names.empty())
    for (const Profile& p : profiles()) out.push_back(&p);
  for (const std::string& n : names) out.push_back(&parse_profile_arg(n));
  if (out.size() < 2) throw UsageError("conformance needs at least two profiles");
  return out;
}

std::string example_json(const Format& f, SourceType src, const DiffExample& e) {
  json::Object o;
  o.str("input_bits", hex_code(e.input_bits, int(8 * size_of(src))));
  o.str("code_a", hex_code(e.code_a, f.bits()));
  o.str("code_b", hex_code(e.code_b, f.bits()));
  return o.dump();
}

}  // namespace

std::vector<ConformanceReport> conformance_reports(const ConformanceArgs& o) {
  std::vector<FormatId> formats;
  if (o.formats.empty()) {
    formats = {FormatId::e4m3fn, FormatId::e4m3fnuz, FormatId::e5m2, FormatId::e5m2fnuz, FormatId::e8m0fnu};
  } else {
    for (const std::string& s : o.formats) formats.push_back(parse_sweep_target_arg(s).id);
  }
  std::vector<SourceType> sources;
  for (const std::string& s : o.sources.empty() ? std::vector<std::string>{"fp32"} : o.sources)
    sources.push_back(parse_source_arg(s));
  const std::vector<const Profile*> ps = selected_profiles(o.profiles);
  std::vector<ConformanceReport> reports;
  for (const FormatId f : formats)
    for (const SourceType s : sources) reports.push_back(compare_profiles(f, s, o.exhaustive, ps));
  return reports;
}

void print_conformance_summary(const std::vector<ConformanceReport>& reports, bool with_examples) {
  for (const ConformanceReport& r : reports) {
    const Format& f = format_of(r.format);
    std::printf("%s from %s (%s, %llu inputs): differing profile pairs\n", std::string(name(r.format)).c_str(),
                std::string(name(r.source)).c_str(), r.exhaustive ? "exhaustive" : "boundary points + 2^24 sample",
                r.pairs.empty() ? 0ull : static_cast<unsigned long long>(r.pairs.front().inputs));
    std::vector<std::vector<std::string>> rows{{"profile a", "profile b", "differences", "classes"}};
    int identical = 0;
    for (const PairDiff& d : r.pairs) {
      if (d.differences == 0) {
        ++identical;
        continue;
      }
      std::string classes;
      for (int c = 0; c < kDiffClassCount; ++c)
        if (d.classes[c]) classes += std::string(classes.empty() ? "" : " ") + std::string(name(DiffClass(c))) + "=" +
                                     std::to_string(d.classes[c]);
      rows.push_back({std::string(d.profile_a), std::string(d.profile_b), std::to_string(d.differences), classes});
      if (with_examples)
        for (int c = 0; c < kDiffClassCount; ++c)
          for (const DiffExample& e : d.examples[c])
            rows.push_back({"", "", "", "  " + std::string(name(DiffClass(c))) + ": input " +
                                            hex_code(e.input_bits, int(8 * size_of(r.source))) + " -> " +
                                            hex_code(e.code_a, f.bits()) + " vs " + hex_code(e.code_b, f.bits())});
    }
    std::printf("%s", render_table(rows, "  ").c_str());
    std::printf("  %d pairs identical\n", identical);
  }
}

int run_conformance(const ConformanceArgs& o) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<ConformanceReport> reports = conformance_reports(o);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!o.json) {
    print_conformance_summary(reports, true);
    std::printf("conformance reports=%zu seconds=%.1f\n", reports.size(), seconds);
    return 0;
  }
  std::vector<std::string> items;
  for (const ConformanceReport& r : reports) {
    const Format& f = format_of(r.format);
    for (const PairDiff& d : r.pairs) {
      json::Object classes, examples;
      for (int c = 0; c < kDiffClassCount; ++c) {
        classes.raw(name(DiffClass(c)), json::number(d.classes[c]));
        std::vector<std::string> ex;
        for (const DiffExample& e : d.examples[c]) ex.push_back(example_json(f, r.source, e));
        if (!ex.empty()) examples.raw(name(DiffClass(c)), json::array_inline(ex));
      }
      json::Object item;
      item.str("format", name(r.format));
      item.str("source", name(r.source));
      item.str("profile_a", d.profile_a);
      item.str("profile_b", d.profile_b);
      item.raw("exhaustive", json::boolean(r.exhaustive));
      item.raw("inputs", json::number(d.inputs));
      item.raw("differences", json::number(d.differences));
      item.raw("classes", classes.dump());
      item.raw("examples", examples.dump());
      items.push_back(item.dump());
    }
  }
  std::printf("%s\n", json::array_lines(items).c_str());
  return 0;
}

}  // namespace octet::cli
