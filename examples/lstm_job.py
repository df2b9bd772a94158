"""Example training job for GPU Sanitizer.

A small sequence classifier (Conv1d -> custom CUDA op -> LSTM -> Linear, SGD) whose custom op, a
raw CUDA kernel compiled with CuPy, can carry a planted bug that fires at --bug-step:

  --bug none    clean job
  --bug far     the kernel writes 64 GiB past its output buffer (illegal address)
  --bug near    the kernel writes 16 floats past its output buffer: silent corruption; memcheck
                sees it only with PYTORCH_NO_CUDA_MEMORY_CACHING=1
  --bug index   torch.gather with an index out of range (a device-side assert in ATen)
  --bug leak    keeps 64 MiB of activations per step (GPU memory grows through the run)

It prints "step N loss L it/s R" every 10 steps, the line the throughput regex reads.
"""
import argparse
import time

import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--bug", default="none", choices=["none", "far", "near", "index", "leak"])
parser.add_argument("--steps", type=int, default=40)
parser.add_argument("--batch", type=int, default=8)
parser.add_argument("--bug-step", type=int, default=5)
parser.add_argument("--bug-every", action="store_true", help="fire the bug on every step from --bug-step on")
args = parser.parse_args()

KERNEL = r'''
extern "C" __global__ void fused_scale(const float* x, float* y, long long n, long long shift) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i + shift] = 1.5f * x[i];
}'''


def fused_scale(x, shift=0):
    """y = 1.5 * x through a raw CUDA kernel; a non-zero shift writes past the end of y."""
    import cupy
    kernel = cupy.RawKernel(KERNEL, "fused_scale")
    y = torch.empty_like(x)
    n = x.numel()
    src = cupy.asarray(x.detach().contiguous().view(-1))
    dst = cupy.asarray(y.view(-1))
    kernel(((n + 127) // 128,), (128,), (src, dst, cupy.int64(n), cupy.int64(shift)))
    return y


class Classifier(nn.Module):
    def __init__(self, channels=16, features=32, hidden=64, classes=10):
        super().__init__()
        self.conv = nn.Conv1d(channels, features, 3, padding=1)
        self.lstm = nn.LSTM(features, hidden, 2)
        self.head = nn.Linear(hidden, classes)

    def forward(self, x, step):
        f = self.conv(x)
        shift = 0
        fire = step == args.bug_step or (args.bug_every and step > args.bug_step)
        if fire and args.bug == "far":
            shift = 1 << 34
        if fire and args.bug == "near":
            shift = 16
        f = fused_scale(f, shift)
        if fire and args.bug == "index":
            idx = torch.full_like(f, f.shape[2] + 3, dtype=torch.long)
            f = torch.gather(f, 2, idx)
        out, _ = self.lstm(f.permute(2, 0, 1).contiguous())
        return self.head(out[-1])


def main():
    device = torch.device("cuda")
    torch.manual_seed(0)
    model = Classifier().to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    kept = []
    start = time.time()
    for step in range(args.steps):
        x = torch.randn(args.batch, 16, 64, device=device)
        y = torch.randint(0, 10, (args.batch,), device=device)
        loss = nn.functional.cross_entropy(model(x, step), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if args.bug == "leak":
            kept.append(torch.empty(64 << 20, dtype=torch.uint8, device=device))
            time.sleep(0.05)
        if step % 10 == 0:
            rate = step / max(time.time() - start, 1e-9)
            print(f"step {step} loss {loss.item():.4f} it/s {rate:.1f}", flush=True)
    torch.cuda.synchronize()
    print(f"done {args.steps} steps", flush=True)


if __name__ == "__main__":
    main()
