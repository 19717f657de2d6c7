# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The octet authors
"""torch's float8 casts (CPU and CUDA) against octet's `torch` profile, all 2^32 fp32 inputs.

usage: conformance_torch.py LIBOCTET_CAPI [--devices cpu,cuda] [--chunk-log2 28]
Prints one line per (dtype, device) with the difference count and up to 5 examples, a
classification of the differences, the versions, and `N passed, N failed` last.
"""
import argparse
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from octet_ctypes import Octet  # noqa: E402

DTYPES = [("float8_e4m3fn", "e4m3fn"), ("float8_e5m2", "e5m2"), ("float8_e4m3fnuz", "e4m3fnuz"),
          ("float8_e5m2fnuz", "e5m2fnuz"), ("float8_e8m0fnu", "e8m0fnu")]


def kind(bits):
    """A coarse class of an fp32 input, for the report."""
    exp = (bits >> 23) & 0xFF
    mant = bits & 0x7FFFFF
    if exp == 0xFF:
        return "nan" if mant else "inf"
    if exp == 0:
        return "zero" if mant == 0 else "fp32-subnormal"
    return "finite"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("lib")
    p.add_argument("--devices", default="cpu,cuda")
    p.add_argument("--chunk-log2", type=int, default=28)
    p.add_argument("--profile", default="torch")
    args = p.parse_args()
    octet = Octet(args.lib)
    devices = [d for d in args.devices.split(",") if d != "cuda" or torch.cuda.is_available()]
    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "none"
    print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, GPU {gpu}, numpy {np.__version__}, "
          f"profile {args.profile}, torch threads {torch.get_num_threads()}")
    chunk = 1 << args.chunk_log2
    passed = failed = 0
    for torch_name, octet_name in DTYPES:
        dtype = getattr(torch, torch_name, None)
        if dtype is None:
            print(f"{torch_name}: not in this torch")
            continue
        for device in devices:
            t0 = time.time()
            differences = 0
            examples = []
            kinds = {}
            for start in range(0, 1 << 32, chunk):
                bits = torch.arange(start, start + chunk, dtype=torch.int64, device=device).to(torch.int32)
                got_torch = bits.view(torch.float32).to(dtype).view(torch.uint8).cpu().numpy()
                want = octet.cast_fp32_range(octet_name, args.profile, start, chunk)
                bad = np.flatnonzero(got_torch != want)
                differences += len(bad)
                for i in bad[: max(0, 5 - len(examples))]:
                    examples.append((start + int(i), int(got_torch[i]), int(want[i])))
                if len(bad):
                    b = (np.uint64(start) + bad.astype(np.uint64)).astype(np.uint32)
                    for k in ("nan", "inf", "zero", "fp32-subnormal", "finite"):
                        exp = (b >> 23) & 0xFF
                        mant = b & 0x7FFFFF
                        sel = {"nan": (exp == 0xFF) & (mant != 0), "inf": (exp == 0xFF) & (mant == 0),
                               "zero": (exp == 0) & (mant == 0), "fp32-subnormal": (exp == 0) & (mant != 0),
                               "finite": (exp != 0) & (exp != 0xFF)}[k]
                        n = int(sel.sum())
                        if n:
                            kinds[k] = kinds.get(k, 0) + n
            status = "ok" if differences == 0 else "DIFFERENCES"
            print(f"{torch_name} {device}: {differences} differences over 2^32 fp32 inputs ({status}, "
                  f"{time.time() - t0:.1f} s) {kinds if kinds else ''}")
            for bits, t, o in examples:
                print(f"    input 0x{bits:08x} ({kind(bits)}): torch 0x{t:02x} octet 0x{o:02x}")
            if differences == 0:
                passed += 1
            else:
                failed += 1
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
