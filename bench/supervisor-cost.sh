#!/usr/bin/env bash
# What one supervised phase costs in CPU, the supervisor (supervise.sh) of a commit beside the working tree's (issue
# #27): each starts RUNS runs of PHASES phases whose command is `true` (a fresh run directory per run, so each run's
# first phase probes the system as in a real run), as the runner writes them for a job's phase (a child subreaper,
# a leftover grace), alternating before and after ROUNDS times. Prints the CPU-seconds (user + system of the
# supervisors and all they started, from /usr/bin/time) per phase of each and their ratio.
#   bash bench/supervisor-cost.sh REV_BEFORE [ROUNDS] [RUNS] [PHASES]
# Settings of the phases and the machine, from the environment: SUBREAPER (default 1; empty: no child subreaper, as
# where the system has neither perl nor python3, or as the environment check's commands were before 6469265),
# LEFTOVER_GRACE_CS (default 500; 0 as a short command has), BUSY (default 0: that many `sleep` processes run
# meanwhile, as on a machine with other jobs: a supervisor that reads every process pays for each).
set -eu
before=${1:?usage: supervisor-cost.sh REV_BEFORE [ROUNDS] [RUNS] [PHASES]}
rounds=${2:-3}
runs=${3:-10}
phases=${4:-3}
repo=$(cd "$(dirname "$0")/.." && pwd)
script=src/main/resources/io/jenkins/plugins/gpusanitizer/engine/run/process/supervise.sh
work=$(mktemp -d)
busy=()
trap 'rm -rf "$work"; [ ${#busy[@]} -eq 0 ] || kill "${busy[@]}" 2> /dev/null' EXIT
for ((i = 0; i < ${BUSY:-0}; i++)); do
  sleep 3600 &
  busy+=($!)
done
git -C "$repo" show "$before:$script" > "$work/before.sh"
cp "$repo/$script" "$work/after.sh"

# the phases of RUNS runs under the supervisor $1; prints "user system" CPU-seconds
phases() {
  local supervisor=$1 r p d
  for ((r = 0; r < runs; r++)); do
    mkdir -p "$work/run/$r/bin"
    cp "$supervisor" "$work/run/$r/bin/supervise.sh"
    for ((p = 0; p < phases; p++)); do
      d=$work/run/$r/p$p
      mkdir -p "$d"
      echo 'exec true' > "$d/phase.sh"
      printf '%s\n' "COOKIE='bench-$r-$p-$$'" "TIMEOUT_CS='6000'" "OWNER_PID='$$'" \
        "LEFTOVER_GRACE_CS='${LEFTOVER_GRACE_CS:-500}'" "LEFTOVER_MAX_CS='3000'" "SUBREAPER='${SUBREAPER-1}'" \
        > "$d/supervisor.conf"
    done
  done
  /usr/bin/time -f '%U %S' -o "$work/time" bash -c '
    for d in "$1"/run/*/p*; do
      sh "${d%/*}/bin/supervise.sh" "$d" > "$d/supervisor.log" 2>&1
      read -r line < "$d/exit.status"
      [ "$line" = status=passed ] || { echo "$d: $line" >&2; exit 1; }
    done' sh "$work"
  rm -rf "$work/run"
  cat "$work/time"
}

total_before=0
total_after=0
n=$((runs * phases))
echo "supervise.sh of $(git -C "$repo" rev-parse --short "$before") (before) and of the working tree (after), $(nproc) CPUs:" \
  "$rounds rounds of $runs runs of $phases phases of \`true\` (SUBREAPER='${SUBREAPER-1}'," \
  "LEFTOVER_GRACE_CS=${LEFTOVER_GRACE_CS:-500}, $(ls -d /proc/[0-9]* | wc -l) processes on the machine)"
for ((round = 1; round <= rounds; round++)); do
  for which in before after; do
    read -r user sys < <(phases "$work/$which.sh")
    per=$(awk -v u="$user" -v s="$sys" -v n="$n" 'BEGIN{printf "%.1f", 1000 * (u + s) / n}')
    echo "round $round, $which: $per ms of CPU per phase"
    if [ "$which" = before ]; then
      total_before=$(awk -v a="$total_before" -v b="$per" 'BEGIN{print a + b}')
    else
      total_after=$(awk -v a="$total_after" -v b="$per" 'BEGIN{print a + b}')
    fi
  done
done
awk -v a="$total_after" -v b="$total_before" 'BEGIN{printf "after/before: CPU per phase %.2f\n", a / b}'
