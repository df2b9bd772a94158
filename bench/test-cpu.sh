#!/usr/bin/env bash
# CPU and wall seconds of each test class, the classes run one at a time so that each CPU figure is its own
# (this JVM's and the child processes it reaped, from /proc/self/stat; Linux only). Usage: bench/test-cpu.sh OUT.tsv
# Columns: cpu_s wall_s status class jvm_cpu_s children_cpu_s, sorted by CPU (status: the class-level outcome, its
# @BeforeAll/@AfterAll; a failed test method shows in Maven's output) (children: the processes the JVM
# reaped, with what they reaped; a daemon that left its parent is not counted). Takes about twice the parallel suite's time.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:?usage: bench/test-cpu.sh OUT.tsv}")
rm -f "$out.raw"
mvn -B -ntp -q -f standalone/pom.xml test -Dgs.testParallelism=1 -Dgs.cpuReport="$out.raw" \
  -Dspotless.check.skip=true -Dspotbugs.skip=true -Dcheckstyle.skip=true || true
sort -rn "$out.raw" > "$out"
rm -f "$out.raw"
awk -F'\t' '{c+=$1; w+=$2; j+=$5; k+=$6} END {printf "classes %d, CPU %.0f s (JVM %.0f, children %.0f), wall %.0f s\n", NR, c, j, k, w}' "$out"
