#!/usr/bin/env python3
"""Writes the hand-made per-process memory samples of this folder (see README.md) from two real H200 curves."""
import pathlib

HERE = pathlib.Path(__file__).resolve().parent
CURVES = HERE.parent.parent / "corpus" / "h200" / "curves"
CARD_HEADER = "timestamp, index, memory.used [MiB], memory.total [MiB], utilization.gpu [%]"
APPS_HEADER = "timestamp, pid, used_gpu_memory [MiB]"
SANITIZER, REGRESSION = 51234, 51377


def rows(name):
    lines = (CURVES / f"{name}.nvidia-smi.csv").read_text().splitlines()[1:]
    return [[f.strip() for f in line.split(",")] for line in lines if line.strip()]


def write(name, lines):
    (HERE / name).write_text("\n".join(lines) + "\n")


clean, leak = rows("clean"), rows("leak")
n = min(len(clean), len(leak))
# one clock for both: the clean run's timestamps; each process's figures in the order they were sampled
for case, ours, other in (("other-grows", clean, leak), ("ours-grows", leak, clean)):
    card, apps, na = [CARD_HEADER], [APPS_HEADER], [APPS_HEADER]
    for i in range(n):
        ts, total, util = clean[i][0], clean[i][3], clean[i][4]
        o, s = int(ours[i][2]), int(other[i][2])
        card.append(f"{ts}, 0, {o + s}, {total}, {util}")
        # nvidia-smi lists a process once it holds memory: the sanitizer run's (older) first
        for pid, used in ((SANITIZER, s), (REGRESSION, o)):
            if used > 0:
                apps.append(f"{ts}, {pid}, {used}")
                na.append(f"{ts}, {pid}, [N/A]")
    write(f"{case}.card-handmade.csv", card)
    write(f"{case}.apps-handmade.csv", apps)
    if case == "other-grows":
        write("mig.apps-handmade.csv", na)

write("gpu-pids-handmade.txt", ["pid-namespace pid:[4026531836]", f"{SANITIZER} other", f"{REGRESSION} ours session"])
# in a container's own pid namespace the driver's (host) pids are not in the container's /proc
write("gpu-pids-container-handmade.txt", ["pid-namespace pid:[4026532913]", f"{SANITIZER} gone", f"{REGRESSION} gone"])
