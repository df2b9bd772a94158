"""Issue #48 item 1, the mechanism: which part of an ordinary training step keeps memory alive under compute-sanitizer.

    python3 hold_probe.py VARIANT [STEPS] [--chain]   (alone, then under `compute-sanitizer --tool memcheck`)

A small GPT-like block stack (LayerNorm, Linear, GELU, SDPA, dropout, residual adds: the layers whose activations
nanoGPT's snapshot showed alive under memcheck), trained with AdamW for STEPS steps. VARIANT switches one thing:
  full        forward, backward, optimizer step (bf16 autocast, fused AdamW, SDPA): nanoGPT's shape
  fp32        the same without autocast
  nograd      forward only under torch.no_grad(): no autograd graph at all
  noopt       forward and backward, no optimizer step
  nosdpa      attention written out (matmul, softmax) instead of SDPA
  detach      full, with every saved tensor packed as a CPU-side marker (saved_tensors_hooks): who frees saved tensors
After each step: HOLD VARIANT step N allocated MiB, live CUDA tensors gc sees, saved tensors packed and not yet
released (the graph's own count, from weakref finalizers on what the pack hook saw). With --chain, CHAIN lines: who
refers to what holds one left-behind tensor, four levels up (a frame kept alive names the code that keeps it). With
--frames, FRAMES lines: the frames alive after the steps by code, and whether three of them are still executing.
"""
import gc
import sys
import time
import weakref

import torch
import torch.nn as nn
import torch.nn.functional as F

variant = sys.argv[1] if len(sys.argv) > 1 else "full"
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
dev = "cuda"
torch.manual_seed(0)


class Block(nn.Module):
    def __init__(self, d=384, h=6):
        super().__init__()
        self.h = h
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc, self.out = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        self.drop = nn.Dropout(0.2)

    def attn(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=2)
        q, k, v = (z.view(b, t, self.h, c // self.h).transpose(1, 2) for z in (q, k, v))
        if variant == "nosdpa":
            w = (q @ k.transpose(-2, -1)) / (c // self.h) ** 0.5
            w = w.masked_fill(torch.ones(t, t, device=x.device, dtype=torch.bool).triu(1), float("-inf"))
            y = F.softmax(w, dim=-1) @ v
        else:
            y = F.scaled_dot_product_attention(q, k, v, dropout_p=0.2 if self.training else 0, is_causal=True)
        return self.drop(self.proj(y.transpose(1, 2).contiguous().view(b, t, c)))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.drop(self.out(F.gelu(self.fc(self.ln2(x)))))


model = nn.Sequential(*[Block() for _ in range(6)]).to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=True)
amp = torch.autocast("cuda", dtype=torch.bfloat16, enabled=variant not in ("fp32",))
live_saved = [0]


def pack(t):
    live_saved[0] += 1
    if t.is_cuda:
        weakref.finalize(t, lambda: live_saved.__setitem__(0, live_saved[0] - 1))
    else:
        live_saved[0] -= 1
    return t


def step():
    x = torch.randn(12, 256, 384, device=dev)
    if variant == "nograd":
        with torch.no_grad(), amp:
            y = model(x).float().pow(2).mean()
        return y.item()
    with amp:
        if variant == "detach":
            with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
                y = model(x).float().pow(2).mean()
        else:
            y = model(x).float().pow(2).mean()
    y.backward()
    if variant != "noopt":
        opt.step()
    opt.zero_grad(set_to_none=True)
    return y.item()


def cuda_tensors():
    return [o for o in gc.get_objects() if isinstance(o, torch.Tensor) and o.is_cuda]


def who(seen):
    """Who refers to the CUDA tensors the last step left behind (ids not seen after step 1): three of them."""
    new = [t for t in cuda_tensors() if id(t) not in seen and t.dim() >= 3][:3]
    for t in new:
        refs = [r for r in gc.get_referrers(t) if r is not new]
        print("WHO %s %s refcount %d grad_fn %s referrers %s" % (
            tuple(t.shape), t.dtype, sys.getrefcount(t) - 2, type(t.grad_fn).__name__ if t.grad_fn else None,
            [type(r).__name__ + ":" + repr(r)[:100].replace("\n", " ") for r in refs[:4]]), flush=True)


def describe(o):
    if isinstance(o, type(sys._getframe())):
        return "frame %s:%d %s" % (o.f_code.co_filename.rsplit("/", 1)[-1], o.f_lineno, o.f_code.co_name)
    if type(o).__name__ == "traceback":
        return "traceback of %s" % describe(o.tb_frame)
    if isinstance(o, torch.Tensor):
        return "tensor %s" % (tuple(o.shape),)
    return "%s %s" % (type(o).__name__, repr(o)[:90].replace("\n", " "))


def chain(seen, depth=4):
    """Who keeps the frames that hold the last step's tensors: referrers of referrers, DEPTH levels (CHAIN lines)."""
    new = [t for t in cuda_tensors() if id(t) not in seen and t.dim() >= 3][:1]
    level, done = [o for t in new for o in gc.get_referrers(t) if o is not new], set()
    for d in range(depth):
        nxt = []
        for o in level[:6]:
            if id(o) in done:
                continue
            done.add(id(o))
            refs = [r for r in gc.get_referrers(o) if r is not level and r is not nxt and r is not new]
            print("CHAIN %d %s <- %s" % (d, describe(o), [describe(r) for r in refs[:5]]), flush=True)
            nxt += refs[:5]
        level = nxt


def frames():
    """The frames still alive after the steps (FRAMES lines): how many per code, and for three of them their
    reference count and whether Python holds them executing (frame.clear() refuses an executing frame): a frame kept
    by native code that never popped it reads as executing, one merely referred to can be cleared."""
    ftype = type(sys._getframe())
    alive = [o for o in gc.get_objects() if isinstance(o, ftype) and o is not sys._getframe()]
    by = {}
    for f in alive:
        key = "%s:%s" % (f.f_code.co_filename.rsplit("/", 1)[-1], f.f_code.co_name)
        by[key] = by.get(key, 0) + 1
    print("FRAMES alive %d: %s" % (len(alive), sorted(by.items(), key=lambda kv: -kv[1])[:8]), flush=True)
    for f in [f for f in alive if f.f_code.co_name in ("attn", "_call_impl", "forward")][:3]:
        refs = sys.getrefcount(f) - 2
        try:
            f.clear()
            state = "cleared (not executing)"
        except RuntimeError as e:
            state = "refused: %s" % e
        print("FRAMES %s:%d refcount %d %s" % (describe(f), f.f_lineno, refs, state), flush=True)


t0 = time.time()
seen = set()
for s in range(1, steps + 1):
    loss = step()
    torch.cuda.synchronize()
    tensors = cuda_tensors()
    n = len(tensors)
    if s == 1:
        seen = {id(t) for t in tensors}
    del tensors
    print("HOLD %s step %d t %.1f s loss %.4f allocated %.1f MiB cuda-tensors %d saved-live %d" % (
        variant, s, time.time() - t0, loss, torch.cuda.memory_allocated() / 2**20, n, live_saved[0]), flush=True)
who(seen)
if "--chain" in sys.argv:
    chain(seen)
if "--frames" in sys.argv:
    frames()
