#!/usr/bin/env bash
# Issue #49: the two sanitizer runs of a coverage-bounded check side by side on one card, each in a copy of the
# working directory of its own (the gate's isolation), timed together (measure.sh's pair-N):
#   bash bench/coverage/pair.sh DIR N EARLY.txt -- command...
# window: memcheck --launch-count N (the first N launches); late: memcheck on every launch of every kernel not named in
# EARLY.txt (mangled names, one a line, from the plain run's census). Writes DIR/{window,late}.{log,sanitizer.log,time}.
set -u
dir=${1:?usage: pair.sh DIR N EARLY.txt -- command...}; n=$2; early_file=$3; shift 4
mkdir -p "$dir"
SAN=(compute-sanitizer --tool memcheck --print-limit 1000 --target-processes all)
early=()
while IFS= read -r k; do [ -n "$k" ] && early+=(--kernel-name-exclude "kne=$k"); done < "$early_file"
one() {  # one NAME args...: in a fresh copy of the working directory
  local name=$1; shift
  local ws; ws=$(mktemp -d /tmp/pair-XXXXXX)
  cp -a . "$ws/"
  local a b; a=$(date +%s.%N)
  (cd "$ws" && "${SAN[@]}" "$@" --log-file "$dir/$name.sanitizer.log" "${cmd[@]}" > "$dir/$name.log" 2>&1)
  echo "exit $?" >> "$dir/$name.log"
  b=$(date +%s.%N)
  awk -v a="$a" -v b="$b" 'BEGIN{printf "%.1f\n", b-a}' > "$dir/$name.time"
  rm -rf "$ws"
}
cmd=("$@")
one window --launch-count "$n" &
one late "${early[@]}" &
wait
echo "window $(cat "$dir/window.time") s, late $(cat "$dir/late.time") s (${#early[@]} exclusions)"
