"""Example job for GPU Sanitizer: a shared-memory race in a custom CUDA reduction (racecheck).

A small MLP classifier whose forward normalises each row of its hidden activations by the row's
sum of squares, computed by a raw CUDA kernel (CuPy RawKernel): one block per row, a tree
reduction in shared memory.

  --bug none       the kernel has its __syncthreads() barriers
  --bug nosync     the barrier between the partial-sum stores and the first tree step is missing:
                   a real shared-memory race (a thread reads buf[t + s] that another warp may not
                   have written yet: a Write -> Read hazard); compute-sanitizer --tool racecheck
                   reports it, memcheck does not

It prints "step N loss L it/s R".
"""
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

KERNEL = r'''
extern "C" __global__ void row_sumsq(const float* x, float* out, int cols) {
    __shared__ float buf[256];
    const int row = blockIdx.x;
    const int t = threadIdx.x;
    float acc = 0.f;
    for (int c = t; c < cols; c += blockDim.x) {
        float v = x[(long long)row * cols + c];
        acc += v * v;
    }
    buf[t] = acc;
    BARRIER_AFTER_STORE
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t == 0) out[row] = buf[0];
}'''

_kernels = {}


def row_sumsq(x, barrier=True):
    """Sum of squares of each row of a contiguous float32 [rows, cols] CUDA tensor (no autograd)."""
    import cupy
    if barrier not in _kernels:
        src = KERNEL.replace("BARRIER_AFTER_STORE", "__syncthreads();" if barrier else "/* bug: no barrier */")
        _kernels[barrier] = cupy.RawKernel(src, "row_sumsq")
    x = x.detach().float().contiguous()
    rows, cols = x.shape
    out = torch.empty(rows, device=x.device, dtype=torch.float32)
    _kernels[barrier]((rows,), (256,), (cupy.asarray(x), cupy.asarray(out), cupy.int32(cols)))
    return out


class RmsNormMLP(nn.Module):
    def __init__(self, features=128, hidden=512, classes=10, barrier=True):
        super().__init__()
        self.inp = nn.Linear(features, hidden)
        self.gain = nn.Parameter(torch.ones(hidden))
        self.head = nn.Linear(hidden, classes)
        self.barrier = barrier

    def forward(self, x):
        h = F.relu(self.inp(x))
        ss = row_sumsq(h, self.barrier)  # custom kernel: per-row sum of squares
        rms = torch.sqrt(ss / h.shape[1] + 1e-6).unsqueeze(1)
        return self.head(h / rms * self.gain)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bug", default="none", choices=["none", "nosync"])
    p.add_argument("--steps", type=int, default=40)
    p.add_argument("--batch", type=int, default=32)
    args = p.parse_args()
    device = torch.device("cuda")
    torch.manual_seed(0)
    x_all = torch.randn(1024, 128)
    y_all = (x_all[:, :10] * 3).argmax(1)
    data = torch.utils.data.TensorDataset(x_all, y_all)
    loader = torch.utils.data.DataLoader(data, batch_size=args.batch, shuffle=True, drop_last=True)
    model = RmsNormMLP(barrier=args.bug == "none").to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    step = 0
    start = time.time()
    while step < args.steps:
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if step % 10 == 0:
                rate = step / max(time.time() - start, 1e-9)
                print(f"step {step} loss {loss.item():.4f} it/s {rate:.1f}", flush=True)
            step += 1
            if step >= args.steps:
                break
    torch.cuda.synchronize()
    print(f"done {step} steps", flush=True)


if __name__ == "__main__":
    main()
