# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The octet authors
"""Runs the h5py snippet of golden/schema.md, exactly as written there, on a sample file.

usage: check_schema_snippet.py WRITE_SAMPLE_EXE SCHEMA_MD OUT_H5
"""
import math
import re
import subprocess
import sys

import numpy as np

writer, schema_md, out_h5 = sys.argv[1:4]
subprocess.run([writer, out_h5], check=True)

text = open(schema_md, encoding="utf-8").read()
m = re.search(r"<!-- snippet:begin -->\s*```python\n(.*?)```\s*<!-- snippet:end -->", text, re.S)
assert m, "schema.md has no snippet between <!-- snippet:begin --> and <!-- snippet:end -->"
snippet = m.group(1)
lines = [l for l in snippet.splitlines() if l.strip()]
assert len(lines) == 10, f"the snippet should be ten lines, it has {len(lines)}"

env = {"path": out_h5}
exec(compile(snippet, "schema.md snippet", "exec"), env)

x, scale = env["x_f32"], env["scale_f32"]
assert x.dtype == np.float32 and x.shape == (2, 4), (x.dtype, x.shape)
want_x = [0.0, 1.0, -1.0, 448.0, 2.0**-9, -0.0, math.nan, 1.125]
for got, want in zip(x.reshape(-1).tolist(), want_x):
    if math.isnan(want):
        assert math.isnan(got), (got, want)
    else:
        assert got == want and math.copysign(1, got) == math.copysign(1, want), (got, want)
want_scale = [1.0, 2.0**-127, 2.0**127, math.nan]
assert scale.dtype == np.float32 and scale.shape == (4,)
for got, want in zip(scale.tolist(), want_scale):
    assert (math.isnan(got) and math.isnan(want)) or got == want, (got, want)
print("schema snippet: decoded", x.reshape(-1).tolist(), scale.tolist())
print("Disposition: Passed")
