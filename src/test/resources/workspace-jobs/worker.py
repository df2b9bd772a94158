"""The detached training: steps on the GPU, says so once, and goes on for a long time."""
import sys
import time

import torch

opt = torch.optim.SGD([], lr=0.1)
torch.cuda.memory.alloc(4096)
opt.step()
with open(sys.argv[1], "w") as f:
    f.write("stepped\n")
for _ in range(3000):
    opt.step()
    time.sleep(0.1)
