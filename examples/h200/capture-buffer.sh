#!/usr/bin/env bash
# Issue #42 end to end: the gate (`gpu-sanitize run`) names the buffer each out-of-bounds access ran past and the
# job's line that allocated it. From the repository root on the GPU machine, with .device/gpu-sanitize.jar and
# .device/jre carried:
#   bash examples/h200/capture-buffer.sh [bugs|cost|pack]
# bugs (default): the gate on the out-of-bounds example jobs (the CuPy far write, the CuPy package kernel, the
#   Triton stride bug, the unchecked scatter-add, the load_inline extension; BUGS="NAME ..." picks some, and
#   scatter-add-ranks, two torchrun ranks of the scatter-add job on one card, is run only when named); prints each
#   defect's line and its report.json `buffer`.
# cost: bench/gpu-minutes.sh on clean jobs (COST_JOBS, default the three buffer jobs) with the allocation record
#   on and off side by side (ALLOCS_OFF_TOO=1, REPEAT=${REPEAT:-2} rounds in alternating order), then each
#   sanitizer run's own account of the record (the probe's alloc-summary: callbacks, lines, seconds spent) and
#   bench/allocs-ratio.py's table (per job: mean gate and sanitizer-run time, record on over off).
# pack: with $OUT set, each part's pruned directory (workspace copies left out) into $OUT/h200-buffer-PART.zip.xz
#   and the CSVs beside it. Each part packs itself when it ends; run pack after a part that was cut off.
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
pack() {
  local w
  for w in /tmp/h200-buffer-bugs /tmp/h200-buffer-cost; do
    [ -d "$w" ] || continue
    find "$w" -type d -name workspaces -prune -exec rm -rf {} +
    prune_record "$w"
    if [ -n "${OUT:-}" ] && [ -d "${OUT:-}" ]; then
      zip_record "$w" "$OUT/$(basename "$w").zip.xz"
      cp "$w"/gpu-minutes*.csv "$OUT/" 2>/dev/null
    fi
  done
}
if [ "$part" = pack ]; then pack; exit 0; fi
work=/tmp/h200-buffer-$part
rm -rf "$work"; mkdir -p "$work"
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=2 TORCH_EXTENSIONS_DIR=/tmp/h200-buffer-ext
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; compute-sanitizer --version | tail -1;
  python3 -c 'import torch, sys; print(sys.version.split()[0], torch.__version__, torch.version.cuda)';
  "$JAVA" -jar "$JAR" --version; cat .device/commit.txt 2>/dev/null; } > "$work/machine.txt" 2>&1
case "$part" in
  cost)
    case " ${COST_JOBS:-inline-ext} " in *" inline-ext "*)
      timeout 240 python3 examples/buffer/inline_ext_job.py --build-only > "$work/ext-build.txt" 2>&1 ;;
    esac
    # shellcheck disable=SC2086
    ALLOCS_OFF_TOO=1 REPEAT=${REPEAT:-2} DEADLINE=$(( DEADLINE - ($(date +%s) - T0) )) \
      bash bench/gpu-minutes.sh "$work" ${COST_JOBS:-scatter-add cupy-pkg inline-ext}
    # the record's own time, as each sanitizer run's probe counted it (0 where the record was off)
    for f in "$work"/*/sanitizer-memcheck/probe.jsonl; do
      [ -f "$f" ] || continue
      echo "$(basename "$(dirname "$(dirname "$f")")"): $(grep -h '"alloc-summary"' "$f" | tr '\n' ' ')"
    done | tee "$work/alloc-summary.txt"
    python3 bench/allocs-ratio.py "$work" | tee "$work/allocs-ratio.txt"
    ;;
  bugs)
    # the extension is built once, outside the gate (its first build takes a minute of nvcc)
    case " ${BUGS:-inline-ext} " in *" inline-ext "*)
      timeout 240 python3 examples/buffer/inline_ext_job.py --build-only > "$work/ext-build.txt" 2>&1 ;;
    esac
    gate() {
      local name=$1 limit=$2; shift 2
      case " ${BUGS:-far cupy-oob triton-stride scatter-add inline-ext} " in *" $name "*) ;; *) return ;; esac
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
    gate far 90 python3 examples/lstm_job.py --bug far --steps 20
    gate cupy-oob 90 python3 examples/cupy_pkg/train.py --bug oob --steps 20
    gate triton-stride 90 python3 examples/triton_stride.py --bug stride --steps 20
    gate scatter-add 90 python3 examples/buffer/scatter_add_job.py --bug off-by-one --steps 20
    gate inline-ext 120 python3 examples/buffer/inline_ext_job.py --bug past-end --steps 20
    # two ranks of the same job on one card (BUGS=scatter-add-ranks): memcheck's records carry no pid, so the buffer
    # is named only when the ranks' records agree on what was at the address
    if command -v torchrun > /dev/null 2>&1; then TR=(torchrun); else TR=(python3 -m torch.distributed.run); fi
    gate scatter-add-ranks 150 "${TR[@]}" --standalone --nproc_per_node=2 examples/buffer/scatter_add_job.py \
      --bug off-by-one --steps 20
    ;;
  *) echo "usage: capture-buffer.sh [bugs|cost]" >&2; exit 2 ;;
esac
pack
