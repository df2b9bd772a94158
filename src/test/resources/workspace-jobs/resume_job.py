"""Trains JOB_EPOCHS epochs, saving its checkpoint (the epoch and the optimizer's state) after each; a start finding the
checkpoint loads it and resumes after it (none left to train when it is at or past the last epoch). JOB_CHECKPOINT puts
it elsewhere (HF run_clm.py's --output_dir /tmp/...)."""
import json
import os
import sys
import time

import torch

# --epochs N: a shorter command of the same job (the README's sanitizerCommand), as HF's --max_steps
EPOCHS = int(sys.argv[sys.argv.index("--epochs") + 1]) if "--epochs" in sys.argv else int(os.environ.get("JOB_EPOCHS", "5"))
STEPS = int(os.environ.get("JOB_STEPS", "4"))
STEP_SECONDS = float(os.environ.get("JOB_STEP_SECONDS", "0"))  # what a step costs, as a real one does
CHECKPOINT = os.environ.get("JOB_CHECKPOINT", "ckpt.json")
device = "cuda" if torch.cuda.is_available() else "cpu"
start = 0
if device == "cuda":
    torch.cuda.memory.alloc(4096)  # the model, on the GPU before the checkpoint is read
opt = torch.optim.SGD([], lr=0.1)
if os.path.exists(CHECKPOINT):
    with open(CHECKPOINT) as f:
        saved = json.load(f)
    start = saved["epoch"] + 1
    opt.load_state_dict(saved.get("optimizer", {}))
    print("resuming from epoch", start)
for epoch in range(start, EPOCHS):
    for _ in range(STEPS):
        if device == "cuda":
            torch.cuda.memory.alloc(4096)
        opt.step()
        time.sleep(STEP_SECONDS)
    with open(CHECKPOINT + ".tmp", "w") as f:
        json.dump({"epoch": epoch, "optimizer": opt.state_dict()}, f)
    os.replace(CHECKPOINT + ".tmp", CHECKPOINT)
os.makedirs("out", exist_ok=True)
with open(os.path.join("out", "metrics.json"), "w") as f:
    json.dump({"epochs_trained": EPOCHS - start, "device": device}, f)
print("trained epochs", start, "to", EPOCHS - 1, "on", device)
