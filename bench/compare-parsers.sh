#!/usr/bin/env bash
# Side by side, alternating, REPEATS times (issue #15, part 1): grep and bench/minimal_parser.py on the text log,
# `grep -c '<record>'` on the XML, and `gpu-sanitize analyze` of this checkout's jar and of the jar of before
# (OLD_JAR, when given) on both, at -Xmx64m with the serial collector, with and without C1 alone (-c1: what
# bin/gpu-sanitize runs); each jar also on a two-line
# log (banner and summary): the fixed cost of starting the JVM and the CLI. Then one JFR profile of each path and
# its top frames. Also the JVM floor (bench/LineFloor.java: only counting lines, on 2 threads). Medians and the
# issue's ratios at the end. (Since the rewrite the parser names Aalto itself, so
# the StAX variants this script once compared are gone.)
# usage: [OLD_JAR=/tmp/old-gs.jar] bash bench/compare-parsers.sh [SIZE=512M] [REPEATS=3] [WORKDIR=target/bench]
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-512M}
repeats=${2:-3}
work=${3:-target/bench}
mkdir -p "$work"
jar=standalone/target/gpu-sanitize.jar
old=${OLD_JAR:-}
[ -f "$jar" ] || mvn -q -B -f standalone/pom.xml package -DskipTests
text="$work/memcheck-$size.log"
xml="$work/memcheck-$size.xml"
[ -f "$text" ] || python3 bench/generate.py --format text --size "$size" --out "$text"
[ -f "$xml" ] || python3 bench/generate.py --format xml --size "$size" --out "$xml"
empty="$work/empty.log"
printf '========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n' > "$empty"
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
jvm=(java -Xmx64m -XX:+UseSerialGC -jar)
c1=(java -Xmx64m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -jar) # what bin/gpu-sanitize runs (plus the heap limit)
main=io.jenkins.plugins.gpusanitizer.cli.GpuSanitizeCli
# the JVM floor: only counting lines, as grep does (bench/LineFloor.java)
mkdir -p "$work/floor"
javac --release 17 -nowarn -d "$work/floor" bench/LineFloor.java
echo "# $(date -u +%FT%TZ) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $(java -version 2>&1 | head -1)" | tee -a "$out"
cat "$text" "$xml" > /dev/null
for i in $(seq "$repeats"); do
  timed grep grep -c '^========= Invalid' "$text"
  timed text-minimal-python python3 bench/minimal_parser.py "$text"
  timed jvm-floor java -Xmx64m -XX:+UseSerialGC -cp "$work/floor" LineFloor "$text" 2
  timed jvm-floor-c1 java -Xmx64m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -cp "$work/floor" LineFloor "$text" 2
  timed text "${jvm[@]}" "$jar" analyze --sanitizer-log "$text" -q
  timed text-c1 "${c1[@]}" "$jar" analyze --sanitizer-log "$text" -q
  [ -n "$old" ] && timed text-old "${jvm[@]}" "$old" analyze --sanitizer-log "$text" -q
  timed empty "${jvm[@]}" "$jar" analyze --sanitizer-log "$empty" -q
  timed empty-c1 "${c1[@]}" "$jar" analyze --sanitizer-log "$empty" -q
  timed grep-xml grep -c '<record>' "$xml"
  timed xml "${jvm[@]}" "$jar" analyze --sanitizer-xml "$xml" -q
  timed xml-c1 "${c1[@]}" "$jar" analyze --sanitizer-xml "$xml" -q
  [ -n "$old" ] && timed xml-old "${jvm[@]}" "$old" analyze --sanitizer-xml "$xml" -q
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out"
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
    if len(parts) == 2 and not line.startswith((" ", "#")):
        try:
            runs.setdefault(parts[0], []).append(float(parts[1]))
        except ValueError:
            pass
med = {k: statistics.median(v) for k, v in runs.items()}
tb, xb = os.path.getsize(sys.argv[2]), os.path.getsize(sys.argv[3])
for k, v in runs.items():
    b = 0 if k.startswith("empty") else xb if k.startswith(("xml", "grep-xml")) else tb
    rate = "  %.0f MB/s" % (b / 1e6 / med[k]) if b else ""
    print("%-20s median %.2f s (%s)%s" % (k, med[k], ", ".join("%.2f" % x for x in v), rate))
for name in ("text", "text-c1", "text-old"):
    if name in med:
        a = med[name]
        empty = med["empty-c1" if name.endswith("-c1") else "empty"]
        print("%s: %.2fx grep's speed (%.2fx without the fixed cost), %.2fx the minimal Python parser's"
              % (name, med["grep"] / a, med["grep"] / (a - empty), med["text-minimal-python"] / a))
for name in ("xml", "xml-c1", "xml-old"):
    if name in med:
        print("%s: %.0f MB/s (goal 200)" % (name, xb / 1e6 / med[name]))
PY
