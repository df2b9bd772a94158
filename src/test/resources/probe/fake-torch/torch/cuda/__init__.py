import os

import torch

from . import memory  # noqa: F401

_queued = []
_initialized = False
OutOfMemoryError = torch.OutOfMemoryError


def _lazy_call(fn, **kwargs):
    if _initialized:
        fn()
    else:
        _queued.append(fn)


def init():
    """What torch.cuda._lazy_init does: runs the queued calls (a raising one would break the job)."""
    global _initialized
    if _initialized:
        return
    _initialized = True
    for fn in _queued:
        fn()


def is_initialized():
    return _initialized


def is_current_stream_capturing():
    return False


def synchronize():
    torch._check_cuda("cuda")


def is_available():
    """No GPU when FAKE_TORCH_NO_CUDA is set, or under the (fake) compute-sanitizer when FAKE_TORCH_NO_CUDA_UNDER_TOOL
    is: CUDA failed to start there, as when the tool cannot see the card."""
    if os.environ.get("FAKE_TORCH_NO_CUDA"):
        return False
    # the (fake) tool's injection, not the blocking run's kernel census (the probe's launch_census.so)
    injection = os.environ.get("CUDA_INJECTION64_PATH", "")
    under_tool = injection and not injection.endswith("launch_census.so")
    return not (os.environ.get("FAKE_TORCH_NO_CUDA_UNDER_TOOL") and under_tool)


def memory_stats():
    """The caching allocator's counters: blocks allocated so far (the fake's handles) and their bytes."""
    return {"allocation.all.allocated": memory._next[0] - 1,
            "allocated_bytes.all.allocated": sum(b["size"] for b in memory.BLOCKS.values())}
