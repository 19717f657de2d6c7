// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// cases/mx.cpp — the kernels_mx catalogue (kernels_mx.h5): the MX quantisers over every MX recipe
// (torchao_mx_{floor,rceil,ceil,even}, torchao_mx_{floor,rceil}_v018, te_mxfp8, ocp_mx,
// nvidia_rceil_rcp_approx), the dim0 dequantiser, the blocked scales and the scale swizzles, on
// small, medium (DeepSeek-V3 hidden 7168 and Llama4 hidden 5120 divided by 16) and adversarial
// inputs, and the misuse cases each kernel must reject. Expected outputs are computed by the
// adapters (adapters/mx.cpp) when the file is written.
//
// The amax ladders are the scale formulas' boundary cases: a (32, 32·T) input whose 32x32 tiles
// hold a target amax ±t on the diagonal and smaller values elsewhere, so that every 1x32 row
// block, every 32x1 column block (and, per tile, every 32x32 tile) has exactly that amax. The
// targets are a·2^e for the anchors a = 1 (powers of two: the e8m0 steps), 1.75·2^8 = 448 (the
// e4m3 max: RCEIL and FLOOR's saturation band (448, 512)·2^k), 1.9375 (EVEN's rounding to
// 3 mantissa bits carries into the exponent from there), from the fp32 subnormals to the
// largest finite value, each with its neighbours one ulp (of the input dtype) below and above.
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
#include "octet/format.hpp"
#include "octet/kernels/mx_quantize.hpp"
#include "octet/kernels/mx_swizzle.hpp"

namespace octet::golden {
namespace {

constexpr std::array<std::string_view, 9> kMxRecipes{
    "torchao_mx_floor",      "torchao_mx_rceil", "torchao_mx_ceil", "torchao_mx_even",        "torchao_mx_floor_v018",
    "torchao_mx_rceil_v018", "te_mxfp8",         "ocp_mx",          "nvidia_rceil_rcp_approx"};
// The recipes of the dequantisation round trips: torchao's default, TE's, and torchao's FLOOR.
constexpr std::array<std::string_view, 3> kRoundTripRecipes{"torchao_mx_rceil", "te_mxfp8", "torchao_mx_floor"};

// The catalogue under construction: names `<kernel>[_<recipe>]_<shape>_<dist>_<n>`, n counting
// the cases of one stem; a case's seed derives from its stem and n.
class MxCatalogue : public Catalogue {
 public:
  // A case with its stem; `seed` is the stem's seed (call before generating the inputs).
  struct Draft {
    CaseSpec spec;
    std::string stem;
    std::int64_t seed;
  };
  // `label`: the kernel part of the name when it is more than the kernel ("mx_quantize_3d_32x1").
  Draft draft(const std::string& kernel, std::string_view recipe, const std::string& shape, const std::string& dist,
              const std::string& label = "") {
    Draft d;
    d.stem = label.empty() ? kernel : label;
    for (const std::string_view part : {recipe, std::string_view(shape), std::string_view(dist)})
      if (!part.empty()) d.stem.append("_").append(part);
    d.seed = seed_from_name(d.stem + "#" + std::to_string(next_index(d.stem)));
    d.spec.call.kernel = kernel;
    if (!recipe.empty()) d.spec.call.attrs.strings["recipe"] = std::string(recipe);
    d.spec.call.attrs.ints["seed"] = d.seed;
    return d;
  }
  void add(Draft d, bool expect_error = false) {
    d.spec.name = numbered(d.stem);
    d.spec.expect_error = expect_error;
    push(std::move(d.spec));
  }
};

// ---- inputs ---------------------------------------------------------------------------------------

// The ladder's targets for inputs of `dtype`: each anchor·2^e (when exact in the dtype) with its
// neighbours one dtype ulp below and above, ascending, positive and finite. `short_list`: only
// 1, 448 and 448·2^119 (the per-tile ladder, 1024 elements per target).
std::vector<float> ladder_targets(std::string_view dtype, bool short_list) {
  const bool bf16 = dtype == "bfloat16";
  std::vector<double> anchors;
  const auto add = [&](double a, std::initializer_list<int> exps) {
    for (const int e : exps) anchors.push_back(std::ldexp(a, e));
  };
  if (short_list) {
    add(1.0, {0});
    add(448.0, {0, 119});
  } else {
    add(1.0, {-149, -133, -127, -126, -1, 0, 1, 8, 9, 127});
    add(448.0, {-136, -127, -1, 0, 1, 119});
    add(1.9375, {-127, 0, 126});
    anchors.push_back(bf16 ? 0x1.fep127 : double(std::numeric_limits<float>::max()));
  }
  // Work on the dtype's bit patterns: ±1 is one ulp (both are sign-magnitude).
  const int shift = bf16 ? 16 : 0;
  const std::uint32_t inf_bits = 0x7F800000u >> shift;
  std::vector<std::uint32_t> bits;
  for (const double a : anchors) {
    const float f = float(a);
    if (double(f) != a) continue;  // not exact in fp32 (below the subnormals)
    const std::uint32_t b = std::bit_cast<std::uint32_t>(f);
    if (bf16 && (b & 0xFFFFu) != 0) continue;  // not exact in bf16
    const std::uint32_t d = b >> shift;
    for (const std::uint32_t n : {d - 1, d, d + 1})
      if (n != 0 && n < inf_bits && n != 0xFFFFFFFFu) bits.push_back(n);
  }
  std::sort(bits.begin(), bits.end());
  bits.erase(std::unique(bits.begin(), bits.end()), bits.end());
  std::vector<float> t;
  for (const std::uint32_t b : bits) t.push_back(std::bit_cast<float>(b << shift));
  return t;
}

// The (32, 32·tiles) ladder input. per_tile: one target per 32x32 tile
// on its whole diagonal; otherwise one target per diagonal element. Off the diagonal, element
// (i, j) is n·min(t_row, t_col)/8 with n ~ N(0, 1) (|n| <= 6): below both blocks' targets.
struct Ladder {
  std::vector<float> values;
  std::int64_t rows = 0, cols = 0;
  std::size_t targets = 0;
};
Ladder amax_ladder(const std::vector<float>& targets, bool per_tile, std::uint64_t seed) {
  const std::int64_t per_tile_targets = per_tile ? 1 : 32;
  const std::int64_t tiles = (std::int64_t(targets.size()) + per_tile_targets - 1) / per_tile_targets;
  Ladder l;
  l.rows = 32, l.cols = 32 * tiles, l.targets = targets.size();
  // The target of diagonal slot d of a tile (unused slots: 1).
  const auto target = [&](std::int64_t tile, std::int64_t d) {
    const std::size_t k = std::size_t(tile * per_tile_targets + (per_tile ? 0 : d));
    return k < targets.size() ? targets[k] : 1.0f;
  };
  const std::vector<float> noise = generate_fp32(InputSpec{Distribution::normal, seed}, l.rows * l.cols);
  l.values.resize(noise.size());
  for (std::int64_t i = 0; i < l.rows; ++i)
    for (std::int64_t j = 0; j < l.cols; ++j) {
      const std::int64_t tile = j / 32, d = i;  // row i's diagonal slot in each tile
      float& v = l.values[std::size_t(i * l.cols + j)];
      if (j % 32 == d) {
        const float t = target(tile, d);
        v = ((tile * 32 + d) % 2) ? -t : t;  // signs alternate
      } else {
        // Row i's block holds target(tile, i), column j's block target(tile, j % 32).
        const double bound = std::min(target(tile, d), target(tile, j % 32));
        v = float(double(noise[std::size_t(i * l.cols + j)]) * bound / 8.0);
      }
    }
  return l;
}

std::string ladder_description(const Ladder& l, bool per_tile) {
  return std::string("amax_ladder(targets=") + std::to_string(l.targets) + ",per=" + (per_tile ? "tile32x32" : "block") +
         ",anchors=2^e|1.9375*2^e|448*2^e,neighbours=1ulp)";
}

// Random bytes in [0, 256): scale codes and element codes, every special included.
std::vector<std::uint8_t> random_bytes(std::uint64_t seed, std::int64_t n) {
  std::vector<std::uint8_t> b(std::size_t(std::max<std::int64_t>(n, 0)));
  for (std::int64_t i = 0; i < n; ++i) b[std::size_t(i)] = std::uint8_t(uniform_int(seed, std::uint64_t(i), 256));
  return b;
}
constexpr std::string_view kUniformBytes = "uniform_bytes(0..255)";

// ---- the quantisers -------------------------------------------------------------------------------

// A quantiser as the catalogue calls it: registry name, the kernel part of the case names, and
// its parameters.
struct QuantKernel {
  std::string kernel;
  std::string label;                       // the kernel part of the case name
  std::map<std::string, std::int64_t> ints;  // rowwise / colwise
  std::string block;                       // mx_quantize_3d: 32x1 | 32x32; "" otherwise
  bool three_d = false;
  bool rows_blocked = false;  // blocks run along the rows (32x1): zero/constant runs must span whole rows
};

std::vector<QuantKernel> quant_kernels() {
  return {
      {"mx_quantize_dim0", "mx_quantize_dim0", {}, "", false, false},
      {"mx_quantize_dim1", "mx_quantize_dim1", {}, "", false, true},
      {"mx_quantize_2d", "mx_quantize_2d", {{"rowwise", 1}, {"colwise", 1}}, "", false, true},
      {"mx_quantize_3d", "mx_quantize_3d_32x1", {}, "32x1", true, true},
      {"mx_quantize_3d", "mx_quantize_3d_32x32", {}, "32x32", true, true},
  };
}

// One quantiser case on x; `seed`: the seed x was generated with, when not the case's own.
void add_quant(MxCatalogue& cat, const QuantKernel& k, std::string_view recipe, const std::string& dist_label,
               const std::string& distribution, std::string_view dtype, Tensor x, std::int64_t seed = -1) {
  MxCatalogue::Draft d = cat.draft(k.kernel, recipe, dims_label(x.shape), dist_label, k.label);
  describe_input(d.spec, distribution, dtype, x.shape);
  if (seed >= 0) d.spec.call.attrs.ints["seed"] = seed;
  for (const auto& [key, v] : k.ints) d.spec.call.attrs.ints[key] = v;
  if (!k.block.empty()) d.spec.call.attrs.strings["block"] = k.block;
  d.spec.call.inputs.emplace("x", std::move(x));
  cat.add(std::move(d));
}

// One quantiser case on a generated x of `shape` ((M, K), or (E, N, K) for the 3D kernel), seeded
// with the case's own seed.
void add_generated(MxCatalogue& cat, const QuantKernel& k, std::string_view recipe, InputSpec spec, std::string_view dtype,
                   std::vector<std::int64_t> shape, const std::string& dist_label) {
  const std::int64_t cols = shape.back();
  // zero / constant runs along the blocks: one block for 1x32, 32 whole rows for 32x1 and 32x32.
  if (spec.distribution == Distribution::zero_blocks || spec.distribution == Distribution::constant_blocks)
    spec.block = k.rows_blocked ? 32 * cols : 32;
  spec.seed = std::uint64_t(cat.draft(k.kernel, recipe, dims_label(shape), dist_label, k.label).seed);
  Tensor x = generate_tensor(spec, shape, dtype);
  add_quant(cat, k, recipe, dist_label, describe(spec), dtype, std::move(x));
}

// The per-kernel shapes: small (hand-checkable), `dists` (the shape of the other distributions),
// medium (DeepSeek-V3 hidden 7168 / 16 = 448 and Llama4 5120 / 16 = 320 with `tokens` rows; 3D:
// experts x 32 x 128), edge (unaligned where the kernel allows it, empty).
struct Shapes {
  std::vector<std::vector<std::int64_t>> small, medium, edge;
  std::vector<std::int64_t> dists;
};
Shapes shapes_of(const QuantKernel& k, std::int64_t tokens) {
  if (k.kernel == "mx_quantize_dim0")
    return {{{2, 32}, {4, 128}}, {{tokens, 448}, {tokens / 2, 320}}, {{1, 32}, {3, 96}, {0, 64}}, {8, 128}};
  if (k.kernel == "mx_quantize_dim1")
    return {{{32, 2}, {64, 4}}, {{tokens, 448}}, {{96, 3}, {64, 0}}, {64, 16}};
  if (k.kernel == "mx_quantize_2d") return {{{32, 32}}, {{tokens, 448}}, {{96, 32}}, {32, 64}};
  if (k.block == "32x1")
    return {{{1, 32, 4}}, {{tokens / 16, 32, 128}}, {{3, 32, 5}}, {1, 32, 64}};
  return {{{1, 32, 32}}, {{tokens / 16, 32, 128}}, {{2, 32, 0}}, {1, 32, 64}};
}

void add_quantizer_cases(MxCatalogue& cat, Suite suite) {
  const std::int64_t tokens = suite == Suite::full ? 512 : 32;
  const InputSpec normal{Distribution::normal}, outliers{Distribution::outliers};
  for (const QuantKernel& k : quant_kernels()) {
    const Shapes sh = shapes_of(k, tokens);
    // Every MX recipe: the amax ladder (its off-diagonal values are ordinary N(0, 1)-shaped data
    // at every scale; fp32 too for the 1x32 kernel) and NaN/Inf/±0/subnormal specials (the 3D
    // 32x1 blocks reduce like mx_quantize_dim1's). The 32x32 tile ladder (1024 elements per
    // target) for one recipe of each scale formula family.
    const bool per_tile = k.block == "32x32";
    for (const std::string_view recipe : kMxRecipes) {
      if (per_tile && recipe != "torchao_mx_rceil" && recipe != "torchao_mx_floor" && recipe != "te_mxfp8" &&
          recipe != "torchao_mx_rceil_v018")
        continue;
      if (k.block != "32x1")
        add_generated(cat, k, recipe, InputSpec{Distribution::specials}, "bfloat16", sh.dists, "specials-bf16");
      for (const std::string_view dtype : {"bfloat16", "float32"}) {
        if (dtype == "float32" && k.kernel != "mx_quantize_dim0") continue;
        const std::vector<float> targets = ladder_targets(dtype, per_tile);
        const std::int64_t seed = seed_from_name(k.label + std::string(recipe) + std::string(dtype));
        const Ladder l = amax_ladder(targets, per_tile, std::uint64_t(seed));
        std::vector<std::int64_t> shape{l.rows, l.cols};
        if (k.three_d) shape = {l.rows / 32, 32, l.cols};
        add_quant(cat, k, recipe, (per_tile ? "ladder_tile-" : "ladder-") + short_dtype(dtype),
                  ladder_description(l, per_tile), dtype, float_tensor(dtype, shape, l.values), seed);
      }
    }
    // Small hand-checkable inputs, torchao's default recipe.
    for (const auto& shape : sh.small) add_generated(cat, k, "torchao_mx_rceil", normal, "bfloat16", shape, "normal-bf16");
    // Medium shapes: torchao's default on normal inputs (DeepSeek-V3 proportions), TE's on
    // SwiGLU-like outliers (Llama4 proportions where the kernel has a second medium shape).
    add_generated(cat, k, "torchao_mx_rceil", normal, "bfloat16", sh.medium.front(), "normal-bf16");
    add_generated(cat, k, "te_mxfp8", outliers, "bfloat16", sh.medium.back(), "outliers-bf16");
    // The other distributions: torchao's default (but for the 32x32 tiles, whose blocks the
    // ladder covers); TE's too on the 1x32 kernel.
    for (const std::string_view recipe : {"torchao_mx_rceil", "te_mxfp8"}) {
      if ((recipe == "te_mxfp8" && k.kernel != "mx_quantize_dim0") || per_tile) continue;
      const std::vector<std::int64_t>& s = sh.dists;
      add_generated(cat, k, recipe, InputSpec{Distribution::student_t}, "bfloat16", s, "student_t-bf16");
      add_generated(cat, k, recipe, InputSpec{Distribution::log_uniform}, "float32", s, "log_uniform-fp32");
      add_generated(cat, k, recipe, InputSpec{Distribution::zero_blocks}, "bfloat16", s, "zero_blocks-bf16");
      add_generated(cat, k, recipe, InputSpec{Distribution::constant_blocks}, "float32", s, "constant_blocks-fp32");
      add_generated(cat, k, recipe, InputSpec{Distribution::normal, 0, 0x1p-120}, "float32", s, "normal_tiny-fp32");
    }
    // Edge shapes (one row, unaligned free dimension, empty), torchao's default recipe.
    for (const auto& shape : sh.edge) add_generated(cat, k, "torchao_mx_rceil", normal, "bfloat16", shape, "normal-bf16");
  }
  // mx_quantize_2d one direction at a time.
  for (const auto& [label, rowwise] : {std::pair{"mx_quantize_2d_rowwise", 1}, std::pair{"mx_quantize_2d_colwise", 0}}) {
    const QuantKernel k{"mx_quantize_2d", label, {{"rowwise", rowwise}, {"colwise", 1 - rowwise}}, "", false, true};
    for (const std::string_view recipe : {"torchao_mx_rceil", "te_mxfp8"})
      add_generated(cat, k, recipe, InputSpec{Distribution::student_t}, "bfloat16", {32, 64}, "student_t-bf16");
  }
}

// ---- dequantisation, blocked scales, swizzles ----------------------------------------------------

// `seed`: what q and scale were generated from.
void add_dequant(MxCatalogue& cat, std::string_view recipe, const std::string& out_dtype, const std::string& dist_label,
                 const std::string& distribution, std::uint64_t seed, Tensor q, Tensor scale, bool expect_error = false) {
  MxCatalogue::Draft d = cat.draft("mx_dequantize_dim0", recipe, dims_label(q.shape),
                                 dist_label + "-" + short_dtype(out_dtype));
  describe_input(d.spec, distribution, q.dtype, q.shape);
  d.spec.call.attrs.ints["seed"] = std::int64_t(seed);
  d.spec.call.attrs.strings["out_dtype"] = out_dtype;
  d.spec.call.inputs.emplace("q", std::move(q));
  d.spec.call.inputs.emplace("scale", std::move(scale));
  cat.add(std::move(d), expect_error);
}

void add_dequantizer_cases(MxCatalogue& cat, Suite suite) {
  const std::int64_t rows = suite == Suite::full ? 64 : 8;
  // Every element code under every scale byte (0 and 255 included): random bytes; fp32 outputs
  // for the three distinct decodings of byte 0 and 255 (torchao main, v0.18, OCP).
  for (const std::string_view recipe : kMxRecipes) {
    const std::string_view element = dtype_name(element_format(octet::recipe(recipe)));
    for (const std::string out : {"bfloat16", "float32"}) {
      if (out == "float32" && recipe != "torchao_mx_rceil" && recipe != "torchao_mx_rceil_v018" && recipe != "ocp_mx")
        continue;
      const std::uint64_t seed = std::uint64_t(seed_from_name(std::string(recipe) + out));
      add_dequant(cat, recipe, out, "random_codes", std::string(kUniformBytes), seed,
                  make_tensor(element, {rows, 64}, random_bytes(seed, rows * 64)),
                  make_tensor("float8_e8m0fnu", {rows, 2}, random_bytes(seed + 1, rows * 2)));
    }
  }
  // The round trip of realistic data: x (N(0,1) with outliers) quantised by mx_quantize_dim0.
  for (const std::string_view recipe : kRoundTripRecipes) {
    const std::uint64_t seed = std::uint64_t(seed_from_name(std::string(recipe) + "roundtrip"));
    const InputSpec spec{Distribution::outliers, seed};
    const std::vector<std::uint16_t> x = generate_bf16(spec, 32 * 128);
    const MxOutput2D q = mx_quantize_dim0(octet::recipe(recipe), view2d(x, 32, 128));
    const std::string_view element = dtype_name(element_format(octet::recipe(recipe)));
    for (const std::string out : {"bfloat16", "float32"}) {
      if (out == "float32" && recipe != "torchao_mx_rceil") continue;
      add_dequant(cat, recipe, out, "roundtrip", "mx_quantize_dim0 of " + describe(spec) + " bfloat16 (32, 128)", seed,
                  make_tensor(element, {32, 128}, q.data), make_tensor("float8_e8m0fnu", {32, 4}, q.scale));
    }
  }
}

void add_blocked_scales_cases(MxCatalogue& cat) {
  struct Shape {
    std::vector<std::int64_t> shape;
    std::string block;
  };
  // Unaligned to the 128x4 tiles in both directions; torchao's recipe on all, TE's on the small ones.
  const std::vector<Shape> shapes{{{4, 64}, "1x32"},      {{32, 5}, "32x1"},       {{1, 160, 32}, "32x32"},
                                  {{130, 64}, "1x32"},    {{64, 130}, "32x1"},     {{2, 32, 130}, "32x1"},
                                  {{2, 32, 160}, "32x32"}};
  for (const std::string_view recipe : {"torchao_mx_rceil", "te_mxfp8"})
    for (std::size_t i = 0; i < (recipe == "te_mxfp8" ? 3 : shapes.size()); ++i) {
      const Shape& s = shapes[i];
      MxCatalogue::Draft d = cat.draft("mx_blocked_scales", recipe, dims_label(s.shape), "log_uniform-bf16",
                                     "mx_blocked_scales_" + s.block);
      const InputSpec spec{Distribution::log_uniform, std::uint64_t(d.seed), 1.0};
      describe_input(d.spec, describe(spec), "bfloat16", s.shape);
      d.spec.call.attrs.strings["block"] = s.block;
      d.spec.call.inputs.emplace("x", generate_tensor(spec, s.shape, "bfloat16"));
      cat.add(std::move(d));
    }
}

// A swizzle case on random scale bytes of `shape` (plus extra inputs and attributes).
MxCatalogue::Draft swizzle_draft(MxCatalogue& cat, const std::string& kernel, const std::vector<std::int64_t>& shape,
                               const std::string& dist_label) {
  MxCatalogue::Draft d = cat.draft(kernel, "", dims_label(shape), dist_label);
  std::int64_t n = 1;
  for (const std::int64_t x : shape) n *= x;
  describe_input(d.spec, std::string(kUniformBytes), "float8_e8m0fnu", shape);
  d.spec.call.inputs.emplace("scale", make_tensor("float8_e8m0fnu", shape, random_bytes(std::uint64_t(d.seed), n)));
  return d;
}

void add_swizzle_cases(MxCatalogue& cat, Suite suite) {
  const std::int64_t tokens = suite == Suite::full ? 4096 : 256;
  for (const std::vector<std::int64_t>& s : std::vector<std::vector<std::int64_t>>{
           {1, 1}, {130, 5}, {300, 7}, {0, 4}, {tokens, 14}}) {
    cat.add(swizzle_draft(cat, "to_blocked", s, "random"));
    // from_blocked of a random Hp·Wp buffer (padding bytes are random too: they must be dropped).
    MxCatalogue::Draft d = cat.draft("from_blocked", "", dims_label(s), "random");
    const std::int64_t n = blocked_rows(s[0]) * blocked_cols(s[1]);
    describe_input(d.spec, std::string(kUniformBytes), "float8_e8m0fnu", {n});
    d.spec.call.attrs.ints["rows"] = s[0];
    d.spec.call.attrs.ints["cols"] = s[1];
    d.spec.call.inputs.emplace("scale_blocked", make_tensor("float8_e8m0fnu", random_bytes(std::uint64_t(d.seed), n)));
    cat.add(std::move(d));
  }
  // M groups: hand-written (empty first/middle/last groups, 1-row groups, a group over 128 rows,
  // rows past offs[-1]) and random (DeepSeek-V3 256 experts / 16, Llama4 16 experts).
  struct Grouped {
    std::vector<std::int64_t> shape, offs;
    std::string label;
  };
  std::vector<Grouped> m_cases{{{300, 7}, {0, 1, 1, 130, 130, 299}, "edge"},
                               {{64, 4}, {64}, "one_group"},
                               {{200, 5}, {0, 0, 0}, "all_empty"},
                               {{tokens, 14}, random_offs(11, 16, tokens, 1), "random16"},
                               {{tokens, 10}, random_offs(12, 4, tokens, 1, 37), "random4_tail"}};
  for (std::size_t i = 0; i < m_cases.size(); ++i) {
    MxCatalogue::Draft d = swizzle_draft(cat, "to_blocked_m_groups", m_cases[i].shape, m_cases[i].label);
    d.spec.call.inputs.emplace("offs", int_tensor(i % 2 == 0 ? "int32" : "int64", m_cases[i].offs));
    cat.add(std::move(d));
  }
  // K groups: token ends over M = 32·Mb, each group a multiple of 32.
  std::vector<Grouped> k_cases{{{130, 20}, {0, 32, 32, 320, 640}, "edge"},
                               {{64, 4}, {128}, "one_group"},
                               {{256, tokens / 32}, random_offs(13, 16, tokens, 32), "random16"},
                               {{100, 12}, random_offs(14, 4, 384, 32, 64), "random4_tail"}};
  for (std::size_t i = 0; i < k_cases.size(); ++i) {
    MxCatalogue::Draft d = swizzle_draft(cat, "to_blocked_k_groups", k_cases[i].shape, k_cases[i].label);
    d.spec.call.inputs.emplace("offs", int_tensor(i % 2 == 1 ? "int32" : "int64", k_cases[i].offs));
    cat.add(std::move(d));
  }
  for (const std::vector<std::int64_t>& s :
       std::vector<std::vector<std::int64_t>>{{1, 1, 1}, {2, 130, 5}, {4, 64, 14}, {0, 32, 4}})
    cat.add(swizzle_draft(cat, "to_blocked_per_group_3d", s, "random"));
}

// ---- misuse ---------------------------------------------------------------------------------------

void add_misuse_cases(MxCatalogue& cat) {
  const InputSpec normal{Distribution::normal, 7};
  const auto quant = [&](const std::string& kernel, std::string_view recipe, const std::string& what, Tensor x,
                         std::map<std::string, std::int64_t> ints = {}, std::map<std::string, std::string> strings = {}) {
    MxCatalogue::Draft d = cat.draft(kernel, recipe, dims_label(x.shape), "misuse_" + what);
    const bool generated = x.dtype == "bfloat16" || x.dtype == "float32";
    describe_input(d.spec, generated ? describe(normal) : "constant", x.dtype, x.shape);
    d.spec.call.attrs.ints["seed"] = 7;
    for (const auto& [k, v] : ints) d.spec.call.attrs.ints[k] = v;
    for (const auto& [k, v] : strings) d.spec.call.attrs.strings[k] = v;
    d.spec.call.inputs.emplace("x", std::move(x));
    cat.add(std::move(d), true);
  };
  const auto x = [&](std::vector<std::int64_t> shape, std::string_view dtype = "bfloat16") {
    return generate_tensor(normal, std::move(shape), dtype);
  };
  quant("mx_quantize_dim0", "torchao_mx_rceil", "k_not_multiple_of_32", x({4, 48}));
  quant("mx_quantize_dim0", "torchao_mx_rceil", "rank3", x({2, 4, 32}));
  quant("mx_quantize_dim0", "torchao_mx_rceil", "int32_input", make_tensor("int32", {2, 32}, std::vector<std::int32_t>(64, 1)));
  quant("mx_quantize_dim0", "torchao_fp8_rowwise", "not_an_mx_recipe", x({2, 32}));
  quant("mx_quantize_dim0", "deepgemm_ue8m0", "not_an_mx_recipe", x({2, 32}));
  quant("mx_quantize_dim0", "torchao_mx_round", "unknown_recipe", x({2, 32}));
  quant("mx_quantize_dim1", "torchao_mx_rceil", "m_not_multiple_of_32", x({48, 64}));
  quant("mx_quantize_dim1", "te_mxfp8", "float8_input", make_tensor("float8_e4m3fn", {32, 2}, std::vector<std::uint8_t>(64, 0x38)));
  quant("mx_quantize_2d", "te_mxfp8", "cols_not_multiple_of_32", x({32, 48}));
  quant("mx_quantize_2d", "te_mxfp8", "rows_not_multiple_of_32", x({48, 32}));
  quant("mx_quantize_2d", "te_mxfp8", "no_direction", x({32, 32}), {{"rowwise", 0}, {"colwise", 0}});
  quant("mx_quantize_2d", "te_mxfp8", "bad_flag", x({32, 32}), {{"rowwise", 2}});
  quant("mx_quantize_3d", "torchao_mx_rceil", "n_not_multiple_of_32", x({2, 48, 32}));
  quant("mx_quantize_3d", "torchao_mx_rceil", "k_not_multiple_of_32_for_32x32", x({2, 32, 48}), {}, {{"block", "32x32"}});
  quant("mx_quantize_3d", "torchao_mx_rceil", "unknown_block", x({2, 32, 32}), {}, {{"block", "16x1"}});
  quant("mx_quantize_3d", "torchao_mx_rceil", "rank2", x({32, 32}));
  quant("mx_blocked_scales", "torchao_mx_rceil", "block_32x32_for_2d", x({32, 32}), {}, {{"block", "32x32"}});
  quant("mx_blocked_scales", "torchao_mx_rceil", "k_not_multiple_of_32", x({4, 40}));

  const auto bytes = [](std::string_view dtype, std::vector<std::int64_t> shape) {
    std::int64_t n = 1;
    for (const std::int64_t d : shape) n *= d;
    return make_tensor(dtype, std::move(shape), random_bytes(5, n));
  };
  add_dequant(cat, "torchao_mx_rceil", "bfloat16", "misuse_q_dtype_e5m2", std::string(kUniformBytes), 5,
              bytes("float8_e5m2", {2, 32}), bytes("float8_e8m0fnu", {2, 1}), true);
  add_dequant(cat, "torchao_mx_rceil", "bfloat16", "misuse_scale_dtype_uint8", std::string(kUniformBytes), 5,
              bytes("float8_e4m3fn", {2, 32}), bytes("uint8", {2, 1}), true);
  add_dequant(cat, "torchao_mx_rceil", "bfloat16", "misuse_scale_shape", std::string(kUniformBytes), 5,
              bytes("float8_e4m3fn", {2, 64}), bytes("float8_e8m0fnu", {2, 3}), true);
  add_dequant(cat, "torchao_mx_rceil", "bfloat16", "misuse_k_not_multiple_of_32", std::string(kUniformBytes), 5,
              bytes("float8_e4m3fn", {2, 48}), bytes("float8_e8m0fnu", {2, 1}), true);
  add_dequant(cat, "torchao_mx_rceil", "float16", "misuse_out_dtype", std::string(kUniformBytes), 5,
              bytes("float8_e4m3fn", {2, 32}), bytes("float8_e8m0fnu", {2, 1}), true);
  add_dequant(cat, "te_blockwise", "bfloat16", "misuse_not_an_mx_recipe", std::string(kUniformBytes), 5,
              bytes("float8_e4m3fn", {2, 32}), bytes("float8_e8m0fnu", {2, 1}), true);

  const auto swizzle = [&](const std::string& kernel, Tensor scale, const std::string& what, Tensors extra = {},
                           std::map<std::string, std::int64_t> ints = {}) {
    MxCatalogue::Draft d = cat.draft(kernel, "", dims_label(scale.shape), "misuse_" + what);
    describe_input(d.spec, std::string(kUniformBytes), scale.dtype, scale.shape);
    d.spec.call.attrs.ints["seed"] = 5;
    for (const auto& [k, v] : ints) d.spec.call.attrs.ints[k] = v;
    d.spec.call.inputs.emplace(kernel == "from_blocked" ? "scale_blocked" : "scale", std::move(scale));
    for (auto& [k, t] : extra) d.spec.call.inputs.emplace(k, std::move(t));
    cat.add(std::move(d), true);
  };
  swizzle("to_blocked", bytes("float8_e8m0fnu", {2, 4, 4}), "rank3");
  swizzle("to_blocked", make_tensor("float32", {4, 4}, std::vector<float>(16, 1.0f)), "float32_scale");
  swizzle("from_blocked", bytes("float8_e8m0fnu", {512}), "size_mismatch", {}, {{"rows", 130}, {"cols", 5}});
  swizzle("from_blocked", bytes("float8_e8m0fnu", {512}), "missing_rows", {}, {{"cols", 4}});
  swizzle("to_blocked_m_groups", bytes("float8_e8m0fnu", {64, 4}), "offs_not_monotonic",
          {{"offs", int_tensor("int32", {32, 16, 64})}});
  swizzle("to_blocked_m_groups", bytes("float8_e8m0fnu", {64, 4}), "offs_beyond_rows",
          {{"offs", int_tensor("int64", {32, 65})}});
  swizzle("to_blocked_m_groups", bytes("float8_e8m0fnu", {64, 4}), "offs_float32",
          {{"offs", make_tensor("float32", std::vector<float>{32.0f, 64.0f})}});
  swizzle("to_blocked_m_groups", bytes("float8_e8m0fnu", {64, 4}), "missing_offs");
  swizzle("to_blocked_k_groups", bytes("float8_e8m0fnu", {64, 4}), "group_not_multiple_of_32",
          {{"offs", int_tensor("int32", {32, 80, 128})}});
  swizzle("to_blocked_k_groups", bytes("float8_e8m0fnu", {64, 4}), "offs_beyond_columns",
          {{"offs", int_tensor("int64", {64, 160})}});
  swizzle("to_blocked_k_groups", bytes("float8_e8m0fnu", {64, 4}), "offs_not_monotonic",
          {{"offs", int_tensor("int64", {64, 32})}});
  swizzle("to_blocked_per_group_3d", bytes("float8_e8m0fnu", {4, 4}), "rank2");
}

}  // namespace

std::vector<CaseSpec> mx_cases(Suite suite) {
  MxCatalogue cat;
  add_quantizer_cases(cat, suite);
  add_dequantizer_cases(cat, suite);
  add_blocked_scales_cases(cat);
  add_swizzle_cases(cat, suite);
  add_misuse_cases(cat);
  return cat.take();
}

}  // namespace octet::golden
