#!/usr/bin/env bash
# A full disk under --backup and --restore (a tmpfs of 1 MiB mounted here;
# needs root, else skipped). A backup that does not fit fails with the
# reason, leaves no file behind (neither the backup nor its temporary) and
# does not disturb the daemon, which goes on serving; with the space back
# the same command succeeds. A restore onto a full disk fails the same way
# and leaves no database that could be started; with the space back it
# succeeds and the restored database serves the backup's billboards. A
# first start on a full disk exits with the reason and leaves no database.
. "$(dirname "$0")/lib.sh"
mount_tmpfs 1m
fill() { # leaves about 8 KiB of the tmpfs free
    rm -f "$MNT/fill"
    local free
    free=$(df -B1 --output=avail "$MNT" | tail -1)
    head -c $((free - 8192)) /dev/zero >"$MNT/fill"
}
leftovers() { # names in the tmpfs other than the filler
    find "$MNT" -mindepth 1 ! -name fill | sed "s#^$MNT/##"
}

start_daemon --horizon 3 --dim 4 --actions 2 --max-episodes 100000 --rho 100000
tok=$(enrol "clinic")
post_episodes "$tok" 300
wait_published
size=$(sqlite3 "file:$DB?mode=ro" 'SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()')
[ "$size" -gt 65536 ] || fail "the database is too small to fill anything: $size bytes"

# Backup onto the full disk: refused with the reason, nothing left behind.
fill
if "$BB" --db "$DB" --backup "$MNT/b.db" 2>"$TMP/b.log"; then
    fail "a backup succeeded on a full disk: $(cat "$TMP/b.log")"
fi
grep -qi "full\|space" "$TMP/b.log" || fail "no reason given: $(cat "$TMP/b.log")"
[ -z "$(leftovers)" ] || fail "a failed backup left files: $(leftovers)"
req GET /v1/privacy
expect_status 200
episode 301 >"$TMP/e"
post_episode "$tok" "k301" "$TMP/e"
expect_status 201
# With the space back, the same command succeeds.
rm -f "$MNT/fill"
"$BB" --db "$DB" --backup "$MNT/b.db" 2>"$TMP/b.log" || fail "backup: $(cat "$TMP/b.log")"
[ "$(sqlite3 "$MNT/b.db" 'PRAGMA integrity_check')" = ok ] || fail "backup integrity"
stop_daemon
cp "$MNT/b.db" "$TMP/b.db"
rm -f "$MNT/b.db"

# Restore onto the full disk: refused, no database that could be started.
fill
if "$BB" --db "$MNT/r.db" --restore "$TMP/b.db" 2>"$TMP/r.log"; then
    fail "a restore succeeded on a full disk: $(cat "$TMP/r.log")"
fi
grep -qi "full\|space" "$TMP/r.log" || fail "no reason given: $(cat "$TMP/r.log")"
[ -z "$(leftovers)" ] || fail "a failed restore left files: $(leftovers)"
rm -f "$MNT/fill"
"$BB" --db "$MNT/r.db" --restore "$TMP/b.db" 2>"$TMP/r.log" || fail "restore: $(cat "$TMP/r.log")"
[ "$(sqlite3 "$MNT/r.db" 'PRAGMA integrity_check')" = ok ] || fail "restored integrity"
vb=$(sqlite3 "$TMP/b.db" 'SELECT max(version) FROM billboards')
sqlite3 "$TMP/b.db" "SELECT body FROM billboards WHERE version = $vb" >"$TMP/want"
DB="$MNT/r.db" start_daemon --horizon 3 --dim 4 --actions 2 --max-episodes 100000 --rho 100000
req GET "/v1/billboard/$vb"
expect_status 200
printf '%s\n' "$(cat "$TMP/body")" | cmp -s - "$TMP/want" || fail "restored billboard $vb differs"
stop_daemon

# A first start on a full disk: exit 1 with the reason, nothing left behind.
fill
if "$BB" --db "$MNT/new.db" --port 0 "${CONF[@]}" --admin-token-file "$TMP/admin" 2>"$TMP/s.log"; then
    fail "a daemon started on a full disk"
fi
grep -qi "full\|space" "$TMP/s.log" || fail "no reason given: $(cat "$TMP/s.log")"
[ -z "$(find "$MNT" -mindepth 1 -name 'new.db*')" ] || fail "a failed first start left files: $(ls "$MNT")"
echo ok
