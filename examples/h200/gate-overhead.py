"""Where a gate's wall time goes, from a capture-gpu-minutes.sh record alone (issue #15, part 2): per run, the
gate (summary.txt), the environment check (the wall times of env/commands/*/exit.status, each command run
by the supervisor), the phases' critical path (beside: the longer of sanitizer and blocking, then the
regression run; after: all three in a row), and the rest (JVM start, analysis, report). Also the gate
without its environment check over sanitizer + regression, the part of the ratio the phases make.
usage: python3 examples/h200/gate-overhead.py RECORD_DIR   (e.g. src/test/resources/records/h200-gpu-minutes.zip.xz unpacked)"""
import json
import re
import sys
from pathlib import Path

out = Path(sys.argv[1])
gates = {}
for line in (out / "summary.txt").read_text().splitlines():
    m = re.match(r"(\S+) exit=\d+ seconds=([\d.]+)", line)
    if m:
        gates[m.group(1)] = float(m.group(2))


def wall(status):
    m = re.search(r"^wall=([\d.]+)$", status.read_text(), re.M)
    return float(m.group(1)) if m else 0.0


for run, gate in sorted(gates.items()):
    d = out / run
    commands = {p.parent.name: wall(p) for p in sorted((d / "env" / "commands").glob("*/exit.status"))}
    env = sum(commands.values())
    python = sum(v for k, v in commands.items() if "python" in k)
    phases = {p["name"]: p["wallSeconds"] or 0 for p in json.loads((d / "report.json").read_text())["execution"]["phases"]}
    sanitizer = sum(v for k, v in phases.items() if k.startswith("sanitizer"))
    blocking, regression = phases.get("blocking", 0), phases.get("regression", 0)
    critical = (max(sanitizer, blocking) if run.endswith("-beside") else sanitizer + blocking) + regression
    console = out / (run + ".console.txt")
    beside_check = console.exists() and "both beside the environment check" in console.read_text()
    on_path = env - python if beside_check else env
    print(json.dumps({"run": run, "gate": gate, "environmentCheck": round(env, 2), "pythonCheck": round(python, 2),
                      "besideCheck": beside_check, "environmentOnPath": round(on_path, 2),
                      "phasesCriticalPath": round(critical, 2), "rest": round(gate - on_path - critical, 2),
                      "gateOverSanitizerPlusRegression": round(gate / (sanitizer + regression), 3),
                      "withoutEnvironmentCheck": round((gate - on_path) / (sanitizer + regression), 3)}))
