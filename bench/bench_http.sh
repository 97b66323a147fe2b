#!/usr/bin/env bash
# bench/bench_http.sh — billboardd over HTTP, each figure beside a reference
# measured in the same run on loopback (prints, asserts nothing):
#   1. GET /v1/billboard req/s (wrk) vs a minimal libmicrohttpd program
#      serving the same bytes, and vs nginx serving the same file if installed;
#   2. durable POST /v1/episodes episodes/s at H=10 A=8 d=16 with 64
#      connections (wrk, unique Idempotency-Keys) vs a plain SQLite loop
#      writing the same rows with the same durability, one commit per episode.
# Environment: O (build dir), SECS (seconds per run, default 5), ROUNDS
# (alternating GET rounds, default 3), BENCH_CONF (extra configuration flags
# for billboardd, e.g. "--mechanism tree" for the paper's per-episode
# releases; default: billboardd's defaults).
set -euo pipefail
O=${O:-build}
SECS=${SECS:-5}
ROUNDS=${ROUNDS:-3}
command -v wrk >/dev/null || { echo "bench_http: wrk not installed, skipped"; exit 0; }
PYTHON=$(python3 -c 'import sys; print(sys.executable)')
TMP=$(mktemp -d)
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$TMP"
}
trap cleanup EXIT
ADMIN="bench-admin-token-$(date +%s%N)"
printf '%s\n' "$ADMIN" >"$TMP/admin"

wait_port() {
    for _ in $(seq 1 200); do [ -s "$1" ] && return 0; sleep 0.05; done
    echo "bench_http: server did not start" >&2
    exit 1
}
rps() { awk '/^Requests\/sec:/ { print $2 }' "$1"; }
calc() { awk "BEGIN { printf \"%.6f\", $1 }"; } # bc is not always installed

read -r -a bench_conf <<<"${BENCH_CONF:-}"
"$O/billboardd" --db "$TMP/bb.db" --port 0 --port-file "$TMP/port" \
    --admin-token-file "$TMP/admin" --per-ip-limit 1024 \
    --horizon 10 --dim 16 --actions 8 --max-episodes 1000000 --rho 1 "${bench_conf[@]}" \
    2>"$TMP/daemon.log" &
PIDS+=($!)
wait_port "$TMP/port"
URL="http://127.0.0.1:$(cat "$TMP/port")"
curl -s "$URL/v1/billboard" -o "$TMP/billboard.json"

# 1. GET: billboardd and the reference alternately, ROUNDS times each, to
# even out the drift of a shared machine; the means are compared.
"$O/bench_mhd_static" "$TMP/billboard.json" "$TMP/sport" &
PIDS+=($!)
wait_port "$TMP/sport"
SURL="http://127.0.0.1:$(cat "$TMP/sport")/v1/billboard"
get=0
ref=0
for _ in $(seq 1 "$ROUNDS"); do
    wrk -t2 -c64 -d"${SECS}s" "$URL/v1/billboard" >"$TMP/wrk-get"
    wrk -t2 -c64 -d"${SECS}s" "$SURL" >"$TMP/wrk-static"
    get=$(calc "$get + $(rps "$TMP/wrk-get") / $ROUNDS")
    ref=$(calc "$ref + $(rps "$TMP/wrk-static") / $ROUNDS")
done
echo "GET /v1/billboard ($(wc -c <"$TMP/billboard.json") bytes, 64 connections, mean of $ROUNDS alternating ${SECS}s runs):"
printf '  billboardd           %12.0f req/s\n' "$get"
printf '  minimal MHD program  %12.0f req/s   ratio %.3f (goal >= 0.9)\n' "$ref" \
    "$(calc "$get / $ref")"
if command -v nginx >/dev/null; then
    mkdir -p "$TMP/www/v1" "$TMP/ngx"
    cp "$TMP/billboard.json" "$TMP/www/v1/billboard"
    nport=$((20000 + RANDOM % 20000))
    cat >"$TMP/nginx.conf" <<NGX
worker_processes 2; daemon off; pid $TMP/ngx/pid; error_log $TMP/ngx/err;
events { worker_connections 1024; }
http { access_log off; default_type application/json;
  client_body_temp_path $TMP/ngx; proxy_temp_path $TMP/ngx; fastcgi_temp_path $TMP/ngx;
  uwsgi_temp_path $TMP/ngx; scgi_temp_path $TMP/ngx;
  server { listen 127.0.0.1:$nport; root $TMP/www; } }
NGX
    nginx -c "$TMP/nginx.conf" &
    PIDS+=($!)
    sleep 0.5
    wrk -t2 -c64 -d"${SECS}s" "http://127.0.0.1:$nport/v1/billboard" >"$TMP/wrk-nginx"
    ng=$(rps "$TMP/wrk-nginx")
    printf '  nginx (static file)  %12.0f req/s   ratio %.3f\n' "$ng" "$(calc "$get / $ng")"
else
    echo "  nginx                not installed, no comparison"
fi

# 2. POST
token=$(curl -s -X POST "$URL/v1/clinics" -H "Authorization: Bearer $ADMIN" \
    -H 'Content-Type: application/json' -d '{"name": "bench"}' |
    "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["token"])')
# One episode body (seed 1), the generator of the integration tests.
"$PYTHON" "$(dirname "$0")/../tests/integration/episode_gen.py" 1 0 10 8 16 >"$TMP/episode.json"
cat >"$TMP/post.lua" <<LUA
local counter = 0
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end
function init(args)
  local f = io.open("$TMP/episode.json", "rb")
  body = f:read("*a")
  f:close()
end
function request()
  counter = counter + 1
  return wrk.format("POST", "/v1/episodes", {
    ["Authorization"] = "Bearer $token",
    ["Content-Type"] = "application/json",
    ["Idempotency-Key"] = "b" .. tid .. "-" .. counter }, body)
end
function done(summary, latency, requests)
  io.write(string.format("non2xx %d\n", summary.errors.status))
end
LUA
before=$(curl -s "$URL/v1/privacy" | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["episodes"])')
wrk -t2 -c64 -d"${SECS}s" -s "$TMP/post.lua" "$URL/v1/episodes" >"$TMP/wrk-post"

after=$(curl -s "$URL/v1/privacy" | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["episodes"])')
secs=$(awk '/requests in/ { s = $4; sub(/s,?$/, "", s); print s }' "$TMP/wrk-post")
post=$(calc "($after - $before) / $secs")
gc=$(curl -s -H @<(printf 'Authorization: Bearer %s\n' "$ADMIN") "$URL/metrics" | awk '/^billboard_group_commits_total/ { c = $2 }
    /^billboard_group_commit_jobs_total/ { j = $2 } END { if (c) printf "%.1f", j / c }')
read -r n t < <("$O/bench_sqlite_loop" "$TMP/loop.db" 10 8 16 "$SECS")
loop=$(calc "$n / $t")
echo "durable POST /v1/episodes (H=10 A=8 d=16, $(wc -c <"$TMP/episode.json") bytes, 64 connections, ${SECS}s):"
printf '  billboardd           %12.0f episodes/s committed (%s non-2xx; %s requests per group commit)\n' \
    "$post" "$(awk '/^non2xx/ { print $2 }' "$TMP/wrk-post")" "$gc"
printf '  plain SQLite loop    %12.0f episodes/s (WAL, synchronous=FULL, one commit each)   ratio %.3f (goal >= 0.5)\n' \
    "$loop" "$(calc "$post / $loop")"
