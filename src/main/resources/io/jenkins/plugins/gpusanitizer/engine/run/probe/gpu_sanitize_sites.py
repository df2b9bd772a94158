"""GPU Sanitizer's in-process probe: allocation sites, in the regression phase (docs/probe.md).

At CUDA initialisation the caching allocator's history is recorded; a daemon thread takes allocator snapshots,
reduces them to allocation sites (the innermost user frame of each live block) and writes the top sites by live
bytes; an out-of-memory observer records where the allocation failed, and the snapshot is pickled when the process
dies of it. No snapshot imports anything (gpu_sanitize_no_import.py).
"""

import os
import sys
import threading
import time

import gpu_sanitize_core as core
from gpu_sanitize_frames import _is_user, _loc, _outside_torch, _strip, _strip_chain, _user_frames
from gpu_sanitize_no_import import _guard_lazy_attributes, _ImportGuard, _no_import_call

_MAX_OOMS = 5
_INTERVAL = core._env_number("GPU_SANITIZE_PROBE_INTERVAL", 1.0)
_MAX_ENTRIES = core._env_number("GPU_SANITIZE_PROBE_MAX_ENTRIES", 10000, int)
_TOP = core._env_number("GPU_SANITIZE_PROBE_TOP", 30, int)
_SNAPSHOT_MAX = core._env_number("GPU_SANITIZE_PROBE_SNAPSHOT_MAX_MB", 64, int) * 1024 * 1024


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
            if fn.endswith(".py") and os.path.dirname(os.path.abspath(fn)) != core._HERE:
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
        sid = core._S.site_ids.get(key)
        if sid is None:
            sid = len(core._S.site_ids) + 1
            core._S.site_ids[key] = sid
            d = {"type": "site", "id": sid}
            d.update(_loc(key[0], key[1], key[2], code=key[1] > 0))
            d["stack"] = [_loc(f, l, n, code=False) for f, l, n in stacks[key]]
            core._emit(d, force=sid <= 2000)
        out.append([sid, size, count])
    return {"allocated": allocated, "reserved": reserved, "blocks": blocks, "sites": out}


def _allocated(snap):
    return sum(b.get("size", 0) for seg in snap.get("segments", []) for b in seg.get("blocks", [])
               if b.get("state") == "active_allocated")


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
                core._S.state_args = args
        elif core._S.full_args is None:
            core._S.full_args = args
    if core._S.state_args is not None or core._S.full_args is not None:
        core._S.snapshot_fn = fn
        if core._S.full_args is None:
            core._S.fast_snapshot = True  # nothing to check it against


def _state_snapshot():
    """The allocator's blocks: the state form (checked against the full one on the first samples with live
    memory; a disagreement 5 times drops it) or the full form, both torch._C calls; without either, on the
    main thread only, torch.cuda.memory._snapshot()."""
    fn = core._S.snapshot_fn
    if fn is not None and core._S.state_args is not None and core._S.fast_snapshot is not False:
        fast = _no_import_call(fn, *core._S.state_args)
        if core._S.fast_snapshot is True:
            return fast
        full = _no_import_call(fn, *core._S.full_args)
        a = _allocated(full)
        if a > 0:
            if a == _allocated(fast) and not any(fast.get("device_traces") or []):
                core._S.fast_snapshot = True
            else:
                core._S.fast_checks += 1
                core._S.fast_snapshot = None if core._S.fast_checks < 5 else False
        return full
    if fn is not None and core._S.full_args is not None:
        return _no_import_call(fn, *core._S.full_args)
    if threading.current_thread() is core._S.sampler:
        raise RuntimeError("no allocator snapshot callable from the sampler thread")
    return _no_import_call(core._S.torch.cuda.memory._snapshot)


def _sample(at, snap=None):
    t0 = time.perf_counter()
    if snap is None:
        snap = _state_snapshot()
    rec = {"type": "sites", "at": at, "t": core._now()}
    with core._S.reduce_lock:  # the sampler and the main thread (exit, OOM) share the site ids and the order
        if at == "periodic" and core._S.exiting:
            return snap, 0.0  # the exit sample is the last one
        rec.update(_reduce(snap))
        cost = time.perf_counter() - t0
        core._S.probe_seconds += cost
        core._S.samples += 1
        rec["cost"] = round(cost, 4)
        core._emit(rec, force=at != "periodic")
    return snap, cost


def _sampler():
    """The daemon thread: sleeps, takes a snapshot (a torch._C call), reduces it. It imports nothing: every
    module its code needs was imported before it started."""
    core._S.tls.no_import = True
    n = 0
    while True:
        interval = _INTERVAL * (2 ** (n // 120))
        time.sleep(interval)
        if os.getpid() != core._PID0:
            return
        try:
            _, cost = _sample("periodic")
            if cost * 50 > interval:
                time.sleep(cost * 50 - interval)  # keeps the probe under ~2% of the job's time
        except Exception as e:
            core._error("sample", e)
            if core._S.errors >= core._MAX_ERRORS:
                return
        n += 1


def _oom_observer(device, alloc, device_allocated, device_free):
    try:
        core._S.ooms += 1
        if core._S.ooms > _MAX_OOMS:
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
        core._emit(rec, force=True)
        # with the history: the one pickled if the process dies of it (the allocating thread, not the sampler)
        snap = _no_import_call(core._S.torch.cuda.memory._snapshot)
        _sample("oom", snap)
        core._S.oom_snapshot = snap
    except Exception as e:
        core._error("oom-observer", e)


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
        if core._S.cuda_started or os.getpid() != core._PID0:
            return
        core._S.cuda_started = True
        torch = core._S.torch
        how = _enable_history(torch)
        observer = None
        try:
            torch._C._cuda_attach_out_of_memory_observer(_oom_observer)
            observer = True
        except Exception as e:
            core._error("oom-observer", e)
        _choose_snapshot_forms(torch)
        periodic = core._S.snapshot_fn is not None
        rec = {"type": "history", "maxEntries": _MAX_ENTRIES, "interval": _INTERVAL, "oomObserver": bool(observer),
               "periodic": periodic,
               "snapshot": "state" if core._S.state_args is not None else "full" if periodic else "python"}
        rec.update(how)
        core._emit(rec, force=True)
        if not periodic:
            core._note("sampler", "this torch has no allocator snapshot the probe can take outside the main thread "
                                  "(torch._C._cuda_memorySnapshot in a known form): sampled at exit and out of memory "
                                  "only", force=True)
            return
        th = threading.Thread(target=_sampler, name="gpu-sanitize-probe", daemon=True)
        core._S.sampler = th
        th.start()
    except Exception as e:
        core._error("cuda-init", e)


def _is_oom(v):
    torch = core._S.torch
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
    pickle = core._S.pickle
    if core._S.oom_pickled or not core._S.cuda_started:
        return
    core._S.oom_pickled = True
    t0 = time.perf_counter()
    snap = core._S.oom_snapshot
    if snap is None:
        snap = _no_import_call(core._S.torch.cuda.memory._snapshot)
    name = "probe-oom-snapshot-%d.pickle" % os.getpid()
    path = os.path.join(os.path.dirname(os.path.abspath(core._OUT)), name)
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
        core._emit({"type": "probe-error", "where": "oom-snapshot",
                    "error": "snapshot of %d bytes is over the limit; not written" % len(data)}, force=True)
        return
    with open(path, "wb") as f:
        f.write(data)
    rec = {"type": "oom-snapshot", "file": name, "bytes": len(data), "seconds": round(time.perf_counter() - t0, 3)}
    if trimmed is not None:
        rec["traceEntriesKept"] = trimmed
    core._emit(rec, force=True)


def _install_regression(torch):
    import pickle  # here, in the job's thread, once torch (which imports it) is loaded: never in the sampler

    core._S.pickle = pickle
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
            if os.getpid() == core._PID0 and _is_oom(v):
                _pickle_oom_snapshot()
        except Exception as e:
            core._error("oom-snapshot", e)

    sys.excepthook = excepthook
