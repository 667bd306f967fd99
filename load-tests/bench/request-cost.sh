#!/usr/bin/env bash
# Requests/s and server CPU per request of one server jar, in two shapes a fleet produces: 128 in
# flight on each connection, and one at a time on each (a request arriving alone on its connection
# pays its own read, wake-up and flush).
# Usage: load-tests/bench/request-cost.sh [server-jar] [registrations|alone|queries|all] [none|tokens|tls|tokens+tls]
#   (defaults: this checkout's jar, all, none). With "tokens" the server has a token file and every
#   virtual user presents a token (read and write on every namespace) in its SETUP; with "tls" every
#   connection is TLS (a CA and certificates made with openssl for the run). "alone": only the
#   registrations that arrive one at a time on their connections (ALONE_PER_USER=N: N per connection
#   instead of 400, for a run long enough to leave the JIT's work behind).
# Registrations: RegistrationStorm on 50 connections; queries: QueryStorm of a 20-instance service.
# Starts the server (default settings, durable state in a scratch directory; SERVER_ARGS="..." adds
# flags, e.g. SERVER_ARGS="--history-events 0"), warms it with two runs of each shape, and prints
# the third of each. Build first: ./mvnw -q -DskipTests package
set -euo pipefail
cd "$(dirname "$0")/../.."
jar="${1:-reactive-registry-server/target/reactive-registry-server.jar}"
what="${2:-all}"
auth="${3:-none}"
data=$(mktemp -d)
tokens=$(mktemp)
read -r -a server_args <<< "${SERVER_ARGS:-}"
load_args=()
target=tcp://127.0.0.1:7070
if [ "$auth" = tokens ] || [ "$auth" = tokens+tls ]; then
  token=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
  printf '{"tokens":[{"name":"bench","sha256":"%s","permissions":{"*":["read","write"]}}]}' \
    "$(printf %s "$token" | sha256sum | cut -d' ' -f1)" > "$tokens"
  server_args+=(--token-file "$tokens")
  load_args=(--token "$token")
fi
if [ "$auth" = tls ] || [ "$auth" = tokens+tls ]; then
  certs=$(mktemp -d)
  load-tests/bench/make-certs.sh "$certs"
  server_args+=(--tls-cert-file "$certs/server.pem" --tls-key-file "$certs/server.key")
  load_args+=(--ca-file "$certs/ca.pem")
  target=tls://127.0.0.1:7070
fi
java -XX:+ExitOnOutOfMemoryError -jar "$jar" --port 7070 --data-dir "$data" "${server_args[@]}" \
  > target-bench-server.log 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; wait $server 2>/dev/null || true; rm -rf "$data" "$tokens" "${certs:-}" target-bench-server.log' EXIT
for i in $(seq 1 60); do grep -q listening target-bench-server.log 2>/dev/null && break; sleep 0.5; done

run() {
  java -jar load-tests/target/load-tests.jar "$@" --server-pid "$server" --target "$target" "${load_args[@]}" 2>&1 \
    | grep -E "^(RegistrationStorm|QueryStorm|register |query |server CPU)" || true
}
measure() {
  run "$@" > /dev/null
  run "$@" > /dev/null
  echo "== $*"
  run "$@"
}
if [ "$what" = registrations ] || [ "$what" = all ]; then
  measure RegistrationStorm --users 50 --instances 4000 --concurrency 128
fi
if [ "$what" != queries ]; then
  measure RegistrationStorm --users 50 --instances "${ALONE_PER_USER:-400}" --concurrency 1
fi
if [ "$what" = queries ] || [ "$what" = all ]; then
  measure QueryStorm --users 10 --queries 20000 --concurrency 128
  measure QueryStorm --users 50 --queries 400 --concurrency 1
fi
