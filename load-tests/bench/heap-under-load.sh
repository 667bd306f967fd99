#!/usr/bin/env bash
# Measures the server's live heap (after a full GC) before and while a simulation holds its load.
# Usage: [TLS=1] load-tests/bench/heap-under-load.sh <seconds-until-load-is-in-place> <Simulation> [params...]
# Starts its own server (reactive-registry-server.jar, default settings) and stops it afterwards.
# With TLS=1 every connection is TLS (a CA and a server certificate made with openssl for the run).
# Also prints the server's resident memory (RSS): TLS engines keep part of their state off the heap.
set -euo pipefail
cd "$(dirname "$0")/../.."
settle="$1"; shift
ulimit -n 65536 2>/dev/null || true  # where allowed: 20,000 connections need more than 20,000 descriptors
# 19,000 connections from 127.0.0.1: above the default per-address limit (5,000)
server_args=()
load_args=()
certs=$(mktemp -d)
if [ "${TLS:-0}" = 1 ]; then
  load-tests/bench/make-certs.sh "$certs"
  server_args=(--tls-cert-file "$certs/server.pem" --tls-key-file "$certs/server.key")
  load_args=(--target tls://127.0.0.1:7070 --ca-file "$certs/ca.pem")
fi
java -XX:+ExitOnOutOfMemoryError -jar reactive-registry-server/target/reactive-registry-server.jar --port 7070 --max-connections-per-address 20000 --data-dir load-tests/target/bench-data "${server_args[@]}" > target-bench-server.log 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; rm -rf target-bench-server.log "$certs"' EXIT
sleep 4

live_heap_kb() {
  jcmd "$server" GC.run > /dev/null
  sleep 1
  jcmd "$server" GC.heap_info | awk '/garbage-first heap/ { for (i = 1; i <= NF; i++) if ($i == "used") { gsub("K,?", "", $(i+1)); print $(i+1) } }'
}

rss_kb() {
  awk '/^VmRSS/ { print $2 }' "/proc/$server/status"
}

before=$(live_heap_kb)
rss_before=$(rss_kb)
java -jar load-tests/target/load-tests.jar "$@" "${load_args[@]}" --server-pid "$server" > target-bench-load.log 2>&1 &
load=$!
sleep "$settle"
during=$(live_heap_kb)
rss_during=$(rss_kb)
wait "$load" || true
grep -E "^(connect|register) |PASS|FAIL" target-bench-load.log || true
rm -f target-bench-load.log
echo "live heap before: ${before} KB, while holding: ${during} KB, difference: $(( during - before )) KB"
echo "resident memory before: ${rss_before} KB, while holding: ${rss_during} KB, difference: $(( rss_during - rss_before )) KB"
