"""The caching allocator, faked: live blocks with the Python frames that allocated them. The snapshot
itself is torch._C._cuda_memorySnapshot, as in torch."""
import os
import sys

import torch
from torch import _C

CAPACITY = 1 << 30
BLOCKS = {}
HISTORY = {"enabled": None}
_next = [1]


def _record_memory_history(enabled="all", context="all", stacks="all", max_entries=sys.maxsize):
    HISTORY.update(enabled=enabled, context=context, stacks=stacks, max_entries=max_entries)


def _frames():
    out = []
    f = sys._getframe(2)
    while f is not None:
        out.append({"filename": f.f_code.co_filename, "line": f.f_lineno, "name": f.f_code.co_name})
        f = f.f_back
    return out  # innermost first, as torch.cuda.memory._snapshot() gives them


def alloc(nbytes):
    """Allocates a fake CUDA block; returns its handle. Out of memory calls the observers, then raises."""
    torch.cuda.init()
    used = sum(b["size"] for b in BLOCKS.values())
    if used + nbytes > CAPACITY:
        for fn in torch._C.OBSERVERS:
            fn(0, nbytes, used, CAPACITY - used)
        raise torch.OutOfMemoryError(
            "CUDA out of memory. Tried to allocate %d bytes. GPU 0 has a total capacity of %d bytes"
            % (nbytes, CAPACITY))
    h = _next[0]
    _next[0] += 1
    BLOCKS[h] = {"size": nbytes, "requested_size": nbytes, "state": "active_allocated",
                 "frames": _frames() if HISTORY["enabled"] else []}
    return h


def free(h):
    BLOCKS.pop(h, None)


def _snapshot(device=None):
    if os.environ.get("FAKE_TORCH_OLD_SNAPSHOT"):
        return _C._cuda_memorySnapshot()
    if os.environ.get("FAKE_TORCH_KEYWORD_SNAPSHOT"):
        return _C._cuda_memorySnapshot(mempool_id=None)
    return _C._cuda_memorySnapshot(None)
