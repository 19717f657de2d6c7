// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// adapters/adapter_io.cpp — the kernel parameters shared by several adapter families
// (adapter_io.hpp).
#include "adapter_io.hpp"

#include <limits>

namespace octet::golden {

std::vector<std::int32_t> narrow_int32(const std::vector<std::int64_t>& values, const std::string& name) {
  std::vector<std::int32_t> out(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i] < std::numeric_limits<std::int32_t>::min() || values[i] > std::numeric_limits<std::int32_t>::max())
      throw KernelInputError("input '" + name + "': element " + std::to_string(i) + " = " + std::to_string(values[i]) +
                             " does not fit int32");
    out[i] = std::int32_t(values[i]);
  }
  return out;
}

bool flag_param(const KernelCall& call, const std::string& key, bool fallback) {
  const std::int64_t v = call.int_param(key, fallback ? 1 : 0);
  if (v != 0 && v != 1)
    throw KernelInputError("kernel " + call.kernel + ": attribute '" + key + "' = " + std::to_string(v) +
                           ", expected 0 or 1");
  return v == 1;
}

CombineSpec combine_spec(const KernelCall& call) {
  CombineSpec spec;
  const std::string order = call.string_param("combine_order", "slot_ascending");
  if (order == "row_descending") spec.order = CombineOrder::row_descending;
  else if (order != "slot_ascending")
    throw KernelInputError("kernel " + call.kernel + ": combine_order '" + order +
                           "' is not slot_ascending or row_descending");
  const std::int64_t fma = call.int_param("fma", 0);
  if (fma != 0 && fma != 1) throw KernelInputError("kernel " + call.kernel + ": fma must be 0 or 1, got " + std::to_string(fma));
  spec.fused_multiply_add = fma == 1;
  return spec;
}

}  // namespace octet::golden
