#!/usr/bin/env bash
# --metrics-listen ADDR:PORT: a second address that serves GET /metrics
# without a token (for a Prometheus on a private network) and nothing else
# (404); on the main address /metrics still needs the admin token. A bad
# address is refused before anything starts (exit 2).
. "$(dirname "$0")/lib.sh"
start_daemon "${CONF[@]}" --metrics-listen 127.0.0.1:0
mport=""
for _ in $(seq 1 100); do
    mport=$(sed -n 's/.*metrics on 127.0.0.1 port \([0-9]*\) .*/\1/p' "$TMP/daemon.log")
    [ -n "$mport" ] && break
    sleep 0.05
done
[ -n "$mport" ] || fail "no metrics line in the log"
[ "$mport" != "$PORT" ] || fail "the metrics address is the main one"
tok=$(enrol clinic)
episode 1 >"$TMP/e"
post_episode "$tok" k1 "$TMP/e"
expect_status 201

MURL="http://127.0.0.1:$mport"
code=$(curl -s -o "$TMP/m" -w '%{http_code}' "$MURL/metrics")
[ "$code" = 200 ] || fail "metrics address: $code"
grep -q '^billboard_episodes 1$' "$TMP/m" || fail "metrics: $(head -c 300 "$TMP/m")"
grep -q '^billboard_http_requests_total{route="/v1/episodes",method="POST",code="201"} 1$' "$TMP/m" ||
    fail "the main address's requests are not counted"
for path in /v1/billboard /v1/privacy /v1/clinics /; do
    code=$(curl -s -o "$TMP/b" -w '%{http_code}' "$MURL$path")
    [ "$code" = 404 ] || fail "metrics address serves $path: $code"
done
req GET /metrics
expect_problem 401
stop_daemon

rc=0
"$BB" --db "$TMP/x.db" "${CONF[@]}" --metrics-listen localhost:9464 2>"$TMP/err" || rc=$?
[ "$rc" = 2 ] || fail "a bad --metrics-listen: exit $rc"
grep -q "metrics-listen 'localhost:9464' is not ADDR:PORT" "$TMP/err" || fail "message: $(cat "$TMP/err")"
[ ! -e "$TMP/x.db" ] || fail "a database was created"
echo ok
