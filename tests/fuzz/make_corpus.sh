#!/usr/bin/env bash
# tests/fuzz/make_corpus.sh — regenerates the seed corpora in
# tests/fuzz/corpus/<harness>/ (committed; rerun after a schema change):
# valid bodies from tests/integration/episode_gen.py and from a real
# billboardd, and one file per bad-input class. A crash a fuzzer found is
# kept under corpus/<harness>/crash-* by hand, never regenerated.
set -euo pipefail
cd "$(dirname "$0")/../.."
O=${O:-build}
C=tests/fuzz/corpus
gen() { python3 tests/integration/episode_gen.py "$@"; }
mkdir -p "$C"/{episode,episode_diff,billboard,recommend,conffile,envfile,request}
put() { printf '%s' "$3" >"$C/$1/$2"; } # HARNESS NAME CONTENT

# ---- episodes (H=3, A=2, d=4) ----
good=$(gen 1 0 3 2 4)
for h in episode episode_diff; do
    put $h valid "$good"
    put $h valid-v2 "$(gen 2 2 3 2 4)"
    put $h valid-pretty "$(printf '%s' "$good" | python3 -m json.tool)"
    put $h valid-reordered "$(printf '%s' "$good" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(json.dumps({"steps": d["steps"], "billboard_version": d["billboard_version"]}))')"
    put $h empty ""
    put $h not-json "{not json"
    put $h truncated "${good:0:60}"
    put $h array "[1, 2, 3]"
    put $h null "null"
    put $h deep "$(printf '[%.0s' $(seq 1 200))"
    put $h extra-key "${good%\}}, \"extra\": 1}"
    put $h dup-key "{\"billboard_version\": 0, \"billboard_version\": 1, ${good#\{}"
    put $h too-few-steps '{"billboard_version": 0, "steps": []}'
    put $h negative-version "$(printf '%s' "$good" | sed 's/"billboard_version": 0/"billboard_version": -1/')"
    put $h huge-version "$(printf '%s' "$good" | sed 's/"billboard_version": 0/"billboard_version": 99999999999999999999999/')"
    put $h action-range "$(printf '%s' "$good" | sed 's/"action": [0-9]/"action": 7/')"
    put $h action-float "$(printf '%s' "$good" | sed 's/"action": \([0-9]\)/"action": \1.0/')"
    put $h reward-range "$(printf '%s' "$good" | sed 's/"reward": [0-9.e-]*/"reward": 2.5/')"
    put $h reward-string "$(printf '%s' "$good" | sed 's/"reward": [0-9.e-]*/"reward": "0.5"/')"
    put $h nonfinite "$(printf '%s' "$good" | sed 's/"reward": [0-9.e-]*/"reward": 1e999/')"
    put $h nan-literal "$(printf '%s' "$good" | sed 's/"reward": [0-9.e-]*/"reward": NaN/')"
    put $h norm-too-big "$(printf '%s' "$good" | sed 's/\[\[[-0-9.e]*/[[5.0/')"
    put $h escaped-key "$(printf '%s' "$good" | sed 's/"reward"/"rew\\u0061rd"/')"
    put $h unicode "$(printf '%s' "$good" | sed 's/"action"/"acti\xc3\xb6n"/')"
    put $h bad-utf8 "$(printf '%s' "$good" | sed 's/"action"/"act\xff\xfeion"/')"
    put $h nul-byte "$(printf '{"billboard_version": 0\\u0000}')"
    put $h long-number "{\"billboard_version\": 0, \"steps\": [[$(printf '1%.0s' $(seq 1 400))]]}"
    put $h trailing "$good garbage"
done

# ---- billboards, from a real daemon: v0 and one with data ----
tmp=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
echo "admin-token-for-the-corpus-0123456789" >"$tmp/admin"
"$O/billboardd" --db "$tmp/bb.db" --listen 127.0.0.1 --port 0 --port-file "$tmp/port" \
    --admin-token-file "$tmp/admin" --horizon 3 --dim 4 --actions 2 --max-episodes 64 \
    --rho 100000 2>"$tmp/log" &
pid=$!
for _ in $(seq 1 100); do [ -s "$tmp/port" ] && break; sleep 0.05; done
url="http://127.0.0.1:$(cat "$tmp/port")"
curl -sf "$url/v1/billboard" >"$C/billboard/v0"
tok=$(curl -sf -X POST -H "Authorization: Bearer $(cat "$tmp/admin")" -H 'Content-Type: application/json' \
    -d '{"name": "c"}' "$url/v1/clinics" | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
for i in $(seq 1 8); do
    gen "$i" 0 3 2 4 | curl -sf -X POST -H "Authorization: Bearer $tok" -H "Idempotency-Key: k$i" \
        -H 'Content-Type: application/json' --data-binary @- "$url/v1/episodes" >"$C/recommend/receipt-$i"
done
sleep 1
curl -sf "$url/v1/billboard" >"$C/billboard/latest"
curl -sf "$url/v1/privacy" >"$C/recommend/privacy"
rec='{"h": 1, "features": [[0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]]}'
put recommend req "$rec"
put recommend req-version '{"h": 3, "version": 1, "features": [[0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]], "episode_key": "abc-123"}'
put recommend req-h0 '{"h": 0, "features": [[0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]]}'
put recommend req-short '{"h": 1, "features": [[0.1, 0.2], [0.4, 0.3, 0.2, 0.1]]}'
put recommend req-norm '{"h": 1, "features": [[9, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]]}'
printf '%s' "$rec" | curl -sf -X POST -H "Authorization: Bearer $tok" -H 'Content-Type: application/json' \
    --data-binary @- "$url/v1/recommend" >"$C/recommend/resp" || true
kill "$pid"
wait "$pid" || true
b=$(cat "$C/billboard/latest")
put billboard truncated "${b:0:200}"
put billboard not-json "{"
put billboard wrong-size "$(printf '%s' "$b" | python3 -c 'import json,sys; d=json.load(sys.stdin); d["d"]=d["d"]+1; print(json.dumps(d))')"
put billboard negative-dims "$(printf '%s' "$b" | python3 -c 'import json,sys; d=json.load(sys.stdin); d["H"]=-1; print(json.dumps(d))')"
put billboard huge-dims "$(printf '%s' "$b" | python3 -c 'import json,sys; d=json.load(sys.stdin); d["A"]=2**31-1; print(json.dumps(d))')"
put billboard null-numbers "$(printf '%s' "$b" | sed 's/\[\([-0-9]\)/[null, \1/')"

# ---- the configuration file ----
cp deploy/billboardd.conf "$C/conffile/example"
put conffile small $'# comment\nhorizon = 3\ndim = 4\nactions = 2\nmax-episodes = 64\nrho = 1\n'
put conffile no-equals $'horizon 3\n'
put conffile no-value $'horizon =\n'
put conffile bad-key $'Hor!zon = 3\n'
put conffile twice $'horizon = 3\nhorizon = 4\n'
put conffile unknown $'colour = blue\n'
put conffile out-of-range $'horizon = 99999999999999999999\nrho = -1\nthreads = 0\n'
put conffile crlf $'horizon = 3\r\ndim = 4\r\n'
put conffile nul $'horizon = 3\x01\n'
put conffile tls $'tls-cert = /nonexistent\nlisten = 0.0.0.0\n'

# ---- the simulator's environment files ----
cp tests/fixtures/sim_env_*.json "$C/envfile/"

# ---- raw requests (fuzz_request.c: @TOKEN@, @ADMIN@) ----
req() { # NAME METHOD PATH [HEADERS...] -- BODY
    local name=$1 method=$2 path=$3
    shift 3
    local hdrs="" body=""
    while [ $# -gt 0 ] && [ "$1" != -- ]; do hdrs+="$1"$'\r\n'; shift; done
    [ $# -gt 0 ] && { shift; body=$1; }
    printf '%s %s HTTP/1.1\r\nHost: localhost\r\n%sContent-Length: %d\r\n\r\n%s' \
        "$method" "$path" "$hdrs" "${#body}" "$body" >"$C/request/$name"
}
J='Content-Type: application/json'
T='Authorization: Bearer @TOKEN@'
AD='Authorization: Bearer @ADMIN@'
req episode POST /v1/episodes "$T" "$J" 'Idempotency-Key: key-1' -- "$good"
req episode-nokey POST /v1/episodes "$T" "$J" -- "$good"
req episode-badkey POST /v1/episodes "$T" "$J" $'Idempotency-Key: \x01bad' -- "$good"
req episode-noauth POST /v1/episodes "$J" 'Idempotency-Key: key-2' -- "$good"
req episode-media POST /v1/episodes "$T" 'Content-Type: text/plain' 'Idempotency-Key: key-3' -- "$good"
req episode-bad POST /v1/episodes "$T" "$J" 'Idempotency-Key: key-4' -- "$(cat "$C/episode/action-range")"
req episode-malformed POST /v1/episodes "$T" "$J" 'Idempotency-Key: key-5' -- '{"steps": '
req recommend POST /v1/recommend "$T" "$J" -- "$rec"
req billboard GET /v1/billboard
req billboard-v GET /v1/billboard/0
req billboard-etag GET /v1/billboard 'If-None-Match: "x", *'
req billboard-badv GET /v1/billboard/-1
req privacy GET /v1/privacy
req config GET /v1/config
req openapi GET /v1/openapi.json
req clinics-get GET /v1/clinics "$AD"
req clinics-post POST /v1/clinics "$AD" "$J" -- '{"name": "another"}'
req clinics-badname POST /v1/clinics "$AD" "$J" -- '{"name": 5}'
req clinics-delete DELETE /v1/clinics/999 "$AD"
req readyz GET /readyz
req metrics GET /metrics
req traversal GET /v1/billboard/../../etc/passwd
req method PUT /v1/episodes "$T"
req head HEAD /v1/billboard
printf 'GET /v1/privacy HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/config HTTP/1.1\r\nHost: x\r\n\r\n' >"$C/request/pipelined"
printf 'POST /v1/episodes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer @TOKEN@\r\nContent-Type: application/json\r\nIdempotency-Key: chunked-1\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n{"billboard_ver\r\n0\r\n\r\n' >"$C/request/chunked"
printf 'POST /v1/episodes HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999\r\n\r\n{}' >"$C/request/huge-length"
printf 'GET / HTTP/1.0\r\n\r\n' >"$C/request/http10"
printf 'garbage\r\n\r\n' >"$C/request/garbage"
echo "corpora: $(find "$C" -type f | wc -l) files, $(du -sh "$C" | cut -f1)"
