"""Writes its logs into the first free lightning_logs/version_N, as Lightning's loggers do."""
import os

import torch

STEPS = int(os.environ.get("JOB_STEPS", "12"))
n = 0
while os.path.exists(os.path.join("lightning_logs", "version_%d" % n)):
    n += 1
folder = os.path.join("lightning_logs", "version_%d" % n)
os.makedirs(folder)
opt = torch.optim.SGD([], lr=0.1)
for step in range(STEPS):
    torch.cuda.memory.alloc(4096)
    opt.step()
with open(os.path.join(folder, "metrics.csv"), "w") as f:
    f.write("step\n%d\n" % STEPS)
print("logged to", folder)
