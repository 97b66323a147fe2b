#!/usr/bin/env bash
# Online backup while clinics post, and restore (docs/DAEMON.md, "Backup and
# restore"):
#   - billboardd --backup, taken while two clients post concurrently, holds
#     every episode acknowledged before it began, numbered as acknowledged,
#     byte for byte the daemon's rows; it is one file, mode 0600 under
#     umask 000, in rollback mode, and passes integrity_check;
#   - --restore refuses an existing database (a served one included) and
#     leaves it untouched; a backup never replaces a file;
#   - a daemon started on the restored file serves every billboard version
#     byte-identical to the original daemon's, the ledger of the backup, and
#     draws no noise on start (mechanism records, y noise and the update
#     charge are the backup's, to the byte); it goes on: an acknowledged key
#     replays, a new episode gets the next number, a new billboard appears;
#   - a backup of the idle daemon restores to the same /v1/privacy but for
#     the restore's worst-case charge (no release journal here; the journal
#     is 23-restore-ledger.sh's), and to every billboard byte for byte;
#   - a backup file copied into place is refused: only --restore serves it.
. "$(dirname "$0")/lib.sh"
CONF=(--horizon 3 --dim 4 --actions 2 --max-episodes 100000 --rho 100000)
ORIG="$DB"

cat >"$TMP/client.py" <<'PY'
# Posts episodes with unique keys from THREADS threads until the file STOP
# exists (or 5000 each); prints "key k seed" for every 201, flushed at once.
import http.client, json, os, sys, threading
import episode_gen
port, token, nthreads, out_path, stop = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
out = open(out_path, "a", buffering=1)
lock = threading.Lock()
def run(t):
    c = http.client.HTTPConnection("127.0.0.1", int(port), timeout=30)
    for i in range(5000):
        if os.path.exists(stop):
            return
        key = "bg-%d-%d" % (t, i)
        seed = 1000000 * (t + 1) + i
        c.request("POST", "/v1/episodes", episode_gen.body(seed, 3, 2, 4), {
            "Authorization": "Bearer " + token, "Idempotency-Key": key,
            "Content-Type": "application/json"})
        r = c.getresponse()
        data = r.read()
        if r.status != 201:
            sys.exit("unexpected %d %r" % (r.status, data))
        with lock:
            out.write("%s %d %d\n" % (key, json.loads(data)["episode"], seed))
ts = [threading.Thread(target=run, args=(t,)) for t in range(nthreads)]
for t in ts: t.start()
for t in ts: t.join()
PY

# Rows that must survive a backup and a restore, and never change on start:
# mechanism noise records, billboards with their y noise, the update charge.
noise() { # DBFILE
    sqlite3 "$1" "SELECT step, slot, tag, hex(bytes) FROM mech_state ORDER BY step, slot;
        SELECT version, episode, etag, hex(body), hex(y_noisy) FROM billboards ORDER BY version;
        SELECT CAST(value AS TEXT) FROM meta WHERE key IN ('updates_charged', 'config')
        ORDER BY key;"
}
lines() { wc -l <"$1" | tr -d ' '; }
wait_lines() { # FILE N: until FILE has N lines (30 s at most)
    local i
    for i in $(seq 1 600); do
        [ "$(lines "$1")" -ge "$2" ] && return 0
        kill -0 "$CLIENT_PID" 2>/dev/null || fail "the posting client died"
        sleep 0.05
    done
    fail "only $(lines "$1") acknowledgements in 30 s"
}

start_daemon "${CONF[@]}"
tok=$(enrol clinic)
i=0
v=0
while [ "$v" -lt 2 ] && [ "$i" -lt 200 ]; do
    i=$((i + 1))
    episode "$i" >"$TMP/e"
    post_episode "$tok" "k$i" "$TMP/e"
    expect_status 201
    req GET /v1/billboard
    v=$(jget "$TMP/body" 'd["version"]')
done
[ "$v" -ge 2 ] || fail "no second billboard after $i episodes"

# B1: the backup taken while two clients post.
: >"$TMP/acked"
PYTHONPATH="$TESTS_DIR" python3 "$TMP/client.py" "$PORT" "$tok" 2 "$TMP/acked" "$TMP/stop" \
    2>"$TMP/client.err" &
CLIENT_PID=$!
wait_lines "$TMP/acked" 40
cp "$TMP/acked" "$TMP/acked-before"
(umask 000 && "$BB" --db "$ORIG" --backup "$TMP/b1.db") 2>"$TMP/b1.log" || fail "backup: $(cat "$TMP/b1.log")"
wait_lines "$TMP/acked" $(($(lines "$TMP/acked-before") + 40)) # the posting went on
touch "$TMP/stop"
wait "$CLIENT_PID" || fail "client: $(cat "$TMP/client.err")"
grep -q "^billboardd: backed up $ORIG to $TMP/b1.db: [0-9]* episodes, billboards up to version [0-9]*$" \
    "$TMP/b1.log" || fail "backup said: $(cat "$TMP/b1.log")"
[ "$(stat -c %a "$TMP/b1.db")" = 600 ] || fail "backup mode $(stat -c %a "$TMP/b1.db") under umask 000"
ls "$TMP"/b1.db?* 2>/dev/null && fail "the backup is not one file"
[ "$(sqlite3 "$TMP/b1.db" 'PRAGMA journal_mode')" = delete ] || fail "backup journal mode"
[ "$(sqlite3 "$TMP/b1.db" 'PRAGMA integrity_check')" = ok ] || fail "backup integrity"
n1=$(sqlite3 "$TMP/b1.db" 'SELECT count(*) FROM episodes')
v1=$(sqlite3 "$TMP/b1.db" 'SELECT max(version) FROM billboards')
grep -q ": $n1 episodes, billboards up to version $v1$" "$TMP/b1.log" || fail "summary $(cat "$TMP/b1.log") vs $n1, $v1"
# A backup never replaces a file.
"$BB" --db "$ORIG" --backup "$TMP/b1.db" 2>"$TMP/log" && fail "a backup replaced a file"
grep -q "exists" "$TMP/log" || fail "refusal: $(cat "$TMP/log")"

# The original daemon, idle: its ledger and every billboard, then B2.
wait_published
req GET /v1/privacy
cp "$TMP/body" "$TMP/privacy-orig"
vmax=$(jget "$TMP/privacy-orig" 'd["billboard_version"]')
for v in $(seq 0 "$vmax"); do
    req GET "/v1/billboard/$v"
    expect_status 200
    cp "$TMP/body" "$TMP/orig-v$v"
done
(umask 022 && "$BB" --db "$ORIG" --backup "$TMP/b2.db") 2>"$TMP/b2.log" || fail "backup 2: $(cat "$TMP/b2.log")"
[ "$(stat -c %a "$TMP/b2.db")" = 600 ] || fail "backup mode under umask 022"
stop_daemon

# B1 against what the clients were told and what the daemon stored.
python3 - "$TMP/b1.db" "$ORIG" "$TMP/acked-before" "$TMP/acked" "$i" <<'PY' || fail "backup content"
import sqlite3, sys
b = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
b.execute("ATTACH 'file:%s?mode=ro' AS o" % sys.argv[2])
keys = dict(b.execute("SELECT key, episode FROM idempotency"))
before = [l.split() for l in open(sys.argv[3])]
for key, k, _ in before:
    if keys.get(key) != int(k):
        sys.exit("acknowledged before the backup began: %s (episode %s), backup has %r" % (key, k, keys.get(key)))
n = b.execute("SELECT count(*) FROM episodes").fetchone()[0]
ks = [k for (k,) in b.execute("SELECT k FROM episodes ORDER BY k")]
if ks != list(range(1, n + 1)):
    sys.exit("backup episodes not 1..n")
after = [l.split() for l in open(sys.argv[4])]
first = int(sys.argv[5])  # posted one by one before the clients began
if not first + len(before) <= n <= first + len(after):
    sys.exit("backup holds %d episodes; %d + %d acknowledged before, %d + %d in all"
             % (n, first, len(before), first, len(after)))
# Every table the backup holds is the daemon's, row for row, up to it (a
# billboard computed from its episodes may be committed after it).
vb = b.execute("SELECT max(version) FROM billboards").fetchone()[0]
for q in ["SELECT k, clinic_id, billboard_version, hex(features), hex(actions), hex(rewards) FROM %sepisodes WHERE k <= %d ORDER BY k",
          "SELECT clinic_id, key, hex(body_hash), status, hex(response), episode FROM %sidempotency WHERE episode <= %d ORDER BY clinic_id, key",
          "SELECT version, episode, etag, hex(body), hex(y_noisy) FROM %sbillboards WHERE version <= " + str(vb) + " AND %d > 0 ORDER BY version",
          "SELECT id, name, hex(token_hash), created, revoked FROM %sclinics WHERE %d > 0 ORDER BY id"]:
    mine, theirs = b.execute(q % ("main.", n)).fetchall(), b.execute(q % ("o.", n)).fetchall()
    if mine != theirs:
        sys.exit("backup differs from the daemon's rows: " + q.split(" FROM")[0])
if b.execute("SELECT count(*) FROM idempotency").fetchone()[0] != n:
    sys.exit("keys and episodes do not pair")
PY

# Restore refuses what exists and leaves it as it was.
sha=$(sha256sum "$ORIG")
"$BB" --db "$ORIG" --restore "$TMP/b1.db" 2>"$TMP/log" && fail "restore replaced a database"
grep -q "exists: a restore never replaces a database" "$TMP/log" || fail "refusal: $(cat "$TMP/log")"
[ "$(sha256sum "$ORIG")" = "$sha" ] || fail "a refused restore changed the database"
"$BB" --db "$TMP/r1.db" --restore "$TMP/nonexistent.db" 2>"$TMP/log" && fail "restored from nothing"
[ -e "$TMP/r1.db" ] && fail "a failed restore left a database"
ls "$TMP"/r1.db.partial-* 2>/dev/null && fail "a failed restore left its temporary file"

# R1: restored from B1; started; no noise drawn; the same bytes.
(umask 000 && "$BB" --db "$TMP/r1.db" --restore "$TMP/b1.db") 2>"$TMP/log" || fail "restore: $(cat "$TMP/log")"
grep -q "^billboardd: restored $TMP/b1.db to $TMP/r1.db: $n1 episodes, billboards up to version $v1$" \
    "$TMP/log" || fail "restore said: $(cat "$TMP/log")"
[ "$(stat -c %a "$TMP/r1.db")" = 600 ] || fail "restored mode under umask 000"
noise "$TMP/b1.db" >"$TMP/noise-b1"
noise "$TMP/r1.db" >"$TMP/noise-r1"
cmp -s "$TMP/noise-b1" "$TMP/noise-r1" || fail "the restored file differs from the backup"
[ "$(sqlite3 "$TMP/b1.db" 'SELECT count(*) FROM mech_state')" -gt 0 ] || fail "no noise records in the backup"
"$BB" --db "$TMP/r1.db" --restore "$TMP/b1.db" 2>/dev/null && fail "restored over a restored database"
DB="$TMP/r1.db"
start_daemon
for v in $(seq 0 "$v1"); do
    req GET "/v1/billboard/$v"
    expect_status 200
    cmp -s "$TMP/body" "$TMP/orig-v$v" || fail "billboard $v differs after the restore"
done
# B1 was taken while clients posted: it may hold episodes that made an
# update due whose billboard came after it. A daemon started on it then runs
# that update at once (as the original did), so the billboard moves to
# v1 + 1 with noise the backup never held (docs/DAEMON.md, "Backup and
# restore"). Otherwise nothing moves and no noise is drawn on start.
wait_published
req GET /v1/privacy
vr=$(jget "$TMP/body" 'd["billboard_version"]')
if [ "$vr" = "$v1" ]; then
    [ "$(jget "$TMP/body" 'd["episodes"], d["billboard_version"]')" = "($n1, $v1)" ] ||
        fail "restored ledger: $(cat "$TMP/body")"
    req GET /v1/billboard
    cmp -s "$TMP/body" "$TMP/orig-v$v1" || fail "the current billboard is not the backup's latest"
    req GET "/v1/billboard/$((v1 + 1))"
    expect_problem 404
    noise "$TMP/r1.db" >"$TMP/noise-r1-started"
    cmp -s "$TMP/noise-b1" "$TMP/noise-r1-started" || fail "the restored daemon changed its noise on start"
else
    [ "$vr" -gt "$v1" ] || fail "restored daemon at billboard $vr, backup's latest $v1"
    [ "$(jget "$TMP/body" 'd["episodes"]')" = "$n1" ] || fail "restored ledger: $(cat "$TMP/body")"
    echo "the backup held an update due: the restored daemon published billboard $vr on start"
fi
# It goes on: a key acknowledged before the backup replays; a new episode
# is the next; the billboard moves.
read -r key k seed < <(head -n 1 "$TMP/acked-before")
python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import episode_gen; sys.stdout.write(episode_gen.body(int(sys.argv[2]), 3, 2, 4))' \
    "$TESTS_DIR" "$seed" >"$TMP/e"
post_episode "$tok" "$key" "$TMP/e"
expect_status 201
[ "$(jget "$TMP/body" 'd["episode"]')" = "$k" ] || fail "replay of $key: $(cat "$TMP/body")"
w=$v1
j=0
while [ "$w" -le "$v1" ] && [ "$j" -lt 300 ]; do
    j=$((j + 1))
    episode "$((500000 + j))" "$w" >"$TMP/e"
    post_episode "$tok" "after-$j" "$TMP/e"
    expect_status 201
    [ "$j" -gt 1 ] || [ "$(jget "$TMP/body" 'd["episode"]')" = $((n1 + 1)) ] ||
        fail "first episode after the restore: $(cat "$TMP/body")"
    req GET /v1/billboard
    w=$(jget "$TMP/body" 'd["version"]')
done
[ "$w" -gt "$v1" ] || fail "no new billboard after the restore ($j episodes)"
stop_daemon

# R2: the idle daemon's backup restores to the same ledger, plus the
# restore's worst-case charge (one lost timeline past every release point
# left, every update left), and the same billboards.
"$BB" --db "$TMP/r2.db" --restore "$TMP/b2.db" 2>"$TMP/log" || fail "restore 2: $(cat "$TMP/log")"
grep -q "the worst case" "$TMP/log" || fail "the restore does not say what it charged: $(cat "$TMP/log")"
noise "$TMP/r2.db" >"$TMP/noise-r2"
DB="$TMP/r2.db"
start_daemon
req GET /v1/config
cp "$TMP/body" "$TMP/config"
req GET /v1/privacy
python3 - "$TMP/body" "$TMP/privacy-orig" "$TMP/config" <<'PY' || fail "ledger after the restore: $(cat "$TMP/body") vs $(cat "$TMP/privacy-orig")"
import json, sys
now, orig, c = (json.load(open(f)) for f in sys.argv[1:4])
charge = now.pop("restores")
assert charge["count"] == 1, charge
left = orig["max_updates"] - orig["updates"]
a = c["first_share"]  # every lost update at the first's share (docs/PRIVACY.md §8)
rho_r = c["rho_rewards"]  # and the lost timeline's reward stream (§2.4)
assert charge["rho_gram"] == orig["gram"]["rho"], charge  # a release point is left
want_y = rho_r + left * a * (orig["y"]["rho"] - rho_r) / orig["max_updates"]
assert rho_r > 0 and abs(charge["rho_y"] - want_y) < 1e-9 * orig["rho"], charge
for k in ("rho_spent", "rho_remaining"):
    now.pop(k), orig.pop(k)
for s in ("gram", "y"):
    c = charge["rho_" + s]
    assert abs(now[s]["spent"] - orig[s]["spent"] - c) < 1e-9 * orig["rho"], (s, now[s], orig[s])
    for k in ("spent", "remaining"):
        now[s].pop(k), orig[s].pop(k)
assert now == orig, (now, orig)
PY
for v in $(seq 0 "$vmax"); do
    req GET "/v1/billboard/$v"
    cmp -s "$TMP/body" "$TMP/orig-v$v" || fail "billboard $v differs after restoring the idle backup"
done
noise "$TMP/r2.db" >"$TMP/noise-r2-started"
cmp -s "$TMP/noise-r2" "$TMP/noise-r2-started" || fail "the restored daemon changed its noise on start"
stop_daemon

# A backup copied into place by hand is refused: it would serve the
# backup's ledger without the restore's charge.
install -m 0600 "$TMP/b2.db" "$TMP/r3.db"
if "$BB" --db "$TMP/r3.db" --listen 127.0.0.1 --port 0 --admin-token-file "$TMP/admin" \
    2>"$TMP/log"; then
    fail "a backup copied into place was served"
fi
grep -q -- "--restore" "$TMP/log" || fail "the refusal does not name --restore: $(cat "$TMP/log")"
echo ok
