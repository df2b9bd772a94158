#!/usr/bin/env bash
# Captures `gpu-sanitize run` (and some direct tool runs) over the example jobs of 2026-12-03 on a
# real GPU machine, within about 9 minutes. Usage (from the repository root, on the GPU machine):
#   bash examples/h200/capture-2026-12-03.sh OUTDIR
# JAVA and JAR default to the jlink runtime and shaded jar carried in .device/.
#
# Order: machine.txt; then the two memory-curve cases ALONE, one after the other (leak-logits, and
# cudnn-bench with its regression phase first); as soon as cudnn-bench's regression phase has
# ended, every other case starts at once in the background (sharing the GPU and the CPUs), with
# a chain of plain timed runs (plain-times.txt) and chains of direct tool runs (raw/). Each case
# has its own timeout, all ending before DEADLINE seconds; one failing case never stops the others.
# The output is pruned by examples/h200/lib.sh; with $OUT set, zipped to $OUT/NAME.zip.xz (NAME: OUTDIR's own name).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
out=${1:?usage: capture-2026-12-03.sh OUTDIR}
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
mkdir -p "$out/raw"
JAVA=${JAVA:-.device/jre/bin/java}
JAR=${JAR:-.device/gpu-sanitize.jar}
DEADLINE=${DEADLINE:-525}   # seconds after start by which every case has been stopped
T0=$(date +%s)
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=2
# NVLink multicast off (the device tool's rule for NCCL on these machines)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1

now() { echo $(( $(date +%s) - T0 )); }
log() { echo "[capture +$(now)s] $*" | tee -a "$out/capture.log"; }
# seconds left before DEADLINE (at least 20), or $1 when that is less
left() {
  local l=$(( DEADLINE - $(now) ))
  [ "$l" -lt 20 ] && l=20
  [ -n "${1:-}" ] && [ "$1" -lt "$l" ] && l=$1
  echo "$l"
}

# pids of processes started by some gpu-sanitize phase (their environment holds GPU_SANITIZE_COOKIE)
cookie_pids() {
  local e p
  for e in /proc/[0-9]*/environ; do
    p=${e#/proc/}; p=${p%/environ}
    [ "$p" = "$$" ] && continue
    { tr '\0' '\n' < "$e" | grep -q '^GPU_SANITIZE_COOKIE='; } 2>/dev/null && echo "$p"
  done
}
BASELINE=" $(cookie_pids | tr '\n' ' ') "   # not ours: never touched

if command -v torchrun >/dev/null 2>&1; then TR=(torchrun); else TR=(python3 -m torch.distributed.run); fi
TRS="${TR[*]}"

{
  date -u
  uname -a
  nproc
  free -g
  nvidia-smi
  nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv
  python3 -c 'import sys, torch, triton, cupy
print("python", sys.version.split()[0], sys.executable)
print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(),
      "nccl", ".".join(map(str, torch.cuda.nccl.version())))
print("triton", triton.__version__, "cupy", cupy.__version__)
print("device", torch.cuda.get_device_name(0), torch.cuda.get_device_capability(0))'
  compute-sanitizer --version
  echo "torchrun: ${TRS} ($(command -v "${TR[0]}"))"
  command -v setsid
  "$JAVA" -version
} > "$out/machine.txt" 2>&1
log "machine.txt written"

# ---------------------------------------------------------------------------------------------
common=(--print-limit 200 --progress-interval 15 --throughput-regex 'it/s ([0-9.]+)')

# gscase NAME ARGS... : one CLI run, console to NAME.console.txt, exit code to summary.txt
gscase() {
  local name=$1; shift
  local start; start=$(now)
  log "start $name"
  timeout -k 10 "$(left)" "$JAVA" -XX:+UseSerialGC -Xmx512m -jar "$JAR" run --out "$out/$name" "$@" \
    > "$out/$name.console.txt" 2>&1
  local rc=$?
  echo "$name exit=$rc seconds=$(( $(now) - start )) started=+${start}s" >> "$out/summary.txt"
  log "end $name exit=$rc"
}

# plain NAME CMD... : a plain normal run, timed (wall seconds), for the GPU-minutes study
plain() {
  local name=$1; shift
  if [ "$(now)" -ge $(( DEADLINE - 30 )) ]; then echo "$name skipped: too close to the deadline" >> "$out/plain-times.txt"; return; fi
  local load; load=$(cut -d' ' -f1-3 /proc/loadavg)
  local a b rc
  a=$(date +%s.%N)
  timeout -k 5 "$(left 120)" "$@" > "$out/raw/plain-$name.log" 2>&1
  rc=$?
  b=$(date +%s.%N)
  echo "$name seconds=$(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.2f", b-a}') exit=$rc started=+$(( ${a%.*} - T0 ))s loadavg=\"$load\" command=\"$*\"" \
    >> "$out/plain-times.txt"
}

# direct NAME LIMIT CMD... : a direct run outside the CLI, stdout/stderr to raw/
direct() {
  local name=$1 limit=$2; shift 2
  if [ "$(now)" -ge $(( DEADLINE - 30 )) ]; then echo "$name skipped: too close to the deadline" >> "$out/raw/direct-runs.txt"; return; fi
  local start; start=$(now)
  log "start direct $name"
  timeout -k 10 "$(left "$limit")" "$@" > "$out/raw/$name.stdout.txt" 2> "$out/raw/$name.stderr.txt"
  local rc=$?
  echo "$name exit=$rc seconds=$(( $(now) - start )) started=+${start}s command=\"$*\"" >> "$out/raw/direct-runs.txt"
  log "end direct $name exit=$rc"
}

# background monitor: GPU memory/utilisation and host load for the whole capture
nvidia-smi --query-gpu=timestamp,memory.used,utilization.gpu --format=csv -l 2 > "$out/raw/gpu-monitor.csv" 2>&1 &
MON1=$!
( while true; do echo "+$(now)s $(cat /proc/loadavg)"; sleep 5; done ) > "$out/raw/loadavg.txt" 2>&1 &
MON2=$!

# ---------------------------------------------------------------------------------------------
# 1. memory-curve cases, alone
gscase leak-logits "${common[@]}" --phases regression --regression-seconds 25 --timeout regression=60 \
  -- python3 examples/leak_logits.py --seconds 30

gscase cudnn-bench "${common[@]}" --phases regression,blocking,sanitizer \
  --timeout regression=60 --timeout blocking=60 --timeout sanitizer=240 \
  --sanitizer-command "python3 examples/cudnn_bench.py --seconds 3 --min-changes 2 --batch 8" \
  -- python3 examples/cudnn_bench.py --seconds 10 &
CUDNN=$!
# wait until cudnn-bench's regression phase has ended (its curve must not see the other jobs)
for _ in $(seq 1 150); do
  grep -qE '^\[gpu-sanitize\] regression [a-z-]+ after' "$out/cudnn-bench.console.txt" 2>/dev/null && break
  kill -0 "$CUDNN" 2>/dev/null || break
  sleep 1
done
log "cudnn-bench regression phase over: starting the parallel cases"

# ---------------------------------------------------------------------------------------------
# 2. everything else at once
pids=()
gscase ddp-clean "${common[@]}" --timeout sanitizer=240 --timeout blocking=90 --timeout regression=90 \
  --sanitizer-command "$TRS --standalone --nproc_per_node=1 examples/ddp_train.py --bug none --steps 8" \
  -- "${TR[@]}" --standalone --nproc_per_node=1 examples/ddp_train.py --bug none &
pids+=($!)
gscase ddp-scatter "${common[@]}" --timeout sanitizer=240 --timeout blocking=90 --timeout regression=90 \
  --sanitizer-command "$TRS --standalone --nproc_per_node=1 examples/ddp_train.py --bug scatter --steps 8" \
  -- "${TR[@]}" --standalone --nproc_per_node=1 examples/ddp_train.py --bug scatter &
pids+=($!)
gscase spawn-gloo-2ranks "${common[@]}" --timeout sanitizer=240 --timeout blocking=90 --timeout regression=90 \
  --sanitizer-command "python3 examples/ddp_train.py --spawn 2 --backend gloo --bug scatter --steps 8" \
  -- python3 examples/ddp_train.py --spawn 2 --backend gloo --bug scatter &
pids+=($!)
gscase racecheck "${common[@]}" --tool racecheck --phases sanitizer --timeout sanitizer=300 \
  --sanitizer-command "python3 examples/racecheck_job.py --bug nosync --steps 3" \
  -- python3 examples/racecheck_job.py --bug nosync &
pids+=($!)
gscase racecheck-clean "${common[@]}" --tool racecheck --phases sanitizer --timeout sanitizer=300 \
  --sanitizer-command "python3 examples/racecheck_job.py --bug none --steps 3" \
  -- python3 examples/racecheck_job.py --bug none &
pids+=($!)
gscase triton-stride "${common[@]}" --timeout sanitizer=180 --timeout blocking=90 --timeout regression=90 \
  --sanitizer-command "python3 examples/triton_stride.py --bug stride --steps 8" \
  -- python3 examples/triton_stride.py --bug stride &
pids+=($!)
gscase hang "${common[@]}" --phases blocking --timeout blocking=25 \
  -- python3 examples/hang_after_error.py &
pids+=($!)
gscase hang-driver "${common[@]}" --phases blocking --timeout blocking=25 \
  -- python3 examples/hang_after_error.py --print-driver &
pids+=($!)
gscase embedding-oov "${common[@]}" --timeout sanitizer=180 --timeout blocking=90 --timeout regression=90 \
  --sanitizer-command "python3 examples/embedding_job.py --bug oov --steps 8" \
  -- python3 examples/embedding_job.py --bug oov &
pids+=($!)
gscase embedding-label "${common[@]}" --timeout sanitizer=180 --timeout blocking=90 --timeout regression=90 \
  --sanitizer-command "python3 examples/embedding_job.py --bug label --steps 8" \
  -- python3 examples/embedding_job.py --bug label &
pids+=($!)
gscase compile-oob "${common[@]}" --timeout sanitizer=240 --timeout blocking=90 --timeout regression=90 \
  --sanitizer-command "python3 examples/compile_job.py --bug oob --steps 8" \
  -- python3 examples/compile_job.py --bug oob &
pids+=($!)
gscase compile-clean "${common[@]}" --timeout sanitizer=240 --timeout blocking=90 --timeout regression=90 \
  --sanitizer-command "python3 examples/compile_job.py --bug none --steps 8" \
  -- python3 examples/compile_job.py --bug none &
pids+=($!)
gscase cudagraph "${common[@]}" --timeout sanitizer=180 --timeout blocking=90 --timeout regression=90 \
  --sanitizer-command "python3 examples/cudagraph_job.py --steps 20" \
  -- python3 examples/cudagraph_job.py &
pids+=($!)
gscase vendor-mix "${common[@]}" --phases sanitizer --timeout sanitizer=240 \
  --sanitizer-command "python3 examples/vendor_mix.py --steps 3" \
  -- python3 examples/vendor_mix.py &
pids+=($!)

# plain timed runs, one after another (while the cases above run: see loadavg in the file)
(
  plain ddp-clean "${TR[@]}" --standalone --nproc_per_node=1 examples/ddp_train.py --bug none
  plain vendor-mix python3 examples/vendor_mix.py
  plain cudnn-bench python3 examples/cudnn_bench.py --seconds 10
  plain cudagraph python3 examples/cudagraph_job.py
  plain compile-clean python3 examples/compile_job.py --bug none
  plain embedding-oov python3 examples/embedding_job.py --bug oov
) &
pids+=($!)

# direct tool runs, outside the CLI
(
  direct racecheck-direct 300 compute-sanitizer --tool racecheck --racecheck-report all --xml \
    --save "$out/raw/racecheck-direct.xml" --log-file "$out/raw/racecheck-direct.log" --print-limit 200 \
    python3 examples/racecheck_job.py --bug nosync --steps 3
) &
pids+=($!)
(
  direct ddp-scatter-normal 120 "${TR[@]}" --standalone --nproc_per_node=1 examples/ddp_train.py --bug scatter
  direct ddp-scatter-blocking 120 env CUDA_LAUNCH_BLOCKING=1 "${TR[@]}" --standalone --nproc_per_node=1 \
    examples/ddp_train.py --bug scatter
  direct vendor-mix-direct 300 env PYTORCH_NO_CUDA_MEMORY_CACHING=1 compute-sanitizer --tool memcheck --xml \
    --save "$out/raw/vendor-mix-direct.xml" --log-file "$out/raw/vendor-mix-direct.log" --print-limit 200 \
    python3 examples/vendor_mix.py --steps 3
) &
pids+=($!)

wait "${pids[@]}" "$CUDNN"
log "all cases ended"

# ---------------------------------------------------------------------------------------------
# leftovers: phase processes carry GPU_SANITIZE_COOKIE in their environment; a case stopped by its
# timeout above may have left its phase session running. Kill those (by pid), then the monitors.
left_over=()
for p in $(cookie_pids); do
  case " $BASELINE " in *" $p "*) ;; *) left_over+=("$p") ;; esac
done
if [ ${#left_over[@]} -gt 0 ]; then
  log "killing leftover phase processes: ${left_over[*]}"
  ps -o pid,etimes,args -p "$(IFS=,; echo "${left_over[*]}")" >> "$out/capture.log" 2>&1
  kill -KILL "${left_over[@]}" 2>/dev/null
fi
kill "$MON1" "$MON2" 2>/dev/null
find "$out" -type f -size +5M -exec ls -l {} + >> "$out/capture.log" 2>&1
du -sh "$out" >> "$out/capture.log" 2>&1
log "done"
finish_record "$out"
