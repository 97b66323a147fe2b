"""docker_clinic.py — a clinic and an observer of the compose stack's daemon,
for 90-docker.sh, over plain HTTP on 127.0.0.1.

    docker_clinic.py post PORT TOKEN PREFIX THREADS MAX ACKED
        THREADS threads submit episodes (episode_gen.py bodies sized to
        /v1/config, with rows in its declared feature set) under unique
        keys PREFIX-t-i, at most MAX each, until the daemon goes away; every
        201 appends "key<TAB>episode<TAB>seed<TAB>body" to ACKED, flushed
        at once. Exit 1 on an answer other than 201.
    docker_clinic.py replay PORT TOKEN ACKED
        re-sends every acknowledged key with its body: each must answer 201
        with the acknowledged body, byte for byte. Prints the count.
    docker_clinic.py snapshot PORT ADMIN_TOKEN DIR
        writes the bodies of GET /v1/privacy, /v1/config, /v1/clinics (admin),
        /v1/billboard and /v1/billboard/{v} for every v up to the current
        one into DIR, one file each, for a byte comparison.
    docker_clinic.py get PORT PATH EXPR
        prints EXPR (Python, over the JSON body as d) of GET PATH.
"""
import http.client
import json
import os
import sys
import threading

import episode_gen


def conn(port):
    return http.client.HTTPConnection("127.0.0.1", port, timeout=10)


def get(port, path, token=None):
    c = conn(port)
    headers = {"Authorization": "Bearer " + token} if token else {}
    c.request("GET", path, headers=headers)
    r = c.getresponse()
    body = r.read()
    c.close()
    if r.status != 200:
        sys.exit("GET %s: %d %r" % (path, r.status, body[:300]))
    return body


def post(c, token, key, body):
    c.request("POST", "/v1/episodes", body, {
        "Authorization": "Bearer " + token, "Idempotency-Key": key,
        "Content-Type": "application/json"})
    r = c.getresponse()
    return r.status, r.read()


def cmd_post(port, token, prefix, nthreads, most, acked):
    cfg = json.loads(get(port, "/v1/config"))
    H, A, D, F = cfg["H"], cfg["A"], cfg["d"], cfg["features"]
    out = open(acked, "a", buffering=1)
    lock = threading.Lock()
    bad = []

    def run(t):
        c = conn(port)
        for i in range(most):
            key = "%s-%d-%d" % (prefix, t, i)
            seed = hash(key) & 0xffffffff
            body = episode_gen.body(seed, H, A, D, features=F)
            try:
                status, data = post(c, token, key, body)
            except Exception:
                return  # the daemon went away
            if status != 201:
                with lock:
                    bad.append("%s: %d %r" % (key, status, data[:300]))
                return
            with lock:
                out.write("%s\t%d\t%d\t%s\n" % (key, json.loads(data)["episode"], seed,
                                                data.decode()))

    ts = [threading.Thread(target=run, args=(t,)) for t in range(nthreads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if bad:
        sys.exit("unexpected answers: " + "; ".join(bad))


def cmd_replay(port, token, acked):
    cfg = json.loads(get(port, "/v1/config"))
    H, A, D, F = cfg["H"], cfg["A"], cfg["d"], cfg["features"]
    c = conn(port)
    n = 0
    for line in open(acked):
        key, episode, seed, want = line.rstrip("\n").split("\t")
        status, got = post(c, token, key, episode_gen.body(int(seed), H, A, D, features=F))
        if status != 201 or got.decode() != want:
            sys.exit("replay of %s (episode %s): %d %r, acknowledged %r"
                     % (key, episode, status, got[:300], want))
        n += 1
    print(n)


def cmd_snapshot(port, admin, outdir):
    os.makedirs(outdir, exist_ok=True)

    def keep(name, body):
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(body)

    for name in ("privacy", "config", "billboard"):
        keep(name, get(port, "/v1/" + name))
    keep("clinics", get(port, "/v1/clinics", admin))
    for v in range(json.loads(get(port, "/v1/billboard"))["version"] + 1):
        keep("billboard-%d" % v, get(port, "/v1/billboard/%d" % v))


def main():
    cmd, port = sys.argv[1], int(sys.argv[2])
    a = sys.argv[3:]
    if cmd == "post":
        cmd_post(port, a[0], a[1], int(a[2]), int(a[3]), a[4])
    elif cmd == "replay":
        cmd_replay(port, a[0], a[1])
    elif cmd == "snapshot":
        cmd_snapshot(port, a[0], a[1])
    elif cmd == "get":
        d = json.loads(get(port, a[0]))
        print(eval(a[1], {"d": d}))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
