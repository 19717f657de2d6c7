// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// octet quantize — run one emulator quantiser on a seeded (rows, cols) input: timing, and XXH64
// digests of the output codes and of the stored scales. The input is counter-based (one
// counter_rbits draw per value and index), so it does not depend on the OpenMP thread count.
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <numbers>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "../common.hpp"
#include "../json.hpp"
#include "commands.hpp"
#include "octet/cast.hpp"
#include "octet/format.hpp"
#include "octet/kernels/fp8_blockwise.hpp"
#include "octet/kernels/fp8_per_group.hpp"
#include "octet/kernels/fp8_rowwise.hpp"
#include "octet/kernels/mx_quantize.hpp"
#include "octet/scale.hpp"
#include "octet/sweep.hpp"

namespace octet::cli {
namespace {

enum class Grouping { None, Cols, Rows };

struct KernelInfo {
  std::string_view name;            // the registry name (emulator/src/registry.cpp)
  std::string_view default_recipe;
  Grouping grouping;
};

constexpr KernelInfo kKernels[] = {
    {"fp8_rowwise_2d_scale_and_cast", "torchao_fp8_rowwise_pow2", Grouping::None},
    {"fp8_per_group_rowwise_scales", "torchao_fp8_rowwise_pow2", Grouping::Cols},
    {"fp8_per_group_colwise_scales", "torchao_fp8_rowwise_pow2", Grouping::Rows},
    {"fp8_blockwise_act_quant_lhs", "torchao_blockwise", Grouping::None},
    {"fp8_blockwise_weight_quant_rhs", "torchao_blockwise", Grouping::None},
    {"mx_quantize_dim0", "torchao_mx_rceil", Grouping::None},
    {"mx_quantize_dim1", "torchao_mx_rceil", Grouping::None},
};

std::string kernel_names() {
  std::string s;
  for (const KernelInfo& k : kKernels) {
    if (!s.empty()) s += ", ";
    s += k.name;
  }
  return s;
}

const KernelInfo& parse_kernel_arg(std::string_view s) {
  for (const KernelInfo& k : kKernels)
    if (k.name == s) return k;
  throw UsageError("unknown kernel '" + std::string(s) + "'; valid: " + kernel_names());
}

std::vector<std::int64_t> parse_offs(std::string_view text) {
  std::vector<std::int64_t> offs;
  std::size_t pos = 0;
  while (true) {
    const std::size_t comma = text.find(',', pos);
    const std::string_view item = text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    if (item.empty()) throw UsageError("malformed --offs '" + std::string(text) + "': empty entry");
    offs.push_back(std::int64_t(parse_uint(item, std::uint64_t(INT64_MAX), "--offs entry")));
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return offs;
}

// A standard normal value from two counters (Box-Muller); `outliers` scales about 1 value in 256
// by 2^8.
float input_value(std::uint64_t seed, std::uint64_t i, bool outliers) {
  const double u1 = (double(counter_rbits(seed, 2 * i)) + 1.0) * 0x1p-32;  // (0, 1]
  const double u2 = double(counter_rbits(seed, 2 * i + 1)) * 0x1p-32;      // [0, 1)
  double x = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  if (outliers && (counter_rbits(seed ^ 0x6F75746C69657273ull, i) >> 24) == 0) x *= 256.0;
  return float(x);
}

struct Run {
  std::vector<std::uint8_t> codes;
  std::vector<std::uint8_t> scale_bytes;  // stored scales, little-endian, in storage order
  std::vector<double> scale_values;       // the first few, decoded per the recipe's storage
  double seconds = 0;
};

template <class F>
double timed(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

constexpr std::size_t kShownScales = 4;

double decode_stored(const Recipe& r, std::uint32_t stored) {
  switch (storage(r)) {
    case ScaleStorage::EncodeFp32:
    case ScaleStorage::DecodeFp32: {
      float f;
      std::memcpy(&f, &stored, sizeof f);
      return f;
    }
    case ScaleStorage::E8m0: return e8m0_decode(stored);
    case ScaleStorage::E4m3: return decode(e4m3fn_format, stored);
  }
  return 0;
}

Run from_fp8(const Recipe& r, const Fp8Quantized& q, double seconds) {
  Run run;
  run.seconds = seconds;
  run.codes = q.data;
  run.scale_bytes.reserve(q.scales.size() * 4);
  for (std::uint32_t s : q.scales)
    for (int b = 0; b < 4; ++b) run.scale_bytes.push_back(std::uint8_t(s >> (8 * b)));
  for (std::size_t i = 0; i < q.scales.size() && i < kShownScales; ++i)
    run.scale_values.push_back(decode_stored(r, q.scales[i]));
  return run;
}

Run from_mx(const Recipe& r, const MxOutput2D& q, double seconds) {
  Run run;
  run.seconds = seconds;
  run.codes = q.data;
  run.scale_bytes = q.scale;
  for (std::size_t i = 0; i < q.scale.size() && i < kShownScales; ++i)
    run.scale_values.push_back(decode_stored(r, q.scale[i]));
  return run;
}

template <class In>
Run run_kernel(const KernelInfo& k, const Recipe& r, View2D<const In> x, std::span<const std::int64_t> offs) {
  const std::string_view n = k.name;
  Fp8Quantized q;
  MxOutput2D mx;
  double s = 0;
  if (n == "fp8_rowwise_2d_scale_and_cast") {
    s = timed([&] { q = fp8_rowwise_2d_scale_and_cast<In>(x, r); });
  } else if (n == "fp8_per_group_rowwise_scales") {
    s = timed([&] { q = fp8_per_group_rowwise_scales<In, std::int64_t>(x, offs, r); });
  } else if (n == "fp8_per_group_colwise_scales") {
    s = timed([&] { q = fp8_per_group_colwise_scales<In, std::int64_t>(x, offs, r); });
  } else if (n == "fp8_blockwise_act_quant_lhs") {
    s = timed([&] { q = fp8_blockwise_act_quant_lhs<In>(x, r); });
  } else if (n == "fp8_blockwise_weight_quant_rhs") {
    s = timed([&] { q = fp8_blockwise_weight_quant_rhs<In>(x, r); });
  } else if (n == "mx_quantize_dim0") {
    s = timed([&] { mx = mx_quantize_dim0(r, x); });
    return from_mx(r, mx, s);
  } else {  // mx_quantize_dim1
    s = timed([&] { mx = mx_quantize_dim1(r, x); });
    return from_mx(r, mx, s);
  }
  return from_fp8(r, q, s);
}

std::string hex64(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
  return buf;
}

}  // namespace

int run_quantize(const QuantizeOptions& o) {
  const KernelInfo& k = parse_kernel_arg(o.kernel);
  const Recipe& r = recipe(o.recipe.empty() ? k.default_recipe : std::string_view(o.recipe));
  if (o.dtype != "bf16" && o.dtype != "fp32")
    throw UsageError("unknown --dtype '" + o.dtype + "'; valid: bf16, fp32");
  if (o.distribution != "normal" && o.distribution != "outliers")
    throw UsageError("unknown --distribution '" + o.distribution + "'; valid: normal, outliers");
  if (o.rows < 0) throw UsageError("--rows " + std::to_string(o.rows) + " is negative");
  if (o.cols < 0) throw UsageError("--cols " + std::to_string(o.cols) + " is negative");
  constexpr std::int64_t kMaxElements = std::int64_t(1) << 31;
  if (o.cols != 0 && o.rows > kMaxElements / o.cols)
    throw UsageError("--rows x --cols is above " + std::to_string(kMaxElements) + " elements");
  const std::uint64_t seed = parse_uint(o.seed, UINT64_MAX, "--seed");

  std::vector<std::int64_t> offs;
  if (!o.offs.empty()) {
    if (k.grouping == Grouping::None)
      throw UsageError("--offs applies only to the per-group kernels (fp8_per_group_rowwise_scales, "
                       "fp8_per_group_colwise_scales), not to " + std::string(k.name));
    offs = parse_offs(o.offs);
  } else if (k.grouping != Grouping::None) {
    offs.push_back(k.grouping == Grouping::Cols ? o.cols : o.rows);  // one group: the whole extent
  }

  const std::int64_t n = o.rows * o.cols;
  const bool outliers = o.distribution == "outliers";
  const bool bf16 = o.dtype == "bf16";
  std::vector<float> x32(bf16 ? 0 : std::size_t(n));
  std::vector<std::uint16_t> x16(bf16 ? std::size_t(n) : 0);
  const CastSpec to_bf16{.overflow = Overflow::Ieee};
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const float v = input_value(seed, std::uint64_t(i), outliers);
    if (bf16)
      x16[std::size_t(i)] = std::uint16_t(encode(bf16_format, to_bf16, v));
    else
      x32[std::size_t(i)] = v;
  }

  const Run run = bf16 ? run_kernel<std::uint16_t>(k, r, View2D<const std::uint16_t>::row_major(x16.data(), o.rows, o.cols), offs)
                       : run_kernel<float>(k, r, View2D<const float>::row_major(x32.data(), o.rows, o.cols), offs);

  const std::string codes_digest = hex64(xxh64(run.codes));
  const std::string scales_digest = hex64(xxh64(run.scale_bytes));
  const double eps = run.seconds > 0 ? double(n) / run.seconds : 0.0;
  const std::size_t groups = offs.size();
  const std::size_t scale_count = storage(r) == ScaleStorage::E8m0 || storage(r) == ScaleStorage::E4m3
                                      ? run.scale_bytes.size()
                                      : run.scale_bytes.size() / 4;

  if (o.json) {
    std::vector<std::string> shape{json::number(o.rows), json::number(o.cols)};
    std::vector<std::string> first;
    for (double v : run.scale_values) first.push_back(json::number_or_special(v));
    json::Object obj;
    obj.str("kernel", k.name)
        .str("recipe", name(r))
        .raw("shape", json::array_inline(shape))
        .str("dtype", o.dtype)
        .str("distribution", o.distribution)
        .raw("seed", json::number(seed))
        .raw("groups", json::number(std::uint64_t(groups)))
        .raw("seconds", json::number(run.seconds))
        .raw("elements_per_second", json::number(eps))
        .raw("codes_bytes", json::number(std::uint64_t(run.codes.size())))
        .str("codes_digest", codes_digest)
        .raw("scale_count", json::number(std::uint64_t(scale_count)))
        .str("scale_storage", name(storage(r)))
        .str("scales_digest", scales_digest)
        .raw("first_scales", json::array_inline(first));
    std::printf("%s\n", obj.dump(2).c_str());
    return 0;
  }
  std::printf("kernel=%s recipe=%s shape=%" PRId64 "x%" PRId64 " dtype=%s distribution=%s seed=%" PRIu64
              " groups=%zu\n",
              std::string(k.name).c_str(), std::string(name(r)).c_str(), o.rows, o.cols, o.dtype.c_str(),
              o.distribution.c_str(), seed, groups);
  std::printf("seconds=%.6f elements_per_second=%.0f (%.3f G/s)\n", run.seconds, eps, eps * 1e-9);
  std::printf("codes_digest=%s (%zu bytes) scales_digest=%s (%zu scales, %s)\n", codes_digest.c_str(),
              run.codes.size(), scales_digest.c_str(), scale_count, std::string(name(storage(r))).c_str());
  std::string first;
  for (double v : run.scale_values) {
    if (!first.empty()) first += ' ';
    first += format_double(v);
  }
  std::printf("first_scales=%s\n", first.empty() ? "(none)" : first.c_str());
  return 0;
}

}  // namespace octet::cli
