#!/usr/bin/env bash
# Nothing left holding the GPU (issue #13, point 4) on the real H200: `gpu-sanitize run` of a torchrun/DDP
# job (NCCL, AMP, two DataLoader workers per rank) is signalled the way CI cancels it (SIGTERM: GitLab,
# GitHub Actions, `kill`; SIGINT: Ctrl-C; SIGKILL: the OOM killer, `kill -9`) in the middle of each phase:
# the sanitizer phase under the real compute-sanitizer (its TreeLauncherSubreaper, the target, the workers),
# the blocking phase and the regression phase. For every case it records the CLI's exit code and how long
# it took to exit, then watches, once a second for 30 s, the processes carrying a phase cookie
# (GPU_SANITIZE_COOKIE in /proc/PID/environ) and nvidia-smi's compute apps, and writes when both were gone.
# RM:PHASE is not a signal: the run directory is deleted under the running phase (a workspace cleanup);
# the phase's job must be stopped and the CLI must end.
# After SIGTERM/SIGINT the report must exist (verdict ERROR, reason aborted); after SIGKILL there is no
# report, and the phase's exit.status says that its owner is gone.
# From the repository root, on the GPU machine, .device/ carried (jlink runtime and shaded jar, as
# src/test/resources/records/h200-2026-12-02.md says); about 5 minutes, DEADLINE seconds at most:
#   bash examples/h200/capture-signals.sh OUTDIR [SIGNAL:PHASE...]
# Writes OUTDIR/SIGNAL-PHASE/ (run directories), CASE.console.txt, CASE.watch.txt and signals.txt (one line
# per case), pruned by examples/h200/lib.sh; with $OUT set, zipped to $OUT/NAME.zip.xz (NAME: OUTDIR's own name).
set -u
# job control: without it bash starts background jobs with SIGINT ignored, and a JVM keeps an ignored
# SIGINT ignored (as nohup'd processes do), so the INT cases would test bash, not the CLI
set -m
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
out=${1:?usage: capture-signals.sh OUTDIR [SIGNAL:PHASE...]}
shift
cases=${*:-TERM:sanitizer KILL:sanitizer INT:blocking KILL:blocking TERM:regression KILL:regression}
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
mkdir -p "$out"
JAVA=${JAVA:-.device/jre/bin/java}
JAR=${JAR:-.device/gpu-sanitize.jar}
DEADLINE=${DEADLINE:-560}
T0=$(date +%s)
now() { echo $(( $(date +%s) - T0 )); }
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=2
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
if command -v torchrun >/dev/null 2>&1; then TR=(torchrun); else TR=(python3 -m torch.distributed.run); fi
{ date -u; nproc; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; compute-sanitizer --version | tail -1;
  "$JAVA" -version; git log -1 --format='%H %s' 2>/dev/null; } > "$out/machine.txt" 2>&1

cookie_pids() { grep -lsaF 'GPU_SANITIZE_COOKIE=' /proc/[0-9]*/environ 2>/dev/null | sed 's#/proc/##; s#/environ##' | tr '\n' ' '; }
gpu_apps() { nvidia-smi --query-compute-apps=pid --format=csv,noheader 2>/dev/null | tr -d ' ' | tr '\n' ' '; }
describe() { for p in $1; do ps -o pid=,ppid=,stat=,args= -p "$p" 2>/dev/null | cut -c1-160; done; }

one() { # one SIGNAL PHASE
  local sig=$1 phase=$2 name="$1-$2" dir opts=() phasedir
  if [ "$(now)" -ge $(( DEADLINE - 75 )) ]; then echo "$name skipped: deadline" | tee -a "$out/signals.txt"; return; fi
  dir="$out/$name"
  case $phase in
    sanitizer) opts=(--phases sanitizer --timeout sanitizer=240); phasedir=sanitizer-memcheck ;;
    blocking) opts=(--phases blocking --timeout blocking=240); phasedir=blocking ;;
    regression) opts=(--phases regression --regression-seconds 200 --timeout regression=240); phasedir=regression ;;
  esac
  "$JAVA" -XX:+UseSerialGC -Xmx512m -jar "$JAR" run --out "$dir" --progress-interval 5 "${opts[@]}" \
    -- "${TR[@]}" --standalone --nproc_per_node=1 examples/ddp_train.py --bug none --steps 100000 \
    > "$out/$name.console.txt" 2>&1 &
  local cli=$! waited=0
  # in the middle of the phase: its job holds a CUDA context (nvidia-smi lists it), a few seconds on
  while [ "$waited" -lt 90 ] && [ -z "$(gpu_apps)" ] && kill -0 "$cli" 2>/dev/null; do sleep 1; waited=$((waited + 1)); done
  sleep 5
  local before apps_before
  before=$(cookie_pids); apps_before=$(gpu_apps)
  { echo "before the signal (after ${waited}+5 s): phase processes: $before; GPU apps: $apps_before"; describe "$before"; } > "$out/$name.watch.txt"
  local a b rc
  a=$(date +%s.%N)
  if [ "$sig" = RM ]; then
    # not a signal: the workspace cleaned under a running gate (the run directory deleted); every
    # phase supervisor must notice within its heartbeat and stop its job, the CLI must end
    rm -rf "$dir"
    local w=0
    while [ "$w" -lt 60 ] && kill -0 "$cli" 2>/dev/null; do sleep 1; w=$((w + 1)); done
    kill -0 "$cli" 2>/dev/null && echo "CLI still running 60 s after its run directory was deleted" >> "$out/$name.watch.txt"
    kill -s KILL "$cli" 2>/dev/null
  else
    kill -s "$sig" "$cli"
  fi
  wait "$cli"; rc=$?
  b=$(date +%s.%N)
  local gone=-1 left apps i
  for i in $(seq 0 30); do
    left=$(cookie_pids); apps=$(gpu_apps)
    echo "+${i}s phase processes: ${left:-none}; GPU apps: ${apps:-none}" >> "$out/$name.watch.txt"
    if [ -z "$left" ] && [ -z "$apps" ]; then gone=$i; break; fi
    sleep 1
  done
  if [ "$gone" -lt 0 ]; then
    { echo "LEFT after 30 s:"; describe "$left"; } >> "$out/$name.watch.txt"
    kill -s KILL $left 2>/dev/null   # leave the GPU free for the next case
    sleep 3
  fi
  local verdict=none note=
  [ -f "$dir/report.json" ] && verdict=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["verdict"], ",".join(x.get("code","?") for x in r.get("reasons",[])))' "$dir/report.json" 2>&1)
  [ -f "$dir/$phasedir/exit.status" ] && note=$(grep -E '^(status|note)=' "$dir/$phasedir/exit.status" | tr '\n' ' ')
  echo "$name exit=$rc exit_seconds=$(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.2f", b-a}') processes_before=$(echo $before | wc -w) gone_after_s=$gone report=\"$verdict\" phase=\"$note\"" | tee -a "$out/signals.txt"
}
for c in $cases; do one "${c%%:*}" "${c#*:}"; done
echo "done at +$(now)s; GPU apps now: $(gpu_apps); phase processes now: $(cookie_pids)" | tee -a "$out/signals.txt"
finish_record "$out"
