#!/usr/bin/env bash
# The runner itself stops memcheck amid one launch's records: `gpu-sanitize run` with a sanitizer timeout shorter than
# the tool takes to print them (examples/lstm_job.py's far out-of-bounds write, one record per thread, 16,384), a
# write grace of 1 s, then SIGKILL. Does the report count one defect, at the job's line, whatever record the kill cut?
# Run on the GPU machine with .device/jre, .device/gpu-sanitize.jar and .device/commit.txt carried:
#   bash examples/h200/capture-runner-cut.sh OUTDIR [SECONDS...]
# Writes OUTDIR/t-SECONDS/ (the run directory) and OUTDIR/t-SECONDS.console, and prints, per run, the CLI's
# summary and the sanitizer log's size and last line.
set -u
out=${1:?usage: capture-runner-cut.sh OUTDIR [SECONDS...]}
shift
mkdir -p "$out"
JAVA=${JAVA:-.device/jre/bin/java}
JAR=${JAR:-.device/gpu-sanitize.jar}
limits=("$@")
[ ${#limits[@]} -gt 0 ] || limits=(6 12)
for s in "${limits[@]}"; do
  run=$out/t-$s
  rm -rf "$run"
  "$JAVA" -jar "$JAR" run --out "$run" --print-limit 100000 --timeout "sanitizer=$s" --tool-write-grace 1 \
    --kill-grace 1 -- python3 examples/lstm_job.py --bug far --steps 12 --bug-step 3 > "$out/t-$s.console" 2>&1
  echo "== timeout $s s: exit $?"
  grep -E '^(gpu-sanitize|  (fail|error|warning))' "$out/t-$s.console" | cut -c1-300
  for log in "$run"/sanitizer-*/sanitizer.log; do
    [ -f "$log" ] && echo "$(basename "$(dirname "$log")")/sanitizer.log: $(stat -c %s "$log") bytes, last line: $(tail -n 1 "$log" | cut -c1-160)"
  done
done
