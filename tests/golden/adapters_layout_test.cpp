// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// adapters_layout_test.cpp — the layout family's golden adapters (golden/src/adapters/layout.cpp)
// and catalogue (golden/src/cases/layout.cpp): through the runner, every pad / permute kernel
// returns the bytes, shapes and dtypes of the emulator kernel called directly (and of naive
// gathers written here); misuse is a KernelInputError naming the problem; every default case
// computes, with an expected error exactly where marked.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "octet/golden/inputs.hpp"
#include "expect_tensor.hpp"
#include "octet/golden/runner.hpp"
#include "octet/golden/suite.hpp"
#include "octet/kernels/layout_pad_permute.hpp"

namespace octet::golden {
namespace {

using Ints = std::vector<std::int64_t>;

using testing_util::expect_tensor;

// The outputs have exactly the names `want` lists, each equal to the expected tensor.
void expect_outputs(const Tensors& got, const Tensors& want) {
  std::set<std::string> got_names, want_names;
  for (const auto& [n, t] : got) got_names.insert(n);
  for (const auto& [n, t] : want) want_names.insert(n);
  EXPECT_EQ(got_names, want_names);
  for (const auto& [n, t] : want)
    if (got.count(n)) expect_tensor(got.at(n), t, n);
}

KernelCall call(const std::string& kernel, Tensors inputs, std::map<std::string, std::int64_t> ints = {},
                std::map<std::string, std::string> strings = {}) {
  KernelCall c;
  c.kernel = kernel;
  c.inputs = std::move(inputs);
  c.attrs.ints = std::move(ints);
  c.attrs.strings = std::move(strings);
  return c;
}

Tensor rows_tensor(const std::string& dtype, const RowsBuffer& b) {
  Tensor t;
  t.dtype = dtype;
  t.shape = {b.rows, b.cols};
  t.bytes = b.bytes;
  return t;
}
RowsView view_of(const Tensor& t) {
  return {t.bytes.data(), t.shape[0], t.shape[1], std::int64_t(lookup_dtype(t.dtype)->element_size)};
}
// A row-major tensor of `dtype` holding raw little-endian element bytes.
Tensor bytes_tensor(const std::string& dtype, Ints shape, std::vector<std::uint8_t> bytes) {
  Tensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.bytes = std::move(bytes);
  return t;
}
Tensor i64(const Ints& v) { return make_tensor("int64", v); }
Tensor i64(std::int64_t rows, std::int64_t cols, const Ints& v) { return make_tensor("int64", {rows, cols}, v); }

// Small inputs: bf16 rows, and e4m3 codes with 1x32 e8m0 scales (arbitrary bytes: the kernels copy).
Tensor bf16_rows(std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  return generate_tensor(InputSpec{Distribution::specials, seed}, {rows, cols}, "bfloat16");
}
Tensors fp8_rows(std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  std::vector<std::uint8_t> q(std::size_t(rows * cols)), s(std::size_t(rows * (cols / 32)));
  for (std::size_t i = 0; i < q.size(); ++i) q[i] = std::uint8_t(uniform_int(seed, i, 256));
  for (std::size_t i = 0; i < s.size(); ++i) s[i] = std::uint8_t(uniform_int(seed, 100000 + i, 256));
  return {{"x", make_tensor("float8_e4m3fn", {rows, cols}, q)},
          {"x_scale", make_tensor("float8_e8m0fnu", {rows, cols / 32}, s)}};
}

// Naive row gather: out row i = src row index[i], zero for -1.
std::vector<std::uint8_t> gather(const Tensor& src, const Ints& index) {
  const std::size_t row = src.bytes.size() / std::size_t(std::max<std::int64_t>(src.shape[0], 1));
  std::vector<std::uint8_t> out(index.size() * row, 0);
  for (std::size_t i = 0; i < index.size(); ++i)
    if (index[i] >= 0) std::memcpy(&out[i * row], &src.bytes[std::size_t(index[i]) * row], row);
  return out;
}

TEST(LayoutAdapters, PadAndUnpadEqualTheEmulatorAndRoundTrip) {
  for (const bool quantised : {false, true}) {
    SCOPED_TRACE(quantised ? "fp8 + e8m0" : "bf16");
    Tensors in = quantised ? fp8_rows(10, 64, 1) : Tensors{{"x", bf16_rows(10, 64, 1)}};
    const Ints offs = {3, 3, 9};  // an empty group; row 9 belongs to no group
    in["offs"] = make_tensor("int32", std::vector<std::int32_t>{3, 3, 9});
    const Tensors got = run_kernel(call("pad_token_groups", in, {{"alignment", 4}}));

    const RowsView scales = quantised ? view_of(in.at("x_scale")) : RowsView{};
    const PaddedTokenGroups p = pad_token_groups(view_of(in.at("x")), std::span<const std::int64_t>(offs), 4, scales);
    Tensors want{{"y", rows_tensor(in.at("x").dtype, p.data)},
                 {"padded_starts", i64(p.padded_starts)},
                 {"padded_offs", i64(p.padded_offs)}};
    if (quantised) want["y_scale"] = rows_tensor("float8_e8m0fnu", p.scales);
    expect_outputs(got, want);
    // torchao's contract: (round_up(T + G*alignment, alignment), D) rows, groups at 4-aligned starts.
    EXPECT_EQ(got.at("y").shape, (Ints{24, 64}));
    EXPECT_EQ(values_of<std::int64_t>(got.at("padded_starts")), (Ints{0, 4, 4}));
    EXPECT_EQ(values_of<std::int64_t>(got.at("padded_offs")), (Ints{4, 4, 12}));
    const Ints src_of_row = {0, 1, 2, -1, 3, 4, 5, 6, 7, 8, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
    expect_tensor(got.at("y"), bytes_tensor(in.at("x").dtype, {24, 64}, gather(in.at("x"), src_of_row)),
                  "y (naive gather)");

    Tensors back{{"x", got.at("y")}, {"offs", i64(offs)}, {"padded_starts", got.at("padded_starts")}};
    if (quantised) back["x_scale"] = got.at("y_scale");
    const Tensors unpadded = run_kernel(call("unpad_token_groups", back, {{"num_tokens", 10}}));
    const TokenRows u = unpad_token_groups(view_of(got.at("y")), std::span<const std::int64_t>(offs), p.padded_starts,
                                           10, quantised ? view_of(got.at("y_scale")) : RowsView{});
    Tensors want_u{{"y", rows_tensor(in.at("x").dtype, u.data)}};
    if (quantised) want_u["y_scale"] = rows_tensor("float8_e8m0fnu", u.scales);
    expect_outputs(unpadded, want_u);
    const Ints first_nine = {0, 1, 2, 3, 4, 5, 6, 7, 8, -1};  // row 9 was dropped: zero
    expect_tensor(unpadded.at("y"), bytes_tensor(in.at("x").dtype, {10, 64}, gather(in.at("x"), first_nine)),
                  "y (round trip)");
  }
}

TEST(LayoutAdapters, PermuteAndUnpermuteEqualTheEmulatorAndNaiveGathers) {
  Tensors in = fp8_rows(6, 32, 2);
  const Ints index = {5, -1, 0, 3, 3, 1};  // a zero row and a repeat
  in["permuted_indices"] = i64(index);
  const Tensors got = run_kernel(call("permute_tokens", in));
  const TokenRows r = permute_tokens(view_of(in.at("x")), std::span<const std::int64_t>(index), view_of(in.at("x_scale")));
  expect_outputs(got, {{"y", rows_tensor("float8_e4m3fn", r.data)}, {"y_scale", rows_tensor("float8_e8m0fnu", r.scales)}});
  expect_tensor(got.at("y"), make_tensor("float8_e4m3fn", {6, 32}, gather(in.at("x"), index)), "y (naive gather)");
  expect_tensor(got.at("y_scale"), make_tensor("float8_e8m0fnu", {6, 1}, gather(in.at("x_scale"), index)),
                "y_scale (naive gather)");

  const Ints scatter = {4, -1, 0, 2};  // onto 6 tokens: tokens 1, 3, 5 stay zero
  Tensors y{{"x", bf16_rows(4, 16, 3)}, {"permuted_indices", i64(scatter)}};
  const Tensors back = run_kernel(call("unpermute_tokens", y, {{"num_tokens", 6}}));
  const TokenRows u = unpermute_tokens(view_of(y.at("x")), std::span<const std::int64_t>(scatter), 6);
  expect_outputs(back, {{"y", rows_tensor("bfloat16", u.data)}});
  expect_tensor(back.at("y"), bytes_tensor("bfloat16", {6, 16}, gather(y.at("x"), {2, -1, 3, -1, 0, -1})),
                "y (naive inverse)");
}

TEST(LayoutAdapters, PermuteAndPadEqualsTheEmulator) {
  Tensors in = fp8_rows(9, 64, 4);
  const Ints counts = {2, 0, 1, 3};  // rank-major: rank 0 (E0 2, E1 0), rank 1 (E0 1, E1 3)
  in["tokens_per_expert_group"] = make_tensor("int32", std::vector<std::int32_t>{2, 0, 1, 3});
  const Tensors got =
      run_kernel(call("permute_and_pad", in, {{"ep_degree", 2}, {"num_local_experts", 2}, {"alignment", 4}}));
  const PermutedAndPadded p = permute_and_pad(view_of(in.at("x")), std::span<const std::int64_t>(counts), 2, 2, 4,
                                              view_of(in.at("x_scale")));
  expect_outputs(got, {{"y", rows_tensor("float8_e4m3fn", p.rows.data)},
                       {"y_scale", rows_tensor("float8_e8m0fnu", p.rows.scales)},
                       {"permuted_indices", i64(p.indices.permuted_indices)},
                       {"m_sizes", i64(p.indices.m_sizes)},
                       {"m_offsets", i64(p.indices.m_offsets)}});
  // Input rows: rank 0's E0 chunk 0-1, rank 1's E0 chunk 2, its E1 chunk 3-5 (rows 6-8 unsent).
  // Expert 0: rows 0, 1, 2 and one pad; expert 1: rows 3-5 and one pad; then max_len padding.
  const Ints want_index = {0, 1, 2, -1, 3, 4, 5, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
  EXPECT_EQ(values_of<std::int64_t>(got.at("permuted_indices")), want_index);
  EXPECT_EQ(values_of<std::int64_t>(got.at("m_sizes")), (Ints{4, 4}));
  expect_tensor(got.at("y"), make_tensor("float8_e4m3fn", {20, 64}, gather(in.at("x"), want_index)), "y (naive)");
}

TEST(LayoutAdapters, FusedPermutePadEqualsTheEmulatorInBothRoutingForms) {
  const std::vector<std::int32_t> experts = {2, 0, -1, -1, 1, 2};  // token 1 goes nowhere
  const std::vector<float> probs = {0.25f, 0.75f, 0.0f, 0.0f, 0.0f, 1.0f};  // token 2's slot 0: prob 0
  Tensors in = fp8_rows(3, 32, 5);
  in["expert_t_k"] = make_tensor("int32", {3, 2}, experts);
  in["probs"] = make_tensor("float32", {3, 2}, probs);
  const Tensors got = run_kernel(call("fused_permute_pad", in, {{"num_experts", 4}, {"alignment", 4}}));
  const PermutedTokens p = fused_permute_pad(view_of(in.at("x")), TokenRouting{3, 2, 4, experts, probs}, 4,
                                             view_of(in.at("x_scale")));
  const Tensors want{{"y", rows_tensor("float8_e4m3fn", p.data)},
                     {"y_scale", rows_tensor("float8_e8m0fnu", p.scales)},
                     {"y_probs", make_tensor("float32", p.probs)},
                     {"row_id_map", i64(3, 2, p.map.row_t_k)},
                     {"tokens_per_expert", i64(p.map.tokens_per_expert)},
                     {"pad_offsets", i64(p.map.pad_offsets)},
                     {"padded_offs", i64(p.map.padded_offs)}};
  expect_outputs(got, want);
  EXPECT_EQ(values_of<std::int64_t>(got.at("padded_offs")), (Ints{4, 8, 12, 12}));  // expert 3: no rows

  // TE's mask form of a routing whose tokens list their experts in ascending order.
  const std::vector<std::uint8_t> mask = {1, 0, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0};
  const std::vector<float> mask_probs = {0.5f, 0, 0.5f, 0, 0, 0, 0, 0, 0, 0.125f, 0.875f, 0};
  Tensors m{{"x", bf16_rows(3, 16, 6)}, {"routing_map", make_tensor("uint8", {3, 4}, mask)},
            {"probs", make_tensor("float32", {3, 4}, mask_probs)}};
  const Tensors got_m = run_kernel(call("fused_permute_pad", m, {{"alignment", 2}}));
  const OwnedRouting r = routing_from_mask(mask, mask_probs, 3, 4);
  const PermutedTokens pm = fused_permute_pad(view_of(m.at("x")), r.view(), 2);
  expect_outputs(got_m, {{"y", rows_tensor("bfloat16", pm.data)},
                         {"y_probs", make_tensor("float32", pm.probs)},
                         {"row_id_map", i64(3, 2, pm.map.row_t_k)},
                         {"tokens_per_expert", i64(pm.map.tokens_per_expert)},
                         {"pad_offsets", i64(pm.map.pad_offsets)},
                         {"padded_offs", i64(pm.map.padded_offs)}});
}

TEST(LayoutAdapters, FusedUnpermuteUnpadEqualsTheEmulatorForEveryOrder) {
  const Ints rows_t_k = {3, 0, -1, -1, 5, 1};  // token 1 has no route: +0
  const std::vector<float> probs = {0.5f, 0.25f, 0, 0, 0.75f, 1.0f};
  for (const char* dtype : {"bfloat16", "float32"})
    for (const char* order : {"slot_ascending", "row_descending"})
      for (const std::int64_t fma : {0, 1}) {
        SCOPED_TRACE(std::string(dtype) + " " + order + " fma " + std::to_string(fma));
        const Tensor x = generate_tensor(InputSpec{Distribution::outliers, 7}, {6, 24}, dtype);
        const Tensors got = run_kernel(call("fused_unpermute_unpad",
                                            {{"x", x}, {"row_id_map", i64(3, 2, rows_t_k)},
                                             {"probs", make_tensor("float32", {3, 2}, probs)}},
                                            {{"fma", fma}}, {{"combine_order", order}}));
        RowIdMap map;
        map.tokens = 3, map.topk = 2, map.rows = 6, map.row_t_k = rows_t_k;
        const CombineSpec spec{std::string(order) == "row_descending" ? CombineOrder::row_descending
                                                                      : CombineOrder::slot_ascending,
                               fma == 1};
        const RowsBuffer y = fused_unpermute_unpad(view_of(x), std::string(dtype) == "bfloat16" ? InputType::bf16
                                                                                                : InputType::fp32,
                                                   map, probs, spec);
        expect_outputs(got, {{"y", rows_tensor(dtype, y)}});
        for (std::size_t b = 24 * x.bytes.size() / 144; b < 48 * x.bytes.size() / 144; ++b)
          ASSERT_EQ(got.at("y").bytes[b], 0) << "token 1 (no route) must be +0";
      }
}

// Misuse: a KernelInputError whose message names the problem.
void expect_rejected(const KernelCall& c, const std::string& needle) {
  try {
    run_kernel(c);
    ADD_FAILURE() << c.kernel << ": accepted; expected an error naming '" << needle << "'";
  } catch (const KernelInputError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(c.kernel), std::string::npos) << e.what();
  }
}

TEST(LayoutAdapters, MisuseIsAKernelInputErrorNamingTheProblem) {
  const Tensor x = bf16_rows(8, 32, 8);
  expect_rejected(call("pad_token_groups", {{"x", x}, {"offs", i64({5, 3, 8})}}), "not monotonic");
  expect_rejected(call("pad_token_groups", {{"x", x}, {"offs", i64({4, 12})}}), "beyond");
  expect_rejected(call("pad_token_groups", {{"x", x}, {"offs", i64({8})}}, {{"alignment", 0}}), "alignment");
  expect_rejected(call("pad_token_groups", {{"x", make_tensor("int64", {8, 1}, Ints(8, 0))}, {"offs", i64({8})}}),
                  "input 'x': dtype 'int64'");
  expect_rejected(call("pad_token_groups", {{"x", x}}), "missing input dataset 'offs'");
  Tensors q = fp8_rows(8, 64, 9);
  q["offs"] = i64({8});
  q["x_scale"] = make_tensor("float8_e8m0fnu", {7, 2}, std::vector<std::uint8_t>(14, 127));
  expect_rejected(call("pad_token_groups", q), "input 'x_scale': 7 rows");
  q["x_scale"] = make_tensor("bfloat16", {8, 2}, std::vector<std::uint16_t>(16, 0));
  expect_rejected(call("pad_token_groups", q), "input 'x_scale': dtype 'bfloat16'");
  expect_rejected(call("unpad_token_groups", {{"x", x}, {"offs", i64({3, 8})}, {"padded_starts", i64({0})}}),
                  "padded_starts");
  expect_rejected(call("permute_tokens", {{"x", x}, {"permuted_indices", i64({0, 8})}}), "permuted_indices[1] = 8");
  expect_rejected(call("unpermute_tokens", {{"x", bf16_rows(3, 32, 1)}, {"permuted_indices", i64({0, 2, 2})}},
                       {{"num_tokens", 4}}),
                  "repeats");
  expect_rejected(call("unpermute_tokens", {{"x", bf16_rows(3, 32, 1)}, {"permuted_indices", i64({0, 2, 1})}}),
                  "missing int64 attribute 'num_tokens'");
  expect_rejected(call("permute_and_pad", {{"x", x}, {"tokens_per_expert_group", i64({4, 3, 2, 0})}},
                       {{"ep_degree", 2}, {"num_local_experts", 2}}),
                  "sums to 9");
  expect_rejected(call("permute_and_pad", {{"x", x}, {"tokens_per_expert_group", i64({1, 2, 3})}},
                       {{"ep_degree", 2}, {"num_local_experts", 2}}),
                  "tokens_per_expert_group: size");
  const Tensor x4 = bf16_rows(4, 32, 2);
  expect_rejected(call("fused_permute_pad", {{"x", x4}, {"expert_t_k", i64(4, 2, {0, 1, 2, 4, 1, 0, -1, -1})}},
                       {{"num_experts", 4}}),
                  "outside [-1, 4)");
  expect_rejected(call("fused_permute_pad", {{"x", x4}, {"expert_t_k", i64(4, 2, {0, 1, 2, 2, 1, 0, -1, -1})}},
                       {{"num_experts", 4}}),
                  "twice");
  expect_rejected(call("fused_permute_pad", {{"x", x4}}), "exactly one of the inputs");
  expect_rejected(call("fused_permute_pad",
                       {{"x", bf16_rows(1, 32, 1)}, {"routing_map", make_tensor("uint8", {1, 2}, std::vector<std::uint8_t>{2, 0})}}),
                  "not a boolean");
  expect_rejected(call("fused_unpermute_unpad", {{"x", x4}, {"row_id_map", i64(2, 2, {0, 1, 2, 4})}}), "outside [-1, 4)");
  expect_rejected(call("fused_unpermute_unpad", {{"x", fp8_rows(4, 32, 1).at("x")}, {"row_id_map", i64(2, 2, {0, 1, 2, 3})}}),
                  "input 'x': dtype 'float8_e4m3fn'");
  expect_rejected(call("fused_unpermute_unpad", {{"x", x4}, {"row_id_map", i64(2, 2, {0, 1, 2, 3})}}, {},
                       {{"combine_order", "random"}}),
                  "combine_order 'random'");
}

TEST(LayoutCatalogue, EveryDefaultCaseComputesWithErrorsExactlyWhereMarked) {
  const std::vector<CaseSpec> cases = layout_cases(Suite::default_suite);
  ASSERT_FALSE(cases.empty());
  const std::regex valid_name("[A-Za-z0-9_.-]+");
  std::set<std::string> names, kernels;
  int misuse = 0;
  for (const CaseSpec& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_TRUE(std::regex_match(c.name, valid_name));
    EXPECT_TRUE(names.insert(c.name).second) << "duplicate case name";
    EXPECT_EQ(c.name.rfind(c.call.kernel + "_", 0), 0u) << "name starts with the kernel";
    kernels.insert(c.call.kernel);
    const ComputedCase out = compute_case(c, Provenance{"test", "test"});  // logic_error if misclassified
    EXPECT_EQ(out.attrs.strings.count("expected_error"), c.expect_error ? 1u : 0u);
    misuse += c.expect_error;
  }
  for (const KernelAdapter& a : layout_adapters()) EXPECT_TRUE(kernels.count(std::string(a.name))) << a.name;
  EXPECT_GE(misuse, 20);
}

}  // namespace
}  // namespace octet::golden
