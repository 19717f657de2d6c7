// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// cases/layout.cpp — the kernels_layout catalogue: token-group padding (torchao
// torch_pad_token_groups / torch_unpad_token_groups), index gather / scatter, EP permute_and_pad
// and TE PR #1921 fused permute+pad / unpermute+unpad (octet/kernels/layout_pad_permute.hpp).
//
// Each kernel runs on the four row forms the peers move: bf16 and fp32 activations, MX rows
// (e4m3 codes + 1x32 e8m0 scales, torchao_mx_rceil) and blockwise rows (e4m3 codes + 1x128 fp32
// pow2 scale_inv, te_blockwise), at small, DeepSeek-V3 / Llama4-proportioned and adversarial
// shapes (empty, single-row and all-token groups, experts without tokens, tokens routed nowhere,
// unaligned widths, NaN/Inf payloads), plus misuse cases with their expected errors.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "catalogue.hpp"
#include "octet/kernels/layout_pad_permute.hpp"

namespace octet::golden {

namespace {

// The row forms of the family's data input.
enum class Form { bf16, fp32, mxfp8, fp8blk };
std::string tag(Form f) {
  switch (f) {
    case Form::bf16: return "bf16";
    case Form::fp32: return "fp32";
    case Form::mxfp8: return "mxfp8";
    case Form::fp8blk: return "fp8blk";
  }
  return "";
}

// `x` (and `x_scale` for the quantised forms) of shape (rows, cols).
Tensors rows_of(Form f, const InputSpec& spec, std::int64_t rows, std::int64_t cols) {
  switch (f) {
    case Form::bf16: return {{"x", generate_tensor(spec, {rows, cols}, "bfloat16")}};
    case Form::fp32: return {{"x", generate_tensor(spec, {rows, cols}, "float32")}};
    case Form::mxfp8: {
      QuantisedRows q = quantise_rows(spec, rows, cols, recipe("torchao_mx_rceil"), 32);
      return {{"x", std::move(q.q)}, {"x_scale", std::move(q.scale)}};
    }
    case Form::fp8blk: {
      QuantisedRows q = quantise_rows(spec, rows, cols, recipe("te_blockwise"), 128);
      return {{"x", std::move(q.q)}, {"x_scale", std::move(q.scale)}};
    }
  }
  return {};
}

// Index lists and tables: int64, or int32 (torch's dtype for offsets) where `as_int32`.
Tensor ints(const Ints& v, bool as_int32 = false) { return int_tensor(as_int32 ? "int32" : "int64", v); }
Tensor ints(std::int64_t rows, std::int64_t cols, const Ints& v) { return int_tensor("int64", {rows, cols}, v); }

// A kernel's output rows as a row-major tensor of `dtype` (the rows' element size).
Tensor raw_tensor(const std::string& dtype, const RowsBuffer& b) {
  Tensor t;
  t.dtype = dtype;
  t.shape = {b.rows, b.cols};
  t.bytes = b.bytes;
  return t;
}

// A top-k routing of `tokens` tokens over `experts` experts: distinct experts per token, slot k
// left unused (-1) with probability 1/unused_rate (never when unused_rate is 0), probs in
// (0, 1] with every 16th one 0 (a routing-map padding slot).
struct Routing {
  Ints expert_t_k;
  std::vector<float> prob_t_k;
};
Routing random_routing(std::uint64_t seed, std::int64_t tokens, std::int64_t topk, std::int64_t experts,
                       std::int64_t unused_rate) {
  Routing r;
  std::uint64_t draw = 0;
  for (std::int64_t t = 0; t < tokens; ++t)
    for (std::int64_t k = 0; k < topk; ++k) {
      std::int64_t e = -1;
      if (unused_rate == 0 || uniform_int(seed, draw++, unused_rate) != 0) {
        do {
          e = uniform_int(seed, draw++, experts);
        } while (std::find(r.expert_t_k.end() - k, r.expert_t_k.end(), e) != r.expert_t_k.end());
      }
      r.expert_t_k.push_back(e);
      const std::int64_t u = uniform_int(seed, draw++, 1 << 16);
      r.prob_t_k.push_back(u % 16 == 0 ? 0.0f : float(u + 1) * 0x1p-16f);
    }
  return r;
}

// A permutation of [0, n) (Fisher-Yates on uniform_int).
Ints random_permutation(std::uint64_t seed, std::int64_t n) {
  Ints p(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) p[std::size_t(i)] = i;
  for (std::int64_t i = n - 1; i > 0; --i) std::swap(p[std::size_t(i)], p[std::size_t(uniform_int(seed, std::uint64_t(i), i + 1))]);
  return p;
}

// The family's catalogue: cases named <kernel>_<form>_<rows>x<cols>_<distribution>_<n>, misuse
// cases <kernel>_<form>_<rows>x<cols>_misuse-<what>; the quantised forms name their input recipe.
class FormCatalogue : public Catalogue {
 public:
  CaseSpec& add(const std::string& kernel, Form f, std::int64_t rows, std::int64_t cols, const InputSpec& spec,
                Tensors inputs) {
    const std::string stem = form_stem(kernel, f, rows, cols) + "_" + std::string(name(spec.distribution));
    return with_input_recipe(Catalogue::add(kernel, stem, spec, std::move(inputs)), f);
  }
  CaseSpec& misuse(const std::string& kernel, Form f, std::int64_t rows, std::int64_t cols, const std::string& what,
                   Tensors inputs) {
    const std::string case_name = form_stem(kernel, f, rows, cols) + "_misuse-" + what;
    return with_input_recipe(Catalogue::misuse(kernel, case_name, InputSpec{Distribution::normal, 99}, std::move(inputs)),
                             f);
  }

 private:
  static std::string form_stem(const std::string& kernel, Form f, std::int64_t rows, std::int64_t cols) {
    return kernel + "_" + tag(f) + "_" + dims_label({rows, cols});
  }
  static CaseSpec& with_input_recipe(CaseSpec& c, Form f) {
    if (f == Form::mxfp8) c.call.attrs.strings["input_recipe"] = "torchao_mx_rceil";
    if (f == Form::fp8blk) c.call.attrs.strings["input_recipe"] = "te_blockwise";
    return c;
  }
};

InputSpec spec_of(Distribution d, std::uint64_t seed, double scale = 1.0) { return InputSpec{d, seed, scale, 32}; }

void set_ints(CaseSpec& c, std::initializer_list<std::pair<const char*, std::int64_t>> params) {
  for (const auto& [k, v] : params) c.call.attrs.ints[k] = v;
}

// ---- pad / unpad ----------------------------------------------------------------------------------

struct PadShape {
  Form form;
  std::int64_t rows, cols;
  Ints offs;
  std::int64_t alignment;
  Distribution dist;
  bool int32_offs = false;
};

void pad_cases(FormCatalogue& cat, std::int64_t up) {
  const std::vector<PadShape> shapes = {
      {Form::bf16, 8, 32, {3, 3, 8}, 4, Distribution::normal, true},          // hand-checkable, one empty group
      {Form::fp32, 10, 16, {0, 7, 9}, 8, Distribution::specials},             // rows past offs[-1], NaN/Inf rows
      {Form::mxfp8, 64, 64, random_offs(11, 8, 64), 32, Distribution::normal},
      {Form::fp8blk, 200, 160, random_offs(12, 5, 190), 16, Distribution::outliers},  // unaligned D, 2 scale runs
      {Form::mxfp8, 128 * up, 224, random_offs(13, 16, 128 * up), 32, Distribution::student_t},  // DSv3 / 32
      {Form::bf16, 96, 64, {1, 1, 95, 96}, 128, Distribution::log_uniform},   // tiny, empty, huge groups
      {Form::bf16, 4, 32, {}, 16, Distribution::normal},                      // no groups at all
      {Form::fp8blk, 64 * up, 320, random_offs(14, 16, 64 * up), 16, Distribution::normal},  // Llama4 / 16
  };
  std::uint64_t seed = 100;
  for (const PadShape& s : shapes) {
    const InputSpec spec = spec_of(s.dist, seed++);
    Tensors in = rows_of(s.form, spec, s.rows, s.cols);
    in["offs"] = ints(s.offs, s.int32_offs);
    set_ints(cat.add("pad_token_groups", s.form, s.rows, s.cols, spec, in), {{"alignment", s.alignment}});

    // unpad of the padded rows: the round trip, and num_tokens beyond offs[-1] (zero rows).
    const Tensor& x = in.at("x");
    const RowsView xv{x.bytes.data(), s.rows, s.cols, std::int64_t(lookup_dtype(x.dtype)->element_size)};
    RowsView sv;
    if (in.count("x_scale")) {
      const Tensor& sc = in.at("x_scale");
      sv = {sc.bytes.data(), sc.shape[0], sc.shape[1], std::int64_t(lookup_dtype(sc.dtype)->element_size)};
    }
    const PaddedTokenGroups p = pad_token_groups(xv, std::span<const std::int64_t>(s.offs), s.alignment, sv);
    Tensors u;
    u["x"] = raw_tensor(x.dtype, p.data);
    if (in.count("x_scale")) u["x_scale"] = raw_tensor(in.at("x_scale").dtype, p.scales);
    u["offs"] = ints(s.offs, s.int32_offs);
    u["padded_starts"] = ints(p.padded_starts);
    set_ints(cat.add("unpad_token_groups", s.form, p.data.rows, s.cols, spec, u), {{"num_tokens", s.rows}});
  }

  const InputSpec spec = spec_of(Distribution::normal, 99);
  const auto bf16_x = [&](std::int64_t rows, std::int64_t cols) { return rows_of(Form::bf16, spec, rows, cols); };
  const auto with = [](Tensors t, const std::string& k, Tensor v) {
    t[k] = std::move(v);
    return t;
  };
  set_ints(cat.misuse("pad_token_groups", Form::bf16, 8, 32, "nonmonotonic-offs", with(bf16_x(8, 32), "offs", ints({5, 3, 8}))),
           {{"alignment", 4}});
  set_ints(cat.misuse("pad_token_groups", Form::bf16, 8, 32, "offs-beyond-rows", with(bf16_x(8, 32), "offs", ints({4, 12}))),
           {{"alignment", 4}});
  set_ints(cat.misuse("pad_token_groups", Form::bf16, 8, 32, "alignment-0", with(bf16_x(8, 32), "offs", ints({8}))),
           {{"alignment", 0}});
  {
    Tensors t = rows_of(Form::mxfp8, spec, 8, 64);
    t["x_scale"] = rows_of(Form::mxfp8, spec, 6, 64).at("x_scale");
    t["offs"] = ints({8});
    cat.misuse("pad_token_groups", Form::mxfp8, 8, 64, "scale-rows", t);
  }
  {
    Tensors t = rows_of(Form::mxfp8, spec, 8, 64);
    t["x_scale"] = generate_tensor(spec, {8, 2}, "bfloat16");
    t["offs"] = ints({8});
    cat.misuse("pad_token_groups", Form::mxfp8, 8, 64, "scale-dtype-bfloat16", t);
  }
  cat.misuse("pad_token_groups", Form::bf16, 8, 32, "x-dtype-int64",
             {{"x", make_tensor("int64", {8, 32}, Ints(256, 1))}, {"offs", ints({8})}});
  cat.misuse("pad_token_groups", Form::bf16, 8, 32, "x-rank-3",
             {{"x", generate_tensor(spec, {2, 4, 32}, "bfloat16")}, {"offs", ints({8})}});
  cat.misuse("pad_token_groups", Form::bf16, 8, 32, "offs-dtype-float32",
             with(bf16_x(8, 32), "offs", make_tensor("float32", std::vector<float>{8.0f})));
  cat.misuse("pad_token_groups", Form::bf16, 8, 32, "offs-missing", bf16_x(8, 32));

  Tensors padded = bf16_x(16, 32);
  padded["offs"] = ints({3, 8});
  padded["padded_starts"] = ints({0});
  cat.misuse("unpad_token_groups", Form::bf16, 16, 32, "padded-starts-size", padded);
  padded["padded_starts"] = ints({0, 12});
  cat.misuse("unpad_token_groups", Form::bf16, 16, 32, "group-past-padded-rows", padded);
  padded["padded_starts"] = ints({0, 8});
  set_ints(cat.misuse("unpad_token_groups", Form::bf16, 16, 32, "num-tokens-below-offs", padded), {{"num_tokens", 6}});
}

// ---- gather / scatter -------------------------------------------------------------------------------

void permute_cases(FormCatalogue& cat, std::int64_t up) {
  struct Shape {
    Form form;
    std::int64_t rows, cols, n;  // n indices
    Distribution dist;
    int pattern;  // 0: random with repeats and -1; 1: a permutation plus -1 rows; 2: all -1
  };
  const std::vector<Shape> shapes = {
      {Form::bf16, 16, 32, 24, Distribution::normal, 0},   {Form::mxfp8, 64 * up, 64, 96 * up, Distribution::normal, 1},
      {Form::fp32, 8, 8, 8, Distribution::specials, 2},    {Form::fp8blk, 100, 256, 128, Distribution::outliers, 1},
      {Form::bf16, 4, 32, 0, Distribution::normal, 0},     {Form::mxfp8, 96, 224, 96, Distribution::zero_blocks, 1},
  };
  std::uint64_t seed = 200;
  for (const Shape& s : shapes) {
    const InputSpec spec = spec_of(s.dist, seed++);
    Ints idx;
    if (s.pattern == 1) {
      idx = random_permutation(spec.seed, s.rows);
      for (std::int64_t i = std::int64_t(idx.size()); i < s.n; ++i)
        idx.insert(idx.begin() + uniform_int(spec.seed, std::uint64_t(1000 + i), i + 1), -1);
    } else {
      for (std::int64_t i = 0; i < s.n; ++i)
        idx.push_back(s.pattern == 2 ? -1 : uniform_int(spec.seed, std::uint64_t(i), s.rows + 1) - 1);
    }
    Tensors in = rows_of(s.form, spec, s.rows, s.cols);
    in["permuted_indices"] = ints(idx, s.form == Form::bf16);
    cat.add("permute_tokens", s.form, s.rows, s.cols, spec, in);

    if (s.pattern != 0 || s.n == 0) {  // invertible: scatter n rows back onto the tokens
      Tensors y = rows_of(s.form, spec_of(s.dist, seed++), s.n, s.cols);
      y["permuted_indices"] = ints(idx);
      set_ints(cat.add("unpermute_tokens", s.form, s.n, s.cols, spec, y), {{"num_tokens", s.rows}});
    }
  }
  // A scatter onto more tokens than rows: uncovered tokens stay zero.
  {
    const InputSpec spec = spec_of(Distribution::normal, seed++);
    Ints idx = random_permutation(spec.seed, 20);
    idx.resize(12);
    idx.push_back(-1);
    Tensors y = rows_of(Form::fp8blk, spec, 13, 128);
    y["permuted_indices"] = ints(idx, true);
    set_ints(cat.add("unpermute_tokens", Form::fp8blk, 13, 128, spec, y), {{"num_tokens", 20}});
  }

  const InputSpec spec = spec_of(Distribution::normal, 98);
  Tensors x = rows_of(Form::bf16, spec, 8, 32);
  x["permuted_indices"] = ints({0, 8});
  cat.misuse("permute_tokens", Form::bf16, 8, 32, "index-equals-rows", x);
  x["permuted_indices"] = ints({0, -2});
  cat.misuse("permute_tokens", Form::bf16, 8, 32, "index-below-minus-1", x);
  x["permuted_indices"] = ints(1, 2, {0, 1});
  cat.misuse("permute_tokens", Form::bf16, 8, 32, "indices-rank-2", x);

  Tensors y = rows_of(Form::mxfp8, spec, 4, 32);
  y["permuted_indices"] = ints({0, 2, 2, 1});
  set_ints(cat.misuse("unpermute_tokens", Form::mxfp8, 4, 32, "repeated-index", y), {{"num_tokens", 4}});
  y["permuted_indices"] = ints({0, 2, 4, 1});
  set_ints(cat.misuse("unpermute_tokens", Form::mxfp8, 4, 32, "index-beyond-tokens", y), {{"num_tokens", 4}});
  y["permuted_indices"] = ints({0, 2, 1});
  set_ints(cat.misuse("unpermute_tokens", Form::mxfp8, 4, 32, "indices-size", y), {{"num_tokens", 4}});
  y["permuted_indices"] = ints({0, 2, 3, 1});
  cat.misuse("unpermute_tokens", Form::mxfp8, 4, 32, "num-tokens-missing", y);
}

// ---- EP permute_and_pad -------------------------------------------------------------------------------

void permute_and_pad_cases(FormCatalogue& cat, std::int64_t up) {
  struct Shape {
    Form form;
    std::int64_t cols, ep_degree, local_experts, alignment;
    Ints counts;           // empty: random, up to max_count each (some zero)
    std::int64_t max_count, extra_rows;  // rows of x = sum(counts) + extra_rows
    Distribution dist;
  };
  const std::vector<Shape> shapes = {
      {Form::bf16, 32, 2, 2, 4, {2, 0, 1, 3}, 0, 2, Distribution::normal},                // hand-checkable
      {Form::mxfp8, 224, 4, 8, 32, {}, 8 * up, 0, Distribution::normal},                  // DSv3: 256 experts / 32 ranks
      {Form::fp32, 16, 2, 3, 8, {0, 0, 0, 0, 0, 0}, 0, 5, Distribution::specials},         // no tokens for anyone
      {Form::fp8blk, 256, 1, 4, 16, {}, 20, 3, Distribution::outliers},                   // a single rank
      {Form::bf16, 160, 4, 4, 16, {}, 10 * up, 0, Distribution::student_t},               // Llama4 16 experts / 4 ranks
      {Form::mxfp8, 64, 2, 2, 32, {70, 0, 1, 0}, 0, 0, Distribution::log_uniform},        // huge and tiny experts
  };
  std::uint64_t seed = 300;
  for (const Shape& s : shapes) {
    const InputSpec spec = spec_of(s.dist, seed++);
    Ints counts = s.counts;
    if (counts.empty())
      for (std::int64_t i = 0; i < s.ep_degree * s.local_experts; ++i) {
        const std::int64_t c = uniform_int(spec.seed, std::uint64_t(i), s.max_count + 1);
        counts.push_back(uniform_int(spec.seed, std::uint64_t(500 + i), 5) == 0 ? 0 : c);
      }
    std::int64_t rows = s.extra_rows;
    for (const std::int64_t c : counts) rows += c;
    Tensors in = rows_of(s.form, spec, rows, s.cols);
    in["tokens_per_expert_group"] = ints(counts, s.form == Form::fp32);
    set_ints(cat.add("permute_and_pad", s.form, rows, s.cols, spec, in),
             {{"ep_degree", s.ep_degree}, {"num_local_experts", s.local_experts}, {"alignment", s.alignment}});
  }

  const InputSpec spec = spec_of(Distribution::normal, 97);
  const auto misuse = [&](const std::string& what, Ints counts, std::int64_t ep, std::int64_t experts) {
    Tensors in = rows_of(Form::bf16, spec, 8, 32);
    in["tokens_per_expert_group"] = ints(counts);
    CaseSpec& c = cat.misuse("permute_and_pad", Form::bf16, 8, 32, what, in);
    set_ints(c, {{"ep_degree", ep}, {"alignment", 4}});
    if (experts > 0) set_ints(c, {{"num_local_experts", experts}});
  };
  misuse("counts-exceed-rows", {4, 3, 2, 0}, 2, 2);
  misuse("counts-size", {1, 2, 3}, 2, 2);
  misuse("negative-count", {1, -1, 2, 0}, 2, 2);
  misuse("ep-degree-0", {}, 0, 2);
  misuse("num-local-experts-missing", {1, 1, 1, 1}, 2, 0);
}

// ---- TE fused permute+pad / unpermute+unpad ----------------------------------------------------------

// Fills the pad rows of a combine input (rows no route reads) with quiet NaN: a combine that read
// one would turn its token's sum into NaN, and constant rows keep the file small.
void poison_pad_rows(Tensor& x, const RowIdMap& map) {
  std::vector<bool> routed(std::size_t(map.rows), false);
  for (const std::int64_t r : map.row_t_k)
    if (r >= 0) routed[std::size_t(r)] = true;
  const std::size_t row_bytes = x.bytes.size() / std::size_t(std::max<std::int64_t>(map.rows, 1));
  const bool bf16 = x.dtype == "bfloat16";
  for (std::int64_t r = 0; r < map.rows; ++r)
    if (!routed[std::size_t(r)])
      for (std::size_t b = 0; b < row_bytes; ++b) {
        const std::size_t i = std::size_t(r) * row_bytes + b;  // little-endian 0x7FC0 / 0x7FC00000
        x.bytes[i] = bf16 ? (b % 2 ? 0x7F : 0xC0) : (b % 4 == 3 ? 0x7F : b % 4 == 2 ? 0xC0 : 0x00);
      }
}

void fused_cases(FormCatalogue& cat, std::int64_t up) {
  struct Shape {
    Form form;
    std::int64_t tokens, cols, experts, topk, alignment;
    std::int64_t unused_rate;
    bool probs;
    Distribution dist;
  };
  const std::vector<Shape> shapes = {
      {Form::bf16, 6, 32, 4, 2, 4, 3, true, Distribution::normal},          // hand-checkable, unused slots
      {Form::mxfp8, 64 * up, 64, 16, 4, 32, 0, true, Distribution::normal}, // DSv3 top-8 / 256 scaled down
      {Form::fp8blk, 48, 256, 8, 2, 16, 6, false, Distribution::outliers},
      {Form::bf16, 64 * up, 160, 16, 1, 16, 0, true, Distribution::student_t},  // Llama4 top-1 of 16
      {Form::fp32, 24, 16, 6, 3, 1, 4, true, Distribution::specials},       // TE's plain moe_permute
      {Form::mxfp8, 12, 64, 32, 2, 128, 8, true, Distribution::zero_blocks},  // most experts empty, huge alignment
  };
  std::uint64_t seed = 400;
  for (const Shape& s : shapes) {
    const InputSpec spec = spec_of(s.dist, seed++);
    Routing r = random_routing(spec.seed, s.tokens, s.topk, s.experts, s.unused_rate);
    if (s.tokens > 1)  // the last token goes nowhere
      std::fill(r.expert_t_k.end() - s.topk, r.expert_t_k.end(), -1);
    Tensors in = rows_of(s.form, spec, s.tokens, s.cols);
    in["expert_t_k"] = ints(s.tokens, s.topk, r.expert_t_k);
    if (s.probs) in["probs"] = make_tensor("float32", {s.tokens, s.topk}, r.prob_t_k);
    set_ints(cat.add("fused_permute_pad", s.form, s.tokens, s.cols, spec, in),
             {{"num_experts", s.experts}, {"alignment", s.alignment}});

    // The combine of expert outputs laid out by this routing's row_id_map (bf16 / fp32 rows only).
    std::vector<std::int32_t> e32(r.expert_t_k.begin(), r.expert_t_k.end());
    const RowIdMap map = make_row_id_map(TokenRouting{s.tokens, s.topk, s.experts, e32, {}}, s.alignment);
    const Form out_form = s.form == Form::fp32 ? Form::fp32 : Form::bf16;
    const InputSpec y_spec = s.dist == Distribution::outliers ? spec_of(Distribution::log_uniform, seed++, 0x1p87)
                                                              : spec_of(s.dist, seed++);
    Tensors y = rows_of(out_form, y_spec, map.rows, s.cols);
    poison_pad_rows(y.at("x"), map);
    y["row_id_map"] = ints(s.tokens, s.topk, map.row_t_k);
    if (s.probs) y["probs"] = make_tensor("float32", {s.tokens, s.topk}, r.prob_t_k);
    CaseSpec& c = cat.add("fused_unpermute_unpad", out_form, map.rows, s.cols, y_spec, y);
    if (s.topk > 1 && s.form != Form::bf16) c.call.attrs.strings["combine_order"] = "row_descending";
    if (s.form == Form::fp32) set_ints(c, {{"fma", 1}});
  }
  // TE's mask form: routing_map (T, E) with probs (T, E).
  {
    const InputSpec spec = spec_of(Distribution::normal, seed++);
    const std::int64_t T = 16, E = 8;
    std::vector<std::uint8_t> mask(std::size_t(T * E));
    std::vector<float> probs(mask.size());
    for (std::size_t i = 0; i < mask.size(); ++i) {
      mask[i] = std::uint8_t(uniform_int(spec.seed, i, 3) == 0);
      probs[i] = mask[i] ? float(uniform_int(spec.seed, 1000 + i, 255) + 1) / 256.0f : 0.0f;
    }
    Tensors in = rows_of(Form::bf16, spec, T, 32);
    in["routing_map"] = make_tensor("uint8", {T, E}, mask);
    in["probs"] = make_tensor("float32", {T, E}, probs);
    set_ints(cat.add("fused_permute_pad", Form::bf16, T, 32, spec, in), {{"alignment", 8}});
  }

  const InputSpec spec = spec_of(Distribution::normal, 96);
  const auto permute_misuse = [&](const std::string& what, Ints experts, std::int64_t topk, Tensors extra,
                                  std::int64_t alignment = 4) {
    Tensors in = rows_of(Form::bf16, spec, 4, 32);
    in["expert_t_k"] = ints(std::int64_t(experts.size()) / topk, topk, experts);
    for (auto& [k, v] : extra) in[k] = v;
    set_ints(cat.misuse("fused_permute_pad", Form::bf16, 4, 32, what, in), {{"num_experts", 4}, {"alignment", alignment}});
  };
  permute_misuse("expert-out-of-range", {0, 1, 2, 4, 1, 0, -1, -1}, 2, {});
  permute_misuse("expert-twice", {0, 1, 2, 2, 1, 0, -1, -1}, 2, {});
  permute_misuse("routing-rows", {0, 1, 2, 3, 1, 0}, 2, {});
  permute_misuse("probs-shape", {0, 1, 2, 3, 1, 0, -1, -1}, 2,
                 {{"probs", make_tensor("float32", {4, 1}, std::vector<float>(4, 0.5f))}});
  permute_misuse("alignment-0", {0, 1, 2, 3, 1, 0, -1, -1}, 2, {}, 0);
  permute_misuse("both-routing-forms", {0, 1, 2, 3, 1, 0, -1, -1}, 2,
                 {{"routing_map", make_tensor("uint8", {4, 4}, std::vector<std::uint8_t>(16, 0))}});
  {
    Tensors in = rows_of(Form::bf16, spec, 2, 32);
    in["routing_map"] = make_tensor("uint8", {2, 2}, std::vector<std::uint8_t>{1, 0, 2, 1});
    cat.misuse("fused_permute_pad", Form::bf16, 2, 32, "routing-map-not-boolean", in);
  }

  const auto unpermute_misuse = [&](const std::string& what, Form f, Ints rows_t_k, Tensors extra) {
    Tensors in = rows_of(f, spec, 4, 32);
    in["row_id_map"] = ints(std::int64_t(rows_t_k.size()) / 2, 2, rows_t_k);
    for (auto& [k, v] : extra) in[k] = v;
    return &cat.misuse("fused_unpermute_unpad", f, 4, 32, what, in);
  };
  unpermute_misuse("row-out-of-range", Form::bf16, {0, 1, 2, 4}, {});
  unpermute_misuse("x-dtype-fp8", Form::mxfp8, {0, 1, 2, 3}, {});
  unpermute_misuse("probs-shape", Form::bf16, {0, 1, 2, 3},
                   {{"probs", make_tensor("float32", {2, 1}, std::vector<float>(2, 1.0f))}});
  unpermute_misuse("combine-order-unknown", Form::bf16, {0, 1, 2, 3}, {})->call.attrs.strings["combine_order"] = "random";
  set_ints(*unpermute_misuse("fma-2", Form::fp32, {0, 1, 2, 3}, {}), {{"fma", 2}});
}

}  // namespace

std::vector<CaseSpec> layout_cases(Suite s) {
  const std::int64_t up = s == Suite::full ? 8 : 1;  // the full suite scales the token counts
  FormCatalogue cat;
  pad_cases(cat, up);
  permute_cases(cat, up);
  permute_and_pad_cases(cat, up);
  fused_cases(cat, up);
  return cat.take();
}

}  // namespace octet::golden
