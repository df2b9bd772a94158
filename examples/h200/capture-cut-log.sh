#!/usr/bin/env bash
# compute-sanitizer SIGKILLed while it prints records (what the runner's kill after the write grace does): does its
# --log-file end inside a line, and what does the CLI's analysis name then? The job is examples/lstm_job.py with its
# far out-of-bounds write (one launch, about 1,600 records); the tool and the job are killed once the log has grown
# past each size given. Run on the GPU machine with .device/jre and .device/gpu-sanitize.jar carried:
#   bash examples/h200/capture-cut-log.sh OUTDIR [BYTES...]
# Writes OUTDIR/cut-BYTES.log (the log as the kill left it), OUTDIR/cut-BYTES.txt (its last bytes, the CLI's summary)
# and OUTDIR/whole.log (the same job not killed).
set -u
out=${1:?usage: capture-cut-log.sh OUTDIR [BYTES...]}
shift
mkdir -p "$out"
JAVA=${JAVA:-.device/jre/bin/java}
JAR=${JAR:-.device/gpu-sanitize.jar}
job=(python3 examples/lstm_job.py --bug far --steps 12 --bug-step 3)
tool=(compute-sanitizer --tool memcheck --print-limit 100000)
export PYTORCH_NO_CUDA_MEMORY_CACHING=1

analyze() { # LOG TXT: the log's last bytes and what the CLI says of it
  { echo "== last 240 bytes of $(basename "$1") ($(stat -c %s "$1") bytes; od -c of the last 8)"
    tail -c 240 "$1"; echo; tail -c 8 "$1" | od -c | head -2
    echo "== gpu-sanitize analyze --sanitizer-log $(basename "$1")"
    "$JAVA" -jar "$JAR" analyze --sanitizer-log "$1" --json "${1%.log}.json" 2>&1; echo "exit $?"
  } > "$2"
}

timeout -k 5 120 "${tool[@]}" --log-file "$out/whole.log" "${job[@]}" > "$out/whole.console" 2>&1
echo "whole: exit $?, $(stat -c %s "$out/whole.log") bytes"
analyze "$out/whole.log" "$out/whole.txt"

sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(150000 400000 1000000)
for bytes in "${sizes[@]}"; do
  log=$out/cut-$bytes.log
  rm -f "$log"
  setsid "${tool[@]}" --log-file "$log" "${job[@]}" > "$out/cut-$bytes.console" 2>&1 &
  pid=$!
  start=$(date +%s)
  while kill -0 "$pid" 2> /dev/null && [ "$(stat -c %s "$log" 2> /dev/null || echo 0)" -lt "$bytes" ]; do
    if [ $(($(date +%s) - start)) -gt 90 ]; then break; fi
    sleep 0.02
  done
  kill -KILL -- "-$pid" 2> /dev/null
  wait "$pid" 2> /dev/null
  echo "cut at $bytes: killed with the log at $(stat -c %s "$log" 2> /dev/null || echo 0) bytes"
  analyze "$log" "$out/cut-$bytes.txt"
done
