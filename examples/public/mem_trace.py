"""Runs a training script (runpy) and prints what the CUDA caching allocator holds after each optimizer step.

    python3 mem_trace.py SCRIPT [ARGS...]

MEM lines: step, memory_allocated / memory_reserved in MiB. With MEM_TRACE_SNAP="3 8" it also takes
torch.cuda.memory._snapshot() at those steps (and on an out-of-memory) and prints the live blocks grouped by the
stack that allocated them (MEM_TRACE_STACKS=all adds C++ frames): what keeps memory alive, and who allocated it.
Used by examples/public/nanogpt-oom.sh (issue #48: nanoGPT runs out of memory only under compute-sanitizer).
"""
import collections
import os
import runpy
import sys
import time

import torch
from torch.optim.optimizer import register_optimizer_step_post_hook  # torch.optim deletes the name

script = sys.argv[1]
sys.argv = sys.argv[1:]
sys.path.insert(0, os.path.dirname(os.path.abspath(script)))  # as `python3 SCRIPT` would
snaps = {int(s) for s in os.environ.get("MEM_TRACE_SNAP", "").split()}
stacks = os.environ.get("MEM_TRACE_STACKS", "python")
if snaps:
    torch.cuda.memory._record_memory_history(max_entries=200000, stacks=stacks)
state = {"step": 0, "t0": time.time()}


def frame_text(f):
    name = os.path.basename(f.get("filename", "?"))
    return "%s:%s:%s" % (name, f.get("line"), f.get("name", "?")[:60])


def dump(tag):
    snap = torch.cuda.memory._snapshot()
    size, count = collections.Counter(), collections.Counter()
    for seg in snap["segments"]:
        for b in seg["blocks"]:
            if b["state"] != "active_allocated":
                continue
            frames = b.get("frames", [])
            py = [frame_text(f) for f in frames if f.get("filename", "").endswith(".py")][:4]
            cpp = [frame_text(f) for f in frames if not f.get("filename", "").endswith(".py")]
            cpp = [c for c in cpp if "c10" not in c and "python" not in c.lower()][:3]
            key = " <- ".join(py) + ((" || " + " <- ".join(cpp)) if cpp else "")
            size[key] += b["size"]
            count[key] += 1
    total = sum(size.values())
    print("SNAP %s live %.1f MiB in %d blocks" % (tag, total / 2**20, sum(count.values())), flush=True)
    for k, v in size.most_common(10):
        print("  %9.1f MiB x%-5d %s" % (v / 2**20, count[k], k[:400]), flush=True)


def hook(opt, args, kwargs):
    state["step"] += 1
    s = state["step"]
    print("MEM step %d t %.1f s allocated %.1f MiB reserved %.1f MiB" % (
        s, time.time() - state["t0"], torch.cuda.memory_allocated() / 2**20,
        torch.cuda.memory_reserved() / 2**20), flush=True)
    if s in snaps:
        dump("step%d" % s)
    if os.environ.get("MEM_TRACE_GC"):
        # what holds the memory: live CUDA tensors Python can reach, and whether a cycle collection frees them
        import gc

        live = sum(1 for o in gc.get_objects() if isinstance(o, torch.Tensor) and o.is_cuda)
        stats = torch.cuda.memory_stats()
        freed = gc.collect()
        ids = {id(o) for o in gc.get_objects() if isinstance(o, torch.Tensor) and o.is_cuda}
        new = [o for o in gc.get_objects() if isinstance(o, torch.Tensor) and o.is_cuda and id(o) not in state.get("ids", ids)]
        state["ids"] = ids
        new = [t for t in new if t.dim() >= 3][:3]  # an activation, not the step's batch
        for t in new:
            # who holds a tensor this step left behind, two levels up
            for r in gc.get_referrers(t):
                if r is new or r is state:
                    continue
                up = [type(u).__name__ + '/' + repr(u)[:80].replace('\n', ' ') + (":" + str(getattr(u, "__name__", ""))[:40] if hasattr(u, "__name__") else "")
                      for u in gc.get_referrers(r) if u is not new][:5]
                text = repr(r)[:160] if not isinstance(r, (dict, list)) else type(r).__name__ + " len %d keys %s" % (
                    len(r), list(r.keys())[:8] if isinstance(r, dict) else "")
                print("HELD step %d %s %s by %s <- %s" % (s, tuple(t.shape), type(r).__name__, text, up), flush=True)
        print("GC step %d cuda-tensors %d active %.1f MiB inactive-split %.1f MiB collected %d objects -> allocated %.1f MiB"
              % (s, live, stats.get("active_bytes.all.current", 0) / 2**20,
                 stats.get("inactive_split_bytes.all.current", 0) / 2**20, freed,
                 torch.cuda.memory_allocated() / 2**20), flush=True)


register_optimizer_step_post_hook(hook)
try:
    runpy.run_path(script, run_name="__main__")
except torch.cuda.OutOfMemoryError as e:
    print("OOM at step %d: %s" % (state["step"], str(e)[:600]), flush=True)
    if snaps:
        dump("oom")
    raise
