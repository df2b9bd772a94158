"""GPU Sanitizer's in-process probe: the allocation record, under memcheck without the caching allocator
(docs/probe.md, issue #42). Each process's allocations and frees with the job's lines, in alloc-PID.jsonl beside
probe.jsonl.
"""

import json
import os
import sys
import threading
import time

import gpu_sanitize_core as core
from gpu_sanitize_frames import _is_user, _loc, _user_frames


# ---------------------------------------------------------------------------------------------
# sanitizer mode: the allocation record (issue #42)
#
# Under PYTORCH_NO_CUDA_MEMORY_CACHING=1 every tensor is its own cudaMalloc, and memcheck names the one an
# out-of-bounds access ran past by its first byte ("... after the nearest allocation at 0x... of size N").
# The allocator's history records nothing in that mode (its uncached path bypasses it; measured on the card),
# but it calls torch's GPU trace (torch.cuda._gpu_trace, the hook CSAN uses) with the pointer of each cudaMalloc
# and, before it, of each cudaFree. So: a callback per allocation takes the innermost user frames and the size
# (cuMemGetAddressRange) and writes a line to this process's own alloc-PID.jsonl, unless the address already
# has that size and site in the file; a callback per free writes a `free` line with the line that freed it (issue
# #48, 6: memcheck's "inside the nearest allocation" is a freed block, named as a use after free). The first line
# says what the record holds (`alloc-record`: frees recorded, memcheck's --padding the driver counts in a size).
# The lines are written as the job runs: the job dies of the fault (under memcheck, in a destructor:
# std::terminate, no excepthook), the record is there. The file is bounded: at GPU_SANITIZE_PROBE_MAX_ALLOCS
# lines it becomes alloc-PID.prev.jsonl and a new one starts with the sites, the allocations still live and the
# blocks freed last, so a buffer allocated at the start (a static buffer) is never lost.
#
# Threads: a callback comes on whichever thread allocates or frees (a prefetch thread, autograd's engine, a
# thread with no Python frame at all). One lock orders the record; a thread-local flag turns an event that comes
# on the same thread while its callback runs (a tensor freed by the garbage collector inside it) into one queued
# and recorded right after, never dropped; what still cannot be recorded is counted (`dropped`).
# Shapes: only where a frame's locals are a proxy (Python 3.13+, PEP 667). On 3.12 and older, reading
# f_locals stores a dict of strong references on the frame: the job's old tensors would stay alive past the line
# that rebinds them, raising the run's peak and changing which addresses are reused (what --padding relies
# on). There, size and line name the buffer. Locals are matched by exact type: isinstance on a job's object can
# run the job's code.


class _Allocs(object):
    on = False
    fd = None
    fd_id = None
    path = None
    header = None  # the alloc-record line every file starts with
    live = {}  # ptr -> (size, site id) of the allocations not freed
    freed = {}  # ptr -> (size, site id, free site id) of the blocks freed last and not allocated again (bounded)
    written = {}  # ptr -> (size, site id) or (size, site id, free site id) as last written in the current file
    shapes = {}  # ptr -> the alloc-shape line of a live allocation
    pending = []  # pointers allocated recently whose tensor was not seen yet, oldest first
    pending_at = {}  # ptr -> the callback count when it was allocated
    sites = {}  # (file, line, function, caller file, caller line) -> site id
    site_lines = {}  # site id -> its alloc-site line
    lines = 0  # in the current file
    limit = 0  # the line count at which the current file rotates (set at the start)
    files = 1
    range_of = None  # ptr -> size, or None
    calls = 0
    frees = 0
    dropped = 0  # events not recorded: the queue of one thread's nested events was full
    seconds = 0.0
    lock = threading.Lock()


_A = _Allocs()
_MAX_ALLOC_LINES = core._env_number("GPU_SANITIZE_PROBE_MAX_ALLOCS", 50000, int)
_MAX_PENDING = 16
_PENDING_EVENTS = 64  # a tensor not seen within this many allocations and frees is given up (a parameter, an
#                       activation kept for backward): the locals are looked at only while something is pending
_MAX_SITES = 5000
_MAX_FREED = 4096  # freed blocks kept across a rotation
_MAX_NESTED = 1024
_SHAPES = sys.version_info >= (3, 13)  # f_locals is a proxy: reading it keeps nothing alive


def _alloc_after_fork():
    """A forked child records into a file of its own, from nothing: the parent's allocations are the parent's."""
    _A.lock = threading.Lock()
    if _A.path is None:
        return
    _A.path = os.path.join(os.path.dirname(_A.path), "alloc-%d.jsonl" % os.getpid())
    _A.fd = _A.fd_id = None
    _A.live, _A.freed, _A.written, _A.shapes = {}, {}, {}, {}
    _A.pending, _A.pending_at = [], {}
    _A.sites, _A.site_lines = {}, {}
    _A.lines, _A.files, _A.calls, _A.frees, _A.dropped, _A.seconds = 0, 1, 0, 0, 0, 0.0
    _A.limit = _MAX_ALLOC_LINES


def _alloc_address_range():
    """size = cuMemGetAddressRange(ptr) through the driver, or None where the driver is not found. Under
    memcheck the range includes the tool's --padding guard zone."""
    import ctypes

    try:
        fn = ctypes.CDLL("libcuda.so.1").cuMemGetAddressRange_v2
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_size_t), ctypes.c_uint64]
    fn.restype = ctypes.c_int
    base = ctypes.c_uint64()
    size = ctypes.c_size_t()

    def range_of(ptr):
        if fn(ctypes.byref(base), ctypes.byref(size), ptr) == 0 and base.value == ptr:
            return size.value
        return None

    return range_of


def _alloc_write(rec):
    """One line into this process's allocation file, one os.write."""
    line = (json.dumps(rec, separators=(",", ":")) + "\n").encode("utf-8", "replace")
    fd = _A.fd
    if fd is not None:
        try:
            st = os.fstat(fd)
            if (st.st_dev, st.st_ino) != _A.fd_id:
                fd = None  # the job closed ours and got the number for a file of its own
        except OSError:
            fd = None
    if fd is None:
        fd = os.open(_A.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
        st = os.fstat(fd)
        _A.fd, _A.fd_id = fd, (st.st_dev, st.st_ino)
        if _A.lines == 0 and _A.header is not None and rec is not _A.header:
            os.write(fd, (json.dumps(_A.header, separators=(",", ":")) + "\n").encode("utf-8"))
            _A.lines += 1
    os.write(fd, line)
    _A.lines += 1


def _alloc_rotate():
    """The full file becomes .prev (the one before is dropped); the new one starts with every site, the live
    allocations and their shapes, and the blocks freed last, so that the two files always hold them all."""
    if _A.fd is not None:
        try:
            os.close(_A.fd)
        except OSError:
            pass
    _A.fd = None
    os.replace(_A.path, _A.path[:-len(".jsonl")] + ".prev.jsonl")
    _A.files += 1
    _A.lines = 0
    _A.written = {}
    try:
        for sid in sorted(_A.site_lines):
            _alloc_write(_A.site_lines[sid])
        for ptr, (size, sid) in list(_A.live.items()):
            _alloc_write({"type": "alloc", "ptr": "0x%x" % ptr, "size": size, "site": sid})
            _A.written[ptr] = (size, sid)
            shape = _A.shapes.get(ptr)
            if shape is not None:
                _alloc_write(shape)
        for ptr, (size, sid, fsid) in list(_A.freed.items()):
            _alloc_write({"type": "alloc", "ptr": "0x%x" % ptr, "size": size, "site": sid})
            _alloc_write({"type": "free", "ptr": "0x%x" % ptr, "site": fsid})
            _A.written[ptr] = (size, sid, fsid)
    finally:
        _A.limit = _A.lines + _MAX_ALLOC_LINES  # the snapshot does not count against the new file's bound


def _alloc_site(frames):
    if not frames:
        return None  # a thread with no Python frame: autograd's backward, a library's worker
    key = tuple(frames[0]) + (tuple(frames[1][:2]) if len(frames) > 1 else ())
    sid = _A.sites.get(key)
    if sid is None:
        if len(_A.sites) >= _MAX_SITES:
            return None
        sid = len(_A.sites) + 1
        _A.sites[key] = sid
        rec = {"type": "alloc-site", "id": sid, "site": _loc(*frames[0])}
        if len(frames) > 1:
            rec["caller"] = _loc(*frames[1], code=False)
        _alloc_write(rec)  # first: a rotation it causes must not write it twice
        _A.site_lines[sid] = rec
    return sid


def _alloc_seen_tensors(frame):
    """The pending allocations held by a CUDA tensor in the locals of the job's innermost two frames (3.13+ only:
    there f_locals is a proxy that stores nothing on the frame)."""
    now = _A.calls + _A.frees
    while _A.pending and now - _A.pending_at.get(_A.pending[0], now) > _PENDING_EVENTS:
        _A.pending_at.pop(_A.pending.pop(0), None)
    if not _A.pending:
        return
    looked = 0
    f = frame
    depth = 0
    while f is not None and looked < 2 and depth < 50:
        if _is_user(f.f_code.co_filename):
            looked += 1
            for v in list(f.f_locals.values()):
                if not _torch_tensor_type(type(v)):
                    continue
                try:
                    if not v.is_cuda or v.storage_offset() != 0:
                        continue
                    ptr = v.untyped_storage().data_ptr()
                    if ptr not in _A.pending_at:
                        continue
                    _A.pending.remove(ptr)
                    _A.pending_at.pop(ptr, None)
                    rec = {"type": "alloc-shape", "ptr": "0x%x" % ptr,
                           "dtype": str(v.dtype).replace("torch.", ""), "shape": list(v.shape)}
                    _A.shapes[ptr] = rec
                    _alloc_write(rec)
                except Exception:
                    continue
                if not _A.pending:
                    return
        f = f.f_back
        depth += 1


_TENSOR_TYPES = {}  # type -> whether it is torch's own tensor class (torch.Tensor, nn.Parameter, ...)


def _torch_tensor_type(kind):
    """Whether `kind` is a tensor class torch itself defines, read without running the job's code: no isinstance
    (a job's __instancecheck__ or __class__ property), the module read past any metaclass."""
    known = _TENSOR_TYPES.get(kind)
    if known is None:
        known = False
        try:
            tensor = core._S.torch.Tensor
            module = type.__getattribute__(kind, "__module__")
            known = kind is tensor or (tensor in type.__getattribute__(kind, "__mro__") and isinstance(module, str)
                                       and (module == "torch" or module.startswith("torch.")))
        except Exception:
            pass
        if len(_TENSOR_TYPES) < 1000:
            _TENSOR_TYPES[kind] = known
    return known


def _caller_frame():
    """The frame that called the callback, or None on a thread with no Python frame (sys._getframe raises)."""
    try:
        return sys._getframe(2)
    except ValueError:
        return None


def _alloc_event(kind, ptr, frame):
    """Records one event, or queues it when this thread is already recording one (never a lock taken twice)."""
    tls = core._S.tls
    nested = getattr(tls, "alloc_queue", None)
    if nested is not None:
        if len(nested) < _MAX_NESTED:
            nested.append((kind, ptr, _user_frames(frame, 2) if frame is not None else []))
        else:
            _A.dropped += 1
        return
    queue = tls.alloc_queue = []
    try:
        with _A.lock:
            t0 = time.perf_counter()
            _alloc_record(kind, ptr, _user_frames(frame, 2) if frame is not None else [], frame)
            while queue:
                k, p, frames = queue.pop(0)
                _alloc_record(k, p, frames, None)
            _A.seconds += time.perf_counter() - t0
    except Exception as e:
        core._error("alloc" if kind == "alloc" else "alloc-free", e)
    finally:
        tls.alloc_queue = None


def _alloc_record(kind, ptr, frames, frame):
    if _A.lines >= _A.limit:
        _alloc_rotate()  # before the event changes anything: the new file starts from a consistent state
    if kind == "alloc":
        _A.calls += 1
        size = _A.range_of(ptr) if _A.range_of is not None else None
        sid = _alloc_site(frames)
        _A.live[ptr] = (size, sid)
        _A.freed.pop(ptr, None)
        _A.shapes.pop(ptr, None)
        if _A.written.get(ptr) != (size, sid):
            _A.written[ptr] = (size, sid)
            _alloc_write({"type": "alloc", "ptr": "0x%x" % ptr, "size": size, "site": sid})
        if _SHAPES and sid is not None:
            if _A.pending and frame is not None:
                _alloc_seen_tensors(frame)
            if len(_A.pending) >= _MAX_PENDING:
                _A.pending_at.pop(_A.pending.pop(0), None)
            _A.pending.append(ptr)
            _A.pending_at[ptr] = _A.calls + _A.frees
        return
    _A.frees += 1
    held = _A.live.pop(ptr, None)
    _A.shapes.pop(ptr, None)
    if ptr in _A.pending_at:
        _A.pending.remove(ptr)
        del _A.pending_at[ptr]
    if held is not None:
        fsid = _alloc_site(frames)
        if len(_A.freed) >= _MAX_FREED:
            _A.freed.pop(next(iter(_A.freed)))
        _A.freed[ptr] = (held[0], held[1], fsid)
        written = _A.written.get(ptr)
        if written != (held[0], held[1], fsid):
            if written != held:  # the file holds this address otherwise (rotated since): the block first
                _alloc_write({"type": "alloc", "ptr": "0x%x" % ptr, "size": held[0], "site": held[1]})
            _A.written[ptr] = (held[0], held[1], fsid)
            _alloc_write({"type": "free", "ptr": "0x%x" % ptr, "site": fsid})
    if _SHAPES and _A.pending and frame is not None:
        _alloc_seen_tensors(frame)


def _on_alloc(ptr):
    """torch's GPU trace callback for each allocation: must be cheap and never raise."""
    if ptr:
        _alloc_event("alloc", ptr, _caller_frame())


def _on_free(ptr):
    """Called before each cudaFree: the allocation is no longer live; the job's line that freed it (a local rebound,
    a `del`) is recorded with it."""
    if ptr:
        _alloc_event("free", ptr, _caller_frame())


def _install_alloc_record(torch):
    """Returns what the `probe` line says of the record: on, or why not. Never raises."""
    try:
        return _start_alloc_record(torch)
    except Exception as e:
        core._error("alloc-record", e)
        return "off: %s" % type(e).__name__


def _start_alloc_record(torch):
    if os.environ.get("GPU_SANITIZE_PROBE_ALLOCS", "1") == "0":
        return "off (GPU_SANITIZE_PROBE_ALLOCS=0)"
    if os.environ.get("PYTORCH_NO_CUDA_MEMORY_CACHING", "") in ("", "0"):
        return "off: the caching allocator is on (memcheck names its segments, not tensors)"
    try:
        from torch.cuda import _gpu_trace as trace  # the module torch's C++ calls (CONCRETE_GPU_TRACE)
    except ImportError:
        trace = None
    activate = getattr(torch._C, "_activate_gpu_trace", None)
    if trace is None or activate is None or not hasattr(trace, "register_callback_for_memory_allocation"):
        return "off: this torch has no GPU trace (torch.cuda._gpu_trace)"
    _A.path = os.path.join(os.path.dirname(os.path.abspath(core._OUT)), "alloc-%d.jsonl" % os.getpid())
    _A.limit = _MAX_ALLOC_LINES
    _A.range_of = _alloc_address_range()
    frees = hasattr(trace, "register_callback_for_memory_deallocation")
    # what a reader needs to trust the record: whether a missing free means "still live", and the guard zone
    # (memcheck's --padding, passed by the runner) the driver counts in each size
    _A.header = {"type": "alloc-record", "frees": frees, "shapes": _SHAPES}
    padding = os.environ.get("GPU_SANITIZE_PROBE_PADDING")
    if padding is not None and padding.isdigit():
        _A.header["padding"] = int(padding)
    trace.register_callback_for_memory_allocation(_on_alloc)
    if frees:
        trace.register_callback_for_memory_deallocation(_on_free)
    activate()
    _A.on = True
    import atexit

    atexit.register(_alloc_summary)
    return "on" if _A.range_of is not None else "on, without sizes (no libcuda.so.1)"


def _alloc_summary():
    """At a normal exit: what the record cost (the callbacks' own time) and holds."""
    if _A.path is not None and _A.path.endswith("-%d.jsonl" % os.getpid()):
        core._emit({"type": "alloc-summary", "file": os.path.basename(_A.path), "calls": _A.calls,
                    "frees": _A.frees, "files": _A.files, "lines": _A.lines, "live": len(_A.live),
                    "sites": len(_A.sites), "dropped": _A.dropped, "seconds": round(_A.seconds, 4)}, force=True)
