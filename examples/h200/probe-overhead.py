"""Summarises the clean job's runs with and without the probe (examples/h200/capture-probe.sh).

  python3 examples/h200/probe-overhead.py RUNS_DIR     # writes RUNS_DIR/overhead.json, prints a table

For each pair clean-probe-N / clean-noprobe-N: each phase's wall time (run.json), the job's own
throughput after warm-up (`it/s` in the phase's stdout) and what the probe says it spent itself. In the
regression phase (the memory probe, --probe-memory): samples taken, the first periodic sample's cost (it
was ~3 s when snapshots imported torch._inductor) and the probe's own problems (probe-error lines).
"""
import json
import os
import re
import statistics
import sys


def phase_data(run, phase):
    d = {}
    try:
        with open(os.path.join(run, "run.json")) as f:
            rec = json.load(f)
        for p in rec["execution"]["phases"]:
            if p["name"] == phase:
                d["wall"] = p["wallSeconds"]
                d["exit"] = p["exitCode"]
    except (OSError, KeyError, ValueError):
        pass
    try:
        with open(os.path.join(run, phase, "stdout.log")) as f:
            m = re.findall(r"it/s ([0-9.]+)", f.read())
            if m:
                d["its"] = float(m[-1])
    except OSError:
        pass
    probe = os.path.join(run, phase, "probe.jsonl")
    if os.path.exists(probe):
        cost = 0.0
        errors = 0
        with open(probe) as f:
            for line in f:
                try:
                    r = json.loads(line)
                except ValueError:
                    continue
                if r.get("type") == "exit":
                    d["probeSeconds"] = r.get("probeSeconds")
                    d["watchedCalls"] = r.get("watchedCalls")
                    d["samples"] = r.get("samples")
                    if "stateSnapshots" in r:
                        d["stateSnapshots"] = r["stateSnapshots"]
                elif r.get("type") == "sites":
                    cost += r.get("cost", 0)
                    if r.get("at") == "periodic" and "firstSampleCost" not in d:
                        d["firstSampleCost"] = r.get("cost")
                elif r.get("type") == "history":
                    d["periodic"] = r.get("periodic")
                elif r.get("type") == "probe-error":
                    errors += 1
        d["snapshotSeconds"] = round(cost, 4)
        d["probeErrors"] = errors
    return d


def main():
    root = sys.argv[1]
    pairs = []
    n = 1
    while os.path.isdir(os.path.join(root, "clean-probe-%d" % n)) and os.path.isdir(
            os.path.join(root, "clean-noprobe-%d" % n)):
        pairs.append(n)
        n += 1
    out = {"pairs": [], "summary": {}}
    for phase in ("blocking", "regression"):
        on_its, off_its, on_wall, off_wall, exits = [], [], [], [], []
        for i in pairs:
            on = phase_data(os.path.join(root, "clean-probe-%d" % i), phase)
            off = phase_data(os.path.join(root, "clean-noprobe-%d" % i), phase)
            out["pairs"].append({"pair": i, "phase": phase, "probe": on, "noProbe": off})
            exits.append([on.get("exit"), off.get("exit")])
            if "its" in on and "its" in off:
                on_its.append(on["its"])
                off_its.append(off["its"])
            if "wall" in on and "wall" in off:
                on_wall.append(on["wall"])
                off_wall.append(off["wall"])
        s = {"runs": len(on_its), "exitCodesWithAndWithoutProbe": exits}
        if on_its:
            s["itsWithProbe"] = statistics.median(on_its)
            s["itsWithoutProbe"] = statistics.median(off_its)
            s["throughputCostPercent"] = round(100 * (1 - s["itsWithProbe"] / s["itsWithoutProbe"]), 2)
        if on_wall:
            s["wallWithProbe"] = statistics.median(on_wall)
            s["wallWithoutProbe"] = statistics.median(off_wall)
            s["wallCostSeconds"] = round(s["wallWithProbe"] - s["wallWithoutProbe"], 2)
        out["summary"][phase] = s
    with open(os.path.join(root, "overhead.json"), "w") as f:
        json.dump(out, f, indent=1)
    print("pairs: %d (medians; it/s after the job's warm-up, wall = the whole phase)" % len(pairs))
    for phase, s in out["summary"].items():
        print("%-10s %s" % (phase, json.dumps(s)))
    for p in out["pairs"]:
        print("pair %d %-10s probe %s | no probe %s" % (p["pair"], p["phase"], json.dumps(p["probe"]),
                                                       json.dumps(p["noProbe"])))


if __name__ == "__main__":
    main()
