#!/usr/bin/env bash
# Recovery rebuilds the same Gram sums with the same mechanism noise. Across
# a clean restart and a kill -9, episodes are submitted until a billboard is
# computed from every stored episode; its noisy Gram matrices must then be,
# to the last bit, what the stored episodes and stored noise records give
# (an independent oracle per mechanism, below; plus the ridge), and with the
# grids the reward stream's last-step release what its records give. A restart
# that re-drew noise, lost a record or replayed wrongly fails this.
# MECH_FLAGS selects the mechanism (default: the tree); 21-recovery-grid.sh
# runs this for the grid mechanisms and the tree with Honaker's estimator.
. "$(dirname "$0")/lib.sh"
read -r -a mech_flags <<<"${MECH_FLAGS:-}"
start_daemon "${CONF[@]}" "${mech_flags[@]}"
tok=$(enrol "clinic")
i=0
submit() {
    i=$((i + 1))
    episode "$i" >"$TMP/e"
    post_episode "$tok" "k$i" "$TMP/e"
    expect_status 201
}
for _ in 1 2 3 4 5; do submit; done
stop_daemon
start_daemon
for _ in 1 2 3; do submit; done
kill_daemon
start_daemon
req GET /v1/billboard
v0=$(jget "$TMP/body" 'd["version"]')
found=0
while [ "$i" -lt 60 ]; do
    submit
    wait_published # an update charged but not yet published: let it land
    req GET /v1/billboard
    if [ "$(jget "$TMP/body" 'd["version"]')" -gt "$v0" ] &&
        [ "$(jget "$TMP/body" 'd["episode"]')" = "$i" ]; then
        found=1
        break
    fi
done
[ "$found" = 1 ] || fail "no billboard computed from all episodes after the restarts"
cp "$TMP/body" "$TMP/bb"
req GET /v1/config
cp "$TMP/body" "$TMP/config"
# /v1/privacy names the mechanism the daemon runs, the one asked for.
want=$(jget "$TMP/config" 'd["mechanism"]')
asked=${MECH_FLAGS:-}
asked=${asked##*--mechanism }
case " ${MECH_FLAGS:-} " in *" --mechanism "*) [ "$want" = "${asked%% *}" ] || fail "config names $want" ;; esac
req GET /v1/privacy
[ "$(jget "$TMP/body" 'd["gram"]["mechanism"]')" = "$want" ] || fail "privacy: $(cat "$TMP/body")"
python3 - "$TMP/body" "$TMP/config" <<'PY' || fail "privacy and config disagree: $(cat "$TMP/body")"
import json, sys
p, c = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert p["gram"]["releases"] == c["releases"], (p["gram"], c["releases"])
assert p["gram"]["sigma"] == c["sigma_gram_drawn"], (p["gram"], c["sigma_gram_drawn"])
assert p["y"]["mechanism"] == "gaussian" and p["y"]["sigma"] == c["sigma_y_drawn"], p["y"]
assert p["y"]["releases"] == c["max_updates"] and c["value_clip"] in p["y"]["parameters"], p["y"]
PY
python3 - "$DB" "$TMP/bb" "$TMP/config" <<'PY' || fail "Gram matrices do not match the stored episodes and noise"
import json, math, sqlite3, struct, sys
con = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
bb = json.load(open(sys.argv[2])); cfg = json.load(open(sys.argv[3]))
H, d, A, m = bb["H"], bb["d"], bb["A"], bb["episode"]
g = cfg["grid_gram"]
ridge = math.ceil(cfg["ridge"] / g) * g if g > 0 else cfg["ridge"]
snap = lambda x: round(x / g) * g if g > 0 else x

def weight(phi):
    # engine/features.c bb_params_row_weight (docs/PRIVACY.md §1.7), the
    # same operations in the same order, so the same bits
    if cfg.get("row_weight") != "norm" or cfg["features"] in ("onehot", "tabular"):
        return 1.0
    s = q = 0.0
    for x in phi:
        s += x
        q += x * x
    if not q >= 2.0 ** -900:
        return 1.0
    w = (s if cfg["features"] == "simplex" else 1.0) / math.sqrt(q)
    w *= 1.0 - 2.0 ** -40
    return w if w > 1.0 else 1.0

def gram_row(phi):
    # what the Gram matrices take of a row: sqrt(w) phi
    w = weight(phi)
    return phi if w == 1.0 else [math.sqrt(w) * x for x in phi]

S = [[[0.0] * d for _ in range(d)] for _ in range(H)]
rows = con.execute("SELECT k, features, actions FROM episodes WHERE k <= ? ORDER BY k", (m,))
n = 0
for k, feat, act in rows:
    n += 1
    f = struct.unpack("=%dd" % (H * A * d), feat)
    a = struct.unpack("=%di" % H, act)
    for h in range(H):
        phi = gram_row(f[(h * A + a[h]) * d:(h * A + a[h] + 1) * d])
        for r in range(d):
            for c in range(d):
                S[h][r][c] += snap(phi[r] * phi[c])
assert n == m, (n, m)
rec = {}
stream = {}  # the reward stream's records (engine/rstream.c): slot -j, d entries
for h, slot, tag, b in con.execute("SELECT step, slot, tag, bytes FROM mech_state"):
    if slot < 0:
        stream[(h, -slot)] = (tag, struct.unpack("=%dd" % d, b))
    else:
        rec[(h, slot)] = (tag, struct.unpack("=%dd" % (d * d), b))
assert not stream or cfg["rewards"] == "stream", cfg.get("rewards")
mech = cfg["mechanism"]

def tree_noise(h):
    # engine/mech_tree.c: per step and level the newest node, slot = level,
    # tag = its last leaf; the prefix of m holds one live node per set bit.
    out = [0.0] * (d * d)
    for l in [l for l in range(64) if (m >> l) & 1]:
        leaf, nz = rec[(h, l)]
        assert leaf == (m >> l) << l, ("stale live node", h, l, leaf, m)
        out = [a + b for a, b in zip(out, nz)]
    return out

def honaker_noise(h):
    # engine/mech_honaker.c: the tree's nodes, each record the node's
    # estimate zhat_j = a_j z_j + (1 - a_j)(zhat_left + zhat_right) rounded
    # to the grid (slot = level, tag = last leaf); the release of m adds the
    # estimates of m's decomposition, one per set bit. Every estimate is a
    # multiple of the grid, so the release is exact.
    out = [0.0] * (d * d)
    for l in [l for l in range(64) if (m >> l) & 1]:
        leaf, nz = rec[(h, l)]
        assert leaf == (m >> l) << l, ("stale live node", h, l, leaf, m)
        assert g > 0 and all(v / g == round(v / g) for v in nz), ("estimate off the grid", h, l)
        out = [a + b for a, b in zip(out, nz)]
    return out

def grid_gram(h):
    # engine/mech_grid.c: increments x_j between the points ceil(k0 g^j);
    # Z_j in slot j (1-based), tag k_j; y_j = snap((C x)_j) + Z_j and the
    # release is sum_i b_{t-i} y_i with C = I, B = ones (grid) or
    # C = B = the (1-x)^(-1/2) series (grid-sqrt).
    pts, x = [], cfg["release_start"]
    while x <= cfg["K_max"]:
        k = math.ceil(x - 1e-9 * x)
        if not pts or k > pts[-1]:
            pts.append(k)
        x *= cfg["release_base"]
    assert m in pts, (m, pts[:12])
    t = pts.index(m)
    sq = mech == "grid-sqrt"
    c = [1.0]
    for l in range(1, t + 1):
        c.append(c[-1] * (2 * l - 1) / (2 * l))
    if not sq:
        c = [1.0] + [0.0] * t
    b = c if sq else [1.0] * (t + 1)
    xs = [[0.0] * (d * d) for _ in range(t + 1)]
    rows = con.execute("SELECT k, features, actions FROM episodes WHERE k <= ? ORDER BY k", (m,))
    j = 0
    for k, feat, act in rows:
        while k > pts[j]:
            j += 1
        f = struct.unpack("=%dd" % (H * A * d), feat)
        a = struct.unpack("=%di" % H, act)
        phi = gram_row(f[(h * A + a[h]) * d:(h * A + a[h] + 1) * d])
        for r in range(d):
            for cc in range(d):
                xs[j][r * d + cc] += snap(phi[r] * phi[cc])
    out = [0.0] * (d * d)
    for i in range(t + 1):
        tag, z = rec[(h, i + 1)]
        assert tag == pts[i], ("record of the wrong grid point", h, i + 1, tag, pts[i])
        y = [0.0] * (d * d)
        for l in range(i + 1):
            if c[i - l] != 0.0:
                y = [u + c[i - l] * v for u, v in zip(y, xs[l])]
        y = [(snap(u) if sq else u) + v for u, v in zip(y, z)]
        out = [u + b[t - i] * v for u, v in zip(out, y)]
    return out

exact = mech == "tree-honaker"
for h in range(H):
    if mech in ("tree", "tree-honaker"):
        nz = tree_noise(h) if mech == "tree" else honaker_noise(h)
        want = [[S[h][r][c] + nz[r * d + c] for c in range(d)] for r in range(d)]
    else:
        gg = grid_gram(h)
        want = [[gg[r * d + c] for c in range(d)] for r in range(d)]
    for r in range(d):
        want[r][r] += ridge
    got = bb["steps"][h]["gram"]
    for r in range(d):
        for c in range(d):
            tol = 0.0 if exact else 1e-12 * max(1.0, abs(want[r][c]))
            if abs(got[r][c] - want[r][c]) > tol:
                sys.exit("h=%d (%d,%d): billboard %r, stored data give %r" % (h, r, c, got[r][c], want[r][c]))
print("%s: gram of %d episodes matches" % (mech, m))

if cfg.get("rewards") == "stream":
    # The reward stream (docs/PRIVACY.md §2.4): its last step's release is
    # the whole of y~ there (no next values), stored with the billboard. The
    # oracle sums sum_i w_i phi_i (r_i - kappa 1^T phi_i) over the release
    # points' increments, C = B = the (1-x)^(-1/2) series, with the stored
    # Z_j; it does not snap, so it agrees to within the snapping, far below
    # the noise's sd (a re-drawn or lost record moves it by about the sd).
    pts = sorted(tag for (hh, j), (tag, z) in stream.items() if hh == 0)
    assert m in pts, (m, pts)
    t = pts.index(m)
    c = [1.0]
    for l in range(1, t + 1):
        c.append(c[-1] * (2 * l - 1) / (2 * l))
    h, kappa = H - 1, cfg["y_centre"]
    xs = [[0.0] * d for _ in range(t + 1)]
    j = 0
    for k, feat, act, rew in con.execute(
            "SELECT k, features, actions, rewards FROM episodes WHERE k <= ? ORDER BY k", (m,)):
        while k > pts[j]:
            j += 1
        f = struct.unpack("=%dd" % (H * A * d), feat)
        a = struct.unpack("=%di" % H, act)
        r = struct.unpack("=%dd" % H, rew)
        phi = f[(h * A + a[h]) * d:(h * A + a[h] + 1) * d]
        w = weight(phi)
        for q in range(d):
            xs[j][q] += phi[q] * ((r[h] - kappa * sum(phi)) * w)
    want = [0.0] * d
    for i in range(t + 1):
        tag, z = stream[(h, i + 1)]
        assert tag == pts[i], ("stream record of the wrong point", i + 1, tag, pts[i])
        y = [sum(c[i - l] * xs[l][q] for l in range(i + 1)) + z[q] for q in range(d)]
        want = [u + c[t - i] * v for u, v in zip(want, y)]
    (blob,) = con.execute("SELECT y_noisy FROM billboards WHERE version = ?", (bb["version"],)).fetchone()
    got = struct.unpack("=%dd" % (H * d), blob)[h * d:(h + 1) * d]
    # every snapped term and output is off by at most g / 2, g <= 2^-20 sd
    tol = (m + t + 2) * 2.0 ** -20 * cfg["sigma_reward_drawn_step"][h]
    for q in range(d):
        if abs(got[q] - want[q]) > tol:
            sys.exit("stream h=%d [%d]: stored %r, episodes and records give %r" % (h, q, got[q], want[q]))
    print("%s: reward stream of %d episodes matches" % (mech, m))
PY
stop_daemon
echo ok
