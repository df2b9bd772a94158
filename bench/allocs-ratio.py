#!/usr/bin/env python3
"""The allocation record's cost side by side (issue #42), from bench/gpu-minutes.sh's CSVs with ALLOCS_OFF_TOO=1:
for each job, the mean gate wall time and sanitizer run time with the record on over the same with it off (rows
whose jar id holds -noalloc), every round of the same call. Usage: allocs-ratio.py OUTDIR [OUTDIR...]"""
import csv
import os
import sys
from collections import defaultdict


def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")


def main(dirs):
    gate = defaultdict(lambda: {"on": [], "off": []})
    sanitizer = defaultdict(lambda: {"on": [], "off": []})
    for d in dirs:
        with open(os.path.join(d, "gpu-minutes.csv")) as f:
            for row in csv.DictReader(f):
                gate[row["job"]]["off" if "-noalloc" in row["jar"] else "on"].append(float(row["gate_s"]))
        with open(os.path.join(d, "gpu-minutes-phases.csv")) as f:
            for row in csv.DictReader(f):
                if row["sanitizer_s"]:
                    arm = "off" if "-noalloc" in row["jar"] else "on"
                    sanitizer[row["job"]][arm].append(float(row["sanitizer_s"]))
    print("job            gates on/off  gate on s  gate off s  on/off   sanitizer on s  off s  on/off")
    for job in gate:
        g, s = gate[job], sanitizer[job]
        print("%-14s %5d/%-5d %10.2f %11.2f %7.3f %14.2f %6.2f %7.3f" % (
            job, len(g["on"]), len(g["off"]), mean(g["on"]), mean(g["off"]), mean(g["on"]) / mean(g["off"]),
            mean(s["on"]), mean(s["off"]), mean(s["on"]) / mean(s["off"])))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
