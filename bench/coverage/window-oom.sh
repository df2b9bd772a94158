#!/usr/bin/env bash
# Issue #49: word_language_model (pytorch/examples, LSTM, one epoch; .ext/wlm carried, see measure.sh) under memcheck
# with its launches past the first 3,000 unchecked, the card's memory sampled by nvidia-smi every second beside it.
# On the H100 (2026-12-07, records/h100-2026-12-07-coverage.zip.xz: window-oom/, window-oom-options/) the card filled
# at about 1.5 GiB/s until `CUDA error: out of memory`, and none of the three tool options below changed the rise.
#   bash bench/coverage/window-oom.sh OUTDIR [VARIANT...]     (default: window syncl nobt noheap)
#     window  --launch-count 3000, up to WINDOW_LIMIT s (default 90)
#     syncl   the same with --force-synchronization-limit 100, up to LIMIT s (default 35)
#     nobt    the same with --show-backtrace no
#     noheap  the same with --check-device-heap no
# Writes OUTDIR/VARIANT.log (the job), VARIANT.sanitizer.log, mem-VARIANT.csv (MiB used, one a second) and a line a
# variant on stdout: exit code, peak MiB, seconds sampled.
set -u
out=${1:?usage: window-oom.sh OUTDIR [VARIANT...]}; shift
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
mkdir -p "$out"
repo=$PWD
ws=$(mktemp -d /tmp/window-oom-XXXXXX)
cp -r "$repo/.ext/wlm/." "$ws/"
cd "$ws" || exit 1
try() {  # try NAME LIMIT tool-options...
  local name=$1 limit=$2; shift 2
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 1000 > "$out/mem-$name.csv" &
  local sampler=$!
  PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout "$limit" compute-sanitizer --tool memcheck --launch-count 3000 "$@" \
      --log-file "$out/$name.sanitizer.log" python3 main.py --accel --epochs 1 --model LSTM > "$out/$name.log" 2>&1
  local rc=$?
  kill "$sampler" 2> /dev/null; wait "$sampler" 2> /dev/null
  echo "$name exit $rc peak $(sort -n "$out/mem-$name.csv" | tail -1) MiB over $(wc -l < "$out/mem-$name.csv") s"
}
for v in "${@:-window syncl nobt noheap}"; do
  for one in $v; do
    case $one in
      window) try window "${WINDOW_LIMIT:-90}" ;;
      syncl) try syncl "${LIMIT:-35}" --force-synchronization-limit 100 ;;
      nobt) try nobt "${LIMIT:-35}" --show-backtrace no ;;
      noheap) try noheap "${LIMIT:-35}" --check-device-heap no ;;
      *) echo "$one: unknown variant" ;;
    esac
  done
done
rm -rf "$ws"
