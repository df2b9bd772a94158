"""Coverage-bounded checking (issue #49, docs/probe.md): the sanitizer run checks every launch, but only until the job
has launched every kernel the plain run launched; the rest of the job is not run under the tool.

Blocking mode, census armed: at each optimizer step (torch's post hook) and each backward pass (at its call) the
census library's count of distinct kernels so far is read (one call into the library the CUDA driver loaded, found with
dlopen's RTLD_NOLOAD: the probe never loads it itself); when the count grew, one record:
  {"type":"census","hook":"step"|"backward","steps":S,"backward":B,"distinct":K}
At its exit the census writes its total (census-PID.jsonl): a total above the last record's count means kernels first
launched after the last step (an evaluation at the end), and then the sanitizer run is not stopped.

Sanitizer mode, GPU_SANITIZE_COVERAGE_STOP set (a file in the run's folder): the runner writes it, once the blocking run
ended, as {"unit":"steps"|"backward","at":N}; the probe looks for it at each hook (a failed open until then). The
processes of a job agree on one count to end at (_agreed: DDP's ranks must end at the same step), N or later. There the probe waits for the GPU
(torch.cuda.synchronize: every kernel launched so far has run, so the tool has checked it), writes a `coverage-stop`
record and its work's exit record, flushes the job's stdout and stderr and ends the process with exit code 0 (os._exit:
no more of the job runs, so nothing of it is launched unchecked). The runner judges that record against what it wrote:
a stop it never set is an error, never a pass.
"""

import os
import sys
import time

import gpu_sanitize_core as core

CENSUS_LIBRARY = "launch_census.so"  # gpu_sanitize_census.LIBRARY, not imported: that module builds, this one reads
_STOP_PATH = os.environ.get("GPU_SANITIZE_COVERAGE_STOP") or None


class _Coverage(object):
    count = None  # the census library's counter, once found
    next_try = 0.0
    last = -1
    stop = None  # (unit, at) once the runner wrote it
    agreed = None  # the count every process of the job ends at (_agreed)


_C = _Coverage()


def _after_fork():
    """A forked child counts nothing of the census (the library answers -1 there) and reads the stop anew."""
    _C.count = None
    _C.last = -1
    _C.stop = None
    _C.agreed = None


def _distinct():
    """The census's distinct-kernel count, or None while its library is not loaded (CUDA not initialised yet) or not
    counting."""
    if _C.count is None:
        now = time.monotonic()
        if now < _C.next_try:
            return None
        _C.next_try = now + 1.0
        path = os.environ.get("CUDA_INJECTION64_PATH") or ""
        if not path.endswith(CENSUS_LIBRARY) or not hasattr(os, "RTLD_NOLOAD"):
            return None
        try:
            import ctypes

            lib = ctypes.CDLL(path, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
            count = lib.gpu_sanitize_census_distinct
            count.restype = ctypes.c_longlong
            count.argtypes = []
        except (OSError, AttributeError):
            return None
        _C.count = count
    value = int(_C.count())
    return value if value >= 0 else None


def _census_tick(hook, steps, backward):
    d = _distinct()
    if d is None or d == _C.last:
        return
    _C.last = d
    core._emit({"type": "census", "hook": hook, "steps": steps, "backward": backward, "distinct": d}, force=True)


def _read_stop():
    try:
        import json

        with open(_STOP_PATH, "r") as f:
            stop = json.load(f)
        unit, at = stop.get("unit"), int(stop.get("at"))
    except (OSError, ValueError, TypeError, AttributeError):
        return None  # not written yet (the blocking run goes on), or half written: read again at the next hook
    if unit in ("steps", "backward") and at > 0:
        _C.stop = (unit, at)
    return _C.stop


def _ranks():
    try:
        return max(int(os.environ.get("WORLD_SIZE", "1")), int(os.environ.get("LOCAL_WORLD_SIZE", "1")))
    except ValueError:
        return 1


def _agreed(unit, at, reached):
    """The count at which every process of the job ends (a file beside the stop file, written once, whole, by the
    first process that read the stop): DDP's ranks move in step (a rank is at most one step ahead of another: each
    step's gradients are reduced across them), and a rank that ended at a step the others had not reached would leave
    them waiting in the next reduction. The first to read the stop ends two steps after where it is, which no rank has
    reached yet; a job of one process ends where it is."""
    if _C.agreed is not None:
        return _C.agreed
    path = _STOP_PATH + ".agreed"
    try:
        with open(path, "r") as f:
            _C.agreed = int(f.read().strip())
            return _C.agreed
    except (OSError, ValueError):
        pass
    mine = max(at, reached + 2 if _ranks() > 1 else reached)
    partial = "%s.%d" % (path, os.getpid())
    try:
        with open(partial, "w") as f:
            f.write("%d\n" % mine)
        try:
            os.link(partial, path)  # whole or not at all, and only the first process's
        except FileExistsError:
            with open(path, "r") as f:
                mine = int(f.read().strip())
        finally:
            os.unlink(partial)
    except (OSError, ValueError) as e:
        core._error("coverage-agree", e)
    _C.agreed = mine
    return mine


def _stop_tick(hook, steps, backward):
    stop = _C.stop or _read_stop()
    if stop is None or hook != ("step" if stop[0] == "steps" else "backward"):
        return
    unit, at = stop
    reached = steps if unit == "steps" else backward
    if reached < at or reached < _agreed(unit, at, reached):
        return
    torch = core._S.torch
    synchronized = False
    try:
        if torch is not None and torch.cuda.is_initialized():
            torch.cuda.synchronize()
            synchronized = True
    except Exception as e:
        core._error("coverage-synchronize", e)
    rec = {"type": "coverage-stop", "unit": unit, "at": at, "steps": steps, "backward": backward,
           "agreed": _C.agreed, "synchronized": synchronized, "ts": round(time.time(), 3)}
    try:
        # cuDNN's benchmark mode picks its kernels by timing them, and under the tool the timings are not the plain
        # run's: the census's cuDNN kernels need not be the ones this run launched
        rec["cudnnBenchmark"] = bool(torch.backends.cudnn.benchmark)
    except Exception:
        pass
    core._emit(rec, force=True)
    work = sys.modules.get("gpu_sanitize_work")
    if work is not None:
        work._work_exit()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    os._exit(0)


def tick(hook, steps, backward):
    """Called by the proof of work's hooks after each optimizer step ("step") and at each backward pass ("backward");
    never raises into the job."""
    try:
        if core._MODE == "blocking":
            _census_tick(hook, steps, backward)
        elif core._MODE == "sanitizer" and _STOP_PATH:
            _stop_tick(hook, steps, backward)
    except Exception as e:
        core._error("coverage", e)
