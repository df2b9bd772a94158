"""GPU Sanitizer's in-process probe: proof of work, in every phase (docs/probe.md, issue #40)."""

import sys
import time

import gpu_sanitize_core as core


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
_WORK_EVERY = core._env_number("GPU_SANITIZE_PROBE_WORK_INTERVAL", 2.0)


def _work_after_fork():
    """A forked child's work is its own: the parent's count stays the parent's."""
    _W.steps = 0
    _W.backward = 0
    _W.optimizers = 0
    _W.loads = 0
    _W.last_emit = 0.0
    _W.cuda = False



def _work_cuda():
    """Queued by torch.cuda._lazy_call: the process created its CUDA context."""
    try:
        _W.cuda = True
        core._emit({"type": "work", "event": "cuda", "ts": round(time.time(), 3)}, force=True)
    except Exception:
        pass


def _work_step(optimizer, args, kwargs):
    """torch's global optimizer-step post hook: one counter, a progress record every few seconds."""
    _W.steps += 1
    _work_progress(_W.steps == 1)
    _coverage_tick("step")


def _work_progress(first):
    try:
        now = time.time()
        if first or now - _W.last_emit >= _WORK_EVERY:
            _W.last_emit = now
            core._emit({"type": "work", "event": "progress", "steps": _W.steps, "backward": _W.backward,
                        "ts": round(now, 3)}, force=True)
    except Exception:
        pass


def _coverage_tick(hook):
    """The census's count in the blocking run, the coverage stop in the sanitizer run (gpu_sanitize_coverage.py)."""
    coverage = sys.modules.get("gpu_sanitize_coverage")
    if coverage is not None:
        coverage.tick(hook, _W.steps, _W.backward)


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
                core._emit({"type": "work", "event": counter, "optimizers": _W.optimizers, "loads": _W.loads,
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
        _coverage_tick("backward")
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
        core._error("work-counters", e)
    return rec


def _work_exit():
    try:
        torch = core._S.torch
        if torch is None:
            return
        rec = {"type": "work", "event": "exit", "ts": round(time.time(), 3)}
        rec.update(_work_counters(torch))
        core._emit(rec, force=True)
    except Exception:
        pass


def _install_work(torch):
    """Arms the counters; returns what could be armed (the hello record says it)."""
    armed = []
    try:
        torch.cuda._lazy_call(_work_cuda)
        armed.append("cuda")
    except Exception as e:
        core._error("work-cuda", e)
    optimizer_module = None
    try:
        # loaded by `import torch` already in torch 2.x; torch 2.11's torch.optim drops the submodule's name from
        # its namespace, so `torch.optim.optimizer` raises AttributeError (seen on the card, 2026-12-07): the module
        # is taken from the import itself
        import torch.optim.optimizer as optimizer_module

        optimizer_module.register_optimizer_step_post_hook(_work_step)
        armed.append("steps")
    except Exception as e:
        core._error("work-steps", e)
    try:
        base = optimizer_module.Optimizer if optimizer_module is not None else torch.optim.Optimizer
        for name, counter in (("__init__", "optimizers"), ("load_state_dict", "loads")):
            original = base.__dict__.get(name)
            if callable(original) and not getattr(original, "_gpu_sanitize_probe", False):
                setattr(base, name, _counting_optimizer(original, counter))
        armed.append("optimizers")
    except Exception as e:
        core._error("work-optimizers", e)
    try:
        autograd = torch.autograd  # Tensor.backward looks torch.autograd.backward up at each call
        wrapped = 0
        for name in ("backward", "grad"):
            original = getattr(autograd, name, None)
            if callable(original) and not getattr(original, "_gpu_sanitize_probe", False):
                counted = _counting_backward(original)
                setattr(autograd, name, counted)
                # TorchScript maps torch.autograd.grad/backward to aten::grad/backward by identity
                core._register_jit_builtin(sys.modules.get("torch.jit._builtins"), counted, "aten::" + name)
                wrapped += 1
        if wrapped:
            armed.append("backward")
    except Exception as e:
        core._error("work-backward", e)
    return armed
