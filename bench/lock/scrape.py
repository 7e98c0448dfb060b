#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""scrape.py URL [EVERY [COUNT]]: GET URL every EVERY seconds (1), COUNT
times (until SIGTERM or SIGINT when 0), over one kept-alive connection as
a Prometheus server does; one line per scrape on stdout:
"seconds bytes samples status".  A scraper that forks no process a second,
so that what it costs is not charged to the service it scrapes."""
import http.client, signal, sys, time, urllib.parse

url = urllib.parse.urlsplit(sys.argv[1])
every = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
count = int(sys.argv[3]) if len(sys.argv) > 3 else 0
stop = False


def on_signal(*_):
    global stop
    stop = True


signal.signal(signal.SIGTERM, on_signal)
signal.signal(signal.SIGINT, on_signal)
path = url.path + ("?" + url.query if url.query else "")
conn = None
n = 0
next_t = time.monotonic()
while not stop and (count == 0 or n < count):
    t0 = time.monotonic()
    try:
        if conn is None:
            conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
        conn.request("GET", path, headers={"Accept": "text/plain;version=0.0.4"})
        r = conn.getresponse()
        body = r.read()
        status = r.status
    except (OSError, http.client.HTTPException):
        conn, body, status = None, b"", 0
    dt = time.monotonic() - t0
    samples = sum(1 for l in body.split(b"\n") if l and not l.startswith(b"#"))
    print(f"{dt:.6f} {len(body)} {samples} {status}", flush=True)
    n += 1
    next_t += every
    time.sleep(max(0.0, next_t - time.monotonic()))
