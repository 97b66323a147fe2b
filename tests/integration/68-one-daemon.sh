#!/usr/bin/env bash
# One billboardd per database: a second daemon started on a served file
# exits at once naming it (it would keep an engine of its own, draw its own
# noise and number episodes twice), leaves the database as it was, and the
# first goes on serving. Once the first is gone — stopped, or killed with
# -9 — a new one starts on the file.
. "$(dirname "$0")/lib.sh"
start_daemon "${CONF[@]}"
first=$DAEMON_PID
tok=$(enrol clinic)
episode 1 >"$TMP/e"
post_episode "$tok" k1 "$TMP/e"
expect_status 201
sql "SELECT k, hex(features) FROM episodes; SELECT * FROM mech_state;" >"$TMP/before"

# The second one must exit by itself; one that serves is stopped after 10 s.
"$BB" --db "$DB" --listen 127.0.0.1 --port 0 --port-file "$TMP/port2" >"$TMP/out" 2>&1 &
second=$!
for _ in $(seq 1 100); do
    kill -0 "$second" 2>/dev/null || break
    sleep 0.1
done
if kill -0 "$second" 2>/dev/null; then
    kill -9 "$second"
    wait "$second" 2>/dev/null || true
    fail "a second daemon served the same database: $(cat "$TMP/out")"
fi
rc=0
wait "$second" || rc=$?
[ "$rc" != 0 ] || fail "the second daemon exited 0"
grep -qF "billboardd: $DB is served by another billboardd" "$TMP/out" || fail "second daemon: $(cat "$TMP/out")"
[ -e "$TMP/port2" ] && fail "the second daemon listened"
kill -0 "$first" || fail "the first daemon died"
req GET /readyz
expect_status 200
episode 2 >"$TMP/e"
post_episode "$tok" k2 "$TMP/e"
expect_status 201
[ "$(jget "$TMP/body" 'd["episode"]')" = 2 ] || fail "numbering after the refusal: $(cat "$TMP/body")"
sql "SELECT k, hex(features) FROM episodes WHERE k = 1; SELECT * FROM mech_state;" >"$TMP/after"
head -n 1 "$TMP/before" | cmp -s - <(head -n 1 "$TMP/after") || fail "episode 1 changed"

# Gone by kill -9: the kernel releases the lock with the process.
kill_daemon
start_daemon
req GET /v1/privacy
[ "$(jget "$TMP/body" 'd["episodes"]')" = 2 ] || fail "after kill -9: $(cat "$TMP/body")"
stop_daemon
start_daemon
stop_daemon
echo ok
