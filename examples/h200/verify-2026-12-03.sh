#!/usr/bin/env bash
# Reruns, with the current CLI, the example jobs the gate got wrong in records/h200-2026-12-03.zip.xz, one at a
# time (the device has 2 CPUs and one GPU: nothing runs beside a case, so every memory curve is its
# own), and times a plain run of the clean jobs next to the gate's phases (GPU minutes per merge).
# Usage (repository root, on the GPU machine, .device/ carried): bash examples/h200/verify-2026-12-03.sh OUTDIR [CASE...]
# (cases: ddp-clean cudagraph cudnn-bench triton-stride ddp-scatter ddp-late ddp-long-clean ddp-late-long hang-driver compile-oob racecheck; default the first six)
# The output is pruned by examples/h200/lib.sh; with $OUT set, zipped to $OUT/NAME.zip.xz (NAME: OUTDIR's own name).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
out=${1:?usage: verify-2026-12-03.sh OUTDIR [CASE...]}
shift
cases=" ${*:-ddp-clean cudagraph cudnn-bench triton-stride ddp-scatter hang-driver} "
want() { case "$cases" in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
mkdir -p "$out/raw"
JAVA=${JAVA:-.device/jre/bin/java}
JAR=${JAR:-.device/gpu-sanitize.jar}
DEADLINE=${DEADLINE:-540}
T0=$(date +%s)
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=2
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
now() { echo $(( $(date +%s) - T0 )); }
left() { local l=$(( DEADLINE - $(now) )); [ "$l" -lt 15 ] && l=15; [ -n "${1:-}" ] && [ "$1" -lt "$l" ] && l=$1; echo "$l"; }
if command -v torchrun >/dev/null 2>&1; then TR=(torchrun); else TR=(python3 -m torch.distributed.run); fi
TRS="${TR[*]}"
{ date -u; nproc; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; compute-sanitizer --version | tail -1; "$JAVA" -version; } > "$out/machine.txt" 2>&1
common=(--print-limit 200 --progress-interval 15 --throughput-regex 'it/s ([0-9.]+)')
gscase() {
  local name=$1 limit=$2; shift 2
  want "$name" || return 0
  if [ "$(now)" -ge $(( DEADLINE - 20 )) ]; then echo "$name skipped: deadline" >> "$out/summary.txt"; return; fi
  local start; start=$(now)
  timeout -k 10 "$(left "$limit")" "$JAVA" -XX:+UseSerialGC -Xmx512m -jar "$JAR" run --out "$out/$name" "$@" > "$out/$name.console.txt" 2>&1
  echo "$name exit=$? seconds=$(( $(now) - start )) started=+${start}s" | tee -a "$out/summary.txt"
}
plain() {
  local name=$1; shift
  want "$name" || return 0
  if [ "$(now)" -ge $(( DEADLINE - 30 )) ]; then echo "$name skipped: deadline" >> "$out/plain-times.txt"; return; fi
  local a b; a=$(date +%s.%N)
  timeout -k 5 "$(left 90)" "$@" > "$out/raw/plain-$name.log" 2>&1
  local rc=$?; b=$(date +%s.%N)
  echo "$name seconds=$(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.2f", b-a}') exit=$rc command=\"$*\"" | tee -a "$out/plain-times.txt"
}
# clean jobs first: each must PASS; their plain run beside them for the GPU-minutes figures
plain ddp-clean "${TR[@]}" --standalone --nproc_per_node=1 examples/ddp_train.py --bug none
gscase ddp-clean 150 "${common[@]}" --timeout sanitizer=120 --timeout blocking=60 --timeout regression=60 \
  -- "${TR[@]}" --standalone --nproc_per_node=1 examples/ddp_train.py --bug none
plain cudagraph python3 examples/cudagraph_job.py
gscase cudagraph 120 "${common[@]}" --timeout sanitizer=60 --timeout blocking=40 --timeout regression=40 \
  -- python3 examples/cudagraph_job.py
plain cudnn-bench python3 examples/cudnn_bench.py --seconds 10
gscase cudnn-bench 110 "${common[@]}" --timeout sanitizer=60 --timeout blocking=40 --timeout regression=40 \
  --sanitizer-command "python3 examples/cudnn_bench.py --seconds 3 --min-changes 2 --batch 8" \
  -- python3 examples/cudnn_bench.py --seconds 10
# buggy jobs: the true line
gscase triton-stride 90 "${common[@]}" --timeout sanitizer=60 --timeout blocking=30 --timeout regression=30 \
  --sanitizer-command "python3 examples/triton_stride.py --bug stride --steps 8" \
  -- python3 examples/triton_stride.py --bug stride
gscase ddp-scatter 110 "${common[@]}" --timeout sanitizer=60 --timeout blocking=40 --timeout regression=40 \
  --sanitizer-command "$TRS --standalone --nproc_per_node=1 examples/ddp_train.py --bug scatter --steps 8" \
  -- "${TR[@]}" --standalone --nproc_per_node=1 examples/ddp_train.py --bug scatter
# a bug the short sanitizer reproduction never reaches (step 300 of 400): the blocking run beside it is cut when
# the sanitizer run ends clean, the regression run fails, and the blocking run runs again in full for the line
gscase ddp-late 240 "${common[@]}" --timeout sanitizer=90 --timeout blocking=120 --timeout regression=120 \
  --sanitizer-command "$TRS --standalone --nproc_per_node=1 examples/ddp_train.py --bug scatter --bug-step 300 --steps 8" \
  -- "${TR[@]}" --standalone --nproc_per_node=1 examples/ddp_train.py --bug scatter --bug-step 300 --steps 400
# the same two shapes long enough (blocking ~165 it/s, ~31 s of sanitizer run) that the blocking run is still going
# when the short sanitizer run ends: a clean torchrun job whose blocking run is cut (torchrun's SignalException on
# the cut must not read as a failure), and a bug at step 5000 found by the regression run, then located by the
# blocking run run again in full
gscase ddp-long-clean 200 "${common[@]}" --timeout sanitizer=90 --timeout blocking=150 --timeout regression=150 \
  --sanitizer-command "$TRS --standalone --nproc_per_node=1 examples/ddp_train.py --bug none --steps 8" \
  -- "${TR[@]}" --standalone --nproc_per_node=1 examples/ddp_train.py --bug none --steps 6000 --log-every 100
gscase ddp-late-long 260 "${common[@]}" --timeout sanitizer=90 --timeout blocking=150 --timeout regression=150 \
  --sanitizer-command "$TRS --standalone --nproc_per_node=1 examples/ddp_train.py --bug scatter --bug-step 5000 --steps 8" \
  -- "${TR[@]}" --standalone --nproc_per_node=1 examples/ddp_train.py --bug scatter --bug-step 5000 --steps 6000 --log-every 100
gscase hang-driver 40 "${common[@]}" --phases blocking --timeout blocking=20 \
  -- python3 examples/hang_after_error.py --print-driver
gscase compile-oob 150 "${common[@]}" --timeout sanitizer=70 --timeout blocking=40 --timeout regression=40 \
  --sanitizer-command "python3 examples/compile_job.py --bug oob --steps 8" \
  -- python3 examples/compile_job.py --bug oob
gscase racecheck 90 "${common[@]}" --tool racecheck --phases sanitizer --timeout sanitizer=80 \
  --sanitizer-command "python3 examples/racecheck_job.py --bug nosync --steps 3" \
  -- python3 examples/racecheck_job.py --bug nosync
echo "done at +$(now)s" | tee -a "$out/summary.txt"
finish_record "$out"
