"""Issue #49, the memory that rises under compute-sanitizer: does the tool keep the Python frame of a CUDA call alive?

    python3 frame_hold.py [CALLS]        (alone, then under compute-sanitizer; bench/memory/frame-hold.sh runs both)

For each kind of CUDA call, a function makes a 1 MiB CUDA tensor (a local), makes the call, and returns; CALLS
times. What a kept frame would keep is that local. Per kind, one line:
  HOLD kind=K calls=N extra_frame_refs=R alive=A alive_after_sync=S alive_after_launches=L allocated_mib=M
extra_frame_refs: references to the returned frames beyond this script's own (sys.getrefcount), summed over the
calls; alive: the locals still alive (weakref) right after the calls, after torch.cuda.synchronize() and after 50
more launches from the top level; allocated_mib: what PyTorch still holds then. Alone every count is 0.
"""
import gc
import sys
import weakref

import torch

calls = int(sys.argv[1]) if len(sys.argv) > 1 else 200
dev = "cuda"
elems = 1 << 18
source = torch.ones(elems, device=dev)
host = torch.ones(elems)
a = torch.randn(256, 256, device=dev)


def call(kind, keep_frame, refs):
    x = torch.empty(elems, device=dev)
    if kind == "launch":
        x.copy_(source).add_(1)  # two kernel launches
    elif kind == "gemm":
        torch.mm(a, a)  # cuBLAS
    elif kind == "h2d":
        x.copy_(host)  # cudaMemcpyAsync, no kernel
    elif kind == "sync":
        torch.cuda.synchronize()  # an API call, no kernel
    refs.append(weakref.ref(x))
    if keep_frame is not None:
        keep_frame.append(sys._getframe())


def alive(refs):
    return sum(r() is not None for r in refs)


def one(kind):
    frames = []
    call(kind, frames, [])  # warm up (first launches, cuBLAS handle)
    frames.clear()
    for _ in range(calls):
        call(kind, frames, [])
    # a frame this script holds: one reference in `frames`, one for getrefcount's own argument
    extra = sum(sys.getrefcount(f) - 2 for f in frames)
    frames.clear()
    refs = []
    for _ in range(calls):
        call(kind, None, refs)
    gc.collect()
    now = alive(refs)
    torch.cuda.synchronize()
    gc.collect()
    after_sync = alive(refs)
    y = torch.zeros(16, device=dev)
    for _ in range(50):
        y.add_(1)
    torch.cuda.synchronize()
    gc.collect()
    after_launches = alive(refs)
    mib = torch.cuda.memory_allocated() / 2**20
    print(f"HOLD kind={kind} calls={calls} extra_frame_refs={extra} alive={now} alive_after_sync={after_sync} "
          f"alive_after_launches={after_launches} allocated_mib={mib:.0f}", flush=True)


print(f"PYTHON {sys.version.split()[0]} torch {torch.__version__}", flush=True)
for kind in ("launch", "gemm", "h2d", "sync", "none"):
    one(kind)
