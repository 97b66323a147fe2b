#!/usr/bin/env bash
# Many episodes through the billboard CLI against a real billboardd: a batch
# submit raises the billboard version (rare switching, non-private run so
# the test is short), past versions stay readable and byte-identical, the
# ETag the CLI shows answers 304; and while the daemon hangs (SIGSTOP) the
# clinic starts an episode from the billboard kept in its state file, and
# the finished episode stays queued (exit 3) until a later submit delivers
# it exactly once.
. "$(dirname "$0")/cli-lib.sh"

start_daemon --horizon 2 --dim 3 --actions 2 --max-episodes 200 --rho inf
export BILLBOARD_SERVER="$URL" BILLBOARD_STATE="$TMP/state.db" BILLBOARD_ADMIN_TOKEN="$ADMIN"
run 0 clinics add "Clinic U" --json
BILLBOARD_TOKEN=$(out 'd["token"]')
export BILLBOARD_TOKEN
run 0 show --json
cp "$TMP/out" "$TMP/v0.json"

# 40 episodes whose features span every direction, so det Lambda_h doubles.
python3 - "$TMP" <<'PY'
import json, sys
def row(k):
    return [0.9 if j == k % 3 else 0.1 for j in range(3)]
for i in range(1, 41):
    steps = [{"features": [row(i + h), row(i + h + 1)], "action": (i + h) % 2,
              "reward": ((7 * i + h) % 10) / 10} for h in range(2)]
    with open("%s/ep%02d.json" % (sys.argv[1], i), "w") as f:
        json.dump({"billboard_version": 0, "steps": steps}, f)
PY
run 0 submit "$TMP"/ep*.json --json
[ "$(out 'd["sent"], d["unsent"]')" = "(40, 0)" ] || fail "batch: $(cat "$TMP/out")"
run 0 privacy --json
[ "$(out 'd["episodes"]')" = 40 ] || fail "privacy: $(cat "$TMP/out")"
wait_published # the last episodes may have begun an update
run 0 show --json
v=$(out 'd["version"]')
[ "$v" -ge 1 ] || fail "billboard version did not rise after 40 episodes"
run 0 show
grep -Eq "^version +$v$" "$TMP/out" || fail "show table: $(cat "$TMP/out")"
# The ledger the billboard carries is labelled as its publication's.
grep -q "^privacy when version $v was published" "$TMP/out" || fail "snapshot label: $(cat "$TMP/out")"
grep -Eq "^  updates +$v of" "$TMP/out" || fail "updates line: $(cat "$TMP/out")"

# Past versions are immutable and served byte for byte.
run 0 show --version 0 --json
cmp -s "$TMP/v0.json" "$TMP/out" || fail "version 0 changed"
# Recommendations follow the version asked for.
echo '[[0.5,0.1,0.1],[0.1,0.5,0.1]]' >"$TMP/f.json"
run 0 recommend --step 1 --features "$TMP/f.json" --json
[ "$(out 'd["billboard_version"]')" = "$v" ] || fail "recommend not on the current version"
run 0 recommend --step 1 --features "$TMP/f.json" --version 0 --json
[ "$(out 'd["billboard_version"]')" = 0 ] || fail "recommend --version 0"
# The ETag the CLI shows answers 304.
run 0 show
etag=$(sed -n 's/^etag *//p' "$TMP/out")
[ -n "$etag" ] || fail "no etag shown"
req GET /v1/billboard -H "If-None-Match: $etag"
expect_status 304

# Outage: the daemon hangs. The send may still be processed once the daemon
# resumes, so the resend must replay, not duplicate.
kill -STOP "$DAEMON_PID"
run 0 episode start --timeout 300 --retries 1
grep -q "warning: daemon unavailable" "$TMP/err" || fail "no fallback warning: $(cat "$TMP/err")"
for r in 0.3 0.6; do
    run 0 episode step --features "$TMP/f.json" --action 1 --reward "$r"
done
run 3 episode finish --timeout 300 --retries 2 --retry-total 100
run 0 episode status --json
[ "$(out 'd["unsent"]')" = 1 ] || fail "episode lost in the outage"
kill -CONT "$DAEMON_PID"
run 0 submit --json
[ "$(out 'd["sent"], d["unsent"]')" = "(1, 0)" ] || fail "after the outage: $(cat "$TMP/out")"
run 0 privacy --json
[ "$(out 'd["episodes"]')" = 41 ] || fail "want exactly 41 episodes: $(cat "$TMP/out")"
stop_daemon
echo ok
