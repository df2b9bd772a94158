"""Example job for GPU Sanitizer (issue #40): trains, saves its best model, loads it back for the test evaluation,
as pytorch/examples' word_language_model does, and writes its logs into the first free lightning_logs/version_N
and its tokenised data into a processed/ cache built on first use:

  python3 examples/save_load_job.py [--epochs 4]

A model another run saved (or is saving) fails the evaluation: "state_dict ... size mismatch" or a truncated
file. Prints "epoch N loss L it/s R", then "test loss L (model saved at epoch N)".
"""
import argparse
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


def processed(path="processed/tokens.pt"):
    """The tokenised corpus, built on first use (PyG's processed/, a tokeniser cache)."""
    if not os.path.exists(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        g = torch.Generator().manual_seed(1)
        tokens = torch.randint(0, 500, (64 * 200,), generator=g)
        torch.save(tokens, path + ".tmp")
        os.replace(path + ".tmp", path)
        print("built", path, flush=True)
    return torch.load(path)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--save", default="model.pt")
    args = p.parse_args()
    n = 0
    while os.path.exists(os.path.join("lightning_logs", "version_%d" % n)):
        n += 1
    logdir = os.path.join("lightning_logs", "version_%d" % n)
    os.makedirs(logdir)
    tokens = processed().cuda()
    model = nn.Sequential(nn.Embedding(500, 128), nn.Linear(128, 500)).cuda()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    best = None
    t0, steps = time.time(), 0
    for epoch in range(args.epochs):
        for i in range(0, len(tokens) - 65, 64):
            x, y = tokens[i:i + 64], tokens[i + 1:i + 65]
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            steps += 1
        with open(os.path.join(logdir, "metrics.csv"), "a") as f:
            f.write("%d,%.4f\n" % (epoch, float(loss)))
        if best is None or float(loss) < best:
            best = float(loss)
            torch.save({"state": model.state_dict(), "epoch": epoch}, args.save)
        print("epoch %d loss %.4f it/s %.1f" % (epoch, float(loss), steps / (time.time() - t0)), flush=True)
    saved = torch.load(args.save)
    model.load_state_dict(saved["state"])
    with torch.no_grad():
        test = F.cross_entropy(model(tokens[:64]), tokens[1:65])
    print("test loss %.4f (model saved at epoch %d) in %s" % (float(test), saved["epoch"], logdir), flush=True)


if __name__ == "__main__":
    main()
