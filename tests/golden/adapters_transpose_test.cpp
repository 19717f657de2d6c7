// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// adapters_transpose_test.cpp — the transpose family's golden adapters
// (golden/src/adapters/transpose.cpp) and catalogue (golden/src/cases/transpose.cpp): through the
// runner, each fp8flow_transpose variant returns the emulator's packed buffers as `qt`,
// `col_scale_inv`, `scale_inv_t` (dtypes, shapes, the group_packed layout); independently,
// scale_inv_t is the per-group transpose of scale_inv and the published kernel keeps
// q·scale_inv exactly wherever only the exponent moves (kernels.md §8); misuse is a
// KernelInputError naming the problem; every default case computes, errors exactly where marked.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "octet/cast.hpp"
#include "octet/format.hpp"
#include "octet/golden/inputs.hpp"
#include "octet/golden/runner.hpp"
#include "octet/golden/suite.hpp"
#include "octet/kernels/fp8flow_transpose.hpp"

namespace octet::golden {
namespace {

using Ints = std::vector<std::int64_t>;

std::string hex(const std::vector<std::uint8_t>& bytes, std::size_t at, std::size_t size) {
  std::string s = "0x";
  char buf[4];
  for (std::size_t b = size; b-- > 0;) {  // little-endian element
    std::snprintf(buf, sizeof buf, "%02x", bytes[at + b]);
    s += buf;
  }
  return s;
}

// Equal dtype, shape, layout, strides and bytes; the first mismatching elements are printed.
void expect_tensor(const Tensor& got, const Tensor& want, const std::string& what) {
  EXPECT_EQ(got.dtype, want.dtype) << what;
  EXPECT_EQ(got.shape, want.shape) << what;
  EXPECT_EQ(got.layout, want.layout) << what;
  EXPECT_EQ(got.strides, want.strides) << what;
  ASSERT_EQ(got.bytes.size(), want.bytes.size()) << what;
  const std::size_t size = std::size_t(lookup_dtype(want.dtype)->element_size);
  int shown = 0;
  for (std::size_t i = 0; i < want.bytes.size() && shown < 8; i += size)
    if (std::memcmp(&got.bytes[i], &want.bytes[i], size) != 0) {
      ADD_FAILURE() << what << ": element " << i / size << ": got " << hex(got.bytes, i, size) << ", want "
                    << hex(want.bytes, i, size);
      ++shown;
    }
}

constexpr const char* kKernels[] = {"fp8flow_transpose_published", "fp8flow_transpose_ideal",
                                    "fp8flow_transpose_naive"};
constexpr Fp8FlowVariant kVariants[] = {Fp8FlowVariant::published, Fp8FlowVariant::ideal, Fp8FlowVariant::naive};

// A problem of m rows, 160 columns (a partial tile column), pow2 scale_inv spread over 2^-20..2^4,
// one pad row (scale_inv +0), and every e4m3 code somewhere (NaN, ±0, subnormals included).
struct Problem {
  std::int64_t m = 133, cols = 160, cb = 2;
  std::vector<std::int32_t> offs{0, 129, 129, 133};  // empty groups; a 129-row group: a partial tile row
  std::vector<std::uint8_t> q;
  std::vector<float> si;
  Problem() {
    q.resize(std::size_t(m * cols));
    si.resize(std::size_t(m * cb));
    for (std::size_t i = 0; i < q.size(); ++i) q[i] = std::uint8_t(uniform_int(31, i, 256));
    for (std::size_t i = 0; i < si.size(); ++i) si[i] = std::ldexp(1.0f, int(uniform_int(32, i, 25)) - 20);
    si[std::size_t(7 * cb)] = si[std::size_t(7 * cb + 1)] = 0.0f;  // row 7: a pad row
  }
  Tensors inputs() const {
    return {{"q", make_tensor("float8_e4m3fn", {m, cols}, q)},
            {"scale_inv", make_tensor("float32", {m, cb}, si)},
            {"offs", make_tensor("int32", offs)}};
  }
};

Tensors run(const char* kernel, Tensors inputs) {
  KernelCall c;
  c.kernel = kernel;
  c.inputs = std::move(inputs);
  return run_kernel(c);
}

TEST(TransposeAdapters, EveryVariantReturnsTheEmulatorsPackedBuffers) {
  const Problem p;
  for (std::size_t v = 0; v < std::size(kKernels); ++v) {
    SCOPED_TRACE(kKernels[v]);
    const Tensors got = run(kKernels[v], p.inputs());
    const Fp8FlowResult r = fp8flow_transpose(kVariants[v], View2D<const std::uint8_t>::row_major(p.q.data(), p.m, p.cols),
                                              View2D<const float>::row_major(p.si.data(), p.m, p.cb), p.offs);
    ASSERT_EQ(got.size(), 3u);
    expect_tensor(got.at("qt"), make_tensor("float8_e4m3fn", {p.m * p.cols}, r.qt, "group_packed"), "qt");
    expect_tensor(got.at("col_scale_inv"), make_tensor("float32", {r.layout.tile_row_begin.back(), p.cols}, r.csi),
                  "col_scale_inv");
    expect_tensor(got.at("scale_inv_t"), make_tensor("float32", {p.cb * p.m}, r.sit, "group_packed"), "scale_inv_t");
    EXPECT_EQ(got.at("col_scale_inv").shape, (Ints{3, 160}));  // ceil(129/128) + ceil(4/128) tile rows

    // scale_inv_t: group g (rows [b, e)) at [cb·b, cb·e) as (cb, m_g), element (j, r - b) = si[r, j].
    const std::vector<float> sit = values_of<float>(got.at("scale_inv_t"));
    for (std::size_t g = 0; g < p.offs.size(); ++g) {
      const std::int64_t b = g == 0 ? 0 : p.offs[g - 1], e = p.offs[g], mg = e - b;
      for (std::int64_t j = 0; j < p.cb; ++j)
        for (std::int64_t r = b; r < e; ++r)
          ASSERT_EQ(std::bit_cast<std::uint32_t>(sit[std::size_t(p.cb * b + j * mg + (r - b))]),
                    std::bit_cast<std::uint32_t>(p.si[std::size_t(r * p.cb + j)]))
              << "group " << g << " row " << r << " block " << j;
    }
  }
}

// kernels.md §8: where E >= 1 and E - k >= 1 only the exponent changes, so qt·csi == q·si exactly.
TEST(TransposeAdapters, PublishedKeepsTheProductWhereOnlyTheExponentMoves) {
  const Problem p;
  const Tensors got = run("fp8flow_transpose_published", p.inputs());
  const std::vector<std::uint8_t> qt = values_of<std::uint8_t>(got.at("qt"));
  const std::vector<float> csi = values_of<float>(got.at("col_scale_inv"));
  std::int64_t checked = 0, tile_row0 = 0;
  for (std::size_t g = 0; g < p.offs.size(); ++g) {
    const std::int64_t b = g == 0 ? 0 : p.offs[g - 1], e = p.offs[g], mg = e - b;
    for (std::int64_t r = b; r < e; ++r)
      for (std::int64_t c = 0; c < p.cols; ++c) {
        const std::int64_t tile_row = tile_row0 + (r - b) / 128;
        const float S = csi[std::size_t(tile_row * p.cols + c)];
        const float si = p.si[std::size_t(r * p.cb + c / 128)];
        const std::uint8_t code = p.q[std::size_t(r * p.cols + c)];
        const int E = (code >> 3) & 0xF;
        const int k = fp8flow_scale_exponent(S) - fp8flow_scale_exponent(si);
        if (si == 0.0f || E == 0 || E - k < 1 || (code & 0x7F) == 0x7F) continue;
        const std::uint8_t t = qt[std::size_t(p.cols * b + c * mg + (r - b))];
        ASSERT_EQ(decode(e4m3fn_format, t) * double(S), decode(e4m3fn_format, code) * double(si))
            << "row " << r << " col " << c << " code 0x" << std::hex << int(code) << " -> 0x" << int(t);
        ++checked;
      }
    tile_row0 += (mg + 127) / 128;
  }
  EXPECT_GT(checked, 1000);
}

void expect_rejected(const char* kernel, Tensors inputs, const std::string& needle) {
  try {
    run(kernel, std::move(inputs));
    ADD_FAILURE() << kernel << ": accepted; expected an error naming '" << needle << "'";
  } catch (const KernelInputError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(kernel), std::string::npos) << e.what();
  }
}

TEST(TransposeAdapters, MisuseIsAKernelInputErrorNamingTheProblem) {
  const Problem p;
  for (const char* kernel : kKernels) {
    Tensors in = p.inputs();
    in["offs"] = make_tensor("int32", std::vector<std::int32_t>{0, 100});
    expect_rejected(kernel, in, "must equal the rows of q_m_c");
    in["offs"] = make_tensor("int32", std::vector<std::int32_t>{});
    expect_rejected(kernel, in, "offs is empty");
    in["offs"] = make_tensor("int64", Ints{std::int64_t(1) << 31});
    expect_rejected(kernel, in, "input 'offs'");
    in = p.inputs();
    std::vector<float> si = p.si;
    si[3] = 3.0f;
    in["scale_inv"] = make_tensor("float32", {p.m, p.cb}, si);
    expect_rejected(kernel, in, "is not +0 or a power of two");
    in["scale_inv"] = make_tensor("float32", {p.m, 1}, std::vector<float>(std::size_t(p.m), 1.0f));
    expect_rejected(kernel, in, "si_m_cb cols");
    in = p.inputs();
    in["q"] = make_tensor("float8_e5m2", {p.m, p.cols}, p.q);
    expect_rejected(kernel, in, "input 'q': dtype 'float8_e5m2'");
    in.erase("q");
    expect_rejected(kernel, in, "missing input dataset 'q'");
  }
}

TEST(TransposeCatalogue, EveryDefaultCaseComputesWithErrorsExactlyWhereMarked) {
  const std::vector<CaseSpec> cases = transpose_cases(Suite::default_suite);
  ASSERT_FALSE(cases.empty());
  const std::regex valid_name("[A-Za-z0-9_.-]+");
  std::set<std::string> names, kernels;
  int misuse = 0;
  for (const CaseSpec& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_TRUE(std::regex_match(c.name, valid_name));
    EXPECT_TRUE(names.insert(c.name).second) << "duplicate case name";
    kernels.insert(c.call.kernel);
    const ComputedCase out = compute_case(c, Provenance{"test", "test"});  // logic_error if misclassified
    EXPECT_EQ(out.attrs.strings.count("expected_error"), c.expect_error ? 1u : 0u);
    misuse += c.expect_error;
  }
  for (const KernelAdapter& a : transpose_adapters()) EXPECT_TRUE(kernels.count(std::string(a.name))) << a.name;
  EXPECT_GE(misuse, 10);
}

}  // namespace
}  // namespace octet::golden
