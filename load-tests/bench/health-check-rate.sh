#!/usr/bin/env bash
# Measures the rate of health checks with N persistent instances: every instance should be checked
# once per interval (default 5 s), so 10,000 instances mean about 2,000 checks a second.
# Usage: load-tests/bench/health-check-rate.sh [instances, default 10000] [seconds to measure, default 30]
# Backends: one listening socket per port 10000..10099 (instances are spread over 127.1.x.y
# addresses of loopback, 100 per address, one per port), counting the connections they accept.
# Prints the accepted connections per second over the measured window, and the server's CPU.
set -euo pipefail
cd "$(dirname "$0")/../.."
instances="${1:-10000}"
seconds="${2:-30}"
users=$(( (instances + 99) / 100 ))
jar=reactive-registry-server/target/reactive-registry-server.jar
log=target-bench-health.log
counts=target-bench-health-counts.txt

python3 - "$seconds" > "$counts" <<'PY' &
import asyncio, sys, time
seconds = int(sys.argv[1])
accepted = 0
async def on_connect(reader, writer):
    global accepted
    accepted += 1
    writer.close()
async def main():
    # Listening on the wildcard so that connections to every 127.x.y.z are accepted; only the
    # registry server on this machine connects, over loopback.
    servers = [await asyncio.start_server(on_connect, "0.0.0.0", port, backlog=4096) for port in range(10000, 10100)]
    print("listening", flush=True)
    await asyncio.sleep(20)          # registration and warm-up
    start, before = time.monotonic(), accepted
    await asyncio.sleep(seconds)
    print(f"accepted {accepted - before} connections in {time.monotonic() - start:.1f} s: "
          f"{(accepted - before) / (time.monotonic() - start):.0f} per second", flush=True)
    for s in servers:
        s.close()
asyncio.run(main())
PY
backends=$!
java ${SERVER_JAVA_OPTS:-} -jar "$jar" --host 127.0.0.1 --in-memory > "$log" 2>&1 &
server=$!
trap 'kill $server $backends 2>/dev/null || true; rm -f '"$log"' '"$counts" EXIT
until grep -q listening "$log" && grep -q listening "$counts"; do
  kill -0 "$server" 2>/dev/null || { cat "$log"; exit 1; }
  sleep 0.1
done
java -jar load-tests/target/load-tests.jar RegistrationStorm --users "$users" --instances 100 \
  --concurrency 64 --persistent 1 --server-pid "$server" | grep -E "^register |PASS|FAIL"
sleep 10
read -r user_before system_before < <(awk '{print $14, $15}' /proc/$server/stat)
begin=$(date +%s%N)
wait "$backends"
read -r user_after system_after < <(awk '{print $14, $15}' /proc/$server/stat)
end=$(date +%s%N)
grep accepted "$counts"
ticks=$(getconf CLK_TCK)
elapsed_ms=$(( (end - begin) / 1000000 ))
user_ms=$(( (user_after - user_before) * 1000 / ticks ))
system_ms=$(( (system_after - system_before) * 1000 / ticks ))
echo "server CPU over ${elapsed_ms} ms: ${user_ms} ms user + ${system_ms} ms system" \
  "= $(( (user_ms + system_ms) * 100 / elapsed_ms )) % of one core"
