"""pytorch/examples gcn/main.py downloads Cora (linqs-data.soe.ucsc.edu) at its start; the GPU machine has no network.
This writes, into the workspace given, what that download would give in Cora's own format and shape (2,708 papers,
1,433 binary word features, 7 classes, 5,429 citations; random, seeded) as cora.tgz, and a requests.py beside
main.py whose get() serves that file: the program runs unchanged, the network replaced by a local file.

    python3 examples/public/gcn-offline.py WORKSPACE      (then, in WORKSPACE: python3 main.py --epochs 200)
"""
import io
import os
import sys
import tarfile

import numpy as np

PAPERS, WORDS, CITES = 2708, 1433, 5429
CLASSES = ["Case_Based", "Genetic_Algorithms", "Neural_Networks", "Probabilistic_Methods",
           "Reinforcement_Learning", "Rule_Learning", "Theory"]
SHIM = '''"""A stand-in for the requests package (gcn-offline.py): get() serves cora.tgz beside it, the only URL main.py
fetches."""
import os


class _Response(object):
    def __init__(self):
        self.raw = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "cora.tgz"), "rb")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.raw.close()
        return False


def get(url, stream=False, **kwargs):
    return _Response()
'''


def member(tar, name, text):
    data = text.encode()
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def main(ws):
    rng = np.random.default_rng(0)
    ids = rng.choice(np.arange(1, 10 ** 6), size=PAPERS, replace=False)
    rows = []
    for i, paper in enumerate(ids):
        words = np.zeros(WORDS, dtype=np.int32)
        words[rng.choice(WORDS, size=int(rng.integers(5, 30)), replace=False)] = 1
        rows.append("%d\t%s\t%s" % (paper, "\t".join(map(str, words)), CLASSES[i % len(CLASSES)]))
    cites = ["%d\t%d" % (ids[a], ids[b]) for a, b in rng.integers(0, PAPERS, size=(CITES, 2)) if a != b]
    with tarfile.open(os.path.join(ws, "cora.tgz"), "w:gz") as tar:
        member(tar, "cora/cora.content", "\n".join(rows) + "\n")
        member(tar, "cora/cora.cites", "\n".join(cites) + "\n")
    with open(os.path.join(ws, "requests.py"), "w") as f:
        f.write(SHIM)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
