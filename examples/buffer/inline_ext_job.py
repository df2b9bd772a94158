"""Example job for GPU Sanitizer (issue #42): a custom CUDA extension that writes one element past its output.

The extension is built at run time with torch.utils.cpp_extension.load_inline (nvcc and ninja). Its op
`clamp_scale(x, lo, hi, s)` returns a new tensor that it allocates in C++ (torch::empty_like); the kernel's
bound check is `i <= n` with `--bug past-end` (the bug is a flag so that one build serves both runs), so the
thread n writes the element right after the output: memcheck says "1 bytes after the nearest allocation ... of
size 4*n bytes", allocated inside the op called at the line marked `# extension output`.

It prints "step N loss L it/s R". TORCH_EXTENSIONS_DIR decides where the build is cached.
"""
import argparse
import time

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CUDA_SRC = r"""
#include <torch/extension.h>
__global__ void clamp_scale_kernel(const float* x, float* y, long n, float lo, float hi, float s, int bug) {
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (bug ? i <= n : i < n) {
        float v = i < n ? x[i] : 0.f;
        y[i] = s * fminf(fmaxf(v, lo), hi);
    }
}
torch::Tensor clamp_scale(torch::Tensor x, double lo, double hi, double s, bool bug) {
    auto y = torch::empty_like(x);
    long n = x.numel();
    int threads = 256;
    long blocks = (n + 1 + threads - 1) / threads;
    clamp_scale_kernel<<<blocks, threads>>>(x.data_ptr<float>(), y.data_ptr<float>(), n, (float)lo, (float)hi,
                                            (float)s, bug ? 1 : 0);
    return y;
}
"""
CPP_SRC = "torch::Tensor clamp_scale(torch::Tensor x, double lo, double hi, double s, bool bug);"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bug", default="none", choices=["none", "past-end"])
    p.add_argument("--bug-step", type=int, default=5)
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--batch", type=int, default=50)
    p.add_argument("--build-only", action="store_true")
    args = p.parse_args()
    ext = load_inline("gpu_sanitize_clamp_scale", CPP_SRC, cuda_sources=CUDA_SRC, functions=["clamp_scale"],
                      extra_cuda_cflags=["-lineinfo"], verbose=False)
    if args.build_only:
        print("built", flush=True)
        return
    device = torch.device("cuda")
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10)).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    start = time.time()
    for step in range(args.steps):
        x = torch.randn(args.batch, 32, device=device)
        y = torch.randint(0, 10, (args.batch,), device=device)
        fire = args.bug == "past-end" and step >= args.bug_step
        x = ext.clamp_scale(x.contiguous(), -2.0, 2.0, 0.5, fire)  # extension output
        loss = nn.functional.cross_entropy(model(x), y)
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
