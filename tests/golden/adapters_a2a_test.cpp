// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// adapters_a2a_test.cpp — the a2a family's golden adapters (golden/src/adapters/a2a.cpp) and
// catalogue (golden/src/cases/a2a.cpp): through the runner, each exchange and the combine return
// the emulator's own results (a2a_exchange / a2a_combine called directly); independently, the
// exchange is the receiver-major concatenation of the senders' chunks (rows gathered by a naive
// loop here, codes and scales from mx_quantize_dim0 on the send buffer); misuse is a
// KernelInputError naming the problem; every default case computes, errors exactly where marked.
#include <gtest/gtest.h>

#include <bit>
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
#include "octet/kernels/a2a_emulation.hpp"
#include "octet/kernels/mx_quantize.hpp"

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

KernelCall call(const std::string& kernel, Tensors inputs, std::map<std::string, std::string> strings = {}) {
  KernelCall c;
  c.kernel = kernel;
  c.inputs = std::move(inputs);
  c.attrs.strings = std::move(strings);
  return c;
}

// Three ranks; rank 1 sends nothing to rank 2 and rank 2 sends nothing at all.
const Ints kSplits = {2, 1, 3, 4, 0, 0, 0, 0, 0};
constexpr std::int64_t kRanks = 3, kRows = 10;

Tensors exchange_inputs(const char* dtype, std::int64_t cols) {
  return {{"x", generate_tensor(InputSpec{Distribution::specials, 41}, {kRows, cols}, dtype)},
          {"send_splits", make_tensor("int64", {kRanks, kRanks}, kSplits)}};
}

// Naive receive layout: for each receiver, the senders' chunks in sender order.
Ints receive_order() {
  Ints send_start(kRanks, 0), order;
  for (std::int64_t s = 1; s < kRanks; ++s)
    send_start[std::size_t(s)] = send_start[std::size_t(s - 1)] + kSplits[std::size_t((s - 1) * kRanks)] +
                                 kSplits[std::size_t((s - 1) * kRanks + 1)] + kSplits[std::size_t((s - 1) * kRanks + 2)];
  for (std::int64_t d = 0; d < kRanks; ++d)
    for (std::int64_t s = 0; s < kRanks; ++s) {
      std::int64_t chunk = send_start[std::size_t(s)];
      for (std::int64_t e = 0; e < d; ++e) chunk += kSplits[std::size_t(s * kRanks + e)];
      for (std::int64_t i = 0; i < kSplits[std::size_t(s * kRanks + d)]; ++i) order.push_back(chunk + i);
    }
  return order;
}

template <class T>
std::vector<T> gather_rows(const std::vector<T>& v, std::int64_t cols, const Ints& order) {
  std::vector<T> out;
  for (const std::int64_t r : order) out.insert(out.end(), v.begin() + r * cols, v.begin() + (r + 1) * cols);
  return out;
}

template <class In>
void check_exchange(const char* dtype) {
  SCOPED_TRACE(dtype);
  const Ints order = receive_order();
  ASSERT_EQ(std::int64_t(order.size()), kRows);
  const A2aPlan plan(kSplits, kRanks);
  // passthrough: the rows, bit for bit.
  {
    const Tensors in = exchange_inputs(dtype, 48);
    const std::vector<In> x = values_of<In>(in.at("x"));
    const Tensors got = run_kernel(call("a2a_exchange_passthrough", in));
    const auto e = a2a_exchange(View2D<const In>::row_major(x.data(), kRows, 48), plan, A2aPayload::passthrough);
    ASSERT_EQ(got.size(), 1u);
    expect_tensor(got.at("y"), make_tensor(dtype, {kRows, 48}, e.out), "y");
    expect_tensor(got.at("y"), make_tensor(dtype, {kRows, 48}, gather_rows(x, 48, order)), "y (naive)");
  }
  // mxfp8: codes and e8m0 scales of the send buffer, moved with their rows.
  {
    const Tensors in = exchange_inputs(dtype, 64);
    const std::vector<In> x = values_of<In>(in.at("x"));
    const Tensors got = run_kernel(call("a2a_exchange_mxfp8", in, {{"recipe", "torchao_mx_floor"}}));
    const Recipe& r = recipe("torchao_mx_floor");
    const auto e = a2a_exchange(View2D<const In>::row_major(x.data(), kRows, 64), plan, A2aPayload::mxfp8, r);
    ASSERT_EQ(got.size(), 3u);
    expect_tensor(got.at("y"), make_tensor(dtype, {kRows, 64}, e.out), "y");
    expect_tensor(got.at("q"), make_tensor("float8_e4m3fn", {kRows, 64}, e.data), "q");
    const MxOutput2D sent = mx_quantize_dim0(r, View2D<const In>::row_major(x.data(), kRows, 64));
    expect_tensor(got.at("q"), make_tensor("float8_e4m3fn", {kRows, 64}, gather_rows(sent.data, 64, order)), "q (naive)");
    expect_tensor(got.at("scale"), make_tensor("float8_e8m0fnu", {kRows, 2}, gather_rows(sent.scale, 2, order)),
                  "scale (naive)");
  }
  // fp8_blockwise: 1x128 codes and fp32 scale_inv.
  {
    const Tensors in = exchange_inputs(dtype, 256);
    const std::vector<In> x = values_of<In>(in.at("x"));
    const Tensors got = run_kernel(call("a2a_exchange_fp8_blockwise", in));
    const auto e = a2a_exchange(View2D<const In>::row_major(x.data(), kRows, 256), plan, A2aPayload::fp8_blockwise,
                                recipe("deepep"));
    ASSERT_EQ(got.size(), 3u);
    expect_tensor(got.at("y"), make_tensor(dtype, {kRows, 256}, e.out), "y");
    expect_tensor(got.at("q"), make_tensor("float8_e4m3fn", {kRows, 256}, e.data), "q");
    std::vector<float> si(e.scales.size());
    for (std::size_t i = 0; i < si.size(); ++i) si[i] = std::bit_cast<float>(e.scales[i]);
    expect_tensor(got.at("scale_inv"), make_tensor("float32", {kRows, 2}, si), "scale_inv");
  }
}

TEST(A2aAdapters, ExchangesEqualTheEmulatorAndTheReceiverMajorConcatenation) {
  check_exchange<std::uint16_t>("bfloat16");
  check_exchange<float>("float32");
}

TEST(A2aAdapters, CombineEqualsTheEmulatorForEveryPayloadAndOrder) {
  // Tokens: rank 0 holds 2, rank 1 holds 2, rank 2 none. Route rows are send-layout rows of the
  // token's own rank (rank 0: rows 0-5, rank 1: rows 6-9).
  const Ints tokens_per_rank = {2, 2, 0};
  const Ints route_rows = {0, 3, 5, -1, 6, 9, -1, -1};  // token 3 goes nowhere
  const std::vector<float> weights = {0.5f, 0.25f, 1.0f, 0.0f, 0.125f, 0.875f, 0.0f, 0.0f};
  for (const char* payload : {"passthrough", "mxfp8", "fp8_blockwise"})
    for (const char* order : {"slot_ascending", "row_descending"}) {
      SCOPED_TRACE(std::string(payload) + " " + order);
      const Tensor x = generate_tensor(InputSpec{Distribution::outliers, 42}, {kRows, 128}, "bfloat16");
      const Tensors got = run_kernel(call("a2a_combine",
                                          {{"x", x},
                                           {"send_splits", make_tensor("int64", {kRanks, kRanks}, kSplits)},
                                           {"tokens_per_rank", make_tensor("int64", tokens_per_rank)},
                                           {"route_rows", make_tensor("int64", {4, 2}, route_rows)},
                                           {"weights", make_tensor("float32", {4, 2}, weights)}},
                                          {{"payload", payload}, {"combine_order", order}}));
      const std::vector<std::uint16_t> xv = values_of<std::uint16_t>(x);
      const A2aRoutes routes{tokens_per_rank, 2, route_rows, weights};
      A2aPayload p = A2aPayload::passthrough;
      if (std::string(payload) == "mxfp8") p = A2aPayload::mxfp8;
      if (std::string(payload) == "fp8_blockwise") p = A2aPayload::fp8_blockwise;
      const CombineSpec spec{std::string(order) == "row_descending" ? CombineOrder::row_descending
                                                                    : CombineOrder::slot_ascending};
      const std::vector<std::uint16_t> y = a2a_combine(View2D<const std::uint16_t>::row_major(xv.data(), kRows, 128),
                                                       A2aPlan(kSplits, kRanks), routes, p, spec);
      ASSERT_EQ(got.size(), 1u);
      expect_tensor(got.at("y"), make_tensor("bfloat16", {4, 128}, y), "y");
      for (std::size_t b = 3 * 256; b < 4 * 256; ++b) ASSERT_EQ(got.at("y").bytes[b], 0) << "token 3 must be +0";
    }
}

void expect_rejected(const KernelCall& c, const std::string& needle) {
  try {
    run_kernel(c);
    ADD_FAILURE() << c.kernel << ": accepted; expected an error naming '" << needle << "'";
  } catch (const KernelInputError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(c.kernel), std::string::npos) << e.what();
  }
}

TEST(A2aAdapters, MisuseIsAKernelInputErrorNamingTheProblem) {
  Tensors in = exchange_inputs("bfloat16", 64);
  in["rows_per_rank"] = make_tensor("int64", Ints{6, 3, 0});
  expect_rejected(call("a2a_exchange_mxfp8", in), "rows_per_rank[1] = 3");
  in = exchange_inputs("bfloat16", 64);
  in["send_splits"] = make_tensor("int64", {1, 9}, kSplits);
  expect_rejected(call("a2a_exchange_passthrough", in), "not square");
  in["send_splits"] = make_tensor("int64", {kRanks, kRanks}, Ints{2, 1, 3, 4, 0, 0, 0, 0, 1});
  expect_rejected(call("a2a_exchange_passthrough", in), "splits sum to 11");
  in["send_splits"] = make_tensor("int64", {kRanks, kRanks}, Ints{2, 1, 3, 4, 0, 0, 0, 1, -1});
  expect_rejected(call("a2a_exchange_passthrough", in), "is negative");
  expect_rejected(call("a2a_exchange_fp8_blockwise", exchange_inputs("bfloat16", 64)), "block size 128");
  expect_rejected(call("a2a_exchange_mxfp8", exchange_inputs("bfloat16", 48)), "block size 32");
  expect_rejected(call("a2a_exchange_mxfp8", exchange_inputs("bfloat16", 64), {{"recipe", "deepep"}}),
                  "needs an e8m0 recipe");
  expect_rejected(call("a2a_exchange_fp8_blockwise", exchange_inputs("bfloat16", 128), {{"recipe", "torchao_mx_rceil"}}),
                  "needs an fp32-scale recipe");
  expect_rejected(call("a2a_exchange_fp8_blockwise", exchange_inputs("bfloat16", 128), {{"recipe", "nope"}}),
                  "unknown recipe 'nope'");
  in = exchange_inputs("bfloat16", 64);
  in["x"] = make_tensor("float8_e4m3fn", {kRows, 64}, std::vector<std::uint8_t>(kRows * 64, 0));
  expect_rejected(call("a2a_exchange_passthrough", in), "input 'x': dtype 'float8_e4m3fn'");

  Tensors c = exchange_inputs("bfloat16", 32);
  c["tokens_per_rank"] = make_tensor("int64", Ints{1, 1, 0});
  c["route_rows"] = make_tensor("int64", {2, 1}, Ints{7, 6});  // token 0 (rank 0) names a rank-1 row
  expect_rejected(call("a2a_combine", c), "not a row that rank 0 sent");
  c["route_rows"] = make_tensor("int64", {3, 1}, Ints{0, 6, -1});
  expect_rejected(call("a2a_combine", c), "tokens_per_rank sums to 2");
  c["route_rows"] = make_tensor("int64", {2, 1}, Ints{0, 6});
  c["weights"] = make_tensor("float32", {2, 2}, std::vector<float>(4, 1.0f));
  expect_rejected(call("a2a_combine", c), "input 'weights'");
  c.erase("weights");
  expect_rejected(call("a2a_combine", c, {{"payload", "fp4"}}), "payload 'fp4'");
  expect_rejected(call("a2a_combine", c, {{"payload", "mxfp8"}, {"recipe", "deepep"}}), "needs an e8m0 recipe");
}

TEST(A2aCatalogue, EveryDefaultCaseComputesWithErrorsExactlyWhereMarked) {
  const std::vector<CaseSpec> cases = a2a_cases(Suite::default_suite);
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
  for (const KernelAdapter& a : a2a_adapters()) EXPECT_TRUE(kernels.count(std::string(a.name))) << a.name;
  EXPECT_GE(misuse, 15);
}

}  // namespace
}  // namespace octet::golden
