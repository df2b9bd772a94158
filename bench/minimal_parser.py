#!/usr/bin/env python3
"""The second peer (issue #15): the least a parser can do with a memcheck text log — stream it as
bytes, cut it into records (a record starts at a '========= ' line whose message begins in column 11,
continuation lines are indented), keep each record's lines, and read the ERROR SUMMARY count. No
grouping, no frames decoded: any real parser costs at least this much in Python."""
import sys


def parse(path):
    records = 0
    total = None
    current = []
    with open(path, "rb", buffering=1 << 20) as f:
        for line in f:
            if not line.startswith(b"========= "):
                continue
            if line.startswith(b"========= ERROR SUMMARY: "):
                if total is None and b"not printed" not in line:
                    total = int(line.split()[3].replace(b",", b""))
            elif len(line) > 10 and line[10:11] not in (b" ", b"\n", b"\r"):
                if current:
                    records += 1
                current = [line]
            elif current:
                current.append(line)
    if current:
        records += 1
    return records, total


if __name__ == "__main__":
    records, total = parse(sys.argv[1])
    print("records: %d, error summary: %s" % (records, total))
