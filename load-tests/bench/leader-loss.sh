#!/usr/bin/env bash
# How long durable writes pause when the leader goes, seen from outside: writers on the two other
# members register persistent instances one at a time (10 connections; their checks off: nothing
# listens on their addresses, and 3,000 failing checks a round would commit 3,000 health verdicts
# beside the writes), and the longest registration is the pause (it spans the leader's loss). Two ways to lose it, each three times:
#   unplanned  kill -9 of the leader: the others elect one after the election timeout;
#   planned    SIGTERM of the leader: it hands leadership over first (no election);
# and, to compare with, a round in which nothing happens (the writers' own longest registration).
# Each round also reads the writers' per-second latency log (leader-loss/PauseAroundLoss.java): the
# longest registration completing in the 5 s from the loss, and the writers' own warm tail beside it.
# Usage: load-tests/bench/leader-loss.sh   (after ./mvnw -q -DskipTests package; uses ports 7070-7290)
set -euo pipefail
cd "$(dirname "$0")/../.."
status() { curl -fsS "http://127.0.0.1:$(( 7080 + (${1#n} - 1) * 100 ))/api/v1/cluster"; }
leader() { # the leader's id, once the members agree on one (up to 20 s)
  local found
  for _ in $(seq 1 40); do
    for n in n1 n2 n3; do
      found=$(status "$n" 2>/dev/null | sed -n 's/.*"leader":"\(n[0-9]\)".*/\1/p' | head -1) || true
      [ -n "$found" ] && echo "$found" && return
    done
    sleep 0.5
  done
  echo "no leader after 20 s" >&2
  return 1
}
# The members' logs (each member's restarts appended) are kept in target-bench-loss-logs/.
trap 'rm -rf target-bench-loss-logs; mkdir -p target-bench-loss-logs; cp cluster/run/*.log target-bench-loss-logs/ 2> /dev/null; cluster/cluster.sh clean > /dev/null' EXIT
# The members (started and restarted below) keep every round's persistent instances (nine rounds of
# 8,000 by default): above the default quotas of 20,000 in a namespace and 100,000 in all.
export REGISTRY_MAX_PERSISTENT_INSTANCES=1000000 REGISTRY_MAX_PERSISTENT_INSTANCES_PER_NAMESPACE=1000000
cluster/cluster.sh clean > /dev/null
cluster/cluster.sh start > /dev/null

lose() { # $1: kill, stop or none (the leader stays)
  local old others writers
  old=$(leader)
  others=$(for n in n1 n2 n3; do if [ "$n" != "$old" ]; then echo "tcp://127.0.0.1:$(( 7070 + (${n#n} - 1) * 100 ))"; fi; done | paste -sd,)
  rm -rf target-bench-loss-reports
  java -jar load-tests/target/load-tests.jar RegistrationStorm --users 10 --instances "${INSTANCES:-800}" --concurrency 1 \
    --persistent 1 --service "loss-$1-$RANDOM" --metadata '"health.check.enabled":"false"' --pace-ms "${PACE_MS:-0}" \
    --target "$others" --reports-dir target-bench-loss-reports \
    > target-bench-loss.log 2>&1 &
  writers=$!
  # The leader goes once the writers are writing: on a busy machine their JVM takes seconds to
  # send its first registration, and a leader lost before that pauses nothing (its first progress
  # line, after 5 s, shows a rate above zero; then a second more).
  for _ in $(seq 1 60); do
    awk -F'|' '/^\[ *[0-9]+ s\]/ && $2 + 0 > 0 { found = 1 } END { exit !found }' target-bench-loss.log && break
    sleep 0.5
  done
  sleep 1
  lost_at=$(date +%s%3N)
  # A round whose writers were done before the loss measured nothing: said instead of its figures.
  local void=
  kill -0 "$writers" 2> /dev/null || void=1
  [ "$1" = none ] || cluster/cluster.sh "$1" "$old" > /dev/null
  wait $writers || true
  if [ -n "$void" ]; then
    echo "$1 (leader $old): VOID, the writers had finished before the leader went (raise INSTANCES)"
  else
    echo "$1 (leader $old): $(grep -E '^register' target-bench-loss.log | head -1)"
    # The longest registration is the run's, cold start included; this splits the warm run at the
    # loss (for "none", at the moment the leader would have gone).
    echo "  $(java -cp load-tests/target/load-tests.jar load-tests/bench/leader-loss/PauseAroundLoss.java \
      target-bench-loss-reports/*/register.hlog "$lost_at")"
  fi
  grep -E '^FAIL|refused|did not commit' target-bench-loss.log | sort | uniq -c | head -5 || true
  rm -rf target-bench-loss.log target-bench-loss-reports
  [ "$1" = none ] && return
  cluster/cluster.sh restart "$old" > /dev/null || echo "restart of $old failed: see cluster/run/$old.log"
  sleep 3
}

# KINDS="stop none" ROUNDS=5 load-tests/bench/leader-loss.sh: other rounds (default: three of each);
# INSTANCES=800: each writer's registrations a round (the round must outlast the loss: 8,000 take
# about 15 s at full speed here; with PACE_MS=50, 300 are enough); PACE_MS=50: each writer waits
# that long after each answer (a steady load the members keep up with; by default they write as
# fast as answers come, which keeps both cores busy)
for _ in $(seq 1 "${ROUNDS:-3}"); do
  for kind in ${KINDS:-kill stop none}; do
    lose "$kind"
  done
done
echo "(max: the run's longest registration, its cold start included; around-loss-ms: the longest completing"
echo " from the loss to 5 s after it; own-tail-ms, own-p99-ms: the others, the writers' first 3 s left out)"
