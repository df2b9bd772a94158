"""A tiny stand-in for torch (tests only): just what the probe touches, on plain Python lists.

"cuda" tensors behave like CUDA ones where the probe depends on it: an out-of-range index on them
raises PyTorch's device-side-assert RuntimeError and poisons the context (every later "cuda"
operation fails with the same error), so their min/max can only come from before the failing call.
"""
import os

__version__ = "0.0+fake"


class dtype(object):
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "torch." + self.name


int64 = dtype("int64")
int32 = dtype("int32")
float32 = dtype("float32")

STATE = {"poisoned": False, "calls": []}
ASSERT_MSG = ("CUDA error: device-side assert triggered\n"
              "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.")


def _check_cuda(device):
    if device.startswith("cuda") and STATE["poisoned"]:
        raise RuntimeError(ASSERT_MSG)


def _poison():
    STATE["poisoned"] = True
    raise RuntimeError(ASSERT_MSG)


class device(object):
    def __init__(self, s):
        self.type = s.split(":")[0]
        self.s = s

    def __str__(self):
        return self.s


class _Storage(object):
    def __init__(self, ptr):
        self.ptr = ptr

    def data_ptr(self):
        return self.ptr


class Tensor(object):
    _base = None  # not a view
    _ptr = 0  # the first byte of its memory (cuda_empty)

    def storage_offset(self):
        return 0

    def untyped_storage(self):
        return _Storage(self._ptr)

    def __init__(self, data, shape=None, dtype=None, device="cpu", pinned=False):
        self.data = list(data)
        self.shape = tuple(shape) if shape is not None else (len(self.data),)
        self.dtype = dtype or (int64 if all(isinstance(x, int) for x in self.data) else float32)
        self._device = device if ":" in device or device == "cpu" else device + ":0"
        self.pinned = pinned

    @property
    def device(self):
        return device(self._device)

    @property
    def is_cuda(self):
        return self._device.startswith("cuda")

    def numel(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    def dim(self):
        return len(self.shape)

    def size(self, d):
        return self.shape[d]

    def tolist(self):
        _check_cuda(self._device)
        return list(self.data)

    def item(self):
        _check_cuda(self._device)
        return self.data[0]

    def copy_(self, src, non_blocking=False):
        _check_cuda(src._device)
        STATE["calls"].append(("copy_", non_blocking, self.pinned))
        self.data = list(src.data)
        return self

    def gather(self, dim, index):
        return gather(self, dim, index)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        import torch.autograd  # noqa: F811 (as torch/_tensor.py: the module attribute, looked up at each call)

        torch.autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)


def tensor(data, shape=None, dtype=None, device="cpu"):
    return Tensor(data, shape, dtype, device)


def empty(n, dtype=None, pin_memory=False):
    if pin_memory:
        _check_cuda("cuda")
    return Tensor([0] * n, (n,), dtype, "cpu", pin_memory)


def cuda_empty(n, ptr, dtype=None):
    """A CUDA tensor whose memory starts at ptr: the allocator tells the GPU trace (torch.cuda._gpu_trace), as
    torch's uncached allocator does for each cudaMalloc."""
    from .cuda import _gpu_trace

    _gpu_trace.allocated(ptr)
    t = _CudaTensor([0.0] * n, (n,), dtype or float32, "cuda")
    t._ptr = ptr
    t._trace = _gpu_trace
    return t


class _CudaTensor(Tensor):
    _trace = None

    def __del__(self):
        try:
            self._trace.freed_now(self._ptr)
            self._trace.freed(self._ptr)
        except Exception:
            pass  # interpreter shutdown


def aminmax(t):
    _check_cuda(t._device)
    STATE["calls"].append(("aminmax", t._device))
    return (Tensor([min(t.data)], (), t.dtype, t._device), Tensor([max(t.data)], (), t.dtype, t._device))


def stack(ts):
    _check_cuda(ts[0]._device)
    return Tensor([x.data[0] for x in ts], (len(ts),), ts[0].dtype, ts[0]._device)


def gather(input, dim, index):
    _check_cuda(input._device)
    if any(i < 0 or i >= input.shape[dim] for i in index.data):
        if input.is_cuda:
            _poison()
        raise RuntimeError("index %d is out of bounds for dimension %d with size %d"
                           % (max(index.data), dim, input.shape[dim]))
    return Tensor(index.data, index.shape, input.dtype, input._device)


class OutOfMemoryError(RuntimeError):
    pass


class inference_mode(object):
    def __init__(self, mode=True):
        self.mode = mode

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


from . import _C  # noqa: E402
from . import autograd  # noqa: E402
from . import backends  # noqa: E402
from . import compiler  # noqa: E402
from . import cuda  # noqa: E402
from . import jit  # noqa: E402
from . import nn  # noqa: E402
from . import optim  # noqa: E402
from . import serialization  # noqa: E402
from .serialization import save  # noqa: E402,F401

_lazy_modules = {"_dynamo", "_inductor"}


def __getattr__(name):
    """As torch 2.x: torch._dynamo and torch._inductor are imported on first attribute access."""
    if name in _lazy_modules:
        import importlib

        return importlib.import_module("." + name, __name__)
    raise AttributeError("module 'torch' has no attribute '%s'" % name)


if os.environ.get("FAKE_TORCH_BREAK_CUDA"):
    del cuda.memory._snapshot  # a torch without the API the probe uses: the probe must say so, not fail
    del _C._cuda_memorySnapshot


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None, options=None, disable=False):
    """torch.compile's signature (torch/__init__.py); says what it was asked, returns the model."""
    print("compile mode=%s options=%s" % (mode, sorted((options or {}).items())))
    if model is None:
        return lambda fn: compile(fn, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                                  options=options, disable=disable)
    return model
