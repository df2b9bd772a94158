"""Trains JOB_EPOCHS epochs, saving ckpt.json after each; a start finding the checkpoint resumes after it."""
import json
import os
import time

import torch

EPOCHS = int(os.environ.get("JOB_EPOCHS", "5"))
STEPS = int(os.environ.get("JOB_STEPS", "4"))
STEP_SECONDS = float(os.environ.get("JOB_STEP_SECONDS", "0"))  # what a step costs, as a real one does
device = "cuda" if torch.cuda.is_available() else "cpu"
start = 0
if os.path.exists("ckpt.json"):
    with open("ckpt.json") as f:
        start = json.load(f)["epoch"] + 1
    print("resuming from epoch", start)
opt = torch.optim.SGD([], lr=0.1)
for epoch in range(start, EPOCHS):
    for _ in range(STEPS):
        if device == "cuda":
            torch.cuda.memory.alloc(4096)
        opt.step()
        time.sleep(STEP_SECONDS)
    with open("ckpt.json.tmp", "w") as f:
        json.dump({"epoch": epoch}, f)
    os.replace("ckpt.json.tmp", "ckpt.json")
os.makedirs("out", exist_ok=True)
with open(os.path.join("out", "metrics.json"), "w") as f:
    json.dump({"epochs_trained": EPOCHS - start, "device": device}, f)
print("trained epochs", start, "to", EPOCHS - 1, "on", device)
