// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// bench_quant.cu — the CUDA quantisers (quant.hpp) at production shapes: 16640x5120 bf16
// activations with 1/16/64/128 groups, expert weights E=8 x 5120x8192 and E=64 x 2048x1408.
// First every kernel is validated once on a smaller shape against the emulator (the CUDA adapter
// and golden::run_kernel on the same inputs, bytes equal), then each is timed: median of 50
// CUDA-event timed launches after 5 warm-ups, GB/s over the bytes each input is read once and each
// output written once (codes, scales), and % of the device-to-device copy bandwidth measured in the
// same run (bench_harness.hpp).
//
// The 3D weight kernels (fp8_colwise_3d_scale_and_cast, fp8_rowwise_3d_transpose_rhs,
// mx_quantize_3d 32x1 / 32x32) run at the weight shapes on one (E, rows, cols) tensor.
//
// Napkin math: 16640x5120 bf16 = 170.4 MB in + 85.2 MB codes out (+ scales) = 255.6 MB; at the
// H200's ~4.3 TB/s copy rate (read + write) that is ~60 us.
//
// Run: build/backends/octet_gpu_bench_quant (scripts/gpu/run.sh). Prints one row per measurement:
//   kernel <name> | <shape> | groups <G> | <us> us | <GB/s> GB/s | <pct>% copy
#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "bench_harness.hpp"
#include "cuda_adapters.hpp"
#include "device_buffer.hpp"
#include "octet/golden/inputs.hpp"
#include "octet/golden/runner.hpp"
#include "octet/golden/tensor_io.hpp"
#include "quant.hpp"

namespace {

namespace golden = octet::golden;
namespace bench = octet::cuda::bench;
using octet::SourceType;
using octet::cuda::DeviceBuffer;
using i64 = std::int64_t;

// G inclusive group ends over `extent` (sizes multiples of 16; empty groups possible).
std::vector<i64> group_ends(i64 extent, i64 G, std::uint64_t seed) {
  std::vector<i64> ends;
  for (i64 g = 0; g + 1 < G; ++g) ends.push_back(golden::uniform_int(seed, std::uint64_t(g), extent / 16 + 1) * 16);
  std::sort(ends.begin(), ends.end());
  ends.push_back(extent);
  return ends;
}

// ---------------------------------------------------------------------------------------------
// Validation: the CUDA adapter against the emulator on a (rows, cols) bf16 input.

bool validate_call(const golden::KernelCall& call, const std::string& what) {
  const std::string& kernel = call.kernel;
  const golden::Tensors want = golden::run_kernel(call);
  const golden::Tensors got = octet::cuda::find_kernel_adapter(kernel)->run(call);
  bool equal = want.size() == got.size();
  for (const auto& [name, t] : want) {
    const auto it = got.find(name);
    if (it == got.end() || !(it->second == t)) {
      equal = false;
      std::printf("validate %s: dataset '%s' differs from the emulator\n", kernel.c_str(), name.c_str());
    }
  }
  std::printf("validate %-40s %s: %s\n", kernel.c_str(), what.c_str(),
              equal ? "bytes equal to the emulator" : "MISMATCH");
  return equal;
}

// A 2D input x (rows, cols), with G groups over `grouped_extent` when G > 0.
bool validate(const std::string& kernel, i64 rows, i64 cols, i64 G, i64 grouped_extent) {
  golden::KernelCall call;
  call.kernel = kernel;
  call.inputs.emplace("x", golden::generate_tensor({golden::Distribution::specials, 7}, {rows, cols}, "bfloat16"));
  if (G > 0) call.inputs.emplace("offs", golden::make_tensor("int64", group_ends(grouped_extent, G, 11)));
  return validate_call(call, std::to_string(rows) + "x" + std::to_string(cols) + " groups " + std::to_string(G));
}

// A 3D input `input` (E, R, C); `block` for mx_quantize_3d.
bool validate_3d(const std::string& kernel, const std::string& input, i64 E, i64 R, i64 C, const std::string& block) {
  golden::KernelCall call;
  call.kernel = kernel;
  call.inputs.emplace(input, golden::generate_tensor({golden::Distribution::specials, 7}, {E, R, C}, "bfloat16"));
  if (!block.empty()) call.attrs.strings["block"] = block;
  return validate_call(call, std::to_string(E) + "x" + std::to_string(R) + "x" + std::to_string(C) + " " + block);
}

// The batched weight kernel (E experts in one launch) against the 2D kernel, validated above,
// launched once per expert.
bool validate_weight_experts(const octet::Recipe& r) {
  constexpr i64 E = 3, M = 256, N = 384, per = M * N, scales = (M / 128) * (N / 128);
  const DeviceBuffer<std::uint16_t> x(golden::generate_bf16({golden::Distribution::specials, 13}, E * per));
  DeviceBuffer<std::uint8_t> q1{std::size_t(E * per)}, q2{std::size_t(E * per)};
  DeviceBuffer<std::uint32_t> s1{std::size_t(E * scales)}, s2{std::size_t(E * scales)};
  q1.fill_bytes(0xA5);
  q2.fill_bytes(0x5A);
  s1.fill_bytes(0xA5);
  s2.fill_bytes(0x5A);
  octet::cuda::fp8_blockwise_weight_quant_rhs_experts(SourceType::bf16, x.get(), E, M, N, r, q1.get(), s1.get());
  for (i64 e = 0; e < E; ++e)
    octet::cuda::fp8_blockwise_weight_quant_rhs(SourceType::bf16, x.get() + e * per, M, N, r, q2.get() + e * per,
                                                s2.get() + e * scales);
  OCTET_CUDA_CHECK(cudaDeviceSynchronize());
  const bool equal = q1.download() == q2.download() && s1.download() == s2.download();
  std::printf("validate %-40s %lldx%lldx%lld: %s\n", "fp8_blockwise_weight_quant_rhs_experts", (long long)E,
              (long long)M, (long long)N, equal ? "bytes equal to the per-expert kernel" : "MISMATCH");
  return equal;
}

// ---------------------------------------------------------------------------------------------
// Timing

struct Input {
  DeviceBuffer<std::uint16_t> x;
  i64 rows = 0, cols = 0;
};

Input make_input(i64 rows, i64 cols, std::uint64_t seed) {
  Input in;
  in.rows = rows;
  in.cols = cols;
  in.x = DeviceBuffer<std::uint16_t>(golden::generate_bf16({golden::Distribution::normal, seed}, rows * cols));
  return in;
}

void row(const std::string& kernel, const std::string& shape, i64 groups, double bytes, double copy,
         const std::function<void()>& launch) {
  bench::Row r;
  r.kernel = kernel;
  r.shape = shape;
  r.groups = groups;
  r.bytes = bytes;
  r.ms = bench::median_ms(launch);
  bench::print_row(r, copy);
}

}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("Disposition: Skipped (no CUDA device)\n");
    return 0;
  }
  const octet::Recipe& rowwise = octet::recipe("torchao_fp8_rowwise_pow2");
  const octet::Recipe& blockwise = octet::recipe("torchao_blockwise");
  const octet::Recipe& mx = octet::recipe("torchao_mx_rceil");
  const octet::Recipe& deepgemm = octet::recipe("deepgemm");

  // 1. Validation on smaller shapes (specials distribution: NaN, Inf, zeros, subnormals).
  bool ok = true;
  ok &= validate("fp8_rowwise_2d_scale_and_cast", 1040, 1280, 0, 0);
  for (const i64 G : {1, 16, 64, 128}) {
    ok &= validate("fp8_per_group_rowwise_scales", 520, 2560, G, 2560);
    ok &= validate("fp8_per_group_colwise_scales", 2080, 640, G, 2080);
  }
  ok &= validate("mx_quantize_dim0", 1040, 1280, 0, 0);
  ok &= validate("mx_quantize_dim1", 1056, 1280, 0, 0);
  ok &= validate("fp8_blockwise_act_quant_lhs", 1040, 1280, 0, 0);
  ok &= validate("fp8_blockwise_act_quant_rhs", 1040, 1280, 0, 0);
  ok &= validate("fp8_blockwise_weight_quant_rhs", 1024, 1408, 0, 0);
  ok &= validate("deepgemm_per_token_cast_to_fp8", 1040, 1300, 0, 0);  // partial last block, unaligned rows
  ok &= validate_weight_experts(blockwise);
  ok &= validate_3d("fp8_colwise_3d_scale_and_cast", "w", 3, 1024, 328, "");
  ok &= validate_3d("fp8_rowwise_3d_transpose_rhs", "w", 3, 328, 1024, "");
  ok &= validate_3d("mx_quantize_3d", "x", 3, 256, 328, "32x1");
  ok &= validate_3d("mx_quantize_3d", "x", 3, 256, 320, "32x32");
  std::printf(ok ? "All results match. Starting benchmarks.\n" : "MISMATCHES above; timing anyway.\n");

  // 2. Production shapes.
  constexpr i64 M = 16640, K = 5120;
  const Input act = make_input(M, K, 1);
  const double copy = bench::copy_gbs(std::size_t(M * K * 2));
  std::printf("copy bandwidth (device-to-device cudaMemcpy of %lld bytes, read + write): %.1f GB/s\n",
              (long long)(M * K * 2), copy);
  const std::string act_shape = "16640x5120 bf16";
  const double act_bytes = double(M * K) * 3.0;  // 2 B in + 1 B code per element
  DeviceBuffer<std::uint8_t> q{std::size_t(M * K)};
  DeviceBuffer<std::uint32_t> s{std::size_t(M * K / 32)};  // the largest scale count (MX)
  DeviceBuffer<std::uint8_t> s8{std::size_t(M * K / 32)};
  const void* x = act.x.get();

  row("fp8_rowwise_2d_scale_and_cast", act_shape, 1, act_bytes + 4.0 * M, copy,
      [&] { octet::cuda::fp8_rowwise_2d_scale_and_cast(SourceType::bf16, x, M, K, rowwise, q.get(), s.get()); });
  for (const i64 G : {1, 16, 64, 128}) {
    const DeviceBuffer<i64> offs_k(group_ends(K, G, 3)), offs_m(group_ends(M, G, 5));
    row("fp8_per_group_rowwise_scales", act_shape, G, act_bytes + 4.0 * M * G + 8.0 * G, copy, [&] {
      octet::cuda::fp8_per_group_rowwise_scales(SourceType::bf16, x, M, K, offs_k.get(), G, rowwise, q.get(), s.get());
    });
    row("fp8_per_group_colwise_scales", act_shape, G, act_bytes + 4.0 * K * G + 8.0 * G, copy, [&] {
      octet::cuda::fp8_per_group_colwise_scales(SourceType::bf16, x, M, K, offs_m.get(), G, rowwise, q.get(), s.get());
    });
  }
  row("mx_quantize_dim0", act_shape, 1, act_bytes + M * K / 32.0, copy,
      [&] { octet::cuda::mx_quantize_dim0(SourceType::bf16, x, M, K, mx, q.get(), s8.get()); });
  row("mx_quantize_dim1", act_shape, 1, act_bytes + M * K / 32.0, copy,
      [&] { octet::cuda::mx_quantize_dim1(SourceType::bf16, x, M, K, mx, q.get(), s8.get()); });
  row("fp8_blockwise_act_quant_lhs", act_shape, 1, act_bytes + 4.0 * M * K / 128, copy,
      [&] { octet::cuda::fp8_blockwise_act_quant_lhs(SourceType::bf16, x, M, K, blockwise, q.get(), s.get()); });
  row("fp8_blockwise_act_quant_rhs", act_shape, 1, act_bytes + 4.0 * M * K / 128, copy,
      [&] { octet::cuda::fp8_blockwise_act_quant_rhs(SourceType::bf16, x, M, K, blockwise, q.get(), s.get()); });
  row("deepgemm_per_token_cast_to_fp8", act_shape, 1, act_bytes + 4.0 * M * K / 128, copy,
      [&] { octet::cuda::deepgemm_per_token_cast_to_fp8(SourceType::bf16, x, M, K, deepgemm, q.get(), s.get()); });

  // Expert weights: the weight kernel over all E experts in one launch.
  const struct {
    i64 E, rows, cols;
  } weights[] = {{8, 5120, 8192}, {64, 2048, 1408}};
  for (const auto& w : weights) {
    const Input wt = make_input(w.E * w.rows, w.cols, 9);
    const i64 elements = w.E * w.rows * w.cols;
    const std::string shape3 = std::to_string(w.E) + "x" + std::to_string(w.rows) + "x" + std::to_string(w.cols) + " bf16";
    {
      DeviceBuffer<std::uint8_t> wq{std::size_t(elements)};
      DeviceBuffer<std::uint32_t> ws{std::size_t(w.E * std::max(w.rows, w.cols))};
      DeviceBuffer<std::uint8_t> ws8{std::size_t(elements / 32)};
      // (E, K, N) = (E, rows, cols): per-expert column-major for colwise_3d (the bytes are what they are).
      row("fp8_colwise_3d_scale_and_cast", shape3, 1, 3.0 * double(elements) + 4.0 * double(w.E * w.cols), copy, [&] {
        octet::cuda::fp8_colwise_3d_scale_and_cast(SourceType::bf16, wt.x.get(), w.E, w.rows, w.cols, rowwise, wq.get(),
                                                   ws.get());
      });
      row("fp8_rowwise_3d_transpose_rhs", shape3, 1, 3.0 * double(elements) + 4.0 * double(w.E * w.rows), copy, [&] {
        octet::cuda::fp8_rowwise_3d_transpose_rhs(SourceType::bf16, wt.x.get(), w.E, w.rows, w.cols, rowwise, wq.get(),
                                                  ws.get());
      });
      // mx_quantize_3d takes (E, N, K) = (E, rows, cols).
      row("mx_quantize_3d/32x1", shape3, 1, 3.0 * double(elements) + double(elements) / 32, copy, [&] {
        octet::cuda::mx_quantize_3d(SourceType::bf16, wt.x.get(), w.E, w.rows, w.cols, false, mx, wq.get(), ws8.get());
      });
      row("mx_quantize_3d/32x32", shape3, 1, 3.0 * double(elements) + double(elements) / 1024, copy, [&] {
        octet::cuda::mx_quantize_3d(SourceType::bf16, wt.x.get(), w.E, w.rows, w.cols, true, mx, wq.get(), ws8.get());
      });
    }
    DeviceBuffer<std::uint8_t> wq{std::size_t(w.E * w.rows * w.cols)};
    DeviceBuffer<std::uint32_t> ws{std::size_t(w.E * (w.rows / 128) * (w.cols / 128))};
    const i64 per_expert = w.rows * w.cols, scales_per_expert = (w.rows / 128) * (w.cols / 128);
    const std::string shape = std::to_string(w.E) + "x" + std::to_string(w.rows) + "x" + std::to_string(w.cols) + " bf16";
    row("fp8_blockwise_weight_quant_rhs", shape, 1, 3.0 * double(w.E * per_expert) + 4.0 * double(w.E * scales_per_expert),
        copy, [&] {
          octet::cuda::fp8_blockwise_weight_quant_rhs_experts(SourceType::bf16, wt.x.get(), w.E, w.rows, w.cols,
                                                              blockwise, wq.get(), ws.get());
        });
  }
  return ok ? 0 : 1;
}
