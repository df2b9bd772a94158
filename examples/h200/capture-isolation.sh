#!/usr/bin/env bash
# Issue #40 on the card: each run in its own copy of the working directory, and the proof that each did the job's
# work. From the repository root on the GPU machine, with .device/ carried (jlink runtime, shaded jar, commit.txt):
#   bash examples/h200/capture-isolation.sh OUTDIR
# Runs the gate (the jar's defaults: isolation on, the runs beside each other) on
#   resume-ddp      torchrun examples/resume_ddp.py (resumes from snapshot.pt), beside and --no-overlap, and once
#                   with --no-isolation (the control: two runs that resumed and trained nothing must not PASS);
#   save-load       examples/save_load_job.py (saves model.pt and loads it back; lightning_logs/version_N; a
#                   processed/ cache built on first use);
# each in a fresh copy of the repository as its working directory (as a Jenkins workspace), then
# bench/gpu-minutes.sh on example jobs for the gate / plain-run cost with isolation on. Writes OUTDIR/*.console.txt,
# the run directories (pruned, workspace copies left out), summary.txt (verdict, reasons, each run's work and its
# copy's cost); with $OUT set, zipped to $OUT/NAME.zip.xz and the CSVs and summary beside it.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
capture_start "${1:?usage: capture-isolation.sh OUTDIR}"
# a working directory as a Jenkins workspace holds it: the checkout (tracked files), nothing of earlier runs
workspace() {
  local ws=$1
  rm -rf "$ws"; mkdir -p "$ws"
  # the tree as the device's copy holds it (its .git index may not list what the checkout has): all but the runtime
  (cd "$repo" && tar --exclude=./.device --exclude=./.dev42 -cf - .) | tar -xf - -C "$ws"
  # BIG_MB: a pretrained model of that many MB beside the code, as real workspaces hold (a few hundred MB in all)
  [ "${BIG_MB:-0}" -gt 0 ] && mkdir -p "$ws/pretrained" && head -c "${BIG_MB}M" /dev/urandom > "$ws/pretrained/weights.bin"
  du -sm "$ws" | cut -f1 > "$ws.mb"
}
# gate NAME LIMIT options -- command: one gate run in a fresh workspace
gate() {
  local name=$1 limit=$2; shift 2
  if [ $(( $(now) + limit )) -ge "$DEADLINE" ]; then echo "$name skipped: deadline" >> "$out/summary.txt"; return; fi
  local ws=/tmp/ws-$name
  workspace "$ws"
  local a b; a=$(date +%s.%N)
  (cd "$ws" && timeout -k 10 "$limit" "$JAVA" -XX:+UseSerialGC -Xmx512m -jar "$JAR" run --out "$out/$name" \
      --progress-interval 15 "$@" > "$out/$name.console.txt" 2>&1)
  local rc=$?; b=$(date +%s.%N)
  python3 - "$out/$name" "$name" "$rc" "$(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.1f", b-a}')" "$(cat "$ws.mb")" \
      >> "$out/summary.txt" <<'PY'
import json, os, re, sys
run, name, rc, wall, mb = sys.argv[1:]
try:
    r = json.load(open(os.path.join(run, "report.json")))
except Exception as e:
    print(f"== {name}: no report (exit {rc}): {e}"); sys.exit()
print(f"== {name}: {r['verdict']} (exit {rc}) gate {wall} s, workspace {mb} MB")
for x in r["reasons"]:
    if x["level"] in ("fail", "error", "unstable", "warning"):
        print(f"   {x['level']} {x['code']}: {x['message'][:300]}")
copy = 0.0
for w in r.get("work", []):
    how = ""
    man = os.path.join(run, w["manifest"]) if w.get("manifest") else None
    if man and os.path.exists(man):
        for line in open(man):
            if line.startswith("how: "):
                how = line[5:].strip()
                m = re.search(r"copied in ([0-9.]+) s, compared in ([0-9.]+) s", how)
                if m:
                    copy += float(m.group(1)) + float(m.group(2))
    print(f"   {w['run']}: cuda {w['cudaProcesses']} of {w['processes']} processes, steps {w['optimizerSteps']},"
          f" allocations {w['allocations']}, changed {w['workspaceChanges']} path(s) ({how})")
print(f"   isolation: {copy:.2f} s of copying and comparing in a {wall} s gate ({100 * copy / float(wall):.1f} %)")
PY
  # the copies are the workspaces again: what each run wrote is in its manifest
  rm -rf "$out/$name/workspaces"
  find "$out" -type d -name workspaces -prune -exec rm -rf {} +
}
EPOCHS=${EPOCHS:-4}
for g in ${GATES:-resume-ddp resume-ddp-after resume-ddp-shared save-load cudnn-bench}; do
  case $g in
    resume-ddp) gate $g 200 -- $TR --standalone --nproc_per_node=1 examples/resume_ddp.py --epochs "$EPOCHS" ;;
    resume-ddp-after) gate $g 200 --no-overlap -- $TR --standalone --nproc_per_node=1 examples/resume_ddp.py --epochs "$EPOCHS" ;;
    resume-ddp-shared) gate $g 200 --no-isolation -- $TR --standalone --nproc_per_node=1 examples/resume_ddp.py --epochs "$EPOCHS" ;;
    save-load) BIG_MB=300 gate $g 150 -- python3 examples/save_load_job.py --epochs 3 ;;
    cudnn-bench) gate $g 120 -- python3 examples/cudnn_bench.py ;;
  esac
  # a job that failed at once says why here (the zip may be too large to come back)
  for f in "$out/$g"/*/stderr.log; do [ -s "$f" ] && { echo "-- $f"; tail -5 "$f"; } >> "$out/summary.txt"; done
done
left=$(( DEADLINE - $(now) ))
if [ "$left" -gt 120 ] && [ -z "${NO_MINUTES:-}" ]; then
  DEADLINE=$left bash bench/gpu-minutes.sh "$out/minutes" ${MINUTES_JOBS:-cudnn-bench triton-stride ddp-clean} \
    > "$out/gpu-minutes.txt" 2>&1
fi
cat "$out/summary.txt"
find "$out" -type d -name workspaces -prune -exec rm -rf {} +
prune_record "$out"
if [ -n "${OUT:-}" ] && [ -d "${OUT:-}" ]; then
  zip_record "$out" "$OUT/$(basename "$out").zip.xz"
  cp "$out/summary.txt" "$OUT/summary-$(basename "$out").txt"
  [ -f "$out/minutes/gpu-minutes.csv" ] && cp "$out/minutes/gpu-minutes.csv" "$OUT/gpu-minutes-$(basename "$out").csv"
  [ -f "$out/minutes/gpu-minutes-phases.csv" ] && cp "$out/minutes/gpu-minutes-phases.csv" "$OUT/gpu-minutes-phases-$(basename "$out").csv"
fi
