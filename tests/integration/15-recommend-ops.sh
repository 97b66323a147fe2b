#!/usr/bin/env bash
# POST /v1/recommend against the current and a past billboard (the policy of
# bb_billboard_act, recomputed here from the billboard's JSON; version 0,
# which holds no data, recommends random actions: uniform per ask, or one
# draw per episode given its key), /v1/privacy,
# /v1/config, /livez, /readyz, /metrics.
. "$(dirname "$0")/lib.sh"
start_daemon "${CONF[@]}"
tok=$(enrol "clinic")
post_episodes "$tok" 30
req GET /v1/billboard
cp "$TMP/body" "$TMP/bb"
v=$(jget "$TMP/bb" 'd["version"]')
[ "$v" -ge 1 ] || fail "no update in 30 episodes"

feat='[[0.3, -0.2, 0.5, 0.1], [-0.4, 0.6, 0.0, 0.2]]'
for hv in "1 $v" "3 $v" "2 0"; do
    read -r hstep ver <<<"$hv"
    set -- "$hstep" "$ver"
    req POST /v1/recommend -H "Authorization: Bearer $tok" -H 'Content-Type: application/json' \
        -d "{\"h\": $1, \"features\": $feat, \"billboard_version\": $2}"
    expect_status 200
    req GET "/v1/billboard/$2"
    cp "$TMP/body" "$TMP/bbv"
    req POST /v1/recommend -H "Authorization: Bearer $tok" -H 'Content-Type: application/json' \
        -d "{\"h\": $1, \"features\": $feat, \"billboard_version\": $2}"
    python3 - "$TMP/body" "$TMP/bbv" "$1" "$feat" <<'PY' || fail "recommend disagrees with the billboard"
import json, sys
r = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
h = int(sys.argv[3]); X = json.loads(sys.argv[4])
s = b["steps"][h - 1]; w = s["w"]; G = s["gram"]; n = len(w)
def solve(G, x):  # Gaussian elimination, G symmetric positive definite
    M = [row[:] + [x[i]] for i, row in enumerate(G)]
    for c in range(n):
        for r2 in range(c + 1, n):
            f = M[r2][c] / M[c][c]
            for k in range(c, n + 1):
                M[r2][k] -= f * M[c][k]
    y = [0.0] * n
    for c in reversed(range(n)):
        y[c] = (M[c][n] - sum(M[c][k] * y[k] for k in range(c + 1, n))) / M[c][c]
    return y
q = []
for x in X:
    bonus = sum(a * c for a, c in zip(x, solve(G, x))) ** 0.5
    q.append(min(sum(a * c for a, c in zip(x, w)) + b["beta"] * bonus, b["H"]))
assert r["billboard_version"] == b["version"], r
assert len(r["q"]) == len(X)
for a, c in zip(r["q"], q):
    assert abs(a - c) <= 1e-9 * max(1.0, abs(c)), (r["q"], q)
# Version 0 holds no data: uniform, its action drawn at random (below);
# every later version is greedy.
assert b["uniform"] == (b["version"] == 0), b["uniform"]
if not b["uniform"]:
    assert r["action"] == max(range(len(q)), key=lambda i: (q[i], -i)), r
assert 0 <= r["action"] < len(q), r
PY
done
# At version 0 the daemon draws the action uniformly: over 60 asks both
# actions come up (all 60 alike has probability 2^-59).
seen=""
for i in $(seq 1 60); do
    req POST /v1/recommend -H "Authorization: Bearer $tok" -H 'Content-Type: application/json' \
        -d "{\"h\": 2, \"features\": $feat, \"billboard_version\": 0}"
    expect_status 200
    seen="$seen $(jget "$TMP/body" 'd["action"]')"
done
for a in 0 1; do
    case " $seen " in *" $a "*) ;; *) fail "version 0 never recommended action $a in 60 asks:$seen" ;; esac
done
# With an episode key, version 0's random action is the episode's own draw
# for that step: the same at every ask for the same key, step and state
# (proto/explore.c; test_policy checks the draws' distribution and their
# correlation across steps), and different keys draw both actions. Later
# versions ignore the key. A malformed key is a 422 at its pointer.
seen=""
for i in $(seq 1 40); do
    acts=""
    for h in 1 2 3 1; do
        req POST /v1/recommend -H "Authorization: Bearer $tok" -H 'Content-Type: application/json' \
            -d "{\"h\": $h, \"features\": $feat, \"billboard_version\": 0, \"episode_key\": \"ep-$i\"}"
        expect_status 200
        acts="$acts $(jget "$TMP/body" 'd["action"]')"
    done
    read -r a1 a2 a3 a1again <<<"$acts"
    [ "$a1" = "$a1again" ] || fail "episode ep-$i drew step 1 twice differently:$acts"
    seen="$seen $a1 $a2 $a3"
done
for a in 0 1; do
    case " $seen " in *" $a "*) ;; *) fail "no episode key drew action $a at version 0:$seen" ;; esac
done
req POST /v1/recommend -H "Authorization: Bearer $tok" -H 'Content-Type: application/json' \
    -d "{\"h\": 1, \"features\": $feat, \"billboard_version\": $v}"
greedy=$(jget "$TMP/body" 'd["action"]')
req POST /v1/recommend -H "Authorization: Bearer $tok" -H 'Content-Type: application/json' \
    -d "{\"h\": 1, \"features\": $feat, \"billboard_version\": $v, \"episode_key\": \"ep-1\"}"
[ "$(jget "$TMP/body" 'd["action"]')" = "$greedy" ] || fail "an episode key changed version $v's greedy action"
req POST /v1/recommend -H "Authorization: Bearer $tok" -H 'Content-Type: application/json' \
    -d "{\"h\": 1, \"features\": $feat, \"episode_key\": \"ep 1\"}"
expect_status 422
[ "$(jget "$TMP/body" 'd["pointer"]')" = /episode_key ] || fail "bad episode key: $(cat "$TMP/body")"
[ "$(sql 'SELECT count(*) FROM episodes')" = 30 ] || fail "recommend stored something"

req GET /v1/config
cp "$TMP/body" "$TMP/config"
req GET /v1/privacy
expect_status 200
python3 - "$TMP/body" "$v" "$TMP/config" <<'PY' || fail "privacy: $(cat "$TMP/body")"
import json, sys
d = json.load(open(sys.argv[1])); v = int(sys.argv[2])
c = json.load(open(sys.argv[3]))
a, rho_r = c["first_share"], c["rho_rewards"]
assert d["episodes"] == 30 and d["max_episodes"] == 64
assert d["updates"] >= v and d["max_updates"] >= d["updates"]
assert abs(d["gram"]["spent"] + d["gram"]["remaining"] - d["gram"]["rho"]) < 1e-9 * d["rho"]
# the reward stream's rho_R with the first episode (docs/PRIVACY.md §2.4);
# update 1 spends a of the average share of the rest, each later one
# (N - a) / (N - 1)
u, n = d["updates"], d["max_updates"]
assert a > 1 and u >= 2 and 0 < rho_r < d["y"]["rho"], (a, u, rho_r)
shares = (a + (u - 1) * (n - a) / (n - 1)) / n
assert abs(d["y"]["spent"] - rho_r - (d["y"]["rho"] - rho_r) * shares) < 1e-9 * d["rho"]
assert d["rho_spent"] <= d["rho"]
PY
req GET /v1/config
expect_status 200
[ "$(jget "$TMP/body" '"sigma_gram" in d and "sigma_y" in d and "shift" in d and "max_updates" in d')" = true ] ||
    fail "config lacks derived sigmas"

req GET /livez
expect_status 200
req GET /readyz
expect_status 200
# /metrics is the operator's: counts and durations are not DP outputs.
req GET /metrics
expect_problem 401
[ "$(header WWW-Authenticate)" = Bearer ] || fail "401 on /metrics without WWW-Authenticate: Bearer"
req GET /metrics -H "Authorization: Bearer $tok"
expect_problem 403
req PUT /v1/billboard
expect_problem 405
req GET /metrics -H "Authorization: Bearer $ADMIN"
expect_status 200
# Each status under its own code: the 405 under its route, the 401 and 403
# of /metrics itself; latency histograms per route; build and process facts.
grep -q '^billboard_http_requests_total{route="/v1/billboard",method="other",code="405"} 1$' \
    "$TMP/body" || fail "405: $(grep requests_total "$TMP/body")"
grep -q '^billboard_http_requests_total{route="/metrics",method="GET",code="403"} 1$' "$TMP/body" ||
    fail "403 of /metrics not counted"
grep -q 'code="other"' "$TMP/body" && fail "a status counted as other"
grep -q '^billboard_http_request_duration_seconds_bucket{route="/v1/episodes",method="POST",le="+Inf"} 30$' \
    "$TMP/body" || fail "latency histogram: $(grep duration_seconds_count "$TMP/body")"
grep -q '^billboard_update_duration_seconds_bucket{le="+Inf"} [1-9]' "$TMP/body" ||
    fail "update histogram"
grep -Eq '^billboard_build_info\{version="[^"]+"\} 1$' "$TMP/body" || fail "build_info"
for m in process_start_time_seconds process_resident_memory_bytes process_open_fds; do
    grep -Eq "^$m [0-9.e+]+$" "$TMP/body" || fail "no $m"
done
grep -q '^billboard_http_requests_total{route="/v1/episodes",method="POST",code="201"} 30$' "$TMP/body" ||
    fail "metrics: $(grep requests_total "$TMP/body")"
grep -q '^billboard_episodes 30$' "$TMP/body" || fail "episodes gauge"
grep -q '^billboard_update_duration_seconds_count [1-9]' "$TMP/body" || fail "update duration"
grep -q '^billboard_rho_spent_gram ' "$TMP/body" || fail "budget gauge"
grep -Eq '(clinic|clinic_id|name)="' "$TMP/body" && fail "a metric has a clinic label"
grep -q "$tok" "$TMP/body" && fail "a metric shows a token"
stop_daemon
echo ok
