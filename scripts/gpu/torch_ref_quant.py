# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The octet authors
#
# torch_ref_quant.py — torch.compile reference timings for octet's CUDA quantisers
# (backends/cuda/bench_quant.cu), at the same shapes: 16640x5120 bf16 activations with 1/16/64/128
# groups, expert weights E=8 x 5120x8192 and E=64 x 2048x1408. Each operation is written in plain
# PyTorch after the peer's torch reference (torchao float8_utils.py / moe_training/utils.py
# torch_to_float8_per_group_{rowwise,colwise}, mx_tensor.py::to_mx RCEIL, blockwise_fp8_training
# kernels' torch references), compiled with torch.compile, and timed with CUDA events (median of
# 50 runs after warm-up, bench_timing.py). These are bandwidth references, not bit-exact twins:
# octet's own GPU test checks bytes against the emulator. Per-group ops take a per-index group id tensor (a
# scatter-reduce amax), so one compiled graph serves every group count: each operation is compiled
# once with dynamic shapes, and rows past --budget seconds are skipped (run.sh allows ~120 s).
#
# Prints one line per measurement, which scripts/gpu/run.sh merges with the benchmark rows:
#   torch <kernel> <shape> groups <G> <us> us
# Usage: python3 scripts/gpu/torch_ref_quant.py [--reps N] [--budget SECONDS]
import argparse
import sys
import time

import torch

from bench_timing import median_us

FP8 = torch.float8_e4m3fn
FP8_MAX = 448.0
EPS = 1e-12


def pow2_scale(amax):
    # torchao amax_to_scale with round_scales_to_power_of_2: fp64 division, exp2(floor(log2 s)).
    s = (FP8_MAX / torch.clamp(amax.to(torch.float64), min=EPS)).to(torch.float32)
    return torch.exp2(torch.floor(torch.log2(s)))


def to_fp8(x, s):
    return torch.clamp(x.to(torch.float32) * s, -FP8_MAX, FP8_MAX).to(FP8)


# ---- the operations ------------------------------------------------------------------------------


def rowwise_2d(x):
    s = pow2_scale(x.abs().amax(dim=1, keepdim=True).to(torch.float32))
    return to_fp8(x, s), s


def per_group_rowwise(x, gid, groups):
    # gid[k]: the group of column k (tensor-only, so one compiled graph serves every group count)
    m, k = x.shape
    index = gid.unsqueeze(0).expand(m, k)
    amax = torch.zeros(m, groups, device=x.device, dtype=torch.float32)
    amax = amax.scatter_reduce(1, index, x.abs().to(torch.float32), reduce="amax", include_self=True)
    s = pow2_scale(amax)
    return to_fp8(x, s.gather(1, index)), s.t().contiguous()


def per_group_colwise(x, gid, groups):
    # gid[m]: the group of row m; one scale per (group, column); codes column-major
    m, n = x.shape
    index = gid.unsqueeze(1).expand(m, n)
    amax = torch.zeros(groups, n, device=x.device, dtype=torch.float32)
    amax = amax.scatter_reduce(0, index, x.abs().to(torch.float32), reduce="amax", include_self=True)
    s = pow2_scale(amax)
    return to_fp8(x, s.gather(0, index)).t().contiguous().t(), s


def mx_rceil(blocks):
    # to_mx RCEIL: e8m0 = RP(amax / 448), multiplier 2^(127 - b), cast saturating.
    amax = blocks.abs().amax(dim=-1, keepdim=True).to(torch.float32)
    d = amax * (1.0 / FP8_MAX)
    exp = torch.ceil(torch.log2(d)).clamp(-127, 127)
    scale = torch.exp2(-exp)
    q = torch.clamp(blocks.to(torch.float32) * scale, -FP8_MAX, FP8_MAX).to(FP8)
    return q, (exp + 127).to(torch.uint8)


def mx_dim0(x):
    m, k = x.shape
    q, s = mx_rceil(x.reshape(m, k // 32, 32))
    return q.reshape(m, k), s.reshape(m, k // 32)


def mx_dim1(x):
    m, k = x.shape
    q, s = mx_rceil(x.t().reshape(k, m // 32, 32))
    return q.reshape(k, m).t(), s.reshape(k, m // 32)


def blockwise_scale(amax):
    s = (FP8_MAX / torch.clamp(amax, min=EPS).to(torch.float64)).to(torch.float32)
    return s


def act_quant_lhs(x):
    m, k = x.shape
    b = x.reshape(m, k // 128, 128)
    s = blockwise_scale(b.abs().amax(dim=-1, keepdim=True).to(torch.float32))
    q = to_fp8(b, s).reshape(m, k)
    return q, (1.0 / s).reshape(m, k // 128).t().contiguous().t()


def act_quant_rhs(x):
    m, k = x.shape
    b = x.reshape(m // 128, 128, k)
    s = blockwise_scale(b.abs().amax(dim=1, keepdim=True).to(torch.float32))
    q = to_fp8(b, s).reshape(m, k)
    return q.t().contiguous().t(), (1.0 / s).reshape(m // 128, k)


def weight_quant_rhs(w):
    # w (E, M, N): per expert 128x128 tiles, codes column-major per expert
    e, m, n = w.shape
    t = w.reshape(e, m // 128, 128, n // 128, 128)
    s = blockwise_scale(t.abs().amax(dim=(2, 4), keepdim=True).to(torch.float32))
    q = to_fp8(t, s).reshape(e, m, n)
    return q.transpose(1, 2).contiguous().transpose(1, 2), (1.0 / s).reshape(e, m // 128, n // 128)


def colwise_3d(w):
    # w (E, K, N) stored per-expert column-major; one scale per (e, n) over K
    s = pow2_scale(w.abs().amax(dim=1, keepdim=True).to(torch.float32))
    return to_fp8(w, s), s


def rowwise_3d_transpose_rhs(w):
    # w (E, K, N) row-major; one scale per (e, k) over N; the (E, N, K) codes with strides
    # (N*K, 1, N) occupy the input's memory order
    s = pow2_scale(w.abs().amax(dim=2, keepdim=True).to(torch.float32))
    return to_fp8(w, s), s


def mx_3d_32x1(x):
    # x (E, N, K): 32 consecutive n per column k; codes column-major per expert
    e, n, k = x.shape
    blocks = x.reshape(e, n // 32, 32, k).transpose(2, 3)
    q, s = mx_rceil(blocks)
    return q.transpose(2, 3).reshape(e, n, k).transpose(1, 2).contiguous().transpose(1, 2), s


def mx_3d_32x32(x):
    # x (E, N, K): 32x32 blocks, one e8m0 scale each; codes column-major per expert
    e, n, k = x.shape
    blocks = x.reshape(e, n // 32, 32, k // 32, 32).permute(0, 1, 3, 2, 4).reshape(e, n // 32, k // 32, 1024)
    q, s = mx_rceil(blocks)
    q = q.reshape(e, n // 32, k // 32, 32, 32).permute(0, 1, 3, 2, 4).reshape(e, n, k)
    return q.transpose(1, 2).contiguous().transpose(1, 2), s


def group_ids(extent, groups, seed):
    # group boundaries at multiples of 16 (as the bench draws them), as a per-index group id
    g = torch.Generator().manual_seed(seed)
    cuts = sorted(int(c) * 16 for c in torch.randint(0, extent // 16 + 1, (groups - 1,), generator=g))
    ends = torch.tensor(cuts + [extent], dtype=torch.int64)
    return torch.bucketize(torch.arange(extent), ends, right=True).clamp(max=groups - 1).cuda()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument("--budget", type=float, default=110.0, help="seconds; later rows are skipped past it")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("Disposition: Skipped (no CUDA device)")
        return 0
    started = time.monotonic()
    torch.manual_seed(0)
    m, k = 16640, 5120
    shape = f"{m}x{k} bf16"
    x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)

    # One compiled function per operation, reused for every shape and group count (dynamic shapes:
    # a recompilation per shape would cost most of the time budget).
    compiled = {}

    def report(kernel, shape_text, groups, fn, *inputs):
        if time.monotonic() - started > args.budget:
            print(f"# skipped {kernel} {shape_text} groups {groups}: past the {args.budget:.0f} s budget",
                  file=sys.stderr, flush=True)
            return
        if fn not in compiled:
            compiled[fn] = torch.compile(fn, dynamic=True)
        c = compiled[fn]
        us = median_us(lambda: c(*inputs), args.reps)
        print(f"torch {kernel} {shape_text} groups {groups} {us:.1f} us", flush=True)

    report("fp8_rowwise_2d_scale_and_cast", shape, 1, rowwise_2d, x)
    report("mx_quantize_dim0", shape, 1, mx_dim0, x)
    report("mx_quantize_dim1", shape, 1, mx_dim1, x)
    report("fp8_blockwise_act_quant_lhs", shape, 1, act_quant_lhs, x)
    x_rhs = x[: (m // 128) * 128]
    report("fp8_blockwise_act_quant_rhs", shape, 1, act_quant_rhs, x_rhs)
    for groups in (1, 64, 16, 128):
        report("fp8_per_group_rowwise_scales", shape, groups, per_group_rowwise, x, group_ids(k, groups, 3), groups)
        report("fp8_per_group_colwise_scales", shape, groups, per_group_colwise, x, group_ids(m, groups, 5), groups)
    for experts, rows, cols in ((8, 5120, 8192), (64, 2048, 1408)):
        w = torch.randn(experts, rows, cols, device="cuda", dtype=torch.bfloat16)
        shape3 = f"{experts}x{rows}x{cols} bf16"
        w_col = w.transpose(1, 2).contiguous().transpose(1, 2)  # per-expert column-major (E, K, N)
        report("fp8_colwise_3d_scale_and_cast", shape3, 1, colwise_3d, w_col)
        report("fp8_rowwise_3d_transpose_rhs", shape3, 1, rowwise_3d_transpose_rhs, w)
        report("mx_quantize_3d/32x1", shape3, 1, mx_3d_32x1, w)
        report("mx_quantize_3d/32x32", shape3, 1, mx_3d_32x32, w)
        report("fp8_blockwise_weight_quant_rhs", shape3, 1, weight_quant_rhs, w)
        del w, w_col
    print(f"# torch_ref_quant: {time.monotonic() - started:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
