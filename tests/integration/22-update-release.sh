#!/usr/bin/env bash
# A private daemon on a release grid with --update-rule release (a
# data-independent schedule, N_max = G) starts, says so in /v1/config, and
# publishes one billboard per grid point: versions 1..4 after episodes 4,
# 8, 16 and 32 of a base-2 grid from k0 = 4, and nothing in between.
. "$(dirname "$0")/lib.sh"
start_daemon "${CONF[@]}" --mechanism grid --release-start 4 --release-base 2 \
    --update-rule release
req GET /v1/config
expect_status 200
[ "$(jget "$TMP/body" 'd["update_rule"], d["mechanism"], d["max_updates"]')" = \
    "('release', 'grid', 5)" ] || fail "config: $(cat "$TMP/body")"
tok=$(enrol "clinic")
want=0
for i in $(seq 1 35); do
    episode "$i" "$want" >"$TMP/e"
    post_episode "$tok" "k$i" "$TMP/e"
    expect_status 201
    case $i in 4 | 8 | 16 | 32) want=$((want + 1)) ;; esac
    wait_published
    req GET /v1/billboard
    v=$(jget "$TMP/body" 'd["version"]')
    [ "$v" = "$want" ] || fail "after episode $i: version $v, want $want"
done
[ "$(sql "SELECT group_concat(episode) FROM (SELECT episode FROM billboards ORDER BY version)")" = \
    "0,4,8,16,32" ] || fail "billboards at $(sql 'SELECT group_concat(episode) FROM billboards')"
stop_daemon
echo ok
