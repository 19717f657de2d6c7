#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The octet authors
#
# kernel_table.py — the GPU kernel table: octet's benchmark rows (bench_harness.hpp: "kernel NAME
# | SHAPE | groups G | T us | B GB/s | P% copy") joined with the torch.compile reference rows
# ("torch NAME SHAPE groups G T us") on (kernel, shape, groups); torch time / octet time is the
# speed-up. Rows below 85% of copy bandwidth are marked.
#   usage: kernel_table.py BENCH_LOG [TORCH_LOG]
import re
import sys

BENCH = re.compile(r"^kernel (\S+)\s*\|\s*(.+?)\s*\|\s*groups\s+(\d+)\s*\|\s*([\d.]+) us\s*\|\s*([\d.]+) GB/s\s*\|\s*([\d.]+)% copy")
TORCH = re.compile(r"^torch (\S+) (.+?) groups (\d+) ([\d.]+) us")
TARGET_PCT = 85.0


def main(argv):
    rows, torch = [], {}
    with open(argv[1], errors="replace") as f:
        for line in f:
            m = BENCH.match(line.strip())
            if m:
                rows.append((m[1], m[2], int(m[3]), float(m[4]), float(m[5]), float(m[6])))
    if len(argv) > 2:
        try:
            with open(argv[2], errors="replace") as f:
                for line in f:
                    m = TORCH.match(line.strip())
                    if m:
                        torch[(m[1], m[2].strip(), int(m[3]))] = float(m[4])
        except FileNotFoundError:
            pass
    if not rows:
        print("kernel table: no benchmark rows")
        return 1
    print(f"{'kernel':<48} {'shape':<24} {'G':>4} {'us':>9} {'GB/s':>8} {'%copy':>6} {'torch us':>9} {'speed-up':>8}")
    below = 0
    for name, shape, groups, us, gbs, pct in rows:
        t = torch.get((name, shape, groups))
        flag = "" if pct >= TARGET_PCT else "  < 85%"
        below += pct < TARGET_PCT
        tt = f"{t:9.1f} {t / us:7.2f}x" if t else f"{'-':>9} {'-':>8}"
        print(f"{name:<48} {shape:<24} {groups:>4} {us:9.1f} {gbs:8.1f} {pct:5.1f}% {tt}{flag}")
    print(f"{len(rows)} rows, {below} below {TARGET_PCT:.0f}% of copy bandwidth")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
