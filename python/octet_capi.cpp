// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// octet_capi.cpp — a C ABI over the emulator's casts and dense scaled GEMM, for Python (ctypes)
// cross-checks against ml_dtypes and torch. Errors return a nonzero code; octet_last_error() has
// the message.
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "octet/gemm.hpp"
#include "octet/profile.hpp"

namespace {
thread_local std::string last_error;

int fail(const std::string& message) {
  last_error = message;
  return 2;
}

// Resolves (format, profile, rounding or null, overflow or null) into a Format and CastSpec.
int resolve(const char* format, const char* profile, const char* rounding, const char* overflow,
            octet::SourceType source, const octet::Format** f, octet::CastSpec* spec) {
  const auto id = octet::parse_format(format ? format : "");
  if (!id) return fail(std::string("unknown format '") + (format ? format : "") + "'");
  const octet::Profile* p = octet::find_profile(profile ? profile : "ocp");
  if (!p) return fail(std::string("unknown profile '") + profile + "'");
  *f = &octet::format_of(*id);
  *spec = p->spec_for(*id, source);
  if (rounding && *rounding) {
    const auto r = octet::parse_rounding(rounding);
    if (!r) return fail(std::string("unknown rounding '") + rounding + "'");
    spec->rounding = *r;
  }
  if (overflow && *overflow) {
    const auto o = octet::parse_overflow(overflow);
    if (!o) return fail(std::string("unknown overflow '") + overflow + "'");
    spec->overflow = *o;
  }
  return 0;
}
}  // namespace

extern "C" {
#pragma GCC visibility push(default)

const char* octet_last_error() { return last_error.c_str(); }

// Codes of the fp32 bit patterns [first, first + n) (n <= 2^32 - first), one byte each.
int octet_cast_fp32_range(const char* format, const char* profile, const char* rounding, const char* overflow,
                          std::uint32_t first, std::uint64_t n, std::uint8_t* out) {
  try {
    const octet::Format* f = nullptr;
    octet::CastSpec spec;
    if (int rc = resolve(format, profile, rounding, overflow, octet::SourceType::fp32, &f, &spec)) return rc;
    if (f->bits() > 8) return fail("octet_cast_fp32_range: the target must have at most 8 bits");
    if (first + n > (std::uint64_t(1) << 32)) return fail("octet_cast_fp32_range: range beyond 2^32");
    octet::cast_fp32_range(first, std::size_t(n), *f, spec, out);
    return 0;
  } catch (const std::exception& e) {
    return fail(e.what());
  }
}

// Any source ("fp32", "fp64", "bf16", "fp16") to any target; out holds n codes of 1 or 2 bytes.
int octet_cast(const char* source, const void* in, std::uint64_t n, const char* format, const char* profile,
               const char* rounding, const char* overflow, void* out, const std::uint32_t* rbits) {
  try {
    const auto src = octet::parse_source(source ? source : "");
    if (!src) return fail(std::string("unknown source '") + (source ? source : "") + "'");
    const octet::Format* f = nullptr;
    octet::CastSpec spec;
    if (int rc = resolve(format, profile, rounding, overflow, *src, &f, &spec)) return rc;
    octet::cast(*src, in, std::size_t(n), *f, spec, out, rbits);
    return 0;
  } catch (const std::exception& e) {
    return fail(e.what());
  }
}

// torch._scaled_mm semantics for e4m3fn operands with tensorwise or rowwise fp32 scales:
//   out (M, N) = (A·scale_a) @ (B·scale_b), scale_a: 1 or M decode multipliers, scale_b: 1 or N.
// a: M·K e4m3fn codes, row-major (M, K). b: K·N e4m3fn codes, (K, N) row-major when
// b_col_major == 0, column-major (i.e. the (N, K) row-major buffer of torch's `b.t().contiguous()`)
// when 1. The scales are passed to octet as DecodeFp32 words through the "te_current" recipe
// (e4m3fn elements, stored decode multiplier d, read back as d exactly), so they enter the GEMM
// unchanged, as torch takes them. model: exact | fp32_seq | fp32_promote | hopper_fast_accum;
// promote_chunk: N_C of fp32_promote; mantissa_bits, group, promote_interval: HopperAccum.
// out_dtype "bf16" or "fp32": out receives M·N floats (bf16 results exactly as floats).
// bound: null, or 2 doubles receiving gemm_error_bound(cfg, K, K) {rel, abs}: |out - y| <=
// rel·sum_k |a_k·b_k| + abs elementwise.
int octet_scaled_mm_e4m3(const std::uint8_t* a, std::int64_t m, std::int64_t k, const std::uint8_t* b,
                         std::int64_t n, int b_col_major, const float* scale_a, std::int64_t n_scale_a,
                         const float* scale_b, std::int64_t n_scale_b, const char* model,
                         std::int64_t promote_chunk, int mantissa_bits, int group, std::int64_t promote_interval,
                         const char* out_dtype, float* out, double* bound) {
  try {
    if (m < 0 || k < 0 || n < 0) return fail("octet_scaled_mm_e4m3: negative extent");
    if (n_scale_a != 1 && n_scale_a != m) return fail("octet_scaled_mm_e4m3: scale_a must have 1 or M entries");
    if (n_scale_b != 1 && n_scale_b != n) return fail("octet_scaled_mm_e4m3: scale_b must have 1 or N entries");
    octet::GemmConfig cfg;
    cfg.model = octet::parse_gemm_model(model ? model : "");
    const std::string od = out_dtype ? out_dtype : "";
    if (od == "bf16") cfg.out = octet::OutDtype::bf16;
    else if (od == "fp32") cfg.out = octet::OutDtype::fp32;
    else return fail("octet_scaled_mm_e4m3: out_dtype must be bf16 or fp32, got '" + od + "'");
    cfg.promote_chunk = promote_chunk;
    cfg.hopper.mantissa_bits = mantissa_bits;
    cfg.hopper.group = group;
    cfg.hopper.promote_interval = promote_interval;
    const octet::Recipe& r = octet::recipe("te_current");  // e4m3fn, DecodeFp32
    std::vector<std::uint32_t> sa(static_cast<std::size_t>(n_scale_a)), sb(static_cast<std::size_t>(n_scale_b));
    if (n_scale_a) std::memcpy(sa.data(), scale_a, sa.size() * 4);
    if (n_scale_b) std::memcpy(sb.data(), scale_b, sb.size() * 4);
    octet::ScaledOperand A, B;
    A.recipe = &r;
    A.data = octet::View2D<const std::uint8_t>::row_major(a, m, k);
    A.block = n_scale_a == 1 ? octet::ScaleBlock::tensorwise() : octet::ScaleBlock::rowwise();
    A.scales = octet::ScaleView::of(octet::View2D<const std::uint32_t>::row_major(sa.data(), n_scale_a == 1 ? 1 : m, 1));
    B.recipe = &r;
    B.data = b_col_major ? octet::View2D<const std::uint8_t>::col_major(b, k, n)
                         : octet::View2D<const std::uint8_t>::row_major(b, k, n);
    B.block = n_scale_b == 1 ? octet::ScaleBlock::tensorwise() : octet::ScaleBlock::rowwise();
    B.scales = octet::ScaleView::of(octet::View2D<const std::uint32_t>::row_major(sb.data(), 1, n_scale_b == 1 ? 1 : n));
    const octet::GemmOutput o = octet::scaled_mm(A, B, cfg);
    std::memcpy(out, o.values.data(), o.values.size() * sizeof(float));
    if (bound) {
      const octet::ErrorBound eb = octet::gemm_error_bound(cfg, k, k);
      bound[0] = eb.rel;
      bound[1] = eb.abs;
    }
    return 0;
  } catch (const std::exception& e) {
    return fail(e.what());
  }
}

#pragma GCC visibility pop
}  // extern "C"
