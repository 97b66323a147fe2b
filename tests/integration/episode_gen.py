"""episode_gen.py — the random episodes of the integration tests and the bench.

An episode is the body of POST /v1/episodes: per step h, A feature rows of d
numbers, a uniform action in [0, A) and a uniform reward in [0, 1). A row
is inside the feature set the daemon declares (GET /v1/config "features"):
for "ball", d Gaussian numbers scaled to norm 0.9; for "simplex", d
exponential numbers scaled to sum 0.9 (every entry >= 0). The draws come
from random.Random(seed) in that order, so a seed and a feature set name
one body, byte for byte: a test can regenerate a body to replay it under
the same Idempotency-Key.

    python3 episode_gen.py SEED VERSION H A d [FEATURES]
                                  prints the body and a newline
    from episode_gen import body  body(seed, H, A, d, version=0, features="ball")
"""
import json
import random
import sys


def row(r, d, features):
    """One feature row of the set `features` ("ball" or "simplex")."""
    if features == "simplex":
        v = [r.expovariate(1.0) for _ in range(d)]
        n = sum(v)
    elif features == "ball":
        v = [r.gauss(0, 1) for _ in range(d)]
        n = sum(x * x for x in v) ** 0.5
    else:
        raise ValueError("unknown feature set %r" % features)
    return [x / n * 0.9 for x in v]


def steps(seed, H, A, d, features="ball"):
    """The H steps of the episode of `seed`, as the wire format's dicts."""
    r = random.Random(seed)
    out = []
    for _ in range(H):
        feats = [row(r, d, features) for _ in range(A)]
        out.append({"features": feats, "action": r.randrange(A), "reward": r.random()})
    return out


def body(seed, H, A, d, version=0, features="ball"):
    """The JSON body of POST /v1/episodes for the episode of `seed`."""
    return json.dumps({"billboard_version": version,
                       "steps": steps(seed, H, A, d, features)})


if __name__ == "__main__":
    if len(sys.argv) not in (6, 7):
        sys.exit("usage: episode_gen.py SEED VERSION H A d [ball|simplex]")
    seed, version, H, A, d = (int(x) for x in sys.argv[1:6])
    print(body(seed, H, A, d, version, sys.argv[6] if len(sys.argv) == 7 else "ball"))
