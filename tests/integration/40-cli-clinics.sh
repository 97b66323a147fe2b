#!/usr/bin/env bash
# The billboard CLI against a real billboardd (fresh SQLite file, ephemeral
# loopback port): --help, public reads as tables and JSON, clinic enrolment,
# listing and revocation by the administrator, and the exit codes that tell
# usage (2), network (3) and refused (5) apart.
. "$(dirname "$0")/cli-lib.sh"

start_daemon --horizon 3 --dim 4 --actions 3 --max-episodes 10 --rho 10
export BILLBOARD_SERVER="$URL" BILLBOARD_STATE="$TMP/state.db"
unset BILLBOARD_TOKEN BILLBOARD_ADMIN_TOKEN

# --help everywhere; the exit codes are documented.
run 0 --help
grep -q "3  network error" "$TMP/out" || fail "--help lacks the exit codes"
for c in config privacy show recommend episode submit clinics; do
    run 0 "$c" --help
    grep -q "usage: billboard" "$TMP/out" || fail "$c --help"
done
run 2
run 2 frobnicate
run 2 show --version banana
run 2 show --frobnicate
run 2 recommend --features /dev/null

# Public reads, tables and JSON.
run 0 config
grep -Eq '^K_max +10$' "$TMP/out" || fail "config table: $(cat "$TMP/out")"
run 0 config --json
[ "$(out 'd["H"], d["d"], d["A"]')" = "(3, 4, 3)" ] || fail "config --json: $(cat "$TMP/out")"
run 0 privacy --json
[ "$(out 'd["episodes"], d["max_episodes"]')" = "(0, 10)" ] || fail "privacy: $(cat "$TMP/out")"
run 0 privacy
grep -Eq '^max_episodes +10$' "$TMP/out" || fail "privacy table"
run 0 show
grep -Eq '^version +0$' "$TMP/out" || fail "show: $(cat "$TMP/out")"
# show --json is the billboard's canonical wire form: the daemon's own bytes.
run 0 show --json
req GET /v1/billboard
expect_status 200
printf '\n' >>"$TMP/body"
cmp -s "$TMP/out" "$TMP/body" || fail "show --json differs from GET /v1/billboard"
run 5 show --version 99
grep -q "HTTP 404" "$TMP/err" || fail "404 not reported: $(cat "$TMP/err")"

# Administration: no token is a usage error, a wrong one is refused (401).
run 2 clinics list
echo "not-the-admin-token-at-all" >"$TMP/wrong"
run 5 clinics list --admin-token-file "$TMP/wrong"
grep -q "HTTP 401" "$TMP/err" || fail "401 not reported"
run 0 clinics add "North Clinic" --json --admin-token-file "$TMP/admin"
id1=$(out 'd["id"]')
out 'd["token"]' >"$TMP/tok1"
grep -q '^bbt_' "$TMP/tok1" || fail "no token in $(cat "$TMP/out")"
export BILLBOARD_ADMIN_TOKEN="$ADMIN"
run 0 clinics add "South Clinic"
grep -q "shown only once" "$TMP/err" || fail "no warning that the token is shown once"
run 0 clinics list
{ grep -q "North Clinic" "$TMP/out" && grep -q "South Clinic" "$TMP/out"; } || fail "list: $(cat "$TMP/out")"
run 0 clinics list --json
[ "$(out 'len(d["clinics"])')" = 2 ] || fail "list --json: $(cat "$TMP/out")"
run 2 clinics add
run 2 clinics frobnicate

# The clinic's token works until it is revoked.
echo '[[0.5,0,0.1,0],[0,0.5,0,0.1],[0.3,0.3,0,0]]' >"$TMP/f.json"
run 0 recommend --remote --step 1 --features "$TMP/f.json" --token-file "$TMP/tok1"
# A clinic's token where the admin token belongs: refused as the wrong role.
run 5 clinics list --admin-token-file "$TMP/tok1"
grep -q "HTTP 403" "$TMP/err" || fail "clinic token as admin not refused with 403: $(cat "$TMP/err")"
run 0 clinics revoke "$id1"
run 5 recommend --remote --step 1 --features "$TMP/f.json" --token-file "$TMP/tok1"
grep -q "HTTP 401" "$TMP/err" || fail "revoked token not refused with 401"
run 0 clinics list --json
[ "$(out "[c['revoked'] is not None for c in d['clinics'] if c['id'] == $id1]")" = "[true]" ] ||
    fail "not marked revoked: $(cat "$TMP/out")"
run 5 clinics revoke 999

# A daemon that is gone is a network error (exit 3), after bounded retries.
stop_daemon
run 3 config --retries 3 --retry-total 200
grep -q "network error" "$TMP/err" || fail "no network error message"
echo ok
