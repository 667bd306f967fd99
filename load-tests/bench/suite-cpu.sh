#!/usr/bin/env bash
# Where the suite's CPU goes, by test class: runs the README's test command (CI=true ./mvnw -B
# verify) with a JUnit listener on every test JVM's class path (suite-cpu/CpuPerTestClass.java)
# that records each class's own CPU, the CPU of the processes it started and reaped (servers,
# cluster members, the CLI; not those left running past the class, such as cluster.sh's members,
# which are reparented), and its wall clock; then prints the classes dearest first and the totals.
# Usage: load-tests/bench/suite-cpu.sh [more Maven arguments]   (after one build has filled ~/.m2)
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
launcher=$(find ~/.m2/repository/org/junit/platform -name 'junit-platform-launcher-*.jar' ! -name '*sources*' | sort -V | tail -1)
engine=$(find ~/.m2/repository/org/junit/platform -name 'junit-platform-engine-*.jar' ! -name '*sources*' | sort -V | tail -1)
commons=$(find ~/.m2/repository/org/junit/platform -name 'junit-platform-commons-*.jar' ! -name '*sources*' | sort -V | tail -1)
# (javac's warnings about annotations of JUnit's it has no class file for are noise: shown on failure only)
javac -nowarn -d "$work/classes" -cp "$launcher:$engine:$commons" load-tests/bench/suite-cpu/CpuPerTestClass.java \
  2> "$work/javac.log" || { cat "$work/javac.log"; exit 1; }
mkdir -p "$work/classes/META-INF/services"
echo bench.CpuPerTestClass > "$work/classes/META-INF/services/org.junit.platform.launcher.TestExecutionListener"
jar cf "$work/listener.jar" -C "$work/classes" .
out="$work/by-class.txt"
status=0
SUITE_CPU_OUT="$out" CI=true /usr/bin/time -f "wall %e s, CPU %U s user + %S s system" ./mvnw -B verify \
  -Dmaven.test.additionalClasspath="$work/listener.jar" "$@" \
  > "$work/build.log" 2>&1 || status=$?
tail -1 "$work/build.log"
echo "exit $status (build log: $work/build.log)"
echo "total CPU s, own, children, wall s, class (dearest 30):"
awk '{printf "%6.1f %6.1f %6.1f %6.1f %s\n", $1 + $2, $1, $2, $3, $4}' "$out" | sort -rn | head -30
awk '{own += $1; children += $2} END {printf "all classes: own %.0f s, children %.0f s\n", own, children}' "$out"
