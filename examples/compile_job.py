"""Example job for GPU Sanitizer: a torch.compile (Inductor) model gathering out of range.

A vector-quantised classifier: an encoder maps each input to --codes codebook ids (given with the
data, like precomputed VQ codes), the model gathers the code vectors from a learned codebook of
64 entries (self.codebook[codes]), mixes them and classifies. The whole model goes through
torch.compile, so Inductor turns the gather into a generated Triton kernel with its own bounds
check, `tl.device_assert(..., "index out of bounds: 0 <= tmpN < 64")`.

  --bug none    clean job
  --bug oob     from --bug-step on, one code equals 64 (the codebook size): the generated kernel's
                device assert fires

Inductor writes its generated kernels under its cache directory (printed at the start; the
TORCHINDUCTOR_CACHE_DIR variable is left alone). --compile-threads sets
TORCHINDUCTOR_COMPILE_THREADS (default 1: compile in the job's process, no worker pool).
--mode is torch.compile's mode: `reduce-overhead` replays the model through CUDA graph trees (the mode
issue #25, 2 found dying under compute-sanitizer), `max-autotune-no-cudagraphs` autotunes the kernels.

It prints "step N loss L it/s R".
"""
import argparse
import os
import time

p = argparse.ArgumentParser()
p.add_argument("--bug", default="none", choices=["none", "oob"])
p.add_argument("--bug-step", type=int, default=5)
p.add_argument("--steps", type=int, default=40)
p.add_argument("--batch", type=int, default=128)
p.add_argument("--compile-threads", default="1")
p.add_argument("--mode", default="default", choices=["default", "reduce-overhead", "max-autotune-no-cudagraphs"])
args = p.parse_args()
os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", args.compile_threads)

import torch  # noqa: E402  (after the variable above)
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

CODEBOOK = 64


def inductor_cache_dir():
    for mod, fn in (("torch._inductor.runtime.cache_dir_utils", "cache_dir"),
                    ("torch._inductor.runtime.runtime_utils", "cache_dir"),
                    ("torch._inductor.utils", "cache_dir")):
        try:
            return getattr(__import__(mod, fromlist=[fn]), fn)()
        except Exception:  # noqa: BLE001 - best effort, only printed
            continue
    return os.environ.get("TORCHINDUCTOR_CACHE_DIR", "(unknown)")


class VQClassifier(nn.Module):
    def __init__(self, features=64, dim=128, codes=8, classes=10):
        super().__init__()
        self.codebook = nn.Parameter(torch.randn(CODEBOOK, dim) * 0.1)
        self.enc = nn.Linear(features, dim)
        self.mix = nn.Linear(dim * (codes + 1), dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x, codes):
        q = self.codebook[codes]  # [B, codes, dim]: Inductor's indirect load with a bounds assert
        h = torch.cat([self.enc(x).unsqueeze(1), q], dim=1).flatten(1)
        return self.head(F.gelu(self.mix(h)))


def main():
    device = torch.device("cuda")
    print(f"inductor cache dir: {inductor_cache_dir()}", flush=True)
    print(f"TORCHINDUCTOR_COMPILE_THREADS={os.environ.get('TORCHINDUCTOR_COMPILE_THREADS')}", flush=True)
    torch.manual_seed(0)
    model = VQClassifier().to(device)
    compiled = torch.compile(model, mode=args.mode)
    print(f"torch.compile mode={args.mode}", flush=True)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x_all = torch.randn(4096, 64)
    codes_all = torch.randint(0, CODEBOOK, (4096, 8))
    y_all = ((codes_all[:, 0] % 10) + (x_all[:, 0] > 0).long()) % 10
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x_all, codes_all, y_all),
                                         batch_size=args.batch, shuffle=True, drop_last=True)
    step = 0
    start = time.time()
    while step < args.steps:
        for x, codes, y in loader:
            x, codes, y = x.to(device), codes.to(device), y.to(device)
            if args.bug == "oob" and step >= args.bug_step:
                codes[0, 0] = CODEBOOK  # bug: one past the last code
            loss = F.cross_entropy(compiled(x, codes), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            if step % 10 == 0 or step == args.bug_step:
                rate = step / max(time.time() - start, 1e-9)
                print(f"step {step} loss {loss.item():.4f} it/s {rate:.1f}", flush=True)
            step += 1
            if step >= args.steps:
                break
    torch.cuda.synchronize()
    print(f"done {step} steps", flush=True)


if __name__ == "__main__":
    main()
