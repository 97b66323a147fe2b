#!/usr/bin/env bash
# The process dies at exact points (proto/fault.h, the build-fault/ build:
# `make FAULTS=1`, which make test builds) while clients submit
# concurrently. For each point, on a database that already holds episodes,
# billboards and noise records:
#   - the daemon is killed at the point (SIGKILL, its log says so);
#   - PRAGMA integrity_check is ok; every acknowledged key is stored once,
#     with the episode it was acknowledged with; episodes are 1..n;
#   - every noise record and every billboard stored before is unchanged
#     (bytes), in the database and as served after the restart; the
#     restart rewrites no noise record;
#   - a retry of every key sent (answered or not) with the same body gets
#     201 with the stored episode, and nothing is stored twice;
#   - the daemon takes new episodes.
# Then --backup and --restore, killed between their copy and its rename,
# leave no file at the target and the source as it was; a retry succeeds.
. "$(dirname "$0")/lib.sh"
FAULT_BB=${FAULT_BB:-build-fault/billboardd}
[ -x "$FAULT_BB" ] || fail "no $FAULT_BB (make FAULTS=1 build-fault/billboardd; make test builds it)"
BB="$FAULT_BB"
CONF=(--horizon 3 --dim 4 --actions 2 --max-episodes 256 --rho 100000)
lib() { PYTHONPATH="$TESTS_DIR" python3 "$TESTS_DIR/crash_lib.py" "$@"; }
nodes() { sql "SELECT step, slot, tag, hex(bytes) FROM mech_state ORDER BY step, slot" | sha256sum; }

served_as_stored() {
    python3 - "$DB" "$URL" <<'PY' || fail "a billboard is served differently from its stored bytes"
import sqlite3, sys, urllib.request
con = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
for v, body in con.execute("SELECT version, body FROM billboards ORDER BY version"):
    got = urllib.request.urlopen("%s/v1/billboard/%d" % (sys.argv[2], v)).read()
    assert got == body, v
PY
}

# point AFTER: the AFTER-th time the point is reached kills the daemon.
one_point() {
    local point=$1 after=$2 dir
    dir="$TMP/$point"
    mkdir "$dir"
    DB="$dir/bb.db"
    : >"$dir/log"
    : >"$TMP/daemon.log"
    start_daemon "${CONF[@]}"
    tok=$(enrol "fault clinic")
    # Some history first: episodes, billboards and noise records to keep.
    lib client "$PORT" "$tok" pre 2 12 "$dir/log" 2>>"$dir/client.err"
    wait_published
    stop_daemon
    lib check "$DB" "$dir/log" "$dir/state.json" >/dev/null || fail "$point: before the fault"
    BILLBOARD_FAULT=$point BILLBOARD_FAULT_AFTER=$after start_daemon
    lib client "$PORT" "$tok" run 4 100 "$dir/log" 2>>"$dir/client.err" &
    local cpid=$! rc=0
    for _ in $(seq 1 300); do
        kill -0 "$DAEMON_PID" 2>/dev/null || break
        sleep 0.05
    done
    kill -0 "$DAEMON_PID" 2>/dev/null && fail "$point: the daemon was not killed at the point"
    wait "$DAEMON_PID" || rc=$?
    DAEMON_PID=
    wait "$cpid" || fail "$point: client failed"
    [ "$rc" = 137 ] || fail "$point: daemon exit status $rc, want 137 (SIGKILL)"
    grep -q "fault point reached" "$TMP/daemon.log" || fail "$point: no fault message"
    if grep -q unexpected "$dir/client.err"; then fail "$point: client saw: $(cat "$dir/client.err")"; fi
    out=$(lib check "$DB" "$dir/log" "$dir/state.json" 2>&1) || fail "$point: $out"
    before=$(nodes)
    start_daemon
    [ "$(nodes)" = "$before" ] || fail "$point: the restart rewrote mechanism noise"
    served_as_stored
    retried=$(lib retry "$URL" "$tok" "$DB" "$dir/log" 2>&1) || fail "$point: $retried"
    wait_published
    episode 9 >"$TMP/e"
    post_episode "$tok" "after-$point" "$TMP/e"
    expect_status 201
    stop_daemon
    out2=$(lib check "$DB" "$dir/log" "$dir/state.json" 2>&1) || fail "$point: after the retries: $out2"
    echo "$point: killed; $out; $retried"
}

# Commit points fire on the 20th commit of the run; noise and update points
# the second time (the mechanism releases noise, and an update is due, every
# few episodes at these sizes).
for point in before_commit after_commit_before_reply; do
    one_point "$point" 20
done
for point in mech_record mid_noise_persist after_update_charge mid_update mid_billboard_publish; do
    one_point "$point" 2
done

# --backup and --restore, killed after the copy and before its rename. The
# backup runs against the serving daemon under concurrent posts.
src="$TMP/mid_billboard_publish/bb.db" # the last point's: $tok is its clinic
DB=$src
dir="$TMP/mid_billboard_publish"
: >"$TMP/daemon.log"
start_daemon
lib client "$PORT" "$tok" backup 4 40 "$dir/log" 2>>"$dir/client.err" &
cpid=$!
sleep 0.3
rc=0
BILLBOARD_FAULT=mid_backup "$BB" --db "$src" --backup "$TMP/b.db" 2>>"$TMP/daemon.log" || rc=$?
[ "$rc" = 137 ] || fail "backup: exit status $rc, want 137"
[ ! -e "$TMP/b.db" ] || fail "a killed backup left $TMP/b.db"
wait "$cpid" || fail "backup: client failed"
if grep -q unexpected "$dir/client.err"; then fail "backup: client saw: $(cat "$dir/client.err")"; fi
kill -0 "$DAEMON_PID" 2>/dev/null || fail "the daemon died with the backup"
"$BB" --db "$src" --backup "$TMP/b.db" 2>>"$TMP/daemon.log" || fail "backup retry failed"
stop_daemon
out=$(lib check "$DB" "$dir/log" "$dir/state.json" 2>&1) || fail "backup: $out"
[ "$(sqlite3 "$TMP/b.db" 'PRAGMA integrity_check')" = ok ] || fail "backup damaged"
sum=$(sqlite3 "$TMP/b.db" .dump | sha256sum)
rc=0
BILLBOARD_FAULT=mid_restore "$BB" --db "$TMP/r.db" --restore "$TMP/b.db" 2>>"$TMP/daemon.log" || rc=$?
[ "$rc" = 137 ] || fail "restore: exit status $rc, want 137"
[ ! -e "$TMP/r.db" ] || fail "a killed restore left $TMP/r.db"
"$BB" --db "$TMP/r.db" --restore "$TMP/b.db" 2>>"$TMP/daemon.log" || fail "restore retry failed"
[ "$(sqlite3 "$TMP/r.db" 'PRAGMA integrity_check')" = ok ] || fail "restored database damaged"
# The restored database is the backup but for the rows the restore writes:
# the backup mark, the timeline, the version offset and its charge (ledger.h).
content() { # DB: every row but those
    sqlite3 "$1" .dump | grep -v "INSERT INTO meta VALUES('\(backup\|timeline\|version_offset\|restores\)'"
}
[ "$(content "$TMP/r.db" | sha256sum)" = "$(content "$TMP/b.db" | sha256sum)" ] ||
    fail "the restored database differs from the backup"
[ "$(sqlite3 "$TMP/r.db" "SELECT json_array_length(value) FROM meta WHERE key = 'restores'")" = 1 ] ||
    fail "the restore recorded no charge"
[ "$(sqlite3 "$TMP/b.db" .dump | sha256sum)" = "$sum" ] || fail "restore changed the backup"
echo "mid_backup (under posts; $out), mid_restore: killed; target absent, source intact, retry ok"
echo ok
