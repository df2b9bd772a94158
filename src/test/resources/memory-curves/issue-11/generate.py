import datetime, random
random.seed(11)
def write(name, start, series):
    t0 = datetime.datetime(2026,12,3,10,0,0) if start is None else start
    with open(name, "w") as f:
        f.write("timestamp, index, memory.used [MiB], memory.total [MiB], utilization.gpu [%]\n")
        ms = 0
        for used, util in series:
            ts = t0 + datetime.timedelta(milliseconds=ms)
            f.write(ts.strftime("%Y/%m/%d %H:%M:%S.") + "%03d" % (ts.microsecond // 1000) + ", 0, %d, 143771, %d\n" % (used, util))
            ms += 250 + random.choice([0, 0, 1, 1, 2])
# (a) logits kept in a list: context, warm-up to 825, then +2 MiB steps to 853 over 18 s
a = []
for i in range(93):
    t = i * 0.25
    if t < 2.0: u, g = 0, 0
    elif t < 2.25: u, g = 1, 0
    elif t < 3.25: u, g = 600, 0
    elif t < 3.5: u, g = 700, 12
    elif t < 22.25:
        k = 0 if t < 4.0 else min(14, int((t - 4.0) / 1.25 + 1e-9))
        u, g = 825 + 2 * k, random.randint(28, 36)
    else: u, g = 0, 0
    a.append((u, g))
write("leak-logits.nvidia-smi.csv", datetime.datetime(2026,12,3,10,0,0), a)
# (b) cudnn.benchmark: context 621 for 4.5 s, autotuning workspaces in the last second, then exit
b = [(0, 0)] * 8 + [(23, 0)] + [(621, 0)] * 18 + [(641, 9), (673, 21), (881, 34), (893, 38), (0, 0), (0, 0)]
write("cudnn-bench.nvidia-smi.csv", datetime.datetime(2026,12,3,10,5,0), b)
