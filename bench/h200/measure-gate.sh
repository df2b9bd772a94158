#!/usr/bin/env bash
# GPU-side measurements for docs/performance.md, on a real GPU (the device tool's H200):
#  1. the gate's own overhead in the regression phase: the same job alone and under `gpu-sanitize run
#     --phases regression` (memory sampler at 250 ms, output to files), alternated 3 times; compared by
#     the job's own steady-state it/s and by wall time;
#  2. the sanitizer phase's wall time against --print-limit and host backtraces, for a job that errors
#     on every step (near overrun each step; --destroy-on-device-error kernel keeps the context alive);
#  3. the early stop (--stop-after-defects 1) on a long failing job against the full run.
# usage (repository root, .device/ carried): bash bench/h200/measure-gate.sh OUTDIR
set -u
out=${1:?usage: measure-gate.sh OUTDIR}
mkdir -p "$out"
JAVA=${JAVA:-.device/jre/bin/java}
JAR=${JAR:-.device/gpu-sanitize.jar}
gs() { "$JAVA" -XX:+UseSerialGC -jar "$JAR" "$@"; }
job=(python3 examples/lstm_job.py)
echo "== overhead" | tee "$out/log.txt"
for i in 1 2 3; do
  s=$(date +%s.%N); "${job[@]}" --steps 1500 > "$out/plain-$i.stdout" 2>&1; e=$(date +%s.%N)
  echo "plain $i wall $(python3 -c "print(round($e - $s, 3))")" | tee -a "$out/log.txt"
  gs run --out "$out/gate-$i" --phases regression --regression-seconds 600 -- "${job[@]}" --steps 1500 > "$out/gate-$i.console" 2>&1
  echo "gate $i exit $?" | tee -a "$out/log.txt"
done
echo "== print limit and backtraces" | tee -a "$out/log.txt"
every=(--sanitizer-arg=--destroy-on-device-error --sanitizer-arg=kernel)
for cfg in "pl100:--print-limit 100" "pl1000:--print-limit 1000" "pl10000:--print-limit 10000" "pl1000-nobt:--print-limit 1000 --sanitizer-arg=--show-backtrace --sanitizer-arg=no"; do
  name=${cfg%%:*}; opts=${cfg#*:}
  gs run --out "$out/san-$name" --phases sanitizer "${every[@]}" $opts --timeout sanitizer=280 \
    -- "${job[@]}" --bug near --bug-every --bug-step 2 --steps 60 --batch 1 > "$out/san-$name.console" 2>&1
  echo "$name exit $?" | tee -a "$out/log.txt"
done
echo "== early stop" | tee -a "$out/log.txt"
for cfg in "full:" "stop1:--stop-after-defects 1 --progress-interval 2"; do
  name=${cfg%%:*}; opts=${cfg#*:}
  gs run --out "$out/long-$name" --phases sanitizer "${every[@]}" --print-limit 1000 $opts --timeout sanitizer=280 \
    -- "${job[@]}" --bug near --bug-every --bug-step 2 --steps 300 --batch 1 > "$out/long-$name.console" 2>&1
  echo "$name exit $?" | tee -a "$out/log.txt"
done
python3 - "$out" <<'PY' | tee "$out/summary.md"
import json, os, re, statistics, sys
out = sys.argv[1]
def rep(d):
    return json.load(open(os.path.join(out, d, "report.json")))
def its(path):
    v = [float(x) for x in re.findall(r"it/s ([0-9.]+)", open(path).read())]
    return v[-1] if v else float("nan")
plain_w = [float(l.split()[-1]) for l in open(os.path.join(out, "log.txt")) if l.startswith("plain")]
gate_w = [rep("gate-%d" % i)["execution"]["phases"][0]["wallSeconds"] for i in (1, 2, 3)]
plain_i = [its(os.path.join(out, "plain-%d.stdout" % i)) for i in (1, 2, 3)]
gate_i = [its(os.path.join(out, "gate-%d" % i, "regression", "stdout.log")) for i in (1, 2, 3)]
print("| run | wall s (3 runs) | final it/s (3 runs) |\n|---|---|---|")
print("| job alone | %s | %s |" % (", ".join("%.2f" % x for x in plain_w), ", ".join("%.1f" % x for x in plain_i)))
print("| under the gate (regression phase) | %s | %s |" % (", ".join("%.2f" % x for x in gate_w), ", ".join("%.1f" % x for x in gate_i)))
print("\ngate overhead: wall %+.1f%% (median ratio), throughput %+.1f%% (median ratio)\n" % (
    100 * (statistics.median(g / p for g, p in zip(gate_w, plain_w)) - 1),
    100 * (statistics.median(g / p for g, p in zip(gate_i, plain_i)) - 1)))
print("| sanitizer run | wall s | errors counted | records printed | defects |\n|---|---|---|---|---|")
for name in ["san-pl100", "san-pl1000", "san-pl10000", "san-pl1000-nobt", "long-full", "long-stop1"]:
    try:
        r = rep(name)
        p = r["execution"]["phases"][0]
        s = r["sanitizerRuns"][0] if r["sanitizerRuns"] else {}
        print("| %s | %.1f (%s) | %s | %s | %d |" % (name, p["wallSeconds"], p["status"], s.get("errorsTotal"), s.get("recordsParsed"),
              len([d for d in r["defects"] if not d["suppressed"]])))
    except Exception as e:
        print("| %s | missing: %s |" % (name, e))
PY
