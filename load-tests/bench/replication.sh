#!/usr/bin/env bash
# Ephemeral instances across a three-node cluster on this machine (cluster/cluster.sh's ports):
#   1. replication lag: a publisher on n1 changes its instance 1,000 (then 200) times a second for
#      10 s while 10 subscribers on n2 and n3 time each change (push p50/p99; a peer that lags gets
#      the latest change of an instance, so fewer than every change may arrive); then the same with
#      everything on one node of the same cluster, for comparison;
#   2. ephemeral registrations/s spread over the three members (64 in flight per connection, and one
#      at a time), beside a single server on the same machine;
#   3. heap per copy: 100,000 instances held on n1; n2's live heap (after a full GC) before and while
#      it holds their copies, and n1's for the instances it owns.
# Usage: load-tests/bench/replication.sh   (after ./mvnw -q -DskipTests package; uses ports 7070-7290)
#        PART=heap load-tests/bench/replication.sh   only the third, on a freshly started cluster
set -euo pipefail
cd "$(dirname "$0")/../.."
load() { java -jar load-tests/target/load-tests.jar "$@" 2>&1 | grep -E "^(register|push|update|FAIL)" || true; }
members=tcp://127.0.0.1:7070,tcp://127.0.0.1:7170,tcp://127.0.0.1:7270
live_heap_kb() {
  jcmd "$1" GC.run > /dev/null
  sleep 1
  jcmd "$1" GC.heap_info | awk '/garbage-first heap/ { for (i = 1; i <= NF; i++) if ($i == "used") { gsub("K,?", "", $(i+1)); print $(i+1) } }'
}

part() { [ -z "${PART:-}" ] || [ "$PART" = "$1" ]; }
trap 'rm -f target-bench-hold.log; cluster/cluster.sh clean > /dev/null' EXIT
if part load; then
echo "== single server"
java -XX:+ExitOnOutOfMemoryError -jar reactive-registry-server/target/reactive-registry-server.jar --in-memory \
  > target-bench-server.log 2>&1 &
single=$!
trap 'kill $single 2>/dev/null || true; rm -f target-bench-server.log target-bench-hold.log; cluster/cluster.sh clean > /dev/null' EXIT
for _ in $(seq 1 60); do grep -q listening target-bench-server.log && break; sleep 0.5; done
load RegistrationStorm --users 50 --instances 400 --concurrency 64 --service warm > /dev/null
echo "-- ephemeral registrations, 50 connections x 64 in flight"
load RegistrationStorm --users 50 --instances 2000 --concurrency 64 --service many
echo "-- ephemeral registrations, 50 connections x 1 in flight"
load RegistrationStorm --users 50 --instances 200 --concurrency 1 --service alone
kill $single; wait $single 2>/dev/null || true

echo "== three-node cluster"
cluster/cluster.sh clean > /dev/null
cluster/cluster.sh start > /dev/null
load RegistrationStorm --users 50 --instances 400 --concurrency 64 --service warm --target $members > /dev/null
load SubscriptionFanOut --subscribers 10 --updates 2000 --interval-ms 1 --publisher-member 0 --target $members > /dev/null
for interval in 1 5; do
  updates=$(( 10000 / interval ))
  echo "-- replication lag: publisher on n1, 10 subscribers on n2 and n3, $(( 1000 / interval )) changes/s for 10 s"
  load SubscriptionFanOut --subscribers 10 --updates $updates --interval-ms $interval --publisher-member 0 --target $members
  echo "-- the same on one node (publisher and subscribers on n1)"
  load SubscriptionFanOut --subscribers 10 --updates $updates --interval-ms $interval --target tcp://127.0.0.1:7070
done
echo "-- ephemeral registrations spread over the members, 50 connections x 64 in flight"
load RegistrationStorm --users 50 --instances 2000 --concurrency 64 --service many --target $members
echo "-- ephemeral registrations spread over the members, 50 connections x 1 in flight"
load RegistrationStorm --users 50 --instances 200 --concurrency 1 --service alone --target $members

fi

if part heap; then
[ -n "${PART:-}" ] && { cluster/cluster.sh clean > /dev/null; cluster/cluster.sh start > /dev/null; }
echo "== heap per copy"
n1=$(cat cluster/run/n1.pid)
n2=$(cat cluster/run/n2.pid)
owner_before=$(live_heap_kb "$n1")
copies_before=$(live_heap_kb "$n2")
java -jar load-tests/target/load-tests.jar RegistrationStorm --users 50 --instances 2000 --concurrency 64 \
  --service held --hold-ms 40000 --target tcp://127.0.0.1:7070 > target-bench-hold.log 2>&1 &
holder=$!
sleep 25
owner_during=$(live_heap_kb "$n1")
copies_during=$(live_heap_kb "$n2")
held=$(curl -fsS http://127.0.0.1:7180/api/v1/cluster | sed -n 's/.*"node":"n1","connected":true,"epoch":[0-9]*,"copies":\([0-9]*\).*/\1/p')
echo "n2 holds ${held:-?} copies of n1's instances"
echo "n1 (owner): live heap ${owner_before} KB -> ${owner_during} KB: $(( (owner_during - owner_before) * 1024 / 100000 )) bytes per owned instance"
echo "n2 (copies): live heap ${copies_before} KB -> ${copies_during} KB: $(( (copies_during - copies_before) * 1024 / 100000 )) bytes per copy"
wait $holder || true
fi
