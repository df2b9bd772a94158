import time

import torch

MiB = 1 << 20
kept = []


def forward(step):
    return torch.cuda.memory.alloc(2 * MiB)  # line 10: the logits, kept by the caller


def main():
    torch.cuda.init()
    params = [torch.cuda.memory.alloc(4 * MiB), torch.cuda.memory.alloc(4 * MiB)]  # line 15: the model
    opt = torch.optim.SGD(params, lr=0.01)  # line 16: imports torch._dynamo while the probe samples
    for step in range(40):
        kept.append(forward(step))  # line 18: the leak
        tmp = torch.cuda.memory.alloc(1 * MiB)
        torch.cuda.memory.free(tmp)
        time.sleep(0.05)
    print("trained", len(opt.param_groups[0]["params"]))


main()
