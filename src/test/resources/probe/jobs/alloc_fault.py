import torch


def make(n, ptr):
    return torch.cuda_empty(n, ptr)


for step in range(3):
    x = make(16, 0x7f0000001000)  # the same address and line each step: one record line
    del x
y = torch.cuda_empty(8, 0x7f0000002000)
z = torch.cuda_empty(4, 0x7f0000003000)  # at this allocation, y is seen in the locals: its shape
raise RuntimeError("CUDA error: unspecified launch failure")
