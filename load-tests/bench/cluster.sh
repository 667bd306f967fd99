#!/usr/bin/env bash
# What a three-node cluster on this machine costs and how it behaves under faults:
#   1. persistent registrations/s through the cluster (virtual users spread over the three members),
#      128 in flight per connection and one at a time, beside a single server on the same machine;
#   2. failover: the leader is killed (SIGKILL) while writers on the other members register one at a
#      time; the longest registration is the time from the kill to the first write committed after it;
#   3. catch-up: a member stopped (SIGSTOP) while 10,000 writes commit, then continued (SIGCONT); the
#      time until it has applied everything the leader committed.
# Usage: load-tests/bench/cluster.sh   (after ./mvnw -q -DskipTests package; uses ports 7070-7290)
set -euo pipefail
cd "$(dirname "$0")/../.."
load() { java -jar load-tests/target/load-tests.jar "$@" 2>&1 | grep -E "^(register|FAIL)" || true; }
members=tcp://127.0.0.1:7070,tcp://127.0.0.1:7170,tcp://127.0.0.1:7270
# Room for every registration of the runs below (the default quota is 20,000 per namespace).
export REGISTRY_MAX_PERSISTENT_INSTANCES=1000000 REGISTRY_MAX_PERSISTENT_INSTANCES_PER_NAMESPACE=1000000
field() { sed -n "s/.*\"$2\":\([0-9]*\).*/\1/p" <<< "$1" | head -1; }
status() { curl -fsS "http://127.0.0.1:$(( 7080 + (${1#n} - 1) * 100 ))/api/v1/cluster"; }
leader() { status n1 | sed -n 's/.*"leader":"\(n[0-9]\)".*/\1/p'; }

echo "== single server"
data=$(mktemp -d)
java -XX:+ExitOnOutOfMemoryError -jar reactive-registry-server/target/reactive-registry-server.jar \
  --data-dir "$data" > target-bench-server.log 2>&1 &
single=$!
trap 'kill $single 2>/dev/null || true; rm -rf "$data" target-bench-server.log; cluster/cluster.sh clean > /dev/null' EXIT
for _ in $(seq 1 60); do grep -q listening target-bench-server.log && break; sleep 0.5; done
load RegistrationStorm --users 50 --instances 400 --concurrency 64 --persistent 1 --service warm > /dev/null
echo "-- 50 connections x 64 in flight"
load RegistrationStorm --users 50 --instances 1000 --concurrency 64 --persistent 1 --service many --server-pid $single
echo "-- 50 connections x 1 in flight"
load RegistrationStorm --users 50 --instances 100 --concurrency 1 --persistent 1 --service alone --server-pid $single
kill $single; wait $single 2>/dev/null || true

echo "== three-node cluster"
cluster/cluster.sh clean > /dev/null
cluster/cluster.sh start > /dev/null
load RegistrationStorm --users 50 --instances 400 --concurrency 64 --persistent 1 --service warm --target $members > /dev/null
echo "-- 50 connections x 64 in flight, spread over the members"
load RegistrationStorm --users 50 --instances 1000 --concurrency 64 --persistent 1 --service many --target $members
echo "-- 50 connections x 1 in flight, spread over the members"
load RegistrationStorm --users 50 --instances 100 --concurrency 1 --persistent 1 --service alone --target $members

echo "== failover"
old=$(leader)
others=$(for n in n1 n2 n3; do [ "$n" != "$old" ] && echo "tcp://127.0.0.1:$(( 7070 + (${n#n} - 1) * 100 ))"; done | paste -sd,)
java -jar load-tests/target/load-tests.jar RegistrationStorm --users 10 --instances 500 --concurrency 1 \
  --persistent 1 --service failover --target "$others" > target-bench-failover.log 2>&1 &
writers=$!
sleep 5
kill -9 "$(cat cluster/run/$old.pid)"
echo "killed the leader $old at $(date +%T.%N)"
wait $writers || true
grep -E "^(register|FAIL)" target-bench-failover.log || true
echo "(the longest registration, max, spans the kill: the time from kill -9 to a write committed after it)"
rm -f target-bench-failover.log
new=$(for n in n1 n2 n3; do [ "$n" != "$old" ] && echo $n; done | head -1)
echo "new leader: $(status "$new" | sed -n 's/.*"leader":"\(n[0-9]\)".*/\1/p')"
cluster/cluster.sh restart "$old" > /dev/null

echo "== catch-up of a member that missed 10,000 writes"
lead=$(leader)
behind=$(for n in n1 n2 n3; do [ "$n" != "$lead" ] && echo $n; done | head -1)
kill -STOP "$(cat cluster/run/$behind.pid)"
port=$(( 7070 + (${lead#n} - 1) * 100 ))
java -jar load-tests/target/load-tests.jar RegistrationStorm --users 10 --instances 1000 --concurrency 16 \
  --persistent 1 --service catch-up --target "tcp://127.0.0.1:$port" 2>&1 | grep -E "^register" || true
target=$(field "$(status "$lead")" commitIndex)
kill -CONT "$(cat cluster/run/$behind.pid)"
start=$(date +%s%N)
while true; do
  applied=$(field "$(status "$behind" 2>/dev/null || echo '{}')" appliedIndex)
  [ -n "$applied" ] && [ "$applied" -ge "$target" ] && break
  sleep 0.05
done
echo "$behind applied up to index $target in $(( ($(date +%s%N) - start) / 1000000 )) ms after SIGCONT"
