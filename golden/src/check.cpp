// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// check.cpp — golden-versus-candidate comparison and mismatch classification (check.hpp).
//
// One dataset is compared in three steps:
//   1. dtype and shape (a shape that is the golden's with the last two dimensions swapped, or
//      any shape of the same element count, is still compared element by element in flat order);
//   2. every element, bit for bit, or |c - g| <= bound for a dataset with a golden `<name>_bound`
//      (and ||c - g||_F within `<name>_normwise_bound` when there is one); each mismatching
//      element gets its MismatchClass;
//   3. when elements differ, the whole-dataset explanations are tried in order — transposed,
//      permuted rows, padding rows, one power-of-two factor — and the first that holds becomes
//      the primary cause in `detail`.
#include "octet/golden/check.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "octet/golden/runner.hpp"

namespace octet::golden {

std::string_view name(MismatchClass c) {
  switch (c) {
    case MismatchClass::nan_payload_sign: return "nan_payload_sign";
    case MismatchClass::saturation_vs_nan: return "saturation_vs_nan";
    case MismatchClass::tie_rounding: return "tie_rounding";
    case MismatchClass::subnormal_flush: return "subnormal_flush";
    case MismatchClass::sign: return "sign";
    case MismatchClass::rounding_adjacent: return "rounding_adjacent";
    case MismatchClass::scale_pow2: return "scale_pow2";
    case MismatchClass::other: return "other";
    case MismatchClass::tolerance_exceeded: return "tolerance_exceeded";
    case MismatchClass::transposed_layout: return "transposed_layout";
    case MismatchClass::permuted_rows: return "permuted_rows";
    case MismatchClass::padding_rows: return "padding_rows";
  }
  return "?";
}

bool CheckReport::pass() const {
  return std::all_of(cases.begin(), cases.end(), [](const CaseReport& c) { return c.pass; });
}

namespace {

// ---- printing helpers ---------------------------------------------------------------------------

std::string shape_text(const std::vector<std::int64_t>& s) {
  std::string t = "(";
  for (std::size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + (s.size() == 1 ? ",)" : ")");
}

// Shortest decimal that reads back exactly; integers print as integers ("3"), -0 as "-0".
std::string value_text(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

std::string hex_text(std::uint64_t code, int bits) {
  const int digits = bits <= 8 ? 2 : (bits + 3) / 4;
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%0*llx", digits, static_cast<unsigned long long>(code));
  return buf;
}

// ---- elements -----------------------------------------------------------------------------------

// What the classifier needs to know about one stored element.
struct Code {
  bool nan = false, inf = false, zero = false, subnormal = false, max_finite = false, negative = false;
  std::uint64_t magnitude = 0;  // the code without its sign bit: adjacent values differ by 1
  double value = 0;
};

// How to read and decode the elements of one dtype.
class ElementType {
 public:
  explicit ElementType(const std::string& dtype) {
    const auto info = lookup_dtype(dtype);
    if (!info) throw std::invalid_argument("unknown dtype '" + dtype + "'");
    size_ = info->element_size;
    storage_ = info->storage;
    if (info->format && *info->format != FormatId::fp64) format_ = &format_of(*info->format);
    fp64_ = info->format == FormatId::fp64;
  }

  int size() const { return size_; }
  int bits() const { return format_ ? format_->bits() : 8 * size_; }
  bool is_float() const { return format_ || fp64_; }

  std::uint64_t bits_at(const Tensor& t, std::int64_t i) const {
    std::uint64_t b = 0;
    std::memcpy(&b, t.bytes.data() + std::size_t(i) * std::size_t(size_), std::size_t(size_));  // little-endian
    return b;
  }

  double value(std::uint64_t b) const {
    if (format_) return decode(*format_, std::uint32_t(b));
    if (fp64_) return std::bit_cast<double>(b);
    if (storage_ == Storage::sint)
      return size_ == 4 ? double(std::int32_t(std::uint32_t(b))) : double(std::int64_t(b));
    return double(b);
  }

  Code describe(std::uint64_t b) const {
    Code c;
    c.value = value(b);
    if (format_) {
      const Format& f = *format_;
      const std::uint32_t code = std::uint32_t(b);
      const ValueClass k = f.classify(code);
      c.nan = k == ValueClass::nan;
      c.inf = k == ValueClass::inf;
      c.zero = k == ValueClass::zero;
      c.subnormal = k == ValueClass::subnormal;
      c.magnitude = code & f.magnitude_mask();
      c.negative = (code & f.sign_mask()) != 0;
      c.max_finite = !c.nan && c.magnitude == f.max_finite_code();
    } else {  // float64
      const int k = std::fpclassify(c.value);
      c.nan = k == FP_NAN;
      c.inf = k == FP_INFINITE;
      c.zero = k == FP_ZERO;
      c.subnormal = k == FP_SUBNORMAL;
      c.magnitude = b & ~(std::uint64_t(1) << 63);
      c.negative = (b >> 63) != 0;
      c.max_finite = std::fabs(c.value) == std::numeric_limits<double>::max();
    }
    return c;
  }

 private:
  int size_ = 1;
  Storage storage_ = Storage::uint;
  const Format* format_ = nullptr;
  bool fp64_ = false;
};

// The exponent k with b = a * 2^k, when both are finite nonzero of the same sign and have the
// same significand; nullopt otherwise (k = 0 means equal values).
std::optional<int> pow2_factor(double a, double b) {
  if (!std::isfinite(a) || !std::isfinite(b) || a == 0 || b == 0 || std::signbit(a) != std::signbit(b))
    return std::nullopt;
  int ea = 0, eb = 0;
  const double fa = std::frexp(a, &ea), fb = std::frexp(b, &eb);
  if (fa != fb) return std::nullopt;
  return eb - ea;
}

// The class of one mismatching float element (golden g, candidate c). `x`: the value the cast
// rounded, when the case is a cast. The first rule that holds wins (check.hpp lists the order).
MismatchClass classify(const Code& g, const Code& c, std::optional<double> x) {
  const auto special = [](const Code& a) { return a.nan || a.inf; };
  const auto saturated = [](const Code& a) { return a.max_finite || a.inf; };
  if (g.nan && c.nan) return MismatchClass::nan_payload_sign;
  if (g.inf && c.inf) return MismatchClass::sign;  // +Inf against -Inf
  if ((special(g) && saturated(c)) || (special(c) && saturated(g))) return MismatchClass::saturation_vs_nan;
  const std::uint64_t distance = g.magnitude > c.magnitude ? g.magnitude - c.magnitude : c.magnitude - g.magnitude;
  const bool adjacent = !special(g) && !special(c) && g.negative == c.negative && distance == 1;
  // The midpoint of two adjacent values of a format of at most 32 bits is exact in double. A tie
  // between 0 and the smallest subnormal is a tie too, not a flush.
  if (adjacent && x && *x == (g.value + c.value) / 2) return MismatchClass::tie_rounding;
  if ((g.zero && c.subnormal) || (c.zero && g.subnormal)) return MismatchClass::subnormal_flush;
  if (g.nan || c.nan) return MismatchClass::other;
  if (g.magnitude == c.magnitude && g.negative != c.negative) return MismatchClass::sign;
  if (adjacent) return MismatchClass::rounding_adjacent;
  if (const auto k = pow2_factor(g.value, c.value); k && *k != 0) return MismatchClass::scale_pow2;
  return MismatchClass::other;
}

std::vector<std::int64_t> coords_of(const std::vector<std::int64_t>& shape, std::int64_t index) {
  std::vector<std::int64_t> c(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    const std::int64_t n = std::max<std::int64_t>(shape[d], 1);
    c[d] = index % n;
    index /= n;
  }
  return c;
}

// ---- one dataset ------------------------------------------------------------------------------

// Golden against candidate: same dtype and element count, compared exactly or within a bound.
class Comparison {
 public:
  Comparison(const Tensor& golden, const Tensor& candidate, const Tensor* bound)
      : g_(golden), c_(candidate), bound_(bound), type_(golden.dtype) {
    if (bound_) bound_type_.emplace(bound_->dtype);
  }

  const ElementType& type() const { return type_; }
  bool bounded() const { return bound_ != nullptr; }

  // Does candidate element ci agree with golden element gi?
  bool match(std::int64_t gi, std::int64_t ci) const {
    if (!bound_) {
      const std::size_t s = std::size_t(type_.size());
      return std::memcmp(g_.bytes.data() + std::size_t(gi) * s, c_.bytes.data() + std::size_t(ci) * s, s) == 0;
    }
    return excess(gi, ci) <= 0;
  }

  // Bounded datasets: |c - g| - bound (<= 0 passes); NaN against a number is +Inf.
  double excess(std::int64_t gi, std::int64_t ci) const {
    const double vg = type_.value(type_.bits_at(g_, gi)), vc = type_.value(type_.bits_at(c_, ci));
    if (std::isnan(vg) || std::isnan(vc))
      return std::isnan(vg) && std::isnan(vc) ? 0 : std::numeric_limits<double>::infinity();
    if (vg == vc) return 0;  // equal infinities too
    return std::fabs(vc - vg) - bound_at(gi);
  }

  double bound_at(std::int64_t gi) const {
    const std::int64_t bi = bound_->numel() == 1 ? 0 : gi;
    return bound_type_->value(bound_type_->bits_at(*bound_, bi));
  }

  std::int64_t differing_bytes(std::int64_t i) const {
    std::int64_t n = 0;
    for (int b = 0; b < type_.size(); ++b) {
      const std::size_t at = std::size_t(i) * std::size_t(type_.size()) + std::size_t(b);
      n += g_.bytes[at] != c_.bytes[at];
    }
    return n;
  }

 private:
  const Tensor& g_;
  const Tensor& c_;
  const Tensor* bound_;
  ElementType type_;
  std::optional<ElementType> bound_type_;
};

// Does the candidate hold, at flat index j*R + i of each (R, C) matrix, the golden's (i, j)?
bool holds_transpose(const Comparison& cmp, const std::vector<std::int64_t>& gshape) {
  if (gshape.size() < 2) return false;
  const std::int64_t rows = gshape[gshape.size() - 2], cols = gshape.back();
  if (rows < 2 || cols < 2) return false;  // a transpose would change nothing in flat order
  std::int64_t batch = 1;
  for (std::size_t d = 0; d + 2 < gshape.size(); ++d) batch *= gshape[d];
  for (std::int64_t b = 0; b < batch; ++b) {
    const std::int64_t base = b * rows * cols;
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j)
        if (!cmp.match(base + i * cols + j, base + j * rows + i)) return false;
  }
  return true;
}

std::vector<std::int64_t> swap_last_two(std::vector<std::int64_t> s) {
  if (s.size() >= 2) std::swap(s[s.size() - 2], s[s.size() - 1]);
  return s;
}

// Rows: slices along the last dimension (leading dimensions flattened).
struct RowView {
  std::int64_t count = 0, bytes = 0;
  explicit RowView(const Tensor& t, int element_size) {
    if (t.shape.size() < 2 || t.shape.back() == 0) return;
    bytes = t.shape.back() * element_size;
    count = std::int64_t(t.bytes.size()) / bytes;
  }
  std::string_view row(const Tensor& t, std::int64_t r) const {
    return {reinterpret_cast<const char*>(t.bytes.data()) + r * bytes, std::size_t(bytes)};
  }
};

// The golden's rows in another order: returns how many rows are out of place.
std::optional<std::int64_t> permuted_rows(const Tensor& g, const Tensor& c, int element_size) {
  const RowView rows(g, element_size);
  if (rows.count < 2) return std::nullopt;
  std::vector<std::string_view> gr, cr;
  std::int64_t out_of_place = 0;
  for (std::int64_t r = 0; r < rows.count; ++r) {
    gr.push_back(rows.row(g, r));
    cr.push_back(rows.row(c, r));
    out_of_place += gr.back() != cr.back();
  }
  std::sort(gr.begin(), gr.end());
  std::sort(cr.begin(), cr.end());
  if (gr != cr || out_of_place == 0) return std::nullopt;
  return out_of_place;
}

struct Padding {
  std::int64_t rows = 0;
  std::uint8_t byte = 0;
};
// Every mismatch in rows whose golden bytes are all one value (the same for every such row).
std::optional<Padding> padding_rows(const Tensor& g, int element_size, const std::vector<std::int64_t>& mismatches) {
  const RowView rows(g, element_size);
  if (rows.count < 2 || mismatches.empty()) return std::nullopt;
  const std::int64_t per_row = g.shape.back();
  std::set<std::int64_t> bad_rows;
  for (const std::int64_t i : mismatches) bad_rows.insert(i / per_row);
  if (std::int64_t(bad_rows.size()) == rows.count) return std::nullopt;  // every row: no padding told apart
  Padding p;
  p.byte = std::uint8_t(rows.row(g, *bad_rows.begin())[0]);
  for (const std::int64_t r : bad_rows) {
    const std::string_view bytes = rows.row(g, r);
    if (std::any_of(bytes.begin(), bytes.end(), [&](char ch) { return std::uint8_t(ch) != p.byte; }))
      return std::nullopt;
  }
  p.rows = std::int64_t(bad_rows.size());
  return p;
}

// One k with candidate = golden * 2^k (k != 0) for every mismatching element.
std::optional<int> common_pow2(const Tensor& g, const Tensor& c, const ElementType& type,
                               const std::vector<std::int64_t>& mismatches) {
  if (!type.is_float() || mismatches.empty()) return std::nullopt;
  std::optional<int> k;
  for (const std::int64_t i : mismatches) {
    const auto ki = pow2_factor(type.value(type.bits_at(g, i)), type.value(type.bits_at(c, i)));
    if (!ki || *ki == 0 || (k && *k != *ki)) return std::nullopt;
    k = ki;
  }
  return k;
}

std::string factor_text(int k) {
  return "2^" + std::to_string(k) + " = " + value_text(std::ldexp(1.0, k));
}

// The golden tolerances of one output `<name>`: `<name>_bound` (elementwise, the dataset's shape or
// one element) and `<name>_normwise_bound` (one float: the bound on ||candidate - golden||_F).
struct Bounds {
  const Tensor* elementwise = nullptr;
  const Tensor* normwise = nullptr;
};

// In words, how ||c - g||_F (over the elements finite on both sides) exceeds the normwise bound;
// nullopt when it holds.
std::optional<std::string> normwise_failure(const Tensor& g, const Tensor& c, const Tensor& normwise) {
  const ElementType type(g.dtype), bound_type(normwise.dtype);
  if (normwise.numel() != 1) return "normwise bound has " + std::to_string(normwise.numel()) + " elements, not 1";
  const double bound = bound_type.value(bound_type.bits_at(normwise, 0));
  double sum_sq = 0;
  for (std::int64_t i = 0; i < g.numel(); ++i) {
    const double vg = type.value(type.bits_at(g, i)), vc = type.value(type.bits_at(c, i));
    if (std::isfinite(vg) && std::isfinite(vc)) sum_sq += (vc - vg) * (vc - vg);
  }
  const double fro = std::sqrt(sum_sq);
  if (fro <= bound) return std::nullopt;  // an infinite bound always holds
  return "||candidate - golden||_F = " + value_text(fro) + " > normwise bound " + value_text(bound);
}

DatasetReport compare_dataset(const std::string& dataset, const Tensor& g, const Tensor& c, const Bounds& bounds,
                              const Tensor* cast_input, std::int64_t max_mismatches) {
  const Tensor* bound = bounds.elementwise;
  DatasetReport r;
  r.dataset = dataset;
  r.dtype = g.dtype;
  r.elements = g.numel();
  if (c.dtype != g.dtype) {
    r.detail = "dtype '" + c.dtype + "', golden '" + g.dtype + "'";
    return r;
  }
  const bool same_shape = c.shape == g.shape;
  const bool swapped_shape = !same_shape && g.shape.size() >= 2 && c.shape == swap_last_two(g.shape);
  if (c.numel() != g.numel()) {
    r.detail = "shape " + shape_text(c.shape) + ", golden " + shape_text(g.shape);
    return r;
  }
  if (bound && bound->numel() != 1 && bound->numel() != g.numel()) {
    r.detail = "golden bound '" + dataset + "_bound' has shape " + shape_text(bound->shape) + ", the dataset " +
               shape_text(g.shape);
    return r;
  }
  const Comparison cmp(g, c, bound);
  const ElementType& type = cmp.type();

  // Elements in flat order (shapes of equal element count compare as the golden's shape).
  std::vector<std::int64_t> mismatches;
  std::int64_t worst = -1;
  double worst_excess = 0;
  for (std::int64_t i = 0; i < r.elements; ++i) {
    if (cmp.match(i, i)) continue;
    mismatches.push_back(i);
    r.mismatching_bytes += cmp.differing_bytes(i);
    if (cmp.bounded()) {
      const double e = cmp.excess(i, i);
      if (worst < 0 || e > worst_excess) worst = i, worst_excess = e;
    }
  }
  r.mismatching_elements = std::int64_t(mismatches.size());
  for (std::size_t k = 0; k < mismatches.size() && std::int64_t(k) < max_mismatches; ++k) {
    const std::int64_t i = mismatches[k];
    Mismatch m{i, coords_of(g.shape, i), type.bits_at(g, i), type.bits_at(c, i), 0, 0};
    m.golden_value = type.value(m.golden_bits);
    m.candidate_value = type.value(m.candidate_bits);
    r.first.push_back(std::move(m));
  }

  // Element classes.
  std::array<std::int64_t, kMismatchClassCount> counts{};
  if (cmp.bounded()) {
    counts[std::size_t(MismatchClass::tolerance_exceeded)] = r.mismatching_elements;
  } else {
    const bool use_x = cast_input && cast_input->numel() == r.elements;
    std::optional<ElementType> x_type;
    if (use_x) x_type.emplace(cast_input->dtype);
    for (const std::int64_t i : mismatches) {
      MismatchClass k = MismatchClass::other;
      if (type.is_float()) {
        std::optional<double> x;
        if (use_x) x = x_type->value(x_type->bits_at(*cast_input, i));
        k = classify(type.describe(type.bits_at(g, i)), type.describe(type.bits_at(c, i)), x);
      }
      ++counts[std::size_t(k)];
    }
  }

  std::optional<std::string> normwise;
  if (bound && bounds.normwise && same_shape) normwise = normwise_failure(g, c, *bounds.normwise);
  r.pass = same_shape && mismatches.empty() && !normwise;
  if (r.pass) return r;

  // Whole-dataset explanations, the first that holds being the primary cause.
  std::optional<std::pair<MismatchClass, std::string>> cause;
  const std::string matrices = g.shape.size() > 2 ? " of each " + shape_text({g.shape.end() - 2, g.shape.end()}) + " matrix" : "";
  if (holds_transpose(cmp, g.shape)) {
    cause = {MismatchClass::transposed_layout,
             same_shape ? "the candidate holds the golden transposed" + matrices +
                              " (golden [i, j] at flat position [j, i]), in the golden's shape"
                        : "the candidate has the transposed shape " + shape_text(c.shape) +
                              " and holds the golden transposed" + matrices + ": the values agree, the layout differs"};
  } else if (swapped_shape && mismatches.empty()) {
    cause = {MismatchClass::transposed_layout,
             "the candidate has the transposed shape " + shape_text(c.shape) +
                 " but the golden's elements in the golden's row-major order: only the shape differs"};
  } else if (!same_shape) {
    r.detail = "shape " + shape_text(c.shape) + ", golden " + shape_text(g.shape) +
               " (elements compared in flat order)";
  } else if (const auto moved = cmp.bounded() ? std::nullopt : permuted_rows(g, c, type.size())) {
    cause = {MismatchClass::permuted_rows,
             "the candidate holds the golden's rows in another order (" + std::to_string(*moved) + " of " +
                 std::to_string(RowView(g, type.size()).count) + " rows out of place)"};
  } else if (const auto pad = padding_rows(g, type.size(), mismatches)) {
    cause = {MismatchClass::padding_rows,
             "every mismatch lies in the " + std::to_string(pad->rows) + " golden row(s) that are all byte " +
                 hex_text(pad->byte, 8) + " (padding); the other rows agree"};
  } else if (const auto k = cmp.bounded() ? std::nullopt : common_pow2(g, c, type, mismatches)) {
    cause = {MismatchClass::scale_pow2,
             "every mismatching element is the golden times " + factor_text(*k) + " (a scale off by a power of two)"};
  }
  if (cause) {
    r.classes.emplace_back(cause->first, std::max<std::int64_t>(r.mismatching_elements, 1));
    r.detail = std::string(name(cause->first)) + ": " + cause->second;
  }
  for (int k = 0; k < kMismatchClassCount; ++k)  // the cause's own class is listed once, first
    if (counts[std::size_t(k)] > 0 && !(cause && cause->first == MismatchClass(k)))
      r.classes.emplace_back(MismatchClass(k), counts[std::size_t(k)]);

  // Tolerances: the elementwise worst case, then the normwise bound; after the layout cause.
  std::vector<std::string> tolerance;
  if (cmp.bounded() && worst >= 0) {
    const double vg = type.value(type.bits_at(g, worst)), vc = type.value(type.bits_at(c, worst));
    const std::string excess = std::isnan(vg) || std::isnan(vc)
                                   ? "NaN against a number (bound " + value_text(cmp.bound_at(worst)) + ")"
                                   : "|difference| " + value_text(std::fabs(vc - vg)) + " > bound " +
                                         value_text(cmp.bound_at(worst)) + " (excess " + value_text(worst_excess) + ")";
    tolerance.push_back(std::to_string(r.mismatching_elements) + " of " + std::to_string(r.elements) +
                        " elements beyond the bound; worst at index " + std::to_string(worst) + " " +
                        shape_text(coords_of(g.shape, worst)) + ": golden " + value_text(vg) + ", candidate " +
                        value_text(vc) + ", " + excess);
  }
  if (normwise) {
    if (counts[std::size_t(MismatchClass::tolerance_exceeded)] == 0)
      r.classes.emplace_back(MismatchClass::tolerance_exceeded, 0);
    tolerance.push_back(*normwise);
  }
  if (!tolerance.empty()) {
    std::string tol = "tolerance_exceeded: " + tolerance[0];
    if (tolerance.size() > 1) tol += "; and " + tolerance[1];
    r.detail = r.detail.empty() ? tol : r.detail + "; " + tol;
  } else if (r.detail.empty()) {
    const auto top = std::max_element(counts.begin(), counts.end());
    r.detail = std::to_string(r.mismatching_elements) + " of " + std::to_string(r.elements) +
               " elements differ; most are " + std::string(name(MismatchClass(top - counts.begin())));
  }
  return r;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

constexpr std::string_view kBoundSuffix = "_bound", kNormwiseBoundSuffix = "_normwise_bound";

// Is `name` a tolerance of another output (and so not compared itself)?
bool is_bound_of_output(const std::string& name, const Tensors& golden_outputs) {
  for (const std::string_view suffix : {kNormwiseBoundSuffix, kBoundSuffix})
    if (ends_with(name, suffix) && golden_outputs.count(name.substr(0, name.size() - suffix.size())) != 0)
      return true;
  return false;
}

const Tensor* find_tensor(const Tensors& t, const std::string& name) {
  const auto it = t.find(name);
  return it == t.end() ? nullptr : &it->second;
}

std::string attr_or(const CaseAttributes& a, const std::string& key) {
  const auto it = a.strings.find(key);
  return it == a.strings.end() ? std::string() : it->second;
}

// ---- JSON ---------------------------------------------------------------------------------------

std::string json_quote(std::string_view s) {
  std::string o = "\"";
  for (const char ch : s) {
    switch (ch) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      default:
        if (std::uint8_t(ch) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", unsigned(std::uint8_t(ch)));
          o += buf;
        } else {
          o += ch;
        }
    }
  }
  return o + "\"";
}

// A number when finite (-0 as -0.0, so that parsers keep the sign), else "nan" / "inf" / "-inf".
std::string json_value(double v) {
  if (!std::isfinite(v)) return json_quote(value_text(v));
  if (v == 0 && std::signbit(v)) return "-0.0";
  return value_text(v);
}

std::string json_ints(const std::vector<std::int64_t>& v) {
  std::string o = "[";
  for (std::size_t i = 0; i < v.size(); ++i) o += (i ? ", " : "") + std::to_string(v[i]);
  return o + "]";
}

std::string json_dataset(const DatasetReport& d) {
  const int bits = lookup_dtype(d.dtype) ? ElementType(d.dtype).bits() : 64;
  std::string classes;
  for (const auto& [k, n] : d.classes)
    classes += (classes.empty() ? "" : ", ") + json_quote(name(k)) + ": " + std::to_string(n);
  std::string first;
  for (const Mismatch& m : d.first)
    first += std::string(first.empty() ? "" : ",") + "\n          {\"index\": " + std::to_string(m.index) +
             ", \"coords\": " + json_ints(m.coords) + ", \"golden\": " + json_quote(hex_text(m.golden_bits, bits)) +
             ", \"candidate\": " + json_quote(hex_text(m.candidate_bits, bits)) +
             ", \"golden_value\": " + json_value(m.golden_value) +
             ", \"candidate_value\": " + json_value(m.candidate_value) + "}";
  return "{\"dataset\": " + json_quote(d.dataset) + ", \"dtype\": " + json_quote(d.dtype) +
         ", \"pass\": " + (d.pass ? "true" : "false") + ", \"elements\": " + std::to_string(d.elements) +
         ", \"mismatching_elements\": " + std::to_string(d.mismatching_elements) +
         ", \"mismatching_bytes\": " + std::to_string(d.mismatching_bytes) + ", \"detail\": " + json_quote(d.detail) +
         ", \"classes\": {" + classes + "}, \"first_mismatches\": [" + first + (first.empty() ? "]}" : "\n        ]}");
}

}  // namespace

// ---- public -------------------------------------------------------------------------------------

CaseReport compare_case(const std::string& case_name, const CaseAttributes& golden_attrs, const Tensors& golden_inputs,
                        const Tensors& golden_outputs, const Tensors& candidate_outputs, std::int64_t max_mismatches) {
  CaseReport r;
  r.case_name = case_name;
  r.kernel = attr_or(golden_attrs, "kernel");
  if (golden_attrs.strings.count("expected_error")) {
    r.pass = candidate_outputs.empty();
    r.detail = r.pass ? "rejected, as expected (golden error: " + attr_or(golden_attrs, "expected_error") + ")"
                      : "accepted invalid input: the golden expects the error '" +
                            attr_or(golden_attrs, "expected_error") + "', the candidate has outputs";
    return r;
  }
  const Tensor* cast_input = nullptr;
  if (r.kernel == "cast")
    if (const auto x = golden_inputs.find("x"); x != golden_inputs.end()) cast_input = &x->second;
  r.pass = true;
  for (const auto& [dataset, golden] : golden_outputs) {
    if (is_bound_of_output(dataset, golden_outputs)) continue;
    const auto cand = candidate_outputs.find(dataset);
    if (cand == candidate_outputs.end()) {
      DatasetReport d;
      d.dataset = dataset;
      d.dtype = golden.dtype;
      d.elements = golden.numel();
      d.detail = "missing in the candidate";
      r.datasets.push_back(std::move(d));
    } else {
      const Bounds bounds{find_tensor(golden_outputs, dataset + std::string(kBoundSuffix)),
                          find_tensor(golden_outputs, dataset + std::string(kNormwiseBoundSuffix))};
      try {
        r.datasets.push_back(compare_dataset(dataset, golden, cand->second, bounds, cast_input, max_mismatches));
      } catch (const std::invalid_argument& e) {  // an unknown dtype in an in-process tensor
        throw GoldenError("", case_name, dataset, e.what());
      }
    }
    r.pass = r.pass && r.datasets.back().pass;
  }
  if (!r.pass) {
    std::int64_t failing = 0;
    for (const DatasetReport& d : r.datasets) failing += !d.pass;
    r.detail = std::to_string(failing) + " of " + std::to_string(r.datasets.size()) + " datasets differ";
  }
  return r;
}

CheckReport check_files(const std::filesystem::path& golden, const std::filesystem::path& candidate,
                        std::int64_t max_mismatches) {
  const Reader gr(golden), cr(candidate);
  CheckReport report{golden.string(), candidate.string(), {}};
  const std::vector<std::string> candidate_cases = cr.cases();
  const std::set<std::string> have(candidate_cases.begin(), candidate_cases.end());
  for (const std::string& cn : gr.cases()) {
    const CaseAttributes attrs = gr.case_attributes(cn);
    const std::vector<std::string> all = gr.datasets(cn);
    // Outputs: the `outputs` attribute, else every dataset not named by `inputs`.
    std::vector<std::string> in_names = all, out_names;
    if (const auto it = attrs.strings.find("inputs"); it != attrs.strings.end()) in_names = split_names(it->second);
    if (const auto it = attrs.strings.find("outputs"); it != attrs.strings.end()) {
      out_names = split_names(it->second);
    } else {
      const bool has_inputs = attrs.strings.count("inputs") != 0;
      for (const std::string& d : all)
        if (!has_inputs || std::find(in_names.begin(), in_names.end(), d) == in_names.end()) out_names.push_back(d);
    }
    if (!have.count(cn)) {
      CaseReport r;
      r.case_name = cn;
      r.kernel = attr_or(attrs, "kernel");
      r.detail = "case missing in the candidate";
      report.cases.push_back(std::move(r));
      continue;
    }
    const CaseAttributes cand_attrs = cr.case_attributes(cn);
    const std::vector<std::string> cand_all = cr.datasets(cn);
    Tensors golden_inputs, golden_outputs, candidate_outputs;

    if (attrs.strings.count("expected_error")) {
      // The candidate rejected the inputs when it carries `error`; else any dataset it computed
      // (its `outputs`, or a dataset that is no golden input) means it accepted them.
      std::string error = attr_or(cand_attrs, "error");
      if (error.empty()) error = attr_or(cand_attrs, "expected_error");
      std::vector<std::string> cand_out;
      if (const auto it = cand_attrs.strings.find("outputs"); it != cand_attrs.strings.end()) {
        cand_out = split_names(it->second);
      } else {
        for (const std::string& d : cand_all)
          if (std::find(in_names.begin(), in_names.end(), d) == in_names.end()) cand_out.push_back(d);
      }
      CaseReport r;
      r.case_name = cn;
      r.kernel = attr_or(attrs, "kernel");
      const bool has_error = cand_attrs.strings.count("error") || cand_attrs.strings.count("expected_error");
      r.pass = has_error;
      if (has_error)
        r.detail = "rejected, as expected (candidate error: " + error + ")";
      else if (!cand_out.empty())
        r.detail = "accepted invalid input: the golden expects the error '" + attr_or(attrs, "expected_error") +
                   "', the candidate has outputs (" + join_names(cand_out) + ")";
      else
        r.detail = "the golden expects the error '" + attr_or(attrs, "expected_error") +
                   "'; the candidate has neither an 'error' attribute nor outputs";
      report.cases.push_back(std::move(r));
      continue;
    }

    if (attr_or(attrs, "kernel") == "cast" && std::find(in_names.begin(), in_names.end(), "x") != in_names.end() &&
        std::find(all.begin(), all.end(), "x") != all.end())
      golden_inputs.emplace("x", gr.read_tensor(cn, "x"));
    for (const std::string& d : out_names) golden_outputs.emplace(d, gr.read_tensor(cn, d));
    for (const std::string& d : out_names)
      if (!is_bound_of_output(d, golden_outputs) && std::find(cand_all.begin(), cand_all.end(), d) != cand_all.end())
        candidate_outputs.emplace(d, cr.read_tensor(cn, d));
    report.cases.push_back(compare_case(cn, attrs, golden_inputs, golden_outputs, candidate_outputs, max_mismatches));
  }
  return report;
}

std::string format_text(const CaseReport& r) {
  const std::string kernel = r.kernel.empty() ? "" : " kernel=" + r.kernel;
  if (r.pass) {
    const std::string s = "PASS " + r.case_name + kernel;
    return r.datasets.empty() ? s + ": " + r.detail : s + " (" + std::to_string(r.datasets.size()) + " datasets)";
  }
  std::string s = "FAIL " + r.case_name + kernel + ": " + r.detail + "\n";
  for (const DatasetReport& d : r.datasets) {
    s += "  " + d.dataset + " [" + d.dtype + "]: ";
    if (d.pass) {
      s += "ok (" + std::to_string(d.elements) + " elements)\n";
      continue;
    }
    s += std::to_string(d.mismatching_elements) + " of " + std::to_string(d.elements) + " elements differ (" +
         std::to_string(d.mismatching_bytes) + " bytes)\n";
    s += "    cause: " + d.detail + "\n";
    if (!d.classes.empty()) {
      s += "    classes:";
      for (const auto& [k, n] : d.classes) s += " " + std::string(name(k)) + "=" + std::to_string(n);
      s += "\n";
    }
    const int bits = lookup_dtype(d.dtype) ? ElementType(d.dtype).bits() : 64;
    for (const Mismatch& m : d.first)
      s += "    index " + std::to_string(m.index) + " " + shape_text(m.coords) + ": golden " +
           hex_text(m.golden_bits, bits) + " (" + value_text(m.golden_value) + "), candidate " +
           hex_text(m.candidate_bits, bits) + " (" + value_text(m.candidate_value) + ")\n";
  }
  if (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

std::string to_json(const CheckReport& r) {
  std::int64_t passed = 0;
  for (const CaseReport& c : r.cases) passed += c.pass;
  std::string cases;
  for (const CaseReport& c : r.cases) {
    std::string datasets;
    for (const DatasetReport& d : c.datasets)
      datasets += std::string(datasets.empty() ? "" : ",") + "\n        " + json_dataset(d);
    cases += std::string(cases.empty() ? "" : ",") + "\n    {\"case\": " + json_quote(c.case_name) +
             ", \"kernel\": " + json_quote(c.kernel) + ", \"pass\": " + (c.pass ? "true" : "false") +
             ", \"detail\": " + json_quote(c.detail) + ", \"datasets\": [" + datasets +
             (datasets.empty() ? "]}" : "\n      ]}");
  }
  return "{\n  \"golden\": " + json_quote(r.golden) + ",\n  \"candidate\": " + json_quote(r.candidate) +
         ",\n  \"pass\": " + (r.pass() ? "true" : "false") + ",\n  \"cases_total\": " + std::to_string(r.cases.size()) +
         ",\n  \"cases_passed\": " + std::to_string(passed) +
         ",\n  \"cases_failed\": " + std::to_string(std::int64_t(r.cases.size()) - passed) + ",\n  \"cases\": [" +
         cases + (cases.empty() ? "]" : "\n  ]") + "\n}\n";
}

}  // namespace octet::golden
