"""Summarises capture-sanitizer-options.sh: per job and variant, the sanitizer phase's wall time (each repeat),
the errors compute-sanitizer counted, the verdict, the unsuppressed and suppressed defects and the line the
diagnosis names, and whether the findings equal the default variant's."""
import json
import re
import statistics
import sys
from pathlib import Path

out = Path(sys.argv[1])
walls = {}
for line in (out / "summary.txt").read_text().splitlines():
    m = re.match(r"(\S+) exit=(\d+) seconds=([\d.]+)", line)
    if m:
        walls[m.group(1)] = float(m.group(3))


def findings(report):
    open_ = sorted((d.get("tool"), d.get("kind"), d.get("kernel"), (d.get("hostLocation") or {}).get("line"))
                   for d in report.get("defects", []) if not d.get("suppressed"))
    fault = ((report.get("diagnosis") or {}).get("faultAt") or {})
    return {"verdict": report.get("verdict"), "open": open_,
            "faultAt": (Path(fault["file"]).name if fault.get("file") else None, fault.get("line"))}


rows = {}
for run in sorted(p for p in out.iterdir() if p.is_dir() and (p / "report.json").exists()):
    key, n = run.name.rsplit("-", 1)
    report = json.loads((run / "report.json").read_text())
    phase = next((p for p in report["execution"]["phases"] if p["name"].startswith("sanitizer")), {})
    rows.setdefault(key, []).append({
        "repeat": int(n), "phaseSeconds": phase.get("wallSeconds"), "gateSeconds": walls.get(run.name),
        "status": phase.get("status"), "errorsTotal": report.get("errorsTotal"),
        "suppressed": sum(1 for d in report.get("defects", []) if d.get("suppressed")),
        "findings": findings(report)})
for key in sorted(rows):
    runs = sorted(rows[key], key=lambda r: r["repeat"])
    job, variant = re.match(r"(.*?)-(default|callers8|device-only|no-vendor)$", key).groups()
    default = rows.get(f"{job}-default")
    phase = [r["phaseSeconds"] for r in runs if r["phaseSeconds"]]
    base = [r["phaseSeconds"] for r in default or [] if r["phaseSeconds"]]
    print(json.dumps({
        "job": job, "variant": variant, "phaseSeconds": phase,
        "phaseOverDefault": round(statistics.median(phase) / statistics.median(base), 3) if phase and base else None,
        "errorsTotal": [r["errorsTotal"] for r in runs], "suppressed": [r["suppressed"] for r in runs],
        "sameFindingsAsDefault": all(r["findings"] == default[0]["findings"] for r in runs) if default else None,
        "findings": runs[0]["findings"]}))
