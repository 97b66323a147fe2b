#!/usr/bin/env bash
# Tabular rows (docs/PRIVACY.md §2.6): a daemon started with --features
# tabular (state s's row of action a is e_{sA+a}) publishes the transition
# counts' share in GET /v1/config and releases the grid at base 1.1; an
# episode whose state rows are off the layout is refused with a problem
# naming the row, and changes nothing; the count stream's noise records are
# stored in slots of their own; y's whole budget is spent with the first
# episode and no update adds to it; a restart recovers the same billboard
# and ledger, and goes on.
. "$(dirname "$0")/lib.sh"

CONF=(--horizon 3 --dim 6 --actions 2 --max-episodes 400 --rho 1 --features tabular
    --release-start 20)
start_daemon "${CONF[@]}"
req GET /v1/config
expect_status 200
python3 - "$TMP/body" <<'PY' || fail "config: $(cat "$TMP/body")"
import json, sys
c = json.load(open(sys.argv[1]))
assert c["features"] == "tabular" and c["release_base"] == 1.1, c
assert c["rho_counts"] > 0 and c["sigma_counts_drawn"] > 0, c
assert abs(c["rho_counts"] - (c["rho_y"] - c["rho_rewards"])) <= 1e-12 * c["rho_y"], c
PY
TOKEN=$(enrol "Clinic T")

# gen.py SEED [BAD]: an episode of 3 steps over S = 3 states, A = 2; with
# BAD, step 1's row of action 1 is the next state's.
cat >"$TMP/gen.py" <<'PY'
import json, random, sys
r = random.Random(int(sys.argv[1]))
S, A, H = 3, 2, 3
steps = []
for h in range(H):
    s = r.randrange(S)
    rows = [[1.0 if j == s * A + a else 0.0 for j in range(S * A)] for a in range(A)]
    if len(sys.argv) > 2 and h == 1:
        rows[1] = [1.0 if j == ((s + 1) % S) * A + 1 else 0.0 for j in range(S * A)]
    steps.append({"features": rows, "action": r.randrange(A),
                  "reward": 1.0 if s == S - 1 else 0.1 * r.random()})
print(json.dumps({"billboard_version": 0, "steps": steps}))
PY
python3 "$TMP/gen.py" 1 bad >"$TMP/e"
post_episode "$TOKEN" bad "$TMP/e"
expect_problem 422
python3 - "$TMP/body" <<'PY' || fail "the refusal: $(cat "$TMP/body")"
import json, sys
d = json.load(open(sys.argv[1]))
text = json.dumps(d)
assert "/steps/1/features/1" in text and "declared tabular" in text, d
PY
req GET /v1/privacy
[ "$(jget "$TMP/body" 'd["episodes"]')" = 0 ] || fail "a refused episode was counted: $(cat "$TMP/body")"
[ "$(sql 'SELECT count(*) FROM mech_state')" = 0 ] || fail "a refused episode drew noise"

for i in $(seq 1 60); do
    python3 "$TMP/gen.py" "$i" >"$TMP/e"
    post_episode "$TOKEN" "k$i" "$TMP/e"
    expect_status 201
done
wait_published
# the count stream's records: steps 0 .. H-2, slots below -2^32
n=$(sql 'SELECT count(*) FROM mech_state WHERE slot < -4294967296')
[ "$n" -gt 0 ] || fail "no count records stored"
[ "$(sql 'SELECT count(*) FROM mech_state WHERE slot < -4294967296 AND step > 1')" = 0 ] ||
    fail "a count record past step H-2"
req GET /v1/privacy
expect_status 200
cp "$TMP/body" "$TMP/priv1"
python3 - "$TMP/priv1" <<'PY' || fail "privacy: $(cat "$TMP/priv1")"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["episodes"] == 60 and p["updates"] >= 1, p
y = p["y"]
assert abs(y["spent"] - y["rho"]) <= 1e-12 * y["rho"], y  # all of rho_y, updates or none
assert abs(p["rho_spent"] - p["rho"]) <= 1e-12, p
assert "next values by counts" in json.dumps(p), p
PY
req GET /v1/billboard
expect_status 200
cp "$TMP/body" "$TMP/bb1"

# A restart: the same billboard and ledger, and it goes on.
stop_daemon
start_daemon "${CONF[@]}"
req GET /v1/billboard
expect_status 200
cmp -s "$TMP/body" "$TMP/bb1" || fail "the billboard changed across a restart"
req GET /v1/privacy
python3 - "$TMP/priv1" "$TMP/body" <<'PY' || fail "privacy after restart: $(cat "$TMP/body")"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a["rho_spent"] == b["rho_spent"] and a["updates"] == b["updates"], (a, b)
PY
for i in $(seq 61 120); do
    python3 "$TMP/gen.py" "$i" >"$TMP/e"
    post_episode "$TOKEN" "k$i" "$TMP/e"
    expect_status 201
done
wait_published
req GET /v1/privacy
python3 - "$TMP/priv1" "$TMP/body" <<'PY' || fail "privacy after more: $(cat "$TMP/body")"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert b["episodes"] == 120 and b["updates"] > a["updates"], (a, b)
assert b["rho_spent"] == a["rho_spent"], (a, b)  # the updates spent nothing more
PY
stop_daemon
echo ok
