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
// Run: build/backends/octet_gpu_bench_quant (scripts/gpu/run.sh); OCTET_BENCH_FILTER=name,name...
// keeps the kernels whose names contain one of the parts (with OCTET_CUDA_STREAM_STAGE_BYTES /
// OCTET_CUDA_STREAM_STAGES and OCTET_CUDA_COLUMN_STAGE_BYTES / OCTET_CUDA_COLUMN_STAGES: the row-
// and column-stream shape sweeps of docs/performance.md and docs/gpu-notes.md). The stream-ordered
// pool keeps its memory between launches (bench::keep_pool_memory). Prints one row per measurement:
//   kernel <name> | <shape> | groups <G> | <us> us | <GB/s> GB/s | <pct>% copy
#include <algorithm>
#include <cstdio>
#include <cstdlib>
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
#include "octet/kernels/mx_swizzle.hpp"
#include "quant.hpp"

namespace {

namespace golden = octet::golden;
namespace bench = octet::cuda::bench;
using octet::SourceType;
using octet::cuda::DeviceBuffer;
using i64 = std::int64_t;
using Shape3 = std::vector<i64>;  // a tensor shape

using bench::selected;

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

// Validations of kernels that OCTET_BENCH_FILTER leaves out pass without running.
bool validate_call(const golden::KernelCall& call, const std::string& what) {
  const std::string& kernel = call.kernel;
  if (!selected(kernel)) return true;
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

// DeepGEMM k-grouped: group ends over the rows in multiples of 128 (rows % 128 == 0).
bool validate_k_grouped(i64 rows, i64 cols, i64 G) {
  golden::KernelCall call;
  call.kernel = "fp8_blockwise_act_quant_k_grouped_deepgemm";
  call.inputs.emplace("x", golden::generate_tensor({golden::Distribution::specials, 7}, {rows, cols}, "bfloat16"));
  std::vector<i64> ends = group_ends(rows / 8, G, 11);  // multiples of 16, times 8
  for (i64& e : ends) e *= 8;
  call.inputs.emplace("offs", golden::make_tensor("int64", ends));
  return validate_call(call, std::to_string(rows) + "x" + std::to_string(cols) + " groups " + std::to_string(G));
}

// The 128x128 scale padding on fp32 scales (E, Kb, Nb), Kb not a multiple of 4.
bool validate_pad_scales(i64 E, i64 Kb, i64 Nb) {
  golden::KernelCall call;
  call.kernel = "fp8_blockwise_pad_scales_128x128";
  call.inputs.emplace("scale_inv", golden::generate_tensor({golden::Distribution::normal, 7}, {E, Kb, Nb}, "float32"));
  return validate_call(call, std::to_string(E) + "x" + std::to_string(Kb) + "x" + std::to_string(Nb));
}

// Scale rows of the token-group blockwise kernels: sum over groups of ceil(size / 128).
i64 group_blocks(const std::vector<i64>& ends) {
  i64 blocks = 0, begin = 0;
  for (const i64 end : ends) {
    blocks += (end - begin + 127) / 128;
    begin = end;
  }
  return blocks;
}

// The batched weight kernel (E experts in one launch) against the 2D kernel, validated above,
// launched once per expert.
bool validate_weight_experts(const octet::Recipe& r) {
  if (!selected("fp8_blockwise_weight_quant_rhs_experts")) return true;
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

// MX 2d / blocked-scale / dequantiser and dual per-group validations (the same adapter-vs-emulator
// check; attributes and inputs beyond a single `x`).
bool validate_mx_and_dual() {
  bool ok = true;
  const auto x = [](Shape3 shape) {
    return golden::generate_tensor({golden::Distribution::specials, 7}, shape, "bfloat16");
  };
  {
    golden::KernelCall call;
    call.kernel = "mx_quantize_2d";
    call.inputs.emplace("x", x({1056, 1280}));
    ok &= validate_call(call, "1056x1280 rowwise+colwise");
  }
  for (const std::string block : {"1x32", "32x1"}) {
    golden::KernelCall call;
    call.kernel = "mx_blocked_scales";
    call.attrs.strings["block"] = block;
    call.inputs.emplace("x", x({1056, 1312}));
    ok &= validate_call(call, "1056x1312 " + block);
  }
  ok &= validate_3d("mx_blocked_scales", "x", 3, 256, 328, "32x1");
  ok &= validate_3d("mx_blocked_scales", "x", 3, 256, 320, "32x32");
  for (const std::string out_dtype : {"bfloat16", "float32"}) {
    // Every code and every scale byte (NaN codes, 0xFF scales, over- and underflowing products).
    constexpr i64 M = 1040, K = 1280;
    std::vector<std::uint8_t> q(std::size_t(M * K)), sc(std::size_t(M * K / 32));
    for (std::size_t i = 0; i < q.size(); ++i) q[i] = std::uint8_t(golden::uniform_int(3, i, 256));
    for (std::size_t i = 0; i < sc.size(); ++i) sc[i] = std::uint8_t(golden::uniform_int(4, i, 256));
    golden::KernelCall call;
    call.kernel = "mx_dequantize_dim0";
    call.attrs.strings["out_dtype"] = out_dtype;
    call.inputs.emplace("q", golden::make_tensor("float8_e4m3fn", {M, K}, q));
    call.inputs.emplace("scale", golden::make_tensor("float8_e8m0fnu", {M, K / 32}, sc));
    ok &= validate_call(call, "1040x1280 " + out_dtype);
  }
  for (const i64 G : {1, 16, 64, 128}) {
    golden::KernelCall call;
    call.kernel = "fp8_per_group_colwise_scales_dual";
    call.inputs.emplace("x1", x({2080, 640}));
    call.inputs.emplace("x2", x({2080, 200}));
    call.inputs.emplace("offs", golden::make_tensor("int64", group_ends(2080, G, 11)));
    ok &= validate_call(call, "2080x640 + 2080x200 groups " + std::to_string(G));
  }
  return ok;
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
  if (!selected(kernel)) return;
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
  bench::keep_pool_memory();
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
  ok &= validate("fp8_blockwise_act_quant_transposed_lhs", 1024, 1288, 0, 0);  // K % 8 != 0: scalar loads
  ok &= validate("fp8_blockwise_weight_quant_transposed_rhs", 1024, 1408, 0, 0);
  ok &= validate("deepgemm_per_channel_cast_to_fp8", 1024, 1300, 0, 0);
  ok &= validate("deepgemm_per_block_cast_to_fp8", 1040, 1300, 0, 0);  // partial tiles
  for (const i64 G : {1, 16, 64, 128}) {
    ok &= validate("fp8_blockwise_act_quant_rhs_grouped", 2080, 640, G, 2000);  // rows past offs[-1]
    ok &= validate("fp8_blockwise_act_quant_transposed_lhs_grouped", 2080, 640, G, 2080);
    ok &= validate_k_grouped(2048, 640, G);
  }
  ok &= validate_pad_scales(3, 11, 5);
  ok &= validate_3d("fp8_blockwise_weight_quant_grouped_rhs", "w", 3, 256, 384, "");
  ok &= validate_3d("fp8_blockwise_weight_quant_grouped_transposed_rhs", "w", 3, 384, 256, "");
  ok &= validate_3d("fp8_colwise_3d_scale_and_cast", "w", 3, 1024, 328, "");
  ok &= validate_3d("fp8_rowwise_3d_transpose_rhs", "w", 3, 328, 1024, "");
  ok &= validate_3d("mx_quantize_3d", "x", 3, 256, 328, "32x1");
  ok &= validate_3d("mx_quantize_3d", "x", 3, 256, 320, "32x32");
  ok &= validate_mx_and_dual();
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

  row("fp8_blockwise_act_quant_transposed_lhs", act_shape, 1, act_bytes + 4.0 * M * K / 128, copy, [&] {
    octet::cuda::fp8_blockwise_act_quant_transposed_lhs(SourceType::bf16, x, M, K, blockwise, q.get(), s.get());
  });
  row("deepgemm_per_channel_cast_to_fp8", act_shape, 1, act_bytes + 4.0 * M * K / 128, copy,
      [&] { octet::cuda::deepgemm_per_channel_cast_to_fp8(SourceType::bf16, x, M, K, deepgemm, q.get(), s.get()); });
  row("deepgemm_per_block_cast_to_fp8", act_shape, 1, act_bytes + 4.0 * (M / 128) * (K / 128), copy,
      [&] { octet::cuda::deepgemm_per_block_cast_to_fp8(SourceType::bf16, x, M, K, deepgemm, q.get(), s.get()); });
  for (const i64 G : {1, 16, 64, 128}) {
    const std::vector<i64> ends = group_ends(M, G, 5);
    std::vector<i64> ends_128 = group_ends(M / 8, G, 5);  // multiples of 128 for k-grouped
    for (i64& e : ends_128) e *= 8;
    const DeviceBuffer<i64> offs(ends), offs_128(ends_128);
    row("fp8_blockwise_act_quant_rhs_grouped", act_shape, G, act_bytes + 4.0 * K * group_blocks(ends) + 8.0 * G, copy,
        [&] {
          octet::cuda::fp8_blockwise_act_quant_rhs_grouped(SourceType::bf16, x, M, K, offs.get(), G, blockwise, q.get(),
                                                           s.get());
        });
    row("fp8_blockwise_act_quant_k_grouped_deepgemm", act_shape, G, act_bytes + 4.0 * K * (M / 128) + 8.0 * G, copy,
        [&] {
          octet::cuda::fp8_blockwise_act_quant_k_grouped_deepgemm(SourceType::bf16, x, M, K, offs_128.get(), G,
                                                                  blockwise, q.get(), s.get());
        });
  }
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
    // (E, K, N) = (E, rows, cols), per-expert column-major (the bytes are what they are).
    row("fp8_blockwise_weight_quant_grouped_rhs", shape, 1,
        3.0 * double(w.E * per_expert) + 4.0 * double(w.E * scales_per_expert), copy, [&] {
          octet::cuda::fp8_blockwise_weight_quant_grouped_rhs(SourceType::bf16, wt.x.get(), w.E, w.rows, w.cols,
                                                              blockwise, wq.get(), ws.get());
        });
    row("fp8_blockwise_weight_quant_grouped_transposed_rhs", shape, 1,
        3.0 * double(w.E * per_expert) + 4.0 * double(w.E * scales_per_expert), copy, [&] {
          octet::cuda::fp8_blockwise_weight_quant_grouped_transposed_rhs(SourceType::bf16, wt.x.get(), w.E, w.rows,
                                                                         w.cols, blockwise, wq.get(), ws.get());
        });
  }
  // MX 2d / blocked scales / dequantiser and the dual per-group kernel at the activation shape.
  {
    DeviceBuffer<std::uint8_t> q2{std::size_t(M * K)}, s2{std::size_t(M * K / 32)};
    row("mx_quantize_2d", act_shape, 1, act_bytes + M * K + 2.0 * M * K / 32, copy, [&] {
      octet::cuda::mx_quantize_2d(SourceType::bf16, x, M, K, mx, true, true, q.get(), s8.get(), q2.get(), s2.get());
    });
    const double blocked = double(octet::blocked_rows(M) * octet::blocked_cols(K / 32));
    row("mx_blocked_scales/1x32", act_shape, 1, act_bytes + blocked, copy, [&] {
      octet::cuda::mx_blocked_scales_2d(SourceType::bf16, x, M, K, false, mx, q.get(), s2.get());
    });
    row("mx_blocked_scales/32x1", act_shape, 1, act_bytes + double(octet::blocked_rows(K) * octet::blocked_cols(M / 32)),
        copy, [&] { octet::cuda::mx_blocked_scales_2d(SourceType::bf16, x, M, K, true, mx, q.get(), s2.get()); });
    // Codes and scales of the dim0 quantiser above as the dequantiser's input.
    octet::cuda::mx_quantize_dim0(SourceType::bf16, x, M, K, mx, q.get(), s8.get());
    DeviceBuffer<float> y{std::size_t(M * K)};
    row("mx_dequantize_dim0/bf16", act_shape, 1, double(M * K) * 3.0 + M * K / 32.0, copy,
        [&] { octet::cuda::mx_dequantize_dim0(q.get(), s8.get(), M, K, mx, false, y.get()); });
    row("mx_dequantize_dim0/fp32", act_shape, 1, double(M * K) * 5.0 + M * K / 32.0, copy,
        [&] { octet::cuda::mx_dequantize_dim0(q.get(), s8.get(), M, K, mx, true, y.get()); });
  }
  {
    constexpr i64 N2 = 2048;
    const Input x2 = make_input(M, N2, 2);
    DeviceBuffer<std::uint8_t> q2{std::size_t(M * N2)};
    DeviceBuffer<std::uint32_t> s1{std::size_t(128 * K)}, s2{std::size_t(128 * N2)};
    const std::string dual_shape = "16640x5120+16640x2048 bf16";
    for (const i64 G : {1, 16, 64, 128}) {
      const DeviceBuffer<i64> offs_m(group_ends(M, G, 5));
      row("fp8_per_group_colwise_scales_dual", dual_shape, G, 3.0 * double(M * (K + N2)) + 4.0 * G * (K + N2) + 8.0 * G,
          copy, [&] {
            octet::cuda::fp8_per_group_colwise_scales(SourceType::bf16, x, M, K, offs_m.get(), G, rowwise, q.get(),
                                                      s1.get());
            octet::cuda::fp8_per_group_colwise_scales(SourceType::bf16, x2.x.get(), M, N2, offs_m.get(), G, rowwise,
                                                      q2.get(), s2.get());
          });
    }
  }
  // 3D weights with blocked scales (E, N, K).
  for (const auto& w : weights) {
    const Input wt = make_input(w.E * w.rows, w.cols, 9);
    const i64 elements = w.E * w.rows * w.cols;
    const std::string shape3 = std::to_string(w.E) + "x" + std::to_string(w.rows) + "x" + std::to_string(w.cols) + " bf16";
    const i64 blocked = w.E * octet::blocked_rows(w.cols) * octet::blocked_cols(w.rows / 32);
    DeviceBuffer<std::uint8_t> wq{std::size_t(elements)}, wb{std::size_t(blocked)};
    for (const bool b32x32 : {false, true})
      row(b32x32 ? "mx_blocked_scales/3d_32x32" : "mx_blocked_scales/3d_32x1", shape3, 1,
          3.0 * double(elements) + double(blocked), copy, [&] {
            octet::cuda::mx_blocked_scales_3d(SourceType::bf16, wt.x.get(), w.E, w.rows, w.cols, b32x32, mx, wq.get(),
                                              wb.get());
          });
  }
  return ok ? 0 : 1;
}
