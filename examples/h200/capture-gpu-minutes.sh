#!/usr/bin/env bash
# GPU time per merge (issue #15, part 2): what the gate costs on one GPU against the job's own run, with the
# blocking run beside the sanitizer run (the default) and after it (--no-overlap), alternating, and whether
# both give the same findings. From the repository root, on the GPU machine, .device/ carried (jlink runtime
# and shaded jar, as src/test/resources/records/h200-2026-12-02.md says); about 7 minutes, DEADLINE seconds at most:
#   bash examples/h200/capture-gpu-minutes.sh OUTDIR [CASE...]
# Writes OUTDIR/CASE-{beside,after}/ (run directories), plain-times.txt, summary.txt and gpu-minutes.txt
# (examples/h200/gpu-minutes.py), pruned by examples/h200/lib.sh; with $OUT set, zipped to $OUT/NAME.zip.xz (NAME:
# OUTDIR's own name), ready for src/test/resources/records/.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
out=${1:?usage: capture-gpu-minutes.sh OUTDIR [CASE...]}
shift
cases=" ${*:-ddp-clean triton-stride ddp-scatter} "
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
{ date -u; nproc; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; compute-sanitizer --version | tail -1;
  "$JAVA" -version; git log -1 --format='%H %s' 2>/dev/null; } > "$out/machine.txt" 2>&1
common=(--print-limit 200 --progress-interval 15 --throughput-regex 'it/s ([0-9.]+)')
# gs NAME VARIANT LIMIT options...: one gate run; its wall time, start to report, in summary.txt
gs() {
  local name=$1 variant=$2 limit=$3; shift 3
  if [ "$(now)" -ge $(( DEADLINE - 30 )) ]; then echo "$name-$variant skipped: deadline" >> "$out/summary.txt"; return; fi
  local extra=()
  [ "$variant" = after ] && extra=(--no-overlap)
  local a b; a=$(date +%s.%N)
  timeout -k 10 "$(left "$limit")" "$JAVA" -XX:+UseSerialGC -Xmx512m -jar "$JAR" run --out "$out/$name-$variant" \
    "${extra[@]}" "$@" > "$out/$name-$variant.console.txt" 2>&1
  local rc=$?; b=$(date +%s.%N)
  echo "$name-$variant exit=$rc seconds=$(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.2f", b-a}')" | tee -a "$out/summary.txt"
}
plain() {
  local name=$1; shift
  local a b; a=$(date +%s.%N)
  timeout -k 5 "$(left 90)" "$@" > "$out/raw/plain-$name.log" 2>&1
  local rc=$?; b=$(date +%s.%N)
  echo "$name seconds=$(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.2f", b-a}') exit=$rc" | tee -a "$out/plain-times.txt"
}
# pair NAME INDEX LIMIT options...: both variants, the first one alternating with the case's index
pair() {
  local name=$1 index=$2 limit=$3; shift 3
  if [ $((index % 2)) = 0 ]; then gs "$name" beside "$limit" "$@"; gs "$name" after "$limit" "$@"
  else gs "$name" after "$limit" "$@"; gs "$name" beside "$limit" "$@"; fi
}
if want ddp-clean; then
  plain ddp-clean "${TR[@]}" --standalone --nproc_per_node=1 examples/ddp_train.py --bug none
  pair ddp-clean 0 150 "${common[@]}" --timeout sanitizer=120 --timeout blocking=60 --timeout regression=60 \
    -- "${TR[@]}" --standalone --nproc_per_node=1 examples/ddp_train.py --bug none
fi
if want triton-stride; then
  plain triton-stride python3 examples/triton_stride.py --bug stride
  pair triton-stride 1 90 "${common[@]}" --timeout sanitizer=60 --timeout blocking=30 --timeout regression=30 \
    --sanitizer-command "python3 examples/triton_stride.py --bug stride --steps 8" \
    -- python3 examples/triton_stride.py --bug stride
fi
if want ddp-scatter; then
  plain ddp-scatter "${TR[@]}" --standalone --nproc_per_node=1 examples/ddp_train.py --bug scatter
  pair ddp-scatter 2 110 "${common[@]}" --timeout sanitizer=60 --timeout blocking=40 --timeout regression=40 \
    --sanitizer-command "$TRS --standalone --nproc_per_node=1 examples/ddp_train.py --bug scatter --steps 8" \
    -- "${TR[@]}" --standalone --nproc_per_node=1 examples/ddp_train.py --bug scatter
fi
echo "done at +$(now)s" | tee -a "$out/summary.txt"
python3 examples/h200/gpu-minutes.py "$out" > "$out/gpu-minutes.txt" 2>&1
cat "$out/gpu-minutes.txt"
finish_record "$out"
