// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// octet golden gen|list|verify — the golden-file suites (golden/schema.md). `gen` writes every
// file of a suite plus a MANIFEST of SHA-256 lines ("<sha256>  <file>"); `verify` regenerates the
// suite into a temporary directory and compares each file's digest with the manifest; `list`
// prints the files of a manifest and the cases in each.
//
// Families: `formats` (formats.h5), per target format a case codes_<format> (every code, its
// decoded value and class) and, for each target of at most 8 bits and each profile, a case
// boundary_<format>_<profile> (fp32 boundary inputs and their codes under the profile).
#include <unistd.h>

#include <algorithm>
#include <atomic>
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
#include "octet/profile.hpp"
#include "octet/version.hpp"

namespace octet::cli {
namespace {

namespace fs = std::filesystem;
using golden::CaseAttributes;
using golden::Tensor;

// The provenance written into a file: the generating build's, or (verify) the committed file's,
// so that a regenerated file is compared on its data and not on the revision that made it.
struct Provenance {
  std::string version = kVersion;
  std::string revision = kGitRevision;
};

template <class T>
Tensor make_tensor(std::string dtype, const std::vector<T>& v) {
  Tensor t;
  t.dtype = std::move(dtype);
  t.shape = {std::int64_t(v.size())};
  t.bytes.resize(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(t.bytes.data(), v.data(), t.bytes.size());  // little-endian host
  return t;
}

// fp32 boundary inputs of a target of at most 8 bits, as bit patterns in ascending order: every
// finite non-negative value, the midpoints between neighbours (from 0, and up to max + ½ulp),
// each with its fp32 neighbours ±1 ulp; both signs; ±Inf and six NaNs.
std::vector<std::uint32_t> boundary_inputs(const Format& f) {
  std::vector<double> mags;
  for (std::uint32_t c = 0; c < f.code_count(); ++c) {
    const ValueClass k = f.classify(c);
    if (k == ValueClass::nan || k == ValueClass::inf) continue;
    mags.push_back(std::fabs(decode(f, c)));
  }
  mags.push_back(0.0);
  std::sort(mags.begin(), mags.end());
  mags.erase(std::unique(mags.begin(), mags.end()), mags.end());
  // The value one quantum above max, as if the exponent range went on: max + ½ulp is its midpoint.
  const double above_max = mags.back() + std::ldexp(1.0, f.emax() - f.mantissa_bits);
  std::set<std::uint32_t> bits;
  const auto add = [&](float x) {
    if (!std::isfinite(x)) return;
    for (const float y : {x, std::nextafter(x, INFINITY), std::nextafter(x, -INFINITY)}) {
      if (!std::isfinite(y) || y < 0) continue;
      const std::uint32_t b = std::bit_cast<std::uint32_t>(y);
      bits.insert(b);
      bits.insert(b | 0x80000000u);
    }
  };
  for (std::size_t i = 0; i < mags.size(); ++i) {
    add(float(mags[i]));
    const double next = i + 1 < mags.size() ? mags[i + 1] : above_max;
    add(float((mags[i] + next) / 2));  // exact in fp32 for every target of at most 8 bits
  }
  add(float(above_max));
  for (const std::uint32_t b : {0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff800001u,
                                0x7fffffffu, 0xffffffffu})
    bits.insert(b);
  return {bits.begin(), bits.end()};
}

// Rewrites the root provenance in place (same position in the attribute order when the new
// string has the old length, which the build's own revision always has).
void set_root_provenance(const fs::path& path, const Provenance& p) {
  golden::h5::Handle file = golden::h5::open_file(path, true);
  const golden::h5::Where w{path.string(), "", ""};
  golden::h5::set_attr(file.get(), "generator", "octet " + p.version, w);
  golden::h5::set_attr(file.get(), "git_revision", std::string_view(p.revision), w);
}

std::size_t write_formats(const fs::path& path, const Provenance& prov) {
  golden::Writer w(path, R"({"family":"formats","boundary_source":"fp32","sr_random_bits":0})");
  std::size_t cases = 0;
  for (const Format& f : target_formats) {
    const std::string fname(name(f.id));
    std::vector<std::uint8_t> c8, classes;
    std::vector<std::uint16_t> c16;
    std::vector<double> values;
    for (std::uint32_t c = 0; c < f.code_count(); ++c) {
      if (f.bits() <= 8) c8.push_back(std::uint8_t(c));
      else c16.push_back(std::uint16_t(c));
      values.push_back(decode(f, c));
      classes.push_back(std::uint8_t(f.classify(c)));
    }
    CaseAttributes a;
    a.strings = {{"kernel", "decode"}, {"format", fname}, {"distribution", "exhaustive"},
                 {"octet_version", prov.version}, {"git_revision", prov.revision}};
    a.ints = {{"seed", 0}};
    a.int_arrays = {{"shape", {std::int64_t(values.size())}}};
    const std::string cn = "codes_" + fname;
    w.add_case(cn, a);
    const std::string dt(dtype_name(f.id));
    w.write_tensor(cn, "codes", f.bits() <= 8 ? make_tensor(dt, c8) : make_tensor(dt, c16));
    w.write_tensor(cn, "values", make_tensor("float64", values));
    w.write_tensor(cn, "classes", make_tensor("uint8", classes));
    ++cases;
  }
  for (const Format& f : target_formats) {
    if (f.bits() > 8) continue;  // 16-bit targets: boundary cases not generated (size)
    const std::string fname(name(f.id));
    const std::vector<std::uint32_t> in_bits = boundary_inputs(f);
    std::vector<float> inputs;
    for (const std::uint32_t b : in_bits) inputs.push_back(std::bit_cast<float>(b));
    for (const Profile& p : profiles()) {
      const CastSpec spec = p.spec_for(f.id);
      std::vector<std::uint8_t> codes;
      for (const float x : inputs) codes.push_back(std::uint8_t(encode(f, spec, x, 0u)));
      CaseAttributes a;
      a.strings = {{"kernel", "cast"}, {"format", fname}, {"profile", std::string(p.name)},
                   {"rounding", std::string(name(spec.rounding))}, {"overflow", std::string(name(spec.overflow))},
                   {"distribution", "boundary"}, {"source", "fp32"},
                   {"octet_version", prov.version}, {"git_revision", prov.revision}};
      a.ints = {{"seed", 0}, {"random_bits", 0}};
      a.int_arrays = {{"shape", {std::int64_t(inputs.size())}}};
      const std::string cn = "boundary_" + fname + "_" + std::string(p.name);
      w.add_case(cn, a);
      w.write_tensor(cn, "x", make_tensor("float32", inputs));
      w.write_tensor(cn, "codes", make_tensor(std::string(dtype_name(f.id)), codes));
      ++cases;
    }
  }
  w.commit();
  set_root_provenance(path, prov);
  return cases;
}

struct Family {
  const char* file;
  std::function<std::size_t(const fs::path&, const Provenance&)> write;
};

std::vector<Family> suite_families(const std::string& suite) {
  if (suite != "default") throw UsageError("unknown suite '" + suite + "'; valid: default");
  return {{"formats.h5", write_formats}};
}

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

Manifest generate(const fs::path& dir, const std::string& suite, const Provenance& prov, bool progress) {
  const std::vector<Family> families = suite_families(suite);
  fs::create_directories(dir);
  Manifest m;
  std::size_t i = 0;
  for (const Family& fam : families) {
    const fs::path path = dir / fam.file;
    const std::size_t cases = fam.write(path, prov);
    const std::string sha = golden::sha256_file(path);
    m.emplace_back(fam.file, sha);
    if (progress)
      std::printf("[%zu/%zu] %s: %zu cases, %ju bytes, sha256 %s\n", ++i, families.size(), path.string().c_str(),
                  cases, std::uintmax_t(fs::file_size(path)), sha.c_str());
  }
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
  const Manifest m = generate(dir, o.suite, Provenance{}, true);
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
  Provenance prov;
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
