#!/usr/bin/env bash
# GPU minutes per merge (issue #28): for each of the project's example jobs, the job's own run ("plain")
# and the gate (`gpu-sanitize run`, defaults) one after the other on the same card, wall time start to end.
# On the GPU machine, from the repository root, with .device/ carried (jlink runtime and shaded jar):
#   bash bench/gpu-minutes.sh OUTDIR [JOB...]        (JOB: ddp-clean cudagraph cudnn-bench compile-ro
#                                                    prefetch dataset-cache triton-stride cupy-pkg
#                                                    scatter-add inline-ext)
# Writes OUTDIR/gpu-minutes.csv (job,clean,plain_s,gate_s,ratio,jar: one row per job and run, appended),
# OUTDIR/gpu-minutes-phases.csv (each gate run's phases from its report.json: how long the sanitizer and
# the regression runs took and whether they ran beside each other), the run directories OUTDIR/JOB/, the
# consoles, and prints the table. JAR_ID (default: .device/commit.txt, else the jar's sha256) names the jar.
# JARS="PATH=ID PATH=ID" instead compares jars side by side: for each job one plain run, then each jar's gate
# right after it, so the jars meet the same card state (a row per job and jar, the same plain_s).
# DEADLINE (seconds, default 560) keeps a call under the device's 10-minute limit: jobs left are skipped
# and said so.
# ALLOCS_OFF_TOO=1 adds, after each jar's gate, the same jar's gate with the probe's allocation record off
# (GPU_SANITIZE_PROBE_ALLOCS=0, issue #42), its row's jar named ID-noalloc: the record's cost side by side.
# REPEAT=N runs each job's gates N times, the order of the jars reversed every other round (on, off, off, on, ...)
# so that neither arm always meets the card second; rows of later rounds have ID-rK. Each gate's workspace copies
# (RUN_DIR/workspaces) are deleted once it ends: what each run changed is in its workspace.txt.
set -u
out=${1:?usage: gpu-minutes.sh OUTDIR [JOB...]}
shift
jobs=" ${*:-ddp-clean cudagraph cudnn-bench compile-ro prefetch dataset-cache triton-stride} "
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
mkdir -p "$out/plain"
JAVA=${JAVA:-.device/jre/bin/java}
JAR=${JAR:-.device/gpu-sanitize.jar}
DEADLINE=${DEADLINE:-560}
GATE_OPTS=${GATE_OPTS:-}
T0=$(date +%s)
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=2
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
if [ -z "${JAR_ID:-}" ]; then
  if [ -f .device/commit.txt ]; then JAR_ID=$(cat .device/commit.txt); else JAR_ID=$(sha256sum "$JAR" | cut -c1-12); fi
fi
JARS=${JARS:-"$JAR=$JAR_ID"}
read -r -a PAIRS <<< "$JARS"
if [ "${ALLOCS_OFF_TOO:-0}" = 1 ]; then
  for p in "${PAIRS[@]}"; do PAIRS+=("$p-noalloc"); done
fi
JAR_ID=$(for p in "${PAIRS[@]}"; do printf '%s+' "${p##*=}"; done); JAR_ID=${JAR_ID%+}
if command -v torchrun > /dev/null 2>&1; then TR=(torchrun); else TR=(python3 -m torch.distributed.run); fi
{ date -u; nproc; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; compute-sanitizer --version | tail -1;
  python3 -c 'import torch, sys; print(sys.version.split()[0], torch.__version__, torch.version.cuda)'; echo "jar $JAR_ID"; } \
  > "$out/machine-$JAR_ID.txt" 2>&1
csv=$out/gpu-minutes.csv
[ -f "$csv" ] || echo "job,clean,plain_s,gate_s,ratio,jar" > "$csv"
phases=$out/gpu-minutes-phases.csv
[ -f "$phases" ] || echo "job,jar,verdict,sanitizer_s,blocking_s,regression_s,plan" > "$phases"
now() { echo $(( $(date +%s) - T0 )); }
seconds() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.1f", b-a}'; }
# bench JOB CLEAN LIMIT command...: the plain run, then each jar's gate, then a CSV row per jar
bench() {
  local job=$1 clean=$2 limit=$3; shift 3
  case "$jobs" in *" $job "*) ;; *) return 0 ;; esac
  if [ $(( $(now) + (1 + ${#PAIRS[@]}) * limit )) -ge "$DEADLINE" ]; then echo "$job skipped: the deadline ($DEADLINE s) is near" | tee -a "$out/skipped.txt"; return; fi
  local a b plain
  a=$(date +%s.%N)
  timeout -k 5 "$limit" "$@" > "$out/plain/$job-$JAR_ID.log" 2>&1
  local prc=$?
  b=$(date +%s.%N); plain=$(seconds "$a" "$b")
  local pair jar id gate grc round i gates=()
  # every gate of every round, in order: JAR=ID#ROUND, the jars reversed in odd rounds
  for ((round = 0; round < ${REPEAT:-1}; round++)); do
    for ((i = 0; i < ${#PAIRS[@]}; i++)); do
      if (( round % 2 == 1 )); then pair=${PAIRS[${#PAIRS[@]} - 1 - i]}; else pair=${PAIRS[i]}; fi
      gates+=("$pair#$round")
    done
  done
  for pair in "${gates[@]}"; do
    round=${pair##*#}; pair=${pair%#*}
    jar=${pair%=*}; id=${pair##*=}
    (( round > 0 )) && id=$id-r$round
    rm -rf "$out/$job-$id"
    a=$(date +%s.%N)
    # shellcheck disable=SC2086
    case "$id" in *-noalloc*) allocs=0 ;; *) allocs=1 ;; esac
    GPU_SANITIZE_PROBE_ALLOCS=$allocs timeout -k 10 $(( limit * 4 )) "$JAVA" -XX:+UseSerialGC -Xmx512m -jar "$jar" run --out "$out/$job-$id" \
      --throughput-regex 'it/s ([0-9.]+)' $GATE_OPTS -- "$@" > "$out/$job-$id.console.txt" 2>&1
    grc=$?
    b=$(date +%s.%N); gate=$(seconds "$a" "$b")
    echo "$job,$clean,$plain,$gate,$(awk -v p="$plain" -v g="$gate" 'BEGIN{printf "%.2f", g/p}'),$id" >> "$csv"
    python3 - "$out/$job-$id/report.json" "$job" "$id" "$prc" "$grc" >> "$phases" <<'PY'
import json, sys
path, job, jar, prc, grc = sys.argv[1:]
try:
    r = json.load(open(path))
except Exception as e:
    print(f"{job},{jar},no report (gate exit {grc}; plain exit {prc}),,,,")
    sys.exit()
ph = {p["name"]: p for p in r.get("execution", {}).get("phases", [])}
def wall(prefix):
    return round(sum(p.get("wallSeconds") or 0 for n, p in ph.items() if n.startswith(prefix)), 1)
plan = next((x["message"] for x in r.get("reasons", []) if x.get("code") == "regression-plan"), "")
plan = ("beside: " if ph.get("regression", {}).get("ranBeside") else "") + plan.replace(",", ";")
print(f"{job},{jar},{r.get('verdict')},{wall('sanitizer')},{wall('blocking')},{wall('regression')},{plan}")
PY
    echo "$job clean=$clean jar=$id plain=${plain}s (exit $prc) gate=${gate}s (exit $grc) ratio $(tail -1 "$csv" | cut -d, -f5)"
    [ -d "$out/$job-$id" ] && find "$out/$job-$id" -type d -name workspaces -prune -exec rm -rf {} +
  done
}
bench ddp-clean yes 90 "${TR[@]}" --standalone --nproc_per_node=1 examples/ddp_train.py --bug none
bench cudagraph yes 60 python3 examples/cudagraph_job.py
bench cudnn-bench yes 60 python3 examples/cudnn_bench.py
bench compile-ro yes 90 python3 examples/compile_job.py --mode reduce-overhead --steps 30
bench prefetch yes 60 python3 examples/prefetch_job.py
bench dataset-cache yes 90 python3 examples/dataset_cache_job.py --fill-seconds 5 --train-seconds 15
bench triton-stride no 60 python3 examples/triton_stride.py --bug stride
bench cupy-pkg yes 60 python3 examples/cupy_pkg/train.py
bench scatter-add yes 60 python3 examples/buffer/scatter_add_job.py
bench inline-ext yes 120 python3 examples/buffer/inline_ext_job.py
echo
awk -F, '{ printf "%-14s %-6s %8s %8s %6s  %s\n", $1, $2, $3, $4, $5, $6 }' "$csv"
