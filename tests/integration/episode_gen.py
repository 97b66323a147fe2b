"""episode_gen.py — the random episodes of the integration tests and the bench.

An episode is the body of POST /v1/episodes: per step h, A feature rows of d
Gaussian numbers scaled to norm 0.9 (inside the unit ball, as the daemon
requires), a uniform action in [0, A) and a uniform reward in [0, 1). The
draws come from random.Random(seed) in that order, so a seed names one
body, byte for byte: a test can regenerate a body to replay it under the
same Idempotency-Key.

    python3 episode_gen.py SEED VERSION H A d    prints the body and a newline
    from episode_gen import body                 body(seed, H, A, d, version=0)
"""
import json
import random
import sys


def steps(seed, H, A, d):
    """The H steps of the episode of `seed`, as the wire format's dicts."""
    r = random.Random(seed)
    out = []
    for _ in range(H):
        feats = []
        for _ in range(A):
            v = [r.gauss(0, 1) for _ in range(d)]
            n = sum(x * x for x in v) ** 0.5
            feats.append([x / n * 0.9 for x in v])
        out.append({"features": feats, "action": r.randrange(A), "reward": r.random()})
    return out


def body(seed, H, A, d, version=0):
    """The JSON body of POST /v1/episodes for the episode of `seed`."""
    return json.dumps({"billboard_version": version, "steps": steps(seed, H, A, d)})


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit("usage: episode_gen.py SEED VERSION H A d")
    seed, version, H, A, d = (int(x) for x in sys.argv[1:])
    print(body(seed, H, A, d, version))
