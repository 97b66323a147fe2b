#!/usr/bin/env bash
# The warm-up (docs/PRIVACY.md §2.5) through a real billboardd:
#   - GET /v1/config names it (phi, rho_warm_up, its points) and
#     GET /v1/privacy has its share, spent whole with the first episode,
#     inside rho_spent, with rho_remaining = rho - rho_spent, and /metrics
#     its gauge;
#   - the episode that reaches a warm point (250, 500 below k0 = 1000)
#     publishes a billboard of its own version, stored in the episode's
#     transaction (the billboards row, the journal's line) and served once
#     the episode's 201 is answered; no update is charged for it;
#   - a restart serves the stored warm billboard and keeps the numbering;
#   - a restore from a backup taken between the two points charges the
#     warm-up's rho, and only it, for the lost timeline that passed 500 but
#     no point of the main mechanisms (journal), and
#     numbers the restored timeline's warm billboard above the lost one's;
#     without a journal the worst case charges it too;
#   - killed at the warm point (the fault build, proto/fault.h): before the
#     commit that holds episode 250 and its billboard, neither is stored
#     and a retry publishes it; between that commit and serving it, the
#     restart serves it, as stored.
. "$(dirname "$0")/lib.sh"
FAULT_BB=${FAULT_BB:-build-fault/billboardd}
H=2 A=2 D=2
CONF=(--horizon 2 --dim 2 --actions 2 --max-episodes 5000 --rho 1 --release-start 1000
    --features ball)
J="$TMP/journal"

# Bodies 1..600 at version 0 (always a version that exists), one python run.
mkdir -p "$TMP/ep"
python3 - "$TESTS_DIR" "$TMP/ep" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from episode_gen import body
for i in range(1, 601):
    with open("%s/%d.json" % (sys.argv[2], i), "w") as f:
        f.write(body(i, 2, 2, 2))
PY
post_range() { # TOKEN FROM TO: keys w-FROM..w-TO, each answered 201
    local i code
    for i in $(seq "$2" "$3"); do
        code=$(curl -s -o "$TMP/pbody" -w '%{http_code}' -X POST "$URL/v1/episodes" \
            -H "Authorization: Bearer $1" -H "Idempotency-Key: w-$i" \
            -H 'Content-Type: application/json' --data-binary "@$TMP/ep/$i.json")
        [ "$code" = 201 ] || fail "episode $i: $code $(cat "$TMP/pbody")"
    done
}
version() { req GET /v1/billboard; jget "$TMP/body" 'd["version"]'; }
privacy() { req GET /v1/privacy; cp "$TMP/body" "$TMP/$1"; }

start_daemon "${CONF[@]}" --release-journal "$J"
req GET /v1/config
cp "$TMP/body" "$TMP/config"
python3 - "$TMP/config" <<'PY' || fail "config: $(cat "$TMP/config")"
import json, sys
c = json.load(open(sys.argv[1]))
assert c["warm_up"] == 0.15 and c["warm_up_points"] == 2, c
assert abs(c["rho_warm_up"] - 0.15) < 1e-12 and c["release_start"] == 1000, c
assert c["sigma_warm_up_gram_drawn"] > 0 and c["sigma_warm_up_reward_drawn"] > 0, c
PY
tok=$(enrol "St. Early")
post_range "$tok" 1 249
[ "$(version)" = 0 ] || fail "a billboard before the first warm point: $(cat "$TMP/body")"
post_range "$tok" 250 250 # the first warm point: its 201 comes after the billboard is served
req GET /v1/billboard
python3 - "$TMP/body" <<'PY' || fail "warm billboard: $(cat "$TMP/body")"
import json, sys
b = json.load(open(sys.argv[1]))
assert b["version"] == 1 and b["episode"] == 250, b
assert all(any(x != 0 for x in s["w"]) for s in b["steps"]), b  # the rewards' regression
PY
[ "$(sql 'SELECT version, episode FROM billboards ORDER BY version')" = "$(printf '0|0\n1|250')" ] ||
    fail "stored billboards: $(sql 'SELECT version, episode FROM billboards')"
grep -q '"released":250,"updates":0,"version":1,' "$J" || fail "journal: $(cat "$J")"
privacy p-backup
python3 - "$TMP/p-backup" <<'PY' || fail "privacy: $(cat "$TMP/p-backup")"
import json, sys
p = json.load(open(sys.argv[1]))
w = p["warm_up"]
assert abs(w["rho"] - 0.15) < 1e-12 and w["spent"] == w["rho"] and w["remaining"] == 0, w
assert w["mechanism"] == "grid-sqrt" and w["releases"] == 2, w
assert p["updates"] == 0 and p["billboard_version"] == 1, p
total = w["spent"] + p["gram"]["spent"] + p["y"]["spent"]
assert abs(p["rho_spent"] - total) < 1e-12, p
assert abs(p["rho_remaining"] - (p["rho"] - p["rho_spent"])) < 1e-12, p
assert abs(p["gram"]["rho"] + p["y"]["rho"] + w["rho"] - p["rho"]) < 1e-12, p
PY
req GET /metrics -H "Authorization: Bearer $ADMIN"
grep -Eq '^billboard_rho_spent_warm_up 0.1(5|49999)' "$TMP/body" || fail "metrics: $(grep rho_spent "$TMP/body")"
"$BB" --db "$DB" --backup "$TMP/b.db" 2>"$TMP/log" || fail "backup: $(cat "$TMP/log")"
post_range "$tok" 251 510
[ "$(version)" = 2 ] || fail "second warm point: $(cat "$TMP/body")"
req GET /v1/billboard/2
cp "$TMP/body" "$TMP/lost-v2"
[ "$(jget "$TMP/lost-v2" 'd["episode"]')" = 500 ] || fail "billboard 2: $(cat "$TMP/lost-v2")"

# A restart serves the stored warm billboard, numbering kept.
kill_daemon
start_daemon --release-journal "$J"
[ "$(version)" = 2 ] || fail "after a restart: $(cat "$TMP/body")"
privacy p-lost
[ "$(jget "$TMP/p-lost" 'd["updates"]')" = 0 ] || fail "warm billboards counted as updates: $(cat "$TMP/p-lost")"
kill_daemon
rm -f "$DB" "$DB-wal" "$DB-shm" # the database is lost; the journal is elsewhere

# The restore charges the warm-up for the lost timeline that passed 500.
"$BB" --db "$DB" --restore "$TMP/b.db" --release-journal "$J" 2>"$TMP/log" ||
    fail "restore: $(cat "$TMP/log")"
grep -q "what the release journal recorded" "$TMP/log" || fail "restore said: $(cat "$TMP/log")"
grep -q "continue at 3" "$TMP/log" || fail "restore said: $(cat "$TMP/log")"
start_daemon --release-journal "$J"
privacy p-restored
python3 - "$TMP/p-restored" "$TMP/p-backup" <<'PY' || fail "restored ledger: $(cat "$TMP/p-restored")"
import json, sys
now, b = (json.load(open(f)) for f in sys.argv[1:3])
r, w = now["restores"], b["warm_up"]["rho"]
assert r["count"] == 1 and abs(r["rho_warm_up"] - w) < 1e-12, r
assert r["rho_gram"] == 0 and r["rho_y"] == 0, r  # no point of theirs was passed
assert abs(now["warm_up"]["spent"] - 2 * w) < 1e-12, now
assert abs(now["rho_spent"] - (b["rho_spent"] + r["rho_gram"] + r["rho_y"] + w)) < 1e-12, (now, b)
assert now["billboard_version"] == 1 and now["episodes"] == 250, now
PY
post_range "$tok" 251 510
[ "$(version)" = 3 ] || fail "the restored timeline's warm point: $(cat "$TMP/body")"
[ "$(jget "$TMP/body" 'd["episode"]')" = 500 ] || fail "billboard 3: $(cat "$TMP/body")"
req GET /v1/billboard/2
expect_problem 404 # served by the lost timeline: never again
stop_daemon

# Without the journal, the worst case charges the warm-up too.
"$BB" --db "$TMP/w.db" --restore "$TMP/b.db" 2>"$TMP/log" || fail "restore: $(cat "$TMP/log")"
grep -q "the worst case" "$TMP/log" || fail "restore said: $(cat "$TMP/log")"
DB="$TMP/w.db"
start_daemon --release-journal "$TMP/journal2"
privacy p-worst
python3 - "$TMP/p-worst" "$TMP/p-backup" <<'PY' || fail "worst-case ledger: $(cat "$TMP/p-worst")"
import json, sys
now, b = (json.load(open(f)) for f in sys.argv[1:3])
assert abs(now["restores"]["rho_warm_up"] - b["warm_up"]["rho"]) < 1e-12, now
PY
stop_daemon

# Killed at the warm point. Episodes go one at a time, so each is a commit
# of its own: the enrolment is commit 1, episode k commit k + 1.
[ -x "$FAULT_BB" ] || fail "no $FAULT_BB (make FAULTS=1 build-fault/billboardd; make test builds it)"
killed_at() { # POINT AFTER: a fresh database, episodes 1..250 on the fault build
    DB="$TMP/$1.db"
    BB=$FAULT_BB BILLBOARD_FAULT=$1 BILLBOARD_FAULT_AFTER=$2 start_daemon "${CONF[@]}"
    tok=$(enrol "St. Fault")
    post_range "$tok" 1 249
    curl -s -o /dev/null -X POST "$URL/v1/episodes" -H "Authorization: Bearer $tok" \
        -H "Idempotency-Key: w-250" -H 'Content-Type: application/json' \
        --data-binary "@$TMP/ep/250.json" || true
    for _ in $(seq 1 100); do kill -0 "$DAEMON_PID" 2>/dev/null || break; sleep 0.05; done
    kill -0 "$DAEMON_PID" 2>/dev/null && fail "$1: the daemon was not killed at the point"
    wait "$DAEMON_PID" || true
    DAEMON_PID=
    start_daemon
}
killed_at before_commit 251
[ "$(sql 'SELECT count(*) FROM episodes')" = 249 ] || fail "before_commit: episodes $(sql 'SELECT count(*) FROM episodes')"
[ "$(sql 'SELECT max(version) FROM billboards')" = 0 ] || fail "before_commit: a billboard without its episode"
[ "$(version)" = 0 ] || fail "before_commit: served $(cat "$TMP/body")"
post_range "$tok" 250 250 # the retry: the episode and its billboard, now
[ "$(version)" = 1 ] || fail "before_commit: the retry published $(cat "$TMP/body")"
stop_daemon
killed_at mid_billboard_publish 1
[ "$(sql 'SELECT version, episode FROM billboards WHERE version = 1')" = "1|250" ] ||
    fail "mid_billboard_publish: stored $(sql 'SELECT version, episode FROM billboards')"
[ "$(version)" = 1 ] || fail "mid_billboard_publish: served $(cat "$TMP/body")"
[ "$(sql 'SELECT body FROM billboards WHERE version = 1')" = "$(cat "$TMP/body")" ] ||
    fail "mid_billboard_publish: served bytes differ from the stored ones"
stop_daemon
echo ok
