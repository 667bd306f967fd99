#!/usr/bin/env bash
# This registry's Nacos door and a real Nacos server, side by side: the same Nacos client and load
# against each, each in its own JVM (-Xmx1g), CPU read from /proc. See
# interop/nacos/src/test/java/io/reactiveregistry/bench/nacos/NacosSideBySide.java.
#   load-tests/bench/nacos-side-by-side.sh [services per client, default 200] [both|ours|nacos] [nacos-server.jar]
# "ours" runs this registry and its floor (NacosFloor: the door's gRPC port answering with prepared
# answers, no registry behind it; registrations only); "both" adds the Nacos server.
# A Nacos server is not on Maven Central: give its jar (Nacos's release, or built from its source
# with `mvn -Prelease-nacos -DskipTests -pl console -am install`: console/target/nacos-server.jar).
# BENCH_SERVER_JVM_ARGS adds flags to the servers' JVMs (a profiler's, say).
set -euo pipefail
cd "$(dirname "$0")/../.."
./mvnw -q -B -o install -DskipTests -N
./mvnw -q -B -o install -DskipTests -pl protocol,reactive-registry-bom,reactive-registry-server,reactive-registry-client -am
./mvnw -q -B -o test-compile -pl interop/nacos
./mvnw -q -B org.apache.maven.plugins:maven-dependency-plugin:3.9.0:build-classpath -pl interop/nacos -Dmdep.outputFile=target/bench.classpath \
  -Dmdep.includeScope=test
CP="$PWD/interop/nacos/target/test-classes:$(cat interop/nacos/target/bench.classpath)"
exec java -Dbench.serverJvmArgs="${BENCH_SERVER_JVM_ARGS:-}" -Dnacos.logging.default.config.enabled=false -DJM.SNAPSHOT.PATH=interop/nacos/target/nacos-cache \
  -DJM.LOG.PATH=interop/nacos/target/nacos-logs -cp "$CP" io.reactiveregistry.bench.nacos.NacosSideBySide \
  "${1:-200}" "${2:-both}" ${3:+"$3"}
