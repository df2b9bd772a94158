# GPU Sanitizer probe loader (docs/probe.md).
#
# gpu-sanitize puts this folder first on PYTHONPATH for the phases that use the probe, so
# Python's site module imports this file as `sitecustomize`. It loads gpu_sanitize_probe, which does
# nothing until the job itself imports torch, then runs the sitecustomize this file shadows (the next
# one on sys.path) exactly as site.py would have: its errors are reported by site.py as before.
# Kept to a syntax every Python parses; the probe itself needs Python 3.8+.
import sys


def _gpu_sanitize_load():
    import os

    here = os.path.dirname(os.path.abspath(__file__))
    if sys.version_info >= (3, 8) and os.environ.get("GPU_SANITIZE_PROBE_OUT"):
        try:
            import importlib.util

            spec = importlib.util.spec_from_file_location(
                "gpu_sanitize_probe", os.path.join(here, "gpu_sanitize_probe.py"))
            probe = importlib.util.module_from_spec(spec)
            sys.modules["gpu_sanitize_probe"] = probe
            spec.loader.exec_module(probe)
            probe.install()
        except Exception:
            sys.modules.pop("gpu_sanitize_probe", None)
    if sys.version_info < (3, 4):
        import imp

        path = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
        try:
            found = imp.find_module("sitecustomize", path)
        except ImportError:
            return None
        try:
            sys.modules["sitecustomize"] = imp.load_module("sitecustomize", *found)
        finally:
            if found[0] is not None:
                found[0].close()
        return None
    import importlib.machinery
    import importlib.util

    path = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is None or spec.loader is None or not spec.origin:
        return None
    if os.path.dirname(os.path.abspath(spec.origin)) == here:
        return None
    return spec


_gpu_sanitize_next = _gpu_sanitize_load()
if _gpu_sanitize_next is not None:
    import importlib.util as _gpu_sanitize_util

    _gpu_sanitize_module = _gpu_sanitize_util.module_from_spec(_gpu_sanitize_next)
    sys.modules["sitecustomize"] = _gpu_sanitize_module
    _gpu_sanitize_next.loader.exec_module(_gpu_sanitize_module)
