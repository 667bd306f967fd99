#!/usr/bin/env bash
# What mutual TLS costs a three-node cluster's durable writes: persistent registrations/s through
# the three members (50 connections x 64 in flight, then one at a time), first with plain TCP on
# every port, then with --tls-cert-file/--tls-key-file/--tls-client-ca-file on every member (the
# Raft links, the replication links and the clients' connections all mutual TLS).
# Usage: load-tests/bench/cluster-tls.sh   (after ./mvnw -q -DskipTests package; uses ports 7070-7290)
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
pids=()
stop() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done; pids=(); }
trap 'stop; rm -rf "$work"' EXIT
load-tests/bench/make-certs.sh "$work"
export REGISTRY_MAX_PERSISTENT_INSTANCES=1000000 REGISTRY_MAX_PERSISTENT_INSTANCES_PER_NAMESPACE=1000000
members="n1=127.0.0.1:7070/7090,n2=127.0.0.1:7170/7190,n3=127.0.0.1:7270/7290"

start() { # $1: plain or tls
  local tls=()
  [ "$1" = tls ] && tls=(--tls-cert-file "$work/server.pem" --tls-key-file "$work/server.key"
    --tls-client-ca-file "$work/ca.pem")
  for i in 1 2 3; do
    local shift_by=$(( (i - 1) * 100 ))
    java -XX:+ExitOnOutOfMemoryError -jar reactive-registry-server/target/reactive-registry-server.jar \
      --node-id "n$i" --members "$members" --host 127.0.0.1 --ws-port $(( 7071 + shift_by )) \
      --http-port $(( 7080 + shift_by )) --nacos-port -1 --data-dir "$work/$1-n$i" "${tls[@]}" > "$work/$1-n$i.log" 2>&1 &
    pids+=($!)
  done
  for i in 1 2 3; do
    for _ in $(seq 1 120); do grep -q listening "$work/$1-n$i.log" && break; sleep 0.5; done
    grep -q listening "$work/$1-n$i.log" || { echo "n$i did not start:"; tail -20 "$work/$1-n$i.log"; exit 1; }
  done
}

run() { # $1: scheme, then extra load-kit arguments
  local scheme=$1 targets
  shift
  targets="$scheme://127.0.0.1:7070,$scheme://127.0.0.1:7170,$scheme://127.0.0.1:7270"
  load() { java -jar load-tests/target/load-tests.jar RegistrationStorm --persistent 1 --target "$targets" "$@" 2>&1 \
    | grep -E "^(register|FAIL)" || true; }
  load --users 50 --instances 400 --concurrency 64 --service warm "$@" > /dev/null
  echo "-- 50 connections x 64 in flight, spread over the members"
  load --users 50 --instances 1000 --concurrency 64 --service many "$@"
  echo "-- 50 connections x 1 in flight, spread over the members"
  load --users 50 --instances 100 --concurrency 1 --service alone "$@"
}

echo "== three members, plain TCP"
start plain
run tcp
stop
echo "== three members, mutual TLS on every link"
start tls
run tls --ca-file "$work/ca.pem" --cert-file "$work/server.pem" --key-file "$work/server.key"
grep -h "accepts any peer" "$work"/tls-n*.log || echo "(no member warned that its Raft port accepts any peer)"
