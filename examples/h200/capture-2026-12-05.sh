#!/usr/bin/env bash
# Issue #27's supervisor on the card: the runner's supervisor (bin/supervise.sh) now probes the system once per run
# and keeps its findings beside itself (bin/supervise.sh.probed), and under dash waits in half-second ticks that a
# SIGCHLD trap cuts short. Before, it had only run on the stand-in tools. This runs the gate with the current jar on
# clean and buggy example jobs (bench/gpu-minutes.sh, one plain run of each job, then the gate), in parts that fit
# the device's 10-minute call:
#   bash examples/h200/capture-2026-12-05.sh PART [JOB...]
# with .device/gpu-sanitize.jar, .device/commit.txt and .device/jre carried. Writes
# $OUT/h200-2026-12-05-PART.zip.xz (the pruned run directories with each run's supervise.sh.probed, the consoles,
# both CSVs, the machine and the card's /bin/sh) and copies the CSVs beside it.
set -u
part=${1:?usage: capture-2026-12-05.sh PART [JOB...]}
shift
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
work=/tmp/h200-2026-12-05-$part
rm -rf "$work"
mkdir -p "$work"
{ echo "/bin/sh -> $(readlink -f /bin/sh)"; uname -m; ls -l /usr/bin/perl /usr/bin/python3 /usr/local/bin/python3 /opt/conda/bin/python3 2>&1; } > "$work/shell.txt"
DEADLINE=${DEADLINE:-540} bash bench/gpu-minutes.sh "$work" "$@"
prune_record "$work"
if [ -n "${OUT:-}" ] && [ -d "${OUT:-}" ]; then
  zip_record "$work" "$OUT/h200-2026-12-05-$part.zip.xz"
  cp "$work/gpu-minutes.csv" "$OUT/gpu-minutes-$part.csv"
  cp "$work/gpu-minutes-phases.csv" "$OUT/gpu-minutes-phases-$part.csv"
  cp "$work/shell.txt" "$OUT/shell-$part.txt"
  find "$work" -name 'supervise.sh.probed' | sort | while read -r f; do echo "== ${f#"$work"/}"; cat "$f"; done > "$OUT/probed-$part.txt"
fi
