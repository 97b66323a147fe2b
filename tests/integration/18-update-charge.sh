#!/usr/bin/env bash
# An update charged against N_max but never stored (the daemon died between
# bb_engine_update_begin and the billboard's commit) still counts after a
# restart: the budget reports it, the next billboard skips its version
# number, and no stored billboard changes. Simulated by raising
# meta.updates_charged while the daemon is down, as such a crash leaves it.
. "$(dirname "$0")/lib.sh"
start_daemon "${CONF[@]}"
tok=$(enrol "clinic")
i=0
v=0
while [ "$v" -lt 1 ] && [ "$i" -lt 40 ]; do
    i=$((i + 1))
    episode "$i" >"$TMP/e"
    post_episode "$tok" "k$i" "$TMP/e"
    expect_status 201
    req GET /v1/billboard
    v=$(jget "$TMP/body" 'd["version"]')
done
[ "$v" -ge 1 ] || fail "no update"
[ "$(sql "SELECT CAST(value AS TEXT) FROM meta WHERE key = 'updates_charged'")" = "$v" ] ||
    fail "the charge is not stored before the billboard"
stop_daemon
sql "SELECT version, hex(body) FROM billboards ORDER BY version" >"$TMP/bb-before"
# The crash: one more update charged, its billboard never committed.
sql "UPDATE meta SET value = '$((v + 1))' WHERE key = 'updates_charged'"
start_daemon
req GET /v1/privacy
[ "$(jget "$TMP/body" 'd["updates"], d["billboard_version"]')" = "($((v + 1)), $v)" ] ||
    fail "the lost update is not counted: $(cat "$TMP/body")"
# Submit until a newer billboard is served. Updates run after the episode's
# answer, so a GET can miss a billboard that the next episode's update
# replaces: the first stored version after v is the one that must be v + 2.
w=$v
while [ "$w" -eq "$v" ] && [ "$i" -lt 200 ]; do
    i=$((i + 1))
    episode "$i" "$v" >"$TMP/e"
    post_episode "$tok" "k$i" "$TMP/e"
    expect_status 201
    req GET /v1/billboard
    w=$(jget "$TMP/body" 'd["version"]')
done
[ "$w" -gt "$v" ] || fail "no billboard after version $v"
next=$(sql "SELECT min(version) FROM billboards WHERE version > $v")
[ "$next" = $((v + 2)) ] || fail "next version $next, want $((v + 2))"
req GET "/v1/billboard/$((v + 1))"
expect_problem 404
sql "SELECT version, hex(body) FROM billboards WHERE version <= $v ORDER BY version" >"$TMP/bb-after"
cmp -s "$TMP/bb-before" "$TMP/bb-after" || fail "a stored billboard changed"
stop_daemon
echo ok
