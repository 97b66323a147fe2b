#!/usr/bin/env bash
# tests/load/run.sh — `make load`: billboardd on 127.0.0.1 with its database
# on disk (under $O/), driven by $O/loadgen, bounded in time. Prints the
# figures docs/RELIABILITY.md cites, one line per run, then a summary.
#
#   1. ingest, closed loop, 64 connections: POST /v1/episodes capacity
#   2. billboard GETs, closed loop, 128 connections: capacity
#   3. open loop (latency from each request's due time) at 90% and 50% of
#      each capacity: p50, p99, p99.9
#   4. slow clients: LOAD_SLOW connections (default 32) trickle a request
#      one byte every 100 ms while the 50% GET open loop runs again; its
#      p99 against the same run just before without them (within 2x or
#      not), twice
#   5. open connections: GET capacity (128 connections, closed loop) with
#      LOAD_IDLE connections (default 800) held open mid-request from
#      100 per client address (127.0.0.1, .2, ...), against the same run
#      just before without them
#   6. mixed soak, LOAD_SOAK_SECONDS (default 600): ingest at 8 connections
#      and GETs at 30% of capacity; the daemon's resident memory and open
#      file descriptors at start and end (sampled every 30 s)
#
# LOAD_SECONDS (default 15) is the length of each run of 1-4.
set -euo pipefail
cd "$(dirname "$0")/../.."
O=${O:-build}
SECS=${LOAD_SECONDS:-15}
SOAK=${LOAD_SOAK_SECONDS:-600}
SLOW=${LOAD_SLOW:-32}
IDLE=${LOAD_IDLE:-800}
LG="$O/loadgen"
BB="$O/billboardd"
if [ ! -x "$LG" ] || [ ! -x "$BB" ]; then
    echo "run make first ($LG, $BB)" >&2
    exit 1
fi
mkdir -p "$O"
DIR=$(mktemp -d "$(realpath "$O")/load.XXXXXX")
pid=
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    [ -n "${slowpid:-}" ] && kill "$slowpid" 2>/dev/null
    rm -rf "$DIR"
}
trap cleanup EXIT
admin="load-admin-token-$(date +%s%N)"
echo "$admin" >"$DIR/admin"
"$BB" --db "$DIR/bb.db" --listen 127.0.0.1 --port 0 --port-file "$DIR/port" \
    --admin-token-file "$DIR/admin" --horizon 3 --dim 4 --actions 2 \
    --max-episodes 10000000 --rho 100 2>"$DIR/daemon.log" &
pid=$!
for _ in $(seq 1 200); do [ -s "$DIR/port" ] && break; sleep 0.05; done
port=$(cat "$DIR/port")
url="http://127.0.0.1:$port"
tok=$(curl -sf -X POST -H "Authorization: Bearer $admin" -H 'Content-Type: application/json' \
    -d '{"name": "load"}' "$url/v1/clinics" | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
python3 tests/integration/episode_gen.py 1 0 3 2 4 >"$DIR/episode.json"
POST="POST:/v1/episodes:$tok:$DIR/episode.json"
GET="GET:/v1/billboard"

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p"; } # NAME < a loadgen line
run() { # ARGS...: one loadgen run; its line on stdout, and on stderr as it ends
    local out
    # loadgen exits 1 when nothing was answered; its line still says so.
    out=$("$LG" "$@") || [ -n "$out" ]
    printf 'run: %s\n' "$out" >&2
    printf '%s\n' "$out"
}
rss() { awk '/VmRSS/ {print $2}' "/proc/$pid/status"; }
fds() { find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 | wc -l; }

echo "billboardd $(git describe --always --dirty 2>/dev/null || echo '?') on $(nproc) cores;" \
    "database $DIR/bb.db; $SECS s per run" >&2
ingest=$(run closed "$port" 64 "$SECS" "$POST")
cap_post=$(field rps <<<"$ingest")
get=$(run closed "$port" 128 "$SECS" "$GET")
cap_get=$(field rps <<<"$get")
declare -A open
for what in post get; do
    cap=$cap_post req=$POST
    [ "$what" = get ] && cap=$cap_get req=$GET
    for pct in 90 50; do
        rate=$(( cap * pct / 100 ))
        [ "$rate" -ge 1 ] || rate=1
        open[$what$pct]=$(run open "$port" 64 "$SECS" "$req" "$rate")
    done
done
# Slow clients (GETs, a byte every 100 ms) beside the 50% GET open loop,
# twice, each right after the same run without them.
slowline=""
half_get=$(( cap_get / 2 ))
[ "$half_get" -ge 1 ] || half_get=1 # a stalled closed-loop run can measure 1/s
for i in 1 2; do
    base=$(run open "$port" 64 "$SECS" "$GET" "$half_get")
    "$LG" slow "$port" "$SLOW" $(( SECS + 2 )) "$GET" 100 >"$DIR/slow.out" &
    slowpid=$!
    sleep 1
    slowrun=$(run open "$port" 64 "$SECS" "$GET" "$half_get")
    wait "$slowpid" || true
    slowpid=
    base99=$(field p99_ms <<<"$base")
    slow99=$(field p99_ms <<<"$slowrun")
    ratio=$(python3 -c "print('%.2f' % ($slow99 / max($base99, 1e-3)))")
    within=no
    python3 -c "import sys; sys.exit(0 if $ratio <= 2.0 else 1)" && within=yes
    slowline+="  pair $i: GET p99 $slow99 ms with them vs $base99 ms just before: ${ratio}x (within 2x: $within); p50 $(field p50_ms <<<"$slowrun") vs $(field p50_ms <<<"$base") ms; $(field "done" <"$DIR/slow.out") slow requests completed"$'\n'
done

# Open connections: poll() looks at every one on each turn.
idle_base=$(run closed "$port" 128 "$SECS" "$GET")
sources=$(( (IDLE + 99) / 100 ))
LOADGEN_SOURCES=$sources "$LG" slow "$port" "$IDLE" $(( SECS + 3 )) "$GET" 1000000 >"$DIR/idle.out" &
slowpid=$!
sleep 1
idle_run=$(run closed "$port" 128 "$SECS" "$GET")
kill "$slowpid" 2>/dev/null || true
wait "$slowpid" 2>/dev/null || true
slowpid=
idle_ratio=$(python3 -c "print('%.2f' % ($(field rps <<<"$idle_run") / max($(field rps <<<"$idle_base"), 1)))")

# Mixed soak.
episodes() { curl -sf "$url/v1/privacy" | python3 -c 'import json,sys; print(json.load(sys.stdin)["episodes"])'; }
ep0=$(episodes)
rss0=$(rss) fd0=$(fds)
"$LG" closed "$port" 8 "$SOAK" "$POST" >"$DIR/soak-post.out" &
sp=$!
"$LG" open "$port" 32 "$SOAK" "$GET" $(( cap_get * 30 / 100 + 1 )) >"$DIR/soak-get.out" &
sg=$!
samples="$rss0"
t=0
while kill -0 "$sp" 2>/dev/null; do
    sleep 1
    t=$((t + 1))
    [ $((t % 30)) -eq 0 ] && samples="$samples $(rss)"
done
wait "$sp" || true
wait "$sg" || true
rss1=$(rss) fd1=$(fds)
ep1=$(episodes)
per_ep=$(python3 -c "print('%.0f' % (($rss1 - $rss0) * 1024 / max($ep1 - $ep0, 1)))")

cat <<EOF
== billboardd under load ($SECS s per run, $(nproc) cores, loopback) ==
ingest, 64 connections, closed loop:   $cap_post episodes/s   p50 $(field p50_ms <<<"$ingest") ms  p99 $(field p99_ms <<<"$ingest") ms  non-2xx $(field non2xx <<<"$ingest")
billboard GET, 128 connections:        $cap_get requests/s   p50 $(field p50_ms <<<"$get") ms  p99 $(field p99_ms <<<"$get") ms  non-2xx $(field non2xx <<<"$get")
open loop (latency from due time):
EOF
for what in post get; do
    for pct in 90 50; do
        l=${open[$what$pct]}
        printf '  %-4s at %2s%% of capacity: %6s/s done   p50 %s ms  p99 %s ms  p99.9 %s ms  max %s ms  non-2xx %s\n' \
            "$what" "$pct" "$(field rps <<<"$l")" "$(field p50_ms <<<"$l")" "$(field p99_ms <<<"$l")" \
            "$(field p999_ms <<<"$l")" "$(field max_ms <<<"$l")" "$(field non2xx <<<"$l")"
    done
done
echo "slow clients: $SLOW trickling 1 byte/100 ms beside GETs at 50% of capacity:"
printf '%s' "$slowline"
echo "open connections: GET capacity with $IDLE held open mid-request ($sources client addresses) $(field rps <<<"$idle_run")/s vs $(field rps <<<"$idle_base")/s just before: ${idle_ratio}x; p99 $(field p99_ms <<<"$idle_run") vs $(field p99_ms <<<"$idle_base") ms"
echo "soak ${SOAK}s (ingest 8 conns + GET open loop at 30%): RSS ${rss0} kB -> ${rss1} kB (samples: $samples), open fds $fd0 -> $fd1; episodes $ep0 -> $ep1 ($per_ep bytes of RSS per episode stored: the engine keeps every episode, bounded by K_max)"
echo "  soak ingest: $(cut -d' ' -f2- "$DIR/soak-post.out")"
echo "  soak GET:    $(cut -d' ' -f2- "$DIR/soak-get.out")"
