import torch

MiB = 1 << 20
cache = {}


def remember(i):
    cache[i] = torch.cuda.memory.alloc(100 * MiB)  # line 8: what fills the card


def workspace():
    return torch.cuda.memory.alloc(300 * MiB)  # line 12: where the allocation fails


for i in range(100):
    remember(i)
    w = workspace()
    torch.cuda.memory.free(w)
