# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The octet authors
"""The JSON output of `octet formats`, `cast`, `decode` and `sweep`: it parses, has exactly the
documented keys, and agrees with ml_dtypes on limits, decodes of every 8-bit code, and casts of
ordinary (in-range, non-NaN) fp32 values, where every profile agrees.

usage: check_json.py path/to/octet
"""
import json
import math
import subprocess
import sys

import ml_dtypes
import numpy as np

OCTET = sys.argv[1]

DTYPES = {
    "e4m3fn": ml_dtypes.float8_e4m3fn,
    "e4m3fnuz": ml_dtypes.float8_e4m3fnuz,
    "e5m2": ml_dtypes.float8_e5m2,
    "e5m2fnuz": ml_dtypes.float8_e5m2fnuz,
    "e8m0fnu": ml_dtypes.float8_e8m0fnu,
    "e2m3fn": ml_dtypes.float6_e2m3fn,
    "e3m2fn": ml_dtypes.float6_e3m2fn,
    "e2m1fn": ml_dtypes.float4_e2m1fn,
    "bf16": ml_dtypes.bfloat16,
    "fp16": np.float16,
    "fp32": np.float32,
    "fp64": np.float64,
}
UINT = {8: np.uint8, 16: np.uint16}

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def octet_json(*args):
    out = subprocess.run([OCTET, *args], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def decode_ml(dtype, code, bits):
    """The value ml_dtypes / numpy gives a code, as a Python float."""
    return float(np.array([code], dtype=UINT[max(bits, 8)]).view(dtype).astype(np.float64)[0])


def same_value(json_value, expected):
    if isinstance(json_value, str):
        if json_value == "nan":
            return math.isnan(expected)
        return json_value in ("inf", "-inf") and expected == float(json_value)
    return float(json_value) == expected and math.copysign(1, float(json_value)) == math.copysign(1, expected)


# ---- formats --json -------------------------------------------------------------------------
FORMAT_KEYS = {"name", "bits", "exponent_bits", "mantissa_bits", "bias", "max", "min_normal",
               "min_subnormal", "has_inf", "nan_codes", "nan_code_count"}
formats = octet_json("formats", "--json")
check([f["name"] for f in formats] == list(DTYPES), f"formats --json names: {[f['name'] for f in formats]}")
bits_of = {}
for f in formats:
    name = f["name"]
    check(set(f) == FORMAT_KEYS, f"formats --json {name}: keys {sorted(f)}")
    dtype = DTYPES[name]
    fi = ml_dtypes.finfo(dtype)  # numpy's finfo for float16 / 32 / 64
    bits_of[name] = f["bits"]
    check(f["max"] == float(fi.max), f"{name} max {f['max']} vs {float(fi.max)}")
    check(f["min_normal"] == float(fi.smallest_normal), f"{name} min_normal {f['min_normal']}")
    check(f["min_subnormal"] == float(fi.smallest_subnormal), f"{name} min_subnormal {f['min_subnormal']}")
    check(f["mantissa_bits"] == fi.nmant, f"{name} mantissa_bits {f['mantissa_bits']} vs {fi.nmant}")
    check(f["has_inf"] == (name in ("e5m2", "bf16", "fp16", "fp32", "fp64")), f"{name} has_inf")
    if f["bits"] <= 8:
        nan_codes = [c for c in range(1 << f["bits"]) if math.isnan(decode_ml(dtype, c, 8))]
        check([int(c, 16) for c in f["nan_codes"]] == nan_codes, f"{name} nan_codes {f['nan_codes']} vs {nan_codes}")
        check(f["nan_code_count"] == len(nan_codes), f"{name} nan_code_count")
    else:
        check(f["nan_code_count"] == 2 * (2 ** f["mantissa_bits"] - 1), f"{name} nan_code_count")
        if f["bits"] == 16:
            check(all(math.isnan(decode_ml(dtype, int(c, 16), 16)) for c in f["nan_codes"]), f"{name} nan_codes")

# ---- decode --json: every code of every 8-bit format against ml_dtypes --------------------
DECODE_KEYS = {"code", "value", "class"}
for name, dtype in DTYPES.items():
    if bits_of[name] > 8:
        continue
    rows = octet_json("decode", "--format", name, "--json")
    check(len(rows) == 1 << bits_of[name], f"decode {name}: {len(rows)} codes")
    for row in rows:
        check(set(row) == DECODE_KEYS, f"decode {name}: keys {sorted(row)}")
        expected = decode_ml(dtype, int(row["code"], 16), 8)
        check(same_value(row["value"], expected), f"decode {name} {row['code']}: {row['value']} vs {expected}")

# ---- cast --json: ordinary fp32 values, where every profile agrees ------------------------
CAST_KEYS = {"input", "input_bits", "code", "value", "class"}
ORDINARY = ["448", "1.5", "0.3", "-2.75", "0.001", "-17", "3", "0.0625", "100", "-0.75", "5.5", "0"]
for name, dtype in DTYPES.items():
    if name in ("fp32", "fp64"):
        continue
    fmax = next(f["max"] for f in formats if f["name"] == name)
    values = [v for v in ORDINARY if abs(float(v)) <= fmax]
    if name == "e8m0fnu":  # unsigned, no zero; 1.5 and 3 are ties whose rule differs by library
        values = ["448", "0.3", "0.001", "100", "5.5"]
    rows = octet_json("cast", "--format", name, "--json", *values)
    check(len(rows) == len(values), f"cast {name}: {len(rows)} rows")
    x = np.array([float(v) for v in values], dtype=np.float32)
    want = x.astype(dtype).view(UINT[max(bits_of[name], 8)])
    for row, v, w in zip(rows, values, want):
        check(set(row) == CAST_KEYS, f"cast {name}: keys {sorted(row)}")
        check(row["input"] == v, f"cast {name}: input {row['input']} vs {v}")
        check(int(row["input_bits"], 16) == int(np.array([float(v)], np.float32).view(np.uint32)[0]),
              f"cast {name} {v}: input_bits {row['input_bits']}")
        check(int(row["code"], 16) == int(w), f"cast {name} {v}: code {row['code']} vs ml_dtypes {int(w):#04x}")
        check(same_value(row["value"], decode_ml(dtype, int(w), 8 if bits_of[name] <= 8 else 16)),
              f"cast {name} {v}: value {row['value']}")

# ---- sweep --json ---------------------------------------------------------------------------
SWEEP_KEYS = {"format", "rounding", "overflow", "threads", "seconds", "conversions_per_second", "digest"}
sweep = octet_json("sweep", "--format", "e4m3fn", "--range", "1", "--json")
check(set(sweep) == SWEEP_KEYS, f"sweep --json keys {sorted(sweep)}")
check(len(sweep["digest"]) == 16 and int(sweep["digest"], 16) >= 0, f"sweep digest {sweep['digest']}")
sweep = octet_json("sweep", "--format", "e4m3fn", "--range", "1", "--json", "--check")
check(set(sweep) == SWEEP_KEYS | {"mismatches"} and sweep["mismatches"] == 0, f"sweep --check {sweep}")

for f in failures:
    print("FAIL:", f)
print(f"check_json: {len(failures)} failures")
sys.exit(1 if failures else 0)
