#!/usr/bin/env bash
# Measures the server's live heap (after a full GC) before and while a simulation holds its load.
# Usage: load-tests/bench/heap-under-load.sh <seconds-until-load-is-in-place> <Simulation> [params...]
# Starts its own server (reactive-registry-server.jar, default settings) and stops it afterwards.
set -euo pipefail
cd "$(dirname "$0")/../.."
settle="$1"; shift
ulimit -n 65536 2>/dev/null || true  # where allowed: 20,000 connections need more than 20,000 descriptors
# 19,000 connections from 127.0.0.1: above the default per-address limit (5,000)
java -XX:+ExitOnOutOfMemoryError -jar reactive-registry-server/target/reactive-registry-server.jar --port 7070 --max-connections-per-address 20000 --data-dir load-tests/target/bench-data > target-bench-server.log 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; rm -f target-bench-server.log' EXIT
sleep 4

live_heap_kb() {
  jcmd "$server" GC.run > /dev/null
  sleep 1
  jcmd "$server" GC.heap_info | awk '/garbage-first heap/ { for (i = 1; i <= NF; i++) if ($i == "used") { gsub("K,?", "", $(i+1)); print $(i+1) } }'
}

before=$(live_heap_kb)
java -jar load-tests/target/load-tests.jar "$@" --server-pid "$server" > target-bench-load.log 2>&1 &
load=$!
sleep "$settle"
during=$(live_heap_kb)
wait "$load" || true
grep -E "^(connect|register) |PASS|FAIL" target-bench-load.log || true
rm -f target-bench-load.log
echo "live heap before: ${before} KB, while holding: ${during} KB, difference: $(( during - before )) KB"
