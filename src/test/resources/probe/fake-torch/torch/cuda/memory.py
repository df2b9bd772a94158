"""The caching allocator, faked: live blocks with the Python frames that allocated them."""
import sys

import torch

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
    return {
        "segments": [{"total_size": sum(b["size"] for b in BLOCKS.values()) + (1 << 20),
                      "blocks": [dict(b) for b in BLOCKS.values()]
                      + [{"size": 1 << 20, "state": "inactive", "frames": []}]}],
        "device_traces": [[{"action": "alloc", "size": 1}] * 10],
    }
