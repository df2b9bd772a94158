#!/usr/bin/env bash
# Writes src/test/resources/slow-test-classes.txt from the last test run's reports (standalone/target/surefire-reports):
# the 45 test classes that took longest, longest first. testing/SlowFirst starts them first, so that a long class does
# not begin near the end of the run and leave a core idle while it finishes alone (issue #27). Run it after
# `mvn -B -f standalone/pom.xml test`; a stale list only changes the order, never what runs.
set -eu
cd "$(dirname "$0")/.."
out=src/test/resources/slow-test-classes.txt
{
  echo "# The test classes that took longest (seconds of their own, classes at once), longest first: bench/slow-test-classes.sh"
  for f in standalone/target/surefire-reports/TEST-*.xml; do
    t=$(grep -o '<testsuite [^>]*' "$f" | grep -o ' time="[^"]*"' | head -1 | tr -dc '0-9.')
    name=${f##*/TEST-io.jenkins.plugins.gpusanitizer.}
    echo "$t ${name%.xml}"
  done | sort -rn | head -45 | awk '{print $2}'
} > "$out.tmp"
mv "$out.tmp" "$out"
echo "wrote $out"
