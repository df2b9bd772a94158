"""GPU Sanitizer's in-process probe (docs/probe.md).

Loaded by the sitecustomize.py beside it in every phase of `gpu-sanitize run` (the sanitizer, blocking and regression
runs).
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

The probe's parts, one module each beside this file (this one loads them and activates the probe):
  gpu_sanitize_core.py       the writer of probe.jsonl, its bounds, the environment's numbers, and _S: the state
                             every part shares (read and written as core._S.x, one object)
  gpu_sanitize_frames.py     which frames are the job's own, the job's line, the traceback without the probe's frames
  gpu_sanitize_compile.py    sanitizer mode: torch.compile in the default mode
  gpu_sanitize_alloc.py      sanitizer mode: the allocation record (alloc-PID.jsonl)
  gpu_sanitize_blocking.py   blocking mode: the failing operator's arguments
  gpu_sanitize_sites.py      regression mode: allocation sites, the sampler thread, out of memory
  gpu_sanitize_no_import.py  regression mode: a probe snapshot imports nothing
  gpu_sanitize_work.py       every mode: proof of work (steps, backward passes, optimizers, the CUDA context)
  gpu_sanitize_state.py      every mode: files opened outside the run's copy (an audit hook, armed before torch)
  gpu_sanitize_census.py     blocking mode: the kernel census (gpu_sanitize_census.c, a CUPTI injection it builds)
  gpu_sanitize_coverage.py   blocking mode: the census's count step by step; sanitizer mode: the coverage stop
"""

import importlib.util
import os
import sys
import time

_HERE = os.path.dirname(os.path.abspath(__file__))


def _load(name):
    """A part of the probe, from this folder (never a module of that name elsewhere on the job's path), under its
    name in sys.modules: the parts import each other by that name and get this one module, its state shared."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(_HERE, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


# Every part is loaded here, at the interpreter's start, in the order they import each other: nothing is imported
# later (the sampler thread imports nothing).
core = _load("gpu_sanitize_core")
_load("gpu_sanitize_frames")
compile_mode = _load("gpu_sanitize_compile")
alloc = _load("gpu_sanitize_alloc")
blocking = _load("gpu_sanitize_blocking")
_load("gpu_sanitize_no_import")
sites = _load("gpu_sanitize_sites")
work = _load("gpu_sanitize_work")
coverage = _load("gpu_sanitize_coverage")


def _after_fork():
    """The child of a fork (a DataLoader worker) starts with no lock held and counts its own work: a lock another
    thread of the parent held at the fork would never be released in the child."""
    core._after_fork()
    work._work_after_fork()
    coverage._after_fork()
    alloc._alloc_after_fork()
    if core._S.state is not None:
        core._S.state.after_fork()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


# ---------------------------------------------------------------------------------------------
# activation


def _at_exit():
    try:
        if os.getpid() != core._PID0:
            return
        if core._MODE == "regression" and core._S.cuda_started:
            core._S.exiting = True
            try:
                sites._sample("exit")
            except Exception as e:
                core._error("exit-sample", e)
        rec = {"type": "exit", "probeSeconds": round(core._S.probe_seconds, 4), "dropped": alloc._A.dropped}
        if core._MODE == "blocking":
            rec["watchedCalls"] = core._S.watched_calls
        elif core._MODE == "regression":
            rec["samples"] = core._S.samples
            rec["stateSnapshots"] = bool(core._S.fast_snapshot)
        core._emit(rec, force=True)
    except Exception:
        pass


def _on_torch(torch):
    """Runs once, right after the job's `import torch` finished."""
    try:
        if core._S.torch is not None:
            return
        core._S.torch = torch
        core._S.torch_dir = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
        core._S.stdlib_dir = os.path.dirname(os.path.abspath(os.__file__)) + os.sep
        core._S.user_cache.clear()
        hello = {
            "type": "probe",
            "mode": core._MODE,
            "python": sys.version.split()[0],
            "torch": getattr(torch, "__version__", None),
            "localRank": os.environ.get("LOCAL_RANK"),
            "ts": round(core._T0, 3),
            # nvidia-smi stamps its samples in local time without a zone: this lines them up with ts
            "utcOffset": time.localtime(core._T0).tm_gmtoff,
        }
        if core._MODE == "blocking":
            hello["watched"] = blocking._install_blocking(torch)
        elif core._MODE == "sanitizer":
            hello["compileWrapped"] = compile_mode._install_sanitizer(torch)
            hello["allocations"] = alloc._install_alloc_record(torch)
        elif core._MODE == "regression":
            sites._install_regression(torch)
        hello["work"] = work._install_work(torch)
        if core._S.state is not None:
            try:
                hello["saveWatched"] = core._S.state.watch_save(torch)
            except Exception as e:
                core._error("state-save", e)
        core._emit(hello, force=True)
        import atexit

        atexit.register(_at_exit)
        atexit.register(work._work_exit)
    except Exception as e:
        core._error("activate", e)


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
            core._error("import-hook", e)
            return None
        finally:
            self.busy = False

    def invalidate_caches(self):
        pass


def _install_state():
    """The audit hook that names files opened outside the run's copy (gpu_sanitize_state.py beside this file)."""
    try:
        spec = importlib.util.spec_from_file_location("gpu_sanitize_state", os.path.join(_HERE, "gpu_sanitize_state.py"))
        state = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(state)
        if state.install(lambda rec: core._emit(rec, force=True)):
            core._S.state = state
    except Exception as e:
        core._error("state", e)


def install():
    """Called by sitecustomize: arms the hook; costs one name comparison per module import until torch."""
    if core._S.installed or not core._OUT or core._MODE not in ("blocking", "regression", "sanitizer"):
        return
    core._S.installed = True
    if os.environ.get("GPU_SANITIZE_CENSUS_DIR") and core._MODE == "blocking":
        # before the audit hook (its build is the probe's, not the job's) and before the job can initialise CUDA; the
        # blocking run's only: under compute-sanitizer (which holds CUPTI itself) never, whatever the job's environment
        try:
            _load("gpu_sanitize_census").install()
        except Exception as e:
            core._error("census", e)
    if os.environ.get("GPU_SANITIZE_PROBE_STATE", "1") != "0":
        _install_state()
    if "torch" in sys.modules:
        _on_torch(sys.modules["torch"])
        return
    sys.meta_path.insert(0, _TorchFinder())
