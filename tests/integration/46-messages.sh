#!/usr/bin/env bash
# Messages that say a thing once: the compose stack's simulated clinics
# (docker/sim-clinics, run here against a real daemon with the built
# programs) enrol three clinics and say "the token is shown only once" once,
# never printing a token; the CLI facing a server that is not billboardd
# (a plain 404 page) says "show: not found (HTTP 404)", not "billboard:
# billboard: ..." nor "HTTP 404: HTTP 404".
. "$(dirname "$0")/cli-lib.sh"
ROOT="$TESTS_DIR/../.."
start_daemon --horizon 3 --dim 4 --actions 2 --max-episodes 200 --rho 100000
mkdir -p "$TMP/sim"
PATH="$(cd "$O" && pwd):$PATH" BILLBOARD_SERVER="$URL" BILLBOARD_ADMIN_TOKEN_FILE="$TMP/admin" \
    SIM_STATE="$TMP/sim" SIM_CLINICS=3 SIM_EPISODES=30 \
    bash "$ROOT/docker/sim-clinics" >"$TMP/sim.log" 2>&1 || fail "sim-clinics: $(cat "$TMP/sim.log")"
[ "$(grep -c "enrolled sim-clinic-" "$TMP/sim.log")" = 3 ] || fail "enrolments: $(cat "$TMP/sim.log")"
[ "$(grep -c "shown only once" "$TMP/sim.log")" = 1 ] || fail "the reminder: $(cat "$TMP/sim.log")"
[ "$(wc -l <"$TMP/sim/clinic-tokens")" = 3 ] || fail "tokens kept: $(wc -l <"$TMP/sim/clinic-tokens")"
while read -r t; do
    grep -qF "$t" "$TMP/sim.log" && fail "a token in the log"
done <"$TMP/sim/clinic-tokens"
# Run again: the same clinics, no enrolment, no reminder.
PATH="$(cd "$O" && pwd):$PATH" BILLBOARD_SERVER="$URL" BILLBOARD_ADMIN_TOKEN_FILE="$TMP/admin" \
    SIM_STATE="$TMP/sim" SIM_CLINICS=3 SIM_EPISODES=30 \
    bash "$ROOT/docker/sim-clinics" >"$TMP/sim2.log" 2>&1 || fail "sim-clinics again: $(cat "$TMP/sim2.log")"
grep -q "enrolled\|shown only once" "$TMP/sim2.log" && fail "enrolled again: $(cat "$TMP/sim2.log")"
stop_daemon

# Not billboardd: a static file server's 404 page.
mkdir -p "$TMP/www"
: >"$TMP/www.log"
python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$TMP/www" >"$TMP/www.log" 2>&1 &
www=$!
for _ in $(seq 1 100); do
    port=$(sed -n 's/.* port \([0-9]*\) .*/\1/p' "$TMP/www.log" || true)
    [ -n "$port" ] && break
    sleep 0.05
done
[ -n "$port" ] || { kill "$www"; fail "no static server: $(cat "$TMP/www.log")"; }
export BILLBOARD_SERVER="http://127.0.0.1:$port" BILLBOARD_STATE="$TMP/state.db"
run 5 show
grep -qx "billboard: show: not found (HTTP 404)" "$TMP/err" || { kill "$www"; fail "show: $(cat "$TMP/err")"; }
run 5 show --version 3
grep -qx "billboard: billboard version: not found (HTTP 404)" "$TMP/err" || { kill "$www"; fail "show --version: $(cat "$TMP/err")"; }
run 5 episode start
grep -qx "billboard: fetching the billboard: not found (HTTP 404)" "$TMP/err" || { kill "$www"; fail "start: $(cat "$TMP/err")"; }
kill "$www"
wait "$www" 2>/dev/null || true
echo ok
