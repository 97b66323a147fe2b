#!/usr/bin/env bash
# A clinic's working day with the billboard CLI against a real billboardd:
# recommend (local = the daemon's own Q-values; at version 0 the action is
# drawn uniformly, or once per open episode, and says so), an episode recorded step by
# step and submitted, invalid steps rejected with nothing stored, an episode
# file submitted, a resend after a crash (acknowledged by the daemon but not
# yet marked in the clinic's state file) replayed and counted once, a key
# reused with another body refused (409), the K_max refusal keeping the
# episode queued, and prune deleting exactly the acknowledged episodes from a
# state file created 0600.
. "$(dirname "$0")/cli-lib.sh"

start_daemon --horizon 3 --dim 4 --actions 3 --max-episodes 5 --rho 10
export BILLBOARD_SERVER="$URL" BILLBOARD_STATE="$TMP/state.db" BILLBOARD_ADMIN_TOKEN="$ADMIN"
run 0 clinics add "Clinic A" --json
BILLBOARD_TOKEN=$(out 'd["token"]')
export BILLBOARD_TOKEN

F='[[0.5,0,0.1,0],[0,0.5,0,0.1],[0.3,0.3,0,0]]'
echo "$F" >"$TMP/f.json"

# Local recommendation = the daemon's, on the same billboard version.
run 0 recommend --step 2 --features "$TMP/f.json" --json
cp "$TMP/out" "$TMP/local"
run 0 recommend --step 2 --features "$TMP/f.json" --json --remote
python3 - "$TMP/local" "$TMP/out" <<'PY' || fail "local $(cat "$TMP/local") != remote $(cat "$TMP/out")"
import json, sys
l, r = (json.load(open(f)) for f in sys.argv[1:])
assert l["billboard_version"] == r["billboard_version"] == 0
assert all(abs(a - b) <= 1e-12 * (1 + abs(a)) for a, b in zip(l["q"], r["q"], strict=True))
# Version 0 holds no data: both draw the action uniformly (15-recommend-ops
# checks the draw; the greedy agreement is checked on later versions there).
assert l["uniform"] is True and 0 <= l["action"] < 3, l
PY
run 0 recommend --step 1 --features "$TMP/f.json"
grep -q "recommended action:" "$TMP/out" || fail "recommend table"
grep -q "drawn uniformly at random: the billboard holds no data yet" "$TMP/out" ||
    fail "recommend does not say the version-0 action is drawn at random: $(cat "$TMP/out")"
run 2 recommend --step 4 --features "$TMP/f.json"   # beyond H
echo '[[1,1,1,1]]' >"$TMP/short.json"
run 1 recommend --step 1 --features "$TMP/short.json"

# One episode, step by step.
run 0 episode start --json
id=$(out 'd["id"]')
# With an open episode, version 0's random action is the episode's own draw
# (its idempotency key seeds it): the same at every ask for the same step,
# said so, and the daemon computes the same action from the same key.
run 0 recommend --step 2 --features "$TMP/f.json" --json
cp "$TMP/out" "$TMP/r1"
run 0 recommend --step 2 --features "$TMP/f.json" --json
cp "$TMP/out" "$TMP/r2"
key=$(out 'd["episode_key"]')
run 0 recommend --step 2 --features "$TMP/f.json" --json --remote --episode-key "$key"
python3 - "$TMP/r1" "$TMP/r2" "$TMP/out" <<'PY' || fail "episode draw: $(cat "$TMP/r1" "$TMP/r2" "$TMP/out")"
import json, sys
r1, r2, remote = (json.load(open(f)) for f in sys.argv[1:])
assert r1["uniform"] and r1["episode_key"] and len(r1["episode_key"]) == 64, r1
assert r2["episode_key"] == r1["episode_key"] == remote["episode_key"]
assert r1["action"] == r2["action"] == remote["action"], (r1, r2, remote)
PY
run 0 recommend --step 1 --features "$TMP/f.json"
grep -q "this episode's random policy: the billboard holds no data yet" "$TMP/out" ||
    fail "recommend does not name the episode's draw: $(cat "$TMP/out")"
run 2 recommend --step 1 --features "$TMP/f.json" --id "$id" --episode-key x
run 2 recommend --step 1 --features "$TMP/f.json" --episode-key 'a b'
run 0 episode step --features "$TMP/f.json" --action 0 --reward 0.25
# Reject, never clip: nothing of a bad step is stored.
run 1 episode step --features "$TMP/f.json" --action 0 --reward 1.5
run 1 episode step --features "$TMP/f.json" --action 3 --reward 0.5
run 2 episode step --features "$TMP/f.json" --action 0
echo '[[2,0,0,0],[0,0.5,0,0],[0,0,0.5,0]]' >"$TMP/big.json"
run 1 episode step --features "$TMP/big.json" --action 1 --reward 0.5
grep -q "/steps/1/features/0" "$TMP/err" || fail "norm violation not located: $(cat "$TMP/err")"
run 0 episode status --json
[ "$(out 'd["steps"]')" = 1 ] || fail "a rejected step was stored: $(cat "$TMP/out")"
run 1 episode finish                                 # 1 of 3 steps
run 0 episode step --features "$TMP/f.json" --action 1 --reward 0.5
run 0 episode step --features "$TMP/f.json" --action 2 --reward 1
run 0 episode finish --id "$id"
grep -q "sent 1 episode" "$TMP/out" || fail "finish did not send: $(cat "$TMP/out")"
[ "$(episodes)" = 1 ] || fail "daemon has $(episodes) episodes, want 1"

# An episode file, and an invalid one refused before any traffic.
python3 - "$F" >"$TMP/ep.json" <<'PY'
import json, sys
f = json.loads(sys.argv[1])
print(json.dumps({"billboard_version": 0, "steps": [
    {"features": f, "action": a, "reward": r} for a, r in ((0, 0.1), (1, 0.2), (2, 0.3))]}))
PY
sed 's/"reward": 0.3/"reward": 1.3/' "$TMP/ep.json" >"$TMP/bad.json"
run 1 submit "$TMP/bad.json"
grep -q "/steps/2/reward" "$TMP/err" || fail "bad file not located: $(cat "$TMP/err")"
run 0 submit "$TMP/ep.json" --json
[ "$(out 'd["sent"], d["unsent"]')" = "(1, 0)" ] || fail "submit: $(cat "$TMP/out")"
[ "$(episodes)" = 2 ] || fail "want 2 episodes"

# Crash between the daemon's acknowledgement and ours: the state file as it
# was before the send still holds the episode as unsent, with its key. The
# resend is a replay: acknowledged, counted once.
run 0 episode start
for r in 0.1 0.2 0.3; do
    run 0 episode step --features "$TMP/f.json" --action 1 --reward "$r"
done
run 0 episode finish --no-send
cp "$TMP/state.db" "$TMP/before-send.db"
run 0 submit
[ "$(episodes)" = 3 ] || fail "want 3 episodes"
run 0 submit --state "$TMP/before-send.db" --json
[ "$(out 'd["sent"], d["unsent"]')" = "(1, 0)" ] || fail "resend: $(cat "$TMP/out")"
[ "$(episodes)" = 3 ] || fail "a resend after a crash was counted twice: $(episodes)"

# The same key with another body is a conflict (409).
sed 's/"reward": 0.1/"reward": 0.9/' "$TMP/ep.json" >"$TMP/ep2.json"
run 0 submit "$TMP/ep.json" --key same-key --state "$TMP/other.db"
run 5 submit "$TMP/ep2.json" --key same-key --state "$TMP/other2.db"
grep -q "HTTP 409" "$TMP/err" || fail "key reuse not a 409: $(cat "$TMP/err")"
# The refused episode is kept, marked, with the daemon's reason.
run 0 episode list --json --state "$TMP/other2.db"
[ "$(out '[(e["state"], e["episode"], "409" in e["reason"]) for e in d]')" = \
    '[["rejected", null, true]]' ] || fail "list: $(cat "$TMP/out")"
run 0 episode list --state "$TMP/other2.db"
grep -q "rejected" "$TMP/out" || fail "list table: $(cat "$TMP/out")"
[ "$(episodes)" = 4 ] || fail "want 4 episodes"

# K_max = 5: the fifth is accepted, the sixth refused (409) and kept queued.
run 0 submit "$TMP/ep.json"
run 5 submit "$TMP/ep.json"
grep -q "K_max" "$TMP/err" || fail "K_max refusal not explained: $(cat "$TMP/err")"
run 0 episode status --json
[ "$(out 'd["unsent"]')" = 1 ] || fail "refused episode not kept"
[ "$(episodes)" = 5 ] || fail "want 5 episodes"

run 0 episode list --json
[ "$(out '[e["state"] for e in d]')" = '["sent", "sent", "sent", "sent", "unsent"]' ] ||
    fail "list: $(cat "$TMP/out")"
[ "$(out 'sorted(e["episode"] for e in d if e["state"] == "sent")')" = "[1, 2, 3, 5]" ] ||
    fail "the daemon's episode indices: $(cat "$TMP/out")"

# The state file is the owner's only; prune keeps what is not yet delivered.
[ "$(stat -c %a "$TMP/state.db")" = 600 ] || fail "state file mode $(stat -c %a "$TMP/state.db")"
run 0 episode prune --json
[ "$(out 'd["pruned"]')" = 4 ] || fail "prune: $(cat "$TMP/out")"
run 0 episode status --json
[ "$(out 'd["unsent"]')" = 1 ] || fail "prune dropped an unsent episode"
run 0 episode prune --json
[ "$(out 'd["pruned"]')" = 0 ] || fail "second prune: $(cat "$TMP/out")"
echo ok
