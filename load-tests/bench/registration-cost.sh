#!/usr/bin/env bash
# Registrations/s and server CPU per registration of one server jar, in two shapes a fleet produces:
# 128 registrations in flight on each of 50 connections, and one at a time on each of 50 (a
# registration arriving alone on its connection pays its own read, wake-up and flush).
# Usage: load-tests/bench/registration-cost.sh [server-jar]   (default: this checkout's jar)
# Starts the server (default settings, durable state in a scratch directory), warms it with two
# runs of each shape, and prints the third of each. Build first: mvn -q -DskipTests package
set -euo pipefail
cd "$(dirname "$0")/../.."
jar="${1:-reactive-registry-server/target/reactive-registry-server.jar}"
data=$(mktemp -d)
java -XX:+ExitOnOutOfMemoryError -jar "$jar" --port 7070 --data-dir "$data" > target-bench-server.log 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; wait $server 2>/dev/null || true; rm -rf "$data" target-bench-server.log' EXIT
for i in $(seq 1 60); do grep -q listening target-bench-server.log 2>/dev/null && break; sleep 0.5; done

run() {
  java -jar load-tests/target/load-tests.jar RegistrationStorm --users 50 --server-pid "$server" "$@" 2>&1 \
    | grep -E "^(RegistrationStorm|register |server CPU)" || true
}
for shape in "--instances 4000 --concurrency 128" "--instances 400 --concurrency 1"; do
  run $shape > /dev/null
  run $shape > /dev/null
  echo "== RegistrationStorm --users 50 $shape"
  run $shape
done
