#!/usr/bin/env bash
# What the cluster's operations cost with N durable values (default 100,000 persistent instances):
# the backup (time, size), adding a fourth member while writers write (time until it holds the
# state; write throughput before and during the change), and removing it again.
# Usage: load-tests/bench/cluster-operations.sh [values]
#   (after ./mvnw -q -DskipTests package; uses cluster/cluster.sh's ports, 7070-7390)
set -euo pipefail
cd "$(dirname "$0")/../.."
values="${1:-100000}"
storm() { # $1 service, $2 instances per user, $3 concurrency, $4 target
  java -jar load-tests/target/load-tests.jar RegistrationStorm --users 10 --instances "$2" --concurrency "$3" \
    --persistent 1 --service "$1" --target "$4" --progress-seconds 60
}
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
trap 'cluster/cluster.sh clean > /dev/null' EXIT
# Room for the values and the writes during the change (the members read these from the environment).
export REGISTRY_MAX_PERSISTENT_INSTANCES=$(( values + 200000 ))
export REGISTRY_MAX_PERSISTENT_INSTANCES_PER_NAMESPACE=$(( values + 200000 ))
cluster/cluster.sh clean > /dev/null
cluster/cluster.sh start > /dev/null
# Checks off: this measures the state's size, not 100,000 health checks a round.
curl -fsS -X POST http://127.0.0.1:7080/api/v1/admin.service.create \
  -d '{"service":"bulk","ephemeral":false,"metadata":{"health.check.enabled":"false"}}' > /dev/null
curl -fsS -X POST http://127.0.0.1:7080/api/v1/admin.service.create \
  -d '{"service":"during","ephemeral":false,"metadata":{"health.check.enabled":"false"}}' > /dev/null
begin=$(date +%s%N)
storm bulk $(( values / 10 )) 64 tcp://127.0.0.1:7070,tcp://127.0.0.1:7170,tcp://127.0.0.1:7270 \
  | grep -E "^register |^FAIL" | sed 's/^/load: /' || true
echo "load of $values durable values: $(ms "$begin") ms"

begin=$(date +%s%N)
curl -fsS -o target-bench.backup http://127.0.0.1:7180/api/v1/backup
echo "backup from n2: $(ms "$begin") ms, $(du -h target-bench.backup | cut -f1) ($(stat -c %s target-bench.backup) bytes): $(head -c 120 target-bench.backup)"
rm -f target-bench.backup

during() { # 10 writers on n2 and n3, one registration at a time each, for $1 ms
  java -jar load-tests/target/load-tests.jar RegistrationStorm --users 10 --instances 100000 --concurrency 1 \
    --persistent 1 --service during --target tcp://127.0.0.1:7170,tcp://127.0.0.1:7270 --max-duration-ms "$1" \
    --progress-seconds 60
}
echo "writes without a change (20 s): $(during 20000 2>&1 | grep -E '^register ' || true)"
during 30000 > target-bench-during.log 2>&1 &
writers=$!
sleep 5
begin=$(date +%s%N)
cluster/cluster.sh add n4 > target-bench-add.log 2>&1 || { cat target-bench-add.log; exit 1; }
echo "add n4 (JVM start, join, snapshot or log, committed, ready): $(ms "$begin") ms"
echo "n4's view: $(curl -fsS -X POST http://127.0.0.1:7380/api/v1/service.list -d '{"prefix":"bulk"}')"
wait $writers || true
echo "writes during the addition (30 s, n4 added 5 s in):"
grep -E "^register " target-bench-during.log || tail -5 target-bench-during.log
begin=$(date +%s%N)
cluster/cluster.sh remove n4 > /dev/null
echo "remove n4 (committed, stopped): $(ms "$begin") ms"
rm -f target-bench-during.log target-bench-add.log
