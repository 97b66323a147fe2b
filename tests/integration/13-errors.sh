#!/usr/bin/env bash
# Every error class answers with its status and an application/problem+json
# body, and changes nothing: same episodes, keys, node noise, billboard.
. "$(dirname "$0")/lib.sh"
start_daemon "${CONF[@]}" --max-body 8192
tok=$(enrol "clinic")
episode 1 >"$TMP/good"
post_episode "$tok" first "$TMP/good"
expect_status 201

snapshot() {
    {
        sql "SELECT k, clinic_id, hex(features), hex(actions), hex(rewards) FROM episodes ORDER BY k"
        sql "SELECT clinic_id, key, hex(body_hash), response FROM idempotency ORDER BY clinic_id, key"
        sql "SELECT step, slot, tag, hex(bytes) FROM mech_state ORDER BY step, slot"
        sql "SELECT version, etag, hex(body) FROM billboards ORDER BY version"
        sql "SELECT id, name, coalesce(revoked, 0) FROM clinics ORDER BY id"
        curl -s "$URL/v1/privacy"
        curl -s -D - -o /dev/null "$URL/v1/billboard" | tr -d '\r' | grep -i '^etag'
    } | sha256sum
}
before=$(snapshot)

post() { # KEY BODY-STRING [extra curl args]
    local key=$1 body=$2
    shift 2
    req POST /v1/episodes -H "Authorization: Bearer $tok" -H "Idempotency-Key: $key" \
        -H 'Content-Type: application/json' --data-binary "$body" "$@"
}
mutate() { # PYTHON-STATEMENT on e (the good episode), prints the body
    python3 -c 'import json,sys; e=json.load(open(sys.argv[1])); exec(sys.argv[2]); print(json.dumps(e))' \
        "$TMP/good" "$1"
}
expect_pointer() {
    expect_problem 422
    [ "$(jget "$TMP/body" 'd["pointer"]')" = "$1" ] || fail "pointer: $(cat "$TMP/body"), want $1"
}

# 400: not JSON, NaN, Infinity, duplicate keys, not an object, empty.
post k400a '{"billboard_version": 0, "steps": ['
expect_problem 400
post k400b "$(sed 's/"reward": [0-9.e-]*/"reward": NaN/' "$TMP/good")"
expect_problem 400
post k400c "$(sed 's/"reward": [0-9.e-]*/"reward": Infinity/' "$TMP/good")"
expect_problem 400
post k400d "$(sed 's/^{/{"billboard_version": 0, /' "$TMP/good")"
expect_problem 400
post k400e '[1, 2, 3]'
expect_problem 400
post k400f ''
expect_problem 400
# 400: Idempotency-Key missing, too long, not visible ASCII.
req POST /v1/episodes -H "Authorization: Bearer $tok" -H 'Content-Type: application/json' \
    --data-binary "@$TMP/good"
expect_problem 400
post "$(printf 'k%.0s' $(seq 1 129))" "$(cat "$TMP/good")"
expect_problem 400

# 401: no token, wrong token.
req POST /v1/episodes -H "Idempotency-Key: k401" -H 'Content-Type: application/json' \
    --data-binary "@$TMP/good"
expect_problem 401
[ "$(header WWW-Authenticate)" = Bearer ] || fail "401 without WWW-Authenticate"
req POST /v1/episodes -H "Authorization: Bearer bbt_wrong" -H "Idempotency-Key: k401" \
    -H 'Content-Type: application/json' --data-binary "@$TMP/good"
expect_problem 401
[ "$(jget "$TMP/body" 'd["type"]')" = urn:billboard:problem:unauthorized ] || fail "401 type"
# 403: the admin token is valid, but not a clinic's (a role error, not a
# credential error: no WWW-Authenticate challenge).
req POST /v1/episodes -H "Authorization: Bearer $ADMIN" -H "Idempotency-Key: k403" \
    -H 'Content-Type: application/json' --data-binary "@$TMP/good"
expect_problem 403
[ "$(jget "$TMP/body" 'd["type"]')" = urn:billboard:problem:forbidden ] || fail "403 type"
[ -z "$(header WWW-Authenticate)" ] || fail "403 with a WWW-Authenticate challenge"

# 415: wrong or missing media type.
req POST /v1/episodes -H "Authorization: Bearer $tok" -H "Idempotency-Key: k415" \
    -H 'Content-Type: text/plain' --data-binary "@$TMP/good"
expect_problem 415
req POST /v1/episodes -H "Authorization: Bearer $tok" -H "Idempotency-Key: k415" \
    -H 'Content-Type:' --data-binary "@$TMP/good"
expect_problem 415

# 413: over the cap, declared up front and sent chunked without a length.
python3 -c 'print("{\"pad\": \"" + "x" * 9000 + "\"}")' >"$TMP/big"
req POST /v1/episodes -H "Authorization: Bearer $tok" -H "Idempotency-Key: k413" \
    -H 'Content-Type: application/json' --data-binary "@$TMP/big"
expect_problem 413
req POST /v1/episodes -H "Authorization: Bearer $tok" -H "Idempotency-Key: k413b" \
    -H 'Content-Type: application/json' -H 'Transfer-Encoding: chunked' --data-binary "@$TMP/big"
expect_problem 413

# 422 with a JSON pointer: norm > 1, reward out of [0,1], action out of
# range, wrong dimensions, missing field, unknown billboard version.
post k422a "$(mutate 'e["steps"][1]["features"][1] = [1, 1, 0, 0]')"
expect_pointer /steps/1/features/1
post k422b "$(mutate 'e["steps"][2]["reward"] = 1.5')"
expect_pointer /steps/2/reward
post k422c "$(mutate 'e["steps"][0]["action"] = 2')"
expect_pointer /steps/0/action
post k422d "$(mutate 'e["steps"].pop()')"
expect_problem 422
post k422e "$(mutate 'e["steps"][0]["features"][0].append(0)')"
expect_problem 422
post k422f "$(mutate 'del e["steps"][0]["reward"]')"
expect_problem 422
post k422g "$(mutate 'e["billboard_version"] = 7')"
expect_pointer /billboard_version

# 409: the same key with another body.
post first "$(mutate 'e["steps"][0]["reward"] = 0.123')"
expect_problem 409

# 404 and 405.
req GET /v1/nothing
expect_problem 404
req DELETE /v1/billboard
expect_problem 405
[ "$(header Allow)" = GET ] || fail "405 without Allow: GET"
req PUT /v1/clinics
expect_problem 405
[ "$(header Allow)" = "POST, GET" ] || fail "Allow: $(header Allow)"

req GET /v1/episodes
expect_problem 405

# Recommend: 422 and 400 too.
rec() {
    req POST /v1/recommend -H "Authorization: Bearer $tok" -H 'Content-Type: application/json' \
        --data-binary "$1"
}
rec '{"h": 0, "features": [[0.1, 0, 0, 0], [0, 0.1, 0, 0]]}'
expect_pointer /h
rec '{"h": 1, "features": [[0.1, 0, 0, 0]]}'
expect_pointer /features
rec '{"h": 1, "features": [[0.1, 0, 0, 0], [2, 0, 0, 0]]}'
expect_pointer /features/1
rec '{"h": 1, "features": [[0.1, 0, 0, 0], [0, 0.1, 0, 0]], "billboard_version": 42}'
expect_pointer /billboard_version
rec '{"h": 1, "h": 2}'
expect_problem 400

[ "$(snapshot)" = "$before" ] || fail "an error changed the state"
# And the good episode still goes in afterwards, numbered 2.
episode 2 >"$TMP/good2"
post_episode "$tok" second "$TMP/good2"
expect_status 201
[ "$(jget "$TMP/body" 'd["episode"]')" = 2 ] || fail "numbering after errors: $(cat "$TMP/body")"
stop_daemon

stored_one() { # FEATURES: one episode stored, /v1/config names FEATURES with the bounds
    [ "$(sql "SELECT count(*) FROM episodes")" = 1 ] || fail "the $1 episode was not stored"
    req GET /v1/config
    [ "$(jget "$TMP/body" 'd["features"], d["next_value_bound"], d["y_sensitivity"]')" = "('$1', True, 'centred')" ] ||
        fail "config: $(cat "$TMP/body")"
}

# --features simplex (docs/PRIVACY.md §3.3): a row with a negative entry or
# a sum above 1 is refused with its pointer even inside the unit ball, and
# changes nothing; rows in the simplex go in.
DB="$TMP/simplex.db"
start_daemon "${CONF[@]}" --features simplex
tok=$(enrol "clinic")
before=$(snapshot)
want=$(python3 -c '
import json, sys
e = json.load(open(sys.argv[1]))
print(next("/steps/%d/features/%d" % (h, a) for h, s in enumerate(e["steps"])
           for a, f in enumerate(s["features"]) if min(f) < 0))' "$TMP/good")
post s422a "$(cat "$TMP/good")"
expect_pointer "$want"
grep -q "negative" "$TMP/body" || fail "unclear message: $(cat "$TMP/body")"
post s422b "$(mutate '
for s in e["steps"]:
    s["features"] = [[0.9 * abs(x) / sum(map(abs, f)) for x in f] for f in s["features"]]
e["steps"][2]["features"][1] = [0.6, 0.6, 0, 0]')"
expect_pointer /steps/2/features/1
grep -q "sums to 1.2" "$TMP/body" || fail "unclear message: $(cat "$TMP/body")"
[ "$(snapshot)" = "$before" ] || fail "a refused simplex row changed the state"
# The exact sum of the doubles sent counts, not a rounded one: 1 + 1e-9 is
# refused (as five 0.2 would be: each is above 1/5 as a double);
# 0.1, 0.2, 0.7 and three 1/3 (below 1 as doubles) go in (docs/PRIVACY.md
# §3.3, "Which rows are in the simplex").
post s422c "$(mutate '
for s in e["steps"]:
    s["features"] = [[0.9 * abs(x) / sum(map(abs, f)) for x in f] for f in s["features"]]
e["steps"][1]["features"][0] = [0.5, 0.5, 1e-9, 0]')"
expect_pointer /steps/1/features/0
grep -q "feature row sums to 1.000000001; this billboard.s features are declared simplex (every entry >= 0, their sum <= 1)" "$TMP/body" ||
    fail "message: $(cat "$TMP/body")"
[ "$(snapshot)" = "$before" ] || fail "a refused simplex row changed the state"
post s201 "$(mutate '
for s in e["steps"]:
    s["features"] = [[0.9 * abs(x) / sum(map(abs, f)) for x in f] for f in s["features"]]
e["steps"][0]["features"][0] = [0.1, 0.2, 0.7, 0]
e["steps"][0]["features"][1] = [1 / 3, 1 / 3, 1 / 3, 0]')"
expect_status 201
stored_one simplex
req GET /v1/privacy
grep -q "next-value bound, rewards by stream" "$TMP/body" || fail "privacy: $(cat "$TMP/body")"
stop_daemon

# --features onehot (docs/PRIVACY.md §1.6): a simplex row with two nonzero
# entries is refused with its pointer and changes nothing; one-hot rows go
# in, and the published Gram matrices are exactly diagonal.
DB="$TMP/onehot.db"
start_daemon "${CONF[@]}" --features onehot --release-start 1 --update-rule release
tok=$(enrol "clinic")
onehot='
for s in e["steps"]:
    s["features"] = [[1.0 if j == (a + s["action"]) % len(f) else 0.0 for j in range(len(f))]
                     for a, f in enumerate(s["features"])]'
before=$(snapshot)
post o422 "$(mutate "$onehot"'
e["steps"][1]["features"][0] = [0.5, 0.5] + [0.0] * (len(e["steps"][1]["features"][0]) - 2)')"
expect_pointer /steps/1/features/0
grep -q "2 nonzero entries" "$TMP/body" || fail "unclear message: $(cat "$TMP/body")"
[ "$(snapshot)" = "$before" ] || fail "a refused onehot row changed the state"
post o201 "$(mutate "$onehot")"
expect_status 201
stored_one onehot
req GET /v1/privacy
grep -q "noise on the diagonal (onehot rows)" "$TMP/body" || fail "privacy: $(cat "$TMP/body")"
wait_published
req GET /v1/billboard
python3 - "$TMP/body" <<'PY' || fail "onehot billboard: $(cat "$TMP/body")"
import json, sys
b = json.load(open(sys.argv[1]))
assert b["version"] == 1, b["version"]  # released at k = 1 and updated
grams = [s["gram"] for s in b["steps"]]
assert all(g[i][j] == 0 for g in grams for i in range(len(g)) for j in range(len(g)) if i != j)
PY
stop_daemon
echo ok
