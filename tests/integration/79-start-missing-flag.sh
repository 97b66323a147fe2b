#!/usr/bin/env bash
# A start that fails leaves no half-made database: a new database without
# a required configuration flag is refused with a message naming every
# missing flag (exit 2), and neither that nor any other start-up failure
# before the daemon listens (a bad value, an unservable configuration, a
# short admin token, a taken port) leaves the file or its -wal/-shm behind.
# A database that existed before is never removed.
. "$(dirname "$0")/lib.sh"

no_db() { # PATH: nothing of the database may exist
    local f
    for f in "$1" "$1-wal" "$1-shm" "$1-journal"; do
        [ ! -e "$f" ] || fail "$f left behind: $(ls -l "$1"* 2>&1)"
    done
}
refused() { # WANT-STATUS DB ARGS...: billboardd must exit with WANT-STATUS
    local want=$1 db=$2 rc=0
    shift 2
    timeout 20 "$BB" --db "$db" --port 0 --port-file "$TMP/x.port" "$@" 2>"$TMP/err" || rc=$?
    [ "$rc" = "$want" ] || fail "exit $rc, want $want, for $*: $(cat "$TMP/err")"
}

# No --horizon on a new database: the message names it (not "H must be in
# [1, 1000]") and nothing is created.
refused 2 "$TMP/a.db" --dim 4 --actions 2 --max-episodes 64 --rho 1
grep -q -- "missing --horizon" "$TMP/err" || fail "message: $(cat "$TMP/err")"
grep -q "must be in" "$TMP/err" && fail "range message for a missing flag: $(cat "$TMP/err")"
no_db "$TMP/a.db"
# Every missing flag is named at once; the budget is one of two flags.
refused 2 "$TMP/a.db" --dim 4
for f in --horizon --actions --max-episodes "--rho or --epsilon"; do
    grep -q -- "$f" "$TMP/err" || fail "does not name $f: $(cat "$TMP/err")"
done
grep -q -- "--dim" "$TMP/err" && fail "names --dim, which was given: $(cat "$TMP/err")"
no_db "$TMP/a.db"
refused 2 "$TMP/a.db" --horizon 3 --dim 4 --actions 2 --max-episodes 64
grep -q -- "--rho or --epsilon" "$TMP/err" || fail "budget not named: $(cat "$TMP/err")"
no_db "$TMP/a.db"
# --epsilon alone is a budget.
refused 2 "$TMP/a.db" --epsilon 1
grep -q "budget" "$TMP/err" && fail "--epsilon not taken as the budget: $(cat "$TMP/err")"
# --print-params says the same, and creates nothing either.
rc=0
"$BB" --print-params --horizon 3 --actions 2 --max-episodes 64 --rho 1 >/dev/null 2>"$TMP/err" ||
    rc=$?
[ "$rc" = 2 ] || fail "--print-params without --dim: exit $rc"
grep -q -- "missing --dim" "$TMP/err" || fail "print-params message: $(cat "$TMP/err")"

# Other failures before the configuration is stored.
refused 2 "$TMP/a.db" --horizon 5000 --dim 4 --actions 2 --max-episodes 64 --rho 1
grep -q "horizon" "$TMP/err" || fail "message: $(cat "$TMP/err")"
no_db "$TMP/a.db"
refused 2 "$TMP/a.db" "${CONF[@]}" --calibration paper
no_db "$TMP/a.db"
# ...and after it, but before the daemon listened: nothing was served.
printf 'short\n' >"$TMP/short"
refused 2 "$TMP/a.db" "${CONF[@]}" --admin-token-file "$TMP/short"
grep -q "16 bytes" "$TMP/err" || fail "message: $(cat "$TMP/err")"
no_db "$TMP/a.db"
refused 1 "$TMP/a.db" "${CONF[@]}" --admin-token-file "$TMP/no-such-file"
no_db "$TMP/a.db"
refused 2 "$TMP/a.db" "${CONF[@]}" --listen 127.0.0.1.5 --insecure-http
grep -q "listen '127.0.0.1.5' is not an IPv4 or IPv6 address" "$TMP/err" || fail "message: $(cat "$TMP/err")"
no_db "$TMP/a.db"
refused 2 "$TMP/a.db" "${CONF[@]}" --tls-cert "$TMP/no-cert" --tls-key "$TMP/no-key"
no_db "$TMP/a.db"
start_daemon "${CONF[@]}"
rc=0
timeout 20 "$BB" --db "$TMP/a.db" --port "$PORT" "${CONF[@]}" 2>"$TMP/err" || rc=$?
[ "$rc" = 1 ] || fail "a taken port: exit $rc: $(cat "$TMP/err")"
grep -q "cannot listen" "$TMP/err" || fail "message: $(cat "$TMP/err")"
no_db "$TMP/a.db"
# A folder that does not exist: said plainly.
refused 1 "$TMP/no/such/dir/a.db" "${CONF[@]}"
grep -q "cannot create $TMP/no/such/dir/a.db" "$TMP/err" || fail "message: $(cat "$TMP/err")"

# A database that existed is never removed, whatever fails: the running
# daemon's, on a taken port and with a contradicting flag...
stop_daemon
before=$(sql 'SELECT value FROM meta WHERE key = "config"')
[ -n "$before" ] || fail "no stored configuration to compare"
start_daemon
port=$PORT
rc=0
timeout 20 "$BB" --db "$DB" --port "$port" 2>"$TMP/err" || rc=$?
[ "$rc" != 0 ] || fail "two daemons on one port"
stop_daemon
refused 2 "$DB" --horizon 4
grep -q "contradicts" "$TMP/err" || fail "message: $(cat "$TMP/err")"
[ -s "$DB" ] || fail "an existing database was removed"
[ "$(sql 'SELECT value FROM meta WHERE key = "config"')" = "$before" ] || fail "configuration changed"
# ...nor an empty file someone else created.
: >"$TMP/empty.db"
refused 2 "$TMP/empty.db" --dim 4
[ -e "$TMP/empty.db" ] || fail "a file the daemon did not create was removed"
# And a first start with every flag still creates and serves a database.
DB="$TMP/b.db"
start_daemon "${CONF[@]}"
req GET /v1/config
expect_status 200
stop_daemon
[ "$(sql 'SELECT count(*) FROM billboards')" = 1 ] || fail "new database without billboard 0"
echo ok
