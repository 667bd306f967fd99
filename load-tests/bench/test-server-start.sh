#!/usr/bin/env bash
# What a server process the system tests start costs until it listens: wall clock and CPU (from
# /proc/<pid>/stat), three starts as the tests started it before (class path only), three from the
# class archive the system tests build (ServerClassArchive), and three from it with its classes
# loaded before BlockHound is installed (BlockHoundMain's preload), with the suite's JVM options.
# Usage: load-tests/bench/test-server-start.sh   (a single durable server on free ports; one system
# test runs first, which builds the archive for the class path if it is not there yet)
set -euo pipefail
cd "$(dirname "$0")/../.."
./mvnw -q -B -o install -DskipTests -pl protocol,reactive-registry-bom,reactive-registry-server -am
./mvnw -q -B -o verify -pl system-tests -Dtest=OutOfMemoryTest -Dsurefire.failIfNoSpecifiedTests=false
./mvnw -q -B org.apache.maven.plugins:maven-dependency-plugin:3.9.0:build-classpath -pl system-tests -Dmdep.includeScope=test \
  -Dmdep.outputFile=target/start.classpath
JARS=$(tr ':' '\n' < system-tests/target/start.classpath | grep '\.jar$' | paste -sd:)
ARCHIVE=$(ls -td system-tests/target/server-class-archive/*/ | head -1)
export JDK_JAVA_OPTIONS="-XX:TieredStopAtLevel=1 -XX:+UnlockDiagnosticVMOptions -XX:-BytecodeVerificationRemote -XX:+UseSerialGC -Djdk.attach.allowAttachSelf=true"
start() { # prints "wall <ms> cpu <ms>" for one start with the JVM options given
  local dir; dir=$(mktemp -d)
  local began; began=$(date +%s%N)
  java -Xmx384m -XX:+AllowRedefinitionToAddDeleteMethods "$@" -cp "$JARS" io.reactiveregistry.server.e2e.BlockHoundMain \
    --host 127.0.0.1 --port 0 --raft-port 0 --ws-port 0 --http-port 0 --nacos-port -1 --data-dir "$dir/data" \
    > "$dir/log" 2>&1 &
  local pid=$!
  until grep -q 'listening' "$dir/log"; do
    kill -0 "$pid" 2>/dev/null || { cat "$dir/log"; exit 1; }
    sleep 0.02
  done
  local ended; ended=$(date +%s%N)
  read -r -a stat < "/proc/$pid/stat"
  echo "wall $(( (ended - began) / 1000000 )) ms cpu $(( (stat[13] + stat[14]) * 1000 / $(getconf CLK_TCK) )) ms"
  kill "$pid"; wait "$pid" 2>/dev/null || true
  rm -rf "$dir"
}
echo "class path only:"
for _ in 1 2 3; do start; done
ARCHIVED=("-Xbootclasspath/a:${ARCHIVE}blockhound-runtime.jar" "-javaagent:${ARCHIVE}agent.jar"
  "-XX:SharedArchiveFile=${ARCHIVE}server.jsa")
echo "from the class archive ($ARCHIVE), its classes loaded after BlockHound's install:"
for _ in 1 2 3; do start "${ARCHIVED[@]}"; done
echo "from the class archive, its classes loaded before the install (as the system tests start them):"
for _ in 1 2 3; do start "${ARCHIVED[@]}" "-Dregistry.test.preloadClasses=${ARCHIVE}classes.lst"; done
