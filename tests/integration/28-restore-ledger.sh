#!/usr/bin/env bash
# The ledger never lies after a restore (docs/DAEMON.md, "Backup and
# restore"; server/ledger.h):
#   - with a release journal: back up, pass release points and publish
#     updates, lose the database, restore, reach the same points again:
#     /v1/privacy charges the lost timeline (rho_gram and the reward
#     stream's rho_R, as it passed a release point after the backup, and
#     the first update's share of the rest of rho_y, a (rho_y - rho_R) /
#     N_max, per lost update: docs/PRIVACY.md §2.3, §2.4, §8), so
#     rho_spent covers both timelines; the restored daemon never serves a
#     version number the lost one served (its versions continue above them),
#     and /v1/billboard's privacy summary shows the restore;
#   - without a journal, the same restore charges the worst case: one lost
#     timeline past every release point left, every update left;
#   - a database once served with a journal is refused without one.
. "$(dirname "$0")/lib.sh"
H=2 A=2 D=2
CONF=(--horizon 2 --dim 2 --actions 2 --max-episodes 1000 --rho 1 --release-start 10 --release-base 1.5
    --update-rule release --features ball)
J="$TMP/journal"

post_n() { # TOKEN FROM TO: episodes FROM..TO with keys k-FROM..k-TO, on the current version
    local tok=$1 i v
    for i in $(seq "$2" "$3"); do
        req GET /v1/billboard
        v=$(jget "$TMP/body" 'd["version"]')
        episode "$i" "$v" >"$TMP/e"
        post_episode "$tok" "k-$i" "$TMP/e"
        expect_status 201
    done
    wait_published
}
privacy() { req GET /v1/privacy; cp "$TMP/body" "$TMP/$1"; }

start_daemon "${CONF[@]}" --release-journal "$J"
req GET /v1/config
cp "$TMP/body" "$TMP/config"
tok=$(enrol "St. Lost")
post_n "$tok" 1 12 # passes 10: version 1
privacy p-backup
[ "$(jget "$TMP/p-backup" 'd["billboard_version"]')" = 1 ] || fail "no update at 10: $(cat "$TMP/body")"
"$BB" --db "$DB" --backup "$TMP/b.db" 2>"$TMP/log" || fail "backup: $(cat "$TMP/log")"
post_n "$tok" 13 42 # passes 15, 23, 34: versions 2, 3, 4
privacy p-lost
[ "$(jget "$TMP/p-lost" 'd["billboard_version"]')" = 4 ] || fail "lost timeline: $(cat "$TMP/p-lost")"
for v in 2 3 4; do
    req GET "/v1/billboard/$v"
    cp "$TMP/body" "$TMP/lost-v$v"
done
kill_daemon
rm -f "$DB" "$DB-wal" "$DB-shm" # the database is lost; the journal is elsewhere

# The restore reads the journal and charges what the lost timeline did.
"$BB" --db "$DB" --restore "$TMP/b.db" --release-journal "$J" 2>"$TMP/log" ||
    fail "restore: $(cat "$TMP/log")"
grep -q "what the release journal recorded" "$TMP/log" || fail "restore said: $(cat "$TMP/log")"
start_daemon --release-journal "$J"
privacy p-restored
python3 - "$TMP/p-restored" "$TMP/p-backup" "$TMP/config" <<'PY' || fail "restored ledger: $(cat "$TMP/p-restored")"
import json, sys
now, b, c = (json.load(open(f)) for f in sys.argv[1:4])
r, a, rho_r = now["restores"], c["first_share"], c["rho_rewards"]
nmax, rho_y, rho_g = b["max_updates"], b["y"]["rho"], b["gram"]["rho"]
assert a > 1 and c["rewards"] == "stream" and 0 < rho_r < rho_y, c
assert r["count"] == 1 and r["rho_gram"] == rho_g, r
lost_y = rho_r + 3 * a * (rho_y - rho_r) / nmax  # the lost stream, three updates
assert abs(r["rho_y"] - lost_y) < 1e-12, r
assert abs(now["rho_spent"] - (b["rho_spent"] + rho_g + lost_y)) < 1e-12, (now, b)
assert now["billboard_version"] == 1 and now["episodes"] == 12, now
PY
# The same points again: three more updates, numbered above the lost ones.
post_n "$tok" 13 42
privacy p-end
python3 - "$TMP/p-end" "$TMP/p-lost" "$TMP/p-backup" <<'PY' || fail "ledger at the end: $(cat "$TMP/p-end")"
import json, sys
end, lost, b = (json.load(open(f)) for f in sys.argv[1:4])
# Both timelines: the backup's spend, what the lost one spent after it, and
# what the restored one spent after it.
both = lost["rho_spent"] + (end["rho_spent"] - end["restores"]["rho_gram"]
                            - end["restores"]["rho_y"] - b["rho_spent"])
assert end["rho_spent"] >= both - 1e-12, (end, lost, b)
assert end["updates"] == 4 and end["billboard_version"] == 7, end
PY
for v in 2 3 4; do
    req GET "/v1/billboard/$v"
    expect_problem 404 # served by the lost timeline: never again, with other bytes
done
req GET /v1/billboard/7
expect_status 200
[ "$(jget "$TMP/body" 'd["privacy"]["restores"]')" = 1 ] || fail "billboard 7's summary: $(cat "$TMP/body")"
stop_daemon

# Without the journal, the restore charges the worst case.
"$BB" --db "$TMP/w.db" --restore "$TMP/b.db" 2>"$TMP/log" || fail "restore: $(cat "$TMP/log")"
grep -q "the worst case" "$TMP/log" || fail "restore said: $(cat "$TMP/log")"
DB="$TMP/w.db"
if "$BB" --db "$DB" --listen 127.0.0.1 --port 0 --admin-token-file "$TMP/admin" 2>"$TMP/log"; then
    fail "a database served with a journal was served without one"
fi
grep -q "release journal" "$TMP/log" || fail "the refusal: $(cat "$TMP/log")"
start_daemon --release-journal "$TMP/journal2"
privacy p-worst
python3 - "$TMP/p-worst" "$TMP/p-backup" "$TMP/config" <<'PY' || fail "worst-case ledger: $(cat "$TMP/p-worst")"
import json, sys
now, b, c = (json.load(open(f)) for f in sys.argv[1:4])
r, nmax, a, rho_r = now["restores"], b["max_updates"], c["first_share"], c["rho_rewards"]
assert r["count"] == 1 and r["rho_gram"] == b["gram"]["rho"], r
assert abs(r["rho_y"] - (rho_r + (nmax - 1) * a * (b["y"]["rho"] - rho_r) / nmax)) < 1e-12, r
PY
post_n "$tok" 13 16 # passes 15: numbered above anything a lost timeline can have served
req GET /v1/billboard
v=$(jget "$TMP/body" 'd["version"]')
n=$(jget "$TMP/p-worst" 'd["max_updates"]')
[ "$v" -gt "$n" ] || fail "version $v after a worst-case restore, N_max $n"
stop_daemon
echo ok
