// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// cases/fp8.cpp — the catalogue of kernels_fp8.h5: every FP8 quantiser of families 1–3
// (adapters/fp8.cpp) on
//   * small shapes (hand-checkable) in bf16 and fp32;
//   * a medium shape in DeepSeek-V3 (hidden 7168, moe-inter 2048, 256 experts top-8) or Llama4
//     (hidden 5120, inter 8192, 16 experts top-1) proportions, divided by 16 or so;
//   * adversarial inputs: NaN/Inf/±0/subnormals, constant blocks, outliers, log-uniform
//     magnitudes, and an "amax ladder" that puts every block's amax exactly at, and one ulp of the
//     input dtype around, the scale formulas' boundaries (powers of two, 448, 240, 57344, the amax
//     floors 1e-12 and 1e-4, fp32 min normal, a subnormal, near FLT_MAX, and zero: all-zero blocks);
//   * every other recipe the kernel's peers use, on NaN/Inf/subnormal inputs (the rowwise 2D
//     kernel carries all 16 fp8 recipes, amax ladder included);
//   * group layouts (empty groups first / middle / last, size-1 and huge groups, partial 128-row
//     blocks, offs[-1] below the extent, no groups, many groups, int64 offs);
//   * misuse: wrong dtype / rank, missing input, misaligned dims, bad offs, recipes without fp8
//     elements and fp32 scales.
// The full suite adds every distribution (heavy tails, zero blocks, tiny normals) and both dtypes
// under every recipe, and 4-8x larger medium shapes.
// Case names: <kernel>_<recipe>_<shape>_<what>_<n>.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "catalogue.hpp"

namespace octet::golden {
namespace {

using Dims = std::vector<std::int64_t>;

// ---- problems -----------------------------------------------------------------------------------

enum class Operand : std::uint8_t {
  matrix,        // x (M, K)
  experts,       // w (E, K, N)
  groups_rows,   // x (M, D), offs over M
  groups_cols,   // x (M, K), offs over K
  dual,          // x1 (K, N1), x2 (K, N2), offs over K
  scales,        // scale_inv (Kb, Nb) or (E, Kb, Nb)
};

// How a kernel cuts its input into scale blocks (for the amax ladder and the zero/constant runs).
enum class Blocks : std::uint8_t {
  row,              // one block per row (flattened leading dims)
  expert_col,       // (E, K, N): one block per (e, n), over K
  row_128,          // 1x128 along the last dim
  col_128,          // 128x1 along the rows
  tile_128,         // 128x128
  group_row,        // (row, column group): per-group rowwise
  group_col,        // (row group, column): per-group colwise
  token_group_128,  // 128-row blocks restarting at each group start, per column
  none,             // the pad kernel: no quantisation
};

struct Problem {
  Dims dims;                       // of x / w / x1 / scale_inv
  std::vector<std::int64_t> offs;  // group ends (grouped operands)
  std::int64_t n2 = 0;             // dual: columns of x2
  std::string tag;                 // shape part of the case name
};

Problem dense(Dims dims) {
  Problem p{std::move(dims), {}, 0, {}};
  p.tag = dims_label(p.dims);
  return p;
}

std::vector<std::int64_t> ends_of(const std::vector<std::int64_t>& sizes) {
  std::vector<std::int64_t> ends;
  std::int64_t end = 0;
  for (const std::int64_t s : sizes) ends.push_back(end += s);
  return ends;
}

// G group sizes, multiples of `align`, summing to `used`, from uniform cut points.
std::vector<std::int64_t> random_sizes(std::uint64_t seed, std::int64_t G, std::int64_t used, std::int64_t align) {
  std::vector<std::int64_t> cuts{0, used / align};
  for (std::int64_t g = 0; g + 1 < G; ++g) cuts.push_back(uniform_int(seed, std::uint64_t(g), used / align + 1));
  std::sort(cuts.begin(), cuts.end());
  std::vector<std::int64_t> sizes;
  for (std::size_t i = 1; i < cuts.size(); ++i) sizes.push_back((cuts[i] - cuts[i - 1]) * align);
  return sizes;
}

// A grouped problem: `extent` rows (or columns) along the grouped dim, `other` along the other.
Problem grouped(Operand op, std::int64_t extent, std::int64_t other, const std::vector<std::int64_t>& sizes,
                std::string what = "", std::int64_t n2 = 0) {
  Problem p;
  p.dims = op == Operand::groups_cols ? Dims{other, extent} : Dims{extent, other};
  p.offs = ends_of(sizes);
  p.n2 = n2;
  // "512x16p14g16": x (512, 16), x2 with 14 columns, 16 groups; "-what" names an edge case.
  p.tag = dims_label(p.dims) + (n2 ? "p" + std::to_string(n2) : "") + "g" + std::to_string(sizes.size()) +
          (what.empty() ? "" : "-" + what);
  return p;
}

// ---- the amax ladder ----------------------------------------------------------------------------

std::uint16_t bf16_rne(float f) {
  const std::uint32_t b = std::bit_cast<std::uint32_t>(f);
  return std::uint16_t((b + 0x7FFFu + ((b >> 16) & 1u)) >> 16);  // finite values only
}
float bf16_value(std::uint16_t h) { return std::bit_cast<float>(std::uint32_t(h) << 16); }

// Block amaxes on the scale formulas' boundaries, each with its neighbours one ulp of the input
// dtype below and above: powers of two (the pow2 recipes' floor / ceil steps), 3.5 = 448/2^7, the
// element maxima 448 (e4m3fn), 240 (e4m3fnuz), 57344 (e5m2), the amax floors 1e-12 (torchao) and
// 1e-4 (DeepGEMM, DeepEP), fp32 min normal, an fp32 subnormal, near FLT_MAX, and zero.
std::vector<float> ladder_values(std::string_view dtype) {
  const float bases[] = {1.0f,   0x1p-20f, 0x1p20f, 3.5f,      448.0f,     240.0f,
                         57344.0f, 1e-12f, 1e-4f,  0x1p-126f, 0x1p-130f, 3.0e38f};
  std::vector<float> out{0.0f};
  for (const float b : bases) {
    if (dtype == "bfloat16") {
      const std::uint16_t h = bf16_rne(b);
      out.insert(out.end(), {bf16_value(std::uint16_t(h - 1)), bf16_value(h), bf16_value(std::uint16_t(h + 1))});
    } else {
      const float inf = std::numeric_limits<float>::infinity();
      out.insert(out.end(), {std::nextafter(b, 0.0f), b, std::nextafter(b, inf)});
    }
  }
  return out;
}

// Index of the group holding each position along a grouped dim (-1: past offs[-1]), and the
// groups' starts.
struct GroupIndex {
  std::vector<std::int64_t> group_of, start;
  GroupIndex(const std::vector<std::int64_t>& offs, std::int64_t extent) : group_of(std::size_t(extent), -1) {
    std::int64_t begin = 0;
    for (std::size_t g = 0; g < offs.size(); ++g) {
      start.push_back(begin);
      for (std::int64_t i = begin; i < offs[g] && i < extent; ++i) group_of[std::size_t(i)] = std::int64_t(g);
      begin = offs[g];
    }
  }
};

// The scale block holding element (r, c) of the input seen as (rows, cols) (3D: rows = E*K);
// -1 when the element belongs to no block.
std::int64_t block_of(Blocks b, const Problem& p, const GroupIndex& gi, std::int64_t r, std::int64_t c) {
  const std::int64_t cols = p.dims.back(), col_blocks = (cols + 127) / 128;
  switch (b) {
    case Blocks::row: return r;
    case Blocks::expert_col: return (r / p.dims[1]) * cols + c;
    case Blocks::row_128: return r * col_blocks + c / 128;
    case Blocks::col_128: return (r / 128) * cols + c;
    case Blocks::tile_128: return (r / 128) * col_blocks + c / 128;
    case Blocks::group_row: {
      const std::int64_t g = gi.group_of[std::size_t(c)];
      return g < 0 ? -1 : g * p.dims[0] + r;
    }
    case Blocks::group_col: {
      const std::int64_t g = gi.group_of[std::size_t(r)];
      return g < 0 ? -1 : g * cols + c;
    }
    case Blocks::token_group_128: {
      const std::int64_t g = gi.group_of[std::size_t(r)];
      if (g < 0) return -1;
      const std::int64_t s = gi.start[std::size_t(g)];
      return (s + (r - s) / 128 * 128) * cols + c;
    }
    case Blocks::none: return -1;
  }
  return -1;
}

// Sparse filler (a fraction 30/bound of the elements is ±j/16 · amax, j in 1..15, the rest 0)
// and, at each block's first element in row-major order, ±amax itself: every block's amax is
// exactly its ladder value (fl(amax · j/16) <= amax, and so is its bf16 rounding). Block k (in order of first appearance) takes ladder[(k + offset) % L].
// Returns the tensor and the number of blocks.
std::pair<Tensor, std::int64_t> ladder_tensor(const Problem& p, Blocks blocks, std::string_view dtype,
                                              std::uint64_t seed, std::int64_t offset, std::int64_t bound) {
  const std::vector<float> ladder = ladder_values(dtype);
  const std::int64_t L = std::int64_t(ladder.size());
  const std::int64_t cols = p.dims.back();
  std::int64_t rows = 1;
  for (std::size_t d = 0; d + 1 < p.dims.size(); ++d) rows *= p.dims[d];
  const bool cols_grouped = blocks == Blocks::group_row;
  const GroupIndex gi(p.offs, cols_grouped ? cols : rows);
  std::unordered_map<std::int64_t, std::int64_t> ordinal;
  std::vector<float> v(std::size_t(rows * cols));
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) {
      const std::int64_t i = r * cols + c, id = block_of(blocks, p, gi, r, c);
      const auto [it, first] = ordinal.emplace(id, std::int64_t(ordinal.size()));
      const float amax = ladder[std::size_t((it->second + offset) % L)];
      float x = 0.0f;
      if (first && id >= 0) {
        x = it->second % 2 ? -amax : amax;
      } else {
        const std::int64_t k = uniform_int(seed, std::uint64_t(i), bound);
        if (k < 30) x = amax * (float((k % 15) + 1) / 16.0f) * (k < 15 ? 1.0f : -1.0f);
      }
      v[std::size_t(i)] = x;
    }
  const std::int64_t count = std::int64_t(ordinal.size()) - (ordinal.count(-1) ? 1 : 0);
  if (dtype == "float32") return {make_tensor("float32", p.dims, v), count};
  std::vector<std::uint16_t> h;
  h.reserve(v.size());
  for (const float x : v) h.push_back(bf16_rne(x));  // exact for the peaks, monotone for the filler
  return {make_tensor("bfloat16", p.dims, h), count};
}

// ---- the catalogue builder ----------------------------------------------------------------------

struct Plan {
  std::string_view kernel;
  Operand operand;
  Blocks blocks;
  std::vector<std::string_view> recipes;  // [0]: the kernel's default
  std::vector<Problem> small, medium, full_medium;
  Problem adversarial;                    // distributions
  Problem ladder;                         // the amax ladder
  std::int64_t ladder_bound = 60;         // filler density 30/bound
  std::vector<Problem> groupings;         // offs edge cases (grouped operands)
  std::vector<Problem> misaligned;        // dims the kernel rejects
};

// 64-bit FNV-1a: the fp8 cases' seeds are its low 31 bits of the case name (seed_from_name, the
// 32-bit hash of the other catalogues, would move every fp8 input).
std::uint64_t fnv1a_64(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const char c : s) h = (h ^ std::uint8_t(c)) * 0x100000001b3ull;
  return h;
}

class Fp8Catalogue : public Catalogue {
 public:
  explicit Fp8Catalogue(Suite s) : suite_(s) {}
  Suite suite() const { return suite_; }

  // A new case; the name is <kernel>_<recipe>_<shape>_<what>_<n>, n counting equal prefixes.
  CaseSpec& add(const Plan& k, std::string_view recipe, const Problem& p, std::string_view what,
                bool expect_error = false) {
    CaseSpec c;
    c.name = numbered(std::string(k.kernel) + "_" + (recipe.empty() ? "none" : std::string(recipe)) + "_" + p.tag + "_" +
                      std::string(what));
    c.expect_error = expect_error;
    c.call.kernel = std::string(k.kernel);
    if (!recipe.empty()) c.call.attrs.strings["recipe"] = std::string(recipe);
    c.call.attrs.int_arrays["shape"] = p.dims;
    c.call.attrs.ints["seed"] = std::int64_t(fnv1a_64(c.name) & 0x7FFFFFFFu);
    return push(std::move(c));
  }

  // A case whose inputs come from `spec` (seed: the case's), in `dtype`.
  CaseSpec& add_random(const Plan& k, std::string_view recipe, const Problem& p, InputSpec spec,
                       std::string_view dtype, std::string_view what = "") {
    CaseSpec& c = add(k, recipe, p, what.empty() ? name(spec.distribution) : what);
    spec.seed = std::uint64_t(c.call.attrs.ints["seed"]);
    c.call.attrs.strings["distribution"] = describe(spec);
    c.call.attrs.strings["dtype"] = std::string(dtype);
    fill_inputs(k, p, c, [&](const Dims& dims, std::uint64_t salt) {
      InputSpec s = spec;
      s.seed += salt;
      return generate_tensor(s, dims, k.operand == Operand::scales ? "float32" : dtype);
    });
    return c;
  }

  // Amax-ladder cases in `dtype`: as many as it takes for the blocks to cover the ladder once
  // (at most `max_cases`).
  void add_ladder(const Plan& k, std::string_view recipe, std::string_view dtype, int max_cases) {
    const std::int64_t L = std::int64_t(ladder_values(dtype).size());
    std::int64_t offset = 0;
    for (int n = 0; n < max_cases && offset < L; ++n) {
      CaseSpec& c = add(k, recipe, k.ladder, "ladder");
      const std::uint64_t seed = std::uint64_t(c.call.attrs.ints["seed"]);
      c.call.attrs.strings["distribution"] = "amax_ladder(offset=" + std::to_string(offset) + ",filler=30/" +
                                             std::to_string(k.ladder_bound) + ")";
      c.call.attrs.strings["dtype"] = std::string(dtype);
      std::int64_t blocks = 1;
      fill_inputs(k, k.ladder, c, [&](const Dims& dims, std::uint64_t salt) {
        Problem p = k.ladder;
        p.dims = dims;
        auto [t, count] = ladder_tensor(p, k.blocks, dtype, seed + salt, offset, k.ladder_bound);
        if (salt == 0) blocks = std::max<std::int64_t>(count, 1);  // the main input's blocks
        return t;
      });
      offset += blocks;
    }
  }

  // The operand's datasets; make(dims, salt) builds one float tensor.
  template <class Make>
  static void fill_inputs(const Plan& k, const Problem& p, CaseSpec& c, Make make) {
    Tensors& in = c.call.inputs;
    switch (k.operand) {
      case Operand::matrix: in["x"] = make(p.dims, 0); break;
      case Operand::experts: in["w"] = make(p.dims, 0); break;
      case Operand::scales: in["scale_inv"] = make(p.dims, 0); break;
      case Operand::groups_rows:
      case Operand::groups_cols:
        in["x"] = make(p.dims, 0);
        in["offs"] = int_tensor("int32", p.offs);
        break;
      case Operand::dual:
        in["x1"] = make(p.dims, 0);
        in["x2"] = make(Dims{p.dims[0], p.n2}, 1);
        in["offs"] = int_tensor("int32", p.offs);
        break;
    }
  }

 private:
  Suite suite_;
};

// ---- per-kernel cases ---------------------------------------------------------------------------

// Elements per zero / constant run: one scale block's worth along the flattened input.
std::int64_t run_length(const Plan& k, const Problem& p) {
  const std::int64_t cols = p.dims.back();
  switch (k.blocks) {
    case Blocks::row:
    case Blocks::group_row: return cols;
    case Blocks::row_128: return 128;
    case Blocks::expert_col: return p.dims[1] * cols;
    default: return 128 * cols;
  }
}

// Misuse cases. Every kernel gets its own (misaligned dims, bad offs); the checks shared by every
// adapter (dtype, rank, missing input, recipe) run on one kernel per operand kind (`generic`).
void add_misuse(Fp8Catalogue& cat, const Plan& k, bool generic) {
  const std::string_view recipe = k.recipes.empty() ? "" : k.recipes[0];
  const Problem& p = k.small.front();
  const auto misuse = [&](const Problem& q, std::string_view what) -> CaseSpec& {
    CaseSpec& c = cat.add(k, recipe, q, "misuse-" + std::string(what), true);
    // The values do not matter: one constant (it compresses to nothing).
    const auto make = [&](const Dims& dims, std::uint64_t salt) {
      std::int64_t n = 1;
      for (const std::int64_t d : dims) n *= d;
      const InputSpec constant{Distribution::constant_blocks, 7 + salt, 1.0, std::max<std::int64_t>(n, 1)};
      return generate_tensor(constant, dims, k.operand == Operand::scales ? "float32" : "bfloat16");
    };
    std::int64_t numel = 1;
    for (const std::int64_t d : q.dims) numel *= d;
    c.call.attrs.strings["distribution"] = describe(InputSpec{Distribution::constant_blocks, 7, 1.0, numel});
    c.call.attrs.strings["dtype"] = "bfloat16";
    Fp8Catalogue::fill_inputs(k, q, c, make);
    return c;
  };
  const std::string main_input = k.operand == Operand::experts   ? "w"
                                 : k.operand == Operand::dual    ? "x1"
                                 : k.operand == Operand::scales  ? "scale_inv"
                                                                 : "x";
  for (const Problem& q : k.misaligned) misuse(q, "misaligned");
  const bool grouped_operand =
      k.operand == Operand::groups_rows || k.operand == Operand::groups_cols || k.operand == Operand::dual;
  const std::int64_t extent = k.operand == Operand::groups_cols ? p.dims[1] : p.dims[0];
  const auto with_offs = [&](std::string_view what, Tensor offs) { misuse(p, what).call.inputs["offs"] = std::move(offs); };
  if (grouped_operand) {
    with_offs("offs_not_monotonic", int_tensor("int32", {extent, 0}));
    with_offs("offs_beyond_extent", int_tensor("int32", {extent + 1}));
  }
  if (k.operand == Operand::dual) {
    CaseSpec& c = misuse(p, "x2_rows");
    c.call.inputs["x2"] = generate_tensor(InputSpec{Distribution::normal, 8}, {p.dims[0] + 1, p.n2}, "bfloat16");
    CaseSpec& d = misuse(p, "x2_dtype");
    d.call.inputs["x2"] = generate_tensor(InputSpec{Distribution::normal, 8}, {p.dims[0], p.n2}, "float32");
  }
  if (!generic) return;
  if (grouped_operand && k.operand != Operand::dual) {
    with_offs("offs_negative", int_tensor("int32", {-1, extent}));
    with_offs("offs_float32", make_tensor("float32", std::vector<float>{float(extent)}));
    with_offs("offs_rank2", make_tensor("int32", {1, 1}, std::vector<std::int32_t>{std::int32_t(extent)}));
  }
  // Wrong dtype: float16 is a float format, but not one the kernels read.
  {
    CaseSpec& c = misuse(p, "dtype_float16");
    const Tensor& t = c.call.inputs[main_input];
    c.call.inputs[main_input] = make_tensor("float16", t.shape, std::vector<std::uint16_t>(std::size_t(t.numel()), 0x3C00));
    c.call.attrs.strings["dtype"] = "float16";
  }
  // Wrong rank: one more leading dimension (one fewer for the 3-D inputs).
  {
    CaseSpec& c = misuse(p, "rank");
    Tensor& t = c.call.inputs[main_input];
    if (t.shape.size() == 3) t.shape = {t.shape[0] * t.shape[1], t.shape[2]};
    else t.shape.insert(t.shape.begin(), 1);
    if (k.operand == Operand::scales) t.shape = {t.numel()};
  }
  // A missing input.
  {
    CaseSpec& c = misuse(p, "missing_input");
    c.call.inputs["y"] = c.call.inputs[main_input];
    c.call.inputs.erase(main_input);
  }
  if (k.operand == Operand::matrix) {
    // Recipes without fp8 elements and fp32 scales, an unknown one, and a non-string attribute.
    for (const std::string_view r : {"torchao_mx_rceil", "nvfp4", "no_such_recipe"})
      misuse(p, "recipe").call.attrs.strings["recipe"] = std::string(r);
    CaseSpec& c = misuse(p, "recipe_type");
    c.call.attrs.strings.erase("recipe");
    c.call.attrs.ints["recipe"] = 1;
  }
}

// The torchao 128x128 kernels: a block holds 16K elements, so the default suite gives them the
// essential cases only (and every 128x128 kernel one ladder case: a few tiles, a few values).
bool heavy(const Plan& k) { return k.blocks == Blocks::tile_128 && k.kernel != "deepgemm_per_block_cast_to_fp8"; }

// Kernels that carry every recipe's amax ladder (the scale formulas are per recipe, not per kernel).
bool recipe_carrier(const Plan& k) { return k.kernel == "fp8_rowwise_2d_scale_and_cast"; }

// The full suite: every recipe under every distribution, both dtypes, larger shapes.
void add_full(Fp8Catalogue& cat, const Plan& k) {
  const InputSpec normal{Distribution::normal};
  const Problem& a = k.adversarial;
  const std::int64_t run = run_length(k, a);
  for (const std::string_view r : k.recipes) {
    for (const Problem& p : k.small)
      for (const std::string_view dtype : {"bfloat16", "float32"}) cat.add_random(k, r, p, normal, dtype);
    for (const Distribution d : {Distribution::student_t, Distribution::outliers, Distribution::specials})
      cat.add_random(k, r, a, InputSpec{d}, "bfloat16");
    for (const Distribution d : {Distribution::log_uniform, Distribution::specials})
      cat.add_random(k, r, a, InputSpec{d}, "float32");
    cat.add_random(k, r, a, InputSpec{Distribution::zero_blocks, 0, 1.0, run}, "bfloat16");
    cat.add_random(k, r, a, InputSpec{Distribution::constant_blocks, 0, 1.0, run}, "float32");
    cat.add_random(k, r, a, InputSpec{Distribution::normal, 0, 0x1p-126}, "float32", "normal-tiny");
    cat.add_ladder(k, r, "bfloat16", 8);
    cat.add_ladder(k, r, "float32", 8);
  }
  const std::string_view def = k.recipes[0];
  for (const Problem& p : k.medium) cat.add_random(k, def, p, normal, "bfloat16");
  for (const Problem& p : k.full_medium) {
    cat.add_random(k, def, p, normal, "bfloat16");
    cat.add_random(k, def, p, InputSpec{Distribution::outliers}, "bfloat16");
  }
}

// The default (committed) suite: kept small, since every case costs a few KB of HDF5 objects.
//   default recipe: the small shapes (bf16, then fp32), a medium shape, outliers, log-uniform,
//     constant blocks, specials in both dtypes, the amax ladder in both dtypes;
//   other recipes: specials (dtype alternating), and the ladder on the recipe carriers.
// The 128x128 kernels keep one small shape, specials and the ladder in bf16, constant blocks.
void add_default(Fp8Catalogue& cat, const Plan& k) {
  const InputSpec normal{Distribution::normal};
  const bool light = heavy(k);
  const std::string_view def = k.recipes[0];
  const Problem& a = k.adversarial;
  for (std::size_t s = 0; s < (light ? 1 : k.small.size()); ++s)
    cat.add_random(k, def, k.small[s], normal, s % 2 ? "float32" : "bfloat16");
  if (!light)
    for (const Problem& p : k.medium) cat.add_random(k, def, p, normal, "bfloat16");
  if (!light) {
    cat.add_random(k, def, a, InputSpec{Distribution::outliers}, "bfloat16");
    cat.add_random(k, def, a, InputSpec{Distribution::log_uniform}, "float32");
    cat.add_random(k, def, a, InputSpec{Distribution::specials}, "float32");
  }
  cat.add_random(k, def, a, InputSpec{Distribution::constant_blocks, 0, 1.0, run_length(k, a)}, "float32");
  cat.add_random(k, def, a, InputSpec{Distribution::specials}, "bfloat16");
  cat.add_ladder(k, def, "bfloat16", k.blocks == Blocks::tile_128 ? 1 : 8);
  cat.add_ladder(k, def, "float32", 1);
  for (std::size_t r = 1; r < k.recipes.size(); ++r) {
    cat.add_random(k, k.recipes[r], a, InputSpec{Distribution::specials}, light || r % 2 ? "bfloat16" : "float32");
    if (recipe_carrier(k)) cat.add_ladder(k, k.recipes[r], "bfloat16", 1);
  }
}

void add_plan(Fp8Catalogue& cat, const Plan& k, bool generic_misuse) {
  const bool full = cat.suite() == Suite::full;
  if (k.operand == Operand::scales) {
    for (const Problem& p : k.small) cat.add_random(k, "", p, InputSpec{Distribution::normal}, "float32");
    for (const Problem& p : k.medium) cat.add_random(k, "", p, InputSpec{Distribution::log_uniform}, "float32");
  } else if (full) {
    add_full(cat, k);
  } else {
    add_default(cat, k);
  }
  // Group layouts: the default recipe, bf16 normal; the first also fp32 specials with int64 offs.
  for (std::size_t g = 0; g < k.groupings.size(); ++g) {
    cat.add_random(k, k.recipes[0], k.groupings[g], InputSpec{Distribution::normal}, "bfloat16");
    if (g == 0) {
      CaseSpec& d = cat.add_random(k, k.recipes[0], k.groupings[g], InputSpec{Distribution::specials}, "float32",
                                   "offs_int64");
      d.call.inputs["offs"] = make_tensor("int64", k.groupings[g].offs);
    }
  }
  add_misuse(cat, k, full || generic_misuse);
}

// ---- the plans ----------------------------------------------------------------------------------

const std::vector<std::string_view> kRowwiseRecipes = {"torchao_fp8_rowwise_pow2", "torchao_fp8_rowwise",
                                                       "torchao_fp8_rowwise_pow2_e4m3fnuz",
                                                       "torchao_fp8_rowwise_e4m3fnuz"};
// The rowwise 2D kernel also carries every other fp8 recipe's arithmetic on per-row blocks (a row
// is TE current scaling's tensor when M = 1).
const std::vector<std::string_view> kAllFp8Recipes = {
    "torchao_fp8_rowwise_pow2", "torchao_fp8_rowwise", "torchao_fp8_rowwise_pow2_e4m3fnuz",
    "torchao_fp8_rowwise_e4m3fnuz", "te_current", "te_current_pow2", "te_current_e5m2", "te_current_pow2_e5m2",
    "te_blockwise", "te_blockwise_fp32", "torchao_blockwise", "torchao_blockwise_e4m3fnuz", "deepgemm",
    "deepgemm_ue8m0", "deepep", "deepep_round"};
const std::vector<std::string_view> kBlockwiseRecipes = {"torchao_blockwise", "torchao_blockwise_e4m3fnuz",
                                                         "te_blockwise", "te_blockwise_fp32"};
const std::vector<std::string_view> kWeightBlockwiseRecipes = {"torchao_blockwise", "torchao_blockwise_e4m3fnuz",
                                                               "te_blockwise"};
const std::vector<std::string_view> kTorchaoBlockwise = {"torchao_blockwise", "torchao_blockwise_e4m3fnuz"};
const std::vector<std::string_view> kDeepGemmRecipes = {"deepgemm", "deepgemm_ue8m0"};
const std::vector<std::string_view> kPerTokenRecipes = {"deepgemm", "deepgemm_ue8m0", "deepep", "deepep_round"};

// Offs edge cases along a grouped extent: empty groups first / middle / last next to size-1 and
// huge groups; partial 128-row blocks with offs[-1] below the extent; no groups; many groups.
std::vector<Problem> offs_edge_cases(Operand op, std::int64_t other) {
  return {
      grouped(op, 256, other, {0, 1, 0, 250, 1, 4, 0}, "empty_tiny_huge"),
      grouped(op, 300, other, {1, 127, 129, 40}, "partial_tail"),
      grouped(op, 64, other, {}, "none"),
      grouped(op, 256, other, random_sizes(11, 64, 256, 1), "many"),
  };
}
std::vector<Problem> aligned_offs_edge_cases(std::int64_t other) {
  const Operand op = Operand::groups_rows;
  return {
      grouped(op, 640, other, {0, 128, 0, 256, 128, 0}, "empty_tail"),
      grouped(op, 128, other, {}, "none"),
      grouped(op, 1024, other, random_sizes(12, 16, 1024, 128), "many"),
  };
}

// Shapes: small (hand-checkable), medium (DeepSeek-V3 hidden 7168 / moe-inter 2048 / 256 experts
// top-8 and Llama4 hidden 5120 / inter 8192 / 16 experts, divided by 16 or so), adversarial (at
// most 256 elements where the kernel allows it: datasets under 1 KB are stored contiguous, without
// a chunk index), ladder (at least 37 blocks, one per ladder value, where the kernel allows it).
std::vector<Plan> plans() {
  using O = Operand;
  using B = Blocks;
  const auto gr = [](std::int64_t M, std::int64_t D, std::int64_t G, std::uint64_t seed) {
    return grouped(O::groups_rows, M, D, random_sizes(seed, G, M, 1));
  };
  const auto gc = [](std::int64_t M, std::int64_t K, std::int64_t G, std::uint64_t seed) {
    return grouped(O::groups_cols, K, M, random_sizes(seed, G, K, 1));
  };
  const auto gd = [](std::int64_t K, std::int64_t N1, std::int64_t N2, std::int64_t G, std::uint64_t seed) {
    return grouped(O::dual, K, N1, random_sizes(seed, G, K, 1), "", N2);
  };
  const auto ga = [](std::int64_t M, std::int64_t D, std::int64_t G, std::uint64_t seed) {
    return grouped(O::groups_rows, M, D, random_sizes(seed, G, M, 128));
  };
  const std::vector<std::int64_t> eight_fives(8, 5);  // ladder groups: 8 groups of 5
  std::vector<Plan> p;
  // family 1
  p.push_back({"fp8_rowwise_2d_scale_and_cast", O::matrix, B::row, kAllFp8Recipes,
               {dense({2, 32}), dense({4, 128})}, {dense({32, 448})}, {dense({128, 448}), dense({160, 320})},
               dense({8, 32}), dense({40, 6}), 60, {}, {}});
  p.push_back({"fp8_colwise_3d_scale_and_cast", O::experts, B::expert_col, kRowwiseRecipes,
               {dense({1, 32, 4}), dense({2, 16, 8})}, {dense({2, 128, 56})}, {dense({4, 448, 128})},
               dense({2, 16, 8}), dense({2, 6, 20}), 60, {}, {}});
  p.push_back({"fp8_rowwise_3d_transpose_rhs", O::experts, B::row, kRowwiseRecipes,
               {dense({1, 4, 32}), dense({2, 8, 16})}, {dense({2, 56, 128})}, {dense({4, 128, 448})},
               dense({2, 8, 16}), dense({2, 20, 6}), 60, {}, {}});
  // family 2
  p.push_back({"fp8_per_group_rowwise_scales", O::groups_cols, B::group_row, kRowwiseRecipes,
               {gc(2, 32, 2, 1), gc(4, 128, 4, 2)}, {gc(32, 512, 16, 3)}, {gc(80, 2048, 16, 4)},
               gc(4, 64, 4, 5), grouped(O::groups_cols, 40, 6, eight_fives), 60,
               offs_edge_cases(O::groups_cols, 2), {}});
  p.push_back({"fp8_per_group_colwise_scales", O::groups_rows, B::group_col, kRowwiseRecipes,
               {gr(32, 2, 2, 1), gr(128, 4, 4, 2)}, {gr(512, 32, 16, 3)}, {gr(2048, 112, 16, 4)},
               gr(64, 4, 4, 5), grouped(O::groups_rows, 40, 6, eight_fives), 60,
               offs_edge_cases(O::groups_rows, 2), {}});
  {
    std::vector<Problem> edges;
    for (const Problem& e : offs_edge_cases(O::groups_rows, 2)) {
      Problem d = e;
      d.n2 = 1;
      d.tag = e.tag + "p1";
      edges.push_back(d);
    }
    p.push_back({"fp8_per_group_colwise_scales_dual", O::dual, B::group_col, kRowwiseRecipes,
                 {gd(32, 2, 3, 2, 1), gd(64, 4, 2, 3, 2)}, {gd(512, 16, 14, 16, 3)}, {gd(2048, 112, 32, 16, 4)},
                 gd(64, 2, 2, 4, 5), grouped(O::dual, 40, 6, eight_fives, "", 3), 60, edges, {}});
  }
  // family 3: torchao dense blockwise
  p.push_back({"fp8_blockwise_act_quant_lhs", O::matrix, B::row_128, kBlockwiseRecipes,
               {dense({2, 128}), dense({3, 256})}, {dense({32, 512})}, {dense({128, 896})}, dense({2, 128}),
               dense({40, 128}), 60, {}, {dense({4, 100})}});
  p.push_back({"fp8_blockwise_act_quant_rhs", O::matrix, B::col_128, kTorchaoBlockwise,
               {dense({2, 128}), dense({5, 128})}, {dense({192, 128})}, {dense({250, 512})}, dense({2, 128}),
               dense({130, 128}), 240, {}, {dense({4, 100})}});
  p.push_back({"fp8_blockwise_act_quant_transposed_lhs", O::matrix, B::col_128, kTorchaoBlockwise,
               {dense({128, 2}), dense({128, 3})}, {dense({256, 64})}, {dense({256, 448})}, dense({128, 2}),
               dense({128, 40}), 60, {}, {dense({100, 4})}});
  p.push_back({"fp8_blockwise_weight_quant_rhs", O::matrix, B::tile_128, kWeightBlockwiseRecipes,
               {dense({128, 128})}, {dense({128, 256})}, {dense({256, 512})}, dense({128, 128}), dense({256, 256}),
               1920, {}, {dense({100, 128}), dense({128, 200})}});
  p.push_back({"fp8_blockwise_weight_quant_transposed_rhs", O::matrix, B::tile_128, kTorchaoBlockwise,
               {dense({128, 128})}, {dense({256, 128})}, {dense({512, 256})}, dense({128, 128}), dense({256, 256}),
               1920, {}, {dense({100, 128}), dense({128, 200})}});
  p.push_back({"fp8_blockwise_weight_quant_grouped_transposed_rhs", O::experts, B::tile_128, kTorchaoBlockwise,
               {dense({1, 128, 128})}, {dense({2, 128, 128})}, {dense({2, 512, 256})}, dense({1, 128, 128}),
               dense({1, 256, 256}), 1920, {}, {dense({1, 100, 128}), dense({1, 128, 200})}});
  p.push_back({"fp8_blockwise_weight_quant_grouped_rhs", O::experts, B::tile_128, kTorchaoBlockwise,
               {dense({1, 128, 128})}, {dense({2, 128, 128})}, {dense({2, 256, 512})}, dense({1, 128, 128}),
               dense({1, 256, 256}), 1920, {}, {dense({1, 100, 128}), dense({1, 128, 200})}});
  p.push_back({"fp8_blockwise_pad_scales_128x128", O::scales, B::none, {},
               {dense({3, 2}), dense({4, 3}), dense({2, 5, 3}), dense({0, 4})}, {dense({16, 7, 16})}, {},
               dense({3, 2}), dense({3, 2}), 60, {}, {}});
  // family 3: token groups
  p.push_back({"fp8_blockwise_act_quant_k_grouped_deepgemm", O::groups_rows, B::token_group_128, kTorchaoBlockwise,
               {ga(128, 2, 1, 1), ga(256, 3, 2, 2)}, {ga(512, 32, 4, 3)}, {ga(1024, 112, 16, 4)},
               ga(128, 2, 1, 5), ga(256, 20, 2, 6), 60, aligned_offs_edge_cases(1),
               {grouped(O::groups_rows, 256, 2, {100, 156}, "unaligned")}});
  for (const std::string_view kernel :
       {"fp8_blockwise_act_quant_rhs_grouped", "fp8_blockwise_act_quant_transposed_lhs_grouped"})
    p.push_back({kernel, O::groups_rows, B::token_group_128, kTorchaoBlockwise, {gr(32, 2, 2, 1), gr(200, 3, 3, 2)},
                 {gr(512, 32, 16, 3)}, {gr(1024, 112, 16, 4)}, gr(128, 2, 3, 5),
                 grouped(O::groups_rows, 40, 6, eight_fives), 60, offs_edge_cases(O::groups_rows, 2), {}});
  // DeepGEMM reference casts
  p.push_back({"deepgemm_per_token_cast_to_fp8", O::matrix, B::row_128, kPerTokenRecipes,
               {dense({2, 32}), dense({3, 200})}, {dense({32, 448})}, {dense({128, 7168 / 4})}, dense({2, 128}),
               dense({40, 6}), 60, {}, {}});
  p.push_back({"deepgemm_per_channel_cast_to_fp8", O::matrix, B::col_128, kDeepGemmRecipes,
               {dense({128, 2}), dense({128, 3})}, {dense({256, 56})}, {dense({256, 448})}, dense({128, 2}),
               dense({128, 40}), 60, {}, {dense({100, 4})}});
  p.push_back({"deepgemm_per_block_cast_to_fp8", O::matrix, B::tile_128, kDeepGemmRecipes,
               {dense({2, 32}), dense({130, 20})}, {dense({192, 160})}, {dense({256, 896})}, dense({130, 2}),
               dense({130, 260}), 960, {}, {}});
  return p;
}

}  // namespace

std::vector<CaseSpec> fp8_cases(Suite s) {
  Fp8Catalogue cat(s);
  // The shared misuse checks, once per adapter input path (both grouped operands share one).
  std::set<Operand> generic_done;
  for (const Plan& k : plans()) {
    const Operand path = k.operand == Operand::groups_cols ? Operand::groups_rows : k.operand;
    add_plan(cat, k, generic_done.insert(path).second);
  }
  return cat.take();
}

}  // namespace octet::golden
