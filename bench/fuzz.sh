#!/usr/bin/env bash
# Fuzzes the three parsers with Jazzer (JUnit @FuzzTest in ParserFuzzTest, 30 s per round and target).
# Each round continues from the corpus kept in standalone/.cifuzz-corpus, so N rounds fuzz N x 30 s.
#   bash bench/fuzz.sh          # one round: the short run CI does
#   bash bench/fuzz.sh 20       # the long run: 10 minutes per parser
# A finding fails the round and leaves its input under src/test/resources/.../ParserFuzzTestInputs/.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-1}
for r in $(seq "$rounds"); do
  for target in text xml traceback; do
    start=$(date +%s)
    JAZZER_FUZZ=1 mvn -q -B -ntp -f standalone/pom.xml surefire:test -Dtest="ParserFuzzTest#$target" > "standalone/target/fuzz-$target.log" 2>&1 \
      || { echo "fuzz $target round $r FAILED, see standalone/target/fuzz-$target.log" >&2; exit 1; }
    runs=$(grep -oE 'Done [0-9]+ runs in [0-9]+ second' "standalone/target/fuzz-$target.log" | tail -1)
    echo "fuzz $target round $r: ${runs:-no libFuzzer summary} ($(( $(date +%s) - start )) s with Maven)"
  done
done
