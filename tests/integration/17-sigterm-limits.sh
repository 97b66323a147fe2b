#!/usr/bin/env bash
# Graceful SIGTERM under load (in-flight commits finish, every acknowledged
# episode is stored, exit 0), and the connection limits: per-connection
# memory, idle timeout, per-IP connection limit.
. "$(dirname "$0")/lib.sh"
start_daemon --horizon 3 --dim 4 --actions 2 --max-episodes 100000 --rho 100000 \
    --timeout 1 --per-ip-limit 3 --conn-memory 16384
tok=$(enrol "clinic")

# Per-connection memory: a header larger than the pool is refused (by
# libmicrohttpd itself, hence not problem+json) and the daemon serves on.
req GET /livez -H "X-Big: $(head -c 30000 /dev/zero | tr '\0' a)"
expect_status 431
req GET /livez
expect_status 200

# Per-IP limit 3 (per address: 127.0.0.2 is not refused while 127.0.0.1 is at
# it) and idle timeout 1 s, seen from raw sockets.
python3 - "$PORT" <<'PY' || fail "connection limits not enforced"
import socket, sys, time
port = int(sys.argv[1])
socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(3)]
time.sleep(0.2)
extra = socket.create_connection(("127.0.0.1", port))
extra.settimeout(2)
extra.sendall(b"GET /livez HTTP/1.1\r\nHost: x\r\n\r\n")
try:
    got = extra.recv(100)
except (ConnectionResetError, socket.timeout):
    got = b""
assert got == b"", "a 4th connection from one address was served: %r" % got
# The limit is per address: a connection from another address is not closed
# at once as that 4th one was, it is served.
other = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=("127.0.0.2", 0))
other.sendall(b"GET /livez HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
got = other.recv(100)
assert got.startswith(b"HTTP/1.1 200"), "another address was refused too: %r" % got
other.close()
# The three idle ones are closed by the 1 s timeout.
t0 = time.time()
for s in socks:
    s.settimeout(5)
    try:
        assert s.recv(100) == b""
    except ConnectionResetError:
        pass
assert time.time() - t0 < 4, "idle connections not timed out"
PY

# SIGTERM while 4 clients submit.
cat >"$TMP/client.py" <<'PY'
import http.client, json, sys, threading
port, token, out = int(sys.argv[1]), sys.argv[2], open(sys.argv[3], "a", buffering=1)
body = open(sys.argv[4]).read()
lock = threading.Lock()
bad = []
def run(t):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    for i in range(100000):
        key = "t%d-%d" % (t, i)
        try:
            c.request("POST", "/v1/episodes", body, {"Authorization": "Bearer " + token,
                      "Idempotency-Key": key, "Content-Type": "application/json"})
            r = c.getresponse(); data = r.read()
        except Exception:
            return
        if r.status == 503:
            return
        if r.status != 201:
            bad.append((r.status, data)); return
        with lock:
            out.write("%s %d\n" % (key, json.loads(data)["episode"]))
ts = [threading.Thread(target=run, args=(t,)) for t in range(4)]
for t in ts: t.start()
for t in ts: t.join()
if bad:
    sys.exit("unexpected answers: %r" % bad[:2])
PY
episode 7 >"$TMP/e"
: >"$TMP/acked"
python3 "$TMP/client.py" "$PORT" "$tok" "$TMP/acked" "$TMP/e" &
cpid=$!
sleep 1
kill -TERM "$DAEMON_PID"
rc=0
wait "$DAEMON_PID" || rc=$?
DAEMON_PID=
[ "$rc" -eq 0 ] || fail "SIGTERM: exit status $rc"
wait "$cpid" || fail "client failed"
n=$(wc -l <"$TMP/acked")
[ "$n" -gt 0 ] || fail "no episode acknowledged before SIGTERM"
python3 - "$DB" "$TMP/acked" <<'PY' || fail "an acknowledged episode is missing"
import sqlite3, sys
con = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
stored = dict(con.execute("SELECT key, episode FROM idempotency"))
for line in open(sys.argv[2]):
    key, k = line.split()
    assert stored.get(key) == int(k), (key, k, stored.get(key))
PY
[ "$(sql 'SELECT count(*) FROM episodes')" = "$n" ] || fail "stored episodes never acknowledged"
grep -q "finishing in-flight" "$TMP/daemon.log" || fail "no shutdown message"
echo ok
