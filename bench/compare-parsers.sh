#!/usr/bin/env bash
# Side by side, alternating, REPEATS times (issue #15, part 1): `gpu-sanitize analyze` on the text log under the
# serial, G1 and parallel collectors (-Xmx64m) and bench/minimal_parser.py; analyze on the XML with the JDK's
# StAX, Aalto and Woodstox on the class path (XMLInputFactory.newFactory() takes the first it finds); then one
# JFR profile of each path and its top frames. Medians at the end.
# usage: bash bench/compare-parsers.sh [SIZE=512M] [REPEATS=3] [WORKDIR=target/bench]
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-512M}
repeats=${2:-3}
work=${3:-target/bench}
mkdir -p "$work"
jar=standalone/target/gpu-sanitize.jar
[ -f "$jar" ] || mvn -q -B -f standalone/pom.xml package -DskipTests
text="$work/memcheck-$size.log"
xml="$work/memcheck-$size.xml"
[ -f "$text" ] || python3 bench/generate.py --format text --size "$size" --out "$text"
[ -f "$xml" ] || python3 bench/generate.py --format xml --size "$size" --out "$xml"
repo=${MAVEN_REPO:-$HOME/.m2/repository}
# (from standalone/: the root POM's Jenkins parent is not on Maven Central)
fetch() { mvn -q -B -f standalone/pom.xml dependency:get -Dartifact="$1" >/dev/null; }
fetch com.fasterxml:aalto-xml:1.3.3
fetch com.fasterxml.woodstox:woodstox-core:7.1.0
aalto=$repo/com/fasterxml/aalto-xml/1.3.3/aalto-xml-1.3.3.jar:$repo/org/codehaus/woodstox/stax2-api/4.2.1/stax2-api-4.2.1.jar
woodstox=$repo/com/fasterxml/woodstox/woodstox-core/7.1.0/woodstox-core-7.1.0.jar:$repo/org/codehaus/woodstox/stax2-api/4.2.2/stax2-api-4.2.2.jar
main=io.jenkins.plugins.gpusanitizer.cli.GpuSanitizeCli
out=$work/compare-$size.txt
: > "$out"
timed() { # NAME command...: one line "NAME seconds"
  local name=$1; shift
  local a b; a=$(date +%s.%N)
  # to a file, not /dev/null: GNU grep stops at the first match when its output is /dev/null
  "$@" > "$work/compare.out" 2>&1 || true
  b=$(date +%s.%N)
  echo "$name $(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.2f", b-a}')" | tee -a "$out"
}
cat "$text" "$xml" > /dev/null
for i in $(seq "$repeats"); do
  for gc in Serial G1 Parallel; do
    timed "text-$gc" java -Xmx64m -XX:+Use${gc}GC -cp "$jar" $main analyze --sanitizer-log "$text" -q
  done
  timed text-minimal-python python3 bench/minimal_parser.py "$text"
  timed grep grep -c '^========= Invalid' "$text"
  timed xml-jdk java -Xmx64m -XX:+UseSerialGC -cp "$jar" $main analyze --sanitizer-xml "$xml" -q
  timed xml-aalto java -Xmx64m -XX:+UseSerialGC -cp "$jar:$aalto" $main analyze --sanitizer-xml "$xml" -q
  timed xml-woodstox java -Xmx64m -XX:+UseSerialGC -cp "$jar:$woodstox" $main analyze --sanitizer-xml "$xml" -q
done
top() { # FORMAT FILE: the 8 most sampled top frames of one profiled run
  java -Xmx64m -XX:+UseSerialGC -XX:StartFlightRecording=filename="$work/$1.jfr",settings=profile -cp "$jar" $main \
    analyze --sanitizer-"$1" "$2" -q > /dev/null 2>&1 || true
  echo "top frames, $1 (samples):"
  jfr print --events jdk.ExecutionSample "$work/$1.jfr" | awk '/stackTrace = \[/{getline; sub(/line:.*/, ""); print}' \
    | sort | uniq -c | sort -rn | head -8
}
{ top log "$text"; top xml "$xml"; } | tee -a "$out"
python3 - "$out" "$text" "$xml" <<'PY'
import os, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    parts = line.split()
    if len(parts) == 2 and not line.startswith(" "):
        try:
            runs.setdefault(parts[0], []).append(float(parts[1]))
        except ValueError:
            pass
med = {k: statistics.median(v) for k, v in runs.items()}
tb, xb = os.path.getsize(sys.argv[2]), os.path.getsize(sys.argv[3])
for k, v in runs.items():
    b = xb if k.startswith("xml") else tb
    print("%-20s median %.2f s (%s)  %.0f MB/s" % (k, med[k], ", ".join("%.2f" % x for x in v), b / 1e6 / med[k]))
a = med["text-Serial"]
print("analyze (text, serial GC) is %.2fx grep's speed and %.2fx the minimal Python parser's (goals 0.5x and 20x)"
      % (med["grep"] / a, med["text-minimal-python"] / a))
print("XML: JDK %.0f MB/s, Aalto %.0f MB/s, Woodstox %.0f MB/s (goal 200)"
      % (xb / 1e6 / med["xml-jdk"], xb / 1e6 / med["xml-aalto"], xb / 1e6 / med["xml-woodstox"]))
PY
