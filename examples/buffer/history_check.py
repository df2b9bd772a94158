"""Issue #42, measured on the card: does torch's allocator history record anything with the caching allocator
off (PYTORCH_NO_CUDA_MEMORY_CACHING=1), and does the GPU trace's allocation callback fire? Prints one line each."""
import os

import torch

seen = []
try:
    from torch.cuda import _gpu_trace as trace
except ImportError:
    trace = None
if trace is not None and os.environ.get("GPU_SANITIZE_PROBE_OUT") is None:
    trace.register_callback_for_memory_allocation(lambda ptr: seen.append(ptr))
    torch._C._activate_gpu_trace()
torch.cuda.memory._record_memory_history(enabled="all", context="alloc", stacks="python", max_entries=1000)
x = torch.empty(1600, device="cuda")
y = torch.randn(100, 100, device="cuda")
z = x * 2
snap = torch.cuda.memory._snapshot()
traces = sum(len(t) for t in snap.get("device_traces", []))
print("caching=%s torch=%s segments=%d blocks=%d trace_entries=%d gpu_trace=%s callbacks=%d x=0x%x match=%s" % (
    "off" if os.environ.get("PYTORCH_NO_CUDA_MEMORY_CACHING") else "on", torch.__version__, len(snap["segments"]),
    sum(len(s["blocks"]) for s in snap["segments"]), traces, trace is not None, len(seen), x.data_ptr(),
    x.data_ptr() in seen), flush=True)
