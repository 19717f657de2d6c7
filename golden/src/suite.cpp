// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// suite.cpp — computing and writing kernel cases (suite.hpp).
#include "octet/golden/suite.hpp"

#include <exception>
#include <stdexcept>


namespace octet::golden {

Suite parse_suite(std::string_view s) {
  if (s == "default") return Suite::default_suite;
  if (s == "full") return Suite::full;
  throw std::invalid_argument("unknown suite '" + std::string(s) + "'; valid: default, full");
}

std::string_view name(Suite s) { return s == Suite::full ? "full" : "default"; }

namespace {

void add_provenance(CaseAttributes& a, const Provenance& p) {
  a.strings["octet_version"] = p.version;
  a.strings["git_revision"] = p.revision;
}

std::vector<std::string> keys(const Tensors& t) {
  std::vector<std::string> k;
  for (const auto& [name, tensor] : t) k.push_back(name);
  return k;
}

}  // namespace

ComputedCase compute_case(const CaseSpec& c, const Provenance& p) {
  ComputedCase out;
  out.name = c.name;
  out.attrs = c.call.attrs;
  out.attrs.strings["kernel"] = c.call.kernel;
  out.attrs.strings["inputs"] = join_names(keys(c.call.inputs));
  add_provenance(out.attrs, p);
  for (const auto& [name, t] : c.call.inputs) out.datasets.emplace_back(name, t);
  Tensors outputs;
  try {
    outputs = run_kernel(c.call);
  } catch (const KernelInputError& e) {
    if (!c.expect_error) throw;  // the caller names the case
    out.attrs.strings["expected_error"] = e.what();
    out.attrs.strings["outputs"] = "";
    return out;
  }
  if (c.expect_error)
    throw KernelInputError("kernel " + c.call.kernel + " accepted inputs this case marks invalid (expected_error)");
  out.attrs.strings["outputs"] = join_names(keys(outputs));
  for (auto& [name, t] : outputs) {
    if (c.call.inputs.count(name))
      throw std::logic_error("output '" + name + "' has an input's name");
    out.datasets.emplace_back(name, std::move(t));
  }
  return out;
}

std::size_t write_cases(const std::filesystem::path& path, const std::string& parameters_json,
                        const std::vector<CaseSpec>& cases, const Provenance& p, const Progress& progress) {
  std::vector<ComputedCase> computed(cases.size());
  std::exception_ptr error;
  std::size_t done = 0;
  // Cases are independent and each kernel is deterministic for any thread count: computing them
  // concurrently changes nothing in the file. Kernels may use OpenMP themselves (nested off).
#pragma omp parallel for schedule(dynamic, 1)
  for (std::size_t i = 0; i < cases.size(); ++i) {
    try {
      try {
        computed[i] = compute_case(cases[i], p);
      } catch (const std::exception& e) {  // a catalogue bug: name the case
        throw std::logic_error("golden case '" + cases[i].name + "': " + e.what());
      }
    } catch (...) {
#pragma omp critical(octet_golden_error)
      if (!error) error = std::current_exception();
    }
#pragma omp critical(octet_golden_progress)
    {
      ++done;
      if (progress) progress(done, cases.size());
    }
  }
  if (error) std::rethrow_exception(error);
  Writer w(path, parameters_json, p);
  for (const ComputedCase& c : computed) {
    w.add_case(c.name, c.attrs);
    for (const auto& [name, t] : c.datasets) w.write_tensor(c.name, name, t);
  }
  w.commit();
  return computed.size();
}

std::size_t run_file(const std::filesystem::path& input, const std::filesystem::path& output,
                     const std::string& kernel_override, const std::string& recipe_override,
                     const std::string& profile_override) {
  const Reader r(input);
  const std::vector<std::string> case_names = r.cases();
  if (case_names.empty()) throw GoldenError(input.string(), "", "", "no cases");
  std::vector<CaseSpec> specs;
  for (const std::string& cn : case_names) {
    CaseSpec c;
    c.name = cn;
    c.call.attrs = r.case_attributes(cn);
    CaseAttributes& a = c.call.attrs;
    if (!kernel_override.empty()) a.strings["kernel"] = kernel_override;
    if (!recipe_override.empty()) a.strings["recipe"] = recipe_override;
    if (!profile_override.empty()) a.strings["profile"] = profile_override;
    const auto k = a.strings.find("kernel");
    if (k == a.strings.end())
      throw GoldenError(input.string(), cn, "", "no 'kernel' attribute (give one with --kernel)");
    c.call.kernel = k->second;
    c.expect_error = a.strings.count("expected_error") != 0;
    std::vector<std::string> in_names;
    if (const auto it = a.strings.find("inputs"); it != a.strings.end()) in_names = split_names(it->second);
    else in_names = r.datasets(cn);
    for (const std::string& d : in_names) c.call.inputs.emplace(d, r.read_tensor(cn, d));
    // Stale results of an earlier run are recomputed, never carried over.
    for (const char* stale : {"inputs", "outputs", "expected_error", "octet_version", "git_revision"})
      a.strings.erase(stale);
    specs.push_back(std::move(c));
  }
  const Provenance p = Provenance::build();
  std::vector<ComputedCase> computed;
  for (const CaseSpec& c : specs) {
    try {
      computed.push_back(compute_case(c, p));
    } catch (const KernelInputError& e) {  // bad inputs, or a misuse case the kernel accepted
      throw GoldenError(input.string(), c.name, "", e.what());
    }
  }
  std::string in_name = input.filename().string();
  std::erase_if(in_name, [](char ch) { return ch == '"' || ch == '\\' || std::uint8_t(ch) < 0x20; });
  Writer w(output, "{\"family\":\"run\",\"input\":\"" + in_name + "\"}", p);
  for (const ComputedCase& c : computed) {
    w.add_case(c.name, c.attrs);
    for (const auto& [name, t] : c.datasets) w.write_tensor(c.name, name, t);
  }
  w.commit();
  return computed.size();
}

}  // namespace octet::golden
