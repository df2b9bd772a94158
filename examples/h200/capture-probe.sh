#!/usr/bin/env bash
# The in-process probe on a real GPU (issue #14): runs `gpu-sanitize run` on the jobs of examples/probe/
# and measures the probe's cost on a clean job (3 alternating pairs with and without it).
# The blocking-phase cases (embedding, label, scatter-torchrun) run as they always did (the regression
# phase without the memory probe, its default); leak, oom and the clean-probe-N runs add --probe-memory,
# the regression-phase probe that broke optimizer jobs on torch 2.11 before it stopped importing
# torch._inductor from its snapshots. clean-probe-N (blocking probe + memory probe) against
# clean-noprobe-N (--no-probe), both timing 10 s of steps per phase: overhead.txt has both phases.
# Usage (from the repository root, on the GPU machine, .device/ carried; about 6 minutes, 470 s at most):
#   bash examples/h200/capture-probe.sh OUTDIR
# JAVA and JAR default to the jlink runtime and the shaded jar in .device/ (src/test/resources/records/h200-2026-12-02.md).
# The output is pruned by examples/h200/lib.sh; with $OUT set (the device tool), it is zipped there as
# NAME.zip.xz (NAME: OUTDIR's own name; the OOM pickles, bounded to 4 MiB each here, included).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
out=${1:?usage: capture-probe.sh OUTDIR}
JAVA=${JAVA:-.device/jre/bin/java}
JAR=${JAR:-.device/gpu-sanitize.jar}
PYTHON=${PYTHON:-python3}
BUDGET=${BUDGET:-470}
mkdir -p "$out"
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }
gs() { "$JAVA" -jar "$JAR" "$@"; }
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  "$PYTHON" -c 'import torch, sys; print(sys.version.split()[0], torch.__version__, torch.version.cuda, torch.cuda.device_count())'
  "$JAVA" -version
  git log -1 --format='%H %s' 2>/dev/null
} > "$out/machine.txt" 2>&1

# case_run NAME NEEDED_SECONDS gpu-sanitize-run-options... -- command...
# Skipped when the budget has not the seconds it usually needs; each phase's timeout (enforced by the
# runner, which kills the job's whole tree) is cut to what is left, so the script never runs past BUDGET.
case_run() {
  local name=$1 need=$2
  shift 2
  local left=$(( BUDGET - $(elapsed) ))
  local per=$(( (left - 15) / 2 ))
  [ "$per" -gt 60 ] && per=60
  if [ "$need" -gt "$left" ] || [ "$per" -lt 10 ]; then
    echo "$name skipped: $(elapsed) s spent, needs about $need s of $BUDGET" | tee -a "$out/summary.txt"
    return 1
  fi
  local start
  start=$(date +%s)
  gs run --out "$out/$name" --progress-interval 15 --timeout "blocking=$per" --timeout "regression=$per" "$@" \
    > "$out/$name.console.txt" 2>&1
  echo "$name exit=$? seconds=$(( $(date +%s) - start ))" | tee -a "$out/summary.txt"
}

case_run embedding 40 --phases blocking,regression -- python3 examples/probe/embedding_oov.py
case_run label 40 --phases blocking,regression -- python3 examples/probe/label_oob.py
case_run scatter-torchrun 60 --phases blocking,regression \
  -- python3 -m torch.distributed.run --standalone --nproc_per_node=2 examples/probe/scatter_ddp.py
case_run leak 40 --probe-memory --phases regression --regression-seconds 20 -- python3 examples/probe/logits_leak.py
case_run oom 50 --probe-memory --phases regression --regression-seconds 50 --env GPU_SANITIZE_PROBE_SNAPSHOT_MAX_MB=4 \
  -- python3 examples/probe/cache_oom.py
for i in 1 2 3; do  # alternating, a pair at a time
  case_run "clean-probe-$i" 45 --probe-memory --phases blocking,regression --throughput-regex 'it/s ([0-9.]+)' \
    -- python3 examples/probe/clean_job.py --seconds 10 || break
  case_run "clean-noprobe-$i" 45 --no-probe --phases blocking,regression --throughput-regex 'it/s ([0-9.]+)' \
    -- python3 examples/probe/clean_job.py --seconds 10 || break
done
"$PYTHON" examples/h200/probe-overhead.py "$out" > "$out/overhead.txt" 2>&1
# the failure the memory probe used to cause (torch 2.11: ImportError, partially initialized torch._inductor.utils)
broken=$(grep -l -e 'partially initialized' -e 'circular import' "$out"/*/regression/stderr.log 2>/dev/null)
echo "regression import failures: ${broken:-none}" | tee -a "$out/summary.txt"
echo "total seconds=$(elapsed)" | tee -a "$out/summary.txt"

finish_record "$out"   # the OOM's allocator snapshot (*.pickle, bounded) stays: the record cites it
[ -n "${OUT:-}" ] && [ -d "${OUT:-}" ] && ls -l "$OUT"
cat "$out/summary.txt" "$out/overhead.txt"
