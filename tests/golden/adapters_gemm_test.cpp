// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// The GEMM adapters (golden/src/adapters/gemm.cpp): for every accumulation model and the dense,
// 2Dx3D and 2Dx2D operations, `y` equals the emulator's scaled_mm / scaled_grouped_mm called
// directly (bytes, shape, dtype); the exact model's output (an independent computation: one
// rounding of the exact sum) lies within every model's y_bound and y_normwise_bound; misuse is
// rejected with messages naming the problem; the default catalogue computes.
#include <gtest/gtest.h>

#include <bit>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "octet/format.hpp"
#include "octet/gemm.hpp"
#include "octet/golden/suite.hpp"
#include "octet/registry.hpp"
#include "octet/scale.hpp"

namespace octet::golden {
namespace {

constexpr std::string_view kModels[] = {"exact", "fp32_seq", "fp32_promote", "hopper_fast_accum"};

// One operand: random finite codes and stored scales of a recipe, row-major.
struct Operand {
  const Recipe* r = nullptr;
  std::vector<std::int64_t> shape, scale_shape;
  std::vector<std::uint8_t> codes;
  std::vector<std::uint32_t> words;
  std::vector<std::uint8_t> bytes;
  ScaleBlock block;

  bool byte_scales() const { return storage(*r) == ScaleStorage::E8m0 || storage(*r) == ScaleStorage::E4m3; }
  Tensor codes_tensor() const { return make_tensor(dtype_name(element_format(*r)), shape, codes); }
  Tensor scale_tensor() const {
    if (byte_scales())
      return make_tensor(dtype_name(storage(*r) == ScaleStorage::E8m0 ? FormatId::e8m0fnu : FormatId::e4m3fn),
                         scale_shape, bytes);
    std::vector<float> f;
    for (const std::uint32_t w : words) f.push_back(std::bit_cast<float>(w));
    return make_tensor("float32", scale_shape, f);
  }
  ScaleView scales(std::int64_t e = 0) const {
    const std::size_t n = scale_shape.size();
    const std::int64_t rows = scale_shape[n - 2], cols = scale_shape[n - 1];
    if (byte_scales()) return ScaleView::of(View2D<const std::uint8_t>::row_major(bytes.data() + e * rows * cols, rows, cols));
    return ScaleView::of(View2D<const std::uint32_t>::row_major(words.data() + e * rows * cols, rows, cols));
  }
  ScaledOperand op2d() const {
    return {r, View2D<const std::uint8_t>::row_major(codes.data(), shape[0], shape[1]), scales(), block, 1.0f};
  }
  ScaledOperand3D op3d() const {
    ScaledOperand3D o;
    o.recipe = r;
    o.data = View3D<const std::uint8_t>::row_major(codes.data(), shape[0], shape[1], shape[2]);
    o.scales.first = scales();
    o.scales.experts = shape[0];
    o.scales.expert_stride = scale_shape[1] * scale_shape[2];
    o.block = block;
    return o;
  }
};

Operand random_operand(const Recipe& r, std::vector<std::int64_t> shape, std::vector<std::int64_t> scale_shape,
                       ScaleBlock block, std::mt19937_64& rng) {
  Operand o{&r, std::move(shape), std::move(scale_shape), {}, {}, {}, block};
  const Format& f = format_of(element_format(r));
  std::int64_t n = 1, ns = 1;
  for (const std::int64_t d : o.shape) n *= d;
  for (const std::int64_t d : o.scale_shape) ns *= d;
  while (std::int64_t(o.codes.size()) < n) {
    const auto c = std::uint8_t(rng() % f.code_count());
    if (std::isfinite(decode(f, c))) o.codes.push_back(c);
  }
  for (std::int64_t i = 0; i < ns; ++i) {
    if (storage(r) == ScaleStorage::E8m0) o.bytes.push_back(std::uint8_t(120 + rng() % 12));
    else if (storage(r) == ScaleStorage::E4m3) o.bytes.push_back(std::uint8_t(0x20 + rng() % 0x40));
    else o.words.push_back(scale_from_amax(r, float(1 + rng() % 1000) * 0.25f).stored);
  }
  return o;
}

struct GemmSetup {
  const char* recipe;
  ScaleBlock a, b;
};
const GemmSetup kSetups[] = {
    {"te_current", ScaleBlock::tensorwise(), ScaleBlock::tensorwise()},
    {"torchao_fp8_rowwise", ScaleBlock::rowwise(), ScaleBlock::rowwise()},
    {"torchao_blockwise", ScaleBlock::block_1x128(), ScaleBlock::block_128x128()},
    {"torchao_mx_rceil", ScaleBlock::mx_1x32(), ScaleBlock::mx_1x32()},
};

std::int64_t nblocks(std::int64_t extent, std::int64_t block) { return block == 0 ? 1 : (extent + block - 1) / block; }

KernelCall gemm_call(std::string_view model, const Recipe& r, const ScaleBlock& a, const ScaleBlock& b, std::string op) {
  KernelCall c;
  c.kernel = std::string(model);
  c.attrs.strings["recipe"] = std::string(r.name);
  c.attrs.strings["op"] = std::move(op);
  c.attrs.ints["block_a_outer"] = a.outer;
  c.attrs.ints["block_a_k"] = a.k;
  c.attrs.ints["block_b_outer"] = b.outer;
  c.attrs.ints["block_b_k"] = b.k;
  return c;
}

// y as doubles, whatever its dtype.
std::vector<double> values(const Tensor& y) {
  std::vector<double> v;
  if (y.dtype == "bfloat16")
    for (const std::uint16_t b : values_of<std::uint16_t>(y)) v.push_back(bf16_to_float(b));
  else if (y.dtype == "float32")
    for (const float f : values_of<float>(y)) v.push_back(f);
  else
    v = values_of<double>(y);
  return v;
}

void expect_same_output(const Tensor& y, const GemmOutput& want, const std::vector<std::int64_t>& shape) {
  EXPECT_EQ(y.shape, shape);
  EXPECT_EQ(y.layout, "row_major");
  std::vector<std::uint8_t> bytes;
  if (want.dtype == OutDtype::bf16) {
    ASSERT_EQ(y.dtype, "bfloat16");
    const std::vector<std::uint16_t> b = want.bf16_bits();
    bytes.resize(b.size() * 2);
    std::memcpy(bytes.data(), b.data(), bytes.size());
  } else {
    ASSERT_EQ(y.dtype, "float32");
    bytes.resize(want.values.size() * 4);
    std::memcpy(bytes.data(), want.values.data(), bytes.size());
  }
  ASSERT_EQ(y.bytes.size(), bytes.size());
  const std::size_t es = want.dtype == OutDtype::bf16 ? 2 : 4;
  int shown = 0;
  for (std::size_t i = 0; i < bytes.size() && shown < 8; i += es) {
    if (std::memcmp(&y.bytes[i], &bytes[i], es) == 0) continue;
    std::uint32_t g = 0, w = 0;
    std::memcpy(&g, &y.bytes[i], es);
    std::memcpy(&w, &bytes[i], es);
    const std::int64_t e = std::int64_t(i / es), cols = shape.back(), rows = shape[shape.size() - 2];
    ADD_FAILURE() << "y element " << e << " (" << (e / cols) / rows << ", " << (e / cols) % rows << ", " << e % cols
                  << "): got 0x" << std::hex << g << ", want 0x" << w << std::dec;
    ++shown;
  }
}

// The exact model's output in the same dtype must lie within y_bound (elementwise) and within
// y_normwise_bound (Frobenius) of y.
void expect_exact_within_bounds(const Tensors& out, const GemmOutput& exact_rounded) {
  const std::vector<double> y = values(out.at("y"));
  const std::vector<float> bound = values_of<float>(out.at("y_bound"));
  EXPECT_EQ(out.at("y_bound").shape, out.at("y").shape);
  ASSERT_EQ(bound.size(), y.size());
  double diff_sq = 0.0;
  int shown = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    const double d = std::fabs(y[i] - exact_rounded.at(std::int64_t(i)));
    diff_sq += d * d;
    EXPECT_TRUE(std::isfinite(bound[i]) && bound[i] >= 0.0f) << i;
    if (d > double(bound[i]) && shown++ < 8)
      ADD_FAILURE() << "element " << i << ": |y - exact| = " << d << " > y_bound " << bound[i] << " (y " << y[i]
                    << ", exact " << exact_rounded.at(std::int64_t(i)) << ")";
  }
  const std::vector<double> nb = values_of<double>(out.at("y_normwise_bound"));
  ASSERT_EQ(nb.size(), 1u);
  EXPECT_LE(std::sqrt(diff_sq), nb[0]);
}

class GemmAdapters : public ::testing::TestWithParam<std::string_view> {};

TEST_P(GemmAdapters, DenseMatchesEmulator) {
  std::mt19937_64 rng(1);
  for (const GemmSetup& s : kSetups) {
    for (const OutDtype out : {OutDtype::bf16, OutDtype::fp32}) {
      SCOPED_TRACE(std::string(s.recipe) + (out == OutDtype::bf16 ? " bf16" : " fp32"));
      const Recipe& r = recipe(s.recipe);
      const std::int64_t m = 5, k = 256, n = 9;
      const Operand a = random_operand(r, {m, k}, {nblocks(m, s.a.outer), nblocks(k, s.a.k)}, s.a, rng);
      const Operand b = random_operand(r, {k, n}, {nblocks(k, s.b.k), nblocks(n, s.b.outer)}, s.b, rng);
      KernelCall c = gemm_call(GetParam(), r, s.a, s.b, "scaled_mm");
      c.attrs.strings["out_dtype"] = out == OutDtype::bf16 ? "bfloat16" : "float32";
      c.inputs = {{"a", a.codes_tensor()}, {"scale_a", a.scale_tensor()}, {"b", b.codes_tensor()}, {"scale_b", b.scale_tensor()}};
      const Tensors got = run_kernel(c);
      GemmConfig cfg;
      cfg.model = parse_gemm_model(GetParam());
      cfg.out = out;
      expect_same_output(got.at("y"), scaled_mm(a.op2d(), b.op2d(), cfg), {m, n});
      GemmConfig ex = cfg;
      ex.model = GemmModel::exact;
      expect_exact_within_bounds(got, scaled_mm(a.op2d(), b.op2d(), ex));
    }
  }
}

TEST_P(GemmAdapters, Grouped2d3dMatchesEmulator) {
  std::mt19937_64 rng(2);
  for (const GemmSetup& s : kSetups) {
    SCOPED_TRACE(s.recipe);
    const Recipe& r = recipe(s.recipe);
    const std::int64_t m = 12, k = 256, n = 8, e = 3;
    const std::vector<std::int32_t> offs = {4, 4, 11};
    const Operand a = random_operand(r, {m, k}, {nblocks(m, s.a.outer), nblocks(k, s.a.k)}, s.a, rng);
    const Operand b = random_operand(r, {e, k, n}, {e, nblocks(k, s.b.k), nblocks(n, s.b.outer)}, s.b, rng);
    KernelCall c = gemm_call(GetParam(), r, s.a, s.b, "scaled_grouped_mm_2d3d");
    c.inputs = {{"a", a.codes_tensor()}, {"scale_a", a.scale_tensor()}, {"b", b.codes_tensor()},
                {"scale_b", b.scale_tensor()}, {"offs", make_tensor("int32", offs)}};
    const Tensors got = run_kernel(c);
    GemmConfig cfg;
    cfg.model = parse_gemm_model(GetParam());
    expect_same_output(got.at("y"), scaled_grouped_mm_2d3d(a.op2d(), b.op3d(), offs, cfg), {m, n});
    GemmConfig ex = cfg;
    ex.model = GemmModel::exact;
    expect_exact_within_bounds(got, scaled_grouped_mm_2d3d(a.op2d(), b.op3d(), offs, ex));
    // int64 offs and the op inferred from b's rank give the same bytes.
    c.attrs.strings.erase("op");
    c.inputs["offs"] = make_tensor("int64", std::vector<std::int64_t>(offs.begin(), offs.end()));
    EXPECT_EQ(run_kernel(c).at("y"), got.at("y"));
  }
}

TEST_P(GemmAdapters, Grouped2d2dMatchesEmulator) {
  std::mt19937_64 rng(3);
  for (const GemmSetup& s : kSetups) {
    SCOPED_TRACE(s.recipe);
    const Recipe& r = recipe(s.recipe);
    const std::int64_t m = 6, k = 512, n = 7;
    const std::vector<std::int32_t> offs = {0, 128, 384, 512};
    const std::int64_t e = std::int64_t(offs.size());
    const Operand a = random_operand(r, {m, k}, {nblocks(m, s.a.outer), s.a.k == 0 ? e : k / s.a.k}, s.a, rng);
    const Operand b = random_operand(r, {k, n}, {s.b.k == 0 ? e : k / s.b.k, nblocks(n, s.b.outer)}, s.b, rng);
    KernelCall c = gemm_call(GetParam(), r, s.a, s.b, "scaled_grouped_mm_2d2d");
    c.attrs.strings["out_dtype"] = "float32";
    c.inputs = {{"a", a.codes_tensor()}, {"scale_a", a.scale_tensor()}, {"b", b.codes_tensor()},
                {"scale_b", b.scale_tensor()}, {"offs", make_tensor("int32", offs)}};
    const Tensors got = run_kernel(c);
    GemmConfig cfg;
    cfg.model = parse_gemm_model(GetParam());
    cfg.out = OutDtype::fp32;
    expect_same_output(got.at("y"), scaled_grouped_mm_2d2d(a.op2d(), b.op2d(), offs, cfg), {e, m, n});
    GemmConfig ex = cfg;
    ex.model = GemmModel::exact;
    expect_exact_within_bounds(got, scaled_grouped_mm_2d2d(a.op2d(), b.op2d(), offs, ex));
  }
}

INSTANTIATE_TEST_SUITE_P(Models, GemmAdapters, ::testing::ValuesIn(kModels),
                         [](const auto& info) { return std::string(info.param); });

TEST(GemmAdaptersMisuse, Rejected) {
  std::mt19937_64 rng(4);
  const Recipe& r = recipe("torchao_fp8_rowwise");
  const ScaleBlock rw = ScaleBlock::rowwise();
  const Operand a = random_operand(r, {8, 128}, {8, 1}, rw, rng);
  const Operand b = random_operand(r, {2, 128, 4}, {2, 1, 4}, rw, rng);
  const auto base = [&] {
    KernelCall c = gemm_call("fp32_seq", r, rw, rw, "scaled_grouped_mm_2d3d");
    c.inputs = {{"a", a.codes_tensor()}, {"scale_a", a.scale_tensor()}, {"b", b.codes_tensor()},
                {"scale_b", b.scale_tensor()}, {"offs", make_tensor("int32", std::vector<std::int32_t>{4, 8})}};
    return c;
  };
  const auto expect_error = [](const KernelCall& c, const std::string& needle) {
    try {
      run_kernel(c);
      ADD_FAILURE() << "accepted; expected an error containing '" << needle << "'";
    } catch (const KernelInputError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  ASSERT_NO_THROW(run_kernel(base()));
  KernelCall c = base();
  c.inputs["offs"] = make_tensor("int32", std::vector<std::int32_t>{6, 2});
  expect_error(c, "offs is not monotonic");
  c.inputs["offs"] = make_tensor("int32", std::vector<std::int32_t>{6, 9});
  expect_error(c, "beyond the grouped dimension");
  c.inputs["offs"] = make_tensor("int32", std::vector<std::int32_t>{8});
  expect_error(c, "len(offs)");
  c = base();
  c.inputs["a"] = make_tensor("bfloat16", {8, 128}, std::vector<std::uint16_t>(1024));
  expect_error(c, "input 'a': dtype 'bfloat16', expected float8_e4m3fn");
  c = base();
  c.inputs["scale_a"] = make_tensor("float8_e8m0fnu", {8, 1}, std::vector<std::uint8_t>(8, 127));
  expect_error(c, "input 'scale_a': dtype 'float8_e8m0fnu'");
  c = base();
  c.inputs["scale_a"] = make_tensor("float32", {1, 1}, std::vector<float>{1.0f});
  expect_error(c, "A scales: expected shape (8, 1)");
  c = base();
  c.attrs.strings["op"] = "scaled_mm";
  expect_error(c, "input 'b': rank 3");
  c = base();
  c.attrs.strings["op"] = "nope";
  expect_error(c, "attribute 'op' = 'nope'");
  c = base();
  c.attrs.strings["out_dtype"] = "float64";
  expect_error(c, "attribute 'out_dtype' = 'float64'");
  c = base();
  c.inputs.erase("scale_b");
  expect_error(c, "missing input dataset 'scale_b'");
  c = base();
  c.kernel = "exact";
  c.attrs.strings["out_dtype"] = "float64";
  EXPECT_EQ(run_kernel(c).at("y").dtype, "float64");
}

TEST(GemmAdaptersRegistry, EveryModelHasAnAdapter) {
  int models = 0;
  for (const RegistryEntry& e : registry()) {
    if (e.kind != EntryKind::gemm_model) continue;
    ++models;
    EXPECT_NE(find_adapter(e.name), nullptr) << e.name;
  }
  EXPECT_EQ(models, 4);
}

TEST(GemmAdaptersCatalogue, DefaultCasesCompute) {
  const std::vector<CaseSpec> cases = gemm_cases(Suite::default_suite);
  std::set<std::string> names, kernels;
  int errors = 0;
  for (const CaseSpec& c : cases) {
    EXPECT_TRUE(names.insert(c.name).second) << "duplicate case " << c.name;
    for (const char ch : c.name) EXPECT_TRUE(std::isalnum(std::uint8_t(ch)) || ch == '_' || ch == '.' || ch == '-') << c.name;
    const ComputedCase done = compute_case(c, Provenance{"test", "test"});  // throws on a wrong expectation
    EXPECT_EQ(done.attrs.strings.count("expected_error"), c.expect_error ? 1u : 0u) << c.name;
    errors += c.expect_error;
    if (!c.expect_error) kernels.insert(c.call.kernel);
  }
  EXPECT_EQ(kernels, (std::set<std::string>{"exact", "fp32_seq", "fp32_promote", "hopper_fast_accum"}));
  EXPECT_GE(errors, 8);
}

}  // namespace
}  // namespace octet::golden
