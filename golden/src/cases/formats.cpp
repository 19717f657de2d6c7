// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// cases/formats.cpp — the `formats` family (formats.h5): per target format a case codes_<format>
// (every code, its decoded value and class); for each target and each profile a case
// boundary_<format>_<profile> (fp32 boundary inputs and their codes under the profile: every
// value and midpoint for targets of at most 8 bits, the binade boundaries and their midpoints for
// bf16 and fp16); and for e4m3fn and e5m2 under ocp and cuda_satfinite the 16-bit sources:
// boundary_<format>_<profile>_from_<bf16|fp16> (all 65536 source codes). Expected codes come from
// octet::encode / octet::cast, which the exhaustive sweeps check against the rational reference.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
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

// Inserts x (finite, >= 0) and its fp32 neighbours ±1 ulp, each with both signs.
void add_with_neighbours(std::set<std::uint32_t>& bits, float x) {
  if (!std::isfinite(x)) return;
  for (const float y : {x, std::nextafter(x, INFINITY), std::nextafter(x, -INFINITY)}) {
    if (!std::isfinite(y) || y < 0) continue;
    const std::uint32_t b = std::bit_cast<std::uint32_t>(y);
    bits.insert(b);
    bits.insert(b | 0x80000000u);
  }
}

// ±Inf and NaNs: the quiet NaN, a signalling payload, all ones; both signs.
void add_specials(std::set<std::uint32_t>& bits) {
  for (const std::uint32_t b : {0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff800001u,
                                0x7fffffffu, 0xffffffffu})
    bits.insert(b);
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
  const auto add = [&](float x) { add_with_neighbours(bits, x); };
  for (std::size_t i = 0; i < mags.size(); ++i) {
    add(float(mags[i]));
    const double next = i + 1 < mags.size() ? mags[i + 1] : above_max;
    add(float((mags[i] + next) / 2));  // exact in fp32 for every target of at most 8 bits
  }
  add(float(above_max));
  add_specials(bits);
  return {bits.begin(), bits.end()};
}

// fp32 boundary inputs of a 16-bit target (bf16, fp16), as bit patterns in ascending order: for
// every power of two 2^e of the target (subnormal ones included) 2^e, the midpoints to its
// neighbours below and above, and the binade's largest value; max, max + ½ulp (the overflow
// tie), min_subnormal / 2 (the underflow tie) and 0; every fp32 power of two (the whole fp32
// range, beyond the target's); FLT_MAX. Each with its fp32 neighbours ±1 ulp, both signs; ±Inf
// and the NaNs. Midpoints of 16-bit values need at most 12 significant bits: exact in fp32.
std::vector<std::uint32_t> boundary_inputs_16bit(const Format& f) {
  std::set<std::uint32_t> bits;
  const auto add = [&](double x) { add_with_neighbours(bits, float(x)); };
  const double min_sub = min_subnormal(f), max = max_finite(f);
  // The spacing of the target's values in [2^e, 2^(e+1)).
  const auto ulp = [&](int e) { return std::max(std::ldexp(1.0, e - f.mantissa_bits), min_sub); };
  for (int e = std::ilogb(min_sub); e <= f.emax(); ++e) {
    const double x = std::ldexp(1.0, e);
    add(x);
    add(x - ulp(e - 1) / 2);
    add(x + ulp(e) / 2);
    add(2 * x - ulp(e));
  }
  add(0.0);
  add(min_sub / 2);
  add(max);
  add(max + ulp(f.emax()) / 2);
  for (int e = -149; e <= 127; ++e) add(std::ldexp(1.0, e));
  add(double(std::numeric_limits<float>::max()));
  add_specials(bits);
  return {bits.begin(), bits.end()};
}

// The case attributes of a cast case.
CaseAttributes cast_attributes(const Format& f, const Profile& p, const CastSpec& spec, std::string_view distribution,
                               std::string_view source, std::int64_t n, const Provenance& prov) {
  CaseAttributes a;
  a.strings = {{"kernel", "cast"}, {"format", std::string(name(f.id))}, {"profile", std::string(p.name)},
               {"rounding", std::string(name(spec.rounding))}, {"overflow", std::string(name(spec.overflow))},
               {"distribution", std::string(distribution)}, {"source", std::string(source)},
               {"inputs", "x"}, {"outputs", "codes"},
               {"octet_version", prov.version}, {"git_revision", prov.revision}};
  a.ints = {{"seed", 0}, {"random_bits", 0}};
  a.int_arrays = {{"shape", {n}}};
  return a;
}

}  // namespace

std::size_t write_formats(const fs::path& path, Suite, const Provenance& prov, const Progress&) {
  Writer w(path, R"({"family":"formats","boundary_sources":["fp32","bf16","fp16"],"sr_random_bits":0})", prov);
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
                 {"inputs", "codes"}, {"outputs", "classes,values"},
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
    const std::string fname(name(f.id));
    const std::vector<std::uint32_t> in_bits = f.bits() <= 8 ? boundary_inputs(f) : boundary_inputs_16bit(f);
    std::vector<float> inputs;
    for (const std::uint32_t b : in_bits) inputs.push_back(std::bit_cast<float>(b));
    for (const Profile& p : profiles()) {
      const CastSpec spec = p.spec_for(f.id);
      const std::string cn = "boundary_" + fname + "_" + std::string(p.name);
      w.add_case(cn, cast_attributes(f, p, spec, "boundary", "fp32", std::int64_t(inputs.size()), prov));
      w.write_tensor(cn, "x", make_tensor("float32", inputs));
      const std::string dt(dtype_name(f.id));
      if (f.bits() <= 8) {
        std::vector<std::uint8_t> codes;
        for (const float x : inputs) codes.push_back(std::uint8_t(encode(f, spec, x, 0u)));
        w.write_tensor(cn, "codes", make_tensor(dt, codes));
      } else {
        std::vector<std::uint16_t> codes;
        for (const float x : inputs) codes.push_back(std::uint16_t(encode(f, spec, x, 0u)));
        w.write_tensor(cn, "codes", make_tensor(dt, codes));
      }
      ++cases;
    }
  }
  // 16-bit sources: every bf16 / fp16 code through the array API's 16-bit source path.
  std::vector<std::uint16_t> all16(65536);
  for (std::uint32_t c = 0; c < 65536; ++c) all16[c] = std::uint16_t(c);
  for (const Format& f : {e4m3fn_format, e5m2_format})
    for (const std::string_view profile : {"ocp", "cuda_satfinite"})
      for (const SourceType src : {SourceType::bf16, SourceType::fp16}) {
        const Profile& p = *find_profile(profile);
        const CastSpec spec = p.spec_for(f.id, src);
        std::vector<std::uint8_t> codes(all16.size());
        cast(src, all16.data(), all16.size(), f, spec, codes.data());
        const std::string sname(name(src));
        const std::string cn = "boundary_" + std::string(name(f.id)) + "_" + std::string(profile) + "_from_" + sname;
        w.add_case(cn, cast_attributes(f, p, spec, "exhaustive", sname, std::int64_t(all16.size()), prov));
        w.write_tensor(cn, "x", make_tensor(src == SourceType::bf16 ? "bfloat16" : "float16", all16));
        w.write_tensor(cn, "codes", make_tensor(std::string(dtype_name(f.id)), codes));
        ++cases;
      }
  w.commit();
  return cases;
}

}  // namespace octet::golden
