#!/usr/bin/env bash
# What the server jar's class archive (README, "Operating the server") saves: a single durable
# server started from reactive-registry-server/target/reactive-registry-server.jar, on free ports,
# until its log says it is listening, then stopped with SIGTERM. Three ways, each RUNS times:
# plainly, recording the archive (-XX:ArchiveClassesAtExit, written as it stops), and from it
# (-XX:SharedArchiveFile). Prints the wall clock to listening and, from /usr/bin/time, the
# process's CPU from start to exit (with the stop, and the recording's write).
# Usage: load-tests/bench/class-archive-start.sh [RUNS]   (after ./mvnw -q -DskipTests package)
set -euo pipefail
cd "$(dirname "$0")/../.."
jar=reactive-registry-server/target/reactive-registry-server.jar
[ -f "$jar" ] || { echo "no $jar: build first with ./mvnw -q -DskipTests package" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
archive=$work/registry.jsa

once() { # $1: the way; the rest: JVM options
  local way=$1; shift
  rm -rf "$work/data" "$work/log"
  local began; began=$(date +%s%N)
  /usr/bin/time -f "%U %S" -o "$work/cpu" java -XX:+ExitOnOutOfMemoryError "$@" -jar "$jar" --port 0 \
    --ws-port 0 --http-port 0 --raft-port 0 --nacos-port -1 --data-dir "$work/data" > "$work/log" 2>&1 &
  local timer=$!
  until grep -q 'listening' "$work/log"; do
    kill -0 "$timer" 2>/dev/null || { cat "$work/log"; exit 1; }
    sleep 0.01
  done
  local listening; listening=$(date +%s%N)
  pkill -TERM -P "$timer" java
  wait "$timer" || true # the JVM's status after SIGTERM is 143
  awk -v way="$way" -v ms=$(( (listening - began) / 1000000 )) \
    '/^[0-9.]+ [0-9.]+$/ { cpu = $1 + $2 }
     END { printf "%-10s to listening %5d ms, CPU start to exit %5.2f s\n", way, ms, cpu }' "$work/cpu"
}

for _ in $(seq 1 "${1:-3}"); do
  once plain
  rm -f "$archive"
  once recording "-XX:ArchiveClassesAtExit=$archive" -Xlog:cds=off -Xlog:cds+dynamic=off
  once archived "-XX:SharedArchiveFile=$archive"
done
