#!/usr/bin/env bash
# The text parser, before and after (issue #15, part 1): grep, bench/minimal_parser.py, the jar of before (OLD_JAR)
# and this checkout's jar on the same text log, alternating, REPEATS times; each jar also on a two-line log (banner
# and summary), the fixed cost of starting the JVM and the CLI, so that each time can be read with and without it.
# Then one JFR profile of the new jar and its top frames. Medians at the end.
# usage: OLD_JAR=/tmp/old-gs.jar bash bench/compare-text.sh [SIZE=512M] [REPEATS=3] [WORKDIR=target/bench]
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-512M}
repeats=${2:-3}
work=${3:-target/bench}
old=${OLD_JAR:-/tmp/old-gs.jar}
new=standalone/target/gpu-sanitize.jar
[ -f "$new" ] || mvn -q -B -f standalone/pom.xml package -DskipTests
[ -f "$old" ] || { echo "no jar of before at $old (build main's and copy it there)" >&2; exit 2; }
text="$work/memcheck-$size.log"
[ -f "$text" ] || python3 bench/generate.py --format text --size "$size" --out "$text"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
empty="$tmp/empty.log"
printf '========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n' > "$empty"
out=${OUT:-$work/compare-text-$size.txt}
: > "$out"
timed() { # NAME command...: "NAME seconds" (wall clock), then "  cpu NAME seconds" (user + system, all threads)
  local name=$1; shift
  local a b; a=$(date +%s.%N)
  # to a file, not /dev/null: GNU grep stops at the first match when its output is /dev/null
  /usr/bin/time -o "$tmp/time" -f "%U %S" "$@" > "$tmp/out" 2>&1 || true
  b=$(date +%s.%N)
  echo "$name $(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.3f", b-a}')" | tee -a "$out"
  echo "  cpu $name $(tail -1 "$tmp/time" | awk '{printf "%.2f", $1 + $2}')" | tee -a "$out"
}
jvm=(java -Xmx64m -XX:+UseSerialGC -jar)
echo "# $(date -u +%FT%TZ) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $(java -version 2>&1 | head -1)" | tee -a "$out"
cat "$text" > /dev/null
for i in $(seq "$repeats"); do
  timed grep grep -c '^========= Invalid' "$text"
  timed minimal-python python3 bench/minimal_parser.py "$text"
  timed old "${jvm[@]}" "$old" analyze --sanitizer-log "$text" -q
  timed new "${jvm[@]}" "$new" analyze --sanitizer-log "$text" -q
  timed old-empty "${jvm[@]}" "$old" analyze --sanitizer-log "$empty" -q
  timed new-empty "${jvm[@]}" "$new" analyze --sanitizer-log "$empty" -q
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out"
for jar in old new; do
  j=$old; [ $jar = new ] && j=$new
  java -Xmx64m -XX:+UseSerialGC -XX:StartFlightRecording=filename="$tmp/$jar.jfr",settings=profile -jar "$j" \
    analyze --sanitizer-log "$text" -q > /dev/null 2>&1 || true
  echo "top frames, $jar (samples, all threads):"
  jfr print --events jdk.ExecutionSample "$tmp/$jar.jfr" | awk '/stackTrace = \[/{getline; sub(/line:.*/, ""); print}' \
    | sort | uniq -c | sort -rn | head -10
done | tee -a "$out"
python3 - "$out" "$text" > "$tmp/summary" <<'PY'
import os, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    parts = line.split()
    if len(parts) == 2 and not line.startswith((" ", "#")):
        try:
            runs.setdefault(parts[0], []).append(float(parts[1]))
        except ValueError:
            pass
cpu = {}
for line in open(sys.argv[1]):
    parts = line.split()
    if len(parts) == 3 and parts[0] == "cpu":
        cpu.setdefault(parts[1], []).append(float(parts[2]))
med = {k: statistics.median(v) for k, v in runs.items()}
mb = os.path.getsize(sys.argv[2]) / 1e6
print("%-15s %8s %22s %9s  %s" % ("", "median", "minus the empty log", "cpu", "runs"))
for k in ("grep", "minimal-python", "old", "new", "old-empty", "new-empty"):
    fixed = med.get(k + "-empty")
    net = "%.2f s (%4.0f MB/s)" % (med[k] - fixed, mb / (med[k] - fixed)) if fixed else ""
    print("%-15s %6.2f s %22s %7.2f s  %s" % (k, med[k], net, statistics.median(cpu[k]), ", ".join("%.2f" % x for x in runs[k])))
g = med["grep"]
print("speed as a fraction of grep's: old %.2fx, new %.2fx; without the fixed cost: old %.2fx, new %.2fx (goal 0.5x)"
      % (g / med["old"], g / med["new"], g / (med["old"] - med["old-empty"]), g / (med["new"] - med["new-empty"])))
print("new vs old: %.2fx faster, %.2fx without the fixed cost"
      % (med["old"] / med["new"], (med["old"] - med["old-empty"]) / (med["new"] - med["new-empty"])))
PY
tee -a "$out" < "$tmp/summary"
