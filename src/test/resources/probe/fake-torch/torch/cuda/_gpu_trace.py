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
