#!/usr/bin/env bash
# Past K_max: 409 with a clear title, nothing stored, the last billboard
# still served, replays of earlier keys still answered.
. "$(dirname "$0")/lib.sh"
start_daemon --horizon 2 --dim 3 --actions 2 --max-episodes 6 --rho 100000
H=2; A=2; D=3
tok=$(enrol "clinic")
for i in 1 2 3 4 5 6; do
    episode "$i" >"$TMP/e$i"
    post_episode "$tok" "key-$i" "$TMP/e$i"
    expect_status 201
done
wait_published # the 6th episode may have begun an update
req GET /v1/billboard
cp "$TMP/body" "$TMP/last"
etag=$(header ETag)
episode 7 >"$TMP/e7"
post_episode "$tok" key-7 "$TMP/e7"
expect_problem 409
grep -q "K_max" "$TMP/body" || fail "409 title does not say K_max: $(cat "$TMP/body")"
post_episode "$tok" key-8 "$TMP/e7"
expect_problem 409
[ "$(sql 'SELECT count(*) FROM episodes')" = 6 ] || fail "an episode past K_max was stored"
[ "$(sql "SELECT count(*) FROM idempotency WHERE key IN ('key-7', 'key-8')")" = 0 ] ||
    fail "a refused key was stored"
post_episode "$tok" key-3 "$TMP/e3"
expect_status 201
[ "$(jget "$TMP/body" 'd["episode"]')" = 3 ] || fail "replay past K_max: $(cat "$TMP/body")"
req GET /v1/billboard -H "If-None-Match: $etag"
expect_status 304
req GET /v1/privacy
[ "$(jget "$TMP/body" 'd["episodes"], d["max_episodes"]')" = "(6, 6)" ] || fail "$(cat "$TMP/body")"
# Still refused after a restart.
stop_daemon
start_daemon
post_episode "$tok" key-9 "$TMP/e7"
expect_problem 409
req GET /v1/billboard
cmp -s "$TMP/body" "$TMP/last" || fail "billboard changed"
stop_daemon
echo ok
