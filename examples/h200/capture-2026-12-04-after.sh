#!/usr/bin/env bash
# Issue #28, "before and after, same jobs, same day": bench/gpu-minutes.sh with the jar of ee75943 (before: the
# regression run always after the sanitizer run) and the current jar (after) side by side, one plain run of each
# job followed by both gates. The device's 10-minute call holds about half of the jobs, so it runs in parts:
#   bash examples/h200/capture-2026-12-04-after.sh PART [JOB...]
# with .device/gpu-sanitize-ee75943.jar (built from ee75943: `git worktree add /tmp/ee ee75943`, then
# `mvn -f standalone/pom.xml package -DskipTests` there) and .device/gpu-sanitize.jar, .device/commit.txt carried.
# Writes $OUT/h200-2026-12-04-gpu-minutes-after-PART.zip.xz (the pruned run directories, the consoles, both CSVs
# and the machine) and copies the CSVs beside it.
set -u
part=${1:?usage: capture-2026-12-04-after.sh PART [JOB...]}
shift
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
work=/tmp/gpu-minutes-after-$part
rm -rf "$work"
export JARS=${JARS:-".device/gpu-sanitize-ee75943.jar=ee75943 .device/gpu-sanitize.jar=$(cat .device/commit.txt)"}
DEADLINE=${DEADLINE:-540} bash bench/gpu-minutes.sh "$work" "$@"
prune_record "$work"
if [ -n "${OUT:-}" ] && [ -d "${OUT:-}" ]; then
  zip_record "$work" "$OUT/h200-2026-12-04-gpu-minutes-after-$part.zip.xz"
  cp "$work/gpu-minutes.csv" "$OUT/gpu-minutes-$part.csv"
  cp "$work/gpu-minutes-phases.csv" "$OUT/gpu-minutes-phases-$part.csv"
fi
