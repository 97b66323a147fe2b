#!/usr/bin/env bash
# The daemon answers exactly what its served spec (GET /v1/openapi.json)
# documents, and everything it documents happens. openapi_check.py sends
# every example request body of the spec to its route and requires its
# x-expected-status; provokes every other kind of answer per operation
# (304, 400, 401, 404, 409, 413, 415, and 503 with the database's write lock
# held past the busy timeout, which takes about 10 s); requires every answer
# to be a status the spec documents for that operation; and requires every
# documented status of every operation to have been answered.
. "$(dirname "$0")/lib.sh"
SPEC="$TESTS_DIR/../../proto/openapi.yaml"
# The flags the spec's examples are written for (a top-level scalar).
flags=$(sed -n 's/^x-example-daemon: *//p' "$SPEC")
[ -n "$flags" ] || fail "no x-example-daemon in $SPEC"
read -r -a example_flags <<<"$flags"
start_daemon "${example_flags[@]}" --max-body 16384
python3 "$TESTS_DIR/openapi_check.py" "$URL" "$ADMIN" "$DB" 16384 "$flags" ||
    fail "the daemon and its spec disagree (above)"
# The storage failure at the end makes the daemon exit with status 1.
rc=0
for _ in $(seq 1 300); do
    kill -0 "$DAEMON_PID" 2>/dev/null || break
    sleep 0.1
done
wait "$DAEMON_PID" || rc=$?
DAEMON_PID=
[ "$rc" = 1 ] || fail "daemon exit status $rc after the storage failure, want 1"
echo ok
