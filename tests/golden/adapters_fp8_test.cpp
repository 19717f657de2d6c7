// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// The fp8 family's golden adapters (golden/src/adapters/fp8.cpp) and catalogue (cases/fp8.cpp):
// every adapter's outputs equal the emulator kernel called directly, read out of its buffer here
// through the strides its header documents (names, dtypes, shapes, strides, layouts, bytes);
// misuse is a KernelInputError naming the problem; every default case computes, with expected
// errors exactly where marked.
#include <gtest/gtest.h>

#include <bit>
#include <cstdio>
#include <functional>
#include <regex>
#include <set>

#include "octet/format.hpp"
#include "octet/golden/inputs.hpp"
#include "octet/golden/suite.hpp"
#include "octet/kernels/fp8_blockwise.hpp"
#include "octet/kernels/fp8_per_group.hpp"
#include "octet/kernels/fp8_rowwise.hpp"
#include "octet/registry.hpp"

using namespace octet;
using namespace octet::golden;

namespace {

using Dims = std::vector<std::int64_t>;

// ---- expected outputs, from the emulator's buffers ------------------------------------------------

struct Expected {
  std::string name, dtype, layout;
  Dims shape, strides;
  std::vector<std::uint8_t> bytes;  // logical row-major
};

// Element (i0, i1, i2) of a buffer with the documented shape and strides, in logical order.
template <class T>
std::vector<T> gather(const std::vector<T>& buffer, const Dims& shape, const Dims& strides) {
  const Dims s3 = shape.size() == 3 ? shape : shape.size() == 2 ? Dims{1, shape[0], shape[1]} : Dims{1, 1, shape[0]};
  const Dims t3 = strides.size() == 3   ? strides
                  : strides.size() == 2 ? Dims{0, strides[0], strides[1]}
                                        : Dims{0, 0, strides[0]};
  std::vector<T> out;
  for (std::int64_t a = 0; a < s3[0]; ++a)
    for (std::int64_t b = 0; b < s3[1]; ++b)
      for (std::int64_t c = 0; c < s3[2]; ++c) out.push_back(buffer.at(std::size_t(a * t3[0] + b * t3[1] + c * t3[2])));
  return out;
}

Expected codes(const std::string& name, const Recipe& r, const Fp8Quantized& q, Dims shape, Dims strides,
               std::string layout) {
  EXPECT_EQ(q.data_layout.shape, shape) << name;
  EXPECT_EQ(q.data_layout.strides, strides) << name;
  return {name, std::string(dtype_name(element_format(r))), std::move(layout), shape, strides,
          gather(q.data, shape, strides)};
}

Expected scales(const std::string& name, const Fp8Quantized& q, Dims shape, Dims strides, std::string layout) {
  EXPECT_EQ(q.scale_layout.shape, shape) << name;
  EXPECT_EQ(q.scale_layout.strides, strides) << name;
  Expected e{name, "float32", std::move(layout), shape, strides, {}};
  for (const std::uint32_t bits : gather(q.scales, shape, strides))
    for (int b = 0; b < 4; ++b) e.bytes.push_back(std::uint8_t(bits >> (8 * b)));
  return e;
}

std::string scale_name(const Recipe& r) { return storage(r) == ScaleStorage::EncodeFp32 ? "scale" : "scale_inv"; }

std::string coords(std::size_t element, const Dims& shape) {
  std::string s;
  for (std::size_t d = shape.size(); d-- > 0;) {
    const std::int64_t extent = shape[d] > 0 ? shape[d] : 1;
    s = std::to_string(std::int64_t(element) % extent) + (s.empty() ? "" : ", ") + s;
    element /= std::size_t(extent);
  }
  return "(" + s + ")";
}

// Compares the runner's outputs with the expected ones; prints the first mismatching elements.
void expect_outputs(const Tensors& got, const std::vector<Expected>& want, const std::string& what) {
  std::set<std::string> names;
  for (const auto& [n, t] : got) names.insert(n);
  std::set<std::string> want_names;
  for (const Expected& e : want) want_names.insert(e.name);
  EXPECT_EQ(names, want_names) << what;
  for (const Expected& e : want) {
    const auto it = got.find(e.name);
    if (it == got.end()) continue;
    const Tensor& t = it->second;
    EXPECT_EQ(t.dtype, e.dtype) << what << " " << e.name;
    EXPECT_EQ(t.shape, e.shape) << what << " " << e.name;
    EXPECT_EQ(t.strides, e.strides) << what << " " << e.name;
    EXPECT_EQ(t.layout, e.layout) << what << " " << e.name;
    ASSERT_EQ(t.bytes.size(), e.bytes.size()) << what << " " << e.name;
    const std::size_t width = e.dtype == "float32" ? 4 : 1;
    int shown = 0;
    for (std::size_t i = 0; i < e.bytes.size() && shown < 8; i += width) {
      if (std::equal(e.bytes.begin() + std::ptrdiff_t(i), e.bytes.begin() + std::ptrdiff_t(i + width),
                     t.bytes.begin() + std::ptrdiff_t(i)))
        continue;
      std::uint32_t g = 0, w = 0;
      for (std::size_t b = 0; b < width; ++b) {
        g |= std::uint32_t(t.bytes[i + b]) << (8 * b);
        w |= std::uint32_t(e.bytes[i + b]) << (8 * b);
      }
      char line[160];
      std::snprintf(line, sizeof line, "%s %s: element %zu %s: runner 0x%0*X, emulator 0x%0*X", what.c_str(),
                    e.name.c_str(), i / width, coords(i / width, e.shape).c_str(), int(2 * width), g, int(2 * width),
                    w);
      ADD_FAILURE() << line;
      ++shown;
    }
  }
}

// ---- inputs ---------------------------------------------------------------------------------------

Tensor random(const Dims& dims, const std::string& dtype, std::uint64_t seed,
              Distribution d = Distribution::specials) {
  return generate_tensor(InputSpec{d, seed}, dims, dtype);
}

Tensor offs_tensor(const std::vector<std::int64_t>& ends) {
  return make_tensor("int32", std::vector<std::int32_t>(ends.begin(), ends.end()));
}

// Calls f(values) with the tensor's elements as uint16 (bf16) or float.
template <class F>
auto with_values(const Tensor& t, F f) {
  return t.dtype == "bfloat16" ? f(values_of<std::uint16_t>(t)) : f(values_of<float>(t));
}

template <class T>
std::vector<T> expert_col_major(const std::vector<T>& v, std::int64_t E, std::int64_t K, std::int64_t N) {
  std::vector<T> out(v.size());
  for (std::int64_t e = 0; e < E; ++e)
    for (std::int64_t n = 0; n < N; ++n)
      for (std::int64_t k = 0; k < K; ++k) out[std::size_t(e * K * N + n * K + k)] = v[std::size_t(e * K * N + k * N + n)];
  return out;
}

Tensors run(const std::string& kernel, const Tensors& inputs, const std::string& recipe = "") {
  KernelCall call;
  call.kernel = kernel;
  call.inputs = inputs;
  if (!recipe.empty()) call.attrs.strings["recipe"] = recipe;
  return run_kernel(call);
}

// One adapter check: inputs per input dtype, and the expected outputs from the emulator.
struct AdapterCheck {
  std::string kernel;
  std::vector<std::string> recipes;  // [0] the default ("" when the kernel takes none)
  std::function<Tensors(const std::string& dtype)> inputs;
  std::function<std::vector<Expected>(const Tensors&, const Recipe&)> expected;
};

const Recipe& no_recipe() { return recipe("torchao_blockwise"); }

// A 2D kernel x -> Fp8Quantized with documented layouts (shape/strides functions of M, K).
struct Layout2D {
  std::function<Dims(std::int64_t, std::int64_t)> shape, strides;
  std::string name;
};

template <class Kernel>
AdapterCheck matrix_check(std::string kernel, std::vector<std::string> recipes, Dims dims, Kernel k, Layout2D data,
                          Layout2D sc) {
  AdapterCheck c{kernel, std::move(recipes), nullptr, nullptr};
  c.inputs = [dims](const std::string& dtype) { return Tensors{{"x", random(dims, dtype, 3)}}; };
  c.expected = [k, data, sc](const Tensors& in, const Recipe& r) {
    const Tensor& x = in.at("x");
    const std::int64_t M = x.shape[0], K = x.shape[1];
    const Fp8Quantized q = with_values(x, [&](const auto& v) { return k(View2D<const std::decay_t<decltype(v[0])>>::row_major(v.data(), M, K), r); });
    return std::vector<Expected>{codes("q", r, q, data.shape(M, K), data.strides(M, K), data.name),
                                 scales(scale_name(r), q, sc.shape(M, K), sc.strides(M, K), sc.name)};
  };
  return c;
}

std::int64_t cdiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

std::vector<AdapterCheck> adapter_checks() {
  using D = Dims;
  const std::vector<std::string> rowwise = {"torchao_fp8_rowwise_pow2", "torchao_fp8_rowwise_e4m3fnuz", "te_current_e5m2"};
  const std::vector<std::string> blockwise = {"torchao_blockwise", "te_blockwise", "torchao_blockwise_e4m3fnuz"};
  const std::vector<std::string> deepgemm = {"deepgemm", "deepgemm_ue8m0", "deepep"};
  const auto rm = [](auto shape) { return Layout2D{shape, [shape](std::int64_t M, std::int64_t K) { const D s = shape(M, K); return D{s[1], 1}; }, "row_major"}; };
  const auto cm = [](auto shape) { return Layout2D{shape, [shape](std::int64_t M, std::int64_t K) { const D s = shape(M, K); return D{1, s[0]}; }, "col_major"}; };
  const auto mk = [](std::int64_t M, std::int64_t K) { return D{M, K}; };
  const auto km = [](std::int64_t M, std::int64_t K) { return D{K, M}; };
  std::vector<AdapterCheck> v;
  // family 1
  v.push_back(matrix_check("fp8_rowwise_2d_scale_and_cast", rowwise, {5, 40},
                           [](auto x, const Recipe& r) { return fp8_rowwise_2d_scale_and_cast(x, r); }, rm(mk),
                           Layout2D{[](std::int64_t M, std::int64_t) { return D{M, 1}; },
                                    [](std::int64_t, std::int64_t) { return D{1, 1}; }, "row_major"}));
  for (const bool transpose : {false, true}) {
    AdapterCheck c{transpose ? "fp8_rowwise_3d_transpose_rhs" : "fp8_colwise_3d_scale_and_cast", rowwise, nullptr,
                   nullptr};
    c.inputs = [](const std::string& dtype) { return Tensors{{"w", random({2, 24, 10}, dtype, 4)}}; };
    c.expected = [transpose](const Tensors& in, const Recipe& r) {
      const Tensor& w = in.at("w");
      const std::int64_t E = w.shape[0], K = w.shape[1], N = w.shape[2];
      return with_values(w, [&](const auto& v) {
        using T = std::decay_t<decltype(v[0])>;
        const auto cm_buffer = expert_col_major(v, E, K, N);
        const auto view = View3D<const T>::col_major_per_expert(cm_buffer.data(), E, K, N);
        if (transpose) {
          const Fp8Quantized q = fp8_rowwise_3d_transpose_rhs(view, r);
          return std::vector<Expected>{codes("q", r, q, {E, N, K}, {N * K, 1, N}, "expert_col_major"),
                                       scales(scale_name(r), q, {E, K}, {K, 1}, "row_major")};
        }
        const Fp8Quantized q = fp8_colwise_3d_scale_and_cast(view, r);
        return std::vector<Expected>{codes("q", r, q, {E, K, N}, {K * N, 1, K}, "expert_col_major"),
                                     scales(scale_name(r), q, {E, 1, N}, {N, N, 1}, "row_major")};
      });
    };
    v.push_back(c);
  }
  // family 2: empty groups, and rows / columns past offs[-1]
  const std::vector<std::int64_t> ends = {0, 7, 7, 20, 26};
  {
    AdapterCheck c{"fp8_per_group_rowwise_scales", rowwise, nullptr, nullptr};
    c.inputs = [ends](const std::string& dtype) {
      return Tensors{{"x", random({3, 30}, dtype, 5)}, {"offs", offs_tensor(ends)}};
    };
    c.expected = [ends](const Tensors& in, const Recipe& r) {
      const Tensor& x = in.at("x");
      const std::int64_t M = x.shape[0], K = x.shape[1], G = std::int64_t(ends.size());
      const Fp8Quantized q = with_values(x, [&](const auto& v) {
        return fp8_per_group_rowwise_scales(view2d(v, M, K), std::span<const std::int64_t>(ends), r);
      });
      return std::vector<Expected>{codes("q", r, q, {M, K}, {K, 1}, "row_major"),
                                   scales(scale_name(r), q, {M * G}, {1}, "row_major")};
    };
    v.push_back(c);
  }
  {
    AdapterCheck c{"fp8_per_group_colwise_scales", rowwise, nullptr, nullptr};
    c.inputs = [ends](const std::string& dtype) {
      return Tensors{{"x", random({30, 3}, dtype, 6)}, {"offs", offs_tensor(ends)}};
    };
    c.expected = [ends](const Tensors& in, const Recipe& r) {
      const Tensor& x = in.at("x");
      const std::int64_t K = x.shape[0], N = x.shape[1], G = std::int64_t(ends.size());
      const Fp8Quantized q = with_values(x, [&](const auto& v) {
        return fp8_per_group_colwise_scales(view2d(v, K, N), std::span<const std::int64_t>(ends), r);
      });
      return std::vector<Expected>{codes("q", r, q, {K, N}, {1, K}, "col_major"),
                                   scales(scale_name(r), q, {N * G}, {1}, "row_major")};
    };
    v.push_back(c);
  }
  {
    AdapterCheck c{"fp8_per_group_colwise_scales_dual", rowwise, nullptr, nullptr};
    c.inputs = [ends](const std::string& dtype) {
      return Tensors{{"x1", random({30, 3}, dtype, 7)}, {"x2", random({30, 2}, dtype, 8)}, {"offs", offs_tensor(ends)}};
    };
    c.expected = [ends](const Tensors& in, const Recipe& r) {
      const Tensor &x1 = in.at("x1"), &x2 = in.at("x2");
      const std::int64_t K = x1.shape[0], N1 = x1.shape[1], N2 = x2.shape[1], G = std::int64_t(ends.size());
      const auto [q1, q2] = with_values(x1, [&](const auto& v1) {
        using T = std::decay_t<decltype(v1[0])>;
        const std::vector<T> v2 = values_of<T>(x2);
        return fp8_per_group_colwise_scales_dual(view2d(v1, K, N1), view2d(v2, K, N2),
                                                 std::span<const std::int64_t>(ends), r);
      });
      return std::vector<Expected>{codes("q1", r, q1, {K, N1}, {1, K}, "col_major"),
                                   scales(scale_name(r) + "1", q1, {N1 * G}, {1}, "row_major"),
                                   codes("q2", r, q2, {K, N2}, {1, K}, "col_major"),
                                   scales(scale_name(r) + "2", q2, {N2 * G}, {1}, "row_major")};
    };
    v.push_back(c);
  }
  // family 3: dense blockwise
  v.push_back(matrix_check("fp8_blockwise_act_quant_lhs", blockwise, {3, 256},
                           [](auto x, const Recipe& r) { return fp8_blockwise_act_quant_lhs(x, r); }, rm(mk),
                           cm([](std::int64_t M, std::int64_t K) { return D{M, K / 128}; })));
  v.push_back(matrix_check("fp8_blockwise_act_quant_rhs", blockwise, {130, 128},
                           [](auto x, const Recipe& r) { return fp8_blockwise_act_quant_rhs(x, r); }, cm(mk),
                           rm([](std::int64_t M, std::int64_t K) { return D{cdiv(M, 128), K}; })));
  v.push_back(matrix_check("fp8_blockwise_act_quant_transposed_lhs", blockwise, {256, 3},
                           [](auto x, const Recipe& r) { return fp8_blockwise_act_quant_transposed_lhs(x, r); }, rm(km),
                           cm([](std::int64_t M, std::int64_t K) { return D{K, M / 128}; })));
  v.push_back(matrix_check("fp8_blockwise_weight_quant_rhs", blockwise, {256, 128},
                           [](auto x, const Recipe& r) { return fp8_blockwise_weight_quant_rhs(x, r); }, cm(mk),
                           cm([](std::int64_t M, std::int64_t N) { return D{M / 128, N / 128}; })));
  v.push_back(matrix_check("fp8_blockwise_weight_quant_transposed_rhs", blockwise, {256, 128},
                           [](auto x, const Recipe& r) { return fp8_blockwise_weight_quant_transposed_rhs(x, r); },
                           cm(km), cm([](std::int64_t M, std::int64_t N) { return D{N / 128, M / 128}; })));
  for (const bool transposed : {true, false}) {
    AdapterCheck c{transposed ? "fp8_blockwise_weight_quant_grouped_transposed_rhs"
                              : "fp8_blockwise_weight_quant_grouped_rhs",
                   blockwise, nullptr, nullptr};
    c.inputs = [](const std::string& dtype) { return Tensors{{"w", random({2, 128, 256}, dtype, 9)}}; };
    c.expected = [transposed](const Tensors& in, const Recipe& r) {
      const Tensor& w = in.at("w");
      const std::int64_t E = w.shape[0], K = w.shape[1], N = w.shape[2], Kb = K / 128, Nb = N / 128;
      return with_values(w, [&](const auto& v) {
        using T = std::decay_t<decltype(v[0])>;
        const auto cm_buffer = expert_col_major(v, E, K, N);
        const auto view = View3D<const T>::col_major_per_expert(cm_buffer.data(), E, K, N);
        if (transposed) {
          const Fp8Quantized q = fp8_blockwise_weight_quant_grouped_transposed_rhs(view, r);
          return std::vector<Expected>{codes("q", r, q, {E, K, N}, {K * N, 1, K}, "expert_col_major"),
                                       scales("scale_inv", q, {E, Kb, Nb}, {Kb * Nb, 1, Kb}, "expert_col_major")};
        }
        const Fp8Quantized q = fp8_blockwise_weight_quant_grouped_rhs(view, r);
        return std::vector<Expected>{codes("q", r, q, {E, N, K}, {N * K, 1, N}, "expert_col_major"),
                                     scales("scale_inv", q, {E, Nb, Kb}, {Nb * Kb, 1, Nb}, "expert_col_major")};
      });
    };
    v.push_back(c);
  }
  for (const Dims& dims : {Dims{5, 3}, Dims{2, 6, 3}}) {
    AdapterCheck c{"fp8_blockwise_pad_scales_128x128", {""}, nullptr, nullptr};
    c.inputs = [dims](const std::string&) { return Tensors{{"scale_inv", random(dims, "float32", 10)}}; };
    c.expected = [dims](const Tensors& in, const Recipe&) {
      const bool three = dims.size() == 3;
      const std::int64_t E = three ? dims[0] : 1, Kb = dims[dims.size() - 2], Nb = dims.back();
      Fp8Quantized q;
      for (const float f : expert_col_major(values_of<float>(in.at("scale_inv")), E, Kb, Nb))
        q.scales.push_back(std::bit_cast<std::uint32_t>(f));
      q.scale_layout = three ? Fp8Layout{{E, Kb, Nb}, {Kb * Nb, 1, Kb}} : Fp8Layout{{Kb, Nb}, {1, Kb}};
      const Fp8Quantized p = fp8_blockwise_pad_scales_128x128(q);
      const std::int64_t Kp = 8;
      return std::vector<Expected>{three ? scales("scale_inv_padded", p, {E, Kp, Nb}, {Kp * Nb, 1, Kp}, "expert_col_major")
                                         : scales("scale_inv_padded", p, {Kp, Nb}, {1, Kp}, "col_major")};
    };
    v.push_back(c);
  }
  // family 3: token groups (an empty group, a partial block, rows past offs[-1])
  {
    const std::vector<std::int64_t> aligned = {128, 128, 384};
    AdapterCheck c{"fp8_blockwise_act_quant_k_grouped_deepgemm", blockwise, nullptr, nullptr};
    c.inputs = [aligned](const std::string& dtype) {
      return Tensors{{"x", random({400, 3}, dtype, 11)}, {"offs", offs_tensor(aligned)}};
    };
    c.expected = [aligned](const Tensors& in, const Recipe& r) {
      const Tensor& x = in.at("x");
      const std::int64_t M = x.shape[0], D = x.shape[1], T = aligned.back();
      const Fp8Quantized q = with_values(x, [&](const auto& v) {
        return fp8_blockwise_act_quant_k_grouped_deepgemm(view2d(v, M, D), std::span<const std::int64_t>(aligned), r);
      });
      return std::vector<Expected>{codes("q", r, q, {T * D}, {1}, "per_group_row_major"),
                                   scales("scale_inv", q, {D, T / 128}, {T / 128, 1}, "row_major")};
    };
    v.push_back(c);
  }
  const std::vector<std::int64_t> token_ends = {129, 129, 200};  // blocks 2 + 0 + 1
  for (const bool transposed : {false, true}) {
    AdapterCheck c{transposed ? "fp8_blockwise_act_quant_transposed_lhs_grouped" : "fp8_blockwise_act_quant_rhs_grouped",
                   blockwise, nullptr, nullptr};
    c.inputs = [token_ends](const std::string& dtype) {
      return Tensors{{"x", random({210, 3}, dtype, 12)}, {"offs", offs_tensor(token_ends)}};
    };
    c.expected = [token_ends, transposed](const Tensors& in, const Recipe& r) {
      const Tensor& x = in.at("x");
      const std::int64_t M = x.shape[0], D = x.shape[1], B = 3;
      const std::span<const std::int64_t> offs(token_ends);
      if (transposed) {
        const Fp8Quantized q = with_values(
            x, [&](const auto& v) { return fp8_blockwise_act_quant_transposed_lhs_grouped(view2d(v, M, D), offs, r); });
        return std::vector<Expected>{codes("q", r, q, {D, M}, {M, 1}, "row_major"),
                                     scales("scale_inv", q, {D, B}, {1, D}, "col_major")};
      }
      const Fp8Quantized q =
          with_values(x, [&](const auto& v) { return fp8_blockwise_act_quant_rhs_grouped(view2d(v, M, D), offs, r); });
      return std::vector<Expected>{codes("q", r, q, {M, D}, {1, M}, "col_major"),
                                   scales("scale_inv", q, {B, D}, {D, 1}, "row_major")};
    };
    v.push_back(c);
  }
  // DeepGEMM casts (unaligned n / m where the peer pads)
  v.push_back(matrix_check("deepgemm_per_token_cast_to_fp8", deepgemm, {3, 200},
                           [](auto x, const Recipe& r) { return deepgemm_per_token_cast_to_fp8(x, r); }, rm(mk),
                           rm([](std::int64_t M, std::int64_t N) { return D{M, cdiv(N, 128)}; })));
  v.push_back(matrix_check("deepgemm_per_channel_cast_to_fp8", deepgemm, {256, 3},
                           [](auto x, const Recipe& r) { return deepgemm_per_channel_cast_to_fp8(x, r); }, rm(mk),
                           rm([](std::int64_t M, std::int64_t N) { return D{M / 128, N}; })));
  v.push_back(matrix_check("deepgemm_per_block_cast_to_fp8", deepgemm, {130, 200},
                           [](auto x, const Recipe& r) { return deepgemm_per_block_cast_to_fp8(x, r); }, rm(mk),
                           rm([](std::int64_t M, std::int64_t N) { return D{cdiv(M, 128), cdiv(N, 128)}; })));
  return v;
}

// The message of the KernelInputError `f` throws (or a failure).
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const KernelInputError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("not a KernelInputError: ") + e.what();
  }
  return "no error";
}

}  // namespace

TEST(Fp8Adapters, EveryAdapterHasACheckAndTheRegistryName) {
  std::set<std::string> checked;
  for (const AdapterCheck& c : adapter_checks()) checked.insert(c.kernel);
  std::set<std::string> adapters;
  for (const KernelAdapter& a : fp8_adapters()) {
    adapters.insert(std::string(a.name));
    const KernelAdapter* found = find_adapter(a.name);
    ASSERT_NE(found, nullptr) << a.name;
    EXPECT_EQ(found->run, a.run) << a.name;
    bool registered = false;
    for (const RegistryEntry& e : registry()) registered = registered || (e.name == a.name && e.kind == EntryKind::kernel);
    EXPECT_TRUE(registered) << a.name << " is not a registry kernel";
    EXPECT_FALSE(a.inputs.empty() || a.outputs.empty()) << a.name;
  }
  EXPECT_EQ(adapters.size(), 20u);
  EXPECT_EQ(checked, adapters);
}

TEST(Fp8Adapters, OutputsEqualTheEmulatorKernels) {
  for (const AdapterCheck& c : adapter_checks())
    for (const std::string& r : c.recipes)
      for (const std::string dtype : {"bfloat16", "float32"}) {
        const Tensors in = c.inputs(dtype);
        const std::string what = c.kernel + " [" + (r.empty() ? "no recipe" : r) + ", " + dtype + "]";
        Tensors got;
        try {
          got = run(c.kernel, in, r);
        } catch (const std::exception& e) {
          ADD_FAILURE() << what << ": " << e.what();
          continue;
        }
        expect_outputs(got, c.expected(in, r.empty() ? no_recipe() : recipe(r)), what);
      }
}

TEST(Fp8Adapters, DefaultRecipeIsUsedWithoutTheAttribute) {
  const Tensors in{{"x", random({4, 128}, "bfloat16", 13)}};
  EXPECT_EQ(run("fp8_blockwise_act_quant_lhs", in), run("fp8_blockwise_act_quant_lhs", in, "torchao_blockwise"));
  EXPECT_EQ(run("fp8_rowwise_2d_scale_and_cast", in),
            run("fp8_rowwise_2d_scale_and_cast", in, "torchao_fp8_rowwise_pow2"));
  EXPECT_EQ(run("deepgemm_per_token_cast_to_fp8", in), run("deepgemm_per_token_cast_to_fp8", in, "deepgemm"));
}

TEST(Fp8Adapters, MisuseIsRejectedWithAMessageNamingTheProblem) {
  const Tensor x = random({4, 128}, "bfloat16", 14);
  const auto expect_error = [](const std::string& kernel, const Tensors& in, const std::string& recipe_name,
                               const std::string& fragment) {
    const std::string m = error_of([&] { run(kernel, in, recipe_name); });
    EXPECT_NE(m.find(fragment), std::string::npos) << kernel << ": '" << m << "' lacks '" << fragment << "'";
    EXPECT_EQ(m.rfind("kernel " + kernel, 0), 0u) << m;
  };
  const Tensor f16 = make_tensor("float16", {4, 128}, std::vector<std::uint16_t>(512, 0x3C00));
  expect_error("fp8_rowwise_2d_scale_and_cast", {{"x", f16}}, "", "input 'x': dtype 'float16'");
  Tensor rank3 = x;
  rank3.shape = {1, 4, 128};
  expect_error("fp8_blockwise_act_quant_lhs", {{"x", rank3}}, "", "input 'x': rank 3");
  expect_error("fp8_colwise_3d_scale_and_cast", {{"w", x}}, "", "input 'w': rank 2");
  expect_error("fp8_rowwise_2d_scale_and_cast", {{"y", x}}, "", "missing input dataset 'x'");
  expect_error("fp8_rowwise_2d_scale_and_cast", {{"x", x}}, "torchao_mx_rceil", "float32 scales");
  expect_error("deepgemm_per_block_cast_to_fp8", {{"x", x}}, "nvfp4", "float4_e2m1fn elements");
  expect_error("fp8_blockwise_act_quant_lhs", {{"x", x}}, "no_such_recipe", "unknown recipe 'no_such_recipe'");
  expect_error("fp8_blockwise_act_quant_transposed_lhs", {{"x", x}}, "", "M = 4 is not a multiple of 128");
  expect_error("fp8_blockwise_weight_quant_rhs", {{"x", x}}, "", "is not a multiple of 128");
  expect_error("deepgemm_per_channel_cast_to_fp8", {{"x", x}}, "", "m = 4 is not a multiple of 128");
  const Tensor x_k_n = random({30, 3}, "float32", 15);
  expect_error("fp8_per_group_colwise_scales", {{"x", x_k_n}, {"offs", offs_tensor({20, 10})}}, "", "not monotonic");
  expect_error("fp8_per_group_colwise_scales", {{"x", x_k_n}, {"offs", offs_tensor({31})}}, "",
               "beyond the grouped dimension");
  expect_error("fp8_per_group_rowwise_scales", {{"x", x}, {"offs", make_tensor("float32", std::vector<float>{1})}}, "",
               "input 'offs': dtype 'float32'");
  expect_error("fp8_blockwise_act_quant_rhs_grouped", {{"x", x_k_n}}, "", "missing input dataset 'offs'");
  expect_error("fp8_blockwise_act_quant_k_grouped_deepgemm",
               {{"x", random({256, 2}, "bfloat16", 16)}, {"offs", offs_tensor({100, 256})}}, "",
               "not a multiple of 128");
  expect_error("fp8_per_group_colwise_scales_dual",
               {{"x1", x_k_n}, {"x2", random({30, 2}, "bfloat16", 17)}, {"offs", offs_tensor({30})}}, "",
               "must have the same dtype");
  expect_error("fp8_per_group_colwise_scales_dual",
               {{"x1", x_k_n}, {"x2", random({29, 2}, "float32", 17)}, {"offs", offs_tensor({29})}}, "", "rows (K)");
  expect_error("fp8_blockwise_pad_scales_128x128", {{"scale_inv", random({6}, "float32", 18)}}, "", "rank 1");
  expect_error("fp8_blockwise_pad_scales_128x128", {{"scale_inv", x}}, "", "dtype 'bfloat16'");
}

TEST(Fp8Cases, EveryDefaultCaseComputesWithErrorsExactlyWhereMarked) {
  const std::vector<CaseSpec> cases = fp8_cases(Suite::default_suite);
  const std::regex name_rule("[A-Za-z0-9_.-]+");
  std::set<std::string> names, kernels;
  std::size_t misuse = 0;
  const Provenance p{"test", "test"};
  for (const CaseSpec& c : cases) {
    EXPECT_TRUE(std::regex_match(c.name, name_rule)) << c.name;
    EXPECT_TRUE(names.insert(c.name).second) << "duplicate " << c.name;
    EXPECT_EQ(c.name.rfind(c.call.kernel + "_", 0), 0u) << c.name;
    kernels.insert(c.call.kernel);
    misuse += c.expect_error;
    ComputedCase computed;
    try {
      computed = compute_case(c, p);  // throws std::logic_error when an error is missing or unexpected
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what();
      continue;
    }
    EXPECT_EQ(computed.attrs.strings.count("expected_error"), std::size_t(c.expect_error)) << c.name;
    for (const char* key : {"distribution", "dtype"}) EXPECT_EQ(c.call.attrs.strings.count(key), 1u) << c.name;
    EXPECT_EQ(c.call.attrs.ints.count("seed"), 1u) << c.name;
    EXPECT_EQ(c.call.attrs.int_arrays.count("shape"), 1u) << c.name;
  }
  for (const KernelAdapter& a : fp8_adapters()) EXPECT_EQ(kernels.count(std::string(a.name)), 1u) << a.name;
  EXPECT_GT(misuse, 30u);
  EXPECT_GT(cases.size(), 250u);
}

TEST(Fp8Cases, TheCatalogueIsDeterministic) {
  const std::vector<CaseSpec> a = fp8_cases(Suite::default_suite), b = fp8_cases(Suite::default_suite);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name, b[i].name);
    EXPECT_EQ(a[i].call.attrs, b[i].call.attrs) << a[i].name;
    EXPECT_EQ(a[i].call.inputs, b[i].call.inputs) << a[i].name;
  }
}
