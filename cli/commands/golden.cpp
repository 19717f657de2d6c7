// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// octet golden gen|list|verify — the golden-file suites (golden/schema.md). `gen` writes every
// file of a suite plus a MANIFEST of SHA-256 lines ("<sha256>  <file>"); `verify` regenerates the
// suite into a temporary directory and compares each file's digest with the manifest; `list`
// prints the files of a manifest and the cases in each.
// The families and their cases live in the golden library (octet/golden/suite.hpp).
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "commands/commands.hpp"
#include "common.hpp"
#include "octet/cast.hpp"
#include "octet/format.hpp"
#include "octet/golden/h5.hpp"
#include "octet/golden/sha256.hpp"
#include "octet/golden/suite.hpp"
#include "octet/profile.hpp"
#include "octet/version.hpp"

namespace octet::cli {
namespace {

namespace fs = std::filesystem;
using golden::CaseAttributes;
using golden::Provenance;
using golden::Tensor;

using Manifest = std::vector<std::pair<std::string, std::string>>;  // (file, sha256), file order

std::string manifest_text(const Manifest& m) {
  std::string s;
  for (const auto& [file, sha] : m) s += sha + "  " + file + "\n";
  return s;
}

// Throws UsageError (exit 2) when the manifest is missing or malformed.
Manifest read_manifest(const fs::path& dir) {
  const fs::path p = dir / "MANIFEST";
  std::ifstream in(p);
  if (!in) throw UsageError("golden: " + p.string() + ": manifest missing or unreadable");
  Manifest m;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty()) continue;
    const bool hex = line.size() > 66 && std::all_of(line.begin(), line.begin() + 64, [](char c) {
      return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    });
    const std::string file = hex ? line.substr(66) : "";
    if (!hex || line.compare(64, 2, "  ") != 0 || file.find('/') != std::string::npos || file == "." ||
        file == "..")
      throw UsageError("golden: " + p.string() + ":" + std::to_string(n) +
                       ": corrupt manifest line (expected '<sha256>  <file>')");
    m.emplace_back(file, line.substr(0, 64));
  }
  if (m.empty()) throw UsageError("golden: " + p.string() + ": corrupt manifest (no entries)");
  return m;
}

// Progress of one family: a bar redrawn in place on a terminal; otherwise a plain line at most
// every two seconds (CI logs stay short).
class ProgressPrinter {
 public:
  ProgressPrinter(std::string label, bool enabled)
      : label_(std::move(label)), enabled_(enabled), tty_(::isatty(STDOUT_FILENO) == 1) {}
  void operator()(std::size_t done, std::size_t total) {
    if (!enabled_ || total == 0) return;
    const auto now = std::chrono::steady_clock::now();
    if (tty_) {
      const int width = 30, filled = int(double(done) / double(total) * width);
      std::printf("\r%-22s [%s%s] %zu/%zu cases", label_.c_str(), std::string(std::size_t(filled), '#').c_str(),
                  std::string(std::size_t(width - filled), ' ').c_str(), done, total);
      std::fflush(stdout);
      drawn_ = true;
    } else if (done == total || now - last_ >= std::chrono::seconds(2)) {
      std::printf("  %s: %zu/%zu cases\n", label_.c_str(), done, total);
      std::fflush(stdout);
      last_ = now;
    }
  }
  void finish() {
    if (drawn_) std::printf("\r%*s\r", 70, "");
  }

 private:
  std::string label_;
  bool enabled_, tty_, drawn_ = false;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

Manifest generate(const fs::path& dir, const std::string& suite_name, const Provenance& prov, bool progress) {
  golden::Suite suite;
  try {
    suite = golden::parse_suite(suite_name);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  const std::vector<golden::Family> families = golden::suite_families(suite);
  fs::create_directories(dir);
  Manifest m;
  std::size_t i = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (const golden::Family& fam : families) {
    const fs::path path = dir / fam.file;
    const auto t_file = std::chrono::steady_clock::now();
    ProgressPrinter bar(fam.file, progress);
    const std::size_t cases = fam.write(path, suite, prov, std::ref(bar));
    bar.finish();
    const std::string sha = golden::sha256_file(path);
    m.emplace_back(fam.file, sha);
    if (progress)
      std::printf("[%zu/%zu] %s: %zu cases, %ju bytes, %.1f s, sha256 %s\n", ++i, families.size(),
                  path.string().c_str(), cases, std::uintmax_t(fs::file_size(path)),
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t_file).count(), sha.c_str());
  }
  if (progress)
    std::printf("suite '%s': %zu files in %.1f s\n", suite_name.c_str(), families.size(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  std::sort(m.begin(), m.end());
  return m;
}

struct TempDir {
  fs::path path;
  TempDir() {
    static std::atomic<unsigned> n{0};
    path = fs::temp_directory_path() /
           ("octet-golden-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

}  // namespace

int run_golden_gen(const GoldenOptions& o) {
  const fs::path dir = o.dir;
  const Manifest m = generate(dir, o.suite, Provenance::build(), true);
  // The manifest too goes through a temporary and a rename.
  const fs::path tmp = dir / (".MANIFEST.tmp-" + std::to_string(::getpid()));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << manifest_text(m);
    if (!out.flush()) throw golden::GoldenError(tmp.string(), "", "", "cannot write the manifest");
  }
  fs::rename(tmp, dir / "MANIFEST");
  std::printf("wrote %s (%zu files)\n", (dir / "MANIFEST").string().c_str(), m.size());
  return 0;
}

int run_golden_list(const GoldenOptions& o) {
  const fs::path dir = o.dir;
  const Manifest m = read_manifest(dir);
  for (const auto& [file, sha] : m) {
    const golden::Reader r(dir / file);
    const std::vector<std::string> cases = r.cases();
    std::printf("%s  sha256 %s  %zu cases  (%s, git %s)\n", file.c_str(), sha.c_str(), cases.size(),
                r.root().generator.c_str(), r.root().git_revision.c_str());
    for (const std::string& c : cases) {
      const CaseAttributes a = r.case_attributes(c);
      std::string line = "  " + c;
      for (const char* k : {"kernel", "format", "profile", "rounding", "overflow", "distribution"})
        if (a.strings.count(k)) line += std::string(" ") + k + "=" + a.strings.at(k);
      for (const std::string& d : r.datasets(c)) {
        const Tensor t = r.read_tensor(c, d);
        line += " " + d + ":" + t.dtype + "[" + std::to_string(t.numel()) + "]";
      }
      std::printf("%s\n", line.c_str());
    }
  }
  return 0;
}

int run_golden_verify(const GoldenOptions& o) {
  const fs::path dir = o.dir;
  const Manifest expected = read_manifest(dir);
  // Provenance from the committed files (all of a suite share it); the build's when unreadable.
  Provenance prov = Provenance::build();
  for (const auto& [file, sha] : expected) {
    try {
      const golden::Reader r(dir / file);
      if (r.root().generator.rfind("octet ", 0) == 0) prov.version = r.root().generator.substr(6);
      prov.revision = r.root().git_revision;
      break;
    } catch (const golden::GoldenError&) {
    }
  }
  TempDir tmp;
  const Manifest got = generate(tmp.path, o.suite, prov, false);
  std::map<std::string, std::string> want(expected.begin(), expected.end());
  bool ok = true;
  for (const auto& [file, sha] : got) {
    const auto it = want.find(file);
    if (it == want.end()) {
      std::printf("MISSING   %s (not in the manifest)\n", file.c_str());
      ok = false;
      continue;
    }
    std::string stored = "absent";
    if (fs::exists(dir / file)) stored = golden::sha256_file(dir / file);
    if (it->second == sha && stored == sha) {
      std::printf("OK        %s  %s\n", file.c_str(), sha.c_str());
    } else {
      std::printf("MISMATCH  %s  manifest %s  regenerated %s  stored file %s\n", file.c_str(), it->second.c_str(),
                  sha.c_str(), stored.c_str());
      ok = false;
    }
    want.erase(it);
  }
  for (const auto& [file, sha] : want) {
    std::printf("UNKNOWN   %s (in the manifest, not generated by suite '%s')\n", file.c_str(), o.suite.c_str());
    ok = false;
  }
  std::printf("%s\n", ok ? "golden verify: all files match" : "golden verify: MISMATCH");
  return ok ? 0 : 1;
}

}  // namespace octet::cli
