"""Issue #42: the allocation record's cost per allocation, without the sanitizer. N rounds of 8 tensors of
varied sizes allocated and freed at one line each (the caching allocator off, so each is a cudaMalloc);
prints microseconds per allocation. Run with the probe in sanitizer mode, GPU_SANITIZE_PROBE_ALLOCS=1 and =0."""
import sys
import time

import torch

n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
torch.empty(1, device="cuda")
torch.cuda.synchronize()
t0 = time.perf_counter()
for i in range(n):
    kept = [torch.empty(256 * (k + 1) + (i % 7), device="cuda") for k in range(8)]
    del kept
torch.cuda.synchronize()
dt = time.perf_counter() - t0
print("allocations %d us_per_alloc %.2f" % (n * 8, dt / (n * 8) * 1e6), flush=True)
