"""A training loop of ten steps (a backward pass and an optimizer step each), saying each step as it ends: where a
coverage stop ends the sanitizer run shows in its output."""
import os
import sys

import torch

torch.backends.cudnn.benchmark = os.environ.get("FAKE_CUDNN_BENCHMARK") == "1"
torch.cuda.init()
weights = torch.tensor([1.0, 2.0])
opt = torch.optim.SGD([weights], lr=0.1)
for step in range(1, 11):
    loss = torch.tensor([0.5])
    loss._leaves = [weights]
    loss.backward()
    opt.step()
    print("step", step)
    sys.stdout.flush() if step % 4 == 0 else None
print("done")
