#!/usr/bin/env bash
# One time format in every CLI listing: RFC 3339 in UTC to the second
# ("2026-11-23T15:04:05Z"), in the tables and in --json alike — clinics add,
# clinics list (created, revoked) and episode list (created). The API keeps
# Unix seconds (proto/openapi.yaml says so); the CLI shows the same instant.
. "$(dirname "$0")/cli-lib.sh"

start_daemon "${CONF[@]}"
export BILLBOARD_SERVER="$URL" BILLBOARD_STATE="$TMP/state.db" BILLBOARD_ADMIN_TOKEN="$ADMIN"
RFC3339='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z'
# The API's Unix seconds as RFC 3339, for comparison.
rfc3339() { python3 -c 'import sys, time; print(time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(sys.argv[1]))))' "$1"; }
is_rfc3339() { [[ "$1" =~ ^$RFC3339$ ]] || fail "$2: '$1' is not RFC 3339"; }

run 0 clinics add "North" --json
is_rfc3339 "$(out 'd["created"]')" "clinics add --json"
BILLBOARD_TOKEN=$(out 'd["token"]')
export BILLBOARD_TOKEN
run 0 clinics add "South"
grep -Eq "^created +$RFC3339$" "$TMP/out" || fail "clinics add table: $(cat "$TMP/out")"
run 0 clinics revoke 2

# The API: Unix seconds, integers.
req GET /v1/clinics -H "Authorization: Bearer $ADMIN"
expect_status 200
api_created=$(jget "$TMP/body" 'd["clinics"][0]["created"]')
api_revoked=$(jget "$TMP/body" 'd["clinics"][1]["revoked"]')
{ [[ "$api_created" =~ ^[0-9]+$ ]] && [[ "$api_revoked" =~ ^[0-9]+$ ]]; } ||
    fail "the API's times changed form: $(cat "$TMP/body")"

# clinics list --json: the same instants, in RFC 3339; null stays null.
run 0 clinics list --json
[ "$(out 'd["clinics"][0]["created"]')" = "$(rfc3339 "$api_created")" ] ||
    fail "list --json created: $(cat "$TMP/out"), API $api_created"
[ "$(out 'd["clinics"][1]["revoked"]')" = "$(rfc3339 "$api_revoked")" ] ||
    fail "list --json revoked: $(cat "$TMP/out"), API $api_revoked"
[ "$(out 'd["clinics"][0]["revoked"]')" = null ] || fail "null revoked: $(cat "$TMP/out")"
# clinics list table: every time column in RFC 3339, no Unix seconds.
run 0 clinics list
grep -Eq "^1 +North +$(rfc3339 "$api_created") +-$" "$TMP/out" || fail "list table: $(cat "$TMP/out")"
grep -Eq "^2 +South +$RFC3339 +$(rfc3339 "$api_revoked")$" "$TMP/out" ||
    fail "list table, revoked: $(cat "$TMP/out")"
grep -Eq "(^| )$api_created( |$)" "$TMP/out" && fail "Unix seconds in the table: $(cat "$TMP/out")"

# episode list: the same format, table and --json.
printf '[[0.5,0,0,0],[0,0.5,0,0]]\n' >"$TMP/f.json"
run 0 episode start
for _ in 1 2 3; do run 0 episode step --features "$TMP/f.json" --action 1 --reward 0.5; done
run 0 episode finish
run 0 episode start
run 0 episode list --json
[ "$(out 'len(d)')" = 2 ] || fail "episode list --json: $(cat "$TMP/out")"
for i in 0 1; do is_rfc3339 "$(out "d[$i]['created']")" "episode list --json"; done
run 0 episode list
[ "$(grep -Ec " $RFC3339( |$)" "$TMP/out")" = 2 ] || fail "episode list table: $(cat "$TMP/out")"
grep -Eq '[0-9]T[0-9:]+\.[0-9]+Z' "$TMP/out" && fail "fractional seconds: $(cat "$TMP/out")"
stop_daemon
echo ok
