#!/usr/bin/env bash
# What the audit history costs: server CPU per registration (each one change) and live heap per
# kept change, with the history on (its default, 100,000 changes) and off (--history-events 0),
# in the same run. Each side: a fresh server, RegistrationStorm 200,000 registrations (128 in flight
# on each of 50 connections; their connections then close, 200,000 more changes) twice to warm up
# and once measured, then the live heap after a full GC (the history is full: 100,000 kept).
# A third side appends every change to a --history-file as well.
# Usage: load-tests/bench/history-cost.sh [server-jar]. Build first: ./mvnw -q -DskipTests package
set -euo pipefail
cd "$(dirname "$0")/../.."
jar="${1:-reactive-registry-server/target/reactive-registry-server.jar}"

side() {
  local name="$1"; shift
  local data log
  data=$(mktemp -d)
  log=$(mktemp)
  java -XX:+ExitOnOutOfMemoryError -jar "$jar" --port 7070 --ws-port 7071 --http-port 7080 --data-dir "$data" "$@" \
    > "$log" 2>&1 &
  local server=$!
  for i in $(seq 1 60); do grep -q listening "$log" 2>/dev/null && break; sleep 0.5; done
  local out=""
  for round in 1 2 3; do
    out=$(java -jar load-tests/target/load-tests.jar RegistrationStorm --users 50 --instances 4000 --concurrency 128 \
      --server-pid "$server" --target tcp://127.0.0.1:7070 2>&1 | grep -E "^(register |server CPU)" || true)
  done
  sleep 2 # the last connections' releases are changes too
  jcmd "$server" GC.run > /dev/null
  sleep 1
  local heap kept
  heap=$(jcmd "$server" GC.heap_info | awk '/garbage-first heap/ { for (i = 1; i <= NF; i++) if ($i == "used") { gsub("K,?", "", $(i+1)); print $(i+1) } }')
  kept=$(curl -s http://127.0.0.1:7080/metrics | awk '/^registry_history_events / { print $2 }')
  echo "== $name"
  echo "$out"
  echo "live heap ${heap} KB, history events kept: ${kept}"
  # What the kept events themselves hold: the TraceEvents, their boxed time and revision, the lists
  # of changed fields (the strings they name are the registry's own, shared).
  jcmd "$server" GC.class_histogram | grep -E "message\.TraceEvent|java\.lang\.Long |java\.util\.ArrayDeque" || true
  kill "$server"; wait "$server" 2>/dev/null || true
  rm -rf "$data" "$log"
}
side "history on (default)"
side "history off (--history-events 0)" --history-events 0
file=$(mktemp -d)
side "history on, and appended to a file (--history-file)" --history-file "$file/audit.jsonl"
echo "history file: $(ls -la "$file" | tail -n +2 | awk '{ s += $5 } END { print s }') bytes in $(ls "$file" | wc -l) file(s)"
rm -rf "$file"
