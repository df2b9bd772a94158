#!/usr/bin/env python3
"""Writes a realistic compute-sanitizer memcheck log (text or --xml) of a given size from real H200
records (src/test/resources/corpus/h200): the far-oob record shapes with their real host stacks,
varying kernels, threads, blocks, addresses, distances and user frames, so a parser sees millions
of records of a few hundred distinct defects, as on a real model. The text ends with the ERROR
SUMMARY lines; the XML with its closing tag.

usage: generate.py --format text|xml --size 512M --out FILE [--kernels 200] [--seed 1]
"""
import argparse
import os
import random
import re

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "test", "resources", "corpus", "h200")


def size(s):
    m = re.fullmatch(r"(\d+)([KMG]?)", s.upper())
    if not m:
        raise SystemExit("bad --size %r: use e.g. 512M or 1G" % s)
    return int(m.group(1)) * {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[m.group(2)]


def text_template():
    """The first record of the real far-oob log: header, detail lines and its 30 host frames."""
    lines = open(os.path.join(ROOT, "far-oob", "memcheck.log")).read().split("\n")
    start = lines.index("========= Invalid __global__ write of size 4 bytes")
    end = lines.index("========= ", start)
    return lines[start:end + 1]


def xml_template():
    xml = open(os.path.join(ROOT, "far-oob", "memcheck.xml")).read()
    a = xml.index("  <record>")
    b = xml.index("</record>", a) + len("</record>\n")
    return xml[a:b]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--format", choices=["text", "xml"], required=True)
    ap.add_argument("--size", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--kernels", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    target = size(a.size)
    rnd = random.Random(a.seed)
    kernels = ["scale_shift"] + ["fused_kernel_%d" % i for i in range(1, a.kernels)]
    users = [("buggy_scale", 32), ("forward", 63), ("attention_block", 118), ("ffn", 201), ("loss_fn", 77)]
    written = 0
    records = 0
    with open(a.out, "w", buffering=1 << 20) as out:
        if a.format == "text":
            tpl = text_template()
            out.write("========= COMPUTE-SANITIZER\n")
            while written < target:
                k = rnd.choice(kernels)
                fn, line = rnd.choice(users)
                tx, bx = rnd.randrange(1024), rnd.randrange(4096)
                addr = 0x7f0000000000 + rnd.randrange(1 << 36) * 4
                rec = list(tpl)
                rec[1] = "=========     at %s+0x%x" % (k, 0x160 + 0x10 * (hash(k) % 8))
                rec[2] = "=========     by thread (%d,0,0) in block (%d,0,0)" % (tx, bx)
                rec[3] = "=========     Access to 0x%x is out of bounds" % addr
                rec[4] = "=========     and is %s bytes after the nearest allocation at 0x7f3d7ac00000 of size 512 bytes" % format(rnd.randrange(1, 1 << 40), ",")
                rec[-6] = "=========         Host Frame: %s in train_lstm.py:%d" % (fn, line)
                chunk = "\n".join(rec) + "\n"
                out.write(chunk)
                written += len(chunk)
                records += 1
            out.write("========= Target application returned an error\n")
            out.write("========= ERROR SUMMARY: %d errors\n" % records)
        else:
            tpl = xml_template()
            out.write('<?xml version="1.0" encoding="utf-8"?>\n<ComputeSanitizerOutput>\n')
            while written < target:
                k = rnd.choice(kernels)
                fn, line = rnd.choice(users)
                rec = tpl.replace("<func>scale_shift</func>", "<func>%s</func>" % k, 1)
                rec = rec.replace("<x>96</x>", "<x>%d</x>" % rnd.randrange(1024), 1)
                rec = rec.replace("<x>3</x>", "<x>%d</x>" % rnd.randrange(4096), 1)
                rec = rec.replace("0x7f564080a980", "0x%x" % (0x7f0000000000 + rnd.randrange(1 << 36) * 4), 1)
                rec = rec.replace("<func>buggy_scale</func>", "<func>%s</func>" % fn, 1).replace("<line>32</line>", "<line>%d</line>" % line, 1)
                out.write(rec)
                written += len(rec)
                records += 1
            out.write("</ComputeSanitizerOutput>\n")
    print("%s: %d records, %d bytes" % (a.out, records, os.path.getsize(a.out)))


if __name__ == "__main__":
    main()
