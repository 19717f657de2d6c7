// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// adapters/formats.cpp — the formats family's two "kernels": `cast` (octet::cast under a
// profile's rules, formats.md) and `decode` (every code's exact value and class), so that
// `octet run` reproduces formats.h5 from its inputs like any kernel family.
#include <cstdint>
#include <string>
#include <vector>

#include "octet/cast.hpp"
#include "octet/format.hpp"
#include "octet/golden/adapter_io.hpp"
#include "octet/golden/runner.hpp"
#include "octet/profile.hpp"

namespace octet::golden {
namespace {

// x: float32 | bfloat16 | float16, any shape -> codes of `format`, same shape. Attributes:
// format, profile (default ocp; its spec for the format and the source), random_bits (the word
// every element gets under stochastic rounding; default 0).
Tensors run_cast(const KernelCall& call) {
  const Format& f = format_param(call);
  if (f.bits() > 16) throw KernelInputError("kernel cast: format '" + std::string(name(f.id)) + "' is not a cast target");
  const Tensor& x = input(call.inputs, "x");
  const std::string& dt = expect_dtype(x, "x", {"float32", "bfloat16", "float16"});
  const SourceType src = dt == "float32" ? SourceType::fp32 : dt == "bfloat16" ? SourceType::bf16 : SourceType::fp16;
  const std::string pname = call.string_param("profile", "ocp");
  const Profile* p = find_profile(pname);
  if (!p) throw KernelInputError("kernel cast: unknown profile '" + pname + "'");
  const CastSpec spec = p->spec_for(f.id, src);
  const std::size_t n = std::size_t(x.numel());
  const std::vector<std::uint32_t> rbits(n, std::uint32_t(call.int_param("random_bits", 0)));
  Tensors out;
  const std::string codes_dtype(dtype_name(f.id));
  if (f.bits() <= 8) {
    std::vector<std::uint8_t> codes(n);
    cast(src, x.bytes.data(), n, f, spec, codes.data(), rbits.data());
    out["codes"] = make_tensor(codes_dtype, x.shape, codes);
  } else {
    std::vector<std::uint16_t> codes(n);
    cast(src, x.bytes.data(), n, f, spec, codes.data(), rbits.data());
    out["codes"] = make_tensor(codes_dtype, x.shape, codes);
  }
  return out;
}

// codes: the format's dtype -> values (float64, exact; NaN codes NaN with the code's sign) and
// classes (uint8: 0 zero, 1 subnormal, 2 normal, 3 inf, 4 nan).
Tensors run_decode(const KernelCall& call) {
  const Format& f = format_param(call);
  const Tensor& codes = input(call.inputs, "codes");
  expect_dtype(codes, "codes", {dtype_name(f.id)});
  std::vector<std::uint32_t> c;
  if (f.bits() <= 8) {
    for (const std::uint8_t b : values_of<std::uint8_t>(codes)) c.push_back(b);
  } else {
    for (const std::uint16_t b : values_of<std::uint16_t>(codes)) c.push_back(b);
  }
  std::vector<double> values;
  std::vector<std::uint8_t> classes;
  for (const std::uint32_t code : c) {
    if (code >= f.code_count()) throw KernelInputError("kernel decode: code " + std::to_string(code) + " out of range");
    values.push_back(decode(f, code));
    classes.push_back(std::uint8_t(f.classify(code)));
  }
  return {{"values", make_tensor("float64", codes.shape, values)}, {"classes", make_tensor("uint8", codes.shape, classes)}};
}

constexpr KernelAdapter kAdapters[] = {
    {"cast", "", "x: float32|bfloat16|float16 (any shape)",
     "format (string, required); profile (string, default ocp); random_bits (int, default 0)",
     "codes: the format's dtype, x's shape", run_cast},
    {"decode", "", "codes: the format's dtype (any shape)", "format (string, required)",
     "values: float64; classes: uint8 (0 zero, 1 subnormal, 2 normal, 3 inf, 4 nan)", run_decode},
};

}  // namespace

std::span<const KernelAdapter> format_adapters() { return kAdapters; }

}  // namespace octet::golden
