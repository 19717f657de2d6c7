// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// swiglu_quant.cpp — family 7: fused SwiGLU + quantisation (reference/kernels.md §9), a bit-exact
// CPU reference for
//   TransformerEngine  transformer_engine/common/cast/mxfp8/gated_mxfp8.cuh::quantize_gated_mxfp8_kernel
//                      (forward: ActOP = util/math.h::silu; backward: the silu/dsilu branch with
//                      `sigmoidf`), checked by tests/cpp/operator/test_cast_mxfp8_gated_swiglu.cu
//                      -> swiglu_quantize_forward / swiglu_quantize_backward with recipe te_mxfp8
//   the same elementwise step then a 1x128 rowwise quantiser (TE Float8BlockScaling rowwise,
//   COMPACT scale layout [M, N/128])  -> the same kernels with recipe te_blockwise
// Shapes, the order of operations and the transcendental policy: swiglu_quant.hpp.
//
// Structure (the steps of the device kernel):
//   1. elementwise: y (M, N) in the input dtype, row-major; OpenMP over rows;
//   2. rowwise quantisation of y by the existing quantisers: mx_quantize_dim0 (blocks of 32,
//      e8m0 recipes; a second pass) or the 1x128 blocks of fp8_blockwise_act_quant_lhs (fp32-scale
//      recipes; fused into pass 1: each row is quantised right after it is computed, scales
//      written row-major).
// Every byte is a function of its row alone, so the output does not depend on the thread count.
#include "octet/kernels/swiglu_quant.hpp"

#include <array>
#include <bit>
#include <string>
#include <type_traits>

#include "octet/cast.hpp"
#include "octet/kernels/fp8_blockwise.hpp"
#include "octet/kernels/mx_quantize.hpp"
#include "fp8_quant_detail.hpp"

namespace octet {
namespace {

// fp32 -> bf16: RNE, overflow to Inf, as `static_cast<__nv_bfloat16>(float)` (cvt.rn.bf16.f32).
// Every NaN becomes the canonical NaN: bf16 0x7FFF, fp32 0x7FFFFFFF, what fp32 arithmetic and the
// conversion produce on NVIDIA GPUs (unverified on hardware). Canonicalising also keeps y
// independent of the host's NaN sign and payload propagation (x86 yields 0xFFC00000 for 0·Inf, and
// of two NaN operands C++ leaves the one returned to the compiler's operand order).
constexpr CastSpec kBf16Round{.rounding = Rounding::NearestEven, .overflow = Overflow::Ieee,
                              .nan = NanPolicy::Canonical, .ieee_nan = IeeeNanCode::AllOnes};
constexpr std::uint32_t kFp32CanonicalNan = 0x7FFFFFFFu;

inline float load(float v) { return v; }
inline float load(std::uint16_t b) { return bf16_to_float(b); }

// encode(bf16_format, kBf16Round, ·) through its memoised form (cast.hpp Fp32Encoder: same codes).
const Fp32Encoder& bf16_encoder() {
  static const Fp32Encoder encoder(bf16_format, kBf16Round);
  return encoder;
}

template <class In>
inline In round_to_input(const Fp32Encoder& to_bf16, float v) {
  if constexpr (std::is_same_v<In, float>) return v != v ? std::bit_cast<float>(kFp32CanonicalNan) : v;
  else return std::uint16_t(to_bf16(v));
}

std::string str(std::string_view s) { return std::string(s); }

template <class T>
void require_view(const View2D<T>& v, const std::string& kernel, const char* what) {
  require(v.rows >= 0 && v.cols >= 0, kernel + ": " + what + " has a negative shape (" + std::to_string(v.rows) +
                                          ", " + std::to_string(v.cols) + ")");
  require(v.data != nullptr || v.rows * v.cols == 0, kernel + ": " + what + ".data is null");
}

std::int64_t block_size(const Recipe& r, const std::string& kernel) {
  const Format& f = format_of(element_format(r));
  require(f.bits() == 8, kernel + ": recipe '" + str(name(r)) + "' has " + std::to_string(f.bits()) +
                             "-bit elements; the fused kernels write one byte per element");
  switch (storage(r)) {
    case ScaleStorage::E8m0: return kMxBlockSize;
    case ScaleStorage::DecodeFp32:
    case ScaleStorage::EncodeFp32: return kFp8BlockSize;
    default: break;
  }
  throw std::invalid_argument(kernel + ": recipe '" + str(name(r)) + "' stores " + str(name(storage(r))) +
                              " scales; the fused kernels take e8m0 (1x32) or fp32 (1x128) recipes");
}

// x (M, 2H): returns H after the shape checks.
template <class In>
std::int64_t check_gated_input(View2D<const In> x, const Recipe& r, const std::string& kernel) {
  require_view(x, kernel, "x_m_2h");
  require(x.cols % 2 == 0, kernel + ": x_m_2h.cols (2H) = " + std::to_string(x.cols) +
                               " is odd; the input is the [a | g] halves of width H each");
  const std::int64_t H = x.cols / 2, B = block_size(r, kernel);
  require(H % B == 0, kernel + ": H = x_m_2h.cols / 2 = " + std::to_string(H) + " is not a multiple of the block size " +
                          std::to_string(B) + " of recipe '" + str(name(r)) + "'");
  return H;
}

void check_sigmoid(View2D<const float> s, std::int64_t M, std::int64_t H, const std::string& kernel) {
  require_view(s, kernel, "sigmoid_m_h");
  require_equal(s.rows, M, kernel + ": sigmoid_m_h.rows (M)");
  require_equal(s.cols, H, kernel + ": sigmoid_m_h.cols (H)");
}

// ---------------------------------------------------------------------------------------------
// Sigmoid sources: s for element (m, j) whose activation input is a (raw bits for bf16).

// The plugged expf, per element (fp32 inputs). expf_octet is called directly (inlined).
struct SigmoidPerElement {
  ExpfFn expf;
  float operator()(std::int64_t, std::int64_t, float a) const {
    return swiglu_sigmoid_from_exp(expf == &expf_octet ? expf_octet(-a) : expf(-a));
  }
};

// bf16 inputs: the plugged expf once per bf16 bit pattern.
class SigmoidTable {
 public:
  explicit SigmoidTable(ExpfFn expf) : s_(std::size_t(1) << 16) {
#pragma omp parallel for schedule(static)
    for (std::int32_t b = 0; b < (1 << 16); ++b) {
      const float a = bf16_to_float(std::uint16_t(b));
      s_[std::size_t(b)] = swiglu_sigmoid_from_exp(expf == &expf_octet ? expf_octet(-a) : expf(-a));
    }
  }
  float at(std::uint16_t bits) const { return s_[bits]; }

 private:
  std::vector<float> s_;
};

struct SigmoidRecorded {
  View2D<const float> s;
  float operator()(std::int64_t m, std::int64_t j, float) const { return s(m, j); }
};

// ---------------------------------------------------------------------------------------------
// The 1x128 quantisation of one finished row of y (fp8_blockwise_act_quant_lhs's blocks), done in
// pass 1 while the row is still in cache: one pass over y instead of two, and no scale transpose.
// Inactive (recipe null) for the e8m0 recipes, which finish_output quantises afterwards.
struct RowQuantizer {
  const Recipe* r = nullptr;
  std::uint8_t* data = nullptr;
  std::uint32_t* scales = nullptr;
  std::int64_t N = 0, NB = 0;
  template <class In>
  void operator()(std::int64_t m, const In* row) const {
    if (r != nullptr)
      fp8_detail::quantize_runs(*r, row, NB, kFp8BlockSize, kFp8BlockSize, 1, data + m * N, kFp8BlockSize, 1,
                                scales + m * NB, 1);
  }
};

// Shapes the output and, for the 1x128 recipes, allocates its codes and scales for pass 1.
template <class In>
SwigluQuantized<In> start_output(std::int64_t M, std::int64_t N, const Recipe& r, const std::string& kernel,
                                 RowQuantizer& rq) {
  SwigluQuantized<In> out;
  out.rows = M, out.cols = N, out.block = block_size(r, kernel);
  if (out.block == kFp8BlockSize && M * N != 0) {
    fp8_detail::begin_call();
    out.data.resize(std::size_t(M * N));
    out.scales.resize(std::size_t(M * (N / kFp8BlockSize)));
    rq = RowQuantizer{&r, out.data.data(), out.scales.data(), N, N / kFp8BlockSize};
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Pass 1: the elementwise values, rounded to the input dtype. Sig(m, j, a) -> s; for bf16 inputs
// with a table, SigBits(bits) -> s.

template <class In, class Sig>
std::vector<In> forward_values(View2D<const In> x, std::int64_t H, std::span<const float> probs, const Sig& sig,
                               const RowQuantizer& rq = {}) {
  const std::int64_t M = x.rows;
  const bool has_p = !probs.empty();
  const Fp32Encoder& enc = bf16_encoder();
  std::vector<In> y(std::size_t(M * H));
#pragma omp parallel for schedule(dynamic, 16)  // rows of equal cost, but the 2 cores are shared
  for (std::int64_t m = 0; m < M; ++m) {
    const In* xa = x.data + m * x.row_stride;
    const In* xg = xa + H * x.col_stride;
    const float p = has_p ? probs[std::size_t(m)] : 1.0f;
    In* out = y.data() + m * H;
    for (std::int64_t j = 0; j < H; ++j) {
      const In a_raw = xa[j * x.col_stride];
      const float a = load(a_raw), g = load(xg[j * x.col_stride]);
      float s;
      if constexpr (std::is_same_v<Sig, SigmoidTable>) s = sig.at(a_raw);
      else s = sig(m, j, a);
      out[j] = round_to_input<In>(enc, swiglu_forward_value(a, g, s, has_p, p));
    }
    rq(m, static_cast<const In*>(out));
  }
  return y;
}

template <class In, class Sig>
std::vector<In> backward_values(View2D<const In> grad, View2D<const In> x, std::int64_t H, bool dact_fma,
                                const Sig& sig, const RowQuantizer& rq = {}) {
  const std::int64_t M = x.rows, N = 2 * H;
  const Fp32Encoder& enc = bf16_encoder();
  std::vector<In> y(std::size_t(M * N));
#pragma omp parallel for schedule(dynamic, 16)  // rows of equal cost, but the 2 cores are shared
  for (std::int64_t m = 0; m < M; ++m) {
    const In* xa = x.data + m * x.row_stride;
    const In* xg = xa + H * x.col_stride;
    const In* gr = grad.data + m * grad.row_stride;
    In* out_act = y.data() + m * N;
    In* out_gate = out_act + H;
    for (std::int64_t j = 0; j < H; ++j) {
      const In a_raw = xa[j * x.col_stride];
      const float a = load(a_raw), g = load(xg[j * x.col_stride]), dy = load(gr[j * grad.col_stride]);
      float s;
      if constexpr (std::is_same_v<Sig, SigmoidTable>) s = sig.at(a_raw);
      else s = sig(m, j, a);
      const SwigluGrads d = swiglu_backward_values(a, g, dy, s, dact_fma);
      out_act[j] = round_to_input<In>(enc, d.d_act);
      out_gate[j] = round_to_input<In>(enc, d.d_gate);
    }
    rq(m, static_cast<const In*>(out_act));
  }
  return y;
}

// ---------------------------------------------------------------------------------------------
// Pass 2 (e8m0 recipes): rowwise quantisation of y (M, N) row-major by mx_quantize_dim0.

template <class In>
SwigluQuantized<In> finish_output(SwigluQuantized<In> out, std::vector<In> y, const Recipe& r) {
  if (out.block == kMxBlockSize && out.rows * out.cols != 0) {
    MxOutput2D q = mx_quantize_dim0(r, View2D<const In>::row_major(y.data(), out.rows, out.cols));
    out.data = std::move(q.data);
    out.scales.assign(q.scale.begin(), q.scale.end());
  }
  out.y = std::move(y);
  return out;
}

template <class In>
SwigluQuantized<In> forward_default(View2D<const In> x, const Recipe& r, std::span<const float> probs,
                                    SwigluOptions opt) {
  const std::string kernel = "swiglu_quantize_forward";
  const std::int64_t H = check_gated_input(x, r, kernel);
  require(probs.empty() || std::int64_t(probs.size()) == x.rows,
          kernel + ": probs_m has " + std::to_string(probs.size()) + " values; expected 0 or M = " + std::to_string(x.rows));
  require(opt.expf != nullptr, kernel + ": opt.expf is null");
  RowQuantizer rq;
  SwigluQuantized<In> out = start_output<In>(x.rows, H, r, kernel, rq);
  std::vector<In> y;
  if constexpr (std::is_same_v<In, std::uint16_t>) y = forward_values(x, H, probs, SigmoidTable(opt.expf), rq);
  else y = forward_values(x, H, probs, SigmoidPerElement{opt.expf}, rq);
  return finish_output(std::move(out), std::move(y), r);
}

template <class In>
SwigluQuantized<In> forward_recorded(View2D<const In> x, View2D<const float> s, const Recipe& r,
                                     std::span<const float> probs) {
  const std::string kernel = "swiglu_quantize_forward";
  const std::int64_t H = check_gated_input(x, r, kernel);
  check_sigmoid(s, x.rows, H, kernel);
  require(probs.empty() || std::int64_t(probs.size()) == x.rows,
          kernel + ": probs_m has " + std::to_string(probs.size()) + " values; expected 0 or M = " + std::to_string(x.rows));
  RowQuantizer rq;
  SwigluQuantized<In> out = start_output<In>(x.rows, H, r, kernel, rq);
  return finish_output(std::move(out), forward_values(x, H, probs, SigmoidRecorded{s}, rq), r);
}

template <class In>
std::int64_t check_backward(View2D<const In> grad, View2D<const In> x, const Recipe& r, const std::string& kernel) {
  const std::int64_t H = check_gated_input(x, r, kernel);
  require_view(grad, kernel, "grad_m_h");
  require_equal(grad.rows, x.rows, kernel + ": grad_m_h.rows (M)");
  require_equal(grad.cols, H, kernel + ": grad_m_h.cols (H = x_m_2h.cols / 2)");
  return H;
}

template <class In>
SwigluQuantized<In> backward_default(View2D<const In> grad, View2D<const In> x, const Recipe& r, SwigluOptions opt) {
  const std::string kernel = "swiglu_quantize_backward";
  const std::int64_t H = check_backward(grad, x, r, kernel);
  require(opt.expf != nullptr, kernel + ": opt.expf is null");
  RowQuantizer rq;
  SwigluQuantized<In> out = start_output<In>(x.rows, 2 * H, r, kernel, rq);
  std::vector<In> y;
  if constexpr (std::is_same_v<In, std::uint16_t>)
    y = backward_values(grad, x, H, opt.dact_fma, SigmoidTable(opt.expf), rq);
  else y = backward_values(grad, x, H, opt.dact_fma, SigmoidPerElement{opt.expf}, rq);
  return finish_output(std::move(out), std::move(y), r);
}

template <class In>
SwigluQuantized<In> backward_recorded(View2D<const In> grad, View2D<const In> x, View2D<const float> s,
                                      const Recipe& r, bool dact_fma) {
  const std::string kernel = "swiglu_quantize_backward";
  const std::int64_t H = check_backward(grad, x, r, kernel);
  check_sigmoid(s, x.rows, H, kernel);
  RowQuantizer rq;
  SwigluQuantized<In> out = start_output<In>(x.rows, 2 * H, r, kernel, rq);
  return finish_output(std::move(out), backward_values(grad, x, H, dact_fma, SigmoidRecorded{s}, rq), r);
}

}  // namespace

std::int64_t swiglu_block_size(const Recipe& r) { return block_size(r, "swiglu_block_size"); }

template <class In>
SwigluQuantized<In> swiglu_quantize_forward(View2D<const In> x, const Recipe& r, std::span<const float> probs,
                                            SwigluOptions opt) {
  return forward_default(x, r, probs, opt);
}
template <class In>
SwigluQuantized<In> swiglu_quantize_forward(View2D<const In> x, View2D<const float> s, const Recipe& r,
                                            std::span<const float> probs) {
  return forward_recorded(x, s, r, probs);
}
template <class In>
SwigluQuantized<In> swiglu_quantize_backward(View2D<const In> grad, View2D<const In> x, const Recipe& r,
                                             SwigluOptions opt) {
  return backward_default(grad, x, r, opt);
}
template <class In>
SwigluQuantized<In> swiglu_quantize_backward(View2D<const In> grad, View2D<const In> x, View2D<const float> s,
                                             const Recipe& r, bool dact_fma) {
  return backward_recorded(grad, x, s, r, dact_fma);
}

template <class In>
std::vector<float> swiglu_sigmoid_values(View2D<const In> x, ExpfFn expf) {
  const std::string kernel = "swiglu_sigmoid_values";
  require_view(x, kernel, "x_m_2h");
  require(x.cols % 2 == 0, kernel + ": x_m_2h.cols (2H) = " + std::to_string(x.cols) + " is odd");
  require(expf != nullptr, kernel + ": expf is null");
  const std::int64_t M = x.rows, H = x.cols / 2;
  std::vector<float> s(std::size_t(M * H));
  const SigmoidPerElement sig{expf};
#pragma omp parallel for schedule(static)
  for (std::int64_t m = 0; m < M; ++m)
    for (std::int64_t j = 0; j < H; ++j) s[std::size_t(m * H + j)] = sig(m, j, load(x(m, j)));
  return s;
}

#define OCTET_INSTANTIATE(In)                                                                                        \
  template SwigluQuantized<In> swiglu_quantize_forward<In>(View2D<const In>, const Recipe&, std::span<const float>,  \
                                                           SwigluOptions);                                           \
  template SwigluQuantized<In> swiglu_quantize_forward<In>(View2D<const In>, View2D<const float>, const Recipe&,     \
                                                           std::span<const float>);                                  \
  template SwigluQuantized<In> swiglu_quantize_backward<In>(View2D<const In>, View2D<const In>, const Recipe&,       \
                                                            SwigluOptions);                                          \
  template SwigluQuantized<In> swiglu_quantize_backward<In>(View2D<const In>, View2D<const In>, View2D<const float>, \
                                                            const Recipe&, bool);                                    \
  template std::vector<float> swiglu_sigmoid_values<In>(View2D<const In>, ExpfFn);
OCTET_INSTANTIATE(float)
OCTET_INSTANTIATE(std::uint16_t)
#undef OCTET_INSTANTIATE

}  // namespace octet
