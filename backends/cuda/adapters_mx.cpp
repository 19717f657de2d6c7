// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// adapters_mx.cpp — the CUDA MX kernels beyond the 1-D quantisers (quant.hpp: mx_quantize_2d,
// mx_blocked_scales, mx_dequantize_dim0), the dual per-group colwise FP8 quantiser, and the recipe
// and format kernels (recipe_scale_from_amax, recipe_quantize_blocks, cast, decode) behind the
// golden runner's signature, and their production-shape cases. Each adapter takes the KernelCall
// of the emulator adapter of the same name (golden/src/adapters/mx.cpp, fp8.cpp, recipe.cpp,
// formats.cpp) and returns the same datasets: names, dtypes, logical shapes, layout names and
// strides, values in logical row-major order.
//
//   kernel                             outputs (layout; strides in elements)
//   mx_quantize_2d                     q_rowwise (M, K) row_major (K, 1), scale_rowwise e8m0 (M, K/32)
//                                      row_major; q_colwise (M, K) col_major (1, M), scale_colwise e8m0
//                                      (K, M/32) col_major (1, K); each when its flag (default 1) is set
//   mx_blocked_scales                  q as mx_quantize_dim0 / dim1 / 3d; scale_blocked e8m0 blocked_128x4,
//                                      (Hp*Wp,) for 2D x, (E, Hp*Wp) for 3D x
//   mx_dequantize_dim0                 y bfloat16 | float32 (M, K) row_major (out_dtype)
//   fp8_per_group_colwise_scales_dual  q1, q2 (K, N1|N2) col_major (1, K); scale1|scale_inv1,
//                                      scale2|scale_inv2 float32 (G*N1|N2,) row_major
//   recipe_scale_from_amax             scale (stored dtype) (n,); encode, decode float32 (n,)
//   recipe_quantize_blocks             q (N, K); scale (stored dtype) (N, K/block)
//   cast                               codes (x's shape, the format's dtype)
//   decode                             values float64, classes uint8 (codes' shape)
// Outputs are poisoned (0xA5) before each launch, so a byte the kernel fails to write shows as a
// mismatch.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "adapter_util.hpp"
#include "cuda_cast.hpp"
#include "octet/golden/runner.hpp"
#include "octet/kernels/mx_swizzle.hpp"
#include "octet/profile.hpp"
#include "quant.hpp"

namespace octet::cuda {
namespace {

using namespace adapter_util;

constexpr std::string_view kMxRecipe = "torchao_mx_rceil";
constexpr std::string_view kRowwiseRecipe = "torchao_fp8_rowwise_pow2";
constexpr std::string_view kE8m0 = "float8_e8m0fnu";

// ---- the emulator adapters' conventions ------------------------------------------------------------

Shape row_major_strides(const Shape& shape) {
  Shape s(shape.size(), 1);
  for (std::size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

// A byte tensor with explicit row-major strides (golden/src/adapters/mx.cpp byte_tensor).
Tensor byte_tensor(std::string_view dtype, Shape shape, const std::vector<std::uint8_t>& bytes,
                   std::string layout = "row_major") {
  Shape strides = row_major_strides(shape);
  return golden::make_tensor(dtype, std::move(shape), bytes, std::move(layout), std::move(strides));
}

std::string_view element_dtype(const Recipe& r) { return dtype_name(element_format(r)); }

// Stored scale words as the emulator writes them (golden/src/scale_io.cpp stored_scale_tensor):
// e8m0 / e4m3 codes as bytes, the fp32 bits of EncodeFp32 / DecodeFp32 recipes as float32.
Tensor stored_scale_tensor(const Recipe& r, Shape shape, const std::vector<std::uint32_t>& stored) {
  switch (storage(r)) {
    case ScaleStorage::E8m0:
    case ScaleStorage::E4m3: {
      const FormatId f = storage(r) == ScaleStorage::E8m0 ? FormatId::e8m0fnu : FormatId::e4m3fn;
      return golden::make_tensor(dtype_name(f), std::move(shape), std::vector<std::uint8_t>(stored.begin(), stored.end()));
    }
    case ScaleStorage::EncodeFp32:
    case ScaleStorage::DecodeFp32: break;
  }
  std::vector<float> words;
  words.reserve(stored.size());
  for (const std::uint32_t b : stored) words.push_back(std::bit_cast<float>(b));
  return golden::make_tensor("float32", std::move(shape), words);
}

// ---- MX ------------------------------------------------------------------------------------------

Tensors mx_2d(const KernelCall& call) {
  const Recipe& r = golden::call_recipe(call, kMxRecipe);
  const bool rowwise = flag_param(call, "rowwise", true), colwise = flag_param(call, "colwise", true);
  const DeviceInput x = upload(golden::float_input(call.inputs, "x", 2));
  const std::int64_t M = x.rows, K = x.cols;
  // Sized before the kernel's checks (integer division keeps them non-negative).
  DeviceBuffer<std::uint8_t> q_row = poisoned<std::uint8_t>(rowwise ? M * K : 0);
  DeviceBuffer<std::uint8_t> s_row = poisoned<std::uint8_t>(rowwise ? M * (K / 32) : 0);
  DeviceBuffer<std::uint8_t> q_col = poisoned<std::uint8_t>(colwise ? M * K : 0);
  DeviceBuffer<std::uint8_t> s_col = poisoned<std::uint8_t>(colwise ? K * (M / 32) : 0);
  mx_quantize_2d(x.src, x.bytes.get(), M, K, r, rowwise, colwise, q_row.get(), s_row.get(), q_col.get(), s_col.get());
  synchronize();
  Tensors out;
  const std::string_view element = element_dtype(r);
  if (rowwise) {
    out.emplace("q_rowwise", e8m0_tensor(element, q_row, M, K, K, 1));
    out.emplace("scale_rowwise", e8m0_tensor(kE8m0, s_row, M, K / 32, K / 32, 1));
  }
  if (colwise) {
    out.emplace("q_colwise", e8m0_tensor(element, q_col, M, K, 1, M));
    out.emplace("scale_colwise", e8m0_tensor(kE8m0, s_col, K, M / 32, 1, K));
  }
  return out;
}

Tensors mx_dequantize(const KernelCall& call) {
  const Recipe& r = golden::call_recipe(call, kMxRecipe);
  const std::string out_dtype = call.string_param("out_dtype", "bfloat16");
  if (out_dtype != "bfloat16" && out_dtype != "float32")
    throw KernelInputError("kernel " + call.kernel + ": attribute 'out_dtype' = '" + out_dtype +
                           "', expected bfloat16 or float32");
  const bool fp32 = out_dtype == "float32";
  const Tensor& q = golden::input(call.inputs, "q");
  golden::expect_dtype(q, "q", {element_dtype(r)}, 2);
  const Tensor& scale = golden::input(call.inputs, "scale");
  golden::expect_dtype(scale, "scale", {kE8m0}, 2);
  const std::int64_t M = q.shape[0], K = q.shape[1];
  // The emulator's shape checks (mx_dequantize_dim0_*), before anything is launched.
  const std::string kernel = fp32 ? "mx_dequantize_dim0_fp32" : "mx_dequantize_dim0_bf16";
  if (K % 32 == 0) {
    require_equal(scale.shape[0], M, kernel + ": scale.rows (M)");
    require_equal(scale.shape[1], K / 32, kernel + ": scale.cols (K/32)");
  }
  const DeviceBuffer<std::uint8_t> q_dev(golden::values_of<std::uint8_t>(q));
  const DeviceBuffer<std::uint8_t> s_dev(golden::values_of<std::uint8_t>(scale));
  const Shape shape{M, K};
  if (fp32) {
    DeviceBuffer<float> y = poisoned<float>(M * K);
    mx_dequantize_dim0(q_dev.get(), s_dev.get(), M, K, r, true, y.get());
    synchronize();
    return {{"y", golden::make_tensor("float32", shape, y.download(), "row_major", row_major_strides(shape))}};
  }
  DeviceBuffer<std::uint16_t> y = poisoned<std::uint16_t>(M * K);
  mx_dequantize_dim0(q_dev.get(), s_dev.get(), M, K, r, false, y.get());
  synchronize();
  return {{"y", golden::make_tensor("bfloat16", shape, y.download(), "row_major", row_major_strides(shape))}};
}

Tensors mx_blocked(const KernelCall& call) {
  const Recipe& r = golden::call_recipe(call, kMxRecipe);
  const Tensor& xt = golden::input(call.inputs, "x");
  Tensors out;
  if (xt.shape.size() == 3) {
    const std::string block = call.string_param("block", "32x1");
    if (block != "32x1" && block != "32x32")
      throw KernelInputError("kernel " + call.kernel + ": attribute 'block' = '" + block + "', expected 32x1 or 32x32");
    const golden::FloatInput w = golden::float_input(call.inputs, "x", 3);
    const std::int64_t E = w.dim(0), N = w.dim(1), K = w.dim(2);
    const DeviceInput x = upload_experts(w, false);
    const std::int64_t per_expert = blocked_rows(K) * blocked_cols(N / 32);
    DeviceBuffer<std::uint8_t> q = poisoned<std::uint8_t>(E * N * K);
    DeviceBuffer<std::uint8_t> blocked = poisoned<std::uint8_t>(E * per_expert);
    mx_blocked_scales_3d(x.src, x.bytes.get(), E, N, K, block == "32x32", r, q.get(), blocked.get());
    synchronize();
    const Shape q_shape{E, N, K}, q_strides{N * K, 1, N};
    out.emplace("q", golden::make_tensor(element_dtype(r), q_shape, logical(q.download(), q_shape, q_strides),
                                         "expert_col_major", q_strides));
    out.emplace("scale_blocked", byte_tensor(kE8m0, {E, per_expert}, blocked.download(), "blocked_128x4"));
    return out;
  }
  const golden::FloatInput in = golden::float_input(call.inputs, "x", 2);
  const std::string block = call.string_param("block", "1x32");
  if (block != "1x32" && block != "32x1")
    throw KernelInputError("kernel " + call.kernel + ": attribute 'block' = '" + block +
                           "', expected 1x32 or 32x1 for a 2D x (32x1 or 32x32 for a 3D x)");
  const bool b32x1 = block == "32x1";
  const DeviceInput x = upload(in);
  const std::int64_t M = x.rows, K = x.cols;
  const std::int64_t bytes = b32x1 ? blocked_rows(K) * blocked_cols(M / 32) : blocked_rows(M) * blocked_cols(K / 32);
  DeviceBuffer<std::uint8_t> q = poisoned<std::uint8_t>(M * K);
  DeviceBuffer<std::uint8_t> blocked = poisoned<std::uint8_t>(bytes);
  mx_blocked_scales_2d(x.src, x.bytes.get(), M, K, b32x1, r, q.get(), blocked.get());
  synchronize();
  out.emplace("q", b32x1 ? e8m0_tensor(element_dtype(r), q, M, K, 1, M) : e8m0_tensor(element_dtype(r), q, M, K, K, 1));
  out.emplace("scale_blocked", byte_tensor(kE8m0, {bytes}, blocked.download(), "blocked_128x4"));
  return out;
}

// ---- FP8 per-group colwise, two tensors sharing offs ----------------------------------------------

Tensors per_group_colwise_dual(const KernelCall& call) {
  const Recipe& r = fp8_recipe(call, kRowwiseRecipe);
  const golden::FloatInput x1 = golden::float_input(call.inputs, "x1", 2), x2 = golden::float_input(call.inputs, "x2", 2);
  if (x1.type != x2.type)
    throw KernelInputError("inputs 'x1' (" + std::string(x1.dtype()) + ") and 'x2' (" + std::string(x2.dtype()) +
                           ") must have the same dtype");
  const std::vector<std::int64_t> offs = golden::int_list(call.inputs, "offs");
  // The emulator's checks and messages (fp8_per_group_colwise_scales_dual), before any launch.
  require_equal(x2.dim(0), x1.dim(0), "x2_k_n2: rows (K) must equal the rows of x1_k_n1");
  const Groups groups(std::span<const std::int64_t>(offs), x1.dim(0), 1, "offs");
  const std::int64_t G = groups.count();
  const DeviceBuffer<std::int64_t> offs_dev(offs);
  Tensors out;
  int index = 1;
  for (const golden::FloatInput* in : {&x1, &x2}) {
    const DeviceInput x = upload(*in);
    const std::int64_t K = x.rows, N = x.cols;
    DeviceBuffer<std::uint8_t> q = poisoned<std::uint8_t>(K * N);
    DeviceBuffer<std::uint32_t> s = poisoned<std::uint32_t>(G * N);
    fp8_per_group_colwise_scales(x.src, x.bytes.get(), K, N, offs_dev.get(), G, r, q.get(), s.get());
    synchronize();
    const std::string suffix = std::to_string(index++);
    out.emplace("q" + suffix, codes_tensor(r, q, {K, N}, {1, K}, "col_major"));
    out.emplace(scale_name(r) + suffix, fp32_scale_tensor(s, {G * N}, {1}, "row_major"));
  }
  return out;
}

// ---- recipes --------------------------------------------------------------------------------------

Tensors scale_from_amax(const KernelCall& call) {
  const Recipe& r = golden::call_recipe(call, "");
  const Tensor& t = golden::input(call.inputs, "amax");
  golden::expect_dtype(t, "amax", {"float32"}, 1);
  const std::vector<float> amax = golden::values_of<float>(t);
  const std::int64_t n = std::int64_t(amax.size());
  const DeviceBuffer<float> amax_dev(amax);
  DeviceBuffer<std::uint32_t> stored = poisoned<std::uint32_t>(n);
  DeviceBuffer<float> encode = poisoned<float>(n), decode = poisoned<float>(n);
  recipe_scale_from_amax(amax_dev.get(), n, r, stored.get(), encode.get(), decode.get());
  synchronize();
  return {{"scale", stored_scale_tensor(r, {n}, stored.download())},
          {"encode", golden::make_tensor("float32", {n}, encode.download())},
          {"decode", golden::make_tensor("float32", {n}, decode.download())}};
}

Tensors quantize_blocks(const KernelCall& call) {
  const Recipe& r = golden::call_recipe(call, "");
  const golden::FloatInput in = golden::float_input(call.inputs, "x", 2);
  const std::int64_t rows = in.dim(0), cols = in.dim(1);
  const std::int64_t block = call.int_param("block", cols);
  if (block <= 0) throw KernelInputError("attribute 'block' = " + std::to_string(block) + " must be > 0");
  if (cols % block != 0)
    throw KernelInputError("input 'x': " + std::to_string(cols) + " columns are not a multiple of block = " +
                           std::to_string(block));
  const std::int64_t blocks = cols / block;
  const DeviceInput x = upload(in);
  DeviceBuffer<std::uint8_t> q = poisoned<std::uint8_t>(rows * cols);
  DeviceBuffer<std::uint32_t> stored = poisoned<std::uint32_t>(rows * blocks);
  recipe_quantize_blocks(x.src, x.bytes.get(), rows, cols, block, r, q.get(), stored.get());
  synchronize();
  return {{"q", golden::make_tensor(element_dtype(r), {rows, cols}, q.download())},
          {"scale", stored_scale_tensor(r, {rows, blocks}, stored.download())}};
}

// ---- formats --------------------------------------------------------------------------------------

template <class Code>
Tensor download_codes(const Format& f, const Shape& shape, const DeviceBuffer<Code>& codes) {
  return golden::make_tensor(dtype_name(f.id), shape, codes.download());
}

Tensors cast_adapter(const KernelCall& call) {
  const Format& f = format_param(call);
  if (f.bits() > 16) throw KernelInputError("kernel cast: format '" + std::string(name(f.id)) + "' is not a cast target");
  const Tensor& x = golden::input(call.inputs, "x");
  const std::string& dt = golden::expect_dtype(x, "x", {"float32", "bfloat16", "float16"});
  const SourceType src = dt == "float32" ? SourceType::fp32 : dt == "bfloat16" ? SourceType::bf16 : SourceType::fp16;
  const std::string pname = call.string_param("profile", "ocp");
  const Profile* p = find_profile(pname);
  if (!p) throw KernelInputError("kernel cast: unknown profile '" + pname + "'");
  const CastSpec spec = p->spec_for(f.id, src);
  const std::int64_t n = x.numel();
  const DeviceBuffer<std::uint8_t> in(x.bytes);
  // Every element gets the same random word (the emulator adapter's convention).
  const DeviceBuffer<std::uint32_t> rbits(
      std::vector<std::uint32_t>(std::size_t(n), std::uint32_t(call.int_param("random_bits", 0))));
  Tensors out;
  if (f.bits() <= 8) {
    DeviceBuffer<std::uint8_t> codes = poisoned<std::uint8_t>(n);
    cuda::cast(src, in.get(), std::size_t(n), f, spec, codes.get(), rbits.get());
    synchronize();
    out.emplace("codes", download_codes(f, x.shape, codes));
  } else {
    DeviceBuffer<std::uint16_t> codes = poisoned<std::uint16_t>(n);
    cuda::cast(src, in.get(), std::size_t(n), f, spec, codes.get(), rbits.get());
    synchronize();
    out.emplace("codes", download_codes(f, x.shape, codes));
  }
  return out;
}

Tensors decode_adapter(const KernelCall& call) {
  const Format& f = format_param(call);
  const Tensor& codes = golden::input(call.inputs, "codes");
  golden::expect_dtype(codes, "codes", {dtype_name(f.id)});
  // The emulator's range check, on the host before the launch.
  const auto check = [&](const auto& values) {
    for (const auto code : values)
      if (std::uint64_t(code) >= f.code_count())
        throw KernelInputError("kernel decode: code " + std::to_string(code) + " out of range");
  };
  const std::int64_t n = codes.numel();
  DeviceBuffer<double> values = poisoned<double>(n);
  DeviceBuffer<std::uint8_t> classes = poisoned<std::uint8_t>(n);
  if (f.bits() <= 8) {
    const std::vector<std::uint8_t> c = golden::values_of<std::uint8_t>(codes);
    check(c);
    const DeviceBuffer<std::uint8_t> c_dev(c);
    decode_codes(f.id, c_dev.get(), n, values.get(), classes.get());
    synchronize();
  } else {
    const std::vector<std::uint16_t> c = golden::values_of<std::uint16_t>(codes);
    check(c);
    const DeviceBuffer<std::uint16_t> c_dev(c);
    decode_codes(f.id, c_dev.get(), n, values.get(), classes.get());
    synchronize();
  }
  return {{"values", golden::make_tensor("float64", codes.shape, values.download())},
          {"classes", golden::make_tensor("uint8", codes.shape, classes.download())}};
}

// Documentation (default recipe, inputs, params, outputs) is the emulator twin's
// (cuda_adapters.hpp, twin_adapters).
const std::vector<golden::KernelAdapter>& table() {
  static const std::vector<golden::KernelAdapter> adapters = twin_adapters({
      {"mx_quantize_2d", mx_2d},
      {"mx_blocked_scales", mx_blocked},
      {"mx_dequantize_dim0", mx_dequantize},
      {"fp8_per_group_colwise_scales_dual", per_group_colwise_dual},
      {"recipe_scale_from_amax", scale_from_amax},
      {"recipe_quantize_blocks", quantize_blocks},
      {"cast", cast_adapter},
      {"decode", decode_adapter},
  });
  return adapters;
}

// ---- production-shape cases ---------------------------------------------------------------------

std::string shape_name(const Shape& shape) {
  std::string s;
  for (const std::int64_t d : shape) {
    if (!s.empty()) s += 'x';
    s += std::to_string(d);
  }
  return s;
}

// The dequantiser's inputs at (M, K): every element code (NaN codes included) and scale bytes
// spread over the whole e8m0 range (0x00, 0xFE and the NaN 0xFF included), counter-based.
golden::CaseSpec dequant_case(const std::string& case_name, std::int64_t M, std::int64_t K,
                              const std::string& out_dtype) {
  const Recipe& r = recipe(kMxRecipe);
  const std::uint64_t seed = 2026;
  std::vector<std::uint8_t> q(std::size_t(M * K)), s(std::size_t(M * (K / 32)));
  for (std::size_t i = 0; i < q.size(); ++i) q[i] = std::uint8_t(golden::uniform_int(seed, i, 256));
  for (std::size_t i = 0; i < s.size(); ++i) s[i] = std::uint8_t(golden::uniform_int(seed + 1, i, 256));
  golden::CaseSpec c;
  c.name = case_name;
  c.call.kernel = "mx_dequantize_dim0";
  c.call.attrs.strings["recipe"] = std::string(name(r));
  c.call.attrs.strings["out_dtype"] = out_dtype;
  c.call.attrs.strings["distribution"] = "uniform_codes";
  c.call.attrs.ints["seed"] = std::int64_t(seed);
  c.call.attrs.int_arrays["shape"] = {M, K};
  c.call.inputs.emplace("q", golden::make_tensor(element_dtype(r), {M, K}, q));
  c.call.inputs.emplace("scale", golden::make_tensor(kE8m0, {M, K / 32}, s));
  return c;
}

}  // namespace

std::span<const golden::KernelAdapter> mx_adapters() { return table(); }

std::vector<LargeCase> large_mx_cases() {
  using golden::Distribution;
  std::vector<LargeCase> out;
  const Shape act{kTokens, kHidden};
  for (const Distribution d : {Distribution::normal, Distribution::outliers}) {
    const std::string dist(golden::name(d));
    const std::string n2d = "mx_quantize_2d_" + shape_name(act) + "_" + dist;
    out.push_back({n2d, [=] { return large_case(n2d, "mx_quantize_2d", act, d, 0, 0); }});
    for (const std::string block : {"1x32", "32x1"}) {
      const std::string n = "mx_blocked_scales_" + shape_name(act) + "_" + block + "_" + dist;
      out.push_back({n, [=] {
                       golden::CaseSpec c = large_case(n, "mx_blocked_scales", act, d, 0, 0);
                       c.call.attrs.strings["block"] = block;
                       return c;
                     }});
    }
    // The dual kernel: x1 (tokens, hidden) and x2 (tokens, 2048), groups over the tokens.
    for (const std::int64_t G : {1, 16, 64, 128}) {
      const std::string n = "fp8_per_group_colwise_scales_dual_" + shape_name(act) + "_" + dist + "_g" + std::to_string(G);
      out.push_back({n, [=] {
                       golden::CaseSpec c = large_case(n, "fp8_per_group_colwise_scales_dual", act, d, G, kTokens);
                       golden::CaseSpec c2 = large_case(n, "fp8_per_group_colwise_scales_dual", {kTokens, 2048}, d, 0, 0);
                       golden::Tensor x1 = c.call.inputs.at("x");
                       c.call.inputs.erase("x");
                       c.call.inputs.emplace("x1", std::move(x1));
                       c.call.inputs.emplace("x2", c2.call.inputs.at("x"));
                       return c;
                     }});
    }
  }
  for (const std::string out_dtype : {"bfloat16", "float32"}) {
    const std::string n = "mx_dequantize_dim0_" + shape_name(act) + "_" + out_dtype;
    out.push_back({n, [=] { return dequant_case(n, kTokens, kHidden, out_dtype); }});
  }
  // 3D weights with blocked scales: E=8 x 5120x8192 and E=64 x 2048x1408 (E, N, K).
  out.push_back(weights_case("mx_blocked_scales", "x", {8, 5120, 8192}, "32x1"));
  out.push_back(weights_case("mx_blocked_scales", "x", {64, 2048, 1408}, "32x32"));
  // The cast at the activation shape (hardware cvt path), and the block quantiser of an NVFP4
  // recipe (generic cast path, e4m3 block scales).
  const std::string cast_name = "cast_" + shape_name(act) + "_e4m3fn_cuda_satfinite";
  out.push_back({cast_name, [=] {
                   golden::CaseSpec c = large_case(cast_name, "cast", act, Distribution::outliers, 0, 0);
                   c.call.attrs.strings["format"] = "e4m3fn";
                   c.call.attrs.strings["profile"] = "cuda_satfinite";
                   return c;
                 }});
  const std::string blocks_name = "recipe_quantize_blocks_" + shape_name(act) + "_nvfp4_block16";
  out.push_back({blocks_name, [=] {
                   golden::CaseSpec c = large_case(blocks_name, "recipe_quantize_blocks", act, Distribution::outliers, 0, 0);
                   c.call.attrs.strings["recipe"] = "nvfp4";
                   c.call.attrs.ints["block"] = 16;
                   return c;
                 }});
  return out;
}

}  // namespace octet::cuda
