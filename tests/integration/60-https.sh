#!/usr/bin/env bash
# HTTPS natively (issue 10): billboardd serves TLS with --tls-cert/--tls-key
# on loopback, and a clinic's whole path runs over it with --cacert: the
# admin enrols a clinic with the CLI, the CLI fetches the billboard,
# recommends and submits an episode, billboard-sim plays episodes with two
# clinics. Plain HTTP to the TLS port gets no answer; a client that does not
# trust the certificate is refused (verification is on by default, exit 3).
# SIGHUP with a renewed pair switches the certificate served (its SHA-256
# fingerprint, read with openssl s_client) in the same process, with every
# episode and billboard kept; a bad pair on SIGHUP keeps the old one. A bad
# pair, a lone --tls-cert or a bad priority string at start is exit 2 and
# creates no database; so is plain HTTP on a non-loopback address (0.0.0.0),
# which --insecure-http allows.
set -euo pipefail
. "$(dirname "$0")/cli-lib.sh"
SIM="$O/billboard-sim"
[ -x "$SIM" ] || fail "no $SIM"
command -v openssl >/dev/null || fail "openssl is missing (deploy/install-deps installs it)"

# Two self-signed pairs for 127.0.0.1 and localhost: an EC one and an RSA one.
selfsigned() { # NAME KEYSPEC...
    local name=$1
    shift
    openssl req -x509 -newkey "$@" -nodes -days 2 -subj /CN=localhost \
        -addext subjectAltName=IP:127.0.0.1,DNS:localhost \
        -keyout "$TMP/$name.key" -out "$TMP/$name.pem" 2>"$TMP/openssl.log" ||
        fail "openssl req: $(cat "$TMP/openssl.log")"
}
selfsigned one ec -pkeyopt ec_paramgen_curve:prime256v1
selfsigned two rsa:2048
fingerprint() { # FILE: its SHA-256 fingerprint as openssl prints it
    openssl x509 -noout -fingerprint -sha256 -in "$1" | sed 's/.*=//'
}
FP1=$(fingerprint "$TMP/one.pem")
FP2=$(fingerprint "$TMP/two.pem")
served() { # the SHA-256 fingerprint of the certificate the daemon presents now
    openssl s_client -connect "127.0.0.1:$PORT" -servername localhost </dev/null 2>/dev/null |
        openssl x509 -noout -fingerprint -sha256 | sed 's/.*=//'
}

# ---- Refused at start: exit 2, a message, and no database left behind.
refused() { # WHAT PATTERN FLAGS...: billboardd must exit 2 saying PATTERN
    local what=$1 pattern=$2 rc=0
    shift 2
    # (A daemon that starts instead would serve on: timeout ends it.)
    timeout 20 "$BB" --db "$TMP/refused.db" --port 0 "$@" "${CONF[@]}" >/dev/null \
        2>"$TMP/refused.log" || rc=$?
    [ "$rc" = 2 ] || fail "$what: exit $rc, want 2: $(cat "$TMP/refused.log")"
    grep -q -- "$pattern" "$TMP/refused.log" || fail "$what: message: $(cat "$TMP/refused.log")"
    [ ! -e "$TMP/refused.db" ] || fail "$what: a database was created"
}
refused "cert without key" "--tls-cert needs --tls-key" --tls-cert "$TMP/one.pem"
refused "mismatched pair" "is not the key of the certificate" \
    --tls-cert "$TMP/one.pem" --tls-key "$TMP/two.key"
refused "missing key file" "cannot read --tls-key" \
    --tls-cert "$TMP/one.pem" --tls-key "$TMP/none.key"
refused "a key as certificate" "no PEM certificate" \
    --tls-cert "$TMP/one.key" --tls-key "$TMP/one.key"
refused "bad priorities" "--tls-priorities 'NORMAL:+NO-SUCH-THING'" \
    --tls-cert "$TMP/one.pem" --tls-key "$TMP/one.key" --tls-priorities NORMAL:+NO-SUCH-THING
refused "plain HTTP on 0.0.0.0" "refusing plain HTTP on 0.0.0.0" --listen 0.0.0.0
refused "plain HTTP on a LAN address" "refusing plain HTTP on 192.0.2.1" --listen 192.0.2.1

# ---- --insecure-http allows plain HTTP on 0.0.0.0 (reached here on 127.0.0.1).
"$BB" --db "$TMP/insecure.db" --listen 0.0.0.0 --port 0 --port-file "$TMP/insecure.port" \
    --insecure-http "${CONF[@]}" 2>"$TMP/insecure.log" &
pid=$!
for _ in $(seq 1 200); do
    [ -s "$TMP/insecure.port" ] && break
    kill -0 "$pid" 2>/dev/null || fail "--insecure-http on 0.0.0.0 exited: $(cat "$TMP/insecure.log")"
    sleep 0.05
done
[ -s "$TMP/insecure.port" ] || fail "--insecure-http: no port written"
[ "$(curl -s "http://127.0.0.1:$(cat "$TMP/insecure.port")/livez" -o /dev/null -w '%{http_code}')" = 200 ] ||
    fail "--insecure-http: /livez over HTTP"
kill -TERM "$pid"
wait "$pid" || fail "--insecure-http daemon exited $? on SIGTERM"

# ---- The daemon over HTTPS on loopback, from files SIGHUP will re-read.
cp "$TMP/one.pem" "$TMP/live.pem"
cp "$TMP/one.key" "$TMP/live.key"
start_daemon --tls-cert "$TMP/live.pem" --tls-key "$TMP/live.key" \
    --horizon 5 --dim 8 --actions 5 --max-episodes 1000 --rho 100000 --beta 2
H=5; A=5; D=8
URL="https://127.0.0.1:$PORT"
grep -q "over HTTPS" "$TMP/daemon.log" || fail "the start line does not say HTTPS"
grep -q "certificate CN=localhost, SHA-256 $FP1" "$TMP/daemon.log" ||
    fail "the start line does not name the certificate $FP1"
[ "$(served)" = "$FP1" ] || fail "served certificate $(served), want $FP1"

# Plain HTTP to the TLS port: no HTTP answer; the daemon serves on.
rc=0
curl -s --max-time 10 -o /dev/null "http://127.0.0.1:$PORT/livez" || rc=$?
[ "$rc" != 0 ] || fail "plain HTTP to the TLS port got an answer"
# curl trusting nothing but the system's store: refused (60, peer failed verification).
rc=0
curl -s --max-time 10 -o /dev/null "$URL/livez" || rc=$?
[ "$rc" = 60 ] || fail "curl without --cacert: exit $rc, want 60"
# Every curl of lib.sh's helpers trusts the first certificate from here on.
CA="$TMP/one.pem"
curl() { command curl --cacert "$CA" "$@"; }
req GET /livez
expect_status 200
# The certificate's notAfter is a metric (the alert's input).
req GET /metrics -H "Authorization: Bearer $ADMIN"
expect_status 200
want=$(date -d "$(openssl x509 -noout -enddate -in "$CA" | sed 's/notAfter=//')" +%s)
grep -q "^billboard_tls_cert_expiry_timestamp_seconds $want$" "$TMP/body" ||
    fail "expiry metric: $(grep tls_cert "$TMP/body"), want $want"

# ---- The clinic's path with the CLI.
export BILLBOARD_SERVER="$URL" BILLBOARD_STATE="$TMP/state.db"
# Verification is on without --cacert: refused with exit 3 and why, and not
# retried (no retry can mend it): the daemon logs one failed handshake.
handshakes() { grep -c "http: Error: received handshake message" "$TMP/daemon.log" || true; }
before=$(handshakes)
BILLBOARD_ADMIN_TOKEN="$ADMIN" run 3 clinics list
grep -q "certificate" "$TMP/err" || fail "no word of the certificate: $(cat "$TMP/err")"
grep -q -- "--cacert" "$TMP/err" || fail "no hint of --cacert: $(cat "$TMP/err")"
for _ in $(seq 1 100); do
    [ "$(handshakes)" -gt "$before" ] && break
    sleep 0.05
done
[ "$(handshakes)" = $((before + 1)) ] ||
    fail "an untrusted certificate cost $(($(handshakes) - before)) handshakes, want 1 (no retries)"
# A CA file that does not sign the daemon's certificate: refused too.
run 3 show --cacert "$TMP/two.pem" --retries 1
run 1 show --cacert "$TMP/no-such-ca.pem"
grep -q "cannot read CA file" "$TMP/err" || fail "unreadable CA file: $(cat "$TMP/err")"

BILLBOARD_ADMIN_TOKEN="$ADMIN" run 0 --cacert "$CA" clinics add "Clinic TLS" --json
BILLBOARD_TOKEN=$(out 'd["token"]')
export BILLBOARD_TOKEN
export BILLBOARD_CACERT="$CA" # the environment's CA file, for the commands below
run 0 show --json
[ "$(out 'd["version"]')" = 0 ] || fail "show: $(head -c 300 "$TMP/out")"
python3 - "$A" "$D" >"$TMP/f.json" <<'PY'
import json, sys
A, d = int(sys.argv[1]), int(sys.argv[2])
print(json.dumps([[0.3 if j == a else 0.1 for j in range(d)] for a in range(A)]))
PY
run 0 recommend --step 1 --features "$TMP/f.json" --json
[ "$(out '0 <= d["action"] < 5')" = true ] || fail "recommend: $(cat "$TMP/out")"
episode 1 0 "$H" "$A" "$D" >"$TMP/ep.json"
run 0 submit "$TMP/ep.json" --json
[ "$(episodes)" = 1 ] || fail "the daemon has $(episodes) episodes after submit, want 1"

# ---- billboard-sim over HTTPS: its own --cacert (the environment's unset).
: >"$TMP/tokens"
for n in North South; do enrol "$n clinic" >>"$TMP/tokens"; done
rc=0
env -u BILLBOARD_CACERT "$SIM" --server "$URL" --token-file "$TMP/tokens" --clinics 2 \
    --episodes 5 --quiet 2>"$TMP/sim.log" || rc=$?
[ "$rc" != 0 ] || fail "billboard-sim without --cacert played over HTTPS"
grep -q "certificate" "$TMP/sim.log" || fail "billboard-sim: no word of the certificate: $(cat "$TMP/sim.log")"
env -u BILLBOARD_CACERT "$SIM" --server "$URL" --cacert "$CA" --token-file "$TMP/tokens" \
    --clinics 2 --episodes 40 --quiet 2>"$TMP/sim.log" || fail "billboard-sim: $(cat "$TMP/sim.log")"
[ "$(episodes)" = 41 ] || fail "the daemon has $(episodes) episodes after the simulator, want 41"
wait_published
req GET /v1/billboard
expect_status 200
cp "$TMP/body" "$TMP/board.before"
etag=$(header ETag)
version=$(jget "$TMP/body" 'd["version"]')
[ "$version" -gt 0 ] || fail "the billboard did not move over HTTPS"

# ---- SIGHUP with a bad pair: logged, the old certificate stays.
cp "$TMP/two.key" "$TMP/live.key" # the first certificate with the second key
kill -HUP "$DAEMON_PID"
for _ in $(seq 1 100); do
    grep -q "SIGHUP: .*still serving the previous certificate" "$TMP/daemon.log" && break
    sleep 0.05
done
grep -q "SIGHUP: --tls-key $TMP/live.key is not the key of the certificate" "$TMP/daemon.log" ||
    fail "the bad pair on SIGHUP was not logged with its reason"
[ "$(served)" = "$FP1" ] || fail "after a bad SIGHUP the daemon serves $(served), want $FP1"
req GET /livez
expect_status 200

# ---- SIGHUP with the renewed pair: the second certificate, same process, same data.
cp "$TMP/two.pem" "$TMP/live.pem"
kill -HUP "$DAEMON_PID"
for _ in $(seq 1 100); do
    grep -q "SIGHUP: now serving certificate" "$TMP/daemon.log" && break
    sleep 0.05
done
grep -q "SIGHUP: now serving certificate CN=localhost, SHA-256 $FP2" "$TMP/daemon.log" ||
    fail "SIGHUP did not log the new certificate $FP2"
[ "$(served)" = "$FP2" ] || fail "after SIGHUP the daemon serves $(served), want $FP2"
kill -0 "$DAEMON_PID" || fail "the daemon died on SIGHUP"
# Clients trusting only the first certificate are refused now; the second is trusted.
run 3 privacy --retries 1
CA="$TMP/two.pem"
export BILLBOARD_CACERT="$CA"
run 0 privacy --json
[ "$(out 'd["episodes"]')" = 41 ] || fail "episodes after SIGHUP: $(cat "$TMP/out")"
req GET /v1/billboard -H "If-None-Match: $etag"
expect_status 304
req GET "/v1/billboard/$version"
cmp -s "$TMP/body" "$TMP/board.before" || fail "billboard $version changed across SIGHUP"
# And the clinic goes on under the new certificate.
episode 2 "$version" "$H" "$A" "$D" >"$TMP/ep2.json"
run 0 submit "$TMP/ep2.json"
[ "$(episodes)" = 42 ] || fail "the daemon has $(episodes) episodes, want 42"
stop_daemon
echo "ok: HTTPS end to end (CLI, simulator), plain HTTP and untrusted clients refused," \
    "SIGHUP $FP1 -> $FP2 with 42 episodes and billboard $version kept"
