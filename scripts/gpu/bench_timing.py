# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The octet authors
#
# bench_timing.py — the timing of the torch.compile references (torch_ref_*.py), the same method
# as octet's benchmarks (backends/cuda/bench_harness.hpp, bench::median_ms): the median of `reps`
# calls, each between two CUDA events, after `warmups` untimed calls. The timed calls are queued
# behind a kernel that holds the GPU, and no call waits for the one before it, so an event pair
# times the GPU's work alone, not the host's launch latency. OCTET_BENCH_TIMING=sync waits for
# each call instead (the method of the tables before 2026-11-26).
import os

import torch

SYNCED = os.environ.get("OCTET_BENCH_TIMING") == "sync"


def median_us(fn, reps=50, warmups=5):
    for _ in range(warmups):
        fn()
    torch.cuda.synchronize()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
    if not SYNCED:
        # ~200 us per call at ~1.7 GHz (torch.cuda._sleep spins for a cycle count): more than the
        # host takes to queue a compiled call.
        torch.cuda._sleep(350_000 * reps)
    for start, stop in events:
        start.record()
        fn()
        stop.record()
        if SYNCED:
            stop.synchronize()
    torch.cuda.synchronize()
    times = sorted(start.elapsed_time(stop) * 1e3 for start, stop in events)
    return times[len(times) // 2]
