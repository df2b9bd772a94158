"""Allocations and frees on other threads: one with Python frames (a prefetch thread), many at once, and one with
no Python frame at all (torch's C++ calling the GPU trace from a thread of its own)."""
import threading

import torch
from torch.cuda import _gpu_trace

N = 300


def prefetch(base):
    for i in range(N):
        t = torch.cuda_empty(4, base + i * 0x1000)  # line 13: each thread's allocation
        del t  # line 14: and its free


threads = [threading.Thread(target=prefetch, args=(0x7e0000000000 + k * 0x10000000,)) for k in range(3)]
for t in threads:
    t.start()
for t in threads:
    t.join()
_gpu_trace.fire_without_frames(0x7f00000a0000)
_gpu_trace.fire_without_frames(0x7f00000a0000, free=True)
print("done")
