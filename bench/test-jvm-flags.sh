#!/usr/bin/env bash
# The test JVM's flags side by side (standalone/pom.xml's surefire.argLine): on a fresh clone, the tests compiled once,
# then the whole suite with the JVM's defaults and with C1 alone and the serial collector, one after the other.
#   bash bench/test-jvm-flags.sh OUTDIR
# Writes OUTDIR/flags.txt: per run the wall, user and system seconds (GNU time) and Maven's test line.
set -u
out=${1:?usage: test-jvm-flags.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
repo=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$out/c"
git clone -q --depth=1 "file://$repo" "$out/c"
cd "$out/c"
mvn -q -B -ntp -f standalone/pom.xml test-compile > "$out/compile.log" 2>&1
echo "commit $(git rev-parse --short HEAD), $(nproc) CPUs, $(date -u +%FT%TZ)" | tee "$out/flags.txt"
for flags in "" "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"; do
  name=${flags:-defaults}
  /usr/bin/time -f "%e s wall, %U s user, %S s system" -o "$out/time.txt" \
    mvn -B -ntp -f standalone/pom.xml surefire:test "-Dsurefire.argLine=$flags" > "$out/run-${name// /_}.log" 2>&1
  echo "$name: $(tail -1 "$out/time.txt"); $(grep -h 'Tests run:' "$out/run-${name// /_}.log" | tail -1)" \
    | tee -a "$out/flags.txt"
done
