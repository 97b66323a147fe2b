#!/usr/bin/env bash
# The daemon serves its spec at GET /v1/openapi.json, and the spec and the
# router agree: every route of `billboardd --print-routes` is a path and
# method of the served spec, and every path and method of the spec is a
# route the daemon serves. The served document is proto/openapi.yaml
# (as JSON, embedded at build time), is served without a token with
# application/json, a strong ETag that answers If-None-Match with 304, and
# Cache-Control; every $ref in it resolves. 70-openapi-examples.sh checks
# the statuses.
. "$(dirname "$0")/lib.sh"
SPEC="$TESTS_DIR/../../proto/openapi.yaml"
[ -f "$SPEC" ] || fail "no $SPEC"
"$BB" --print-routes | sort >"$TMP/routes"
[ -s "$TMP/routes" ] || fail "--print-routes printed nothing"
start_daemon "${CONF[@]}"

# Served without a token (a wrong one is ignored), as JSON, cacheable.
req GET /v1/openapi.json -H 'Authorization: Bearer not-a-token'
expect_status 200
cp "$TMP/body" "$TMP/spec.json"
[ "$(header Content-Type)" = application/json ] || fail "Content-Type '$(header Content-Type)'"
etag=$(header ETag)
[[ "$etag" =~ ^\"[0-9a-f]{16}\"$ ]] || fail "ETag '$etag' is not a strong ETag"
[ "$(header Cache-Control)" = "public, max-age=300" ] || fail "Cache-Control '$(header Cache-Control)'"
req GET /v1/openapi.json -H "If-None-Match: $etag"
expect_status 304
[ "$(header ETag)" = "$etag" ] || fail "304 with ETag '$(header ETag)'"
[ ! -s "$TMP/body" ] || fail "304 with a body"
req GET /v1/openapi.json -H 'If-None-Match: "0000000000000000"'
expect_status 200
cmp -s "$TMP/body" "$TMP/spec.json" || fail "the spec's bytes changed between two requests"

# It is proto/openapi.yaml: the same document, not an older build's. PyYAML
# comes with deploy/install-deps (python3-yaml); use whichever python3 has it.
YPY=
for py in "$PYTHON" /usr/bin/python3; do
    if "$py" -c 'import yaml' 2>/dev/null; then YPY=$py; break; fi
done
[ -n "$YPY" ] || fail "no python3 with PyYAML (deploy/install-deps installs python3-yaml)"
"$YPY" - "$SPEC" "$TMP/spec.json" "$TMP/spec-routes" <<'PY' || fail "the served spec is not proto/openapi.yaml, or is incomplete"
import json, sys, yaml
src = yaml.safe_load(open(sys.argv[1], encoding="utf-8"))
s = json.load(open(sys.argv[2], encoding="utf-8"))
assert s == src, "GET /v1/openapi.json differs from proto/openapi.yaml: rebuild"
assert s["openapi"].startswith("3.1"), s["openapi"]

def refs(node):
    if isinstance(node, dict):
        if "$ref" in node:
            yield node["$ref"]
        for v in node.values():
            yield from refs(v)
    elif isinstance(node, list):
        for v in node:
            yield from refs(v)

for ref in refs(s):
    assert ref.startswith("#/"), ref
    node = s
    for part in ref[2:].split("/"):
        assert isinstance(node, dict) and part in node, f"$ref {ref} does not resolve"
        node = node[part]
with open(sys.argv[3], "w") as out:
    for path, item in s["paths"].items():
        for method, op in item.items():
            if method in ("get", "put", "post", "delete", "patch", "head", "options", "trace"):
                assert op.get("responses"), (path, method)
                print(method.upper(), path, file=out)
PY
sort -o "$TMP/spec-routes" "$TMP/spec-routes"
if ! diff -u "$TMP/spec-routes" "$TMP/routes"; then
    fail "the served spec and the router disagree (- spec, + billboardd --print-routes)"
fi

# The route table is what is served: each path and method of the spec,
# with its path parameters naming things that exist, is neither 404 (no
# such path) nor 405 (no such method). 70-openapi-examples.sh checks the
# exact statuses.
enrol clinic >/dev/null
id=$(jget "$TMP/body" 'd["id"]')
while read -r method path; do
    p=${path//\{version\}/0}
    p=${p//\{id\}/$id}
    [[ "$p" != *"{"* ]] || fail "$path: this test does not know a value for its parameter"
    req "$method" "$p"
    [ "$STATUS" != 404 ] || fail "$method $path is 404"
    [ "$STATUS" != 405 ] || fail "$method $path is 405"
done <"$TMP/spec-routes"
stop_daemon
echo ok
