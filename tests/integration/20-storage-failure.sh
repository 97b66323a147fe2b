#!/usr/bin/env bash
# A storage failure while serving: another process holds the database's
# write lock past the busy timeout (10 s), so the group commit fails. The
# daemon must answer 503 problem+json (never a 2xx for what it could not
# commit), stop being ready, exit with status 1 on its own, and a restart
# must recover every acknowledged episode and accept new ones.
. "$(dirname "$0")/lib.sh"
start_daemon "${CONF[@]}"
tok=$(enrol "clinic")
for i in 1 2 3; do
    episode "$i" >"$TMP/e"
    post_episode "$tok" "k$i" "$TMP/e"
    expect_status 201
done
# Hold the write lock for 13 s. The daemon may still be writing (the update
# that the third episode made due), so the locker waits up to 5 s for its
# turn and touches a file once it holds the lock; the test goes on then.
(printf '.timeout 5000\nBEGIN EXCLUSIVE;\nINSERT INTO meta(key, value) VALUES ("lock", 1);\n'
 printf '.shell touch %s\n' "$TMP/locked"
 sleep 13
 printf 'ROLLBACK;\n') | sqlite3 "$DB" &
locker=$!
for _ in $(seq 1 100); do
    [ -e "$TMP/locked" ] && break
    sleep 0.1
done
[ -e "$TMP/locked" ] || fail "the locker never took the write lock"
episode 4 >"$TMP/e"
post_episode "$tok" k4 "$TMP/e"
expect_problem 503
# Not ready any more: 503 while it shuts down, or already gone.
req GET /readyz
[ "$STATUS" = 503 ] || [ "$STATUS" = 000 ] || fail "readyz answered $STATUS"
rc=0
for _ in $(seq 1 100); do
    kill -0 "$DAEMON_PID" 2>/dev/null || break
    sleep 0.1
done
wait "$DAEMON_PID" || rc=$?
DAEMON_PID=
[ "$rc" = 1 ] || fail "daemon exit status $rc after a storage failure, want 1"
grep -q "storage failure" "$TMP/daemon.log" || fail "no storage failure message"
kill "$locker" 2>/dev/null || true
wait "$locker" 2>/dev/null || true
start_daemon
req GET /v1/privacy
[ "$(jget "$TMP/body" 'd["episodes"]')" = 3 ] || fail "after recovery: $(cat "$TMP/body")"
post_episode "$tok" k4 "$TMP/e"
expect_status 201
[ "$(jget "$TMP/body" 'd["episode"]')" = 4 ] || fail "numbering after recovery: $(cat "$TMP/body")"
post_episode "$tok" k1 "$TMP/e"
expect_problem 409
stop_daemon
echo ok
