#!/usr/bin/env bash
# How clinics explore after an update, end to end.
# - The default, the sample (docs/PRIVACY.md §3.6): a private billboardd
#   publishes "explore": "sample" and each step's sigma_y; in a state whose
#   two actions' rows differ by 0.02 in a direction the data never took,
#   the daemon's answer (POST /v1/recommend) for an episode key is the same
#   when asked again, the CLI's (computed locally) is the daemon's, and over
#   200 keys action 1 comes up as often as the formula says from the
#   published billboard alone: P = Phi((q_1 - q_0) / (sigma_y ||Lambda~^-1
#   (x_1 - x_0)||)), within 6 sd of the binomial.
# - The plausible set (§3.4), on the same database as one created before
#   the sample (stored key explore set): the billboard carries z (1) and
#   sigma_y; the Q-values are 0.02 w_3 apart (w_3 ~ noise / ridge, sd 0.8)
#   against the set's width z sd, about 0.2, so the CLI's and the daemon's
#   recommendations draw among both actions and say so, and an episode's
#   pick stays the same when asked again.
# - A non-private billboardd (no noise) gives the greedy action every time
#   from the same data, with neither on the wire.
# The formulas themselves are checked on known values in test_policy.
. "$(dirname "$0")/cli-lib.sh"

# Episodes whose chosen rows never touch direction 2 (action 1's row below).
python3 - "$TMP" <<'PY'
import json, sys
for i in range(1, 81):
    row0 = [0.9, 0.1, 0.0] if i % 2 else [0.1, 0.9, 0.0]
    steps = [{"features": [row0, [0.0, 0.0, 1.0]], "action": 0,
              "reward": ((7 * i + h) % 10) / 10} for h in range(2)]
    with open("%s/ep%02d.json" % (sys.argv[1], i), "w") as f:
        json.dump({"billboard_version": 0, "steps": steps}, f)
PY
echo '[[0.9,0.1,0.0],[0.9,0.1,0.02]]' >"$TMP/f.json"

play() { # the privacy budget: enrol, submit the 80 episodes, wait for v >= 1
    start_daemon --horizon 2 --dim 3 --actions 2 --max-episodes 200 --release-start 10 "$@"
    export BILLBOARD_SERVER="$URL" BILLBOARD_STATE="$TMP/state-$RANDOM.db"
    export BILLBOARD_ADMIN_TOKEN="$ADMIN"
    run 0 clinics add "Clinic P" --json
    BILLBOARD_TOKEN=$(out 'd["token"]')
    export BILLBOARD_TOKEN
    run 0 submit "$TMP"/ep*.json --json
    wait_published
    run 0 show --json
    [ "$(out 'd["version"]')" -ge 1 ] || fail "no update after 80 episodes: $(cat "$TMP/out")"
}

# KEYED: the daemon's action at step 1 for episode key ep-I, asked twice
# (the same both times, else the test fails).
keyed() {
    local again a1="" a2=""
    for again in 1 2; do
        req POST /v1/recommend -H "Authorization: Bearer $BILLBOARD_TOKEN" \
            -H 'Content-Type: application/json' \
            -d "{\"h\":1,\"episode_key\":\"ep-$1\",\"features\":$(cat "$TMP/f.json")}"
        expect_status 200
        if [ "$again" = 1 ]; then a1=$(jget "$TMP/body" 'd["action"]'); else a2=$(jget "$TMP/body" 'd["action"]'); fi
    done
    [ "$a1" = "$a2" ] || fail "episode ep-$1: action $a1, then $a2"
    KEYED=$a1
}

play --epsilon 10
req GET /v1/billboard
expect_status 200
cp "$TMP/body" "$TMP/board.json"
python3 - "$TMP/board.json" >"$TMP/p1" <<'PY' || fail "billboard without the sample: $(head -c 400 "$TMP/board.json")"
import json, math, sys
b = json.load(open(sys.argv[1]))
assert b.get("explore") == "sample" and "plausible_z" not in b, b.get("explore")
st = b["steps"][0]
assert st["sigma_y"] > 0, st.get("sigma_y")
def solve(m, v): # m^-1 v by Gauss-Jordan (3 x 3, positive definite)
    a = [row[:] + [v[i]] for i, row in enumerate(m)]
    n = len(v)
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(a[r][c]))
        a[c], a[p] = a[p], a[c]
        for r in range(n):
            if r != c:
                f = a[r][c] / a[c][c]
                a[r] = [x - f * y for x, y in zip(a[r], a[c])]
    return [a[i][n] / a[i][i] for i in range(n)]
x = [[0.9, 0.1, 0.0], [0.9, 0.1, 0.02]]
def q(xa):
    mean = sum(u * v for u, v in zip(xa, st["w"]))
    bonus = b["beta"] * math.sqrt(sum(u * v for u, v in zip(xa, solve(st["gram"], xa))))
    return min(mean + bonus, b["H"])
diff = [u - v for u, v in zip(x[1], x[0])]
s = st["sigma_y"] * math.sqrt(sum(t * t for t in solve(st["gram"], diff)))
print(0.5 * (1 + math.erf((q(x[1]) - q(x[0])) / s / math.sqrt(2))))
PY
ones=0
for i in $(seq 20); do # asked twice, and the CLI, locally, agrees with the daemon
    keyed "$i"
    ones=$((ones + KEYED))
    run 0 recommend --step 1 --episode-key "ep-$i" --features "$TMP/f.json" --json
    [ "$(out 'd["action"], d["sampled"]')" = "($KEYED, True)" ] ||
        fail "episode ep-$i: the CLI says $(cat "$TMP/out"), the daemon $KEYED"
done
for i in $(seq 21 200); do # the rest asked once
    req POST /v1/recommend -H "Authorization: Bearer $BILLBOARD_TOKEN" \
        -H 'Content-Type: application/json' \
        -d "{\"h\":1,\"episode_key\":\"ep-$i\",\"features\":$(cat "$TMP/f.json")}"
    expect_status 200
    a=$(sed -n 's/.*"action":\([01]\)[,}].*/\1/p' "$TMP/body")
    [ -n "$a" ] || fail "no action: $(cat "$TMP/body")"
    ones=$((ones + a))
done
python3 - "$(cat "$TMP/p1")" "$ones" <<'PY' || fail "action 1 in $ones of 200 episodes against P = $(cat "$TMP/p1")"
import math, sys
p, n = float(sys.argv[1]), int(sys.argv[2])
assert abs(n - 200 * p) <= 6 * math.sqrt(200 * p * (1 - p)) + 1, (n, 200 * p)
PY
run 0 recommend --step 1 --features "$TMP/f.json"
grep -q "the best action under a fresh sample of the noise" "$TMP/out" || fail "table: $(cat "$TMP/out")"
stop_daemon

# A database created before the sample: its stored configuration says
# explore set (the billboards' policy fields follow it, bb_engine_new).
DB="$TMP/set.db"
start_daemon --horizon 2 --dim 3 --actions 2 --max-episodes 200 --release-start 10 --epsilon 10
stop_daemon
sql "UPDATE meta SET value = replace(value, '\"explore\":\"sample\"', '\"explore\":\"set\"') WHERE key = 'config'"
sql "SELECT value FROM meta WHERE key = 'config'" | grep -q '"explore":"set"' || fail "could not store explore set"
DB="$TMP/set.db" play --epsilon 10
req GET /v1/config
[ "$(jget "$TMP/body" 'd["explore"]')" = set ] || fail "config: $(cat "$TMP/body")"
req GET /v1/billboard
expect_status 200
python3 - "$TMP/body" <<'PY' || fail "billboard without the set: $(head -c 400 "$TMP/body")"
import json, sys
b = json.load(open(sys.argv[1]))
assert b["plausible_z"] == 1, b.get("plausible_z")
assert all(s["sigma_y"] > 0 for s in b["steps"]), [s.get("sigma_y") for s in b["steps"]]
PY
seen_cli="" seen_api=""
for _ in $(seq 24); do
    run 0 recommend --step 1 --features "$TMP/f.json" --json
    [ "$(out 'd["plausible"]')" = 2 ] || fail "not a set of 2: $(cat "$TMP/out")"
    seen_cli="$seen_cli $(out 'd["action"]')"
    req POST /v1/recommend -H "Authorization: Bearer $BILLBOARD_TOKEN" \
        -H 'Content-Type: application/json' \
        -d "{\"h\":1,\"features\":$(cat "$TMP/f.json")}"
    expect_status 200
    seen_api="$seen_api $(jget "$TMP/body" 'd["action"]')"
done
for a in 0 1; do # all 24 alike: probability 2^-23 each
    case " $seen_cli " in *" $a "*) ;; *) fail "CLI never drew action $a:$seen_cli" ;; esac
    case " $seen_api " in *" $a "*) ;; *) fail "daemon never drew action $a:$seen_api" ;; esac
done
# Within a known episode (episode_key) the pick is the episode's own: asked
# twice, the same answer; over episodes, both actions.
seen_key=""
for i in $(seq 24); do
    keyed "$i"
    seen_key="$seen_key $KEYED"
done
for a in 0 1; do
    case " $seen_key " in *" $a "*) ;; *) fail "no episode picked action $a:$seen_key" ;; esac
done
run 0 recommend --step 1 --features "$TMP/f.json"
grep -q "drawn among the actions marked +" "$TMP/out" || fail "table: $(cat "$TMP/out")"
# The CLI's open episode: its key picks, and the pick holds.
run 0 episode start --json
run 0 recommend --step 1 --features "$TMP/f.json" --json
first=$(out 'd["action"]')
[ "$(out 'len(d["episode_key"] or "")')" = 64 ] || fail "no episode key: $(cat "$TMP/out")"
for _ in 1 2 3; do
    run 0 recommend --step 1 --features "$TMP/f.json" --json
    [ "$(out 'd["action"]')" = "$first" ] || fail "the open episode's pick changed: $(cat "$TMP/out")"
done
run 0 recommend --step 1 --features "$TMP/f.json"
grep -q "this episode's pick among the actions marked +" "$TMP/out" || fail "table: $(cat "$TMP/out")"
stop_daemon

DB="$TMP/greedy.db" play --rho inf
req GET /v1/billboard
grep -q '"plausible_z"\|"sigma_y"\|"explore"' "$TMP/body" && fail "set or sample on the wire without noise"
first=""
for _ in $(seq 8); do
    run 0 recommend --step 1 --features "$TMP/f.json" --json
    [ "$(out 'd["plausible"]')" = 1 ] || fail "a set without noise: $(cat "$TMP/out")"
    a=$(out 'd["action"]')
    [ -z "$first" ] || [ "$a" = "$first" ] || fail "greedy action changed: $first then $a"
    first=$a
done
stop_daemon
echo ok
