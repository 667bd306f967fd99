#!/usr/bin/env bash
# A three-node cluster on this machine's loopback, each node in its own data directory.
#
#   cluster/cluster.sh start        starts n1, n2 and n3 (in the background; logs in cluster/run/)
#   cluster/cluster.sh start --restore-from FILE
#                                   starts a new cluster whose every node is seeded from a backup
#                                   (refused by a node whose data directory already holds state)
#   cluster/cluster.sh backup FILE  writes a backup of the durable state to FILE while the cluster serves
#   cluster/cluster.sh status       each node's view: role, leader, members and their state
#   cluster/cluster.sh stop n2      stops one node (SIGTERM)
#   cluster/cluster.sh kill n1      kills one node (SIGKILL: no goodbye)
#   cluster/cluster.sh restart n2   starts one node again, with its data directory
#   cluster/cluster.sh add n4       starts n4 (RSocket 7370, HTTP 7380, Raft 7390) and has it join the running
#                                   cluster: it is added online and sent the state (n5, n6, ... likewise)
#   cluster/cluster.sh remove n1    removes n1 from the cluster online (the leader too), then stops it
#   cluster/cluster.sh rolling-restart
#                                   restarts every node, one at a time, the leader last: each hands
#                                   over its clients (and leadership) as it stops, and the next waits
#                                   until the last one has rejoined, caught up and streams again
#   cluster/cluster.sh down         stops every node (data directories stay in cluster/run/)
#   cluster/cluster.sh clean        stops every node and deletes cluster/run/
#
# Ports: n1 RSocket 7070 (WebSocket 7071, HTTP 7080, Raft 7090, Nacos 8848 and gRPC 9848), n2 7170 (7171,
# 7180, 7190, 8948, 9948),
# n3 7270 (7271, 7280, 7290, 9048, 10048). Build first: ./mvnw -q -DskipTests package
set -euo pipefail
caller=$PWD # files named on the command line are the caller's, relative to where it ran
cd "$(dirname "$0")/.."
jar=reactive-registry-server/target/reactive-registry-server.jar
run=cluster/run
members="n1=127.0.0.1:7070/7090,n2=127.0.0.1:7170/7190,n3=127.0.0.1:7270/7290"
first=(n1 n2 n3)
nodes=("${first[@]}")
# Members added with "add" (n4, n5, ...) are those with a data directory of their own here.
for dir in "$run"/n*-data; do
  [ -d "$dir" ] || continue
  node=$(basename "$dir" -data)
  case " ${nodes[*]} " in *" $node "*) ;; *) nodes+=("$node") ;; esac
done

# Members start from a class archive of the server (the JVM's class data sharing): the classes of
# the jar as the JVM holds them once loaded, mapped at start instead of read, parsed and verified
# again: a member reaches its ports about 1.2 s sooner, on about half the CPU (two cores). While
# there is no archive of this jar (none yet, or the jar was built again since), one member at a
# time is started recording one, which it writes as it stops (SIGTERM: a few seconds more to its
# exit); a member killed records nothing, and the next one started records instead.
archive=${jar%.jar}.jsa
archive_options() {
  local node=$1 other
  rm -f "$run/$node.jsa" "$run/$node.recording" # what a killed member left
  [ "$archive" -nt "$jar" ] && echo "-XX:SharedArchiveFile=$archive" && return
  for other in "${nodes[@]}"; do
    [ -f "$run/$other.recording" ] && running "$other" && return
  done
  touch "$run/$node.recording"
  # (the recording's warnings name the library classes too old to archive: noise in the log)
  echo "-XX:ArchiveClassesAtExit=$run/$node.jsa -Xlog:cds=off -Xlog:cds+dynamic=off"
}
# After a member's exit: its recording becomes the archive if none is there and the jar was not
# built again while the member ran (its pid file is from its start).
keep_archive() {
  local node=$1
  if [ -f "$run/$node.jsa" ] && [ ! "$archive" -nt "$jar" ] && [ "$jar" -ot "$run/$node.pid" ]; then
    mv "$run/$node.jsa" "$archive"
  fi
  rm -f "$run/$node.jsa" "$run/$node.recording"
}

offset() { echo $(( (${1#n} - 1) * 100 )); }
http_port() { echo $(( 7080 + $(offset "$1") )); }
pid_of() { cat "$run/$1.pid" 2>/dev/null || true; }
# Running: the process exists and has not exited. A member that has exited stays a zombie until
# its parent collects it, and when that parent is a container's init that can take seconds; kill -0
# still succeeds on a zombie, so its state (Linux's /proc) is read too.
running() {
  local pid state
  pid=$(pid_of "$1")
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
  state=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -c1)
  [ "$state" != Z ]
}

absolute() { case "$1" in /*) echo "$1" ;; *) echo "$caller/$1" ;; esac; }

start_node() {
  local node=$1 restore=${2:-} shift_by
  shift_by=$(offset "$node")
  if running "$node"; then
    echo "$node is already running (pid $(pid_of "$node"))"
    return
  fi
  mkdir -p "$run"
  local membership=(--members "$members")
  case " ${first[*]} " in
    *" $node "*) ;;
    *) # A member added later names itself only, and joins through a running member (once added,
       # it starts with the membership its group last committed).
      membership=(--members "$node=127.0.0.1:$(( 7070 + shift_by ))/$(( 7090 + shift_by ))"
        --join "127.0.0.1:$(( 7070 + $(offset "$(any_running)") ))") ;;
  esac
  # shellcheck disable=SC2046 # the archive's options are words of their own
  java -XX:+ExitOnOutOfMemoryError $(archive_options "$node") -jar "$jar" --node-id "$node" "${membership[@]}" \
    --host 127.0.0.1 --ws-port $(( 7071 + shift_by )) --http-port $(( 7080 + shift_by )) --nacos-port $(( 8848 + shift_by )) \
    --data-dir "$run/$node-data" ${restore:+--restore-from "$restore"} >> "$run/$node.log" 2>&1 &
  echo $! > "$run/$node.pid"
  echo "$node started (pid $!, log $run/$node.log)"
}

await_ready() {
  for node in "$@"; do
    for _ in $(seq 1 120); do
      curl -fsS "http://127.0.0.1:$(http_port "$node")/ready" > /dev/null 2>&1 && break
      running "$node" || { echo "$node exited; see $run/$node.log" >&2; exit 1; }
      sleep 0.5
    done
    curl -fsS "http://127.0.0.1:$(http_port "$node")/ready" > /dev/null || { echo "$node is not ready" >&2; exit 1; }
  done
}

status() {
  for node in "${nodes[@]}"; do
    if running "$node"; then
      echo "$node: $(curl -fsS "http://127.0.0.1:$(http_port "$node")/api/v1/cluster" 2>/dev/null || echo 'not answering yet')"
    else
      echo "$node: not running"
    fi
  done
}

# The node has rejoined: it follows or leads a cluster with a leader, and every node follows every
# peer's stream of ephemeral instances again (so the next stop's clients have somewhere to go).
await_rejoined() {
  local node=$1 view other settled
  for _ in $(seq 1 120); do
    view=$(curl -fsS "http://127.0.0.1:$(http_port "$node")/api/v1/cluster" 2>/dev/null || true)
    settled=yes
    echo "$view" | grep -q '"leader":"n' && echo "$view" | grep -Eq '"role":"(leader|follower)"' || settled=no
    for other in "${nodes[@]}"; do
      view=$(curl -fsS "http://127.0.0.1:$(http_port "$other")/api/v1/cluster" 2>/dev/null || true)
      echo "$view" | grep -q '"connected":false' && settled=no
    done
    [ "$settled" = yes ] && return
    sleep 0.5
  done
  echo "$node did not rejoin within 60 s; see $run/$node.log" >&2
  exit 1
}

any_running() {
  local node
  for node in "${nodes[@]}"; do running "$node" && echo "$node" && return; done
  echo "no node is running: start the cluster first" >&2
  exit 1
}


leader() {
  local node
  for node in "${nodes[@]}"; do
    if running "$node"; then
      curl -fsS "http://127.0.0.1:$(http_port "$node")/api/v1/cluster" 2>/dev/null \
        | grep -o '"leader":"n[0-9]*"' | head -1 | cut -d'"' -f4 && return
    fi
  done
}

rolling_restart() {
  local lead order=() node
  lead=$(leader)
  for node in "${nodes[@]}"; do
    running "$node" || { echo "$node is not running: start the cluster first" >&2; exit 1; }
    [ "$node" = "$lead" ] || order+=("$node")
  done
  [ -n "$lead" ] && order+=("$lead")
  for node in "${order[@]}"; do
    signal_node TERM "$node"
    start_node "$node"
    await_ready "$node"
    await_rejoined "$node"
    echo "$node restarted and rejoined"
  done
  echo "rolling restart done (leader was ${lead:-unknown})"
}

signal_node() {
  local signal=$1 node=$2
  running "$node" || { echo "$node is not running"; return; }
  kill "-$signal" "$(pid_of "$node")"
  if [ "$signal" = TERM ]; then
    while running "$node"; do sleep 0.2; done
    keep_archive "$node"
  fi
  rm -f "$run/$node.pid"
  echo "$node stopped ($signal)"
}

[ -f "$jar" ] || { echo "no $jar: build first with ./mvnw -q -DskipTests package" >&2; exit 1; }
case "${1:-}" in
  start)
    restore=
    if [ "${2:-}" = --restore-from ]; then
      restore=$(absolute "${3:?which backup file: cluster/cluster.sh start --restore-from FILE}")
      [ -f "$restore" ] || { echo "no backup file $restore" >&2; exit 1; }
    fi
    for node in "${nodes[@]}"; do start_node "$node" "$restore"; done
    await_ready "${nodes[@]}"
    echo "cluster ready. Watch it:"
    echo "  cluster/cluster.sh status                  (or curl http://127.0.0.1:7080/api/v1/cluster)"
    echo "  java -jar registry-cli/target/registry-cli.jar --target tcp://127.0.0.1:7170 --route server.info"
    echo "Stop a node: cluster/cluster.sh kill n1; bring it back: cluster/cluster.sh restart n1"
    ;;
  status) status ;;
  stop) signal_node TERM "${2:?which node: n1, n2 or n3}" ;;
  kill) signal_node KILL "${2:?which node: n1, n2 or n3}" ;;
  restart)
    start_node "${2:?which node: n1, n2 or n3}"
    await_ready "$2"
    echo "$2 is back"
    ;;
  rolling-restart) rolling_restart ;;
  add)
    node=${2:?which node to add: n4, n5, ...}
    [[ "$node" =~ ^n[4-9]$ ]] || { echo "add takes n4 to n9 (n1-n3 are the cluster's first members)" >&2; exit 2; }
    case " ${nodes[*]} " in *" $node "*) ;; *) nodes+=("$node") ;; esac
    start_node "$node"
    await_ready "$node"
    echo "$node joined; the cluster as it sees it: $(curl -fsS "http://127.0.0.1:$(http_port "$node")/api/v1/cluster")"
    ;;
  remove)
    node=${2:?which node to remove: n1, n2, ...}
    asked=
    for other in "${nodes[@]}"; do [ "$other" != "$node" ] && running "$other" && asked=$other && break; done
    [ -n "$asked" ] || { echo "no other member is running to ask" >&2; exit 1; }
    # admin.members.remove over HTTP (registry-cli members remove does the same over RSocket).
    curl -sS --fail-with-body -X POST "http://127.0.0.1:$(http_port "$asked")/api/v1/admin.members.remove" \
      -d "{\"node\":\"$node\"}" || { echo; echo "$asked refused to remove $node (see above)" >&2; exit 1; }
    echo
    signal_node TERM "$node"
    rm -rf "$run/$node-data"
    echo "$node removed (asked of $asked) and stopped"
    ;;
  backup)
    file=$(absolute "${2:?where to write it: cluster/cluster.sh backup FILE}")
    for node in "${nodes[@]}"; do running "$node" && break; done
    running "$node" || { echo "no node is running: start the cluster first" >&2; exit 1; }
    # The same backup as registry-cli backup, over HTTP; the member catches up with the leader first.
    curl -fsS "http://127.0.0.1:$(http_port "$node")/api/v1/backup" -o "$file.partial" \
      || { rm -f "$file.partial"; echo "the backup was refused; see above" >&2; exit 1; }
    mv "$file.partial" "$file"
    echo "backup written to $file by $node: $(head -1 "$file")"
    ;;
  down) for node in "${nodes[@]}"; do signal_node TERM "$node"; done ;;
  clean)
    for node in "${nodes[@]}"; do signal_node TERM "$node"; done
    rm -rf "$run"
    ;;
  *) sed -n '2,24p' "$0"; exit 2 ;;
esac
