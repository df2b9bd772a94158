"""GPU Sanitizer's in-process probe: the failing operator's arguments, in the blocking phase (docs/probe.md).

The index-taking operators are wrapped: on a CUDA call, one aminmax of the index tensor is copied into pinned host
memory without a synchronisation, read only when the operator raises; the failure is written with the operator,
the job's line and its tensor arguments.
"""

import sys
import time

import gpu_sanitize_core as core
from gpu_sanitize_frames import _loc, _strip, _strip_chain, _user_frames

_MAX_FAILURES = 20


# ---------------------------------------------------------------------------------------------
# blocking mode: the failing operator's arguments


def _arg(args, kwargs, pos, name):
    if len(args) > pos:
        return args[pos]
    return kwargs.get(name)


def _x_embedding(args, kwargs):
    idx = _arg(args, kwargs, 0, "input")
    weight = _arg(args, kwargs, 1, "weight")
    size = _size(weight, 0)
    return ("index", idx, size, "weight", "rows", None)


def _x_loss(args, kwargs):
    inp = _arg(args, kwargs, 0, "input")
    target = _arg(args, kwargs, 1, "target")
    ignore = _arg(args, kwargs, 4, "ignore_index")
    if ignore is None:
        ignore = -100
    size = None
    try:
        size = _size(inp, 1) if inp.dim() >= 2 else _size(inp, 0)
    except Exception:
        pass
    return ("target", target, size, "input", "classes", ignore)


def _x_dim_index(index_pos, index_name, dim_pos, dim_default=None):
    def x(args, kwargs):
        inp = _arg(args, kwargs, 0, "input")
        if inp is None:
            inp = kwargs.get("self")
        idx = _arg(args, kwargs, index_pos, index_name)
        dim = _arg(args, kwargs, dim_pos, "dim")
        if dim is None:
            dim = dim_default
        size = None
        unit = "entries"
        if dim is None:
            try:
                size = int(inp.numel())
                unit = "elements"
            except Exception:
                pass
        elif isinstance(dim, int):
            size = _size(inp, dim)
            try:
                unit = "entries along dim %d" % (dim % max(1, inp.dim()))
            except Exception:
                unit = "entries along dim %d" % dim
        return ("index", idx, size, "input", unit, None)

    return x


def _size(t, d):
    try:
        return int(t.shape[d])
    except Exception:
        return None


_DIM_INDEX = _x_dim_index(2, "index", 1)
_TAKE = _x_dim_index(1, "indices", 2)
_LOSS_NAMES = ("input", "target", "weight")
_DIM_NAMES = ("input", "dim", "index", "src")
_WATCH = [
    ("torch.nn.functional", "embedding", "aten::embedding", _x_embedding, ("input", "weight")),
    ("torch.nn.functional", "cross_entropy", "aten::cross_entropy_loss", _x_loss, _LOSS_NAMES),
    ("torch.nn.functional", "nll_loss", "aten::nll_loss", _x_loss, _LOSS_NAMES),
    ("torch", "take_along_dim", "aten::take_along_dim", _TAKE, ("input", "indices")),
    ("torch.Tensor", "take_along_dim", "aten::take_along_dim", _TAKE, ("input", "indices")),
]
for _name in ("gather", "scatter", "scatter_add", "scatter_reduce", "index_select", "index_add", "index_copy"):
    _WATCH.append(("torch", _name, "aten::" + _name, _DIM_INDEX, _DIM_NAMES))
    _WATCH.append(("torch.Tensor", _name, "aten::" + _name, _DIM_INDEX, _DIM_NAMES))
for _name in ("scatter_", "scatter_add_", "scatter_reduce_", "index_add_", "index_copy_"):
    _WATCH.append(("torch.Tensor", _name, "aten::" + _name, _DIM_INDEX, _DIM_NAMES))


def _is_tensor(x):
    t = core._S.torch
    return t is not None and isinstance(x, t.Tensor)


_INT_DTYPES = ("int64", "int32", "int16", "int8", "uint8")


def _dtype(t):
    return str(t.dtype).replace("torch.", "")


def _precompute(extractor, args, kwargs):
    """On a CUDA index tensor: min and max into pinned host memory, no synchronisation."""
    torch = core._S.torch
    _, idx, _, _, _, _ = extractor(args, kwargs)
    # plain CUDA tensors only: never a fake, functional or batched tensor of a tracer or transform
    if type(idx) is not torch.Tensor or not idx.is_cuda or _dtype(idx) not in _INT_DTYPES or idx.numel() == 0:
        return None
    if torch.cuda.is_current_stream_capturing() or _dispatch_modes() > 0:
        return None
    buf = core._S.pinned.get(idx.dtype)
    if buf is None:
        with torch.inference_mode(False):  # a normal tensor, writable in and out of inference mode
            buf = torch.empty(2, dtype=idx.dtype, pin_memory=True)
        core._S.pinned[idx.dtype] = buf
    mm = torch.aminmax(idx)
    buf.copy_(torch.stack((mm[0], mm[1])), non_blocking=True)
    return buf


def _dispatch_modes():
    """Active TorchDispatchModes (make_fx, FakeTensorMode...): an extra reduction would be traced."""
    try:
        return core._S.torch._C._len_torch_dispatch_stack()
    except Exception:
        return 0


_STICKY = ("device-side assert", "illegal memory access", "CUDA error", "unspecified launch failure")


def _on_failure(op, extractor, names, args, kwargs, pre, exc, frame):
    if not isinstance(exc, Exception) or core._S.failures >= _MAX_FAILURES:
        return
    core._S.failures += 1
    torch = core._S.torch
    rec = {"type": "op-failure", "op": op, "mode": core._MODE}
    try:
        rec["exception"] = {"type": type(exc).__name__, "message": core._first_line(exc)}
        frames = _user_frames(frame.f_back if frame is not None else None)
        if frames:
            rec["site"] = _loc(*frames[0])
            rec["stack"] = [_loc(f, l, n, code=False) for f, l, n in frames[1:]]
        name, idx, size, of, unit, ignore = extractor(args, kwargs)
        summary = []
        positional = list(enumerate(args)) + list(kwargs.items())
        for key, v in positional:
            if _is_tensor(v) and len(summary) < 8:
                summary.append({
                    "name": (names[key] if key < len(names) else "arg%d" % key) if isinstance(key, int) else key,
                    "shape": list(v.shape),
                    "dtype": _dtype(v),
                    "device": str(v.device),
                    "index": v is idx,
                })
        rec["args"] = summary
        check = {"name": name, "size": size, "of": of, "unit": unit}
        if ignore is not None:
            check["ignoreIndex"] = ignore
        if _is_tensor(idx):
            check["shape"] = list(idx.shape)
            check["dtype"] = _dtype(idx)
            if _dtype(idx) in _INT_DTYPES and idx.numel() > 0:
                sticky = any(s in str(exc) for s in _STICKY)
                vals = None
                if pre is not None:
                    if not sticky:
                        try:
                            torch.cuda.synchronize()
                        except Exception:
                            pass
                    vals = pre.tolist()
                    check["statsFrom"] = "before the call"
                elif not idx.is_cuda or not sticky:
                    mm = torch.aminmax(idx)
                    vals = [int(mm[0].item()), int(mm[1].item())]
                    check["statsFrom"] = "after the failure"
                if vals is not None:
                    check["min"] = int(vals[0])
                    check["max"] = int(vals[1])
                    if size is not None:
                        low_ok = check["min"] >= 0 or (ignore is not None and check["min"] == ignore)
                        high_ok = check["max"] < size or (ignore is not None and check["max"] == ignore)
                        check["outOfRange"] = not (low_ok and high_ok)
        rec["check"] = check
    except Exception as e:
        rec["probeError"] = "%s: %s" % (type(e).__name__, core._first_line(e))
    core._emit(rec, force=True)


def _make_wrapper(orig, op, extractor, names):
    compiling = core._S.compiling

    tls = core._S.tls

    def wrapper(*args, **kwargs):
        if getattr(tls, "inside", False) or (compiling is not None and compiling()):
            return orig(*args, **kwargs)  # a watched operator calling another: the outer one reports
        core._S.watched_calls += 1
        pre = None
        t0 = time.perf_counter()
        try:
            pre = _precompute(extractor, args, kwargs)
        except Exception as e:
            core._error("precompute " + op, e)
        core._S.probe_seconds += time.perf_counter() - t0
        tls.inside = True
        try:
            return orig(*args, **kwargs)
        except BaseException as exc:
            try:
                _on_failure(op, extractor, names, args, kwargs, pre, exc, sys._getframe())
            except BaseException:
                pass
            raise
        finally:
            tls.inside = False

    return core._passes_for(wrapper, orig)


def _install_blocking(torch):
    import importlib

    core._S.compiling = None
    try:
        core._S.compiling = torch.compiler.is_compiling
    except Exception:
        pass
    jit_builtins = sys.modules.get("torch.jit._builtins")
    wrapped = []
    for owner_name, attr, op, extractor, names in _WATCH:
        try:
            owner = torch.Tensor if owner_name == "torch.Tensor" else importlib.import_module(owner_name)
            orig = getattr(owner, attr, None)
            if orig is None or getattr(orig, "_gpu_sanitize_probe", False):
                continue
            w = _make_wrapper(orig, op, extractor, names)
            setattr(owner, attr, w)
            if owner_name == "torch":
                core._register_jit_builtin(jit_builtins, w, "aten::" + attr)
            wrapped.append(owner_name + "." + attr)
        except Exception as e:
            core._error("wrap " + owner_name + "." + attr, e)
    previous = sys.excepthook

    def excepthook(t, v, tb):
        try:
            _strip_chain(v)
            tb = v.__traceback__ if v is not None else _strip(tb)
        except Exception:
            pass
        previous(t, v, tb)

    sys.excepthook = excepthook
    return wrapped
