#!/usr/bin/env bash
# This registry and etcd side by side, in one run, on this machine's two cores: the same shapes with
# each system's own Java client — the load kit's RSocket client against the registry, etcd's jetcd
# against etcd (interop/etcd/src/test/java/io/reactiveregistry/bench/etcd/EtcdLoad.java), each in a
# JVM of its own with C1 only, as floor.sh runs the kit. etcd's equivalents: an ephemeral
# registration is a key put on its client's lease, a subscriber a watch on the service's prefix.
# The floor (FloorServer: the bare RSocket transport doing the registry's frames without the
# registry, as in floor.sh) runs beside them, so that each figure has the bound under it. Each shape
# is warmed twice on every server, then measured RUNS times (3 by default), alternating.
#   load-tests/bench/etcd-side-by-side.sh [registrations|fanout|all]
# Needs Debian's etcd-server (apt-get install etcd-server: etcd 3.4) and a build:
#   ./mvnw -q -B -DskipTests install -pl reactive-registry-server,load-tests,interop/etcd -am
set -euo pipefail
cd "$(dirname "$0")/../.."
what="${1:-all}"
runs="${RUNS:-3}"
command -v etcd > /dev/null || { echo "no etcd on the PATH: apt-get install etcd-server" >&2; exit 1; }
for port in 17070 17080 17170 17180 12379 12380; do
  if (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null; then
    echo "port $port is taken (an earlier run's server still stopping?): free it first" >&2
    exit 1
  fi
done
./mvnw -q -B org.apache.maven.plugins:maven-dependency-plugin:3.9.0:build-classpath -pl interop/etcd -Dmdep.outputFile=target/bench.classpath \
  -Dmdep.includeScope=test
etcd_cp="interop/etcd/target/test-classes:$(cat interop/etcd/target/bench.classpath)"
generator=(java -Xmx2g -XX:TieredStopAtLevel=1)

data=$(mktemp -d)
# etcd at its defaults (a WAL fsync per batch of writes, as the registry's durable writes have);
# the registry as floor.sh starts it: the heap pre-touched, ephemeral registrations kept in memory.
etcd --name bench --data-dir "$data" --listen-client-urls http://127.0.0.1:12379 \
  --advertise-client-urls http://127.0.0.1:12379 --listen-peer-urls http://127.0.0.1:12380 \
  --initial-advertise-peer-urls http://127.0.0.1:12380 --initial-cluster bench=http://127.0.0.1:12380 \
  > target-etcd-etcd.log 2>&1 &
etcd_pid=$!
java -Xmx1g -Xms1g -XX:+UseG1GC -XX:+AlwaysPreTouch -XX:+ExitOnOutOfMemoryError \
  -jar reactive-registry-server/target/reactive-registry-server.jar --in-memory --host 127.0.0.1 \
  --port 17070 --ws-port 0 --http-port 17080 --nacos-port -1 --self-preservation false \
  > target-etcd-registry.log 2>&1 &
registry_pid=$!
java -Xmx1g -Xms1g -XX:+UseG1GC -XX:+AlwaysPreTouch -XX:+ExitOnOutOfMemoryError \
  -cp load-tests/target/load-tests.jar io.reactiveregistry.loadtest.floor.FloorServer \
  --rsocket-port 17170 --http-port 17180 > target-etcd-floor.log 2>&1 &
floor_pid=$!
trap 'kill $registry_pid $floor_pid $etcd_pid 2>/dev/null || true
  wait $registry_pid $floor_pid $etcd_pid 2>/dev/null || true; rm -rf "$data"' EXIT
for port in 17070 17170 12379; do
  for _ in $(seq 1 150); do (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.2; done
done

# kit <registry|floor> <simulation and its arguments...>
kit() {
  local target=(--target tcp://127.0.0.1:17070 --server-pid "$registry_pid" --metrics-url http://127.0.0.1:17080/metrics)
  if [ "$1" = floor ]; then target=(--target tcp://127.0.0.1:17170 --server-pid "$floor_pid"); fi
  "${generator[@]}" -jar load-tests/target/load-tests.jar "${@:2}" "${target[@]}" 2>&1
}
etcd_load() {
  "${generator[@]}" -cp "$etcd_cp" io.reactiveregistry.bench.etcd.EtcdLoad "$1" http://127.0.0.1:12379 "$etcd_pid" \
    "${@:2}" 2>&1 | grep -E '^etcd '
}

# registrations: 50 connections, one registration in flight on each, 1,000 each: 50,000.
registrations() {
  local server out
  for server in registry floor; do
    out=$(kit $server LoneRegistrations --users 50 --instances 1000)
    echo "$out" | awk -v server=$server '/^server CPU:/ {
        cpu = $3; jit = 0; gc = 0
        if (match($0, /JIT compilers [0-9.]+ s/)) { split(substr($0, RSTART, RLENGTH), a, " "); jit = a[3] }
        if (match($0, /GC [0-9.]+ s/)) { split(substr($0, RSTART, RLENGTH), b, " "); gc = b[2] }
        printf "%s registrations: 50000; server CPU %.2f s: %.1f µs per registration (%.1f without JIT and GC)\n",
          server, cpu, cpu * 1e6 / 50000, (cpu - jit - gc) * 1e6 / 50000 }'
    echo "$out" | grep -E '^(error|FAIL)' || true
  done
  etcd_load registrations 50 1000
}

# fanout: one change every 50 ms to 100 subscribers (watchers) on 100 connections: 20,000 pushes.
# The registry and the floor are measured with the kit's RSocket-client subscribers (a client
# library, as jetcd is) and with its lean ones (frames read on plain Netty: the generator's own
# share of the latency taken out; nothing comparable exists for etcd's gRPC watches).
fanout() {
  local server lean out
  for lean in 0 1; do
    for server in registry floor; do
      out=$(kit $server SubscriptionFanOut --subscribers 100 --updates 200 --interval-ms 50 --lean $lean)
      echo "$out" | awk -v label="$server$([ $lean = 1 ] && echo ' (lean)')" '
        /^push / { printf "%s push %s of %s delivered: p50 %s ms, p99 %s ms, max %s ms", label, $3, $2, $6, $9, $10 }
        /^server CPU:/ { printf "; server CPU %.2f s: %.1f µs per push\n", $3, $3 * 1e6 / 20000 }'
      echo "$out" | grep -E '^(error|FAIL)' || true
      echo "$out" | { grep -E '^server push:' || true; } | sed "s/^/$server: /"
    done
  done
  etcd_load fanout 100 200 50
}

for shape in registrations fanout; do
  if [ "$what" = "$shape" ] || [ "$what" = all ]; then
    echo "== $shape (two warm-up rounds, then $runs measured)"
    $shape > /dev/null
    $shape > /dev/null
    for i in $(seq 1 "$runs"); do
      $shape
    done
  fi
done
