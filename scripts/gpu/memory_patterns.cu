// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// memory_patterns.cu — what the access pattern of a column quantiser costs on this GPU, without
// its arithmetic. A (16640, 5120) bf16 input is read in items of (rows, T columns); "codes" are
// the high bytes of the inputs, written column-major (8 rows of a column per 8-byte store) as
// column_stream_kernel writes them, and checked against the host. Three tables:
//   reads   per-item row pieces of 2T bytes, lanes down the columns (with L = 2048/T row lanes a
//           warp instruction reads L rows x 512/L bytes) or along the rows (whole row pieces),
//           against a linear read of the same bytes;
//   writes  column segments of 128, 64 and 32 bytes per warp instruction, against a linear write;
//   both    the skeleton of the stream kernel: cp.async into per-thread slots (each thread copies
//           what it reads, no barriers) against cooperative copies along the rows (swizzled slots,
//           one barrier per item), against cudaMemcpy.
// The finding it records (docs/gpu-notes.md, 2026-11-25 third): a warp instruction must cover
// whole 128-byte lines; reading 16 rows x 32 bytes per instruction costs a fifth of the bandwidth.
//   build: nvcc -O3 -std=c++17 -arch=sm_90a -o memory_patterns scripts/gpu/memory_patterns.cu
//   (scripts/gpu/run.sh builds and runs it as the `patterns` step)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                                       \
  do {                                                                                 \
    const cudaError_t e_ = (x);                                                        \
    if (e_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                                    \
    }                                                                                  \
  } while (0)

namespace {

constexpr int kThreads = 256;
constexpr std::int64_t kRows = 16640, kCols = 5120;

__device__ __forceinline__ void cp_async_16(void* dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(unsigned(__cvta_generic_to_shared(dst))), "l"(src)
               : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

// The high bytes of 8 bf16 (one row of an 8x8 block).
__device__ __forceinline__ uint2 high_bytes(uint4 t) {
  return make_uint2(__byte_perm(t.x, t.y, 0x7531), __byte_perm(t.z, t.w, 0x7531));
}

// 4x4 bytes: byte j of a0..a3 into bytes 0..3 of c[j].
__device__ __forceinline__ void transpose_4x4(unsigned a0, unsigned a1, unsigned a2, unsigned a3, unsigned (&c)[4]) {
  const unsigned t0 = __byte_perm(a0, a1, 0x5140), t1 = __byte_perm(a0, a1, 0x7362);
  const unsigned t2 = __byte_perm(a2, a3, 0x5140), t3 = __byte_perm(a2, a3, 0x7362);
  c[0] = __byte_perm(t0, t2, 0x5410);
  c[1] = __byte_perm(t0, t2, 0x7632);
  c[2] = __byte_perm(t1, t3, 0x5410);
  c[3] = __byte_perm(t1, t3, 0x7632);
}

// An 8x8 block of codes (row i in codes[i]) stored column-major: 8 rows of a column per store.
__device__ __forceinline__ void store_block(std::uint8_t* q, std::int64_t row_b, std::int64_t c0,
                                            const uint2 (&codes)[8]) {
  unsigned lo[4], hi[4];
  transpose_4x4(codes[0].x, codes[1].x, codes[2].x, codes[3].x, lo);
  transpose_4x4(codes[4].x, codes[5].x, codes[6].x, codes[7].x, hi);
  for (int j = 0; j < 4; ++j) *reinterpret_cast<uint2*>(q + (c0 + j) * kRows + row_b) = make_uint2(lo[j], hi[j]);
  transpose_4x4(codes[0].y, codes[1].y, codes[2].y, codes[3].y, lo);
  transpose_4x4(codes[4].y, codes[5].y, codes[6].y, codes[7].y, hi);
  for (int j = 0; j < 4; ++j) *reinterpret_cast<uint2*>(q + (c0 + 4 + j) * kRows + row_b) = make_uint2(lo[j], hi[j]);
}

// Items of 8 * L rows x T columns, L = 2048 / T row lanes; thread (cx = t / L, rl = t % L) owns the
// 8-row block rl of chunk cx (the stream kernel's arithmetic mapping). kMode: 0 read + write,
// 1 read only, 2 write only. Plain 16-byte loads.
template <int T, int kMode>
__global__ void __launch_bounds__(kThreads, 4) column_lanes_kernel(const std::uint16_t* __restrict__ x,
                                                                   std::uint8_t* __restrict__ q, unsigned* sink) {
  constexpr int L = 2048 / T, kItemRows = 8 * L, kTiles = int(kCols / T);
  constexpr int kItems = int(kRows / kItemRows) * kTiles;
  const int cx = int(threadIdx.x) / L, rl = int(threadIdx.x) % L;
  unsigned acc = 0;
  for (int item = int(blockIdx.x); item < kItems; item += int(gridDim.x)) {
    const std::int64_t row_b = std::int64_t(item / kTiles) * kItemRows + rl * 8, c0 = std::int64_t(item % kTiles) * T + cx * 8;
    uint2 codes[8];
    if constexpr (kMode != 2) {
      const uint4* src = reinterpret_cast<const uint4*>(x + row_b * kCols + c0);
      uint4 r[8];
      for (int i = 0; i < 8; ++i) r[i] = __ldg(src + i * (kCols / 8));
      for (int i = 0; i < 8; ++i) codes[i] = high_bytes(r[i]);
    } else {
      for (int i = 0; i < 8; ++i) codes[i] = make_uint2(unsigned(row_b + i), unsigned(c0));
    }
    if constexpr (kMode == 1) {
      for (int i = 0; i < 8; ++i) acc ^= codes[i].x + codes[i].y;
    } else {
      store_block(q, row_b, c0, codes);
    }
  }
  if (kMode == 1 && acc == 0x9E3779B9u) *sink = acc;  // keeps the loads
}

// Reads only, lanes along the rows: thread (row t / (T/8), chunk t % (T/8)), 128-row items.
template <int T>
__global__ void __launch_bounds__(kThreads, 4) row_lanes_read_kernel(const std::uint16_t* __restrict__ x, unsigned* sink) {
  constexpr int C = T / 8, kRowStep = kThreads / C, kTiles = int(kCols / T), kItems = int(kRows / 128) * kTiles;
  unsigned acc = 0;
  for (int item = int(blockIdx.x); item < kItems; item += int(gridDim.x)) {
    const uint4* src = reinterpret_cast<const uint4*>(x + (std::int64_t(item / kTiles) * 128 + threadIdx.x / C) * kCols +
                                                      std::int64_t(item % kTiles) * T + (threadIdx.x % C) * 8);
    uint4 t[128 / kRowStep];
    for (int i = 0; i < 128 / kRowStep; ++i) t[i] = __ldg(src + i * kRowStep * (kCols / 8));
    for (int i = 0; i < 128 / kRowStep; ++i) acc ^= t[i].x + t[i].y + t[i].z + t[i].w;
  }
  if (acc == 0x9E3779B9u) *sink = acc;
}

__global__ void __launch_bounds__(kThreads, 4) linear_read_kernel(const uint4* __restrict__ x, std::int64_t n, unsigned* sink) {
  unsigned acc = 0;
  for (std::int64_t i = blockIdx.x * std::int64_t(kThreads) + threadIdx.x; i < n; i += std::int64_t(kThreads) * gridDim.x) {
    const uint4 v = __ldg(x + i);
    acc ^= v.x + v.y + v.z + v.w;
  }
  if (acc == 0x9E3779B9u) *sink = acc;
}
__global__ void __launch_bounds__(kThreads, 4) linear_write_kernel(uint4* __restrict__ q, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(kThreads) + threadIdx.x; i < n; i += std::int64_t(kThreads) * gridDim.x)
    q[i] = make_uint4(unsigned(i), 1u, 2u, 3u);
}

// The stream kernel's skeleton: S stages of one 32 KB item (8 * L rows x T columns), two CTAs per
// SM. kCoop false: every thread copies its own 8-row block (the slots only it reads, no barrier);
// true: the CTA copies whole row pieces (vector w of row r at r * 2T + (w ^ swizzle(r)) * 16) and
// meets at one barrier per item.
template <int T, int S, bool kCoop>
__global__ void __launch_bounds__(kThreads, 2) stream_kernel(const std::uint16_t* __restrict__ x, std::uint8_t* __restrict__ q) {
  constexpr int L = 2048 / T, kItemRows = 8 * L, C = T / 8, kTiles = int(kCols / T);
  constexpr int kItems = int(kRows / kItemRows) * kTiles;
  constexpr unsigned kRowBytes = 2 * T, kStage = kItemRows * kRowBytes;
  constexpr int kSwz = L < 8 ? L : 8;
  extern __shared__ __align__(128) unsigned char smem[];
  const int tid = int(threadIdx.x), cx = tid / L, rl = tid % L;
  const auto swizzle = [](int row) { return kCoop ? ((row >> 3) % kSwz) * (8 / kSwz) : 0; };
  // Row r, chunk c of a stage: own slots are thread-major (no bank conflicts either way).
  const auto slot = [&](unsigned char* stage, int row, int chunk) {
    return kCoop ? stage + row * kRowBytes + (chunk ^ swizzle(row)) * 16
                 : stage + (row % 8) * (kThreads * 16) + (chunk * L + row / 8) * 16;
  };
  const auto issue = [&](int j) {
    const int item = int(blockIdx.x) + j * int(gridDim.x);
    if (item < kItems) {
      const std::int64_t row0 = std::int64_t(item / kTiles) * kItemRows, col0 = std::int64_t(item % kTiles) * T;
      unsigned char* stage = smem + (j % S) * kStage;
      for (int k = 0; k < 8; ++k) {
        const int row = kCoop ? k * L + tid / C : rl * 8 + k, chunk = kCoop ? tid % C : cx;
        cp_async_16(slot(stage, row, chunk), x + (row0 + row) * kCols + col0 + chunk * 8);
      }
    }
    cp_async_commit();
  };
  constexpr int kAhead = kCoop ? S - 1 : S;  // coop: a stage is refilled after the next barrier
  for (int s = 0; s < kAhead; ++s) issue(s);
  for (int j = 0; int(blockIdx.x) + j * int(gridDim.x) < kItems; ++j) {
    cp_async_wait<kAhead - 1>();
    if (kCoop) {
      __syncthreads();
      issue(j + S - 1);
    }
    const int item = int(blockIdx.x) + j * int(gridDim.x);
    unsigned char* stage = smem + (j % S) * kStage;
    uint2 codes[8];
    for (int i = 0; i < 8; ++i) codes[i] = high_bytes(*reinterpret_cast<const uint4*>(slot(stage, rl * 8 + i, cx)));
    store_block(q, std::int64_t(item / kTiles) * kItemRows + rl * 8, std::int64_t(item % kTiles) * T + cx * 8, codes);
    if (!kCoop) issue(j + S);
  }
  cp_async_wait<0>();
}

template <class F>
double median_us(F&& launch) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) launch();
  std::vector<float> ms;
  for (int i = 0; i < 30; ++i) {
    CHECK(cudaEventRecord(a));
    launch();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float t = 0;
    CHECK(cudaEventElapsedTime(&t, a, b));
    ms.push_back(t);
  }
  CHECK(cudaGetLastError());
  std::sort(ms.begin(), ms.end());
  return 1e3 * ms[ms.size() / 2];
}

struct Bench {
  std::vector<std::uint16_t> host;
  std::uint16_t* x = nullptr;
  std::uint8_t* q = nullptr;
  unsigned* sink = nullptr;
  int sms = 0;

  // Every code against the input's high byte; prints the first mismatch.
  bool codes_ok() const {
    std::vector<std::uint8_t> got(std::size_t(kRows * kCols));
    CHECK(cudaMemcpy(got.data(), q, got.size(), cudaMemcpyDeviceToHost));
    for (std::int64_t col = 0; col < kCols; ++col)
      for (std::int64_t row = 0; row < kRows; ++row) {
        const std::uint8_t want = std::uint8_t(host[std::size_t(row * kCols + col)] >> 8), have = got[std::size_t(col * kRows + row)];
        if (want != have) {
          std::printf("  mismatch at row %lld col %lld: 0x%02x, expected 0x%02x\n", (long long)row, (long long)col, have, want);
          return false;
        }
      }
    return true;
  }
  void row(const char* table, const char* what, double us, double bytes, double ref_gbs, const char* ref, int check) {
    const double gbs = bytes / (us * 1e-6) / 1e9;
    const char* verdict = check < 0 ? "" : check ? "codes ok" : "CODES WRONG";
    std::printf("%-6s %-46s %8.1f us %8.1f GB/s %6.1f%% of %s %s\n", table, what, us, gbs, 100 * gbs / ref_gbs, ref, verdict);
  }
};

template <int T, int kMode>
double time_column_lanes(Bench& b) {
  CHECK(cudaMemset(b.q, 0, std::size_t(kRows * kCols)));
  return median_us([&] { column_lanes_kernel<T, kMode><<<b.sms * 4, kThreads>>>(b.x, b.q, b.sink); });
}
template <int T, int S, bool kCoop>
double time_stream(Bench& b) {
  constexpr int smem = S * 32768;
  CHECK(cudaFuncSetAttribute(stream_kernel<T, S, kCoop>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  CHECK(cudaMemset(b.q, 0, std::size_t(kRows * kCols)));
  return median_us([&] { stream_kernel<T, S, kCoop><<<b.sms * 2, kThreads, smem>>>(b.x, b.q); });
}

}  // namespace

int main() {
  Bench b;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  b.sms = prop.multiProcessorCount;
  const std::size_t n = std::size_t(kRows * kCols);
  b.host.resize(n);
  std::uint64_t s = 12345;
  for (auto& v : b.host) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    v = std::uint16_t(s >> 48);
  }
  std::uint16_t* y = nullptr;
  CHECK(cudaMalloc(&b.x, n * 2));
  CHECK(cudaMalloc(&y, n * 2));
  CHECK(cudaMalloc(&b.q, n));
  CHECK(cudaMalloc(&b.sink, 64));
  CHECK(cudaMemcpy(b.x, b.host.data(), n * 2, cudaMemcpyHostToDevice));
  const double in = 2.0 * n, out = 1.0 * n;
  const double copy = 2 * in / (median_us([&] { CHECK(cudaMemcpyAsync(y, b.x, n * 2, cudaMemcpyDeviceToDevice)); }) * 1e-6) / 1e9;
  const double lin_read = in / (median_us([&] { linear_read_kernel<<<b.sms * 8, kThreads>>>(reinterpret_cast<const uint4*>(b.x), std::int64_t(n / 8), b.sink); }) * 1e-6) / 1e9;
  const double lin_write = out / (median_us([&] { linear_write_kernel<<<b.sms * 8, kThreads>>>(reinterpret_cast<uint4*>(b.q), std::int64_t(n / 16)); }) * 1e-6) / 1e9;
  std::printf("%s, %d SMs: copy %.1f GB/s (read + write), linear read %.1f GB/s, linear write %.1f GB/s\n", prop.name,
              b.sms, copy, lin_read, lin_write);
  b.row("reads", "lanes down columns, T=64 (32 rows x 16 B / instr)", time_column_lanes<64, 1>(b), in, lin_read, "linear read", -1);
  b.row("reads", "lanes down columns, T=128 (16 rows x 32 B)", time_column_lanes<128, 1>(b), in, lin_read, "linear read", -1);
  b.row("reads", "lanes down columns, T=512 (4 rows x 128 B)", time_column_lanes<512, 1>(b), in, lin_read, "linear read", -1);
  b.row("reads", "lanes along rows, T=64 (4 rows x 128 B)", median_us([&] { row_lanes_read_kernel<64><<<b.sms * 4, kThreads>>>(b.x, b.sink); }), in, lin_read, "linear read", -1);
  b.row("reads", "lanes along rows, T=128 (2 rows x 256 B)", median_us([&] { row_lanes_read_kernel<128><<<b.sms * 4, kThreads>>>(b.x, b.sink); }), in, lin_read, "linear read", -1);
  b.row("writes", "column-major, 128 B of a column / instr (T=128)", time_column_lanes<128, 2>(b), out, lin_write, "linear write", -1);
  b.row("writes", "column-major, 64 B (T=256)", time_column_lanes<256, 2>(b), out, lin_write, "linear write", -1);
  b.row("writes", "column-major, 32 B (T=512)", time_column_lanes<512, 2>(b), out, lin_write, "linear write", -1);
  double us = time_column_lanes<128, 0>(b);
  b.row("both", "plain loads, lanes down columns, T=128", us, in + out, copy, "copy", b.codes_ok());
  us = time_stream<128, 3, false>(b);
  b.row("both", "cp.async own slots, T=128, 3 stages", us, in + out, copy, "copy", b.codes_ok());
  us = time_stream<128, 3, true>(b);
  b.row("both", "cp.async along rows + barrier, T=128, 3 stages", us, in + out, copy, "copy", b.codes_ok());
  us = time_stream<64, 3, false>(b);
  b.row("both", "cp.async own slots, T=64, 3 stages", us, in + out, copy, "copy", b.codes_ok());
  us = time_stream<64, 3, true>(b);
  b.row("both", "cp.async along rows + barrier, T=64, 3 stages", us, in + out, copy, "copy", b.codes_ok());
  return 0;
}
