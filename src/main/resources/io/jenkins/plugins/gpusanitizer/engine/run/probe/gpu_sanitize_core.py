"""GPU Sanitizer's in-process probe: the core its parts share (docs/probe.md).

The one writer of probe.jsonl (_emit: one JSON line, one os.write, never into a descriptor the job took over) and
its bounds, the probe's notes on itself (probe-error lines), the numbers read from the environment, and _S: the
state the parts share. Every part reads and writes that state here, as core._S.x, never a copy of its own: the
job's threads, the sampler thread and a forked child see one object.
"""

import json
import os
import threading
import time

_T0 = time.time()
_OUT = os.environ.get("GPU_SANITIZE_PROBE_OUT")
_MODE = os.environ.get("GPU_SANITIZE_PROBE_MODE", "")
_HERE = os.path.dirname(os.path.abspath(__file__))  # the probe's folder: every part is a module in it
_PID0 = os.getpid()
_MAX_LINES = 5000
_MAX_ERRORS = 20


def _env_number(name, default, kind=float):
    try:
        v = kind(os.environ.get(name, default))
        return v if v > 0 else default
    except Exception:
        return default


class _State(object):
    # the writer
    fd = None
    fd_id = None  # (st_dev, st_ino) of the probe.jsonl the probe opened
    lines = 0
    errors = 0
    # reentrant: the garbage collector can free a job's tensor inside a write, and that free's callback may have
    # a line of its own to write on the same thread
    lock = threading.RLock()
    tls = threading.local()
    # activation
    installed = False
    torch = None
    torch_dir = None
    stdlib_dir = None
    state = None  # gpu_sanitize_state, once its audit hook is armed
    probe_seconds = 0.0
    # frames
    user_cache = {}
    source = {}
    source_bytes = 0
    # blocking mode
    failures = 0
    watched_calls = 0
    pinned = {}
    compiling = None
    # regression mode
    ooms = 0
    cuda_started = False
    samples = 0
    site_ids = {}
    oom_snapshot = None
    oom_pickled = False
    fast_snapshot = None
    fast_checks = 0
    snapshot_fn = None  # torch._C._cuda_memorySnapshot
    state_args = None  # its arguments for the blocks without the history, e.g. ((0, 0, False),)
    full_args = None  # its arguments for the full snapshot: (None,) or () in older torch
    sampler = None  # the sampler thread
    reduce_lock = threading.Lock()
    refused = set()
    pickle = None
    exiting = False


_S = _State()


def _after_fork():
    """The child of a fork (a DataLoader worker) starts with no lock held: a lock another thread of the parent held
    at the fork would never be released in the child."""
    _S.lock = threading.RLock()
    _S.reduce_lock = threading.Lock()


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


# the wrappers' side of TorchScript: the blocking mode's operators and the proof of work's autograd functions


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


def _passes_for(wrapper, orig):
    """The wrapper passes for the original it wraps (name, docs, module; __wrapped__ for inspect) and is marked as the
    probe's own, so that it is never wrapped twice."""
    for a in ("__name__", "__qualname__", "__doc__", "__module__"):
        try:
            setattr(wrapper, a, getattr(orig, a))
        except Exception:
            pass
    wrapper.__wrapped__ = orig
    wrapper._gpu_sanitize_probe = True
    return wrapper
