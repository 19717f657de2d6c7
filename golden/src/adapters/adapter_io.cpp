// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// adapters/adapter_io.cpp — the kernel parameters shared by several adapter families
// (adapter_io.hpp).
#include "octet/golden/adapter_io.hpp"

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

const Format& format_param(const KernelCall& call) {
  const std::optional<std::string> s = call.string_param("format");
  if (!s) throw KernelInputError("kernel " + call.kernel + ": missing string attribute 'format'");
  const std::optional<FormatId> id = parse_format(*s);
  if (!id) throw KernelInputError("kernel " + call.kernel + ": unknown format '" + *s + "'");
  return format_of(*id);
}

const Recipe& fp8_recipe(const KernelCall& call, std::string_view fallback) {
  const Recipe& r = call_recipe(call, fallback);
  const FormatId e = element_format(r);
  const ScaleStorage s = storage(r);
  const bool fp8_elements = e == FormatId::e4m3fn || e == FormatId::e4m3fnuz || e == FormatId::e5m2;
  const bool fp32_scales = s == ScaleStorage::EncodeFp32 || s == ScaleStorage::DecodeFp32;
  if (!fp8_elements || !fp32_scales)
    throw KernelInputError("kernel " + call.kernel + ": recipe '" + std::string(name(r)) + "' has " +
                           std::string(dtype_name(e)) + " elements and " + std::string(name(s)) +
                           " scales; this kernel takes an fp8 recipe with float32 scales (torchao_fp8_rowwise*, "
                           "torchao_blockwise*, te_current*, te_blockwise*, deepgemm*, deepep*)");
  return r;
}

}  // namespace octet::golden
