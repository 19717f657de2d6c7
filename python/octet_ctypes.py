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
