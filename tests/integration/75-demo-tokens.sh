#!/usr/bin/env bash
# The demo (deploy/run-demo, `make run`) never prints a bearer token — not
# the admin token, not a clinic's — on success or on any failure: a first
# run, a taken port, a daemon that refuses to start, simulated clinics whose
# tokens were revoked, a re-enrolment that continues the service. Every
# token it ever created is looked for in everything it wrote to the
# terminal. The tokens live in files of mode 600 in a folder of mode 700.
# Runs the demo short and non-interactive (DEMO_SERVE=0, DEMO_SETUP=0).
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$TESTS_DIR/../.." && pwd)
VAR="$TMP/var"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
: >"$TMP/all.out"
: >"$TMP/tokens"

demo() { # WANT-STATUS [VAR=VALUE...]: runs the demo; its output in $TMP/demo.out
    local want=$1 rc=0
    shift
    env DEMO_SETUP=0 DEMO_SERVE=0 DEMO_VAR="$VAR" DEMO_EPISODES=150 DEMO_PORT="$port" O="$O" \
        "$@" "$ROOT/deploy/run-demo" </dev/null >"$TMP/demo.out" 2>&1 || rc=$?
    cat "$TMP/demo.out" >>"$TMP/all.out"
    # Every token that exists now joins the list to look for.
    cat "$VAR/admin-token" "$VAR/clinic-tokens" >>"$TMP/tokens" 2>/dev/null || true
    [ "$rc" = "$want" ] || fail "demo $*: exit $rc, want $want: $(tail -n 20 "$TMP/demo.out")"
}
modes() {
    [ "$(stat -c %a "$VAR")" = 700 ] || fail "$VAR is not 700"
    local f
    for f in admin-token clinic-tokens billboard.db; do
        [ "$(stat -c %a "$VAR/$f")" = 600 ] || fail "$f is not 600: $(stat -c %a "$VAR/$f")"
    done
}

# A first run: enrols three clinics, plays 2000 episodes, summarises, stops.
demo 0 DEMO_EPISODES=2000
grep -q "episodes stored" "$TMP/demo.out" || fail "no summary: $(tail -n 20 "$TMP/demo.out")"
grep -q "Acting alone instead" "$TMP/demo.out" || fail "no comparison with acting alone: $(tail -n 20 "$TMP/demo.out")"
# Acting alone's loss per patient is its total over the 2000 patients (the
# simulator's CSV has a row per 2 episodes there, not one per patient).
python3 - "$TMP/demo.out" 2000 <<'EOF' || fail "acting alone's loss per patient is not its total / 2000: $(grep -A1 'Acting alone' "$TMP/demo.out")"
import re, sys
m = re.search(r"would have lost (\d+) \(([0-9.]+) per patient\)", open(sys.argv[1]).read())
total, per, n = float(m.group(1)), float(m.group(2)), int(sys.argv[2])
assert abs(per - total / n) <= 0.5 / n + 0.0005, (total, per)
EOF
grep -q "DEMO_SERVE=0: stopping" "$TMP/demo.out" || fail "did not stop after the summary"
[ "$(wc -l <"$VAR/clinic-tokens")" = 3 ] || fail "not three clinic tokens"
grep -q '^bbt_' "$VAR/clinic-tokens" || fail "clinic-tokens holds no token"
modes
if curl -s -o /dev/null "http://127.0.0.1:$port/livez"; then fail "the daemon still serves"; fi
# The port is taken (by another billboardd).
start_daemon "${CONF[@]}"
demo 1 DEMO_PORT="$PORT"
grep -q "port $PORT is taken" "$TMP/demo.out" || fail "taken port: $(cat "$TMP/demo.out")"
stop_daemon
# The daemon refuses to start (another budget than the stored one).
demo 1 DEMO_EPSILON=3
grep -q "did not start" "$TMP/demo.out" || fail "refused start: $(cat "$TMP/demo.out")"
# The clinics' tokens were revoked: the simulated clinics are refused.
DB="$VAR/billboard.db"
start_daemon # with the test's own admin token ($ADMIN)
for id in 1 2 3; do
    req DELETE "/v1/clinics/$id" -H "Authorization: Bearer $ADMIN"
    expect_status 204
done
stop_daemon
demo 1
grep -q "401" "$TMP/demo.out" || fail "revoked tokens: $(tail -n 20 "$TMP/demo.out")"
# Enrolled again from scratch: three new tokens, again not shown; the run
# continues the same service.
rm "$VAR/clinic-tokens"
demo 0
grep -q "^2150 episodes stored" "$TMP/demo.out" || fail "did not continue (2000 + 150 episodes): $(grep stored "$TMP/demo.out")"
modes

# Not one token, whole or in part, in anything the demo printed.
sort -u "$TMP/tokens" -o "$TMP/tokens"
[ "$(wc -l <"$TMP/tokens")" = 7 ] || fail "expected 7 tokens (1 admin, 6 clinic): $(wc -l <"$TMP/tokens")"
while IFS= read -r t; do
    [ "${#t}" -ge 32 ] || fail "a token too short to be one: ${#t} bytes"
    for part in "$t" "${t#bbt_}" "${t:4:20}" "${t: -20}"; do
        if grep -qF -- "$part" "$TMP/all.out"; then
            fail "the demo printed a token (or part of one)"
        fi
    done
done <"$TMP/tokens"
grep -q "bbt_" "$TMP/all.out" && fail "the demo printed something shaped like a clinic token"
echo ok
