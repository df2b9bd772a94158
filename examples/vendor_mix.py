"""Example job for GPU Sanitizer: a clean job that goes through the vendor libraries.

One training step touches:
  cuBLAS / cuBLASLt  nn.Linear and matmul, in fp32 and under bf16 autocast
  cuDNN              conv2d forward and backward, batch norm (and the LSTM below)
  cuFFT              torch.fft.rfft / irfft of a signal branch
  cuDNN RNN          nn.LSTM
so that compute-sanitizer's memcheck shows whether these libraries produce API-error records of
their own (as NCCL does with its cudaErrorNoKernelImageForDevice probing). No bug is planted.

It prints "step N loss L it/s R".
"""
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class MixNet(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
                                  nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
                                  nn.AdaptiveAvgPool2d(1))
        self.lstm = nn.LSTM(16, 64, num_layers=1, batch_first=True)
        self.fft_proj = nn.Linear(2 * 65, 64)
        self.mlp = nn.Linear(64 * 3, 256)
        self.head = nn.Linear(256, classes)

    def forward(self, img, seq, sig):
        a = torch.flatten(self.conv(img), 1)                        # cuDNN conv + batch norm
        _, (h, _) = self.lstm(seq)                                  # cuDNN RNN
        spec = torch.fft.rfft(sig, dim=-1)                          # cuFFT, 128 -> 65 bins
        sig_back = torch.fft.irfft(spec, n=sig.shape[-1], dim=-1)   # cuFFT inverse
        f = self.fft_proj(torch.cat([spec.real, spec.imag], dim=-1)) + 1e-3 * sig_back[:, :64]
        z = torch.cat([a, h[-1], f], dim=1)
        with torch.autocast("cuda", dtype=torch.bfloat16):          # cuBLASLt bf16 GEMMs
            z = F.gelu(self.mlp(z))
            gram = z @ z.transpose(0, 1)                            # bf16 matmul
        z = z.float() + 1e-4 * (gram.float() @ z.float())           # fp32 matmul
        return self.head(z)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--batch", type=int, default=32)
    args = p.parse_args()
    device = torch.device("cuda")
    torch.manual_seed(0)
    model = MixNet().to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    start = time.time()
    for step in range(args.steps):
        img = torch.randn(args.batch, 3, 32, 32, device=device)
        seq = torch.randn(args.batch, 12, 16, device=device)
        sig = torch.randn(args.batch, 128, device=device)
        y = torch.randint(0, 10, (args.batch,), device=device)
        loss = F.cross_entropy(model(img, seq, sig), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 10 == 0:
            rate = step / max(time.time() - start, 1e-9)
            print(f"step {step} loss {loss.item():.4f} it/s {rate:.1f}", flush=True)
    torch.cuda.synchronize()
    print(f"done {args.steps} steps", flush=True)


if __name__ == "__main__":
    main()
