// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// cases/gemm.cpp — the gemm family (gemm.h5): scaled_mm, scaled_grouped_mm 2Dx3D and 2Dx2D
// (torch `_scaled_mm` / `_scaled_grouped_mm`, DeepGEMM grouped GEMMs; emulator gemm.hpp) for
// every accumulation model × scale granularity (tensorwise, rowwise, 1x128 x 128x128, 1x128 x
// 1x128, MX 1x32 e8m0, NVFP4 1x16 e4m3), small shapes (the exact model is part of the grid),
// two medium MoE shapes (DeepSeek-V3 and Llama 4 proportions scaled down), adversarial cases
// (cancellation, long K, wide magnitudes, NaN/Inf, zero blocks, unaligned M/N, empty and tiny
// groups, rows past offs[-1], C), and misuse cases.
//
// Operands are generated values (inputs.hpp) quantised block by block with the recipe
// (amax_update, scale_from_amax, quantize_element of scale.hpp): codes plus stored scales.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "../scale_io.hpp"
#include "catalogue.hpp"
#include "octet/format.hpp"
#include "octet/gemm.hpp"

namespace octet::golden {
namespace {

// A pair of recipes and scale blocks (gemm.hpp granularities).
struct Granularity {
  std::string_view name;
  std::string_view recipe_a, recipe_b;
  ScaleBlock a, b;
};
const Granularity kTensorwise{"tensorwise", "te_current", "te_current", ScaleBlock::tensorwise(), ScaleBlock::tensorwise()};
const Granularity kTensorwiseE5m2{"tensorwise_e4m3_e5m2", "te_current", "te_current_e5m2", ScaleBlock::tensorwise(),
                                  ScaleBlock::tensorwise()};
const Granularity kRowwise{"rowwise", "torchao_fp8_rowwise_pow2", "torchao_fp8_rowwise_pow2", ScaleBlock::rowwise(),
                           ScaleBlock::rowwise()};
const Granularity kBlock128{"1x128_128x128", "torchao_blockwise", "torchao_blockwise", ScaleBlock::block_1x128(),
                            ScaleBlock::block_128x128()};
const Granularity kBlockWgrad{"1x128_1x128", "deepgemm", "deepgemm", ScaleBlock::block_1x128(),
                              ScaleBlock::block_1x128()};
const Granularity kMx{"mx_1x32", "torchao_mx_rceil", "torchao_mx_rceil", ScaleBlock::mx_1x32(), ScaleBlock::mx_1x32()};
const Granularity kNvfp4{"nvfp4_1x16", "nvfp4", "nvfp4", ScaleBlock::nvfp4_1x16(), ScaleBlock::nvfp4_1x16()};
const Granularity* const kGranularities[] = {&kTensorwise, &kRowwise, &kBlock128, &kBlockWgrad, &kMx, &kNvfp4};

// A model variant: the registry kernel and its parameters.
struct Model {
  std::string_view kernel, tag;  // tag: "" or a suffix naming the parameters
  std::int64_t promote_interval = 0;
};
const Model kModels[] = {{"exact", ""},
                         {"fp32_seq", ""},
                         {"fp32_promote", ""},
                         {"hopper_fast_accum", ""},
                         {"hopper_fast_accum", "p128", 128}};

enum class Op : std::uint8_t { dense, grouped_2d3d, grouped_2d2d };
std::string_view op_name(Op op) {
  return op == Op::dense ? "scaled_mm" : op == Op::grouped_2d3d ? "scaled_grouped_mm_2d3d" : "scaled_grouped_mm_2d2d";
}
std::string_view op_tag(Op op) { return op == Op::dense ? "mm" : op == Op::grouped_2d3d ? "2d3d" : "2d2d"; }

// A K range quantised with one scale column (A) / row (B): scale index `index`.
struct KRange {
  std::int64_t begin, end, index;
};
std::vector<KRange> k_blocks(std::int64_t k, std::int64_t block) {
  if (block == 0) return {{0, k, 0}};
  std::vector<KRange> r;
  for (std::int64_t b = 0; b * block < k; ++b) r.push_back({b * block, (b + 1) * block, b});
  return r;
}
// 2Dx2D with whole-group scales: one scale per group (empty groups keep the zero-amax scale).
std::vector<KRange> group_ranges(const std::vector<std::int64_t>& offs) {
  std::vector<KRange> r;
  std::int64_t begin = 0;
  for (std::size_t g = 0; g < offs.size(); ++g) {
    r.push_back({begin, offs[g], std::int64_t(g)});
    begin = offs[g];
  }
  return r;
}

struct Quantised {
  std::vector<std::uint8_t> codes;
  std::vector<BlockScale> scales;
};

// Quantises x (rows × cols, row-major) block by block: for the LHS the outer dimension is the
// rows and K the columns, for the RHS the reverse. Scales come out as the GEMM takes them:
// LHS (outer blocks, K ranges), RHS (K ranges, outer blocks), row-major. NVFP4 block scales are
// relative to `global_encode` (the caller's per-tensor scale).
Quantised quantise(const Recipe& r, const std::vector<float>& x, std::int64_t rows, std::int64_t cols, bool lhs,
                   std::int64_t block_outer, const std::vector<KRange>& ranges, float global_encode) {
  const std::int64_t outer = lhs ? rows : cols;
  const std::int64_t bo = block_outer == 0 ? outer : block_outer;
  const std::int64_t n_outer = block_outer == 0 ? 1 : (outer + bo - 1) / bo;
  std::int64_t nk = 0;
  for (const KRange& k : ranges) nk = std::max(nk, k.index + 1);
  Quantised q;
  q.codes.assign(std::size_t(rows * cols), 0);
  q.scales.resize(std::size_t(n_outer * nk));
  const auto at = [&](std::int64_t o, std::int64_t k) { return std::size_t(lhs ? o * cols + k : k * cols + o); };
  for (std::int64_t ob = 0; ob < n_outer; ++ob) {
    const std::int64_t o0 = ob * bo, o1 = std::min(outer, o0 + bo);
    for (const KRange& kr : ranges) {
      float amax = amax_init(r);
      for (std::int64_t o = o0; o < o1; ++o)
        for (std::int64_t k = kr.begin; k < kr.end; ++k) amax = amax_update(r, amax, x[at(o, k)]);
      const BlockScale s = storage(r) == ScaleStorage::E4m3 ? nvfp4_block_scale(r, global_encode, amax)
                                                             : scale_from_amax(r, amax);
      for (std::int64_t o = o0; o < o1; ++o)
        for (std::int64_t k = kr.begin; k < kr.end; ++k) q.codes[at(o, k)] = std::uint8_t(quantize_element(r, s, x[at(o, k)]));
      q.scales[std::size_t(lhs ? ob * nk + kr.index : kr.index * n_outer + ob)] = s;
    }
  }
  return q;
}

// The NVFP4 per-tensor amax: NaN ignored and Inf clamped to FLT_MAX, so that a tensor with a
// special value still gets a finite global scale.
float abs_max(const std::vector<float>& x) {
  float m = 0.0f;
  for (const float v : x) m = std::isnan(v) ? m : std::max(m, std::fabs(v));
  return std::min(m, std::numeric_limits<float>::max());
}

// One GEMM case before quantisation.
struct GemmSpec {
  const Granularity* g = &kTensorwise;
  const Model* model = &kModels[1];
  Op op = Op::dense;
  std::int64_t m = 8, k = 256, n = 16, experts = 0;
  std::vector<std::int64_t> offs;  // grouped ops
  std::string out_dtype = "bfloat16";
  Distribution dist_a = Distribution::normal, dist_b = Distribution::normal;
  std::uint64_t seed = 1;
  bool with_c = false;
  std::string label;  // the case name's distribution part
  bool cancel = false;  // second half of K mirrors the first with B negated: exact sum 0
};

// Quantises one operand and adds its datasets (`name`, `scale_<name>`, NVFP4 global decode).
void add_operand(CaseSpec& c, const std::string& name, const Recipe& r, const ScaleBlock& block, bool lhs,
                 const std::vector<float>& x, std::int64_t experts, std::int64_t rows, std::int64_t cols,
                 const std::vector<KRange>& ranges, bool negate_second_half) {
  const float global_encode = nvfp4_global_encode(abs_max(x));
  std::vector<std::uint8_t> codes;
  std::vector<BlockScale> scales;
  const std::int64_t per = rows * cols;
  for (std::int64_t e = 0; e < std::max<std::int64_t>(experts, 1); ++e) {
    const std::vector<float> part(x.begin() + e * per, x.begin() + (e + 1) * per);
    Quantised q = quantise(r, part, rows, cols, lhs, block.outer, ranges, global_encode);
    if (negate_second_half) {  // mirror the first half of K (rows of B) into the second, negated
      const Format& f = format_of(element_format(r));
      for (std::int64_t k = rows / 2; k < rows; ++k)
        for (std::int64_t j = 0; j < cols; ++j)
          q.codes[std::size_t(k * cols + j)] = std::uint8_t(q.codes[std::size_t((k - rows / 2) * cols + j)] ^ f.sign_mask());
    }
    codes.insert(codes.end(), q.codes.begin(), q.codes.end());
    scales.insert(scales.end(), q.scales.begin(), q.scales.end());
  }
  std::int64_t nk = 0;
  for (const KRange& k : ranges) nk = std::max(nk, k.index + 1);
  const std::int64_t outer = lhs ? rows : cols;
  const std::int64_t n_outer = block.outer == 0 ? 1 : (outer + block.outer - 1) / block.outer;
  std::vector<std::int64_t> shape{rows, cols}, scale_shape{lhs ? n_outer : nk, lhs ? nk : n_outer};
  if (experts > 0) {
    shape.insert(shape.begin(), experts);
    scale_shape.insert(scale_shape.begin(), experts);
  }
  c.call.inputs.emplace(name, make_tensor(dtype_name(element_format(r)), shape, codes));
  c.call.inputs.emplace("scale_" + name, stored_scale_tensor(r, scale_shape, scales));
  if (storage(r) == ScaleStorage::E4m3)
    c.call.inputs.emplace("global_decode_" + name, make_tensor("float32", {1}, std::vector<float>{1.0f / global_encode}));
}

CaseSpec make_case(const GemmSpec& s) {
  const Recipe& ra = recipe(s.g->recipe_a);
  const Recipe& rb = recipe(s.g->recipe_b);
  CaseSpec c;
  std::vector<std::int64_t> dims{s.m, s.k, s.n};
  if (s.op == Op::grouped_2d3d) dims.push_back(s.experts);
  if (s.op == Op::grouped_2d2d) dims.push_back(std::int64_t(s.offs.size()));
  const std::string label = s.label.empty() ? std::string(name(s.dist_a)) : s.label;
  c.name = std::string(s.model->kernel) + (s.model->tag.empty() ? "" : "_" + std::string(s.model->tag)) + "_" +
           std::string(ra.name) + "_" + std::string(s.g->name) + "_" + std::string(op_tag(s.op)) + "_" +
           dims_label(dims) + "_" + short_dtype(s.out_dtype) + "_" + label + "_" +
           std::to_string(s.seed);
  c.call.kernel = std::string(s.model->kernel);
  CaseAttributes& a = c.call.attrs;
  a.strings["recipe"] = std::string(ra.name);
  if (rb.name != ra.name) a.strings["recipe_b"] = std::string(rb.name);
  a.strings["op"] = std::string(op_name(s.op));
  a.strings["granularity"] = std::string(s.g->name);
  a.strings["out_dtype"] = s.out_dtype;
  a.strings["dtype"] = std::string(dtype_name(element_format(ra)));
  a.ints["seed"] = std::int64_t(s.seed);
  a.ints["block_a_outer"] = s.g->a.outer;
  a.ints["block_a_k"] = s.g->a.k;
  a.ints["block_b_outer"] = s.g->b.outer;
  a.ints["block_b_k"] = s.g->b.k;
  if (s.model->kernel == "fp32_promote") a.ints["promote_chunk"] = 128;
  if (s.model->kernel == "hopper_fast_accum") {
    a.ints["mantissa_bits"] = 14;
    a.ints["group"] = 32;
    a.ints["promote_interval"] = s.model->promote_interval;
  }
  a.int_arrays["shape"] = dims;
  if (!s.offs.empty()) a.int_arrays["group_offsets"] = s.offs;

  const InputSpec spec_a{s.dist_a, s.seed, 1.0, 32}, spec_b{s.dist_b, s.seed + 1000, 1.0, 32};
  a.strings["distribution"] = "a: " + describe(spec_a) + "; b: " + describe(spec_b) +
                              (s.cancel ? "; second half of K mirrors the first with b negated" : "");
  const std::int64_t experts = s.op == Op::grouped_2d3d ? s.experts : 0;
  const std::vector<float> xa = values_of<float>(generate_tensor(spec_a, {s.m, s.k}, "float32"));
  const std::vector<float> xb =
      values_of<float>(generate_tensor(spec_b, {std::max<std::int64_t>(experts, 1) * s.k * s.n}, "float32"));
  const bool per_group = s.op == Op::grouped_2d2d && s.g->a.k == 0;
  const std::vector<KRange> ka = per_group ? group_ranges(s.offs) : k_blocks(s.k, s.g->a.k);
  const std::vector<KRange> kb = per_group ? group_ranges(s.offs) : k_blocks(s.k, s.g->b.k);
  std::vector<float> xa_used = xa;
  if (s.cancel)  // A's second half of K repeats its first half
    for (std::int64_t i = 0; i < s.m; ++i)
      for (std::int64_t k = s.k / 2; k < s.k; ++k) xa_used[std::size_t(i * s.k + k)] = xa[std::size_t(i * s.k + k - s.k / 2)];
  add_operand(c, "a", ra, s.g->a, true, xa_used, 0, s.m, s.k, ka, false);
  add_operand(c, "b", rb, s.g->b, false, xb, experts, s.k, s.n, kb, s.cancel);
  if (!s.offs.empty()) c.call.inputs.emplace("offs", int_tensor("int32", s.offs));
  if (s.with_c) {
    const std::vector<std::int64_t> cshape =
        s.op == Op::grouped_2d2d ? std::vector<std::int64_t>{std::int64_t(s.offs.size()), s.m, s.n}
                                 : std::vector<std::int64_t>{s.m, s.n};
    c.call.inputs.emplace("c", generate_tensor(InputSpec{Distribution::normal, s.seed + 2000, 4.0, 32}, cshape,
                                               "float32"));
  }
  return c;
}

// Group ends over `total` in multiples of `align`, proportional to random sizes 1..8
// (uniform_int), with group `empty` forced empty.
std::vector<std::int64_t> proportional_offs(std::uint64_t seed, std::int64_t groups, std::int64_t total,
                                      std::int64_t align, std::int64_t empty) {
  std::vector<std::int64_t> w(static_cast<std::size_t>(groups));
  std::int64_t sum = 0;
  for (std::int64_t g = 0; g < groups; ++g) sum += (w[std::size_t(g)] = g == empty ? 0 : 1 + uniform_int(seed, std::uint64_t(g), 8));
  std::vector<std::int64_t> offs;
  std::int64_t acc = 0, end = 0;
  for (std::int64_t g = 0; g < groups; ++g) {
    acc += w[std::size_t(g)];
    end = (total / align) * acc / sum * align;
    offs.push_back(end);
  }
  return offs;
}

// Every granularity × model on scaled_mm, and on one grouped operation each (2Dx3D and 2Dx2D
// alternate over the models, so every granularity meets both and every model meets both).
void add_grid(std::vector<CaseSpec>& out) {
  std::uint64_t seed = 1;
  int alternate = 0;  // 5 models: each granularity starts on the other operation than the last
  for (const Granularity* g : kGranularities) {
    for (const Model& m : kModels) {
      GemmSpec s;
      s.g = g;
      s.model = &m;
      s.seed = seed++;
      out.push_back(make_case(s));
      GemmSpec grouped = s;
      if (alternate++ % 2 == 0) {
        // 3 experts over 12 rows: the middle group empty, the last row past offs[-1].
        grouped.op = Op::grouped_2d3d;
        grouped.m = 12;
        grouped.n = 8;
        grouped.experts = 3;
        grouped.offs = {4, 4, 11};
      } else {
        // 4 groups over K = 512 (multiples of 128), the second one empty.
        grouped.op = Op::grouped_2d2d;
        grouped.m = 4;
        grouped.n = 8;
        grouped.k = 512;
        grouped.offs = {128, 128, 384, 512};
      }
      out.push_back(make_case(grouped));
    }
  }
  // fp32 output (torch _scaled_mm out_dtype=float32), and e4m3 x e5m2 (the backward's gradient).
  for (const Model* m : {&kModels[1], &kModels[3]}) {
    for (const Granularity* g : {&kTensorwise, &kRowwise}) {
      GemmSpec s;
      s.g = g;
      s.model = m;
      s.seed = seed++;
      s.out_dtype = "float32";
      out.push_back(make_case(s));
    }
    GemmSpec e5;
    e5.g = &kTensorwiseE5m2;
    e5.model = m;
    e5.seed = seed++;
    out.push_back(make_case(e5));
  }
}

void add_medium(std::vector<CaseSpec>& out, Suite suite) {
  const std::int64_t f = suite == Suite::full ? 4 : 1;
  {  // DeepSeek-V3 proportions / 28 (hidden 256, moe-inter 32, 4 experts); DeepGEMM blocks
    GemmSpec s;
    s.g = &kBlock128;
    s.model = &kModels[2];
    s.op = Op::grouped_2d3d;
    s.m = 64 * f;
    s.k = 256;
    s.n = 32 * f;
    s.experts = 4;
    s.seed = 101;
    s.offs = proportional_offs(s.seed, 4, s.m, 1, 2);
    s.label = "dsv3_normal";
    out.push_back(make_case(s));
  }
  {  // Llama 4 proportions / 16 (hidden 320; 32 of the 512 inter columns, 4 of 16 experts); torchao rowwise
    GemmSpec s;
    s.g = &kRowwise;
    s.model = &kModels[3];
    s.op = Op::grouped_2d3d;
    s.m = 48 * f;
    s.k = 320;
    s.n = 32 * f;
    s.experts = 4;
    s.seed = 102;
    s.offs = proportional_offs(s.seed, 4, s.m, 16, -1);
    s.label = "llama4_student_t";
    s.dist_a = Distribution::student_t;
    out.push_back(make_case(s));
  }
  {  // wgrad of the DeepSeek-V3 shape: 2Dx2D over the tokens in 128-aligned groups, one empty
    GemmSpec s;
    s.g = &kBlockWgrad;
    s.model = &kModels[2];
    s.op = Op::grouped_2d2d;
    s.m = 16 * f;
    s.k = 1024;
    s.n = 16 * f;
    s.seed = 103;
    s.offs = proportional_offs(s.seed, 4, s.k, 128, 0);
    s.label = "dsv3_wgrad_normal";
    out.push_back(make_case(s));
  }
}

void add_adversarial(std::vector<CaseSpec>& out) {
  std::uint64_t seed = 200;
  // Long K: promotion and the limited-width accumulator over many 32-product groups.
  for (const Model& m : kModels) {
    GemmSpec s;
    s.g = &kTensorwise;
    s.model = &m;
    s.m = 4;
    s.k = 1024;
    s.n = 4;
    s.out_dtype = "float32";
    s.dist_a = s.dist_b = Distribution::outliers;
    s.seed = seed;
    s.label = "longk_outliers";
    out.push_back(make_case(s));
    // Cancellation: the exact sum is 0, the fp32 partials are not.
    if (!m.tag.empty()) continue;
    GemmSpec c = s;
    c.k = 256;
    c.dist_a = c.dist_b = Distribution::normal;
    c.cancel = true;
    c.label = "cancel";
    out.push_back(make_case(c));
  }
  ++seed;
  const Model& seq = kModels[1];
  const auto one = [&](const Granularity* g, Distribution d, std::string label) {
    GemmSpec s;
    s.g = g;
    s.model = &seq;
    s.dist_a = s.dist_b = d;
    s.seed = seed++;
    s.label = std::move(label);
    return s;
  };
  out.push_back(make_case(one(&kTensorwise, Distribution::log_uniform, "log_uniform")));
  out.push_back(make_case(one(&kMx, Distribution::log_uniform, "log_uniform")));
  out.push_back(make_case(one(&kRowwise, Distribution::specials, "specials")));
  out.push_back(make_case(one(&kMx, Distribution::specials, "specials")));
  out.push_back(make_case(one(&kBlock128, Distribution::specials, "specials")));
  out.push_back(make_case(one(&kMx, Distribution::zero_blocks, "zero_blocks")));
  out.push_back(make_case(one(&kBlockWgrad, Distribution::zero_blocks, "zero_blocks")));
  {  // Unaligned M and N: partial 128-row / 128-column blocks
    GemmSpec s = one(&kBlock128, Distribution::normal, "unaligned");
    s.m = 7;
    s.n = 13;
    out.push_back(make_case(s));
  }
  {  // 2Dx3D: empty first group, a 1-row group, one large group, empty last group, rows past the end
    GemmSpec s = one(&kRowwise, Distribution::normal, "ragged_groups");
    s.op = Op::grouped_2d3d;
    s.m = 24;
    s.k = 128;
    s.n = 8;
    s.experts = 5;
    s.offs = {0, 1, 1, 20, 20};
    out.push_back(make_case(s));
    GemmSpec mx = s;
    mx.g = &kMx;
    mx.seed = seed++;
    out.push_back(make_case(mx));
  }
  {  // 2Dx2D: empty first and last groups, per-group rowwise scales
    GemmSpec s = one(&kRowwise, Distribution::normal, "ragged_groups");
    s.op = Op::grouped_2d2d;
    s.k = 512;
    s.n = 8;
    s.offs = {0, 128, 512, 512};
    out.push_back(make_case(s));
  }
  {  // C: dense fp32 accumulate, and the DeepGEMM k-grouped D = C + A·B
    GemmSpec s = one(&kBlockWgrad, Distribution::normal, "with_c");
    s.out_dtype = "float32";
    s.with_c = true;
    out.push_back(make_case(s));
    GemmSpec g = s;
    g.op = Op::grouped_2d2d;
    g.k = 512;
    g.offs = {128, 128, 384, 512};
    g.seed = seed++;
    out.push_back(make_case(g));
  }
}

// Misuse: a valid small case with one thing broken.
void add_misuse(std::vector<CaseSpec>& out) {
  const auto base = [](const Granularity* g, Op op, std::string label) {
    GemmSpec s;
    s.g = g;
    s.op = op;
    s.m = op == Op::dense ? 4 : 16;
    s.k = op == Op::grouped_2d2d ? 256 : 128;
    s.n = 8;
    s.seed = 300;
    if (op == Op::grouped_2d3d) {
      s.experts = 2;
      s.offs = {8, 16};
    }
    if (op == Op::grouped_2d2d) s.offs = {128, 256};
    s.label = "misuse_" + std::move(label);
    CaseSpec c = make_case(s);
    c.expect_error = true;
    return c;
  };
  const auto set_offs = [](CaseSpec& c, const Ints& offs) { c.call.inputs["offs"] = int_tensor("int32", offs); };
  {
    CaseSpec c = base(&kRowwise, Op::grouped_2d3d, "offs_not_monotonic");
    set_offs(c, {12, 4});
    out.push_back(std::move(c));
  }
  {
    CaseSpec c = base(&kRowwise, Op::grouped_2d3d, "offs_beyond_m");
    set_offs(c, {8, 40});
    out.push_back(std::move(c));
  }
  {
    CaseSpec c = base(&kRowwise, Op::grouped_2d3d, "offs_length");
    set_offs(c, {4, 8, 16});
    out.push_back(std::move(c));
  }
  {
    CaseSpec c = base(&kBlockWgrad, Op::grouped_2d2d, "group_not_multiple_of_128");
    set_offs(c, {64, 256});
    out.push_back(std::move(c));
  }
  {
    CaseSpec c = base(&kTensorwise, Op::dense, "a_bfloat16");
    c.call.inputs["a"] = generate_tensor(InputSpec{}, {4, 128}, "bfloat16");
    out.push_back(std::move(c));
  }
  {
    CaseSpec c = base(&kMx, Op::dense, "scale_a_float32");
    c.call.inputs["scale_a"] = make_tensor("float32", {4, 4}, std::vector<float>(16, 1.0f));
    out.push_back(std::move(c));
  }
  {
    CaseSpec c = base(&kRowwise, Op::dense, "scale_a_shape");
    c.call.inputs["scale_a"] = make_tensor("float32", {1, 1}, std::vector<float>{1.0f});
    out.push_back(std::move(c));
  }
  {
    CaseSpec c = base(&kTensorwise, Op::dense, "k_mismatch");
    c.call.inputs["b"] = make_tensor("float8_e4m3fn", {64, 8}, std::vector<std::uint8_t>(512, 0x38));
    out.push_back(std::move(c));
  }
  {
    CaseSpec c = base(&kTensorwise, Op::dense, "b_rank2_for_2d3d");
    c.call.attrs.strings["op"] = "scaled_grouped_mm_2d3d";
    set_offs(c, {4});
    out.push_back(std::move(c));
  }
  {
    CaseSpec c = base(&kTensorwise, Op::dense, "unknown_op");
    c.call.attrs.strings["op"] = "batched_mm";
    out.push_back(std::move(c));
  }
  {
    CaseSpec c = base(&kTensorwise, Op::dense, "out_float64");
    c.call.attrs.strings["out_dtype"] = "float64";
    out.push_back(std::move(c));
  }
}

}  // namespace

std::vector<CaseSpec> gemm_cases(Suite s) {
  std::vector<CaseSpec> out;
  add_grid(out);
  add_medium(out, s);
  add_adversarial(out);
  add_misuse(out);
  return out;
}

}  // namespace octet::golden
