// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// cases/a2a.cpp — the kernels_a2a catalogue: single-process emulation of the expert-parallel
// all-to-all (octet/kernels/a2a_emulation.hpp; reference/kernels.md §7, §10). Exchanges with the
// three payloads (torchao mxfp8, DeepEP fp8 1x128, plain bf16/fp32) over 1 to 8 simulated ranks,
// and top-k weighted combines with each payload.
//
// Split matrices are drawn with empty chunks, ranks that send or receive nothing and one
// all-empty exchange; routings leave slots unused and send some tokens nowhere. Payloads carry
// NaN/Inf (Distribution::specials) and magnitudes that overflow bf16 in the combine's sum.
#include <cstdint>
#include <string>
#include <vector>

#include "catalogue.hpp"

namespace octet::golden {
namespace {

// An (R, R) split matrix: entries uniform in [0, max_rows], one in `zero_rate` forced to 0.
Ints random_splits(std::uint64_t seed, std::int64_t ranks, std::int64_t max_rows, std::int64_t zero_rate) {
  Ints s;
  for (std::int64_t i = 0; i < ranks * ranks; ++i) {
    const bool zero = zero_rate > 0 && uniform_int(seed, std::uint64_t(1000 + i), zero_rate) == 0;
    s.push_back(zero ? 0 : uniform_int(seed, std::uint64_t(i), max_rows + 1));
  }
  return s;
}

std::int64_t sum(const Ints& v) {
  std::int64_t s = 0;
  for (const std::int64_t x : v) s += x;
  return s;
}

// The family's catalogue: cases named <kernel>_<recipe or payload>_<rows>x<cols>_<distribution>_<n>,
// misuse cases <kernel>_misuse-<what>.
class A2aCatalogue : public Catalogue {
 public:
  CaseSpec& add(const std::string& kernel, const std::string& recipe_tag, std::int64_t rows, std::int64_t cols,
                const InputSpec& spec, Tensors inputs) {
    const std::string stem = kernel + "_" + recipe_tag + "_" + dims_label({rows, cols}) + "_" +
                             std::string(name(spec.distribution));
    return Catalogue::add(kernel, stem, spec, std::move(inputs));
  }
  CaseSpec& misuse(const std::string& kernel, const std::string& what, Tensors inputs) {
    return Catalogue::misuse(kernel, kernel + "_misuse-" + what, InputSpec{Distribution::normal, 94}, std::move(inputs));
  }
};

// ---- exchanges ------------------------------------------------------------------------------------

void exchange_cases(A2aCatalogue& cat, std::int64_t up) {
  struct Exchange {
    const char* kernel;
    const char* recipe;  // "" for passthrough
    std::int64_t ranks, cols;
    Ints splits;  // empty: random_splits(max_rows, zero_rate)
    std::int64_t max_rows, zero_rate;
    const char* dtype;
    Distribution dist;
    bool rows_per_rank = false;
  };
  const std::vector<Exchange> exchanges = {
      {"a2a_exchange_mxfp8", "torchao_mx_rceil", 2, 64, {3, 5, 2, 6}, 0, 0, "bfloat16", Distribution::normal},
      {"a2a_exchange_mxfp8", "torchao_mx_rceil", 4, 224, {}, 16 * up, 4, "bfloat16", Distribution::student_t},  // DSv3/32
      {"a2a_exchange_mxfp8", "torchao_mx_rceil", 3, 32, {}, 6, 3, "float32", Distribution::specials, true},
      {"a2a_exchange_mxfp8", "torchao_mx_floor", 2, 96, {}, 10, 0, "bfloat16", Distribution::outliers},
      {"a2a_exchange_mxfp8", "torchao_mx_rceil", 2, 64, {0, 0, 0, 0}, 0, 0, "bfloat16", Distribution::normal},  // nothing moves
      {"a2a_exchange_fp8_blockwise", "deepep", 2, 128, {1, 3, 4, 0}, 0, 0, "bfloat16", Distribution::normal},
      {"a2a_exchange_fp8_blockwise", "deepep_round", 4, 256, {}, 8 * up, 4, "bfloat16", Distribution::outliers},
      {"a2a_exchange_fp8_blockwise", "deepep", 2, 128, {}, 12, 0, "float32", Distribution::specials, true},
      {"a2a_exchange_fp8_blockwise", "deepep", 8, 128, {}, 3, 2, "bfloat16", Distribution::log_uniform},  // 8 ranks
      {"a2a_exchange_fp8_blockwise", "deepep", 1, 384, {9}, 0, 0, "bfloat16", Distribution::zero_blocks},  // one rank
      {"a2a_exchange_passthrough", "", 3, 48, {}, 5, 3, "bfloat16", Distribution::log_uniform},
      {"a2a_exchange_passthrough", "", 2, 7, {2, 0, 0, 5}, 0, 0, "float32", Distribution::specials},  // rank 1 receives only from itself
      {"a2a_exchange_passthrough", "", 4, 160, {}, 8 * up, 0, "bfloat16", Distribution::normal, true},  // Llama4 5120/32
  };
  std::uint64_t seed = 700;
  for (const Exchange& e : exchanges) {
    const InputSpec spec{e.dist, seed++, 1.0, 32};
    const Ints splits = e.splits.empty() ? random_splits(spec.seed, e.ranks, e.max_rows, e.zero_rate) : e.splits;
    const std::int64_t rows = sum(splits);
    Tensors in;
    in["x"] = generate_tensor(spec, {rows, e.cols}, e.dtype);
    in["send_splits"] = int_tensor("int64", {e.ranks, e.ranks}, splits);
    if (e.rows_per_rank) {
      Ints per_rank(std::size_t(e.ranks), 0);
      for (std::int64_t s = 0; s < e.ranks; ++s)
        for (std::int64_t d = 0; d < e.ranks; ++d) per_rank[std::size_t(s)] += splits[std::size_t(s * e.ranks + d)];
      in["rows_per_rank"] = int_tensor("int32", per_rank);
    }
    const std::string recipe_tag = *e.recipe ? e.recipe : "passthrough";
    CaseSpec& c = cat.add(e.kernel, recipe_tag, rows, e.cols, spec, in);
    if (*e.recipe) c.call.attrs.strings["recipe"] = e.recipe;
    c.call.attrs.ints["ranks"] = e.ranks;
  }

  const InputSpec spec{Distribution::normal, 93, 1.0, 32};
  const auto exchange_in = [&](const Ints& splits, std::int64_t ranks_rows, std::int64_t ranks_cols, std::int64_t rows,
                               std::int64_t cols) {
    Tensors in;
    in["x"] = generate_tensor(spec, {rows, cols}, "bfloat16");
    in["send_splits"] = int_tensor("int64", {ranks_rows, ranks_cols}, splits);
    return in;
  };
  cat.misuse("a2a_exchange_mxfp8", "rows-differ-from-splits", exchange_in({3, 5, 2, 6}, 2, 2, 15, 64));
  {
    Tensors in = exchange_in({3, 5, 2, 6}, 2, 2, 16, 64);
    in["rows_per_rank"] = make_tensor("int64", Ints{8, 7});
    cat.misuse("a2a_exchange_mxfp8", "rows-per-rank-mismatch", in);
  }
  cat.misuse("a2a_exchange_mxfp8", "negative-split", exchange_in({3, -1, 2, 6}, 2, 2, 10, 64));
  cat.misuse("a2a_exchange_mxfp8", "splits-not-square", exchange_in({3, 5, 2, 6, 0, 0}, 2, 3, 16, 64));
  cat.misuse("a2a_exchange_mxfp8", "cols-not-multiple-of-32", exchange_in({3, 5, 2, 6}, 2, 2, 16, 48));
  cat.misuse("a2a_exchange_fp8_blockwise", "cols-not-multiple-of-128", exchange_in({3, 5, 2, 6}, 2, 2, 16, 64));
  cat.misuse("a2a_exchange_mxfp8", "recipe-fp32-scales", exchange_in({3, 5, 2, 6}, 2, 2, 16, 64))
      .call.attrs.strings["recipe"] = "deepep";
  cat.misuse("a2a_exchange_fp8_blockwise", "recipe-e8m0-scales", exchange_in({3, 5, 2, 6}, 2, 2, 16, 128))
      .call.attrs.strings["recipe"] = "torchao_mx_rceil";
  cat.misuse("a2a_exchange_fp8_blockwise", "recipe-unknown", exchange_in({3, 5, 2, 6}, 2, 2, 16, 128))
      .call.attrs.strings["recipe"] = "deepep_v2";
  {
    Tensors in = exchange_in({3, 5, 2, 6}, 2, 2, 16, 64);
    in["x"] = make_tensor("float8_e4m3fn", {16, 64}, std::vector<std::uint8_t>(16 * 64, 0x38));
    cat.misuse("a2a_exchange_passthrough", "x-dtype-fp8", in);
  }
  {
    Tensors in = exchange_in({3, 5, 2, 6}, 2, 2, 16, 64);
    in["send_splits"] = make_tensor("int64", Ints{3, 5, 2, 6});
    cat.misuse("a2a_exchange_passthrough", "splits-rank-1", in);
  }
}

// ---- combines -------------------------------------------------------------------------------------

// A dispatch of R ranks' tokens, each route sent to a uniform rank (or unused, one in
// unused_rate), with every rank's send buffer ordered by destination rank: the splits, the
// send-layout row of each route and the top-k weights.
struct Dispatch {
  Ints splits, tokens_per_rank, route_rows;
  std::vector<float> weights;
  std::int64_t rows = 0, tokens = 0;
};
Dispatch random_dispatch(std::uint64_t seed, std::int64_t ranks, std::int64_t tokens_each, std::int64_t topk,
                         std::int64_t unused_rate) {
  Dispatch d;
  d.splits.assign(std::size_t(ranks * ranks), 0);
  std::uint64_t draw = 0;
  for (std::int64_t s = 0; s < ranks; ++s) {
    // Rank s holds a varying number of tokens (rank 0 of a multi-rank dispatch holds none when tokens_each is 1).
    const std::int64_t n = ranks > 1 && s == 0 && tokens_each == 1 ? 0 : tokens_each + (s % 2);
    const std::int64_t t0 = d.tokens;
    d.tokens_per_rank.push_back(n);
    std::vector<std::int64_t> dst(std::size_t(n * topk));
    for (auto& v : dst) v = unused_rate > 0 && uniform_int(seed, draw++, unused_rate) == 0 ? -1 : uniform_int(seed, draw++, ranks);
    if (n > 1) std::fill(dst.end() - topk, dst.end(), -1);  // the rank's last token goes nowhere
    d.route_rows.resize(std::size_t((t0 + n) * topk), -1);
    for (std::int64_t r = 0; r < ranks; ++r)
      for (std::int64_t i = 0; i < n * topk; ++i)
        if (dst[std::size_t(i)] == r) {
          d.route_rows[std::size_t(t0 * topk + i)] = d.rows++;
          ++d.splits[std::size_t(s * ranks + r)];
        }
    d.tokens += n;
  }
  for (std::int64_t i = 0; i < d.tokens * topk; ++i)
    d.weights.push_back(float(uniform_int(seed, std::uint64_t(1 << 20) + std::uint64_t(i), 1 << 12) + 1) * 0x1p-12f);
  return d;
}

void combine_cases(A2aCatalogue& cat, std::int64_t up) {
  struct Combine {
    const char* payload;
    const char* recipe;  // "" : the payload's default / none
    std::int64_t ranks, tokens_each, topk, cols, unused_rate;
    const char* dtype;
    Distribution dist;
    double scale = 1.0;
    bool weights = true;
    const char* order = "";
    bool fma = false;
  };
  const std::vector<Combine> combines = {
      {"passthrough", "", 2, 4, 2, 32, 3, "bfloat16", Distribution::normal},
      {"passthrough", "", 4, 16 * up, 4, 128, 0, "bfloat16", Distribution::student_t},  // DSv3 top-8 scaled
      {"mxfp8", "", 2, 6, 2, 64, 4, "bfloat16", Distribution::outliers},
      {"mxfp8", "torchao_mx_floor", 3, 5, 3, 32, 0, "float32", Distribution::normal},
      {"fp8_blockwise", "deepep", 2, 5, 2, 128, 3, "float32", Distribution::specials},
      {"passthrough", "", 2, 6, 3, 16, 0, "float32", Distribution::log_uniform, 0x1p87, false, "row_descending", true},
      {"passthrough", "", 2, 8, 2, 32, 0, "bfloat16", Distribution::log_uniform, 0x1p87, true, "row_descending"},
      {"passthrough", "", 4, 16 * up, 1, 160, 0, "bfloat16", Distribution::normal},  // Llama4 top-1, 5120/32
      {"passthrough", "", 4, 1, 1, 32, 0, "bfloat16", Distribution::normal},  // rank 0 without tokens
  };
  std::uint64_t seed = 800;
  for (const Combine& c : combines) {
    const InputSpec spec{c.dist, seed++, c.scale, 32};
    const Dispatch d = random_dispatch(spec.seed, c.ranks, c.tokens_each, c.topk, c.unused_rate);
    Tensors in;
    in["x"] = generate_tensor(spec, {d.rows, c.cols}, c.dtype);
    in["send_splits"] = int_tensor("int64", {c.ranks, c.ranks}, d.splits);
    in["tokens_per_rank"] = make_tensor("int64", d.tokens_per_rank);
    in["route_rows"] = int_tensor("int64", {d.tokens, c.topk}, d.route_rows);
    if (c.weights) in["weights"] = make_tensor("float32", {d.tokens, c.topk}, d.weights);
    const std::string tag = std::string(c.payload) + (*c.recipe ? "-" + std::string(c.recipe) : "");
    CaseSpec& cs = cat.add("a2a_combine", tag, d.rows, c.cols, spec, in);
    CaseAttributes& a = cs.call.attrs;
    a.strings["payload"] = c.payload;
    if (*c.recipe) a.strings["recipe"] = c.recipe;
    if (*c.order) a.strings["combine_order"] = c.order;
    if (c.fma) a.ints["fma"] = 1;
    a.ints["ranks"] = c.ranks;
    a.ints["topk"] = c.topk;
  }

  const InputSpec spec{Distribution::normal, 92, 1.0, 32};
  const Dispatch d = random_dispatch(spec.seed, 2, 3, 2, 0);
  const auto combine_in = [&]() {
    Tensors in;
    in["x"] = generate_tensor(spec, {d.rows, 64}, "bfloat16");
    in["send_splits"] = int_tensor("int64", {2, 2}, d.splits);
    in["tokens_per_rank"] = make_tensor("int64", d.tokens_per_rank);
    in["route_rows"] = int_tensor("int64", {d.tokens, 2}, d.route_rows);
    in["weights"] = make_tensor("float32", {d.tokens, 2}, d.weights);
    return in;
  };
  {
    Tensors in = combine_in();
    Ints rows = d.route_rows;
    rows[0] = d.rows - 1;  // a row that rank 1 sent, routed from a rank-0 token
    in["route_rows"] = int_tensor("int64", {d.tokens, 2}, rows);
    cat.misuse("a2a_combine", "route-row-of-another-rank", in);
  }
  {
    Tensors in = combine_in();
    in["weights"] = make_tensor("float32", {d.tokens, 1}, std::vector<float>(std::size_t(d.tokens), 1.0f));
    cat.misuse("a2a_combine", "weights-shape", in);
  }
  {
    Tensors in = combine_in();
    in["tokens_per_rank"] = make_tensor("int64", Ints{d.tokens});
    cat.misuse("a2a_combine", "tokens-per-rank-size", in);
  }
  {
    Tensors in = combine_in();
    in["tokens_per_rank"] = make_tensor("int64", Ints{d.tokens_per_rank[0], d.tokens_per_rank[1] + 1});
    cat.misuse("a2a_combine", "route-rows-vs-tokens", in);
  }
  {
    Tensors in = combine_in();
    in["x"] = generate_tensor(spec, {d.rows + 1, 64}, "bfloat16");
    cat.misuse("a2a_combine", "rows-differ-from-splits", in);
  }
  cat.misuse("a2a_combine", "payload-unknown", combine_in()).call.attrs.strings["payload"] = "fp4";
  {
    CaseSpec& c = cat.misuse("a2a_combine", "recipe-fp32-scales-for-mxfp8", combine_in());
    c.call.attrs.strings["payload"] = "mxfp8";
    c.call.attrs.strings["recipe"] = "deepep";
  }
}

}  // namespace

std::vector<CaseSpec> a2a_cases(Suite s) {
  const std::int64_t up = s == Suite::full ? 8 : 1;  // the full suite scales the token counts
  A2aCatalogue cat;
  exchange_cases(cat, up);
  combine_cases(cat, up);
  return cat.take();
}

}  // namespace octet::golden
