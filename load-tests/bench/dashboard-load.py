#!/usr/bin/env python3
# Usage: dashboard-load.py <http-port> <server-pid> <dashboards> <page> <seconds>
#   page: services | service (the changing service's own page, with its 1,000 instances) | sse | trace
#   (curl on the service's coalesced watch, or on the audit trail, instead of a browser: the
#   server's share for the page's stream alone)
# What open dashboards cost the server: 1,000 instances of one service change 100 times a second
# (each re-registered over HTTP with new metadata, every 10 s), first with no dashboard open, then
# with <dashboards> headless Chromium windows on <page>; reports the server's CPU for each phase
# and the rise, as a share of one core. Needs Debian's chromium.
import http.client, json, os, shutil, subprocess, sys, tempfile, threading, time
port, pid, dashboards, page, duration = (int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4],
                                         float(sys.argv[5]))
INSTANCES, CHANGES_PER_S = 1000, 100
tick = os.sysconf('SC_CLK_TCK')


def cpu(part=None):
    f = open('/proc/%d/stat' % pid).read().rsplit(')', 1)[1].split()
    return {'user': int(f[11]), 'system': int(f[12])}.get(part, int(f[11]) + int(f[12])) / tick


stop = threading.Event()
changes = [0]


def churn():
    c = http.client.HTTPConnection('127.0.0.1', port)
    n, start = 0, time.time()
    while not stop.is_set():
        i = n % INSTANCES
        body = {"service": "dashboard-load", "instance": {"ip": "127.0.%d.%d" % (i // 250, i % 250 + 1), "port": 8080,
                                                           "metadata": {"version": str(n)}}}
        c.request('POST', '/api/v1/instance.register', json.dumps(body))
        r = c.getresponse(); r.read()
        n += 1
        changes[0] = n
        time.sleep(max(0, start + n / CHANGES_PER_S - time.time()))


def measure(label):
    c0, s0, n0, t0 = cpu(), cpu('system'), changes[0], time.time()
    time.sleep(duration)
    c1, s1, n1, t1 = cpu(), cpu('system'), changes[0], time.time()
    share = 100 * (c1 - c0) / (t1 - t0)
    print("%-28s %.0f changes/s, server CPU %.2f s (%.2f s in the kernel) in %.1f s = %.1f %% of a core" % (
        label, (n1 - n0) / (t1 - t0), c1 - c0, s1 - s0, t1 - t0, share))
    return share


threading.Thread(target=churn, daemon=True).start()
time.sleep(INSTANCES / CHANGES_PER_S + 5)  # every instance registered once, and the JIT warm
idle = measure("no dashboard:")
url = 'http://127.0.0.1:%d/#/%s' % (port, 'services' if page == 'services' else 'service/public/DEFAULT_GROUP/dashboard-load')
profiles, browsers = [], []
for i in range(dashboards):
    profiles.append(tempfile.mkdtemp(prefix='dashboard-load-'))
    browsers.append(subprocess.Popen(
        ['curl', '-sN', 'http://127.0.0.1:%d/api/v1/watch/public/DEFAULT_GROUP/dashboard-load?coalesce=true' % port]
        if page == 'sse' else ['curl', '-sN', 'http://127.0.0.1:%d/api/v1/trace?namespace=public' % port]
        if page == 'trace' else ['chromium', '--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync',
         '--disable-dev-shm-usage', '--remote-debugging-port=0', '--user-data-dir=' + profiles[-1], url],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
time.sleep(10)  # the pages loaded, their streams open
m = http.client.HTTPConnection('127.0.0.1', port)
m.request('GET', '/metrics')
print('open streams: ' + ', '.join(line for line in m.getresponse().read().decode().splitlines()
                                   if line.startswith(('registry_subscribers', 'registry_trace_subscribers'))))
watched = measure("%d dashboards on %s:" % (dashboards, page))
print("rise: %.1f %% of one core" % (watched - idle))
stop.set()
for b in browsers:
    b.terminate()
for b in browsers:
    b.wait()
for p in profiles:
    shutil.rmtree(p, ignore_errors=True)
