"""torch._C, faked: the allocator snapshot is built here, as in torch (torch/csrc/cuda/Module.cpp), and its
Python frames are symbolized the way torch/csrc/profiler/python/combined_traceback.cpp does it:
`py::hasattr(torch, "_inductor")`, which in torch 2.x is a lazy module attribute: the first lookup IMPORTS
torch._inductor (torch.__getattr__ -> importlib.import_module), in whichever thread asked for the snapshot.
"""
import os
import sys
import threading

from . import _race

OBSERVERS = []


def _cuda_attach_out_of_memory_observer(fn):
    OBSERVERS.append(fn)


def _len_torch_dispatch_stack():
    return 0


def _hasattr(obj, name):
    """PyObject_HasAttr, as pybind11's py::hasattr calls it: any exception is 'no'."""
    try:
        getattr(obj, name)
        return True
    except BaseException:
        return False


def _symbolize(blocks):
    """The Python frames of the blocks' allocation stacks, with what inductor maps generated code to."""
    if not any(b.get("frames") for b in blocks):
        return
    import torch  # py::module::import("torch"): a dictionary lookup, torch is loaded

    if os.environ.get("FAKE_TORCH_SNAPSHOT_IMPORTS"):
        import importlib

        importlib.import_module("torch._inductor")  # a torch that imports outright: py::module::import
    extra = None
    if _hasattr(torch, "_inductor"):
        inductor = torch._inductor
        if _hasattr(inductor, "codecache"):
            extra = inductor.codecache.PyCodeCache.stack_frames_for_code
    for b in blocks:
        frames = []
        for f in b.get("frames") or []:
            frames.append(dict(f))
            more = extra(f["filename"], f["line"]) if extra is not None else None
            if more:
                frames.extend(more)
        b["frames"] = frames


def _snapshot_impl(include_traces):
    # list() copies the values in one C call, which no other thread can interleave (the GIL): the real call holds
    # the allocator's mutex, and iterating the dict here in Python let the job's allocations change it mid-copy
    # ("dictionary changed size during iteration", seen once in a full test run)
    blocks = [dict(b) for b in list(sys.modules["torch.cuda.memory"].BLOCKS.values())]
    entered = threading.current_thread() is not threading.main_thread()
    if entered:
        _race.snapshot_entered()
    try:
        _symbolize(blocks)
        return {
            "segments": [{"total_size": sum(b["size"] for b in blocks) + (1 << 20),
                          "blocks": blocks + [{"size": 1 << 20, "state": "inactive", "frames": []}]}],
            "device_traces": [[{"action": "alloc", "size": 1}] * 10] if include_traces else [[]],
        }
    finally:
        if entered:
            _race.snapshot_done()


if os.environ.get("FAKE_TORCH_OLD_SNAPSHOT"):
    def _cuda_memorySnapshot():
        """Older torch: no argument, always the full snapshot (history included)."""
        return _snapshot_impl(True)
elif os.environ.get("FAKE_TORCH_KEYWORD_SNAPSHOT"):
    def _cuda_memorySnapshot(*, mempool_id):
        """A torch whose snapshot takes none of the forms the probe knows (only torch.cuda.memory._snapshot())."""
        return _snapshot_impl(True)
else:
    def _cuda_memorySnapshot(mempool_id):
        """Newer torch: None is the full snapshot; (pool, pool, include_traces) leaves the history out."""
        if mempool_id is not None and not (isinstance(mempool_id, tuple) and len(mempool_id) in (2, 3)):
            raise TypeError("mempool_id must be None or a tuple")
        include = not (isinstance(mempool_id, tuple) and len(mempool_id) == 3 and not mempool_id[2])
        return _snapshot_impl(include)


def _activate_gpu_trace():
    from torch.cuda import _gpu_trace

    _gpu_trace.ACTIVE[0] = True
