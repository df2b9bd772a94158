"""Writes nanoGPT's data/shakespeare_char/{train,val}.bin and meta.pkl without the network.

nanoGPT's prepare.py downloads tinyshakespeare; the GPU machine reaches no network, so the character data is made
from this Python's own standard-library sources (about the same size, ~1.1 M characters). Only the bytes differ:
vocabulary, model and memory are those of the character-level config.
    python3 nanogpt-data.py NANOGPT_DIR
"""
import os
import pickle
import sys
import sysconfig

import numpy as np

out = os.path.join(sys.argv[1], "data", "shakespeare_char")
stdlib = sysconfig.get_paths()["stdlib"]
text = []
for name in sorted(os.listdir(stdlib)):
    if name.endswith(".py"):
        with open(os.path.join(stdlib, name), encoding="utf-8", errors="replace") as f:
            text.append(f.read())
    if sum(map(len, text)) > 1_115_394:
        break
data = "".join(text)[:1_115_394]
chars = sorted(set(data))
stoi = {c: i for i, c in enumerate(chars)}
ids = np.array([stoi[c] for c in data], dtype=np.uint16)
n = int(len(ids) * 0.9)
ids[:n].tofile(os.path.join(out, "train.bin"))
ids[n:].tofile(os.path.join(out, "val.bin"))
with open(os.path.join(out, "meta.pkl"), "wb") as f:
    pickle.dump({"vocab_size": len(chars), "itos": dict(enumerate(chars)), "stoi": stoi}, f)
print("nanogpt data: %d characters, vocab %d" % (len(data), len(chars)))
