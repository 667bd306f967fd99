#!/usr/bin/env python3
# Usage: http-heartbeats.py <http-port> <server-pid> <connections> <instances-per-connection> <interval-s> <seconds>
# HTTP heartbeats against a registry server: instances registered over HTTP, each heartbeated
# every interval on keep-alive connections; reports heartbeats/s and the server's CPU per 1,000.
import http.client, json, os, sys, threading, time
port, pid = int(sys.argv[1]), int(sys.argv[2])
conns, per_conn, interval, duration = int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])
tick = os.sysconf('SC_CLK_TCK')
def cpu():
    f = open('/proc/%d/stat' % pid).read().rsplit(')', 1)[1].split()
    return (int(f[11]) + int(f[12])) / tick
count = [0] * conns; errors = [0] * conns
start_evt = threading.Event(); stop_at = [0]
def worker(i):
    c = http.client.HTTPConnection('127.0.0.1', port)
    bodies = []
    for j in range(per_conn):
        inst = {"service": "http-beats", "instance": {"ip": "127.0.%d.%d" % (i // 250, i % 250 + 1), "port": 1000 + j}}
        c.request('POST', '/api/v1/instance.register', json.dumps(inst)); r = c.getresponse(); r.read()
        bodies.append(json.dumps(inst))
    start_evt.wait()
    nxt = time.time() + (i / conns) * interval
    while time.time() < stop_at[0]:
        for b in bodies:
            c.request('POST', '/api/v1/instance.heartbeat', b); r = c.getresponse(); r.read()
            if r.status == 200: count[i] += 1
            else: errors[i] += 1
        nxt += interval
        time.sleep(max(0, nxt - time.time()))
ts = [threading.Thread(target=worker, args=(i,)) for i in range(conns)]
[t.start() for t in ts]
time.sleep(3 + conns * per_conn / 2000)
warm = 10
stop_at[0] = time.time() + warm + duration
start_evt.set()
time.sleep(warm)
c0, n0, t0 = cpu(), sum(count), time.time()
time.sleep(duration)
c1, n1, t1 = cpu(), sum(count), time.time()
[t.join() for t in ts]
beats = n1 - n0
print("instances %d on %d connections, every %.1f s: %.0f heartbeats/s, errors %d, server CPU %.2f s in %.1f s = %.1f ms per 1,000 heartbeats" % (
    conns * per_conn, conns, interval, beats / (t1 - t0), sum(errors), c1 - c0, t1 - t0, 1e6 * (c1 - c0) / beats))
