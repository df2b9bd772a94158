"""Test support of the fake torch (no such module in torch): makes the import race of torch 2.11 under the
old probe deterministic. In torch, `torch.optim.SGD(...)` imports torch._dynamo (seconds), whose guards
import torch._inductor.utils. If another thread takes an allocator snapshot meanwhile, the snapshot's frame
symbolization imports torch._inductor in that thread (see _C.py); torch._inductor.utils imports torch._dynamo,
which the main thread is initializing. Python's import-deadlock detection then hands the main thread the
partially initialized torch._inductor.utils: "ImportError: cannot import name 'IndentedBuffer' from partially
initialized module 'torch._inductor.utils' (most likely due to a circular import)".

Here torch._dynamo's body waits, in the main thread, for a snapshot in another thread: until it ends, or
until that thread is inside torch._inductor.utils and blocked on the import lock of torch._dynamo.
"""
import sys
import threading
import time

_entered = threading.Event()
_done = threading.Event()
_utils = threading.Event()
_other = []


def snapshot_entered():
    _other.append(threading.get_ident())
    _done.clear()
    _entered.set()


def snapshot_done():
    _done.set()


def inductor_utils_started():
    if threading.current_thread() is not threading.main_thread():
        _utils.set()


def _blocked_on_import(tid):
    bootstrap = sys.modules.get("_frozen_importlib")
    blocking = getattr(bootstrap, "_blocking_on", None)
    try:
        return bool(blocking.get(tid)) if blocking is not None else None
    except Exception:
        return None


def main_waits_for_a_snapshot():
    if threading.current_thread() is not threading.main_thread() or threading.active_count() < 2:
        return  # no other thread: no probe, nothing to wait for
    if not _entered.wait(10):
        return
    deadline = time.time() + 10
    while time.time() < deadline and not _done.is_set() and not _utils.is_set():
        time.sleep(0.005)
    if _utils.is_set():
        tid = _other[-1]
        while time.time() < deadline:
            blocked = _blocked_on_import(tid)
            if blocked is None:
                time.sleep(0.5)
                return
            if blocked:
                return
            time.sleep(0.005)
