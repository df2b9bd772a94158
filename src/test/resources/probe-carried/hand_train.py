"""A hand-written update (word_language_model's `p.data.add_(p.grad, alpha=-lr)`): backward passes, no optimizer
step; it starts from the state JOB_STATE names when that file exists (a checkpoint under /tmp)."""
import json
import os

import torch

state = os.environ.get("JOB_STATE")
start = 0
if state and os.path.exists(state):
    with open(state) as f:
        start = json.load(f)["step"]
torch.cuda.init()
weights = torch.tensor([1.0, 2.0])
for step in range(start, 4):
    loss = torch.tensor([0.5])
    loss._leaves = [weights]
    loss.backward()
    weights.data = [w - 0.1 * weights.grad for w in weights.data]
print("trained steps", start, "to 3")
