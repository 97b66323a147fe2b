#!/usr/bin/env bash
# A client that shuts down its sending side right after its request
# (shutdown(SHUT_WR)). GETs, recommendations and refusals are answered. A
# write through the writer is carried out even where libmicrohttpd (poll
# mode) closes the connection before its answer (docs/RELIABILITY.md), and
# the documented recovery works: the same Idempotency-Key is answered as a
# replay and the episode is counted once.
. "$(dirname "$0")/lib.sh"
start_daemon "${CONF[@]}"
tok=$(enrol clinic-a)
[ -n "$tok" ] || fail "no clinic enrolled"
episode 1 >"$TMP/e"

# half REQFILE: sends the file's bytes, half-closes, prints the status line
# (empty if the connection closed without an answer).
half() {
    python3 - "$PORT" "$1" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(open(sys.argv[2], "rb").read())
s.shutdown(socket.SHUT_WR)
s.settimeout(10)
data = b""
try:
    while b"\r\n" not in data:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
except socket.timeout:
    pass
print(data.split(b"\r\n")[0].decode() if b"\r\n" in data else "")
PY
}
request() { # METHOD PATH [BODYFILE [HEADER...]]: a raw HTTP/1.1 request on stdout
    local method=$1 path=$2 body=${3:-} h
    printf '%s %s HTTP/1.1\r\nHost: x\r\n' "$method" "$path"
    for h in "${@:4}"; do printf '%s\r\n' "$h"; done
    if [ -n "$body" ]; then
        printf 'Content-Type: application/json\r\nContent-Length: %s\r\n\r\n' "$(stat -c %s "$body")"
        cat "$body"
    else
        printf '\r\n'
    fi
}

request GET /v1/billboard >"$TMP/get"
[ "$(half "$TMP/get")" = "HTTP/1.1 200 OK" ] || fail "a half-closed GET was not answered"
python3 -c 'import json; print(json.dumps({"h": 1, "features": [[0.5] + [0.0] * 3] * 2}))' >"$TMP/q"
request POST /v1/recommend "$TMP/q" "Authorization: Bearer $tok" >"$TMP/rec"
[ "$(half "$TMP/rec")" = "HTTP/1.1 200 OK" ] || fail "a half-closed recommendation was not answered"
printf '{"steps": 1' >"$TMP/bad"
request POST /v1/episodes "$TMP/bad" "Authorization: Bearer $tok" "Idempotency-Key: bad" >"$TMP/badreq"
[ "$(half "$TMP/badreq")" = "HTTP/1.1 400 Bad Request" ] || fail "a half-closed bad episode was not refused"

# The write: answered or not, it is done, and a retry replays it.
request POST /v1/episodes "$TMP/e" "Authorization: Bearer $tok" "Idempotency-Key: half-1" >"$TMP/ep"
line=$(half "$TMP/ep")
case "$line" in
"" | "HTTP/1.1 201 Created") ;;
*) fail "a half-closed episode answered '$line'" ;;
esac
for _ in $(seq 1 100); do # a bound, not a figure: the writer may still be committing
    [ "$(sql 'SELECT count(*) FROM episodes')" = 1 ] && break
    sleep 0.1
done
[ "$(sql 'SELECT count(*) FROM episodes')" = 1 ] || fail "the half-closed episode was not stored"
post_episode "$tok" half-1 "$TMP/e"
expect_status 201
[ "$(header Idempotent-Replayed)" = true ] || fail "the retry was not answered as a replay"
[ "$(sql 'SELECT count(*) FROM episodes')" = 1 ] || fail "the retry was stored twice"
stop_daemon
echo ok
