"""Example job for GPU Sanitizer: a job that catches a CUDA error, says it will retry, and hangs.

A training loop wrapped in a naive "retry on failure" handler: when a step raises, it prints
`retrying after: <the exception text>` to stdout and waits for a retry that never comes
(time.sleep in a loop), so the process never exits. Only a timeout ends it.

  (default)        the failing step is a torch.gather with an out-of-range index: a device-side
                   assert, raised by PyTorch as "CUDA error: device-side assert triggered"
  --print-driver   the failing step is a raw CUDA kernel (CuPy RawKernel) writing 64 GiB past its
                   buffer; the error is then read through the CUDA driver API (cuCtxSynchronize via
                   cupy.cuda.driver), whose exception text is the driver's spelling:
                   "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered"

It prints "step N loss L it/s R" before the failing step (--bug-step).
"""
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

KERNEL = r'''
extern "C" __global__ void shift_copy(const float* x, float* y, long long n, long long shift) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i + shift] = x[i];
}'''


def raw_copy(x, shift):
    import cupy
    kernel = cupy.RawKernel(KERNEL, "shift_copy")
    y = torch.empty_like(x)
    n = x.numel()
    kernel(((n + 255) // 256,), (256,), (cupy.asarray(x.contiguous().view(-1)), cupy.asarray(y.view(-1)),
                                          cupy.int64(n), cupy.int64(shift)))
    return y


def driver_sync():
    """Synchronizes through the driver API, so an error comes back as cupy's CUDADriverError."""
    from cupy.cuda import driver
    if hasattr(driver, "ctxSynchronize"):
        driver.ctxSynchronize()
    else:  # older CuPy: the next launch returns the sticky error through cuLaunchKernel
        raw_copy(torch.zeros(1, device="cuda"), 0)
    torch.cuda.synchronize()


def step_fn(model, opt, x, y, fire, print_driver):
    h = model[0](x)
    if fire and print_driver:
        h = raw_copy(h.detach(), 1 << 34) + h  # the bad kernel
        driver_sync()
    elif fire:
        idx = torch.full((h.shape[0], 1), h.shape[1] + 7, device=h.device, dtype=torch.long)
        h = h + torch.gather(h, 1, idx)  # index out of range: device-side assert
    loss = F.cross_entropy(model[1:](h), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss.item()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--print-driver", action="store_true")
    p.add_argument("--bug-step", type=int, default=5)
    p.add_argument("--steps", type=int, default=40)
    args = p.parse_args()
    device = torch.device("cuda")
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10)).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    start = time.time()
    for step in range(args.steps):
        x = torch.randn(16, 32, device=device)
        y = torch.randint(0, 10, (16,), device=device)
        try:
            loss = step_fn(model, opt, x, y, step == args.bug_step, args.print_driver)
        except Exception as e:  # noqa: BLE001 - the naive handler this example is about
            print(f"retrying after: {e}", flush=True)
            while True:  # waits for a retry that never happens
                time.sleep(1)
        rate = step / max(time.time() - start, 1e-9)
        print(f"step {step} loss {loss:.4f} it/s {rate:.1f}", flush=True)
    print(f"done {args.steps} steps", flush=True)


if __name__ == "__main__":
    main()
