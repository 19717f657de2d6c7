// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// runner.cpp — the adapter table (concatenation of the per-family tables) and call plumbing.
#include "octet/golden/runner.hpp"


namespace octet::golden {

std::optional<std::string> KernelCall::string_param(const std::string& key) const {
  if (const auto it = attrs.strings.find(key); it != attrs.strings.end()) return it->second;
  if (attrs.ints.count(key) || attrs.int_arrays.count(key))
    throw KernelInputError("kernel " + kernel + ": attribute '" + key + "' must be a string");
  return std::nullopt;
}

std::string KernelCall::string_param(const std::string& key, std::string_view fallback) const {
  return string_param(key).value_or(std::string(fallback));
}

std::optional<std::int64_t> KernelCall::int_param(const std::string& key) const {
  if (const auto it = attrs.ints.find(key); it != attrs.ints.end()) return it->second;
  if (attrs.strings.count(key) || attrs.int_arrays.count(key))
    throw KernelInputError("kernel " + kernel + ": attribute '" + key + "' must be an int64 scalar");
  return std::nullopt;
}

std::int64_t KernelCall::int_param(const std::string& key, std::int64_t fallback) const {
  return int_param(key).value_or(fallback);
}

std::int64_t KernelCall::required_int(const std::string& key) const {
  if (const auto v = int_param(key)) return *v;
  throw KernelInputError("kernel " + kernel + ": missing int64 attribute '" + key + "'");
}

std::span<const KernelAdapter> kernel_adapters() {
  static const std::vector<KernelAdapter> all = [] {
    std::vector<KernelAdapter> v;
    for (const auto table : {fp8_adapters(), mx_adapters(), layout_adapters(), transpose_adapters(), fused_adapters(),
                             a2a_adapters(), gemm_adapters(), recipe_adapters(), format_adapters()})
      v.insert(v.end(), table.begin(), table.end());
    return v;
  }();
  return all;
}

const KernelAdapter* find_adapter(std::string_view kernel) {
  for (const KernelAdapter& a : kernel_adapters())
    if (a.name == kernel) return &a;
  return nullptr;
}

const Recipe& call_recipe(const KernelCall& call, std::string_view default_recipe) {
  const std::string name = call.string_param("recipe", default_recipe);
  if (name.empty()) throw KernelInputError("kernel " + call.kernel + ": needs a 'recipe' attribute");
  const Recipe* r = find_recipe(name);
  if (!r) throw KernelInputError("kernel " + call.kernel + ": unknown recipe '" + name + "'");
  return *r;
}

Tensors run_kernel(const KernelCall& call) {
  const KernelAdapter* a = find_adapter(call.kernel);
  if (!a) {
    std::string names;
    for (const KernelAdapter& k : kernel_adapters()) names += (names.empty() ? "" : ", ") + std::string(k.name);
    throw KernelInputError("unknown kernel '" + call.kernel + "'; valid: " + names);
  }
  try {
    return a->run(call);
  } catch (const KernelInputError& e) {
    const std::string what = e.what();
    if (what.rfind("kernel " + call.kernel, 0) == 0) throw;
    throw KernelInputError("kernel " + call.kernel + ": " + what);
  } catch (const std::invalid_argument& e) {
    throw KernelInputError("kernel " + call.kernel + ": " + e.what());
  }
}

std::vector<std::string> split_names(std::string_view s) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos <= s.size() && !s.empty()) {
    const std::size_t comma = s.find(',', pos);
    out.emplace_back(s.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos));
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return out;
}

std::string join_names(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ",") + n;
  return s;
}

}  // namespace octet::golden
