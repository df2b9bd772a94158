#!/usr/bin/env bash
# The "Development" timings of docs/development.md (issue #27), taken on fresh clones of this repository:
#   bash bench/dev-timings.sh OUTDIR [RUNS] [PAIRS]
# - clone size: `git clone` (full history) and `git clone --depth 1`, the work tree and .git on disk;
# - `bash bin/demo` on a fresh clone: first (builds the jar) and again (jar up to date);
# - the README's test command (`mvn -B -f standalone/pom.xml test`) alone on the machine, RUNS times (default 1),
#   each on a fresh clone: wall time (the compile included) and whether it was green;
# - the same command twice at once on two fresh clones (a build beside the build), PAIRS times (default 1): 2 x PAIRS
#   runs, each with another build beside it.
# Writes OUTDIR/timings.txt (one line per measurement) and each build's log. Run it on a machine with nothing else
# running; on 2 cores a run alone takes about 5 minutes, a pair about 8.
set -u
out=${1:?usage: dev-timings.sh OUTDIR [RUNS]}
runs=${2:-1}
pairs=${3:-1}
mkdir -p "$out"
out=$(cd "$out" && pwd)
repo=$(cd "$(dirname "$0")/.." && pwd)
txt=$out/timings.txt
say() { echo "$*" | tee -a "$txt"; }
clone() { rm -rf "$1"; git clone -q "$2" "file://$repo" "$1"; }
seconds() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.0f", b-a}'; }
# the CPU's model and clock: timings of two days compare only on the same machine, and a VM's host changes
cpu_model() { awk -F': *' '/^model name/ && !m {m=$2} /^cpu MHz/ && !f {f=$2} END {printf "%s, %.0f MHz", m, f}' /proc/cpuinfo; }
say "commit $(git -C "$repo" rev-parse --short HEAD), $(nproc) CPUs ($(cpu_model)), $(date -u +%FT%TZ)"

clone "$out/c-full" --no-local
say "clone (full history): work tree $(du -sh --exclude=.git "$out/c-full" | cut -f1), .git $(du -sh "$out/c-full/.git" | cut -f1), files $(git -C "$out/c-full" ls-files | wc -l)"
clone "$out/c-shallow" --depth=1
say "clone --depth 1: work tree $(du -sh --exclude=.git "$out/c-shallow" | cut -f1), .git $(du -sh "$out/c-shallow/.git" | cut -f1)"

for pass in first again; do
  a=$(date +%s.%N)
  (cd "$out/c-shallow" && bash bin/demo > "$out/demo-$pass.log" 2>&1)
  rc=$?
  b=$(date +%s.%N)
  say "bin/demo ($pass): $(seconds "$a" "$b") s, exit $rc, $(wc -l < "$out/demo-$pass.log") lines printed"
done

run_tests() { # DIR LOG: the README's test command in DIR
  (cd "$1" && mvn -B -f standalone/pom.xml test > "$2" 2>&1)
}
green=0
for i in $(seq 1 "$runs"); do
  clone "$out/c-run" --depth=1
  a=$(date +%s.%N)
  run_tests "$out/c-run" "$out/test-alone-$i.log"
  rc=$?
  b=$(date +%s.%N)
  [ $rc -eq 0 ] && green=$((green + 1))
  say "test alone, run $i: $(seconds "$a" "$b") s, exit $rc ($(grep -h 'Tests run:' "$out/test-alone-$i.log" | tail -1))"
done
say "test alone: $green of $runs green"

green=0
for i in $(seq 1 "$pairs"); do
  clone "$out/c-a" --depth=1
  clone "$out/c-b" --depth=1
  a=$(date +%s.%N)
  run_tests "$out/c-a" "$out/test-beside-$i-a.log" &
  pa=$!
  run_tests "$out/c-b" "$out/test-beside-$i-b.log" &
  pb=$!
  wait $pa; ra=$?
  ta=$(date +%s.%N)
  wait $pb; rb=$?
  tb=$(date +%s.%N)
  [ $ra -eq 0 ] && green=$((green + 1))
  [ $rb -eq 0 ] && green=$((green + 1))
  say "test beside another test, pair $i: $(seconds "$a" "$ta") s (exit $ra) and $(seconds "$a" "$tb") s (exit $rb)"
  for f in "$out/test-beside-$i-a.log" "$out/test-beside-$i-b.log"; do
    grep -h '<<< FAIL' "$f" | sed "s|^|  $(basename "$f"): |" | tee -a "$txt"
  done
done
say "test beside another test: $green of $((2 * pairs)) green"
