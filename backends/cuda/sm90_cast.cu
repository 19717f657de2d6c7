// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// sm90_cast.cu — elementwise cast of fp32/fp64/bf16/fp16 to every target format on the GPU.
// Reference: octet::cast (emulator/src/cast.cpp); both run octet::encode_bits (cast.hpp).
// Peer:     PTX ISA cvt.rn.satfinite.{e4m3x2,e5m2x2}.{f32,f16x2,bf16x2}; CUDA cuda_fp8.h
//           __nv_cvt_{float2,halfraw2,bfloat16raw2}_to_fp8x2(..., __NV_SATFINITE, ...), which
//           the emulator reproduces as RNE + Overflow::SatFinite (Inf -> +-max) + NanPolicy.
// Run:      build/backends/octet_gpu_tests (checks both variants against the emulator),
//           build/backends/octet_gpu_bench (times them); scripts/gpu/run.sh does both.
// Variants: 1 = one thread per element calling octet::encode_bits: any source, target and
//               CastSpec; matches the emulator by construction.
//           2 = the hardware cvt, 16 elements per thread (16-byte loads and stores, grid-stride,
//               64-bit indices): fp32/bf16/fp16 -> e4m3fn/e5m2 under RNE + SatFinite +
//               Subnormals::Keep. The cvt decides every non-NaN input; a NaN input takes
//               octet::encode_bits (the NaN step), so that every NaN rule of CastSpec is served
//               and the result never depends on the cvt's own NaN code, which cast_cvt_raw
//               exposes for the test that records it (docs/gpu-notes.md).
// sm_90 has no bf16x2 -> f8x2 cvt (ptxas: "Unexpected instruction types specified for 'cvt'";
// cuda_fp8.h takes the same path): bf16 is widened to f32, which is exact, and converted as f32.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "cuda_cast.hpp"
#include "cuda_check.hpp"

namespace octet::cuda {
namespace {

constexpr int kBlockThreads = 256;
constexpr int kVecElems = 16;  // variant 2: codes per thread and iteration, one 16-byte store

// ----------------------------------------------------------------------------
// CPU code reference: octet::cast (emulator/src/cast.cpp). Sources as the kernels read them:
// the storage word of each source type and its encode_bits call (bf16 and fp16 are widened to
// fp32 exactly, as the emulator does).

template <SourceType S> struct Source;
template <> struct Source<SourceType::fp32> {
  using storage = std::uint32_t;
  static OCTET_HD std::uint32_t encode(const Format& f, const CastSpec& s, storage x, std::uint32_t r) {
    return encode_bits<Fp32Source>(f, s, x, r);
  }
};
template <> struct Source<SourceType::fp64> {
  using storage = std::uint64_t;
  static OCTET_HD std::uint32_t encode(const Format& f, const CastSpec& s, storage x, std::uint32_t r) {
    return encode_bits<Fp64Source>(f, s, x, r);
  }
};
template <> struct Source<SourceType::bf16> {
  using storage = std::uint16_t;
  static OCTET_HD std::uint32_t encode(const Format& f, const CastSpec& s, storage x, std::uint32_t r) {
    return encode_bits<Fp32Source>(f, s, bf16_to_fp32_bits(x), r);
  }
};
template <> struct Source<SourceType::fp16> {
  using storage = std::uint16_t;
  static OCTET_HD std::uint32_t encode(const Format& f, const CastSpec& s, storage x, std::uint32_t r) {
    return encode_bits<Fp32Source>(f, s, fp16_to_fp32_bits(x), r);
  }
};

// Code storage of a target: one byte up to 8 bits (fp4/fp6 unpacked), two for bf16/fp16.
template <FormatId F>
using code_t = std::conditional_t<F == FormatId::bf16 || F == FormatId::fp16, std::uint16_t, std::uint8_t>;

// ----------------------------------------------------------------------------
// GPU kernels

// Variant 1. in: n source words; rbits: n words or nullptr; out: n codes. The namespace-scope
// Format constants cannot be read at run time in device code, so the descriptor is folded
// into a local constant (and the compiler specialises encode_bits on it).
template <SourceType S, FormatId F>
__global__ void __launch_bounds__(kBlockThreads)
    cast_kernel1(const typename Source<S>::storage* __restrict__ in, std::size_t n, CastSpec spec,
                 const std::uint32_t* __restrict__ rbits, code_t<F>* __restrict__ out) {
  constexpr Format f = format_of(F);
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const std::uint32_t r = rbits != nullptr ? rbits[i] : 0u;
    out[i] = code_t<F>(Source<S>::encode(f, spec, in[i], r));
  }
}

// Variant 2. The x2 cvt forms: `cvt.rn.satfinite.e4m3x2.f32 d, a, b` puts cvt(a), the FIRST
// source, in the UPPER byte of d; the f16x2 form keeps the halves in place (low half -> low
// byte). So for elements (x0, x1) in memory order, a = x1 and b = x0.
template <FormatId F>
__device__ __forceinline__ std::uint32_t cvt_f32x2(std::uint32_t hi, std::uint32_t lo) {
  std::uint16_t d = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  if constexpr (F == FormatId::e4m3fn)
    asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(d) : "f"(__uint_as_float(hi)), "f"(__uint_as_float(lo)));
  else
    asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;" : "=h"(d) : "f"(__uint_as_float(hi)), "f"(__uint_as_float(lo)));
#else
  __trap();  // the launcher refuses devices below sm_89
#endif
  return d;
}

template <FormatId F>
__device__ __forceinline__ std::uint32_t cvt_f16x2(std::uint32_t pair) {
  std::uint16_t d = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  if constexpr (F == FormatId::e4m3fn)
    asm("cvt.rn.satfinite.e4m3x2.f16x2 %0, %1;" : "=h"(d) : "r"(pair));
  else
    asm("cvt.rn.satfinite.e5m2x2.f16x2 %0, %1;" : "=h"(d) : "r"(pair));
#else
  __trap();
#endif
  return d;
}

// NaN test of one source element given in the low bits of `x`.
template <SourceType S>
__device__ __forceinline__ bool is_nan(std::uint32_t x) {
  if constexpr (S == SourceType::fp32) return (x & 0x7FFFFFFFu) > 0x7F800000u;
  if constexpr (S == SourceType::fp16) return (x & 0x7FFFu) > 0x7C00u;
  return (x & 0x7FFFu) > 0x7F80u;  // bf16
}

// The NaN step: the emulator's code for a NaN input under `spec` (NanPolicy, and for e5m2 which
// NaN code), from the shared core. Out of line: NaN inputs are rare, and the 16 inlined copies
// would crowd the conversion loop.
template <SourceType S, FormatId F>
__device__ __noinline__ std::uint32_t nan_code(std::uint32_t x, CastSpec spec) {
  constexpr Format f = format_of(F);
  if constexpr (S == SourceType::fp32) return encode_bits<Fp32Source>(f, spec, x);
  else if constexpr (S == SourceType::bf16) return encode_bits<Fp32Source>(f, spec, bf16_to_fp32_bits(std::uint16_t(x)));
  else return encode_bits<Fp32Source>(f, spec, fp16_to_fp32_bits(std::uint16_t(x)));
}

// Two codes (x0 in the low byte) from two source elements, x0 and x1, each in the low bits of
// its word; the NaN step replaces the code of a NaN.
template <SourceType S, FormatId F, bool kNanStep>
__device__ __forceinline__ std::uint32_t convert_pair(std::uint32_t x0, std::uint32_t x1, const CastSpec& spec) {
  std::uint32_t d;
  if constexpr (S == SourceType::fp32) d = cvt_f32x2<F>(x1, x0);
  else if constexpr (S == SourceType::fp16) d = cvt_f16x2<F>((x1 << 16) | x0);
  else d = cvt_f32x2<F>(x1 << 16, x0 << 16);  // bf16: widen, exact
  if constexpr (kNanStep) {
    if (is_nan<S>(x0)) d = (d & 0xFF00u) | nan_code<S, F>(x0, spec);
    if (is_nan<S>(x1)) d = (d & 0x00FFu) | (nan_code<S, F>(x1, spec) << 8);
  }
  return d;
}

// in: n elements of S (fp32 words or 16-bit words), out: n codes. kVector: in and out are
// 16-byte aligned; each thread converts 16 elements per iteration (64 or 32 bytes in, 16 out),
// and the n % 16 tail goes one element per thread.
template <SourceType S, FormatId F, bool kNanStep, bool kVector>
__global__ void __launch_bounds__(kBlockThreads)
    cast_kernel2(const void* __restrict__ in_v, std::size_t n, CastSpec spec, std::uint8_t* __restrict__ out) {
  using storage = std::conditional_t<S == SourceType::fp32, std::uint32_t, std::uint16_t>;
  const storage* __restrict__ in = static_cast<const storage*>(in_v);
  const std::size_t tid = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  std::size_t tail_begin = 0;
  if constexpr (kVector) {
    constexpr int kLoads = kVecElems * int(sizeof(storage)) / 16;  // 4 for fp32, 2 for 16-bit
    const uint4* __restrict__ in4 = static_cast<const uint4*>(in_v);
    uint4* __restrict__ out4 = reinterpret_cast<uint4*>(out);
    const std::size_t chunks = n / kVecElems;
    for (std::size_t c = tid; c < chunks; c += stride) {
      std::uint32_t w[kLoads * 4];
#pragma unroll
      for (int k = 0; k < kLoads; ++k) {
        const uint4 v = in4[c * kLoads + k];
        w[4 * k + 0] = v.x; w[4 * k + 1] = v.y; w[4 * k + 2] = v.z; w[4 * k + 3] = v.w;
      }
      std::uint32_t o[4];
#pragma unroll
      for (int j = 0; j < 4; ++j) {  // output word j: elements 4j .. 4j+3
        std::uint32_t lo, hi;
        if constexpr (S == SourceType::fp32) {
          lo = convert_pair<S, F, kNanStep>(w[4 * j + 0], w[4 * j + 1], spec);
          hi = convert_pair<S, F, kNanStep>(w[4 * j + 2], w[4 * j + 3], spec);
        } else {
          lo = convert_pair<S, F, kNanStep>(w[2 * j] & 0xFFFFu, w[2 * j] >> 16, spec);
          hi = convert_pair<S, F, kNanStep>(w[2 * j + 1] & 0xFFFFu, w[2 * j + 1] >> 16, spec);
        }
        o[j] = lo | (hi << 16);
      }
      out4[c] = make_uint4(o[0], o[1], o[2], o[3]);
    }
    tail_begin = chunks * kVecElems;
  }
  for (std::size_t i = tail_begin + tid; i < n; i += stride)
    out[i] = std::uint8_t(convert_pair<S, F, kNanStep>(in[i], 0u, spec));
}

// ----------------------------------------------------------------------------
// kernel launcher

// Host code of a .cu file must not call format_of at run time either: nvcc compiles every
// __host__ __device__ function that a .cu file uses for the device too, and format_of reads
// the namespace-scope table all_formats, which device code cannot see ("identifier
// octet::all_formats is undefined in device code"). Host code reads the table directly.
const Format& descriptor(FormatId id) { return all_formats[std::size_t(id)]; }

bool same_format(const Format& a, const Format& b) {
  return a.id == b.id && a.exponent_bits == b.exponent_bits && a.mantissa_bits == b.mantissa_bits &&
         a.bias == b.bias && a.is_signed == b.is_signed && a.has_inf == b.has_inf && a.nan == b.nan &&
         a.has_zero == b.has_zero;
}

// The same argument rules and messages as octet::cast (emulator/src/cast.cpp).
void check_arguments(const Format& dst, const CastSpec& spec, const std::uint32_t* rbits) {
  if (dst.id == FormatId::fp32 || dst.id == FormatId::fp64)
    throw std::invalid_argument(std::string("cuda cast: target format ") + std::string(name(dst.id)) +
                                " is a source only; valid targets: e4m3fn e4m3fnuz e5m2 e5m2fnuz "
                                "e8m0fnu e2m3fn e3m2fn e2m1fn bf16 fp16");
  if (!same_format(dst, descriptor(dst.id)))
    throw std::invalid_argument("cuda cast: dst must be octet's descriptor of its format (format_of(id))");
  if (spec.rounding == Rounding::Stochastic && rbits == nullptr)
    throw std::invalid_argument("cuda cast: rounding sr needs one word of random bits per element (rbits)");
  if (spec.sr.bits > 32) throw std::invalid_argument("cuda cast: SrRule::bits must be in 0..32");
}

struct DeviceInfo {
  int sms = 0, major = 0, minor = 0;
};
DeviceInfo device_info() {
  int dev = 0;
  DeviceInfo d;
  OCTET_CUDA_CHECK(cudaGetDevice(&dev));
  OCTET_CUDA_CHECK(cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, dev));
  OCTET_CUDA_CHECK(cudaDeviceGetAttribute(&d.major, cudaDevAttrComputeCapabilityMajor, dev));
  OCTET_CUDA_CHECK(cudaDeviceGetAttribute(&d.minor, cudaDevAttrComputeCapabilityMinor, dev));
  return d;
}
bool has_fp8_cvt(const DeviceInfo& d) { return d.major * 10 + d.minor >= 89; }

// Grid-stride grid: enough blocks to fill every SM at the kernel's occupancy, no more than the
// work needs.
template <class Kernel>
unsigned grid_for(Kernel kernel, std::size_t work_items, const DeviceInfo& d) {
  int per_sm = 0;
  OCTET_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kBlockThreads, 0));
  const std::size_t full = std::size_t(std::max(per_sm, 1)) * std::size_t(d.sms);
  const std::size_t needed = (work_items + kBlockThreads - 1) / kBlockThreads;
  return unsigned(std::max<std::size_t>(1, std::min(full, needed)));
}

template <SourceType S, FormatId F>
void launch1(const void* in, std::size_t n, const CastSpec& spec, const std::uint32_t* rbits, void* out,
             cudaStream_t stream, const DeviceInfo& d) {
  auto* kernel = &cast_kernel1<S, F>;
  kernel<<<grid_for(kernel, n, d), kBlockThreads, 0, stream>>>(
      static_cast<const typename Source<S>::storage*>(in), n, spec,
      spec.rounding == Rounding::Stochastic ? rbits : nullptr, static_cast<code_t<F>*>(out));
  OCTET_CUDA_CHECK(cudaGetLastError());
}

template <SourceType S>
void launch1_format(FormatId id, const void* in, std::size_t n, const CastSpec& spec,
                    const std::uint32_t* rbits, void* out, cudaStream_t stream, const DeviceInfo& d) {
  switch (id) {
#define OCTET_CASE(F) case FormatId::F: return launch1<S, FormatId::F>(in, n, spec, rbits, out, stream, d);
    OCTET_CASE(e4m3fn) OCTET_CASE(e4m3fnuz) OCTET_CASE(e5m2) OCTET_CASE(e5m2fnuz) OCTET_CASE(e8m0fnu)
    OCTET_CASE(e2m3fn) OCTET_CASE(e3m2fn) OCTET_CASE(e2m1fn) OCTET_CASE(bf16) OCTET_CASE(fp16)
#undef OCTET_CASE
    default: break;  // fp32 / fp64: refused by check_arguments
  }
}

template <SourceType S, FormatId F, bool kNanStep>
void launch2(const void* in, std::size_t n, const CastSpec& spec, void* out, cudaStream_t stream, const DeviceInfo& d) {
  auto* out8 = static_cast<std::uint8_t*>(out);
  const bool aligned = (reinterpret_cast<std::uintptr_t>(in) % 16 == 0) &&
                       (reinterpret_cast<std::uintptr_t>(out) % 16 == 0);
  if (aligned) {
    auto* kernel = &cast_kernel2<S, F, kNanStep, true>;
    const std::size_t work = std::max<std::size_t>(n / kVecElems, n % kVecElems);
    kernel<<<grid_for(kernel, work, d), kBlockThreads, 0, stream>>>(in, n, spec, out8);
  } else {
    auto* kernel = &cast_kernel2<S, F, kNanStep, false>;
    kernel<<<grid_for(kernel, n, d), kBlockThreads, 0, stream>>>(in, n, spec, out8);
  }
  OCTET_CUDA_CHECK(cudaGetLastError());
}

template <bool kNanStep>
void launch2_any(SourceType src, FormatId dst, const void* in, std::size_t n, const CastSpec& spec, void* out,
                 cudaStream_t stream, const DeviceInfo& d) {
  const bool e4m3 = dst == FormatId::e4m3fn;
  switch (src) {
    case SourceType::fp32:
      return e4m3 ? launch2<SourceType::fp32, FormatId::e4m3fn, kNanStep>(in, n, spec, out, stream, d)
                  : launch2<SourceType::fp32, FormatId::e5m2, kNanStep>(in, n, spec, out, stream, d);
    case SourceType::bf16:
      return e4m3 ? launch2<SourceType::bf16, FormatId::e4m3fn, kNanStep>(in, n, spec, out, stream, d)
                  : launch2<SourceType::bf16, FormatId::e5m2, kNanStep>(in, n, spec, out, stream, d);
    case SourceType::fp16:
      return e4m3 ? launch2<SourceType::fp16, FormatId::e4m3fn, kNanStep>(in, n, spec, out, stream, d)
                  : launch2<SourceType::fp16, FormatId::e5m2, kNanStep>(in, n, spec, out, stream, d);
    case SourceType::fp64: break;  // refused by hardware_cvt_unsupported
  }
}

void require_fp8_cvt(const DeviceInfo& d) {
  if (!has_fp8_cvt(d))
    throw std::invalid_argument("cuda cast variant 2: the device is sm_" + std::to_string(d.major * 10 + d.minor) +
                                "; cvt to e4m3x2/e5m2x2 needs sm_89 or newer");
}

}  // namespace

std::string_view name(CastVariant v) {
  switch (v) {
    case CastVariant::automatic: return "auto";
    case CastVariant::generic: return "1";
    case CastVariant::hardware_cvt: return "2";
  }
  return "?";
}

std::optional<std::string_view> hardware_cvt_unsupported(SourceType src, const Format& dst, const CastSpec& spec) {
  if (src == SourceType::fp64) return "the source is fp64; the cvt reads fp32, bf16 (widened to fp32) or fp16";
  if (dst.id != FormatId::e4m3fn && dst.id != FormatId::e5m2) return "the target is not e4m3fn or e5m2";
  if (spec.rounding != Rounding::NearestEven) return "the cvt rounds to nearest even only";
  if (spec.overflow != Overflow::SatFinite) return "the cvt saturates (.satfinite: Inf and overflow -> +-max) only";
  if (spec.subnormals != Subnormals::Keep) return "the cvt keeps subnormal results";
  return std::nullopt;
}

void cast(SourceType src, const void* in, std::size_t n, const Format& dst, const CastSpec& spec, void* out,
          const std::uint32_t* rbits, CastVariant variant, cudaStream_t stream) {
  check_arguments(dst, spec, rbits);
  const std::optional<std::string_view> why_not = hardware_cvt_unsupported(src, dst, spec);
  if (variant == CastVariant::hardware_cvt && why_not)
    throw std::invalid_argument("cuda cast variant 2 does not apply: " + std::string(*why_not));
  if (n == 0) return;
  const DeviceInfo d = device_info();
  if (variant == CastVariant::hardware_cvt || (variant == CastVariant::automatic && !why_not && has_fp8_cvt(d))) {
    require_fp8_cvt(d);
    return launch2_any<true>(src, dst.id, in, n, spec, out, stream, d);
  }
  switch (src) {
    case SourceType::fp32: return launch1_format<SourceType::fp32>(dst.id, in, n, spec, rbits, out, stream, d);
    case SourceType::fp64: return launch1_format<SourceType::fp64>(dst.id, in, n, spec, rbits, out, stream, d);
    case SourceType::bf16: return launch1_format<SourceType::bf16>(dst.id, in, n, spec, rbits, out, stream, d);
    case SourceType::fp16: return launch1_format<SourceType::fp16>(dst.id, in, n, spec, rbits, out, stream, d);
  }
}

void cast_cvt_raw(SourceType src, const void* in, std::size_t n, const Format& dst, void* out, cudaStream_t stream) {
  const CastSpec rne_satfinite{};  // NearestEven, SatFinite, Subnormals::Keep
  if (const auto why_not = hardware_cvt_unsupported(src, dst, rne_satfinite))
    throw std::invalid_argument("cuda cast_cvt_raw: " + std::string(*why_not));
  if (n == 0) return;
  const DeviceInfo d = device_info();
  require_fp8_cvt(d);
  launch2_any<false>(src, dst.id, in, n, rne_satfinite, out, stream, d);
}

}  // namespace octet::cuda
