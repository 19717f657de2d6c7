// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// adapters_fused_test.cpp — the fused SwiGLU + quantisation adapters (golden/src/adapters/fused.cpp)
// and catalogue (golden/src/cases/fused.cpp): through the runner, forward and backward return the
// bytes, shapes and dtypes of the emulator kernels called directly (swiglu_quant.hpp), for 1x32
// e8m0, 1x128 decode-fp32 and 1x128 encode-fp32 recipes, with probs, recorded sigmoid values and
// the fma form of dsilu; misuse is a KernelInputError naming the problem; every default case
// computes, with an expected error exactly where marked.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "octet/format.hpp"
#include "octet/golden/inputs.hpp"
#include "octet/golden/runner.hpp"
#include "octet/golden/suite.hpp"
#include "octet/kernels/swiglu_quant.hpp"

namespace octet::golden {
namespace {

std::string hex(const std::vector<std::uint8_t>& bytes, std::size_t at, std::size_t size) {
  std::string s = "0x";
  char buf[4];
  for (std::size_t b = size; b-- > 0;) {
    std::snprintf(buf, sizeof buf, "%02x", bytes[at + b]);
    s += buf;
  }
  return s;
}

// Equal dtype, shape, layout, strides and bytes; the first mismatches with (row, col) and hex.
void expect_tensor(const Tensor& got, const Tensor& want, const std::string& what) {
  EXPECT_EQ(got.dtype, want.dtype) << what;
  EXPECT_EQ(got.shape, want.shape) << what;
  EXPECT_EQ(got.layout, want.layout) << what;
  EXPECT_EQ(got.strides, want.strides) << what;
  ASSERT_EQ(got.bytes.size(), want.bytes.size()) << what;
  const std::size_t size = std::size_t(lookup_dtype(want.dtype)->element_size);
  const std::int64_t cols = want.shape.size() == 2 && want.shape[1] > 0 ? want.shape[1] : 1;
  int shown = 0;
  for (std::size_t i = 0; i < want.bytes.size() && shown < 8; i += size)
    if (std::memcmp(&got.bytes[i], &want.bytes[i], size) != 0) {
      const std::int64_t e = std::int64_t(i / size);
      ADD_FAILURE() << what << ": element " << e << " (" << e / cols << ", " << e % cols << "): got "
                    << hex(got.bytes, i, size) << ", want " << hex(want.bytes, i, size);
      ++shown;
    }
}

template <class T>
Tensor matrix(std::string_view dtype, std::int64_t rows, std::int64_t cols, const std::vector<T>& v) {
  return make_tensor(dtype, {rows, cols}, v, "row_major", {cols, 1});
}

// The expected outputs of a SwigluQuantized result, written out independently of the adapter.
template <class In>
Tensors expected(const SwigluQuantized<In>& o, const Recipe& r, std::string_view dtype, const std::string& values) {
  const std::int64_t M = o.rows, N = o.cols, NB = N / o.block;
  Tensors t;
  t.emplace(values, matrix(dtype, M, N, o.y));
  t.emplace("q", matrix(dtype_name(element_format(r)), M, N, o.data));
  if (storage(r) == ScaleStorage::E8m0) {
    std::vector<std::uint8_t> b;
    for (const std::uint32_t s : o.scales) b.push_back(std::uint8_t(s));
    t.emplace("scale", matrix("float8_e8m0fnu", M, NB, b));
  } else {
    std::vector<float> f;
    for (const std::uint32_t s : o.scales) f.push_back(std::bit_cast<float>(s));
    t.emplace(storage(r) == ScaleStorage::DecodeFp32 ? "scale_inv" : "scale", matrix("float32", M, NB, f));
  }
  return t;
}

void expect_outputs(const Tensors& got, const Tensors& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (const auto& [name, t] : want) {
    ASSERT_TRUE(got.count(name)) << what << ": no output '" << name << "'";
    expect_tensor(got.at(name), t, what + " " + name);
  }
}

KernelCall call(const std::string& kernel, Tensors inputs, const std::string& recipe) {
  KernelCall c;
  c.kernel = kernel;
  c.inputs = std::move(inputs);
  c.attrs.strings["recipe"] = recipe;
  return c;
}

// te_mxfp8: 1x32 e8m0; te_blockwise: 1x128 scale_inv; torchao_fp8_rowwise_pow2: 1x128 encode scale.
constexpr std::array<std::string_view, 3> kRecipes{"te_mxfp8", "te_blockwise", "torchao_fp8_rowwise_pow2"};

TEST(FusedAdapters, ForwardMatchesTheEmulator) {
  const std::int64_t M = 6, H = 128;
  for (const std::string_view recipe : kRecipes)
    for (const bool with_probs : {false, true}) {
      const Recipe& r = octet::recipe(recipe);
      std::vector<float> probs;
      if (with_probs)
        for (std::int64_t m = 0; m < M; ++m) probs.push_back(float(m + 1) / 8.0f);
      const std::string what = std::string(recipe) + (with_probs ? " probs" : "");
      // bf16
      const Tensor xb = generate_tensor(InputSpec{Distribution::specials, 21, 2.0}, {M, 2 * H}, "bfloat16");
      const std::vector<std::uint16_t> vb = values_of<std::uint16_t>(xb);
      Tensors in{{"x", xb}};
      if (with_probs) in.emplace("probs", make_tensor("float32", probs));
      expect_outputs(run_kernel(call("swiglu_quantize_forward", in, std::string(recipe))),
                     expected(swiglu_quantize_forward<std::uint16_t>(
                                  View2D<const std::uint16_t>::row_major(vb.data(), M, 2 * H), r, probs),
                              r, "bfloat16", "y"),
                     "forward bf16 " + what);
      // fp32
      const Tensor xf = generate_tensor(InputSpec{Distribution::log_uniform, 22}, {M, 2 * H}, "float32");
      const std::vector<float> vf = values_of<float>(xf);
      in["x"] = xf;
      expect_outputs(run_kernel(call("swiglu_quantize_forward", in, std::string(recipe))),
                     expected(swiglu_quantize_forward<float>(View2D<const float>::row_major(vf.data(), M, 2 * H), r, probs),
                              r, "float32", "y"),
                     "forward fp32 " + what);
    }
}

TEST(FusedAdapters, BackwardMatchesTheEmulator) {
  const std::int64_t M = 5, H = 128;
  for (const std::string_view recipe : kRecipes)
    for (const bool fma : {false, true}) {
      const Recipe& r = octet::recipe(recipe);
      const std::string what = std::string(recipe) + (fma ? " dact_fma" : "");
      const Tensor x = generate_tensor(InputSpec{Distribution::outliers, 31, 2.0}, {M, 2 * H}, "bfloat16");
      const Tensor g = generate_tensor(InputSpec{Distribution::specials, 32}, {M, H}, "bfloat16");
      const std::vector<std::uint16_t> xv = values_of<std::uint16_t>(x), gv = values_of<std::uint16_t>(g);
      KernelCall c = call("swiglu_quantize_backward", {{"x", x}, {"grad", g}}, std::string(recipe));
      if (fma) c.attrs.ints["dact_fma"] = 1;
      const auto want = swiglu_quantize_backward<std::uint16_t>(View2D<const std::uint16_t>::row_major(gv.data(), M, H),
                                                                View2D<const std::uint16_t>::row_major(xv.data(), M, 2 * H),
                                                                r, SwigluOptions{.dact_fma = fma});
      expect_outputs(run_kernel(c), expected(want, r, "bfloat16", "dx"), "backward bf16 " + what);
      // fp32
      const Tensor xf = generate_tensor(InputSpec{Distribution::normal, 33, 4.0}, {M, 2 * H}, "float32");
      const Tensor gf = generate_tensor(InputSpec{Distribution::normal, 34}, {M, H}, "float32");
      const std::vector<float> xfv = values_of<float>(xf), gfv = values_of<float>(gf);
      KernelCall cf = call("swiglu_quantize_backward", {{"x", xf}, {"grad", gf}}, std::string(recipe));
      if (fma) cf.attrs.ints["dact_fma"] = 1;
      const auto want_f = swiglu_quantize_backward<float>(View2D<const float>::row_major(gfv.data(), M, H),
                                                          View2D<const float>::row_major(xfv.data(), M, 2 * H), r,
                                                          SwigluOptions{.dact_fma = fma});
      expect_outputs(run_kernel(cf), expected(want_f, r, "float32", "dx"), "backward fp32 " + what);
    }
}

TEST(FusedAdapters, RecordedSigmoidReplacesExpf) {
  const std::int64_t M = 4, H = 64;
  const Recipe& r = octet::recipe("te_mxfp8");
  const Tensor x = generate_tensor(InputSpec{Distribution::normal, 41, 3.0}, {M, 2 * H}, "bfloat16");
  const Tensor g = generate_tensor(InputSpec{Distribution::normal, 42}, {M, H}, "bfloat16");
  const std::vector<std::uint16_t> xv = values_of<std::uint16_t>(x), gv = values_of<std::uint16_t>(g);
  // Sigmoid values deliberately unlike octet's (a constant 0.25 plus a ramp) so that using them shows.
  std::vector<float> s(std::size_t(M * H));
  for (std::size_t i = 0; i < s.size(); ++i) s[i] = 0.25f + float(i) * 0x1p-10f;
  const auto xview = View2D<const std::uint16_t>::row_major(xv.data(), M, 2 * H);
  const auto sview = View2D<const float>::row_major(s.data(), M, H);
  const Tensor st = make_tensor("float32", {M, H}, s);
  expect_outputs(run_kernel(call("swiglu_quantize_forward", {{"x", x}, {"sigmoid", st}}, "te_mxfp8")),
                 expected(swiglu_quantize_forward<std::uint16_t>(xview, sview, r), r, "bfloat16", "y"),
                 "forward recorded");
  expect_outputs(run_kernel(call("swiglu_quantize_backward", {{"x", x}, {"grad", g}, {"sigmoid", st}}, "te_mxfp8")),
                 expected(swiglu_quantize_backward<std::uint16_t>(
                              View2D<const std::uint16_t>::row_major(gv.data(), M, H), xview, sview, r),
                          r, "bfloat16", "dx"),
                 "backward recorded");
  // And the default path differs from it (the recorded values were used).
  const Tensors plain = run_kernel(call("swiglu_quantize_forward", {{"x", x}}, "te_mxfp8"));
  const Tensors recorded = run_kernel(call("swiglu_quantize_forward", {{"x", x}, {"sigmoid", st}}, "te_mxfp8"));
  EXPECT_NE(plain.at("y").bytes, recorded.at("y").bytes);
}

void expect_rejected(const KernelCall& c, const std::string& needle) {
  try {
    run_kernel(c);
    ADD_FAILURE() << c.kernel << ": accepted, expected an error containing '" << needle << "'";
  } catch (const KernelInputError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << "'" << e.what() << "' lacks '" << needle << "'";
  }
}

TEST(FusedAdapters, MisuseIsRejectedWithTheProblemNamed) {
  const auto t = [](std::vector<std::int64_t> shape, std::string_view dtype = "bfloat16") {
    return generate_tensor(InputSpec{}, std::move(shape), dtype);
  };
  expect_rejected(call("swiglu_quantize_forward", {{"x", t({2, 65})}}, "te_mxfp8"), "is odd");
  expect_rejected(call("swiglu_quantize_forward", {{"x", t({2, 96})}}, "te_mxfp8"), "not a multiple of the block size 32");
  expect_rejected(call("swiglu_quantize_forward", {{"x", t({2, 128})}}, "te_blockwise"), "not a multiple of the block size 128");
  expect_rejected(call("swiglu_quantize_forward", {{"x", t({2, 64})}}, "nvfp4"), "4-bit elements");
  expect_rejected(call("swiglu_quantize_forward", {{"x", t({2, 2, 64})}}, "te_mxfp8"), "rank 3");
  expect_rejected(call("swiglu_quantize_forward", {{"x", t({4, 64})}, {"probs", make_tensor("float32", std::vector<float>(3, 1.0f))}},
                       "te_mxfp8"),
                  "probs_m has 3 values");
  expect_rejected(call("swiglu_quantize_forward", {{"x", t({4, 64})}, {"sigmoid", t({4, 64}, "float32")}}, "te_mxfp8"),
                  "input 'sigmoid': shape (4, 64)");
  expect_rejected(call("swiglu_quantize_backward", {{"x", t({2, 64})}}, "te_mxfp8"), "missing input dataset 'grad'");
  expect_rejected(call("swiglu_quantize_backward", {{"x", t({2, 64})}, {"grad", t({2, 64})}}, "te_mxfp8"),
                  "grad_m_h.cols (H = x_m_2h.cols / 2)");
  expect_rejected(call("swiglu_quantize_backward", {{"x", t({2, 64})}, {"grad", t({2, 32}, "float32")}}, "te_mxfp8"),
                  "input 'grad': dtype 'float32' differs");
  KernelCall bad_fma = call("swiglu_quantize_backward", {{"x", t({2, 64})}, {"grad", t({2, 32})}}, "te_mxfp8");
  bad_fma.attrs.ints["dact_fma"] = 2;
  expect_rejected(bad_fma, "'dact_fma' = 2");
}

// The SwiGLU ladders do what golden/schema.md says: in every 32-block of the quantised values
// (y forward, both halves of dx backward), the element at the a = 32 position has the largest
// magnitude, strictly, and equals ±t: the gate t/32 times 32 (forward), grad t/32 times 32 (backward).
TEST(FusedCatalogue, LadderBlocksPeakAtTheChosenElement) {
  std::size_t checked = 0;
  const Provenance p = Provenance::build();
  for (const CaseSpec& c : fused_cases(Suite::default_suite)) {
    if (c.call.attrs.strings.at("distribution").rfind("swiglu_amax_ladder(", 0) != 0) continue;
    const bool backward = c.call.kernel == "swiglu_quantize_backward";
    const Tensor& x = c.call.inputs.at("x");
    const std::int64_t M = x.shape[0], H = x.shape[1] / 2;
    const ComputedCase out = compute_case(c, p);
    const Tensor* y = nullptr;
    for (const auto& [name, t] : out.datasets)
      if (name == (backward ? "dx" : "y")) y = &t;
    ASSERT_NE(y, nullptr) << c.name;
    const auto doubles = [](const Tensor& t) {
      std::vector<double> v;
      if (t.dtype == "bfloat16")
        for (const std::uint16_t b : values_of<std::uint16_t>(t)) v.push_back(double(bf16_to_float(b)));
      else
        for (const float f : values_of<float>(t)) v.push_back(double(f));
      return v;
    };
    const std::vector<double> yv = doubles(*y), xv = doubles(x);
    const std::vector<double> gv = backward ? doubles(c.call.inputs.at("grad")) : std::vector<double>{};
    const std::int64_t N = y->shape[1];
    for (std::int64_t r = 0; r < M; ++r)
      for (std::int64_t b = 0; b < N / 32; ++b) {
        const std::int64_t at = r * N + b * 32 + r % 32;
        // forward: y = 32 · g, g = t/32 at x[r, H + j]; backward: d_a = d_g = 32 · grad.
        const std::int64_t j = (b * 32 + r % 32) % H;
        const double t = 32.0 * (backward ? gv[std::size_t(r * H + j)] : xv[std::size_t(r * 2 * H + H + j)]);
        EXPECT_EQ(yv[std::size_t(at)], t) << c.name << " row " << r << " block " << b;
        for (std::int64_t k = 0; k < 32; ++k) {
          if (k == r % 32) continue;
          EXPECT_LT(std::fabs(yv[std::size_t(r * N + b * 32 + k)]), std::fabs(t)) << c.name << " row " << r << " block " << b;
        }
      }
    ++checked;
  }
  EXPECT_GE(checked, 16u);
}

TEST(FusedCatalogue, EveryDefaultCaseComputesAndErrorsExactlyWhereMarked) {
  const std::vector<CaseSpec> cases = fused_cases(Suite::default_suite);
  std::set<std::string> names;
  const std::regex name_ok("[A-Za-z0-9_.-]+");
  const Provenance p = Provenance::build();
  std::size_t errors = 0, forward = 0, backward = 0;
  for (const CaseSpec& c : cases) {
    EXPECT_TRUE(names.insert(c.name).second) << "duplicate case name " << c.name;
    EXPECT_TRUE(std::regex_match(c.name, name_ok)) << c.name;
    EXPECT_EQ(c.name.rfind(c.call.kernel + "_" + c.call.attrs.strings.at("recipe") + "_", 0), 0u) << c.name;
    ComputedCase out;
    ASSERT_NO_THROW(out = compute_case(c, p)) << c.name;
    EXPECT_EQ(out.attrs.strings.count("expected_error"), c.expect_error ? 1u : 0u) << c.name;
    errors += c.expect_error;
    forward += c.call.kernel == "swiglu_quantize_forward";
    backward += c.call.kernel == "swiglu_quantize_backward";
  }
  EXPECT_GE(forward, 40u);
  EXPECT_GE(backward, 40u);
  EXPECT_GE(errors, 10u);
}

}  // namespace
}  // namespace octet::golden
