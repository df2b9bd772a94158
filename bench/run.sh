#!/usr/bin/env bash
# Parser benchmark, all measured side by side in one run on the same generated files:
#   grep -c on the record marker (the line-scan floor), the Python peer parser (peer_parser.py),
#   `gpu-sanitize analyze` end to end (JVM start included) on the text log and on the XML, under -Xmx64m.
# Throughput in MB/s (10^6 bytes), peak RSS from /usr/bin/time, and ratios.
# usage: bash bench/run.sh [SIZE=512M] [WORKDIR=target/bench]
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-512M}
work=${2:-target/bench}
mkdir -p "$work"
jar=standalone/target/gpu-sanitize.jar
[ -f "$jar" ] || mvn -q -B -f standalone/pom.xml package -DskipTests
text="$work/memcheck-$size.log"
xml="$work/memcheck-$size.xml"
[ -f "$text" ] || python3 bench/generate.py --format text --size "$size" --out "$text"
[ -f "$xml" ] || python3 bench/generate.py --format xml --size "$size" --out "$xml"
command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 2; }

measure() { # name, command...: prints "name seconds peak_kib"
  local name=$1; shift
  cat "$text" "$xml" > /dev/null # same page-cache state for everyone
  /usr/bin/time -f "%e %M" -o "$work/$name.time" "$@" > "$work/$name.out" 2> "$work/$name.err" || true
  echo "$name $(tail -1 "$work/$name.time")"
}
results=$work/results-$size.txt
{
  measure grep grep -c '^========= Invalid' "$text"
  measure python-peer python3 bench/peer_parser.py "$text"
  measure python-minimal python3 bench/minimal_parser.py "$text"
  # bin/gpu-sanitize is the shipped launcher (serial GC); the default-GC run shows what the flag buys
  measure analyze-text env GS_JAVA_OPTS="-Xmx64m -XX:+UseSerialGC" bin/gpu-sanitize analyze --sanitizer-log "$text" -q
  measure analyze-text-g1 java -Xmx64m -jar "$jar" analyze --sanitizer-log "$text" -q
  measure analyze-xml env GS_JAVA_OPTS="-Xmx64m -XX:+UseSerialGC" bin/gpu-sanitize analyze --sanitizer-xml "$xml" -q
} | tee "$results"
python3 - "$results" "$text" "$xml" <<'PY'
import os, sys
rows = {l.split()[0]: (float(l.split()[1]), int(l.split()[2])) for l in open(sys.argv[1]) if len(l.split()) == 3}
tb, xb = os.path.getsize(sys.argv[2]), os.path.getsize(sys.argv[3])
print("| run | input | seconds | MB/s | peak RSS MiB |")
print("|---|---|---|---|---|")
for name, (sec, kib) in rows.items():
    b = xb if name == "analyze-xml" else tb
    print("| %s | %s | %.2f | %.0f | %.0f |" % (name, "xml" if name == "analyze-xml" else "text", sec, b / 1e6 / max(sec, 1e-9), kib / 1024))
x = rows["analyze-xml"][0]
g, p, a = rows["grep"][0], rows["python-peer"][0], rows["analyze-text"][0]
print()
print("analyze (text) is %.1fx faster than the Python peer and %.1fx slower than grep -c (the line-scan floor)." % (p / a, a / g))
if "python-minimal" in rows:
    m = rows["python-minimal"][0]
    print("analyze (text) is %.1fx the minimal Python parser's speed and %.2fx grep's (issue #15's goals: 20x and 0.5x)." % (m / a, g / a))
print("analyze peak RSS %.0f MiB vs the peer's %.0f MiB (both runs of analyze under -Xmx64m)." % (rows["analyze-text"][1] / 1024, rows["python-peer"][1] / 1024))
print("analyze (XML) reads %.0f MB/s end to end." % (xb / 1e6 / x))
PY
