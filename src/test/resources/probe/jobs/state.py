"""Files opened in and outside the run's copy: only those outside are state the probe names."""
import os
import pathlib
import sys

import torch  # noqa: F401

root = os.getcwd()
outside = os.path.dirname(root)
with open(os.path.join(outside, "ckpt.json")) as f:  # a checkpoint beside the copy, under /tmp
    f.read()
pathlib.Path(outside, "ckpt.json").read_text()  # the same file again: named once
with open(os.path.join(os.environ["HOME"], "state.bin"), "wb") as f:  # written under the home folder
    f.write(b"x")
with open(os.path.join(os.environ["GPU_SANITIZE_PROBE_WORKSPACE"], "ckpt.pt"), "w") as f:  # the original, by path
    f.write("x")
with open("inside.txt", "w") as f:  # the copy itself
    f.write("x")
open("inside.txt").read()
os.makedirs("sub", exist_ok=True)
os.chdir("sub")
open("../inside.txt").read()  # still the copy
fd = os.open(os.path.join(outside, "raw.bin"), os.O_WRONLY | os.O_CREAT, 0o644)  # os.open, flags only
os.close(fd)
for i in range(60):  # more than the bound
    open(os.path.join(outside, "many-%d.txt" % i), "w").close()
print("python", sys.version_info[0])
