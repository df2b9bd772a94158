#!/usr/bin/env bash
# Issue #49, the measurement before the choice: what memcheck costs against the job's own plain run, and what each way
# of checking fewer launches costs and covers, on public training programs of other projects. On the GPU machine,
# from the repository root, with .ext/ carried (fetched for reading, never committed: .ext/wlm from pytorch/examples
# word_language_model, .ext/nanogpt from karpathy/nanoGPT, .ext/ddp from pytorch/examples
# distributed/ddp-tutorial-series, .ext/dcgan from pytorch/examples dcgan (main.py, run on FakeData), .ext/timm from huggingface/pytorch-image-models: benchmark.py and its timm package):
#   PROGRAMS="wlm-lstm wlm-transformer nanogpt nanogpt-compile ddp dcgan timm-vit" bash bench/coverage/measure.sh OUTDIR
# VARIANTS="floor count late pair cold full" (the default; add dump to try --dump-kernel-launches) picks the sanitizer variants after plain and census.
# For each program, one after the other on the one card, each in a fresh copy of the program's folder:
#   plain        the command as it is
#   census       the same with the probe's gpu_sanitize_census.c built and injected (CUDA_INJECTION64_PATH): the distinct kernels,
#                their launches and the index of each one's first launch (census-PID.jsonl)
#   floor, floor-cache  memcheck attached with a kernel filter that matches nothing: the tool's own cost, without and
#                with PyTorch's caching allocator
#   count-N      compute-sanitizer --tool memcheck --launch-count N (PYTORCH_NO_CUDA_MEMORY_CACHING=1, as the gate
#                runs it): the first N launches checked, the rest run unchecked
#   late-N       memcheck on every launch of every kernel except those the census saw first launched before N/2
#                (--kernel-name-exclude kne=NAME each): the kernels a window of N would miss, and any the census never saw
#   pair-N       count-N and late-N side by side on the one card (bench/coverage/pair.sh), as a gate would run them:
#                the cost of checking each kernel at least once
#   cold         the same with --kernel-name-exclude for the kernels the census saw at least HOT times (their first
#                launches are what count-N checks): every other kernel checked in all its launches
#   dump-N       count-N with --dump-kernel-launches (DUMP=0 leaves it out): the tool's own list of every launch and
#                whether it was checked, where the release has the option
#   full         every launch checked; last, capped at FULL_LIMIT seconds (default LIMIT)
#   gate-full, gate-count-N   with GATE=1 and .device/ carried (jlink runtime and gpu-sanitize.jar): the whole gate,
#                as it is (GATE_FULL=0 leaves it out), and with --sanitizer-arg=--launch-count=N (the blocking and
#                regression runs beside it);
#                .device and .ext together pass the carry limit with .ext/timm: leave timm-vit to a call of its own
# Writes OUTDIR/results.tsv (program, variant, seconds, exit code, and for the census the distinct kernels, launches,
# hot kernels, kernels first launched after each N) and each run's log; with $OUT set, a tar.xz of it under $OUT.
set -u
out=${1:?usage: measure.sh OUTDIR}
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
mkdir -p "$out"
repo=$PWD
COUNTS=${COUNTS:-"300 3000"}
HOT=${HOT:-50}
LIMIT=${LIMIT:-300}
DEADLINE=${DEADLINE:-560}
T0=$(date +%s)
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=2
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
tsv=$out/results.tsv
printf 'program\tvariant\tseconds\texit\tnote\n' > "$tsv"
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; compute-sanitizer --version | tail -1
  python3 -c 'import torch, sys; print(sys.version.split()[0], torch.__version__, torch.version.cuda)'
  git -C "$repo" rev-parse --short HEAD 2>/dev/null; } > "$out/machine.txt" 2>&1

# The census library, built against the CUPTI that PyTorch's wheel brings (one libcupti in the process: the driver
# loads the injection after torch has loaded its own), else the toolkit's.
build_census() {
  local inc lib cuda_inc
  lib=$(python3 -c 'import nvidia.cuda_cupti as m, os; print(os.path.join(list(m.__path__)[0], "lib"))' 2>/dev/null)
  inc=$(python3 -c 'import nvidia.cuda_cupti as m, os; print(os.path.join(list(m.__path__)[0], "include"))' 2>/dev/null)
  [ -f "$inc/cupti.h" ] || inc=$(dirname "$(find / -name cupti.h -path '*include*' 2>/dev/null | head -1)")
  [ -n "$lib" ] && ls "$lib"/libcupti.so* > /dev/null 2>&1 || lib=$(dirname "$(find / -name 'libcupti.so*' 2>/dev/null | head -1)")
  cuda_inc=$(dirname "$(find / -name cuda.h -path '*include*' 2>/dev/null | head -1)")
  local so; so=$(ls "$lib"/libcupti.so* | head -1)
  echo "census: cupti.h in $inc, $so, cuda.h in $cuda_inc" >> "$out/machine.txt"
  gcc -shared -fPIC -O2 -I"$cuda_inc" -I"$inc" "$repo/src/main/resources/io/jenkins/plugins/gpusanitizer/engine/run/probe/gpu_sanitize_census.c" -o "$out/launch_census.so" \
      "$so" -Wl,-rpath,"$lib" -lpthread 2>> "$out/machine.txt"
}
build_census
CENSUS_SO=$out/launch_census.so

now() { echo $(( $(date +%s) - T0 )); }
# workspace NAME: a fresh copy of the program's folder
workspace() {
  local ws=/tmp/cov-ws
  rm -rf "$ws"; mkdir -p "$ws"
  case $1 in
    wlm*) cp -r "$repo/.ext/wlm/." "$ws/" ;;
    nanogpt*) cp -r "$repo/.ext/nanogpt/." "$ws/" && python3 "$repo/examples/public/nanogpt-data.py" "$ws" > /dev/null ;;
    ddp) cp -r "$repo/.ext/ddp/." "$ws/" ;;
    dcgan) cp -r "$repo/.ext/dcgan/." "$ws/" ;;
    timm*) cp -r "$repo/.ext/timm/." "$ws/" ;;
  esac
  echo "$ws"
}
# measure PROGRAM VARIANT -- command: one timed run in a fresh copy, its output in OUTDIR/PROGRAM/VARIANT.log
measure() {
  local p=$1 v=$2 limit=${LIM:-$LIMIT}; shift 3
  if [ $(( $(now) + limit )) -ge "$DEADLINE" ]; then printf '%s\t%s\t\t\tskipped: deadline\n' "$p" "$v" >> "$tsv"; return 1; fi
  local ws; ws=$(workspace "$p")
  mkdir -p "$out/$p"
  local a b rc; a=$(date +%s.%N)
  (cd "$ws" && timeout -k 10 "$limit" "$@" > "$out/$p/$v.log" 2>&1); rc=$?
  b=$(date +%s.%N)
  printf '%s\t%s\t%s\t%s\t%s\n' "$p" "$v" "$(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.1f", b-a}')" "$rc" "${NOTE:-}" >> "$tsv"
  return 0
}
SAN="compute-sanitizer --tool memcheck --print-limit 1000 --target-processes all"
# census_summary PROGRAM: distinct kernels, launches, hot kernels, kernels first launched at or after each N; writes
# OUTDIR/PROGRAM/hot.txt (the hot kernels' names, for --kernel-name-exclude)
census_summary() {
  python3 - "$out/$1" "$HOT" $COUNTS <<'PY'
import glob, json, os, sys
d, hot, counts = sys.argv[1], int(sys.argv[2]), [int(c) for c in sys.argv[3:]]
kernels = {}
for f in glob.glob(os.path.join(d, "census", "census-*.jsonl")):
    per = {}
    for line in open(f):
        r = json.loads(line)
        if r["type"] == "kernel":
            per.setdefault(r["domain"], []).append(r)
    if not per:
        continue
    dom = max(per, key=lambda k: sum(r["launches"] for r in per[k]))  # the domain that saw the launches
    for r in per[dom]:
        k = kernels.setdefault(r["name"], {"launches": 0, "first": r["first"]})
        k["launches"] += r["launches"]
        k["first"] = min(k["first"], r["first"])
named = {n: k for n, k in kernels.items() if n not in ("(graph)", "(unnamed)")}
hot_names = sorted(n for n, k in named.items() if k["launches"] >= hot)
open(os.path.join(d, "hot.txt"), "w").write("".join(n + "\n" for n in hot_names))
for c in counts:  # the kernels a window of c launches surely checks: first launched before c/2 (a margin for drift)
    early = sorted(n for n, k in named.items() if k["first"] < c // 2)
    open(os.path.join(d, "early-%d.txt" % c), "w").write("".join(n + "\n" for n in early))
    late = {n: k for n, k in named.items() if k["first"] >= c // 2}
    print("window %d: early %d kernels; late %d kernels, %d launches" % (
        c, len(early), len(late), sum(k["launches"] for k in late.values())), end="; ")
late = ", ".join("after %d: %d" % (c, sum(1 for k in kernels.values() if k["first"] >= c)) for c in counts)
print("distinct %d, launches %d, hot (>= %d) %d; first launched %s" % (
    len(kernels), sum(k["launches"] for k in kernels.values()), hot, len(hot_names), late))
PY
}
# has VARIANT: whether VARIANTS names it (dump: compute-sanitizer 2025.3.1 has no --dump-kernel-launches; name it to try)
has() { case " ${VARIANTS:-floor count late pair cold full} " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
run_program() {
  local p=$1; shift
  measure "$p" plain -- "$@" || return
  mkdir -p "$out/$p/census"
  GPU_SANITIZE_CENSUS_DIR=$out/$p/census CUDA_INJECTION64_PATH=$CENSUS_SO measure "$p" census -- "$@" || return
  local summary; summary=$(census_summary "$p" 2>&1)
  printf '%s\tcensus-summary\t\t\t%s\n' "$p" "$summary" >> "$tsv"
  # the tool's floor: memcheck attached, no kernel checked (a name filter no kernel matches), with PyTorch's caching
  # allocator off as the gate runs it (every tensor its own cudaMalloc) and on
  if has floor; then
    PYTORCH_NO_CUDA_MEMORY_CACHING=1 measure "$p" floor -- $SAN --kernel-name kne=gpu_sanitize_no_such_kernel \
        --log-file "$out/$p/floor.sanitizer.log" "$@" || return
    measure "$p" floor-cache -- $SAN --kernel-name kne=gpu_sanitize_no_such_kernel \
        --log-file "$out/$p/floor-cache.sanitizer.log" "$@" || return
  fi
  if has count; then
    for n in $COUNTS; do
      PYTORCH_NO_CUDA_MEMORY_CACHING=1 measure "$p" "count-$n" -- $SAN --launch-count "$n" \
          --log-file "$out/$p/count-$n.sanitizer.log" "$@" || return
    done
  fi
  for n in $COUNTS; do
    local early=()
    while IFS= read -r k; do [ -n "$k" ] && early+=(--kernel-name-exclude "kne=$k"); done < "$out/$p/early-$n.txt"
    # late-N: every launch of every kernel the window would not surely check (the census's late kernels and any the
    # census never saw); pair-N: the window and late-N side by side on the card, as a gate would run them
    if has late; then
      PYTORCH_NO_CUDA_MEMORY_CACHING=1 NOTE="${#early[@]} exclusion arguments" measure "$p" "late-$n" -- \
          $SAN "${early[@]}" --log-file "$out/$p/late-$n.sanitizer.log" "$@" || return
    fi
    if has pair; then
      PYTORCH_NO_CUDA_MEMORY_CACHING=1 NOTE="window $n beside late-$n" measure "$p" "pair-$n" -- \
          bash "$repo/bench/coverage/pair.sh" "$out/$p/pair-$n" "$n" "$out/$p/early-$n.txt" -- "$@" || return
    fi
  done
  if has cold; then
    local excl=()
    while IFS= read -r k; do [ -n "$k" ] && excl+=(--kernel-name-exclude "kns=$k"); done < "$out/$p/hot.txt"
    PYTORCH_NO_CUDA_MEMORY_CACHING=1 NOTE="${#excl[@]} exclusion arguments" measure "$p" cold -- $SAN "${excl[@]}" \
        --log-file "$out/$p/cold.sanitizer.log" "$@" || return
  fi
  if has dump; then
    # the tool's own census: every launch, checked or not, with its filter status (if this release has the option)
    local n1=${COUNTS%% *}
    PYTORCH_NO_CUDA_MEMORY_CACHING=1 measure "$p" "dump-$n1" -- $SAN --launch-count "$n1" --dump-kernel-launches \
        --log-file "$out/$p/dump-$n1.sanitizer.log" "$@" || return
  fi
  # every launch checked, last and capped at FULL_LIMIT (exit 124: longer than that; word_language_model's LSTM took
  # more than 300 s against 15 s plain on the H100, 2026-12-07)
  if has full; then
    PYTORCH_NO_CUDA_MEMORY_CACHING=1 LIM=${FULL_LIMIT:-$LIMIT} measure "$p" full -- $SAN \
        --log-file "$out/$p/full.sanitizer.log" "$@" || return
  fi
  [ "${GATE:-0}" = 1 ] || return 0
  local gate=("$repo/.device/jre/bin/java" -XX:+UseSerialGC -Xmx512m -jar "$repo/.device/gpu-sanitize.jar" run
      --no-gpu-lock --progress-interval 30)
  if [ "${GATE_FULL:-1}" = 1 ]; then
    NOTE="verdict in $p/gate-full/report.json" measure "$p" gate-full -- "${gate[@]}" --out "$out/$p/gate-full" -- "$@" \
        || return
  fi
  for n in $COUNTS; do
    NOTE="verdict in $p/gate-count-$n/report.json" measure "$p" "gate-count-$n" -- "${gate[@]}" \
        --out "$out/$p/gate-count-$n" --sanitizer-arg=--launch-count=$n -- "$@" || return
  done
  find "$out/$p" -type d -name workspaces -prune -exec rm -rf {} +
}
if command -v torchrun > /dev/null 2>&1; then TR="torchrun"; else TR="python3 -m torch.distributed.run"; fi
NG="python3 train.py config/train_shakespeare_char.py --max_iters=40 --eval_interval=20 --eval_iters=5"
for p in ${PROGRAMS:-wlm-lstm wlm-transformer nanogpt nanogpt-compile ddp timm-vit}; do
  case $p in
    wlm-lstm) run_program "$p" python3 main.py --accel --epochs 1 --model LSTM ;;
    wlm-transformer) run_program "$p" python3 main.py --accel --epochs 1 --model Transformer --lr 5 ;;
    nanogpt) run_program "$p" $NG --compile=False ;;
    nanogpt-compile) run_program "$p" $NG --compile=True ;;
    ddp) run_program "$p" $TR --standalone --nproc_per_node=1 multigpu_torchrun.py 4 2 --batch_size 32 ;;
    timm-vit) run_program "$p" python3 benchmark.py --bench train --model vit_small_patch16_224 \
        --num-warm-iter 5 --num-bench-iter 40 -b 64 ;;
    dcgan) run_program "$p" python3 main.py --dataset fake --niter 2 --accel --workers 2 ;;
    selftest) run_program "$p" python3 -c "print('no GPU: the script itself')" ;;  # the script on any machine
    *) printf '%s\t\t\t\tunknown program\n' "$p" >> "$tsv" ;;
  esac
done
column -t -s "$(printf '\t')" "$tsv" 2>/dev/null || cat "$tsv"
if [ -n "${OUT:-}" ] && [ -d "${OUT:-}" ]; then
  tar -C "$(dirname "$out")" -cJf "$OUT/$(basename "$out").tar.xz" "$(basename "$out")"
fi
