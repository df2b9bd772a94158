"""GPU Sanitizer's in-process probe: a probe snapshot imports nothing, in any thread (docs/probe.md).

Used by the regression phase's snapshots (gpu_sanitize_sites.py): the thread's `no_import` flag, torch's lazy
attributes read as absent for such a thread, and an import hook that refuses it torch's modules.
"""

import gpu_sanitize_core as core


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
    tls = core._S.tls
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
    tls = core._S.tls

    def __getattr__(name):
        if getattr(tls, "no_import", False):
            raise AttributeError("module 'torch' has no attribute '%s' (not imported: a GPU Sanitizer probe "
                                 "snapshot imports nothing)" % name)
        return original(name)

    torch.__getattr__ = core._passes_for(__getattr__, original)
    return True


class _ImportGuard(object):
    """First on sys.meta_path in the regression phase: answers only to a thread inside a probe snapshot
    (and the sampler thread), which must not import. One thread-local lookup per first import of a module."""

    def find_spec(self, name, path=None, target=None):
        if not getattr(core._S.tls, "no_import", False):
            return None
        first = name not in core._S.refused and len(core._S.refused) < 100
        core._S.refused.add(name)
        if name == "torch" or name.startswith("torch."):
            if first:
                core._note("snapshot-import",
                           "a snapshot asked to import %s: refused (the probe imports nothing)" % name)
            raise ImportError("the GPU Sanitizer probe does not import %s during a snapshot" % name, name=name)
        if first:
            core._note("snapshot-import", "a snapshot imported %s (let through: not one of torch's modules)" % name)
        return None

    def invalidate_caches(self):
        pass
