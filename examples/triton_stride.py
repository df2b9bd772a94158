"""Example job for GPU Sanitizer: a Triton kernel stored with the wrong row stride.

A gated MLP classifier. Its projection gives [B, 2H]; the first half goes through a fused row-wise
scale + bias Triton kernel into a preallocated activation buffer [B, H] (static buffers, as in
jobs that prepare for CUDA graphs); the label buffer [B] (int64) is allocated right after it.

  --bug none     the kernel is given the output's row stride (H)
  --bug stride   from --bug-step on the wrapper passes the input's row stride (2H, the input is a
                 view into the [B, 2H] projection) as the output stride: rows B/2.. are stored past
                 the end of the activation buffer, into the label buffer (and beyond). The job then
                 dies in F.cross_entropy with the device assert `t >= 0 && t < n_classes`, far from
                 the kernel that did it.

Both buffers are the process's first CUDA allocations, so PyTorch's caching allocator carves them
one after the other from one fresh 2 MiB segment: the label buffer starts exactly where the
activation buffer ends (32 KiB, a multiple of the allocator's 512-byte rounding). The job prints
both addresses. Under PYTORCH_NO_CUDA_MEMORY_CACHING=1 (the sanitizer phase) each is its own
cudaMalloc and memcheck sees the stray stores instead.

It prints "step N loss L it/s R".
"""
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def row_scale_bias_kernel(x_ptr, scale_ptr, bias_ptr, out_ptr, H, stride_x, stride_out, BLOCK_H: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_H)
    mask = cols < H
    x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=0.0)
    s = tl.load(scale_ptr + cols, mask=mask, other=1.0)
    b = tl.load(bias_ptr + cols, mask=mask, other=0.0)
    tl.store(out_ptr + row * stride_out + cols, x * s + b, mask=mask)


class RowScaleBias(torch.autograd.Function):
    """out = x * scale + bias, row-wise, written into a preallocated buffer by a Triton kernel."""

    @staticmethod
    def forward(ctx, x, scale, bias, out, wrong_stride):
        B, H = x.shape
        # the bug: x is a view into [B, 2H], so x.stride(0) == 2H, but out is a contiguous [B, H]
        stride_out = x.stride(0) if wrong_stride else out.stride(0)
        row_scale_bias_kernel[(B,)](x, scale, bias, out, H, x.stride(0), stride_out,
                                    BLOCK_H=triton.next_power_of_2(H))
        ctx.save_for_backward(x, scale)
        return out

    @staticmethod
    def backward(ctx, grad):
        x, scale = ctx.saved_tensors
        return grad * scale, (grad * x).sum(0), grad.sum(0), None, None


class GatedClassifier(nn.Module):
    def __init__(self, features=64, hidden=128, classes=10):
        super().__init__()
        self.proj = nn.Linear(features, 2 * hidden)
        self.scale = nn.Parameter(torch.ones(hidden))
        self.bias = nn.Parameter(torch.zeros(hidden))
        self.head = nn.Linear(hidden, classes)

    def forward(self, x, act_buf, wrong_stride=False):
        a, gate = self.proj(x).chunk(2, dim=1)  # two [B, H] views with row stride 2H
        a = RowScaleBias.apply(a, self.scale, self.bias, act_buf, wrong_stride)
        return self.head(F.gelu(a) * torch.sigmoid(gate))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bug", default="none", choices=["none", "stride"])
    p.add_argument("--bug-step", type=int, default=5)
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--hidden", type=int, default=128)
    args = p.parse_args()
    device = torch.device("cuda")
    B, H = args.batch, args.hidden
    # static buffers first: the process's first two allocations
    act_buf = torch.empty(B, H, device=device)
    label_buf = torch.empty(B, dtype=torch.long, device=device)
    gap = label_buf.data_ptr() - act_buf.data_ptr()
    print(f"act_buf 0x{act_buf.data_ptr():x} ({act_buf.numel() * 4} bytes), label_buf 0x{label_buf.data_ptr():x}, "
          f"label_buf - act_buf = {gap} bytes ({'adjacent' if gap == act_buf.numel() * 4 else 'not adjacent'})",
          flush=True)

    torch.manual_seed(0)
    model = GatedClassifier(hidden=H).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x_all = torch.randn(4096, 64)
    y_all = (x_all[:, :10] + 0.1 * x_all[:, 10:20]).argmax(1)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x_all, y_all), batch_size=B,
                                         shuffle=True, drop_last=True, pin_memory=True)
    step = 0
    start = time.time()
    while step < args.steps:
        for x, y in loader:
            x = x.to(device, non_blocking=True)
            label_buf.copy_(y, non_blocking=True)
            fire = args.bug == "stride" and step >= args.bug_step
            logits = model(x, act_buf, wrong_stride=fire)
            loss = F.cross_entropy(logits, label_buf)
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
