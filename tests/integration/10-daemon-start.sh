#!/usr/bin/env bash
# billboardd start-up: --help, the stored configuration (first start stores
# it, later starts read it and refuse contradicting flags), refusal of the
# calibration (a stored key) and of the "every" rule for private runs, WAL and
# synchronous=FULL on disk, --port 0 with --port-file.
. "$(dirname "$0")/lib.sh"

"$BB" --help >"$TMP/help"
for flag in --db --listen --port --port-file --admin-token-file --max-body --horizon --rho; do
    grep -q -- "$flag" "$TMP/help" || fail "--help does not document $flag"
done

# Without a database nothing starts.
if timeout 10 "$BB" "${CONF[@]}" 2>/dev/null; then fail "started without --db"; fi
# The calibration is a stored key, not a flag (docs/DAEMON.md "Stored
# keys"); private runs refuse the every-episode rule.
if timeout 10 "$BB" --db "$TMP/x.db" --port 0 "${CONF[@]}" --calibration paper 2>"$TMP/err"; then
    fail "--calibration accepted as a flag"
fi
grep -q "'--calibration' is not a flag" "$TMP/err" || fail "no clear message: $(cat "$TMP/err")"
[ -e "$TMP/x.db" ] && fail "a refused --calibration left a database"
if timeout 10 "$BB" --db "$TMP/y.db" --port 0 "${CONF[@]}" --update-rule every 2>"$TMP/err"; then
    fail "--update-rule every accepted for a private run"
fi
grep -Eq "every|rare" "$TMP/err" || fail "no clear message: $(cat "$TMP/err")"

# First start stores the configuration.
start_daemon "${CONF[@]}"
req GET /v1/config
expect_status 200
[ "$(jget "$TMP/body" 'd["H"], d["d"], d["A"], d["K_max"]')" = "(3, 4, 2, 64)" ] ||
    fail "config: $(cat "$TMP/body")"
[ "$(sql 'PRAGMA journal_mode')" = wal ] || fail "database not in WAL mode"
[ "$(sql "SELECT count(*) FROM billboards WHERE version = 0")" = 1 ] || fail "billboard 0 not stored"
stop_daemon

# A later start needs no configuration flags, accepts the same ones, and
# refuses a different one with a message naming it.
start_daemon
req GET /v1/config
[ "$(jget "$TMP/body" 'd["H"]')" = 3 ] || fail "stored configuration not used"
stop_daemon
start_daemon "${CONF[@]}"
stop_daemon
for bad in "--horizon 4" "--dim 5" "--max-episodes 65" "--rho 1" "--beta 7.5"; do
    # shellcheck disable=SC2086
    # (timeout: a daemon that wrongly starts must not hang the suite)
    if timeout 10 "$BB" --db "$DB" --port 0 $bad 2>"$TMP/err"; then fail "$bad accepted"; fi
    grep -q -- "${bad% *}" "$TMP/err" || fail "message does not name ${bad% *}: $(cat "$TMP/err")"
    grep -q "contradicts" "$TMP/err" || fail "unclear message: $(cat "$TMP/err")"
done
# The admin token may come from the environment instead of a file.
rm -f "$TMP/port"
BILLBOARD_ADMIN_TOKEN="env-admin-token-0123456789" "$BB" --db "$DB" --port 0 \
    --port-file "$TMP/port" 2>>"$TMP/daemon.log" &
DAEMON_PID=$!
for _ in $(seq 1 100); do [ -s "$TMP/port" ] && break; sleep 0.05; done
URL="http://127.0.0.1:$(cat "$TMP/port")"
req GET /v1/clinics -H "Authorization: Bearer env-admin-token-0123456789"
expect_status 200
req GET /v1/clinics -H "Authorization: Bearer $ADMIN"
expect_problem 401
stop_daemon
# A short admin token is refused at start.
printf 'short\n' >"$TMP/short"
if timeout 10 "$BB" --db "$DB" --port 0 --admin-token-file "$TMP/short" 2>"$TMP/err"; then
    fail "a 5-byte admin token was accepted"
fi
grep -q "16 bytes" "$TMP/err" || fail "unclear message: $(cat "$TMP/err")"

# The non-private baseline may use the every-episode rule.
"$BB" --db "$TMP/np.db" --port 0 --port-file "$TMP/np.port" --horizon 2 --dim 2 --actions 2 \
    --max-episodes 8 --rho inf --update-rule every 2>>"$TMP/daemon.log" &
pid=$!
for _ in $(seq 1 100); do [ -s "$TMP/np.port" ] && break; sleep 0.05; done
[ -s "$TMP/np.port" ] || fail "non-private baseline did not start"
kill -TERM "$pid"
wait "$pid" || fail "non-private daemon exited non-zero"
# The choices 'auto' makes (mechanism, release start k0, N_max) are stored,
# not 'auto', so that a later version whose rule chooses differently cannot
# move a database's release grid or N_max; on a restart 'auto' (and
# --max-updates 0) means the stored choice, and a different value is
# refused. A database that still stores 'auto' gets its choices at start;
# one that predates a key (here y-exponent, prior-value, features, plausible
# conversion, y-sensitivity, indefinite and explore) keeps that key's old
# behaviour (0, ball, bun-steinke, triangle, refuse, the plausible set) and
# accepts its own flags again. Created with --conversion bun-steinke, so
# that the old form's rho, and so its 'auto' choices, are the same.
PIN=(--horizon 3 --dim 4 --actions 2 --max-episodes 100000 --epsilon 1 --conversion bun-steinke)
stored_config() { sqlite3 "$TMP/pin.db" "SELECT value FROM meta WHERE key = 'config'"; }
"$BB" --print-params "${PIN[@]}" >"$TMP/pin.json"
k0=$(jget "$TMP/pin.json" 'int(d["release_start"])')
nmax=$(jget "$TMP/pin.json" 'd["max_updates"]')
if [ "$k0" -le 1 ] || [ "$nmax" -lt 1 ]; then fail "print-params: $(cat "$TMP/pin.json")"; fi
DB="$TMP/pin.db" start_daemon "${PIN[@]}"
req GET /v1/config
[ "$(jget "$TMP/body" 'int(d["release_start"]), d["max_updates"], d["mechanism"]')" = \
    "($k0, $nmax, 'grid-sqrt')" ] || fail "config: $(cat "$TMP/body")"
stop_daemon
stored_config >"$TMP/pin.stored"
for kv in "\"release-start\":\"$k0\"" "\"max-updates\":\"$nmax\"" '"mechanism":"grid-sqrt"'; do
    grep -qF "$kv" "$TMP/pin.stored" || fail "stored configuration lacks $kv: $(cat "$TMP/pin.stored")"
done
DB="$TMP/pin.db" start_daemon "${PIN[@]}" --release-start auto --mechanism auto --max-updates 0
req GET /v1/config
[ "$(jget "$TMP/body" 'int(d["release_start"])')" = "$k0" ] || fail "auto on restart: $(cat "$TMP/body")"
stop_daemon
if timeout 10 "$BB" --db "$TMP/pin.db" --port 0 --release-start $((k0 + 1)) 2>"$TMP/err"; then
    fail "--release-start $((k0 + 1)) accepted against the stored $k0"
fi
grep -q "contradicts" "$TMP/err" || fail "unclear message: $(cat "$TMP/err")"
sed -e "s/\"release-start\":\"$k0\"/\"release-start\":\"auto\"/" \
    -e "s/\"max-updates\":\"$nmax\"/\"max-updates\":\"0\"/" \
    -e 's/"mechanism":"grid-sqrt"/"mechanism":"auto"/' -e 's/,"y-exponent":"1"//' \
    -e 's/,"prior-value":"[^"]*"//' -e 's/,"features":"[^"]*"//' \
    -e 's/"plausible":"[^"]*",//' -e 's/"plausible-floor":"[^"]*",//' \
    -e 's/"next-discount":"[^"]*",//' -e 's/,"first-share":"[^"]*"//' \
    -e 's/"conversion":"[^"]*",//' -e 's/,"y-sensitivity":"[^"]*"//' \
    -e 's/"indefinite":"[^"]*",//' -e 's/,"arithmetic":"[^"]*"//' \
    -e 's/"explore":"[^"]*",//' -e 's/,"final-prior":"[^"]*"//' \
    -e 's/,"row-weight":"[^"]*"//' "$TMP/pin.stored" >"$TMP/pin.old"
grep -q '"release-start":"auto"' "$TMP/pin.old" || fail "could not write an old configuration"
if grep -q 'y-exponent\|prior-value\|features\|plausible\|conversion\|y-sensitivity\|indefinite\|arithmetic\|next-discount\|first-share\|explore\|final-prior\|row-weight' "$TMP/pin.old"; then
    fail "could not drop y-exponent, prior-value, features, plausible, conversion, y-sensitivity, indefinite, arithmetic, next-discount, first-share, explore, final-prior and row-weight: $(cat "$TMP/pin.old")"
fi
sqlite3 "$TMP/pin.db" "UPDATE meta SET value = CAST(readfile('$TMP/pin.old') AS TEXT) WHERE key = 'config'"
# ... which had no derived parameters stored either (23-pinned-params.sh).
sqlite3 "$TMP/pin.db" "DELETE FROM meta WHERE key = 'derived'"
: >"$TMP/daemon.log"
DB="$TMP/pin.db" start_daemon "${PIN[@]}"
req GET /v1/config
# (its auto start compares with the sd of equal shares, a = 1: later than k0)
[ "$(jget "$TMP/body" 'int(d["release_start"]) > '"$k0")" = true ] ||
    fail "old database's start: $(cat "$TMP/body")"
k0old=$(jget "$TMP/body" 'int(d["release_start"])')
nold=$(jget "$TMP/body" 'd["max_updates"]')
[ "$(jget "$TMP/body" 'd["y_exponent"], d["prior_value"], d["features"], d["plausible"], d["plausible_floor"], d["conversion"], round(d["rho"], 8), d["indefinite"], d["arithmetic"], d["next_discount"], d["first_share"], d["explore"], d["row_weight"]')" = \
    "(0.0, 0.0, 'ball', 0.0, 0.0, 'bun-steinke', 0.02081994, 'refuse', 'float', 0.0, 1.0, 'set', 'one')" ] ||
    fail "old database's configuration: $(cat "$TMP/body")"
stop_daemon
grep -q "stored the choices" "$TMP/daemon.log" || fail "no notice: $(cat "$TMP/daemon.log")"
[ "$(stored_config)" = "$(sed -e 's/"y-exponent":"1"/"y-exponent":"0"/' \
    -e 's/"prior-value":"[^"]*"/"prior-value":"0"/' \
    -e 's/"plausible":"[^"]*"/"plausible":"0"/' \
    -e 's/"plausible-floor":"[^"]*"/"plausible-floor":"0"/' \
    -e 's/"y-sensitivity":"[^"]*"/"y-sensitivity":"triangle"/' \
    -e 's/"indefinite":"[^"]*"/"indefinite":"refuse"/' \
    -e 's/"arithmetic":"[^"]*"/"arithmetic":"float"/' \
    -e 's/"next-discount":"[^"]*"/"next-discount":"0"/' \
    -e 's/"first-share":"[^"]*"/"first-share":"1"/' \
    -e 's/"explore":"[^"]*"/"explore":"set"/' \
    -e 's/"final-prior":"[^"]*"/"final-prior":"kept"/' \
    -e 's/"row-weight":"[^"]*"/"row-weight":"one"/' \
    -e "s/\"release-start\":\"$k0\"/\"release-start\":\"$k0old\"/" \
    -e "s/\"max-updates\":\"$nmax\"/\"max-updates\":\"$nold\"/" "$TMP/pin.stored")" ] ||
    fail "old configuration not pinned: $(stored_config)"
if timeout 10 "$BB" --db "$TMP/pin.db" --port 0 --conversion cks 2>"$TMP/err"; then
    fail "--conversion cks accepted on a database created with bun-steinke"
fi
# Keys no flag sets: neither the stored value nor another can be given.
for kv in "y-exponent 1" "plausible 1" "prior-value 0.2" "plausible 0"; do
    # shellcheck disable=SC2086 # the key and its value
    if timeout 10 "$BB" --db "$TMP/pin.db" --port 0 --$kv 2>"$TMP/err"; then
        fail "--$kv accepted on a database created with 0"
    fi
    grep -q "is not a flag" "$TMP/err" || fail "--$kv: unclear message: $(cat "$TMP/err")"
done
if timeout 10 "$BB" --db "$TMP/pin.db" --port 0 --features simplex 2>"$TMP/err"; then
    fail "--features simplex accepted on a database created before the key (ball)"
fi
grep -q "contradicts" "$TMP/err" || fail "unclear message: $(cat "$TMP/err")"
echo ok
