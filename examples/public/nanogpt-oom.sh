#!/usr/bin/env bash
# Issue #48 item 1: why karpathy/nanoGPT runs out of GPU memory under compute-sanitizer and not on its own.
# From the repository root on the GPU machine, with nanoGPT's sources carried at .ext/nanogpt (fetched from
# github:karpathy/nanoGPT, never committed) and, for `gate`, .device/ (jlink runtime + shaded jar):
#   bash examples/public/nanogpt-oom.sh [trace|bisect|hold|gate] [EXTRA nanoGPT ARGS...]
# trace: the job alone and under `compute-sanitizer --tool memcheck`, each through examples/public/mem_trace.py
#   (MEM lines per optimizer step; live blocks grouped by allocating stack at MEM_TRACE_SNAP steps and at an OOM).
# bisect: 6 steps alone and under memcheck with one thing changed at a time (dropout 0, fp32, no caching allocator,
#   no pinned batches, memcheck's padding/leak/API checks off, CUDA_LAUNCH_BLOCKING=1, initcheck), the MEM lines of
#   steps 1, 3, 6 each; then MEM_TRACE_GC=1 (live CUDA tensors Python reaches, and whether gc.collect() frees any).
# hold: examples/public/hold_probe.py's variants (what in a training step holds memory under the tool), alone and under
#   memcheck, then nanoGPT's live tensors and who refers to them (MEM_TRACE_GC=1).
# gate: `gpu-sanitize run` on the issue's command (GATE_ARGS to change it), report.json's verdict and reasons.
# Logs and the gate's run directory (without its workspace copies) go to $OUT.
set -u
part=${1:-trace}; shift || true
repo=$(pwd)
OUT=${OUT:-/tmp/nanogpt-out}; mkdir -p "$OUT"
ng=/tmp/nanogpt
rm -rf "$ng"; cp -r "$repo/.ext/nanogpt" "$ng"
export PYTHONUNBUFFERED=1
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  compute-sanitizer --version | tail -1
  python3 -c 'import torch, sys; print(sys.version.split()[0], torch.__version__, torch.version.cuda, torch.backends.cudnn.version())'
} > "$OUT/machine.txt" 2>&1
python3 "$repo/examples/public/nanogpt-data.py" "$ng" >> "$OUT/machine.txt" 2>&1
ARGS=(config/train_shakespeare_char.py --compile=False "$@")
case "$part" in
  trace)
    cd "$ng" || exit 1
    ITERS=${ITERS:-10}
    timeout 120 python3 "$repo/examples/public/mem_trace.py" train.py "${ARGS[@]}" --max_iters=$ITERS \
      --eval_interval=1000 --eval_iters=2 > "$OUT/plain.txt" 2>&1
    echo "plain rc=$?" >> "$OUT/plain.txt"
    MEM_TRACE_SNAP=${SNAP:-"2 5"} MEM_TRACE_STACKS=${STACKS:-python} timeout ${SAN_TIMEOUT:-300} \
      compute-sanitizer --tool memcheck --print-limit 20 ${SAN_OPTS:-} python3 "$repo/examples/public/mem_trace.py" train.py \
      "${ARGS[@]}" --max_iters=$ITERS --eval_interval=1000 --eval_iters=2 > "$OUT/memcheck.txt" 2>&1
    echo "memcheck rc=$?" >> "$OUT/memcheck.txt"
    ;;
  bisect)
    cd "$ng" || exit 1
    MT="$repo/examples/public/mem_trace.py"
    A="${ARGS[*]} --max_iters=6 --eval_interval=1000 --eval_iters=2"
    CS="compute-sanitizer --tool memcheck --print-limit 5"
    one() { local tag=$1; shift; echo "== $tag"; timeout 120 "$@" 2>&1 | grep -E '^MEM step (1|3|6) |OOM|ERROR SUMMARY' | head -5; }
    {
      # shellcheck disable=SC2086
      one plain-with-history env MEM_TRACE_SNAP=99 python3 "$MT" train.py $A
      one memcheck $CS python3 "$MT" train.py $A
      one memcheck-dropout0 $CS python3 "$MT" train.py $A --dropout=0.0
      one memcheck-fp32 $CS python3 "$MT" train.py $A --dtype=float32
      one memcheck-no-caching env PYTORCH_NO_CUDA_MEMORY_CACHING=1 $CS python3 "$MT" train.py $A
      one memcheck-no-pinning $CS python3 -c "import sys, runpy, torch; torch.Tensor.pin_memory = lambda self, *a, **k: self; sys.argv = sys.argv[1:]; runpy.run_path('$MT', run_name='__main__')" "$MT" train.py $A
      one memcheck-checks-off $CS --check-api-memory-access no --leak-check no --padding 0 python3 "$MT" train.py $A
      one memcheck-launch-blocking env CUDA_LAUNCH_BLOCKING=1 $CS python3 "$MT" train.py $A
      echo "== gc"; MEM_TRACE_GC=1 timeout 150 $CS python3 "$MT" train.py ${A/--max_iters=6/--max_iters=4} 2>&1 | grep -E '^(GC|HELD) step'
    } > "$OUT/bisect.txt" 2>&1
    ;;
  hold)
    # which part of a training step keeps memory alive under the tool: examples/public/hold_probe.py's variants alone
    # and under memcheck (HOLD lines), then nanoGPT's own live tensors and their referrers (GC/HELD lines)
    cd "$ng" || exit 1
    CS="compute-sanitizer --tool memcheck --print-limit 5"
    {
      for v in ${VARIANTS:-full fp32 nograd noopt nosdpa detach}; do
        echo "== $v alone"; timeout 60 python3 "$repo/examples/public/hold_probe.py" "$v" 4 2>&1 | grep -E "^(HOLD|WHO)|Error" | head -10
        echo "== $v memcheck"; timeout 120 $CS python3 "$repo/examples/public/hold_probe.py" "$v" 4 2>&1 \
          | grep -E "^(HOLD|WHO)|Error|ERROR SUMMARY" | head -10
      done
      echo "== nograd memcheck --frames (who keeps the frames: executing or referred to)"
      timeout 60 $CS python3 "$repo/examples/public/hold_probe.py" nograd 3 --frames 2>&1 | grep -E "^(HOLD|FRAMES)|Error" | head -12
      echo "== nanogpt gc"
      MEM_TRACE_GC=1 timeout 150 $CS python3 "$repo/examples/public/mem_trace.py" train.py "${ARGS[@]}" --max_iters=3 \
        --eval_interval=1000 --eval_iters=2 2>&1 | grep -E '^(GC|HELD|MEM) step' | head -40
    } > "$OUT/hold.txt" 2>&1
    ;;
  gate)
    cd "$ng" || exit 1
    # shellcheck disable=SC2086
    timeout ${GATE_TIMEOUT:-560} "$repo/.device/jre/bin/java" -jar "$repo/.device/gpu-sanitize.jar" run --out /tmp/nanogpt-gate \
      -- python3 train.py "${ARGS[@]}" ${GATE_ARGS:---max_iters=40 --eval_interval=20 --eval_iters=5} > "$OUT/gate.txt" 2>&1
    echo "gate rc=$?" >> "$OUT/gate.txt"
    find /tmp/nanogpt-gate -type d -name workspaces -prune -exec rm -rf {} +
    tar -C /tmp -czf "$OUT/nanogpt-gate.tgz" nanogpt-gate
    ;;
esac
