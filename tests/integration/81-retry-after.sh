#!/usr/bin/env bash
# A real 503 says when to come back, and the clinic's CLI rides it out: a
# storage failure (another process holds the write lock past the 10 s busy
# timeout, as in 20-storage-failure.sh) makes the daemon answer 503
# problem+json with Retry-After and exit; restarted on the same port (what a
# supervisor does), it takes the episode the CLI kept retrying, once.
# (That the client waits at least Retry-After, bounded by its longest single
# wait, is decided without a clock in tests/unit/test_client_retry.c.)
. "$(dirname "$0")/cli-lib.sh"
start_daemon "${CONF[@]}"
tok=$(enrol "clinic")
export BILLBOARD_SERVER="$URL" BILLBOARD_STATE="$TMP/state.db" BILLBOARD_TOKEN="$tok"
episode 1 >"$TMP/e1"
run 0 submit "$TMP/e1"
port=$PORT

# Hold the write lock for 13 s.
(printf 'BEGIN EXCLUSIVE;\nINSERT INTO meta(key, value) VALUES ("lock", 1);\n'
 sleep 13
 printf 'ROLLBACK;\n') | sqlite3 "$DB" &
locker=$!
sleep 0.5
# The CLI sends episode 2 with a budget that outlasts the outage.
episode 2 >"$TMP/e2"
"$CLI" submit "$TMP/e2" --retries 40 --retry-total 120000 >"$TMP/cli.out" 2>"$TMP/cli.err" &
cli=$!
# curl's episode 3 waits on the same lock and sees the 503 itself.
episode 3 >"$TMP/e3"
post_episode "$tok" k3 "$TMP/e3"
expect_problem 503
after=$(header Retry-After)
[[ "$after" =~ ^[0-9]+$ ]] || fail "503 without a Retry-After in seconds: '$after'"
{ [ "$after" -ge 1 ] && [ "$after" -le 60 ]; } || fail "Retry-After $after is not a few seconds"
case "$(jget "$TMP/body" 'd["type"]')" in
urn:billboard:problem:unavailable | urn:billboard:problem:storage) ;;
*) fail "503 type: $(cat "$TMP/body")" ;;
esac

# The daemon stops on its own (status 1); restart it where the CLI looks.
for _ in $(seq 1 100); do
    kill -0 "$DAEMON_PID" 2>/dev/null || break
    sleep 0.1
done
rc=0
wait "$DAEMON_PID" || rc=$?
DAEMON_PID=
[ "$rc" = 1 ] || fail "daemon exit status $rc after a storage failure, want 1"
start_daemon --port "$port"
rc=0
wait "$cli" || rc=$?
[ "$rc" = 0 ] || fail "the CLI did not deliver across the outage (exit $rc): $(cat "$TMP/cli.err")"
kill "$locker" 2>/dev/null || true
wait "$locker" 2>/dev/null || true

# Delivered once: episodes 1 and 2; curl's refused episode 3 is not there.
[ "$(episodes)" = 2 ] || fail "episodes after the outage: $(episodes)"
run 0 episode list --json
[ "$(out '[e["state"] for e in d]')" = '["sent", "sent"]' ] || fail "state file: $(cat "$TMP/out")"
[ "$(out '[e["episode"] for e in d]')" = '[1, 2]' ] || fail "numbering: $(cat "$TMP/out")"
stop_daemon
echo ok
