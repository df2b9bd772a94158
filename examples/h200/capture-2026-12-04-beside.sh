#!/usr/bin/env bash
# Issue #28 (per-process memory curve) and #25, 4 (CuPy kernel in a package module) on the H200, with the CLI
# of this commit. One GPU; in the first two cases a second job runs beside the gate on the same card:
#   other-grows   the gate's regression run of a flat job (leak_logits.py --keep none) while another process
#                 on the card leaks fast (leak_logits.py --keep detached, big logits): the card's total grows,
#                 the regression run's own processes do not -> memory stable, no growth claim
#   ours-grows    the reverse: the gate's job leaks, a flat job beside it -> growing (UNSTABLE)
#   cupy-oob      examples/cupy_pkg/train.py --bug oob: the CuPy kernel's own source line, the launch in
#                 examples/cupy_pkg/trainer/ops.py (FAIL)
#   cupy-clean    the same job without the bug (PASS)
# Usage (repository root, on the GPU machine, .device/ carried):
#   bash examples/h200/capture-2026-12-04-beside.sh OUTDIR [CASE...]
set -u
out=${1:?usage: capture-2026-12-04-beside.sh OUTDIR [CASE...]}
shift
cases=" ${*:-other-grows ours-grows cupy-oob cupy-clean} "
want() { case "$cases" in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
mkdir -p "$out/raw"
JAVA=${JAVA:-.device/jre/bin/java}
JAR=${JAR:-.device/gpu-sanitize.jar}
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=2
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; compute-sanitizer --version | tail -1;
  python3 -c 'import torch, cupy, sys; print(sys.version.split()[0], torch.__version__, torch.version.cuda, cupy.__version__)';
  cat .device/commit.txt 2>/dev/null; } > "$out/machine.txt" 2>&1
gs() { # NAME LIMIT options...
  local name=$1 limit=$2; shift 2
  local start; start=$(date +%s)
  timeout -k 10 "$limit" "$JAVA" -XX:+UseSerialGC -Xmx512m -jar "$JAR" run --out "$out/$name" "$@" > "$out/$name.console.txt" 2>&1
  echo "$name exit=$? seconds=$(( $(date +%s) - start ))" | tee -a "$out/summary.txt"
}
beside() { # NAME: a second job on the card, started before the gate and stopped after it
  python3 examples/leak_logits.py "$@" > "$out/raw/$name-beside.log" 2>&1 &
  echo $!
}
if want other-grows; then
  name=other-grows
  pid=$(beside --keep detached --seconds 80 --batch 512 --classes 2000)
  sleep 3
  gs other-grows 120 --phases regression --progress-interval 15 -- python3 examples/leak_logits.py --keep none --seconds 45
  nvidia-smi --query-compute-apps=pid,used_memory --format=csv > "$out/raw/other-grows-apps-at-end.csv" 2>&1
  kill "$pid"; wait "$pid" 2>/dev/null
fi
if want ours-grows; then
  name=ours-grows
  pid=$(beside --keep none --seconds 80)
  sleep 3
  gs ours-grows 120 --phases regression --progress-interval 15 -- python3 examples/leak_logits.py --keep detached --seconds 45
  kill "$pid"; wait "$pid" 2>/dev/null
fi
want cupy-oob && gs cupy-oob 150 --print-limit 200 --progress-interval 15 --timeout sanitizer=90 --timeout blocking=40 \
  --timeout regression=40 --sanitizer-command "python3 examples/cupy_pkg/train.py --bug oob --steps 8" \
  -- python3 examples/cupy_pkg/train.py --bug oob
want cupy-clean && gs cupy-clean 150 --print-limit 200 --progress-interval 15 --timeout sanitizer=90 --timeout blocking=40 \
  --timeout regression=40 -- python3 examples/cupy_pkg/train.py
cat "$out/summary.txt"
