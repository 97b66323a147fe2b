#!/usr/bin/env bash
# Recovery rebuilds the same Gram sums with the same node noise. Across a
# clean restart and a kill -9, episodes are submitted until a billboard is
# computed from every stored episode; its noisy Gram matrices must then be,
# to the last bit, what the stored episodes and stored live-node noise give
# (tree.h: the prefix of m leaves is the grid-snapped sum of phi phi^T plus
# the noise of the live nodes, one per set bit of m; plus the ridge). A
# restart that re-drew noise, lost a node or replayed wrongly fails this.
. "$(dirname "$0")/lib.sh"
start_daemon "${CONF[@]}"
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
python3 - "$DB" "$TMP/bb" "$TMP/config" <<'PY' || fail "Gram matrices do not match the stored episodes and noise"
import json, math, sqlite3, struct, sys
con = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
bb = json.load(open(sys.argv[2])); cfg = json.load(open(sys.argv[3]))
H, d, A, m = bb["H"], bb["d"], bb["A"], bb["episode"]
g = cfg["grid_gram"]
ridge = math.ceil(cfg["ridge"] / g) * g if g > 0 else cfg["ridge"]
snap = lambda x: round(x / g) * g if g > 0 else x
S = [[[0.0] * d for _ in range(d)] for _ in range(H)]
rows = con.execute("SELECT k, features, actions FROM episodes WHERE k <= ? ORDER BY k", (m,))
n = 0
for k, feat, act in rows:
    n += 1
    f = struct.unpack("=%dd" % (H * A * d), feat)
    a = struct.unpack("=%di" % H, act)
    for h in range(H):
        phi = f[(h * A + a[h]) * d:(h * A + a[h] + 1) * d]
        for r in range(d):
            for c in range(d):
                S[h][r][c] += snap(phi[r] * phi[c])
assert n == m, (n, m)
live = {}
# The tree mechanism (engine/mech_tree.c) stores, per step h and level, its
# newest node: slot = level, tag = the node's last leaf.
for h, level, leaf, noise in con.execute("SELECT step, slot, tag, bytes FROM mech_state"):
    if (m >> level) & 1:
        assert leaf == (m >> level) << level, ("stale live node", h, level, leaf, m)
        live[(h, level)] = struct.unpack("=%dd" % (d * d), noise)
bits = [l for l in range(64) if (m >> l) & 1]
for h in range(H):
    want = [[S[h][r][c] for c in range(d)] for r in range(d)]
    for l in bits:
        nz = live[(h, l)]
        for r in range(d):
            for c in range(d):
                want[r][c] += nz[r * d + c]
    for r in range(d):
        want[r][r] += ridge
    got = bb["steps"][h]["gram"]
    for r in range(d):
        for c in range(d):
            if abs(got[r][c] - want[r][c]) > 1e-12 * max(1.0, abs(want[r][c])):
                sys.exit("h=%d (%d,%d): billboard %r, stored data give %r" % (h, r, c, got[r][c], want[r][c]))
print("gram of %d episodes matches, %d live levels" % (m, len(bits)))
PY
stop_daemon
echo ok
