// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// cases/formats.cpp — the `formats` family (formats.h5): per target format a case codes_<format>
// (every code, its decoded value and class) and, for each target of at most 8 bits and each
// profile, a case boundary_<format>_<profile> (fp32 boundary inputs and their codes under the
// profile). Expected codes come from octet::encode, which the exhaustive sweeps check against the
// rational reference.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "octet/cast.hpp"
#include "octet/format.hpp"
#include "octet/golden/suite.hpp"
#include "octet/golden/tensor_io.hpp"
#include "octet/profile.hpp"

namespace octet::golden {
namespace {
namespace fs = std::filesystem;

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

}  // namespace

std::size_t write_formats(const fs::path& path, Suite, const Provenance& prov, const Progress&) {
  Writer w(path, R"({"family":"formats","boundary_source":"fp32","sr_random_bits":0})", prov);
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
  return cases;
}

}  // namespace octet::golden
