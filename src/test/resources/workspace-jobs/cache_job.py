"""Builds processed/data.json on first use (a processed-dataset cache), then trains on what it reads back."""
import json
import os

import torch

STEPS = int(os.environ.get("JOB_STEPS", "12"))
cache = os.path.join("processed", "data.json")
if not os.path.exists(cache):
    os.makedirs("processed", exist_ok=True)
    with open(os.path.join("raw", "data.txt")) as f:
        rows = [line.strip() for line in f if line.strip()]
    with open(cache, "w") as f:
        json.dump({"rows": rows}, f)
    print("processed", len(rows), "rows")
with open(cache) as f:
    rows = json.load(f)["rows"]
opt = torch.optim.SGD([], lr=0.1)
for step in range(STEPS):
    torch.cuda.memory.alloc(4096 * len(rows))
    opt.step()
print("trained on", len(rows), "rows")
