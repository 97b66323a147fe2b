#!/usr/bin/env bash
# Clients that ask for a billboard larger than the socket buffers and then
# never read it: the daemon keeps answering everyone else, and closes the
# stalled connections once they have been idle for --timeout seconds, so
# their descriptors come back. No figure is asserted; the waits are bounds.
. "$(dirname "$0")/lib.sh"

# d = 512, H = 10: GET /v1/billboard is about 5 MB, more than a loopback
# socket's send buffer plus a 4 KB receive buffer can take.
start_daemon --horizon 10 --dim 512 --actions 2 --max-episodes 1000 --epsilon 1 --timeout 2
req GET /v1/billboard
expect_status 200
size=$(stat -c %s "$TMP/body")
[ "$size" -gt 4000000 ] || fail "the billboard is $size bytes, too small to stall a reader"

fds() { find "/proc/$DAEMON_PID/fd" -mindepth 1 -maxdepth 1 | wc -l; }
base=$(fds)

# 16 readers that send the request and read nothing until told to.
python3 - "$PORT" 16 >"$TMP/slow.out" 2>&1 <<'EOF' &
import socket, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
socks = []
for _ in range(n):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", port))
    s.sendall(b"GET /v1/billboard HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    socks.append(s)
print("sent", flush=True)
time.sleep(600)  # killed by the test
EOF
SLOW_PID=$!
for _ in $(seq 1 100); do
    grep -q sent "$TMP/slow.out" 2>/dev/null && break
    sleep 0.1
done
grep -q sent "$TMP/slow.out" || fail "the slow readers did not connect: $(cat "$TMP/slow.out")"

# While they stall, every other client is answered in full.
for _ in 1 2 3; do
    req GET /v1/billboard
    expect_status 200
    [ "$(stat -c %s "$TMP/body")" -eq "$size" ] || fail "a full reader got a short billboard"
    req GET /readyz
    expect_status 200
done
token=$(enrol clinic-a)
[ -n "$token" ] || fail "no clinic enrolled while readers stall"

# The stalled connections hold descriptors now ...
[ "$(fds)" -ge $((base + 16)) ] || fail "the stalled connections hold no descriptors ($(fds), base $base)"
# ... and are closed once idle for --timeout (2 s); 60 s is a bound, not a figure.
for _ in $(seq 1 600); do
    [ "$(fds)" -le "$base" ] && break
    sleep 0.1
done
[ "$(fds)" -le "$base" ] || fail "stalled connections still open: $(fds) descriptors, base $base"
kill "$SLOW_PID" 2>/dev/null || true
wait "$SLOW_PID" 2>/dev/null || true

req GET /v1/billboard
expect_status 200
stop_daemon
echo ok
