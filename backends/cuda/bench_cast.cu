// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// bench_cast.cu — times the CUDA cast variants (sm90_cast.cu) against the device's copy
// bandwidth.
// Run:   build/backends/octet_gpu_bench [n] [reps]   (default n = 2^28 = 256M elements, 50 reps)
// Cases: fp32 -> e4m3fn and bf16 -> e4m3fn, RNE + SatFinite + NaN canonical (cuda_satfinite),
//        variant 1 (encode_bits per thread), variant 2 (cvt, with the NaN step) and 2raw (cvt
//        alone, for the NaN step's cost); a device-to-device cudaMemcpy of the fp32 input.
// Napkin math: a cast reads n * sizeof(src) bytes and writes n bytes, so at the copy bandwidth
// B (read + write bytes per second) its floor is (sizeof(src) + 1) * n / B. On an H100 (about
// 3.0 TB/s copy): 256M fp32 -> e4m3fn moves 1.34 GB, about 0.45 ms.
// The time is the median of `reps` launches, each between two CUDA events, after 5 warm-ups
// (bench::median_ms, bench_harness.hpp).
// Inputs are random values around the e4m3fn range (never zeros); before timing, both
// variants' outputs are compared byte for byte.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_harness.hpp"
#include "cuda_cast.hpp"
#include "cuda_check.hpp"

namespace {

using octet::SourceType;
using octet::cuda::CastVariant;

// ----------------------------------------------------------------------------
// inputs and the byte comparison

__device__ std::uint32_t mix(std::uint64_t i) {
  std::uint64_t z = (i + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return std::uint32_t((z ^ (z >> 31)) >> 32);
}

// fp32 with exponents 2^-12 .. 2^11 (subnormal e4m3fn results up to overflow), random sign and
// mantissa; the bf16 input is its top half.
__global__ void fill_kernel(std::uint32_t* f32, std::uint16_t* bf16, std::size_t n) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const std::uint32_t r = mix(i);
    const std::uint32_t x = (r & 0x807FFFFFu) | ((127u - 12u + (r >> 23) % 24u) << 23);
    f32[i] = x;
    bf16[i] = std::uint16_t(x >> 16);
  }
}

__global__ void count_diff_kernel(const std::uint8_t* a, const std::uint8_t* b, std::size_t n,
                                  unsigned long long* count) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  unsigned long long local = 0;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) local += a[i] != b[i];
  if (local != 0) atomicAdd(count, local);
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 0) : std::size_t(1) << 28;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 50;
  try {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
      std::printf("octet_gpu_bench: no CUDA device\nDisposition: Skipped\n");
      return 0;
    }
    cudaDeviceProp p{};
    OCTET_CUDA_CHECK(cudaGetDeviceProperties(&p, 0));
    std::printf("octet_gpu_bench: device=\"%s\" sm_%d%d sms=%d n=%zu reps=%d (median of CUDA-event times)\n", p.name,
                p.major, p.minor, p.multiProcessorCount, n, reps);

    std::uint32_t* f32 = nullptr;
    std::uint16_t* bf16 = nullptr;
    std::uint8_t *out1 = nullptr, *out2 = nullptr, *copy = nullptr;
    unsigned long long* diff = nullptr;
    OCTET_CUDA_CHECK(cudaMalloc(&f32, n * 4));
    OCTET_CUDA_CHECK(cudaMalloc(&bf16, n * 2));
    OCTET_CUDA_CHECK(cudaMalloc(&out1, n));
    OCTET_CUDA_CHECK(cudaMalloc(&out2, n));
    OCTET_CUDA_CHECK(cudaMalloc(&copy, n * 4));
    OCTET_CUDA_CHECK(cudaMalloc(&diff, sizeof(unsigned long long)));
    fill_kernel<<<p.multiProcessorCount * 16, 256>>>(f32, bf16, n);
    OCTET_CUDA_CHECK(cudaGetLastError());

    octet::CastSpec spec;  // RNE, SatFinite
    spec.nan = octet::NanPolicy::Canonical;
    const octet::Format& dst = octet::all_formats[std::size_t(octet::FormatId::e4m3fn)];

    // Validate: variant 1 == variant 2 on the benchmark inputs.
    bool ok = true;
    for (SourceType src : {SourceType::fp32, SourceType::bf16}) {
      const void* in = src == SourceType::fp32 ? static_cast<const void*>(f32) : static_cast<const void*>(bf16);
      OCTET_CUDA_CHECK(cudaMemset(out1, 0xA5, n));
      OCTET_CUDA_CHECK(cudaMemset(out2, 0x5A, n));
      octet::cuda::cast(src, in, n, dst, spec, out1, nullptr, CastVariant::generic);
      octet::cuda::cast(src, in, n, dst, spec, out2, nullptr, CastVariant::hardware_cvt);
      OCTET_CUDA_CHECK(cudaMemset(diff, 0, sizeof(unsigned long long)));
      count_diff_kernel<<<p.multiProcessorCount * 16, 256>>>(out1, out2, n, diff);
      OCTET_CUDA_CHECK(cudaGetLastError());
      unsigned long long d = 0;
      OCTET_CUDA_CHECK(cudaMemcpy(&d, diff, sizeof d, cudaMemcpyDeviceToHost));
      if (d != 0) {
        std::printf("validation: %s -> e4m3fn: variant 1 and 2 differ in %llu bytes\n",
                    std::string(octet::name(src)).c_str(), d);
        ok = false;
      }
    }
    if (ok) std::printf("All results match. Starting benchmarks.\n");

    const double copy_ms = octet::cuda::bench::median_ms([&] { OCTET_CUDA_CHECK(cudaMemcpyAsync(copy, f32, n * 4, cudaMemcpyDeviceToDevice)); }, reps);
    const double copy_gbs = 2.0 * double(n) * 4 / (copy_ms * 1e-3) * 1e-9;

    std::printf("%-8s %-5s %-7s %-7s %10s %9s %7s  %s\n", "op", "src", "dst", "variant", "us", "GB/s", "%copy", "bytes");
    std::printf("%-8s %-5s %-7s %-7s %10.1f %9.1f %6.1f%%  read %zu + write %zu\n", "copy", "fp32", "fp32", "-",
                copy_ms * 1e3, copy_gbs, 100.0, n * 4, n * 4);
    struct Case { SourceType src; const char* variant; };
    for (Case c : {Case{SourceType::fp32, "1"}, Case{SourceType::fp32, "2"}, Case{SourceType::fp32, "2raw"},
                   Case{SourceType::bf16, "1"}, Case{SourceType::bf16, "2"}, Case{SourceType::bf16, "2raw"}}) {
      const void* in = c.src == SourceType::fp32 ? static_cast<const void*>(f32) : static_cast<const void*>(bf16);
      const std::string v = c.variant;
      const double ms = octet::cuda::bench::median_ms(
          [&] {
            if (v == "2raw") octet::cuda::cast_cvt_raw(c.src, in, n, dst, out1);
            else octet::cuda::cast(c.src, in, n, dst, spec, out1, nullptr, v == "1" ? CastVariant::generic : CastVariant::hardware_cvt);
          },
          reps);
      const std::size_t bytes = n * octet::size_of(c.src) + n;
      const double gbs = double(bytes) / (ms * 1e-3) * 1e-9;
      std::printf("%-8s %-5s %-7s %-7s %10.1f %9.1f %6.1f%%  read %zu + write %zu\n", "cast",
                  std::string(octet::name(c.src)).c_str(), "e4m3fn", c.variant, ms * 1e3, gbs, 100.0 * gbs / copy_gbs,
                  n * octet::size_of(c.src), n);
    }
    OCTET_CUDA_CHECK(cudaFree(f32));
    OCTET_CUDA_CHECK(cudaFree(bf16));
    OCTET_CUDA_CHECK(cudaFree(out1));
    OCTET_CUDA_CHECK(cudaFree(out2));
    OCTET_CUDA_CHECK(cudaFree(copy));
    OCTET_CUDA_CHECK(cudaFree(diff));
    std::printf("Disposition: %s\n", ok ? "Passed" : "Failed");
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "octet_gpu_bench: %s\nDisposition: Failed\n", e.what());
    return 1;
  }
}
