"""GPU Sanitizer probe: files a job's process reads or writes outside its run's copy of the working directory
(docs/probe.md, issue #47). A run that resumed from a checkpoint under /tmp or ~/.cache did less work than the
others for a reason the report can then name with its path.

Python's audit hooks see every open() and os.open() of the process (event "open": the path, the mode or None, the
flags). The first open of each path outside the copy is written as one record, at most 50 per process:
  {"type": "state", "event": "read"|"write", "path": "/abs/path", "where": "tmp"|"home"|"workspace"|"other", "ts": ...}
`workspace` is the original working directory (a run that reached it by its absolute path, not its copy).

torch.save writes through C++ and opens no file Python sees: watch_save() names its path as a write.

Left out: the Python installation and every site-packages, the probe's folder and phase folder, /proc, /sys,
/dev, /usr, /etc, /run, compile caches (Inductor, Triton, CuPy, CUDA's ~/.nv), shared libraries and Python source.

An audit hook cannot be removed, and it runs on every audited event of the process: the fast path is one string
comparison for other events and one dictionary lookup of the file's folder for an open (docs/probe.md says what it
measured). It never raises: an exception from an audit hook would fail the job's open().

GPU_SANITIZE_PROBE_ROOT: the root of the run's copy (the runner's; else the process's first working directory).
GPU_SANITIZE_PROBE_WORKSPACE: the original working directory the copy was taken from.
"""

import functools
import os
import sys
import threading
import time

MAX_RECORDS = 50
MAX_FOLDERS = 20000
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
_CODE = (".py", ".pyc", ".pyi", ".pth", ".so")
_SYSTEM = ("/proc", "/sys", "/dev", "/usr", "/etc", "/run", "/var/run", "/var/lib/nvidia")


class _State(object):
    emit = None  # the probe's one-line writer
    root = ()  # the copy's root, as given and resolved
    workspace = ()  # the original working directory, as given and resolved
    skip = ()  # folders whose files are never state
    tmp = ()
    home = ()
    folders = {}  # folder -> True when its files are never reported (inside the copy or left out); else False
    reported = set()  # (event, path) written
    done = set()  # paths as the job gave them, already named for this event or left out (bounded)
    records = 0
    cwd = None  # the working directory, read again after a chdir
    cwd_inside = False
    guard = threading.local()
    installed = False


_S = _State()


def _spellings(path):
    """A folder as given and as resolved (a symlinked agent root is both), without a trailing separator."""
    if not path:
        return ()
    out = []
    for p in (os.path.abspath(path), os.path.realpath(path)):
        p = p.rstrip(os.sep) or os.sep
        if p not in out:
            out.append(p)
    return tuple(out)


def _under(path, folders):
    for f in folders:
        if path == f or path.startswith(f + os.sep) or f == os.sep:
            return True
    return False


def install(emit, env=None):
    """Arms the hook once per process; returns True when it was armed."""
    env = os.environ if env is None else env
    if _S.installed or not hasattr(sys, "addaudithook"):
        return False
    _S.emit = emit
    root = env.get("GPU_SANITIZE_PROBE_ROOT") or os.getcwd()
    _S.root = _spellings(root)
    _S.workspace = _spellings(env.get("GPU_SANITIZE_PROBE_WORKSPACE"))
    skip = list(_SYSTEM)
    for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, getattr(sys, "base_exec_prefix", None),
              os.path.dirname(os.path.abspath(__file__))):
        skip.extend(_spellings(p))
    out = env.get("GPU_SANITIZE_PROBE_OUT")
    if out:
        # the phase's folder: the probe's own files (another run's copy in the run directory is state, though)
        skip.extend(_spellings(os.path.dirname(os.path.abspath(out))))
    for p in sys.path:
        if p and ("site-packages" in p or "dist-packages" in p):
            skip.extend(_spellings(p))
    home = os.path.expanduser("~")
    for name in ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR", "CUPY_CACHE_DIR", "CUDA_CACHE_PATH"):
        skip.extend(_spellings(env.get(name)))
    for p in (os.path.join(home, ".triton"), os.path.join(home, ".nv"), os.path.join(home, ".cache", "triton"),
              os.path.join(home, ".local", "lib")):
        skip.extend(_spellings(p))
    _S.skip = tuple(skip)
    import tempfile

    _S.tmp = tuple(set(_spellings(tempfile.gettempdir()) + ("/tmp", "/var/tmp", "/dev/shm")))
    _S.home = _spellings(home)
    _chdir()
    sys.addaudithook(_hook)
    _S.installed = True
    return True


def watch_save(torch):
    """torch.save writes a file through its C++ writer (PyTorchFileWriter), which opens the path without Python's
    open(): the audit hook never sees a checkpoint saved outside the copy. The job's torch.save (and
    torch.serialization.save, the same function) names its path as a write the way an open() for writing would be,
    then saves exactly as it would have. Returns True when it wrapped it."""
    original = getattr(torch, "save", None)
    if original is None or getattr(original, "__gpu_sanitize_wrapped__", False) or not _S.installed:
        return False

    def save(obj, f, *args, **kwargs):
        if isinstance(f, (str, bytes)) or type(f) in _path_types():
            _hook("open", (f, "wb", 0))
        return original(obj, f, *args, **kwargs)

    functools.update_wrapper(save, original)
    save.__gpu_sanitize_wrapped__ = True
    torch.save = save
    serialization = sys.modules.get(getattr(torch, "__name__", "torch") + ".serialization")
    if serialization is not None and getattr(serialization, "save", None) is original:
        serialization.save = save
    return True


def after_fork():
    """A forked child writes its own first occurrences, within its own bound."""
    _S.records = 0
    _S.guard = threading.local()


def _path_types():
    pathlib = sys.modules.get("pathlib")  # never imported here: a path of its type means the job imported it
    if pathlib is None:
        return ()
    return tuple(getattr(pathlib, n) for n in ("PosixPath", "PurePosixPath", "Path", "PurePath") if hasattr(pathlib, n))


def _chdir():
    try:
        _S.cwd = os.getcwd()
        _S.cwd_inside = _under(_S.cwd, _S.root)
    except OSError:
        _S.cwd, _S.cwd_inside = None, False


def _hook(event, args):
    if event != "open":
        if event == "os.chdir":
            _S.cwd = None  # read again at the next relative open (the hook runs before the change)
        return
    try:
        path = args[0]
        if _S.records >= MAX_RECORDS or path in _S.done:
            return  # nothing more to write, or a path already decided as given
        if type(path) is str:
            if path[:1] == os.sep:
                if _S.folders.get(path.rpartition(os.sep)[0]):
                    return
            elif _S.cwd_inside and _S.cwd is not None and ".." not in path:
                return  # relative, from a working directory inside the copy
        elif type(path) is bytes:
            path = os.fsdecode(path)
        elif type(path) in _path_types():  # pathlib's own classes only: a job's __fspath__ is never called
            path = str(path)
        else:
            return  # a descriptor, or a job's own path-like object
        if getattr(_S.guard, "busy", False):
            return
        _S.guard.busy = True
        try:
            _slow(path, args[1], args[2])
        finally:
            _S.guard.busy = False
    except Exception:
        pass


def _slow(path, mode, flags):
    given = path
    if _S.cwd is None:
        _chdir()
    if path[:1] != os.sep:
        if _S.cwd is None:
            return
        path = os.path.join(_S.cwd, path)
    path = os.path.normpath(path)
    folder = path.rpartition(os.sep)[0]
    known = _S.folders.get(folder)
    if known is None:
        known = _under(folder, _S.root) or _under(folder, _S.skip)
        if len(_S.folders) < MAX_FOLDERS:
            _S.folders[folder] = known
    if known or path.endswith(_CODE) or ".so." in path.rpartition(os.sep)[2]:
        if not known and len(_S.done) < MAX_FOLDERS:
            _S.done.add(given)
        return
    if isinstance(mode, str):
        event = "write" if any(c in mode for c in "wax+") else "read"
    else:
        event = "write" if isinstance(flags, int) and flags & _WRITE_FLAGS else "read"
    key = (event, path)
    if key in _S.reported or _S.records >= MAX_RECORDS:
        if len(_S.done) < MAX_FOLDERS:
            _S.done.add(given)  # the same path for the same use again: one set lookup from now on
        return
    _S.reported.add(key)
    _S.records += 1
    _S.emit({"type": "state", "event": event, "path": path, "where": _where(path), "ts": round(time.time(), 3)})


def _where(path):
    """The innermost of the folders that hold the path (a home folder under /tmp is home; HOME=/tmp is tmp)."""
    best, where = -1, "other"
    for name, folders in (("workspace", _S.workspace), ("tmp", _S.tmp), ("home", _S.home)):
        for f in folders:
            if (path == f or path.startswith(f.rstrip(os.sep) + os.sep)) and len(f) > best:
                best, where = len(f), name
    return where
