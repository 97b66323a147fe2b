#!/usr/bin/env bash
# The CLI checks the deployment's declared feature set before anything is
# stored: against a daemon started with --features simplex, a row with a
# negative entry (or summing above 1) is refused at `episode step` and at
# `recommend` with exit 1 and the daemon's own words, and nothing is kept
# or queued; the step check works offline from the set the state file keeps
# (`episode start` keeps it). The daemon refuses the same row at submit
# with the same words. A ball deployment accepts the row.
. "$(dirname "$0")/cli-lib.sh"

start_daemon --horizon 3 --dim 4 --actions 2 --max-episodes 64 --rho 100000 --features simplex
export BILLBOARD_SERVER="$URL" BILLBOARD_STATE="$TMP/state.db" BILLBOARD_ADMIN_TOKEN="$ADMIN"
run 0 clinics add "Clinic S" --json
BILLBOARD_TOKEN=$(out 'd["token"]')
export BILLBOARD_TOKEN
words="feature 0 is negative; this billboard's features are declared simplex"
echo '[[-0.1,0.5,0.2,0],[0.2,0.2,0.2,0.2]]' >"$TMP/neg.json"
echo '[[0.4,0.5,0.3,0],[0.2,0.2,0.2,0.2]]' >"$TMP/over.json"
echo '[[0.1,0.5,0.2,0],[0.2,0.2,0.2,0.2]]' >"$TMP/ok.json"

run 1 recommend --step 1 --features "$TMP/neg.json"
grep -qF "/features/0: $words" "$TMP/err" || fail "recommend: $(cat "$TMP/err")"
run 0 recommend --step 1 --features "$TMP/ok.json"

run 0 episode start --json
id=$(out 'd["id"]')
run 0 episode step --features "$TMP/ok.json" --action 0 --reward 0.5
# The daemon goes away: the kept set still refuses the row.
kill_daemon
run 1 episode step --features "$TMP/neg.json" --action 1 --reward 0.5
grep -qF "/steps/1/features/0: $words" "$TMP/err" || fail "step: $(cat "$TMP/err")"
grep -q "billboard: billboard:\|HTTP" "$TMP/err" && fail "step message: $(cat "$TMP/err")"
run 1 episode step --features "$TMP/over.json" --action 1 --reward 0.5
grep -qF "/steps/1/features/0: feature row sums to 1.2; this billboard's features are declared simplex" \
    "$TMP/err" || fail "step (sum): $(cat "$TMP/err")"
# Nothing was kept: still one step, nothing queued.
run 0 episode status --json
python3 - "$TMP/out" "$id" <<'PY' || fail "status after refused steps: $(cat "$TMP/out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["current"] == int(sys.argv[2]) and d["steps"] == 1 and d["unsent"] == 0, d
PY
[ "$(sqlite3 "$TMP/state.db" "SELECT count(*) FROM step WHERE episode = $id")" = 1 ] ||
    fail "a refused step was stored"

# The daemon's words for the same row, at submit.
start_daemon
python3 - "$TMP/neg.json" >"$TMP/e" <<'PY'
import json, sys
neg = json.load(open(sys.argv[1]))
ok = [[0.1, 0.5, 0.2, 0], [0.2, 0.2, 0.2, 0.2]]
steps = [{"features": ok, "action": 0, "reward": 0.5}, {"features": neg, "action": 1, "reward": 0.5},
         {"features": ok, "action": 0, "reward": 0.5}]
print(json.dumps({"billboard_version": 0, "steps": steps}))
PY
post_episode "$BILLBOARD_TOKEN" k1 "$TMP/e"
expect_problem 422
grep -qF "$words" "$TMP/body" || fail "the daemon's words differ: $(cat "$TMP/body")"
stop_daemon

# A ball deployment: the same row is fine (norm <= 1).
rm -f "$DB" "$TMP/state.db"*
start_daemon --horizon 3 --dim 4 --actions 2 --max-episodes 64 --rho 100000
export BILLBOARD_SERVER="$URL"
run 0 clinics add "Clinic B" --json
BILLBOARD_TOKEN=$(out 'd["token"]')
run 0 episode start
run 0 episode step --features "$TMP/neg.json" --action 1 --reward 0.5
run 0 recommend --step 1 --features "$TMP/neg.json"
stop_daemon
echo ok
