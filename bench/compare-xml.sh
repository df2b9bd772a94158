#!/usr/bin/env bash
# The XML parser side by side (issue #15, part 1): `grep -c '<record>'` (the line-scan floor), the jar of an
# older build and this build's jar, each `analyze --sanitizer-xml` at -Xmx64m with the serial collector (the
# launcher's), alternately REPEATS times, JVM start included; the 1-minute load average before each run says
# whether other work shared the cores. Then one JFR profile of each jar and its top frames; medians at the end.
# usage: bash bench/compare-xml.sh [XML=target/bench/memcheck-512M.xml] [REPEATS=3] [OUT=target/bench-xml]
#        OLD_JAR=path/to/older/gpu-sanitize.jar (default /tmp/old-gs-xml.jar)
set -euo pipefail
cd "$(dirname "$0")/.."
xml=${1:-target/bench/memcheck-512M.xml}
repeats=${2:-3}
out_dir=${3:-target/bench-xml}
old=${OLD_JAR:-/tmp/old-gs-xml.jar}
new=standalone/target/gpu-sanitize.jar
mkdir -p "$out_dir"
[ -f "$new" ] || mvn -q -B -f standalone/pom.xml package -DskipTests
[ -f "$xml" ] || python3 bench/generate.py --format xml --size 512M --out "$xml"
[ -f "$old" ] || { echo "no older jar at $old (set OLD_JAR)" >&2; exit 64; }
main=io.jenkins.plugins.gpusanitizer.cli.GpuSanitizeCli
out=$out_dir/compare-xml.txt
: > "$out"
echo "# $(date -u +%FT%TZ) $(nproc) cores, $(java -version 2>&1 | head -1), $(stat -c %s "$xml") bytes: $xml" | tee -a "$out"
timed() { # NAME command...: one line "NAME seconds load=L"
  local name=$1; shift
  local load a b
  load=$(cut -d' ' -f1 /proc/loadavg)
  a=$(date +%s.%N)
  # to a file, not /dev/null: GNU grep stops at the first match when its output is /dev/null
  "$@" > "$out_dir/run.out" 2>&1 || true
  b=$(date +%s.%N)
  echo "$name $(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.2f", b-a}') load=$load" | tee -a "$out"
}
cat "$xml" > /dev/null
for i in $(seq "$repeats"); do
  timed grep grep -c '<record>' "$xml"
  timed xml-old java -Xmx64m -XX:+UseSerialGC -cp "$old" $main analyze --sanitizer-xml "$xml" -q
  timed xml-new java -Xmx64m -XX:+UseSerialGC -cp "$new" $main analyze --sanitizer-xml "$xml" -q
done
top() { # NAME JAR: the 10 most sampled top frames of one profiled run
  java -Xmx64m -XX:+UseSerialGC -XX:StartFlightRecording=filename="$out_dir/$1.jfr",settings=profile -cp "$2" $main \
    analyze --sanitizer-xml "$xml" -q > /dev/null 2>&1 || true
  echo "top frames, $1 (samples):"
  jfr print --events jdk.ExecutionSample "$out_dir/$1.jfr" | awk '/stackTrace = \[/{getline; sub(/line:.*/, ""); print}' \
    | sort | uniq -c | sort -rn | sed -n 1,10p  # sed reads on: head would end sort with SIGPIPE (pipefail)
}
{ top xml-old "$old"; top xml-new "$new"; } | tee -a "$out"
python3 - "$out" "$xml" <<'PY' | tee "$out_dir/compare-xml-summary.txt"
import os, statistics, sys
runs, loads = {}, {}
for line in open(sys.argv[1]):
    parts = line.split()
    if len(parts) == 3 and parts[2].startswith("load="):
        runs.setdefault(parts[0], []).append(float(parts[1]))
        loads.setdefault(parts[0], []).append(parts[2][5:])
size = os.path.getsize(sys.argv[2])
print("| run | seconds, median of %d (each) | MB/s | load average before each |" % len(runs["xml-new"]))
print("|---|---|---|---|")
for k, v in runs.items():
    m = statistics.median(v)
    print("| %s | %.2f (%s) | %.0f | %s |" % (k, m, ", ".join("%.2f" % x for x in v), size / 1e6 / m, ", ".join(loads[k])))
print("new/old speed-up %.2fx; new reads %.0f MB/s (goal 200)"
      % (statistics.median(runs["xml-old"]) / statistics.median(runs["xml-new"]), size / 1e6 / statistics.median(runs["xml-new"])))
PY
