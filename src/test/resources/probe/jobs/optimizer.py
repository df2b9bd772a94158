import sys

import torch

MiB = 1 << 20
torch.cuda.init()  # the job's first CUDA call: the probe's sampler starts here
weights = [torch.cuda.memory.alloc(4 * MiB) for _ in range(3)]  # line 7: the model's parameters
opt = torch.optim.SGD(weights, lr=0.01)  # line 8: imports torch._dynamo, whose guards import torch._inductor.utils
print("optimizer built")
print("lazy torch modules:", sorted(m for m in sys.modules if m.startswith(("torch._dynamo", "torch._inductor"))))
