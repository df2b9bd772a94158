"""GPU Sanitizer's in-process probe (docs/probe.md).

Loaded by the sitecustomize.py beside it in the blocking and regression phases of `gpu-sanitize run`.
It changes nothing in the job: it never imports torch itself, it activates only once the job has
imported torch (an import hook on the name `torch`), it never raises into the job, and it writes
JSON lines to GPU_SANITIZE_PROBE_OUT with one os.write each (O_APPEND), so a crash keeps what was
written and processes of one job (torchrun ranks, forks) can share the file.

GPU_SANITIZE_PROBE_MODE:
  blocking   - the index-taking operators (embedding, cross_entropy/nll_loss, gather, scatter*,
               index_select, index_add/index_copy, take_along_dim) are wrapped. On a CUDA call the
               wrapper launches one aminmax reduction of the index tensor and copies its two values
               into a pinned host buffer without synchronising; the values are read only when the
               operator raises (a device-side assert leaves the CUDA context unusable, so they must
               exist before the operator runs). The failure is written with the operator, the
               Python line and a summary of the tensor arguments. Wrapper frames are removed from
               the traceback sys.excepthook prints, so the job's output stays its own.
  sanitizer  - torch.compile is wrapped: a model compiled in a mode that replays CUDA graph trees or
               autotunes (reduce-overhead, max-autotune, max-autotune-no-cudagraphs, or the option
               triton.cudagraphs) is compiled in the default mode instead, and a `compile-mode` record
               says so. Under compute-sanitizer Inductor's CUDA graph trees stop the job (cached: "tensors
               in the cudagraph pool not tracked as outputs"; uncached: "storage data ptrs are not
               allocated in pool") and max-autotune-no-cudagraphs crashed the tool itself (H200, issue
               #25, 2), while the default mode runs the same kernels' code clean. Nothing else is touched.
  regression - at CUDA initialisation (torch.cuda._lazy_call), the caching allocator's history is
               recorded (torch.cuda.memory._record_memory_history, allocation stacks, Python frames
               only, a bounded number of entries). A daemon thread takes allocator snapshots, reduces them to
               allocation sites (the innermost user frame of each live block) and writes the top
               sites by live bytes. An out-of-memory observer records where the allocation failed
               and the sites at that moment; when the process dies of it, the snapshot is pickled
               beside the probe output (for pytorch.org/memory_viz), bounded in size.

No probe snapshot executes an import, in any thread: torch symbolizes a snapshot's Python frames in C++
(combined_traceback.cpp) with `hasattr(torch, "_inductor")`, and torch._inductor is a lazy attribute of
torch: that lookup imports torch._inductor (seconds) in the snapshotting thread. From the sampler thread,
while the job's main thread imports torch._dynamo (torch.optim does), Python's import-deadlock detection
handed the main thread a partially initialized torch._inductor.utils (torch 2.11 on the H200). So: the
sampler thread only calls torch._C._cuda_memorySnapshot in a form chosen at CUDA initialisation, and while
a probe snapshot runs (and in the sampler thread always) torch's lazy attributes read as absent and an
import of torch's modules is refused (an import hook that answers only for those threads).

Optional: GPU_SANITIZE_PROBE_INTERVAL (seconds between snapshots, default 1; doubled every 120
samples), GPU_SANITIZE_PROBE_MAX_ENTRIES (allocator history entries, default 10000),
GPU_SANITIZE_PROBE_TOP (sites per sample, default 30), GPU_SANITIZE_PROBE_SNAPSHOT_MAX_MB (default 64).
"""

import json
import os
import sys
import threading
import time

_T0 = time.time()
_OUT = os.environ.get("GPU_SANITIZE_PROBE_OUT")
_MODE = os.environ.get("GPU_SANITIZE_PROBE_MODE", "")
_THIS = os.path.abspath(__file__)
_HERE = os.path.dirname(_THIS)
_PID0 = os.getpid()
_MAX_LINES = 5000
_MAX_ERRORS = 20
_MAX_FAILURES = 20
_MAX_OOMS = 5


def _env_number(name, default, kind=float):
    try:
        v = kind(os.environ.get(name, default))
        return v if v > 0 else default
    except Exception:
        return default


_INTERVAL = _env_number("GPU_SANITIZE_PROBE_INTERVAL", 1.0)
_MAX_ENTRIES = _env_number("GPU_SANITIZE_PROBE_MAX_ENTRIES", 10000, int)
_TOP = _env_number("GPU_SANITIZE_PROBE_TOP", 30, int)
_SNAPSHOT_MAX = _env_number("GPU_SANITIZE_PROBE_SNAPSHOT_MAX_MB", 64, int) * 1024 * 1024


class _State(object):
    fd = None
    fd_id = None  # (st_dev, st_ino) of the probe.jsonl the probe opened
    lines = 0
    errors = 0
    failures = 0
    ooms = 0
    # reentrant: the garbage collector can free a job's tensor inside a write, and that free's callback may have
    # a line of its own to write on the same thread
    lock = threading.RLock()
    torch = None
    torch_dir = None
    stdlib_dir = None
    installed = False
    cuda_started = False
    watched_calls = 0
    probe_seconds = 0.0
    samples = 0
    site_ids = {}
    pinned = {}
    oom_snapshot = None
    oom_pickled = False
    user_cache = {}
    compiling = None
    tls = threading.local()
    fast_snapshot = None
    fast_checks = 0
    snapshot_fn = None  # torch._C._cuda_memorySnapshot
    state_args = None  # its arguments for the blocks without the history, e.g. ((0, 0, False),)
    full_args = None  # its arguments for the full snapshot: (None,) or () in older torch
    sampler = None  # the sampler thread
    reduce_lock = threading.Lock()
    source = {}
    source_bytes = 0
    refused = set()
    pickle = None
    exiting = False
    state = None  # gpu_sanitize_state, once its audit hook is armed


_S = _State()


def _after_fork():
    """The child of a fork (a DataLoader worker) starts with no lock held and counts its own work: a lock another
    thread of the parent held at the fork would never be released in the child."""
    _S.lock = threading.RLock()
    _S.reduce_lock = threading.Lock()
    _W.steps = 0  # a forked child's work is its own: the parent's count stays the parent's
    _W.backward = 0
    _W.optimizers = 0
    _W.loads = 0
    _W.last_emit = 0.0
    _W.cuda = False
    _alloc_after_fork()
    if _S.state is not None:
        _S.state.after_fork()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


def _now():
    return round(time.time() - _T0, 3)


def _own_fd(fd):
    """The probe's descriptor, checked before each write: a job that closed every descriptor
    (os.closerange(3, 256)) and opened its own file may have been given the same number, and the probe must
    never write into the job's file (issue #26, 7). The file is identified by its device and inode, recorded
    when the probe opened it; anything else is reopened."""
    if fd is not None:
        try:
            st = os.fstat(fd)
            if (st.st_dev, st.st_ino) == _S.fd_id:
                return fd
        except OSError:
            pass  # closed by the job: open ours again
    fd = os.open(_OUT, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
    st = os.fstat(fd)
    _S.fd_id = (st.st_dev, st.st_ino)
    return fd


def _emit(rec, force=False):
    """One JSON line, one write: never raises."""
    try:
        if not _OUT:
            return
        with _S.lock:
            if _S.lines >= _MAX_LINES and not force:
                return
            _S.fd = _own_fd(_S.fd)
            rec.setdefault("t", _now())
            rec["pid"] = os.getpid()
            rank = os.environ.get("RANK")
            if rank is not None:
                rec["rank"] = rank
            os.write(_S.fd, (json.dumps(rec, separators=(",", ":"), default=str) + "\n").encode("utf-8", "replace"))
            _S.lines += 1
    except Exception:
        pass


def _error(where, exc):
    try:
        if _S.errors >= _MAX_ERRORS:
            return
        _S.errors += 1
        _emit({"type": "probe-error", "where": where, "error": "%s: %s" % (type(exc).__name__, _first_line(exc))})
    except Exception:
        pass


def _note(where, message, force=False):
    """A probe-error line with a message of the probe's own (not an exception)."""
    try:
        if _S.errors >= _MAX_ERRORS and not force:
            return
        _S.errors += 1
        _emit({"type": "probe-error", "where": where, "error": message}, force=force)
    except Exception:
        pass


def _first_line(exc, limit=400):
    try:
        s = str(exc).strip().split("\n", 1)[0]
    except Exception:
        s = "?"
    return s if len(s) <= limit else s[:limit] + "..."


# ---------------------------------------------------------------------------------------------
# frames


def _is_user(filename):
    r = _S.user_cache.get(filename)
    if r is not None:
        return r
    r = True
    f = filename or ""
    if not f or f.startswith("<") or not f.endswith(".py"):
        r = False
    else:
        f = os.path.abspath(f)
        if os.path.dirname(f) == _HERE:
            r = False
        elif _S.torch_dir and f.startswith(_S.torch_dir):
            r = False
        elif "/site-packages/" in f or "/dist-packages/" in f:
            r = False
        elif _S.stdlib_dir and f.startswith(_S.stdlib_dir):
            r = False
    if len(_S.user_cache) < 10000:
        _S.user_cache[filename] = r
    return r


def _code_line(filename, line):
    """The source line, read as UTF-8 bytes: no linecache (tokenize may import a codec, and the sampler
    thread imports nothing)."""
    try:
        lines = _S.source.get(filename)
        if lines is None:
            if not os.path.isfile(filename):
                return None
            size = os.path.getsize(filename)
            if size > (2 << 20) or _S.source_bytes + size > (16 << 20):
                return None  # the cache stays small: user files, read once
            with open(filename, "rb") as f:
                lines = f.read().split(b"\n")
            _S.source[filename] = lines
            _S.source_bytes += size
        if not 1 <= line <= len(lines):
            return None
        s = lines[line - 1].decode("utf-8", "replace").strip()
        return s[:200] if s else None
    except Exception:
        return None


def _loc(filename, line, function, code=True):
    d = {"file": filename, "line": line, "function": function}
    if code:
        c = _code_line(filename, line)
        if c:
            d["code"] = c
    return d


def _outside_torch(filename):
    f = os.path.abspath(filename or "")
    return (filename or "").endswith(".py") and os.path.dirname(f) != _HERE and not (
        _S.torch_dir and f.startswith(_S.torch_dir))


def _user_frames(frame, limit=5):
    """The first user frames walking outward from `frame`, innermost first; when the job's own code is
    installed as a package (no user frame), the first frames outside torch and the probe."""
    for accept in (_is_user, _outside_torch):
        out = []
        f = frame
        depth = 0
        while f is not None and len(out) < limit and depth < 200:
            co = f.f_code
            if accept(co.co_filename):
                out.append((co.co_filename, f.f_lineno, co.co_name))
            f = f.f_back
            depth += 1
        if out:
            return out
    return []


# ---------------------------------------------------------------------------------------------
# sanitizer mode: torch.compile in the default mode

_UNDER_TOOL_MODES = ("reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")


def _install_sanitizer(torch):
    original = getattr(torch, "compile", None)
    if original is None:
        return False
    import functools

    @functools.wraps(original)
    def compile(*args, **kwargs):
        try:
            requested = []
            mode = kwargs.get("mode")
            if mode in _UNDER_TOOL_MODES:
                requested.append("mode=%r" % mode)
                kwargs["mode"] = None
            options = kwargs.get("options")
            if isinstance(options, dict) and options.get("triton.cudagraphs"):
                requested.append("options triton.cudagraphs")
                options = dict(options)
                options.pop("triton.cudagraphs")
                kwargs["options"] = options
            if requested:
                frames = _user_frames(sys._getframe(1), 1)
                rec = {"type": "compile-mode", "requested": ", ".join(requested), "ran": "default"}
                if frames:
                    rec["at"] = _loc(*frames[0])
                _emit(rec, force=True)
        except Exception as e:
            _error("compile-mode", e)
        return original(*args, **kwargs)

    torch.compile = compile
    return True


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
_MAX_ALLOC_LINES = _env_number("GPU_SANITIZE_PROBE_MAX_ALLOCS", 50000, int)
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
            tensor = _S.torch.Tensor
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
    tls = _S.tls
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
        _error("alloc" if kind == "alloc" else "alloc-free", e)
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
        _error("alloc-record", e)
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
    _A.path = os.path.join(os.path.dirname(os.path.abspath(_OUT)), "alloc-%d.jsonl" % os.getpid())
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
        _emit({"type": "alloc-summary", "file": os.path.basename(_A.path), "calls": _A.calls, "frees": _A.frees,
               "files": _A.files, "lines": _A.lines, "live": len(_A.live), "sites": len(_A.sites),
               "dropped": _A.dropped, "seconds": round(_A.seconds, 4)}, force=True)


# ---------------------------------------------------------------------------------------------
# blocking mode: the failing operator's arguments


def _arg(args, kwargs, pos, name):
    if len(args) > pos:
        return args[pos]
    return kwargs.get(name)


def _x_embedding(args, kwargs):
    idx = _arg(args, kwargs, 0, "input")
    weight = _arg(args, kwargs, 1, "weight")
    size = _size(weight, 0)
    return ("index", idx, size, "weight", "rows", None)


def _x_loss(args, kwargs):
    inp = _arg(args, kwargs, 0, "input")
    target = _arg(args, kwargs, 1, "target")
    ignore = _arg(args, kwargs, 4, "ignore_index")
    if ignore is None:
        ignore = -100
    size = None
    try:
        size = _size(inp, 1) if inp.dim() >= 2 else _size(inp, 0)
    except Exception:
        pass
    return ("target", target, size, "input", "classes", ignore)


def _x_dim_index(index_pos, index_name, dim_pos, dim_default=None):
    def x(args, kwargs):
        inp = _arg(args, kwargs, 0, "input")
        if inp is None:
            inp = kwargs.get("self")
        idx = _arg(args, kwargs, index_pos, index_name)
        dim = _arg(args, kwargs, dim_pos, "dim")
        if dim is None:
            dim = dim_default
        size = None
        unit = "entries"
        if dim is None:
            try:
                size = int(inp.numel())
                unit = "elements"
            except Exception:
                pass
        elif isinstance(dim, int):
            size = _size(inp, dim)
            try:
                unit = "entries along dim %d" % (dim % max(1, inp.dim()))
            except Exception:
                unit = "entries along dim %d" % dim
        return ("index", idx, size, "input", unit, None)

    return x


def _size(t, d):
    try:
        return int(t.shape[d])
    except Exception:
        return None


_DIM_INDEX = _x_dim_index(2, "index", 1)
_TAKE = _x_dim_index(1, "indices", 2)
_LOSS_NAMES = ("input", "target", "weight")
_DIM_NAMES = ("input", "dim", "index", "src")
_WATCH = [
    ("torch.nn.functional", "embedding", "aten::embedding", _x_embedding, ("input", "weight")),
    ("torch.nn.functional", "cross_entropy", "aten::cross_entropy_loss", _x_loss, _LOSS_NAMES),
    ("torch.nn.functional", "nll_loss", "aten::nll_loss", _x_loss, _LOSS_NAMES),
    ("torch", "take_along_dim", "aten::take_along_dim", _TAKE, ("input", "indices")),
    ("torch.Tensor", "take_along_dim", "aten::take_along_dim", _TAKE, ("input", "indices")),
]
for _name in ("gather", "scatter", "scatter_add", "scatter_reduce", "index_select", "index_add", "index_copy"):
    _WATCH.append(("torch", _name, "aten::" + _name, _DIM_INDEX, _DIM_NAMES))
    _WATCH.append(("torch.Tensor", _name, "aten::" + _name, _DIM_INDEX, _DIM_NAMES))
for _name in ("scatter_", "scatter_add_", "scatter_reduce_", "index_add_", "index_copy_"):
    _WATCH.append(("torch.Tensor", _name, "aten::" + _name, _DIM_INDEX, _DIM_NAMES))


def _is_tensor(x):
    t = _S.torch
    return t is not None and isinstance(x, t.Tensor)


_INT_DTYPES = ("int64", "int32", "int16", "int8", "uint8")


def _dtype(t):
    return str(t.dtype).replace("torch.", "")


def _precompute(extractor, args, kwargs):
    """On a CUDA index tensor: min and max into pinned host memory, no synchronisation."""
    torch = _S.torch
    _, idx, _, _, _, _ = extractor(args, kwargs)
    # plain CUDA tensors only: never a fake, functional or batched tensor of a tracer or transform
    if type(idx) is not torch.Tensor or not idx.is_cuda or _dtype(idx) not in _INT_DTYPES or idx.numel() == 0:
        return None
    if torch.cuda.is_current_stream_capturing() or _dispatch_modes() > 0:
        return None
    buf = _S.pinned.get(idx.dtype)
    if buf is None:
        with torch.inference_mode(False):  # a normal tensor, writable in and out of inference mode
            buf = torch.empty(2, dtype=idx.dtype, pin_memory=True)
        _S.pinned[idx.dtype] = buf
    mm = torch.aminmax(idx)
    buf.copy_(torch.stack((mm[0], mm[1])), non_blocking=True)
    return buf


def _dispatch_modes():
    """Active TorchDispatchModes (make_fx, FakeTensorMode...): an extra reduction would be traced."""
    try:
        return _S.torch._C._len_torch_dispatch_stack()
    except Exception:
        return 0


_STICKY = ("device-side assert", "illegal memory access", "CUDA error", "unspecified launch failure")


def _on_failure(op, extractor, names, args, kwargs, pre, exc, frame):
    if not isinstance(exc, Exception) or _S.failures >= _MAX_FAILURES:
        return
    _S.failures += 1
    torch = _S.torch
    rec = {"type": "op-failure", "op": op, "mode": _MODE}
    try:
        rec["exception"] = {"type": type(exc).__name__, "message": _first_line(exc)}
        frames = _user_frames(frame.f_back if frame is not None else None)
        if frames:
            rec["site"] = _loc(*frames[0])
            rec["stack"] = [_loc(f, l, n, code=False) for f, l, n in frames[1:]]
        name, idx, size, of, unit, ignore = extractor(args, kwargs)
        summary = []
        positional = list(enumerate(args)) + list(kwargs.items())
        for key, v in positional:
            if _is_tensor(v) and len(summary) < 8:
                summary.append({
                    "name": (names[key] if key < len(names) else "arg%d" % key) if isinstance(key, int) else key,
                    "shape": list(v.shape),
                    "dtype": _dtype(v),
                    "device": str(v.device),
                    "index": v is idx,
                })
        rec["args"] = summary
        check = {"name": name, "size": size, "of": of, "unit": unit}
        if ignore is not None:
            check["ignoreIndex"] = ignore
        if _is_tensor(idx):
            check["shape"] = list(idx.shape)
            check["dtype"] = _dtype(idx)
            if _dtype(idx) in _INT_DTYPES and idx.numel() > 0:
                sticky = any(s in str(exc) for s in _STICKY)
                vals = None
                if pre is not None:
                    if not sticky:
                        try:
                            torch.cuda.synchronize()
                        except Exception:
                            pass
                    vals = pre.tolist()
                    check["statsFrom"] = "before the call"
                elif not idx.is_cuda or not sticky:
                    mm = torch.aminmax(idx)
                    vals = [int(mm[0].item()), int(mm[1].item())]
                    check["statsFrom"] = "after the failure"
                if vals is not None:
                    check["min"] = int(vals[0])
                    check["max"] = int(vals[1])
                    if size is not None:
                        low_ok = check["min"] >= 0 or (ignore is not None and check["min"] == ignore)
                        high_ok = check["max"] < size or (ignore is not None and check["max"] == ignore)
                        check["outOfRange"] = not (low_ok and high_ok)
        rec["check"] = check
    except Exception as e:
        rec["probeError"] = "%s: %s" % (type(e).__name__, _first_line(e))
    _emit(rec, force=True)


def _make_wrapper(orig, op, extractor, names):
    compiling = _S.compiling

    tls = _S.tls

    def wrapper(*args, **kwargs):
        if getattr(tls, "inside", False) or (compiling is not None and compiling()):
            return orig(*args, **kwargs)  # a watched operator calling another: the outer one reports
        _S.watched_calls += 1
        pre = None
        t0 = time.perf_counter()
        try:
            pre = _precompute(extractor, args, kwargs)
        except Exception as e:
            _error("precompute " + op, e)
        _S.probe_seconds += time.perf_counter() - t0
        tls.inside = True
        try:
            return orig(*args, **kwargs)
        except BaseException as exc:
            try:
                _on_failure(op, extractor, names, args, kwargs, pre, exc, sys._getframe())
            except BaseException:
                pass
            raise
        finally:
            tls.inside = False

    for a in ("__name__", "__qualname__", "__doc__", "__module__"):
        try:
            setattr(wrapper, a, getattr(orig, a))
        except Exception:
            pass
    wrapper.__wrapped__ = orig
    wrapper._gpu_sanitize_probe = True
    return wrapper


def _strip(tb):
    """The traceback without this file's frames (the wrappers): what the job would have printed."""
    head = prev = None
    n = 0
    while tb is not None and n < 10000:
        nxt = tb.tb_next
        if os.path.dirname(os.path.abspath(tb.tb_frame.f_code.co_filename)) != _HERE:
            if prev is None:
                head = tb
            else:
                prev.tb_next = tb
            prev = tb
        tb = nxt
        n += 1
    if prev is not None:
        prev.tb_next = None
    return head


def _strip_chain(value):
    seen = set()
    e = value
    while e is not None and id(e) not in seen and len(seen) < 20:
        seen.add(id(e))
        if e.__traceback__ is not None:
            e.__traceback__ = _strip(e.__traceback__)
        e = e.__cause__ or e.__context__


def _register_jit_builtin(jb, fn, name):
    """TorchScript resolves builtins by identity: let it see the wrapper as the aten operator."""
    try:
        if jb is None:
            return
        if getattr(jb, "_builtin_table", None) is not None:
            jb._builtin_table[id(fn)] = name
        else:
            jb._builtin_ops.append((fn, name))
    except Exception as e:
        _error("jit-builtin " + name, e)


def _install_blocking(torch):
    import importlib

    _S.compiling = None
    try:
        _S.compiling = torch.compiler.is_compiling
    except Exception:
        pass
    jit_builtins = sys.modules.get("torch.jit._builtins")
    wrapped = []
    for owner_name, attr, op, extractor, names in _WATCH:
        try:
            owner = torch.Tensor if owner_name == "torch.Tensor" else importlib.import_module(owner_name)
            orig = getattr(owner, attr, None)
            if orig is None or getattr(orig, "_gpu_sanitize_probe", False):
                continue
            w = _make_wrapper(orig, op, extractor, names)
            setattr(owner, attr, w)
            if owner_name == "torch":
                _register_jit_builtin(jit_builtins, w, "aten::" + attr)
            wrapped.append(owner_name + "." + attr)
        except Exception as e:
            _error("wrap " + owner_name + "." + attr, e)
    previous = sys.excepthook

    def excepthook(t, v, tb):
        try:
            _strip_chain(v)
            tb = v.__traceback__ if v is not None else _strip(tb)
        except Exception:
            pass
        previous(t, v, tb)

    sys.excepthook = excepthook
    return wrapped


# ---------------------------------------------------------------------------------------------
# regression mode: allocation sites


def _frames_of(block):
    f = block.get("frames")
    if f is None:
        h = block.get("history")
        if h:
            f = h[-1].get("frames")
    return f or []


def _site_key(frames):
    """(file, line, function) of the innermost user frame, and the user callers above it."""
    first = None
    callers = []
    for fr in frames:
        fn = fr.get("filename", "")
        if _is_user(fn):
            if first is None:
                first = (fn, fr.get("line", 0), fr.get("name", "?"))
            elif len(callers) < 4:
                callers.append((fn, fr.get("line", 0), fr.get("name", "?")))
            else:
                break
    if first is None:
        for fr in frames:
            fn = fr.get("filename", "")
            if _outside_torch(fn):
                first = (fn, fr.get("line", 0), fr.get("name", "?"))
                break
    if first is None:
        for fr in frames:
            fn = fr.get("filename", "")
            if fn.endswith(".py") and os.path.dirname(os.path.abspath(fn)) != _HERE:
                first = (fn, fr.get("line", 0), fr.get("name", "?"))
                break
    if first is None:
        first = ("<no Python frame recorded>", 0, "?")
    return first, callers


def _reduce(snap):
    per = {}
    stacks = {}
    allocated = reserved = blocks = 0
    for seg in snap.get("segments", []):
        reserved += seg.get("total_size", 0)
        for b in seg.get("blocks", []):
            if b.get("state") != "active_allocated":
                continue
            size = b.get("size", 0)
            allocated += size
            blocks += 1
            key, callers = _site_key(_frames_of(b))
            e = per.get(key)
            if e is None:
                per[key] = [size, 1]
                stacks[key] = callers
            else:
                e[0] += size
                e[1] += 1
    top = sorted(per.items(), key=lambda kv: -kv[1][0])[:_TOP]
    out = []
    for key, (size, count) in top:
        sid = _S.site_ids.get(key)
        if sid is None:
            sid = len(_S.site_ids) + 1
            _S.site_ids[key] = sid
            d = {"type": "site", "id": sid}
            d.update(_loc(key[0], key[1], key[2], code=key[1] > 0))
            d["stack"] = [_loc(f, l, n, code=False) for f, l, n in stacks[key]]
            _emit(d, force=sid <= 2000)
        out.append([sid, size, count])
    return {"allocated": allocated, "reserved": reserved, "blocks": blocks, "sites": out}


def _allocated(snap):
    return sum(b.get("size", 0) for seg in snap.get("segments", []) for b in seg.get("blocks", [])
               if b.get("state") == "active_allocated")


# Snapshots and imports. torch builds a snapshot in C++ and symbolizes its Python frames there; that
# code looks up `torch._inductor` (combined_traceback.cpp: py::hasattr(torch, "_inductor")), a lazy module
# attribute of torch 2.x whose first lookup imports torch._inductor. A probe snapshot must not do that: it
# costs seconds in the job, and in the sampler thread it races the job's own imports (torch.optim imports
# torch._dynamo, which imports torch._inductor.utils: Python's deadlock detection then gives the job's
# thread a partially initialized module). So every probe snapshot runs with the thread's `no_import` flag
# set (the sampler thread has it for its whole life): torch's __getattr__ answers "no such attribute" to
# that thread, and _ImportGuard refuses that thread an import of torch's modules (any other import is let
# through and written down as a probe-error: none is expected).


def _no_import_call(fn, *args):
    tls = _S.tls
    previous = getattr(tls, "no_import", False)
    tls.no_import = True
    try:
        return fn(*args)
    finally:
        tls.no_import = previous


def _guard_lazy_attributes(torch):
    """Wraps torch's module __getattr__ (lazy torch._dynamo, torch._inductor, ...): unchanged for the job;
    for a thread inside a probe snapshot an attribute not yet imported is absent, so nothing is imported."""
    original = getattr(torch, "__dict__", {}).get("__getattr__")
    if original is None or getattr(original, "_gpu_sanitize_probe", False):
        return False
    tls = _S.tls

    def __getattr__(name):
        if getattr(tls, "no_import", False):
            raise AttributeError("module 'torch' has no attribute '%s' (not imported: a GPU Sanitizer probe "
                                 "snapshot imports nothing)" % name)
        return original(name)

    for a in ("__name__", "__qualname__", "__doc__", "__module__"):
        try:
            setattr(__getattr__, a, getattr(original, a))
        except Exception:
            pass
    __getattr__.__wrapped__ = original
    __getattr__._gpu_sanitize_probe = True
    torch.__getattr__ = __getattr__
    return True


class _ImportGuard(object):
    """First on sys.meta_path in the regression phase: answers only to a thread inside a probe snapshot
    (and the sampler thread), which must not import. One thread-local lookup per first import of a module."""

    def find_spec(self, name, path=None, target=None):
        if not getattr(_S.tls, "no_import", False):
            return None
        first = name not in _S.refused and len(_S.refused) < 100
        _S.refused.add(name)
        if name == "torch" or name.startswith("torch."):
            if first:
                _note("snapshot-import", "a snapshot asked to import %s: refused (the probe imports nothing)" % name)
            raise ImportError("the GPU Sanitizer probe does not import %s during a snapshot" % name, name=name)
        if first:
            _note("snapshot-import", "a snapshot imported %s (let through: not one of torch's modules)" % name)
        return None

    def invalidate_caches(self):
        pass


_NO_ARGUMENT = ()
_STATE_FORM = ((0, 0, False),)  # torch 2.10+: the default pool's blocks, no history entries
_FULL_FORMS = ((None,), _NO_ARGUMENT)  # the full snapshot; older torch takes no argument


def _choose_snapshot_forms(torch):
    """Once, at CUDA initialisation, in the thread that initialises CUDA (never the sampler): the forms of
    torch._C._cuda_memorySnapshot this torch accepts. The sampler calls only that C function, in them."""
    fn = getattr(getattr(torch, "_C", None), "_cuda_memorySnapshot", None)
    if not callable(fn):
        return
    for args in (_STATE_FORM,) + _FULL_FORMS:
        try:
            snap = _no_import_call(fn, *args)
        except Exception:
            continue
        if not isinstance(snap, dict) or not isinstance(snap.get("segments"), list):
            continue
        if args is _STATE_FORM:
            if not any(snap.get("device_traces") or []):
                _S.state_args = args
        elif _S.full_args is None:
            _S.full_args = args
    if _S.state_args is not None or _S.full_args is not None:
        _S.snapshot_fn = fn
        if _S.full_args is None:
            _S.fast_snapshot = True  # nothing to check it against


def _state_snapshot():
    """The allocator's blocks: the state form (checked against the full one on the first samples with live
    memory; a disagreement 5 times drops it) or the full form, both torch._C calls; without either, on the
    main thread only, torch.cuda.memory._snapshot()."""
    fn = _S.snapshot_fn
    if fn is not None and _S.state_args is not None and _S.fast_snapshot is not False:
        fast = _no_import_call(fn, *_S.state_args)
        if _S.fast_snapshot is True:
            return fast
        full = _no_import_call(fn, *_S.full_args)
        a = _allocated(full)
        if a > 0:
            if a == _allocated(fast) and not any(fast.get("device_traces") or []):
                _S.fast_snapshot = True
            else:
                _S.fast_checks += 1
                _S.fast_snapshot = None if _S.fast_checks < 5 else False
        return full
    if fn is not None and _S.full_args is not None:
        return _no_import_call(fn, *_S.full_args)
    if threading.current_thread() is _S.sampler:
        raise RuntimeError("no allocator snapshot callable from the sampler thread")
    return _no_import_call(_S.torch.cuda.memory._snapshot)


def _sample(at, snap=None):
    t0 = time.perf_counter()
    if snap is None:
        snap = _state_snapshot()
    rec = {"type": "sites", "at": at, "t": _now()}
    with _S.reduce_lock:  # the sampler and the main thread (exit, OOM) share the site ids and the order
        if at == "periodic" and _S.exiting:
            return snap, 0.0  # the exit sample is the last one
        rec.update(_reduce(snap))
        cost = time.perf_counter() - t0
        _S.probe_seconds += cost
        _S.samples += 1
        rec["cost"] = round(cost, 4)
        _emit(rec, force=at != "periodic")
    return snap, cost


def _sampler():
    """The daemon thread: sleeps, takes a snapshot (a torch._C call), reduces it. It imports nothing: every
    module its code needs was imported before it started."""
    _S.tls.no_import = True
    n = 0
    while True:
        interval = _INTERVAL * (2 ** (n // 120))
        time.sleep(interval)
        if os.getpid() != _PID0:
            return
        try:
            _, cost = _sample("periodic")
            if cost * 50 > interval:
                time.sleep(cost * 50 - interval)  # keeps the probe under ~2% of the job's time
        except Exception as e:
            _error("sample", e)
            if _S.errors >= _MAX_ERRORS:
                return
        n += 1


def _oom_observer(device, alloc, device_allocated, device_free):
    try:
        _S.ooms += 1
        if _S.ooms > _MAX_OOMS:
            return
        frames = _user_frames(sys._getframe(1))
        rec = {
            "type": "oom",
            "device": device,
            "requested": alloc,
            "deviceAllocated": device_allocated,
            "deviceFree": device_free,
        }
        if frames:
            rec["site"] = _loc(*frames[0])
            rec["stack"] = [_loc(f, l, n, code=False) for f, l, n in frames[1:]]
        _emit(rec, force=True)
        # with the history: the one pickled if the process dies of it (the allocating thread, not the sampler)
        snap = _no_import_call(_S.torch.cuda.memory._snapshot)
        _sample("oom", snap)
        _S.oom_snapshot = snap
    except Exception as e:
        _error("oom-observer", e)


def _enable_history(torch):
    mem = torch.cuda.memory
    try:
        mem._record_memory_history(enabled="all", context="alloc", stacks="python", max_entries=_MAX_ENTRIES)
        return {"api": "all", "context": "alloc", "stacks": "python"}
    except TypeError:
        mem._record_memory_history(True, trace_alloc_max_entries=_MAX_ENTRIES, trace_alloc_record_context=True)
        return {"api": "legacy"}


def _on_cuda_init():
    """Queued by torch.cuda._lazy_call: runs when the job initialises CUDA; must never raise."""
    try:
        if _S.cuda_started or os.getpid() != _PID0:
            return
        _S.cuda_started = True
        torch = _S.torch
        how = _enable_history(torch)
        observer = None
        try:
            torch._C._cuda_attach_out_of_memory_observer(_oom_observer)
            observer = True
        except Exception as e:
            _error("oom-observer", e)
        _choose_snapshot_forms(torch)
        periodic = _S.snapshot_fn is not None
        rec = {"type": "history", "maxEntries": _MAX_ENTRIES, "interval": _INTERVAL, "oomObserver": bool(observer),
               "periodic": periodic,
               "snapshot": "state" if _S.state_args is not None else "full" if periodic else "python"}
        rec.update(how)
        _emit(rec, force=True)
        if not periodic:
            _note("sampler", "this torch has no allocator snapshot the probe can take outside the main thread "
                             "(torch._C._cuda_memorySnapshot in a known form): sampled at exit and out of memory "
                             "only", force=True)
            return
        th = threading.Thread(target=_sampler, name="gpu-sanitize-probe", daemon=True)
        _S.sampler = th
        th.start()
    except Exception as e:
        _error("cuda-init", e)


def _is_oom(v):
    torch = _S.torch
    kinds = tuple(k for k in (getattr(torch, "OutOfMemoryError", None),
                              getattr(getattr(torch, "cuda", None), "OutOfMemoryError", None)) if isinstance(k, type))
    seen = 0
    while v is not None and seen < 10:
        if (kinds and isinstance(v, kinds)) or "out of memory" in str(v):
            return True
        v = v.__cause__ or v.__context__
        seen += 1
    return False


def _pickle_oom_snapshot():
    pickle = _S.pickle
    if _S.oom_pickled or not _S.cuda_started:
        return
    _S.oom_pickled = True
    t0 = time.perf_counter()
    snap = _S.oom_snapshot
    if snap is None:
        snap = _no_import_call(_S.torch.cuda.memory._snapshot)
    name = "probe-oom-snapshot-%d.pickle" % os.getpid()
    path = os.path.join(os.path.dirname(os.path.abspath(_OUT)), name)
    data = pickle.dumps(snap)
    trimmed = None
    traces = snap.get("device_traces") if isinstance(snap, dict) else None
    keep = 4096
    while len(data) > _SNAPSHOT_MAX and traces and keep >= 16:
        snap = dict(snap)
        snap["device_traces"] = [t[-keep:] for t in traces]
        trimmed = keep
        data = pickle.dumps(snap)
        keep //= 4
    if len(data) > _SNAPSHOT_MAX:
        _emit({"type": "probe-error", "where": "oom-snapshot",
               "error": "snapshot of %d bytes is over the limit; not written" % len(data)}, force=True)
        return
    with open(path, "wb") as f:
        f.write(data)
    rec = {"type": "oom-snapshot", "file": name, "bytes": len(data), "seconds": round(time.perf_counter() - t0, 3)}
    if trimmed is not None:
        rec["traceEntriesKept"] = trimmed
    _emit(rec, force=True)


def _install_regression(torch):
    import pickle  # here, in the job's thread, once torch (which imports it) is loaded: never in the sampler

    _S.pickle = pickle
    _guard_lazy_attributes(torch)
    sys.meta_path.insert(0, _ImportGuard())
    cuda = torch.cuda
    if hasattr(cuda, "_lazy_call"):
        cuda._lazy_call(_on_cuda_init)
    elif cuda.is_initialized():
        _on_cuda_init()
    previous = sys.excepthook

    def excepthook(t, v, tb):
        try:
            _strip_chain(v)  # the lazy-attribute guard's frame, as in the blocking phase
            tb = v.__traceback__ if v is not None else _strip(tb)
        except Exception:
            pass
        previous(t, v, tb)  # the job's own output first
        try:
            if os.getpid() == _PID0 and _is_oom(v):
                _pickle_oom_snapshot()
        except Exception as e:
            _error("oom-snapshot", e)

    sys.excepthook = excepthook


# ---------------------------------------------------------------------------------------------
# proof of work (every mode, issue #40)
#
# What each run did on the GPU, so that a run that did nothing (it resumed from a checkpoint another run
# wrote, fell back to the CPU when CUDA failed under the tool, or returned while its work went on) is never
# read as a clean one. Cheap by construction: a counter bumped by torch's global optimizer-step hook, another
# by each backward pass (torch.autograd.backward, which Tensor.backward calls, and torch.autograd.grad: a job
# that updates its weights by hand, `p.data.add_(p.grad, alpha=-lr)`, or in a torch.func loop takes no optimizer
# step, issue #47, 13), one record when the process creates its CUDA context (torch.cuda._lazy_call), a progress
# record on the first step or backward pass and then at most every few seconds from those hooks themselves (no
# thread), and one at exit with the allocator's counters.


class _Work(object):
    steps = 0
    backward = 0
    optimizers = 0  # optimizers built: the job trains by its own code (issue #47, 11: a resume that took no step)
    loads = 0  # optimizer states loaded: it resumed
    last_emit = 0.0
    cuda = False


_W = _Work()
_WORK_EVERY = _env_number("GPU_SANITIZE_PROBE_WORK_INTERVAL", 2.0)


def _work_cuda():
    """Queued by torch.cuda._lazy_call: the process created its CUDA context."""
    try:
        _W.cuda = True
        _emit({"type": "work", "event": "cuda", "ts": round(time.time(), 3)}, force=True)
    except Exception:
        pass


def _work_step(optimizer, args, kwargs):
    """torch's global optimizer-step post hook: one counter, a progress record every few seconds."""
    _W.steps += 1
    _work_progress(_W.steps == 1)


def _work_progress(first):
    try:
        now = time.time()
        if first or now - _W.last_emit >= _WORK_EVERY:
            _W.last_emit = now
            _emit({"type": "work", "event": "progress", "steps": _W.steps, "backward": _W.backward,
                   "ts": round(now, 3)}, force=True)
    except Exception:
        pass


def _counting_optimizer(original, counter):
    """Optimizer.__init__ or Optimizer.load_state_dict (every torch optimizer's, through super()), counted; the first
    of each said at once: a run that builds its optimizer, loads its state and takes no step writes no progress."""
    import functools

    @functools.wraps(original)
    def counted(*args, **kwargs):
        try:
            n = getattr(_W, counter) + 1
            setattr(_W, counter, n)
            if n == 1:
                _emit({"type": "work", "event": counter, "optimizers": _W.optimizers, "loads": _W.loads,
                       "ts": round(time.time(), 3)}, force=True)
        except Exception:
            pass
        return original(*args, **kwargs)

    counted._gpu_sanitize_probe = True
    return counted


def _counting_backward(original):
    """torch.autograd.backward or torch.autograd.grad, counted once per call (before it runs: a pass that raises
    was still asked for); everything else is the original's."""
    import functools

    @functools.wraps(original)
    def counted(*args, **kwargs):
        _W.backward += 1
        _work_progress(_W.backward == 1)
        return original(*args, **kwargs)

    counted._gpu_sanitize_probe = True
    return counted


def _work_counters(torch):
    rec = {"steps": _W.steps, "backward": _W.backward, "optimizers": _W.optimizers, "loads": _W.loads}
    try:
        rec["cuda"] = bool(torch.cuda.is_initialized())
        if rec["cuda"]:
            stats = torch.cuda.memory_stats()
            rec["allocations"] = int(stats.get("allocation.all.allocated", 0))
            rec["allocatedBytes"] = int(stats.get("allocated_bytes.all.allocated", 0))
    except Exception as e:
        _error("work-counters", e)
    return rec


def _work_exit():
    try:
        torch = _S.torch
        if torch is None:
            return
        rec = {"type": "work", "event": "exit", "ts": round(time.time(), 3)}
        rec.update(_work_counters(torch))
        _emit(rec, force=True)
    except Exception:
        pass


def _install_work(torch):
    """Arms the counters; returns what could be armed (the hello record says it)."""
    armed = []
    try:
        torch.cuda._lazy_call(_work_cuda)
        armed.append("cuda")
    except Exception as e:
        _error("work-cuda", e)
    try:
        import torch.optim.optimizer as optimizer_module  # loaded by `import torch` already in torch 2.x

        optimizer_module.register_optimizer_step_post_hook(_work_step)
        armed.append("steps")
    except Exception as e:
        _error("work-steps", e)
    try:
        base = torch.optim.optimizer.Optimizer
        for name, counter in (("__init__", "optimizers"), ("load_state_dict", "loads")):
            original = base.__dict__.get(name)
            if callable(original) and not getattr(original, "_gpu_sanitize_probe", False):
                setattr(base, name, _counting_optimizer(original, counter))
        armed.append("optimizers")
    except Exception as e:
        _error("work-optimizers", e)
    try:
        autograd = torch.autograd  # Tensor.backward looks torch.autograd.backward up at each call
        wrapped = 0
        for name in ("backward", "grad"):
            original = getattr(autograd, name, None)
            if callable(original) and not getattr(original, "_gpu_sanitize_probe", False):
                counted = _counting_backward(original)
                setattr(autograd, name, counted)
                # TorchScript maps torch.autograd.grad/backward to aten::grad/backward by identity
                _register_jit_builtin(sys.modules.get("torch.jit._builtins"), counted, "aten::" + name)
                wrapped += 1
        if wrapped:
            armed.append("backward")
    except Exception as e:
        _error("work-backward", e)
    return armed


# ---------------------------------------------------------------------------------------------
# activation


def _at_exit():
    try:
        if os.getpid() != _PID0:
            return
        if _MODE == "regression" and _S.cuda_started:
            _S.exiting = True
            try:
                _sample("exit")
            except Exception as e:
                _error("exit-sample", e)
        rec = {"type": "exit", "probeSeconds": round(_S.probe_seconds, 4), "dropped": _A.dropped}
        if _MODE == "blocking":
            rec["watchedCalls"] = _S.watched_calls
        elif _MODE == "regression":
            rec["samples"] = _S.samples
            rec["stateSnapshots"] = bool(_S.fast_snapshot)
        _emit(rec, force=True)
    except Exception:
        pass


def _on_torch(torch):
    """Runs once, right after the job's `import torch` finished."""
    try:
        if _S.torch is not None:
            return
        _S.torch = torch
        _S.torch_dir = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
        _S.stdlib_dir = os.path.dirname(os.path.abspath(os.__file__)) + os.sep
        _S.user_cache.clear()
        hello = {
            "type": "probe",
            "mode": _MODE,
            "python": sys.version.split()[0],
            "torch": getattr(torch, "__version__", None),
            "localRank": os.environ.get("LOCAL_RANK"),
            "ts": round(_T0, 3),
            # nvidia-smi stamps its samples in local time without a zone: this lines them up with ts
            "utcOffset": time.localtime(_T0).tm_gmtoff,
        }
        if _MODE == "blocking":
            hello["watched"] = _install_blocking(torch)
        elif _MODE == "sanitizer":
            hello["compileWrapped"] = _install_sanitizer(torch)
            hello["allocations"] = _install_alloc_record(torch)
        elif _MODE == "regression":
            _install_regression(torch)
        hello["work"] = _install_work(torch)
        _emit(hello, force=True)
        import atexit

        atexit.register(_at_exit)
        atexit.register(_work_exit)
    except Exception as e:
        _error("activate", e)


class _TorchFinder(object):
    """A meta-path finder that only wraps the loader of `torch`, then steps aside."""

    busy = False

    def find_spec(self, name, path=None, target=None):
        if name != "torch" or self.busy:
            return None
        self.busy = True
        try:
            spec = None
            for finder in list(sys.meta_path):
                if finder is self or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(name, path, target)
                if spec is not None:
                    break
            if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
                return None
            loader = spec.loader
            original = loader.exec_module

            def exec_module(module):
                original(module)
                try:
                    sys.meta_path.remove(self)
                except ValueError:
                    pass
                _on_torch(module)

            loader.exec_module = exec_module
            return spec
        except Exception as e:
            _error("import-hook", e)
            return None
        finally:
            self.busy = False

    def invalidate_caches(self):
        pass


def _install_state():
    """The audit hook that names files opened outside the run's copy (gpu_sanitize_state.py beside this file)."""
    try:
        import importlib.util

        spec = importlib.util.spec_from_file_location("gpu_sanitize_state", os.path.join(_HERE, "gpu_sanitize_state.py"))
        state = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(state)
        if state.install(lambda rec: _emit(rec, force=True)):
            _S.state = state
    except Exception as e:
        _error("state", e)


def install():
    """Called by sitecustomize: arms the hook; costs one name comparison per module import until torch."""
    if _S.installed or not _OUT or _MODE not in ("blocking", "regression", "sanitizer"):
        return
    _S.installed = True
    if os.environ.get("GPU_SANITIZE_PROBE_STATE", "1") != "0":
        _install_state()
    if "torch" in sys.modules:
        _on_torch(sys.modules["torch"])
        return
    sys.meta_path.insert(0, _TorchFinder())
