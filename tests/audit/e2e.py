#!/usr/bin/env python3
"""The privacy audit's end-to-end case: the whole billboard as a real
billboardd publishes it (docs/PRIVACY.md section 6).

    e2e.py BILLBOARDD [--runs N] [--canaries M] [--seed S]

Each run starts billboardd on a new SQLite file with one-hot features of
dimension M, H = 1, K_max = M and a single release point at M, so that
coordinate i of the published billboard (its Gram diagonal entry and its
y~_i = Lambda~_ii w_i) depends on episode i alone: the Gram noise of one-hot
rows is diagonal and the y noise is drawn per coordinate. Episode i is a
canary: with probability 1/2 its row is e_i with reward 1 (side 1), else a
zero row with reward 0 (side 0) -- neighbouring datasets under replacement.
Every run thus gives M independent trials of the pair through the daemon's
own path: HTTP, validation, the writer, SQLite, the mechanisms, the update,
the codec. A linear discriminant and a threshold are chosen on the first
half of the runs; Clopper-Pearson bounds on the held-out half give a lower
bound on epsilon at the configured delta, which must not exceed the epsilon
the daemon claims (/v1/privacy).

Exit status 0 when within the claim, 1 when above, 2 on an error.
"""
import argparse
import http.client
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time

EPSILON, DELTA, ALPHA = 2.0, 1e-2, 0.025


def log_binom_pmf(k, n, p):
    return (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
            + k * math.log(p) + (n - k) * math.log1p(-p))


def binom_tail_ge(k, n, p):
    """P[X >= k] for X ~ Bin(n, p)."""
    if k <= 0:
        return 1.0
    if p <= 0:
        return 0.0
    if p >= 1:
        return 1.0
    return min(1.0, sum(math.exp(log_binom_pmf(j, n, p)) for j in range(k, n + 1)))


def cp_lower(k, n, alpha):
    if k == 0:
        return 0.0
    lo, hi = 0.0, 1.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if binom_tail_ge(k, n, mid) < alpha:
            lo = mid
        else:
            hi = mid
    return lo


def cp_upper(k, n, alpha):
    if k == n:
        return 1.0
    lo, hi = 0.0, 1.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if 1.0 - binom_tail_ge(k + 1, n, mid) > alpha:  # P[X <= k]
            lo = mid
        else:
            hi = mid
    return hi


def eps_bound(hits, nh, fa, nf, point=False):
    tpr = hits / nh if point else cp_lower(hits, nh, ALPHA)
    fpr = fa / nf if point else cp_upper(fa, nf, ALPHA)
    if tpr <= DELTA:
        return -math.inf
    if fpr <= 0:
        return math.inf
    return math.log((tpr - DELTA) / fpr)


class Daemon:
    def __init__(self, binary, tmp, m):
        self.tmp = tmp
        with open(os.path.join(tmp, "admin"), "w") as f:
            f.write("audit-admin-token-%d\n" % random.getrandbits(64))
        os.chmod(os.path.join(tmp, "admin"), 0o600)
        self.admin = open(os.path.join(tmp, "admin")).read().strip()
        portfile = os.path.join(tmp, "port")
        self.proc = subprocess.Popen(
            [binary, "--db", os.path.join(tmp, "bb.db"), "--listen", "127.0.0.1", "--port", "0",
             "--port-file", portfile, "--admin-token-file", os.path.join(tmp, "admin"),
             "--horizon", "1", "--dim", str(m), "--actions", "2", "--max-episodes", str(m),
             "--epsilon", str(EPSILON), "--delta", str(DELTA), "--gram-share", "0.5",
             "--features", "onehot", "--release-start", str(m), "--update-rule", "release"],
            stderr=open(os.path.join(tmp, "log"), "w"))
        for _ in range(400):
            if os.path.exists(portfile) and os.path.getsize(portfile) > 0:
                break
            if self.proc.poll() is not None:
                raise RuntimeError("billboardd exited: " + open(os.path.join(tmp, "log")).read())
            time.sleep(0.025)
        self.conn = http.client.HTTPConnection("127.0.0.1", int(open(portfile).read()), timeout=60)

    def req(self, method, path, body=None, headers=None):
        self.conn.request(method, path, body, headers or {})
        r = self.conn.getresponse()
        return r.status, r.read()

    def stop(self):
        self.conn.close()
        self.proc.terminate()
        self.proc.wait(timeout=30)


def one_run(binary, m, rng):
    """Returns (privacy, [(side, gram_ii, y_i)] for the m canaries)."""
    with tempfile.TemporaryDirectory() as tmp:
        d = Daemon(binary, tmp, m)
        try:
            st, body = d.req("POST", "/v1/clinics", json.dumps({"name": "audit"}),
                             {"Authorization": "Bearer " + d.admin,
                              "Content-Type": "application/json"})
            if st != 201:
                raise RuntimeError("enrol: %d %s" % (st, body))
            token = json.loads(body)["token"]
            sides = [rng.getrandbits(1) for _ in range(m)]
            for i, side in enumerate(sides):
                row = [0.0] * m
                if side:
                    row[i] = 1.0
                ep = {"billboard_version": 0,
                      "steps": [{"features": [row, row], "action": 0, "reward": float(side)}]}
                st, body = d.req("POST", "/v1/episodes", json.dumps(ep),
                                 {"Authorization": "Bearer " + token,
                                  "Idempotency-Key": "c%d" % i,
                                  "Content-Type": "application/json"})
                if st != 201:
                    raise RuntimeError("episode %d: %d %s" % (i, st, body))
            # The update's billboard: version 1 after the warm-up's, if one
            # is in force (docs/PRIVACY.md §2.5; it holds the canaries before
            # its point only).
            want, st = None, 0
            for _ in range(600):
                st, pbody = d.req("GET", "/v1/privacy")
                privacy = json.loads(pbody)
                warm = privacy.get("warm_up", {}).get("releases", 0)
                if privacy["updates"] >= 1 and privacy["billboard_version"] >= 1 + warm:
                    want = 1 + warm
                    st, body = d.req("GET", "/v1/billboard/%d" % want)
                    break
                time.sleep(0.05)
            if st != 200:
                raise RuntimeError("no update's billboard (version %s)" % want)
            b = json.loads(body)
        finally:
            d.stop()
    step = b["steps"][0]
    g, w = step["gram"], step["w"]
    return privacy, [(sides[i], g[i][i], g[i][i] * w[i]) for i in range(m)]


def lda(train):
    """Fisher's discriminant on 2-d points: w = S^-1 (mu1 - mu0)."""
    mu = {}
    for s in (0, 1):
        pts = [(a, b) for side, a, b in train if side == s]
        mu[s] = (sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts))
    sxx = sxy = syy = 0.0
    for side, a, b in train:
        da, db = a - mu[side][0], b - mu[side][1]
        sxx += da * da
        sxy += da * db
        syy += db * db
    n = len(train) - 2
    sxx, sxy, syy = sxx / n, sxy / n, syy / n
    det = sxx * syy - sxy * sxy
    dx, dy = mu[1][0] - mu[0][0], mu[1][1] - mu[0][1]
    return ((syy * dx - sxy * dy) / det, (-sxy * dx + sxx * dy) / det)


def choose(s0, s1):
    s0, s1 = sorted(s0), sorted(s1)
    best, arg = -math.inf, (1, math.inf)
    for upper in (1, 0):
        n = len(s0) if upper else len(s1)
        c = 1
        while c <= n // 2:
            t = s0[len(s0) - c] if upper else s1[c - 1]
            fa = sum(x > t for x in s0) if upper else sum(x < t for x in s1)
            hits = sum(x > t for x in s1) if upper else sum(x < t for x in s0)
            e = eps_bound(hits, len(s1) if upper else len(s0), fa, len(s0) if upper else len(s1))
            if e > best:
                best, arg = e, (upper, t)
            c = c + 1 if c < 8 else int(c * 1.25) + 1
    return arg


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("billboardd")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--canaries", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    runs = []
    privacy = None
    for _ in range(a.runs):
        privacy, pts = one_run(a.billboardd, a.canaries, rng)
        runs.append(pts)
    half = len(runs) // 2
    train = [p for r in runs[:half] for p in r]
    test = [p for r in runs[half:] for p in r]
    wa, wb = lda(train)
    score = lambda p: wa * p[1] + wb * p[2]
    upper, t = choose([score(p) for p in train if p[0] == 0],
                      [score(p) for p in train if p[0] == 1])
    t0 = [score(p) for p in test if p[0] == 0]
    t1 = [score(p) for p in test if p[0] == 1]
    if upper:
        hits, nh, fa, nf = sum(x > t for x in t1), len(t1), sum(x > t for x in t0), len(t0)
    else:
        hits, nh, fa, nf = sum(x < t for x in t0), len(t0), sum(x < t for x in t1), len(t1)
    lo, hat = eps_bound(hits, nh, fa, nf), eps_bound(hits, nh, fa, nf, point=True)
    claim = privacy["epsilon"]
    ok = not lo > claim
    print("%-38s %8.3f %9.3f %9.3f %s (%d/%d vs %d/%d; %d daemon runs x %d canaries)"
          % ("billboard end to end (billboardd)", claim, lo, hat,
             "ok" if ok else "EXCEEDS CLAIM", hits, nh, fa, nf, a.runs, a.canaries))
    return 0 if ok else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (RuntimeError, OSError, ValueError, KeyError) as e:
        print("e2e audit error: %s" % e, file=sys.stderr)
        sys.exit(2)
