#!/usr/bin/env bash
# Patients' features never sit in a file others may read, whatever the
# umask: under umask 022 and 000 the daemon's database and the -wal and
# -shm files SQLite creates beside it are 0600 while it serves; a database
# an older build left 0644 (with its -wal and -shm, after a kill -9) is made
# private on start and keeps its episodes; the clinic's state file of the
# billboard CLI is 0600 under umask 000, and tightened when found 0644.
. "$(dirname "$0")/cli-lib.sh"

modes() { # FILES...: "name mode" per file, missing ones as "name -"
    local f
    for f in "$@"; do
        if [ -e "$f" ]; then echo "$(basename "$f") $(stat -c %a "$f")"; else echo "$(basename "$f") -"; fi
    done
}
expect_private() { # FILES...
    local got want
    got=$(modes "$@")
    want=$(for f in "$@"; do echo "$(basename "$f") 600"; done)
    [ "$got" = "$want" ] || fail "modes under umask $MASK: $(echo "$got" | tr '\n' ' ')"
}

for mask in 022 000; do
    rm -f "$DB" "$DB-wal" "$DB-shm"
    MASK=$mask
    umask "$mask"
    start_daemon "${CONF[@]}"
    umask 077
    tok=$(enrol "clinic $mask")
    episode 1 >"$TMP/e"
    post_episode "$tok" k1 "$TMP/e"
    expect_status 201
    expect_private "$DB" "$DB-wal" "$DB-shm"
    [ "$mask" = 000 ] || stop_daemon
done

# An older build's files after a crash: 0644 database, WAL and index.
kill_daemon
[ -e "$DB-wal" ] || fail "no WAL left by kill -9"
chmod 644 "$DB" "$DB-wal" "$DB-shm"
MASK=022
umask 022
start_daemon
umask 077
expect_private "$DB" "$DB-wal" "$DB-shm"
req GET /v1/privacy
[ "$(jget "$TMP/body" 'd["episodes"]')" = 1 ] || fail "episodes lost: $(cat "$TMP/body")"

# The clinic's state file.
export BILLBOARD_SERVER="$URL" BILLBOARD_STATE="$TMP/state.db" BILLBOARD_TOKEN="$tok"
MASK=000
umask 000
run 0 episode start --json
umask 077
expect_private "$TMP/state.db"
chmod 644 "$TMP/state.db"
umask 000
run 0 episode list --json
umask 077
expect_private "$TMP/state.db"
stop_daemon
echo ok
