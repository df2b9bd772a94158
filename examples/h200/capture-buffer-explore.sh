#!/usr/bin/env bash
# Issue #42, exploration on the card (no Java needed): which allocation record works with the caching allocator
# off, what it costs, and the raw memcheck output (text and --xml --save) of the out-of-bounds example jobs with
# the probe's allocation record on, to check that the addresses memcheck names are the ones the probe wrote.
#   bash examples/h200/capture-buffer-explore.sh        (from the repository root; $OUT receives the archive)
# Writes $OUT/gpu-buffer-explore.zip.xz: history.txt (a), cost.txt (b), CASE/{memcheck.log,memcheck.xml,
# probe.jsonl,alloc-PID.jsonl,stdout,stderr,rc} (c), machine.txt (which card). DEADLINE (default 330 s) skips
# what would not fit; HISTORY=0 skips (a); MICRO_ROUNDS, CLEAN_ROUNDS (default 2) set (b)'s rounds.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
probe=$PWD/src/main/resources/io/jenkins/plugins/gpusanitizer/engine/run/probe
work=/tmp/h200-buffer-explore
rm -rf "$work"; mkdir -p "$work"
T0=$(date +%s); DEADLINE=${DEADLINE:-330}
left() { echo $(( DEADLINE - ($(date +%s) - T0) )); }
export PYTHONUNBUFFERED=1 CUDA_VISIBLE_DEVICES=0 TORCH_EXTENSIONS_DIR=/tmp/h200-buffer-ext CUPY_CUDA_COMPILE_WITH_DEBUG=1
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; compute-sanitizer --version | tail -1;
  python3 -c 'import torch, sys; print(sys.version.split()[0], torch.__version__, torch.version.cuda)';
  python3 -c 'import cupy; print("cupy", cupy.__version__)'; python3 -c 'import triton; print("triton", triton.__version__)';
  command -v ninja nvcc; } > "$work/machine.txt" 2>&1
# the extension's build, beside (a) and the first cases: CPU only
(timeout 200 python3 examples/buffer/inline_ext_job.py --build-only > "$work/ext-build.txt" 2>&1; echo "rc=$?" >> "$work/ext-build.txt") &
build=$!
# (a) the allocator's history with and without caching; the GPU trace callback
if [ "${HISTORY:-1}" = 1 ]; then
  { PYTORCH_NO_CUDA_MEMORY_CACHING=1 python3 examples/buffer/history_check.py; python3 examples/buffer/history_check.py; } > "$work/history.txt" 2>&1
fi
# (b) the record's cost per allocation, no sanitizer, alternating
withprobe() { env PYTHONPATH="$probe" GPU_SANITIZE_PROBE_OUT="$1" GPU_SANITIZE_PROBE_MODE=sanitizer PYTORCH_NO_CUDA_MEMORY_CACHING=1 "${@:2}"; }
for r in $(seq 1 "${MICRO_ROUNDS:-2}"); do
  for a in 1 0; do
    mkdir -p "$work/cost-$a-$r"
    echo "alloc_cost ALLOCS=$a round $r: $(GPU_SANITIZE_PROBE_ALLOCS=$a withprobe "$work/cost-$a-$r/probe.jsonl" python3 examples/buffer/alloc_cost.py 3000 2>&1 | tail -1)" >> "$work/cost.txt"
  done
done
# (c) the bug jobs under memcheck, the record on
case_run() {
  local name=$1 limit=$2; shift 2
  if [ "$(left)" -lt "$limit" ]; then echo "$name skipped: $(left) s left" >> "$work/skipped.txt"; return; fi
  mkdir -p "$work/$name"
  local a; a=$(date +%s.%N)
  withprobe "$work/$name/probe.jsonl" timeout -k 5 "$limit" compute-sanitizer --tool memcheck --xml --save "$work/$name/memcheck.xml" \
    --log-file "$work/$name/memcheck.log" --print-limit 200 --error-exitcode 86 --strip-paths no --padding 4096 "$@" > "$work/$name/stdout" 2> "$work/$name/stderr"
  echo "rc=$? wall=$(awk -v a="$a" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}') cmd=$*" > "$work/$name/rc"
}
case_run far 45 python3 examples/lstm_job.py --bug far --steps 8 --batch 1
case_run cupy-oob 45 python3 examples/cupy_pkg/train.py --bug oob --steps 8
case_run triton-stride 45 python3 examples/triton_stride.py --bug stride --steps 8
case_run scatter 45 python3 examples/buffer/scatter_add_job.py --bug off-by-one --steps 8
wait "$build"
case_run inline-ext 45 python3 examples/buffer/inline_ext_job.py --bug past-end --steps 8
# (b) a clean job under memcheck, the record on and off, alternating (the sanitizer phase is where it runs)
for r in $(seq 1 "${CLEAN_ROUNDS:-2}"); do
  for a in 1 0; do
    if [ "$(left)" -lt 40 ]; then echo "clean $a $r skipped" >> "$work/skipped.txt"; continue; fi
    b0=$(date +%s.%N)
    c=$work/clean-$a-$r; mkdir -p "$c"
    GPU_SANITIZE_PROBE_ALLOCS=$a withprobe "$c/probe.jsonl" timeout 40 compute-sanitizer --tool memcheck --padding 4096 --log-file "$c/memcheck.log" \
      python3 examples/lstm_job.py --steps 40 > "$c/stdout" 2>&1
    echo "lstm_job clean under memcheck ALLOCS=$a round $r: rc=$? wall=$(awk -v a="$b0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}') s" >> "$work/cost.txt"
  done
done
rm -rf "$work"/*/__pycache__
if [ -n "${OUT:-}" ] && [ -d "${OUT:-}" ]; then
  zip_record "$work" "$OUT/gpu-buffer-explore.zip.xz"
  cp "$work/cost.txt" "$work/history.txt" "$OUT/" 2>/dev/null
fi
cat "$work/history.txt" "$work/cost.txt" "$work"/*/rc "$work/skipped.txt" 2>/dev/null
for d in "$work"/*/; do [ -f "$d/probe.jsonl" ] || continue; echo "== $d"; grep -h 'alloc-summary\|probe-error' "$d/probe.jsonl"; grep -ch '"alloc"' "$d"/alloc-*.jsonl; grep -h alloc-shape "$d"/alloc-*.jsonl | head -3; done
for f in "$work"/*/memcheck.log; do echo "== $f"; grep -m2 'nearest allocation' "$f"; grep 'ERROR SUMMARY' "$f"; done
