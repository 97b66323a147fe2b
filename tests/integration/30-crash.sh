#!/usr/bin/env bash
# kill -9 at random moments while clients submit concurrently with unique
# keys (CYCLES cycles, default 20). After every kill and restart:
#   - PRAGMA integrity_check is ok;
#   - every acknowledged key is stored exactly once, with the episode number
#     it was acknowledged with, and episodes are numbered 1..n without gaps;
#   - every billboard version stored before is byte-identical, in the
#     database and as served by GET /v1/billboard/{v};
#   - mechanism noise is unchanged: a restart rewrites no record, and a record
#     (step, slot, tag) seen in an earlier cycle still has the same bytes;
#   - a replay of acknowledged keys answers as before and stores nothing.
. "$(dirname "$0")/lib.sh"
CYCLES=${CYCLES:-20}
CLIENTS=4
read -r -a mech_flags <<<"${MECH_FLAGS:-}" # 31-crash-grid.sh: the grid mechanisms
CONF=(--horizon 3 --dim 4 --actions 2 --max-episodes 100000 --rho 100000 "${mech_flags[@]}")

cat >"$TMP/client.py" <<'PY'
# Submits episodes with unique keys from CLIENTS threads until the daemon
# goes away; prints "key k seed" for every 201, flushed at once.
# The bodies come from episode_gen.py (on PYTHONPATH), so a seed replays.
import http.client, json, sys, threading
import episode_gen
port, token, prefix, nthreads = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
H, A, D = 3, 2, 4
out = open(sys.argv[5], "a", buffering=1)
lock = threading.Lock()
def body(seed):
    return episode_gen.body(seed, H, A, D)
def run(t):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    for i in range(100000):
        key = "%s-%d-%d" % (prefix, t, i)
        seed = hash(key) & 0xffffffff
        try:
            c.request("POST", "/v1/episodes", body(seed), {
                "Authorization": "Bearer " + token, "Idempotency-Key": key,
                "Content-Type": "application/json"})
            r = c.getresponse()
            data = r.read()
        except Exception:
            return
        if r.status != 201:
            print("unexpected", r.status, data, file=sys.stderr)
            return
        with lock:
            out.write("%s %d %d\n" % (key, json.loads(data)["episode"], seed))
ts = [threading.Thread(target=run, args=(t,)) for t in range(nthreads)]
for t in ts: t.start()
for t in ts: t.join()
PY

cat >"$TMP/check.py" <<'PY'
# Compares the database with what clients were told and what was seen before.
import json, os, sqlite3, sys
db, acked_file, state_file = sys.argv[1:4]
con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
def fail(msg):
    sys.exit("check: " + msg)
ok = con.execute("PRAGMA integrity_check").fetchall()
if ok != [("ok",)]:
    fail("integrity_check: %r" % ok)
ks = [k for (k,) in con.execute("SELECT k FROM episodes ORDER BY k")]
if ks != list(range(1, len(ks) + 1)):
    fail("episode numbers not 1..n")
idem = {}
for key, k in con.execute("SELECT key, episode FROM idempotency"):
    if key in idem:
        fail("key twice: " + key)
    idem[key] = k
if len(idem) != len(ks) or sorted(idem.values()) != ks:
    fail("keys and episodes do not pair one to one (%d keys, %d episodes)" % (len(idem), len(ks)))
acked = 0
for line in open(acked_file):
    key, k, _ = line.split()
    acked += 1
    if idem.get(key) != int(k):
        fail("acknowledged key %s (episode %s) stored as %r" % (key, k, idem.get(key)))
state = json.load(open(state_file)) if os.path.exists(state_file) else {"nodes": {}, "bb": {}}
for h, level, leaf, noise in con.execute("SELECT step, slot, tag, hex(bytes) FROM mech_state"):
    name = "%d/%d/%d" % (h, level, leaf)
    if state["nodes"].get(name, noise) != noise:
        fail("noise of node %s changed" % name)
    state["nodes"][name] = noise
for v, body in con.execute("SELECT version, hex(body) FROM billboards"):
    if state["bb"].get(str(v), body) != body:
        fail("billboard %d changed" % v)
    state["bb"][str(v)] = body
for v in state["bb"]:
    if con.execute("SELECT 1 FROM billboards WHERE version = ?", (int(v),)).fetchone() is None:
        fail("billboard %s disappeared" % v)
json.dump(state, open(state_file, "w"))
print("%d episodes, %d acknowledged, %d billboards, %d nodes" % (len(ks), acked, len(state["bb"]), len(state["nodes"])))
PY

nodes() { sql "SELECT step, slot, tag, hex(bytes) FROM mech_state ORDER BY step, slot" | sha256sum; }

start_daemon "${CONF[@]}"
tok=$(enrol "crash clinic")
: >"$TMP/acked"
for cycle in $(seq 1 "$CYCLES"); do
    PYTHONPATH="$TESTS_DIR" python3 "$TMP/client.py" "$PORT" "$tok" "c$cycle" "$CLIENTS" \
        "$TMP/acked" 2>>"$TMP/client.err" &
    cpid=$!
    # Kill at a random moment once this cycle's clients are posting: on a
    # loaded machine the interpreter can take longer to start than the delay.
    acked_before=$(wc -l <"$TMP/acked")
    for _ in $(seq 1 200); do
        [ "$(wc -l <"$TMP/acked")" -gt "$acked_before" ] && break
        kill -0 "$cpid" 2>/dev/null || break
        sleep 0.05
    done
    sleep "$(printf "0.%02d" $(( (RANDOM % 30) + 5 )))"
    kill -9 "$DAEMON_PID"
    wait "$DAEMON_PID" 2>/dev/null || true
    DAEMON_PID=
    wait "$cpid" || fail "client failed"
    if grep -q unexpected "$TMP/client.err"; then fail "client saw: $(cat "$TMP/client.err")"; fi
    echo "cycle $cycle: $(python3 "$TMP/check.py" "$DB" "$TMP/acked" "$TMP/state.json" 2>&1)" |
        tee "$TMP/check.out"
    grep -q "^cycle $cycle: check:" "$TMP/check.out" && fail "$(cat "$TMP/check.out")"
    before=$(nodes)
    start_daemon
    [ "$(nodes)" = "$before" ] || fail "the restart rewrote mechanism noise"
    # Served billboards are the stored bytes.
    python3 - "$DB" "$URL" <<'PY' || fail "a billboard is served differently after restart $cycle"
import sqlite3, sys, urllib.request
con = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
for v, body in con.execute("SELECT version, body FROM billboards ORDER BY version"):
    got = urllib.request.urlopen("%s/v1/billboard/%d" % (sys.argv[2], v)).read()
    assert got == body, v
PY
    # Replays of three acknowledged keys answer as before, store nothing.
    n=$(sql 'SELECT count(*) FROM episodes')
    for line in $(shuf -n 3 "$TMP/acked" | tr ' ' ':'); do
        IFS=: read -r key k seed <<<"$line"
        # The client's body for this seed, byte for byte (no newline).
        printf '%s' "$(episode "$seed" 0 3 2 4)" >"$TMP/replay"
        post_episode "$tok" "$key" "$TMP/replay"
        expect_status 201
        [ "$(jget "$TMP/body" 'd["episode"]')" = "$k" ] || fail "replay of $key: $(cat "$TMP/body")"
    done
    [ "$(sql 'SELECT count(*) FROM episodes')" = "$n" ] || fail "a replay was stored"
done
[ "$(wc -l <"$TMP/acked")" -gt 100 ] || fail "too few acknowledged episodes to mean much"
[ "$(sql 'SELECT count(*) FROM billboards')" -ge 3 ] || fail "too few billboards to mean much"
stop_daemon
echo ok
