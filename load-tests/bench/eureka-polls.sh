#!/usr/bin/env bash
# What an Eureka fleet's polls cost this registry's server alone: full fetches and delta polls with
# nothing changed, and a delta poll right after each change, over a registry of N Eureka instances
# (each of them also in the delta's window). See
# interop/eureka-netflix/src/test/java/io/reactiveregistry/bench/eureka/EurekaPolls.java.
#   load-tests/bench/eureka-polls.sh [instances, default 15000]
set -euo pipefail
cd "$(dirname "$0")/../.."
./mvnw -q -B -o install -DskipTests -pl protocol,reactive-registry-bom,reactive-registry-server,reactive-registry-client -am
./mvnw -q -B -o test-compile -pl interop/eureka-netflix
./mvnw -q -B org.apache.maven.plugins:maven-dependency-plugin:3.9.0:build-classpath -pl interop/eureka-netflix -Dmdep.outputFile=target/bench.classpath \
  -Dmdep.includeScope=test
CP="interop/eureka-netflix/target/test-classes:$(cat interop/eureka-netflix/target/bench.classpath)"
exec java -cp "$CP" io.reactiveregistry.bench.eureka.EurekaPolls "${1:-15000}"
