// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// octet check (golden/include/octet/golden/check.hpp): golden/candidate pairs built so that the
// expected verdict and mismatch class are known by construction — codes from the emulator's
// encode() under two cast specs that differ in one rule (rounding, overflow, subnormals), layouts
// rearranged by naive loops here — written with golden::Writer and compared by check_files; and
// the `octet check` exit codes through the built binary.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "octet/cast.hpp"
#include "octet/golden/check.hpp"

namespace fs = std::filesystem;
using namespace octet::golden;

namespace {

fs::path scratch_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  fs::path d = fs::temp_directory_path() / ("octet_check_" + std::to_string(::getpid()) + "_" + info->name());
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// ---- building cases -----------------------------------------------------------------------------

struct Case {
  std::string name;
  CaseAttributes attrs;
  std::vector<std::pair<std::string, Tensor>> datasets;
};

void write_file(const fs::path& p, const std::vector<Case>& cases) {
  Writer w(p);
  for (const Case& c : cases) {
    w.add_case(c.name, c.attrs);
    for (const auto& [name, t] : c.datasets) w.write_tensor(c.name, name, t);
  }
  w.commit();
}

CaseAttributes kernel_attrs(const std::string& kernel, const std::string& inputs, const std::string& outputs) {
  CaseAttributes a;
  a.strings = {{"kernel", kernel}, {"inputs", inputs}, {"outputs", outputs}};
  return a;
}

// Codes of `values` in `fmt` under `spec` (RNE + satfinite unless told otherwise).
std::vector<std::uint8_t> codes8(const octet::Format& fmt, const std::vector<float>& values,
                                 const octet::CastSpec& spec = {}) {
  std::vector<std::uint8_t> c;
  for (const float v : values) c.push_back(std::uint8_t(octet::encode(fmt, spec, v)));
  return c;
}

Tensor e4m3(std::vector<std::int64_t> shape, const std::vector<std::uint8_t>& codes) {
  return make_tensor("float8_e4m3fn", std::move(shape), codes);
}

// The golden's (R, C) matrices (per leading index) transposed, in flat order.
std::vector<std::uint8_t> transposed(const std::vector<std::uint8_t>& v, std::int64_t batch, std::int64_t rows,
                                     std::int64_t cols) {
  std::vector<std::uint8_t> t(v.size());
  for (std::int64_t b = 0; b < batch; ++b)
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j)
        t[std::size_t(b * rows * cols + j * rows + i)] = v[std::size_t(b * rows * cols + i * cols + j)];
  return t;
}

// Distinct e4m3fn codes 0x01.. for every element (no NaN: 0x7f is skipped).
std::vector<std::uint8_t> distinct_codes(std::int64_t n) {
  std::vector<std::uint8_t> v;
  for (int c = 1; std::int64_t(v.size()) < n; ++c)
    if ((c & 0x7f) != 0x7f) v.push_back(std::uint8_t(c));
  return v;
}

// One case "c" with output "q" in the golden and the candidate; returns the report of "q".
struct Pair {
  fs::path dir = scratch_dir();
  fs::path golden = dir / "golden.h5", candidate = dir / "candidate.h5";
  Pair() = default;
  Pair(const Pair&) = delete;
  Pair& operator=(const Pair&) = delete;
  ~Pair() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

CheckReport check_pair(const Pair& p, const std::vector<Case>& golden, const std::vector<Case>& candidate) {
  write_file(p.golden, golden);
  write_file(p.candidate, candidate);
  return check_files(p.golden, p.candidate);
}

DatasetReport one_dataset(const Tensor& golden, const Tensor& candidate, const std::string& kernel = "quantize",
                          std::optional<Tensor> x = std::nullopt) {
  Pair p;
  Case g{"c", kernel_attrs(kernel, x ? "x" : "", "q"), {}}, c{"c", kernel_attrs(kernel, x ? "x" : "", "q"), {}};
  if (x) g.datasets.emplace_back("x", *x), c.datasets.emplace_back("x", *x);
  g.datasets.emplace_back("q", golden);
  c.datasets.emplace_back("q", candidate);
  const CheckReport r = check_pair(p, {g}, {c});
  EXPECT_EQ(r.cases.size(), 1u);
  EXPECT_EQ(r.cases.at(0).datasets.size(), 1u);
  return r.cases.at(0).datasets.at(0);
}

std::int64_t count_of(const DatasetReport& d, MismatchClass k) {
  std::int64_t n = 0;
  for (const auto& [c, count] : d.classes) n += c == k ? count : 0;
  return n;
}

std::string classes_text(const DatasetReport& d) {
  std::string s;
  for (const auto& [c, n] : d.classes) s += std::string(name(c)) + "=" + std::to_string(n) + " ";
  return s + "| " + d.detail;
}

// ---- element classes ----------------------------------------------------------------------------

// A 4-element dataset whose element 2 differs: golden code `g`, candidate code `c`.
struct ElementCase {
  std::string label, dtype;
  std::uint32_t g, c;
  MismatchClass expected;
  std::optional<float> x = std::nullopt;  // the cast input at index 2 (kernel "cast")
};

Tensor four(const std::string& dtype, std::uint64_t at2) {
  const auto info = lookup_dtype(dtype);
  Tensor t;
  t.dtype = dtype;
  t.shape = {4};
  t.bytes.assign(std::size_t(4 * info->element_size), 0);
  for (int b = 0; b < info->element_size; ++b) t.bytes[std::size_t(2 * info->element_size + b)] = std::uint8_t(at2 >> (8 * b));
  return t;
}

std::vector<ElementCase> element_cases() {
  using namespace octet;
  const CastSpec rne{}, rtz{.rounding = Rounding::TowardZero}, rna{.rounding = Rounding::NearestAway};
  const CastSpec ieee{.overflow = Overflow::Ieee}, flush{.subnormals = Subnormals::Flush};
  const auto e = [](const Format& f, const CastSpec& s, float v) { return encode(f, s, v); };
  const float tiny = std::ldexp(1.0f, -9);  // e4m3fn's smallest subnormal
  return {
      {"e5m2_nan_payload", "float8_e5m2", 0x7e, 0x7f, MismatchClass::nan_payload_sign},
      {"e4m3fn_nan_sign", "float8_e4m3fn", e(e4m3fn_format, rne, NAN), e(e4m3fn_format, rne, -NAN),
       MismatchClass::nan_payload_sign},
      {"e4m3fn_satfinite_vs_nan", "float8_e4m3fn", e(e4m3fn_format, rne, 500.0f), e(e4m3fn_format, ieee, 500.0f),
       MismatchClass::saturation_vs_nan},
      {"fp16_max_vs_inf", "float16", e(fp16_format, rne, 70000.0f), e(fp16_format, ieee, 70000.0f),
       MismatchClass::saturation_vs_nan},
      {"e4m3fn_subnormal_flush", "float8_e4m3fn", e(e4m3fn_format, rne, tiny), e(e4m3fn_format, flush, tiny),
       MismatchClass::subnormal_flush},
      {"fp32_subnormal_flush", "float32", 0x00000001, 0x00000000, MismatchClass::subnormal_flush},
      {"e4m3fn_scale_pow2", "float8_e4m3fn", e(e4m3fn_format, rne, 1.5f), e(e4m3fn_format, rne, 6.0f),
       MismatchClass::scale_pow2},
      {"e8m0_scale_pow2", "float8_e8m0fnu", e(e8m0fnu_format, rne, 8.0f), e(e8m0fnu_format, rne, 32.0f),
       MismatchClass::scale_pow2},
      {"e4m3fn_rtz_vs_rne", "float8_e4m3fn", e(e4m3fn_format, rne, 1.1f), e(e4m3fn_format, rtz, 1.1f),
       MismatchClass::rounding_adjacent, 1.1f},
      {"bf16_rtz_vs_rne", "bfloat16", e(bf16_format, rne, 1.0f + 0x1.8p-8f), e(bf16_format, rtz, 1.0f + 0x1.8p-8f),
       MismatchClass::rounding_adjacent},
      {"e8m0_adjacent", "float8_e8m0fnu", e(e8m0fnu_format, rne, 8.0f), e(e8m0fnu_format, rne, 16.0f),
       MismatchClass::rounding_adjacent},
      {"e4m3fn_tie_rne_vs_rna", "float8_e4m3fn", e(e4m3fn_format, rne, 1.0625f), e(e4m3fn_format, rna, 1.0625f),
       MismatchClass::tie_rounding, 1.0625f},
      {"e2m3fn_tie_rne_vs_rna", "float6_e2m3fn", e(e2m3fn_format, rne, 1.0625f), e(e2m3fn_format, rna, 1.0625f),
       MismatchClass::tie_rounding, 1.0625f},
      {"e4m3fn_sign", "float8_e4m3fn", e(e4m3fn_format, rne, 2.0f), e(e4m3fn_format, rne, -2.0f), MismatchClass::sign},
      {"e2m1fn_sign", "float4_e2m1fn", e(e2m1fn_format, rne, 1.0f), e(e2m1fn_format, rne, -1.0f), MismatchClass::sign},
      {"e4m3fn_other", "float8_e4m3fn", e(e4m3fn_format, rne, 1.0f), e(e4m3fn_format, rne, 3.5f),
       MismatchClass::other},
      {"int32_other", "int32", 7, 8, MismatchClass::other},
  };
}

TEST(CheckElementClasses, EachClassByConstruction) {
  for (const ElementCase& ec : element_cases()) {
    SCOPED_TRACE(ec.label);
    ASSERT_NE(ec.g, ec.c) << "the two specs gave the same code";
    std::optional<Tensor> x;
    if (ec.x) x = make_tensor("float32", std::vector<float>{0, 0, *ec.x, 0});
    const DatasetReport d = one_dataset(four(ec.dtype, ec.g), four(ec.dtype, ec.c), ec.x ? "cast" : "quantize", x);
    EXPECT_FALSE(d.pass);
    EXPECT_EQ(d.mismatching_elements, 1);
    EXPECT_EQ(count_of(d, ec.expected), 1) << classes_text(d);
    ASSERT_EQ(d.first.size(), 1u);
    EXPECT_EQ(d.first[0].index, 2);
    EXPECT_EQ(d.first[0].coords, std::vector<std::int64_t>{2});
    EXPECT_EQ(d.first[0].golden_bits, ec.g);
    EXPECT_EQ(d.first[0].candidate_bits, ec.c);
  }
}

TEST(CheckElementClasses, AdjacentCodesOffTheMidpointAreNoTie) {
  // The cast input 1.1 is not the midpoint 1.0625 of 1.0 and 1.125: rounding, but no tie.
  const octet::CastSpec rne{}, ru{.rounding = octet::Rounding::TowardPositive};
  const std::uint32_t g = octet::encode(octet::e4m3fn_format, rne, 1.01f), c = octet::encode(octet::e4m3fn_format, ru, 1.01f);
  const DatasetReport d = one_dataset(four("float8_e4m3fn", g), four("float8_e4m3fn", c), "cast",
                                      make_tensor("float32", std::vector<float>{0, 0, 1.01f, 0}));
  EXPECT_EQ(count_of(d, MismatchClass::rounding_adjacent), 1) << classes_text(d);
  EXPECT_EQ(count_of(d, MismatchClass::tie_rounding), 0);
}

TEST(CheckElementClasses, EveryE4m3fnTieUnderRneAgainstRna) {
  // x: every midpoint between neighbouring finite e4m3fn values, both signs (0 and the smallest
  // subnormal included). RNE and RNA differ exactly where the tie goes to an even code below the
  // larger one: each such element must be a tie_rounding, nothing else.
  using namespace octet;
  std::vector<float> x;
  for (std::uint32_t code = 0; code < e4m3fn_format.max_finite_code(); ++code)
    for (const double sign : {1.0, -1.0})
      x.push_back(float(sign * (decode(e4m3fn_format, code) + decode(e4m3fn_format, code + 1)) / 2));
  const CastSpec rne{}, rna{.rounding = Rounding::NearestAway};
  const std::vector<std::uint8_t> g = codes8(e4m3fn_format, x, rne), c = codes8(e4m3fn_format, x, rna);
  std::int64_t differ = 0;
  for (std::size_t i = 0; i < g.size(); ++i) differ += g[i] != c[i];
  ASSERT_EQ(differ, 126);  // 63 of the 126 positive midpoints, both signs
  const std::int64_t n = std::int64_t(x.size());
  const DatasetReport d =
      one_dataset(e4m3({n}, g), e4m3({n}, c), "cast", make_tensor("float32", {n}, x));
  EXPECT_EQ(d.mismatching_elements, differ);
  EXPECT_EQ(d.classes, (std::vector<std::pair<MismatchClass, std::int64_t>>{{MismatchClass::tie_rounding, differ}}))
      << classes_text(d);
  // Without the cast input the same codes are only adjacent.
  const DatasetReport a = one_dataset(e4m3({n}, g), e4m3({n}, c));
  EXPECT_EQ(count_of(a, MismatchClass::rounding_adjacent) + count_of(a, MismatchClass::subnormal_flush), differ)
      << classes_text(a);
}

TEST(CheckElementClasses, DecodedValuesAndIntegers) {
  const DatasetReport d = one_dataset(four("float8_e4m3fn", 0x38), four("float8_e4m3fn", 0x39));
  ASSERT_EQ(d.first.size(), 1u);
  EXPECT_EQ(d.first[0].golden_value, 1.0);
  EXPECT_EQ(d.first[0].candidate_value, 1.125);
  const DatasetReport i = one_dataset(four("int64", std::uint64_t(-5)), four("int64", 0));
  EXPECT_EQ(i.first.at(0).golden_bits, std::uint64_t(-5));
  EXPECT_EQ(i.first.at(0).golden_value, -5.0);
  EXPECT_EQ(i.first.at(0).candidate_value, 0);
}

// ---- whole-dataset explanations ----------------------------------------------------------------

TEST(CheckLayout, TransposedInTheGoldenShape) {
  const std::vector<std::uint8_t> g = distinct_codes(4 * 6);
  const DatasetReport d = one_dataset(e4m3({4, 6}, g), e4m3({4, 6}, transposed(g, 1, 4, 6)));
  EXPECT_FALSE(d.pass);
  ASSERT_FALSE(d.classes.empty());
  EXPECT_EQ(d.classes.front().first, MismatchClass::transposed_layout) << classes_text(d);
  EXPECT_EQ(d.detail.rfind("transposed_layout:", 0), 0u) << d.detail;
}

TEST(CheckLayout, TransposedShapeAndElements) {
  const std::vector<std::uint8_t> g = distinct_codes(4 * 6);
  const DatasetReport d = one_dataset(e4m3({4, 6}, g), e4m3({6, 4}, transposed(g, 1, 4, 6)));
  EXPECT_FALSE(d.pass);
  ASSERT_FALSE(d.classes.empty());
  EXPECT_EQ(d.classes.front().first, MismatchClass::transposed_layout) << classes_text(d);
  EXPECT_NE(d.detail.find("values agree"), std::string::npos) << d.detail;
}

TEST(CheckLayout, TransposedShapeOnly) {
  const std::vector<std::uint8_t> g = distinct_codes(4 * 6);
  const DatasetReport d = one_dataset(e4m3({4, 6}, g), e4m3({6, 4}, g));
  EXPECT_FALSE(d.pass);
  EXPECT_EQ(d.mismatching_elements, 0);
  ASSERT_FALSE(d.classes.empty());
  EXPECT_EQ(d.classes.front().first, MismatchClass::transposed_layout) << classes_text(d);
  EXPECT_NE(d.detail.find("only the shape differs"), std::string::npos) << d.detail;
}

TEST(CheckLayout, TransposedPerExpert) {
  const std::vector<std::uint8_t> g = distinct_codes(3 * 4 * 5);
  const DatasetReport d = one_dataset(e4m3({3, 4, 5}, g), e4m3({3, 5, 4}, transposed(g, 3, 4, 5)));
  ASSERT_FALSE(d.classes.empty());
  EXPECT_EQ(d.classes.front().first, MismatchClass::transposed_layout) << classes_text(d);
  EXPECT_NE(d.detail.find("(4, 5) matrix"), std::string::npos) << d.detail;
}

TEST(CheckLayout, OtherShapeFails) {
  const std::vector<std::uint8_t> g = distinct_codes(24);
  const DatasetReport d = one_dataset(e4m3({4, 6}, g), e4m3({3, 8}, g));
  EXPECT_FALSE(d.pass);
  EXPECT_NE(d.detail.find("shape (3, 8), golden (4, 6)"), std::string::npos) << d.detail;
  const DatasetReport n = one_dataset(e4m3({4, 6}, g), e4m3({5, 4}, distinct_codes(20)));
  EXPECT_FALSE(n.pass);
  EXPECT_EQ(n.detail, "shape (5, 4), golden (4, 6)");
}

TEST(CheckLayout, PermutedRows) {
  const std::vector<std::uint8_t> g = distinct_codes(5 * 8);
  std::vector<std::uint8_t> c = g;
  std::rotate(c.begin(), c.begin() + 2 * 8, c.begin() + 3 * 8);  // rows 2, 0, 1, 3, 4
  const DatasetReport d = one_dataset(e4m3({5, 8}, g), e4m3({5, 8}, c));
  ASSERT_FALSE(d.classes.empty());
  EXPECT_EQ(d.classes.front().first, MismatchClass::permuted_rows) << classes_text(d);
  EXPECT_NE(d.detail.find("3 of 5 rows out of place"), std::string::npos) << d.detail;
}

TEST(CheckLayout, PaddingRows) {
  std::vector<std::uint8_t> g = distinct_codes(4 * 8);
  g.resize(6 * 8, 0);  // rows 4 and 5: padding
  std::vector<std::uint8_t> c = g;
  c[5 * 8 + 3] = 0x38;  // the candidate wrote into a padding row
  c[5 * 8 + 7] = 0x41;
  const DatasetReport d = one_dataset(e4m3({6, 8}, g), e4m3({6, 8}, c));
  EXPECT_EQ(d.mismatching_elements, 2);
  ASSERT_FALSE(d.classes.empty());
  EXPECT_EQ(d.classes.front().first, MismatchClass::padding_rows) << classes_text(d);
  EXPECT_NE(d.detail.find("1 golden row(s) that are all byte 0x00"), std::string::npos) << d.detail;
  EXPECT_EQ(d.first.at(0).coords, (std::vector<std::int64_t>{5, 3}));
}

TEST(CheckLayout, WholeDatasetScaledByAPowerOfTwo) {
  // Every value doubled (no saturation: all |v| <= 8): a scale off by one binade.
  std::vector<float> v;
  for (int i = 0; i < 32; ++i) v.push_back(0.25f + 0.125f * float(i) * (i % 2 ? -1.0f : 1.0f));
  std::vector<float> doubled;
  for (const float x : v) doubled.push_back(2 * x);
  const DatasetReport d = one_dataset(e4m3({4, 8}, codes8(octet::e4m3fn_format, v)),
                                      e4m3({4, 8}, codes8(octet::e4m3fn_format, doubled)));
  EXPECT_EQ(d.mismatching_elements, 32);
  ASSERT_FALSE(d.classes.empty());
  EXPECT_EQ(d.classes.front(), std::make_pair(MismatchClass::scale_pow2, std::int64_t(32))) << classes_text(d);
  EXPECT_NE(d.detail.find("2^1 = 2"), std::string::npos) << d.detail;
}

// ---- GEMM outputs within a bound ---------------------------------------------------------------

Case gemm_case(const std::vector<float>& y, const std::vector<float>* bound) {
  Case c{"gemm", kernel_attrs("scaled_mm", "a", bound ? "y,y_bound" : "y"), {}};
  c.datasets.emplace_back("a", make_tensor("float32", {2, 3}, std::vector<float>(6, 1.0f)));
  c.datasets.emplace_back("y", make_tensor("float32", {2, 3}, y));
  if (bound) c.datasets.emplace_back("y_bound", make_tensor("float32", {2, 3}, *bound));
  return c;
}

TEST(CheckGemm, WithinAndBeyondTheBound) {
  const std::vector<float> y{1, 2, 3, NAN, 5, INFINITY}, bound(6, 0.01f);
  const Case golden = gemm_case(y, &bound);
  {
    Pair p;
    const CheckReport r = check_pair(p, {golden}, {gemm_case({1.005f, 1.995f, 3, NAN, 5.0099f, INFINITY}, nullptr)});
    ASSERT_EQ(r.cases.at(0).datasets.size(), 1u);  // y_bound is not compared
    EXPECT_TRUE(r.pass()) << format_text(r.cases.at(0));
  }
  {
    Pair p;
    const CheckReport r = check_pair(p, {golden}, {gemm_case({1, 2.05f, 3, NAN, 5, INFINITY}, nullptr)});
    const DatasetReport& d = r.cases.at(0).datasets.at(0);
    EXPECT_FALSE(d.pass);
    EXPECT_EQ(d.mismatching_elements, 1);
    EXPECT_EQ(count_of(d, MismatchClass::tolerance_exceeded), 1) << classes_text(d);
    EXPECT_NE(d.detail.find("worst at index 1 (0, 1)"), std::string::npos) << d.detail;
    EXPECT_NE(d.detail.find("|difference| 0.04999995231628418 > bound 0.009999999776482582"), std::string::npos)
        << d.detail;
  }
  {
    Pair p;  // NaN must meet NaN
    const CheckReport r = check_pair(p, {golden}, {gemm_case({1, 2, 3, 4, 5, INFINITY}, nullptr)});
    const DatasetReport& d = r.cases.at(0).datasets.at(0);
    EXPECT_FALSE(d.pass);
    EXPECT_EQ(d.first.at(0).index, 3);
    EXPECT_NE(d.detail.find("golden nan, candidate 4, NaN against a number"), std::string::npos) << d.detail;
  }
}

TEST(CheckGemm, NormwiseBound) {
  // Elementwise 0.01 each; ||c - g||_F <= 0.012: one element off by 0.009 passes, two do not.
  const std::vector<float> y{1, 2, 3, NAN, 5, INFINITY}, bound(6, 0.01f);
  Case golden = gemm_case(y, &bound);
  golden.attrs.strings["outputs"] = "y,y_bound,y_normwise_bound";
  golden.datasets.emplace_back("y_normwise_bound", make_tensor("float64", std::vector<double>{0.012}));
  {
    Pair p;
    const CheckReport r = check_pair(p, {golden}, {gemm_case({1.009f, 2, 3, NAN, 5, INFINITY}, nullptr)});
    ASSERT_EQ(r.cases.at(0).datasets.size(), 1u);  // neither bound is compared
    EXPECT_TRUE(r.pass()) << format_text(r.cases.at(0));
  }
  {
    Pair p;
    const CheckReport r = check_pair(p, {golden}, {gemm_case({1.009f, 2.009f, 3, NAN, 5, INFINITY}, nullptr)});
    const DatasetReport& d = r.cases.at(0).datasets.at(0);
    EXPECT_FALSE(d.pass);
    EXPECT_EQ(d.mismatching_elements, 0);
    ASSERT_FALSE(d.classes.empty());
    EXPECT_EQ(d.classes.front().first, MismatchClass::tolerance_exceeded) << classes_text(d);
    EXPECT_NE(d.detail.find("> normwise bound 0.012"), std::string::npos) << d.detail;
  }
}

// ---- expected errors, missing parts, bad files ----------------------------------------------------

Case misuse_case(const std::string& name) {
  CaseAttributes a = kernel_attrs("fp8_per_group_rowwise_scales", "x", "");
  a.strings["expected_error"] = "offs is not monotonic";
  return {name, a, {{"x", make_tensor("float32", {1, 4}, std::vector<float>{1, 2, 3, 4})}}};
}

TEST(CheckExpectedError, RejectedAcceptedAndSilent) {
  Case rejected{"bad", kernel_attrs("fp8_per_group_rowwise_scales", "x", ""), {}};
  rejected.attrs.strings["error"] = "offs must be non-decreasing";
  rejected.datasets = misuse_case("bad").datasets;
  Case accepted{"bad", kernel_attrs("fp8_per_group_rowwise_scales", "x", "q"), misuse_case("bad").datasets};
  accepted.datasets.emplace_back("q", e4m3({1, 4}, {0x38, 0x38, 0x38, 0x38}));
  Case silent{"bad", kernel_attrs("fp8_per_group_rowwise_scales", "x", ""), misuse_case("bad").datasets};
  {
    Pair p;
    const CheckReport r = check_pair(p, {misuse_case("bad")}, {rejected});
    EXPECT_TRUE(r.pass()) << format_text(r.cases.at(0));
  }
  {
    Pair p;
    const CheckReport r = check_pair(p, {misuse_case("bad")}, {misuse_case("bad")});  // octet run's own spelling
    EXPECT_TRUE(r.pass()) << format_text(r.cases.at(0));
  }
  {
    Pair p;
    const CheckReport r = check_pair(p, {misuse_case("bad")}, {accepted});
    EXPECT_FALSE(r.pass());
    EXPECT_NE(r.cases.at(0).detail.find("accepted invalid input"), std::string::npos) << r.cases.at(0).detail;
  }
  {
    Pair p;
    const CheckReport r = check_pair(p, {misuse_case("bad")}, {silent});
    EXPECT_FALSE(r.pass());
    EXPECT_NE(r.cases.at(0).detail.find("neither"), std::string::npos) << r.cases.at(0).detail;
  }
}

TEST(CheckExpectedError, InProcess) {
  const Case g = misuse_case("bad");
  EXPECT_TRUE(compare_case("bad", g.attrs, {}, {}, {}).pass);
  const Tensors outputs{{"q", e4m3({1, 4}, {0x38, 0x38, 0x38, 0x38})}};
  const CaseReport r = compare_case("bad", g.attrs, {}, {}, outputs);
  EXPECT_FALSE(r.pass);
  EXPECT_NE(r.detail.find("accepted invalid input"), std::string::npos) << r.detail;
}

TEST(CheckMissing, CaseDatasetAndDtype) {
  const Tensor q = e4m3({2, 2}, {0x38, 0x39, 0x3a, 0x3b});
  const Case golden1{"one", kernel_attrs("quantize", "", "q,s"), {{"q", q}, {"s", make_tensor("float32", std::vector<float>{1})}}};
  const Case golden2{"two", kernel_attrs("quantize", "", "q"), {{"q", q}}};
  const Case cand1{"one", kernel_attrs("quantize", "", "q"), {{"q", q}}};
  Pair p;
  const CheckReport r = check_pair(p, {golden1, golden2}, {cand1});
  ASSERT_EQ(r.cases.size(), 2u);
  EXPECT_FALSE(r.cases[0].pass);
  ASSERT_EQ(r.cases[0].datasets.size(), 2u);
  EXPECT_TRUE(r.cases[0].datasets[0].pass);
  EXPECT_EQ(r.cases[0].datasets[1].dataset, "s");
  EXPECT_EQ(r.cases[0].datasets[1].detail, "missing in the candidate");
  EXPECT_FALSE(r.cases[1].pass);
  EXPECT_EQ(r.cases[1].detail, "case missing in the candidate");

  const DatasetReport d = one_dataset(q, make_tensor("uint8", {2, 2}, std::vector<std::uint8_t>{0x38, 0x39, 0x3a, 0x3b}));
  EXPECT_FALSE(d.pass);
  EXPECT_EQ(d.detail, "dtype 'uint8', golden 'float8_e4m3fn'");
}

TEST(CheckMissing, OutputsFallBackToNonInputs) {
  // No `outputs` attribute: every dataset that `inputs` does not name is compared.
  CaseAttributes a;
  a.strings = {{"kernel", "quantize"}, {"inputs", "x"}};
  const Tensor x = make_tensor("float32", std::vector<float>{1, 2});
  const Case g{"c", a, {{"x", x}, {"q", e4m3({2}, {0x38, 0x40})}}};
  const Case c{"c", a, {{"x", make_tensor("float32", std::vector<float>{9, 9})}, {"q", e4m3({2}, {0x38, 0x40})}}};
  Pair p;
  const CheckReport r = check_pair(p, {g}, {c});
  ASSERT_EQ(r.cases.at(0).datasets.size(), 1u);
  EXPECT_EQ(r.cases[0].datasets[0].dataset, "q");
  EXPECT_TRUE(r.pass());
}

TEST(CheckFiles, MissingFileIsAGoldenError) {
  Pair p;
  write_file(p.golden, {{"c", kernel_attrs("quantize", "", "q"), {{"q", e4m3({1}, {0x38})}}}});
  EXPECT_THROW(check_files(p.golden, p.dir / "nope.h5"), GoldenError);
  EXPECT_THROW(check_files(p.dir / "nope.h5", p.golden), GoldenError);
}

TEST(CheckFiles, TextAndJsonName) {
  const DatasetReport d = one_dataset(four("float8_e4m3fn", 0x38), four("float8_e4m3fn", 0x39));
  CaseReport c{"c", "quantize", false, {d}, "1 of 1 datasets differ"};
  const std::string text = format_text(c);
  EXPECT_NE(text.find("FAIL c kernel=quantize"), std::string::npos) << text;
  EXPECT_NE(text.find("index 2 (2,): golden 0x38 (1), candidate 0x39 (1.125)"), std::string::npos) << text;
  const std::string json = to_json(CheckReport{"g.h5", "c.h5", {c}});
  EXPECT_NE(json.find("\"cases_failed\": 1"), std::string::npos) << json;
  EXPECT_NE(json.find("\"classes\": {\"rounding_adjacent\": 1}"), std::string::npos) << json;
  EXPECT_NE(json.find("\"golden\": \"0x38\", \"candidate\": \"0x39\", \"golden_value\": 1, \"candidate_value\": 1.125"),
            std::string::npos)
      << json;
}

// ---- the command line ---------------------------------------------------------------------------

#ifdef OCTET_CLI_EXE
int octet_exit_code(const std::string& args, const fs::path& out) {
  const std::string cmd = std::string(OCTET_CLI_EXE) + " " + args + " > '" + out.string() + "' 2>&1";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(CheckCli, ExitCodes) {
  Pair p;
  const fs::path same = p.dir / "same.h5", out = p.dir / "out.txt";
  write_file(p.golden, {{"c", kernel_attrs("quantize", "", "q"), {{"q", e4m3({2}, {0x38, 0x40})}}}});
  write_file(same, {{"c", kernel_attrs("quantize", "", "q"), {{"q", e4m3({2}, {0x38, 0x40})}}}});
  write_file(p.candidate, {{"c", kernel_attrs("quantize", "", "q"), {{"q", e4m3({2}, {0x38, 0x41})}}}});
  const std::string g = " --golden '" + p.golden.string() + "'";
  EXPECT_EQ(octet_exit_code("check" + g + " --candidate '" + same.string() + "'", out), 0) << slurp(out);
  EXPECT_NE(slurp(out).find("1 case: 1 passed, 0 failed"), std::string::npos) << slurp(out);
  EXPECT_EQ(octet_exit_code("check" + g + " --candidate '" + p.candidate.string() + "'", out), 1) << slurp(out);
  EXPECT_NE(slurp(out).find("rounding_adjacent=1"), std::string::npos) << slurp(out);
  EXPECT_EQ(octet_exit_code("check --json" + g + " --candidate '" + p.candidate.string() + "'", out), 1);
  EXPECT_NE(slurp(out).find("\"pass\": false"), std::string::npos) << slurp(out);
  EXPECT_EQ(octet_exit_code("check" + g + " --candidate '" + (p.dir / "nope.h5").string() + "'", out), 2) << slurp(out);
  EXPECT_EQ(octet_exit_code("check" + g + " --candidate '" + same.string() + "' --max-mismatches -1", out), 2)
      << slurp(out);
}
#endif

}  // namespace
