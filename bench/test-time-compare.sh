#!/usr/bin/env bash
# The README's test command on fresh clones of two commits, one after the other on the same machine (issue #27):
#   bash bench/test-time-compare.sh OUTDIR REV_BEFORE REV_AFTER [ROUNDS]
# Each round runs BEFORE then AFTER, each alone, each on its own fresh clone (the compile included), and writes per
# run: wall seconds, user and system CPU-seconds (the build and everything it started, from /usr/bin/time), the
# processes the machine started meanwhile (/proc/stat "processes"), and whether it was green. Then the ratios of the
# sums. Run it with nothing else on the machine; on 2 cores a round takes about 8 minutes.
# With TESTS set (surefire's -Dtest, e.g. TESTS='RunnerTest,EnvironmentCheckBesideTest'), each commit is cloned and
# compiled once and a round runs only those classes (`surefire:test -Dtest=$TESTS`, offline): a change worth a few
# per cent of their CPU stands out of the machine's noise, which the whole suite's compile and spread hide.
set -u
out=${1:?usage: test-time-compare.sh OUTDIR REV_BEFORE REV_AFTER [ROUNDS]}
before=${2:?REV_BEFORE}
after=${3:?REV_AFTER}
rounds=${4:-1}
mkdir -p "$out"
out=$(cd "$out" && pwd)
repo=$(cd "$(dirname "$0")/.." && pwd)
txt=$out/compare.txt
say() { echo "$*" | tee -a "$txt"; }
forks() { awk '/^processes/{print $2}' /proc/stat; }
# the CPU's model and clock: timings of two days compare only on the same machine, and a VM's host changes
cpu_model() { awk -F': *' '/^model name/ && !m {m=$2} /^cpu MHz/ && !f {f=$2} END {printf "%s, %.0f MHz", m, f}' /proc/cpuinfo; }
say "before $(git -C "$repo" rev-parse --short "$before"), after $(git -C "$repo" rev-parse --short "$after"), $(nproc) CPUs ($(cpu_model)), $(date -u +%FT%TZ)${TESTS:+, classes $TESTS}"
for round in $(seq 1 "$rounds"); do
  for which in before after; do
    rev=$before
    [ "$which" = after ] && rev=$after
    if [ -n "${TESTS:-}" ]; then
      dir=$out/$which
      if [ "$round" = 1 ]; then
        rm -rf "$dir"
        git clone -q --no-local "file://$repo" "$dir" && git -C "$dir" checkout -q "$rev"
        (cd "$dir" && mvn -q -B -f standalone/pom.xml test-compile > "$out/$which-compile.log" 2>&1)
      fi
      command=(mvn -B -o -f standalone/pom.xml surefire:test "-Dtest=$TESTS")
    else
      dir=$out/$which$round
      rm -rf "$dir"
      git clone -q --no-local "file://$repo" "$dir" && git -C "$dir" checkout -q "$rev"
      command=(mvn -B -f standalone/pom.xml test)
    fi
    a=$(forks)
    (cd "$dir" && /usr/bin/time -f '%e %U %S' -o "$out/$which-$round.time" "${command[@]}" > "$out/$which-$round.log" 2>&1)
    rc=$?
    b=$(forks)
    read -r wall user sys < <(tail -n 1 "$out/$which-$round.time") # time says "Command exited with ..." first
    tests=$(grep -E '^\[(INFO|ERROR)\] Tests run: [0-9]+, ' "$out/$which-$round.log" | tail -1 | sed 's/^\[[A-Z]*\] //')
    say "$which round $round: wall $wall s, user $user s, system $sys s, processes $((b - a)), exit $rc ($tests)"
  done
done
awk '/^(before|after) round/ {
  w = $0; sub(/.*wall /, "", w); sub(/ s,.*/, "", w)
  u = $0; sub(/.*user /, "", u); sub(/ s,.*/, "", u)
  s = $0; sub(/.*system /, "", s); sub(/ s,.*/, "", s)
  p = $0; sub(/.*processes /, "", p); sub(/,.*/, "", p)
  wall[$1] += w; cpu[$1] += u + s; proc[$1] += p
}
END {
  printf "after/before: wall %.2f, CPU %.2f, processes %.2f\n", wall["after"] / wall["before"], cpu["after"] / cpu["before"], proc["after"] / proc["before"]
}' "$txt" | tee -a "$txt"
