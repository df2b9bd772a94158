#!/usr/bin/env bash
# CPU and wall seconds of each test class, the classes run one at a time so that each CPU figure is its own
# (this JVM's and the child processes it reaped, from /proc/self/stat; Linux only). Usage: bench/test-cpu.sh OUT.tsv
# Columns: cpu_s wall_s status class jvm_cpu_s children_cpu_s, sorted by CPU (status: the class-level outcome, its
# @BeforeAll/@AfterAll; a failed test method shows in Maven's output) (children: the processes the JVM
# reaped, with what they reaped; a daemon that left its parent is not counted). Takes about twice the parallel suite's time.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:?usage: bench/test-cpu.sh OUT.tsv}")
if [ -z "${GROUPS_ONLY:-}" ]; then
  rm -f "$out.raw"
  mvn -B -ntp -q -f standalone/pom.xml test -Dgs.testParallelism=1 -Dgs.cpuReport="$out.raw" \
    -Dspotless.check.skip=true -Dspotbugs.skip=true -Dcheckstyle.skip=true || true
  sort -rn "$out.raw" > "$out"
  rm -f "$out.raw"
fi
awk -F'\t' '{c+=$1; w+=$2; j+=$5; k+=$6} END {printf "classes %d, CPU %.0f s (JVM %.0f, children %.0f), wall %.0f s\n", NR, c, j, k, w}' "$out"
# the same CPU by kind of test (docs/development.md's "where the test time goes"); for a saved OUT.tsv alone:
#   GROUPS_ONLY=1 bash bench/test-cpu.sh OUT.tsv
awk -F'\t' '{
  c = $4; sub("io.jenkins.plugins.gpusanitizer.", "", c); g = "other"
  if (c ~ /^engine\.run\./) g = "runner process tests (engine.run)"
  else if (c ~ /^steps\./) g = "Jenkins layer (steps)"
  else if (c ~ /StopSignal|GpuLock|BoundedMemory|RunUsability|SecretsInOutputs|RunDirectoryAgreement/) g = "CLI in JVMs of its own"
  else if (c ~ /^engine\.parse/) g = "parsers"
  else if (c ~ /Browser|Screenshot/) g = "Chromium"
  else if (c ~ /RootBuild/) g = "RootBuildTest (javac)"
  s[g] += $1; t += $1
} END { for (k in s) printf "%6.1f s %3.0f %%  %s\n", s[k], 100 * s[k] / t, k }' "$out" | sort -rn
