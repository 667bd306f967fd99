#!/usr/bin/env bash
# Two server jars measured by request-cost.sh in alternating passes (A, B, A, B, ...), so that the
# machine's drift over the run falls on both alike: what a change to the request path costs.
# Usage: load-tests/bench/request-cost-ab.sh <jar-a> <jar-b> [rounds] [registrations|alone|queries|all]
#   (defaults: 2 rounds, all shapes). Each pass starts its own server and warms it (request-cost.sh).
#   Build first: ./mvnw -q -DskipTests package; a jar of another commit: check it out in a worktree
#   (git worktree add /tmp/before <commit>) and build its server the same way.
set -euo pipefail
a="$1"
b="$2"
rounds="${3:-2}"
what="${4:-all}"
for round in $(seq 1 "$rounds"); do
  for jar in "$a" "$b"; do
    echo "### round $round: $jar"
    "$(dirname "$0")/request-cost.sh" "$jar" "$what"
  done
done
