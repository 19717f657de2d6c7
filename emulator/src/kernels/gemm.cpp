// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// gemm.cpp — scaled (grouped) GEMMs: torch `_scaled_mm` / `_scaled_grouped_mm` semantics,
// DeepGEMM `m_grouped_fp8_gemm_nt_contiguous` / `k_grouped_fp8_gemm_tn_contiguous` (D = C + A·B),
// with the accumulation models of gemm.hpp (exact, fp32_seq, fp32_promote after DeepSeek-V3
// §3.3, hopper_fast_accum). reference/kernels.md §0, §4.
//
// Sections: operand decoding -> exact model -> fp32 models (tiled, OpenMP) -> Hopper model ->
// dense / grouped drivers -> bounds and metrics.
#include "octet/gemm.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <bit>
#include <boost/multiprecision/cpp_int.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "octet/cast.hpp"
#include "octet/format.hpp"

namespace octet {

namespace {

using boost::multiprecision::cpp_int;
using i128 = __int128;
using u128 = unsigned __int128;

// ---------------------------------------------------------------------------------------------
// Names

constexpr std::array<std::string_view, 4> kModelNames{"exact", "fp32_seq", "fp32_promote", "hopper_fast_accum"};

// ---------------------------------------------------------------------------------------------
// Operand decoding

// The element values of one format: value(code) = iv·2^grid exactly (grid = log2 of the smallest
// subnormal), as double/float, and whether the code is finite.
struct ElementTable {
  std::array<float, 256> value{};
  std::array<std::int64_t, 256> iv{};
  std::array<bool, 256> finite{};
  int grid = 0;
  std::int64_t max_iv = 0;
};

ElementTable element_table(const Recipe& r) {
  const Format& f = format_of(element_format(r));
  ElementTable t;
  t.grid = std::ilogb(min_subnormal(f));
  const int ncodes = 1 << (f.exponent_bits + f.mantissa_bits + 1);
  for (int c = 0; c < 256; ++c) {
    const double v = c < ncodes ? decode(f, std::uint32_t(c)) : std::numeric_limits<double>::quiet_NaN();
    t.value[std::size_t(c)] = float(v);
    t.finite[std::size_t(c)] = std::isfinite(v);
    t.iv[std::size_t(c)] = t.finite[std::size_t(c)] ? std::int64_t(std::ldexp(v, -t.grid)) : 0;
    t.max_iv = std::max(t.max_iv, std::abs(t.iv[std::size_t(c)]));
  }
  return t;
}

float scale_decode(const Recipe& r, std::uint32_t stored) { return scale_from_stored(r, stored).decode; }

// A dyadic fp32 value m·2^e (m < 2^24), or a flag for zero / non-finite.
struct Dyadic {
  std::int64_t m = 0;
  int e = 0;
  bool finite = true;
};
Dyadic dyadic(float x) {
  Dyadic d;
  if (!std::isfinite(x)) { d.finite = false; return d; }
  if (x == 0.0f) return d;
  int e2 = 0;
  const double fr = std::frexp(double(x), &e2);  // x = fr·2^e2, fr in [0.5, 1)
  d.m = std::int64_t(std::ldexp(fr, 53));
  d.e = e2 - 53;
  while ((d.m & 1) == 0) { d.m >>= 1; ++d.e; }
  return d;
}

std::string dims(std::int64_t r, std::int64_t c) { return "(" + std::to_string(r) + ", " + std::to_string(c) + ")"; }

// Rows (or columns) covered by one scale along the outer dimension / along K; 0 = whole.
std::int64_t blocks_of(std::int64_t extent, std::int64_t block) { return block == 0 ? 1 : (extent + block - 1) / block; }

void validate(const ScaledOperand& x, bool lhs, const char* what) {
  const std::string w(what);
  require(x.recipe != nullptr, w + ": no recipe");
  require(x.data.data != nullptr || x.data.rows * x.data.cols == 0, w + ": no data");
  require(x.scales.words != nullptr || x.scales.bytes != nullptr, w + ": no scales");
  const ScaleStorage st = storage(*x.recipe);
  const bool fp32_storage = st == ScaleStorage::EncodeFp32 || st == ScaleStorage::DecodeFp32;
  require(!fp32_storage || x.scales.words != nullptr,
          w + ": recipe " + std::string(name(*x.recipe)) + " stores fp32 scales; pass them as 32-bit words");
  require(x.block.outer >= 0 && x.block.k >= 0, w + ": negative scale block");
  const std::int64_t outer = lhs ? x.data.rows : x.data.cols;
  const std::int64_t k = lhs ? x.data.cols : x.data.rows;
  if (x.block.k > 0)
    require(k % x.block.k == 0, w + ": K = " + std::to_string(k) + " is not divisible by the scale block (" +
                                    std::to_string(x.block.k) + " along K)");
  const std::int64_t so = blocks_of(outer, x.block.outer), sk = x.block.k == 0 ? 1 : k / x.block.k;
  const std::int64_t want_r = lhs ? so : sk, want_c = lhs ? sk : so;
  if (x.scales.rows != want_r || x.scales.cols != want_c)
    throw std::invalid_argument(w + " scales: expected shape " + dims(want_r, want_c) + " for data " +
                                dims(x.data.rows, x.data.cols) + " and block {outer " + std::to_string(x.block.outer) +
                                ", k " + std::to_string(x.block.k) + "}, got " + dims(x.scales.rows, x.scales.cols));
}

// Decoded scales expanded along the outer dimension: A -> (M, nk) row-major; B -> (nk, N).
std::vector<float> expand_scales(const ScaledOperand& x, bool lhs, std::int64_t outer_pad = 0) {
  const std::int64_t outer = lhs ? x.data.rows : x.data.cols;
  const std::int64_t k = lhs ? x.data.cols : x.data.rows;
  const std::int64_t nk = x.block.k == 0 ? 1 : k / x.block.k;
  const std::int64_t op = std::max(outer, outer_pad);
  std::vector<float> s(std::size_t(op * nk), 0.0f);
  for (std::int64_t o = 0; o < outer; ++o) {
    const std::int64_t ob = x.block.outer == 0 ? 0 : o / x.block.outer;
    for (std::int64_t j = 0; j < nk; ++j) {
      const float d = scale_decode(*x.recipe, lhs ? x.scales(ob, j) : x.scales(j, ob));
      if (lhs) s[std::size_t(o * nk + j)] = d; else s[std::size_t(j * op + o)] = d;
    }
  }
  return s;
}

// K ranges over which the partial sum runs: cut at both operands' scale blocks, at `cut` (0 = no
// cut) and at K. ka / kb index the decoded scale columns / rows.
struct Chunk {
  std::int64_t k0, k1, ka, kb;
};
std::vector<Chunk> make_chunks(std::int64_t k, std::int64_t kba, std::int64_t kbb, std::int64_t cut) {
  std::vector<Chunk> c;
  auto next = [](std::int64_t pos, std::int64_t step) { return step == 0 ? std::numeric_limits<std::int64_t>::max() : (pos / step + 1) * step; };
  for (std::int64_t k0 = 0; k0 < k;) {
    const std::int64_t k1 = std::min({k, next(k0, kba), next(k0, kbb), next(k0, cut)});
    c.push_back({k0, k1, kba == 0 ? 0 : k0 / kba, kbb == 0 ? 0 : k0 / kbb});
    k0 = k1;
  }
  return c;
}

const CastSpec kBf16Out = CastSpec{.overflow = Overflow::Ieee};

float round_out(float z, OutDtype d) {
  if (d != OutDtype::bf16) return z;
  return bf16_to_float(std::uint16_t(encode(bf16_format, kBf16Out, z)));
}

// ---------------------------------------------------------------------------------------------
// Exact model

int bitlen(u128 x) {
  const std::uint64_t hi = std::uint64_t(x >> 64), lo = std::uint64_t(x);
  return hi ? 128 - std::countl_zero(hi) : 64 - std::countl_zero(lo);
}
u128 uabs(i128 x) { return x < 0 ? u128(0) - u128(x) : u128(x); }

// sum of terms t·2^e, exactly: a fixed-point __int128 while it fits in 125 bits, then cpp_int.
struct ExactSum {
  bool any = false, big = false;
  i128 v = 0;
  cpp_int bv;
  int e = 0;

  void to_big() {
    if (big) return;
    big = true;
    const u128 a = uabs(v);
    bv = cpp_int(std::uint64_t(a >> 64));
    bv <<= 64;
    bv += std::uint64_t(a);
    if (v < 0) bv = -bv;
  }
  static cpp_int wide(i128 t) {
    const u128 a = uabs(t);
    cpp_int r(std::uint64_t(a >> 64));
    r <<= 64;
    r += std::uint64_t(a);
    return t < 0 ? cpp_int(-r) : r;
  }
  void add_big(const cpp_int& t, int et) {
    if (t == 0) return;
    if (!any) { to_big(); any = true; bv = t; e = et; return; }
    to_big();
    if (et >= e) bv += t << unsigned(et - e);
    else { bv <<= unsigned(e - et); bv += t; e = et; }
  }
  void add(i128 t, int et) {
    if (t == 0) return;
    if (!any) { any = true; v = t; e = et; return; }
    if (!big) {
      const int bt = bitlen(uabs(t)), bvl = bitlen(uabs(v));
      if (et >= e) {
        if (et - e + bt <= 125 && bvl <= 125) { v += t << (et - e); return; }
      } else if (bvl + (e - et) <= 125 && bt <= 125) {
        v = (v << (e - et)) + t; e = et; return;
      }
    }
    add_big(wide(t), et);
  }
  // t·m·2^et with |m| < 2^53.
  void add_product(i128 t, std::int64_t m, int et) {
    if (t == 0 || m == 0) return;
    if (bitlen(uabs(t)) + bitlen(uabs(m)) <= 125) add(t * m, et);
    else add_big(wide(t) * m, et);
  }
  void multiply(std::int64_t m, int em) {
    if (!any) return;
    if (m == 0) { *this = ExactSum{}; return; }
    to_big();
    bv *= m;
    e += em;
  }
};

// value = (T + f)·2^lsb_exp with f in [0, 1) non-zero iff sticky, T < 2^55 -> double, RNE or
// round-to-odd (to 53 bits, subnormals to 2^-1074; round-to-odd makes the later RNE to fp32 /
// bf16 a single correct rounding, since 53 >= 24 + 2).
double round_dyadic(bool neg, std::uint64_t t, int lsb_exp, bool sticky, bool to_odd) {
  if (t == 0) return neg ? -0.0 : 0.0;
  const int top = lsb_exp + (64 - std::countl_zero(t)) - 1;
  if (top > 1100) return neg ? -HUGE_VAL : HUGE_VAL;
  const int q = std::max(top - 52, -1074);
  std::uint64_t r;
  if (q <= lsb_exp) {
    r = t;  // exact (sticky is false: at most 53 bits were kept)
    const double v = std::ldexp(double(r), lsb_exp);
    return neg ? -v : v;
  }
  const int d = q - lsb_exp;
  if (d >= 60) {
    r = (to_odd) ? 1 : 0;  // far below the smallest subnormal's half for RNE
  } else {
    r = t >> d;
    const std::uint64_t rem = t & ((std::uint64_t(1) << d) - 1), half = std::uint64_t(1) << (d - 1);
    if (to_odd) {
      if (rem != 0 || sticky) r |= 1;
    } else if (rem > half || (rem == half && (sticky || (r & 1)))) {
      ++r;
    }
  }
  const double v = std::ldexp(double(r), q);
  return neg ? -v : v;
}

double finish_exact(const ExactSum& s, bool to_odd) {
  if (!s.any) return 0.0;
  if (!s.big) {
    if (s.v == 0) return 0.0;
    const u128 a = uabs(s.v);
    const int l = bitlen(a);
    if (l <= 55) return round_dyadic(s.v < 0, std::uint64_t(a), s.e, false, to_odd);
    const int sh = l - 55;
    const bool sticky = (a & ((u128(1) << sh) - 1)) != 0;
    return round_dyadic(s.v < 0, std::uint64_t(a >> sh), s.e + sh, sticky, to_odd);
  }
  if (s.bv == 0) return 0.0;
  const bool neg = s.bv < 0;
  const cpp_int a = neg ? cpp_int(-s.bv) : s.bv;
  const int l = int(boost::multiprecision::msb(a)) + 1;
  if (l <= 55) return round_dyadic(neg, a.convert_to<std::uint64_t>(), s.e, false, to_odd);
  const int sh = l - 55;
  const bool sticky = int(boost::multiprecision::lsb(a)) < sh;
  return round_dyadic(neg, cpp_int(a >> sh).convert_to<std::uint64_t>(), s.e + sh, sticky, to_odd);
}

double round_exact_out(const ExactSum& s, OutDtype d) {
  if (d == OutDtype::fp64) return finish_exact(s, false);
  const double odd = finish_exact(s, true);
  if (d == OutDtype::fp32) return double(static_cast<float>(odd));
  return double(bf16_to_float(std::uint16_t(encode(bf16_format, kBf16Out, odd))));
}

// Integer operands for the exact model: A (M, K) and B transposed (N, K), row-major.
struct IntOperand {
  std::vector<std::int64_t> iv;
  std::vector<float> val;            // unscaled values (for the non-finite fallback)
  std::vector<char> bad;             // per outer index: a non-finite code or scale
  int grid = 0;
  std::int64_t max_iv = 0;
};
IntOperand int_operand(const ScaledOperand& x, bool lhs, const std::vector<float>& sc, std::int64_t nk) {
  const ElementTable t = element_table(*x.recipe);
  const std::int64_t outer = lhs ? x.data.rows : x.data.cols, k = lhs ? x.data.cols : x.data.rows;
  IntOperand o;
  o.grid = t.grid;
  o.max_iv = t.max_iv;
  o.iv.resize(std::size_t(outer * k));
  o.val.resize(std::size_t(outer * k));
  o.bad.assign(std::size_t(outer), 0);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < outer; ++i) {
    bool bad = false;
    for (std::int64_t j = 0; j < k; ++j) {
      const std::uint8_t c = lhs ? x.data(i, j) : x.data(j, i);
      o.iv[std::size_t(i * k + j)] = t.iv[c];
      o.val[std::size_t(i * k + j)] = t.value[c];
      bad |= !t.finite[c];
    }
    for (std::int64_t j = 0; j < nk; ++j) bad |= !std::isfinite(lhs ? sc[std::size_t(i * nk + j)] : sc[std::size_t(j * outer + i)]);
    o.bad[std::size_t(i)] = bad;
  }
  return o;
}

void exact_dense(const ScaledOperand& a, const ScaledOperand& b, const GemmConfig& cfg, const float* c,
                 float* out, double* out64) {
  const std::int64_t m = a.data.rows, k = a.data.cols, n = b.data.cols;
  const std::int64_t nka = a.block.k == 0 ? 1 : k / a.block.k, nkb = b.block.k == 0 ? 1 : k / b.block.k;
  const std::vector<float> sa = expand_scales(a, true), sb = expand_scales(b, false);
  const IntOperand ia = int_operand(a, true, sa, nka), ib = int_operand(b, false, sb, nkb);
  const std::vector<Chunk> chunks = make_chunks(k, a.block.k, b.block.k, 0);
  std::vector<Dyadic> da(sa.size()), db(sb.size());
  for (std::size_t i = 0; i < sa.size(); ++i) da[i] = dyadic(sa[i]);
  for (std::size_t i = 0; i < sb.size(); ++i) db[i] = dyadic(sb[i]);
  const float gab_a = a.global_decode, gab_b = b.global_decode;
  const Dyadic ga = dyadic(gab_a), gb = dyadic(gab_b);
  const bool global = gab_a != 1.0f || gab_b != 1.0f;
  // int64 segment sums suffice when max|iv_a·iv_b|·segment < 2^62.
  std::int64_t longest = 0;
  for (const Chunk& ch : chunks) longest = std::max(longest, ch.k1 - ch.k0);
  const bool narrow = std::log2(double(ia.max_iv) + 1) + std::log2(double(ib.max_iv) + 1) + std::log2(double(longest) + 1) < 62;
  const int grid = ia.grid + ib.grid;

#pragma omp parallel for schedule(dynamic, 4)
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      const std::int64_t* pa = &ia.iv[std::size_t(i * k)];
      const std::int64_t* pb = &ib.iv[std::size_t(j * k)];
      const float cij = c ? c[i * n + j] : 0.0f;
      double res;
      if (ia.bad[std::size_t(i)] || ib.bad[std::size_t(j)] || !ga.finite || !gb.finite || !std::isfinite(cij)) {
        // IEEE propagation of NaN / Inf: the dot in double.
        double z = 0.0;
        for (const Chunk& ch : chunks)
          for (std::int64_t q = ch.k0; q < ch.k1; ++q)
            z += double(ia.val[std::size_t(i * k + q)]) * double(ib.val[std::size_t(j * k + q)]) *
                 double(sa[std::size_t(i * nka + ch.ka)]) * double(sb[std::size_t(ch.kb * n + j)]);
        z = z * double(gab_a) * double(gab_b) + double(cij);
        res = out64 ? z : (cfg.out == OutDtype::fp32 ? double(float(z)) : double(round_out(float(z), OutDtype::bf16)));
      } else {
        ExactSum s;
        for (const Chunk& ch : chunks) {
          i128 p = 0;
          if (narrow) {
            std::int64_t p64 = 0;
            for (std::int64_t q = ch.k0; q < ch.k1; ++q) p64 += pa[q] * pb[q];
            p = p64;
          } else {
            for (std::int64_t q = ch.k0; q < ch.k1; ++q) p += i128(pa[q]) * i128(pb[q]);
          }
          if (p == 0) continue;
          const Dyadic& x = da[std::size_t(i * nka + ch.ka)];
          const Dyadic& y = db[std::size_t(ch.kb * n + j)];
          if (x.m == 0 || y.m == 0) continue;
          if (bitlen(uabs(x.m)) + bitlen(uabs(y.m)) <= 60) s.add_product(p, x.m * y.m, grid + x.e + y.e);
          else s.add_big(ExactSum::wide(p) * x.m * y.m, grid + x.e + y.e);
        }
        if (global) {
          s.multiply(ga.m, ga.e);
          s.multiply(gb.m, gb.e);
        }
        if (cij != 0.0f) {
          const Dyadic dc = dyadic(cij);
          s.add(dc.m, dc.e);
        }
        res = round_exact_out(s, cfg.out);
      }
      if (out64) out64[i * n + j] = res; else out[i * n + j] = float(res);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// fp32 models: register-tiled, sequential in k per output element. Products of unscaled element
// values are exact in fp32, so p += a·b (two roundings-free-of-error ops) equals the fp32 sum.

constexpr int MR = 6, NR = 16;
typedef float v16 __attribute__((vector_size(NR * sizeof(float))));

// out_t (MR x NR) = sum over chunks of fma(P_chunk, fl32(sa·sb), acc), P_chunk the fp32 sum in k.
__attribute__((target_clones("default", "arch=haswell", "arch=skylake-avx512")))
void tile_kernel(const float* a, std::int64_t lda, const float* b, std::int64_t ldb, const Chunk* chunks,
                 std::int64_t nchunks, const float* sa, std::int64_t ldsa, const float* sb, std::int64_t ldsb,
                 float* out_t) {
  float tot[MR][NR] = {};
  for (std::int64_t c = 0; c < nchunks; ++c) {
    const Chunk ch = chunks[c];
    v16 p[MR] = {};
    for (std::int64_t q = ch.k0; q < ch.k1; ++q) {
      v16 bv;
      std::memcpy(&bv, b + q * ldb, sizeof bv);
      for (int i = 0; i < MR; ++i) p[i] += a[i * lda + q] * bv;
    }
    const float* sbr = sb + ch.kb * ldsb;
    for (int i = 0; i < MR; ++i) {
      const float sai = sa[i * ldsa + ch.ka];
      for (int j = 0; j < NR; ++j) tot[i][j] = std::fma(p[i][j], sai * sbr[j], tot[i][j]);
    }
  }
  std::memcpy(out_t, tot, sizeof tot);
}

void fp32_dense(const ScaledOperand& a, const ScaledOperand& b, const GemmConfig& cfg, const float* c, float* out) {
  const std::int64_t m = a.data.rows, k = a.data.cols, n = b.data.cols;
  if (m == 0 || n == 0) return;
  const std::int64_t mp = (m + MR - 1) / MR * MR, np = (n + NR - 1) / NR * NR;
  const std::int64_t nka = a.block.k == 0 ? 1 : k / a.block.k;
  const ElementTable ta = element_table(*a.recipe), tb = element_table(*b.recipe);
  // A (mp, k) and B (k, np) as unscaled fp32 values, zero-padded; scales (mp, nka) and (nkb, np).
  std::vector<float> av(std::size_t(mp * k), 0.0f), bv(std::size_t(k * np), 0.0f);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t q = 0; q < k; ++q) av[std::size_t(i * k + q)] = ta.value[a.data(i, q)];
#pragma omp parallel for schedule(static)
  for (std::int64_t q = 0; q < k; ++q)
    for (std::int64_t j = 0; j < n; ++j) bv[std::size_t(q * np + j)] = tb.value[b.data(q, j)];
  std::vector<float> sa = expand_scales(a, true);
  sa.resize(std::size_t(mp * nka), 0.0f);
  const std::vector<float> sb = expand_scales(b, false, np);
  const std::int64_t cut = cfg.model == GemmModel::fp32_promote ? cfg.promote_chunk : 0;
  const std::vector<Chunk> chunks = make_chunks(k, a.block.k, b.block.k, cut);
  const float gab = a.global_decode * b.global_decode;
  const bool global = a.global_decode != 1.0f || b.global_decode != 1.0f;

  const std::int64_t tm = mp / MR, tn = np / NR;
#pragma omp parallel for collapse(2) schedule(dynamic, 2)
  for (std::int64_t pj = 0; pj < tn; ++pj) {
    for (std::int64_t pi = 0; pi < tm; ++pi) {
      float t[MR * NR];
      tile_kernel(&av[std::size_t(pi * MR * k)], k, &bv[std::size_t(pj * NR)], np, chunks.data(),
                  std::int64_t(chunks.size()), &sa[std::size_t(pi * MR * nka)], nka, &sb[std::size_t(pj * NR)], np, t);
      for (int i = 0; i < MR; ++i) {
        const std::int64_t r = pi * MR + i;
        if (r >= m) break;
        for (int j = 0; j < NR; ++j) {
          const std::int64_t col = pj * NR + j;
          if (col >= n) break;
          float z = t[i * NR + j];
          if (global) z = z * gab;
          if (c) z = z + c[r * n + col];
          out[r * n + col] = round_out(z, cfg.out);
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Hopper fast-accumulation model (scalar; see gemm.hpp). All intermediate values are exact in
// double for mantissa_bits <= 40.

double trunc_to(double x, int e, int w) {
  const double q = std::ldexp(1.0, e - w + 1);
  return std::trunc(x / q) * q;
}

double hopper_partial(const float* a, const float* b, std::int64_t ldb, std::int64_t len, const HopperAccum& h) {
  const int w = h.mantissa_bits;
  double acc = 0.0;
  std::array<double, 256> p{};
  for (std::int64_t g0 = 0; g0 < len; g0 += h.group) {
    const std::int64_t g1 = std::min(len, g0 + std::int64_t(h.group));
    double pmax = 0.0;
    bool finite = true;
    for (std::int64_t q = g0; q < g1; ++q) {
      p[std::size_t(q - g0)] = double(a[q]) * double(b[q * ldb]);
      finite &= std::isfinite(p[std::size_t(q - g0)]);
      pmax = std::max(pmax, std::abs(p[std::size_t(q - g0)]));
    }
    if (!finite) {  // IEEE propagation
      for (std::int64_t q = g0; q < g1; ++q) acc += p[std::size_t(q - g0)];
      continue;
    }
    if (pmax == 0.0) continue;
    const int e = std::ilogb(pmax);
    double s = 0.0;
    for (std::int64_t q = g0; q < g1; ++q) s += trunc_to(p[std::size_t(q - g0)], e, w);
    if (!std::isfinite(acc)) { acc += s; continue; }
    if (s == 0.0) continue;
    const int e2 = acc == 0.0 ? std::ilogb(s) : std::max(std::ilogb(acc), std::ilogb(s));
    const double sum = trunc_to(acc, e2, w) + trunc_to(s, e2, w);
    acc = sum == 0.0 ? 0.0 : trunc_to(sum, std::ilogb(sum), w);
  }
  return acc;
}

void hopper_dense(const ScaledOperand& a, const ScaledOperand& b, const GemmConfig& cfg, const float* c, float* out) {
  const std::int64_t m = a.data.rows, k = a.data.cols, n = b.data.cols;
  const HopperAccum& h = cfg.hopper;
  require(h.mantissa_bits >= 1 && h.mantissa_bits <= 40, "hopper.mantissa_bits must be in [1, 40]");
  require(h.group >= 1 && h.group <= 256, "hopper.group must be in [1, 256]");
  require(h.promote_interval >= 0, "hopper.promote_interval must be >= 0");
  const std::int64_t nka = a.block.k == 0 ? 1 : k / a.block.k;
  const ElementTable ta = element_table(*a.recipe), tb = element_table(*b.recipe);
  std::vector<float> av(std::size_t(m * k)), bv(std::size_t(k * n));
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t q = 0; q < k; ++q) av[std::size_t(i * k + q)] = ta.value[a.data(i, q)];
  for (std::int64_t q = 0; q < k; ++q)
    for (std::int64_t j = 0; j < n; ++j) bv[std::size_t(q * n + j)] = tb.value[b.data(q, j)];
  const std::vector<float> sa = expand_scales(a, true), sb = expand_scales(b, false);
  const std::vector<Chunk> chunks = make_chunks(k, a.block.k, b.block.k, h.promote_interval);
  const float gab = a.global_decode * b.global_decode;
  const bool global = a.global_decode != 1.0f || b.global_decode != 1.0f;
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      float tot = 0.0f;
      for (const Chunk& ch : chunks) {
        const double part = hopper_partial(&av[std::size_t(i * k + ch.k0)], &bv[std::size_t(ch.k0 * n + j)], n,
                                           ch.k1 - ch.k0, h);
        tot = std::fma(float(part), sa[std::size_t(i * nka + ch.ka)] * sb[std::size_t(ch.kb * n + j)], tot);
      }
      float z = tot;
      if (global) z = z * gab;
      if (c) z = z + c[i * n + j];
      out[i * n + j] = round_out(z, cfg.out);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Drivers

void check_pair(const ScaledOperand& a, const ScaledOperand& b) {
  validate(a, true, "A");
  validate(b, false, "B");
  require_equal(b.data.rows, a.data.cols, "B rows (the contraction K of A)");
  const std::int64_t ka = a.block.k, kb = b.block.k;
  if (ka > 0 && kb > 0)
    require(std::max(ka, kb) % std::min(ka, kb) == 0,
            "scale blocks along K (" + std::to_string(ka) + ", " + std::to_string(kb) + ") do not nest");
}

// One dense GEMM into out (M·N floats, or doubles for fp64).
void dense_into(const ScaledOperand& a, const ScaledOperand& b, const GemmConfig& cfg, const float* c, float* out,
                double* out64) {
  if (a.data.rows == 0 || b.data.cols == 0) return;
  if (a.data.cols == 0) {  // empty contraction: c, or zero
    for (std::int64_t i = 0; i < a.data.rows * b.data.cols; ++i) {
      const float z = c ? c[i] : 0.0f;
      if (out64) out64[i] = z; else out[i] = round_out(z, cfg.out);
    }
    return;
  }
  switch (cfg.model) {
    case GemmModel::exact: exact_dense(a, b, cfg, c, out, out64); return;
    case GemmModel::fp32_seq:
    case GemmModel::fp32_promote:
      require(cfg.model == GemmModel::fp32_seq || cfg.promote_chunk > 0, "promote_chunk must be > 0");
      require(out64 == nullptr, "fp64 output is only defined for the exact model");
      fp32_dense(a, b, cfg, c, out);
      return;
    case GemmModel::hopper_fast_accum:
      require(out64 == nullptr, "fp64 output is only defined for the exact model");
      hopper_dense(a, b, cfg, c, out);
      return;
  }
  throw std::logic_error("unknown GemmModel");
}

GemmOutput make_output(OutDtype d, std::int64_t batches, std::int64_t rows, std::int64_t cols) {
  GemmOutput o;
  o.dtype = d;
  o.batches = batches;
  o.rows = rows;
  o.cols = cols;
  if (d == OutDtype::fp64) o.values64.assign(std::size_t(batches * rows * cols), 0.0);
  else o.values.assign(std::size_t(batches * rows * cols), 0.0f);
  return o;
}

void check_c(std::span<const float> c, std::int64_t want, const char* what) {
  if (!c.empty()) require_equal(std::int64_t(c.size()), want, std::string(what) + " size");
}

double gamma(double n, double u) {
  const double nu = n * u;
  return nu >= 1.0 ? std::numeric_limits<double>::infinity() : nu / (1.0 - nu);
}

std::vector<double> dequantize_impl(const ScaledOperand& x, bool lhs) {
  validate(x, lhs, lhs ? "A" : "B");
  const ElementTable t = element_table(*x.recipe);
  const std::int64_t r = x.data.rows, c = x.data.cols;
  std::vector<double> v(std::size_t(r * c));
  for (std::int64_t i = 0; i < r; ++i)
    for (std::int64_t j = 0; j < c; ++j) {
      const std::int64_t o = lhs ? i : j, q = lhs ? j : i;
      const std::int64_t ob = x.block.outer == 0 ? 0 : o / x.block.outer, kb = x.block.k == 0 ? 0 : q / x.block.k;
      const float d = scale_decode(*x.recipe, lhs ? x.scales(ob, kb) : x.scales(kb, ob));
      v[std::size_t(i * c + j)] = double(t.value[x.data(i, j)]) * double(d) * double(x.global_decode);
    }
  return v;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Public API

std::string_view name(GemmModel m) { return kModelNames[std::size_t(m)]; }
std::string_view name(OutDtype d) {
  constexpr std::array<std::string_view, 3> n{"bf16", "fp32", "fp64"};
  return n[std::size_t(d)];
}
GemmModel parse_gemm_model(std::string_view s) {
  for (std::size_t i = 0; i < kModelNames.size(); ++i)
    if (kModelNames[i] == s) return GemmModel(i);
  throw std::invalid_argument("unknown gemm model '" + std::string(s) +
                              "'; valid: exact, fp32_seq, fp32_promote, hopper_fast_accum");
}

std::vector<double> GemmOutput::to_double() const {
  std::vector<double> v(static_cast<std::size_t>(size()));
  for (std::int64_t i = 0; i < size(); ++i) v[std::size_t(i)] = at(i);
  return v;
}
std::vector<std::uint16_t> GemmOutput::bf16_bits() const {
  require(dtype == OutDtype::bf16, "bf16_bits: output is not bf16");
  std::vector<std::uint16_t> b(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) b[i] = std::uint16_t(std::bit_cast<std::uint32_t>(values[i]) >> 16);
  return b;
}

GemmOutput scaled_mm(const ScaledOperand& a_m_k, const ScaledOperand& b_k_n, const GemmConfig& cfg,
                     std::span<const float> c_m_n) {
  check_pair(a_m_k, b_k_n);
  const std::int64_t m = a_m_k.data.rows, n = b_k_n.data.cols;
  check_c(c_m_n, m * n, "C");
  GemmOutput o = make_output(cfg.out, 1, m, n);
  dense_into(a_m_k, b_k_n, cfg, c_m_n.empty() ? nullptr : c_m_n.data(), o.values.data(), cfg.out == OutDtype::fp64 ? o.values64.data() : nullptr);
  return o;
}

GemmOutput scaled_grouped_mm_2d3d(const ScaledOperand& a_m_k, const ScaledOperand3D& b_e_k_n,
                                  std::span<const std::int32_t> offs, const GemmConfig& cfg,
                                  std::span<const float> c_m_n) {
  validate(a_m_k, true, "A");
  require(b_e_k_n.recipe != nullptr, "B: no recipe");
  require_equal(std::int64_t(offs.size()), b_e_k_n.data.experts, "len(offs) (the number of experts of B)");
  require_equal(b_e_k_n.scales.experts, b_e_k_n.data.experts, "B scales experts");
  const std::int64_t m = a_m_k.data.rows, n = b_e_k_n.data.cols;
  const Groups groups(offs, m, 1, "offs");
  check_c(c_m_n, m * n, "C");
  if (b_e_k_n.data.experts > 0) check_pair(a_m_k, b_e_k_n.expert(0));
  else require_equal(b_e_k_n.data.rows, a_m_k.data.cols, "B rows (the contraction K of A)");
  GemmOutput o = make_output(cfg.out, 1, m, n);
  const std::int64_t ob = a_m_k.block.outer;
  for (std::int64_t g = 0; g < groups.count(); ++g) {
    const std::int64_t s = groups.begin(g), e = groups.end(g);
    if (s == e) continue;
    if (ob > 1)
      require(s % ob == 0, "offs: group " + std::to_string(g) + " starts at row " + std::to_string(s) +
                               ", not a multiple of A's scale block (" + std::to_string(ob) + " rows)");
    ScaledOperand ag = a_m_k;
    ag.data.data += s * a_m_k.data.row_stride;
    ag.data.rows = e - s;
    if (ob > 0) {
      const std::int64_t r0 = s / ob;
      if (ag.scales.words) ag.scales.words += r0 * ag.scales.row_stride; else ag.scales.bytes += r0 * ag.scales.row_stride;
      ag.scales.rows = blocks_of(e - s, ob);
    }
    const ScaledOperand bg = b_e_k_n.expert(g);
    check_pair(ag, bg);
    dense_into(ag, bg, cfg, c_m_n.empty() ? nullptr : c_m_n.data() + s * n,
               o.values.empty() ? nullptr : o.values.data() + s * n,
               o.values64.empty() ? nullptr : o.values64.data() + s * n);
  }
  return o;
}

GemmOutput scaled_grouped_mm_2d2d(const ScaledOperand& a_m_k, const ScaledOperand& b_k_n,
                                  std::span<const std::int32_t> offs, const GemmConfig& cfg,
                                  std::span<const float> c_e_m_n) {
  const std::int64_t m = a_m_k.data.rows, k = a_m_k.data.cols, n = b_k_n.data.cols, e = std::int64_t(offs.size());
  require_equal(b_k_n.data.rows, k, "B rows (the contraction K of A)");
  require(a_m_k.block.k == b_k_n.block.k || (a_m_k.block.k > 0 && b_k_n.block.k > 0),
          "2Dx2D: both operands must be scaled per group (k = 0) or both in K blocks");
  const std::int64_t align = std::max(a_m_k.block.k, b_k_n.block.k);
  const Groups groups(offs, k, align > 0 ? align : 1, "offs");
  check_c(c_e_m_n, e * m * n, "C");
  // Scale shapes: K blocks over the whole contraction, or one column of A / row of B per group.
  auto scale_k = [&](const ScaledOperand& x) { return x.block.k == 0 ? e : k / x.block.k; };
  auto check_scales = [&](const ScaledOperand& x, bool lhs, const char* w) {
    require(x.recipe != nullptr, std::string(w) + ": no recipe");
    const std::int64_t so = blocks_of(lhs ? m : n, x.block.outer), sk = scale_k(x);
    const std::int64_t wr = lhs ? so : sk, wc = lhs ? sk : so;
    if (x.scales.rows != wr || x.scales.cols != wc)
      throw std::invalid_argument(std::string(w) + " scales: expected shape " + dims(wr, wc) + " for 2Dx2D with " +
                                  std::to_string(e) + " groups, got " + dims(x.scales.rows, x.scales.cols));
  };
  check_scales(a_m_k, true, "A");
  check_scales(b_k_n, false, "B");
  GemmOutput o = make_output(cfg.out, e, m, n);
  for (std::int64_t g = 0; g < groups.count(); ++g) {
    const std::int64_t s = groups.begin(g), t = groups.end(g);
    const float* cg = c_e_m_n.empty() ? nullptr : c_e_m_n.data() + g * m * n;
    float* og = o.values.empty() ? nullptr : o.values.data() + g * m * n;
    double* og64 = o.values64.empty() ? nullptr : o.values64.data() + g * m * n;
    ScaledOperand ag = a_m_k, bg = b_k_n;
    ag.data.data += s * a_m_k.data.col_stride;
    ag.data.cols = t - s;
    bg.data.data += s * b_k_n.data.row_stride;
    bg.data.rows = t - s;
    auto shift = [](ScaleView& v, std::int64_t off) { if (v.words) v.words += off; else v.bytes += off; };
    const std::int64_t c0a = a_m_k.block.k == 0 ? g : s / a_m_k.block.k, c0b = b_k_n.block.k == 0 ? g : s / b_k_n.block.k;
    shift(ag.scales, c0a * ag.scales.col_stride);
    ag.scales.cols = a_m_k.block.k == 0 ? 1 : (t - s) / a_m_k.block.k;
    shift(bg.scales, c0b * bg.scales.row_stride);
    bg.scales.rows = b_k_n.block.k == 0 ? 1 : (t - s) / b_k_n.block.k;
    if (s == t) {  // empty group: a zero matrix (or C)
      for (std::int64_t i = 0; i < m * n; ++i) {
        const float z = cg ? cg[i] : 0.0f;
        if (og64) og64[i] = z; else og[i] = round_out(z, cfg.out);
      }
      continue;
    }
    check_pair(ag, bg);
    dense_into(ag, bg, cfg, cg, og, og64);
  }
  return o;
}

// ---------------------------------------------------------------------------------------------
// Bounds. u = 2^-24. For an fp32 model with partial spans of at most n_c elements and C partials,
// each product of the exact sum passes through at most (n_c - 1) additions of its partial, one
// rounding of fl32(sa·sb), C fused multiply-adds of the fold, two roundings of a global scale
// and one of C: n = n_c + C + 3 factors (1 + δ), |δ| <= u, so |z - y| <= γ_n·S (Higham Lemma 3.1;
// underflow adds at most 2^-150 per fold or final operation; the partials of unscaled products lie
// on the products' grid and never underflow). A bf16 output adds u_bf16·|z| + η.
// Hopper: with ε = 2^(1-w), a group's truncation errs by < g·ε·max|p| <= g·ε·sum|p|, and each
// accumulator step by < 2ε·max(|acc|, |S|) + ε·|acc + S| <= 3ε·(|acc| + |S|); with G groups per
// partial the partial errs by <= γ'_{g + 3G}·sum|p| (γ' with ε for u). The fold then as above.

ErrorBound gemm_error_bound(const GemmConfig& cfg, std::int64_t k, std::int64_t segment) {
  const double u = std::ldexp(1.0, -24);
  const double uo = cfg.out == OutDtype::bf16 ? std::ldexp(1.0, -8) : cfg.out == OutDtype::fp32 ? u : std::ldexp(1.0, -53);
  const double eta = cfg.out == OutDtype::bf16 ? std::ldexp(1.0, -134) : cfg.out == OutDtype::fp32 ? std::ldexp(1.0, -150) : std::ldexp(1.0, -1074);
  if (cfg.model == GemmModel::exact) return {uo, eta};
  require(cfg.out != OutDtype::fp64, "fp64 output is only defined for the exact model");
  const double kk = double(std::max<std::int64_t>(k, 1));
  const double seg = double(segment <= 0 || segment > k ? std::max<std::int64_t>(k, 1) : segment);
  double rel_acc = 0.0, nfold = 0.0;
  if (cfg.model == GemmModel::hopper_fast_accum) {
    const double span = cfg.hopper.promote_interval > 0 ? std::min(seg, double(cfg.hopper.promote_interval)) : seg;
    const double groups = std::ceil(span / cfg.hopper.group);
    const double eps = std::ldexp(1.0, 1 - cfg.hopper.mantissa_bits);
    const double rel_h = gamma(cfg.hopper.group + 3.0 * groups, eps);
    nfold = std::ceil(kk / span) + std::ceil(kk / seg) + 1.0;
    rel_acc = (1.0 + rel_h) * (1.0 + gamma(nfold + 5.0, u)) - 1.0;  // + the partial's fp32 conversion
  } else {
    const double nc = cfg.model == GemmModel::fp32_promote ? std::min(seg, double(cfg.promote_chunk)) : seg;
    nfold = std::ceil(kk / nc) + std::ceil(kk / seg) + 1.0;
    rel_acc = gamma(nc + nfold + 3.0, u);
  }
  const double abs_acc = (nfold + 3.0) * std::ldexp(1.0, -149);
  if (cfg.out == OutDtype::fp32) return {rel_acc, abs_acc};
  return {rel_acc + uo * (1.0 + rel_acc), abs_acc * (1.0 + uo) + eta};
}

std::int64_t scale_segment(const ScaleBlock& a, const ScaleBlock& b, std::int64_t k) {
  if (a.k == 0 && b.k == 0) return k;
  if (a.k == 0) return b.k;
  if (b.k == 0) return a.k;
  return std::min(a.k, b.k);
}

std::vector<double> dequantize_lhs(const ScaledOperand& a_m_k) { return dequantize_impl(a_m_k, true); }
std::vector<double> dequantize_rhs(const ScaledOperand& b_k_n) { return dequantize_impl(b_k_n, false); }

std::vector<double> abs_product_sum(const ScaledOperand& a_m_k, const ScaledOperand& b_k_n, std::span<const float> c_m_n) {
  check_pair(a_m_k, b_k_n);
  const std::int64_t m = a_m_k.data.rows, k = a_m_k.data.cols, n = b_k_n.data.cols;
  using Mat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const std::vector<double> av = dequantize_lhs(a_m_k), bv = dequantize_rhs(b_k_n);
  const Mat s = Eigen::Map<const Mat>(av.data(), m, k).cwiseAbs() * Eigen::Map<const Mat>(bv.data(), k, n).cwiseAbs();
  // Eigen's own rounding (<= γ_k relative in double), rounded up.
  const double up = 1.0 + double(k + 2) * std::ldexp(1.0, -52);
  std::vector<double> out(std::size_t(m * n));
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j)
      out[std::size_t(i * n + j)] = s(i, j) * up + (c_m_n.empty() ? 0.0 : std::abs(double(c_m_n[std::size_t(i * n + j)])));
  return out;
}

double normwise_bound(const ErrorBound& b, double fro_a, double fro_b, double fro_c, std::int64_t elements) {
  return b.rel * (fro_a * fro_b + fro_c) + b.abs * std::sqrt(double(elements));
}

double sqnr_db(std::span<const double> ref, std::span<const double> x) {
  require_equal(std::int64_t(x.size()), std::int64_t(ref.size()), "sqnr_db: sizes");
  long double num = 0, den = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    num += (long double)ref[i] * ref[i];
    const long double d = (long double)ref[i] - x[i];
    den += d * d;
  }
  if (den == 0) return std::numeric_limits<double>::infinity();
  return double(20.0L * std::log10(std::sqrt(num) / std::sqrt(den)));
}

double calc_diff(std::span<const double> x, std::span<const double> y) {
  require_equal(std::int64_t(x.size()), std::int64_t(y.size()), "calc_diff: sizes");
  long double xy = 0, sq = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    xy += (long double)x[i] * y[i];
    sq += (long double)x[i] * x[i] + (long double)y[i] * y[i];
  }
  if (sq == 0) return 0.0;
  return double(1.0L - 2.0L * xy / sq);
}

std::int64_t max_ulp_distance(const GemmOutput& x, const GemmOutput& y) {
  require(x.dtype == y.dtype && x.size() == y.size(), "max_ulp_distance: outputs differ in dtype or shape");
  auto ordered = [&](double v) -> std::int64_t {
    std::int64_t bits;
    if (x.dtype == OutDtype::fp64) bits = std::bit_cast<std::int64_t>(v) & std::numeric_limits<std::int64_t>::max();
    else if (x.dtype == OutDtype::fp32) bits = std::bit_cast<std::uint32_t>(float(v)) & 0x7FFFFFFFu;
    else bits = (std::bit_cast<std::uint32_t>(float(v)) >> 16) & 0x7FFFu;
    return std::signbit(v) ? -bits : bits;
  };
  std::int64_t worst = 0;
  for (std::int64_t i = 0; i < x.size(); ++i) {
    const double a = x.at(i), b = y.at(i);
    if (std::isnan(a) || std::isnan(b)) {
      if (std::isnan(a) != std::isnan(b)) return std::numeric_limits<std::int64_t>::max();
      continue;
    }
    worst = std::max(worst, std::abs(ordered(a) - ordered(b)));
  }
  return worst;
}

}  // namespace octet
