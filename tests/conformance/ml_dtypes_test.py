# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The octet authors
"""octet's `ml_dtypes` profile against the ml_dtypes package itself.

Every fp32 input (2^32) cast with numpy `astype` to every ml_dtypes type that octet has, compared
code for code with octet (zero differences expected), plus ml_dtypes' numpy casts from float64:
releases before ml_dtypes PR #401 go through float32 (double rounding), which octet reproduces as
"round to fp32 first"; releases with it (0.7.0 on) round directly, as octet's direct fp64 path does.
The check says which of the two ml_dtypes does and fails when it matches neither.

usage: ml_dtypes_test.py LIBOCTET_CAPI [--types T,...] [--chunks N] [--jobs J]
Prints `N passed, N failed` last; exit 0 only when everything matched.
"""
import argparse
import multiprocessing as mp
import os
import sys

import numpy as np
import ml_dtypes

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from octet_ctypes import Octet  # noqa: E402

TYPES = ["float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu",
         "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn"]
CHUNK = 1 << 24
_octet = None


def _init(lib):
    global _octet
    _octet = Octet(lib)


def _check_chunk(args):
    dtype_name, start = args
    bits = np.arange(CHUNK, dtype=np.uint32) + np.uint32(start)  # start + CHUNK <= 2^32
    with np.errstate(invalid="ignore", over="ignore"):  # NaN/Inf inputs are the point
        want = bits.view(np.float32).astype(getattr(ml_dtypes, dtype_name)).view(np.uint8)
    got = _octet.cast_fp32_range(dtype_name, "ml_dtypes", start, CHUNK)
    bad = np.flatnonzero(want != got)
    return dtype_name, len(bad), [(int(bits[i]), int(want[i]), int(got[i])) for i in bad[:5]]


def check_fp64_double_rounding(octet):
    """ml_dtypes numpy float64 -> fp8: through float32 before PR #401, directly with it."""
    x = np.array([-431.99999999999994, 431.99999999999994, 464.00000000000006, 3.0000000000000004], np.float64)
    numpy_codes = x.astype(ml_dtypes.float8_e4m3fn).view(np.uint8)
    via_fp32 = octet.cast(x.astype(np.float32), "e4m3fn", "ml_dtypes")
    direct = octet.cast(x, "e4m3fn", "ml_dtypes")
    # The inputs are chosen so that the two roundings differ (-431.99999999999994: -448 via fp32,
    # -416 directly); if octet's two paths agreed, the check could not tell ml_dtypes' apart.
    paths_differ = via_fp32[0] == 0xFE and direct[0] == 0xFD
    if np.array_equal(numpy_codes, via_fp32):
        verdict = "through fp32 (double rounding, before ml_dtypes PR #401)"
    elif np.array_equal(numpy_codes, direct):
        verdict = "directly (ml_dtypes PR #401)"
    else:
        verdict = "UNEXPECTED: neither of octet's paths"
    ok = paths_differ and not verdict.startswith("UNEXPECTED")
    print(f"fp64 -> e4m3fn: numpy {[hex(c) for c in numpy_codes]}, octet via fp32 {[hex(c) for c in via_fp32]}, "
          f"octet direct fp64 {[hex(c) for c in direct]} -> ml_dtypes rounds {verdict}"
          f"{'' if paths_differ else '; octet paths do not differ on these inputs'}")
    return ok


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("lib")
    parser.add_argument("--types", default=",".join(TYPES))
    parser.add_argument("--chunks", type=int, default=1 << 8, help="chunks of 2^24 inputs (256 = all)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    args = parser.parse_args()
    types = args.types.split(",")
    print(f"ml_dtypes {ml_dtypes.__version__}, numpy {np.__version__}; {args.chunks} x 2^24 fp32 inputs per type")
    passed = failed = 0
    octet = Octet(args.lib)
    if check_fp64_double_rounding(octet):
        passed += 1
    else:
        failed += 1
    stride = (1 << 8) // args.chunks
    work = [(t, c * stride * CHUNK) for t in types for c in range(args.chunks)]
    mismatches = {t: 0 for t in types}
    examples = {t: [] for t in types}
    with mp.Pool(args.jobs, initializer=_init, initargs=(args.lib,)) as pool:
        for dtype_name, n, ex in pool.imap_unordered(_check_chunk, work, chunksize=1):
            mismatches[dtype_name] += n
            examples[dtype_name] += ex
    for t in types:
        status = "ok" if mismatches[t] == 0 else "MISMATCH"
        print(f"{t}: {mismatches[t]} differences over {args.chunks * CHUNK} fp32 inputs ({status})")
        for bits, want, got in sorted(examples[t])[:5]:
            print(f"    input 0x{bits:08x}: ml_dtypes 0x{want:02x} octet 0x{got:02x}")
        if mismatches[t] == 0:
            passed += 1
        else:
            failed += 1
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
