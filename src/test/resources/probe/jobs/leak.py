import time

import torch

MiB = 1 << 20
outputs = []


def step():
    return torch.cuda.memory.alloc(2 * MiB)  # line 10: what piles up


scratch = torch.cuda.memory.alloc(8 * MiB)  # line 13: allocated once
for i in range(40):
    h = step()
    outputs.append(h)  # the leak: every step's output is kept
    t = torch.cuda.memory.alloc(1 * MiB)  # line 17: freed at once
    torch.cuda.memory.free(t)
    time.sleep(0.05)
print("steps done")
print("lazy torch modules:", [m for m in __import__("sys").modules if m.startswith(("torch._dynamo", "torch._inductor"))])
