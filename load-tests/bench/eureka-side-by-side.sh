#!/usr/bin/env bash
# This registry's Eureka door and Spring Cloud Netflix's Eureka server, side by side: the same
# client and load against each, each in its own JVM (-Xmx1g), CPU read from /proc. See
# interop/eureka-netflix/src/test/java/io/reactiveregistry/bench/eureka/EurekaSideBySide.java.
#   load-tests/bench/eureka-side-by-side.sh [instances, default 10000] [both|ours|eureka|floor|all]
# BENCH_SERVER_JVM_ARGS adds flags to the servers' JVMs (a profiler's, say).
set -euo pipefail
cd "$(dirname "$0")/../.."
./mvnw -q -B -o install -DskipTests -pl protocol,reactive-registry-bom,reactive-registry-server,reactive-registry-client -am
./mvnw -q -B -o test-compile -pl interop/eureka-netflix
if [ "${2:-both}" = floor ] || [ "${2:-both}" = all ]; then
  ./mvnw -q -B -o package -DskipTests -pl load-tests # FloorServer, the bare HTTP server
fi
./mvnw -q -B org.apache.maven.plugins:maven-dependency-plugin:3.9.0:build-classpath -pl interop/eureka-netflix -Dmdep.outputFile=target/bench.classpath \
  -Dmdep.includeScope=test
CP="interop/eureka-netflix/target/test-classes:$(cat interop/eureka-netflix/target/bench.classpath)"
exec java -Dbench.serverJvmArgs="${BENCH_SERVER_JVM_ARGS:-}" -cp "$CP" io.reactiveregistry.bench.eureka.EurekaSideBySide \
  "${1:-10000}" "${2:-both}"
