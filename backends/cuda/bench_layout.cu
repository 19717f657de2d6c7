// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// bench_layout.cu — the CUDA layout, transpose, fused and a2a kernels at production shapes:
// MX scale swizzles of 16640x160 e8m0 scales (1/16/64/128 groups), token padding / permutation
// of 16640x5120 bf16 rows (1/16/64/128 groups or experts), the FP8-Flow transposes of 16640x5120
// e4m3fn codes, SwiGLU + quantisation and the a2a emulation.
// First every kernel is validated once on a smaller shape against the emulator (the CUDA adapter
// and golden::run_kernel on the same inputs, every output byte equal; the line says so), then each
// is timed: median of 50 CUDA-event timed launches after 5 warm-ups, GB/s over the bytes each
// input is read once and each output written once (index arrays included), and % of the
// device-to-device copy bandwidth measured in the same run (bench_harness.hpp).
//
// Napkin math: 16640x5120 bf16 = 170.4 MB; a row copy (pad, permute) moves 2 x 170 MB, ~80 us at
// ~4.3 TB/s. The scale swizzles move 2 x 2.7 MB: a few microseconds, launch-bound; their inputs
// rotate over 32 copies so that the timing is not of a hot L2.
//
// Run: build/backends/octet_gpu_bench_layout (scripts/gpu/run.sh); OCTET_BENCH_FILTER=name,name...
// validates and times only the kernels whose name contains one of the parts. One row per measurement:
//   kernel <name> | <shape> | groups <G> | <us> us | <GB/s> GB/s | <pct>% copy
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "adapter_util.hpp"
#include "bench_harness.hpp"
#include "cuda_adapters.hpp"
#include "device_buffer.hpp"
#include "octet/golden/inputs.hpp"
#include "octet/golden/runner.hpp"
#include "octet/golden/tensor_io.hpp"
#include "octet/kernels/mx_swizzle.hpp"
#include "octet/kernels/swiglu_quant.hpp"
#include "octet/kernels/a2a_emulation.hpp"
#include "octet/scale.hpp"
#include "sm90_a2a_emulation.hpp"
#include "sm90_bf16_swiglu_fp8.hpp"
#include "sm90_e8m0_scale_swizzle.hpp"
#include "sm90_fp8flow_transpose.hpp"
#include "sm90_token_pad_permute.hpp"

namespace {

namespace golden = octet::golden;
namespace bench = octet::cuda::bench;
using octet::cuda::DeviceBuffer;
using octet::cuda::adapter_util::weighted_group_ends;
using i64 = std::int64_t;

constexpr i64 kTokens = 16640, kHidden = 5120, kScaleCols = kHidden / 32;
const i64 kGroupCounts[] = {1, 16, 64, 128};

// ---------------------------------------------------------------------------------------------
// inputs

std::vector<std::uint8_t> random_bytes(i64 n, std::uint64_t seed) {
  std::vector<std::uint8_t> v(static_cast<std::size_t>(n));
  for (i64 i = 0; i < n; ++i) v[std::size_t(i)] = std::uint8_t(golden::uniform_int(seed, std::uint64_t(i), 256));
  return v;
}


std::vector<std::uint16_t> bf16_values(i64 n, std::uint64_t seed) {
  golden::InputSpec spec;
  spec.seed = seed;
  return golden::generate_bf16(spec, n);
}

// ---------------------------------------------------------------------------------------------
// validation: CUDA adapter against the emulator on one small call

bool validate(const golden::KernelCall& call, const std::string& what) {
  if (!bench::selected(call.kernel)) return true;
  const golden::KernelAdapter* cuda = octet::cuda::find_kernel_adapter(call.kernel);
  if (cuda == nullptr) {
    std::printf("validation %-40s: no CUDA adapter\n", what.c_str());
    return false;
  }
  const golden::Tensors want = golden::run_kernel(call);
  const golden::Tensors got = cuda->run(call);
  for (const auto& [name, w] : want) {
    const auto it = got.find(name);
    if (it == got.end()) {
      std::printf("validation %-40s: MISMATCH, dataset '%s' missing\n", what.c_str(), name.c_str());
      return false;
    }
    const golden::Tensor& g = it->second;
    if (g.dtype != w.dtype || g.shape != w.shape || g.bytes.size() != w.bytes.size()) {
      std::printf("validation %-40s: MISMATCH, dataset '%s' dtype/shape differ\n", what.c_str(), name.c_str());
      return false;
    }
    for (std::size_t i = 0; i < w.bytes.size(); ++i)
      if (w.bytes[i] != g.bytes[i]) {
        std::printf("validation %-40s: MISMATCH, dataset '%s' byte %zu: emulator 0x%02X, cuda 0x%02X\n", what.c_str(),
                    name.c_str(), i, w.bytes[i], g.bytes[i]);
        return false;
      }
  }
  std::printf("validation %-40s: bytes equal to the emulator (%zu datasets)\n", what.c_str(), want.size());
  return true;
}

golden::KernelCall call_of(std::string kernel, golden::Tensors inputs) {
  golden::KernelCall c;
  c.kernel = std::move(kernel);
  c.inputs = std::move(inputs);
  return c;
}

golden::Tensor e8m0(std::vector<i64> shape, std::uint64_t seed) {
  i64 n = 1;
  for (const i64 d : shape) n *= d;
  return golden::make_tensor("float8_e8m0fnu", std::move(shape), random_bytes(n, seed));
}

bool validate_all() {
  bool ok = true;
  const i64 T = 1000, D = 512, S = 36;
  ok &= validate(call_of("to_blocked", {{"scale", e8m0({T, S - 1}, 1)}}), "to_blocked 1000x35");
  {
    golden::KernelCall c = call_of("from_blocked", {{"scale_blocked", e8m0({octet::blocked_rows(T) * octet::blocked_cols(S - 1)}, 2)}});
    c.attrs.ints["rows"] = T, c.attrs.ints["cols"] = S - 1;
    ok &= validate(c, "from_blocked 1000x35");
  }
  ok &= validate(call_of("to_blocked_m_groups", {{"scale", e8m0({T, S}, 3)}, {"offs", golden::make_tensor("int64", weighted_group_ends(T - 10, 16, 4))}}),
                 "to_blocked_m_groups 1000x36 G16");
  ok &= validate(call_of("to_blocked_k_groups", {{"scale", e8m0({300, 64}, 5)}, {"offs", golden::make_tensor("int64", weighted_group_ends(64 * 32, 16, 6, 32))}}),
                 "to_blocked_k_groups 300x64 G16");
  ok &= validate(call_of("to_blocked_per_group_3d", {{"scale", e8m0({3, 130, 9}, 7)}}), "to_blocked_per_group_3d 3x130x9");
  // 16-byte rows: the window kernels' vector loads and stores (the shapes above take their byte paths)
  ok &= validate(call_of("to_blocked", {{"scale", e8m0({T, 160}, 20)}}), "to_blocked 1000x160");
  {
    golden::KernelCall c = call_of("from_blocked", {{"scale_blocked", e8m0({octet::blocked_rows(T) * 160}, 21)}});
    c.attrs.ints["rows"] = T, c.attrs.ints["cols"] = 160;
    ok &= validate(c, "from_blocked 1000x160");
  }
  ok &= validate(call_of("to_blocked_per_group_3d", {{"scale", e8m0({4, 300, 64}, 22)}}), "to_blocked_per_group_3d 4x300x64");
  const golden::Tensor x = golden::make_tensor("bfloat16", {T, D}, bf16_values(T * D, 8));
  {
    golden::KernelCall c = call_of("pad_token_groups", {{"x", x}, {"x_scale", e8m0({T, 16}, 9)}, {"offs", golden::make_tensor("int64", weighted_group_ends(T - 3, 16, 10))}});
    ok &= validate(c, "pad_token_groups 1000x512 G16");
    // unpad of a padded buffer: group g at padded_starts[g] (alignment 32), num_tokens past the groups
    const std::vector<i64> ends = weighted_group_ends(T - 3, 16, 10);
    std::vector<i64> starts;
    i64 at = 0;
    for (std::size_t g = 0; g < ends.size(); ++g) {
      starts.push_back(at);
      at += (ends[g] - (g ? ends[g - 1] : 0) + 31) / 32 * 32;
    }
    const i64 prows = octet::cuda::padded_token_rows(T, 16, 32);
    golden::KernelCall u = call_of("unpad_token_groups", {{"x", golden::make_tensor("bfloat16", {prows, D}, bf16_values(prows * D, 11))},
                                                          {"x_scale", e8m0({prows, 16}, 12)},
                                                          {"offs", golden::make_tensor("int64", ends)},
                                                          {"padded_starts", golden::make_tensor("int64", starts)}});
    u.attrs.ints["num_tokens"] = T;
    ok &= validate(u, "unpad_token_groups 1000x512 G16");
    // torchao EP permute_and_pad: 4 ranks x 8 experts
    std::vector<i64> counts;
    for (i64 i = 0; i < 32; ++i) counts.push_back(i % 5 == 0 ? 0 : 3 + (i * 37) % 50);
    golden::KernelCall p = call_of("permute_and_pad", {{"x", x}, {"x_scale", e8m0({T, 16}, 13)},
                                                       {"tokens_per_expert_group", golden::make_tensor("int64", counts)}});
    p.attrs.ints["ep_degree"] = 4;
    p.attrs.ints["num_local_experts"] = 8;
    ok &= validate(p, "permute_and_pad 1000x512 R4 E8");
  }
  {
    std::vector<i64> idx(static_cast<std::size_t>(T));
    for (i64 i = 0; i < T; ++i) idx[std::size_t(i)] = (i * 337) % T;
    idx[5] = -1;
    ok &= validate(call_of("permute_tokens", {{"x", x}, {"permuted_indices", golden::make_tensor("int64", idx)}}), "permute_tokens 1000x512");
    golden::KernelCall c = call_of("unpermute_tokens", {{"x", x}, {"permuted_indices", golden::make_tensor("int64", idx)}});
    c.attrs.ints["num_tokens"] = T;
    ok &= validate(c, "unpermute_tokens 1000x512");
  }
  {
    const i64 E = 16, K = 4;
    std::vector<i64> experts(static_cast<std::size_t>(T * K));
    std::vector<float> probs(static_cast<std::size_t>(T * K));
    for (i64 i = 0; i < T * K; ++i) {
      experts[std::size_t(i)] = i % 11 == 3 ? -1 : (golden::uniform_int(11, std::uint64_t(i / K), E) + 3 * (i % K)) % E;
      probs[std::size_t(i)] = i % 13 == 1 ? 0.0f : float(1 + golden::uniform_int(12, std::uint64_t(i), 1000)) / 1024.0f;
    }
    golden::KernelCall c = call_of("fused_permute_pad", {{"x", x}, {"expert_t_k", golden::make_tensor("int64", {T, K}, experts)},
                                                         {"probs", golden::make_tensor("float32", {T, K}, probs)}});
    c.attrs.ints["num_experts"] = E, c.attrs.ints["alignment"] = 16;
    ok &= validate(c, "fused_permute_pad 1000x512 E16 K4");
    std::vector<i64> rows(static_cast<std::size_t>(T * K));
    for (i64 i = 0; i < T * K; ++i) rows[std::size_t(i)] = experts[std::size_t(i)] < 0 ? -1 : (i * 7) % T;
    for (const char* order : {"slot_ascending", "row_descending"})
      for (const i64 fma : {0, 1}) {
        golden::KernelCall u = call_of("fused_unpermute_unpad", {{"x", x}, {"row_id_map", golden::make_tensor("int64", {T, K}, rows)},
                                                                 {"probs", golden::make_tensor("float32", {T, K}, probs)}});
        u.attrs.strings["combine_order"] = order, u.attrs.ints["fma"] = fma;
        ok &= validate(u, std::string("fused_unpermute_unpad ") + order + (fma ? " fma" : ""));
      }
  }
  {
    const i64 m = 700, cols = 384;
    std::vector<float> si(static_cast<std::size_t>(m * 3));
    for (i64 i = 0; i < m * 3; ++i) si[std::size_t(i)] = i % 50 == 7 ? 0.0f : std::ldexp(1.0f, int(golden::uniform_int(13, std::uint64_t(i), 20)) - 12);
    for (const char* v : {"published", "ideal", "naive"})
      ok &= validate(call_of(std::string("fp8flow_transpose_") + v,
                             {{"q", golden::make_tensor("float8_e4m3fn", {m, cols}, random_bytes(m * cols, 14))},
                              {"scale_inv", golden::make_tensor("float32", {m, 3}, si)},
                              {"offs", golden::make_tensor("int64", weighted_group_ends(m, 16, 15))}}),
                     std::string("fp8flow_transpose_") + v + " 700x384 G16");
  }
  {
    // More tiles (~1000) than the persistent grid has blocks (5 per SM): every block walks several
    // tiles, vector tiles and the scalar last column block (2624 = 20·128 + 64) in one loop.
    const i64 m = 4000, cols = 2624, cb = 21;
    std::vector<float> si(static_cast<std::size_t>(m * cb));
    for (i64 i = 0; i < m * cb; ++i) si[std::size_t(i)] = i % 97 == 5 ? 0.0f : std::ldexp(1.0f, int(golden::uniform_int(23, std::uint64_t(i), 26)) - 20);
    const golden::Tensor q = golden::make_tensor("float8_e4m3fn", {m, cols}, random_bytes(m * cols, 24));
    for (const char* v : {"published", "ideal", "naive"})
      ok &= validate(call_of(std::string("fp8flow_transpose_") + v,
                             {{"q", q}, {"scale_inv", golden::make_tensor("float32", {m, cb}, si)},
                              {"offs", golden::make_tensor("int64", weighted_group_ends(m, 64, 25))}}),
                     std::string("fp8flow_transpose_") + v + " 4000x2624 G64");
  }
  {
    const i64 M = 300, H = 256;
    const golden::Tensor xs = golden::make_tensor("bfloat16", {M, 2 * H}, bf16_values(M * 2 * H, 16));
    const golden::Tensor gr = golden::make_tensor("bfloat16", {M, H}, bf16_values(M * H, 17));
    for (const char* recipe : {"te_mxfp8", "te_blockwise"}) {
      golden::KernelCall f = call_of("swiglu_quantize_forward", {{"x", xs}});
      f.attrs.strings["recipe"] = recipe;
      ok &= validate(f, std::string("swiglu_quantize_forward ") + recipe);
      golden::KernelCall b = call_of("swiglu_quantize_backward", {{"x", xs}, {"grad", gr}});
      b.attrs.strings["recipe"] = recipe;
      ok &= validate(b, std::string("swiglu_quantize_backward ") + recipe);
    }
  }
  {
    const i64 R = 4, H = 256;
    std::vector<i64> splits(static_cast<std::size_t>(R * R));
    i64 N = 0;
    for (i64 i = 0; i < R * R; ++i) N += splits[std::size_t(i)] = golden::uniform_int(18, std::uint64_t(i), 60);
    const golden::Tensor xa = golden::make_tensor("bfloat16", {N, H}, bf16_values(N * H, 19));
    const golden::Tensor sp = golden::make_tensor("int64", {R, R}, splits);
    for (const char* k : {"a2a_exchange_mxfp8", "a2a_exchange_fp8_blockwise", "a2a_exchange_passthrough"})
      ok &= validate(call_of(k, {{"x", xa}, {"send_splits", sp}}), k);
    // one route per send row, tokens = rows of each rank (K = 1), plus a second slot -1
    std::vector<i64> tokens_per_rank(static_cast<std::size_t>(R)), routes;
    std::vector<float> weights;
    for (i64 src = 0, row = 0; src < R; ++src)
      for (i64 d = 0; d < R; ++d)
        for (i64 c = 0; c < splits[std::size_t(src * R + d)]; ++c, ++row) {
          ++tokens_per_rank[std::size_t(src)];
          routes.push_back(row), routes.push_back(-1);
          weights.push_back(0.75f), weights.push_back(0.0f);
        }
    for (const char* payload : {"passthrough", "mxfp8", "fp8_blockwise"}) {
      golden::KernelCall c = call_of("a2a_combine", {{"x", xa}, {"send_splits", sp},
                                                     {"tokens_per_rank", golden::make_tensor("int64", tokens_per_rank)},
                                                     {"route_rows", golden::make_tensor("int64", {N, 2}, routes)},
                                                     {"weights", golden::make_tensor("float32", {N, 2}, weights)}});
      c.attrs.strings["payload"] = payload;
      ok &= validate(c, std::string("a2a_combine ") + payload);
    }
  }
  return ok;
}

// ---------------------------------------------------------------------------------------------
// timing

struct Bench {
  double copy = 0;
  void row(const std::string& kernel, const std::string& shape, i64 groups, double bytes, const std::function<void()>& launch) {
    if (!bench::selected(kernel)) return;
    const double ms = bench::median_ms(launch);
    bench::print_row({kernel, shape, groups, ms, bytes, 0}, copy);
  }
  // A launch-bound kernel (a few MB, its inputs outside the L2): % copy against a copy moving the
  // same bytes (bytes/2 read from outside the L2 + bytes/2 written, bench::small_copy_gbs),
  // measured here, not the 256 MiB copy.
  void small_row(const std::string& kernel, const std::string& shape, i64 groups, double bytes,
                 const std::function<void()>& launch) {
    if (!bench::selected(kernel)) return;
    const double ms = bench::median_ms(launch);
    const double same = bench::small_copy_gbs(std::size_t(bytes / 2));
    bench::print_row({kernel, shape, groups, ms, bytes, 0}, same);
    std::printf("  (%% copy above: vs a copy of the same %.2f MB read + written, %.1f GB/s, %.1f us)\n",
                bytes * 1e-6, same, bytes / (same * 1e9) * 1e6);
  }
};

void bench_swizzles(Bench& b) {
  constexpr int kCopies = 32;  // 32 x 2.7 MB inputs: more than the L2
  const i64 in_bytes = kTokens * kScaleCols;
  const i64 hp = octet::blocked_rows(kTokens), wp = octet::blocked_cols(kScaleCols);
  std::vector<DeviceBuffer<std::uint8_t>> ins;
  for (int c = 0; c < kCopies; ++c) ins.emplace_back(random_bytes(in_bytes, 100 + c));
  int next = 0;
  auto pick = [&] { return ins[std::size_t(next++ % kCopies)].get(); };
  const std::string shape = "16640x160 e8m0";
  std::printf("scale swizzles: 3-21 MB each, launch-bound; %% copy: a copy of the same bytes from rotating sources\n");
  DeviceBuffer<std::uint8_t> out(std::size_t(8) << 20);  // the largest output: M-groups, G = 128 (5.3 MB)
  b.small_row("to_blocked", shape, 1, double(in_bytes + hp * wp),
        [&] { octet::cuda::to_blocked({pick(), kTokens, kScaleCols, kScaleCols}, out.get()); });
  b.small_row("from_blocked", shape, 1, double(in_bytes + hp * wp),
        [&] { octet::cuda::from_blocked(pick(), kTokens, kScaleCols, out.get()); });
  for (const i64 G : kGroupCounts) {
    const DeviceBuffer<i64> offs(weighted_group_ends(kTokens, G, 200));
    DeviceBuffer<i64> starts(static_cast<std::size_t>(G + 1));
    b.small_row("to_blocked_m_groups", shape, G, double(in_bytes + (kTokens + 128 * G) * wp + 16 * G), [&] {
      octet::cuda::to_blocked_m_groups({pick(), kTokens, kScaleCols, kScaleCols}, offs.get(), G, out.get(), starts.get());
    });
  }
  // K-groups: scales (5120, 16640/32) with the token groups along the columns
  const i64 kn = kHidden, kmb = kTokens / 32;
  for (const i64 G : kGroupCounts) {
    std::vector<i64> ends = weighted_group_ends(kTokens, G, 300, 32);
    for (i64& e : ends) e /= 32;
    const DeviceBuffer<i64> offs(ends);
    DeviceBuffer<i64> starts(static_cast<std::size_t>(G + 1));
    b.small_row("to_blocked_k_groups", "5120x520 e8m0", G, double(kn * kmb + octet::blocked_rows(kn) * (kmb + 4 * G) + 16 * G), [&] {
      octet::cuda::to_blocked_k_groups({pick(), kn, kmb, kmb}, offs.get(), G, out.get(), starts.get());
    });
  }
  {
    const i64 E = 8, H = 5120, W = 8192 / 32;
    constexpr int k3dCopies = 6;  // 6 x 10.5 MB inputs: more than the L2
    std::vector<DeviceBuffer<std::uint8_t>> in3;
    for (int c = 0; c < k3dCopies; ++c) in3.emplace_back(random_bytes(E * H * W, 400 + c));
    DeviceBuffer<std::uint8_t> o(static_cast<std::size_t>(E * octet::blocked_rows(H) * octet::blocked_cols(W)));
    b.small_row("to_blocked_per_group_3d", "8x5120x256 e8m0", 8, double(E * H * W + o.size()), [&] {
      octet::cuda::to_blocked_per_group_3d(in3[std::size_t(next++ % k3dCopies)].get(), E, H, W, o.get());
    });
  }
}

void bench_tokens(Bench& b) {
  const i64 row_bytes = kHidden * 2;
  const DeviceBuffer<std::uint16_t> x(bf16_values(kTokens * kHidden, 500));
  const octet::cuda::DeviceRows rows{x.get(), kTokens, kHidden, 2};
  const std::string shape = "16640x5120 bf16";
  DeviceBuffer<std::uint8_t> y(static_cast<std::size_t>(octet::cuda::padded_token_rows(kTokens, 128, 128) * row_bytes));
  for (const i64 G : kGroupCounts) {
    const std::vector<i64> ends = weighted_group_ends(kTokens, G, 600);
    const DeviceBuffer<i64> offs(ends);
    DeviceBuffer<i64> starts(static_cast<std::size_t>(G + 1));
    const i64 out_rows = octet::cuda::padded_token_rows(kTokens, G, 32);
    b.row("pad_token_groups", shape, G, double(kTokens * row_bytes + out_rows * row_bytes + 8 * G), [&] {
      octet::cuda::pad_token_groups(rows, {}, offs.get(), G, 32, y.get(), nullptr, starts.get());
    });
    // unpad: the padded rows back (read back only the group rows)
    const octet::cuda::DeviceRows padded{y.get(), out_rows, kHidden, 2};
    DeviceBuffer<std::uint8_t> back(static_cast<std::size_t>(kTokens * row_bytes));
    b.row("unpad_token_groups", shape, G, double(2 * kTokens * row_bytes + 16 * G), [&] {
      octet::cuda::unpad_token_groups(padded, {}, offs.get(), G, starts.get(), kTokens, back.get(), nullptr);
    });
  }
  // torchao EP permute_and_pad: 8 ranks x E local experts, counts summing to the tokens
  for (const i64 E : kGroupCounts) {
    const i64 R = 8;
    const std::vector<i64> ends = weighted_group_ends(kTokens, R * E, 650);
    std::vector<i64> counts(ends.size());
    for (std::size_t i = 0; i < ends.size(); ++i) counts[i] = ends[i] - (i ? ends[i - 1] : 0);
    const DeviceBuffer<i64> d_counts(counts);
    const i64 out_rows = octet::cuda::permute_and_pad_rows(kTokens, E, 32);
    DeviceBuffer<i64> indices(static_cast<std::size_t>(out_rows)), m_sizes(static_cast<std::size_t>(E)),
        m_offsets(static_cast<std::size_t>(E));
    b.row("permute_and_pad", shape, E, double(kTokens * row_bytes + out_rows * (row_bytes + 8)), [&] {
      octet::cuda::permute_and_pad(rows, {}, d_counts.get(), R, E, 32, y.get(), nullptr, indices.get(), m_sizes.get(),
                                   m_offsets.get());
    });
  }
  std::vector<i64> perm(static_cast<std::size_t>(kTokens));
  for (i64 i = 0; i < kTokens; ++i) perm[std::size_t(i)] = (i * 7919) % kTokens;
  const DeviceBuffer<i64> d_perm(perm);
  b.row("permute_tokens", shape, 1, double(2 * kTokens * row_bytes + 8 * kTokens),
        [&] { octet::cuda::permute_tokens(rows, {}, d_perm.get(), kTokens, y.get(), nullptr); });
  b.row("unpermute_tokens", shape, 1, double(2 * kTokens * row_bytes + 8 * kTokens),
        [&] { octet::cuda::unpermute_tokens(rows, {}, d_perm.get(), kTokens, y.get(), nullptr); });

  // TE fused permute + pad / unpermute + unpad: T = 16640 / K tokens, K = 8 routes (1 for E = 1)
  for (const i64 E : kGroupCounts) {
    const i64 K = E == 1 ? 1 : 8, T = kTokens / K;
    std::vector<std::int32_t> experts(static_cast<std::size_t>(T * K));
    std::vector<float> probs(static_cast<std::size_t>(T * K));
    for (i64 i = 0; i < T * K; ++i) {
      experts[std::size_t(i)] = std::int32_t((golden::uniform_int(700, std::uint64_t(i / K), E) + 7 * (i % K)) % E);
      probs[std::size_t(i)] = 0.125f;
    }
    const DeviceBuffer<std::int32_t> d_experts(experts);
    const DeviceBuffer<float> d_probs(probs);
    DeviceBuffer<i64> row_t_k(static_cast<std::size_t>(T * K)), per_expert(static_cast<std::size_t>(E)),
        pad_offsets(static_cast<std::size_t>(E)), padded_offs(static_cast<std::size_t>(E));
    octet::cuda::make_row_id_map(d_experts.get(), T, K, E, 32, row_t_k.get(), per_expert.get(), pad_offsets.get(),
                                 padded_offs.get());
    const i64 prow = padded_offs.download().back();
    DeviceBuffer<float> y_probs(static_cast<std::size_t>(prow));
    const octet::cuda::DeviceRows tok{x.get(), T, kHidden, 2};
    const std::string tshape = std::to_string(T) + "x5120 bf16 k" + std::to_string(K);
    // The routing map is part of the op (TE's moe_permute computes it, then permutes).
    b.row("fused_permute_pad", tshape, E, double(T * row_bytes + prow * row_bytes + 12 * T * K + 4 * prow), [&] {
      octet::cuda::route_permute_pad(d_experts.get(), T, K, E, 32, tok, {}, d_probs.get(), prow, y.get(), nullptr,
                                     y_probs.get(), row_t_k.get(), per_expert.get(), pad_offsets.get(),
                                     padded_offs.get());
    });
    const octet::cuda::DeviceRows permuted{y.get(), prow, kHidden, 2};
    DeviceBuffer<std::uint16_t> combined(static_cast<std::size_t>(T * kHidden));
    b.row("fused_unpermute_unpad", tshape, E, double(T * K * row_bytes + T * row_bytes + 12 * T * K), [&] {
      octet::cuda::fused_unpermute_unpad(permuted, octet::InputType::bf16, row_t_k.get(), T, K, d_probs.get(), {},
                                         combined.get());
    });
  }
}

void bench_transposes(Bench& b) {
  const i64 cb = kHidden / 128;
  const DeviceBuffer<std::uint8_t> q(random_bytes(kTokens * kHidden, 800));
  std::vector<float> si(static_cast<std::size_t>(kTokens * cb));
  for (i64 i = 0; i < kTokens * cb; ++i) si[std::size_t(i)] = std::ldexp(1.0f, int(golden::uniform_int(801, std::uint64_t(i), 26)) - 20);
  const DeviceBuffer<float> d_si(si);
  DeviceBuffer<std::uint8_t> qt(static_cast<std::size_t>(kTokens * kHidden));
  DeviceBuffer<float> csi(static_cast<std::size_t>((kTokens / 128 + 129) * kHidden)), sit(static_cast<std::size_t>(cb * kTokens));
  for (const auto v : {octet::Fp8FlowVariant::published, octet::Fp8FlowVariant::ideal, octet::Fp8FlowVariant::naive})
    for (const i64 G : kGroupCounts) {
      std::vector<std::int32_t> offs;
      for (const i64 e : weighted_group_ends(kTokens, G, 802)) offs.push_back(std::int32_t(e));
      const octet::Fp8FlowLayout L = octet::fp8flow_layout(offs, kTokens, kHidden);
      const double bytes = double(2 * L.qt_size() + 8 * L.sit_size() + 4 * L.csi_size());
      b.row("fp8flow_transpose_" + std::string(octet::name(v)), "16640x5120 e4m3", G, bytes,
            [&] { octet::cuda::fp8flow_transpose(v, q.get(), d_si.get(), L, {qt.get(), csi.get(), sit.get()}); });
    }
}

void bench_swiglu(Bench& b) {
  const DeviceBuffer<std::uint16_t> x(bf16_values(kTokens * 2 * kHidden, 900)), grad(bf16_values(kTokens * kHidden, 901));
  DeviceBuffer<std::uint16_t> y(static_cast<std::size_t>(kTokens * 2 * kHidden));
  DeviceBuffer<std::uint8_t> q(static_cast<std::size_t>(kTokens * 2 * kHidden));
  DeviceBuffer<std::uint32_t> scales(static_cast<std::size_t>(kTokens * 2 * kHidden / 32));
  for (const char* name : {"te_mxfp8", "te_blockwise"}) {
    const octet::Recipe& r = octet::recipe(name);
    const i64 block = octet::swiglu_block_size(r), scale_bytes = block == 32 ? 1 : 4;
    const std::string shape = std::string("16640x10240 bf16 ") + name;
    const double fwd = double(kTokens * 2 * kHidden * 2 + kTokens * kHidden * 3 + kTokens * kHidden / block * scale_bytes);
    b.row("swiglu_quantize_forward", shape, 1, fwd, [&] {
      octet::cuda::swiglu_quantize_forward(octet::InputType::bf16, x.get(), kTokens, kHidden, r, nullptr, nullptr,
                                           {y.get(), q.get(), scales.get()});
    });
    const double bwd = double(kTokens * 3 * kHidden * 2 + kTokens * 2 * kHidden * 3 + kTokens * 2 * kHidden / block * scale_bytes);
    b.row("swiglu_quantize_backward", shape, 1, bwd, [&] {
      octet::cuda::swiglu_quantize_backward(octet::InputType::bf16, grad.get(), x.get(), kTokens, kHidden, r, false,
                                            nullptr, {y.get(), q.get(), scales.get()});
    });
  }
}

void bench_a2a(Bench& b) {
  // 8 ranks exchanging 16640 rows of 5120 bf16 (one random split matrix)
  const i64 R = 8;
  std::vector<i64> splits(static_cast<std::size_t>(R * R));
  const std::vector<i64> ends = weighted_group_ends(kTokens, R * R, 1000);
  for (i64 i = 0; i < R * R; ++i) splits[std::size_t(i)] = ends[std::size_t(i)] - (i ? ends[std::size_t(i - 1)] : 0);
  const octet::A2aPlan plan(splits, R);
  const DeviceBuffer<i64> gather(plan.gather()), reverse(plan.reversed().gather());
  const DeviceBuffer<std::uint16_t> x(bf16_values(kTokens * kHidden, 1001));
  DeviceBuffer<std::uint16_t> y(static_cast<std::size_t>(kTokens * kHidden));
  DeviceBuffer<std::uint8_t> q(static_cast<std::size_t>(kTokens * kHidden));
  DeviceBuffer<std::uint32_t> scales(static_cast<std::size_t>(kTokens * kHidden / 32));
  const std::string shape = "16640x5120 bf16 r8";
  const i64 in = kTokens * kHidden * 2;
  for (const auto payload : {octet::A2aPayload::passthrough, octet::A2aPayload::mxfp8, octet::A2aPayload::fp8_blockwise}) {
    const octet::Recipe* r = octet::default_recipe(payload);
    const i64 block = payload == octet::A2aPayload::mxfp8 ? 32 : 128;
    const double bytes = payload == octet::A2aPayload::passthrough
                             ? double(2 * in + 8 * kTokens)
                             : double(2 * in + kTokens * kHidden + kTokens * kHidden / block * (block == 32 ? 1 : 4) + 8 * kTokens);
    b.row("a2a_exchange_" + std::string(octet::name(payload)), shape, R, bytes, [&] {
      octet::cuda::a2a_exchange(octet::InputType::bf16, x.get(), kTokens, kHidden, gather.get(), payload,
                                r != nullptr ? *r : octet::recipe("torchao_mx_rceil"), y.get(), q.get(), scales.get());
    });
  }
  // combine: every send row is one route of its token (K = 1), weight 0.5
  std::vector<i64> routes(static_cast<std::size_t>(kTokens));
  for (i64 i = 0; i < kTokens; ++i) routes[std::size_t(i)] = i;
  const DeviceBuffer<i64> d_routes(routes);
  const DeviceBuffer<float> weights(std::vector<float>(static_cast<std::size_t>(kTokens), 0.5f));
  b.row("a2a_combine", shape, R, double(2 * in + 12 * kTokens), [&] {
    octet::cuda::a2a_combine(octet::InputType::bf16, x.get(), kTokens, kHidden, reverse.get(), d_routes.get(), kTokens, 1,
                             weights.get(), octet::A2aPayload::passthrough, octet::recipe("torchao_mx_rceil"), {},
                             y.get());
  });
}

}  // namespace

int main() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    std::printf("octet_gpu_bench_layout: no CUDA device\nDisposition: Skipped\n");
    return 0;
  }
  bench::keep_pool_memory();

  const bool ok = validate_all();
  std::printf(ok ? "All results match. Starting benchmarks.\n" : "validation FAILED; timing anyway\n");
  Bench b;
  b.copy = bench::copy_gbs(std::size_t(256) << 20);
  std::printf("copy %.1f GB/s (device-to-device cudaMemcpy of 256 MiB, read + write)\n", b.copy);
  std::printf("write %.1f GB/s (cudaMemset of 256 MiB: the ceiling of kernels that mostly write, not used for %% copy)\n",
              bench::write_gbs(std::size_t(256) << 20));
  bench_swizzles(b);
  bench_tokens(b);
  bench_transposes(b);
  bench_swiglu(b);
  bench_a2a(b);
  return ok ? 0 : 1;
}
