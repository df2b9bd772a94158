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
