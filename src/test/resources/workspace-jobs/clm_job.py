"""A Trainer-shaped job (HF run_clm.py's outputs, issue #47): trains, writes TensorBoard events, saves a checkpoint
and removes the older ones (save_total_limit=1), leaves an empty samples/ folder, makes its export script executable.

--output_dir: where (relative, ../artifacts, or the workspace's absolute path); --config: a JSON file whose
output_dir wins; --data: a folder whose labels.txt it reads (Ultralytics' ../datasets/coco128).
"""
import argparse
import json
import os
import shutil

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--output_dir", default=os.environ.get("OUTPUT_DIR", "outputs"))
parser.add_argument("--config")
parser.add_argument("--data")
parser.add_argument("--steps", type=int, default=int(os.environ.get("JOB_STEPS", "8")))
args = parser.parse_args()
out = args.output_dir
if args.config:
    with open(args.config) as f:
        out = json.load(f).get("output_dir", out)
rows = 0
if args.data:
    with open(os.path.join(args.data, "labels.txt")) as f:
        rows = len(f.read().split())
device = "cuda" if torch.cuda.is_available() else "cpu"
opt = torch.optim.SGD([], lr=0.1)
for _ in range(args.steps):
    if device == "cuda":
        torch.cuda.memory.alloc(4096)
    opt.step()
os.makedirs(os.path.join(out, "runs"), exist_ok=True)
with open(os.path.join(out, "runs", "events.out.tfevents"), "w") as f:
    f.write("steps %d rows %d\n" % (args.steps, rows))
checkpoint = "checkpoint-%d" % args.steps
os.makedirs(os.path.join(out, checkpoint), exist_ok=True)
with open(os.path.join(out, checkpoint, "model.bin"), "w") as f:
    f.write("trained %d steps\n" % args.steps)
for name in os.listdir(out):
    if name.startswith("checkpoint-") and name != checkpoint:
        shutil.rmtree(os.path.join(out, name))
os.makedirs(os.path.join(out, "samples"), exist_ok=True)
if os.path.exists(os.path.join("export", "serve.sh")):
    os.chmod(os.path.join("export", "serve.sh"), 0o755)
print("trained", args.steps, "steps into", out, "rows", rows)
