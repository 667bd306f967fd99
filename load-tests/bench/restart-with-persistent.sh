#!/usr/bin/env bash
# Measures how long a server takes to come back after a crash with N persistent instances on disk.
# Usage: load-tests/bench/restart-with-persistent.sh [instances, default 10000] [--graceful]
# Registers the instances with RegistrationStorm --persistent 1 into a fresh data directory, kills
# the server with SIGKILL (or stops it with SIGTERM when --graceful: a snapshot is then written),
# starts it again on the same directory, and reports the time from process start to "listening"
# (storage replayed, state restored, ports open) and the persistent instances it then serves.
set -euo pipefail
cd "$(dirname "$0")/../.."
instances="${1:-10000}"
mode="${2:-}"
data=load-tests/target/bench-restart-data
rm -rf "$data"
jar=reactive-registry-server/target/reactive-registry-server.jar

start_server() {
  java -jar "$jar" --host 127.0.0.1 --data-dir "$data" > "$1" 2>&1 &
  server=$!
  until grep -q listening "$1"; do
    kill -0 "$server" 2>/dev/null || { cat "$1"; exit 1; }
    sleep 0.05
  done
}
trap 'kill -9 $server 2>/dev/null || true' EXIT

start_server target-bench-first.log
java -jar load-tests/target/load-tests.jar RegistrationStorm --users 10 --instances $(( instances / 10 )) \
  --concurrency 64 --persistent 1 --server-pid "$server" | grep -E "^register |PASS|FAIL"
if [ "$mode" = "--graceful" ]; then
  kill -TERM "$server"; wait "$server" || true
else
  kill -9 "$server"; wait "$server" 2>/dev/null || true
fi
echo "data directory: $(du -sh "$data" | cut -f1)"

begin=$(date +%s%N)
start_server target-bench-second.log
end=$(date +%s%N)
grep -o "restored .*" target-bench-second.log
echo "restart to listening: $(( (end - begin) / 1000000 )) ms (JVM start included)"
curl -s localhost:7080/metrics | grep '^registry_instances{.*persistent' || true
snapshot=$(ls "$data"/*/sm/ | grep -o "snapshot\.[0-9]*_[0-9]*$" | sort -t_ -k2 -n | tail -1 || true)
echo "latest snapshot: ${snapshot:-none (the log was replayed)}"
rm -f target-bench-first.log target-bench-second.log
