# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The octet authors
"""ctypes binding of octet's C API (python/octet_capi.cpp) for numpy cross-checks."""
import ctypes
import numpy as np


class Octet:
    def __init__(self, library_path):
        self.lib = ctypes.CDLL(library_path)
        self.lib.octet_last_error.restype = ctypes.c_char_p
        self.lib.octet_cast_fp32_range.argtypes = [ctypes.c_char_p] * 4 + [
            ctypes.c_uint32, ctypes.c_uint64, ctypes.c_void_p]
        self.lib.octet_cast.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_uint64] + [
            ctypes.c_char_p] * 4 + [ctypes.c_void_p, ctypes.c_void_p]
        i64, vp = ctypes.c_int64, ctypes.c_void_p
        self.lib.octet_scaled_mm_e4m3.argtypes = [
            vp, i64, i64, vp, i64, ctypes.c_int, vp, i64, vp, i64, ctypes.c_char_p,
            i64, ctypes.c_int, ctypes.c_int, i64, ctypes.c_char_p, vp, vp]

    @staticmethod
    def _c(s):
        return None if s is None else s.encode()

    def _check(self, rc):
        if rc != 0:
            raise ValueError(self.lib.octet_last_error().decode())

    def cast_fp32_range(self, fmt, profile, first, n, rounding=None, overflow=None):
        out = np.empty(n, dtype=np.uint8)
        self._check(self.lib.octet_cast_fp32_range(self._c(fmt), self._c(profile), self._c(rounding),
                                                   self._c(overflow), first, n, out.ctypes.data))
        return out

    def cast(self, x, fmt, profile, rounding=None, overflow=None):
        x = np.ascontiguousarray(x)
        source = {np.dtype(np.float32): "fp32", np.dtype(np.float64): "fp64"}[x.dtype]
        wide = fmt in ("bf16", "fp16", "bfloat16", "float16")
        out = np.empty(x.size, dtype=np.uint16 if wide else np.uint8)
        self._check(self.lib.octet_cast(self._c(source), x.ctypes.data, x.size, self._c(fmt), self._c(profile),
                                        self._c(rounding), self._c(overflow), out.ctypes.data, None))
        return out.reshape(x.shape)

    def scaled_mm_e4m3(self, a_codes, b_codes, scale_a, scale_b, model, out_dtype="fp32", b_col_major=False,
                       promote_chunk=128, mantissa_bits=14, group=32, promote_interval=0):
        """torch._scaled_mm on e4m3fn codes: (A·scale_a) @ (B·scale_b) -> (M, N) float32 array.

        a_codes: uint8 (M, K). b_codes: uint8 (K, N) row-major, or with b_col_major=True the (N, K)
        row-major array (B column-major, as torch's `b.t().contiguous()` holds it). scale_a: 1 or M
        fp32 decode multipliers; scale_b: 1 or N. out_dtype "bf16" gives bf16 values as float32.
        Returns (out, (rel, abs)): the output and the model's a-priori elementwise bound
        |out - y| <= rel·sum_k|a_k·b_k| + abs.
        """
        a = np.ascontiguousarray(a_codes, dtype=np.uint8)
        b = np.ascontiguousarray(b_codes, dtype=np.uint8)
        m, k = a.shape
        n = b.shape[0] if b_col_major else b.shape[1]
        if (b.shape[1] if b_col_major else b.shape[0]) != k:
            raise ValueError(f"B shape {b.shape} does not match K = {k}")
        sa = np.ascontiguousarray(np.atleast_1d(scale_a), dtype=np.float32).ravel()
        sb = np.ascontiguousarray(np.atleast_1d(scale_b), dtype=np.float32).ravel()
        out = np.empty((m, n), dtype=np.float32)
        bound = np.zeros(2, dtype=np.float64)
        self._check(self.lib.octet_scaled_mm_e4m3(
            a.ctypes.data, m, k, b.ctypes.data, n, int(bool(b_col_major)), sa.ctypes.data, sa.size,
            sb.ctypes.data, sb.size, self._c(model), promote_chunk, mantissa_bits, group, promote_interval,
            self._c(out_dtype), out.ctypes.data, bound.ctypes.data))
        return out, (float(bound[0]), float(bound[1]))
