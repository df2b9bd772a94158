#!/usr/bin/env bash
# Runs `gpu-sanitize run` on every example job on a real GPU and collects the run directories.
# Usage (from the repository root, on the GPU machine):
#   bash examples/h200/run-examples.sh OUTDIR [CASE...]
# JAVA and JAR default to the jlink runtime and shaded jar carried in .device/ (see
# src/test/resources/records/h200-2026-12-02.md);
# cases default to: far near near-cached index triton clean leak initcheck. The output is pruned by
# examples/h200/lib.sh; with $OUT set, zipped to $OUT/NAME.zip.xz (NAME: OUTDIR's own name).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
out=${1:?usage: run-examples.sh OUTDIR [CASE...]}
shift
cases=${*:-far near near-cached index triton clean leak initcheck}
JAVA=${JAVA:-.device/jre/bin/java}
JAR=${JAR:-.device/gpu-sanitize.jar}
mkdir -p "$out"
gs() { "$JAVA" -jar "$JAR" "$@"; }
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  python3 -c 'import torch, cupy, triton, sys; print(sys.version.split()[0], torch.__version__, torch.version.cuda, cupy.__version__, triton.__version__)'
  compute-sanitizer --version | tail -1
  command -v setsid
} > "$out/machine.txt" 2>&1
common=(--print-limit 200 --timeout sanitizer=150 --timeout blocking=120 --timeout regression=120 --progress-interval 15)
for c in $cases; do
  start=$(date +%s)
  case $c in
    far|near|index|none|clean)
      bug=$c; [ "$c" = clean ] && bug=none
      gs run --out "$out/$c" "${common[@]}" --throughput-regex 'it/s ([0-9.]+)' \
        --sanitizer-command "python3 examples/lstm_job.py --bug $bug --steps 8 --batch 1" \
        -- python3 examples/lstm_job.py --bug "$bug" --steps 40 ;;
    near-cached)
      # the trap: PyTorch's caching allocator hides the small overrun from memcheck
      gs run --out "$out/$c" "${common[@]}" --phases sanitizer --keep-caching-allocator \
        -- python3 examples/lstm_job.py --bug near --steps 8 --batch 1 ;;
    leak)
      gs run --out "$out/$c" "${common[@]}" --phases regression --regression-seconds 20 \
        -- python3 examples/lstm_job.py --bug leak --steps 400 ;;
    triton)
      gs run --out "$out/$c" "${common[@]}" --sanitizer-command "python3 examples/triton_job.py --steps 3" \
        -- python3 examples/triton_job.py --steps 20 ;;
    initcheck)
      gs run --out "$out/$c" --timeout sanitizer=240 --tool initcheck --phases sanitizer --print-limit 200 \
        -- python3 examples/lstm_job.py --bug none --steps 4 --batch 1 ;;
  esac > "$out/$c.console.txt" 2>&1
  echo "$c exit=$? seconds=$(( $(date +%s) - start ))" | tee -a "$out/summary.txt"
done
finish_record "$out"
