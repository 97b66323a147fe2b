#!/usr/bin/env bash
# billboardd --config FILE (docs/DAEMON.md, "Configuration file"):
#   - a daemon runs from the file alone: database, address, port file, admin
#     token, limits (max-body: 413 past the file's cap) and the
#     configuration (GET /v1/config);
#   - the stored-configuration check sees the values in effect: a later
#     start with the same file starts; a changed key is refused naming
#     FILE:LINE; a flag on the command line overrides the file's key, both
#     ways (a changed key overridden by the stored value starts, a flag
#     contradicting the stored value is refused);
#   - --print-params gives the same parameters from the file as from flags;
#   - an unknown key, a repeated key, a key without a value, a bad value or
#     a command as a key stop it with FILE:LINE and exit 2, before any
#     database is created.
. "$(dirname "$0")/lib.sh"
CF="$TMP/billboardd.conf"

write_conf() { # [HORIZON]: the service's file, CRLF lines and comments included
    printf '%s\r\n' \
        "# billboardd for the test" \
        "" \
        "db = $DB" \
        "listen = 127.0.0.1" \
        "port = 0" \
        "port-file = $TMP/port" \
        "admin-token-file = $TMP/admin" \
        "  max-body = 2048  " \
        "threads = 3" \
        "   # the configuration" \
        "horizon = ${1:-3}" \
        "dim = 4" \
        "actions = 2" \
        "max-episodes = 64" \
        "rho = 100000" >"$CF"
}

start_conf() { # [FLAGS]: billboardd --config $CF [FLAGS], nothing else
    rm -f "$TMP/port"
    "$BB" --config "$CF" "$@" 2>>"$TMP/daemon.log" &
    DAEMON_PID=$!
    for _ in $(seq 1 200); do
        [ -s "$TMP/port" ] && break
        kill -0 "$DAEMON_PID" 2>/dev/null || { DAEMON_PID=; fail "billboardd --config exited at start"; }
        sleep 0.05
    done
    [ -s "$TMP/port" ] || fail "billboardd --config did not write its port"
    PORT=$(cat "$TMP/port")
    URL="http://127.0.0.1:$PORT"
}

refused() { # WANT FLAGS...: billboardd --config $CF FLAGS exits 2 saying WANT
    local want=$1 rc=0
    shift
    "$BB" --config "$CF" "$@" >"$TMP/out" 2>&1 || rc=$?
    [ "$rc" != 0 ] || fail "started with $* (file: $(cat "$CF"))"
    grep -qF -- "$want" "$TMP/out" || fail "wanted '$want', got: $(cat "$TMP/out")"
}

write_conf
start_conf
req GET /v1/config
[ "$(jget "$TMP/body" 'd["H"], d["d"], d["A"], d["K_max"], d["rho"]')" = "(3, 4, 2, 64, 100000.0)" ] ||
    fail "config from the file: $(cat "$TMP/body")"
tok=$(enrol "from the file") # the admin token file of the file
head -c 3000 /dev/zero | tr '\0' ' ' >"$TMP/big"
post_episode "$tok" big "$TMP/big"
expect_problem 413 # the file's max-body, not the default 1 MiB
episode 1 >"$TMP/e"
post_episode "$tok" k1 "$TMP/e"
expect_status 201
stop_daemon

# The same file again: the stored configuration agrees.
start_conf
stop_daemon
# A changed key contradicts it: refused with FILE:LINE.
write_conf 5
refused "$CF:11: horizon = 5 contradicts the configuration stored in $DB"
# The command line overrides the file: the file's 5 is not in effect.
start_conf --horizon 3
req GET /v1/config
[ "$(jget "$TMP/body" 'd["H"]')" = 3 ] || fail "served H=$(jget "$TMP/body" 'd["H"]')"
stop_daemon
# And a flag that contradicts is refused as a flag.
write_conf
refused "--horizon 6 contradicts the configuration stored in $DB" --horizon 6
refused "--dim 5 contradicts" --dim 5

# --print-params: the file's configuration derives as the flags do.
"$BB" --config "$CF" --print-params >"$TMP/p-file" || fail "--print-params from the file"
"$BB" --print-params "${CONF[@]}" >"$TMP/p-flags" || fail "--print-params from flags"
cmp -s "$TMP/p-file" "$TMP/p-flags" || fail "the file and the flags derive differently"

# Errors: FILE:LINE, exit 2, no database created.
DB="$TMP/never.db"
check_error() { # LINE WANT: the file with LINE added after the first line
    local line=$1 want=$2 rc=0
    write_conf
    sed -i "1a $line" "$CF"
    "$BB" --config "$CF" >"$TMP/out" 2>&1 || rc=$?
    [ "$rc" = 2 ] || fail "'$line': exit $rc, want 2"
    grep -qF -- "billboardd: $CF:$want" "$TMP/out" || fail "'$line': $(cat "$TMP/out")"
    [ -e "$DB" ] && fail "'$line' left a database"
    return 0
}
check_error "bogus = 1" "2: unknown key 'bogus'"
check_error "value-clip = remaining" "2: 'value-clip' is not a setting: how the learner works"
check_error "port = 8080" "6: duplicate key 'port' (first at line 2)"
check_error "timeout" "2: timeout has no value: write 'timeout = VALUE'"
check_error "timeout =" "2: timeout has no value"
check_error "timeout = soon" "2: bad value 'soon' for timeout"
check_error "epsilon = lots" "2: bad value 'lots' for epsilon"
check_error "--port = 1" "2: bad key '--port': a key is a flag's name without its dashes"
check_error "print-params = true" "2: print-params is a command, not a setting"
check_error "config = /etc/other.conf" "2: config is a command, not a setting"
# Range errors, found when the whole configuration derives, name the key
# and its line too; so do a missing file a key names and a host name.
check_error "delta = 2" "2: delta = 2: delta must be in (0, 1)"
check_error "gram-share = 1.5" "2: gram-share = 1.5: gram share f must be in (0, 1)"
check_changed() { # SED-EXPR RC WANT: the file changed by SED-EXPR
    local rc=0
    write_conf
    sed -i "$1" "$CF"
    "$BB" --config "$CF" >"$TMP/out" 2>&1 || rc=$?
    [ "$rc" = "$2" ] || fail "'$1': exit $rc, want $2: $(cat "$TMP/out")"
    grep -qF -- "billboardd: $CF:$3" "$TMP/out" || fail "'$1': $(cat "$TMP/out")"
    [ -e "$DB" ] && fail "'$1' left a database"
    return 0
}
check_changed 's/^horizon = 3/horizon = 5000/' 2 "11: horizon = 5000: horizon H must be in [1, 1000]"
check_changed 's/^listen = .*/listen = localhost/' 2 \
    "4: listen 'localhost' is not an IPv4 or IPv6 address (host names are not accepted)"
check_changed "s|^admin-token-file = .*|admin-token-file = $TMP/no-token|" 1 \
    "7: admin-token-file $TMP/no-token: No such file or directory"
check_changed "s|^threads = 3|tls-cert = $TMP/no.pem\r\ntls-key = $TMP/no.key|" 2 \
    "9: cannot read --tls-cert $TMP/no.pem: No such file or directory"
# On the command line, the flag is named instead.
rc=0
"$BB" --db "$DB" "${CONF[@]}" --delta 1.5 >"$TMP/out" 2>&1 || rc=$?
if [ "$rc" != 2 ] || ! grep -qF "billboardd: --delta 1.5: delta must be in (0, 1)" "$TMP/out"; then
    fail "--delta 1.5: exit $rc, $(cat "$TMP/out")"
fi
rc=0
"$BB" --config "$TMP/none.conf" >"$TMP/out" 2>&1 || rc=$?
if [ "$rc" != 2 ] || ! grep -qF "$TMP/none.conf: No such file or directory" "$TMP/out"; then
    fail "a missing file: exit $rc, $(cat "$TMP/out")"
fi
echo ok
