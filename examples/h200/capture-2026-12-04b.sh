#!/usr/bin/env bash
# Issue #25, 1-3 on the H200, with the CLI of this commit: the jobs the blind runs got wrong, written
# again as the project's own examples. One at a time (one GPU, nothing beside a case).
#   compile-ro         examples/compile_job.py --mode reduce-overhead: the gate (issue: ERROR "the job died")
#   compile-ro-tool    the same job under compute-sanitizer alone, uncached as the gate runs it
#   compile-def-tool   --mode default under compute-sanitizer alone, uncached: runs clean
#   dataset-cache      examples/dataset_cache_job.py: a clean job filling a GPU cache, then flat (issue: "piles up")
#   initcheck-tf       examples/transformer_job.py under --tool initcheck (issue: never ends)
# and, to check the fixes changed no verdict of a job already right (run with the fixed CLI: "after"):
#   dataset-cache-probe  the dataset-cache job with --probe-memory (allocation sites on: the false claim's case)
#   far                examples/lstm_job.py --bug far (FAIL at lstm_job.py:43, memcheck prints past its limit)
#   triton-stride      examples/triton_stride.py --bug stride (FAIL at the Triton kernel's line)
#   ddp-clean          torchrun DDP clean job, DataLoader workers (PASS)
#   cudagraph          examples/cudagraph_job.py, a whole-step CUDA graph (PASS; the uncached capture breaks, rerun cached)
# Usage (repository root, on the GPU machine, .device/ carried): bash examples/h200/capture-2026-12-04b.sh OUTDIR [CASE...]
# The output is pruned by examples/h200/lib.sh; with $OUT set, zipped to $OUT/NAME.zip.xz (NAME: OUTDIR's own name).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
out=${1:?usage: capture-2026-12-04b.sh OUTDIR [CASE...]}
shift
cases=" ${*:-compile-ro compile-ro-tool compile-def-tool dataset-cache initcheck-tf} "
if command -v torchrun >/dev/null 2>&1; then TR=(torchrun); else TR=(python3 -m torch.distributed.run); fi
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
want() { case "$cases" in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
mkdir -p "$out/raw"
JAVA=${JAVA:-.device/jre/bin/java}
JAR=${JAR:-.device/gpu-sanitize.jar}
DEADLINE=${DEADLINE:-540}
T0=$(date +%s)
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=2
now() { echo $(( $(date +%s) - T0 )); }
left() { local l=$(( DEADLINE - $(now) )); [ "$l" -lt 15 ] && l=15; [ -n "${1:-}" ] && [ "$1" -lt "$l" ] && l=$1; echo "$l"; }
{ date -u; nproc; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; compute-sanitizer --version | tail -1;
  python3 -c 'import torch, triton, sys; print(sys.version.split()[0], torch.__version__, torch.version.cuda, triton.__version__)'; } > "$out/machine.txt" 2>&1
common=(--print-limit 200 --progress-interval 15 --throughput-regex 'it/s ([0-9.]+)')
gscase() {
  local name=$1 limit=$2; shift 2
  want "$name" || return 0
  if [ "$(now)" -ge $(( DEADLINE - 20 )) ]; then echo "$name skipped: deadline" >> "$out/summary.txt"; return; fi
  local start; start=$(now)
  timeout -k 10 "$(left "$limit")" "$JAVA" -XX:+UseSerialGC -Xmx512m -jar "$JAR" run --out "$out/$name" "$@" > "$out/$name.console.txt" 2>&1
  echo "$name exit=$? seconds=$(( $(now) - start ))" | tee -a "$out/summary.txt"
}
tool() {
  local name=$1 limit=$2; shift 2
  want "$name" || return 0
  local start; start=$(now)
  mkdir -p "$out/$name"
  PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout -k 10 "$(left "$limit")" compute-sanitizer --tool memcheck --padding 4096 \
    --print-limit 200 --log-file "$out/$name/sanitizer.log" "$@" > "$out/$name/stdout.log" 2> "$out/$name/stderr.log"
  echo "$name exit=$? seconds=$(( $(now) - start ))" | tee -a "$out/summary.txt"
}
gscase dataset-cache 200 "${common[@]}" --timeout sanitizer=90 --timeout blocking=90 --timeout regression=90 \
  --sanitizer-command "python3 examples/dataset_cache_job.py --cache-mib 64 --fill-seconds 1 --train-seconds 3" \
  -- python3 examples/dataset_cache_job.py
gscase compile-ro 200 "${common[@]}" --timeout sanitizer=150 --timeout blocking=60 --timeout regression=60 \
  -- python3 examples/compile_job.py --mode reduce-overhead --steps 30
tool compile-def-tool 120 python3 examples/compile_job.py --mode default --steps 30
gscase initcheck-tf 150 --print-limit 200 --progress-interval 15 --tool initcheck --phases sanitizer --timeout sanitizer=120 \
  -- python3 examples/transformer_job.py --steps 6
tool compile-ro-tool 120 python3 examples/compile_job.py --mode reduce-overhead --steps 30
gscase dataset-cache-probe 200 "${common[@]}" --probe-memory --timeout sanitizer=90 --timeout blocking=90 --timeout regression=90 \
  --sanitizer-command "python3 examples/dataset_cache_job.py --cache-mib 64 --fill-seconds 1 --train-seconds 3" \
  -- python3 examples/dataset_cache_job.py
gscase far 150 "${common[@]}" --timeout sanitizer=120 --timeout blocking=60 --timeout regression=60 \
  --sanitizer-command "python3 examples/lstm_job.py --bug far --steps 8 --batch 1" \
  -- python3 examples/lstm_job.py --bug far --steps 40
gscase triton-stride 90 "${common[@]}" --timeout sanitizer=60 --timeout blocking=30 --timeout regression=30 \
  --sanitizer-command "python3 examples/triton_stride.py --bug stride --steps 8" \
  -- python3 examples/triton_stride.py --bug stride
gscase ddp-clean 150 "${common[@]}" --timeout sanitizer=120 --timeout blocking=60 --timeout regression=60 \
  -- "${TR[@]}" --standalone --nproc_per_node=1 examples/ddp_train.py --bug none
gscase cudagraph 120 "${common[@]}" --timeout sanitizer=60 --timeout blocking=40 --timeout regression=40 \
  -- python3 examples/cudagraph_job.py
finish_record "$out"
