# shellcheck shell=bash
# tests/integration/lib.sh — shared helpers for the billboardd curl tests.
#
# Source it first; it sets -euo pipefail, makes a private temp dir ($TMP)
# and a kill-on-exit trap. Needs only bash, curl, python3 and sqlite3.
#
#   start_daemon [flags]   start $O/billboardd on 127.0.0.1, port 0, on $DB
#   stop_daemon            SIGTERM, wait, require exit status 0
#   kill_daemon            SIGKILL, wait
#   req METHOD PATH [curl args]   sets $STATUS; body in $TMP/body, headers in $TMP/headers
#   jget FILE EXPR         python3 expression over the JSON in FILE (as d)
#   episode SEED [VERSION [H A d]]  prints an episode body with ||phi|| = 0.9
#                          (episode_gen.py, also used by 30-crash.sh and the bench)
#   enrol NAME             prints a new clinic token
#   post_episodes TOKEN N  posts episodes 1..N with keys k1..kN, each must get 201
#   wait_published         waits until no update is in flight
#   expect_status N / expect_problem N   assertions on the last req
#   mount_tmpfs SIZE       a tmpfs of SIZE at $MNT, unmounted on exit (root;
#                          the test is skipped, exit 77, where it cannot mount)
set -euo pipefail
O=${O:-build}
TESTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) # this folder
BB="$O/billboardd"
[ -x "$BB" ] || { echo "no $BB (run make first)" >&2; exit 1; }
# The interpreter itself, not a version-manager shim that costs 100 ms a call.
PYTHON=$(python3 -c 'import sys; print(sys.executable)')
python3() { "$PYTHON" "$@"; }
TMP=$(mktemp -d)
DB="$TMP/bb.db"
ADMIN="admin-token-for-the-tests-$(date +%s%N)"
printf '%s\n' "$ADMIN" >"$TMP/admin"
DAEMON_PID=
# Small sizes with a large rho: updates come after a handful of episodes.
# shellcheck disable=SC2034 # CONF is for the tests that source this file
CONF=(--horizon 3 --dim 4 --actions 2 --max-episodes 64 --rho 100000)
H=3; A=2; D=4

cleanup() {
    if [ -n "$DAEMON_PID" ]; then
        kill -9 "$DAEMON_PID" 2>/dev/null || true
        wait "$DAEMON_PID" 2>/dev/null || true
    fi
    [ -n "${KEEP_TMP:-}" ] && cp "$TMP/daemon.log" "$KEEP_TMP" 2>/dev/null; rm -rf "$TMP"
}
trap cleanup EXIT

fail() {
    echo "FAIL: $*" >&2
    if [ -f "$TMP/daemon.log" ]; then
        echo "--- daemon log:" >&2
        tail -n 20 "$TMP/daemon.log" >&2
    fi
    exit 1
}

start_daemon() {
    rm -f "$TMP/port"
    "$BB" --db "$DB" --listen 127.0.0.1 --port 0 --port-file "$TMP/port" \
        --admin-token-file "$TMP/admin" "$@" 2>>"$TMP/daemon.log" &
    DAEMON_PID=$!
    for _ in $(seq 1 200); do
        [ -s "$TMP/port" ] && break
        kill -0 "$DAEMON_PID" 2>/dev/null || { DAEMON_PID=; fail "billboardd exited at start"; }
        sleep 0.05
    done
    [ -s "$TMP/port" ] || fail "billboardd did not write its port"
    PORT=$(cat "$TMP/port")
    URL="http://127.0.0.1:$PORT"
}

stop_daemon() {
    kill -TERM "$DAEMON_PID"
    # A daemon that ignores SIGTERM must fail the test, not hang the suite.
    local rc=0
    for _ in $(seq 1 200); do
        kill -0 "$DAEMON_PID" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$DAEMON_PID" 2>/dev/null; then
        kill -9 "$DAEMON_PID"
        wait "$DAEMON_PID" 2>/dev/null || true
        DAEMON_PID=
        fail "billboardd still running 20 s after SIGTERM"
    fi
    wait "$DAEMON_PID" || rc=$?
    DAEMON_PID=
    [ "$rc" -eq 0 ] || fail "billboardd exited $rc on SIGTERM"
}

kill_daemon() {
    kill -9 "$DAEMON_PID" 2>/dev/null || true
    wait "$DAEMON_PID" 2>/dev/null || true
    DAEMON_PID=
}

req() {
    local method=$1 path=$2
    shift 2
    : >"$TMP/body"
    STATUS=$(curl -s --max-time 30 -o "$TMP/body" -D "$TMP/headers" -w '%{http_code}' -X "$method" \
        "$URL$path" "$@") || STATUS=000
}

jget() {
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); v=eval(sys.argv[2]); print(json.dumps(v) if isinstance(v,(dict,list,bool)) or v is None else v)' "$1" "$2"
}

header() { # NAME: value of a response header of the last req
    tr -d '\r' <"$TMP/headers" | awk -v n="$(echo "$1" | tr '[:upper:]' '[:lower:]')" -F': ' \
        'tolower($1) == n { sub(/^[^:]*: /, ""); print; exit }'
}

expect_status() {
    [ "$STATUS" = "$1" ] || fail "expected status $1, got $STATUS: $(head -c 400 "$TMP/body")"
}

expect_problem() {
    expect_status "$1"
    local ct
    ct=$(header Content-Type)
    [ "$ct" = "application/problem+json" ] || fail "status $1 with Content-Type '$ct'"
    python3 - "$TMP/body" "$1" <<'PY' || fail "bad problem body: $(cat "$TMP/body")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == int(sys.argv[2]), d
assert isinstance(d["type"], str) and d["type"], d
assert isinstance(d["title"], str) and d["title"], d
PY
}

episode() { # SEED [VERSION [H A d]]
    if [ $# -ge 5 ]; then
        python3 "$TESTS_DIR/episode_gen.py" "$1" "$2" "$3" "$4" "$5"
    else
        python3 "$TESTS_DIR/episode_gen.py" "$1" "${2:-0}" "$H" "$A" "$D"
    fi
}

enrol() {
    req POST /v1/clinics -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' \
        -d "{\"name\": \"$1\"}"
    expect_status 201
    jget "$TMP/body" 'd["token"]'
}

post_episode() { # TOKEN KEY FILE
    req POST /v1/episodes -H "Authorization: Bearer $1" -H "Idempotency-Key: $2" \
        -H 'Content-Type: application/json' --data-binary "@$3"
}

post_episodes() { # TOKEN N: episodes 1..N (episode SEED), keys k1..kN, each answered 201
    local i
    for i in $(seq 1 "$2"); do
        episode "$i" >"$TMP/e"
        post_episode "$1" "k$i" "$TMP/e"
        expect_status 201
    done
}

sql() { sqlite3 "$DB" "$@"; }

# Waits (up to 10 s) until no update is in flight: the last episode may have
# begun one (charged in "updates") that is not yet published as
# "billboard_version". Tests that compare billboards or ETags after
# submitting episodes call it first.
wait_published() {
    for _ in $(seq 1 200); do
        req GET /v1/privacy
        [ "$(jget "$TMP/body" 'd["updates"] > d["billboard_version"]')" = true ] || return 0
        sleep 0.05
    done
    fail "an update stayed in flight for 10 s"
}

mount_tmpfs() { # SIZE: a tmpfs at $MNT, unmounted (the daemon killed first) on exit
    MNT="$TMP/mnt"
    mkdir -p "$MNT"
    if ! mount -t tmpfs -o "size=$1,mode=0700" tmpfs "$MNT" 2>"$TMP/mount.err"; then
        echo "cannot mount a tmpfs here: $(cat "$TMP/mount.err")"
        exit 77
    fi
    trap tmpfs_cleanup EXIT
}

tmpfs_cleanup() {
    if [ -n "$DAEMON_PID" ]; then
        kill -9 "$DAEMON_PID" 2>/dev/null || true
        wait "$DAEMON_PID" 2>/dev/null || true
        DAEMON_PID=
    fi
    umount "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null || true
    cleanup
}
