#!/usr/bin/env bash
# Issues #47/#48 on the card: public training programs and the project's own jobs through the gate (the jar's
# defaults), each in a workspace of its own as Jenkins would hold it. From the repository root on the GPU machine,
# with .device/ (jlink runtime, shaded jar, commit.txt) and .ext/ (public programs fetched for reading, never
# committed: .ext/nanogpt from karpathy/nanoGPT, .ext/wlm from pytorch/examples word_language_model, .ext/ddp its
# distributed/ddp-tutorial-series/{multigpu_torchrun,datautils}.py, .ext/dcgan its dcgan/main.py, .ext/gcn its gcn/main.py)
# carried (both made by examples/public/prepare-device.sh from local mirrors of those projects):
#   GATES="nanogpt wlm-lstm resume-tmp ..." bash examples/public/verify.sh OUTDIR
# Writes OUTDIR/summary.txt (verdict, reasons, each run's work), the consoles and the run directories (workspace
# copies left out); with $OUT set, zipped to $OUT/NAME.zip.xz with the summary beside it.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../h200/lib.sh"
capture_start "${1:?usage: verify.sh OUTDIR}"
# workspace NAME KIND: a fresh workspace (KIND: repo = this checkout's files, nanogpt / wlm = that program)
workspace() {
  local ws=/tmp/ws-$1
  rm -rf "$ws"; mkdir -p "$ws"
  case $2 in
    repo) (cd "$repo" && tar --exclude=./.device --exclude=./.ext -cf - .) | tar -xf - -C "$ws" ;;
    nanogpt) cp -r "$repo/.ext/nanogpt/." "$ws/" && python3 "$repo/examples/public/nanogpt-data.py" "$ws" > /dev/null ;;
    wlm) cp -r "$repo/.ext/wlm/." "$ws/" ;;
    ddp) cp -r "$repo/.ext/ddp/." "$ws/" ;;
    dcgan) cp -r "$repo/.ext/dcgan/." "$ws/" ;;
    gcn) cp -r "$repo/.ext/gcn/." "$ws/" && python3 "$repo/examples/public/gcn-offline.py" "$ws" ;;
  esac
}
# gate NAME WS LIMIT options -- command: one gate run in workspace WS (made by workspace, reused for a second build);
# with COVERAGE_MODES (issue #49, e.g. "plain kernels full"), once per mode: "plain" runs the command after -- alone,
# timed (NAME-plain), "kernels-ref" the gate in mode kernels against the report of the "kernels" gate before it (a
# second build: its census, and its memory for the regression run's place), any other the gate with --coverage MODE
# (NAME-MODE)
gate() {
  if [ -n "${COVERAGE_MODES:-}" ]; then
    local name=$1 ws=$2 limit=$3 m; shift 3
    for m in $COVERAGE_MODES; do
      case $m in
        plain) plain "$name-plain" "$ws" "$limit" "$@" ;;
        kernels-ref) gate_once "$name-$m" "$ws" "$limit" --coverage kernels --reference "$out/$name-kernels/report.json" "$@" ;;
        *) gate_once "$name-$m" "$ws" "$limit" --coverage "$m" "$@" ;;
      esac
    done
  else
    gate_once "$@"
  fi
}
# within_deadline NAME LIMIT: the run's own limit, or what is left before the deadline when that is less; fails (and
# says the run was skipped) when less than MIN_LEFT seconds are left
within_deadline() {
  local left=$(( DEADLINE - $(now) - 15 ))
  if [ "$left" -lt "${MIN_LEFT:-90}" ]; then echo "== $1 skipped: deadline" >> "$out/summary.txt"; return 1; fi
  if [ "$left" -lt "$2" ]; then echo "$left"; else echo "$2"; fi
}
# plain NAME WS LIMIT options -- command: the job's command alone in its workspace, timed as the gate is
plain() {
  local name=$1 ws=/tmp/ws-$2 limit=$3; shift 3
  while [ $# -gt 0 ] && [ "$1" != -- ]; do shift; done
  shift
  limit=$(within_deadline "$name" "$limit") || return
  local a b; a=$(date +%s.%N)
  (cd "$ws" && timeout -k 10 "$limit" "$@" > "$out/$name.console.txt" 2>&1)
  local rc=$?; b=$(date +%s.%N)
  echo "== $name: plain (exit $rc) $(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.1f", b-a}') s" >> "$out/summary.txt"
  tail -2 "$out/$name.console.txt" | sed 's/^/   console: /' >> "$out/summary.txt"
}
gate_once() {
  local name=$1 ws=/tmp/ws-$2 limit=$3; shift 3
  limit=$(within_deadline "$name" "$limit") || return
  local a b; a=$(date +%s.%N)
  (cd "$ws" && timeout -k 10 "$limit" "$JAVA" -XX:+UseSerialGC -Xmx512m -jar "$JAR" run --out "$out/$name" \
      --progress-interval 30 "$@" > "$out/$name.console.txt" 2>&1)
  local rc=$?; b=$(date +%s.%N)
  python3 - "$out/$name" "$name" "$rc" "$(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.1f", b-a}')" >> "$out/summary.txt" <<'PY'
import json, os, sys
run, name, rc, wall = sys.argv[1:]
try:
    r = json.load(open(os.path.join(run, "report.json")))
except Exception as e:
    print(f"== {name}: no report (exit {rc}): {e}"); sys.exit()
print(f"== {name}: {r['verdict']} (exit {rc}) gate {wall} s")
for x in r.get("reasons", []):
    if x.get("level") in ("fail", "error", "unstable", "warning") or x.get("code", "").startswith("coverage"):
        print(f"   {x['level']} {x['code']}: {x['message'][:400]}")
for w in r.get("work", []):
    print("   work " + json.dumps({k: v for k, v in w.items() if not isinstance(v, (list, dict))})[:400])
# where each run's time went, from the probe's wall clock (ts): its first process's start, the first CUDA context, the
# first backward pass, the coverage stop, the last exit (a record's t counts from its own process's start: not used)
for phase in sorted(os.listdir(run)):
    probe = os.path.join(run, phase, "probe.jsonl")
    if not os.path.isfile(probe):
        continue
    start, marks = None, {}
    for line in open(probe):
        try:
            x = json.loads(line)
        except ValueError:
            continue
        if x.get("type") == "probe" and "ts" in x:
            start = x["ts"] if start is None else min(start, x["ts"])
        ts = x.get("ts") if x.get("type") != "probe" else None
        if ts is None:
            continue
        event = x.get("event") if x.get("type") == "work" else x.get("type")
        if event == "progress" and x.get("backward", 0) >= 1 or event == "progress" and x.get("steps", 0) >= 1:
            event = "first-step"
        if event in ("cuda", "first-step", "coverage-stop"):
            marks.setdefault(event, ts)
        if event == "exit":
            marks["exit"] = max(marks.get("exit", ts), ts)
    if start is not None and marks:
        print("   timeline %s: %s" % (phase, ", ".join("%s %.1f s" % (k, marks[k] - start)
              for k in ("cuda", "first-step", "coverage-stop", "exit") if k in marks)))
census = os.path.join(run, "blocking", "census")
if os.path.isdir(census):
    names = set()
    files = [f for f in os.listdir(census) if f.startswith("census-")]
    for f in files:
        for line in open(os.path.join(census, f)):
            try:
                x = json.loads(line)
            except ValueError:
                continue
            if x.get("type") == "first":
                names.add((x["domain"], x["name"]))
    log = open(os.path.join(census, "build.log")).read().strip().splitlines() if os.path.exists(os.path.join(census, "build.log")) else []
    print("   census %d files, %d driver kernels, %d runtime; build: %s" % (len(files), sum(1 for d, _ in names if d == "driver"),
          sum(1 for d, _ in names if d == "runtime"), (log[-1] if log else "no build.log")[:300]))
for c in r.get("coverage") or []:
    print("   coverage " + c.get("summary", "")[:400])
for d in r.get("defects", [])[:4]:
    print("   defect " + json.dumps({k: d.get(k) for k in ("kind", "kernel", "location", "buffer") if d.get(k)})[:400])
PY
  tail -3 "$out/$name.console.txt" | sed 's/^/   console: /' >> "$out/summary.txt"
  find "$out/$name" -type d -name workspaces -prune -exec rm -rf {} +
}
NG="python3 train.py config/train_shakespeare_char.py --max_iters=40 --eval_interval=20 --eval_iters=5"
for g in ${GATES:-nanogpt wlm-lstm resume-tmp}; do
  case $g in
    nanogpt) workspace $g nanogpt; gate $g $g 400 -- $NG --compile=False ;;
    nanogpt-compile) workspace $g nanogpt; gate $g $g 480 -- $NG --compile=True ;;
    wlm-lstm) workspace $g wlm; gate $g $g 300 -- python3 main.py --accel --epochs 1 --model LSTM ;;
    wlm-transformer) workspace $g wlm; gate $g $g 300 -- python3 main.py --accel --epochs 1 --model Transformer --lr 5 ;;
    resume-tmp)  # two builds in one workspace, the snapshot under /tmp: the second must not PASS
      rm -rf /tmp/resume-verify; mkdir -p /tmp/resume-verify; workspace $g repo
      gate $g-build1 $g 200 -- $TR --standalone --nproc_per_node=1 examples/resume_ddp.py --epochs 3 --snapshot /tmp/resume-verify/snapshot.pt
      gate $g-build2 $g 200 -- $TR --standalone --nproc_per_node=1 examples/resume_ddp.py --epochs 3 --snapshot /tmp/resume-verify/snapshot.pt ;;
    triton-stride) workspace $g repo; gate $g $g 150 -- python3 examples/triton_stride.py --bug stride ;;
    lstm-far) workspace $g repo; gate $g $g 150 -- python3 examples/lstm_job.py --bug far ;;
    scatter-add) workspace $g repo; gate $g $g 150 -- python3 examples/buffer/scatter_add_job.py --bug off-by-one ;;
    cudnn-bench) workspace $g repo; gate $g $g 120 -- python3 examples/cudnn_bench.py ;;
    transformer-initcheck) workspace $g repo  # #48 2: PyTorch's own initcheck records are PyTorch's: PASS
      gate $g $g 300 --tool memcheck,initcheck -- python3 examples/transformer_job.py ;;
    mask-tail) workspace $g repo  # #48 3: initcheck in the job's own CuPy kernel past the print limit: UNSTABLE, never ERROR
      gate $g $g 240 --tool initcheck,memcheck -- python3 examples/mask_tail_job.py ;;
    sparse-bmm) workspace $g repo  # #48 6: pytorch/pytorch#144612 verbatim: FAIL, the buffer said truthfully
      gate $g $g 150 -- python3 examples/public/repros/sparse_bmm_144612.py ;;
    ddp) workspace $g ddp  # the DDP tutorial (pytorch/examples distributed/ddp-tutorial-series) under torchrun: clean, PASS
      gate $g $g 200 -- $TR --standalone --nproc_per_node=1 multigpu_torchrun.py 10 5 ;;
    hand-lstm) workspace $g repo; gate $g $g 150 -- python3 examples/hand_sgd_lstm.py ;;  # no optimizer: work = backward passes
    dcgan) workspace $g dcgan; gate $g $g 200 -- python3 main.py --dataset fake --niter 2 --accel --workers 2 ;;
    gcn) workspace $g gcn; gate $g $g 200 -- python3 main.py --epochs 200 ;;  # pytorch/examples gcn, Cora's shape offline
    repro-*) workspace $g repo  # examples/public/repros/NAME.py, verbatim from a public issue thread: it must FAIL
      gate $g $g 150 -- python3 "examples/public/repros/${g#repro-}.py" ;;
    *) echo "== $g: unknown" >> "$out/summary.txt" ;;
  esac
done
cat "$out/summary.txt"
prune_record "$out"
if [ -n "${OUT:-}" ] && [ -d "${OUT:-}" ]; then
  zip_record "$out" "$OUT/$(basename "$out").zip.xz"
  cp "$out/summary.txt" "$OUT/summary-$(basename "$out").txt"
fi
