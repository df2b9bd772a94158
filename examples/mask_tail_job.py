"""Example job for GPU Sanitizer (issue #48, 3): a CuPy kernel that reads a mask's unfilled tail.

The job builds a keep-mask with torch.empty(n) and fills only its first n - TAIL elements; its own raw CUDA kernel
(CuPy) then reads all n. The tail was never written: an uninitialized read that initcheck reports inside the job's
kernel (`apply_mask`), launched from this file. Nothing is out of bounds, so memcheck finds nothing. Expected with
`--tool initcheck,memcheck`: UNSTABLE (initcheck's records in the job's own kernel, counted), never ERROR, even when
the records pass initcheck's print limit; with `--tail 0` the job is clean.

It trains a small linear model with SGD and prints "step N loss L" every 10 steps.
"""
import argparse

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=30)
parser.add_argument("--tail", type=int, default=4096, help="mask elements left unwritten (0: none)")
args = parser.parse_args()

KERNEL = r'''
extern "C" __global__ void apply_mask(const float* x, const float* keep, float* y, long long n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = keep[i] > 0.5f ? x[i] : 0.0f;
}'''


def apply_mask(x, keep):
    import cupy
    kernel = cupy.RawKernel(KERNEL, "apply_mask")
    y = torch.empty_like(x)
    n = x.numel()
    kernel(((n + 255) // 256,), (256,), (cupy.asarray(x.detach().contiguous().view(-1)), cupy.asarray(keep),
                                         cupy.asarray(y.view(-1)), cupy.int64(n)))
    return y


def main():
    dev = "cuda"
    torch.manual_seed(0)
    n = 1 << 16
    keep = torch.empty(n, device=dev)  # the tail past n - tail is never written
    keep[: n - args.tail] = (torch.rand(n - args.tail, device=dev) > 0.1).float()
    w = torch.zeros(n, device=dev, requires_grad=True)
    opt = torch.optim.SGD([w], lr=0.1)
    target = torch.randn(n, device=dev)
    for step in range(1, args.steps + 1):
        x = torch.randn(n, device=dev)
        masked = apply_mask(x, keep)
        loss = ((masked * w - target * masked) ** 2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        if step % 10 == 0:
            print("step %d loss %.4f" % (step, loss.item()), flush=True)


if __name__ == "__main__":
    main()
