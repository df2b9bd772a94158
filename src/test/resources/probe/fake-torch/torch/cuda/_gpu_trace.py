"""torch.cuda._gpu_trace, faked: the callbacks torch's allocator calls with each allocation's pointer, and with
each one's before it is freed, once the GPU trace is on (torch._C._activate_gpu_trace; torch/csrc/PyInterpreter.cpp,
CONCRETE_GPU_TRACE)."""
ACTIVE = [False]
_allocation = []
_deallocation = []


def register_callback_for_memory_allocation(cb):
    _allocation.append(cb)


def register_callback_for_memory_deallocation(cb):
    _deallocation.append(cb)


def allocated(ptr):
    if ACTIVE[0]:
        for cb in _allocation:
            cb(ptr)


def freed(ptr):
    if ACTIVE[0]:
        for cb in _deallocation:
            cb(ptr)


FREED = []  # every pointer freed, traced or not: what a job (and a test) can check was released when


def freed_now(ptr):
    FREED.append(ptr)


def fire_without_frames(ptr, free=False):
    """The callbacks called as torch's C++ calls them from a thread of its own (autograd's engine, a library's
    worker): a new OS thread that calls the callback with no Python frame below it (a chain of C callables: deque
    consumes a map that calls the callback, then releases a lock). Returns once it has run."""
    import _thread
    import collections
    import functools
    import operator

    for cb in (_deallocation if free else _allocation):
        done = _thread.allocate_lock()
        done.acquire()
        calls = map(operator.methodcaller("__call__"), [functools.partial(cb, ptr), done.release])
        _thread.start_new_thread(collections.deque, (calls, 0))
        done.acquire(True, 10)
