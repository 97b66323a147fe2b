#!/usr/bin/env bash
# The derived parameters are pinned (server/pinned.h, docs/DAEMON.md
# "Upgrades"): the first start stores every derived number with the
# configuration; a start whose binary derives any other number refuses the
# database (exit 1), naming each field with both values; restored, it
# serves again. A database without them (created before they were stored)
# is served and gets them stored.
. "$(dirname "$0")/lib.sh"

derived() { sql "SELECT value FROM meta WHERE key = 'derived'"; }
stored_text() { # NAME: the stored value as written, not re-rendered by SQLite
    local re=${1//[/\\[}
    derived | sed -n "s/^  \"${re//]/\\]}\": \(.*\)\$/\1/p" | sed 's/,$//'
}
edit() { # NAME OLD NEW: replaces the value's text only, every other byte kept
    sql "UPDATE meta SET value = replace(value, '\"$1\": $2' || char(10), '\"$1\": $3' || char(10))
         WHERE key = 'derived'"
    sql "UPDATE meta SET value = replace(value, '\"$1\": $2,', '\"$1\": $3,') WHERE key = 'derived'"
    [ "$(stored_text "$1")" = "$3" ] || fail "could not edit $1"
}
refused() { # a start must exit 1 without serving
    local rc=0
    timeout 20 "$BB" --db "$DB" --listen 127.0.0.1 --port 0 --port-file "$TMP/x.port" \
        --admin-token-file "$TMP/admin" 2>"$TMP/err" || rc=$?
    [ "$rc" = 1 ] || fail "exit $rc, want 1: $(cat "$TMP/err")"
    [ ! -s "$TMP/x.port" ] || fail "it listened"
    [ -e "$DB" ] || fail "the refused database was removed"
}

start_daemon --horizon 3 --dim 4 --actions 2 --max-episodes 200 --rho 1
tok=$(enrol clinic)
episode 1 >"$TMP/e1"
post_episode "$tok" key-1 "$TMP/e1"
expect_status 201
req GET /v1/config
cp "$TMP/body" "$TMP/config"
stop_daemon

# Stored at creation, with the values the daemon serves (grid-sqrt, the
# default: its grid and coefficients too).
derived >"$TMP/derived"
python3 - "$TMP/derived" "$TMP/config" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
c = json.load(open(sys.argv[2]))
c = c.get("params", c)
for k in ("sigma_gram", "shift", "ridge", "max_updates", "sigma_y", "rho_gram", "rho_y"):
    assert s[k] == c[k], (k, s[k], c[k])
assert s["sigma_y_drawn_step[2]"] == c["sigma_y_drawn_step"][2], s
assert s["release_start"] == c["release_start"] == s["release_grid[0]"], s
assert s["sqrt_coefficient[1]"] == 0.5 and "release_grid[%d]" % (c["releases"] - 1) in s, s
EOF
sigma=$(stored_text sigma_gram)
step=$(stored_text 'sigma_y_step[1]')
if [ -z "$sigma" ] || [ -z "$step" ]; then
    fail "no sigma_gram or sigma_y_step[1]: $(cat "$TMP/derived")"
fi

# One stored value edited: refused, the field named with both values.
edit sigma_gram "$sigma" 5.25
refused
grep -q "derived parameter sigma_gram: stored 5.25, this binary derives $sigma\$" "$TMP/err" ||
    fail "message: $(cat "$TMP/err")"
grep -q "this binary would change the noise of an existing deployment: run the binary that created it, or start a new deployment" "$TMP/err" ||
    fail "message: $(cat "$TMP/err")"
[ "$(grep -c "derived parameter" "$TMP/err")" = 1 ] || fail "other fields named: $(cat "$TMP/err")"
# A step's noise too, each difference on its own line.
edit 'sigma_y_step[1]' "$step" 1
refused
grep -q "derived parameter sigma_y_step\[1\]: stored 1, this binary derives $step\$" "$TMP/err" ||
    fail "message: $(cat "$TMP/err")"
[ "$(grep -c "derived parameter" "$TMP/err")" = 2 ] || fail "message: $(cat "$TMP/err")"

# Restored: served, with its episode.
edit sigma_gram 5.25 "$sigma"
edit 'sigma_y_step[1]' 1 "$step"
derived | cmp -s - "$TMP/derived" || fail "restore did not give back the stored text"
start_daemon
req GET /v1/privacy
[ "$(jget "$TMP/body" 'd["episodes"]')" = 1 ] || fail "$(cat "$TMP/body")"
stop_daemon

# A database from before: accepted once, its derived parameters stored,
# the same bytes a new database stores.
sql "DELETE FROM meta WHERE key = 'derived'"
start_daemon
grep -q "stored the derived parameters" "$TMP/daemon.log" || fail "no message"
stop_daemon
derived | cmp -s - "$TMP/derived" || fail "stored other derived parameters: $(derived)"
edit sigma_gram "$sigma" 5.25
refused
echo ok
