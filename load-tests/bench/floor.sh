#!/usr/bin/env bash
# The registry beside its floor, in one run: the same load kit simulations against the registry's
# jar and against FloorServer (the bare RSocket transport doing the same frames without the
# registry), each server in its own JVM with the same flags, on this machine's two cores. Each
# shape is warmed twice on both, then measured RUNS times, alternating registry and floor.
# Prints one line per measured run: server CPU, its JIT and GC shares, and the CPU per unit of
# work without them; the generator's CPU; for pushes, the end-to-end latency and the registry's
# own (its push-latency histogram, read from its /metrics); RESULTS.md reports the ratios.
#   load-tests/bench/floor.sh [registrations|heartbeats|fanout|all|fanout-10k]   (RUNS=3 by default;
#   REGISTRY_JAR=<jar> measures another build of the server against the same floor)
# Build first: ./mvnw -q -B -DskipTests package -pl reactive-registry-server,load-tests -am
set -euo pipefail
cd "$(dirname "$0")/../.."
what="${1:-all}"
runs="${RUNS:-3}"
# The load kit runs with C1 only: a fresh generator JVM per run otherwise spends a third of its CPU
# in the C2 compiler during the run, on the cores the server needs (measured in a fan-out run:
# 8.9-9.7 s of generator CPU with C2, 7.7-8.3 s without; RESULTS.md, 2026-12-06). The same for
# the registry's runs and the floor's. Its CPU is printed beside the server's.
kit=(/usr/bin/time -f "generator CPU: %U s user, %S s system" java -Xmx4g -XX:TieredStopAtLevel=1
  -jar load-tests/target/load-tests.jar)
# The heap is touched before the run (AlwaysPreTouch): a long-running server has touched its heap
# long ago, while a fresh one's first pass through it costs the kernel a zeroed page per 4 KiB
# (16 % of the registry's samples in a 30 s heartbeat run, on the threads doing the work).
jvm=(java -Xmx1g -Xms1g -XX:+UseG1GC -XX:+AlwaysPreTouch -XX:+ExitOnOutOfMemoryError)
registry_jar="${REGISTRY_JAR:-reactive-registry-server/target/reactive-registry-server.jar}"
for port in 17070 17080 17170 17180; do
  if (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null; then
    echo "port $port is taken (an earlier run's server still stopping?): free it first" >&2
    exit 1
  fi
done

"${jvm[@]}" -jar "$registry_jar" --in-memory --host 127.0.0.1 \
  --port 17070 --ws-port 0 --http-port 17080 --nacos-port -1 --self-preservation false \
  --max-connections-per-address 20000 > target-floor-registry.log 2>&1 &
registry=$!
"${jvm[@]}" -cp load-tests/target/load-tests.jar io.reactiveregistry.loadtest.floor.FloorServer \
  --rsocket-port 17170 --http-port 17180 > target-floor-floor.log 2>&1 &
floor=$!
trap 'kill $registry $floor 2>/dev/null || true; wait $registry $floor 2>/dev/null || true' EXIT
for port in 17070 17170; do
  for _ in $(seq 1 150); do (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.2; done
done

# run <label> <pid> <port> <units-per-run> <unit name> <simulation and its arguments...>
run() {
  local label=$1 pid=$2 port=$3 units=$4 unit=$5
  shift 5
  local out
  out=$("${kit[@]}" "$@" --target tcp://127.0.0.1:$port --server-pid "$pid" \
    --metrics-url "http://127.0.0.1:$((port + 10))/metrics" 2>&1) || true
  echo "$out" | grep -E "^(server CPU|error|FAIL)" | sed "s/^/    $label: /" >&2
  echo "$out" | grep -E "^generator CPU" | tr '\n' ' ' | sed "s/^/$label  /"; echo
  echo "$out" | { grep -E "^server push:" || true; } | sed "s/^/$label  /"
  echo "$out" | awk -v label="$label" -v units="$units" -v unit="$unit" '
    /^push / { printf "%-9s push p50 %s ms, p99 %s ms, max %s ms (%s of %s delivered)\n", label, $6, $9, $10, $3, $2 }
    /^server CPU:/ {
      cpu = $3; jit = 0; gc = 0
      if (match($0, /JIT compilers [0-9.]+ s/)) { split(substr($0, RSTART, RLENGTH), a, " "); jit = a[3] }
      if (match($0, /GC [0-9.]+ s/)) { split(substr($0, RSTART, RLENGTH), b, " "); gc = b[2] }
      printf "%-9s server CPU %6.2f s (JIT %5.2f, GC %5.2f): %7.2f µs per %s, %7.2f without JIT and GC\n",
        label, cpu, jit, gc, cpu * 1e6 / units, unit, (cpu - jit - gc) * 1e6 / units
    }'
}

# shape <name> <units> <unit> <simulation and arguments...>
shape() {
  local name=$1 units=$2 unit=$3
  shift 3
  echo "== $name: $*"
  for i in 1 2; do
    run registry $registry 17070 "$units" "$unit" "$@" > /dev/null
    run floor $floor 17170 "$units" "$unit" "$@" > /dev/null
  done
  for i in $(seq 1 "$runs"); do
    run registry $registry 17070 "$units" "$unit" "$@"
    run floor $floor 17170 "$units" "$unit" "$@"
  done
}

n=0
if [ "$what" = registrations ] || [ "$what" = all ]; then
  # 50 connections, one registration in flight on each, 2,000 each: 100,000 registrations.
  shape "lone registrations" 100000 registration LoneRegistrations --users 50 --instances 2000
fi
if [ "$what" = heartbeats ] || [ "$what" = all ]; then
  # 500 connections with 20 instances each, one heartbeat a second from each connection, 30 s.
  shape "lone heartbeats (per 1,000)" 60 "1,000 heartbeats (with the run's registrations)" \
    LoneHeartbeats --duration-ms 30000
fi
if [ "$what" = fanout ] || [ "$what" = all ]; then
  # One change every 50 ms to 1,000 subscribers on 1,000 connections: 200,000 pushes. The
  # subscribers are lean (frames read on plain Netty, no RSocket client, no JSON): with the RSocket
  # client the generator cost twice the server's CPU on the same two cores (RESULTS.md, 2026-12-06).
  shape "one change to 1,000 subscribers" 200000 push SubscriptionFanOut --subscribers 1000 --updates 200 \
    --interval-ms 50 --lean 1
fi
if [ "$what" = fanout-10k ]; then
  # One change every 200 ms to 10,000 lean subscribers on 10,000 connections: 500,000 pushes.
  shape "one change to 10,000 subscribers" 500000 push SubscriptionFanOut --subscribers 10000 --updates 50 \
    --interval-ms 200 --warmup-ms 30000 --lean 1
fi
