"""Example job for GPU Sanitizer (issue #42): a message-passing layer whose scatter-add gets a bad index.

Each step sums edge messages into a per-node buffer with an index_add written in Triton (`index_add_rows`: row
i of `src` is added into row `index[i]` of `out`, with no bounds check, as custom kernels usually have). With
`--bug off-by-one` the destination index of the last edge is `num_nodes` (an off-by-one in the Python code that
builds the index), so the kernel adds one row past the end of the node buffer: an out-of-bounds write memcheck
reports "N bytes after the nearest allocation", the node buffer allocated at the line marked `# node buffer`.
(torch's own index_add_/scatter_add_ check the index on the device: a device-side assert, not this.)

It prints "step N loss L it/s R".
"""
import argparse
import time

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def index_add_rows(out_ptr, src_ptr, index_ptr, F, BLOCK_F: tl.constexpr):
    i = tl.program_id(0)
    cols = tl.arange(0, BLOCK_F)
    mask = cols < F
    row = tl.load(index_ptr + i)
    v = tl.load(src_ptr + i * F + cols, mask=mask, other=0.0)
    tl.atomic_add(out_ptr + row * F + cols, v, mask=mask)


def scatter_sum(messages, dst, num_nodes):
    """out[dst[i]] += messages[i]: torch.Tensor.index_add_ without its bounds check."""
    out = torch.zeros(num_nodes, messages.shape[1], device=messages.device)  # node buffer
    E, F = messages.shape
    index_add_rows[(E,)](out, messages.contiguous(), dst, F, BLOCK_F=triton.next_power_of_2(F))
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bug", default="none", choices=["none", "off-by-one"])
    p.add_argument("--bug-step", type=int, default=5)
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--nodes", type=int, default=400)
    p.add_argument("--edges", type=int, default=1600)
    p.add_argument("--features", type=int, default=16)
    args = p.parse_args()
    device = torch.device("cuda")
    torch.manual_seed(0)
    n, f = args.nodes, args.features
    lin = nn.Linear(f, f).to(device)
    head = nn.Linear(f, 1).to(device)
    opt = torch.optim.SGD(list(lin.parameters()) + list(head.parameters()), lr=0.01)
    start = time.time()
    for step in range(args.steps):
        x = torch.randn(n, f, device=device)
        src = torch.randint(0, n, (args.edges,), device=device)
        dst = torch.randint(0, n, (args.edges,), device=device)
        if args.bug == "off-by-one" and step >= args.bug_step:
            dst[-1] = n  # the bug: node ids run 0..n-1
        with torch.no_grad():
            agg = scatter_sum(lin(x)[src], dst, n)
        loss = head(torch.relu(lin(x) + agg)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0:
            rate = step / max(time.time() - start, 1e-9)
            print(f"step {step} loss {loss.item():.4f} it/s {rate:.1f}", flush=True)
    torch.cuda.synchronize()
    print(f"done {args.steps} steps", flush=True)


if __name__ == "__main__":
    main()
