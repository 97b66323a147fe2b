#!/usr/bin/env bash
# Episodes until the billboard version rises; ETag and 304; past versions
# byte-identical (also after a restart); Idempotency-Key replay counted once.
. "$(dirname "$0")/lib.sh"
start_daemon "${CONF[@]}"
tok=$(enrol "clinic")

req GET /v1/billboard
expect_status 200
cp "$TMP/body" "$TMP/v0"
etag0=$(header ETag)
[[ -n "$etag0" && "${etag0:0:1}" = '"' ]] || fail "no strong ETag: '$etag0'"
[ "$(jget "$TMP/v0" 'd["version"], d["episode"]')" = "(0, 0)" ] || fail "v0: $(head -c 200 "$TMP/v0")"
# Version 0: w = 0 and Lambda~ = ridge I.
python3 - "$TMP/v0" <<'PY' || fail "version 0 is not w = 0, gram = ridge I"
import json, sys
b = json.load(open(sys.argv[1]))
for s in b["steps"]:
    assert all(x == 0 for x in s["w"])
    g = s["gram"]
    r = g[0][0]
    assert r > 0
    for i in range(len(g)):
        for j in range(len(g)):
            assert g[i][j] == (r if i == j else 0)
PY
req GET /v1/billboard -H "If-None-Match: $etag0"
expect_status 304
[ ! -s "$TMP/body" ] || fail "304 with a body"
req GET /v1/billboard -H 'If-None-Match: "something-else"'
expect_status 200
# HEAD: the same headers, no body.
STATUS=$(curl -s --max-time 10 -I -o "$TMP/head" -w '%{http_code}' "$URL/v1/billboard")
[ "$STATUS" = 200 ] || fail "HEAD answered $STATUS"
grep -qi "^etag: $etag0" "$TMP/head" || fail "HEAD without the ETag: $(cat "$TMP/head")"

# Submit until the version rises.
v=0
for i in $(seq 1 40); do
    episode "$i" "$v" >"$TMP/e"
    post_episode "$tok" "key-$i" "$TMP/e"
    expect_status 201
    [ "$(jget "$TMP/body" 'd["episode"]')" = "$i" ] || fail "episode $i numbered $(cat "$TMP/body")"
    req GET /v1/billboard
    v=$(jget "$TMP/body" 'd["version"]')
    [ "$v" -ge 1 ] && break
done
[ "$v" -ge 1 ] || fail "no update after 40 episodes"
n=$i
cp "$TMP/body" "$TMP/v$v"
etag1=$(header ETag)
[ "$etag1" != "$etag0" ] || fail "new version, same ETag"
req GET /v1/billboard -H "If-None-Match: $etag0"
expect_status 200
cmp -s "$TMP/body" "$TMP/v$v" || fail "billboard bytes changed between two GETs"
[ "$(jget "$TMP/body" 'd["episode"] >= 1 and any(x != 0 for s in d["steps"] for x in s["w"])')" = true ] ||
    fail "the new billboard has no data"

# The past version, byte for byte, with its own ETag and 304.
req GET /v1/billboard/0
expect_status 200
cmp -s "$TMP/body" "$TMP/v0" || fail "/v1/billboard/0 differs from the first billboard"
[ "$(header ETag)" = "$etag0" ] || fail "ETag of version 0 changed"
req GET /v1/billboard/0 -H "If-None-Match: $etag0"
expect_status 304
req GET "/v1/billboard/$v"
cmp -s "$TMP/body" "$TMP/v$v" || fail "/v1/billboard/$v differs from the current one"
req GET /v1/billboard/999
expect_problem 404
req GET /v1/billboard/x1
expect_problem 404

# Replay: same key, same body -> same answer, stored once.
episode 1000 >"$TMP/r"
post_episode "$tok" replay-key "$TMP/r"
expect_status 201
cp "$TMP/body" "$TMP/first"
k=$(jget "$TMP/body" 'd["episode"]')
[ "$k" = $((n + 1)) ] || fail "episode numbered $k, want $((n + 1))"
for _ in 1 2 3; do
    post_episode "$tok" replay-key "$TMP/r"
    expect_status 201
    cmp -s "$TMP/body" "$TMP/first" || fail "replay answered differently: $(cat "$TMP/body")"
    [ "$(header Idempotent-Replayed)" = true ] || fail "replay not marked"
done
[ "$(sql 'SELECT count(*) FROM episodes')" = "$k" ] || fail "a replay was stored"
req GET /v1/privacy
[ "$(jget "$TMP/body" 'd["episodes"]')" = "$k" ] || fail "privacy counts $(cat "$TMP/body")"
# Keys are scoped per clinic: another clinic may use the same key.
tok2=$(enrol "other")
post_episode "$tok2" replay-key "$TMP/r"
expect_status 201
[ "$(jget "$TMP/body" 'd["episode"]')" = $((k + 1)) ] || fail "per-clinic key scope"

# After a restart every version is still the same bytes, and a replay
# still answers as before.
stop_daemon
start_daemon
req GET /v1/billboard/0
cmp -s "$TMP/body" "$TMP/v0" || fail "version 0 changed across a restart"
req GET "/v1/billboard/$v"
cmp -s "$TMP/body" "$TMP/v$v" || fail "version $v changed across a restart"
post_episode "$tok" replay-key "$TMP/r"
cmp -s "$TMP/body" "$TMP/first" || fail "replay after restart: $(cat "$TMP/body")"
req GET /v1/privacy
[ "$(jget "$TMP/body" 'd["episodes"]')" = $((k + 1)) ] || fail "privacy after restart $(cat "$TMP/body")"
stop_daemon
echo ok
