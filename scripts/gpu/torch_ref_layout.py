#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The octet authors
#
# torch_ref_layout.py — torch.compile references of octet's CUDA layout, transpose, fused and a2a
# kernels (backends/cuda/bench_layout.cu), at the same shapes, for the speed-up column of the
# kernel table (scripts/gpu/kernel_table.py). Each reference is the PyTorch formulation the peers
# ship or test against (torchao mx_formats/utils.py::to_blocked, torch_pad_token_groups, index
# gathers / scatters, TE's unpermute sum, the FP8-Flow transpose and SwiGLU + MX quantisation
# written with torch ops), compiled with torch.compile; group layouts and index maps are built
# once outside the timed region, as octet's host-side plans are. Time: median of 50 CUDA-event
# timed calls after warm-up (bench_timing.py). Output, one line per measurement:
#   torch <kernel> <shape> groups <G> <us> us
# Needs torch with CUDA (2.x); no network.
import math
import os
import sys
import time

import torch
import torch.nn.functional as F

from bench_timing import median_us

TOKENS, HIDDEN = 16640, 5120
SCALE_COLS = HIDDEN // 32
ALL_GROUPS = (1, 16, 64, 128)
# torch.compile takes seconds per graph and the grouped references recompile per group count:
# by default only groups 1 and 64 are measured (OCTET_TORCH_REF_GROUPS="1,16,64,128" for all).
GROUPS = tuple(int(g) for g in os.environ.get("OCTET_TORCH_REF_GROUPS", "1,64").split(","))
DEV = "cuda"
# The script must finish within 120 s on the H200: no new measurement starts after BUDGET_S
# (a compile plus 55 timed calls takes up to ~15 s).
BUDGET_S = float(os.environ.get("OCTET_TORCH_REF_BUDGET_S", "95"))
T0 = time.time()


def report(kernel, shape, groups, fn):
    if time.time() - T0 > BUDGET_S:
        print(f"torch-skipped {kernel} {shape} groups {groups}: time budget spent", flush=True)
        return
    try:
        us = median_us(fn)
        print(f"torch {kernel} {shape} groups {groups} {us:.1f} us", flush=True)
    except Exception as e:  # a reference that does not compile is reported, not fatal
        print(f"torch-failed {kernel} {shape} groups {groups}: {type(e).__name__}: {e}", flush=True)


def group_ends(total, groups, seed, align=1):
    """Random group sizes (multiples of align) summing to total; group 1 empty when G >= 16."""
    g = torch.Generator().manual_seed(seed)
    w = torch.randint(1, 1001, (groups,), generator=g).tolist()
    if groups >= 16:
        w[1] = 0
    s, cum, ends = sum(w), 0, []
    for x in w:
        cum += x
        ends.append((total // align) * cum // s * align)
    return ends


# ---- MX scale swizzles (torchao mx_formats/utils.py::to_blocked) ---------------------------------

def to_blocked(x, pad_value=0):
    rows, cols = x.shape
    nrb, ncb = math.ceil(rows / 128), math.ceil(cols / 4)
    padded = F.pad(x, (0, ncb * 4 - cols, 0, nrb * 128 - rows), value=pad_value)
    blocks = padded.view(nrb, 128, ncb, 4).permute(0, 2, 1, 3)
    return blocks.reshape(-1, 4, 32, 4).transpose(1, 2).reshape(-1, 32, 16).flatten()


def from_blocked(b, rows, cols):
    nrb, ncb = math.ceil(rows / 128), math.ceil(cols / 4)
    t = b.view(nrb * ncb, 32, 4, 4).transpose(1, 2).reshape(nrb, ncb, 128, 4).permute(0, 2, 1, 3)
    return t.reshape(nrb * 128, ncb * 4)[:rows, :cols]


def bench_swizzles():
    s = torch.randint(0, 256, (TOKENS, SCALE_COLS), dtype=torch.uint8, device=DEV)
    shape = "16640x160 e8m0"
    f = torch.compile(to_blocked)
    report("to_blocked", shape, 1, lambda: f(s))
    b = to_blocked(s)
    g = torch.compile(lambda t: from_blocked(t, TOKENS, SCALE_COLS).contiguous())
    report("from_blocked", shape, 1, lambda: g(b))
    # Grouped layouts: torchao's per-group to_blocked applied once to an index matrix gives the
    # gather map (-1: padding); the timed reference is the compiled gather.
    gather = torch.compile(lambda x, idx: torch.where(idx >= 0, x.flatten()[idx.clamp(min=0)], 0), dynamic=True)
    idx_m = torch.arange(TOKENS * SCALE_COLS, device=DEV).view(TOKENS, SCALE_COLS)
    for G in GROUPS:
        ends = group_ends(TOKENS, G, 200)
        parts = [to_blocked(idx_m[b:e], -1) for b, e in zip([0] + ends[:-1], ends) if e > b]
        idx = torch.cat(parts)
        idx = F.pad(idx, (0, (TOKENS + 128 * G) * SCALE_COLS - idx.numel()), value=-1)
        report("to_blocked_m_groups", shape, G, lambda: gather(s, idx))
    sk = torch.randint(0, 256, (HIDDEN, TOKENS // 32), dtype=torch.uint8, device=DEV)
    idx_k = torch.arange(HIDDEN * (TOKENS // 32), device=DEV).view(HIDDEN, TOKENS // 32)
    for G in GROUPS:
        ends = [e // 32 for e in group_ends(TOKENS, G, 300, 32)]
        parts = [to_blocked(idx_k[:, b:e], -1) for b, e in zip([0] + ends[:-1], ends) if e > b]
        idx = torch.cat(parts)
        idx = F.pad(idx, (0, HIDDEN * (TOKENS // 32 + 4 * G) - idx.numel()), value=-1)
        report("to_blocked_k_groups", "5120x520 e8m0", G, lambda: gather(sk, idx))
    s3 = torch.randint(0, 256, (8, 5120, 256), dtype=torch.uint8, device=DEV)
    f3 = torch.compile(lambda x: torch.stack([to_blocked(x[e]) for e in range(x.shape[0])]))
    report("to_blocked_per_group_3d", "8x5120x256 e8m0", 8, lambda: f3(s3))


# ---- token padding / permutation ---------------------------------------------------------------

def gather_rows(x, src):
    """y[i] = x[src[i]], src -1 -> zero row."""
    valid = (src >= 0).unsqueeze(1)
    return torch.where(valid, x[src.clamp(min=0)], torch.zeros((), dtype=x.dtype, device=x.device))


def bench_tokens():
    x = torch.randn(TOKENS, HIDDEN, device=DEV).to(torch.bfloat16)
    shape = "16640x5120 bf16"
    f = torch.compile(gather_rows, dynamic=True)  # one graph for every row count
    for G in GROUPS:
        ends = group_ends(TOKENS, G, 600)
        starts = [0] + ends[:-1]
        out_rows = (TOKENS + G * 32 + 31) // 32 * 32
        src = torch.full((out_rows,), -1, dtype=torch.int64)
        unpad_src = torch.full((TOKENS,), -1, dtype=torch.int64)
        at = 0
        for b, e in zip(starts, ends):
            src[at:at + e - b] = torch.arange(b, e)
            unpad_src[b:e] = torch.arange(at, at + e - b)
            at += (e - b + 31) // 32 * 32
        src, unpad_src = src.to(DEV), unpad_src.to(DEV)
        report("pad_token_groups", shape, G, lambda: f(x, src))
        padded = f(x, src)
        report("unpad_token_groups", shape, G, lambda: f(padded, unpad_src))
    # torchao EP permute_and_pad: generate_permute_indices once, the compiled gather timed
    for E in GROUPS:
        R = 8
        ends = group_ends(TOKENS, R * E, 650)
        counts = [e - b for b, e in zip([0] + ends[:-1], ends)]
        max_len = (TOKENS + E * 32 + 31) // 32 * 32
        idx = torch.full((max_len,), -1, dtype=torch.int64)
        start = [sum(counts[:i]) for i in range(R * E)]
        end = 0
        for e in range(E):
            write = end
            for r in range(R):
                c = counts[r * E + e]
                n = max(0, min(c, max_len - write))
                idx[write:write + n] = torch.arange(start[r * E + e], start[r * E + e] + n)
                write += c
            total = sum(counts[r * E + e] for r in range(R))
            end += (max(total, 32) + 31) // 32 * 32
        idx = idx.to(DEV)
        report("permute_and_pad", shape, E, lambda: f(x, idx))
    perm = (torch.arange(TOKENS) * 7919 % TOKENS).to(DEV)
    report("permute_tokens", shape, 1, lambda: f(x, perm))

    def scatter(y, idx):
        out = torch.zeros_like(y)
        out[idx] = y
        return out

    fs = torch.compile(scatter)
    report("unpermute_tokens", shape, 1, lambda: fs(x, perm))

    # TE permute + pad / unpermute + unpad
    def combine(permuted, rows_t_k, probs):
        valid = (rows_t_k >= 0).unsqueeze(-1)
        routed = permuted[rows_t_k.clamp(min=0)].float()
        return torch.where(valid, routed * probs.unsqueeze(-1), 0.0).sum(1).to(torch.bfloat16)

    fc = torch.compile(combine, dynamic=True)
    for E in GROUPS:
        K = 1 if E == 1 else 8
        T = TOKENS // K
        g = torch.Generator().manual_seed(700)
        first = torch.randint(0, E, (T, 1), generator=g)
        experts = (first + 7 * torch.arange(K)) % E
        counts = torch.bincount(experts.flatten(), minlength=E)
        padded = (counts + 31) // 32 * 32
        starts = torch.cumsum(padded, 0) - padded
        # row of route (t, k): expert start + rank of t among the expert's tokens
        order = torch.argsort(experts.flatten() * T + torch.arange(T).repeat_interleave(K), stable=True)
        rank = torch.empty(T * K, dtype=torch.int64)
        flat = experts.flatten()
        rank[order] = torch.arange(T * K) - (torch.cumsum(counts, 0) - counts)[flat[order]]
        rows_t_k = (starts[flat] + rank).view(T, K)
        prow = int(padded.sum())
        data_src = torch.full((prow,), -1, dtype=torch.int64)
        data_src[rows_t_k.flatten()] = torch.arange(T).repeat_interleave(K)
        rows_t_k, data_src = rows_t_k.to(DEV), data_src.to(DEV)
        probs = torch.full((T, K), 0.125, device=DEV)
        xt = x[:T]
        tshape = f"{T}x5120 bf16 k{K}"
        report("fused_permute_pad", tshape, E, lambda: f(xt, data_src))
        permuted = f(xt, data_src)
        report("fused_unpermute_unpad", tshape, E, lambda: fc(permuted, rows_t_k, probs))


# ---- FP8-Flow scaling-aware transpose ------------------------------------------------------------

def fp8flow_published(q, si, tile_of_row, n_tiles, groups):
    """q (m, cols) uint8 codes, si (m, cb) fp32; tile_of_row (m,) global tile-row index."""
    m, cols = q.shape
    cb = si.shape[1]
    s_tile = torch.zeros(n_tiles, cb, device=q.device).scatter_reduce(0, tile_of_row[:, None].expand(m, cb), si, "amax")
    exp = lambda v: ((v.view(torch.int32) >> 23) & 0xFF) - 127
    k = (exp(s_tile)[tile_of_row] - exp(si)).clamp(max=31)
    k = k.repeat_interleave(128, dim=1)[:, :cols]
    qi = q.to(torch.int32)
    e = (qi >> 3) & 0xF
    e_new = torch.where(e - k < 1, 0, e - k)
    code = torch.where(e == 0, 0, (qi & 0x80) | (e_new << 3) | (qi & 7)).to(torch.uint8)
    parts = [code[b:e_].t().contiguous().flatten() for b, e_ in groups]
    return torch.cat(parts), s_tile.repeat_interleave(128, dim=1)[:, :cols], torch.cat([si[b:e_].t().flatten() for b, e_ in groups])


def fp8flow_naive(q, si, groups):
    m, cols = q.shape
    x = (q.view(torch.float8_e4m3fn).float() * si.repeat_interleave(128, dim=1)[:, :cols]).to(torch.bfloat16)
    codes, scales = [], []
    for b, e in groups:
        xt = x[b:e].t().float()
        mg = e - b
        pad = (mg + 127) // 128 * 128 - mg
        blocks = F.pad(xt, (0, pad)).view(cols, -1, 128)
        amax = blocks.abs().amax(-1, keepdim=True)
        scale = torch.where(amax > 0, 448.0 / amax, 1.0)
        c = (blocks * scale).clamp(-448, 448).to(torch.float8_e4m3fn).view(cols, -1)[:, :mg]
        codes.append(c.contiguous().view(torch.uint8).flatten())
        scales.append((1.0 / scale).squeeze(-1).t())
    return torch.cat(codes), torch.cat(scales)


def bench_transposes():
    cb = HIDDEN // 128
    q = torch.randint(0, 256, (TOKENS, HIDDEN), dtype=torch.uint8, device=DEV)
    si = torch.exp2(torch.randint(-20, 6, (TOKENS, cb), device=DEV).float())
    shape = "16640x5120 e4m3"
    for G in GROUPS:
        ends = group_ends(TOKENS, G, 802)
        groups = [(b, e) for b, e in zip([0] + ends[:-1], ends) if e > b]
        tile_of_row, t0 = [], 0
        for b, e in groups:
            n = (e - b + 127) // 128
            tile_of_row += [t0 + i // 128 for i in range(e - b)]
            t0 += n
        tiles = torch.tensor(tile_of_row, device=DEV)
        fp = torch.compile(lambda a, s: fp8flow_published(a, s, tiles, t0, groups))
        report("fp8flow_transpose_published", shape, G, lambda: fp(q, si))
        fn = torch.compile(lambda a, s: fp8flow_naive(a, s, groups))
        report("fp8flow_transpose_naive", shape, G, lambda: fn(q, si))


# ---- SwiGLU + MX quantisation ----------------------------------------------------------------------

def mx_quantize_rows(y):
    """1x32 e8m0 RCEIL-style rowwise quantisation (torch formulation of to_mx)."""
    m, n = y.shape
    blocks = y.float().view(m, n // 32, 32)
    amax = blocks.abs().amax(-1, keepdim=True)
    e = torch.ceil(torch.log2(amax / 448.0)).clamp(-127, 127)
    scale = torch.exp2(-e)
    q = (blocks * scale).clamp(-448, 448).to(torch.float8_e4m3fn).view(m, n)
    return q, (e + 127).to(torch.uint8).view(m, n // 32)


def bench_swiglu():
    x = torch.randn(TOKENS, 2 * HIDDEN, device=DEV).to(torch.bfloat16)
    grad = torch.randn(TOKENS, HIDDEN, device=DEV).to(torch.bfloat16)

    def fwd(x):
        a, g = x.float().chunk(2, dim=-1)
        y = (a * torch.sigmoid(a) * g).to(torch.bfloat16)
        return (y,) + mx_quantize_rows(y)

    def bwd(grad, x):
        a, g = x.float().chunk(2, dim=-1)
        s = torch.sigmoid(a)
        dact = a * s * (1 - s) + s
        dx = torch.cat([dact * grad.float() * g, a * s * grad.float()], dim=-1).to(torch.bfloat16)
        return (dx,) + mx_quantize_rows(dx)

    ff, fb = torch.compile(fwd), torch.compile(bwd)
    report("swiglu_quantize_forward", "16640x10240 bf16 te_mxfp8", 1, lambda: ff(x))
    report("swiglu_quantize_backward", "16640x10240 bf16 te_mxfp8", 1, lambda: fb(grad, x))


# ---- a2a emulation (quantise, exchange, dequantise) -------------------------------------------------

def bench_a2a():
    x = torch.randn(TOKENS, HIDDEN, device=DEV).to(torch.bfloat16)
    perm = (torch.arange(TOKENS) * 7919 % TOKENS).to(DEV)

    def exchange_mx(x, gather):
        q, s = mx_quantize_rows(x)
        q, s = q[gather], s[gather]
        d = torch.exp2(s.float() - 127).repeat_interleave(32, dim=1)
        return (q.float() * d).to(torch.bfloat16), q, s

    fe = torch.compile(exchange_mx)
    report("a2a_exchange_mxfp8", "16640x5120 bf16 r8", 8, lambda: fe(x, perm))
    fg = torch.compile(lambda x, g: x[g])
    report("a2a_exchange_passthrough", "16640x5120 bf16 r8", 8, lambda: fg(x, perm))


def main():
    if not torch.cuda.is_available():
        print("torch_ref_layout: no CUDA device")
        return 0
    torch.backends.cuda.matmul.allow_tf32 = False
    skipped = [g for g in ALL_GROUPS if g not in GROUPS]
    if skipped:
        print(f"torch-skipped groups {', '.join(map(str, skipped))} of every grouped kernel: "
              f"measuring groups {', '.join(map(str, GROUPS))} only (OCTET_TORCH_REF_GROUPS)", flush=True)
    for part in (bench_tokens, bench_swizzles, bench_swiglu, bench_a2a, bench_transposes):
        try:
            part()
        except Exception as e:
            print(f"torch-failed {part.__name__}: {type(e).__name__}: {e}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
