// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// cases/fused.cpp — the kernels_fused catalogue (kernels_fused.h5): SwiGLU + rowwise quantisation,
// forward and backward (TransformerEngine gated_mxfp8.cuh, reference/kernels.md §9), with TE's
// MXFP8 recipe (te_mxfp8, 1x32 e8m0) and its Float8BlockScaling recipes (te_blockwise{,_fp32},
// 1x128 fp32 scale_inv), torchao's and NVIDIA's RCEIL, DeepSeek's ue8m0 1x128 and an e5m2 element
// format; shapes from DeepSeek-V3 (moe intermediate 2048) and Llama4 (8192) divided by 16.
//
// Adversarial inputs: large |a| (sigmoid saturating to 0 and 1, expf overflow), NaN/Inf/±0 in
// a, g and grad, heavy tails, router probs, recorded device sigmoid values one ulp off octet's,
// the fma form of dsilu, and amax ladders: rows whose quantised values have an exact chosen amax.
// A ladder row puts a = 32 (sigmoid(32) = 1 exactly in fp32, so silu(a) = 32) at one position of
// every 32-block and g = t/32 there (forward: y = t), or g = 32 and grad = t/32 (backward:
// d_a = d_g = t), with everything else below t; t runs over powers of two, 448·2^k and 1.9375·2^k
// and their neighbours one ulp of the input dtype away.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "catalogue.hpp"
#include "octet/kernels/swiglu_quant.hpp"

namespace octet::golden {
namespace {

constexpr std::string_view kForward = "swiglu_quantize_forward";
constexpr std::string_view kBackward = "swiglu_quantize_backward";

// e8m0 (1x32) recipes, then fp32-scale (1x128) recipes: H must be a multiple of 128 for those.
constexpr std::array<std::string_view, 3> kMxRecipes{"te_mxfp8", "torchao_mx_rceil", "nvidia_rceil_rcp_approx"};
constexpr std::array<std::string_view, 3> kBlockRecipes{"te_blockwise", "te_blockwise_fp32", "deepgemm_ue8m0"};

// The catalogue under construction: cases `<kernel>_<recipe>_<MxN>_<dist>_<n>`, each seeded from
// its name.
class FusedCatalogue : public Catalogue {
 public:
  // A case to fill in and push.
  CaseSpec start(std::string_view kernel, std::string_view recipe, std::int64_t m, std::int64_t two_h,
                 const std::string& dist) {
    CaseSpec c;
    c.name = numbered(std::string(kernel) + "_" + std::string(recipe) + "_" + dims_label({m, two_h}) + "_" + dist);
    c.call.kernel = std::string(kernel);
    c.call.attrs.strings["recipe"] = std::string(recipe);
    c.call.attrs.ints["seed"] = seed_from_name(c.name);
    c.call.attrs.int_arrays["shape"] = {m, two_h};
    return c;
  }
};

std::uint64_t seed_of(const CaseSpec& c) { return std::uint64_t(c.call.attrs.ints.at("seed")); }

// x (M, 2H) [and grad (M, H)] from one distribution; grad gets its own stream (seed + 1).
void generated_inputs(CaseSpec& c, const InputSpec& spec, std::string_view dtype, std::int64_t m, std::int64_t h) {
  c.call.attrs.strings["distribution"] = describe(spec);
  c.call.attrs.strings["dtype"] = std::string(dtype);
  c.call.inputs.emplace("x", generate_tensor(spec, {m, 2 * h}, dtype));
  if (c.call.kernel == kBackward) {
    InputSpec g = spec;
    g.seed += 1;
    c.call.inputs.emplace("grad", generate_tensor(g, {m, h}, dtype));
  }
}

// Router probabilities in (0, 1] (24-bit uniform, exact in fp32); `with_zero`: every 7th row 0.
Tensor router_probs(std::uint64_t seed, std::int64_t m, bool with_zero) {
  std::vector<float> p(static_cast<std::size_t>(m));
  for (std::int64_t i = 0; i < m; ++i)
    p[std::size_t(i)] = with_zero && i % 7 == 3 ? 0.0f : float(uniform_int(seed, std::uint64_t(i), 1 << 24) + 1) * 0x1p-24f;
  return make_tensor("float32", {m}, p);
}

// octet's sigmoid values of x's a half, each moved one ulp up or down, or kept, at random: what a
// device expf that differs from the correctly rounded one by an ulp records.
Tensor perturbed_sigmoid(const Tensor& x, std::uint64_t seed) {
  const std::int64_t m = x.shape[0], h = x.shape[1] / 2;
  std::vector<float> s;
  if (x.dtype == "bfloat16") {
    const std::vector<std::uint16_t> v = values_of<std::uint16_t>(x);
    s = swiglu_sigmoid_values(View2D<const std::uint16_t>::row_major(v.data(), m, 2 * h));
  } else {
    const std::vector<float> v = values_of<float>(x);
    s = swiglu_sigmoid_values(View2D<const float>::row_major(v.data(), m, 2 * h));
  }
  for (std::size_t i = 0; i < s.size(); ++i) {
    const std::int64_t step = uniform_int(seed, i, 3) - 1;
    const std::uint32_t b = std::bit_cast<std::uint32_t>(s[i]);
    if (s[i] > 0.0f && s[i] < 1.0f) s[i] = std::bit_cast<float>(std::uint32_t(std::int64_t(b) + step));
  }
  return make_tensor("float32", {m, h}, s);
}

// The ladder's targets t (>= 2^-120, so that t/32 stays exact in bf16) with their neighbours.
std::vector<float> ladder_targets(std::string_view dtype) {
  const bool bf16 = dtype == "bfloat16";
  std::vector<double> anchors;
  for (const int e : {-120, 0, 1, 127}) anchors.push_back(std::ldexp(1.0, e));
  for (const int e : {-1, 0, 119}) anchors.push_back(std::ldexp(448.0, e));
  anchors.push_back(1.9375);
  anchors.push_back(bf16 ? 0x1.fep127 : double(std::numeric_limits<float>::max()));
  const int shift = bf16 ? 16 : 0;
  std::vector<float> t;
  for (const double a : anchors) {
    const std::uint32_t d = std::bit_cast<std::uint32_t>(float(a)) >> shift;
    for (const std::uint32_t n : {d - 1, d, d + 1})
      if (n < (0x7F800000u >> shift)) t.push_back(std::bit_cast<float>(n << shift));
  }
  std::sort(t.begin(), t.end());
  t.erase(std::unique(t.begin(), t.end()), t.end());
  return t;
}

// One ladder row per target, H a multiple of 32: the amax position of row r in every 32-block is
// r % 32.
void ladder_inputs(CaseSpec& c, std::string_view dtype, const std::vector<float>& targets, std::int64_t h) {
  const bool backward = c.call.kernel == kBackward;
  const std::int64_t m = std::int64_t(targets.size());
  const std::vector<float> n = generate_fp32(InputSpec{Distribution::normal, seed_of(c)}, m * 3 * h);
  std::vector<float> x(std::size_t(m * 2 * h)), grad(std::size_t(m * h));
  for (std::int64_t r = 0; r < m; ++r) {
    const double t = (r % 2 ? -1.0 : 1.0) * double(targets[std::size_t(r)]);
    for (std::int64_t j = 0; j < h; ++j) {
      const std::size_t a = std::size_t(r * 2 * h + j), g = a + std::size_t(h), k = std::size_t(r * h + j);
      const double n_a = n[std::size_t(3 * k)], n_g = n[std::size_t(3 * k + 1)], n_grad = n[std::size_t(3 * k + 2)];
      if (j % 32 == r % 32) {
        x[a] = 32.0f;
        x[g] = backward ? 32.0f : float(t / 32);
        grad[k] = float(t / 32);
      } else {  // |silu(a)| <= 6 for |a| <= 6, |dsilu| < 1.1: every product stays below |t|
        x[a] = float(n_a);
        x[g] = backward ? float(n_g) : float(n_g * std::fabs(t) / 512);
        grad[k] = float(n_grad * std::fabs(t) / 2048);
      }
    }
  }
  describe_input(c, "swiglu_amax_ladder(targets=" + std::to_string(m) + ",anchors=2^e|1.9375*2^e|448*2^e,neighbours=1ulp)",
                 dtype, {m, 2 * h});
  c.call.inputs.emplace("x", float_tensor(dtype, {m, 2 * h}, x));
  if (backward) c.call.inputs.emplace("grad", float_tensor(dtype, {m, h}, grad));
}

void add_generated(FusedCatalogue& f, std::string_view kernel, std::string_view recipe, InputSpec spec, std::string_view dtype,
                   std::int64_t m, std::int64_t h, const std::string& label) {
  CaseSpec c = f.start(kernel, recipe, m, 2 * h, label + "-" + short_dtype(dtype));
  spec.seed = seed_of(c);
  generated_inputs(c, spec, dtype, m, h);
  f.push(std::move(c));
}

void add_kernel_cases(FusedCatalogue& f, std::string_view kernel, Suite suite) {
  const std::int64_t tokens = suite == Suite::full ? 512 : 32;
  const InputSpec normal{Distribution::normal}, wide{Distribution::normal, 0, 4.0};
  std::vector<std::string_view> all(kMxRecipes.begin(), kMxRecipes.end());
  all.insert(all.end(), kBlockRecipes.begin(), kBlockRecipes.end());

  for (const std::string_view recipe : all) {
    const bool mx = std::find(kMxRecipes.begin(), kMxRecipes.end(), recipe) != kMxRecipes.end();
    const std::int64_t block = mx ? 32 : 128;
    if (mx) add_generated(f, kernel, recipe, normal, "bfloat16", 2, 32, "normal");
    add_generated(f, kernel, recipe, wide, "bfloat16", 4, 128, "normal_x4");
    add_generated(f, kernel, recipe, InputSpec{Distribution::specials}, "bfloat16", 4, 128, "specials");
    add_generated(f, kernel, recipe, InputSpec{Distribution::log_uniform}, "float32", 2, 128, "log_uniform");
    // The ladder, one block per half-row; fp32 inputs for TE's two recipes.
    for (const std::string_view dtype : {"bfloat16", "float32"}) {
      if (dtype == "float32" && recipe != "te_mxfp8" && recipe != "te_blockwise") continue;
      const std::vector<float> targets = ladder_targets(dtype);
      CaseSpec c = f.start(kernel, recipe, std::int64_t(targets.size()), 2 * block, "ladder-" + short_dtype(dtype));
      ladder_inputs(c, dtype, targets, block);
      f.push(std::move(c));
    }
  }
  // Medium shapes (tokens x DeepSeek-V3 2048/16; a few rows x Llama4 8192/16), TE's recipes.
  add_generated(f, kernel, "te_mxfp8", normal, "bfloat16", tokens, 128, "normal");
  add_generated(f, kernel, "te_mxfp8", InputSpec{Distribution::outliers}, "bfloat16", tokens / 4, 512, "outliers");
  add_generated(f, kernel, "te_blockwise", InputSpec{Distribution::outliers}, "bfloat16", tokens, 128, "outliers");
  // The other distributions, edge shapes and recorded sigmoid values, TE's two recipes.
  for (const std::string_view recipe : {"te_mxfp8", "te_blockwise"}) {
    add_generated(f, kernel, recipe, InputSpec{Distribution::student_t}, "bfloat16", 8, 128, "student_t");
    add_generated(f, kernel, recipe, InputSpec{Distribution::zero_blocks, 0, 1.0, 32}, "bfloat16", 4, 128, "zero_blocks");
    // Edge shapes: one row, an odd row count, no rows.
    for (const std::int64_t m : {1, 3, 0})
      if (recipe == "te_mxfp8" || m == 3) add_generated(f, kernel, recipe, normal, "bfloat16", m, 128, "normal");
    // Recorded device sigmoid values (one ulp off octet's expf at random); fp32 inputs with TE's MXFP8.
    for (const std::string_view dtype : {"bfloat16", "float32"}) {
      if (dtype == "float32" && recipe != "te_mxfp8") continue;
      CaseSpec c = f.start(kernel, recipe, 8, 256, "recorded_sigmoid-" + short_dtype(dtype));
      generated_inputs(c, InputSpec{Distribution::normal, seed_of(c), 2.0}, dtype, 8, 128);
      c.call.inputs.emplace("sigmoid", perturbed_sigmoid(c.call.inputs.at("x"), seed_of(c) + 2));
      c.call.attrs.strings["distribution"] += "; sigmoid: octet's +-1 ulp at random";
      f.push(std::move(c));
    }
  }
  // e5m2 elements (TE current scaling's element variant, quantised 1x128 here).
  add_generated(f, kernel, "te_current_e5m2", wide, "bfloat16", 4, 128, "normal_x4");
}

void add_forward_probs(FusedCatalogue& f) {
  for (const std::string_view recipe : {"te_mxfp8", "te_blockwise"})
    for (const bool with_zero : {false, true}) {
      CaseSpec c = f.start(kForward, recipe, 8, 256, with_zero ? "probs_with_zero-bf16" : "probs-bf16");
      generated_inputs(c, InputSpec{Distribution::normal, seed_of(c), 2.0}, "bfloat16", 8, 128);
      c.call.inputs.emplace("probs", router_probs(seed_of(c) + 3, 8, with_zero));
      c.call.attrs.strings["distribution"] += "; probs: uniform (0, 1]" + std::string(with_zero ? ", every 7th row 0" : "");
      f.push(std::move(c));
    }
}

void add_backward_fma(FusedCatalogue& f) {
  for (const std::string_view recipe : {"te_mxfp8", "te_blockwise"})
    for (const std::string_view dtype : {"bfloat16", "float32"}) {
      if (dtype == "float32" && recipe != "te_mxfp8") continue;
      CaseSpec c = f.start(kBackward, recipe, 8, 256, "dact_fma-" + short_dtype(dtype));
      generated_inputs(c, InputSpec{Distribution::normal, seed_of(c), 2.0}, dtype, 8, 128);
      c.call.attrs.ints["dact_fma"] = 1;
      f.push(std::move(c));
    }
}

void add_misuse(FusedCatalogue& f) {
  struct Misuse {
    std::string_view kernel, recipe;
    std::string what;
    std::vector<std::int64_t> x_shape, grad_shape;
    std::string x_dtype = "bfloat16", grad_dtype = "bfloat16";
    std::map<std::string, std::int64_t> ints = {};
    std::vector<std::int64_t> probs = {}, sigmoid = {};
  };
  const std::vector<Misuse> list{
      {kForward, "te_mxfp8", "odd_width", {2, 65}, {}},
      {kForward, "te_mxfp8", "h_not_multiple_of_32", {2, 96}, {}},
      {kForward, "te_blockwise", "h_not_multiple_of_128", {2, 128}, {}},
      {kForward, "te_mxfp8", "rank3", {2, 2, 64}, {}},
      {kForward, "nvfp4", "fp4_recipe", {2, 64}, {}},
      {kForward, "te_mxfp8", "probs_length", {4, 64}, {}, "bfloat16", "bfloat16", {}, {3}},
      {kForward, "te_mxfp8", "sigmoid_shape", {4, 64}, {}, "bfloat16", "bfloat16", {}, {}, {4, 64}},
      {kBackward, "te_mxfp8", "grad_width", {2, 64}, {2, 64}},
      {kBackward, "te_mxfp8", "grad_rows", {2, 64}, {3, 32}},
      {kBackward, "te_mxfp8", "grad_dtype", {2, 64}, {2, 32}, "bfloat16", "float32"},
      {kBackward, "te_mxfp8", "missing_grad", {2, 64}, {}},
      {kBackward, "te_mxfp8", "bad_dact_fma", {2, 64}, {2, 32}, "bfloat16", "bfloat16", {{"dact_fma", 2}}},
  };
  for (const Misuse& u : list) {
    CaseSpec c = f.start(u.kernel, u.recipe, u.x_shape[0], u.x_shape.back(), "misuse_" + u.what);
    const InputSpec spec{Distribution::normal, seed_of(c)};
    describe_input(c, describe(spec), u.x_dtype, u.x_shape);
    c.call.inputs.emplace("x", generate_tensor(spec, u.x_shape, u.x_dtype));
    if (!u.grad_shape.empty()) c.call.inputs.emplace("grad", generate_tensor(spec, u.grad_shape, u.grad_dtype));
    if (!u.probs.empty()) c.call.inputs.emplace("probs", router_probs(seed_of(c), u.probs[0], false));
    if (!u.sigmoid.empty())
      c.call.inputs.emplace("sigmoid", make_tensor("float32", u.sigmoid,
                                                   std::vector<float>(std::size_t(u.sigmoid[0] * u.sigmoid[1]), 0.5f)));
    for (const auto& [k, v] : u.ints) c.call.attrs.ints[k] = v;
    c.expect_error = true;
    f.push(std::move(c));
  }
}

}  // namespace

std::vector<CaseSpec> fused_cases(Suite suite) {
  FusedCatalogue f;
  add_kernel_cases(f, kForward, suite);
  add_kernel_cases(f, kBackward, suite);
  add_forward_probs(f);
  add_backward_fma(f);
  add_misuse(f);
  return f.take();
}

}  // namespace octet::golden
