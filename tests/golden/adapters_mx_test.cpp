// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// adapters_mx_test.cpp — the MX family's golden adapters (golden/src/adapters/mx.cpp) and catalogue
// (golden/src/cases/mx.cpp): through the runner, every kernel returns the bytes, shapes, dtypes
// and layouts of the emulator kernel called directly (and the swizzles the closed-form blocked
// offset of mx_swizzle.hpp); misuse is a KernelInputError naming the problem; every default case
// computes, with an expected error exactly where marked.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "octet/format.hpp"
#include "octet/golden/inputs.hpp"
#include "expect_tensor.hpp"
#include "octet/golden/runner.hpp"
#include "octet/golden/suite.hpp"
#include "octet/kernels/mx_quantize.hpp"
#include "octet/kernels/mx_swizzle.hpp"

namespace octet::golden {
namespace {

using testing_util::expect_tensor;

KernelCall call(const std::string& kernel, Tensors inputs, const std::string& recipe = "") {
  KernelCall c;
  c.kernel = kernel;
  c.inputs = std::move(inputs);
  if (!recipe.empty()) c.attrs.strings["recipe"] = recipe;
  return c;
}

// The expected tensor of a (rows, cols) byte view in logical order, with its strides.
Tensor expected_2d(std::string_view dtype, View2D<const std::uint8_t> v, const std::string& layout) {
  std::vector<std::uint8_t> b(std::size_t(v.rows * v.cols));
  for (std::int64_t r = 0; r < v.rows; ++r)
    for (std::int64_t c = 0; c < v.cols; ++c) b[std::size_t(r * v.cols + c)] = v(r, c);
  return make_tensor(dtype, {v.rows, v.cols}, b, layout, {v.row_stride, v.col_stride});
}

Tensor expected_bytes(std::string_view dtype, std::vector<std::int64_t> shape, const std::vector<std::uint8_t>& b,
                      const std::string& layout) {
  std::vector<std::int64_t> strides(shape.size(), 1);
  for (std::size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
  return make_tensor(dtype, std::move(shape), b, layout, std::move(strides));
}

std::vector<std::uint8_t> random_bytes(std::uint64_t seed, std::int64_t n) {
  std::vector<std::uint8_t> b(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) b[std::size_t(i)] = std::uint8_t(uniform_int(seed, std::uint64_t(i), 256));
  return b;
}

constexpr std::array<std::string_view, 4> kRecipes{"torchao_mx_rceil", "torchao_mx_floor_v018", "te_mxfp8", "ocp_mx"};
const InputSpec kSpecials{Distribution::specials, 17};

TEST(MxAdapters, Dim0AndDim1MatchTheEmulator) {
  for (const std::string_view recipe : kRecipes)
    for (const std::string_view dtype : {"bfloat16", "float32"}) {
      const Recipe& r = octet::recipe(recipe);
      const std::string elem(dtype_name(element_format(r)));
      const Tensor x = generate_tensor(kSpecials, {64, 96}, dtype);
      MxOutput2D d0, d1;
      if (dtype == "bfloat16") {
        const std::vector<std::uint16_t> v = values_of<std::uint16_t>(x);
        d0 = mx_quantize_dim0(r, View2D<const std::uint16_t>::row_major(v.data(), 64, 96));
        d1 = mx_quantize_dim1(r, View2D<const std::uint16_t>::row_major(v.data(), 64, 96));
      } else {
        const std::vector<float> v = values_of<float>(x);
        d0 = mx_quantize_dim0(r, View2D<const float>::row_major(v.data(), 64, 96));
        d1 = mx_quantize_dim1(r, View2D<const float>::row_major(v.data(), 64, 96));
      }
      const std::string what = std::string(recipe) + " " + std::string(dtype);
      const Tensors o0 = run_kernel(call("mx_quantize_dim0", {{"x", x}}, std::string(recipe)));
      expect_tensor(o0.at("q"), expected_2d(elem, d0.data_view(), "row_major"), "dim0 q " + what);
      expect_tensor(o0.at("scale"), expected_2d("float8_e8m0fnu", d0.scale_view(), "row_major"), "dim0 scale " + what);
      const Tensors o1 = run_kernel(call("mx_quantize_dim1", {{"x", x}}, std::string(recipe)));
      expect_tensor(o1.at("q"), expected_2d(elem, d1.data_view(), "col_major"), "dim1 q " + what);
      EXPECT_EQ(o1.at("q").strides, (std::vector<std::int64_t>{1, 64}));
      expect_tensor(o1.at("scale"), expected_2d("float8_e8m0fnu", d1.scale_view(), "row_major"), "dim1 scale " + what);
    }
}

TEST(MxAdapters, Quantize2dBothDirectionsAndEach) {
  const Recipe& r = octet::recipe("te_mxfp8");
  const Tensor x = generate_tensor(kSpecials, {64, 96}, "bfloat16");
  const std::vector<std::uint16_t> v = values_of<std::uint16_t>(x);
  const MxQuantized2D q = mx_quantize_2d(r, View2D<const std::uint16_t>::row_major(v.data(), 64, 96), true, true);
  const Tensors both = run_kernel(call("mx_quantize_2d", {{"x", x}}, "te_mxfp8"));
  ASSERT_EQ(both.size(), 4u);
  expect_tensor(both.at("q_rowwise"), expected_2d("float8_e4m3fn", q.rowwise->data_view(), "row_major"), "q_rowwise");
  expect_tensor(both.at("scale_rowwise"), expected_2d("float8_e8m0fnu", q.rowwise->scale_view(), "row_major"),
                "scale_rowwise");
  expect_tensor(both.at("q_colwise"), expected_2d("float8_e4m3fn", q.colwise->data_view(), "col_major"), "q_colwise");
  expect_tensor(both.at("scale_colwise"), expected_2d("float8_e8m0fnu", q.colwise->scale_view(), "col_major"),
                "scale_colwise");
  EXPECT_EQ(both.at("scale_colwise").strides, (std::vector<std::int64_t>{1, 96}));

  KernelCall rows_only = call("mx_quantize_2d", {{"x", x}}, "te_mxfp8");
  rows_only.attrs.ints["colwise"] = 0;
  const Tensors r_only = run_kernel(rows_only);
  EXPECT_EQ(r_only.size(), 2u);
  EXPECT_EQ(r_only.count("q_rowwise"), 1u);
  KernelCall cols_only = call("mx_quantize_2d", {{"x", x}}, "te_mxfp8");
  cols_only.attrs.ints["rowwise"] = 0;
  const Tensors c_only = run_kernel(cols_only);
  EXPECT_EQ(c_only.size(), 2u);
  expect_tensor(c_only.at("q_colwise"), both.at("q_colwise"), "colwise alone");
}

TEST(MxAdapters, Quantize3dAndBlockedScales) {
  const Recipe& r = octet::recipe("torchao_mx_rceil");
  const Tensor x = generate_tensor(InputSpec{Distribution::log_uniform, 3}, {2, 64, 96}, "bfloat16");
  const std::vector<std::uint16_t> v = values_of<std::uint16_t>(x);
  const auto view = View3D<const std::uint16_t>::row_major(v.data(), 2, 64, 96);
  for (const auto& [block_name, block] : {std::pair{"32x1", MxBlock3D::Block32x1}, std::pair{"32x32", MxBlock3D::Block32x32}}) {
    const MxOutput3D q = mx_quantize_3d(r, view, block);
    KernelCall c = call("mx_quantize_3d", {{"x", x}}, "torchao_mx_rceil");
    c.attrs.strings["block"] = block_name;
    const Tensors o = run_kernel(c);
    std::vector<std::uint8_t> data(q.data.size()), scale(q.scale.size());
    const auto dv = q.data_view();
    for (std::int64_t e = 0; e < 2; ++e)
      for (std::int64_t n = 0; n < 64; ++n)
        for (std::int64_t k = 0; k < 96; ++k) data[std::size_t((e * 64 + n) * 96 + k)] = dv(e, n, k);
    expect_tensor(o.at("q"), make_tensor("float8_e4m3fn", {2, 64, 96}, data, "expert_col_major", {64 * 96, 1, 64}),
                  std::string("3d q ") + block_name);
    expect_tensor(o.at("scale"),
                  expected_bytes("float8_e8m0fnu", {2, q.scale_rows, q.scale_cols}, q.scale, "row_major"),
                  std::string("3d scale ") + block_name);

    KernelCall b = call("mx_blocked_scales", {{"x", x}}, "torchao_mx_rceil");
    b.attrs.strings["block"] = block_name;
    const Tensors ob = run_kernel(b);
    const std::vector<std::uint8_t> blocked = mx_blocked_scales(q);
    expect_tensor(ob.at("scale_blocked"),
                  expected_bytes("float8_e8m0fnu", {2, std::int64_t(blocked.size()) / 2}, blocked, "blocked_128x4"),
                  std::string("3d blocked ") + block_name);
    expect_tensor(ob.at("q"), o.at("q"), std::string("blocked q ") + block_name);
  }
  // 2D: 1x32 (dim0 scales (M, K/32)) and 32x1 (dim1 scales (K, M/32)).
  const Tensor x2 = generate_tensor(InputSpec{Distribution::log_uniform, 4}, {160, 96}, "float32");
  const std::vector<float> v2 = values_of<float>(x2);
  const auto view2 = View2D<const float>::row_major(v2.data(), 160, 96);
  for (const std::string block : {"1x32", "32x1"}) {
    const MxOutput2D q = block == "1x32" ? mx_quantize_dim0(r, view2) : mx_quantize_dim1(r, view2);
    KernelCall b = call("mx_blocked_scales", {{"x", x2}}, "torchao_mx_rceil");
    b.attrs.strings["block"] = block;
    const Tensors ob = run_kernel(b);
    const std::vector<std::uint8_t> blocked = mx_blocked_scales(q);
    expect_tensor(ob.at("scale_blocked"),
                  expected_bytes("float8_e8m0fnu", {std::int64_t(blocked.size())}, blocked, "blocked_128x4"),
                  "2d blocked " + block);
    expect_tensor(ob.at("q"), expected_2d("float8_e4m3fn", q.data_view(), block == "1x32" ? "row_major" : "col_major"),
                  "2d blocked q " + block);
  }
}

TEST(MxAdapters, DequantizeMatchesTheEmulator) {
  for (const std::string_view recipe : kRecipes)
    for (const std::string out : {"bfloat16", "float32"}) {
      const Recipe& r = octet::recipe(recipe);
      const std::vector<std::uint8_t> q = random_bytes(1, 8 * 64), s = random_bytes(2, 8 * 2);
      KernelCall c = call("mx_dequantize_dim0",
                          {{"q", make_tensor("float8_e4m3fn", {8, 64}, q)}, {"scale", make_tensor("float8_e8m0fnu", {8, 2}, s)}},
                          std::string(recipe));
      c.attrs.strings["out_dtype"] = out;
      const Tensors o = run_kernel(c);
      const auto qv = View2D<const std::uint8_t>::row_major(q.data(), 8, 64);
      const auto sv = View2D<const std::uint8_t>::row_major(s.data(), 8, 2);
      const Tensor want = out == "float32"
                              ? make_tensor("float32", {8, 64}, mx_dequantize_dim0_fp32(r, qv, sv), "row_major", {64, 1})
                              : make_tensor("bfloat16", {8, 64}, mx_dequantize_dim0_bf16(r, qv, sv), "row_major", {64, 1});
      expect_tensor(o.at("y"), want, "dequant " + std::string(recipe) + " " + out);
    }
}

TEST(MxAdapters, SwizzlesMatchTheClosedFormAndTheEmulator) {
  for (const auto& [H, W] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {130, 5}, {256, 12}, {0, 4}}) {
    const std::vector<std::uint8_t> s = random_bytes(std::uint64_t(H * 31 + W), H * W);
    const Tensors o = run_kernel(call("to_blocked", {{"scale", make_tensor("float8_e8m0fnu", {H, W}, s)}}));
    // A second implementation: every byte through blocked_offset, padding 0.
    const std::int64_t hp = blocked_rows(H), wp = blocked_cols(W);
    std::vector<std::uint8_t> want(std::size_t(hp * wp), 0);
    for (std::int64_t r = 0; r < H; ++r)
      for (std::int64_t c = 0; c < W; ++c) want[std::size_t(blocked_offset(r, c, wp / 4))] = s[std::size_t(r * W + c)];
    expect_tensor(o.at("scale_blocked"), expected_bytes("float8_e8m0fnu", {hp * wp}, want, "blocked_128x4"),
                  "to_blocked " + std::to_string(H) + "x" + std::to_string(W));
    KernelCall back = call("from_blocked", {{"scale_blocked", o.at("scale_blocked")}});
    back.attrs.ints["rows"] = H;
    back.attrs.ints["cols"] = W;
    expect_tensor(run_kernel(back).at("scale"), expected_bytes("float8_e8m0fnu", {H, W}, s, "row_major"), "from_blocked");
  }
  // M groups (int32 offs, empty groups, rows past the last end) and K groups (token offs / 32).
  const std::vector<std::uint8_t> s = random_bytes(9, 300 * 7);
  const auto sv = View2D<const std::uint8_t>::row_major(s.data(), 300, 7);
  const std::vector<std::int32_t> m_offs{0, 1, 1, 130, 299};
  const Tensors om = run_kernel(call("to_blocked_m_groups", {{"scale", make_tensor("float8_e8m0fnu", {300, 7}, s)},
                                                             {"offs", make_tensor("int32", m_offs)}}));
  const BlockedScaleGroups m = to_blocked_m_groups(sv, std::span<const std::int32_t>(m_offs));
  expect_tensor(om.at("scale_blocked"), expected_bytes("float8_e8m0fnu", {m.rows, m.cols}, m.bytes, "blocked_128x4_m_groups"),
                "m_groups");
  expect_tensor(om.at("group_starts"), make_tensor("int64", {6}, m.group_starts, "row_major", {1}), "m_groups starts");

  const std::vector<std::uint8_t> sk = random_bytes(10, 130 * 20);
  const std::vector<std::int64_t> k_offs{0, 32, 32, 320, 640};
  const Tensors ok = run_kernel(call("to_blocked_k_groups", {{"scale", make_tensor("float8_e8m0fnu", {130, 20}, sk)},
                                                             {"offs", make_tensor("int64", k_offs)}}));
  const std::vector<std::int64_t> scale_offs{0, 1, 1, 10, 20};
  const BlockedScaleGroups k =
      to_blocked_k_groups(View2D<const std::uint8_t>::row_major(sk.data(), 130, 20), std::span<const std::int64_t>(scale_offs));
  expect_tensor(ok.at("scale_blocked"), expected_bytes("float8_e8m0fnu", {k.rows, k.cols}, k.bytes, "blocked_128x4_k_groups"),
                "k_groups");
  expect_tensor(ok.at("group_starts"), make_tensor("int64", {6}, k.group_starts, "row_major", {1}), "k_groups starts");

  const std::vector<std::uint8_t> s3 = random_bytes(11, 2 * 130 * 5);
  const Tensors o3 = run_kernel(call("to_blocked_per_group_3d", {{"scale", make_tensor("float8_e8m0fnu", {2, 130, 5}, s3)}}));
  const std::vector<std::uint8_t> b3 = to_blocked_per_group_3d(View3D<const std::uint8_t>::row_major(s3.data(), 2, 130, 5));
  expect_tensor(o3.at("scale_blocked"), expected_bytes("float8_e8m0fnu", {2, 256 * 8}, b3, "blocked_128x4"), "per_group_3d");
}

// A misuse call must throw KernelInputError whose message contains `needle`.
void expect_rejected(const KernelCall& c, const std::string& needle) {
  try {
    run_kernel(c);
    ADD_FAILURE() << c.kernel << ": accepted, expected an error containing '" << needle << "'";
  } catch (const KernelInputError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << c.kernel << ": '" << e.what() << "' lacks '" << needle << "'";
  }
}

TEST(MxAdapters, MisuseIsRejectedWithTheProblemNamed) {
  const auto x = [](std::vector<std::int64_t> shape) { return generate_tensor(InputSpec{}, std::move(shape), "bfloat16"); };
  expect_rejected(call("mx_quantize_dim0", {{"x", x({4, 48})}}), "not a multiple of the MX block size");
  expect_rejected(call("mx_quantize_dim0", {{"x", x({2, 4, 32})}}), "rank 3");
  expect_rejected(call("mx_quantize_dim0", {{"x", x({2, 32})}}, "deepgemm_ue8m0"), "not an MX recipe");
  expect_rejected(call("mx_quantize_dim0", {{"x", x({2, 32})}}, "torchao_mx_round"), "unknown recipe");
  expect_rejected(call("mx_quantize_dim0", {}), "missing input dataset 'x'");
  expect_rejected(call("mx_quantize_dim1", {{"x", x({48, 32})}}), "x.rows (M)");
  KernelCall none = call("mx_quantize_2d", {{"x", x({32, 32})}});
  none.attrs.ints["rowwise"] = 0;
  none.attrs.ints["colwise"] = 0;
  expect_rejected(none, "ask for at least one");
  KernelCall block = call("mx_quantize_3d", {{"x", x({1, 32, 32})}});
  block.attrs.strings["block"] = "16x1";
  expect_rejected(block, "expected 32x1 or 32x32");
  KernelCall dq = call("mx_dequantize_dim0", {{"q", make_tensor("float8_e5m2", {2, 32}, random_bytes(1, 64))},
                                              {"scale", make_tensor("float8_e8m0fnu", {2, 1}, random_bytes(2, 2))}});
  expect_rejected(dq, "input 'q': dtype 'float8_e5m2'");
  KernelCall dq_shape = call("mx_dequantize_dim0", {{"q", make_tensor("float8_e4m3fn", {2, 64}, random_bytes(1, 128))},
                                                    {"scale", make_tensor("float8_e8m0fnu", {2, 3}, random_bytes(2, 6))}});
  expect_rejected(dq_shape, "scale.cols (K/32)");
  KernelCall fb = call("from_blocked", {{"scale_blocked", make_tensor("float8_e8m0fnu", {512}, random_bytes(3, 512))}});
  fb.attrs.ints["rows"] = 130;
  fb.attrs.ints["cols"] = 5;
  expect_rejected(fb, "blocked size");
  const Tensor s64 = make_tensor("float8_e8m0fnu", {64, 4}, random_bytes(4, 256));
  expect_rejected(call("to_blocked_m_groups", {{"scale", s64}, {"offs", make_tensor("int32", std::vector<std::int32_t>{32, 16})}}),
                  "not monotonic");
  expect_rejected(call("to_blocked_m_groups", {{"scale", s64}, {"offs", make_tensor("int64", std::vector<std::int64_t>{65})}}),
                  "beyond");
  expect_rejected(call("to_blocked_k_groups", {{"scale", s64}, {"offs", make_tensor("int64", std::vector<std::int64_t>{32, 80})}}),
                  "not a multiple of 32");
  expect_rejected(call("to_blocked", {{"scale", make_tensor("float32", {2, 2}, std::vector<float>(4, 1.0f))}}),
                  "input 'scale': dtype 'float32'");
}

// The values of a bf16 / fp32 tensor as doubles.
std::vector<double> as_doubles(const Tensor& x) {
  std::vector<double> v;
  if (x.dtype == "bfloat16")
    for (const std::uint16_t b : values_of<std::uint16_t>(x)) v.push_back(double(bf16_to_float(b)));
  else
    for (const float f : values_of<float>(x)) v.push_back(double(f));
  return v;
}

// The amax ladders do what golden/schema.md says: in every 1x32 row block and every 32x1 column
// block of a (32, 32·T) ladder, the diagonal element is the largest magnitude, strictly.
TEST(MxCatalogue, LadderBlocksPeakOnTheDiagonal) {
  std::size_t checked = 0;
  for (const CaseSpec& c : mx_cases(Suite::default_suite)) {
    const auto it = c.call.attrs.strings.find("distribution");
    if (it == c.call.attrs.strings.end() || it->second.rfind("amax_ladder(", 0) != 0) continue;
    const Tensor& x = c.call.inputs.at("x");
    const std::int64_t cols = x.shape.back(), rows = x.numel() / cols;
    ASSERT_EQ(rows, 32) << c.name;
    std::vector<double> m = as_doubles(x);
    for (double& v : m) v = std::fabs(v);
    for (std::int64_t tile = 0; tile < cols / 32; ++tile)
      for (std::int64_t d = 0; d < 32; ++d) {
        const double peak = m[std::size_t(d * cols + tile * 32 + d)];
        for (std::int64_t k = 0; k < 32; ++k) {
          if (k == d) continue;
          EXPECT_LT(m[std::size_t(d * cols + tile * 32 + k)], peak) << c.name << " row block " << d << ", tile " << tile;
          EXPECT_LT(m[std::size_t(k * cols + tile * 32 + d)], peak) << c.name << " column block " << d << ", tile " << tile;
        }
      }
    ++checked;
  }
  EXPECT_GE(checked, 40u);
}

TEST(MxCatalogue, EveryDefaultCaseComputesAndErrorsExactlyWhereMarked) {
  const std::vector<CaseSpec> cases = mx_cases(Suite::default_suite);
  std::set<std::string> kernels, names;
  for (const KernelAdapter& a : mx_adapters()) kernels.insert(std::string(a.name));
  const std::regex name_ok("[A-Za-z0-9_.-]+");
  const Provenance p = Provenance::build();
  std::size_t errors = 0;
  for (const CaseSpec& c : cases) {
    EXPECT_TRUE(names.insert(c.name).second) << "duplicate case name " << c.name;
    EXPECT_TRUE(std::regex_match(c.name, name_ok)) << c.name;
    EXPECT_TRUE(kernels.count(c.call.kernel)) << c.name << ": kernel " << c.call.kernel << " is not an MX adapter";
    EXPECT_EQ(c.name.rfind(c.call.kernel, 0), 0u) << c.name << " does not start with its kernel";
    ComputedCase out;
    ASSERT_NO_THROW(out = compute_case(c, p)) << c.name;  // throws when an error is not where marked
    EXPECT_EQ(out.attrs.strings.count("expected_error"), c.expect_error ? 1u : 0u) << c.name;
    if (!c.expect_error) {
      EXPECT_FALSE(out.attrs.strings.at("outputs").empty()) << c.name;
    }
    errors += c.expect_error;
  }
  EXPECT_GE(cases.size(), 180u);
  EXPECT_GE(errors, 30u);
  // Every adapter has at least one computed case and one misuse case.
  for (const std::string& k : kernels) {
    bool ok = false, bad = false;
    for (const CaseSpec& c : cases)
      if (c.call.kernel == k) (c.expect_error ? bad : ok) = true;
    EXPECT_TRUE(ok && bad) << k << ": cases " << ok << ", misuse cases " << bad;
  }
}

}  // namespace
}  // namespace octet::golden
