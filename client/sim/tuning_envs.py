#!/usr/bin/env python3
"""client/sim/tuning_envs.py — writes the tabular tuning environments of
docs/RESULTS.md ("More levers", 2026-11-25) as billboard-sim JSON files
(docs/ENV.md), so that the measurements made on them can be repeated.

    python3 client/sim/tuning_envs.py DIR     (needs Debian's python3-numpy)

They widen the tuning families beyond RiverSwim and the simplex MDP with
shapes where exploration is hard and the features are one-hot (every row a
standard basis vector, d = S A):

  lock{101,102,103}.json     combination lock: S = 6 in a line, A = 3, H = 12;
                             one action per state moves right (0.9), the others
                             send the patient back to state 0; reward 1 for
                             the right action at the last state, 0.05 for one
                             wrong action at the first (a distraction)
  sparse{101,102,103}.json   random sparse MDP: S = 12, A = 3, H = 10; each
                             (s, a) moves to two random states; a fifth of the
                             states have one rewarding action (0.5 to 1)
  rotated{101,102,103}.json  simplex-mixture features (S = 40, A = 4, d = 10,
                             H = 6, Dirichlet 0.3) turned by a random rotation:
                             a valid linear MDP whose rows have negative
                             entries (declared ball)
  grid3.json                 3 x 3 grid world, A = 4 (0.85 the intended move,
                             0.05 each other), H = 10, reward 1 per step in the
                             far corner

and, written by the same code with seed 7, the shapes first used to look at
the defaults before any of this (lock7, sparse7, rotated7 and grid4, a 4 x 4
grid world with H = 12). No reported environment of `make price` is among
them. The numbers come from numpy's PCG64 generator, so a given seed gives
the same file on every machine with the same numpy major version.

    python3 client/sim/tuning_envs.py --families DIR   (plain Python, no numpy)

writes the families of issue 29 (FAMILIES below; `make table` runs it):
deep-exploration chains (chain*), dense one-hot tabular MDPs (dense*),
sparse-reward and small simplex MDPs (sparse5*, small6*) and rotated simplex
MDPs with ball rows (rot8*). Files named *-t<N> are tuning instances, *-r<N>
reporting ones: no choice of the defaults read an r file. Each file's
generator is Python's random.Random seeded by its name, so the files are the
same on every machine and adding one changes no other.
"""
import json
import math
import os
import random
import sys


def save(path, S, A, d, H, phi, mu, theta, comment):
    with open(path, "w") as f:
        json.dump({"comment": comment, "S": S, "A": A, "d": d, "H": H, "initial_state": 0,
                   "phi": phi, "mu": mu, "theta": theta}, f)


def onehot_tabular(path, S, A, H, P, R, comment):
    """A tabular MDP with one-hot features phi(s, a) = e_{sA + a}."""
    d = S * A
    phi = [[[1.0 if j == s * A + a else 0.0 for j in range(d)] for a in range(A)]
           for s in range(S)]
    mu = [[[P[j // A][j % A][s2] for s2 in range(S)] for j in range(d)] for _ in range(H)]
    theta = [[R[j // A][j % A] for j in range(d)] for _ in range(H)]
    save(path, S, A, d, H, phi, mu, theta, comment)


def lock(path, rng, S=6, A=3, H=12):
    good = rng.integers(0, A, size=S)
    P = np.zeros((S, A, S))
    R = np.zeros((S, A))
    for s in range(S):
        for a in range(A):
            if a == good[s]:
                P[s, a, min(s + 1, S - 1)] = 0.9
                P[s, a, s] += 0.1
            else:
                P[s, a, 0] = 1.0
            if s == S - 1 and a == good[s]:
                R[s, a] = 1.0
    R[0, (good[0] + 1) % A] = 0.05
    onehot_tabular(path, S, A, H, P.tolist(), R.tolist(), "combination lock (tuning_envs.py)")


def grid(path, n, H):
    S, A = n * n, 4
    P = np.zeros((S, A, S))
    R = np.zeros((S, A))
    moves = [(0, 1), (1, 0), (0, -1), (-1, 0)]
    for s in range(S):
        r, c = divmod(s, n)
        for a in range(A):
            for b in range(A):
                dr, dc = moves[b]
                rr, cc = min(max(r + dr, 0), n - 1), min(max(c + dc, 0), n - 1)
                P[s, a, rr * n + cc] += 0.85 if a == b else 0.05
            if s == S - 1:
                R[s, a] = 1.0
    onehot_tabular(path, S, A, H, P.tolist(), R.tolist(), "grid world (tuning_envs.py)")


def sparse(path, rng, S=12, A=3, H=10):
    P = np.zeros((S, A, S))
    R = np.zeros((S, A))
    for s in range(S):
        for a in range(A):
            nxt = rng.choice(S, size=2, replace=False)
            P[s, a, nxt] = rng.dirichlet([1, 1])
    for s in rng.choice(S, size=max(1, S // 5), replace=False):
        R[s, rng.integers(0, A)] = rng.uniform(0.5, 1.0)
    onehot_tabular(path, S, A, H, P.tolist(), R.tolist(), "sparse random MDP (tuning_envs.py)")


def rotated(path, rng, S=40, A=4, d=10, H=6, alpha=0.3):
    phi = rng.dirichlet([alpha] * d, size=(S, A))
    mu = [rng.dirichlet([alpha] * S, size=d) for _ in range(H)]
    theta = [rng.uniform(0, 1, size=d) * (rng.uniform(size=d) < 0.5) for _ in range(H)]
    Q, _ = np.linalg.qr(rng.normal(size=(d, d)))
    save(path, S, A, d, H, (phi @ Q.T).tolist(), [(Q @ m).tolist() for m in mu],
         [(Q @ t).tolist() for t in theta], "rotated simplex MDP (tuning_envs.py)")


# --- The families of issue 29, in pure Python (random.Random, no numpy), so
# every machine writes the same files. `tuning_envs.py --families DIR`.

def dirichlet(rng, alpha, n):
    g = [rng.gammavariate(alpha, 1.0) for _ in range(n)]
    t = sum(g)
    if t <= 0:
        g[rng.randrange(n)] = t = 1.0
    return [x / t for x in g]


def chain(path, rng, depth, slip):
    """Deep-exploration chain (one-hot, DeepSea-like): S = depth, A = 2,
    H = depth. At state s one action (drawn per state) moves to s + 1 (stays
    with probability slip), the other returns to 0 and pays 0.01 / depth; the
    right action at the last state pays 1. Uniform actions reach the reward
    with probability about 2^-depth."""
    S, A, H = depth, 2, depth
    good = [rng.randrange(A) for _ in range(S)]
    P = [[[0.0] * S for _ in range(A)] for _ in range(S)]
    R = [[0.0] * A for _ in range(S)]
    for s in range(S):
        for a in range(A):
            if a == good[s]:
                P[s][a][min(s + 1, S - 1)] += 1.0 - slip
                P[s][a][s] += slip
            else:
                P[s][a][0] = 1.0
                R[s][a] = 0.01 / depth
        R[S - 1][good[S - 1]] = 1.0
    onehot_tabular(path, S, A, H, P, R,
                   "deep-exploration chain depth %d slip %g (tuning_envs.py)" % (depth, slip))


def dense(path, rng, S, A, H):
    """Dense one-hot tabular MDP: every P(.|s, a) a Dirichlet(1) draw over
    all S states, r(s, a) = u^3 with u uniform (a few good actions)."""
    P = [[dirichlet(rng, 1.0, S) for _ in range(A)] for _ in range(S)]
    R = [[rng.random() ** 3 for _ in range(A)] for _ in range(S)]
    onehot_tabular(path, S, A, H, P, R, "dense tabular MDP (tuning_envs.py)")


def simplex_mdp(path, rng, S, A, d, H, alpha=0.3, sparse_reward=False, rotate=False):
    """Simplex-feature linear MDP (rows Dirichlet(alpha) over d, mu_h rows
    Dirichlet(alpha) over S, theta_h uniform on half the coordinates); with
    sparse_reward theta_h is one coordinate at 1 (the same for every h), the
    rest 0; with rotate the features, mu and theta are turned by one random
    rotation (rows with negative entries: declared ball)."""
    phi = [[dirichlet(rng, alpha, d) for _ in range(A)] for _ in range(S)]
    mu = [[dirichlet(rng, alpha, S) for _ in range(d)] for _ in range(H)]
    if sparse_reward:
        j = rng.randrange(d)
        theta = [[1.0 if i == j else 0.0 for i in range(d)] for _ in range(H)]
    else:
        theta = [[rng.random() if rng.random() < 0.5 else 0.0 for _ in range(d)]
                 for _ in range(H)]
    name = "sparse-reward simplex MDP" if sparse_reward else "simplex MDP"
    if rotate:
        Q = []  # Gram-Schmidt on Gaussian vectors: a random orthogonal matrix
        while len(Q) < d:
            v = [rng.gauss(0, 1) for _ in range(d)]
            for q in Q:
                c = sum(x * y for x, y in zip(v, q))
                v = [x - c * y for x, y in zip(v, q)]
            n = math.sqrt(sum(x * x for x in v))
            if n > 1e-8:
                Q.append([x / n for x in v])
        turn = lambda v: [sum(Q[i][j] * v[j] for j in range(d)) for i in range(d)]
        phi = [[turn(r) for r in row] for row in phi]
        mu = [[list(col) for col in zip(*[turn(list(c)) for c in zip(*m)])] for m in mu]
        theta = [turn(t) for t in theta]
        name = "rotated simplex MDP"
    save(path, S, A, d, H, phi, mu, theta, "%s (tuning_envs.py)" % name)


# name: (generator, arguments). Tuning instances end in t<N>, reporting ones
# in r<N>; no choice reads an r file (docs/RESULTS.md, "The current table").
FAMILIES = {
    "chain6s0-t1": (chain, dict(depth=6, slip=0.0)),
    "chain7s1-t1": (chain, dict(depth=7, slip=0.1)),
    "chain9s0-t1": (chain, dict(depth=9, slip=0.0)),
    "chain11s0-t1": (chain, dict(depth=11, slip=0.0)),
    "chain12s0-t1": (chain, dict(depth=12, slip=0.0)),
    "chain8-r1": (chain, dict(depth=8, slip=0.0)),
    "chain10-r1": (chain, dict(depth=10, slip=0.0)),
    "dense10-t1": (dense, dict(S=10, A=3, H=8)),
    "dense12-t2": (dense, dict(S=12, A=3, H=8)),
    "dense12-r1": (dense, dict(S=12, A=3, H=8)),
    "sparse5-t1": (simplex_mdp, dict(S=30, A=4, d=5, H=5, sparse_reward=True)),
    "sparse5-t2": (simplex_mdp, dict(S=30, A=4, d=5, H=5, sparse_reward=True)),
    "sparse5-r1": (simplex_mdp, dict(S=30, A=4, d=5, H=5, sparse_reward=True)),
    "small6-t1": (simplex_mdp, dict(S=20, A=4, d=6, H=4)),
    "small6-t2": (simplex_mdp, dict(S=20, A=4, d=6, H=4)),
    "small6-r1": (simplex_mdp, dict(S=20, A=4, d=6, H=4)),
    "rot8-t1": (simplex_mdp, dict(S=50, A=5, d=8, H=5, rotate=True)),
    "rot8-r1": (simplex_mdp, dict(S=50, A=5, d=8, H=5, rotate=True)),
}


def families(out):
    os.makedirs(out, exist_ok=True)
    for i, (name, (make, kw)) in enumerate(sorted(FAMILIES.items())):
        # One generator per file, seeded by its name: adding a file
        # changes no other.
        rng = random.Random("issue29:" + name)
        make(os.path.join(out, name + ".json"), rng, **kw)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--families":
        families(sys.argv[2])
        return
    if len(sys.argv) != 2:
        sys.exit("usage: tuning_envs.py DIR | tuning_envs.py --families DIR")
    global np
    import numpy as np  # the seed-7/101-103 files need numpy's PCG64
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for seed in (7, 101, 102, 103):
        # One generator per seed, drawn in this order (lock, sparse, rotated).
        rng = np.random.default_rng(seed)
        lock(os.path.join(out, "lock%d.json" % seed), rng)
        sparse(os.path.join(out, "sparse%d.json" % seed), rng)
        rotated(os.path.join(out, "rotated%d.json" % seed), rng)
    grid(os.path.join(out, "grid3.json"), 3, 10)
    grid(os.path.join(out, "grid4.json"), 4, 12)


if __name__ == "__main__":
    main()
