"""crash_lib.py — the clients and the checker of the fault-point tests
(32-fault-points.sh).

    python3 crash_lib.py client PORT TOKEN PREFIX THREADS MAX LOG [503]
        THREADS threads submit episodes (episode_gen.py bodies, H=3 A=2
        d=4) with unique keys until the daemon goes away, or MAX each;
        LOG gets "try KEY SEED" before each request and "ok KEY K SEED"
        after each 201, flushed at once; anything else but 409 (K_max) is
        printed as "unexpected" on stderr. With 503, a 503 is logged as
        "no KEY SEED" and the thread goes on.
    python3 crash_lib.py check DB LOG STATE
        PRAGMA integrity_check is ok; episodes are 1..n; every key is
        stored once and pairs with one episode; every acknowledged key is
        stored with the episode it was acknowledged with; every noise
        record (step, slot, tag) and every billboard seen in STATE (a JSON
        file this updates) has the same bytes; no key answered 503 (a "no"
        line) is stored.
    python3 crash_lib.py retry URL TOKEN DB LOG
        sends every key of LOG again with its body: an acknowledged key
        answers 201 with its episode, an unanswered one 201 with the
        episode the database holds for it (or a new one, stored once);
        nothing is stored twice.
"""
import http.client
import json
import os
import sqlite3
import sys
import threading
import time
import urllib.request

import episode_gen

H, A, D = 3, 2, 4


def client(port, token, prefix, nthreads, most, log, go_on=False):
    out = open(log, "a", buffering=1)
    lock = threading.Lock()

    def run(t):
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        for i in range(most):
            key = "%s-%d-%d" % (prefix, t, i)
            seed = hash(key) & 0xffffffff
            with lock:
                out.write("try %s %d\n" % (key, seed))
            try:
                c.request("POST", "/v1/episodes", episode_gen.body(seed, H, A, D), {
                    "Authorization": "Bearer " + token, "Idempotency-Key": key,
                    "Content-Type": "application/json"})
                r = c.getresponse()
                data = r.read()
            except Exception:
                return
            if r.status == 409:
                return
            if r.status == 503 and go_on:
                with lock:
                    out.write("no %s %d\n" % (key, seed))
                time.sleep(0.05)
                continue
            if r.status != 201:
                print("unexpected", r.status, data, file=sys.stderr)
                return
            with lock:
                out.write("ok %s %d %d\n" % (key, json.loads(data)["episode"], seed))

    ts = [threading.Thread(target=run, args=(t,)) for t in range(nthreads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()


def read_log(log, refused=None):
    tried, acked = {}, {}
    for line in open(log):
        f = line.split()
        if f[0] == "try":
            tried[f[1]] = int(f[2])
        elif f[0] == "ok":
            acked[f[1]] = int(f[2])
        elif f[0] == "no" and refused is not None:
            refused.add(f[1])
    return tried, acked


def fail(msg):
    sys.exit("check: " + msg)


def check(db, log, state_file):
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    ok = con.execute("PRAGMA integrity_check").fetchall()
    if ok != [("ok",)]:
        fail("integrity_check: %r" % ok)
    ks = [k for (k,) in con.execute("SELECT k FROM episodes ORDER BY k")]
    if ks != list(range(1, len(ks) + 1)):
        fail("episode numbers not 1..n")
    idem = {}
    for key, k in con.execute("SELECT key, episode FROM idempotency"):
        if key in idem:
            fail("key twice: " + key)
        idem[key] = k
    if len(idem) != len(ks) or sorted(idem.values()) != ks:
        fail("keys and episodes do not pair one to one (%d keys, %d episodes)" % (len(idem), len(ks)))
    refused = set()
    _, acked = read_log(log, refused)
    for key, k in acked.items():
        if idem.get(key) != k:
            fail("acknowledged key %s (episode %s) stored as %r" % (key, k, idem.get(key)))
    for key in refused:
        if key in idem:
            fail("key %s answered 503 but stored" % key)
    state = json.load(open(state_file)) if os.path.exists(state_file) else {"nodes": {}, "bb": {}}
    for h, slot, tag, noise in con.execute("SELECT step, slot, tag, hex(bytes) FROM mech_state"):
        name = "%d/%d/%d" % (h, slot, tag)
        if state["nodes"].get(name, noise) != noise:
            fail("noise of node %s changed" % name)
        state["nodes"][name] = noise
    for v, body in con.execute("SELECT version, hex(body) FROM billboards"):
        if state["bb"].get(str(v), body) != body:
            fail("billboard %d changed" % v)
        state["bb"][str(v)] = body
    for v in state["bb"]:
        if con.execute("SELECT 1 FROM billboards WHERE version = ?", (int(v),)).fetchone() is None:
            fail("billboard %s disappeared" % v)
    json.dump(state, open(state_file, "w"))
    print("%d episodes, %d acknowledged, %d billboards, %d noise records" % (
        len(ks), len(acked), len(state["bb"]), len(state["nodes"])))


def retry(url, token, db, log):
    tried, acked = read_log(log)
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    n0 = con.execute("SELECT count(*) FROM episodes").fetchone()[0]
    new = 0
    for key, seed in tried.items():
        stored = con.execute("SELECT episode FROM idempotency WHERE key = ?", (key,)).fetchone()
        req = urllib.request.Request(url + "/v1/episodes", data=episode_gen.body(seed, H, A, D).encode(),
                                     method="POST", headers={
                                         "Authorization": "Bearer " + token, "Idempotency-Key": key,
                                         "Content-Type": "application/json"})
        try:
            r = urllib.request.urlopen(req)
            status, data = r.status, r.read()
        except urllib.error.HTTPError as e:
            status, data = e.code, e.read()
        if status == 409 and stored is None and key not in acked:
            continue  # K_max reached: an unanswered key may stay unstored
        if status != 201:
            fail("retry of %s: %d %s" % (key, status, data))
        k = json.loads(data)["episode"]
        if key in acked and k != acked[key]:
            fail("retry of acknowledged %s answered episode %d, not %d" % (key, k, acked[key]))
        if stored is not None and k != stored[0]:
            fail("retry of stored %s answered episode %d, the database has %d" % (key, k, stored[0]))
        if stored is None:
            new += 1
    n1 = con.execute("SELECT count(*) FROM episodes").fetchone()[0]
    if n1 != n0 + new:
        fail("retries stored %d episodes, want %d" % (n1 - n0, new))
    print("%d keys retried, %d acknowledged, %d stored only now" % (len(tried), len(acked), new))


if __name__ == "__main__":
    cmd, a = sys.argv[1], sys.argv[2:]
    if cmd == "client":
        client(int(a[0]), a[1], a[2], int(a[3]), int(a[4]), a[5], len(a) > 6 and a[6] == "503")
    elif cmd == "check":
        check(a[0], a[1], a[2])
    elif cmd == "retry":
        retry(a[0], a[1], a[2], a[3])
    else:
        sys.exit("unknown command " + cmd)
