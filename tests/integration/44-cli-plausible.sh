#!/usr/bin/env bash
# The plausible set (docs/PRIVACY.md §3.4) end to end: a private billboardd
# publishes an update whose billboard carries z (1, the default) and each
# step's sigma_y; in a state whose two actions' feature rows differ by 0.02
# in a direction the data never took (Q-values 0.02 w_3 apart, w_3 ~ noise /
# ridge with sd 0.8, against the set's width z sd, about 0.2), the
# CLI's recommendation (computed locally) and the daemon's (POST
# /v1/recommend) draw among both actions and say so, an episode's pick
# (episode_key) stays the same when asked again; a non-private billboardd
# (no noise, z = 0 on its billboard, as on a database created before the
# set) gives the greedy action every time from the same data, and no set on
# the wire. The formula itself is checked on known values in test_policy.
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

play --epsilon 10 # equal Q-values: whatever the noise drew, both actions
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
    for again in 1 2; do
        req POST /v1/recommend -H "Authorization: Bearer $BILLBOARD_TOKEN" \
            -H 'Content-Type: application/json' \
            -d "{\"h\":1,\"episode_key\":\"ep-$i\",\"features\":$(cat "$TMP/f.json")}"
        expect_status 200
        eval "a$again=$(jget "$TMP/body" 'd["action"]')"
    done
    # shellcheck disable=SC2154 # a1, a2: set by the eval above
    [ "$a1" = "$a2" ] || fail "episode ep-$i: action $a1, then $a2"
    seen_key="$seen_key $a1"
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
grep -q '"plausible_z"\|"sigma_y"' "$TMP/body" && fail "set on the wire without noise"
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
