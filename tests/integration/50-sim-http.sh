#!/usr/bin/env bash
# billboard-sim over HTTP (issue 4): start billboardd, enrol three clinics,
# run billboard-sim with three concurrent clinics for 300 episodes through
# libbillboard; then every episode is stored exactly once (one row per
# episode, one per idempotency key, each clinic's share), the billboard
# version rose, and the simulator's switch count (billboard versions acted
# on after version 0) equals the daemon's: the distinct versions its stored
# episodes name, and GET /v1/privacy's "updates" once no update is in
# flight — plus one exactly when the last update came after the last
# episode, so that no clinic could act on it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
SIM="$O/billboard-sim"
[ -x "$SIM" ] || fail "no $SIM"
# Private (rho large so that updates come early); H, d, A of the simplex MDP.
# The tree with a shift as large as the paper's bound gives here (6.0;
# scale 3.3 of the tight bound): updates come one at a time, spaced by det
# doubling, so at most the last one can go unused. With the defaults' grid
# (points 1, 2, 3, 4, ...) or a tiny shift, updates can come at consecutive
# episodes and three concurrent clinics can skip one.
start_daemon --horizon 5 --dim 8 --actions 5 --max-episodes 1000 --rho 100000 --beta 2 \
    --mechanism tree --shift-scale 3.3
: >"$TMP/tokens"
for n in North South East; do enrol "$n clinic" >>"$TMP/tokens"; done
"$SIM" --server "$URL" --token-file "$TMP/tokens" --clinics 3 --episodes 300 --quiet \
    --csv "$TMP/sim.csv" --every 1 --checkpoints 100,300 2>"$TMP/sim.log" ||
    fail "billboard-sim: $(cat "$TMP/sim.log")"

req GET /v1/privacy
expect_status 200
[ "$(jget "$TMP/body" 'd["episodes"]')" = 300 ] || fail "privacy: $(cat "$TMP/body")"
updates=$(jget "$TMP/body" 'd["updates"]')
version=$(jget "$TMP/body" 'd["billboard_version"]')
[ "$version" -gt 0 ] || fail "the billboard version did not rise: $(cat "$TMP/body")"
# Exactly once: 300 rows, 300 distinct keys, every clinic contributed.
[ "$(sql 'SELECT count(*) FROM episodes')" = 300 ] || fail "episodes stored: $(sql 'SELECT count(*) FROM episodes')"
[ "$(sql 'SELECT count(*) FROM idempotency')" = 300 ] || fail "keys stored"
[ "$(sql 'SELECT count(DISTINCT clinic_id) FROM episodes')" = 3 ] || fail "not all clinics submitted"
# The simulator's view: last CSV row's switches, 300 rows.
[ "$(tail -n +2 "$TMP/sim.csv" | wc -l)" = 300 ] || fail "CSV rows"
switches=$(tail -n 1 "$TMP/sim.csv" | cut -d, -f9)
acted=$(sql 'SELECT count(DISTINCT billboard_version) FROM episodes WHERE billboard_version > 0')
[ "$switches" = "$acted" ] ||
    fail "simulator saw $switches switches, the stored episodes name $acted versions"
# No update in flight any more (billboard-sim waited for that too).
for _ in $(seq 1 100); do
    req GET /v1/privacy
    updates=$(jget "$TMP/body" 'd["updates"]')
    version=$(jget "$TMP/body" 'd["billboard_version"]')
    [ "$version" -ge "$updates" ] && break
    sleep 0.1
done
if [ "$updates" != "$switches" ]; then
    # Only allowed: one last version that no episode could use.
    [ "$updates" = $((switches + 1)) ] ||
        fail "simulator saw $switches switches, the daemon reports $updates updates"
    [ "$(sql "SELECT count(*) FROM episodes WHERE billboard_version = $updates")" = 0 ] ||
        fail "version $updates was acted on but not counted by the simulator"
fi
echo "ok: 300 episodes once each, version $version, switches $switches, updates $updates"
