"""Trains, saves model.pt, then loads it back for the test evaluation: a model another run saved fails it."""
import json
import os

import torch

STEPS = int(os.environ.get("JOB_STEPS", "12"))
device = "cuda" if torch.cuda.is_available() else "cpu"
opt = torch.optim.SGD([], lr=0.1)
for _ in range(STEPS):
    if device == "cuda":
        torch.cuda.memory.alloc(4096)
    opt.step()
me = {"saved_by": os.getpid(), "steps": STEPS}
with open("model.pt", "w") as f:
    json.dump(me, f)
with open("model.pt") as f:
    loaded = json.load(f)
if loaded != me:
    raise RuntimeError("the model loaded for evaluation is not the one this run saved: %r" % (loaded,))
print("evaluated the model saved after", STEPS, "steps on", device)
