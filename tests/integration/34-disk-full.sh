#!/usr/bin/env bash
# The database's disk fills up while clinics submit (a tmpfs of 32 MiB
# mounted here; needs root, else skipped; three threads post throughout
# besides the steps below). Posts then answer 503
# problem+json with Retry-After and store nothing; the daemon keeps
# running and serving what it committed; when the filler file is removed,
# ingest resumes by itself, a key refused before is taken once, and
# billboards are published again. Afterwards: integrity_check ok, every
# 201 stored once, no 503 stored.
. "$(dirname "$0")/lib.sh"
mount_tmpfs 32m
DB="$MNT/bb.db"
start_daemon --horizon 3 --dim 4 --actions 2 --max-episodes 100000 --rho 100000
tok=$(enrol "clinic")
# Clinics to revoke while the disk is full: a revocation answered 503 must
# leave the clinic enrolled, in memory as in the database.
victims=()
for v in 1 2 3 4 5 6; do
    vtok=$(enrol "victim$v")
    victims+=("$(jget "$TMP/body" 'd["id"]') $vtok")
done
: >"$TMP/acked"
: >"$TMP/refused"
n=0
post() { # posts episode $n under key k$n; records the answer
    episode "$n" >"$TMP/e"
    post_episode "$tok" "k$n" "$TMP/e"
    case $STATUS in
    201) echo "k$n $(jget "$TMP/body" 'd["episode"]')" >>"$TMP/acked" ;;
    503)
        expect_problem 503
        [ -n "$(header Retry-After)" ] || fail "a 503 without Retry-After"
        echo "k$n" >>"$TMP/refused"
        ;;
    *) fail "episode $n: status $STATUS: $(cat "$TMP/body")" ;;
    esac
    n=$((n + 1))
}
for _ in $(seq 1 10); do
    post
    [ "$STATUS" = 201 ] || fail "refused before the disk filled"
done
wait_published
req GET /v1/privacy
v_before=$(jget "$TMP/body" 'd["billboard_version"]')
: >"$TMP/bg"
PYTHONPATH="$TESTS_DIR" python3 "$TESTS_DIR/crash_lib.py" client "$PORT" "$tok" bg 3 100000 \
    "$TMP/bg" 503 2>"$TMP/bg.err" &
bg=$!

# Fill the disk, then post until the daemon refuses (a commit that fits in
# space SQLite already holds may still pass).
dd if=/dev/zero of="$MNT/filler" bs=64k 2>/dev/null || true
for _ in $(seq 1 200); do
    post
    [ "$STATUS" = 503 ] && break
done
[ "$STATUS" = 503 ] || fail "no 503 on a full disk"
[[ "$(jget "$TMP/body" 'd["detail"]')" == *"disk is full"* ]] || fail "503 says: $(cat "$TMP/body")"
: >"$TMP/kept"
for v in "${victims[@]}"; do
    req DELETE "/v1/clinics/${v%% *}" -H "Authorization: Bearer $ADMIN"
    case $STATUS in
    503) echo "$v" >>"$TMP/kept" ;;
    204) ;;
    *) fail "revoking clinic ${v%% *}: status $STATUS: $(cat "$TMP/body")" ;;
    esac
    post
done
grep -q "disk is full" "$TMP/daemon.log" || fail "the log does not say the disk is full"
# Still full: more refusals, the daemon alive, what is served unchanged.
for _ in 1 2 3 4 5; do
    post
    sleep 0.3
done
kill -0 "$DAEMON_PID" 2>/dev/null || fail "the daemon exited on a full disk"
req GET /readyz
expect_status 200
req GET /v1/privacy
served=$(jget "$TMP/body" 'd["billboard_version"]')
req GET "/v1/billboard/$served"
expect_status 200

# Space returns: ingest resumes by itself.
rm -f "$MNT/filler"
for _ in $(seq 1 50); do
    post
    [ "$STATUS" = 201 ] && break
    sleep 0.2
done
[ "$STATUS" = 201 ] || fail "ingest did not resume after space returned"
grep -q "rebuilt from what is committed" "$TMP/daemon.log" || fail "no rebuild logged"
while read -r id vtok; do
    [ "$(sql "SELECT revoked IS NULL FROM clinics WHERE id = $id")" = 1 ] ||
        fail "a revocation answered 503 was stored (clinic $id)"
    episode 1 >"$TMP/e"
    post_episode "$vtok" "victim-$id" "$TMP/e"
    expect_status 201
    echo "victim-$id $(jget "$TMP/body" 'd["episode"]')" >>"$TMP/acked"
done <"$TMP/kept"
# A key refused while full is taken now, once.
first=$(head -n 1 "$TMP/refused")
k=${first#k}
episode "$k" >"$TMP/e"
post_episode "$tok" "$first" "$TMP/e"
expect_status 201
echo "$first $(jget "$TMP/body" 'd["episode"]')" >>"$TMP/acked"
sed -i 1d "$TMP/refused"
for _ in $(seq 1 10); do
    post
    expect_status 201
done
wait_published
req GET /v1/privacy
[ "$(jget "$TMP/body" 'd["billboard_version"]')" -gt "$v_before" ] || fail "no billboard after the disk emptied"
# Every stored billboard is served as stored.
python3 - "$DB" "$URL" <<'PY' || fail "a billboard is served differently from its stored bytes"
import sqlite3, sys, urllib.request
con = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
for v, body in con.execute("SELECT version, body FROM billboards ORDER BY version"):
    assert urllib.request.urlopen("%s/v1/billboard/%d" % (sys.argv[2], v)).read() == body, v
PY
kill "$bg"
wait "$bg" 2>/dev/null || true
[ -s "$TMP/bg.err" ] && fail "background client: $(cat "$TMP/bg.err")"
stop_daemon
# The background's answers and this script's, against the database.
while read -r key k; do echo "ok $key $k 0"; done <"$TMP/acked" >>"$TMP/bg"
while read -r key; do echo "no $key 0"; done <"$TMP/refused" >>"$TMP/bg"
out=$(PYTHONPATH="$TESTS_DIR" python3 "$TESTS_DIR/crash_lib.py" check "$DB" "$TMP/bg" "$TMP/state.json") ||
    fail "$out"
[ "$(sql 'SELECT count(*) FROM episodes')" = "$(grep -c '^ok ' "$TMP/bg")" ] ||
    fail "$(sql 'SELECT count(*) FROM episodes') episodes stored, $(grep -c '^ok ' "$TMP/bg") acknowledged"
echo "ok: $out; $(grep -c '^no ' "$TMP/bg") refused while full"
