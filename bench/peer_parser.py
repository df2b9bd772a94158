#!/usr/bin/env python3
"""The peer baseline: a straightforward Python memcheck log parser of the common kind, after
PyTorch's historic test/scripts/cuda_memcheck_common.py: read the whole file, keep the prefixed
lines, cut blocks at the blank separator, take the summary count, group by message and kernel."""
import re
import sys
from collections import Counter


def parse(path):
    lines = open(path).read().splitlines()
    lines = [l[10:] for l in lines if l.startswith("========= ")]
    blocks, cur, total = [], [], None
    for l in lines:
        m = re.match(r"ERROR SUMMARY: ([\d,]+) errors?$", l)
        if m:
            total = int(m.group(1).replace(",", ""))
            continue
        if l.strip() == "":
            if cur:
                blocks.append(cur)
            cur = []
        else:
            cur.append(l)
    groups = Counter()
    for b in blocks:
        kernel = next((re.match(r"\s*at (\S+?)\+", x).group(1) for x in b if re.match(r"\s*at \S+\+", x)), None)
        user = next((x for x in b if re.search(r"Host Frame: \S+ in \S+\.py:\d+$", x)), None)
        groups[(b[0], kernel, user)] += 1
    return total, len(blocks), len(groups)


if __name__ == "__main__":
    print("total=%s records=%d defects=%d" % parse(sys.argv[1]))
