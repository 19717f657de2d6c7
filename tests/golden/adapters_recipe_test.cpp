// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// The recipe adapters (golden/src/adapters/recipe.cpp): recipe_scale_from_amax against
// scale_from_amax called directly for every recipe; recipe_quantize_blocks against the emulator's
// own row quantisers (fp8_rowwise_2d_scale_and_cast with the recipe for fp32-scale recipes,
// mx_quantize_dim0 for e8m0 recipes) and, for NVFP4, against scale.hpp called directly; misuse
// rejected with messages naming the problem; the default catalogue computes.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "octet/format.hpp"
#include "octet/golden/inputs.hpp"
#include "octet/golden/suite.hpp"
#include "octet/kernels/fp8_rowwise.hpp"
#include "octet/kernels/mx_quantize.hpp"
#include "octet/registry.hpp"
#include "octet/scale.hpp"

namespace octet::golden {
namespace {

// Compares two byte vectors; on failure prints the first mismatches (element index, hex).
void expect_same_bytes(const std::vector<std::uint8_t>& got, const std::vector<std::uint8_t>& want,
                       std::size_t element_size, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int shown = 0;
  for (std::size_t i = 0; i < got.size() && shown < 8; i += element_size) {
    if (std::equal(got.begin() + long(i), got.begin() + long(i + element_size), want.begin() + long(i))) continue;
    std::string g, w;
    char buf[8];
    for (std::size_t b = element_size; b-- > 0;) {
      std::snprintf(buf, sizeof buf, "%02x", got[i + b]);
      g += buf;
      std::snprintf(buf, sizeof buf, "%02x", want[i + b]);
      w += buf;
    }
    ADD_FAILURE() << what << ": element " << i / element_size << ": got 0x" << g << ", want 0x" << w;
    ++shown;
  }
}

template <class T>
std::vector<std::uint8_t> bytes_of(const std::vector<T>& v) {
  std::vector<std::uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

std::string scale_dtype(const Recipe& r) {
  if (storage(r) == ScaleStorage::E8m0) return "float8_e8m0fnu";
  if (storage(r) == ScaleStorage::E4m3) return "float8_e4m3fn";
  return "float32";
}

KernelCall call_of(std::string kernel, const Recipe& r, Tensors inputs) {
  KernelCall c;
  c.kernel = std::move(kernel);
  c.attrs.strings["recipe"] = std::string(r.name);
  c.inputs = std::move(inputs);
  return c;
}

TEST(RecipeAdapters, ScaleFromAmaxEqualsScaleHpp) {
  std::vector<float> amax = {0.0f, 1e-12f, 1e-4f, 0.5f, 1.0f, 448.0f, 449.0f, 480.0f, 512.0f, 3.0e38f,
                             std::bit_cast<float>(0x00000001u), std::bit_cast<float>(0x00400000u),
                             std::numeric_limits<float>::infinity(), std::bit_cast<float>(0x7fc00000u)};
  for (const Recipe& r : recipes()) {
    SCOPED_TRACE(std::string(r.name));
    const Tensors out = run_kernel(call_of("recipe_scale_from_amax", r, {{"amax", make_tensor("float32", amax)}}));
    ASSERT_EQ(out.size(), 3u);
    const Tensor& scale = out.at("scale");
    EXPECT_EQ(scale.dtype, scale_dtype(r));
    EXPECT_EQ(scale.shape, std::vector<std::int64_t>{std::int64_t(amax.size())});
    EXPECT_EQ(scale.layout, "row_major");
    std::vector<std::uint32_t> stored;
    std::vector<float> enc, dec;
    for (const float a : amax) {
      const BlockScale s = scale_from_amax(r, a);
      stored.push_back(s.stored);
      enc.push_back(s.encode);
      dec.push_back(s.decode);
    }
    if (scale.dtype == "float32") {
      expect_same_bytes(scale.bytes, bytes_of(stored), 4, "scale");
    } else {
      std::vector<std::uint8_t> b(stored.begin(), stored.end());
      expect_same_bytes(scale.bytes, b, 1, "scale");
    }
    expect_same_bytes(out.at("encode").bytes, bytes_of(enc), 4, "encode");
    expect_same_bytes(out.at("decode").bytes, bytes_of(dec), 4, "decode");
  }
}

// recipe_quantize_blocks with one block per row equals the emulator's row quantiser of the
// recipe's storage (an independent loop over the same recipe).
TEST(RecipeAdapters, QuantizeBlocksEqualsRowQuantisers) {
  int compared = 0;
  for (const Recipe& r : recipes()) {
    for (const Distribution d : {Distribution::normal, Distribution::specials, Distribution::log_uniform}) {
      for (const std::string dtype : {"float32", "bfloat16"}) {
        SCOPED_TRACE(std::string(r.name) + " " + std::string(name(d)) + " " + dtype);
        const std::int64_t rows = 6, cols = storage(r) == ScaleStorage::E8m0 ? 96 : 64;
        const Tensor x = generate_tensor(InputSpec{d, 11, 1.0, 32}, {rows, cols}, dtype);
        KernelCall call = call_of("recipe_quantize_blocks", r, {{"x", x}});
        if (storage(r) == ScaleStorage::E8m0) call.attrs.ints["block"] = 32;
        const Tensors out = run_kernel(call);
        ASSERT_EQ(out.at("q").dtype, std::string(dtype_name(element_format(r))));
        ASSERT_EQ(out.at("q").shape, (std::vector<std::int64_t>{rows, cols}));
        const std::vector<float> f32 = dtype == "float32" ? values_of<float>(x) : std::vector<float>{};
        const std::vector<std::uint16_t> b16 = dtype == "bfloat16" ? values_of<std::uint16_t>(x) : std::vector<std::uint16_t>{};
        std::vector<std::uint8_t> q_want, s_want;
        if (storage(r) == ScaleStorage::E8m0) {
          if (format_of(element_format(r)).bits() != 8) continue;
          const MxOutput2D mx = dtype == "float32" ? mx_quantize_dim0(r, View2D<const float>::row_major(f32.data(), rows, cols))
                                                   : mx_quantize_dim0(r, View2D<const std::uint16_t>::row_major(b16.data(), rows, cols));
          for (std::int64_t i = 0; i < rows; ++i)
            for (std::int64_t j = 0; j < cols; ++j) q_want.push_back(mx.data_view()(i, j));
          for (std::int64_t i = 0; i < rows; ++i)
            for (std::int64_t j = 0; j < cols / 32; ++j) s_want.push_back(mx.scale_view()(i, j));
          EXPECT_EQ(out.at("scale").shape, (std::vector<std::int64_t>{rows, cols / 32}));
        } else if (storage(r) == ScaleStorage::E4m3) {
          // NVFP4: scale.hpp's block recipe, one block per row, called directly.
          for (std::int64_t i = 0; i < rows; ++i) {
            const auto v = [&](std::int64_t j) {
              return dtype == "float32" ? f32[std::size_t(i * cols + j)] : bf16_to_float(b16[std::size_t(i * cols + j)]);
            };
            float amax = amax_init(r);
            for (std::int64_t j = 0; j < cols; ++j) amax = amax_update(r, amax, v(j));
            const BlockScale s = scale_from_amax(r, amax);
            for (std::int64_t j = 0; j < cols; ++j) q_want.push_back(std::uint8_t(quantize_element(r, s, v(j))));
            s_want.push_back(std::uint8_t(s.stored));
          }
        } else {
          const Fp8Quantized fq = dtype == "float32"
                                      ? fp8_rowwise_2d_scale_and_cast(View2D<const float>::row_major(f32.data(), rows, cols), r)
                                      : fp8_rowwise_2d_scale_and_cast(View2D<const std::uint16_t>::row_major(b16.data(), rows, cols), r);
          q_want = fq.data;
          s_want = bytes_of(fq.scales);
          EXPECT_EQ(out.at("scale").shape, (std::vector<std::int64_t>{rows, 1}));
        }
        expect_same_bytes(out.at("q").bytes, q_want, 1, "q");
        expect_same_bytes(out.at("scale").bytes, s_want, scale_dtype(r) == "float32" ? 4 : 1, "scale");
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 100);
}

TEST(RecipeAdapters, MisuseIsRejected) {
  const Recipe& r = recipe("te_current");
  const auto expect_error = [](const KernelCall& c, const std::string& needle) {
    try {
      run_kernel(c);
      ADD_FAILURE() << "accepted; expected an error containing '" << needle << "'";
    } catch (const KernelInputError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_error(call_of("recipe_scale_from_amax", r, {{"amax", make_tensor("bfloat16", std::vector<std::uint16_t>(4))}}),
               "input 'amax': dtype 'bfloat16'");
  expect_error(call_of("recipe_scale_from_amax", r, {}), "missing input dataset 'amax'");
  KernelCall unknown = call_of("recipe_scale_from_amax", r, {{"amax", make_tensor("float32", std::vector<float>(2))}});
  unknown.attrs.strings["recipe"] = "nope";
  expect_error(unknown, "unknown recipe 'nope'");
  KernelCall no_recipe = unknown;
  no_recipe.attrs.strings.erase("recipe");
  expect_error(no_recipe, "needs a 'recipe'");
  KernelCall bad_block =
      call_of("recipe_quantize_blocks", r, {{"x", make_tensor("float32", {2, 48}, std::vector<float>(96, 1.0f))}});
  bad_block.attrs.ints["block"] = 32;
  expect_error(bad_block, "not a multiple of block = 32");
  bad_block.attrs.ints["block"] = -1;
  expect_error(bad_block, "must be > 0");
  expect_error(call_of("recipe_quantize_blocks", r, {{"x", make_tensor("float32", std::vector<float>(8))}}),
               "input 'x': rank 1");
}

TEST(RecipeAdapters, RegistryEntries) {
  for (const std::string_view kernel : {"recipe_scale_from_amax", "recipe_quantize_blocks"}) {
    int found = 0;
    for (const RegistryEntry& e : registry()) {
      if (e.name != kernel) continue;
      ++found;
      EXPECT_EQ(e.kind, EntryKind::kernel);
      EXPECT_EQ(e.peer, "recipes.md");
      EXPECT_FALSE(e.summary.empty());
    }
    EXPECT_EQ(found, 1) << kernel;
    EXPECT_NE(find_adapter(kernel), nullptr) << kernel;
  }
}

TEST(RecipeAdapters, DefaultCatalogueComputes) {
  const std::vector<CaseSpec> cases = recipe_cases(Suite::default_suite);
  std::set<std::string> names, recipes_seen;
  int errors = 0;
  for (const CaseSpec& c : cases) {
    EXPECT_TRUE(names.insert(c.name).second) << "duplicate case " << c.name;
    for (const char ch : c.name) EXPECT_TRUE(std::isalnum(std::uint8_t(ch)) || ch == '_' || ch == '.' || ch == '-') << c.name;
    const ComputedCase done = compute_case(c, Provenance{"test", "test"});  // throws on a wrong expectation
    EXPECT_EQ(done.attrs.strings.count("expected_error"), c.expect_error ? 1u : 0u) << c.name;
    errors += c.expect_error;
    if (!c.expect_error) recipes_seen.insert(c.call.attrs.strings.at("recipe"));
  }
  EXPECT_EQ(recipes_seen.size(), recipes().size());
  EXPECT_GE(errors, 5);
}

}  // namespace
}  // namespace octet::golden
