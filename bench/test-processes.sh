#!/usr/bin/env bash
# Where the README's test command spends its CPU, by process (issue #46): on a fresh clone, with the kernel's process
# accounting on (package acct; root), the test command under /usr/bin/time, then the accounting summed by command
# name, most CPU first. Optionally the same compiled tree again with other numbers of test classes at once.
#   sudo bash bench/test-processes.sh OUTDIR [PARALLELISM...]      e.g. bench/test-processes.sh /tmp/tp 5 8 12
# Writes OUTDIR/time.txt (wall, user, system of the whole command), OUTDIR/by-command.txt (processes, CPU seconds, name),
# OUTDIR/parallelism.txt (one line per extra run) and the build logs. Run it with nothing else on the machine.
set -u
out=${1:?usage: test-processes.sh OUTDIR [PARALLELISM...]}
shift
mkdir -p "$out"
out=$(cd "$out" && pwd)
repo=$(cd "$(dirname "$0")/.." && pwd)
command -v accton > /dev/null || { apt-get install -y -qq acct > /dev/null || { echo "needs acct (accton, dump-acct)" >&2; exit 2; }; }
rm -rf "$out/clone" && git clone -q "file://$repo" "$out/clone"
: > "$out/acct"
accton "$out/acct" > /dev/null
(cd "$out/clone" && /usr/bin/time -f "%e s wall, %U s user, %S s system" -o "$out/time.txt" \
    mvn -B -ntp -f standalone/pom.xml test > "$out/test.log" 2>&1)
accton off > /dev/null
# dump-acct: command | version | user | system | ... in clock ticks
dump-acct "$out/acct" 2>/dev/null | awk -F'|' -v hz="$(getconf CLK_TCK)" '
  { gsub(/ /, "", $1); n[$1]++; c[$1] += $3 + $4; t += $3 + $4; all++ }
  END { for (k in n) printf "%7d %9.1f %s\n", n[k], c[k] / hz, k; printf "%7d %9.1f (all)\n", all, t / hz }' \
  | sort -k2 -rn > "$out/by-command.txt"
cat "$out/time.txt"; head -15 "$out/by-command.txt"
for p in "$@"; do
  (cd "$out/clone" && /usr/bin/time -f "parallelism $p: %e s wall, %U s user, %S s system" -a -o "$out/parallelism.txt" \
      mvn -B -ntp -q -f standalone/pom.xml surefire:test -Dgs.testParallelism="$p" > "$out/parallelism-$p.log" 2>&1)
done
[ -f "$out/parallelism.txt" ] && cat "$out/parallelism.txt"
