#!/usr/bin/env bash
# Clinic administration: enrol (token shown once, stored only hashed), list,
# revoke; admin auth (401 without a valid token, 403 for a clinic's token);
# revoked tokens refused, also after a restart.
. "$(dirname "$0")/lib.sh"
start_daemon "${CONF[@]}"

# Admin routes need the admin token.
req GET /v1/clinics
expect_problem 401
req GET /v1/clinics -H "Authorization: Bearer not-the-admin-token-at-all"
expect_problem 401
req POST /v1/clinics -H 'Content-Type: application/json' -d '{"name": "x"}'
expect_problem 401

t1=$(enrol "North clinic")
t2=$(enrol "South clinic")
[ "${#t1}" -ge 40 ] || fail "short token $t1"
[ "$t1" != "$t2" ] || fail "two clinics got the same token"
req GET /v1/clinics -H "Authorization: Bearer $ADMIN"
expect_status 200
[ "$(jget "$TMP/body" '[c["name"] for c in d["clinics"]]')" = '["North clinic", "South clinic"]' ] ||
    fail "list: $(cat "$TMP/body")"
grep -q "bbt_" "$TMP/body" && fail "the list shows a token"
# Only a keyed hash is stored: the token appears nowhere in the database.
sql "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
if grep -qa "${t1#bbt_}" "$DB"*; then fail "plaintext token in the database"; fi
[ "$(sql "SELECT length(token_hash) FROM clinics WHERE id = 1")" = 32 ] || fail "hash size"

# A clinic's valid token on an admin route is a role error: 403 with its
# own type, no challenge; an invalid one stays 401 with WWW-Authenticate.
for m in "GET /v1/clinics" "DELETE /v1/clinics/2" "POST /v1/clinics"; do
    req "${m% *}" "${m#* }" -H "Authorization: Bearer $t1" -H 'Content-Type: application/json' \
        -d '{"name": "sneaky"}'
    expect_problem 403
    [ "$(jget "$TMP/body" 'd["type"]')" = urn:billboard:problem:forbidden ] ||
        fail "$m: 403 type: $(cat "$TMP/body")"
    [ -z "$(header WWW-Authenticate)" ] || fail "$m: 403 with a WWW-Authenticate challenge"
done
req GET /v1/clinics -H "Authorization: Bearer ${t1}x"
expect_problem 401
[ "$(header WWW-Authenticate)" = Bearer ] || fail "401 without WWW-Authenticate"
[ "$(jget "$TMP/body" 'd["type"]')" = urn:billboard:problem:unauthorized ] || fail "401 type"
[ "$(sql 'SELECT count(*) FROM clinics WHERE revoked IS NULL')" = 2 ] || fail "a 403 changed something"

# Bad enrolments change nothing.
req POST /v1/clinics -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' -d '{}'
expect_problem 422
[ "$(jget "$TMP/body" 'd["pointer"]')" = /name ] || fail "pointer: $(cat "$TMP/body")"
req POST /v1/clinics -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' -d '{"name": ""}'
expect_problem 422
req POST /v1/clinics -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' -d '{"name": "a", "name": "b"}'
expect_problem 400
req POST /v1/clinics -H "Authorization: Bearer $ADMIN" -H 'Content-Type: text/plain' -d '{"name": "a"}'
expect_problem 415
[ "$(sql 'SELECT count(*) FROM clinics')" = 2 ] || fail "a bad enrolment was stored"

# Both tokens work; revoke the first.
episode 1 >"$TMP/e1"
post_episode "$t1" key-1 "$TMP/e1"
expect_status 201
req DELETE /v1/clinics/1 -H "Authorization: Bearer $ADMIN"
expect_status 204
req DELETE /v1/clinics/99 -H "Authorization: Bearer $ADMIN"
expect_problem 404
req DELETE /v1/clinics/abc -H "Authorization: Bearer $ADMIN"
expect_problem 404
req DELETE /v1/clinics/2
expect_problem 401
# A revoked token is no valid token of any role: 401, not 403.
req GET /v1/clinics -H "Authorization: Bearer $t1"
expect_problem 401
episode 2 >"$TMP/e2"
post_episode "$t1" key-2 "$TMP/e2"
expect_problem 401
# Even the replay of an earlier key: a revoked token can do nothing.
post_episode "$t1" key-1 "$TMP/e1"
expect_problem 401
req POST /v1/recommend -H "Authorization: Bearer $t1" -H 'Content-Type: application/json' \
    -d '{"h": 1, "features": [[0.1, 0, 0, 0], [0, 0.1, 0, 0]]}'
expect_problem 401
post_episode "$t2" key-2 "$TMP/e2"
expect_status 201
req GET /v1/clinics -H "Authorization: Bearer $ADMIN"
[ "$(jget "$TMP/body" 'd["clinics"][0]["revoked"] is not None, d["clinics"][1]["revoked"]')" = "(True, None)" ] ||
    fail "revocation not listed: $(cat "$TMP/body")"

# The revocation survives a restart.
stop_daemon
start_daemon
post_episode "$t1" key-3 "$TMP/e2"
expect_problem 401
post_episode "$t2" key-3 "$TMP/e1"
expect_status 201
[ "$(sql 'SELECT count(*) FROM episodes')" = 3 ] || fail "episode count"
echo ok
