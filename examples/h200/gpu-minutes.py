"""Summarises capture-gpu-minutes.sh: per case, the job's own run, each phase's wall time, the gate's wall
time beside (blocking run beside the sanitizer run) and after (one after the other), the ratio of the gate
to sanitizer + regression (issue #15's goal: at most 1.1), and whether both variants found the same."""
import json
import re
import sys
from pathlib import Path

out = Path(sys.argv[1])
walls = {}
for line in (out / "summary.txt").read_text().splitlines():
    m = re.match(r"(\S+) exit=(\d+) seconds=([\d.]+)", line)
    if m:
        walls[m.group(1)] = (int(m.group(2)), float(m.group(3)))
plain = {}
if (out / "plain-times.txt").exists():
    for line in (out / "plain-times.txt").read_text().splitlines():
        m = re.match(r"(\S+) seconds=([\d.]+) exit=(\d+)", line)
        if m:
            plain[m.group(1)] = float(m.group(2))


def findings(report):
    defects = sorted(
        (d.get("tool"), d.get("kind"), d.get("kernel"), (d.get("hostLocation") or {}).get("line"))
        for d in report.get("defects", []) if not d.get("suppressed"))
    fault = ((report.get("diagnosis") or {}).get("faultAt") or {})
    return {"verdict": report.get("verdict"), "defects": defects,
            "faultAt": (fault.get("file"), fault.get("line"))}


cases = sorted({name.rsplit("-", 1)[0] for name in walls})
for case in cases:
    row = {"case": case, "plainSeconds": plain.get(case)}
    seen = {}
    for variant in ("beside", "after"):
        report_file = out / f"{case}-{variant}" / "report.json"
        if not report_file.exists():
            row[variant] = "no report"
            continue
        report = json.loads(report_file.read_text())
        phases = {p["name"]: p.get("wallSeconds") for p in report["execution"]["phases"]}
        sanitizer = sum(v or 0 for k, v in phases.items() if k.startswith("sanitizer"))
        regression = phases.get("regression") or 0
        exit_code, wall = walls.get(f"{case}-{variant}", (None, None))
        row[variant] = {"exit": exit_code, "gateSeconds": wall, "phases": phases,
                        "gateOverSanitizerPlusRegression": round(wall / (sanitizer + regression), 3)
                        if wall and sanitizer + regression else None}
        seen[variant] = findings(report)
    if len(seen) == 2:
        row["sameFindings"] = seen["beside"] == seen["after"]
        row["findings"] = seen["beside"] if row["sameFindings"] else seen
    if isinstance(row.get("beside"), dict) and isinstance(row.get("after"), dict) \
            and row["beside"]["gateSeconds"] and row["after"]["gateSeconds"]:
        row["besideOverAfter"] = round(row["beside"]["gateSeconds"] / row["after"]["gateSeconds"], 3)
    print(json.dumps(row))
