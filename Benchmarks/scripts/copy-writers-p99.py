#!/usr/bin/env python3
# copy-writers-p99.py SHELF SOURCE TARGET SECONDS: issue 25's "writers during a copy from a live
# source": the latency of one-row inserts into the SQLite store SOURCE (one every 10 ms, on a
# connection of this process with a 10-minute busy timeout), first for SECONDS with no copy
# running, then while the release `shelf copy SOURCE TARGET` runs; p50, p99 and the longest of
# each, and the ratio of the p99s (target: at most 2). TARGET is removed first. Make SOURCE
# with make-copy-source.sh.
import sqlite3, subprocess, sys, time, os
shelf, source, target, seconds = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
db = sqlite3.connect(source, timeout=600, isolation_level=None)
db.execute("PRAGMA busy_timeout=600000")
def write():
    t = time.perf_counter()
    db.execute("INSERT INTO items (user_id, title, created_at, updated_at) VALUES (1, 'written during the copy', 0, 0)")
    return (time.perf_counter() - t) * 1000
def p(xs, q):
    xs = sorted(xs); return xs[min(len(xs) - 1, int(len(xs) * q))]
quiet = []
end = time.time() + seconds
while time.time() < end:
    quiet.append(write()); time.sleep(0.01)
for f in [target, target + "-wal", target + "-shm"]:
    if os.path.exists(f): os.remove(f)
busy = []
start = time.time()
child = subprocess.Popen([shelf, "copy", source, target], stdout=subprocess.DEVNULL)
while child.poll() is None:
    busy.append(write()); time.sleep(0.01)
took = time.time() - start
print(f"no copy: {len(quiet)} writes p50 {p(quiet,.5):.2f} ms p99 {p(quiet,.99):.2f} ms max {max(quiet):.2f} ms")
print(f"during copy ({took:.1f} s, exit {child.returncode}): {len(busy)} writes p50 {p(busy,.5):.2f} ms p99 {p(busy,.99):.2f} ms max {max(busy):.2f} ms")
print(f"ratio p99: {p(busy,.99)/p(quiet,.99):.2f}")
