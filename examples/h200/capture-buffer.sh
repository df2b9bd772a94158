#!/usr/bin/env bash
# Issue #42 end to end: the gate (`gpu-sanitize run`) names the buffer each out-of-bounds access ran past and the
# job's line that allocated it. From the repository root on the GPU machine, with .device/gpu-sanitize.jar and
# .device/jre carried:
#   bash examples/h200/capture-buffer.sh [bugs|cost]
# bugs (default): the gate on the out-of-bounds example jobs (the CuPy far write, the CuPy package kernel, the
#   Triton stride bug, the unchecked scatter-add, the load_inline extension); prints each defect's line and its
#   report.json `buffer`, and writes $OUT/h200-buffer-bugs.zip.xz (the pruned run directories, consoles).
# cost: bench/gpu-minutes.sh on the clean jobs with the allocation record on and off side by side
#   (ALLOCS_OFF_TOO=1); writes $OUT/h200-buffer-cost.zip.xz and the CSVs.
# DEADLINE (default 540 s) keeps a part inside the device's 10-minute call.
set -u
part=${1:-bugs}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
JAVA=${JAVA:-.device/jre/bin/java}
JAR=${JAR:-.device/gpu-sanitize.jar}
DEADLINE=${DEADLINE:-540}
T0=$(date +%s)
work=/tmp/h200-buffer-$part
rm -rf "$work"; mkdir -p "$work"
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=2 TORCH_EXTENSIONS_DIR=/tmp/h200-buffer-ext
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; compute-sanitizer --version | tail -1;
  python3 -c 'import torch, sys; print(sys.version.split()[0], torch.__version__, torch.version.cuda)';
  "$JAVA" -jar "$JAR" --version; cat .device/commit.txt 2>/dev/null; } > "$work/machine.txt" 2>&1
case "$part" in
  cost)
    ALLOCS_OFF_TOO=1 DEADLINE=$DEADLINE bash bench/gpu-minutes.sh "$work" cupy-pkg scatter-add inline-ext
    ;;
  bugs)
    # the extension is built once, outside the gate (its first build takes a minute of nvcc)
    timeout 240 python3 examples/buffer/inline_ext_job.py --build-only > "$work/ext-build.txt" 2>&1
    gate() {
      local name=$1 limit=$2; shift 2
      if [ $(( $(date +%s) - T0 + limit )) -ge "$DEADLINE" ]; then echo "$name skipped: deadline" | tee -a "$work/skipped.txt"; return; fi
      timeout -k 10 "$limit" "$JAVA" -XX:+UseSerialGC -Xmx512m -jar "$JAR" run --out "$work/$name" \
        --throughput-regex 'it/s ([0-9.]+)' -- "$@" > "$work/$name.console.txt" 2>&1
      echo "== $name (exit $?)"; grep -i "buffer\|allocat" "$work/$name.console.txt" | head -5
      python3 - "$work/$name/report.json" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    sys.exit(f"no report: {e}")
for d in r.get("defects", []):
    print(" ", d.get("kernel"), "->", json.dumps(d.get("buffer")))
PY
    }
    gate far 150 python3 examples/lstm_job.py --bug far --steps 20
    gate cupy-oob 150 python3 examples/cupy_pkg/train.py --bug oob --steps 20
    gate triton-stride 150 python3 examples/triton_stride.py --bug stride --steps 20
    gate scatter-add 150 python3 examples/buffer/scatter_add_job.py --bug off-by-one --steps 20
    gate inline-ext 150 python3 examples/buffer/inline_ext_job.py --bug past-end --steps 20
    ;;
  *) echo "usage: capture-buffer.sh [bugs|cost]" >&2; exit 2 ;;
esac
prune_record "$work"
if [ -n "${OUT:-}" ] && [ -d "${OUT:-}" ]; then
  zip_record "$work" "$OUT/h200-buffer-$part.zip.xz"
  cp "$work"/gpu-minutes*.csv "$OUT/" 2>/dev/null
fi
